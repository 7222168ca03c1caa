#include "measure.hpp"

#include <openssl/rand.h>
#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

#include "cryptoaccel/cryptoaccel.hpp"

namespace cryptoaccel::tools::speed {
namespace {

using Clock = std::chrono::steady_clock;

std::vector<std::uint8_t> random_bytes(std::size_t n) {
  std::vector<std::uint8_t> out(n);
  if (n != 0) RAND_bytes(out.data(), static_cast<int>(n));
  return out;
}

double seconds_of(const timeval& t) {
  return static_cast<double>(t.tv_sec) + t.tv_usec / 1e6;
}

// `count` buffers of `size` random bytes, each starting on a 64-byte line,
// as openssl speed aligns its buffer: a vector load that straddles two
// cache lines costs the AVX-512 code a fifth of its speed. Consecutive
// buffers are a line further apart than their size: at 16 KiB (any multiple
// of 4 KiB) the same offset in every buffer would fall in one L1 set, and 16
// lanes read through a set of 8 ways lost mb a tenth of its speed, which
// separate allocations (bench/mb_floor's, an application's) never lose.
class AlignedBuffers {
 public:
  AlignedBuffers(std::size_t count, std::size_t size)
      : size_(size),
        stride_((size + kLine - 1) / kLine * kLine + kLine),
        bytes_(count * stride_ + kLine) {
    const auto address = reinterpret_cast<std::uintptr_t>(bytes_.data());
    offset_ = (kLine - address % kLine) % kLine;
    if (!bytes_.empty()) RAND_bytes(bytes_.data(), static_cast<int>(bytes_.size()));
  }
  std::span<std::uint8_t> operator[](std::size_t i) {
    return {bytes_.data() + offset_ + i * stride_, size_};
  }

