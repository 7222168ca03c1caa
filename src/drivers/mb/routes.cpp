#include "routes.hpp"

namespace cryptoaccel::mb {

std::optional<Route> route_of(AlgorithmId id) noexcept {
  using A = AlgorithmId;
  switch (id) {
    case A::aes_128_cbc:
      return Route{id, Family::cbc, IMB_KEY_128_BYTES};
    case A::aes_192_cbc:
      return Route{id, Family::cbc, IMB_KEY_192_BYTES};
    case A::aes_256_cbc:
      return Route{id, Family::cbc, IMB_KEY_256_BYTES};
    case A::aes_128_ctr:
      return Route{id, Family::ctr, IMB_KEY_128_BYTES};
    case A::aes_192_ctr:
      return Route{id, Family::ctr, IMB_KEY_192_BYTES};
    case A::aes_256_ctr:
      return Route{id, Family::ctr, IMB_KEY_256_BYTES};
    case A::aes_128_gcm:
      return Route{id, Family::gcm, IMB_KEY_128_BYTES};
    case A::aes_192_gcm:
      return Route{id, Family::gcm, IMB_KEY_192_BYTES};
    case A::aes_256_gcm:
      return Route{id, Family::gcm, IMB_KEY_256_BYTES};
    case A::sha1:
      return Route{id, Family::digest, IMB_KEY_128_BYTES, IMB_AUTH_SHA_1};
    case A::sha224:
      return Route{id, Family::digest, IMB_KEY_128_BYTES, IMB_AUTH_SHA_224};
    case A::sha256:
      return Route{id, Family::digest, IMB_KEY_128_BYTES, IMB_AUTH_SHA_256};
    case A::sha384:
      return Route{id, Family::digest, IMB_KEY_128_BYTES, IMB_AUTH_SHA_384};
    case A::sha512:
      return Route{id, Family::digest, IMB_KEY_128_BYTES, IMB_AUTH_SHA_512};
    case A::hmac_sha1:
      return Route{id, Family::hmac, IMB_KEY_128_BYTES, IMB_AUTH_HMAC_SHA_1};
    case A::hmac_sha224:
      return Route{id, Family::hmac, IMB_KEY_128_BYTES, IMB_AUTH_HMAC_SHA_224};
    case A::hmac_sha256:
      return Route{id, Family::hmac, IMB_KEY_128_BYTES, IMB_AUTH_HMAC_SHA_256};
    case A::hmac_sha384:
      return Route{id, Family::hmac, IMB_KEY_128_BYTES, IMB_AUTH_HMAC_SHA_384};
    case A::hmac_sha512:
      return Route{id, Family::hmac, IMB_KEY_128_BYTES, IMB_AUTH_HMAC_SHA_512};
    default:
      return std::nullopt;
  }
}

}  // namespace cryptoaccel::mb
