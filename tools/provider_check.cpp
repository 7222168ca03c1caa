#include "provider_check.hpp"

#ifdef CRYPTOACCEL_CLI_BUILD_PATHS
#include "build_paths.hpp"
#endif

#include <fmt/core.h>
#include <openssl/core_names.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/params.h>
#include <openssl/provider.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <optional>

#include "cryptoaccel/error.hpp"

#ifndef CRYPTOACCEL_INSTALLED_PROVIDER
#define CRYPTOACCEL_INSTALLED_PROVIDER "/usr/lib/x86_64-linux-gnu/ossl-modules/cryptoaccel.so"
#endif

namespace cryptoaccel::tools {
namespace {

using Clock = std::chrono::steady_clock;

struct LibCtxFree {
  void operator()(OSSL_LIB_CTX* c) const { OSSL_LIB_CTX_free(c); }
};
struct ProviderUnload {
  void operator()(OSSL_PROVIDER* p) const { OSSL_PROVIDER_unload(p); }
};
struct CipherFree {
  void operator()(EVP_CIPHER* c) const { EVP_CIPHER_free(c); }
};
struct CipherCtxFree {
  void operator()(EVP_CIPHER_CTX* c) const { EVP_CIPHER_CTX_free(c); }
};
struct MdFree {
  void operator()(EVP_MD* m) const { EVP_MD_free(m); }
};
struct MacFree {
  void operator()(EVP_MAC* m) const { EVP_MAC_free(m); }
};
struct MacCtxFree {
  void operator()(EVP_MAC_CTX* c) const { EVP_MAC_CTX_free(c); }
};

// The provider's own settings come from its environment variables too:
// while it loads here, only the profile under test may steer it.
class ProviderEnvironment {
 public:
  explicit ProviderEnvironment(const std::string& profile) {
    for (const char* name : kNames) {
      const char* value = std::getenv(name);
      saved_.push_back(value == nullptr ? std::nullopt : std::optional<std::string>(value));
      ::unsetenv(name);
    }
    ::setenv("CRYPTOACCEL_PROFILE", profile.c_str(), 1);
  }
  ~ProviderEnvironment() {
    for (std::size_t i = 0; i < std::size(kNames); ++i) {
      if (saved_[i])
        ::setenv(kNames[i], saved_[i]->c_str(), 1);
      else
        ::unsetenv(kNames[i]);
    }
  }
  ProviderEnvironment(const ProviderEnvironment&) = delete;
  ProviderEnvironment& operator=(const ProviderEnvironment&) = delete;

 private:
  static constexpr const char* kNames[] = {"CRYPTOACCEL_PROFILE", "CRYPTOACCEL_POLICY",
                                           "CRYPTOACCEL_DRIVER",  "CRYPTOACCEL_DIRECT",
                                           "CRYPTOACCEL_STATS",   "CRYPTOACCEL_OFFLOAD_SHARE"};
  std::vector<std::optional<std::string>> saved_;
};

// One side of the comparison: a library context with one provider in it.
struct Side {
  std::unique_ptr<OSSL_LIB_CTX, LibCtxFree> context;
  std::unique_ptr<OSSL_PROVIDER, ProviderUnload> provider;
  std::string query;  // the property query that fetches from it
  std::string name;   // for messages
};

Side default_side() {
  Side side{std::unique_ptr<OSSL_LIB_CTX, LibCtxFree>(OSSL_LIB_CTX_new()), nullptr,
            "provider=default", "OpenSSL's default provider"};
  if (!side.context) throw std::bad_alloc();
  side.provider.reset(OSSL_PROVIDER_load(side.context.get(), "default"));
  if (!side.provider) throw Unsupported("OpenSSL's default provider does not load");
  return side;
}

Side provider_side(const ProviderCheckOptions& o) {
  const std::filesystem::path module(o.module);
  if (!std::filesystem::is_regular_file(module))
    throw NotFound("no provider module at " + o.module + " (give --provider)");
  // The only provider in its library context: what is fetched there is its.
  Side side{std::unique_ptr<OSSL_LIB_CTX, LibCtxFree>(OSSL_LIB_CTX_new()), nullptr, "", o.module};
  if (!side.context) throw std::bad_alloc();
  ProviderEnvironment environment(o.profile_path);
  // The file named, by its path (OpenSSL takes a name with a slash as one).
  const std::string path = std::filesystem::absolute(module).string();
  side.provider.reset(OSSL_PROVIDER_load(side.context.get(), path.c_str()));
  if (!side.provider) {
    std::string why;
    if (const unsigned long e = ERR_peek_last_error(); e != 0) {
      char text[256];
      ERR_error_string_n(e, text, sizeof text);
      why = std::string(": ") + text;
    }
    ERR_clear_error();
    throw Unsupported("the provider " + o.module + " does not load" + why);
  }
  return side;
}

// Bytes per second of `step(size)` repeated for `seconds` (at least once).
template <typename Step>
double rate(double seconds, std::size_t size, Step&& step) {
  const auto end = Clock::now() + std::chrono::duration<double>(seconds);
  const auto start = Clock::now();
  std::uint64_t done = 0;
  do {
    for (int i = 0; i < 16; ++i) {
      if (!step()) throw DriverFailure("an EVP call failed while measuring");
      ++done;
    }
  } while (Clock::now() < end);
  const double elapsed = std::chrono::duration<double>(Clock::now() - start).count();
  return static_cast<double>(done * size) / elapsed;
}

// One algorithm's measurement at one size on one side, as an application
// makes the calls.
class Measure {
 public:
  Measure(const Side& side, const Algorithm& a) : alg_(a) {
    const std::string name(a.kind == AlgorithmKind::mac ? std::string_view("HMAC")
                                                        : a.openssl_name);
    switch (a.kind) {
      case AlgorithmKind::cipher:
      case AlgorithmKind::aead:
        cipher_.reset(EVP_CIPHER_fetch(side.context.get(), name.c_str(), side.query.c_str()));
        if (!cipher_) throw Unsupported(name + " is not fetched from " + side.name);
        break;
      case AlgorithmKind::digest:
        md_.reset(EVP_MD_fetch(side.context.get(), name.c_str(), side.query.c_str()));
        if (!md_) throw Unsupported(name + " is not fetched from " + side.name);
        break;
      case AlgorithmKind::mac:
        mac_.reset(EVP_MAC_fetch(side.context.get(), name.c_str(), side.query.c_str()));
        if (!mac_) throw Unsupported(name + " is not fetched from " + side.name);
        break;
      default:
        throw Unsupported(std::string(a.name) + " is not measured through EVP");
    }
  }

