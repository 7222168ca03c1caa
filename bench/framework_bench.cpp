// Micro-benchmarks of what the framework costs per request.
//
// Three families, one binary, so that ratios can be read off one run on one
// machine state:
//
//   null/<algorithm>/<operation>/<bytes>  sessions pinned to the null driver,
//                                         which does no cryptography: pure
//                                         framework overhead (goal < 100 ns)
//   soft/<algorithm>/<operation>/<bytes>  sessions pinned to the soft driver
//                                         (libcrypto underneath)
//   raw/<algorithm>/<operation>/<bytes>   libcrypto EVP called directly, the
//                                         way `openssl speed` calls it
//
// After the run (console format) a summary prints soft time / raw time per
// request for each pair, and the null driver's ns per request against the
// 100 ns goal. See bench/README.md.
#include <benchmark/benchmark.h>
#include <openssl/core_names.h>
#include <openssl/evp.h>
#include <openssl/params.h>
#include <unistd.h>

#include <array>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "cryptoaccel/cryptoaccel.hpp"

namespace {

using cryptoaccel::Bytes;
using cryptoaccel::MutableBytes;

constexpr std::size_t kSmall = 16;
constexpr std::size_t kLarge = 8192;

// The key and IV openssl speed uses (key16 and a zero IV); the values do not
// change the timings.
constexpr std::array<std::uint8_t, 16> kKey16 = {0x12, 0x34, 0x56, 0x78, 0x9a, 0xbc, 0xde, 0xf0,
                                                 0x34, 0x56, 0x78, 0x9a, 0xbc, 0xde, 0xf0, 0x12};
constexpr std::array<std::uint8_t, 16> kIv16 = {};
constexpr std::array<std::uint8_t, 12> kNonce12 = {};
// openssl speed -hmac keys HMAC with this string.
constexpr std::string_view kHmacKey = "This is a key...";

Bytes hmac_key() {
  return {reinterpret_cast<const std::uint8_t*>(kHmacKey.data()), kHmacKey.size()};
}

// A 64-byte aligned buffer, as openssl speed's (misalignment 0).
class Buffer {
 public:
  explicit Buffer(std::size_t size) : storage_(size + 64, 0xa5) {
    const auto address = reinterpret_cast<std::uintptr_t>(storage_.data());
    offset_ = (64 - address % 64) % 64;
    size_ = size;
  }
  std::uint8_t* data() { return storage_.data() + offset_; }
  std::size_t size() const { return size_; }
  MutableBytes span() { return {data(), size_}; }

 private:
  std::vector<std::uint8_t> storage_;
  std::size_t offset_ = 0;
  std::size_t size_ = 0;
};

cryptoaccel::SessionOptions pinned(const std::string& driver) {
  cryptoaccel::SessionOptions options;
  options.driver = driver;
  return options;
}

void finish(benchmark::State& state, std::string_view algorithm, std::string_view operation,
            std::string_view driver, std::size_t size) {
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations()) *
                          static_cast<std::int64_t>(size));
  state.SetLabel(std::string(algorithm) + " " + std::string(operation) + ", " +
                 std::string(driver) + ", " + std::to_string(size) + " B");
}

