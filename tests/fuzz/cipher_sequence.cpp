// Cipher sequences: init variants, every ctrl the default provider accepts
// (IV length, GCM fixed IV / IV generation / invocation field, tags, TLS
// AAD), padding, num, IV read-back, split updates (in place, AAD),
// EVP_Cipher, final, copy, reset, re-init.
#include <openssl/evp.h>

#include <algorithm>
#include <array>
#include <memory>

#include "sequences.hpp"

namespace cryptoaccel::fuzz {
namespace {

struct CipherCtxFree {
  void operator()(EVP_CIPHER_CTX* c) const { EVP_CIPHER_CTX_free(c); }
};
using CipherCtxPtr = std::unique_ptr<EVP_CIPHER_CTX, CipherCtxFree>;

constexpr std::size_t kMaxUpdate = 4096;
constexpr std::size_t kCtrlBuffer = 256;  // ctrl output and input buffers
constexpr std::size_t kSlack = 64;        // canary bytes after every output

Outcome value(long long v) {
  return Outcome{{v}, {}, 0};
}

std::size_t shown(long long n, std::size_t cap) {
  return n <= 0 ? 0 : std::min(static_cast<std::size_t>(n), cap);
}

class CipherSequence {
 public:
  CipherSequence(const Target& t, Differential& d) : t_(t), d_(d) {
    for (auto& c : ctx_) c.reset(EVP_CIPHER_CTX_new());
    const EVP_CIPHER* a = t_.cipher[kSideA].get();
    aead_ = t_.family == Family::aead;
    xts_ = EVP_CIPHER_get_mode(a) == EVP_CIPH_XTS_MODE;
    gcm_ = EVP_CIPHER_get_mode(a) == EVP_CIPH_GCM_MODE;
    block_ = static_cast<std::size_t>(EVP_CIPHER_get_block_size(a));
  }

  void run(std::span<const Record> records, const OpFilter& filter) {
    filter_ = &filter;
    properties(filter);
    for (std::size_t i = 0; i < records.size(); ++i) {
      const Record& r = records[i];
      const Operation& op = i == 0 ? kOperations[0] : select(r.op);
      if (filter.allows(op.name)) (this->*op.run)(r);
    }
  }

  struct Operation {
    const char* name;
    unsigned weight;
    void (CipherSequence::*run)(const Record&);
  };
  static const std::array<Operation, 19> kOperations;

 private:
  static const Operation& select(std::uint8_t byte) {
    unsigned total = 0;
    for (const Operation& op : kOperations) total += op.weight;
    unsigned at = byte % total;
    for (const Operation& op : kOperations) {
      if (at < op.weight) return op;
      at -= op.weight;
    }
    return kOperations[0];
  }

  EVP_CIPHER_CTX* ctx(int s) const { return ctx_[s].get(); }
  EVP_CIPHER* cipher(int s) const { return t_.cipher[s].get(); }
  bool decrypting() const { return EVP_CIPHER_CTX_is_encrypting(ctx(kSideA)) == 0; }

  // Calls that dereference the context's cipher inside libcrypto itself
  // run only when both contexts have one (and that must agree).
  bool have_cipher() {
    const bool a = EVP_CIPHER_CTX_get0_cipher(ctx(kSideA)) != nullptr;
    const bool b = EVP_CIPHER_CTX_get0_cipher(ctx(kSideB)) != nullptr;
    if (a != b)
      d_.both("guard", "EVP_CIPHER_CTX_get0_cipher(ctx) != NULL",
              [&](int s) { return value(EVP_CIPHER_CTX_get0_cipher(ctx(s)) != nullptr); });
    return a;
  }

