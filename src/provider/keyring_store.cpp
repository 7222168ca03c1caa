// The `cryptoaccel-keyring:` store (keyring_store.hpp). The URI is the
// scheme and a file name: `cryptoaccel-keyring:/etc/ssl/private/server.key`
// or a relative name. The file holds one RSA private key in PEM or DER
// (PKCS#8, encrypted PKCS#8 or PKCS#1); the store yields that key, kept in
// the kernel keyring whatever key_storage says, or fails saying why.
#include "keyring_store.hpp"

#include <openssl/core_names.h>
#include <openssl/core_object.h>
#include <openssl/decoder.h>
#include <openssl/evp.h>
#include <openssl/params.h>
#include <openssl/store.h>
#include <openssl/x509.h>

#include <array>
#include <bit>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <string>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cryptoaccel/driver/secret_bytes.hpp"
#include "errors.hpp"
#include "function_tables.hpp"
#include "rsa_provider.hpp"

namespace cryptoaccel::provider {
namespace {

// A key file is small: this bounds what a wrong name (a log, a device)
// makes the store read.
constexpr std::size_t kMaxKeyFile = 1 << 20;

// Bytes of a key in any form, wiped when they go.
struct WipedBytes {
  std::vector<std::uint8_t> bytes;
  WipedBytes() = default;
  WipedBytes(const WipedBytes&) = delete;
  WipedBytes& operator=(const WipedBytes&) = delete;
  ~WipedBytes() { secure_wipe(bytes.data(), bytes.capacity()); }
};

// ---- references handed to OpenSSL -------------------------------------

// What OSSL_OBJECT_PARAM_REFERENCE carries: a serial, looked up in a table,
// so that the key management never follows a pointer from outside.
struct Reference {
  std::uint64_t magic;
  std::uint64_t serial;
};
constexpr std::uint64_t kReferenceMagic = 0x63612d6b65797269;  // "ca-keyri"

std::mutex g_pending_mutex;
std::uint64_t g_next_serial = 1;
std::map<std::uint64_t, std::unique_ptr<RsaKeyObject>>& pending() {
  static auto* keys = new std::map<std::uint64_t, std::unique_ptr<RsaKeyObject>>;
  return *keys;
}

Reference hand_out(std::unique_ptr<RsaKeyObject> key) {
  const std::lock_guard lock(g_pending_mutex);
  const Reference reference{kReferenceMagic, g_next_serial++};
  pending().emplace(reference.serial, std::move(key));
  return reference;
}

// Drops the key if the key management did not take it.
void withdraw(const Reference& reference) noexcept {
  std::unique_ptr<RsaKeyObject> untaken;
  const std::lock_guard lock(g_pending_mutex);
  auto it = pending().find(reference.serial);
  if (it == pending().end()) return;
  untaken = std::move(it->second);
  pending().erase(it);
}

// ---- reading the key ----------------------------------------------------

struct PkeyFree {
  void operator()(EVP_PKEY* p) const noexcept { EVP_PKEY_free(p); }
};
using PkeyPtr = std::unique_ptr<EVP_PKEY, PkeyFree>;
struct DecoderFree {
  void operator()(OSSL_DECODER_CTX* c) const noexcept { OSSL_DECODER_CTX_free(c); }
};

std::string system_error(const std::string& path, const char* what) {
  return std::string("cryptoaccel-keyring: ") + what + " " + path + ": " + std::strerror(errno);
}

void read_file(const std::string& path, WipedBytes& out) {
  // O_NONBLOCK: a FIFO, a terminal or a device named here must not leave
  // the program waiting for a writer; only a regular file is read.
  struct ClosedAtExit {
    int fd;
    ~ClosedAtExit() { ::close(fd); }
  };
  const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
  if (fd < 0) throw InvalidArgument(system_error(path, "cannot open"));
  const ClosedAtExit closer{fd};
  struct stat status {};
  if (::fstat(fd, &status) != 0) throw InvalidArgument(system_error(path, "cannot stat"));
  if (!S_ISREG(status.st_mode))
    throw InvalidArgument("cryptoaccel-keyring: " + path + " is not a regular file");
  out.bytes.reserve(kMaxKeyFile + 1);  // never reallocated, so never copied
  out.bytes.resize(kMaxKeyFile + 1);
  std::size_t got = 0;
  while (got < out.bytes.size()) {
    const ssize_t n = ::read(fd, out.bytes.data() + got, out.bytes.size() - got);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) throw InvalidArgument(system_error(path, "cannot read"));
    if (n == 0) break;
    got += static_cast<std::size_t>(n);
  }
  if (got > kMaxKeyFile)
    throw InvalidArgument("cryptoaccel-keyring: " + path + " is larger than a key file (" +
                          std::to_string(kMaxKeyFile) + " bytes at most)");
  if (got == 0) throw InvalidKey("cryptoaccel-keyring: " + path + " is empty");
  out.bytes.resize(got);
}

// The key's integers, read by OpenSSL into buffers of ours that are wiped
// (EVP_PKEY_get_bn_param would leave a copy on its own stack), big-endian.
class KeyNumbers {
 public:
  explicit KeyNumbers(EVP_PKEY* pkey) {
    static constexpr std::array<const char*, 9> kNames = {
        OSSL_PKEY_PARAM_RSA_N,         OSSL_PKEY_PARAM_RSA_E,
        OSSL_PKEY_PARAM_RSA_D,         OSSL_PKEY_PARAM_RSA_FACTOR1,
        OSSL_PKEY_PARAM_RSA_FACTOR2,   OSSL_PKEY_PARAM_RSA_EXPONENT1,
        OSSL_PKEY_PARAM_RSA_EXPONENT2, OSSL_PKEY_PARAM_RSA_COEFFICIENT1,
        OSSL_PKEY_PARAM_RSA_FACTOR3};
    std::array<OSSL_PARAM, kNames.size() + 1> params;
    for (std::size_t i = 0; i < kNames.size(); ++i)
      params[i] = OSSL_PARAM_construct_BN(kNames[i], native_[i].data(), native_[i].size());
    params[kNames.size()] = OSSL_PARAM_construct_end();
    if (EVP_PKEY_get_params(pkey, params.data()) != 1)
      throw InvalidKey("cryptoaccel-keyring: OpenSSL could not give the key's numbers");
    for (std::size_t i = 0; i < kNames.size(); ++i) {
      if (!OSSL_PARAM_modified(&params[i])) continue;
      to_big_endian(native_[i].data(), params[i].return_size, big_[i]);
    }
    more_primes_ = OSSL_PARAM_modified(&params[8]) != 0;
  }
  ~KeyNumbers() {
    secure_wipe(native_.data(), sizeof native_);
    secure_wipe(big_.data(), sizeof big_);
  }
  KeyNumbers(const KeyNumbers&) = delete;
  KeyNumbers& operator=(const KeyNumbers&) = delete;