 private:
  static constexpr std::size_t kLine = 64;
  std::size_t size_, stride_, offset_ = 0;
  std::vector<std::uint8_t> bytes_;
};

struct Gate {
  std::atomic<int> ready{0};  // workers whose session and buffers are set up
  std::atomic<bool> go{false};
  std::atomic<bool> stop{false};
};

// The timed loop: nothing in it but the operation, a counter and a relaxed
// load of the stop flag. Every worker does at least one operation, even when
// a loaded machine schedules it only after a short measurement has ended: a
// figure of zero operations would say nothing (the elapsed time runs until
// every worker has stopped, so the rate stays honest).
template <typename Operation>
std::uint64_t spin(Gate& gate, Operation&& operation) {
  ++gate.ready;
  while (!gate.go.load(std::memory_order_acquire)) std::this_thread::yield();
  std::uint64_t count = 0;
  do {
    operation();
    ++count;
  } while (!gate.stop.load(std::memory_order_relaxed));
  return count;
}

// Which drivers served `algorithm`'s requests between two usage readings:
// the one name when it served (nearly) all, else each with its share, the
// most used first ("afalg:virtio_crypto_aes_cbc 55% + soft 45%"), as the
// dispatcher may spread requests under load.
std::string served_by(const std::vector<UsageCount>& before, const std::vector<UsageCount>& after,
                      AlgorithmId algorithm) {
  std::vector<std::pair<std::uint64_t, std::string>> served;
  std::uint64_t total = 0;
  for (const UsageCount& a : after) {
    if (a.algorithm != algorithm) continue;
    std::uint64_t earlier = 0;
    for (const UsageCount& b : before)
      if (b.driver == a.driver && b.algorithm == algorithm) earlier = b.requests;
    if (a.requests == earlier) continue;
    served.emplace_back(a.requests - earlier, a.driver);
    total += a.requests - earlier;
  }
  std::sort(served.begin(), served.end(), std::greater<>());
  if (served.empty()) return {};
  if (served.size() == 1 || served[0].first * 100 >= total * 99) return served[0].second;
  std::string out;
  for (const auto& [requests, driver] : served) {
    const auto percent = (requests * 100 + total / 2) / total;
    if (percent == 0) continue;
    if (!out.empty()) out += " + ";
    out += driver + " " + std::to_string(percent) + "%";
  }
  return out;
}

// Requests per burst at the drivers that count bursts, between two
// readings (0: none did).
double burst_depth(const std::vector<BurstUsage>& before, const std::vector<BurstUsage>& after,
                   AlgorithmId algorithm) {
  std::uint64_t bursts = 0, requests = 0;
  for (const BurstUsage& a : after) {
    if (a.algorithm != algorithm) continue;
    BurstCount earlier;
    for (const BurstUsage& b : before)
      if (b.driver == a.driver && b.algorithm == algorithm) earlier = b.count;
    bursts += a.count.bursts - earlier.bursts;
    requests += a.count.requests - earlier.requests;
  }
  return bursts == 0 ? 0 : static_cast<double>(requests) / static_cast<double>(bursts);
}

// The `share` quantile (0.5: the median) of `samples`, which it reorders.
double percentile(std::vector<float>& samples, double share) {
  const auto k = static_cast<std::size_t>(share * static_cast<double>(samples.size() - 1) + 0.5);
  std::nth_element(samples.begin(), samples.begin() + static_cast<std::ptrdiff_t>(k),
                   samples.end());
  return samples[k];
}

// `in_flight` one-shot requests per batch through a session's batch API:
// the batch reaches the driver together (mb runs it as one burst, AF_ALG
// keeps it in flight at once), and the loop goes on when all have completed.
// Every this many batches, one is timed: a request's latency is its
// batch's, from submission to the last completion. Timing every batch would
// cost a 256-byte burst a few per cent.
constexpr std::uint64_t kTimeEvery = 32;
constexpr std::size_t kMaxLatencySamples = std::size_t{1} << 20;

std::uint64_t run_batch_worker(const MeasureRequest& r, Gate& gate, std::vector<float>& latencies) {
  const Algorithm& a = *r.algorithm;
  const auto key = random_bytes(a.kind == AlgorithmKind::mac ? 16 : a.key_size.min);
  const auto iv = random_bytes(a.iv_size);
  const auto n = static_cast<std::size_t>(r.in_flight);
  std::vector<Request> batch(n);
  const bool digest = a.kind == AlgorithmKind::digest || a.kind == AlgorithmKind::mac;
  // In place, as openssl speed encrypts, except an AEAD open, which must
  // find its ciphertext intact the next time round.
  const bool separate_output = digest || (r.decrypt && a.kind == AlgorithmKind::aead);
  AlignedBuffers buffers(n, r.size);
  AlignedBuffers outputs(separate_output ? n : 0, digest ? a.output_size : r.size);
  AlignedBuffers tags(a.kind == AlgorithmKind::aead ? n : 0, a.output_size);
  if (r.decrypt && a.kind == AlgorithmKind::aead) {
    AeadSession sealer(a.name, key, {.driver = "soft"});
    for (std::size_t i = 0; i < n; ++i) sealer.seal(iv, {}, buffers[i], buffers[i], tags[i]);
  }
  for (std::size_t i = 0; i < n; ++i)
    batch[i] = {
        .op = digest      ? Operation::digest
              : r.decrypt ? Operation::decrypt
                          : Operation::encrypt,
        .iv = a.iv_size ? std::span<const std::uint8_t>(iv) : std::span<const std::uint8_t>(),
        .in = buffers[i],
        .out = separate_output ? outputs[i] : buffers[i],
        .tag = a.kind == AlgorithmKind::aead ? tags[i] : std::span<std::uint8_t>()};
  latencies.reserve(kMaxLatencySamples);
  std::uint64_t round = 0;
  const auto spin_batches = [&](Session& session) {
    const auto run = [&] {
      if (session.process(batch) != n)
        for (const Request& q : batch)
          if (q.status != ErrorCode::ok)
            throw_error(q.status, std::string(a.name) + ": " + std::string(to_string(q.status)));
    };
    return spin(gate, [&] {
      if (++round % kTimeEvery != 0 || latencies.size() == kMaxLatencySamples) return run();
      const auto start = Clock::now();
      run();
      latencies.push_back(std::chrono::duration<float, std::micro>(Clock::now() - start).count());
    });
  };
  const SessionOptions options{.driver = r.driver};
  std::uint64_t batches = 0;
  switch (a.kind) {
    case AlgorithmKind::cipher: {
      CipherSession session(a.name, key, options);
      batches = spin_batches(session);
      break;
    }
    case AlgorithmKind::aead: {
      AeadSession session(a.name, key, options);
      batches = spin_batches(session);
      break;
    }
    case AlgorithmKind::digest: {
      DigestSession session(a.name, options);
      batches = spin_batches(session);
      break;
    }
    case AlgorithmKind::mac: {
      MacSession session(a.name, key, options);
      batches = spin_batches(session);
      break;
    }
    case AlgorithmKind::public_key:
      throw Unsupported(std::string(a.name) + ": RSA is timed by its own report (rsa_speed.cpp)");
  }  // the session's usage counts are published as it closes
  return batches * n;
}

// Sets up one worker's session and buffers (untimed), then spins.
std::uint64_t run_worker(const MeasureRequest& r, Gate& gate, std::vector<float>& latencies) {
  if (r.in_flight > 1) return run_batch_worker(r, gate, latencies);
  const Algorithm& a = *r.algorithm;
  const SessionOptions options{.driver = r.driver};
  // HMAC takes any key: 16 bytes, as openssl speed -hmac uses.
  const auto key = random_bytes(a.kind == AlgorithmKind::mac ? 16 : a.key_size.min);
  const auto iv = random_bytes(a.iv_size);
  AlignedBuffers buffers(1, r.size);
  const std::span<std::uint8_t> buffer = buffers[0];
  std::uint64_t count = 0;
  switch (a.kind) {
    case AlgorithmKind::cipher: {
      CipherSession session(a.name, key, options);
      const Direction direction = r.decrypt ? Direction::decrypt : Direction::encrypt;
      if (a.mode == CipherMode::xts) {
        // One data unit per request, as a disk encryptor does.
        count = spin(gate, [&] {
          if (r.decrypt)
            session.decrypt(iv, buffer, buffer);
          else
            session.encrypt(iv, buffer, buffer);
        });
      } else {
        // In place and chained, as openssl speed does.
        session.begin(direction, iv);
        count = spin(gate, [&] { session.update(buffer, buffer); });
      }
      break;
    }
    case AlgorithmKind::aead: {
      AeadSession session(a.name, key, options);
      std::vector<std::uint8_t> tag(a.output_size), out(r.size);
      if (r.decrypt) {
        session.seal(iv, {}, buffer, buffer, tag);
        count = spin(gate, [&] { session.open(iv, {}, buffer, tag, out); });
      } else {
        count = spin(gate, [&] { session.seal(iv, {}, buffer, buffer, tag); });
      }
      break;
    }
    case AlgorithmKind::digest:
    case AlgorithmKind::mac: {
      DigestSession session = a.kind == AlgorithmKind::mac ? MacSession(a.name, key, options)
                                                           : DigestSession(a.name, options);
      std::vector<std::uint8_t> out(a.output_size);
      count = spin(gate, [&] { session.digest(buffer, out); });
      break;
    }
    case AlgorithmKind::public_key:
      throw Unsupported(std::string(a.name) + ": RSA is timed by its own report (rsa_speed.cpp)");
  }
  return count;
}

}  // namespace

Measurement measure(const MeasureRequest& request, const std::atomic<bool>& interrupt) {
  Measurement m;
  m.algorithm = request.algorithm;
  m.driver = request.driver.text();
  m.size = request.size;
  m.workers = request.workers;
  m.in_flight = request.in_flight;
  m.seconds_asked = request.seconds;

  // Usage counts before and after say which drivers served (sessions
  // publish theirs when they close, before the workers end).
  const auto usage_before = Framework::global().usage();
  Gate gate;
  const auto bursts_before = Framework::global().bursts();
  std::vector<std::uint64_t> counts(request.workers, 0);
  std::vector<std::vector<float>> latencies(request.workers);
  std::exception_ptr failure;
  std::mutex failure_lock;
  std::vector<std::thread> threads;
  for (int w = 0; w < request.workers; ++w) {
    threads.emplace_back([&, w] {
      try {
        counts[w] = run_worker(request, gate, latencies[w]);
      } catch (...) {
        std::lock_guard lock(failure_lock);
        if (!failure) failure = std::current_exception();
        gate.stop = true;
        gate.go = true;
      }
    });
  }
  // Timing starts once every worker is set up: opening sessions is not measured.
  while (gate.ready.load() < request.workers && !gate.stop.load()) std::this_thread::yield();

  rusage before{}, after{};
  getrusage(RUSAGE_SELF, &before);
  const auto start = Clock::now();
  const auto deadline = start + std::chrono::duration_cast<Clock::duration>(
                                    std::chrono::duration<double>(request.seconds));
  gate.go.store(true, std::memory_order_release);
  // Sleep in short steps so that Ctrl-C ends the measurement promptly.
  while (!gate.stop.load()) {
    const auto now = Clock::now();
    if (now >= deadline) break;
    if (interrupt.load()) {
      m.interrupted = true;
      break;
    }
    std::this_thread::sleep_for(
        std::min<Clock::duration>(deadline - now, std::chrono::milliseconds(20)));
  }
  gate.stop.store(true);
  for (auto& t : threads) t.join();
  const auto end = Clock::now();
  getrusage(RUSAGE_SELF, &after);
  if (failure) std::rethrow_exception(failure);

  m.elapsed = std::chrono::duration<double>(end - start).count();
  m.cpu_user = seconds_of(after.ru_utime) - seconds_of(before.ru_utime);
  m.cpu_system = seconds_of(after.ru_stime) - seconds_of(before.ru_stime);
  for (std::uint64_t c : counts) m.operations += c;
  m.served_by = served_by(usage_before, Framework::global().usage(), request.algorithm->id);
  m.burst_depth = burst_depth(bursts_before, Framework::global().bursts(), request.algorithm->id);
  std::vector<float> all;
  for (const auto& l : latencies) all.insert(all.end(), l.begin(), l.end());
  if (!all.empty()) {
    m.latency_p50_us = percentile(all, 0.50);
    m.latency_p99_us = percentile(all, 0.99);
  }
  return m;
}

}  // namespace cryptoaccel::tools::speed
