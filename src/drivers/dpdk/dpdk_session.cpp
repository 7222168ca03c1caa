// A session of the dpdk driver. DPDK fixes a session's direction and its
// IV, digest and AAD lengths, so one cryptoaccel session keeps a DPDK
// session per shape it met (TLS meets one or two). A batch runs on a queue
// pair taken for the batch alone, as bursts of up to CA_DPDK_MAX_BURST.
#include "dpdk_session.hpp"

#include <algorithm>
#include <array>
#include <cstddef>
#include <type_traits>
#include <vector>

#include "algorithm_map.hpp"

namespace cryptoaccel::dpdk {
namespace {

// How long a burst may take before its queue pair is given up: a device
// that computes in the caller's thread is done in microseconds, one
// behind DMA in milliseconds; a stuck one must not hold a thread forever.
constexpr std::uint64_t kBurstDeadlineNs = 2'000'000'000;

int direction_of(Operation op) {
  switch (op) {
    case Operation::encrypt:
      return CA_DPDK_ENCRYPT;
    case Operation::decrypt:
      return CA_DPDK_DECRYPT;
    default:
      return CA_DPDK_DIGEST;
  }
}

ErrorCode status_of(int status) {
  switch (status) {
    case CA_DPDK_OK:
      return ErrorCode::ok;
    case CA_DPDK_AUTH_FAILED:
      return ErrorCode::authentication_failed;
    default:
      return ErrorCode::driver_failure;
  }
}

// Where the backend finds a request's fields (backend_abi.h). A span is
// its pointer followed by its length in libstdc++ and libc++ alike; were
// it not, every request of the DpdkBatches tests would fail.
constexpr std::size_t kSpanLength = sizeof(void*);
static_assert(std::is_standard_layout_v<Request> &&
              sizeof(std::span<const std::uint8_t>) == 2 * sizeof(void*));

template <AlgorithmKind kKind>
constexpr ca_dpdk_request_layout layout_of() {
  constexpr bool aead = kKind == AlgorithmKind::aead;
  return {.stride = sizeof(Request),
          .iv = offsetof(Request, iv),
          .aad = offsetof(Request, aad),
          .in = offsetof(Request, in),
          .in_length = offsetof(Request, in) + kSpanLength,
          .out = offsetof(Request, out),
          .digest = aead ? offsetof(Request, tag) : offsetof(Request, out)};
}

template <AlgorithmKind kKind>
constexpr ca_dpdk_request_layout kLayout = layout_of<kKind>();

}  // namespace

DpdkSession::DpdkSession(const ca_dpdk_backend& backend, int device, const Algorithm& algorithm,
                         int backend_algorithm, const ca_dpdk_capability& offered,
                         std::span<const std::uint8_t> key)
    : backend_(backend),
      device_(device),
      algorithm_(algorithm),
      backend_algorithm_(backend_algorithm),
      offered_(offered),
      key_(key) {}

DpdkSession::~DpdkSession() {
  for (const Shape& shape : shapes_) backend_.session_free(device_, shape.handle);
  for (void* handle : evicted_) backend_.session_free(device_, handle);
}

void* DpdkSession::session_for(const Shape& wanted, ErrorCode& why) {
  const bool aead = algorithm_.kind == AlgorithmKind::aead;
  const bool hashes =
      algorithm_.kind == AlgorithmKind::digest || algorithm_.kind == AlgorithmKind::mac;
  for (const Shape& shape : shapes_)
    if (shape.same_lengths(wanted)) return shape.handle;
  // A length the device does not take is declined: the request goes to
  // the next driver.
  if ((aead && !accepts(offered_.aad, wanted.aad_length)) ||
      ((aead || hashes) && !accepts(offered_.digest, wanted.digest_length))) {
    why = ErrorCode::unsupported;
    return nullptr;
  }
  const ca_dpdk_session_params params{.algorithm = backend_algorithm_,
                                      .direction = wanted.direction,
                                      .key = key_.span().data(),
                                      .key_length = static_cast<std::uint32_t>(key_.size()),
                                      .iv_length = wanted.iv_length,
                                      .digest_length = wanted.digest_length,
                                      .aad_length = wanted.aad_length};
  char message[160] = {};
  void* handle = backend_.session_create(device_, &params, message, sizeof message);
  if (handle == nullptr) {
    why = ErrorCode::driver_failure;
    return nullptr;
  }
  // A long-lived session that meets many AAD lengths keeps the few
  // newest shapes.
  constexpr std::size_t kMaxShapes = 8;
  if (shapes_.size() == kMaxShapes) {
    // A job of the burst being filled may still name it: freed after the
    // burst (process()).
    evicted_.push_back(shapes_.front().handle);
    shapes_.erase(shapes_.begin());
  }
  Shape made = wanted;
  made.handle = handle;
  shapes_.push_back(made);
  return handle;
}

bool DpdkSession::plain_digest(void* pair, void* session, std::span<const std::uint8_t> in,
                               std::span<std::uint8_t> out) {
  const Request request{.op = Operation::digest, .in = in, .out = out};
  int status = CA_DPDK_OK;
  return backend_.run(pair, session, &request, &kLayout<AlgorithmKind::digest>, 1, kBurstDeadlineNs,
                      &status) == 1;
}

// libipsec-mb (the aesni_mb PMD) takes no empty message to MAC: it reports
// success with a wrong MAC and spoils the DPDK session for every request
// after it. An empty message's MAC is one constant per key,
// H((K ^ opad) || H(K ^ ipad)), made once here from two plain hashes on
// the same device; a device without the plain digest declines it.
ErrorCode DpdkSession::empty_message_mac(QueuePairHeld& held, std::span<std::uint8_t> out) {
  const std::size_t block = algorithm_.block_size, size = algorithm_.output_size;
  if (empty_message_mac_.empty()) {
    void* pair = held.get();
    if (pair == nullptr) return ErrorCode::driver_failure;
    const auto plain = plain_digest_of(backend_algorithm_);
    ca_dpdk_capability offered{};
    if (plain) backend_.capability(device_, *plain, &offered);
    if (!offered.supported || !accepts(offered.digest, size)) return ErrorCode::unsupported;
    const ca_dpdk_session_params params{.algorithm = *plain,
                                        .direction = CA_DPDK_DIGEST,
                                        .digest_length = static_cast<std::uint32_t>(size)};
    char message[160] = {};
    void* session = backend_.session_create(device_, &params, message, sizeof message);
    if (session == nullptr) return ErrorCode::driver_failure;
    std::vector<std::uint8_t> padded(block, 0), pad(block + size, 0), mac(size);
    bool ok = true;
    if (key_.size() > block)
      ok = plain_digest(pair, session, key_.span(), {padded.data(), size});
    else
      std::copy_n(key_.data(), key_.size(), padded.begin());
    for (std::size_t i = 0; i < block; ++i) pad[i] = padded[i] ^ 0x36;
    ok = ok && plain_digest(pair, session, {pad.data(), block}, {pad.data() + block, size});
    for (std::size_t i = 0; i < block; ++i) pad[i] = padded[i] ^ 0x5c;
    ok = ok && plain_digest(pair, session, pad, mac);
    backend_.session_free(device_, session);
    if (ok) empty_message_mac_.assign(mac);
    secure_wipe(padded.data(), padded.size());
    secure_wipe(pad.data(), pad.size());
    if (!ok) return ErrorCode::driver_failure;
  }
  if (out.size() > empty_message_mac_.size()) return ErrorCode::unsupported;
  std::copy_n(empty_message_mac_.data(), out.size(), out.begin());
  return ErrorCode::ok;
}

// The next burst: requests of `batch` from `next` on, up to
// CA_DPDK_MAX_BURST, specialised on the algorithm's kind (a flag per kind
// tested per request kept the compiler short of registers). A burst is of
// one DPDK session (`session`), and of the requests batch[next - count,
// next) with no gap: a request of another shape ends the burst before it,
// as does one that cannot go to the device (an empty message's MAC, a shape
// the device declines), which is settled alone when it comes first.
// `arrived` gathers the statuses the burst's requests arrived with
// (ErrorCode::ok is 0), so that a burst that succeeds whole stores nothing
// into requests that already say ok. In a uniform batch (kUniform:
// process_uniform()), only a burst's first request is looked at for its
// shape, and every request arrives ok.
template <AlgorithmKind kKind, bool kUniform>
std::size_t DpdkSession::collect(std::span<Request> batch, std::size_t& next, QueuePairHeld& pair,
                                 void*& session, unsigned& arrived) {
  constexpr bool aead = kKind == AlgorithmKind::aead;
  constexpr bool hashes = kKind == AlgorithmKind::digest || kKind == AlgorithmKind::mac;
  std::uint64_t last_low = last_low_, last_high = last_high_;
  void* last_session = last_session_;
  unsigned statuses = 0;
  std::size_t count = 0;
  for (; next < batch.size() && count < CA_DPDK_MAX_BURST; ++next) {
    Request& r = batch[next];
    if constexpr (kUniform && kKind != AlgorithmKind::mac) {
      if (count != 0) {
        // The rest of the burst has the first one's shape.
        const std::size_t rest =
            std::min(batch.size() - next, std::size_t{CA_DPDK_MAX_BURST} - count);
        next += rest;
        count += rest;
        break;
      }
    }
    if (kKind == AlgorithmKind::mac && r.in.empty()) {
      if (count != 0) break;
      r.status = empty_message_mac(pair, r.out);
      continue;
    }
    if (kUniform && count != 0) {
      ++count;
      continue;
    }
    const auto direction = static_cast<std::uint32_t>(direction_of(r.op));
    const auto iv_length = static_cast<std::uint32_t>(hashes ? 0 : r.iv.size());
    const auto digest_length = static_cast<std::uint32_t>(aead     ? r.tag.size()
                                                          : hashes ? r.out.size()
                                                                   : 0);
    const auto aad_length = static_cast<std::uint32_t>(aead ? r.aad.size() : 0);
    // The shape packed into two integers, compared in registers with the
    // previous request's (a struct compare made GCC store two halves and
    // load one whole, a store-forwarding stall per request).
    const std::uint64_t low = std::uint64_t{direction} << 32 | iv_length;
    const std::uint64_t high = std::uint64_t{digest_length} << 32 | aad_length;
    if (low != last_low || high != last_high || last_session == nullptr) {
      if (count != 0) break;
      ErrorCode why = ErrorCode::ok;
      void* made = session_for({.direction = static_cast<int>(direction),
                                .iv_length = iv_length,
                                .digest_length = digest_length,
                                .aad_length = aad_length},
                               why);
      if (made == nullptr) {
        r.status = why;
        continue;
      }
      last_session = made;
      last_low = low;
      last_high = high;
    }
    if (!kUniform) statuses |= static_cast<unsigned>(r.status);
    ++count;
  }
  last_low_ = last_low;
  last_high_ = last_high;
  last_session_ = last_session;
  session = last_session;
  arrived = statuses;
  return count;
}

std::size_t DpdkSession::process(std::span<Request> batch) noexcept {
  return run_bursts<false>(batch);
}

std::size_t DpdkSession::process_uniform(std::span<Request> batch) noexcept {
  return run_bursts<true>(batch);
}

void* DpdkSession::QueuePairHeld::get() {
  // A thread cancelled while it waits for a queue pair waits until it has
  // one (the backend defers cancellation there): process() is noexcept.
  if (pair == nullptr) pair = backend.queue_pair_acquire(device);
  return pair;
}

DpdkSession::QueuePairHeld::~QueuePairHeld() {
  if (pair != nullptr) backend.queue_pair_release(pair);
}

template <bool kUniform>
std::size_t DpdkSession::run_bursts(std::span<Request> batch) noexcept {
  // Taken when a burst first needs one: a device that computes in the
  // caller's thread runs in-place bursts without (run_synchronous).
  QueuePairHeld pair{backend_, device_};
  std::size_t next = 0;
  while (next < batch.size()) {
    // The kind, decided once per burst.
    std::size_t count = 0;
    void* session = nullptr;
    unsigned arrived = 0;
    const ca_dpdk_request_layout* layout = nullptr;
    switch (algorithm_.kind) {
      case AlgorithmKind::cipher:
        count = collect<AlgorithmKind::cipher, kUniform>(batch, next, pair, session, arrived);
        layout = &kLayout<AlgorithmKind::cipher>;
        break;
      case AlgorithmKind::aead:
        count = collect<AlgorithmKind::aead, kUniform>(batch, next, pair, session, arrived);
        layout = &kLayout<AlgorithmKind::aead>;
        break;
      case AlgorithmKind::digest:
        count = collect<AlgorithmKind::digest, kUniform>(batch, next, pair, session, arrived);
        layout = &kLayout<AlgorithmKind::digest>;
        break;
      case AlgorithmKind::mac:
        count = collect<AlgorithmKind::mac, kUniform>(batch, next, pair, session, arrived);
        layout = &kLayout<AlgorithmKind::mac>;
        break;
      case AlgorithmKind::public_key:
        for (; next < batch.size(); ++next) batch[next].status = ErrorCode::unsupported;
        break;
    }
    if (count != 0) {
      // The burst is batch[next - count, next): see collect().
      const std::span<Request> owners = batch.subspan(next - count, count);
      std::array<int, CA_DPDK_MAX_BURST> statuses;
      std::size_t succeeded = 0;
      if (backend_.run_synchronous(device_, session, owners.data(), layout, count, statuses.data(),
                                   &succeeded) != 0) {
        if (void* queue_pair = pair.get(); queue_pair != nullptr) {
          succeeded = backend_.run(queue_pair, session, owners.data(), layout, count,
                                   kBurstDeadlineNs, statuses.data());
        } else {
          statuses.fill(CA_DPDK_FAILED);  // the device is gone
        }
      }
      if (succeeded != count)
        for (std::size_t i = 0; i < count; ++i) owners[i].status = status_of(statuses[i]);
      else if (arrived != 0)
        for (Request& r : owners) r.status = ErrorCode::ok;
    }
    if (!evicted_.empty()) {
      for (void* handle : evicted_) backend_.session_free(device_, handle);
      evicted_.clear();
      last_session_ = nullptr;  // it may have been one of them
    }
  }
  return batch.size();
}

}  // namespace cryptoaccel::dpdk
