// The cipher sequence interpreter: one EVP_CIPHER_CTX per side, and what
// the sequence knows of them (the last tag and output, whether the IV is
// one each side drew at random, what OpenSSL 3.0 must not be asked).
// cipher_sequence.cpp: init, data, final, copy, reset;
// cipher_ctrls.cpp: the ctrls and parameters.
#pragma once

#include <openssl/evp.h>
#include <openssl/params.h>

#include <algorithm>
#include <array>
#include <memory>
#include <optional>
#include <span>
#include <string>

#include "sequences.hpp"

namespace cryptoaccel::fuzz {

struct CipherCtxFree {
  void operator()(EVP_CIPHER_CTX* c) const { EVP_CIPHER_CTX_free(c); }
};
using CipherCtxPtr = std::unique_ptr<EVP_CIPHER_CTX, CipherCtxFree>;

// A parameter array for an init or EVP_CIPHER_CTX_set_params, the storage
// of its values, and what the sequence must know of it afterwards
// (cipher_params.cpp). Not copyable: the array points into it.
struct ParamSet {
  static constexpr std::size_t kMax = 4;
  ParamSet() = default;
  ParamSet(const ParamSet&) = delete;
  ParamSet& operator=(const ParamSet&) = delete;

  std::array<OSSL_PARAM, kMax + 1> params{};
  std::array<std::size_t, kMax> sizes{};
  std::array<unsigned, kMax> uints{};
  std::array<Bytes, kMax> octets;
  std::size_t count = 0;
  std::string text;  // for the trace
  bool ivlen = false, iv_fixed = false, tag = false, tls_aad = false, num = false;
  bool tls_version = false;      // a non-zero tls-version
  bool odd_length = false;       // a key or IV length not the cipher's
  bool tls_explicit_iv = false;  // tls-version TLS 1.1 or 1.2
  std::size_t tls_payload = 0;
};

class CipherSequence {
 public:
  CipherSequence(const Target& t, Differential& d);

  void run(std::span<const Record> records, const OpFilter& filter);

  struct Operation {
    const char* name;
    unsigned weight;
    void (CipherSequence::*run)(const Record&);
  };
  static const std::array<Operation, 23> kOperations;

 private:
  static constexpr std::size_t kMaxUpdate = 4096;
  static constexpr std::size_t kCtrlBuffer = 256;  // ctrl output and input buffers
  static constexpr std::size_t kSlack = 64;        // canary bytes after every output

  static Outcome value(long long v) { return Outcome{{v}, {}, 0}; }
  static std::size_t shown(long long n, std::size_t cap) {
    return n <= 0 ? 0 : std::min(static_cast<std::size_t>(n), cap);
  }
  static const Operation& select(std::uint8_t byte);

  EVP_CIPHER_CTX* ctx(int s) const { return ctx_[s].get(); }
  EVP_CIPHER* cipher(int s) const { return t_.cipher[s].get(); }
  // The provider's direction: EVP's, but where an init never reached the
  // provider (EVP refused the key or IV length it hands over first) the
  // provider's context keeps the direction it had.
  bool decrypting() const {
    return provider_decrypting_.value_or(EVP_CIPHER_CTX_is_encrypting(ctx(kSideA)) == 0);
  }

  // Calls that dereference the context's cipher inside libcrypto itself
  // run only when both contexts have one (and that must agree).
  bool have_cipher();
  int provider_iv_length() const;
  // The smaller of what the sequence set and what A's provider holds.
  int iv_length_now();

  void properties(const OpFilter& filter);

  void init(const Record& r);
  void init_with(const Record& r, const ParamSet* params);
  static bool starts_context(const Record& r) { return r.arg[4] % 4 != 0; }
  static bool gives_iv(const Record& r) { return r.arg[3] % 4 != 0; }
  void documented_after_init(bool ok, bool with_cipher, bool with_key, bool with_iv);

  // A ctrl whose pointer is an input (copied: writes to it show).
  Outcome ctrl_with_input(int s, int type, int arg, const Bytes& in, bool null_ptr);

  long long run_ctrl_in(const char* op, const char* type_name, int type, int arg, Bytes in,
                        bool null_ptr = false);

  // A ctrl whose pointer is an output buffer (canary-filled).
  Outcome run_ctrl_out(const char* op, const char* type_name, int type, int arg);

  void set_ivlen(const Record& r);

  void iv_fixed(const Record& r);

  void iv_gen(const Record& r);

  void iv_inv(const Record& r);

  void set_tag(const Record& r);

  // The IV is ours again; a tag computed under the random one stays until
  // the next message's final.
  void known_iv();

  void get_tag(const Record& r);

  void get_tag_compared(const Record& r);

