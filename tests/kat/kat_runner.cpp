#include "kat_runner.hpp"

#include <algorithm>
#include <exception>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>

#include "cryptoaccel/error.hpp"

namespace cryptoaccel::kat {
namespace {

// Output buffers start out holding this, so that "the output was wiped" and
// "the output was written" are both observable.
constexpr std::uint8_t kPoison = 0xa5;

// A vector passes when its check returns an empty string.
using Outcome = std::string;

std::string mismatch(std::string_view what, std::span<const std::uint8_t> got,
                     std::span<const std::uint8_t> expected) {
  return std::string(what) + ": got " + to_hex(got) + ", expected " + to_hex(expected);
}

bool keystream(const Algorithm& a) {
  return a.mode == CipherMode::ctr || a.mode == CipherMode::chacha20;
}

// Where a streamed input is cut. ECB/CBC updates must be whole blocks: one
// cut halfway, on a block boundary. CTR and ChaCha20 may stop anywhere: the
// first cut is odd (never on a block boundary) and the second three bytes
// later, mostly still inside the same keystream block (RFC 3686's 32 and 36
// bytes, RFC 8439's 64 and 375; its 127 crosses into the next); so "continue
// inside a partial block" and "finish a partial block, then whole blocks"
// both run.
std::vector<std::size_t> stream_cuts(const Algorithm& a, std::size_t size) {
  if (keystream(a)) {
    const std::size_t first = (size / 2) | 1;
    return {first, std::min(size, first + 3)};
  }
  return {size / a.block_size / 2 * a.block_size};
}

bool streams(const Algorithm& a, std::size_t size) {
  if (keystream(a)) return size > 4;  // room for both cuts
  const bool mode = a.mode == CipherMode::ecb || a.mode == CipherMode::cbc;
  return mode && size > a.block_size;
}

// "cipher decrypt", "aead encrypt", "digest": what a failing vector did.
std::string describe(const KatVector& v) {
  std::string text(to_string(v.kind));
  if (v.kind == VectorKind::cipher || v.kind == VectorKind::aead)
    text += v.direction == Direction::encrypt ? " encrypt" : " decrypt";
  return text;
}

// Does the driver claim this vector's lengths? Monte digests and MACs have
// no lengths to check beyond the key.
bool within(const Capability& c, const KatVector& v) {
  if (!v.key.empty() && !c.key_sizes.contains(v.key.size())) return false;
  if (!v.iv.empty() && !c.iv_sizes.contains(v.iv.size())) return false;
  if (!v.tag.empty() && !c.tag_sizes.contains(v.tag.size())) return false;
  if (v.aad.size() > c.max_aad) return false;
  return v.in.size() <= c.max_request && (v.in.size() & (c.input_multiple - 1)) == 0;
}

class Runner {
 public:
  explicit Runner(const std::string& driver)
      : driver_(driver),
        options_{.driver = driver},
        streams_digests_(driver_streams_digests(driver)) {}

  RunResult run(std::span<const KatVector> vectors, const Capability* capability) {
    RunResult result;
    for (const KatVector& v : vectors) {
      if (capability != nullptr && !within(*capability, v)) {
        ++result.outside;
        if (v.expect_auth_failure) ++result.outside_forgeries;
        continue;
      }
      ++result.vectors;
      streamed_ = false;
      Outcome outcome;
      try {
        outcome = check(v, result);
      } catch (const Error& e) {
        outcome = "threw " + std::string(to_string(e.code())) + ": " + e.what();
      } catch (const std::exception& e) {
        outcome = std::string("threw: ") + e.what();
      }
      if (streamed_) ++result.streamed;
      if (!outcome.empty()) {
        result.failures.push_back(v.source + " (" + describe(v) + "): " + outcome);
        // A session that just failed may hold any state: start afresh.
        cipher_.reset();
        aead_.reset();
        digest_.reset();
        mac_.reset();
      }
    }
    return result;
  }

 private:
  template <typename S>
  struct Slot {
    std::optional<S> session;
    AlgorithmId algorithm{};
    ByteVector key;
    void reset() { session.reset(); }
  };

  // The cached session for this vector's algorithm and key, or a new one.
  template <typename S>
  S& session(Slot<S>& slot, const KatVector& v) {
    if (!slot.session || slot.algorithm != v.algorithm || slot.key != v.key) {
      slot.session.reset();
      const std::string_view name = algorithm(v.algorithm).name;
      if constexpr (std::is_same_v<S, DigestSession>)
        slot.session.emplace(name, options_);
      else
        slot.session.emplace(name, v.key, options_);
      slot.algorithm = v.algorithm;
      slot.key = v.key;
    }
    return *slot.session;
  }

  Outcome served_by(const Session& s, std::string_view what) const {
    if (s.last_driver() == driver_) return {};
    return std::string(what) + " was served by '" + std::string(s.last_driver()) +
           "', not the pinned driver";
  }

  Outcome check(const KatVector& v, RunResult& result) {
    switch (v.kind) {
      case VectorKind::cipher:
        return check_cipher(v);
      case VectorKind::aead:
        return check_aead(v, result);
      case VectorKind::digest:
        return check_digest(session(digest_, v), v, v.out.size());
      case VectorKind::mac:
        return check_mac(v);
      case VectorKind::monte:
        return check_monte(v);
    }
    return "unknown vector kind";
  }