  void properties(const OpFilter& filter) {
    d_.both("properties", "key_length, iv_length, block_size, mode", [&](int s) {
      return Outcome{{EVP_CIPHER_get_key_length(cipher(s)), EVP_CIPHER_get_iv_length(cipher(s)),
                      EVP_CIPHER_get_block_size(cipher(s)), EVP_CIPHER_get_mode(cipher(s))},
                     {},
                     0};
    });
    if (filter.allows("cipher_flags"))
      d_.both("cipher_flags", "EVP_CIPHER_get_flags", [&](int s) {
        return value(static_cast<long long>(EVP_CIPHER_get_flags(cipher(s))));
      });
    key_len_ = static_cast<std::size_t>(EVP_CIPHER_get_key_length(cipher(kSideA)));
  }

  void init(const Record& r) {
    static const char* const kCalls[] = {"EVP_EncryptInit_ex2", "EVP_DecryptInit_ex2",
                                         "EVP_CipherInit_ex2"};
    const int kind = r.arg[0] % 3;
    static constexpr int kEnc[] = {1, 0, -1};
    const int enc = r.pick(1, kEnc);
    const bool with_key = r.arg[2] % 4 != 0, with_iv = r.arg[3] % 4 != 0;
    const bool with_cipher = r.arg[4] % 4 != 0;
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
    call += ")";
    const Outcome a = d_.both("init", call, [&](int s) {
      const EVP_CIPHER* c = with_cipher ? cipher(s) : nullptr;
      const unsigned char* k = with_key ? key.data() : nullptr;
      const unsigned char* v = with_iv ? iv.data() : nullptr;
      switch (kind) {
        case 0:
          return value(EVP_EncryptInit_ex2(ctx(s), c, k, v, nullptr));
        case 1:
          return value(EVP_DecryptInit_ex2(ctx(s), c, k, v, nullptr));
        default:
          return value(EVP_CipherInit_ex2(ctx(s), c, k, v, enc, nullptr));
      }
    });
    tls_len_ = 0;
    const bool ok = a.values[0] == 1;
    if (ok) finalised_ = false;
    if (with_key)
      xts_keyed_ = ok;
    else if (with_cipher)
      xts_keyed_ = false;  // a new algorithm context
    // GCM encrypting without an IV: the default provider draws one.
    if (with_cipher) iv_known_ = false;
    if (with_iv && ok) iv_known_ = true;
    if (gcm_ && ok && !iv_known_ && !decrypting()) d_.set_unpredictable(true);
    if (with_iv && ok) known_iv();
  }

  // A ctrl whose pointer is an input (copied: writes to it show).
  Outcome ctrl_with_input(int s, int type, int arg, const Bytes& in, bool null_ptr) {
    Bytes copy = in;
    const int ret = EVP_CIPHER_CTX_ctrl(ctx(s), type, arg, null_ptr ? nullptr : copy.data());
    if (copy == in) return value(ret);
    return Outcome{{ret, -1 /* wrote to its input */}, copy, copy.size()};
  }

  long long run_ctrl_in(const char* op, const char* type_name, int type, int arg, Bytes in,
                        bool null_ptr = false) {
    const std::string call = std::string("EVP_CIPHER_CTX_ctrl(ctx, ") + type_name + ", " +
                             std::to_string(arg) + ", " +
                             (null_ptr ? std::string("NULL") : hex(in.data(), 16, 16) + "..") + ")";
    return d_.both(op, call, [&](int s) { return ctrl_with_input(s, type, arg, in, null_ptr); })
        .values[0];
  }

  // A ctrl whose pointer is an output buffer (canary-filled).
  Outcome run_ctrl_out(const char* op, const char* type_name, int type, int arg) {
    const std::string call = std::string("EVP_CIPHER_CTX_ctrl(ctx, ") + type_name + ", " +
                             std::to_string(arg) + ", buf[" + std::to_string(kCtrlBuffer) + "])";
    return d_.both(op, call, [&](int s) {
      Bytes buf = canary(kCtrlBuffer);
      const int ret = EVP_CIPHER_CTX_ctrl(ctx(s), type, arg, buf.data());
      return Outcome{{ret}, buf, arg < 0 ? 16 : std::min<std::size_t>(arg, kCtrlBuffer)};
    });
  }

