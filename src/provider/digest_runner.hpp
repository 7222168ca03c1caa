// EVP's init/update/final over a DigestSession, shared by digests and HMAC.
// Short messages (EVP_Digest, a TLS record's MAC, speed's small sizes) are
// gathered and served as one request, which needs no stream; longer ones
// stream. Either way the framework routes the work.
#pragma once

#include <algorithm>
#include <array>
#include <optional>

#include "cryptoaccel/cryptoaccel.hpp"

namespace cryptoaccel::provider {

class DigestRunner {
 public:
  explicit DigestRunner(DigestSession session) : session_(std::move(session)) {}
  DigestRunner(const DigestRunner& other)
      : session_(other.session_.clone()),
        pending_(other.pending_),
        pending_len_(other.pending_len_),
        streaming_(other.streaming_) {}
  DigestRunner& operator=(const DigestRunner&) = delete;
  ~DigestRunner() { secure_wipe(pending_.data(), pending_len_); }

  std::size_t size() const noexcept { return session_.size(); }

  void restart() noexcept {
    session_.reset();
    secure_wipe(pending_.data(), pending_len_);
    pending_len_ = 0;
    streaming_ = false;
  }

  void update(Bytes in) {
    if (!streaming_) {
      if (in.size() <= kGather - pending_len_) {
        std::copy(in.begin(), in.end(),
                  pending_.begin() + static_cast<std::ptrdiff_t>(pending_len_));
        pending_len_ += in.size();
        return;
      }
      streaming_ = true;
      if (pending_len_ != 0) session_.update({pending_.data(), pending_len_});
      pending_len_ = 0;
    }
    session_.update(in);
  }

  // out.size() == size(). Ends the message; the next update starts another.
  void final(MutableBytes out) {
    if (streaming_)
      session_.final(out);
    else
      session_.digest({pending_.data(), pending_len_}, out);
    restart();
  }

 private:
  static constexpr std::size_t kGather = 256;
  DigestSession session_;
  std::array<std::uint8_t, kGather> pending_{};
  std::size_t pending_len_ = 0;
  bool streaming_ = false;
};

}  // namespace cryptoaccel::provider