  Outcome check_cipher(const KatVector& v) {
    CipherSession& s = session(cipher_, v);
    const Algorithm& a = s.algorithm();
    ByteVector out(v.in.size(), kPoison);
    if (v.direction == Direction::encrypt)
      s.encrypt(v.iv, v.in, out);
    else
      s.decrypt(v.iv, v.in, out);
    if (out != v.out) return mismatch("one-shot", out, v.out);
    if (Outcome o = served_by(s, "one-shot"); !o.empty()) return o;
    if (!streams(a, v.in.size())) return {};

    streamed_ = true;
    std::fill(out.begin(), out.end(), kPoison);
    s.begin(v.direction, v.iv);
    std::size_t done = 0;
    std::vector<std::size_t> cuts = stream_cuts(a, v.in.size());
    cuts.push_back(v.in.size());
    for (const std::size_t cut : cuts) {
      const std::size_t n = cut - done;
      s.update(Bytes(v.in).subspan(done, n), MutableBytes(out).subspan(done, n));
      done = cut;
    }
    if (out != v.out) return mismatch("streamed", out, v.out);
    return served_by(s, "streamed");
  }

  Outcome check_aead(const KatVector& v, RunResult& result) {
    AeadSession& s = session(aead_, v);
    ByteVector out(v.in.size(), kPoison);
    if (v.direction == Direction::encrypt) {
      ByteVector tag(v.tag.size(), kPoison);
      s.seal(v.iv, v.aad, v.in, out, tag);
      if (out != v.out) return mismatch("seal ciphertext", out, v.out);
      if (tag != v.tag) return mismatch("seal tag", tag, v.tag);
      return served_by(s, "seal");
    }
    if (v.expect_auth_failure) ++result.must_reject;
    try {
      s.open(v.iv, v.aad, v.in, v.tag, out);
    } catch (const AuthenticationFailed&) {
      if (!v.expect_auth_failure) return "open rejected an authentic message";
      if (std::any_of(out.begin(), out.end(), [](std::uint8_t b) { return b != 0; }))
        return "open failed but left plaintext in the output: " + to_hex(out);
      ++result.rejected;
      return {};
    }
    if (v.expect_auth_failure) return "open accepted a forged message";
    if (out != v.out) return mismatch("open plaintext", out, v.out);
    return served_by(s, "open");
  }

  // One-shot, then update/final with the message cut in two. `compared` is
  // how many leading bytes must match (all, except for truncated HMACs).
  Outcome check_digest(DigestSession& s, const KatVector& v, std::size_t compared) {
    const bool length_ok =
        v.kind == VectorKind::mac ? compared != 0 && compared <= s.size() : compared == s.size();
    if (!length_ok)
      return "the vector expects " + std::to_string(compared) + " bytes; the algorithm gives " +
             std::to_string(s.size());
    const auto head = [&](const ByteVector& d) { return Bytes(d).first(compared); };
    ByteVector out(s.size(), kPoison);
    s.digest(v.in, out);
    if (!std::ranges::equal(head(out), Bytes(v.out))) return mismatch("one-shot", out, v.out);
    if (Outcome o = served_by(s, "one-shot"); !o.empty()) return o;
    if (!streams_digests_) return {};

    streamed_ = true;
    std::fill(out.begin(), out.end(), kPoison);
    const std::size_t half = v.in.size() / 2;
    s.update(Bytes(v.in).first(half));
    s.update(Bytes(v.in).subspan(half));
    s.final(out);
    if (!std::ranges::equal(head(out), Bytes(v.out))) return mismatch("update/final", out, v.out);
    return served_by(s, "update/final");
  }

  Outcome check_mac(const KatVector& v) {
    MacSession& s = session(mac_, v);
    return check_digest(s, v, v.out.size());
  }

  // SHAVS Monte Carlo (SHAVS section 6.4): MD0 = MD1 = MD2 = Seed; then
  // MDi = H(MD(i-3) || MD(i-2) || MD(i-1)) for i = 3..1002; MD1002 is the
  // checkpoint.
  Outcome check_monte(const KatVector& v) {
    DigestSession& s = session(digest_, v);
    const std::size_t n = s.size();
    if (v.in.size() != n || v.out.size() != n)
      return "seed and checkpoint must be " + std::to_string(n) + " bytes";
    ByteVector window(3 * n);  // MD(i-3) || MD(i-2) || MD(i-1)
    const auto slot = [&](std::size_t k) { return MutableBytes(window).subspan(k * n, n); };
    for (std::size_t k = 0; k < 3; ++k) std::ranges::copy(v.in, slot(k).begin());
    ByteVector md(n);
    for (int i = 3; i <= 1002; ++i) {
      s.digest(window, md);
      // Slide the window one digest left (a forward copy may overlap so).
      std::ranges::copy(MutableBytes(window).subspan(n), window.begin());
      std::ranges::copy(md, slot(2).begin());
    }
    if (md != v.out) return mismatch("checkpoint", md, v.out);
    return served_by(s, "monte");
  }

  // A driver whose traits say it streams no digests is checked one-shot.
  static bool driver_streams_digests(const std::string& name) {
    for (const DriverInfo& d : Framework::global().drivers())
      if (d.name == name) return d.traits.streams_digests;
    return true;
  }

  const std::string& driver_;
  SessionOptions options_;
  const bool streams_digests_;
  Slot<CipherSession> cipher_;
  Slot<AeadSession> aead_;
  Slot<DigestSession> digest_;
  Slot<MacSession> mac_;
  bool streamed_ = false;  // did the current vector also run through streaming?
};

}  // namespace

RunResult run_vectors(std::span<const KatVector> vectors, const std::string& driver,
                      const Capability* capability) {
  return Runner(driver).run(vectors, capability);
}

}  // namespace cryptoaccel::kat