// Runs `body` and turns a cryptoaccel or OpenSSL failure into a skipped
// benchmark instead of an abort.
template <typename Body>
void guarded(benchmark::State& state, Body&& body) {
  try {
    body();
  } catch (const std::exception& e) {
    state.SkipWithError(e.what());
  }
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
// The peer: libcrypto EVP directly, as openssl speed does it

void check(int ok, const char* what) {
  if (ok != 1) throw std::runtime_error(std::string("OpenSSL: ") + what + " failed");
}

struct CipherCtxFree {
  void operator()(EVP_CIPHER_CTX* p) const { EVP_CIPHER_CTX_free(p); }
};
struct CipherFree {
  void operator()(EVP_CIPHER* p) const { EVP_CIPHER_free(p); }
};
struct MdFree {
  void operator()(EVP_MD* p) const { EVP_MD_free(p); }
};
struct MacFree {
  void operator()(EVP_MAC* p) const { EVP_MAC_free(p); }
};
struct MacCtxFree {
  void operator()(EVP_MAC_CTX* p) const { EVP_MAC_CTX_free(p); }
};
using CipherCtx = std::unique_ptr<EVP_CIPHER_CTX, CipherCtxFree>;

// A fetched cipher and a context keyed for encryption with padding off, as
// openssl speed -evp sets it up.
CipherCtx keyed_cipher(const char* name) {
  std::unique_ptr<EVP_CIPHER, CipherFree> cipher(EVP_CIPHER_fetch(nullptr, name, nullptr));
  if (!cipher) throw std::runtime_error(std::string("OpenSSL: no cipher ") + name);
  CipherCtx ctx(EVP_CIPHER_CTX_new());
  if (!ctx) throw std::runtime_error("OpenSSL: EVP_CIPHER_CTX_new failed");
  check(EVP_CipherInit_ex2(ctx.get(), cipher.get(), kKey16.data(), kIv16.data(), 1, nullptr),
        "EVP_CipherInit_ex2");
  check(EVP_CIPHER_CTX_set_padding(ctx.get(), 0), "EVP_CIPHER_CTX_set_padding");
  return ctx;  // the context holds its own reference to the cipher
}

int as_int(std::size_t size) {
  return static_cast<int>(size);
}

// openssl speed -evp aes-128-cbc: EVP_EncryptUpdate in place, in a loop.
void raw_cbc_update(benchmark::State& state, std::size_t size) {
  guarded(state, [&] {
    CipherCtx ctx = keyed_cipher("AES-128-CBC");
    Buffer buffer(size);
    int outl = 0;
    for (auto _ : state) {
      if (EVP_EncryptUpdate(ctx.get(), buffer.data(), &outl, buffer.data(), as_int(size)) != 1)
        throw std::runtime_error("OpenSSL: EVP_EncryptUpdate failed");
      benchmark::DoNotOptimize(buffer.data());
    }
    finish(state, "aes-128-cbc", "EVP_EncryptUpdate (in place, keyed ctx)", "raw EVP", size);
  });
}

// The peer of a one-shot encrypt with IV: set the IV, update, final.
void raw_cbc_encrypt(benchmark::State& state, std::size_t size) {
  guarded(state, [&] {
    CipherCtx ctx = keyed_cipher("AES-128-CBC");
    Buffer buffer(size);
    int outl = 0, finl = 0;
    for (auto _ : state) {
      if (EVP_CipherInit_ex2(ctx.get(), nullptr, nullptr, kIv16.data(), 1, nullptr) != 1 ||
          EVP_EncryptUpdate(ctx.get(), buffer.data(), &outl, buffer.data(), as_int(size)) != 1 ||
          EVP_EncryptFinal_ex(ctx.get(), buffer.data() + outl, &finl) != 1)
        throw std::runtime_error("OpenSSL: CBC encrypt failed");
      benchmark::DoNotOptimize(buffer.data());
    }
    finish(state, "aes-128-cbc", "EVP init(IV)+update+final (in place)", "raw EVP", size);
  });
}

// The peer of seal: per request set the IV (and, with `rekey`, the key too),
// update in place, final, read the tag.
void raw_gcm_seal(benchmark::State& state, std::size_t size, bool rekey) {
  guarded(state, [&] {
    CipherCtx ctx = keyed_cipher("AES-128-GCM");
    Buffer buffer(size);
    std::array<std::uint8_t, 16> tag{};
    const std::uint8_t* key = rekey ? kKey16.data() : nullptr;
    int outl = 0, finl = 0;
    for (auto _ : state) {
      if (EVP_CipherInit_ex2(ctx.get(), nullptr, key, kNonce12.data(), 1, nullptr) != 1 ||
          EVP_EncryptUpdate(ctx.get(), buffer.data(), &outl, buffer.data(), as_int(size)) != 1 ||
          EVP_EncryptFinal_ex(ctx.get(), buffer.data() + outl, &finl) != 1 ||
          EVP_CIPHER_CTX_ctrl(ctx.get(), EVP_CTRL_AEAD_GET_TAG, static_cast<int>(tag.size()),
                              tag.data()) != 1)
        throw std::runtime_error("OpenSSL: GCM seal failed");
      benchmark::DoNotOptimize(tag.data());
    }
    finish(state, "aes-128-gcm",
           rekey ? "EVP init(key+IV)+update+final+tag (in place)"
                 : "EVP init(IV)+update+final+tag (in place)",
           "raw EVP", size);
  });
}

// What `openssl speed -evp aes-128-gcm` (OpenSSL 3.0, without -aead)
// actually times: EVP_EncryptUpdate in place on one IV, no final, no tag.
void raw_gcm_update(benchmark::State& state, std::size_t size) {
  guarded(state, [&] {
    CipherCtx ctx = keyed_cipher("AES-128-GCM");
    Buffer buffer(size);
    int outl = 0;
    for (auto _ : state) {
      if (EVP_EncryptUpdate(ctx.get(), buffer.data(), &outl, buffer.data(), as_int(size)) != 1)
        check(EVP_CipherInit_ex2(ctx.get(), nullptr, nullptr, kNonce12.data(), 1, nullptr),
              "EVP_CipherInit_ex2");  // the counter ran out, as openssl speed recovers
      benchmark::DoNotOptimize(buffer.data());
    }
    finish(state, "aes-128-gcm", "EVP_EncryptUpdate only (openssl speed 3.0 -evp loop)", "raw EVP",
           size);
  });
}

// openssl speed -evp sha256: EVP_Digest one-shot with a fetched EVP_MD.
void raw_sha256(benchmark::State& state, std::size_t size) {
  guarded(state, [&] {
    std::unique_ptr<EVP_MD, MdFree> md(EVP_MD_fetch(nullptr, "SHA256", nullptr));
    if (!md) throw std::runtime_error("OpenSSL: no SHA256");
    Buffer buffer(size);
    std::array<std::uint8_t, EVP_MAX_MD_SIZE> out{};
    for (auto _ : state) {
      if (EVP_Digest(buffer.data(), size, out.data(), nullptr, md.get(), nullptr) != 1)
        throw std::runtime_error("OpenSSL: EVP_Digest failed");
      benchmark::DoNotOptimize(out.data());
    }
    finish(state, "sha256", "EVP_Digest one-shot", "raw EVP", size);
  });
}

// openssl speed -hmac sha256: EVP_MAC_init(NULL key)/update/final on a keyed
// context.
void raw_hmac(benchmark::State& state, std::size_t size) {
  guarded(state, [&] {
    std::unique_ptr<EVP_MAC, MacFree> mac(EVP_MAC_fetch(nullptr, "HMAC", nullptr));
    if (!mac) throw std::runtime_error("OpenSSL: no HMAC");
    std::unique_ptr<EVP_MAC_CTX, MacCtxFree> ctx(EVP_MAC_CTX_new(mac.get()));
    if (!ctx) throw std::runtime_error("OpenSSL: EVP_MAC_CTX_new failed");
    char digest[] = "SHA256";
    const OSSL_PARAM params[] = {OSSL_PARAM_construct_utf8_string(OSSL_MAC_PARAM_DIGEST, digest, 0),
                                 OSSL_PARAM_END};
    const Bytes key = hmac_key();
    check(EVP_MAC_init(ctx.get(), key.data(), key.size(), params), "EVP_MAC_init");
    Buffer buffer(size);
    std::array<std::uint8_t, EVP_MAX_MD_SIZE> out{};
    for (auto _ : state) {
      std::size_t outl = 0;
      if (EVP_MAC_init(ctx.get(), nullptr, 0, nullptr) != 1 ||
          EVP_MAC_update(ctx.get(), buffer.data(), size) != 1 ||
          EVP_MAC_final(ctx.get(), out.data(), &outl, out.size()) != 1)
        throw std::runtime_error("OpenSSL: HMAC failed");
      benchmark::DoNotOptimize(out.data());
    }
    finish(state, "hmac-sha256", "EVP_MAC_init(NULL key)+update+final", "raw EVP", size);
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

void add_raw(const std::string& name, void (*fn)(benchmark::State&, std::size_t),
             std::size_t size) {
  benchmark::RegisterBenchmark(name.c_str(), [fn, size](benchmark::State& state) {
    fn(state, size);
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

// Each soft benchmark is followed at once by its raw peers, so that a pair
// sees the same machine state.
void register_soft_and_raw(std::size_t size) {
  const std::string soft = "soft";
  add(name_of(soft, "aes-128-cbc", "update", size), session_cbc_update, soft, size);
  add_raw(name_of("raw", "aes-128-cbc", "update", size), raw_cbc_update, size);
  add(name_of(soft, "aes-128-cbc", "encrypt", size), session_cbc_encrypt, soft, size);
  add_raw(name_of("raw", "aes-128-cbc", "encrypt", size), raw_cbc_encrypt, size);
  add(name_of(soft, "aes-128-gcm", "seal", size), session_gcm_seal, soft, size);
  add_raw(
      name_of("raw", "aes-128-gcm", "seal", size),
      [](benchmark::State& s, std::size_t n) { raw_gcm_seal(s, n, false); }, size);
  add_raw(
      name_of("raw", "aes-128-gcm", "seal-rekey", size),
      [](benchmark::State& s, std::size_t n) { raw_gcm_seal(s, n, true); }, size);
  add_raw(name_of("raw", "aes-128-gcm", "update", size), raw_gcm_update, size);
  add(name_of(soft, "sha256", "digest", size), session_sha256, soft, size);
  add_raw(name_of("raw", "sha256", "digest", size), raw_sha256, size);
  add(name_of(soft, "hmac-sha256", "digest", size), session_hmac, soft, size);
  add_raw(name_of("raw", "hmac-sha256", "digest", size), raw_hmac, size);
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
  for (std::size_t size : {kSmall, kLarge}) register_soft_and_raw(size);

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
