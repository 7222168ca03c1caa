// Micro-benchmarks of what the framework and the provider cost per request.
//
// Five families, one binary, so that ratios can be read off one run on one
// machine state:
//
//   null/<algorithm>/<operation>/<bytes>  sessions pinned to the null driver,
//                                         which does no cryptography: pure
//                                         framework overhead (goal < 100 ns)
//   soft/<algorithm>/<operation>/<bytes>  sessions pinned to the soft driver
//                                         (libcrypto underneath)
//   raw/<algorithm>/<operation>/<bytes>   libcrypto EVP called directly, the
//                                         way `openssl speed` calls it, on
//                                         OpenSSL's default provider
//   provider/...                          the same EVP calls with cryptoaccel.so
//                                         preferred, as configured (its direct
//                                         path where soft alone serves)
//   provider-sessions/...                 the same with CRYPTOACCEL_DIRECT=0:
//                                         every request through a session
//
// After the run (console format) a summary prints soft time / raw time per
// request for each pair, the provider's time against the default
// provider's, and the null driver's ns per request against the 100 ns goal.
// See bench/README.md.
#include <benchmark/benchmark.h>
#include <unistd.h>

#include <cstdio>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "bench_support.hpp"
#include "cryptoaccel/cryptoaccel.hpp"
#include "evp_peers.hpp"

