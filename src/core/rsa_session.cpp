// RsaSession: the argument checks and the requests of the four operations.
#include <algorithm>
#include <string>

#include "cryptoaccel/rsa.hpp"
#include "session_core.hpp"

namespace cryptoaccel {
namespace {

std::string prefix(const Algorithm& a) {
  return std::string(a.name) + ": ";
}

// The digest rows a signature or OAEP may name.
const Algorithm* digest_row(AlgorithmId id) {
  if (id == kNoDigest) return nullptr;
  const Algorithm& a = algorithm(id);
  return a.kind == AlgorithmKind::digest ? &a : nullptr;
}

}  // namespace

RsaSession::RsaSession(const RsaKey& key, const SessionOptions& options)
    : Session(key.algorithm().name, AlgorithmKind::public_key, key.blob(), options),
      has_private_(key.has_private()),
      modulus_(key.modulus().begin(), key.modulus().end()),
      kernel_key_(key.kernel_key_) {}

void RsaSession::need_private(std::string_view operation) const {
  if (!has_private_)
    throw InvalidKey(prefix(algorithm()) + std::string(operation) +
                     " needs the private key; this session has the public key only");
}

void RsaSession::check_parameters(const RsaParameters& p, bool signature) const {
  const Algorithm& a = algorithm();
  if (signature ? p.padding == RsaPadding::oaep || p.padding == RsaPadding::none
                : p.padding == RsaPadding::pss)
    throw InvalidArgument(prefix(a) + std::string(to_string(p.padding)) +
                          (signature ? " is an encryption padding" : " is a signature padding"));
  // PKCS#1 v1.5 encryption and no padding use no digest; PKCS#1 v1.5
  // signatures may go without.
  const bool digest_unused =
      !signature && (p.padding == RsaPadding::pkcs1 || p.padding == RsaPadding::none);
  const bool digest_optional = signature && p.padding == RsaPadding::pkcs1;
  if (!digest_unused && (p.digest == kNoDigest ? !digest_optional
                                               : index_of(p.digest) >= kAlgorithmCount ||
                                                     digest_row(p.digest) == nullptr))
    throw InvalidArgument(prefix(a) + "the digest must be one of the digests" +
                          (digest_optional ? " or none" : ""));
  if (p.padding != RsaPadding::pkcs1 && p.padding != RsaPadding::none &&
      (index_of(p.mgf1_digest) >= kAlgorithmCount || digest_row(p.mgf1_digest) == nullptr))
    throw InvalidArgument(prefix(a) + "the MGF1 digest must be one of the digests");
  if (p.padding == RsaPadding::pss && p.salt_length < kSaltMaximum)
    throw InvalidArgument(prefix(a) + "PSS salt length " + std::to_string(p.salt_length));
  if (p.padding != RsaPadding::oaep && !p.label.empty())
    throw InvalidArgument(prefix(a) + "a label belongs to OAEP only");
}

// RSAEP and RSADP take a number below the modulus (RFC 8017 5.1.1, 5.1.2);
// both are public, so a plain comparison of the big-endian bytes does.
void RsaSession::check_below_modulus(Bytes in) const {
  if (!std::lexicographical_compare(in.begin(), in.end(), modulus_.begin(), modulus_.end()))
    throw InvalidArgument(prefix(algorithm()) +
                          "with no padding the input must be below the modulus");
}

ErrorCode RsaSession::run(Operation op, const RsaParameters& parameters, Bytes in, MutableBytes out,
                          MutableBytes tag) {
  request_ = Request{};
  request_.op = op;
  request_.in = in;
  request_.out = out;
  request_.tag = tag;
  request_.rsa = &parameters;
  return core_->run(request_);
}

void RsaSession::sign(const RsaParameters& p, Bytes digest, MutableBytes signature) {
  const Algorithm& a = algorithm();
  need_private("signing");
  check_parameters(p, true);
  if (p.digest == kNoDigest ? digest.size() + 11 > size()
                            : digest.size() != cryptoaccel::algorithm(p.digest).output_size)
    throw InvalidLength(prefix(a) + "a digest of " + std::to_string(digest.size()) + " bytes; " +
                        (p.digest == kNoDigest
                             ? "at most " + std::to_string(size() - 11) + " can be signed"
                             : std::string(cryptoaccel::algorithm(p.digest).name) + " gives " +
                                   std::to_string(cryptoaccel::algorithm(p.digest).output_size)));
  if (signature.size() != size())
    throw InvalidLength(prefix(a) + "the signature takes " + std::to_string(size()) +
                        " bytes, not " + std::to_string(signature.size()));
  if (const ErrorCode s = run(Operation::sign, p, digest, signature, {}); s != ErrorCode::ok)
    throw_error(s, prefix(a) + "signing failed: " + std::string(to_string(s)));
}

std::vector<std::uint8_t> RsaSession::sign(const RsaParameters& p, Bytes digest) {
  std::vector<std::uint8_t> signature(size());
  sign(p, digest, signature);
  return signature;
}

bool RsaSession::verify(const RsaParameters& p, Bytes digest, Bytes signature) {
  const Algorithm& a = algorithm();
  check_parameters(p, true);
  if (p.digest != kNoDigest && digest.size() != cryptoaccel::algorithm(p.digest).output_size)
    throw InvalidLength(prefix(a) + "a digest of " + std::to_string(digest.size()) + " bytes; " +
                        std::string(cryptoaccel::algorithm(p.digest).name) + " gives " +
                        std::to_string(cryptoaccel::algorithm(p.digest).output_size));
  // A signature of another length cannot match (RFC 8017 8.2.2 step 1).
  if (signature.size() != size()) return false;
  // Drivers get their own copy: the caller's stays untouched.
  std::vector<std::uint8_t> copy(signature.begin(), signature.end());
  const ErrorCode s = run(Operation::verify, p, digest, {}, copy);
  if (s == ErrorCode::ok) return true;
  if (s == ErrorCode::authentication_failed) return false;
  throw_error(s, prefix(a) + "verification failed: " + std::string(to_string(s)));
}

void RsaSession::encrypt(const RsaParameters& p, Bytes in, MutableBytes out) {
  const Algorithm& a = algorithm();
  check_parameters(p, false);
  if (p.padding == RsaPadding::none) {
    if (in.size() != size())
      throw InvalidLength(prefix(a) + "with no padding the message is " + std::to_string(size()) +
                          " bytes, not " + std::to_string(in.size()));
    check_below_modulus(in);
  }
  const std::size_t room = p.padding == RsaPadding::none ? 0
                           : p.padding == RsaPadding::pkcs1
                               ? 11
                               : 2 * cryptoaccel::algorithm(p.digest).output_size + 2;
  if (room > size() || in.size() > size() - room)
    throw InvalidLength(prefix(a) + "a message of " + std::to_string(in.size()) +
                        " bytes; at most " + std::to_string(room > size() ? 0 : size() - room) +
                        " fit with this padding");
  if (out.size() < size())
    throw InvalidLength(prefix(a) + "the ciphertext takes " + std::to_string(size()) +
                        " bytes; the output has " + std::to_string(out.size()));
  if (const ErrorCode s = run(Operation::encrypt, p, in, out.first(size()), {}); s != ErrorCode::ok)
    throw_error(s, prefix(a) + "encryption failed: " + std::string(to_string(s)));
}

std::vector<std::uint8_t> RsaSession::encrypt(const RsaParameters& p, Bytes in) {
  std::vector<std::uint8_t> out(size());
  encrypt(p, in, out);
  return out;
}

std::size_t RsaSession::decrypt(const RsaParameters& p, Bytes in, MutableBytes out) {
  if (const auto length = try_decrypt(p, in, out)) return *length;
  throw DecryptionFailed(prefix(algorithm()) + "decryption failed");
}

std::optional<std::size_t> RsaSession::try_decrypt(const RsaParameters& p, Bytes in,
                                                   MutableBytes out) {
  const Algorithm& a = algorithm();
  need_private("decryption");
  check_parameters(p, false);
  if (in.size() != size())
    throw InvalidLength(prefix(a) + "a ciphertext of " + std::to_string(in.size()) +
                        " bytes; it takes " + std::to_string(size()));
  if (p.padding == RsaPadding::none) {
    check_below_modulus(in);
    // Without padding the plaintext is a whole modulus: nothing secret in
    // saying that it does not fit.
    if (out.size() < size())
      throw InvalidLength(prefix(a) + "the plaintext takes " + std::to_string(size()) +
                          " bytes, the output " + std::to_string(out.size()));
  }
  // Drivers write a whole modulus; a smaller output gets its plaintext
  // through a wiped buffer.
  MutableBytes target = out;
  std::vector<std::uint8_t> local;
  if (out.size() < size()) {
    local.resize(size());
    target = local;
  }
  ErrorCode s = run(Operation::decrypt, p, in, target.first(size()), {});
  const std::size_t length = request_.out_length;
  // A plaintext that does not fit the output is a failed decryption, the
  // same answer as a bad padding (as OpenSSL's own check gives it): another
  // answer would tell a caller with a short buffer, say a TLS premaster's
  // 48 bytes, which ciphertexts have a valid padding.
  if (s == ErrorCode::ok && length > out.size()) s = ErrorCode::decryption_failed;
  if (s == ErrorCode::ok && target.data() != out.data())
    std::copy_n(local.begin(), length, out.begin());
  if (!local.empty()) secure_wipe(local.data(), local.size());
  if (s == ErrorCode::ok) return length;
  secure_wipe(out.data(), out.size());
  if (s == ErrorCode::decryption_failed) return std::nullopt;
  throw_error(s, prefix(a) + "decryption failed: " + std::string(to_string(s)));
}

std::vector<std::uint8_t> RsaSession::decrypt(const RsaParameters& p, Bytes in) {
  std::vector<std::uint8_t> out(size());
  out.resize(decrypt(p, in, out));
  return out;
}

}  // namespace cryptoaccel
