#include "rsa_speed.hpp"

#include <fmt/core.h>
#include <sys/resource.h>

#include <chrono>
#include <utility>

#include "verify.hpp"

namespace cryptoaccel::tools::speed {
namespace {

using Clock = std::chrono::steady_clock;
using ByteVector = std::vector<std::uint8_t>;

// What openssl speed signs: 36 bytes, an MD5 and a SHA-1 digest side by
// side, with PKCS#1 v1.5 and no DigestInfo.
constexpr std::size_t kSignedBytes = 36;
const RsaParameters kPkcs1NoDigest{.padding = RsaPadding::pkcs1, .digest = kNoDigest};

double process_cpu_seconds() {
  rusage r{};
  getrusage(RUSAGE_SELF, &r);
  return static_cast<double>(r.ru_utime.tv_sec + r.ru_stime.tv_sec) +
         static_cast<double>(r.ru_utime.tv_usec + r.ru_stime.tv_usec) / 1e6;
}

template <typename Operation>
RsaFigure time(Operation op, double seconds, const std::atomic<bool>& interrupt) {
  RsaFigure f{.offered = true};
  const double cpu0 = process_cpu_seconds();
  const auto start = Clock::now();
  // The clock is read every operation: one costs a microsecond at least.
  while (!interrupt.load(std::memory_order_relaxed)) {
    op();
    ++f.operations;
    f.elapsed = std::chrono::duration<double>(Clock::now() - start).count();
    if (f.elapsed >= seconds) break;
  }
  f.cpu = process_cpu_seconds() - cpu0;
  return f;
}

bool takes(std::uint8_t operations, Operation op) {
  return (operations & operation_bit(op)) != 0;
}

std::string bits_label(const RsaMeasurement& m, bool with_driver) {
  std::string text = fmt::format("rsa {:4} bits", m.algorithm->output_size * 8);
  if (with_driver) text += " (" + m.driver + ")";
  return text;
}

std::string per_operation(const RsaFigure& f) {
  return f.offered && f.operations != 0
             ? fmt::format("{:.6f}s", f.elapsed / static_cast<double>(f.operations))
             : std::string("-");
}

std::string per_second(const RsaFigure& f) {
  return f.offered ? fmt::format("{:.1f}", f.rate()) : std::string("-");
}

std::string cpu_share(const RsaFigure& f) {
  return f.offered ? fmt::format("{:.0f}%", f.cpu_percent()) : std::string("-");
}

}  // namespace

RsaMeasurement measure_rsa(const RsaKey& key, const std::string& driver, std::uint8_t operations,
                           double seconds, const std::atomic<bool>& interrupt) {
  RsaMeasurement m{.algorithm = &key.algorithm(), .driver = driver};
  RsaSession session(key, pinned_to(driver));
  const ByteVector input(kSignedBytes, 0x5c);
  ByteVector signature(session.size()), ciphertext(session.size()), plaintext(session.size());
  // The public-key results are made on soft, so that a driver that only
  // decrypts (a device's pkcs1pad) is timed all the same.
  RsaSession reference(key, {.driver = "soft"});
  reference.sign(kPkcs1NoDigest, input, signature);
  reference.encrypt(kPkcs1NoDigest, input, ciphertext);
  if (takes(operations, Operation::sign)) {
    m.sign = time([&] { session.sign(kPkcs1NoDigest, input, signature); }, seconds, interrupt);
    m.sign.served_by = session.last_driver();
  }
  if (takes(operations, Operation::verify)) {
    m.verify = time(
        [&] {
          if (!session.verify(kPkcs1NoDigest, input, signature))
            throw DriverFailure(std::string(session.last_driver()) + " refused a good signature");
        },
        seconds, interrupt);
    m.verify.served_by = session.last_driver();
  }
  if (takes(operations, Operation::encrypt)) {
    m.encrypt =
        time([&] { session.encrypt(kPkcs1NoDigest, input, ciphertext); }, seconds, interrupt);
    m.encrypt.served_by = session.last_driver();
  }
  if (takes(operations, Operation::decrypt)) {
    reference.encrypt(kPkcs1NoDigest, input, ciphertext);
    m.decrypt =
        time([&] { session.decrypt(kPkcs1NoDigest, ciphertext, plaintext); }, seconds, interrupt);
    m.decrypt.served_by = session.last_driver();
  }
  return m;
}

std::optional<std::string> verify_rsa(const RsaKey& key, const std::string& driver,
                                      std::uint8_t operations) {
  RsaSession tested(key, pinned_to(driver)), soft(key, {.driver = "soft"});
  const ByteVector input(kSignedBytes, 0xa3);
  const RsaParameters pss{.padding = RsaPadding::pss};
  const ByteVector digest(32, 0x17);
  if (takes(operations, Operation::sign)) {
    if (tested.sign(kPkcs1NoDigest, input) != soft.sign(kPkcs1NoDigest, input))
      return "its PKCS#1 v1.5 signature differs from soft's";
    if (!soft.verify(pss, digest, tested.sign(pss, digest)))
      return "soft refuses its PSS signature";
  }
  if (takes(operations, Operation::verify) && !tested.verify(pss, digest, soft.sign(pss, digest)))
    return "it refuses soft's PSS signature";
  if (takes(operations, Operation::decrypt) &&
      tested.decrypt(kPkcs1NoDigest, soft.encrypt(kPkcs1NoDigest, input)) != input)
    return "it decrypts soft's ciphertext to something else";
  if (takes(operations, Operation::encrypt) &&
      soft.decrypt(kPkcs1NoDigest, tested.encrypt(kPkcs1NoDigest, input)) != input)
    return "soft decrypts its ciphertext to something else";
  return std::nullopt;
}

void print_rsa(const std::vector<RsaMeasurement>& all, std::FILE* out, bool machine_readable,
               bool with_driver) {
  if (machine_readable) {
    // openssl speed -mr's +F2 line (sign/s, verify/s); then encrypt and
    // decrypt, and the CPU shares, in lines of our own.
    int index = 0;
    for (const RsaMeasurement& m : all) {
      const std::size_t bits = m.algorithm->output_size * 8;
      fmt::print(out, "+F2:{}:{}:{:f}:{:f}\n", index, bits, m.sign.rate(), m.verify.rate());
      fmt::print(out, "+F2E:{}:{}:{:f}:{:f}\n", index, bits, m.encrypt.rate(), m.decrypt.rate());
      fmt::print(out, "+C2:{}:{}:{}:{:.1f}:{:.1f}:{:.1f}:{:.1f}\n", index, bits, m.driver,
                 m.sign.cpu_percent(), m.verify.cpu_percent(), m.encrypt.cpu_percent(),
                 m.decrypt.cpu_percent());
      ++index;
    }
    return;
  }
  std::size_t width = 14;
  for (const RsaMeasurement& m : all)
    width = std::max(width, bits_label(m, with_driver).size() + 1);
  fmt::print(out, "{:{}}{:>10} {:>10} {:>10} {:>10} {:>9} {:>9} {:>9} {:>9}\n", "", width, "sign",
             "verify", "encrypt", "decrypt", "sign/s", "verify/s", "encr./s", "decr./s");
  for (const RsaMeasurement& m : all)
    fmt::print(out, "{:<{}}{:>10} {:>10} {:>10} {:>10} {:>9} {:>9} {:>9} {:>9}\n",
               bits_label(m, with_driver), width, per_operation(m.sign), per_operation(m.verify),
               per_operation(m.encrypt), per_operation(m.decrypt), per_second(m.sign),
               per_second(m.verify), per_second(m.encrypt), per_second(m.decrypt));
  fmt::print(
      out, "\nCPU time as a share of the elapsed time (100% is one core busy), and who served:\n");
  for (const RsaMeasurement& m : all) {
    fmt::print(out, "{:<{}}{:>10} {:>10} {:>10} {:>10}  ", bits_label(m, with_driver), width,
               cpu_share(m.sign), cpu_share(m.verify), cpu_share(m.encrypt), cpu_share(m.decrypt));
    for (const auto& [what, f] :
         {std::pair{"sign", &m.sign}, std::pair{"verify", &m.verify},
          std::pair{"encrypt", &m.encrypt}, std::pair{"decrypt", &m.decrypt}})
      if (f->offered) fmt::print(out, " {} {}", what, f->served_by);
    fmt::print(out, "\n");
  }
}

}  // namespace cryptoaccel::tools::speed
