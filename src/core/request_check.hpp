// The checks every request passes before any driver sees it, as status codes
// for the asynchronous API (sessions throw the same findings with messages).
#pragma once

#include "cryptoaccel/algorithm.hpp"
#include "cryptoaccel/request.hpp"

namespace cryptoaccel::detail {

inline ErrorCode check_request(const Algorithm& a, const Request& r) noexcept {
  switch (a.kind) {
    case AlgorithmKind::cipher:
      if (r.op == Operation::digest) return ErrorCode::invalid_argument;
      if (!a.iv_sizes.contains(r.iv.size())) return ErrorCode::invalid_iv_length;
      if (r.out.size() < r.in.size() || (r.in.size() & (a.input_multiple - 1)) != 0 ||
          r.in.size() < a.min_input || !r.tag.empty() || !r.aad.empty())
        return ErrorCode::invalid_length;
      return ErrorCode::ok;
    case AlgorithmKind::aead:
      if (r.op == Operation::digest) return ErrorCode::invalid_argument;
      if (!a.iv_sizes.contains(r.iv.size())) return ErrorCode::invalid_iv_length;
      if (!a.tag_sizes.contains(r.tag.size())) return ErrorCode::invalid_tag_length;
      if (r.out.size() < r.in.size()) return ErrorCode::invalid_length;
      return ErrorCode::ok;
    case AlgorithmKind::digest:
    case AlgorithmKind::mac:
      if (r.op != Operation::digest) return ErrorCode::invalid_argument;
      if (r.out.size() != a.output_size || !r.iv.empty() || !r.tag.empty())
        return ErrorCode::invalid_length;
      return ErrorCode::ok;
  }
  return ErrorCode::invalid_argument;
}

}  // namespace cryptoaccel::detail