namespace {

using namespace bench;

cryptoaccel::SessionOptions pinned(const std::string& driver) {
  cryptoaccel::SessionOptions options;
  options.driver = driver;
  return options;
}

// ---------------------------------------------------------------------------
// The framework (null and soft drivers)

void session_cbc_update(benchmark::State& state, const std::string& driver, std::size_t size) {
  guarded(state, [&] {
    cryptoaccel::CipherSession session("aes-128-cbc", kKey16, pinned(driver));
    Buffer buffer(size);
    session.begin(cryptoaccel::Direction::encrypt, kIv16);
    for (auto _ : state) {
      session.update(buffer.span(), buffer.span());
      benchmark::DoNotOptimize(buffer.data());
    }
    finish(state, "aes-128-cbc", "update (in place, after begin)", driver, size);
  });
}

void session_cbc_encrypt(benchmark::State& state, const std::string& driver, std::size_t size) {
  guarded(state, [&] {
    cryptoaccel::CipherSession session("aes-128-cbc", kKey16, pinned(driver));
    Buffer buffer(size);
    for (auto _ : state) {
      session.encrypt(kIv16, buffer.span(), buffer.span());
      benchmark::DoNotOptimize(buffer.data());
    }
    finish(state, "aes-128-cbc", "one-shot encrypt with IV (in place)", driver, size);
  });
}

void session_gcm_seal(benchmark::State& state, const std::string& driver, std::size_t size) {
  guarded(state, [&] {
    cryptoaccel::AeadSession session("aes-128-gcm", kKey16, pinned(driver));
    Buffer buffer(size);
    std::array<std::uint8_t, 16> tag{};
    for (auto _ : state) {
      session.seal(kNonce12, {}, buffer.span(), buffer.span(), tag);
      benchmark::DoNotOptimize(tag.data());
    }
    finish(state, "aes-128-gcm", "seal (12-byte nonce, no AAD, 16-byte tag, in place)", driver,
           size);
  });
}

void session_sha256(benchmark::State& state, const std::string& driver, std::size_t size) {
  guarded(state, [&] {
    cryptoaccel::DigestSession session("sha256", pinned(driver));
    Buffer buffer(size);
    std::array<std::uint8_t, 32> md{};
    for (auto _ : state) {
      session.digest(buffer.span(), md);
      benchmark::DoNotOptimize(md.data());
    }
    finish(state, "sha256", "one-shot digest", driver, size);
  });
}

void session_hmac(benchmark::State& state, const std::string& driver, std::size_t size) {
  guarded(state, [&] {
    cryptoaccel::MacSession session("hmac-sha256", hmac_key(), pinned(driver));
    Buffer buffer(size);
    std::array<std::uint8_t, 32> mac{};
    for (auto _ : state) {
      session.digest(buffer.span(), mac);
      benchmark::DoNotOptimize(mac.data());
    }
    finish(state, "hmac-sha256", "one-shot digest", driver, size);
  });
}

// ---------------------------------------------------------------------------
// Registration

void add(const std::string& name, void (*fn)(benchmark::State&, const std::string&, std::size_t),
         const std::string& driver, std::size_t size) {
  benchmark::RegisterBenchmark(name.c_str(), [fn, driver, size](benchmark::State& state) {
    fn(state, driver, size);
  })->Unit(benchmark::kNanosecond);
}

// An EVP peer's benchmark; `fn` gets the peer by reference (peers live to the end).
using PeerFn = void (*)(benchmark::State&, const EvpPeer&, std::size_t);
void add_peer(const std::string& name, PeerFn fn, const EvpPeer& peer, std::size_t size) {
  benchmark::RegisterBenchmark(name.c_str(), [fn, &peer, size](benchmark::State& state) {
    fn(state, peer, size);
  })->Unit(benchmark::kNanosecond);
}

std::string name_of(std::string_view driver, std::string_view algorithm, std::string_view operation,
                    std::size_t size) {
  return std::string(driver) + "/" + std::string(algorithm) + "/" + std::string(operation) + "/" +
         std::to_string(size);
}

void register_null() {
  const std::string null = "null";
  add(name_of(null, "aes-128-cbc", "update", kSmall), session_cbc_update, null, kSmall);
  add(name_of(null, "aes-128-cbc", "encrypt", kSmall), session_cbc_encrypt, null, kSmall);
  add(name_of(null, "aes-128-gcm", "seal", kSmall), session_gcm_seal, null, kSmall);
  add(name_of(null, "sha256", "digest", kSmall), session_sha256, null, kSmall);
  add(name_of(null, "hmac-sha256", "digest", kSmall), session_hmac, null, kSmall);
}

// Each soft benchmark is followed at once by its EVP peers (raw, then the
// provider's), so that the figures compared see the same machine state.
void register_soft_and_peers(std::size_t size, const std::vector<EvpPeer>& peers) {
  const std::string soft = "soft";
  auto each_peer = [&](std::string_view algorithm, std::string_view operation, PeerFn fn) {
    for (const EvpPeer& peer : peers)
      add_peer(name_of(peer.family, algorithm, operation, size), fn, peer, size);
  };
  add(name_of(soft, "aes-128-cbc", "update", size), session_cbc_update, soft, size);
  each_peer("aes-128-cbc", "update", evp_cbc_update);
  add(name_of(soft, "aes-128-cbc", "encrypt", size), session_cbc_encrypt, soft, size);
  each_peer("aes-128-cbc", "encrypt", evp_cbc_encrypt);
  add(name_of(soft, "aes-128-gcm", "seal", size), session_gcm_seal, soft, size);
  each_peer("aes-128-gcm", "seal", [](benchmark::State& s, const EvpPeer& p, std::size_t n) {
    evp_gcm_seal(s, p, n, false);
  });
  each_peer("aes-128-gcm", "seal-rekey", [](benchmark::State& s, const EvpPeer& p, std::size_t n) {
    evp_gcm_seal(s, p, n, true);
  });
  each_peer("aes-128-gcm", "update", evp_gcm_update);
  add(name_of(soft, "sha256", "digest", size), session_sha256, soft, size);
  each_peer("sha256", "digest", evp_sha256);
  add(name_of(soft, "hmac-sha256", "digest", size), session_hmac, soft, size);
  each_peer("hmac-sha256", "digest", evp_hmac);
}

// ---------------------------------------------------------------------------
// The summary: a reporter that forwards to the usual one and keeps the times.

struct Timing {
  double real_ns = 0;  // per request
  double cpu_ns = 0;   // per request: this thread's CPU time, immune to preemption
  bool ok = false;
};

class Collector : public benchmark::BenchmarkReporter {
 public:
  explicit Collector(std::unique_ptr<benchmark::BenchmarkReporter> inner)
      : inner_(std::move(inner)) {}

