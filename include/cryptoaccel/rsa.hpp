// RSA: keys and sessions. A session signs, verifies, encrypts and decrypts
// with one key; like every session its requests are routed by the
// dispatcher, so they may run on different drivers (soft, the kernel's
// keyring), with the same self-tests, failover and counters.
//
// Sizes: 2048, 3072 and 4096-bit moduli, one algorithm row each (rsa2048,
// rsa3072, rsa4096). All functions throw cryptoaccel::Error.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string_view>
#include <vector>

#include "cryptoaccel/driver/rsa_key_blob.hpp"
#include "cryptoaccel/session.hpp"

namespace cryptoaccel {

enum class RsaPadding : std::uint8_t {
  pkcs1,  // PKCS#1 v1.5: signatures (EMSA) and encryption (EME)
  pss,    // signatures only
  oaep,   // encryption only
  // No padding (RFC 8017 RSAEP/RSADP): encryption only, the input exactly
  // size() bytes and, as a big-endian number, below the modulus; the output
  // is size() bytes. For clients that pad themselves or want m^e, c^d mod n.
  none,
};

std::string_view to_string(RsaPadding padding) noexcept;

// A sign/verify digest that says the input is signed as it is, with no
// DigestInfo (PKCS#1 v1.5 only: TLS 1.0/1.1's MD5 and SHA-1 pair).
inline constexpr AlgorithmId kNoDigest = AlgorithmId::count;

// PSS salt lengths besides a count of bytes, numbered as OpenSSL numbers
// them (RSA_PSS_SALTLEN_*).
inline constexpr int kSaltDigestLength = -1;  // the digest's length
inline constexpr int kSaltAuto = -2;          // sign: the largest; verify: whatever it is
inline constexpr int kSaltMaximum = -3;       // the largest the modulus leaves room for

struct RsaParameters {
  RsaPadding padding = RsaPadding::pkcs1;
  // Signatures: the digest the input is (its DigestInfo for PKCS#1, PSS's
  // hash); OAEP: the label's hash. A digest row (sha1 ... sha512), or
  // kNoDigest for PKCS#1 v1.5 signatures.
  AlgorithmId digest = AlgorithmId::sha256;
  AlgorithmId mgf1_digest = AlgorithmId::sha256;  // PSS and OAEP
  int salt_length = kSaltDigestLength;            // PSS: bytes, or one of the constants
  Bytes label;  // OAEP; a view: its bytes must stay alive while the parameters are used
};

// An RSA key: a private one (which can do everything) or a public one.
// Copies share nothing; the private parts are held in wiped memory. A key
// kept in the kernel keyring (keep_in_kernel_keyring) is the exception: its
// copies share the one kernel key, which goes when the last of them does.
class RsaKey {
 public:
  // PKCS#8 PrivateKeyInfo or PKCS#1 RSAPrivateKey; SubjectPublicKeyInfo or
  // PKCS#1 RSAPublicKey. Throws InvalidKey naming what it could not read.
  static RsaKey from_der(Bytes der);
  // The same in PEM ("-----BEGIN PRIVATE KEY-----", "RSA PRIVATE KEY",
  // "PUBLIC KEY", "RSA PUBLIC KEY"); unencrypted only.
  static RsaKey from_pem(std::string_view pem);
  // Big-endian integers. n and e alone: a public key. With d: a private
  // key; the CRT components may be left empty and are then derived from
  // n, e and d (as CAVP's vectors give keys).
  struct Components {
    Bytes n, e, d, p, q, dp, dq, qinv;
  };
  static RsaKey from_components(const Components& components);
  // A fresh key of `bits` (2048, 3072, 4096) with e = 65537.
  static RsaKey generate(std::size_t bits);

  std::size_t bits() const noexcept { return bits_; }
  std::size_t size() const noexcept;  // modulus bytes: signature and ciphertext length
  bool has_private() const noexcept;
  // The algorithm row of this key's modulus. Throws Unsupported for sizes
  // without one.
  const Algorithm& algorithm() const;
  RsaKey public_key() const;
  std::vector<std::uint8_t> public_der() const;  // SubjectPublicKeyInfo
  // The modulus, big-endian, size() bytes.
  Bytes modulus() const noexcept { return modulus_; }
  // What drivers receive (cryptoaccel/driver/rsa_key_blob.hpp).
  Bytes blob() const noexcept { return blob_.span(); }

