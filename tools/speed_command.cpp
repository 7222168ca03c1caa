// `cryptoaccel speed`: openssl speed's invocation and output, plus every
// driver side by side, CPU cost per figure, verification against soft,
// cryptotest/tcrypt/JSON/CSV output and plots.
#include <fmt/core.h>

#include <csignal>
#include <memory>

#include "command.hpp"
#include "cryptoaccel/cryptoaccel.hpp"
#include "speed/measure.hpp"
#include "speed/report.hpp"
#include "speed/rsa_speed.hpp"
#include "speed/speed_options.hpp"
#include "speed/verify.hpp"

namespace cryptoaccel::tools {
namespace {

using namespace speed;

std::atomic<bool> g_interrupted{false};
static_assert(std::atomic<bool>::is_always_lock_free, "set from a signal handler");

extern "C" void on_interrupt(int) {
  g_interrupted.store(true);
}

struct DriverChoice {
  std::string name;  // "auto" or a driver name
  bool verifiable = true;
};

const SelfTestResult* self_test_of(const DriverInfo& d, AlgorithmId id) {
  for (const SelfTestResult& t : d.self_tests)
    if (t.algorithm == id) return &t;
  return nullptr;
}

std::vector<DriverChoice> drivers_for(const std::string& wanted, const Algorithm& a,
                                      const std::vector<DriverInfo>& drivers) {
  if (wanted == "auto") return {{"auto", true}};
  std::vector<DriverChoice> out;
  if (wanted == "all") {
    // Every driver that proved this algorithm; soft first, as the reference.
    for (const DriverInfo& d : drivers) {
      const SelfTestResult* t = self_test_of(d, a.id);
      if (t && t->passed && t->tested) out.push_back({d.name, true});
    }
    std::stable_partition(out.begin(), out.end(), [](const auto& c) { return c.name == "soft"; });
    if (out.empty()) throw Unsupported("no driver offers " + std::string(a.name));
    return out;
  }
  for (const DriverInfo& d : drivers) {
    if (d.name != wanted) continue;
    const SelfTestResult* t = self_test_of(d, a.id);
    if (!t) throw Unsupported("driver '" + wanted + "' does not offer " + std::string(a.name));
    if (!t->passed)
      throw Unsupported("driver '" + wanted + "' disabled " + std::string(a.name) +
                        ": self-test failed: " + t->detail);
    return {{wanted, t->tested}};
  }
  throw NotFound("no driver named '" + wanted + "' (`cryptoaccel list` shows the drivers)");
}

// The operations `driver` takes for `a` ("auto": every one, by someone).
std::uint8_t operations_of(const std::string& driver, const Algorithm& a,
                           const std::vector<DriverInfo>& drivers) {
  for (const DriverInfo& d : drivers)
    if (d.name == driver)
      for (const Capability& c : d.capabilities)
        if (c.algorithm == a.id) return c.operations;
  return kEveryOperation;
}

// RSA: a key per size, then each driver's figures; the table after the
// ciphers'. Returns the verification failures.
std::vector<std::string> run_rsa(const SpeedOptions& options,
                                 const std::vector<const Algorithm*>& sizes,
                                 const std::vector<DriverInfo>& drivers) {
  std::vector<RsaMeasurement> all;
  std::vector<std::string> failures;
  const bool with_driver = options.driver != "auto";
  for (const Algorithm* a : sizes) {
    const auto choices = drivers_for(options.driver, *a, drivers);
    fmt::print(stderr, "Generating a {}-bit RSA key\n", a->output_size * 8);
    const RsaKey key = RsaKey::generate(a->output_size * 8);
    for (const DriverChoice& choice : choices) {
      if (g_interrupted) break;
      const std::uint8_t operations = operations_of(choice.name, *a, drivers);
      if (!options.no_verify && choice.verifiable)
        if (auto problem = verify_rsa(key, choice.name, operations)) {
          const std::string text = fmt::format("{} on {}: {}", a->name, choice.name, *problem);
          fmt::print(stderr, "cryptoaccel speed: VERIFICATION FAILED: {}\n", text);
          failures.push_back(text);
        }
      fmt::print(stderr, "Doing {} bits private and public RSA operations for {}s{}\n",
                 a->output_size * 8, options.seconds,
                 with_driver ? " on " + choice.name : std::string());
      all.push_back(measure_rsa(key, choice.name, operations, options.seconds, g_interrupted));
    }
  }
  print_rsa(all, stdout, options.machine_readable, with_driver);
  return failures;
}

int run_speed(SpeedOptions& options) {
  validate(options);
  const auto drivers = Framework::global().drivers();
  std::vector<std::pair<const Algorithm*, std::vector<DriverChoice>>> plan;
  std::vector<const Algorithm*> rsa;
  for (const Algorithm* a : options.algorithms)
    if (a->kind == AlgorithmKind::public_key)
      rsa.push_back(a);
    else
      plan.emplace_back(a, drivers_for(options.driver, *a, drivers));
  if (!rsa.empty() && options.format != Format::openssl)
    throw InvalidArgument(
        "RSA's figures print in openssl speed's format only (-mr for "
        "machine-readable lines)");
  if (plan.empty()) {
    struct sigaction action {
    }, previous{};
    action.sa_handler = on_interrupt;
    sigemptyset(&action.sa_mask);
    sigaction(SIGINT, &action, &previous);
    const auto failures = run_rsa(options, rsa, drivers);
    sigaction(SIGINT, &previous, nullptr);
    if (g_interrupted) return 130;
    return failures.empty() ? 0 : 1;
  }

  Report report;
  report.sizes = options.sizes;
  report.seconds = options.seconds;
  report.multi = options.multi;
  report.cputime = options.cputime;
  report.decrypt = options.decrypt;
  report.verify = !options.no_verify;
  const bool with_driver = options.driver != "auto";

  struct sigaction action {
  }, previous{};
  action.sa_handler = on_interrupt;
  sigemptyset(&action.sa_mask);
  sigaction(SIGINT, &action, &previous);

  for (const auto& [algorithm, choices] : plan) {
    for (const DriverChoice& choice : choices) {
      if (g_interrupted) break;
      if (report.verify && !choice.verifiable) {
        report.notes.push_back(
            fmt::format("{} on {}: not verified (the driver does no cryptography)", algorithm->name,
                        choice.name));
      } else if (report.verify) {
        for (std::size_t size : options.sizes) {
          if (auto problem = verify(*algorithm, choice.name, size)) {
            const std::string text = fmt::format("{} on {} at {} bytes: {}", algorithm->name,
                                                 choice.name, size, *problem);
            fmt::print(stderr, "cryptoaccel speed: VERIFICATION FAILED: {}\n", text);
            report.verification_failures.push_back(text);
            break;
          }
        }
      }
      for (std::size_t size : options.sizes) {
        MeasureRequest request{.algorithm = algorithm,
                               .driver = choice.name,
                               .size = size,
                               .seconds = options.seconds,
                               .workers = options.multi,
                               .in_flight = options.in_flight,
                               .decrypt = options.decrypt};
        Measurement m = measure(request, g_interrupted);
        print_progress(m, with_driver, options.machine_readable, options.cputime);
        report.measurements.push_back(std::move(m));
        if (g_interrupted) break;
      }
    }
  }
  sigaction(SIGINT, &previous, nullptr);
  report.interrupted = g_interrupted;
  if (report.interrupted)
    fmt::print(stderr, "cryptoaccel speed: interrupted; what was measured so far:\n");

  switch (options.format) {
    case Format::openssl:
      print_openssl(report, stdout, options.machine_readable);
      break;
    case Format::cryptotest:
      print_cryptotest(report, stdout);
      break;
    case Format::tcrypt:
      print_tcrypt(report, stdout);
      break;
    case Format::json:
      print_json(report, stdout);
      break;
    case Format::csv:
      print_csv(report, stdout);
      break;
  }
  for (const std::string& note : report.notes) fmt::print(stderr, "note: {}\n", note);
  if (!options.plot.empty() && !report.measurements.empty()) {
    write_plot(report, options.plot);
    fmt::print(stderr, "plot written to {}\n", options.plot);
  }
  if (!rsa.empty() && !report.interrupted) {
    fmt::print(stdout, "\n");
    for (std::string& failure : run_rsa(options, rsa, drivers))
      report.verification_failures.push_back(std::move(failure));
    report.interrupted = g_interrupted;
  }
  if (report.interrupted) return 130;
  if (!report.verification_failures.empty()) {
    fmt::print(stderr, "cryptoaccel speed: {} verification failure(s)\n",
               report.verification_failures.size());
    return 1;
  }
  return 0;
}

}  // namespace

Action add_speed_command(CLI::App& app) {
  auto options = std::make_shared<SpeedOptions>();
  CLI::App* command = app.add_subcommand(
      "speed",
      "Measure throughput like `openssl speed -evp ALG -elapsed [-multi N]`, on the automatic\n"
      "choice, one driver or every driver side by side; each figure with its CPU cost, each\n"
      "driver's output verified against soft first. OpenSSL's one-dash options are accepted\n"
      "(-evp, -hmac, -seconds, -bytes, -multi, -elapsed, -cputime, -mr, -decrypt).");
  add_options(*command, *options);
  return [options] { return run_speed(*options); };
}

}  // namespace cryptoaccel::tools
