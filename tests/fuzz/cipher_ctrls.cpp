// Cipher sequences' ctrls and parameters: IV length, GCM fixed IV, IV
// generation and invocation field, tags, TLS AAD, padding, num, IV
// read-back, sizes: every one the default provider accepts.
#include <openssl/core_names.h>

#include "cipher_sequence.hpp"

namespace cryptoaccel::fuzz {

// The IV length A's provider holds, asked of it: EVP's own answer is a
// copy, which OpenSSL 4.0 does not renew when a parameter set changes it.
int CipherSequence::provider_iv_length() const {
  std::size_t len = 0;
  OSSL_PARAM q[] = {OSSL_PARAM_construct_size_t(OSSL_CIPHER_PARAM_IVLEN, &len),
                    OSSL_PARAM_construct_end()};
  if (EVP_CIPHER_CTX_get_params(ctx(kSideA), q) != 1)
    return EVP_CIPHER_CTX_get_iv_length(ctx(kSideA));
  return static_cast<int>(len);
}

int CipherSequence::iv_length_now() {
  return have_cipher() ? std::min(iv_length_, provider_iv_length()) : iv_length_;
}

// A ctrl whose pointer is an input (copied: writes to it show).
Outcome CipherSequence::ctrl_with_input(int s, int type, int arg, const Bytes& in, bool null_ptr) {
  Bytes copy = in;
  const int ret = EVP_CIPHER_CTX_ctrl(ctx(s), type, arg, null_ptr ? nullptr : copy.data());
  if (copy == in) return value(ret);
  return Outcome{{ret, -1 /* wrote to its input */}, copy, copy.size()};
}

long long CipherSequence::run_ctrl_in(const char* op, const char* type_name, int type, int arg,
                                      Bytes in, bool null_ptr) {
  const std::string call = std::string("EVP_CIPHER_CTX_ctrl(ctx, ") + type_name + ", " +
                           std::to_string(arg) + ", " +
                           (null_ptr ? std::string("NULL") : hex(in.data(), 16, 16) + "..") + ")";
  return d_.both(op, call, [&](int s) { return ctrl_with_input(s, type, arg, in, null_ptr); })
      .values[0];
}

// A ctrl whose pointer is an output buffer (canary-filled).
Outcome CipherSequence::run_ctrl_out(const char* op, const char* type_name, int type, int arg) {
  const std::string call = std::string("EVP_CIPHER_CTX_ctrl(ctx, ") + type_name + ", " +
                           std::to_string(arg) + ", buf[" + std::to_string(kCtrlBuffer) + "])";
  return d_.both(op, call, [&](int s) {
    Bytes buf = canary(kCtrlBuffer);
    const int ret = EVP_CIPHER_CTX_ctrl(ctx(s), type, arg, buf.data());
    return Outcome{{ret}, buf, arg < 0 ? 16 : std::min<std::size_t>(arg, kCtrlBuffer)};
  });
}

void CipherSequence::set_ivlen(const Record& r) {
  static constexpr int kLens[] = {-1, 0,  1,  4,  7,  8,  11,  12,  13,
                                  15, 16, 17, 24, 32, 64, 128, 129, 1024};
  const int len = r.pick(0, kLens);
  if (gcm_ && (tls_aad_tried_ || iv_fixed_tried_) && len < 8) return;  // as in tls_aad()
  const bool ok = run_ctrl_in("set_ivlen", "EVP_CTRL_AEAD_SET_IVLEN", EVP_CTRL_AEAD_SET_IVLEN, len,
                              {}, true) > 0;
  // What the provider holds: OpenSSL 4.0's EVP may not pass a length it
  // believes set already.
  if (ok) iv_length_ = have_cipher() ? std::min(len, provider_iv_length()) : len;
  // The IV is unset: an encryption draws one, and a decryption keeps
  // what an earlier one drew past the IV it was given.
  if (gcm_ && ok) {
    iv_known_ = false;
    d_.set_unpredictable(true);
  }
}

void CipherSequence::iv_fixed(const Record& r) {
  static constexpr int kLens[] = {-1, -1, 0, 1, 3, 4, 4, 5, 7, 8, 8, 11, 12, 12, 13, 16, 17};
  const int len = r.pick(0, kLens);
  // OpenSSL 3.0's setivfixed() computes ivlen - len in size_t: a fixed
  // part longer than the IV makes the default provider fill ~2^64 random
  // bytes past its context. Not asked of either side.
  if (gcm_ && len > 0 && have_cipher() && len > provider_iv_length()) return;
  // A whole IV shorter than a record's 8-byte explicit part: OpenSSL 3.0
  // takes it, and its records then write in front of the IV (as in
  // tls_aad()). Not asked of either side; cryptoaccel refuses it. The IV
  // length is the provider's: OpenSSL 4.0's EVP may not have passed the
  // last one set.
  if (gcm_ && len == -1 && iv_length_now() < 8) return;
  const bool encrypting = !decrypting();
  // -1 (the whole IV) has its own name, to be skipped apart.
  const char* op = len == -1 ? "iv_fixed_whole" : "iv_fixed";
  if (!filter_->allows(op)) return;
  iv_fixed_tried_ = true;
  const bool ok = run_ctrl_in(op, "EVP_CTRL_GCM_SET_IV_FIXED", EVP_CTRL_GCM_SET_IV_FIXED, len,
                              derived_bytes(r.data_seed, kCtrlBuffer, 3)) > 0;
  // -1 sets the whole IV; a fixed part leaves the rest as it was, drawn
  // at random when encrypting.
  if (gcm_ && ok && len == -1)
    known_iv();
  else if (gcm_ && ok && encrypting)
    d_.set_unpredictable(true);
}

void CipherSequence::iv_gen(const Record& r) {
  static constexpr int kLens[] = {-1, 0, 1, 4, 8, 8, 12, 12, 13, 16, 32};
  // OpenSSL 3.0 counts the last 8 bytes of the IV up: with a shorter IV
  // it writes in front of it, into its context. Not asked of either side.
  if (gcm_ && iv_length_now() < 8) return;
  run_ctrl_out("iv_gen", "EVP_CTRL_GCM_IV_GEN", EVP_CTRL_GCM_IV_GEN, r.pick(0, kLens));
}

void CipherSequence::iv_inv(const Record& r) {
  static constexpr int kLens[] = {-1, 0, 1, 4, 8, 8, 12, 16};
  const int len = r.pick(0, kLens);
  // OpenSSL 3.0's setivinv() copies to iv + ivlen - len unchecked: a part
  // longer than the IV writes in front of it, into the default provider's
  // context. Not asked of either side.
  if (gcm_ && len > 0 && have_cipher() && len > provider_iv_length()) return;
  run_ctrl_in("iv_inv", "EVP_CTRL_GCM_SET_IV_INV", EVP_CTRL_GCM_SET_IV_INV, len,
              derived_bytes(r.data_seed, kCtrlBuffer, 4));
}

void CipherSequence::set_tag(const Record& r) {
  static constexpr int kLens[] = {-1, 0, 1, 4, 8, 12, 13, 15, 16, 16, 16, 17, 32};
  const int len = r.pick(0, kLens);
  // 0: NULL, 1: random, 2-3: the last tag read (A's: both sides get the
  // same bytes, even when B's differed under a random IV).
  const int source = r.arg[1] % 4;
  const std::string call = "EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_SET_TAG, " +
                           std::to_string(len) + ", " +
                           (source == 0   ? "NULL"
                            : source == 1 ? "random"
                                          : "last tag") +
                           ")";
  const Outcome a = d_.both("set_tag", call, [&](int s) {
    Bytes in = derived_bytes(r.data_seed, kCtrlBuffer, 5);
    if (source >= 2) std::copy(tag_[kSideA].begin(), tag_[kSideA].end(), in.begin());
    return ctrl_with_input(s, EVP_CTRL_AEAD_SET_TAG, len, in, source == 0);
  });
  if (a.values[0] > 0 && len > 0) chacha_tag_length_ = true;
}

// The IV is ours again; a tag computed under the random one stays until
// the next message's final.
void CipherSequence::known_iv() {
  iv_known_ = true;
  if (d_.unpredictable()) stale_tag_ = true;
  d_.set_unpredictable(false);
}

void CipherSequence::get_tag(const Record& r) {
  const bool was = d_.unpredictable();
  if (stale_tag_) d_.set_unpredictable(true);
  get_tag_compared(r);
  d_.set_unpredictable(was);
}

void CipherSequence::get_tag_compared(const Record& r) {
  static constexpr int kLens[] = {-1, 0, 1, 4, 12, 16, 16, 16, 17, 32};
  const int len = r.pick(0, kLens);
  const std::string call =
      "EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_GET_TAG, " + std::to_string(len) + ", buf)";
  std::array<Bytes, 2> tags;
  const Outcome a = d_.both("get_tag", call, [&](int s) {
    Bytes buf = canary(kCtrlBuffer);
    const int ret = EVP_CIPHER_CTX_ctrl(ctx(s), EVP_CTRL_AEAD_GET_TAG, len, buf.data());
    if (ret > 0 && len > 0) tags[s].assign(buf.begin(), buf.begin() + len);
    return Outcome{{ret}, buf, len < 0 ? 16 : std::min<std::size_t>(len, kCtrlBuffer)};
  });
  if (a.values[0] > 0) tag_ = tags;
}

void CipherSequence::tls_aad(const Record& r) {
  static constexpr int kPayload[] = {0, 1, 7, 8, 15, 16, 23, 24, 25, 29, 40, 64, 100, -1};
  static constexpr int kArgs[] = {13, 13, 13, 13, 13, 12, 14, 0};
  int len = r.pick(0, kPayload);
  if (len < 0) len = static_cast<int>(r.data_seed % 1024);
  Bytes aad = derived_bytes(r.data_seed, kCtrlBuffer, 6);
  aad[8] = 0x17;
  aad[9] = 3;
  aad[10] = 3;
  aad[11] = static_cast<unsigned char>(len >> 8);
  aad[12] = static_cast<unsigned char>(len);
  const int arg = r.pick(1, kArgs);
  // A GCM TLS record takes its 8-byte explicit IV from the end of the IV:
  // OpenSSL 3.0 writes in front of a shorter IV. Not asked of either side.
  if (gcm_ && iv_length_now() < 8) return;
  tls_aad_tried_ = true;
  const std::string call = "EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_TLS1_AAD, " +
                           std::to_string(arg) + ", " + hex(aad.data(), 13) + ")";
  const Outcome a = d_.both("tls_aad", call, [&](int s) {
    return ctrl_with_input(s, EVP_CTRL_AEAD_TLS1_AAD, arg, aad, false);
  });
  if (a.values[0] > 0) {
    tls_len_ = static_cast<std::size_t>(len);
    tls_aad_set_ = true;
    end_record_of_wrong_length();
  }
}

void CipherSequence::padding(const Record& r) {
  if (!have_cipher()) return;
  const int pad = r.arg[0] & 1;
  d_.both("padding", "EVP_CIPHER_CTX_set_padding(ctx, " + std::to_string(pad) + ")",
          [&](int s) { return value(EVP_CIPHER_CTX_set_padding(ctx(s), pad)); });
}

void CipherSequence::set_num(const Record& r) {
  if (!have_cipher()) return;
  // Only 0..15: OpenSSL 3.0's default provider takes any number and
  // indexes its 16-byte keystream block with it (-1 crashes CTR).
  static constexpr int kNums[] = {0, 1, 7, 15};
  const int num = r.pick(0, kNums);
  const Outcome a = d_.both("set_num", "EVP_CIPHER_CTX_set_num(ctx, " + std::to_string(num) + ")",
                            [&](int s) { return value(EVP_CIPHER_CTX_set_num(ctx(s), num)); });
  // OpenSSL's CTR then takes keystream from whatever its buffer holds (in a
  // fresh context zeros: the plaintext itself).
  if (ctr_ && num != 0 && a.values[0] == 1) d_.documented("ctr_num_set");
}

void CipherSequence::query(const Record&) {
  if (!have_cipher()) return;
  d_.both("query",
          "get_iv_length, get_key_length, get_tag_length, get_block_size, is_encrypting, get_num",
          [&](int s) {
            EVP_CIPHER_CTX* c = ctx(s);
            return Outcome{{EVP_CIPHER_CTX_get_iv_length(c), EVP_CIPHER_CTX_get_key_length(c),
                            EVP_CIPHER_CTX_get_tag_length(c), EVP_CIPHER_CTX_get_block_size(c),
                            EVP_CIPHER_CTX_is_encrypting(c), EVP_CIPHER_CTX_get_num(c)},
                           {},
                           0};
          });
}

void CipherSequence::get_iv(const Record& r) {
  if (!have_cipher()) return;
  static constexpr std::size_t kLens[] = {0, 1, 8, 12, 16, 16, 17, 32, 128};
  const std::size_t len = r.pick(0, kLens);
  const bool updated = r.flag(1);
  const std::string call =
      std::string(updated ? "EVP_CIPHER_CTX_get_updated_iv" : "EVP_CIPHER_CTX_get_original_iv") +
      "(ctx, buf, " + std::to_string(len) + ")";
  d_.both("get_iv", call, [&](int s) {
    Bytes buf = canary(kCtrlBuffer);
    const int ret = updated ? EVP_CIPHER_CTX_get_updated_iv(ctx(s), buf.data(), len)
                            : EVP_CIPHER_CTX_get_original_iv(ctx(s), buf.data(), len);
    return Outcome{{ret}, buf, len};
  });
}

}  // namespace cryptoaccel::fuzz