  // Moves the private key into a keyring this process owns (as an
  // `asymmetric` key: the kernel's pkcs8_key_parser reads it) and forgets
  // it here: afterwards this object holds the public key and the kernel
  // key's serial, its memory wiped, and only the `keyring` driver can sign
  // and decrypt with it (soft refuses it). The kernel key is revoked and
  // unlinked when the last copy of this object goes; sessions keep it too.
  // Throws InvalidKey for a public key, Unsupported naming the reason when
  // this kernel cannot take it (no keyctl, pkcs8_key_parser not loaded, a
  // size the kernel refuses). Calling it again does nothing.
  void keep_in_kernel_keyring();
  bool in_kernel_keyring() const noexcept { return kernel_key_ != nullptr; }

 private:
  friend class RsaSession;
  RsaKey(SecretBytes blob, std::size_t bits, std::vector<std::uint8_t> modulus)
      : blob_(std::move(blob)), bits_(bits), modulus_(std::move(modulus)) {}
  SecretBytes blob_;
  std::shared_ptr<const void> kernel_key_;  // keyring::KernelKey, revoked when it goes
  std::size_t bits_ = 0;
  std::vector<std::uint8_t> modulus_;
};

class RsaSession : public Session {
 public:
  explicit RsaSession(const RsaKey& key, const SessionOptions& options = {});

  std::size_t size() const noexcept { return algorithm().output_size; }
  bool has_private() const noexcept { return has_private_; }

  // `digest` is the digest of the message, made with parameters.digest (PSS,
  // PKCS#1), or any input up to size() - 11 bytes for kNoDigest. The
  // signature is size() bytes.
  void sign(const RsaParameters& parameters, Bytes digest, MutableBytes signature);
  std::vector<std::uint8_t> sign(const RsaParameters& parameters, Bytes digest);
  // False when the signature does not match; throws only for bad arguments.
  bool verify(const RsaParameters& parameters, Bytes digest, Bytes signature);
  // `out` is size() bytes; `in` at most size() - 11 (PKCS#1) or
  // size() - 2 * hash - 2 (OAEP), or exactly size() bytes below the
  // modulus (none: InvalidLength, InvalidArgument otherwise).
  void encrypt(const RsaParameters& parameters, Bytes in, MutableBytes out);
  std::vector<std::uint8_t> encrypt(const RsaParameters& parameters, Bytes in);
  // `in` is size() bytes; returns the plaintext's length in `out` (size()
  // bytes are always enough). Every ciphertext whose padding is wrong,
  // and one whose plaintext is longer than `out`, throws the same
  // DecryptionFailed, with `out` wiped. With no padding the
  // plaintext is size() bytes and `in` must be below the modulus
  // (InvalidArgument).
  std::size_t decrypt(const RsaParameters& parameters, Bytes in, MutableBytes out);
  std::vector<std::uint8_t> decrypt(const RsaParameters& parameters, Bytes in);
  // decrypt() without the exception for a bad padding: no value then (with
  // `out` wiped), every other error thrown as decrypt() throws it. For
  // callers whose own time must not tell a bad ciphertext from a good one:
  // an exception unwinds the library's frames, which takes longer than a
  // return (a few microseconds, enough for Bleichenbacher's statistics).
  std::optional<std::size_t> try_decrypt(const RsaParameters& parameters, Bytes in,
                                         MutableBytes out);

 private:
  void need_private(std::string_view operation) const;
  void check_parameters(const RsaParameters& parameters, bool signature) const;
  ErrorCode run(Operation op, const RsaParameters& parameters, Bytes in, MutableBytes out,
                MutableBytes tag);
  void check_below_modulus(Bytes in) const;
  bool has_private_ = false;
  std::vector<std::uint8_t> modulus_;
  std::shared_ptr<const void> kernel_key_;  // the key's, kept alive while this runs
};

}  // namespace cryptoaccel
