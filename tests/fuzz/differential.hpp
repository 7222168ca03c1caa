// Runs one call on side A (OpenSSL's default provider) and side B
// (cryptoaccel, or default again in the self-check), clears both error
// queues, records a trace line and throws Difference when the outcomes
// differ in any return value, length or output byte.
#pragma once

#include <cstddef>
#include <map>
#include <set>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "records.hpp"

namespace cryptoaccel::fuzz {

constexpr int kSideA = 0;
constexpr int kSideB = 1;

// What one call did on one side: its return values and lengths, and every
// byte of its output buffers (canary bytes included, so stray writes show).
struct Outcome {
  std::vector<long long> values;
  Bytes bytes;
  std::size_t shown = 0;  // bytes worth printing (the rest is canary)
  bool operator==(const Outcome&) const = default;
};

std::string hex(const unsigned char* p, std::size_t n, std::size_t max = 48);
std::string hex(const Bytes& b, std::size_t max = 48);

// Output buffers: filled with the same pattern on both sides before a call.
Bytes canary(std::size_t n);

struct Difference : std::runtime_error {
  Difference(std::string op_name, const std::string& what)
      : std::runtime_error(what), op(std::move(op_name)) {}
  std::string op;
};

// Operations left out (`--skip-op`) while another bug is being fixed.
struct OpFilter {
  std::set<std::string, std::less<>> skipped;
  bool allows(std::string_view op) const { return !skipped.contains(op); }
};

// The documented allowances (docs/testing.md): an AEAD decryption that
// fails authentication may give zeros where the default provider gives the
// unverified plaintext; and the differences docs/provider.md lists under
// "Where cryptoaccel differs on purpose", each by name. Counted per run.
struct Allowances {
  long zeroed_unverified_plaintext = 0;
  std::map<std::string, long, std::less<>> documented;
};

class Differential {
 public:
  explicit Differential(Allowances& allowances) : allowances_(allowances) {}

  // Calls f(kSideA) then f(kSideB); `op` names the operation (--skip-op),
  // `call` is its readable form for the trace.
  template <typename F>
  Outcome both(std::string_view op, std::string call, F&& f) {
    return on_both_sides(op, std::move(call), f, false);
  }

  // As both(), for an AEAD decryption's output: B's zeros where A has
  // bytes are held until the message's final fails on both sides.
  template <typename F>
  Outcome both_decrypting(std::string_view op, std::string call, F&& f) {
    return on_both_sides(op, std::move(call), f, true);
  }

  // A message's final: settles held zero outputs (allowed if both failed).
  void message_final(std::string_view op, bool failed_on_both);
  // End of sequence: held zero outputs without a failed final are differences.
  void finish();

  // While set, output bytes are not compared, only return values and
  // lengths: they derive from an IV each side drew from its own RNG (GCM's
  // SET_IV_FIXED when encrypting fills the invocation field at random).
  void set_unpredictable(bool on) {
    if (on != unpredictable_)
      note(on ? "IV now random on each side: output bytes not compared"
              : "IV known again: output bytes compared");
    unpredictable_ = on;
  }

  bool unpredictable() const { return unpredictable_; }

  // A documented difference (docs/provider.md) is in force (several may
  // be, each ended on its own): output bytes
  // are not compared, only return values and lengths; with `values_too`
  // nothing is (the two contexts no longer hold the same state). Each call
  // it covers is counted under `name`. Ends with end_documented(name), when
  // the sequence knows both sides hold the same state again.
  void documented(std::string name, bool values_too = false);
  void end_documented(std::string_view name);
  bool documenting(std::string_view name) const { return documented_.contains(name); }
  // Only the next call may differ, in anything: a documented case where one
  // side refuses what the other accepts.
  void documented_once(std::string name) { documented_once_ = std::move(name); }

  // While set, nothing is compared: a GCM decryption under an IV each side
  // drew at random (of a ciphertext and tag only A made) succeeds on A and
  // fails on B.
  void set_blind(bool on) { blind_ = on; }
  const std::vector<std::string>& trace() const { return trace_; }
  void note(std::string line) { trace_.push_back("  # " + std::move(line)); }

 private:
  template <typename F>
  Outcome on_both_sides(std::string_view op, std::string call, F& f, bool decrypting) {
    begin(std::move(call));
    Outcome a = f(kSideA);
    clear_errors();
    Outcome b = f(kSideB);
    clear_errors();
    end(op, a, b, decrypting);
    return a;
  }
  void begin(std::string call);
  void end(std::string_view op, const Outcome& a, const Outcome& b, bool decrypting);
  static void clear_errors();

  Allowances& allowances_;
  std::vector<std::string> trace_;
  std::string pending_zeroes_;
  bool unpredictable_ = false;
  bool blind_ = false;  // the trace line of held zero output, if any
  // The documented differences in force, each with whether it covers
  // return values too.
  std::map<std::string, bool, std::less<>> documented_;
  std::string documented_once_;
};

// While a sequence runs, a crash prints its trace so far (the call that
// crashed is the last line) and the repro command.
void install_crash_reporter();
void set_crash_context(const std::vector<std::string>* trace, std::string header);

}  // namespace cryptoaccel::fuzz
