#include "self_test.hpp"

#include <array>
#include <cstring>
#include <string>
#include <vector>

#include <map>
#include <mutex>
#include <stdexcept>

#include "cryptoaccel/rsa.hpp"
#include "hex.hpp"

namespace cryptoaccel::detail {
namespace {

using ByteVector = std::vector<std::uint8_t>;

ByteVector decode(std::string_view hex) {
  return hex_decode(hex).value_or(ByteVector{});
}

// Runs one request and reports its status.
ErrorCode run_one(DriverSession& session, Request& request) {
  if (session.process({&request, 1}) != 1) return ErrorCode::driver_failure;
  return request.status;
}

std::string failure(std::string_view what, ErrorCode code) {
  std::string text(what);
  if (code != ErrorCode::ok) text += std::string(" (") + std::string(to_string(code)) + ")";
  return text;
}

// Each check returns an empty string on success, or what went wrong.
std::string check_cipher(DriverSession& session, const KnownAnswer& kat) {
  const ByteVector iv = decode(kat.iv), in = decode(kat.in), expected = decode(kat.out);
  ByteVector out(in.size());
  Request r{.op = Operation::encrypt, .iv = iv, .in = in, .out = out};
  if (auto s = run_one(session, r); s != ErrorCode::ok || out != expected)
    return failure("encryption gave a wrong answer", s);
  ByteVector back(in.size());
  r = Request{.op = Operation::decrypt, .iv = iv, .in = expected, .out = back};
  if (auto s = run_one(session, r); s != ErrorCode::ok || back != in)
    return failure("decryption gave a wrong answer", s);
  return {};
}

std::string check_aead(DriverSession& session, const KnownAnswer& kat) {
  const ByteVector iv = decode(kat.iv), aad = decode(kat.aad), in = decode(kat.in),
                   expected = decode(kat.out), expected_tag = decode(kat.tag);
  ByteVector out(in.size()), tag(expected_tag.size());
  Request r{.op = Operation::encrypt, .iv = iv, .aad = aad, .in = in, .out = out, .tag = tag};
  if (auto s = run_one(session, r); s != ErrorCode::ok || out != expected || tag != expected_tag)
    return failure("seal gave a wrong answer", s);
  ByteVector back(in.size());
  r = Request{
      .op = Operation::decrypt, .iv = iv, .aad = aad, .in = expected, .out = back, .tag = tag};
  if (auto s = run_one(session, r); s != ErrorCode::ok || back != in)
    return failure("open of a valid message failed", s);
  tag[0] ^= 1;
  r = Request{
      .op = Operation::decrypt, .iv = iv, .aad = aad, .in = expected, .out = back, .tag = tag};
  if (run_one(session, r) != ErrorCode::authentication_failed)
    return "open accepted a tampered tag";
  return {};
}

std::string check_digest(DriverSession& session, const KnownAnswer& kat) {
  const ByteVector in = decode(kat.in), expected = decode(kat.out);
  ByteVector out(expected.size());
  Request r{.op = Operation::digest, .in = in, .out = out};
  if (auto s = run_one(session, r); s != ErrorCode::ok || out != expected)
    return failure("digest gave a wrong answer", s);
  if (auto stream = session.open_stream()) {
    const std::size_t half = in.size() / 2;
    std::fill(out.begin(), out.end(), 0);
    ErrorCode s = stream->update(std::span(in).first(half));
    if (s == ErrorCode::ok) s = stream->update(std::span(in).subspan(half));
    if (s == ErrorCode::ok) s = stream->final(out);
    if (s != ErrorCode::ok || out != expected)
      return failure("streamed digest gave a wrong answer", s);
  }
  return {};
}

// The KAT's key, made once per process. Its factors and CRT exponents are
// in the vector: recovering them from n, e and d took more than every
// other self-test together, and every process that loads the provider
// runs the self-tests (a few seconds of each guest's `openssl` under TCG).
const RsaKey& known_rsa_key(const KnownAnswer& kat) {
  static std::mutex mutex;
  static std::map<AlgorithmId, RsaKey> keys;
  const std::lock_guard lock(mutex);
  if (auto found = keys.find(kat.algorithm); found != keys.end()) return found->second;
  std::array<ByteVector, 8> parts;  // n e d p q dP dQ qInv
  std::string_view text = kat.key;
  for (std::size_t i = 0; i < parts.size(); ++i) {
    const std::size_t colon = text.find(':');
    if ((colon == std::string_view::npos) != (i + 1 == parts.size()))
      throw std::logic_error("an RSA known answer's key is not n:e:d:p:q:dP:dQ:qInv");
    parts[i] = decode(text.substr(0, colon));
    if (colon != std::string_view::npos) text.remove_prefix(colon + 1);
  }
  return keys
      .emplace(kat.algorithm, RsaKey::from_components({.n = parts[0],
                                                       .e = parts[1],
                                                       .d = parts[2],
                                                       .p = parts[3],
                                                       .q = parts[4],
                                                       .dp = parts[5],
                                                       .dq = parts[6],
                                                       .qinv = parts[7]}))
      .first->second;
}

// Encrypts and decrypts back with `parameters`; a driver that takes only
// some requests may decline (`declined`, and nothing to check).
std::string round_trip(DriverSession& session, const Capability& capability,
                       const RsaParameters& parameters, const ByteVector& message,
                       std::size_t size, bool& declined) {
  ByteVector ciphertext(size), plaintext(size);
  Request r{.op = Operation::encrypt, .in = message, .out = ciphertext, .rsa = &parameters};
  const std::string what(to_string(parameters.padding));
  const bool partial = capability.operations != kEveryOperation;
  declined = false;
  if (auto s = run_one(session, r); s == ErrorCode::unsupported && partial) {
    declined = true;
    return {};
  } else if (s != ErrorCode::ok) {
    return failure(what + " encryption failed", s);
  }
  r = Request{.op = Operation::decrypt, .in = ciphertext, .out = plaintext, .rsa = &parameters};
  if (auto s = run_one(session, r); s != ErrorCode::ok || r.out_length != message.size() ||
                                    !std::equal(message.begin(), message.end(), plaintext.begin()))
    return failure(what + " decryption did not give back what was encrypted", s);
  return {};
}

// Signs the message's digest against the known answer and verifies the
// signature; a tampered one must be refused. A driver that does not sign
// proves its private key by an encryption round trip instead, in the first
// padding it takes. One private-key operation per key size: they are the
// self-test's whole cost at start-up, which every process that loads the
// provider pays (a 4096-bit one is milliseconds natively, a tenth of a
// second in an emulated guest), and the known-answer suites check every
// operation and padding. Operations the capability leaves out are not
// tried.
std::string check_rsa(DriverSession& session, const Capability& capability,
                      const KnownAnswer& kat) {
  ByteVector digest = decode(kat.in), expected = decode(kat.out);
  const RsaParameters parameters{.padding = RsaPadding::pkcs1,
                                 .digest = algorithm_or_throw(kat.aad).id};
  const auto takes = [&](Operation op) { return (capability.operations & operation_bit(op)) != 0; };
  const bool signs = takes(Operation::sign) && takes(Operation::verify);
  if (!signs && takes(Operation::encrypt) && takes(Operation::decrypt)) {
    for (const RsaPadding padding : {RsaPadding::pkcs1, RsaPadding::oaep}) {
      bool declined = false;
      if (std::string why = round_trip(session, capability, {.padding = padding}, digest,
                                       expected.size(), declined);
          !why.empty())
        return why;
      if (!declined) break;
    }
  }
  if (!signs) return {};
  ByteVector signature(expected.size());
  Request r{.op = Operation::sign, .in = digest, .out = signature, .rsa = &parameters};
  if (auto s = run_one(session, r); s != ErrorCode::ok || signature != expected)
    return failure("signing gave a wrong answer", s);
  r = Request{.op = Operation::verify, .in = digest, .tag = signature, .rsa = &parameters};
  if (auto s = run_one(session, r); s != ErrorCode::ok)
    return failure("verification refused a valid signature", s);
  signature[signature.size() / 2] ^= 1;
  r = Request{.op = Operation::verify, .in = digest, .tag = signature, .rsa = &parameters};
  if (run_one(session, r) != ErrorCode::authentication_failed)
    return "verification accepted a tampered signature";
  return {};
}

}  // namespace

SelfTestResult self_test(Driver& driver, const Capability& capability) {
  SelfTestResult result{
      .algorithm = capability.algorithm, .passed = false, .tested = true, .detail = {}};
  const Algorithm& alg = algorithm(capability.algorithm);
  const KnownAnswer& kat = known_answers()[index_of(alg.id)];
  try {
    const ByteVector raw = alg.kind == AlgorithmKind::public_key ? ByteVector{} : decode(kat.key);
    const SecretBytes key(alg.kind == AlgorithmKind::public_key ? known_rsa_key(kat).blob()
                                                                : Bytes(raw));
    auto session = driver.open_session(alg, key.span());
    if (!session) {
      result.detail = "driver returned no session";
      return result;
    }
    switch (alg.kind) {
      case AlgorithmKind::cipher:
        result.detail = check_cipher(*session, kat);
        break;
      case AlgorithmKind::aead:
        result.detail = check_aead(*session, kat);
        break;
      case AlgorithmKind::digest:
      case AlgorithmKind::mac:
        result.detail = check_digest(*session, kat);
        break;
      case AlgorithmKind::public_key:
        result.detail = check_rsa(*session, capability, kat);
        break;
    }
  } catch (const std::exception& e) {
    result.detail = std::string("self-test raised: ") + e.what();
    return result;
  }
  result.passed = result.detail.empty();
  if (result.passed) result.detail = std::string("known answer: ") + std::string(kat.source);
  return result;
}

}  // namespace cryptoaccel::detail
