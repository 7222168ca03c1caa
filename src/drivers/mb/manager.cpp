#include "manager.hpp"

namespace cryptoaccel::mb {
std::string arch_name(IMB_ARCH arch) {
  switch (arch) {
    case IMB_ARCH_NOAESNI:
      return "no AES-NI";
    case IMB_ARCH_SSE:
      return "SSE";
    case IMB_ARCH_AVX:
      return "AVX";
    case IMB_ARCH_AVX2:
      return "AVX2";
    case IMB_ARCH_AVX512:
      return "AVX-512";
    default:
      return "unknown";
  }
}

std::string last_error(IMB_MGR& manager) {
  const int code = imb_get_errno(&manager);
  const char* text = imb_get_strerror(code);
  return text != nullptr ? text : "error " + std::to_string(code);
}

}  // namespace cryptoaccel::mb
