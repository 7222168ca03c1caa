# Cross-compiling cryptoaccel with Debian's cross compilers (the
# g++-TRIPLET packages) against a target root of Debian's packages for the
# target architecture: scripts/build-sysroot makes one, as Buildroot's
# staging folder or a Yocto recipe's sysroot would be. Not used directly:
# the per-target files beside this one (aarch64-linux-gnu.cmake...) set
# CRYPTOACCEL_CROSS_TRIPLET, CMAKE_SYSTEM_PROCESSOR and
# CRYPTOACCEL_CROSS_QEMU, then include it.
#
#   cmake -S . -B build-arm64 \
#     -DCMAKE_TOOLCHAIN_FILE=cmake/toolchains/aarch64-linux-gnu.cmake \
#     -DCMAKE_SYSROOT=$(scripts/build-sysroot arm64)
#
# (or CRYPTOACCEL_SYSROOT in the environment instead of CMAKE_SYSROOT).
# Nothing of the build machine is looked up for the target: libraries,
# headers, CMake packages and pkg-config files come from the root only;
# programs (pkg-config itself, the code generators) from the build machine.
set(CMAKE_SYSTEM_NAME Linux)
set(_triplet ${CRYPTOACCEL_CROSS_TRIPLET})
set(CMAKE_C_COMPILER ${_triplet}-gcc)
set(CMAKE_CXX_COMPILER ${_triplet}-g++)
set(CMAKE_ASM_COMPILER ${_triplet}-gcc)

if(NOT CMAKE_SYSROOT AND DEFINED ENV{CRYPTOACCEL_SYSROOT})
  set(CMAKE_SYSROOT $ENV{CRYPTOACCEL_SYSROOT})
endif()
if(NOT CMAKE_SYSROOT)
  message(FATAL_ERROR "No target root: pass -DCMAKE_SYSROOT=DIR (scripts/build-sysroot "
                      "${CRYPTOACCEL_CROSS_DEBIAN_ARCH} makes one) or set CRYPTOACCEL_SYSROOT")
endif()
# try_compile projects configure with this file again: hand them the root.
list(APPEND CMAKE_TRY_COMPILE_PLATFORM_VARIABLES CMAKE_SYSROOT)

# Debian's multiarch layout: usr/lib/TRIPLET, usr/include/TRIPLET.
set(CMAKE_LIBRARY_ARCHITECTURE ${_triplet})
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)
set(ENV{PKG_CONFIG_SYSROOT_DIR} ${CMAKE_SYSROOT})
set(ENV{PKG_CONFIG_LIBDIR}
    "${CMAKE_SYSROOT}/usr/lib/${_triplet}/pkgconfig:${CMAKE_SYSROOT}/usr/share/pkgconfig")
set(ENV{PKG_CONFIG_PATH} "")

# The tests run under qemu-user with the root as its prefix, so the
# programs' own dynamic loader, libc and libcrypto are the target's.
find_program(CRYPTOACCEL_CROSS_EMULATOR qemu-${CRYPTOACCEL_CROSS_QEMU}-static
             qemu-${CRYPTOACCEL_CROSS_QEMU})
if(CRYPTOACCEL_CROSS_EMULATOR)
  set(CMAKE_CROSSCOMPILING_EMULATOR ${CRYPTOACCEL_CROSS_EMULATOR} -L ${CMAKE_SYSROOT})
endif()
