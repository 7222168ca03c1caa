// Digests and HMAC through an AF_ALG hash socket: data is sent with MSG_MORE
// until the last piece; reading the digest finishes the hash. Each stream has
// its own operation socket, which holds its running state.
#include <algorithm>

#include "session_setup.hpp"
#include "sessions.hpp"

namespace cryptoaccel::afalg {
namespace {

// Sends `in` in pieces; the last one without MSG_MORE unless `more`.
int send_all(const Fd& operation, std::span<const std::uint8_t> in, bool more) noexcept {
  do {
    const std::size_t n = std::min(in.size(), kHashChunk);
    const iovec piece{const_cast<std::uint8_t*>(in.data()), n};
    in = in.subspan(n);
    if (const int e = send_data(operation, {&piece, 1}, more || !in.empty()); e != 0) return e;
  } while (!in.empty());
  return 0;
}

class HashStream final : public DigestStream {
 public:
  explicit HashStream(Fd operation, bool started = false)
      : operation_(std::move(operation)), started_(started) {}
  // accept() on an operation socket gives a new one holding a copy of the
  // hash state (algif_hash exports and imports it).
  std::unique_ptr<DigestStream> clone() const override {
    int error = 0;
    Fd copy = accept_operation(operation_, error);
    if (error != 0) throw DriverFailure("afalg: cannot copy a hash stream: " + errno_text(error));
    return std::make_unique<HashStream>(std::move(copy), started_);
  }
  ErrorCode update(std::span<const std::uint8_t> in) noexcept override {
    if (in.empty()) return ErrorCode::ok;
    started_ = true;
    return status_from_errno(send_all(operation_, in, true));
  }
  ErrorCode final(std::span<std::uint8_t> out) noexcept override {
    // With nothing sent yet, an empty last piece starts and ends the hash.
    if (!started_) {
      if (const int e = send_data(operation_, {}, false); e != 0) return status_from_errno(e);
    }
    const iovec digest{out.data(), out.size()};
    return status_from_errno(receive(operation_, {&digest, 1}));
  }

 private:
  Fd operation_;
  bool started_ = false;
};

class HashSession final : public DriverSession {
 public:
  explicit HashSession(Fd transform) : transform_(std::move(transform)) {}

  std::size_t process(std::span<Request> batch) noexcept override {
    for (Request& r : batch) r.status = run(r);
    return batch.size();
  }

  std::unique_ptr<DigestStream> open_stream() override {
    int error = 0;
    Fd operation = accept_operation(transform_, error);
    if (error != 0) throw DriverFailure("afalg: cannot start a hash stream: " + errno_text(error));
    return std::make_unique<HashStream>(std::move(operation));
  }

 private:
  ErrorCode run(Request& r) noexcept {
    if (r.op != Operation::digest) return ErrorCode::unsupported;
    const Fd* operation = operation_.get();
    if (operation == nullptr) return ErrorCode::driver_failure;
    int error = send_all(*operation, r.in, false);
    if (error == 0) {
      const iovec digest{r.out.data(), r.out.size()};
      error = receive(*operation, {&digest, 1});
    }
    if (error != 0) {
      operation_.drop();
      return status_from_errno(error);
    }
    return ErrorCode::ok;
  }

  Fd transform_;
  OperationSocket operation_{transform_};
};

}  // namespace

std::unique_ptr<DriverSession> open_hash(const std::string& driver, bool keyed,
                                         std::span<const std::uint8_t> key) {
  return std::make_unique<HashSession>(keyed_transform(SocketType::hash, driver, key, keyed));
}

}  // namespace cryptoaccel::afalg