  bool ReportContext(const Context& context) override {
    inner_->SetOutputStream(&GetOutputStream());
    inner_->SetErrorStream(&GetErrorStream());
    return inner_->ReportContext(context);
  }
  void ReportRuns(const std::vector<Run>& runs) override {
    for (const Run& run : runs) {
      if (run.run_type != Run::RT_Iteration) continue;  // aggregates: keep the plain runs
      Timing& t = timings_[run.run_name.function_name];
      const double scale = 1e9 / benchmark::GetTimeUnitMultiplier(run.time_unit);
      const double real_ns = run.GetAdjustedRealTime() * scale;
      const double cpu_ns = run.GetAdjustedCPUTime() * scale;
      // With --benchmark_repetitions, keep the best repetition.
      if (!run.error_occurred && (!t.ok || cpu_ns < t.cpu_ns)) t = {real_ns, cpu_ns, true};
    }
    inner_->ReportRuns(runs);
  }
  void Finalize() override { inner_->Finalize(); }

  const std::map<std::string, Timing>& timings() const { return timings_; }

 private:
  std::unique_ptr<benchmark::BenchmarkReporter> inner_;
  std::map<std::string, Timing> timings_;
};

// The provider's own cost per request: the same EVP calls through
// cryptoaccel.so (direct path, and CRYPTOACCEL_DIRECT=0) and through the
// default provider.
template <typename Find>
void print_provider_summary(const Find& find, std::FILE* out) {
  bool header = false;
  for (std::size_t size : {kSmall, kLarge})
    for (const char* op :
         {"aes-128-cbc/update", "aes-128-cbc/encrypt", "aes-128-gcm/seal", "aes-128-gcm/seal-rekey",
          "aes-128-gcm/update", "sha256/digest", "hmac-sha256/digest"}) {
      const std::string tail = std::string(op) + "/" + std::to_string(size);
      const Timing* raw = find("raw/" + tail);
      const Timing* direct = find("provider/" + tail);
      const Timing* sessions = find("provider-sessions/" + tail);
      if (!raw || !direct) continue;
      if (!header) {
        std::fprintf(out,
                     "\nthe provider against the default provider, the same EVP calls, CPU ns per "
                     "request (thru = default/provider, as compare-provider's ratio)\n");
        std::fprintf(out, "  %-30s %9s %9s %8s %7s %10s %7s\n", "operation", "default", "provider",
                     "added", "thru", "sessions", "thru");
        header = true;
      }
      std::fprintf(out, "  %-30s %9.1f %9.1f %8.1f %7.2f", tail.c_str(), raw->cpu_ns,
                   direct->cpu_ns, direct->cpu_ns - raw->cpu_ns, raw->cpu_ns / direct->cpu_ns);
      if (sessions)
        std::fprintf(out, " %10.1f %7.2f\n", sessions->cpu_ns, raw->cpu_ns / sessions->cpu_ns);
      else
        std::fprintf(out, " %10s %7s\n", "-", "-");
    }
}

void print_summary(const std::map<std::string, Timing>& timings, std::FILE* out) {
  const auto find = [&](const std::string& name) -> const Timing* {
    const auto it = timings.find(name);
    return it != timings.end() && it->second.ok ? &it->second : nullptr;
  };

  bool header = false;
  for (const auto& [name, t] : timings) {
    if (!name.starts_with("null/") || !t.ok) continue;
    if (!header) {
      std::fprintf(out, "\nnull driver: framework cost per request (goal < 100 ns of CPU time)\n");
      std::fprintf(out, "  %-30s %9s %9s  %s\n", "benchmark", "real ns", "cpu ns", "goal");
      header = true;
    }
    std::fprintf(out, "  %-30s %9.1f %9.1f  %s\n", name.c_str(), t.real_ns, t.cpu_ns,
                 t.cpu_ns < 100 ? "PASS" : "SHORT");
  }

  struct Pair {
    std::string framework, raw;
  };
  std::vector<Pair> pairs;
  for (std::size_t size : {kSmall, kLarge}) {
    const auto s = std::to_string(size);
    pairs.push_back({"soft/aes-128-cbc/update/" + s, "raw/aes-128-cbc/update/" + s});
    pairs.push_back({"soft/aes-128-cbc/encrypt/" + s, "raw/aes-128-cbc/encrypt/" + s});
    pairs.push_back({"soft/aes-128-gcm/seal/" + s, "raw/aes-128-gcm/seal/" + s});
    pairs.push_back({"soft/aes-128-gcm/seal/" + s, "raw/aes-128-gcm/seal-rekey/" + s});
    pairs.push_back({"soft/aes-128-gcm/seal/" + s, "raw/aes-128-gcm/update/" + s});
    pairs.push_back({"soft/sha256/digest/" + s, "raw/sha256/digest/" + s});
    pairs.push_back({"soft/hmac-sha256/digest/" + s, "raw/hmac-sha256/digest/" + s});
  }
  header = false;
  for (const Pair& p : pairs) {
    const Timing* f = find(p.framework);
    const Timing* r = find(p.raw);
    if (!f || !r) continue;
    if (!header) {
      std::fprintf(out,
                   "\nsoft driver against raw EVP, CPU ns per request (time x = framework/raw, "
                   "1.00 = free; thru = raw/framework, as compare-openssl's ratio)\n");
      std::fprintf(out, "  %-30s %-32s %9s %9s %8s %8s %7s\n", "framework", "raw peer", "fw ns",
                   "raw ns", "fw-raw", "time x", "thru");
      header = true;
    }
    std::fprintf(out, "  %-30s %-32s %9.1f %9.1f %8.1f %8.2f %7.2f\n", p.framework.c_str(),
                 p.raw.c_str(), f->cpu_ns, r->cpu_ns, f->cpu_ns - r->cpu_ns, f->cpu_ns / r->cpu_ns,
                 r->cpu_ns / f->cpu_ns);
  }
  print_provider_summary(find, out);
}

// The --benchmark_format the user asked for (console unless told).
std::string format_of(int argc, char** argv) {
  std::string format = "console";
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    constexpr std::string_view kFlag = "--benchmark_format=";
    if (arg.starts_with(kFlag)) format = arg.substr(kFlag.size());
  }
  return format;
}

}  // namespace

int main(int argc, char** argv) {
  const std::string format = format_of(argc, argv);
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;

  register_null();
  static const std::vector<EvpPeer> peers = evp_peers(CRYPTOACCEL_PROVIDER_DIR);
  for (std::size_t size : {kSmall, kLarge}) register_soft_and_peers(size, peers);

  std::unique_ptr<benchmark::BenchmarkReporter> inner;
  if (format == "json") {
    inner = std::make_unique<benchmark::JSONReporter>();
  } else if (format == "console") {
    inner = std::make_unique<benchmark::ConsoleReporter>(isatty(STDOUT_FILENO)
                                                             ? benchmark::ConsoleReporter::OO_Color
                                                             : benchmark::ConsoleReporter::OO_None);
  } else {
    std::fprintf(stderr, "framework_bench: --benchmark_format must be console or json\n");
    return 1;
  }
  Collector collector(std::move(inner));
  benchmark::RunSpecifiedBenchmarks(&collector);
  // Keep JSON on stdout parseable: the summary goes to stderr then.
  print_summary(collector.timings(), format == "console" ? stdout : stderr);
  benchmark::Shutdown();
  return 0;
}
