# Target: 32-bit ARM with hardware floating point (ARMv7-A, Thumb-2), Debian's armhf (g++-arm-linux-gnueabihf).
# See debian-cross.cmake beside this file.
set(CMAKE_SYSTEM_PROCESSOR armv7)
set(CRYPTOACCEL_CROSS_TRIPLET arm-linux-gnueabihf)
set(CRYPTOACCEL_CROSS_DEBIAN_ARCH armhf)
set(CRYPTOACCEL_CROSS_QEMU arm)
include(${CMAKE_CURRENT_LIST_DIR}/debian-cross.cmake)
