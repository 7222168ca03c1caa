#include "self_test.hpp"

#include <cstring>
#include <string>
#include <vector>

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

}  // namespace

SelfTestResult self_test(Driver& driver, const Capability& capability) {
  SelfTestResult result{
      .algorithm = capability.algorithm, .passed = false, .tested = true, .detail = {}};
  const Algorithm& alg = algorithm(capability.algorithm);
  const KnownAnswer& kat = known_answers()[index_of(alg.id)];
  try {
    const ByteVector key = decode(kat.key);
    auto session = driver.open_session(alg, key);
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
