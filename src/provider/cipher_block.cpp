// ECB, CBC, CTR and XTS ciphers (AES, DES, 3DES) and ChaCha20: EVP's
// update/final contract on top of a streaming CipherSession. ECB and CBC
// buffer partial blocks and apply PKCS#7 padding unless it is turned off; CBC
// also serves libssl's TLS records (tls_cbc.hpp). CTR keeps OpenSSL's `num`
// (ChaCha20 counts it too, but, like OpenSSL's, takes none); XTS takes one
// data unit per update, as OpenSSL's does.
#include <openssl/core_dispatch.h>
#include <openssl/core_names.h>
#include <openssl/params.h>
#include <openssl/rand.h>

#include <algorithm>
#include <array>
#include <memory>
#include <new>
#include <optional>
#include <string>
#include <vector>

#include "async_burst.hpp"
#include "block_cipher_ctx.hpp"
#include "cipher_common.hpp"
#include "cipher_families.hpp"
#include "errors.hpp"
#include "function_tables.hpp"
#include "openssl_default.hpp"
#include "tls_cbc.hpp"

namespace cryptoaccel::provider {
namespace {

CipherSession open_cipher(ProviderContext& pc, const Algorithm& a, Bytes key) {
  return CipherSession(a.name, key, pc.session_options());
}

}  // namespace

BlockCipherCtx::BlockCipherCtx(const BlockCipherCtx& other)
    : pc_(other.pc_),
      alg_(other.alg_),
      key_(other.key_),
      encrypt_(other.encrypt_),
      padding_(other.padding_),
      iv_set_(other.iv_set_),
      chacha_block_kept_(other.chacha_block_kept_),
      iv_(other.iv_),
      chain_(other.chain_),
      num_(other.num_),
      buf_(other.buf_),
      buf_len_(other.buf_len_),
      tls_version_(other.tls_version_),
      tls_mac_size_(other.tls_mac_size_),
      tls_mac_taken_(other.tls_mac_taken_),
      tls_mac_(other.tls_mac_) {
  if (other.openssl_xts_) {
    openssl_xts_.reset(EVP_CIPHER_CTX_new());
    if (!openssl_xts_ || EVP_CIPHER_CTX_copy(openssl_xts_.get(), other.openssl_xts_.get()) != 1)
      throw DriverFailure("cannot copy OpenSSL's XTS context");
  } else if (!key_.empty()) {
    session_.emplace(open_cipher(*pc_, alg_, key_.span()));
    if (other.started_) restart(num_);
  }
}

BlockCipherCtx::~BlockCipherCtx() {
  secure_wipe(buf_.data(), buf_.size());
  secure_wipe(chain_.data(), chain_.size());
}

// As OpenSSL's generic ciphers: a NULL key keeps the key, a NULL IV keeps
// the running state except that CBC goes back to the IV last given (as
// 1.1.1 did) and CTR continues its counter from the next whole block.
// ChaCha20 continues exactly where it stood, or, as OpenSSL's does, from
// the start of the current block when only the key changes.
int BlockCipherCtx::init(bool encrypt, const std::uint8_t* key, std::size_t keylen,
                         const std::uint8_t* iv, std::size_t ivlen, const OSSL_PARAM params[]) {
  encrypt_ = encrypt;
  const bool chacha = alg_.mode == CipherMode::chacha20;
  if (alg_.mode == CipherMode::ctr && num_ != 0) advance_counter(alg_, chain_, 1);
  if (chacha && key != nullptr && iv == nullptr) {
    if (pc_->openssl_default().contract().chacha20_started_block_counted) {
      if (num_ != 0) advance_counter(alg_, chain_, 1);  // the block begun is spent
    } else if (chacha_block_kept_) {
      step_chacha_back(chain_);
    }
  }
  // An init with neither leaves OpenSSL's ChaCha20 where it stood.
  if (key != nullptr || iv != nullptr) chacha_block_kept_ = false;
  if (!chacha || iv != nullptr || key != nullptr) num_ = 0;
  buf_len_ = 0;
  started_ = false;
  // OpenSSL has taken the direction and dropped what was held back (and
  // the rest of a CTR keystream block) before it refuses an IV or key
  // length (OpenSSL 4.0's EVP passes the lengths a parameter set named),
  // and the IV before it refuses a key: the stream restarts from there.
  try {
    take_iv_and_key(encrypt, key, keylen, iv, ivlen);
  } catch (...) {
    if (session_) restart(num_);
    throw;
  }
  // The key and IV stand even when a parameter is refused, as in OpenSSL.
  const int ok = set_params(params);
  if (session_) restart(num_);
  return ok;
}

void BlockCipherCtx::take_iv_and_key(bool encrypt, const std::uint8_t* key, std::size_t keylen,
                                     const std::uint8_t* iv, std::size_t ivlen) {
  if (iv != nullptr && alg_.iv_size != 0) {
    if (ivlen != alg_.iv_size)
      throw InvalidIvLength(std::string(alg_.name) + " takes a " + std::to_string(alg_.iv_size) +
                            "-byte IV, not " + std::to_string(ivlen));
    std::copy(iv, iv + ivlen, iv_.begin());
    chain_ = iv_;
    iv_set_ = true;
  } else if (alg_.mode == CipherMode::cbc && iv_set_) {
    chain_ = iv_;
  }
  if (key == nullptr) return;
  check_key_length(alg_, keylen);
  const Bytes k(key, keylen);
  if (alg_.mode == CipherMode::xts && !encrypt && halves_equal(k)) {
    open_openssl_xts(k);
  } else if (!session_ || !key_.equals(k)) {
    // Re-keying with the same key (speed's GCM loop, libssl) keeps the
    // session and its key schedule.
    // A key refused (XTS halves equal, to encrypt) leaves the old one,
    // as in OpenSSL.
    CipherSession fresh = open_cipher(*pc_, alg_, k);
    openssl_xts_.reset();
    session_.emplace(std::move(fresh));
    key_.assign(k);
  }
}

// OSSL_FUNC_CIPHER_CIPHER, what EVP_Cipher() calls (OpenSSH per packet):
// the raw mode over `in` with no padding or buffering, as OpenSSL's
// generic cipher; a CTR stream continues where it stood.
int BlockCipherCtx::cipher(std::uint8_t* out, std::size_t* outl, std::size_t outsz,
                           const std::uint8_t* in, std::size_t inl) {
  if (alg_.mode == CipherMode::xts) return update(out, outl, outsz, in, inl);
  if (!session_) [[unlikely]]
    return not_initialised();
  if (outsz < inl) [[unlikely]]
    return too_small(inl, outsz);
  std::size_t n = inl;
  if (alg_.mode == CipherMode::ecb || alg_.mode == CipherMode::cbc)
    n = inl / alg_.block_size * alg_.block_size;
  if (n != 0) {
    if (keystream()) {
      session_->update({in, n}, {out, n});
      advance_stream(n);
    } else {
      run(in, out, n);
    }
  }
  // OpenSSL's raw CBC encrypts a trailing partial block as if padded with
  // zeros and writes the whole block (EVP_Cipher leaves room for it).
  if (alg_.mode == CipherMode::cbc && encrypt_ && n != inl) {
    const std::size_t bs = alg_.block_size;
    if (outsz < n + bs) return too_small(n + bs, outsz);
    std::array<std::uint8_t, kMaxBlock> last{};
    std::copy(in + n, in + inl, last.begin());
    run(last.data(), out + n, bs);
  }
  // Decrypting, it writes the partial block's bytes too, from a whole block
  // read where the partial one starts (past the input); here the bytes past
  // the input are taken as zeros, never read, and every byte counted in the
  // result is written.
  if (alg_.mode == CipherMode::cbc && !encrypt_ && n != inl) {
    const std::size_t bs = alg_.block_size;
    std::array<std::uint8_t, kMaxBlock> last{}, plain{};
    std::copy(in + n, in + inl, last.begin());
    run(last.data(), plain.data(), bs);
    std::copy(plain.begin(), plain.begin() + static_cast<std::ptrdiff_t>(inl - n), out + n);
    secure_wipe(plain.data(), plain.size());
  }
  *outl = inl;
  return 1;
}

int BlockCipherCtx::update(std::uint8_t* out, std::size_t* outl, std::size_t outsz,
                           const std::uint8_t* in, std::size_t inl) {
  if (!session_ && !openssl_xts_) [[unlikely]]
    return not_initialised();
  switch (alg_.mode) {
    case CipherMode::ctr:
    case CipherMode::chacha20:
      if (outsz < inl) [[unlikely]]
        return too_small(inl, outsz);
      session_->update({in, inl}, {out, inl});
      advance_stream(inl);
      if (tls_version_ != 0 && !encrypt_ && inl != 0 && alg_.mode == CipherMode::ctr)
        return tls_stream_open(out, outl, inl);
      *outl = inl;
      return 1;
    case CipherMode::xts:
      if (outsz < inl) [[unlikely]]
        return too_small(inl, outsz);
      // OpenSSL refuses to run XTS with no tweak rather than use zeros.
      if (!iv_set_) [[unlikely]] {
        CRYPTOACCEL_RAISE(pc_, kReasonNotInitialised, "cryptoaccel: %s: no tweak (IV) set",
                          std::string(alg_.name).c_str());
        return 0;
      }
      if (openssl_xts_) return openssl_xts(out, outl, in, inl);
      if (encrypt_)
        session_->encrypt({iv_.data(), alg_.iv_size}, {in, inl}, {out, inl});
      else
        session_->decrypt({iv_.data(), alg_.iv_size}, {in, inl}, {out, inl});
      *outl = inl;
      return 1;
    default:
      if (tls_version_ != 0) {  // ECB and CBC: OpenSSL's block ciphers
        // A record is sealed or opened in place, padded, as OpenSSL's
        // record code asks; anything else is refused, as there.
        if (in == nullptr || in != out || outsz < inl || !padding_) [[unlikely]] {
          CRYPTOACCEL_RAISE(pc_, kReasonOperationFailed,
                            "cryptoaccel: %s: a TLS record is processed in place, padded",
                            std::string(alg_.name).c_str());
          return 0;
        }
        return encrypt_ ? tls_seal(out, outl, outsz, in, inl) : tls_open(out, outl, outsz, in, inl);
      }
      return block_update(out, outl, outsz, in, inl);
  }
}

int BlockCipherCtx::final(std::uint8_t* out, std::size_t* outl, std::size_t outsz) {
  *outl = 0;
  if (alg_.mode == CipherMode::xts) return 1;  // OpenSSL's XTS final checks nothing
  if (!session_) [[unlikely]]
    return not_initialised();
  if (alg_.mode != CipherMode::ecb && alg_.mode != CipherMode::cbc) return 1;
  if (tls_version_ != 0) {  // a TLS record is never finalised
    CRYPTOACCEL_RAISE(pc_, kReasonOperationFailed, "cryptoaccel: %s: final after a TLS record",
                      alg_.name.data());
    return 0;
  }
  const std::size_t bs = alg_.block_size;
  if (!padding_) {
    if (buf_len_ == 0) return 1;
    if (buf_len_ != bs) return wrong_final_block();
    // A whole block held back while padding was on goes out as it is.
    if (outsz < bs) return too_small(bs, outsz);
    run(buf_.data(), out, bs);
    buf_len_ = 0;
    *outl = bs;
    return 1;
  }
  if (encrypt_) {
    if (outsz < bs) return too_small(bs, outsz);
    const std::size_t pad = bs - buf_len_;
    std::fill(buf_.begin() + buf_len_, buf_.begin() + bs, static_cast<std::uint8_t>(pad));
    run(buf_.data(), out, bs);
    buf_len_ = 0;
    *outl = bs;
    return 1;
  }
  if (buf_len_ != bs) return wrong_final_block();
  std::array<std::uint8_t, kMaxBlock> last{};
  run(buf_.data(), last.data(), bs);
  const std::size_t pad = last[bs - 1];
  bool good = pad >= 1 && pad <= bs;
  for (std::size_t i = 0; good && i < pad; ++i) good = last[bs - 1 - i] == pad;
  if (!good) {
    // OpenSSL decrypts its held-back block in place and keeps it after a
    // padding failure: a later update goes on from there.
    std::copy(last.begin(), last.begin() + static_cast<std::ptrdiff_t>(bs), buf_.begin());
    secure_wipe(last.data(), last.size());
    CRYPTOACCEL_RAISE(pc_, kReasonBadPadding, "cryptoaccel: %s: bad decrypt (wrong padding)",
                      std::string(alg_.name).c_str());
    return 0;
  }
  buf_len_ = 0;
  if (outsz < bs - pad) {
    secure_wipe(last.data(), last.size());
    return too_small(bs - pad, outsz);
  }
  std::copy(last.begin(), last.begin() + static_cast<std::ptrdiff_t>(bs - pad), out);
  secure_wipe(last.data(), last.size());
  *outl = bs - pad;
  return 1;
}

// ChaCha20's block counter (little-endian, 32 bits carrying into the next
// 32 as OpenSSL's does), one block back.
void BlockCipherCtx::step_chacha_back(std::array<std::uint8_t, 16>& iv) {
  for (std::size_t i = 0; i < 8; ++i)
    if (iv[i]-- != 0) break;
}

// A big-endian 128-bit counter, one block back.
void BlockCipherCtx::step_counter_back(std::array<std::uint8_t, 16>& counter) {
  for (std::size_t i = counter.size(); i-- > 0;)
    if (counter[i]-- != 0) break;
}

bool BlockCipherCtx::halves_equal(Bytes key) {
  return constant_time_equal(key.first(key.size() / 2), key.last(key.size() / 2));
}

// IEEE 1619 forbids an XTS key whose halves are equal, and no driver takes
// one; OpenSSL refuses it only to encrypt, so that data written under such
// a key can still be read. Its own XTS decrypts it here.
void BlockCipherCtx::open_openssl_xts(Bytes key) {
  session_.reset();
  key_.assign(key);
  openssl_xts_.reset(EVP_CIPHER_CTX_new());
  if (!openssl_xts_) throw std::bad_alloc();
  if (EVP_CipherInit_ex2(openssl_xts_.get(), pc_->openssl_default().cipher(alg_), key.data(),
                         nullptr, 0, nullptr) != 1)
    throw DriverFailure("OpenSSL's default provider refused the XTS key");
}

int BlockCipherCtx::openssl_xts(std::uint8_t* out, std::size_t* outl, const std::uint8_t* in,
                                std::size_t inl) {
  if (EVP_CipherInit_ex2(openssl_xts_.get(), nullptr, nullptr, iv_.data(), encrypt_ ? 1 : 0,
                         nullptr) != 1 ||
      EVP_Cipher(openssl_xts_.get(), out, in, static_cast<unsigned>(inl)) < 0) {
    CRYPTOACCEL_RAISE(pc_, kReasonOperationFailed, "cryptoaccel: %s: cipher operation failed",
                      alg_.name.data());
    return 0;
  }
  pc_->openssl_default().count(std::string(alg_.name), inl);
  *outl = inl;
  return 1;
}

// CTR and ChaCha20: chain_ is the counter block that holds the stream's
// position and num_ the bytes used of it; OpenSSL's CTR "updated-iv" is
// the next block to generate, chain_ + 1 when num_ is not 0.
bool BlockCipherCtx::keystream() const noexcept {
  return alg_.mode == CipherMode::ctr || alg_.mode == CipherMode::chacha20;
}

void BlockCipherCtx::advance_stream(std::size_t n) {
  if (n == 0) return;  // OpenSSL's ChaCha20 and CTR leave their state as it is
  // OpenSSL's ChaCha20 leaves a block that an update finishes exactly
  // where it started mid-block as its current one (its position at the
  // end of that block): a key-only re-init then starts that block again.
  chacha_block_kept_ =
      alg_.mode == CipherMode::chacha20 && num_ != 0 && num_ + n == alg_.block_size;
  advance_counter(alg_, chain_, (num_ + n) / alg_.block_size);
  num_ = (num_ + n) % alg_.block_size;
}

// (Re)starts the session's stream at chain_, `skip` bytes into the
// current CTR or ChaCha20 block.
void BlockCipherCtx::restart(std::size_t skip) {
  if (alg_.mode == CipherMode::xts) return;
  session_->begin(encrypt_ ? Direction::encrypt : Direction::decrypt,
                  {chain_.data(), alg_.iv_size});
  started_ = true;
  if (skip != 0 && keystream()) {
    std::array<std::uint8_t, 64> scratch{};  // up to a ChaCha20 block
    session_->update({scratch.data(), skip}, {scratch.data(), skip});
    secure_wipe(scratch.data(), scratch.size());
  }
}

// Below this a request runs at once even inside an ASYNC job: its wait
// for a burst (a pause, a resume, the eventfd write and the application's
// select: about 290 ns with no cipher, bench/async_floor) costs more than
// 16 lanes give back. Measured with openssl speed -async_jobs 16
// (docs/performance.md): 0.40 of the default provider at 256 B, about even
// at 1 KiB, 2.6 at 4 KiB.
constexpr std::size_t kMinGatheredRequest = 1024;
// Queued requests up to this size are copied to the job's stack.
constexpr std::size_t kSmallBurstRequest = 4096;

bool BlockCipherCtx::run_in_burst(const std::uint8_t* in, std::uint8_t* out, std::size_t n) {
  const std::size_t bs = alg_.block_size;
  std::array<std::uint8_t, kMaxBlock> next;
  if (!encrypt_) std::copy(in + n - bs, in + n, next.begin());  // in and out may be one buffer
  // The queued request owns its bytes and its IV, copied to `out` once the
  // job is back: another job's burst may run it after the application has
  // abandoned this one and freed `in`, `out` and this context. The copies
  // live as long as the job's stack does (for ever, if it is abandoned).
  // Up to a few KiB on the job's stack (32 KiB): no allocation per request.
  // Larger ones on the heap, not zeroed first: the copy fills them.
  std::array<std::uint8_t, kSmallBurstRequest> small;
  std::unique_ptr<std::uint8_t[]> large;
  if (n > small.size()) large = std::make_unique_for_overwrite<std::uint8_t[]>(n);
  const MutableBytes bytes(n > small.size() ? large.get() : small.data(), n);
  std::copy(in, in + n, bytes.begin());
  const auto iv = chain_;
  Request r{.op = encrypt_ ? Operation::encrypt : Operation::decrypt,
            .iv = {iv.data(), bs},
            .in = bytes,
            .out = bytes};
  if (!provider::run_in_burst(*session_, r)) return false;
  if (r.status != ErrorCode::ok)
    throw_error(r.status, std::string(alg_.name) + ": " + std::string(to_string(r.status)));
  std::copy(bytes.begin(), bytes.end(), out);
  if (encrypt_)
    std::copy(out + n - bs, out + n, chain_.begin());
  else
    std::copy(next.begin(), next.begin() + static_cast<std::ptrdiff_t>(bs), chain_.begin());
  // The session's stream goes on from the new chain.
  session_->begin(encrypt_ ? Direction::encrypt : Direction::decrypt, {chain_.data(), bs});
  return true;
}

// One streamed request, keeping the CBC chain for dupctx and "updated-iv".
void BlockCipherCtx::run(const std::uint8_t* in, std::uint8_t* out, std::size_t n) {
  const std::size_t bs = alg_.block_size;
  if (alg_.mode == CipherMode::cbc && n >= kMinGatheredRequest && pc_->config().gather &&
      run_in_burst(in, out, n))
    return;
  if (alg_.mode == CipherMode::cbc && !encrypt_) {
    std::array<std::uint8_t, kMaxBlock> next;
    std::copy(in + n - bs, in + n, next.begin());
    session_->update({in, n}, {out, n});
    std::copy(next.begin(), next.begin() + static_cast<std::ptrdiff_t>(bs), chain_.begin());
    return;
  }
  session_->update({in, n}, {out, n});
  if (alg_.mode == CipherMode::cbc) std::copy(out + n - bs, out + n, chain_.begin());
}

int BlockCipherCtx::block_update(std::uint8_t* out, std::size_t* outl, std::size_t outsz,
                                 const std::uint8_t* in, std::size_t inl) {
  const std::size_t bs = alg_.block_size;
  const std::size_t total = buf_len_ + inl;
  std::size_t n = total / bs * bs;
  // Decryption with padding keeps the last whole block for final().
  if (!encrypt_ && padding_ && n == total && n != 0) n -= bs;
  if (outsz < n) [[unlikely]]
    return too_small(n, outsz);
  std::size_t done = 0;
  if (n != 0 && buf_len_ != 0) {
    const std::size_t fill = bs - buf_len_;
    std::copy(in, in + fill, buf_.begin() + static_cast<std::ptrdiff_t>(buf_len_));
    run(buf_.data(), out, bs);
    in += fill;
    inl -= fill;
    buf_len_ = 0;
    done = bs;
  }
  if (n > done) {
    run(in, out + done, n - done);
    in += n - done;
    inl -= n - done;
  }
  std::copy(in, in + inl, buf_.begin() + static_cast<std::ptrdiff_t>(buf_len_));
  buf_len_ += inl;
  *outl = n;
  return 1;
}

// libssl passes explicit IV block || payload || MAC; we pad and encrypt.
int BlockCipherCtx::tls_seal(std::uint8_t* out, std::size_t* outl, std::size_t outsz,
                             const std::uint8_t* in, std::size_t inl) {
  const std::size_t bs = alg_.block_size;
  const std::size_t padded = inl + (bs - inl % bs);
  if (outsz < padded) return too_small(padded, outsz);
  tls_mac_taken_ = false;
  if (out != in) std::memmove(out, in, inl);
  tls_cbc_pad(out, inl, bs, tls_version_);
  run(out, out, padded);
  *outl = padded;
  return 1;
}

// Decrypts the record in place (or into `out`), then removes the explicit
// IV, padding and MAC in constant time; libssl reads the MAC through the
// "tls-mac" parameter and compares it.
int BlockCipherCtx::tls_open(std::uint8_t* out, std::size_t* outl, std::size_t outsz,
                             const std::uint8_t* in, std::size_t inl) {
  const std::size_t bs = alg_.block_size;
  if (inl % bs != 0) {
    CRYPTOACCEL_RAISE(pc_, static_cast<int>(ErrorCode::invalid_length),
                      "cryptoaccel: TLS record of %zu bytes is not whole blocks", inl);
    return 0;
  }
  // The last record's MAC is gone from here on, as in OpenSSL.
  tls_mac_taken_ = false;
  if (inl == 0) {
    CRYPTOACCEL_RAISE(pc_, static_cast<int>(ErrorCode::invalid_length),
                      "cryptoaccel: empty TLS record");
    return 0;
  }
  if (outsz < inl) return too_small(inl, outsz);
  run(in, out, inl);
  const TlsCbcRecord record =
      tls_cbc_unpad(out, inl, bs, tls_version_, tls_mac_size_, tls_mac_.data());
  tls_mac_taken_ = record.publicly_valid && tls_mac_size_ != 0;
  if (!record.publicly_valid) {
    CRYPTOACCEL_RAISE(pc_, static_cast<int>(ErrorCode::invalid_length),
                      "cryptoaccel: TLS record of %zu bytes is too short", inl);
    return 0;
  }
  // Under encrypt-then-MAC the MAC was checked before decryption, so bad
  // padding may fail here openly.
  if (tls_mac_size_ == 0 && !record.padding_good) {
    CRYPTOACCEL_RAISE(pc_, kReasonBadPadding, "cryptoaccel: TLS record with bad padding");
    return 0;
  }
  *outl = record.payload;
  return 1;
}

// A stream cipher's TLS record (OpenSSL's generic stream ciphers, CTR
// here), decrypted in full: its last tls-mac-size bytes are the MAC.
int BlockCipherCtx::tls_stream_open(const std::uint8_t* out, std::size_t* outl, std::size_t inl) {
  *outl = inl;
  if (tls_mac_size_ == 0) return 1;
  if (inl < tls_mac_size_) {
    CRYPTOACCEL_RAISE(pc_, static_cast<int>(ErrorCode::invalid_length),
                      "cryptoaccel: TLS record of %zu bytes is shorter than its MAC", inl);
    return 0;
  }
  *outl = inl - tls_mac_size_;
  std::copy(out + *outl, out + inl, tls_mac_.begin());
  tls_mac_taken_ = true;
  return 1;
}

int BlockCipherCtx::not_initialised() const {
  CRYPTOACCEL_RAISE(pc_, kReasonNotInitialised, "cryptoaccel: %s: no key set",
                    std::string(alg_.name).c_str());
  return 0;
}

int BlockCipherCtx::too_small(std::size_t need, std::size_t have) const {
  CRYPTOACCEL_RAISE(pc_, kReasonOutputTooSmall,
                    "cryptoaccel: %s: output needs %zu bytes, buffer has %zu",
                    std::string(alg_.name).c_str(), need, have);
  return 0;
}

int BlockCipherCtx::wrong_final_block() const {
  CRYPTOACCEL_RAISE(pc_, kReasonWrongFinalBlock,
                    "cryptoaccel: %s: %zu bytes left over, not a whole block",
                    std::string(alg_.name).c_str(), buf_len_);
  return 0;
}

int BlockCipherCtx::bad_param(const OSSL_PARAM* p) const {
  CRYPTOACCEL_RAISE(pc_, kReasonBadParameter, "cryptoaccel: cannot return parameter '%s'", p->key);
  return 0;
}

namespace {

template <AlgorithmId Id>
const OSSL_PARAM* settable_ctx_params(void*, void*) {
  return block_cipher_settable_ctx_params(algorithm(Id).mode);
}

template <AlgorithmId Id>
using BlockCipherTable =
    CipherTable<BlockCipherCtx, Id, &block_cipher_gettable_ctx_params, &settable_ctx_params<Id>>;

}  // namespace

const OSSL_DISPATCH* block_cipher_functions(AlgorithmId id) {
  return table_of<BlockCipherTable>(id);
}

}  // namespace cryptoaccel::provider
