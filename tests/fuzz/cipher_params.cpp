// Cipher sequences' parameter arrays: up to four parameters at once, in an
// init (EVP hands the key and IV lengths to the context before the init,
// the rest after it) or through EVP_CIPHER_CTX_set_params; every gettable
// parameter read back with buffers of any size; EVP_CIPHER_CTX_set_key_length.
// The guards are those of cipher_ctrls.cpp: what would make OpenSSL 3.0's
// default provider write outside its context is asked of neither side.
#include <openssl/core_names.h>

#include <algorithm>
#include <string_view>

#include "cipher_sequence.hpp"

namespace cryptoaccel::fuzz {

namespace {

enum ParamKind {
  kKeyLen,
  kIvLen,
  kTag,
  kPadding,
  kNum,
  kTlsVersion,
  kTlsMacSize,
  kTlsAad,
  kTlsIvFixed,
  kTlsIvInv,
  kKinds
};

std::string param_text(const OSSL_PARAM& p, std::size_t size_value, unsigned uint_value) {
  std::string s = p.key;
  s += '=';
  // Appended piece by piece: GCC 12 reports a false -Wrestrict for
  // `"literal" + std::string` (GCC bug 105329).
  if (p.data_type == OSSL_PARAM_OCTET_STRING) {
    s += hex(static_cast<const unsigned char*>(p.data), p.data_size, 13);
    s += '[';
    s += std::to_string(p.data_size);
    s += ']';
  } else if (p.data_type == OSSL_PARAM_UNSIGNED_INTEGER && p.data_size == sizeof(unsigned))
    s += std::to_string(uint_value);
  else
    s += std::to_string(size_value);
  return s;
}

}  // namespace

void CipherSequence::build_params(const Record& r, bool new_context, bool with_iv,
                                  ParamSet& p) const {
  // The choices come from the record's seed, so its argument bytes stay
  // free for the operation that uses the set.
  const Bytes choice = derived_bytes(r.data_seed, 1 + ParamSet::kMax * 4, 11);
  const std::size_t wanted = 1 + choice[0] % ParamSet::kMax;
  // The IV length the provider holds once the set is applied (the
  // smaller of the old and new, whichever order it takes them in).
  // Asked of A's provider where there is a context: what the sequence
  // tracks misses what EVP hands over on its own (4.0's IV length).
  const bool fresh = new_context || EVP_CIPHER_CTX_get0_cipher(ctx(kSideA)) == nullptr;
  // An init's IV comes with the IV length EVP holds, which may be the
  // cipher's own again: the smallest counts.
  const int cipher_iv_length = EVP_CIPHER_get_iv_length(cipher(kSideA));
  int start_iv_length = fresh ? cipher_iv_length : std::min(iv_length_, provider_iv_length());
  // EVP's own may be stale (OpenSSL 4.0 keeps it when a set that changed
  // the provider's was refused).
  if (with_iv) {
    start_iv_length = std::min(start_iv_length, cipher_iv_length);
    if (!fresh)
      for (int s : {kSideA, kSideB})
        start_iv_length = std::min(start_iv_length, EVP_CIPHER_CTX_get_iv_length(ctx(s)));
  }
  int iv_length = start_iv_length;
  static constexpr int kIvLens[] = {12, 12, 0, 1, 7, 8, 11, 13, 16, 17, 128, 129};
  for (std::size_t i = 0; i < wanted; ++i) {
    const unsigned char* c = &choice[1 + i * 4];
    if (c[0] % kKinds == kIvLen)
      iv_length = std::min(iv_length, kIvLens[c[1] % std::size(kIvLens)]);
  }
  const bool record_iv_tried = !new_context && (tls_aad_tried_ || iv_fixed_tried_);
  // OpenSSL reads the first of two parameters of one name.
  bool keylen_seen = false, ivlen_seen = false;
  for (std::size_t i = 0; i < wanted; ++i) {
    const unsigned char* c = &choice[1 + i * 4];
    const std::size_t n = p.count;
    OSSL_PARAM& q = p.params[n];
    switch (c[0] % kKinds) {
      case kKeyLen: {
        static constexpr std::size_t kLens[] = {0, 1, 15, 16, 24, 32, 33, 64};
        p.sizes[n] = c[2] % 2 ? key_len_ : kLens[c[1] % std::size(kLens)];
        q = OSSL_PARAM_construct_size_t(OSSL_CIPHER_PARAM_KEYLEN, &p.sizes[n]);
        if (!keylen_seen) p.odd_length = p.odd_length || p.sizes[n] != key_len_;
        keylen_seen = true;
        break;
      }
      case kIvLen: {
        p.sizes[n] = static_cast<std::size_t>(kIvLens[c[1] % std::size(kIvLens)]);
        // As in set_ivlen(): after a TLS record's AAD or a fixed IV part,
        // an IV under 8 bytes makes OpenSSL 3.0 write in front of it.
        if (gcm_ && record_iv_tried && p.sizes[n] < 8) continue;
        q = OSSL_PARAM_construct_size_t(OSSL_CIPHER_PARAM_IVLEN, &p.sizes[n]);
        p.ivlen = true;
        if (!ivlen_seen)
          p.odd_length = p.odd_length || static_cast<int>(p.sizes[n]) != start_iv_length;
        ivlen_seen = true;
        break;
      }
      case kTag: {
        static constexpr std::size_t kLens[] = {16, 16, 0, 1, 4, 12, 13, 15, 17, 32};
        const std::size_t len = kLens[c[1] % std::size(kLens)];
        p.octets[n] = derived_bytes(r.data_seed, len, 12);
        if (c[2] % 2 && !tag_[kSideA].empty())
          std::copy_n(tag_[kSideA].begin(), std::min(len, tag_[kSideA].size()),
                      p.octets[n].begin());
        q = OSSL_PARAM_construct_octet_string(OSSL_CIPHER_PARAM_AEAD_TAG, p.octets[n].data(), len);
        p.tag = p.tag || len > 0;
        break;
      }
      case kPadding:
        p.uints[n] = c[1] % 2;
        q = OSSL_PARAM_construct_uint(OSSL_CIPHER_PARAM_PADDING, &p.uints[n]);
        break;
      case kNum: {
        // As in set_num(): 0..15 only.
        static constexpr unsigned kNums[] = {0, 1, 7, 15};
        p.uints[n] = kNums[c[1] % std::size(kNums)];
        q = OSSL_PARAM_construct_uint(OSSL_CIPHER_PARAM_NUM, &p.uints[n]);
        p.num = p.num || p.uints[n] != 0;
        break;
      }
      case kTlsVersion: {
        static constexpr unsigned kVersions[] = {0x303, 0x302, 0x301, 0x300, 0x304, 0};
        p.uints[n] = kVersions[c[1] % std::size(kVersions)];
        q = OSSL_PARAM_construct_uint(OSSL_CIPHER_PARAM_TLS_VERSION, &p.uints[n]);
        p.tls_version = p.tls_version || p.uints[n] != 0;
        p.tls_explicit_iv = p.tls_explicit_iv || p.uints[n] == 0x302 || p.uints[n] == 0x303;
        break;
      }
      case kTlsMacSize: {
        static constexpr std::size_t kSizes[] = {20, 32, 48, 0, 16, 64};
        p.sizes[n] = kSizes[c[1] % std::size(kSizes)];
        q = OSSL_PARAM_construct_size_t(OSSL_CIPHER_PARAM_TLS_MAC_SIZE, &p.sizes[n]);
        break;
      }
      case kTlsAad: {
        // As in tls_aad(): a GCM record takes 8 bytes from the IV's end.
        if (gcm_ && iv_length < 8) continue;
        static constexpr std::size_t kLens[] = {13, 13, 13, 12, 14, 0};
        static constexpr int kPayload[] = {0, 1, 8, 16, 24, 25, 40, 64, 100, 1000};
        const int payload = kPayload[c[2] % std::size(kPayload)];
        p.octets[n] = derived_bytes(r.data_seed, 16, 13);
        p.octets[n][8] = 0x17;
        p.octets[n][9] = 3;
        p.octets[n][10] = 3;
        p.octets[n][11] = static_cast<unsigned char>(payload >> 8);
        p.octets[n][12] = static_cast<unsigned char>(payload);
        q = OSSL_PARAM_construct_octet_string(OSSL_CIPHER_PARAM_AEAD_TLS1_AAD, p.octets[n].data(),
                                              kLens[c[1] % std::size(kLens)]);
        p.tls_aad = true;
        p.tls_payload = static_cast<std::size_t>(payload);
        break;
      }
      case kTlsIvFixed:
      case kTlsIvInv: {
        // As in iv_fixed() and iv_inv(): never longer than the IV.
        static constexpr int kLens[] = {0, 1, 4, 4, 8, 12, 12, 16};
        const int len = kLens[c[1] % std::size(kLens)];
        if (gcm_ && len > iv_length) continue;
        const bool fixed = c[0] % kKinds == kTlsIvFixed;
        p.octets[n] = derived_bytes(r.data_seed, static_cast<std::size_t>(len), fixed ? 14 : 15);
        q = OSSL_PARAM_construct_octet_string(
            fixed ? OSSL_CIPHER_PARAM_AEAD_TLS1_IV_FIXED : OSSL_CIPHER_PARAM_AEAD_TLS1_SET_IV_INV,
            p.octets[n].data(), static_cast<std::size_t>(len));
        p.iv_fixed = p.iv_fixed || fixed;
        break;
      }
    }
    if (!p.text.empty()) p.text += ", ";
    p.text += param_text(q, p.sizes[n], p.uints[n]);
    ++p.count;
  }
  p.params[p.count] = OSSL_PARAM_construct_end();
}

// What the sequence knows after a set was applied; where a set is refused
// part of it may have been taken, so that case assumes what is safe.
void CipherSequence::after_params(const ParamSet& p, bool ok) {
  if (p.tls_aad) tls_aad_tried_ = true;
  if (!aead_ && p.tls_version) tls_records_ = true;
  if (!aead_ && p.tls_explicit_iv) tls_explicit_iv_ = true;
  if (p.iv_fixed) iv_fixed_tried_ = true;
  if (gcm_ && (p.ivlen || p.iv_fixed) && have_cipher()) {
    iv_length_ = provider_iv_length();
    // A new IV length unsets the IV, a fixed part leaves the rest as it
    // was: an encryption draws the IV (or its rest) at random, and a
    // decryption keeps what an earlier one drew.
    iv_known_ = false;
    d_.set_unpredictable(true);
  }
  if (p.tls_aad) tls_len_ = ok ? p.tls_payload : 0;
  // A refused set may have taken its "tlsaad" before the parameter it refused.
  if (p.tls_aad) tls_aad_set_ = true;
  if (p.tls_aad && ok) {
    end_record_of_wrong_length();
  }
  if (ok && p.tag) chacha_tag_length_ = true;
  if (ctr_ && p.num) d_.documented("ctr_num_set");
  // A refused init leaves a new context without a key (see init()).
  if (!ok && chacha_poly_ && !chacha_keyed_) d_.documented("chacha20_poly1305_without_key", true);
}

void CipherSequence::init_params(const Record& r) {
  ParamSet p;
  build_params(r, starts_context(r), gives_iv(r), p);
  init_with(r, &p);
}

void CipherSequence::set_params(const Record& r) {
  if (!have_cipher()) return;
  ParamSet p;
  build_params(r, false, false, p);
  const Outcome a =
      d_.both("set_params", std::string("EVP_CIPHER_CTX_set_params(ctx, {").append(p.text) + "})",
              [&](int s) { return value(EVP_CIPHER_CTX_set_params(ctx(s), p.params.data())); });
  after_params(p, a.values[0] == 1);
}

void CipherSequence::get_params(const Record& r) {
  if (!have_cipher()) return;
  // The TLS MAC is read by add_tls_mac(), right after the update it
  // points into.
  enum Kind { kOctets, kSize, kUint };
  struct Gettable {
    const char* name;
    Kind kind;
  };
  static constexpr Gettable kGettable[] = {
      {OSSL_CIPHER_PARAM_IV, kOctets},
      {OSSL_CIPHER_PARAM_UPDATED_IV, kOctets},
      {OSSL_CIPHER_PARAM_AEAD_TAG, kOctets},
      {OSSL_CIPHER_PARAM_AEAD_TLS1_GET_IV_GEN, kOctets},
      {OSSL_CIPHER_PARAM_KEYLEN, kSize},
      {OSSL_CIPHER_PARAM_IVLEN, kSize},
      {OSSL_CIPHER_PARAM_AEAD_TAGLEN, kSize},
      {OSSL_CIPHER_PARAM_AEAD_TLS1_AAD_PAD, kSize},
      {OSSL_CIPHER_PARAM_NUM, kUint},
      {OSSL_CIPHER_PARAM_PADDING, kUint},
  };
  static constexpr std::size_t kSizes[] = {16, 16, 12, 0, 1, 8, 15, 17, 32, 128};
  const Gettable& g = r.pick(0, kGettable);
  const std::string_view name = g.name;
  const std::size_t size = r.pick(1, kSizes);
  // As in iv_gen(): the next IV counts the last 8 bytes of the IV up.
  if (gcm_ && name == OSSL_CIPHER_PARAM_AEAD_TLS1_GET_IV_GEN && iv_length_now() < 8) return;
  std::string call = "EVP_CIPHER_CTX_get_params(ctx, {";
  call += g.name;
  if (g.kind == kOctets) {
    call += '[';
    call += std::to_string(size);
    call += ']';
  }
  call += "})";
  auto f = [&](int s) {
    // OpenSSL 3.0 writes the whole IV for a next IV asked with size 0.
    Bytes buf = canary(std::max(size, kCtrlBuffer) + kSlack);
    std::size_t size_value = 0xa5a5;
    unsigned uint_value = 0xa5a5;
    OSSL_PARAM q[2];
    switch (g.kind) {
      case kOctets:
        q[0] = OSSL_PARAM_construct_octet_string(g.name, buf.data(), size);
        break;
      case kSize:
        q[0] = OSSL_PARAM_construct_size_t(g.name, &size_value);
        break;
      case kUint:
        q[0] = OSSL_PARAM_construct_uint(g.name, &uint_value);
        break;
    }
    q[1] = OSSL_PARAM_construct_end();
    const int ret = EVP_CIPHER_CTX_get_params(ctx(s), q);
    const bool modified = OSSL_PARAM_modified(&q[0]) != 0;
    const long long returned = modified ? static_cast<long long>(q[0].return_size) : -1;
    switch (g.kind) {
      case kOctets:
        return Outcome{{ret, returned}, buf, ret == 1 ? shown(returned, size) : 0};
      case kSize:
        return Outcome{{ret, ret == 1 ? static_cast<long long>(size_value) : 0}, {}, 0};
      case kUint:
        break;
    }
    return Outcome{{ret, ret == 1 ? static_cast<long long>(uint_value) : 0}, {}, 0};
  };
  // A tag made under an IV each side drew at random differs (get_tag()).
  const bool was = d_.unpredictable();
  if (stale_tag_ && name == OSSL_CIPHER_PARAM_AEAD_TAG) d_.set_unpredictable(true);
  const Outcome a = d_.both("get_params", call, f);
  d_.set_unpredictable(was);
  if (name == OSSL_CIPHER_PARAM_AEAD_TAG && a.values[0] == 1 && a.shown > 0)
    tag_[kSideA].assign(a.bytes.begin(), a.bytes.begin() + static_cast<long>(a.shown));
}

void CipherSequence::add_tls_mac(int s, std::size_t len, Outcome& o) const {
  if (!tls_records_ || !decrypting()) return;
  void* mac = nullptr;
  OSSL_PARAM q[] = {OSSL_PARAM_construct_octet_ptr(OSSL_CIPHER_PARAM_TLS_MAC, &mac, 0),
                    OSSL_PARAM_construct_end()};
  const int ret = EVP_CIPHER_CTX_get_params(ctx(s), q);
  const bool got = ret == 1 && OSSL_PARAM_modified(&q[0]) && mac != nullptr;
  o.values.push_back(got ? static_cast<long long>(q[0].return_size) : -ret);
  if (!got || o.values.size() < 2) return;
  // Where the padding is bad, OpenSSL hands out a random MAC (so that the
  // record fails its MAC check in constant time). The padding was good
  // where more came off than the MAC and, in TLS 1.1+, the explicit IV: a
  // record of `len` bytes gives `outl` bytes of data. Whether a block less
  // is bad padding with an explicit IV or a block of good padding without
  // one cannot be told: those bytes are not compared.
  const long long rest = static_cast<long long>(len) - o.values[1] -
                         static_cast<long long>(q[0].return_size);
  if (rest <= 0 || rest == static_cast<long long>(block_)) return;
  const auto* bytes = static_cast<const unsigned char*>(mac);
  for (std::size_t i = 0; i < q[0].return_size && i < 64; ++i) o.values.push_back(bytes[i]);
}

void CipherSequence::set_key_length(const Record& r) {
  if (!have_cipher()) return;
  static constexpr int kLens[] = {-1, 0, 1, 15, 16, 24, 32, 33, 64};
  const int len = r.flag(1) ? static_cast<int>(key_len_) : r.pick(0, kLens);
  const Outcome a = d_.both(
      "set_key_length", "EVP_CIPHER_CTX_set_key_length(ctx, " + std::to_string(len) + ")",
      [&](int s) { return value(EVP_CIPHER_CTX_set_key_length(ctx(s), len)); });
  if (a.values[0] == 1 && len > 0) key_len_ = static_cast<std::size_t>(len);
}

}  // namespace cryptoaccel::fuzz
