// An AF_ALG "rng" socket (algif_rng): the kernel's stdrng (a DRBG) or any
// rng it has by name or driver name (jitterentropy_rng, drbg_nopr_hmac_sha256).
//
// A DRBG refuses to generate until it is seeded through setkey, so the
// transform is always keyed: with `seedsize` bytes from getrandom when
// /proc/crypto gives the rng a seed size, else with 32 bytes that the
// kernel's DRBG takes as its personalisation string (it draws its own
// entropy either way). One read returns at most 128 bytes.
#include <linux/if_alg.h>
#include <openssl/crypto.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <vector>

#include "kernel/af_alg_socket.hpp"
#include "raw_source.hpp"

namespace cryptoaccel::rng {
namespace {

constexpr std::size_t kMaxRead = 128;  // algif_rng's limit per recvmsg

// The seedsize of the rng named `algorithm` in /proc/crypto (name or
// driver), 0 when it has none or is not listed.
unsigned seed_size(std::string_view algorithm) {
  std::ifstream in("/proc/crypto");
  std::string line, name, driver, type;
  unsigned seedsize = 0;
  const auto matches = [&] { return type == "rng" && (name == algorithm || driver == algorithm); };
  while (std::getline(in, line)) {
    if (line.empty()) {
      if (matches()) return seedsize;
      name.clear(), driver.clear(), type.clear(), seedsize = 0;
      continue;
    }
    const auto colon = line.find(':');
    if (colon == std::string::npos) continue;
    std::string key = line.substr(0, colon), value = line.substr(colon + 1);
    while (!key.empty() && key.back() == ' ') key.pop_back();
    while (!value.empty() && value.front() == ' ') value.erase(0, 1);
    if (key == "name") name = value;
    if (key == "driver") driver = value;
    if (key == "type") type = value;
    if (key == "seedsize") seedsize = static_cast<unsigned>(std::stoul(value));
  }
  return matches() ? seedsize : 0;
}

// A transform socket of type "rng" bound to `algorithm`; negative errno in `error`.
kernel::Fd bind_rng(std::string_view algorithm, int& error) {
  sockaddr_alg address{};
  address.salg_family = AF_ALG;
  std::memcpy(address.salg_type, "rng", 4);
  if (algorithm.size() >= sizeof address.salg_name) {
    error = -ENAMETOOLONG;
    return {};
  }
  std::memcpy(address.salg_name, algorithm.data(), algorithm.size());
  kernel::Fd fd(::socket(AF_ALG, SOCK_SEQPACKET | SOCK_CLOEXEC, 0));
  if (!fd.valid() ||
      ::bind(fd.get(), reinterpret_cast<const sockaddr*>(&address), sizeof address) != 0) {
    error = -errno;
    return {};
  }
  error = 0;
  return fd;
}

class AfAlgRngSource final : public RawSource {
 public:
  AfAlgRngSource(kernel::Fd transform, kernel::Fd operation, std::string name)
      : transform_(std::move(transform)),
        operation_(std::move(operation)),
        name_(std::move(name)) {}

  std::size_t read(std::span<std::uint8_t> out) override {
    std::size_t got = 0;
    while (got < out.size()) {
      const std::size_t want = std::min(kMaxRead, out.size() - got);
      const ssize_t n = ::read(operation_.get(), out.data() + got, want);
      if (n < 0) {
        if (errno == EINTR) continue;
        throw DriverFailure(name_ + ": read: " + system_error_text(errno));
      }
      if (n == 0) throw DriverFailure(name_ + ": the kernel returned no data");
      got += static_cast<std::size_t>(n);
    }
    return got;
  }

 private:
  kernel::Fd transform_;  // keeps the keyed (seeded) rng alive
  kernel::Fd operation_;
  std::string name_;
};

std::string unavailable_reason(std::string_view algorithm, int error) {
  if (error == -EAFNOSUPPORT)
    return "AF_ALG is not available in this kernel (no af_alg module or CONFIG_CRYPTO_USER_API)";
  if (error == -ENOENT)
    return "the kernel has no rng '" + std::string(algorithm) +
           "' for AF_ALG (is algif_rng loaded? /proc/crypto lists the rngs)";
  return "binding AF_ALG rng '" + std::string(algorithm) + "': " + system_error_text(-error);
}

}  // namespace

RandomSourceInfo probe_afalg(std::string_view algorithm) {
  RandomSourceInfo info{
      .name = "afalg:" + std::string(algorithm),
      .kind = RandomSourceKind::software,
      .description = "the kernel's rng '" + std::string(algorithm) + "' through AF_ALG (algif_rng)",
      .entropy_per_sample = kClaimedEntropyPerByte};
  int error = 0;
  const kernel::Fd fd = bind_rng(algorithm, error);
  info.available = fd.valid();
  if (!info.available) info.detail = unavailable_reason(algorithm, error);
  return info;
}

std::unique_ptr<RawSource> open_afalg(std::string_view algorithm) {
  const std::string name = "afalg:" + std::string(algorithm);
  int error = 0;
  kernel::Fd transform = bind_rng(algorithm, error);
  if (!transform.valid()) throw Unsupported(name + ": " + unavailable_reason(algorithm, error));
  const unsigned size = seed_size(algorithm);
  std::vector<std::uint8_t> seed(size ? size : 32);
  if (::getrandom(seed.data(), seed.size(), 0) != static_cast<ssize_t>(seed.size()))
    throw DriverFailure(name + ": getrandom for the seed: " + system_error_text(errno));
  const int e = kernel::set_key(transform, seed);
  OPENSSL_cleanse(seed.data(), seed.size());  // for ansi_cprng it is the key
  if (e != 0)
    throw DriverFailure(name + ": seeding (setkey, " + std::to_string(seed.size()) +
                        " bytes): " + system_error_text(-e));
  kernel::Fd operation = kernel::accept_operation(transform, error);
  if (!operation.valid()) throw DriverFailure(name + ": accept: " + system_error_text(-error));
  return std::make_unique<AfAlgRngSource>(std::move(transform), std::move(operation), name);
}

}  // namespace cryptoaccel::rng
