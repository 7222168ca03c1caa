#include "differential.hpp"

#include <openssl/err.h>
#include <unistd.h>

#include <csignal>
#include <cstdio>
#include <utility>

namespace cryptoaccel::fuzz {

std::string hex(const unsigned char* p, std::size_t n, std::size_t max) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string s;
  for (std::size_t i = 0; i < n && i < max; ++i) {
    s += kDigits[p[i] >> 4];
    s += kDigits[p[i] & 15];
  }
  if (n > max) s += "..(" + std::to_string(n) + " bytes)";
  return s;
}

std::string hex(const Bytes& b, std::size_t max) {
  return hex(b.data(), b.size(), max);
}

Bytes canary(std::size_t n) {
  Bytes b(n);
  for (std::size_t i = 0; i < n; ++i) b[i] = static_cast<unsigned char>(0xa5 ^ (i * 7));
  return b;
}

namespace {

// Appended piece by piece: GCC 12 at -O3 reports a false -Wrestrict in
// libstdc++ for `"literal" + std::string` (GCC bug 105329).
std::string describe(const Outcome& o) {
  std::string s;
  for (std::size_t i = 0; i < o.values.size(); ++i) {
    if (i != 0) s += ',';
    s += std::to_string(o.values[i]);
  }
  if (!o.bytes.empty()) {
    s += " out=";
    s += hex(o.bytes.data(), o.shown, 40);
    // Where the canary was overwritten beyond what is shown.
    const Bytes c = canary(o.bytes.size());
    std::size_t stray = 0;
    for (std::size_t i = o.shown; i < o.bytes.size(); ++i) stray += o.bytes[i] != c[i];
    if (stray) {
      s += " (+";
      s += std::to_string(stray);
      s += " bytes past it not the canary; in place: input)";
    }
  }
  return s;
}

// The first differing byte, for a readable report of long outputs.
std::string first_difference(const Outcome& a, const Outcome& b) {
  if (a.values != b.values || a.bytes.size() != b.bytes.size()) return "";
  for (std::size_t i = 0; i < a.bytes.size(); ++i)
    if (a.bytes[i] != b.bytes[i])
      return " [first differing byte at " + std::to_string(i) + ": A " + hex(&a.bytes[i], 1) +
             " B " + hex(&b.bytes[i], 1) + "]";
  return "";
}

// B wrote zeros exactly where A wrote something else, nothing more.
bool zeroes_instead_of(const Outcome& a, const Outcome& b) {
  if (a.values != b.values || a.bytes.size() != b.bytes.size()) return false;
  for (std::size_t i = 0; i < a.bytes.size(); ++i)
    if (a.bytes[i] != b.bytes[i] && (b.bytes[i] != 0 || i >= a.shown)) return false;
  return true;
}

}  // namespace

void Differential::clear_errors() {
  ERR_clear_error();
}

void Differential::begin(std::string call) {
  trace_.push_back(std::move(call) + "  (running)");
}

void Differential::end(std::string_view op, const Outcome& a, const Outcome& b, bool decrypting) {
  std::string& line = trace_.back();
  line.resize(line.size() - std::string_view("  (running)").size());
  const std::string once = std::exchange(documented_once_, {});
  if (a == b) {
    line += " -> " + describe(a);
    return;
  }
  if (!once.empty()) {
    line +=
        "\n      A: " + describe(a) + "\n      B: " + describe(b) + "  (documented: " + once + ")";
    ++allowances_.documented[once];
    return;
  }
  bool values_too = false;
  for (const auto& [name, values] : documented_) values_too = values_too || values;
  if (!documented_.empty() &&
      (values_too || (a.values == b.values && a.bytes.size() == b.bytes.size()))) {
    // Counted under the first in force (their names sort).
    const std::string& name = documented_.begin()->first;
    line += "\n      A: " + describe(a) + "\n      B: " + describe(b) + "  (documented: " + name +
            ")";
    ++allowances_.documented[name];
    return;
  }
  if (blind_) {
    line += "\n      A: " + describe(a) + "\n      B: " + describe(b) +
            "  (not compared: decrypting under a random IV)";
    return;
  }
  if (unpredictable_ && a.values == b.values && a.bytes.size() == b.bytes.size()) {
    line += " -> " + describe(a) + "  (B's bytes differ: not compared)";
    return;
  }
  line += "\n      A: " + describe(a) + "\n      B: " + describe(b) + first_difference(a, b);
  if (decrypting && zeroes_instead_of(a, b)) {
    line += "\n      (B zeroed the output: allowed only if the message fails authentication)";
    if (pending_zeroes_.empty()) pending_zeroes_ = std::string(op);
    return;
  }
  throw Difference(std::string(op), "A and B differ");
}

void Differential::documented(std::string name, bool values_too) {
  const auto in_force = documented_.find(name);
  if (in_force != documented_.end() && in_force->second >= values_too) return;
  note("documented difference " + name + ": " +
       (values_too ? "nothing compared from here" : "output bytes not compared from here"));
  documented_[std::move(name)] = values_too;
}

void Differential::end_documented(std::string_view name) {
  const auto in_force = documented_.find(name);
  if (in_force == documented_.end()) return;
  note("documented difference " + in_force->first + " over" +
       (documented_.size() == 1 ? ": compared again" : ""));
  documented_.erase(in_force);
}

void Differential::message_final(std::string_view op, bool failed_on_both) {
  if (pending_zeroes_.empty()) return;
  if (!failed_on_both)
    throw Difference(pending_zeroes_ + "_zeroed", "B zeroed output of a message whose " +
                                                      std::string(op) + " did not fail on both");
  ++allowances_.zeroed_unverified_plaintext;
  note("allowance zeroed_unverified_plaintext applied");
  pending_zeroes_.clear();
}

void Differential::finish() {
  if (!pending_zeroes_.empty())
    throw Difference(pending_zeroes_ + "_zeroed", "B zeroed output of a message never finalised");
}

namespace {

const std::vector<std::string>* g_trace = nullptr;
std::string g_header;

void write_all(const std::string& s) {
  std::size_t done = 0;
  while (done < s.size()) {
    const ssize_t n = ::write(2, s.data() + done, s.size() - done);
    if (n <= 0) return;
    done += static_cast<std::size_t>(n);
  }
}

// Not async-signal-safe (std::string), but the process is dying anyway and
// the trace is what the developer needs.
void on_crash(int sig) {
  std::signal(sig, SIG_DFL);  // a second fault (a corrupt heap) ends the process
  write_all("\nCRASH (signal " + std::to_string(sig) + ") " + g_header + "\n");
  if (g_trace != nullptr)
    for (const std::string& line : *g_trace) write_all("  " + line + "\n");
  std::raise(sig);
}

}  // namespace

void install_crash_reporter() {
  for (int sig : {SIGSEGV, SIGBUS, SIGABRT, SIGFPE, SIGILL}) std::signal(sig, on_crash);
}

void set_crash_context(const std::vector<std::string>* trace, std::string header) {
  g_trace = trace;
  g_header = std::move(header);
}

}  // namespace cryptoaccel::fuzz