  void tls_aad(const Record& r);

  // One TLS record, in place, after tls_aad (libssl's use).
  void tls_record(const Record& r);

  void padding(const Record& r);

  void set_num(const Record& r);

  void query(const Record&);

  // Parameters as arrays (cipher_params.cpp): what EVP_CIPHER_CTX_ctrl
  // reaches one at a time, several at once, in an init or on their own.
  // `new_context`: for an init that brings a cipher (a fresh context);
  // `with_iv`: for an init that brings an IV.
  void build_params(const Record& r, bool new_context, bool with_iv, ParamSet& p) const;
  void after_params(const ParamSet& p, bool ok);
  void init_params(const Record& r);
  void set_params(const Record& r);
  void get_params(const Record& r);
  void set_key_length(const Record& r);

  void get_iv(const Record& r);

  Bytes input(const Record& r, std::size_t len) const;

  // Starts the documented difference of an update in place after bytes
  // were held back (cipher_sequence.cpp says why).
  void in_place_after_held_back_bytes();
  // An empty record, in place, on a CBC decryption in TLS 1.1+ record mode:
  // OpenSSL 3.0 reads the byte before it (libssl never passes one).
  bool empty_cbc_tls_record(std::size_t len, bool in_place) const {
    return tls_explicit_iv_ && block_ > 1 && len == 0 && in_place && decrypting();
  }

  // After a decryption update in TLS record mode: the MAC it took off, read
  // while the buffer it points into is alive (libssl reads it then).
  void add_tls_mac(int s, std::size_t len, Outcome& o) const;

  void keep_output(const Outcome& a);

  void update(const Record& r);

  // EVP's way of passing AAD: out == NULL (AEAD ciphers only; the default
  // provider's other ciphers write through it).
  void aad(const Record& r);

  // The OpenSSH path: EVP_Cipher on whole blocks; (NULL, NULL, 0) is an
  // AEAD's final, (NULL, aad, n) its AAD.
  void evp_cipher(const Record& r);

  // A second final without a new init has its own name, to be skipped apart.
  void final(const Record&);

  // Copies the context; continues on the copy, or (flag) on the original
  // after freeing the copy, which must not disturb it.
  void dup(const Record& r);

  void reset(const Record&);

  const Target& t_;
  Differential& d_;
  std::array<CipherCtxPtr, 2> ctx_;
  std::array<Bytes, 2> tag_;  // each side's last tag, for set_tag
  Bytes last_out_;            // the last output (equal on both sides)
  Bytes key_;
  std::size_t key_len_ = 0, block_ = 1, tls_len_ = 0;
  bool aead_ = false, xts_ = false, gcm_ = false, xts_keyed_ = false, iv_known_ = false;
  bool stale_tag_ = false, finalised_ = false;
  // For the documented differences (docs/provider.md): AES ECB, CBC and XTS
  // keep one key schedule per direction; ChaCha20-Poly1305's key and tag
  // length; bytes held back by a block cipher since init.
  bool aes_schedules_ = false, cbc_ = false, ecb_ = false, ctr_ = false, chacha_poly_ = false;
  bool chacha_keyed_ = false, chacha_tag_length_ = false;
  int keyed_direction_ = -1;
  std::optional<bool> provider_decrypting_;  // see decrypting()
  std::size_t held_back_ = 0;   // bytes in, less bytes out, since init
  bool iv_given_ = false;       // since the context was made
  bool tls_aad_tried_ = false;  // since the context was made
  // A non-AEAD cipher's TLS record mode (tls-version) may be on: each
  // decryption update strips padding and MAC, and OpenSSL 3.0 keeps a
  // pointer to the MAC, into the caller's buffer or its own allocation,
  // which its copy of the context shares (a double free). And in TLS 1.1+
  // the explicit IV, a whole block, comes off first: OpenSSL 3.0 reads
  // before an empty record.
  bool tls_records_ = false, tls_explicit_iv_ = false;
  bool tls_aad_set_ = false;  // "tlsaad" taken since the last init

  void end_record_of_wrong_length();
  // A ChaCha20-Poly1305 payload refused after "tlsaad" (a record of the
  // wrong length, after AAD): OpenSSL goes on as if the AAD had ended,
  // cryptoaccel ends the message.
  void after_payload(bool refused) {
    if (chacha_poly_ && tls_aad_set_ && refused)
      d_.documented("chacha20_poly1305_record_of_wrong_length", true);
  }
  bool iv_fixed_tried_ = false;  // likewise
  int iv_length_ = 12;          // GCM: what SET_IVLEN last set
  const OpFilter* filter_ = nullptr;
};

}  // namespace cryptoaccel::fuzz
