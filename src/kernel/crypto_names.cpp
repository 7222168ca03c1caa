#include "crypto_names.hpp"

namespace cryptoaccel::kernel {

std::optional<KernelName> kernel_name(AlgorithmId id) noexcept {
  using A = AlgorithmId;
  using S = SocketType;
  switch (id) {
    case A::aes_128_ecb:
    case A::aes_192_ecb:
    case A::aes_256_ecb:
      return KernelName{"ecb(aes)", "aes", "ecb", S::skcipher};
    case A::aes_128_cbc:
    case A::aes_192_cbc:
    case A::aes_256_cbc:
      return KernelName{"cbc(aes)", "aes", "cbc", S::skcipher};
    case A::aes_128_ctr:
    case A::aes_192_ctr:
    case A::aes_256_ctr:
      return KernelName{"ctr(aes)", "aes", "ctr", S::skcipher};
    case A::aes_128_xts:
    case A::aes_256_xts:
      return KernelName{"xts(aes)", "aes", "xts", S::skcipher};
    case A::aes_128_gcm:
    case A::aes_192_gcm:
    case A::aes_256_gcm:
      return KernelName{"gcm(aes)", "", "", S::aead};
    case A::chacha20:
      return KernelName{"chacha20", "", "", S::skcipher};
    case A::chacha20_poly1305:
      return KernelName{"rfc7539(chacha20,poly1305)", "", "", S::aead};
    case A::des_cbc:
      return KernelName{"cbc(des)", "des", "cbc", S::skcipher};
    case A::des_ede3_cbc:
      return KernelName{"cbc(des3_ede)", "des3_ede", "cbc", S::skcipher};
    case A::md5:
      return KernelName{"md5", "", "", S::hash};
    case A::sha1:
      return KernelName{"sha1", "", "", S::hash};
    case A::sha224:
      return KernelName{"sha224", "", "", S::hash};
    case A::sha256:
      return KernelName{"sha256", "", "", S::hash};
    case A::sha384:
      return KernelName{"sha384", "", "", S::hash};
    case A::sha512:
      return KernelName{"sha512", "", "", S::hash};
    case A::ripemd160:
      return KernelName{"rmd160", "", "", S::hash};
    case A::hmac_md5:
      return KernelName{"hmac(md5)", "", "", S::hash};
    case A::hmac_sha1:
      return KernelName{"hmac(sha1)", "", "", S::hash};
    case A::hmac_sha224:
      return KernelName{"hmac(sha224)", "", "", S::hash};
    case A::hmac_sha256:
      return KernelName{"hmac(sha256)", "", "", S::hash};
    case A::hmac_sha384:
      return KernelName{"hmac(sha384)", "", "", S::hash};
    case A::hmac_sha512:
      return KernelName{"hmac(sha512)", "", "", S::hash};
    case A::hmac_ripemd160:
      return KernelName{"hmac(rmd160)", "", "", S::hash};
    // RSA is not an AF_ALG type: the keyring driver reaches the kernel's.
    case A::rsa2048:
    case A::rsa3072:
    case A::rsa4096:
    case A::count:
      break;
  }
  return std::nullopt;
}

std::string_view to_string(SocketType type) noexcept {
  switch (type) {
    case SocketType::skcipher:
      return "skcipher";
    case SocketType::aead:
      return "aead";
    case SocketType::hash:
      return "hash";
  }
  return "?";
}

}  // namespace cryptoaccel::kernel
