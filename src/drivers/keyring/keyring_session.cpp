// Requests on a kernel key. With enc=raw the kernel computes m^d or m^e
// mod n and this side pads (cryptoaccel/driver/rsa_padding.hpp); with
// enc=pkcs1 the kernel's pkcs1pad(rsa) pads (public-key encryption only). The raw results come back
// without their leading zero bytes (the kernel writes the number, not the
// octet string): they are put back before decoding.
#include <algorithm>
#include <atomic>
#include <cerrno>
#include <string>
#include <vector>

#include <unistd.h>

#include "cryptoaccel/driver/rsa_key_blob.hpp"
#include "cryptoaccel/driver/rsa_padding.hpp"
#include "keyring_session.hpp"

namespace cryptoaccel::keyring {
namespace {

constexpr const char* kRaw = "enc=raw";
constexpr const char* kPkcs1 = "enc=pkcs1";
// Encryptions whose answer comes back short before the request fails: a
// correct implementation gives a short one never, a cutting device once in
// 128 encryptions at most (so all 16: 2^-112 at most).
constexpr int kEncryptAttempts = 16;

// A key revoked (or gone) underneath the session: the caller's doing, not
// the driver's, so nothing is moved elsewhere with it.
bool key_withdrawn(int error) noexcept {
  return error == EKEYREVOKED || error == ENOKEY || error == EKEYEXPIRED;
}

// Moves a result of `length` bytes to the end of `out` and zeros the front.
void right_align(std::span<std::uint8_t> out, std::size_t length) noexcept {
  if (length >= out.size()) return;
  const std::size_t gap = out.size() - length;
  std::copy_backward(out.begin(), out.begin() + static_cast<std::ptrdiff_t>(length), out.end());
  std::fill(out.begin(), out.begin() + static_cast<std::ptrdiff_t>(gap), 0);
}

class KeyringSession final : public DriverSession {
 public:
  // `owned`: the session added the key and revokes it when it ends; a key
  // kept in the keyring by RsaKey belongs to the RsaKey.
  KeyringSession(KeySerial key, KeySerial ring, bool owned, std::size_t bits, Reach reach)
      : key_(key),
        owned_(owned ? std::make_unique<KernelKey>(key, ring) : nullptr),
        bits_(bits),
        bytes_((bits + 7) / 8),
        reach_(reach),
        scratch_(bytes_) {}
  ~KeyringSession() override { secure_wipe(scratch_.data(), scratch_.size()); }

  std::size_t process(std::span<Request> batch) noexcept override {
    for (Request& r : batch) r.status = run(r);
    return batch.size();
  }

 private:
  ErrorCode run(Request& r) noexcept {
    if (r.rsa == nullptr) return ErrorCode::invalid_argument;
    return reach_ == Reach::raw ? run_raw(r) : run_pkcs1(r);
  }

  // m^d (decrypt) or m^e (encrypt) into `out` (a whole modulus).
  ErrorCode raw(PkeyOperation op, std::span<const std::uint8_t> in, std::span<std::uint8_t> out) {
    const KeyResult r = pkey(op, key_, kRaw, in, out);
    if (!r) return key_withdrawn(r.error) ? ErrorCode::invalid_key : ErrorCode::driver_failure;
    right_align(out, static_cast<std::size_t>(r.value));
    return ErrorCode::ok;
  }

  ErrorCode run_raw(Request& r) noexcept {
    const RsaParameters& p = *r.rsa;
    const std::span<std::uint8_t> em(scratch_);
    switch (r.op) {
      case Operation::sign: {
        const ErrorCode e = rsa_padding::encode_signature(p, r.in, bits_, em);
        return e != ErrorCode::ok ? e : raw(PkeyOperation::decrypt, em, r.out);
      }
      case Operation::verify: {
        // A signature not below the modulus is refused by the kernel: not valid.
        if (raw(PkeyOperation::encrypt, r.tag, em) != ErrorCode::ok)
          return ErrorCode::authentication_failed;
        return rsa_padding::verify_signature(p, r.in, bits_, em) ? ErrorCode::ok
                                                                 : ErrorCode::authentication_failed;
      }
      case Operation::encrypt: {
        const ErrorCode e = rsa_padding::encode_encryption(p, r.in, em);
        return e != ErrorCode::ok ? e : raw(PkeyOperation::encrypt, em, r.out);
      }
      case Operation::decrypt: {
        const ErrorCode e = raw(PkeyOperation::decrypt, r.in, em);
        // A ciphertext not below the modulus is one more bad ciphertext.
        if (e == ErrorCode::driver_failure) {
          secure_wipe(r.out.data(), r.out.size());
          r.out_length = 0;
          return ErrorCode::decryption_failed;
        }
        if (e != ErrorCode::ok) return e;
        return rsa_padding::decode_encryption(p, em, r.out, r.out_length);
      }
      case Operation::digest:
        break;
    }
    return ErrorCode::invalid_argument;
  }

