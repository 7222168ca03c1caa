#include "eal_arguments.hpp"

#include <pthread.h>
#include <sched.h>

#include <algorithm>
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

bool has_option(const std::vector<std::string>& words, std::initializer_list<std::string_view> names) {
  return std::any_of(words.begin(), words.end(), [&](const std::string& w) {
    for (std::string_view n : names)
      if (w == n || (w.size() > n.size() && w.starts_with(n) && (w[n.size()] == '=' || n.size() == 2)))
        return true;
    return false;
  });
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