  void set_ivlen(const Record& r) {
    static constexpr int kLens[] = {-1, 0,  1,  4,  7,  8,  11,  12,  13,
                                    15, 16, 17, 24, 32, 64, 128, 129, 1024};
    const bool ok = run_ctrl_in("set_ivlen", "EVP_CTRL_AEAD_SET_IVLEN", EVP_CTRL_AEAD_SET_IVLEN,
                                r.pick(0, kLens), {}, true) > 0;
    if (gcm_ && ok) {  // the IV is unset: an encryption draws one
      iv_known_ = false;
      if (!decrypting()) d_.set_unpredictable(true);
    }
  }

  void iv_fixed(const Record& r) {
    static constexpr int kLens[] = {-1, -1, 0, 1, 3, 4, 4, 5, 7, 8, 8, 11, 12, 12, 13, 16, 17};
    const int len = r.pick(0, kLens);
    // OpenSSL 3.0's setivfixed() computes ivlen - len in size_t: a fixed
    // part longer than the IV makes the default provider fill ~2^64 random
    // bytes past its context. Not asked of either side.
    if (gcm_ && len > 0 && have_cipher() && len > EVP_CIPHER_CTX_get_iv_length(ctx(kSideA))) return;
    const bool encrypting = !decrypting();
    // -1 (the whole IV) has its own name, to be skipped apart.
    const char* op = len == -1 ? "iv_fixed_whole" : "iv_fixed";
    if (!filter_->allows(op)) return;
    const bool ok = run_ctrl_in(op, "EVP_CTRL_GCM_SET_IV_FIXED", EVP_CTRL_GCM_SET_IV_FIXED, len,
                                derived_bytes(r.data_seed, kCtrlBuffer, 3)) > 0;
    // -1 sets the whole IV; a fixed part leaves the rest as it was, drawn
    // at random when encrypting.
    if (gcm_ && ok && len == -1)
      known_iv();
    else if (gcm_ && ok && encrypting)
      d_.set_unpredictable(true);
  }

  void iv_gen(const Record& r) {
    static constexpr int kLens[] = {-1, 0, 1, 4, 8, 8, 12, 12, 13, 16, 32};
    run_ctrl_out("iv_gen", "EVP_CTRL_GCM_IV_GEN", EVP_CTRL_GCM_IV_GEN, r.pick(0, kLens));
  }

  void iv_inv(const Record& r) {
    static constexpr int kLens[] = {-1, 0, 1, 4, 8, 8, 12, 16};
    run_ctrl_in("iv_inv", "EVP_CTRL_GCM_SET_IV_INV", EVP_CTRL_GCM_SET_IV_INV, r.pick(0, kLens),
                derived_bytes(r.data_seed, kCtrlBuffer, 4));
  }

  void set_tag(const Record& r) {
    static constexpr int kLens[] = {-1, 0, 1, 4, 8, 12, 13, 15, 16, 16, 16, 17, 32};
    const int len = r.pick(0, kLens);
    const int source = r.arg[1] % 4;  // 0: NULL, 1: random, 2-3: the side's last tag
    const std::string call = "EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_SET_TAG, " +
                             std::to_string(len) + ", " +
                             (source == 0   ? "NULL"
                              : source == 1 ? "random"
                                            : "last tag") +
                             ")";
    d_.both("set_tag", call, [&](int s) {
      Bytes in = derived_bytes(r.data_seed, kCtrlBuffer, 5);
      if (source >= 2) std::copy(tag_[s].begin(), tag_[s].end(), in.begin());
      return ctrl_with_input(s, EVP_CTRL_AEAD_SET_TAG, len, in, source == 0);
    });
  }

  // The IV is ours again; a tag computed under the random one stays until
  // the next message's final.
  void known_iv() {
    iv_known_ = true;
    if (d_.unpredictable()) stale_tag_ = true;
    d_.set_unpredictable(false);
  }

  void get_tag(const Record& r) {
    const bool was = d_.unpredictable();
    if (stale_tag_) d_.set_unpredictable(true);
    get_tag_compared(r);
    d_.set_unpredictable(was);
  }

