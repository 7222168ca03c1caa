#include "verify.hpp"

#include <openssl/rand.h>

#include <vector>

#include "cryptoaccel/cryptoaccel.hpp"

namespace cryptoaccel::tools::speed {
namespace {

using ByteVector = std::vector<std::uint8_t>;

ByteVector random_bytes(std::size_t n) {
  ByteVector out(n);
  if (n != 0) RAND_bytes(out.data(), static_cast<int>(n));
  return out;
}

std::optional<std::string> verify_cipher(const Algorithm& a, const std::string& driver,
                                         std::size_t size) {
  const ByteVector key = random_bytes(a.key_size.min), iv = random_bytes(a.iv_size),
                   pt = random_bytes(size);
  CipherSession reference(a.name, key, pinned_to("soft"));
  CipherSession tested(a.name, key, pinned_to(driver));
  const ByteVector expected = reference.encrypt(iv, pt);
  if (tested.encrypt(iv, pt) != expected) return "encryption differs from soft";
  if (tested.decrypt(iv, expected) != pt) return "decryption does not give the plaintext back";
  if (a.mode != CipherMode::xts) {
    // The benchmark streams: check that chaining across requests is right.
    ByteVector twice = pt;
    twice.insert(twice.end(), pt.begin(), pt.end());
    ByteVector streamed(twice.size());
    tested.begin(Direction::encrypt, iv);
    tested.update(std::span(twice).first(size), std::span(streamed).first(size));
    tested.update(std::span(twice).subspan(size), std::span(streamed).subspan(size));
    if (streamed != reference.encrypt(iv, twice))
      return "chained (streamed) encryption differs from soft";
  }
  return std::nullopt;
}

std::optional<std::string> verify_aead(const Algorithm& a, const std::string& driver,
                                       std::size_t size) {
  const ByteVector key = random_bytes(a.key_size.min), iv = random_bytes(a.iv_size),
                   aad = random_bytes(13), pt = random_bytes(size);
  AeadSession reference(a.name, key, pinned_to("soft"));
  AeadSession tested(a.name, key, pinned_to(driver));
  ByteVector expected(size), expected_tag(a.output_size), ct(size), tag(a.output_size), back(size);
  reference.seal(iv, aad, pt, expected, expected_tag);
  tested.seal(iv, aad, pt, ct, tag);
  if (ct != expected || tag != expected_tag) return "seal differs from soft";
  tested.open(iv, aad, ct, tag, back);
  if (back != pt) return "open does not give the plaintext back";
  tag[0] ^= 1;
  try {
    tested.open(iv, aad, ct, tag, back);
    return "open accepted a forged tag";
  } catch (const AuthenticationFailed&) {
  }
  return std::nullopt;
}

std::optional<std::string> verify_digest(const Algorithm& a, const std::string& driver,
                                         std::size_t size) {
  // The key the benchmark times (measure.cpp): 16 bytes for HMAC.
  const ByteVector key = random_bytes(a.kind == AlgorithmKind::mac ? 16 : 0),
                   msg = random_bytes(size);
  auto make = [&](const std::string& d) {
    return a.kind == AlgorithmKind::mac ? DigestSession(MacSession(a.name, key, pinned_to(d)))
                                        : DigestSession(a.name, pinned_to(d));
  };
  DigestSession reference = make("soft"), tested = make(driver);
  if (tested.digest(msg) != reference.digest(msg)) return "digest differs from soft";
  return std::nullopt;
}

}  // namespace

std::optional<std::string> verify(const Algorithm& algorithm, const std::string& driver,
                                  std::size_t size) {
  switch (algorithm.kind) {
    case AlgorithmKind::cipher:
      return verify_cipher(algorithm, driver, size);
    case AlgorithmKind::aead:
      return verify_aead(algorithm, driver, size);
    case AlgorithmKind::digest:
    case AlgorithmKind::mac:
      return verify_digest(algorithm, driver, size);
    case AlgorithmKind::public_key:
      break;
  }
  return std::nullopt;
}

SessionOptions pinned_to(const std::string& driver) {
  SessionOptions options;
  if (driver != "auto") options.driver = driver;
  return options;
}

}  // namespace cryptoaccel::tools::speed
