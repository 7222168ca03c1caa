// The direct path's usage counts (forwarded.hpp), kept per thread and added
// to the framework's counters in batches. An EVP_Digest call frees its
// context every time; two atomic additions to shared counters per context
// cost 7% of a 16-byte SHA-256 (docs/performance.md). A thread's batch is
// added when it reaches 256 requests, when the thread counts another
// algorithm or provider, when it reads the counters, and when it ends: the
// counters read from one thread may miss up to 255 requests of each other
// thread still running.
#pragma once

#include <cstddef>
#include <cstdint>

#include "cryptoaccel/cryptoaccel.hpp"

namespace cryptoaccel::provider {

namespace detail {
// The calling thread's batch. Trivial, so that reaching it costs no guard:
// the thread's exit commit is registered on its first commit.
struct DirectBatch {
  std::uint64_t sink;
  AlgorithmId algorithm;
  std::uint64_t requests;
  std::uint64_t bytes;
  void commit() noexcept;
};
// General-dynamic, as every thread-local variable of a dlopen()ed module
// must be; through a TLS descriptor (src/CMakeLists.txt), reaching it costs
// one call that returns a constant, not __tls_get_addr.
extern thread_local DirectBatch direct_batch;
inline constexpr std::uint64_t kBatchRequests = 256;
}  // namespace detail

// Where a provider instance's direct usage goes: drivers()[driver] of
// `framework`, for as long as the sink lives. Batches that arrive after
// it is gone are dropped, never written to freed memory.
class DirectUsageSink {
 public:
  DirectUsageSink(Framework& framework, std::size_t driver);
  ~DirectUsageSink();
  DirectUsageSink(const DirectUsageSink&) = delete;
  DirectUsageSink& operator=(const DirectUsageSink&) = delete;

  // Adds to the calling thread's batch; lock-free until the batch is added.
  void count(AlgorithmId algorithm, std::uint64_t requests, std::uint64_t bytes) const noexcept {
    detail::DirectBatch& b = detail::direct_batch;
    if (b.sink != id_ || b.algorithm != algorithm) [[unlikely]] {
      b.commit();
      b.sink = id_;
      b.algorithm = algorithm;
    }
    // Two scalar additions: merged into one SSE addition, they would pay a
    // transition penalty right after OpenSSL's AVX-512 code (forwarded.cpp).
    b.requests += requests;
    asm volatile("" ::: "memory");
    b.bytes += bytes;
    if (b.requests >= detail::kBatchRequests) [[unlikely]]
      b.commit();
  }

 private:
  std::uint64_t id_;
};

// Adds the calling thread's batch now: before it reads the counters.
void commit_direct_usage() noexcept;

}  // namespace cryptoaccel::provider