  void get_tag_compared(const Record& r) {
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

  void tls_aad(const Record& r) {
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
    const std::string call = "EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_TLS1_AAD, " +
                             std::to_string(arg) + ", " + hex(aad.data(), 13) + ")";
    const Outcome a = d_.both("tls_aad", call, [&](int s) {
      return ctrl_with_input(s, EVP_CTRL_AEAD_TLS1_AAD, arg, aad, false);
    });
    if (a.values[0] > 0) tls_len_ = static_cast<std::size_t>(len);
  }

  // One TLS record, in place, after tls_aad (libssl's use).
  void tls_record(const Record& r) {
    const std::size_t explicit_iv = gcm_ ? 8 : 0;
    const std::size_t lens[] = {tls_len_ + explicit_iv + 16, tls_len_ + explicit_iv + 16, tls_len_,
                                tls_len_ + 16, pick_length(r, 0, kMaxUpdate)};
    const std::size_t len = lens[r.arg[1] % 5];
    const bool via_cipher = r.flag(2);
    Bytes in = derived_bytes(r.data_seed, len, 7);
    if (r.flag(3) && !last_out_.empty()) {
      in = last_out_;
      in.resize(len);
    }
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
      const int ret =
          EVP_CipherUpdate(ctx(s), buf.data(), &outl, buf.data(), static_cast<int>(len));
      return Outcome{{ret, outl}, buf, shown(outl, len)};
    });
    keep_output(a);
    d_.message_final("tls_record", a.values[0] <= 0);
  }

  void padding(const Record& r) {
    if (!have_cipher()) return;
    const int pad = r.arg[0] & 1;
    d_.both("padding", "EVP_CIPHER_CTX_set_padding(ctx, " + std::to_string(pad) + ")",
            [&](int s) { return value(EVP_CIPHER_CTX_set_padding(ctx(s), pad)); });
  }

  void set_num(const Record& r) {
    if (!have_cipher()) return;
    // Only 0..15: OpenSSL 3.0's default provider takes any number and
    // indexes its 16-byte keystream block with it (-1 crashes CTR).
    static constexpr int kNums[] = {0, 1, 7, 15};
    const int num = r.pick(0, kNums);
    d_.both("set_num", "EVP_CIPHER_CTX_set_num(ctx, " + std::to_string(num) + ")",
            [&](int s) { return value(EVP_CIPHER_CTX_set_num(ctx(s), num)); });
  }

