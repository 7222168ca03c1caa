# cryptodev-linux, the reference /dev/crypto, from the peer's own tarball
# (tests/vm/build-cryptodev-linux builds its module and test programs; its
# code is never copied into the project). Sets
# CRYPTOACCEL_CRYPTODEV_LINUX_TARBALL (a cache entry) and
# CRYPTOACCEL_CRYPTODEV_LINUX_SHA256.
# The workplace keeps it in shared/peers beside the repository; a clone
# elsewhere (CI's, /tmp/...) finds the workplace's copy at /work/shared.
set(_cdl_default "${PROJECT_SOURCE_DIR}/../shared/peers/cryptodev-linux-08644db.tar.gz")
if(NOT EXISTS "${_cdl_default}" AND EXISTS /work/shared/peers/cryptodev-linux-08644db.tar.gz)
  set(_cdl_default /work/shared/peers/cryptodev-linux-08644db.tar.gz)
endif()
set(CRYPTOACCEL_CRYPTODEV_LINUX_TARBALL "${_cdl_default}"
    CACHE FILEPATH "cryptodev-linux 08644db (git archive) for the guest tests")
set(CRYPTOACCEL_CRYPTODEV_LINUX_SHA256 56aa8f13e695318e9717fd25c2418484ac8aba0cefaec0108438514ff82ecc52)
