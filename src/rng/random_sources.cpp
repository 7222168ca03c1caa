// The names of the random sources, and the choice of the best hardware one.
#include "cryptoaccel/random.hpp"
#include "health_tested_source.hpp"
#include "raw_source.hpp"

namespace cryptoaccel {
namespace {

constexpr std::string_view kDefaultAfAlg = "stdrng";

std::unique_ptr<RandomSource> wrap(RandomSourceInfo info, std::unique_ptr<rng::RawSource> raw) {
  auto source = std::make_unique<rng::HealthTestedSource>(std::move(info), std::move(raw));
  source->start();
  return source;
}

}  // namespace

std::string_view to_string(RandomSourceKind kind) noexcept {
  switch (kind) {
    case RandomSourceKind::hardware:
      return "hardware";
    case RandomSourceKind::software:
      return "software";
    case RandomSourceKind::input:
      return "input";
  }
  return "?";
}

std::vector<RandomSourceInfo> random_sources() {
  return {rng::probe_hwrng(),
          rng::probe_rdseed(),
          rng::probe_rdrand(),
          rng::probe_rndrrs(),
          rng::probe_rndr(),
          rng::probe_getrandom(),
          rng::probe_afalg(kDefaultAfAlg),
          rng::probe_afalg("jitterentropy_rng")};
}

std::unique_ptr<RandomSource> open_random_source(std::string_view name) {
  if (name == "best") return best_hardware_source();
  if (name == "hwrng") return wrap(rng::probe_hwrng(), rng::open_hwrng());
  if (name == "getrandom") return wrap(rng::probe_getrandom(), rng::open_getrandom());
  if (name == "rdrand") return wrap(rng::probe_rdrand(), rng::open_rdrand());
  if (name == "rdseed") return wrap(rng::probe_rdseed(), rng::open_rdseed());
  if (name == "rndr") return wrap(rng::probe_rndr(), rng::open_rndr());
  if (name == "rndrrs") return wrap(rng::probe_rndrrs(), rng::open_rndrrs());
  if (name == "afalg" || name.starts_with("afalg:")) {
    const std::string_view algorithm = name == "afalg" ? kDefaultAfAlg : name.substr(6);
    if (algorithm.empty()) throw InvalidArgument("afalg: empty algorithm (want afalg:NAME)");
    auto raw = rng::open_afalg(algorithm);
    RandomSourceInfo info = rng::probe_afalg(algorithm);
    return wrap(std::move(info), std::move(raw));
  }
  if (name == "-" || name == "stdin") return wrap(rng::describe_file("-"), rng::open_file("-"));
  if (name.starts_with("file:")) {
    const std::string_view path = name.substr(5);
    return wrap(rng::describe_file(path), rng::open_file(path));
  }
  throw NotFound("no random source named '" + std::string(name) +
                 "' (sources: hwrng, getrandom, rdrand, rdseed, rndr, rndrrs, afalg[:ALG], file:PATH, "
                 "stdin, "
                 "best; `cryptoaccel list` shows which are here)");
}

std::unique_ptr<RandomSource> best_hardware_source() {
  std::string reasons;
  for (const char* name : {"hwrng", "rdseed", "rdrand", "rndrrs", "rndr"}) {
    try {
      return open_random_source(name);
    } catch (const Error& e) {
      reasons += std::string(reasons.empty() ? "" : "; ") + e.what();
    }
  }
  throw Unsupported("no hardware random source here: " + reasons);
}

}  // namespace cryptoaccel