  bool more_primes() const noexcept { return more_primes_; }
  RsaKey::Components components() const noexcept {
    return {.n = at(0),
            .e = at(1),
            .d = at(2),
            .p = at(3),
            .q = at(4),
            .dp = at(5),
            .dq = at(6),
            .qinv = at(7)};
  }

 private:
  static constexpr std::size_t kBytes = 1024;  // an 8192-bit modulus
  struct Number {
    std::array<std::uint8_t, kBytes> bytes{};
    std::size_t size = 0;
  };
  void to_big_endian(const std::uint8_t* native, std::size_t size, Number& out) noexcept {
    size = std::min(size, kBytes);
    for (std::size_t i = 0; i < size; ++i)
      out.bytes[i] = std::endian::native == std::endian::little ? native[size - 1 - i] : native[i];
    std::size_t skip = 0;  // OpenSSL pads to the buffer: drop the leading zeros
    while (skip + 1 < size && out.bytes[skip] == 0) ++skip;
    std::memmove(out.bytes.data(), out.bytes.data() + skip, size - skip);
    out.size = size - skip;
  }
  Bytes at(std::size_t i) const noexcept { return {big_[i].bytes.data(), big_[i].size}; }

  std::array<std::array<std::uint8_t, kBytes>, 9> native_{};
  std::array<Number, 9> big_{};
  bool more_primes_ = false;
};

// The file through OpenSSL's decoders in the provider's own context (every
// format and encryption they know, the program's passphrase prompt asked
// for the password). Any selection: a public key is read too, to be refused
// by name.
RsaKey decode(ProviderContext& pc, const std::string& path, const WipedBytes& file,
              OSSL_PASSPHRASE_CALLBACK* passphrase, void* passphrase_arg) {
  EVP_PKEY* raw = nullptr;
  std::unique_ptr<OSSL_DECODER_CTX, DecoderFree> decoder(OSSL_DECODER_CTX_new_for_pkey(
      &raw, nullptr, nullptr, "RSA", 0, pc.openssl_default().libctx(), nullptr));
  if (!decoder) throw DriverFailure("cryptoaccel-keyring: OpenSSL has no RSA key decoder");
  if (passphrase != nullptr)
    OSSL_DECODER_CTX_set_passphrase_cb(decoder.get(), passphrase, passphrase_arg);
  const unsigned char* data = file.bytes.data();
  std::size_t size = file.bytes.size();
  const bool decoded = OSSL_DECODER_from_data(decoder.get(), &data, &size) == 1;
  PkeyPtr pkey(raw);
  if (!decoded || !pkey)
    throw InvalidKey("cryptoaccel-keyring: " + path +
                     " holds no RSA private key OpenSSL can read (PEM or DER: PKCS#8, encrypted "
                     "PKCS#8 or PKCS#1), or its password is wrong");
  const KeyNumbers numbers(pkey.get());
  if (numbers.components().d.empty())
    throw InvalidKey("cryptoaccel-keyring: " + path + " holds a public key, not a private one");
  if (numbers.more_primes())
    throw Unsupported("cryptoaccel-keyring: " + path +
                      " holds a multi-prime RSA key; the kernel keyring takes two-prime keys");
  return RsaKey::from_components(numbers.components());
}

// The default provider's key with the public half of `key`, for everything
// of OpenSSL's contract that is not a private-key operation.
void* public_inner_key(ProviderContext& pc, const RsaKey& key) {
  const std::vector<std::uint8_t> der = key.public_der();
  const unsigned char* p = der.data();
  PkeyPtr pub(d2i_PUBKEY_ex(nullptr, &p, static_cast<long>(der.size()),
                            pc.openssl_default().libctx(), nullptr));
  if (!pub) throw DriverFailure("cryptoaccel-keyring: OpenSSL could not read the public key");
  RsaInner& fns = rsa_inner(pc);
  void* inner = fns.key_new(fns.provctx);
  if (inner == nullptr) throw std::bad_alloc();
  struct Target {
    RsaInner* fns;
    void* key;
  } target{&fns, inner};
  auto import = [](const OSSL_PARAM params[], void* arg) -> int {
    auto* t = static_cast<Target*>(arg);
    return t->fns->import(t->key, OSSL_KEYMGMT_SELECT_PUBLIC_KEY, params);
  };
  if (EVP_PKEY_export(pub.get(), OSSL_KEYMGMT_SELECT_PUBLIC_KEY, import, &target) != 1) {
    fns.key_free(inner);
    throw DriverFailure("cryptoaccel-keyring: could not copy the public key");
  }
  return inner;
}

// ---- the loader -----------------------------------------------------------

struct Loader {
  ProviderContext* pc;
  std::string path;
  WipedBytes file;
  bool done = false;
  bool wants_keys = true;  // OSSL_STORE_expect: keys, or anything
};

void* open(void* provctx, const char* uri) {
  auto* pc = static_cast<ProviderContext*>(provctx);
  return guarded(pc, static_cast<void*>(nullptr), [&]() -> void* {
    const std::string_view text(uri != nullptr ? uri : "");
    const std::string_view prefix = std::string_view(kKeyringStoreScheme);
    if (text.size() <= prefix.size() + 1 || text.compare(0, prefix.size(), prefix) != 0 ||
        text[prefix.size()] != ':')
      throw InvalidArgument(std::string("cryptoaccel-keyring: a URI is ") + kKeyringStoreScheme +
                            ":FILE, naming a private key file; not \"" + std::string(text) + "\"");
    auto loader = std::make_unique<Loader>();
    loader->pc = pc;
    std::string_view path = text.substr(prefix.size() + 1);
    // cryptoaccel-keyring:///FILE (an empty authority, or localhost, as
    // file: URIs have): OpenSSL then asks this store only. With a single
    // colon it first tries its own `file` loader on the whole URI as a
    // path, so that a file named "cryptoaccel-keyring:..." in the working
    // directory would be loaded in memory instead.
    if (path.starts_with("//")) {
      path.remove_prefix(2);
      if (path.starts_with("localhost/")) path.remove_prefix(std::string_view("localhost").size());
      if (!path.starts_with('/'))
        throw InvalidArgument(std::string("cryptoaccel-keyring: ") + std::string(text) +
                              " names a host; a URI is " + kKeyringStoreScheme +
                              ":///ABSOLUTE-PATH or " + kKeyringStoreScheme + ":FILE");
    }
    loader->path = std::string(path);
    read_file(loader->path, loader->file);
    return loader.release();
  });
}

const OSSL_PARAM* settable_ctx_params(void*) {
  static const OSSL_PARAM kParams[] = {
      OSSL_PARAM_int(OSSL_STORE_PARAM_EXPECT, nullptr),
      OSSL_PARAM_utf8_string(OSSL_STORE_PARAM_PROPERTIES, nullptr, 0), OSSL_PARAM_END};
  return kParams;
}

int set_ctx_params(void* loaderctx, const OSSL_PARAM params[]) {
  auto* loader = static_cast<Loader*>(loaderctx);
  const OSSL_PARAM* p = OSSL_PARAM_locate_const(params, OSSL_STORE_PARAM_EXPECT);
  int expect = 0;
  if (p != nullptr) {
    if (OSSL_PARAM_get_int(p, &expect) != 1) return 0;
    loader->wants_keys = expect == 0 || expect == OSSL_STORE_INFO_PKEY;
  }
  return 1;  // properties: the key is decoded in the provider's own context
}

int load(void* loaderctx, OSSL_CALLBACK* object_cb, void* object_cbarg,
         OSSL_PASSPHRASE_CALLBACK* pw_cb, void* pw_cbarg) {
  auto* loader = static_cast<Loader*>(loaderctx);
  ProviderContext& pc = *loader->pc;
  if (loader->done) return 0;
  loader->done = true;
  if (!loader->wants_keys) return 1;  // the file holds no certificate or anything else
  return guarded(&pc, 0, [&] {
    RsaKey key = decode(pc, loader->path, loader->file, pw_cb, pw_cbarg);
    loader->file.bytes.clear();  // the capacity is wiped when the loader goes
    if (!pc.offers(key.algorithm().id))
      throw Unsupported("cryptoaccel-keyring: no driver of this provider serves " +
                        std::string(key.algorithm().name) + " keys");
    key.keep_in_kernel_keyring();
    void* inner = public_inner_key(pc, key);
    auto object = std::make_unique<RsaKeyObject>(pc, inner);
    object->adopt_kernel_key(std::move(key));

    const Reference reference = hand_out(std::move(object));
    int type = OSSL_OBJECT_PKEY;
    char data_type[] = "RSA";
    const std::string desc = loader->path + " (private key in the kernel keyring)";
    const OSSL_PARAM params[] = {
        OSSL_PARAM_construct_int(OSSL_OBJECT_PARAM_TYPE, &type),
        OSSL_PARAM_construct_utf8_string(OSSL_OBJECT_PARAM_DATA_TYPE, data_type, 0),
        OSSL_PARAM_construct_octet_string(OSSL_OBJECT_PARAM_REFERENCE,
                                          const_cast<Reference*>(&reference), sizeof reference),
        OSSL_PARAM_construct_utf8_string(OSSL_OBJECT_PARAM_DESC, const_cast<char*>(desc.c_str()),
                                         0),
        OSSL_PARAM_construct_end()};
    const int taken = object_cb(params, object_cbarg);
    withdraw(reference);
    return taken;
  });
}

int eof(void* loaderctx) {
  return static_cast<Loader*>(loaderctx)->done ? 1 : 0;
}

int close(void* loaderctx) {
  delete static_cast<Loader*>(loaderctx);
  return 1;
}

}  // namespace

RsaKeyObject* take_stored_key(const void* reference, std::size_t reference_size) noexcept {
  if (reference == nullptr || reference_size != sizeof(Reference)) return nullptr;
  Reference r;
  std::memcpy(&r, reference, sizeof r);
  if (r.magic != kReferenceMagic) return nullptr;
  const std::lock_guard lock(g_pending_mutex);
  auto it = pending().find(r.serial);
  if (it == pending().end()) return nullptr;
  RsaKeyObject* key = it->second.release();
  pending().erase(it);
  return key;
}

const OSSL_DISPATCH* keyring_store_functions() noexcept {
  static const OSSL_DISPATCH table[] = {
      entry(OSSL_FUNC_STORE_OPEN, &open),
      entry(OSSL_FUNC_STORE_SETTABLE_CTX_PARAMS, &settable_ctx_params),
      entry(OSSL_FUNC_STORE_SET_CTX_PARAMS, &set_ctx_params),
      entry(OSSL_FUNC_STORE_LOAD, &load),
      entry(OSSL_FUNC_STORE_EOF, &eof),
      entry(OSSL_FUNC_STORE_CLOSE, &close),
      {0, nullptr}};
  return table;
}

}  // namespace cryptoaccel::provider