  // pkcs1pad(rsa): PKCS#1 v1.5 encryption only; anything else (OAEP, no
  // padding, signatures) is declined for the next driver. So is
  // decryption, though the device offers it: its padding check decides in
  // the device's time, which no code here can make constant. Measured on
  // QEMU 7.2's virtio-crypto, a refused ciphertext took 0.3 ms more than a
  // valid one (the device logs each refusal): Bleichenbacher's oracle. A
  // PKCS#1 v1.5 decryption goes to the raw instance instead, one
  // private-key operation whatever the ciphertext, its padding checked in
  // constant time here.
  ErrorCode run_pkcs1(Request& r) noexcept {
    if (r.rsa->padding != RsaPadding::pkcs1 || r.op != Operation::encrypt)
      return ErrorCode::unsupported;
    // A PKCS#1 v1.5 ciphertext is a whole modulus, and the kernel's
    // pkcs1pad gives one. virtio-crypto on QEMU's nettle backend (Debian's
    // QEMU 7.2) does not when the ciphertext's first octet is zero (once
    // in 128 to 255 encryptions, by the modulus's top octet): it reports
    // the number's length, one octet less, and passes that many octets
    // from the front, so the guest gets the leading zero and loses the
    // last octet, and the ciphertext does not decrypt (measured: 7 of
    // 1500, each 255 octets long with a zero first octet). A short answer
    // cannot be told from that, so it is made again with fresh random
    // padding; a whole-length one is never cut.
    for (int attempt = 0; attempt < kEncryptAttempts; ++attempt) {
      const KeyResult k = pkey(PkeyOperation::encrypt, key_, kPkcs1, r.in, r.out);
      if (!k) return key_withdrawn(k.error) ? ErrorCode::invalid_key : ErrorCode::driver_failure;
      if (static_cast<std::size_t>(k.value) == bytes_) return ErrorCode::ok;
    }
    secure_wipe(r.out.data(), r.out.size());
    return ErrorCode::driver_failure;
  }

  KeySerial key_;
  std::unique_ptr<KernelKey> owned_;
  std::size_t bits_, bytes_;
  Reach reach_;
  std::vector<std::uint8_t> scratch_;
};

std::string key_description() {
  static std::atomic<unsigned> counter{0};
  return "cryptoaccel:" + std::to_string(getpid()) + ":" + std::to_string(counter++);
}

}  // namespace

std::unique_ptr<DriverSession> open_keyring_session(const Algorithm& algorithm,
                                                    std::span<const std::uint8_t> blob,
                                                    KeySerial ring, Reach reach) {
  const auto view = read_rsa_key_blob(blob);
  if (!view || view->modulus_bytes != algorithm.output_size)
    throw InvalidKey("keyring: not a " + std::string(algorithm.name) + " key");
  const std::size_t bits = algorithm.output_size * 8;
  std::unique_ptr<KeyringSession> session;
  KeySerial serial = 0;
  if (view->form == RsaKeyForm::kernel_key) {
    serial = view->kernel_serial;
    session = std::make_unique<KeyringSession>(serial, ring, false, bits, reach);
  } else {
    if (view->form != RsaKeyForm::private_key)
      throw Unsupported("keyring: the kernel takes private keys only (PKCS#8)");
    const KeyResult added = add_private_key(key_description(), view->der, ring);
    if (!added) throw DriverFailure("keyring: add_key refused the key: " + describe(added.error));
    serial = static_cast<KeySerial>(added.value);
    session = std::make_unique<KeyringSession>(serial, ring, true, bits, reach);
  }
  const KeyResult bits_reported = query_key_bits(serial, kRaw);
  if (!bits_reported && key_withdrawn(bits_reported.error))
    throw InvalidKey("keyring: the kernel key was revoked or is gone: " +
                     describe(bits_reported.error));
  if (!bits_reported || static_cast<std::size_t>(bits_reported.value) != bits)
    throw DriverFailure("keyring: the kernel does not report the key as " +
                        std::string(algorithm.name) +
                        (bits_reported ? "" : ": " + describe(bits_reported.error)));
  return session;
}

}  // namespace cryptoaccel::keyring