  double at(std::size_t size, double seconds) {
    buffer_.assign(size + 64, 0x5a);
    switch (alg_.kind) {
      case AlgorithmKind::cipher:
        return stream(size, seconds);
      case AlgorithmKind::aead:
        return records(size, seconds);
      case AlgorithmKind::digest:
        return rate(seconds, size, [&] {
          unsigned int n = 0;
          return EVP_Digest(buffer_.data(), size, digest_.data(), &n, md_.get(), nullptr) == 1;
        });
      case AlgorithmKind::mac:
        return hmac(size, seconds);
      default:
        return 0;
    }
  }

 private:
  // A cipher: one context, a stream of updates (`openssl speed`'s loop).
  double stream(std::size_t size, double seconds) {
    std::unique_ptr<EVP_CIPHER_CTX, CipherCtxFree> ctx(EVP_CIPHER_CTX_new());
    const std::array<unsigned char, 64> key{1, 2, 3}, iv{4, 5, 6};
    if (!ctx || EVP_EncryptInit_ex2(ctx.get(), cipher_.get(), key.data(), iv.data(), nullptr) != 1)
      throw DriverFailure(std::string(alg_.name) + ": EVP_EncryptInit_ex2 failed");
    EVP_CIPHER_CTX_set_padding(ctx.get(), 0);
    return rate(seconds, size, [&] {
      int outl = 0;
      return EVP_EncryptUpdate(ctx.get(), buffer_.data(), &outl, buffer_.data(),
                               static_cast<int>(size)) == 1;
    });
  }

  // An AEAD: a TLS record's calls per message (nonce, 13 bytes of AAD,
  // the payload, final, the tag).
  double records(std::size_t size, double seconds) {
    std::unique_ptr<EVP_CIPHER_CTX, CipherCtxFree> ctx(EVP_CIPHER_CTX_new());
    const std::array<unsigned char, 64> key{1, 2, 3};
    std::array<unsigned char, 12> nonce{7, 8, 9};
    const std::array<unsigned char, 13> aad{23, 3, 3};
    if (!ctx ||
        EVP_EncryptInit_ex2(ctx.get(), cipher_.get(), key.data(), nonce.data(), nullptr) != 1)
      throw DriverFailure(std::string(alg_.name) + ": EVP_EncryptInit_ex2 failed");
    return rate(seconds, size, [&] {
      ++nonce[11];
      int outl = 0;
      unsigned char tag[16];
      return EVP_EncryptInit_ex2(ctx.get(), nullptr, nullptr, nonce.data(), nullptr) == 1 &&
             EVP_EncryptUpdate(ctx.get(), nullptr, &outl, aad.data(), aad.size()) == 1 &&
             EVP_EncryptUpdate(ctx.get(), buffer_.data(), &outl, buffer_.data(),
                               static_cast<int>(size)) == 1 &&
             EVP_EncryptFinal_ex(ctx.get(), buffer_.data() + size, &outl) == 1 &&
             EVP_CIPHER_CTX_ctrl(ctx.get(), EVP_CTRL_AEAD_GET_TAG, 16, tag) == 1;
    });
  }

