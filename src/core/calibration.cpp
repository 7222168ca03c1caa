// `cryptoaccel calibrate`: throughput and CPU cost of every driver x
// algorithm x size (one request at a time, several in flight, and from one
// thread per CPU at once), measured on the drivers' own sessions (the framework's
// per-request cost is the same whichever driver serves, so it is left out).
#include <openssl/rand.h>
#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <ctime>
#include <latch>
#include <optional>
#include <thread>

#include "cryptoaccel/profile.hpp"
#include "cryptoaccel/session.hpp"
#include "framework_impl.hpp"
#include "openssl_context.hpp"

namespace cryptoaccel {
namespace {

using Clock = std::chrono::steady_clock;
using ByteVector = std::vector<std::uint8_t>;

ByteVector random_bytes(std::size_t n) {
  ByteVector out(n);
  if (n != 0 && RAND_bytes_ex(detail::openssl_context(), out.data(), n, 0) != 1)
    throw DriverFailure("calibrate: no random bytes from OpenSSL");
  return out;
}

double thread_cpu_seconds() {
  rusage r{};
  getrusage(RUSAGE_THREAD, &r);
  return static_cast<double>(r.ru_utime.tv_sec + r.ru_stime.tv_sec) +
         static_cast<double>(r.ru_utime.tv_usec + r.ru_stime.tv_usec) / 1e6;
}

std::string utc_now() {
  const std::time_t now = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&now, &tm);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return text;
}

std::size_t pick(const SizeRange& allowed, std::size_t wanted) {
  return allowed.contains(wanted) ? wanted : allowed.min;
}

// Whether requests of `size` bytes are valid for this algorithm and driver.
bool size_fits(const Algorithm& a, const Capability& c, std::size_t size) {
  if (size > c.max_request || (size & (c.input_multiple - 1)) != 0) return false;
  if (a.kind == AlgorithmKind::cipher) return size % a.input_multiple == 0 && size >= a.min_input;
  return true;
}

// One measurement: `in_flight` requests per batch, batches until `seconds`.
// With `ready`, the clock starts once every thread sharing it is set up.
std::optional<Measurement> measure(detail::RegisteredDriver& d, const Algorithm& a,
                                   const Capability& c, std::size_t size, unsigned in_flight,
                                   double seconds, std::latch* ready = nullptr) {
  // A thread that gives up before the start still counts as arrived, or
  // the others would wait for it for ever.
  struct Arrival {
    std::latch* latch;
    ~Arrival() {
      if (latch != nullptr) latch->count_down();
    }
  } arrival{ready};
  const std::size_t key_size =
      a.kind == AlgorithmKind::mac ? pick(c.key_sizes, 16) : pick(c.key_sizes, a.key_size.min);
  ByteVector random_key = random_bytes(key_size);
  const SecretBytes key(random_key);  // wiped however this returns
  secure_wipe(random_key.data(), random_key.size());
  std::unique_ptr<DriverSession> session;
  try {
    session = d.driver->open_session(a, key.span());
  } catch (const Error&) {
    return std::nullopt;
  }
  const ByteVector iv = random_bytes(pick(c.iv_sizes, a.iv_size));
  std::vector<ByteVector> buffers, outputs, tags;
  std::vector<Request> batch(in_flight);
  for (unsigned i = 0; i < in_flight; ++i) {
    buffers.push_back(random_bytes(size));
    outputs.emplace_back(
        a.kind == AlgorithmKind::cipher || a.kind == AlgorithmKind::aead ? 0 : a.output_size);
    tags.emplace_back(a.kind == AlgorithmKind::aead ? pick(c.tag_sizes, 16) : 0);
  }
  for (unsigned i = 0; i < in_flight; ++i) {
    Request& r = batch[i];
    r.op = a.kind == AlgorithmKind::digest || a.kind == AlgorithmKind::mac ? Operation::digest
                                                                           : Operation::encrypt;
    r.iv = iv;
    r.in = buffers[i];
    r.out = outputs[i].empty() ? std::span<std::uint8_t>(buffers[i]) : outputs[i];
    r.tag = tags[i];
  }
  // Batches are timed in runs that double until a run takes 2 ms, so that
  // reading the clock costs nothing next to a 16-byte software request.
  std::uint64_t requests = 0;
  std::uint64_t run = 1;
  if (ready != nullptr) {
    arrival.latch = nullptr;
    ready->arrive_and_wait();
  }
  const double cpu0 = thread_cpu_seconds();
  const auto start = Clock::now();
  double elapsed = 0;
  while (elapsed < seconds) {
    const auto run_start = Clock::now();
    for (std::uint64_t k = 0; k < run; ++k) {
      if (session->process(batch) != batch.size()) return std::nullopt;
      for (const Request& r : batch)
        if (r.status != ErrorCode::ok) return std::nullopt;
    }
    requests += run * in_flight;
    const auto now = Clock::now();
    if (now - run_start < std::chrono::milliseconds(2)) run *= 2;
    elapsed = std::chrono::duration<double>(now - start).count();
  }
  const double cpu = thread_cpu_seconds() - cpu0;
  const double bytes = static_cast<double>(requests) * static_cast<double>(size == 0 ? 1 : size);
  return Measurement{.driver = d.name,
                     .algorithm = a.id,
                     .size = size,
                     .in_flight = in_flight,
                     .bytes_per_second = bytes / elapsed,
                     .cpu_seconds_per_byte = cpu / bytes};
}

// `workers` threads at once, one request at a time each, on sessions of
// their own: the sum of their throughputs, and CPU per byte over all.
std::optional<Measurement> measure_loaded(detail::RegisteredDriver& d, const Algorithm& a,
                                          const Capability& c, std::size_t size, unsigned workers,
                                          double seconds) {
  std::vector<std::optional<Measurement>> each(workers);
  std::latch ready(workers);
  {
    std::vector<std::jthread> threads;
    for (unsigned w = 0; w < workers; ++w)
      threads.emplace_back([&, w] {
        try {
          each[w] = measure(d, a, c, size, 1, seconds, &ready);
        } catch (const Error&) {
          each[w].reset();
        }
      });
  }
  if (std::any_of(each.begin(), each.end(), [](const auto& m) { return !m; })) return std::nullopt;
  Measurement sum = *each[0];
  double bytes = sum.bytes_per_second, cpu = sum.cpu_seconds_per_byte * sum.bytes_per_second;
  for (unsigned w = 1; w < workers; ++w) {
    bytes += each[w]->bytes_per_second;
    cpu += each[w]->cpu_seconds_per_byte * each[w]->bytes_per_second;
  }
  sum.workers = workers;
  sum.bytes_per_second = bytes;
  sum.cpu_seconds_per_byte = cpu / bytes;
  return sum;
}

// One loaded measurement per CPU, up to 8: enough to see how a driver
// scales when the machine is busy (software with the CPUs, a device not).
unsigned loaded_workers() {
  return std::clamp(std::thread::hardware_concurrency(), 1u, 8u);
}

// The depths a driver is measured at besides one request: its most in
// flight; and for a driver that gathers, the ladder up to it as well, so
// that the dispatcher knows from which depth on it wins.
std::vector<unsigned> depths_of(const DriverTraits& traits) {
  const auto most = static_cast<unsigned>(traits.max_in_flight);
  std::vector<unsigned> depths;
  if (traits.gathers)
    for (const unsigned d : {4u, 8u, 16u, 32u})
      if (d < most) depths.push_back(d);
  if (most > 1) depths.push_back(most);
  return depths;
}

}  // namespace

