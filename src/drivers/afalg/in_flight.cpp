#include "in_flight.hpp"

#include <cerrno>
#include <cstdint>

namespace cryptoaccel::afalg {

const Fd* InFlight::socket(std::size_t slot) noexcept {
  Fd& s = sockets_[slot];
  if (!s.valid()) {
    int error = 0;
    s = accept_operation(transform_, error);
    if (error != 0) return nullptr;
  }
  return &s;
}

void InFlight::drop_all() noexcept {
  for (Fd& s : sockets_) s = Fd();
}

void InFlight::finish(PendingRead& p, int error) noexcept {
  p.request->status = status_from_errno(error);
  if (error != 0) drop(p.slot);
}

void InFlight::complete(std::span<PendingRead> pending) noexcept {
  std::size_t done = 0;
  if (pending.size() > 1 && !aio_unavailable_) done = read_together(pending);
  for (PendingRead& p : pending.subspan(done))
    finish(p, receive(sockets_[p.slot], {p.out.data(), p.parts}));
}

// Returns how many of the first requests it completed; the caller reads the
// rest directly.
std::size_t InFlight::read_together(std::span<PendingRead> pending) noexcept {
  if (const int e = aio_.ready(kMaxInFlight); e != 0) {
    aio_unavailable_ = true;  // no AIO here (ENOSYS, aio-max-nr): read one by one
    return 0;
  }
  std::array<iocb, kMaxInFlight> reads;
  std::array<iocb*, kMaxInFlight> list;
  std::array<std::size_t, kMaxInFlight> expected{};
  std::array<std::uint8_t, kMaxInFlight> spare{};
  for (std::size_t i = 0; i < pending.size(); ++i) {
    PendingRead& p = pending[i];
    for (std::size_t part = 0; part < p.parts; ++part) expected[i] += p.out[part].iov_len;
    std::size_t parts = p.parts;
    // The kernel runs an operation only for a read with room (see receive()).
    if (expected[i] == 0) p.out[parts++] = {&spare[i], 1};
    reads[i] = AioContext::read_request(sockets_[p.slot].get(), {p.out.data(), parts}, i);
    list[i] = &reads[i];
  }
  const int taken = aio_.submit({list.data(), pending.size()});
  if (taken <= 0) return 0;
  std::array<io_event, kMaxInFlight> events;
  const auto count = static_cast<std::size_t>(taken);
  if (aio_.wait({events.data(), count}) != 0) {
    // Cannot happen with a valid context and buffers; if it does, the
    // outcome of each read is unknown: wait for them all to end, and fail
    // them.
    aio_.reset();
    for (std::size_t i = 0; i < count; ++i) finish(pending[i], -EIO);
    return count;
  }
  for (std::size_t e = 0; e < count; ++e) {
    const std::size_t i = events[e].data;
    const std::int64_t result = events[e].res;
    const int error = result < 0                                        ? static_cast<int>(result)
                      : static_cast<std::size_t>(result) == expected[i] ? 0
                                                                        : -EIO;
    finish(pending[i], error);
  }
  return count;
}

}  // namespace cryptoaccel::afalg