  void query(const Record&) {
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

  void get_iv(const Record& r) {
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

  Bytes input(const Record& r, std::size_t len) const {
    Bytes in = derived_bytes(r.data_seed, len, 8);
    if (r.arg[1] % 3 == 0 && !last_out_.empty()) {
      in = last_out_;  // decrypt what was encrypted
      in.resize(len);
    }
    return in;
  }

  void keep_output(const Outcome& a) {
    if (a.shown > 0)
      last_out_.assign(a.bytes.begin(), a.bytes.begin() + static_cast<long>(a.shown));
  }

  void update(const Record& r) {
    std::size_t len = pick_length(r, 0, kMaxUpdate);
    if (r.arg[3] % 4 == 0 && !last_out_.empty()) len = last_out_.size();
    const bool in_place = r.flag(2);
    const Bytes in = input(r, len);
    const std::string call = std::string("EVP_CipherUpdate(ctx, out, &outl, ") +
                             (in_place ? "out" : "in") + ", " + std::to_string(len) + ")  [in " +
                             hex(in, 24) + "]";
    auto f = [&](int s) {
      Bytes out = canary(len + kSlack);
      Bytes src = in;
      src.push_back(0);  // never a null pointer, even for 0 bytes
      if (in_place) std::copy(in.begin(), in.end(), out.begin());
      int outl = -99;
      const int ret = EVP_CipherUpdate(ctx(s), out.data(), &outl,
                                       in_place ? out.data() : src.data(), static_cast<int>(len));
      return Outcome{{ret, outl}, out, shown(outl, len + kSlack)};
    };
    const Outcome a =
        aead_ && decrypting() ? d_.both_decrypting("update", call, f) : d_.both("update", call, f);
    keep_output(a);
  }

  // EVP's way of passing AAD: out == NULL (AEAD ciphers only; the default
  // provider's other ciphers write through it).
  void aad(const Record& r) {
    if (!aead_) return;
    const std::size_t len = pick_length(r, 0, 512);
    const Bytes in = derived_bytes(r.data_seed, len + 1, 9);
    d_.both("aad", "EVP_CipherUpdate(ctx, NULL, &outl, aad, " + std::to_string(len) + ")",
            [&](int s) {
              int outl = -99;
              const int ret =
                  EVP_CipherUpdate(ctx(s), nullptr, &outl, in.data(), static_cast<int>(len));
              return Outcome{{ret, outl}, {}, 0};
            });
  }

  // The OpenSSH path: EVP_Cipher on whole blocks; (NULL, NULL, 0) is an
  // AEAD's final, (NULL, aad, n) its AAD.
  void evp_cipher(const Record& r) {
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
                       : aad_call
                           ? "EVP_Cipher(ctx, NULL, aad, " + std::to_string(len) + ")"
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
    const Outcome a = aead_ && decrypting() && !aad_call ? d_.both_decrypting("evp_cipher", call, f)
                                                         : d_.both("evp_cipher", call, f);
    if (!final_call && !aad_call && a.values[0] > 0) keep_output(Outcome{{}, a.bytes, len});
    if (final_call) d_.message_final("evp_cipher", a.values[0] < 0);
    if (final_call && !d_.unpredictable() && a.values[0] >= 0) stale_tag_ = false;
  }

  // A second final without a new init has its own name, to be skipped apart.
  void final(const Record&) {
    const char* op = finalised_ ? "final_again" : "final";
    if (!filter_->allows(op)) return;
    auto f = [&](int s) {
      Bytes out = canary(kSlack);
      int outl = -99;
      const int ret = EVP_CipherFinal_ex(ctx(s), out.data(), &outl);
      return Outcome{{ret, outl}, out, shown(outl, kSlack)};
    };
    const char* call = "EVP_CipherFinal_ex(ctx, out, &outl)";
    const Outcome a =
        aead_ && decrypting() ? d_.both_decrypting(op, call, f) : d_.both(op, call, f);
    if (a.values[0] == 1) finalised_ = true;
    if (a.shown > 0) keep_output(a);
    if (aead_) d_.message_final("final", a.values[0] <= 0);
    if (!d_.unpredictable() && a.values[0] > 0) stale_tag_ = false;
  }

  // Copies the context; continues on the copy, or (flag) on the original
  // after freeing the copy, which must not disturb it.
  void dup(const Record& r) {
    // OpenSSL 3.0's XTS copy of a context without a key schedule points the
    // copy at an unset one: the default provider crashes at the next
    // update. Not asked of either side.
    if (xts_ && !xts_keyed_) return;
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

  void reset(const Record&) {
    xts_keyed_ = iv_known_ = finalised_ = false;
    d_.both("reset", "EVP_CIPHER_CTX_reset(ctx)",
            [&](int s) { return value(EVP_CIPHER_CTX_reset(ctx(s))); });
  }

  const Target& t_;
  Differential& d_;
  std::array<CipherCtxPtr, 2> ctx_;
  std::array<Bytes, 2> tag_;  // each side's last tag, for set_tag
  Bytes last_out_;            // the last output (equal on both sides)
  Bytes key_;
  std::size_t key_len_ = 0, block_ = 1, tls_len_ = 0;
  bool aead_ = false, xts_ = false, gcm_ = false, xts_keyed_ = false, iv_known_ = false;
  bool stale_tag_ = false, finalised_ = false;
  const OpFilter* filter_ = nullptr;
};

const std::array<CipherSequence::Operation, 19> CipherSequence::kOperations = {{
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
}};

}  // namespace

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
