#include "eal_arguments.hpp"

#include <pthread.h>
#include <sched.h>

#include <algorithm>
#include <exception>
#include <iterator>
#include <string>

#include "cryptoaccel/error.hpp"

namespace cryptoaccel::dpdk {
namespace {

std::vector<std::string> split_words(std::string_view text) {
  std::vector<std::string> words;
  std::string word;
  bool in_word = false;
  char quote = 0;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (quote != 0) {
      if (c == quote) {
        quote = 0;
      } else if (c == '\\' && quote == '"' && i + 1 < text.size()) {
        word += text[++i];
      } else {
        word += c;
      }
      continue;
    }
    if (c == ' ' || c == '\t' || c == '\n') {
      if (in_word) words.push_back(std::move(word));
      word.clear();
      in_word = false;
      continue;
    }
    in_word = true;
    if (c == '\'' || c == '"') {
      quote = c;
    } else if (c == '\\' && i + 1 < text.size()) {
      word += text[++i];
    } else {
      word += c;
    }
  }
  if (quote != 0)
    throw InvalidArgument("dpdk: the EAL arguments '" + std::string(text) + "' leave a quote open");
  if (in_word) words.push_back(std::move(word));
  return words;
}

bool has_option(const std::vector<std::string>& words,
                std::initializer_list<std::string_view> names) {
  return std::any_of(words.begin(), words.end(), [&](const std::string& w) {
    for (std::string_view n : names)
      if (w == n ||
          (w.size() > n.size() && w.starts_with(n) && (w[n.size()] == '=' || n.size() == 2)))
        return true;
    return false;
  });
}

// The options of DPDK 22.11's EAL on Linux. EAL answers any other, or a
// CPU list it cannot use, by printing its usage on the process's standard
// output, which belongs to the application (an `openssl enc` writing its
// ciphertext there); -h/--help prints it and exits the process. So a word
// that is no option of these is refused here, before EAL sees it.
constexpr std::string_view kLongOptions[] = {"--allow",
                                             "--base-virtaddr",
                                             "--block",
                                             "--create-uio-dev",
                                             "--file-prefix",
                                             "--force-max-simd-bitwidth",
                                             "--huge-dir",
                                             "--huge-unlink",
                                             "--huge-worker-stack",
                                             "--in-memory",
                                             "--iova-mode",
                                             "--lcores",
                                             "--legacy-mem",
                                             "--log-level",
                                             "--main-lcore",
                                             "--match-allocations",
                                             "--mbuf-pool-ops-name",
                                             "--no-hpet",
                                             "--no-huge",
                                             "--no-pci",
                                             "--no-shconf",
                                             "--no-telemetry",
                                             "--proc-type",
                                             "--service-corelist",
                                             "--service-coremask",
                                             "--single-file-segments",
                                             "--socket-limit",
                                             "--socket-mem",
                                             "--syslog",
                                             "--telemetry",
                                             "--trace",
                                             "--trace-bufsz",
                                             "--trace-dir",
                                             "--trace-mode",
                                             "--vdev",
                                             "--vfio-intr",
                                             "--vfio-vf-token",
                                             "--vmware-tsc-map"};
constexpr std::string_view kShortOptions = "abcdlLmnrsSv";

void check_options(const std::vector<std::string>& words, std::string_view setting) {
  for (const std::string& w : words) {
    if (w.size() < 2 || w[0] != '-') continue;  // a value
    const bool known =
        w[1] == '-' ? std::any_of(std::begin(kLongOptions), std::end(kLongOptions),
                                  [&](std::string_view o) {
                                    return w == o || (w.starts_with(o) && w[o.size()] == '=');
                                  })
                    : kShortOptions.find(w[1]) != std::string_view::npos;
    if (!known)
      throw InvalidArgument("dpdk: '" + w + "' in '" + std::string(setting) +
                            "' is no EAL option this driver passes on (DPDK 22.11's EAL options "
                            "but -h/--help; docs/drivers/dpdk.md)");
  }
}

// -l's CPUs (a list of numbers and ranges) must be ones this thread may run
// on, or EAL prints its usage. Other forms (-c, --lcores) are EAL's to check.
void check_cpu_list(const std::vector<std::string>& words, const cpu_set_t& allowed) {
  for (std::size_t i = 0; i < words.size(); ++i) {
    std::string list;
    if (words[i] == "-l" && i + 1 < words.size())
      list = words[i + 1];
    else if (words[i].size() > 2 && words[i].starts_with("-l"))
      list = words[i].substr(2);
    else
      continue;
    std::size_t at = 0;
    while (at < list.size()) {
      std::size_t end = list.find(',', at);
      if (end == std::string::npos) end = list.size();
      const std::string part = list.substr(at, end - at);
      const std::size_t dash = part.find('-');
      int first = -1, last = -1;
      try {
        first = std::stoi(part.substr(0, dash));
        last = dash == std::string::npos ? first : std::stoi(part.substr(dash + 1));
      } catch (const std::exception&) {
        throw InvalidArgument("dpdk: -l " + list + ": '" + part + "' is no CPU or range of CPUs");
      }
      for (int cpu = first; cpu <= last; ++cpu)
        if (cpu < 0 || cpu >= CPU_SETSIZE || !CPU_ISSET(cpu, &allowed))
          throw InvalidArgument("dpdk: -l " + list + " names CPU " + std::to_string(cpu) +
                                ", which this thread may not run on");
      at = end + 1;
    }
  }
}

// The first CPU this thread may run on: EAL's main lcore must be one.
int first_allowed_cpu() {
  cpu_set_t cpus;
  if (pthread_getaffinity_np(pthread_self(), sizeof cpus, &cpus) != 0) return 0;
  for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu)
    if (CPU_ISSET(cpu, &cpus)) return cpu;
  return 0;
}

}  // namespace

std::vector<std::string> eal_arguments(std::string_view setting) {
  std::vector<std::string> words = split_words(setting);
  check_options(words, setting);
  cpu_set_t allowed;
  CPU_ZERO(&allowed);
  if (pthread_getaffinity_np(pthread_self(), sizeof allowed, &allowed) == 0)
    check_cpu_list(words, allowed);
  if (!has_option(words, {"--no-shconf", "--in-memory", "--file-prefix", "--proc-type"}))
    words.emplace_back("--no-shconf");
  if (!has_option(words, {"--telemetry", "--no-telemetry"})) words.emplace_back("--no-telemetry");
  if (!has_option(words, {"-l", "-c", "--lcores"})) {
    words.emplace_back("-l");
    words.push_back(std::to_string(first_allowed_cpu()));
  }
  return words;
}

}  // namespace cryptoaccel::dpdk
