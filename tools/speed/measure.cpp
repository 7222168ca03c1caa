#include "measure.hpp"

#include <openssl/rand.h>
#include <sys/resource.h>

#include <chrono>
#include <exception>
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

// Sets up one worker's session and buffers (untimed), then spins.
std::uint64_t run_worker(const MeasureRequest& r, Gate& gate, std::string& served_by) {
  const Algorithm& a = *r.algorithm;
  SessionOptions options;
  if (r.driver != "auto") options.driver = r.driver;
  // HMAC takes any key: 16 bytes, as openssl speed -hmac uses.
  const auto key = random_bytes(a.kind == AlgorithmKind::mac ? 16 : a.key_size.min);
  const auto iv = random_bytes(a.iv_size);
  auto buffer = random_bytes(r.size);
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
      served_by = session.last_driver();
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
      served_by = session.last_driver();
      break;
    }
    case AlgorithmKind::digest:
    case AlgorithmKind::mac: {
      DigestSession session = a.kind == AlgorithmKind::mac ? MacSession(a.name, key, options)
                                                           : DigestSession(a.name, options);
      std::vector<std::uint8_t> out(a.output_size);
      count = spin(gate, [&] { session.digest(buffer, out); });
      served_by = session.last_driver();
      break;
    }
  }
  return count;
}

}  // namespace

Measurement measure(const MeasureRequest& request, const std::atomic<bool>& interrupt) {
  Measurement m;
  m.algorithm = request.algorithm;
  m.driver = request.driver.empty() ? "auto" : request.driver;
  m.size = request.size;
  m.workers = request.workers;
  m.seconds_asked = request.seconds;

  Gate gate;
  std::vector<std::uint64_t> counts(request.workers, 0);
  std::vector<std::string> served(request.workers);
  std::exception_ptr failure;
  std::mutex failure_lock;
  std::vector<std::thread> threads;
  for (int w = 0; w < request.workers; ++w) {
    threads.emplace_back([&, w] {
      try {
        counts[w] = run_worker(request, gate, served[w]);
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
  m.served_by = served[0];
  return m;
}

}  // namespace cryptoaccel::tools::speed