Profile calibrate(Framework& framework, const CalibrationOptions& options) {
  auto& registry = framework.impl().registry;
  std::vector<detail::RegisteredDriver*> drivers;
  if (options.drivers.empty()) {
    for (const auto& d : registry.drivers())
      if (d->traits.automatic) drivers.push_back(d.get());
  } else {
    for (const std::string& name : options.drivers) {
      detail::RegisteredDriver* d = registry.find(name);
      if (d == nullptr)
        throw NotFound("no driver named '" + name + "' (`cryptoaccel list` shows the drivers)");
      drivers.push_back(d);
    }
  }
  std::vector<AlgorithmId> wanted = options.algorithms;
  if (wanted.empty())
    for (const Algorithm& a : algorithms())
      // RSA's dispatch goes by priority: a calibration would need its own
      // keys and requests (not measured yet).
      if (a.kind != AlgorithmKind::public_key) wanted.push_back(a.id);

  struct Job {
    detail::RegisteredDriver* driver;
    const Algorithm* algorithm;
    const Capability* capability;
    std::size_t size;
    unsigned in_flight;
    unsigned workers;
  };
  const unsigned workers = loaded_workers();
  std::vector<Job> jobs;
  for (detail::RegisteredDriver* d : drivers)
    for (AlgorithmId id : wanted) {
      const Capability* c = d->enabled[index_of(id)];
      if (c == nullptr) continue;
      const Algorithm& a = algorithm(id);
      for (std::size_t size : options.sizes) {
        if (!size_fits(a, *c, size)) continue;
        jobs.push_back({d, &a, c, size, 1, 1});
        for (const unsigned depth : depths_of(d->traits))
          jobs.push_back({d, &a, c, size, depth, 1});
        if (workers > 1) jobs.push_back({d, &a, c, size, 1, workers});
      }
    }

  Profile profile;
  profile.created = utc_now();
  profile.machine = machine_identity();
  for (const DriverInfo& info : framework.drivers())
    if (info.traits.automatic) profile.drivers[info.name] = driver_identity(info);
  const unsigned rounds = options.rounds == 0 ? 1 : options.rounds;
  std::vector<std::optional<Measurement>> best(jobs.size());
  for (unsigned round = 0; round < rounds; ++round) {
    for (std::size_t i = 0; i < jobs.size(); ++i) {
      if (options.interrupted && options.interrupted()) return profile;
      const Job& j = jobs[i];
      auto m = j.workers > 1 ? measure_loaded(*j.driver, *j.algorithm, *j.capability, j.size,
                                              j.workers, options.seconds / rounds)
                             : measure(*j.driver, *j.algorithm, *j.capability, j.size, j.in_flight,
                                       options.seconds / rounds);
      if (m && (!best[i] || m->bytes_per_second > best[i]->bytes_per_second)) best[i] = m;
      if (best[i] && options.progress)
        options.progress(*best[i], round * jobs.size() + i + 1, rounds * jobs.size());
    }
  }
  for (auto& m : best)
    if (m) profile.measurements.push_back(std::move(*m));
  return profile;
}

}  // namespace cryptoaccel
