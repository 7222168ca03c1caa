// Cipher sequences: init variants, split updates (in place, AAD),
// EVP_Cipher, TLS records, final, copy, reset, re-init. The ctrls are in
// cipher_ctrls.cpp.
#include "cipher_sequence.hpp"

#include <openssl/crypto.h>

#include <string>

namespace cryptoaccel::fuzz {

CipherSequence::CipherSequence(const Target& t, Differential& d) : t_(t), d_(d) {
  for (auto& c : ctx_) c.reset(EVP_CIPHER_CTX_new());
  const EVP_CIPHER* a = t_.cipher[kSideA].get();
  aead_ = t_.family == Family::aead;
  xts_ = EVP_CIPHER_get_mode(a) == EVP_CIPH_XTS_MODE;
  gcm_ = EVP_CIPHER_get_mode(a) == EVP_CIPH_GCM_MODE;
  block_ = static_cast<std::size_t>(EVP_CIPHER_get_block_size(a));
  const int mode = EVP_CIPHER_get_mode(a);
  const std::string name = EVP_CIPHER_get0_name(a);
  aes_schedules_ =
      name.rfind("AES", 0) == 0 && (mode == EVP_CIPH_ECB_MODE || mode == EVP_CIPH_CBC_MODE || xts_);
  cbc_ = mode == EVP_CIPH_CBC_MODE;
  ecb_ = mode == EVP_CIPH_ECB_MODE;
  ctr_ = mode == EVP_CIPH_CTR_MODE;
  chacha_poly_ = aead_ && !gcm_;
}

void CipherSequence::run(std::span<const Record> records, const OpFilter& filter) {
  filter_ = &filter;
  properties(filter);
  for (std::size_t i = 0; i < records.size(); ++i) {
    const Record& r = records[i];
    const Operation& op = i == 0 ? kOperations[0] : select(r.op);
    d_.set_blind(gcm_ && d_.unpredictable() && decrypting());
    if (filter.allows(op.name)) (this->*op.run)(r);
  }
}

const CipherSequence::Operation& CipherSequence::select(std::uint8_t byte) {
  return pick_weighted(kOperations, byte);
}

// Calls that dereference the context's cipher inside libcrypto itself
// run only when both contexts have one (and that must agree).
bool CipherSequence::have_cipher() {
  const bool a = EVP_CIPHER_CTX_get0_cipher(ctx(kSideA)) != nullptr;
  const bool b = EVP_CIPHER_CTX_get0_cipher(ctx(kSideB)) != nullptr;
  if (a != b)
    d_.both("guard", "EVP_CIPHER_CTX_get0_cipher(ctx) != NULL",
            [&](int s) { return value(EVP_CIPHER_CTX_get0_cipher(ctx(s)) != nullptr); });
  return a;
}

void CipherSequence::properties(const OpFilter& filter) {
  d_.both("properties", "key_length, iv_length, block_size, mode", [&](int s) {
    return Outcome{{EVP_CIPHER_get_key_length(cipher(s)), EVP_CIPHER_get_iv_length(cipher(s)),
                    EVP_CIPHER_get_block_size(cipher(s)), EVP_CIPHER_get_mode(cipher(s))},
                   {},
                   0};
  });
  if (filter.allows("cipher_flags"))
    d_.both("cipher_flags", "EVP_CIPHER_get_flags",
            [&](int s) { return value(static_cast<long long>(EVP_CIPHER_get_flags(cipher(s)))); });
  key_len_ = static_cast<std::size_t>(EVP_CIPHER_get_key_length(cipher(kSideA)));
}

void CipherSequence::init(const Record& r) {
  init_with(r, nullptr);
}

void CipherSequence::init_with(const Record& r, const ParamSet* params) {
  static const char* const kCalls[] = {"EVP_EncryptInit_ex2", "EVP_DecryptInit_ex2",
                                       "EVP_CipherInit_ex2"};
  const int kind = r.arg[0] % 3;
  static constexpr int kEnc[] = {1, 0, -1};
  const int enc = r.pick(1, kEnc);
  const bool with_key = r.arg[2] % 4 != 0, with_iv = gives_iv(r);
  const bool with_cipher = starts_context(r);
  // An IV under 8 bytes once a TLS record set-up was tried: OpenSSL takes
  // it, and its records then write in front of the IV (as in set_ivlen()).
  // An init's IV comes with the length EVP holds, which OpenSSL 4.0 leaves
  // as it was when a set that changed the provider's was refused. Not
  // asked of either side; cryptoaccel refuses it.
  if (gcm_ && with_iv && !with_cipher && (tls_aad_tried_ || iv_fixed_tried_) && have_cipher() &&
      std::min(EVP_CIPHER_CTX_get_iv_length(ctx(kSideA)),
               EVP_CIPHER_CTX_get_iv_length(ctx(kSideB))) < 8)
    return;
  Bytes key = derived_bytes(r.data_seed, 64, 1);
  if (r.flag(5) && !key_.empty()) key = key_;
  if (xts_ && r.arg[6] % 8 == 0)  // XTS with equal key halves
    std::copy_n(key.begin(), key_len_ / 2, key.begin() + static_cast<long>(key_len_ / 2));
  if (with_key) key_ = key;
  const Bytes iv = derived_bytes(r.data_seed, kCtrlBuffer, 2);
  std::string call = std::string(kCalls[kind]) + "(ctx, " + (with_cipher ? "cipher" : "NULL") +
                     ", key=" + (with_key ? hex(key.data(), key_len_, 64) : "NULL") +
                     ", iv=" + (with_iv ? hex(iv.data(), 16, 16) + ".." : "NULL");
  if (kind == 2) call += ", enc=" + std::to_string(enc);
  call += params != nullptr ? ", {" + params->text + "})" : ")";
  const bool was_decrypting = decrypting();
  const OSSL_PARAM* p = params != nullptr ? params->params.data() : nullptr;
  const Outcome a = d_.both(params != nullptr ? "init_params" : "init", call, [&](int s) {
    const EVP_CIPHER* c = with_cipher ? cipher(s) : nullptr;
    const unsigned char* k = with_key ? key.data() : nullptr;
    const unsigned char* v = with_iv ? iv.data() : nullptr;
    switch (kind) {
      case 0:
        return value(EVP_EncryptInit_ex2(ctx(s), c, k, v, p));
      case 1:
        return value(EVP_DecryptInit_ex2(ctx(s), c, k, v, p));
      default:
        return value(EVP_CipherInit_ex2(ctx(s), c, k, v, enc, p));
    }
  });
  tls_len_ = 0;
  const bool ok = a.values[0] == 1;
  // An init with neither key nor IV leaves "tlsaad" in force; a refused
  // one may not have reached the provider.
  if (ok && (with_cipher || with_key || with_iv)) tls_aad_set_ = false;
  // ChaCha20-Poly1305 takes only its own key and IV lengths; EVP hands
  // them over before the init, which a refusal stops.
  if (!ok && params != nullptr && params->odd_length && chacha_poly_ && !with_cipher)
    provider_decrypting_ = was_decrypting;
  else
    provider_decrypting_.reset();
  documented_after_init(ok, with_cipher, with_key, with_iv);
  if (ok) finalised_ = false;
  if (with_key)
    xts_keyed_ = ok;
  else if (with_cipher)
    xts_keyed_ = false;  // a new algorithm context
  // GCM encrypting without an IV: the default provider draws one.
  if (with_cipher) iv_known_ = false;
  if (with_iv && ok) iv_known_ = true;
  if (gcm_ && ok && !iv_known_ && !decrypting()) d_.set_unpredictable(true);
  // A refused init may have taken the key before it refused a parameter or
  // length (a GCM encryption without an IV then draws one), or not have
  // reached the provider at all, whose context then still encrypts where
  // EVP's says it decrypts.
  if (gcm_ && !ok) {
    iv_known_ = false;
    d_.set_unpredictable(true);
  }
  if (with_iv && ok) known_iv();
  if (params != nullptr) after_params(*params, ok);
}

// Where OpenSSL 3.0.19's default provider gives what cryptoaccel does not
// on purpose (docs/provider.md, "Where cryptoaccel differs on purpose").
void CipherSequence::documented_after_init(bool ok, bool with_cipher, bool with_key, bool with_iv) {
  if (with_cipher) {  // a new context: its tag length and key are unset
    chacha_keyed_ = chacha_tag_length_ = iv_given_ = tls_aad_tried_ = iv_fixed_tried_ = false;
    keyed_direction_ = -1;
    iv_length_ = 12;
  }
  const int direction = decrypting() ? 0 : 1;
  if (!ok) {
    // OpenSSL takes the direction before it refuses a key (XTS halves).
    if (aes_schedules_ && keyed_direction_ >= 0 && direction != keyed_direction_)
      d_.documented("aes_direction_changed_without_key", true);
    // A refused init may or may not have taken its key (and with it the
    // direction of its AES key schedule) before it refused a parameter or
    // length: which schedule a later direction change keeps is unknown.
    if (aes_schedules_ && with_key) d_.documented("aes_direction_changed_without_key", true);
    return;
  }
  held_back_ = 0;
  d_.end_documented("ecb_in_place_update_with_held_back_bytes");
  if (with_iv) iv_given_ = true;
  // The CBC chain is OpenSSL's own again once an IV restarts it (a NULL IV
  // goes back to the last one given).
  if (iv_given_) {
    d_.end_documented("cbc_evp_cipher_partial_block_decrypt");
    d_.end_documented("cbc_in_place_decrypt_with_held_back_bytes");
    d_.end_documented("cbc_in_place_encrypt_with_held_back_bytes");
  }
  if (with_iv) d_.end_documented("ctr_num_set");
  if (with_key) {
    keyed_direction_ = direction;
    // A CBC chain computed under the wrong schedule stays OpenSSL's until
    // an IV restarts it.
    if (!cbc_ || iv_given_) d_.end_documented("aes_direction_changed_without_key");
  } else if (aes_schedules_ && keyed_direction_ >= 0 && direction != keyed_direction_) {
    // OpenSSL keeps the other direction's AES key schedule: its output is
    // not the decryption (or encryption) of anything, and whether its
    // padding checks out is chance.
    d_.documented("aes_direction_changed_without_key", true);
  }
  if (chacha_poly_ && with_key) chacha_keyed_ = true;
  if (with_key || with_iv) end_record_of_wrong_length();
  // Without a key OpenSSL's ChaCha20-Poly1305 runs under an all-zero key;
  // cryptoaccel refuses.
  if (chacha_poly_ && !chacha_keyed_) d_.documented("chacha20_poly1305_without_key", true);
}

// One TLS record, in place, after tls_aad (libssl's use).
void CipherSequence::tls_record(const Record& r) {
  const std::size_t explicit_iv = gcm_ ? 8 : 0;
  const std::size_t lens[] = {tls_len_ + explicit_iv + 16, tls_len_ + explicit_iv + 16, tls_len_,
                              tls_len_ + 16, pick_length(r, 0, kMaxUpdate)};
  const std::size_t len = lens[r.arg[1] % 5];
  const bool via_cipher = r.flag(2);
  if (!via_cipher && empty_cbc_tls_record(len, true)) return;
  Bytes in = derived_bytes(r.data_seed, len, 7);
  if (r.flag(3) && !last_out_.empty()) {
    in = last_out_;
    in.resize(len);
  }
  // OpenSSL's raw CBC decryption of a partial block reads a whole block
  // from past the end of the input; cryptoaccel leaves the partial block.
  if (via_cipher && cbc_ && decrypting() && len % block_ != 0)
    d_.documented("cbc_evp_cipher_partial_block_decrypt", true);
  if (!via_cipher) in_place_after_held_back_bytes();
  if (via_cipher && len == 0 && chacha_poly_ && OpenSSL_version_num() < 0x30000160L)
    d_.documented("chacha20_poly1305_empty_evp_cipher_before_3_0_22", true);
  const std::string call = std::string(via_cipher ? "EVP_Cipher" : "EVP_CipherUpdate") +
                           "(ctx, buf, buf, " + std::to_string(len) +
                           ")  [TLS record in place: " + hex(in, 24) + "]";
  const Outcome a = d_.both_decrypting("tls_record", call, [&](int s) {
    Bytes buf = canary(len + kSlack);
    std::copy(in.begin(), in.end(), buf.begin());
    if (via_cipher) {
      if (EVP_CIPHER_CTX_get0_cipher(ctx(s)) == nullptr) return value(-99);
      const int ret = EVP_Cipher(ctx(s), buf.data(), buf.data(), static_cast<unsigned>(len));
      return Outcome{{ret}, buf, shown(ret, len)};
    }
    int outl = -99;
    const int ret = EVP_CipherUpdate(ctx(s), buf.data(), &outl, buf.data(), static_cast<int>(len));
    Outcome o{{ret, outl}, buf, shown(outl, len)};
    if (ret == 1) add_tls_mac(s, len, o);
    return o;
  });
  keep_output(a);
  if (!via_cipher && a.values[0] == 1 && a.values[1] >= 0)
    held_back_ = held_back_ + len - static_cast<std::size_t>(a.values[1]);
  d_.message_final("tls_record", a.values[0] <= 0);
  after_payload(a.values[0] <= 0);
}

// An update in place after bytes were held back: OpenSSL writes the block
// it completes from them over input the rest of the update still reads, so
// that its output from there on (and the bytes it holds back next) is what
// its order of reads and writes makes of them, not the cipher of the input.
// A driver that reads its input before it writes differs. Decrypting CBC,
// the chaining value is also taken from a byte already overwritten. CBC's
// chain carries the difference until an IV, ECB's held-back bytes until an
// init.
void CipherSequence::in_place_after_held_back_bytes() {
  if (held_back_ == 0) return;
  if (cbc_)
    d_.documented(decrypting() ? "cbc_in_place_decrypt_with_held_back_bytes"
                               : "cbc_in_place_encrypt_with_held_back_bytes",
                  true);
  else if (ecb_)
    d_.documented("ecb_in_place_update_with_held_back_bytes", true);
}

Bytes CipherSequence::input(const Record& r, std::size_t len) const {
  Bytes in = derived_bytes(r.data_seed, len, 8);
  if (r.arg[1] % 3 == 0 && !last_out_.empty()) {
    in = last_out_;  // decrypt what was encrypted
    in.resize(len);
  }
  return in;
}

void CipherSequence::keep_output(const Outcome& a) {
  if (a.shown > 0) last_out_.assign(a.bytes.begin(), a.bytes.begin() + static_cast<long>(a.shown));
}

void CipherSequence::update(const Record& r) {
  std::size_t len = pick_length(r, 0, kMaxUpdate);
  if (r.arg[3] % 4 == 0 && !last_out_.empty()) len = last_out_.size();
  const bool in_place = r.flag(2);
  if (empty_cbc_tls_record(len, in_place)) return;
  const Bytes in = input(r, len);
  const std::string call = std::string("EVP_CipherUpdate(ctx, out, &outl, ") +
                           (in_place ? "out" : "in") + ", " + std::to_string(len) + ")  [in " +
                           hex(in, 24) + "]";
  if (in_place) in_place_after_held_back_bytes();
  auto f = [&](int s) {
    Bytes out = canary(len + kSlack);
    Bytes src = in;
    src.push_back(0);  // never a null pointer, even for 0 bytes
    if (in_place) std::copy(in.begin(), in.end(), out.begin());
    int outl = -99;
    const int ret = EVP_CipherUpdate(ctx(s), out.data(), &outl, in_place ? out.data() : src.data(),
                                     static_cast<int>(len));
    Outcome o{{ret, outl}, out, shown(outl, len + kSlack)};
    if (ret == 1) add_tls_mac(s, len, o);
    return o;
  };
  const Outcome a =
      aead_ && decrypting() ? d_.both_decrypting("update", call, f) : d_.both("update", call, f);
  if (a.values[0] == 1 && a.values[1] >= 0)
    held_back_ = held_back_ + len - static_cast<std::size_t>(a.values[1]);
  keep_output(a);
  after_payload(a.values[0] != 1);
}

// EVP's way of passing AAD: out == NULL (AEAD ciphers only; the default
// provider's other ciphers write through it).
void CipherSequence::aad(const Record& r) {
  if (!aead_) return;
  const std::size_t len = pick_length(r, 0, 512);
  const Bytes in = derived_bytes(r.data_seed, len + 1, 9);
  d_.both(
      "aad", "EVP_CipherUpdate(ctx, NULL, &outl, aad, " + std::to_string(len) + ")", [&](int s) {
        int outl = -99;
        const int ret = EVP_CipherUpdate(ctx(s), nullptr, &outl, in.data(), static_cast<int>(len));
        return Outcome{{ret, outl}, {}, 0};
      });
}

// The OpenSSH path: EVP_Cipher on whole blocks; (NULL, NULL, 0) is an
// AEAD's final, (NULL, aad, n) its AAD.
void CipherSequence::evp_cipher(const Record& r) {
  if (!have_cipher()) return;
  const int mode = r.arg[0] % 4;
  std::size_t len = pick_length(r, 2, kMaxUpdate);
  if (block_ > 1 && !xts_) len -= len % block_;
  const bool final_call = mode == 0 && aead_;
  const bool aad_call = mode == 1 && aead_;
  if (final_call) len = 0;
  const bool in_place = r.flag(1);
  const Bytes in = input(r, len);
  std::string call = final_call ? "EVP_Cipher(ctx, NULL, NULL, 0)"
                     : aad_call ? "EVP_Cipher(ctx, NULL, aad, " + std::to_string(len) + ")"
                                : std::string("EVP_Cipher(ctx, out, ") + (in_place ? "out" : "in") +
                                      ", " + std::to_string(len) + ")  [in " + hex(in, 24) + "]";
  auto f = [&](int s) {
    Bytes out = canary(len + kSlack);
    Bytes src = in;
    src.push_back(0);
    int ret;
    if (final_call)
      ret = EVP_Cipher(ctx(s), nullptr, nullptr, 0);
    else if (aad_call)
      ret = EVP_Cipher(ctx(s), nullptr, src.data(), static_cast<unsigned>(len));
    else {
      if (in_place) std::copy(in.begin(), in.end(), out.begin());
      ret = EVP_Cipher(ctx(s), out.data(), in_place ? out.data() : src.data(),
                       static_cast<unsigned>(len));
    }
    return Outcome{{ret}, out, len};
  };
  if (len == 0 && chacha_poly_) {
    // OpenSSL before 3.0.22 makes EVP_Cipher(..., 0) a no-op for
    // ChaCha20-Poly1305, the final EVP_Cipher(NULL, NULL, 0) too: no tag
    // made, none checked (a forgery passes). cryptoaccel ends the message,
    // or refuses a record of the wrong length, as 3.0.22 does; the states
    // part here.
    if (OpenSSL_version_num() < 0x30000160L)
      d_.documented("chacha20_poly1305_empty_evp_cipher_before_3_0_22", true);
    else if (final_call && decrypting() && !chacha_tag_length_)
      d_.documented_once("chacha20_poly1305_decrypt_without_tag");
  }
  const Outcome a = aead_ && decrypting() && !aad_call ? d_.both_decrypting("evp_cipher", call, f)
                                                       : d_.both("evp_cipher", call, f);
  if (!final_call && !aad_call && a.values[0] > 0) keep_output(Outcome{{}, a.bytes, len});
  if (!final_call && !aad_call) after_payload(a.values[0] < 0);
  if (final_call) d_.message_final("evp_cipher", a.values[0] < 0);
  if (final_call && !d_.unpredictable() && a.values[0] >= 0) stale_tag_ = false;
}

// Compared again, but for the last tag: each side's last final made it
// (OpenSSL's over the message the record left, cryptoaccel's none).
void CipherSequence::end_record_of_wrong_length() {
  if (!d_.documenting("chacha20_poly1305_record_of_wrong_length")) return;
  stale_tag_ = true;
  d_.end_documented("chacha20_poly1305_record_of_wrong_length");
}

// A second final without a new init has its own name, to be skipped apart.
void CipherSequence::final(const Record&) {
  const char* op = finalised_ ? "final_again" : "final";
  if (!filter_->allows(op)) return;
  auto f = [&](int s) {
    Bytes out = canary(kSlack);
    int outl = -99;
    const int ret = EVP_CipherFinal_ex(ctx(s), out.data(), &outl);
    return Outcome{{ret, outl}, out, shown(outl, kSlack)};
  };
  const char* call = "EVP_CipherFinal_ex(ctx, out, &outl)";
  // OpenSSL's ChaCha20-Poly1305 compares the first tag-length bytes of the
  // tag, none when no tag length was ever given: a decryption that never
  // got its tag passes. cryptoaccel fails it.
  if (chacha_poly_ && decrypting() && !chacha_tag_length_)
    d_.documented_once("chacha20_poly1305_decrypt_without_tag");
  const Outcome a = aead_ && decrypting() ? d_.both_decrypting(op, call, f) : d_.both(op, call, f);
  if (a.values[0] == 1) finalised_ = true;
  if (a.shown > 0) keep_output(a);
  if (aead_) d_.message_final("final", a.values[0] <= 0);
  if (!d_.unpredictable() && a.values[0] > 0) stale_tag_ = false;
}

// Copies the context; continues on the copy, or (flag) on the original
// after freeing the copy, which must not disturb it.
void CipherSequence::dup(const Record& r) {
  // OpenSSL 3.0's XTS copy of a context without a key schedule points the
  // copy at an unset one: the default provider crashes at the next
  // update. Not asked of either side.
  if (xts_ && !xts_keyed_) return;
  // OpenSSL 3.0's copy shares its TLS MAC allocation (see tls_records_).
  if (tls_records_) return;
  std::array<CipherCtxPtr, 2> copies;
  const bool keep_original = r.flag(0);
  const Outcome a = d_.both("dup", "EVP_CIPHER_CTX_copy(copy, ctx)", [&](int s) {
    copies[s].reset(EVP_CIPHER_CTX_new());
    return value(EVP_CIPHER_CTX_copy(copies[s].get(), ctx(s)));
  });
  if (a.values[0] == 1 && !keep_original) {
    ctx_ = std::move(copies);
    d_.note("continuing on the copy");
  } else if (a.values[0] == 1) {
    d_.note("copy freed; continuing on the original");
  }
}

void CipherSequence::reset(const Record&) {
  xts_keyed_ = iv_known_ = finalised_ = false;
  d_.both("reset", "EVP_CIPHER_CTX_reset(ctx)",
          [&](int s) { return value(EVP_CIPHER_CTX_reset(ctx(s))); });
}

const std::array<CipherSequence::Operation, 23> CipherSequence::kOperations = {{
    {"init", 6, &CipherSequence::init},
    {"set_ivlen", 2, &CipherSequence::set_ivlen},
    {"iv_fixed", 2, &CipherSequence::iv_fixed},
    {"iv_gen", 2, &CipherSequence::iv_gen},
    {"iv_inv", 1, &CipherSequence::iv_inv},
    {"set_tag", 3, &CipherSequence::set_tag},
    {"get_tag", 3, &CipherSequence::get_tag},
    {"tls_aad", 2, &CipherSequence::tls_aad},
    {"tls_record", 2, &CipherSequence::tls_record},
    {"padding", 1, &CipherSequence::padding},
    {"set_num", 1, &CipherSequence::set_num},
    {"query", 1, &CipherSequence::query},
    {"get_iv", 2, &CipherSequence::get_iv},
    {"update", 10, &CipherSequence::update},
    {"aad", 3, &CipherSequence::aad},
    {"evp_cipher", 4, &CipherSequence::evp_cipher},
    {"final", 5, &CipherSequence::final},
    {"dup", 2, &CipherSequence::dup},
    {"reset", 1, &CipherSequence::reset},
    {"init_params", 2, &CipherSequence::init_params},
    {"set_params", 3, &CipherSequence::set_params},
    {"get_params", 3, &CipherSequence::get_params},
    {"set_key_length", 1, &CipherSequence::set_key_length},
}};

void run_cipher_sequence(const Target& t, std::span<const Record> records, Differential& d,
                         const OpFilter& filter) {
  CipherSequence(t, d).run(records, filter);
}

std::vector<std::string> cipher_operation_names() {
  std::vector<std::string> names{"properties", "cipher_flags", "guard", "final_again",
                                 "iv_fixed_whole"};
  for (const auto& op : CipherSequence::kOperations) names.emplace_back(op.name);
  return names;
}

}  // namespace cryptoaccel::fuzz
