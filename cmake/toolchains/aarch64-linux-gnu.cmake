# Target: 64-bit ARM (ARMv8-A), Debian's arm64 (g++-aarch64-linux-gnu).
# See debian-cross.cmake beside this file.
set(CMAKE_SYSTEM_PROCESSOR aarch64)
set(CRYPTOACCEL_CROSS_TRIPLET aarch64-linux-gnu)
set(CRYPTOACCEL_CROSS_DEBIAN_ARCH arm64)
set(CRYPTOACCEL_CROSS_QEMU aarch64)
include(${CMAKE_CURRENT_LIST_DIR}/debian-cross.cmake)
