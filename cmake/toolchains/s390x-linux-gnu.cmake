# Target: IBM Z, big-endian, Debian's s390x (g++-s390x-linux-gnu).
# See debian-cross.cmake beside this file.
set(CMAKE_SYSTEM_PROCESSOR s390x)
set(CRYPTOACCEL_CROSS_TRIPLET s390x-linux-gnu)
set(CRYPTOACCEL_CROSS_DEBIAN_ARCH s390x)
set(CRYPTOACCEL_CROSS_QEMU s390x)
include(${CMAKE_CURRENT_LIST_DIR}/debian-cross.cmake)