  // HMAC: one key, a message per init, update, final.
  double hmac(std::size_t size, double seconds) {
    std::unique_ptr<EVP_MAC_CTX, MacCtxFree> ctx(EVP_MAC_CTX_new(mac_.get()));
    const Algorithm* digest = find_algorithm(alg_.digest);
    if (!ctx || digest == nullptr) throw DriverFailure(std::string(alg_.name) + ": no context");
    std::string digest_name(digest->openssl_name);
    const std::array<unsigned char, 32> key{1, 2, 3};
    const OSSL_PARAM params[] = {
        OSSL_PARAM_construct_utf8_string(OSSL_MAC_PARAM_DIGEST, digest_name.data(), 0),
        OSSL_PARAM_END};
    if (EVP_MAC_init(ctx.get(), key.data(), key.size(), params) != 1)
      throw DriverFailure(std::string(alg_.name) + ": EVP_MAC_init failed");
    return rate(seconds, size, [&] {
      std::size_t n = 0;
      return EVP_MAC_init(ctx.get(), nullptr, 0, nullptr) == 1 &&
             EVP_MAC_update(ctx.get(), buffer_.data(), size) == 1 &&
             EVP_MAC_final(ctx.get(), digest_.data(), &n, digest_.size()) == 1;
    });
  }

  const Algorithm& alg_;
  std::unique_ptr<EVP_CIPHER, CipherFree> cipher_;
  std::unique_ptr<EVP_MD, MdFree> md_;
  std::unique_ptr<EVP_MAC, MacFree> mac_;
  std::vector<unsigned char> buffer_;
  std::array<unsigned char, EVP_MAX_MD_SIZE> digest_{};
};

}  // namespace

std::string default_provider_module() {
  // The build tree's command loads the module built beside it; any other
  // copy only the installed module. A folder next to an installed program
  // is no place to load code from as root: /usr/local/src is writable by
  // the group staff on Debian.
#ifdef CRYPTOACCEL_CLI_BUILD_PATHS
  std::error_code ec;
  const std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (!ec && self == std::filesystem::path(build_paths::kCli)) return build_paths::kProvider;
#endif
  return CRYPTOACCEL_INSTALLED_PROVIDER;
}

std::vector<ProviderCheck> check_provider(const std::vector<AlgorithmId>& ids,
                                          const ProviderCheckOptions& o) {
  std::vector<ProviderCheck> results;
  if (ids.empty()) return results;
  const Side plain = default_side();
  const Side ours = provider_side(o);
  const double share = o.seconds / std::max(1u, o.rounds);
  for (const AlgorithmId id : ids) {
    const Algorithm& a = algorithm(id);
    Measure theirs_measure(plain, a), ours_measure(ours, a);
    ProviderCheck check{.algorithm = id};
    bool kept_everywhere = true, gains_somewhere = false;
    for (const std::size_t size : o.sizes) {
      if (size < a.min_input || size % a.input_multiple != 0) continue;
      double best_theirs = 0, best_ours = 0;
      for (unsigned round = 0; round < o.rounds; ++round) {
        if (o.interrupted && o.interrupted()) return results;
        // Which side goes first alternates: neither always gets the warm cache.
        if (round % 2 == 0) {
          best_theirs = std::max(best_theirs, theirs_measure.at(size, share));
          best_ours = std::max(best_ours, ours_measure.at(size, share));
        } else {
          best_ours = std::max(best_ours, ours_measure.at(size, share));
          best_theirs = std::max(best_theirs, theirs_measure.at(size, share));
        }
      }
      const double ratio = best_ours / best_theirs;
      check.ratios.emplace_back(size, ratio);
      kept_everywhere = kept_everywhere && ratio >= kKeepAtLeast;
      gains_somewhere = gains_somewhere || ratio >= kGainAtLeast;
    }
    check.direct = !(kept_everywhere && gains_somewhere);
    if (o.progress) {
      std::string line = fmt::format("provider {}:", a.name);
      for (const auto& [size, ratio] : check.ratios)
        line += fmt::format(" {} B {:.2f}", size, ratio);
      line += check.direct ? " -> OpenSSL's own implementation" : " -> the provider's drivers";
      o.progress(line);
    }
    results.push_back(std::move(check));
  }
  return results;
}

}  // namespace cryptoaccel::tools
