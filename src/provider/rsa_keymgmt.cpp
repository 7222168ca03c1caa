// RSA key management: the default provider's, with our key object around
// its own. Keys OpenSSL's decoders read (PEM, DER, PKCS#8, PKCS#1) arrive
// by import; keys it generates by gen.
#include <openssl/core_names.h>
#include <openssl/params.h>

#include <atomic>
#include <memory>
#include <new>

#include "errors.hpp"
#include "function_tables.hpp"
#include "keyring_store.hpp"
#include "rsa_provider.hpp"

namespace cryptoaccel::provider {
namespace {

using ByteVector = std::vector<std::uint8_t>;

RsaKeyObject* key_of(void* keydata) {
  return static_cast<RsaKeyObject*>(keydata);
}

ProviderContext* context_of(void* provctx) {
  return static_cast<ProviderContext*>(provctx);
}

void* wrap(ProviderContext& pc, void* inner) {
  if (inner == nullptr) return nullptr;
  try {
    return new RsaKeyObject(pc, inner);
  } catch (...) {
    rsa_inner(pc).key_free(inner);
    return nullptr;
  }
}

// Key generation's context: the default's, and which provider it is for.
struct GenContext {
  ProviderContext* pc;
  void* inner;
};

void* key_new(void* provctx) {
  ProviderContext& pc = *context_of(provctx);
  return guarded(&pc, static_cast<void*>(nullptr),
                 [&] { return wrap(pc, rsa_inner(pc).key_new(rsa_inner(pc).provctx)); });
}

void key_free(void* keydata) {
  delete key_of(keydata);
}

void* gen_init(void* provctx, int selection, const OSSL_PARAM params[]) {
  ProviderContext& pc = *context_of(provctx);
  return guarded(&pc, static_cast<void*>(nullptr), [&]() -> void* {
    void* inner = rsa_inner(pc).gen_init(rsa_inner(pc).provctx, selection, params);
    return inner == nullptr ? nullptr : new GenContext{&pc, inner};
  });
}

int gen_set_template(void* genctx, void* templ) {
  auto* g = static_cast<GenContext*>(genctx);
  return rsa_inner(*g->pc).gen_set_template != nullptr
             ? rsa_inner(*g->pc).gen_set_template(g->inner, key_of(templ)->inner)
             : 1;
}

int gen_set_params(void* genctx, const OSSL_PARAM params[]) {
  auto* g = static_cast<GenContext*>(genctx);
  return rsa_inner(*g->pc).gen_set_params(g->inner, params);
}

const OSSL_PARAM* gen_settable_params(void* genctx, void* provctx) {
  ProviderContext& pc = *context_of(provctx);
  return rsa_inner(pc).gen_settable_params(
      genctx != nullptr ? static_cast<GenContext*>(genctx)->inner : nullptr, rsa_inner(pc).provctx);
}

void* gen(void* genctx, OSSL_CALLBACK* cb, void* cbarg) {
  auto* g = static_cast<GenContext*>(genctx);
  auto* key = key_of(wrap(*g->pc, rsa_inner(*g->pc).gen(g->inner, cb, cbarg)));
  if (key == nullptr || !g->pc->config().keys_in_kernel) return key;
  return guarded(g->pc, static_cast<void*>(nullptr), [&]() -> void* {
    std::unique_ptr<RsaKeyObject> owned(key);
    owned->keep_private_in_kernel();
    return owned.release();
  });
}

void gen_cleanup(void* genctx) {
  auto* g = static_cast<GenContext*>(genctx);
  if (g == nullptr) return;
  rsa_inner(*g->pc).gen_cleanup(g->inner);
  delete g;
}

int get_params(void* keydata, OSSL_PARAM params[]) {
  RsaKeyObject* k = key_of(keydata);
  return rsa_inner(*k->pc).get_params(k->inner, params);
}

const OSSL_PARAM* gettable_params(void* provctx) {
  ProviderContext& pc = *context_of(provctx);
  return rsa_inner(pc).gettable_params(rsa_inner(pc).provctx);
}

int set_params(void* keydata, const OSSL_PARAM params[]) {
  RsaKeyObject* k = key_of(keydata);
  return rsa_inner(*k->pc).set_params != nullptr ? rsa_inner(*k->pc).set_params(k->inner, params)
                                                 : 1;
}

const OSSL_PARAM* settable_params(void* provctx) {
  ProviderContext& pc = *context_of(provctx);
  return rsa_inner(pc).settable_params != nullptr
             ? rsa_inner(pc).settable_params(rsa_inner(pc).provctx)
             : nullptr;
}

// A key kept in the kernel keyring has its private half there: the
// default provider's key, which holds the public half, answers the rest.
int public_part_of(const RsaKeyObject& k, int selection) noexcept {
  return k.private_in_kernel() ? selection & ~OSSL_KEYMGMT_SELECT_PRIVATE_KEY : selection;
}

int has(const void* keydata, int selection) {
  const auto* k = static_cast<const RsaKeyObject*>(keydata);
  if (k == nullptr) return 0;
  return rsa_inner(*k->pc).has(k->inner, public_part_of(*k, selection));
}

int validate(const void* keydata, int selection, int checktype) {
  const auto* k = static_cast<const RsaKeyObject*>(keydata);
  return rsa_inner(*k->pc).validate(k->inner, public_part_of(*k, selection), checktype);
}

int match(const void* a, const void* b, int selection) {
  const auto* ka = static_cast<const RsaKeyObject*>(a);
  const auto* kb = static_cast<const RsaKeyObject*>(b);
  return rsa_inner(*ka->pc).match(ka->inner, kb->inner, selection);
}

int import(void* keydata, int selection, const OSSL_PARAM params[]) {
  RsaKeyObject* k = key_of(keydata);
  if (rsa_inner(*k->pc).import(k->inner, selection, params) != 1) return 0;
  if (!k->pc->config().keys_in_kernel || (selection & OSSL_KEYMGMT_SELECT_PRIVATE_KEY) == 0 ||
      rsa_inner(*k->pc).has(k->inner, OSSL_KEYMGMT_SELECT_PRIVATE_KEY) == 0)
    return 1;
  return guarded(k->pc, 0, [&] {
    k->keep_private_in_kernel();
    return 1;
  });
}

// These two get no provider context; the default provider's functions are
// the same for every instance of ours (one libcrypto), so the first
// instance's are kept for all.
std::atomic<OSSL_FUNC_keymgmt_import_types_fn*> g_import_types{nullptr};
std::atomic<OSSL_FUNC_keymgmt_export_types_fn*> g_export_types{nullptr};

const OSSL_PARAM* import_types(int selection) {
  auto* inner = g_import_types.load();
  return inner != nullptr ? inner(selection) : nullptr;
}

const OSSL_PARAM* export_types_of(int selection) {
  auto* inner = g_export_types.load();
  return inner != nullptr ? inner(selection) : nullptr;
}

int export_(void* keydata, int selection, OSSL_CALLBACK* cb, void* cbarg) {
  RsaKeyObject* k = key_of(keydata);
  return rsa_inner(*k->pc).export_(k->inner, selection, cb, cbarg);
}

void* dup(const void* keydata, int selection) {
  auto* k = const_cast<RsaKeyObject*>(static_cast<const RsaKeyObject*>(keydata));
  if (rsa_inner(*k->pc).dup == nullptr) return nullptr;
  auto* copy = key_of(wrap(*k->pc, rsa_inner(*k->pc).dup(k->inner, public_part_of(*k, selection))));
  if (copy == nullptr || !k->private_in_kernel() ||
      (selection & OSSL_KEYMGMT_SELECT_PRIVATE_KEY) == 0)
    return copy;
  return guarded(k->pc, static_cast<void*>(nullptr), [&]() -> void* {
    std::unique_ptr<RsaKeyObject> owned(copy);
    owned->share_kernel_key_of(*k);
    return owned.release();
  });
}

// A key the cryptoaccel-keyring: store made (keyring_store.hpp); OpenSSL
// calls this only with references from this provider's store.
void* load(const void* reference, std::size_t reference_size) {
  return take_stored_key(reference, reference_size);
}

const char* query_operation_name(int) {
  return "RSA";
}

// ---- the library's key, from what the default provider exports ----------

struct Exported {
  ByteVector n, e, d, p, q, dp, dq, qinv;
  bool more_primes = false;
  ~Exported() {
    for (ByteVector* v : {&d, &p, &q, &dp, &dq, &qinv}) secure_wipe(v->data(), v->size());
  }
};

bool read_bn(const OSSL_PARAM params[], const char* name, ByteVector& out) {
  const OSSL_PARAM* p = OSSL_PARAM_locate_const(params, name);
  if (p == nullptr) return false;
  BIGNUM* bn = nullptr;
  if (OSSL_PARAM_get_BN(p, &bn) != 1) return false;
  out.resize(static_cast<std::size_t>(BN_num_bytes(bn)));
  BN_bn2bin(bn, out.data());
  BN_clear_free(bn);
  return true;
}

int collect(const OSSL_PARAM params[], void* arg) {
  auto* x = static_cast<Exported*>(arg);
  read_bn(params, OSSL_PKEY_PARAM_RSA_N, x->n);
  read_bn(params, OSSL_PKEY_PARAM_RSA_E, x->e);
  read_bn(params, OSSL_PKEY_PARAM_RSA_D, x->d);
  read_bn(params, OSSL_PKEY_PARAM_RSA_FACTOR1, x->p);
  read_bn(params, OSSL_PKEY_PARAM_RSA_FACTOR2, x->q);
  read_bn(params, OSSL_PKEY_PARAM_RSA_EXPONENT1, x->dp);
  read_bn(params, OSSL_PKEY_PARAM_RSA_EXPONENT2, x->dq);
  read_bn(params, OSSL_PKEY_PARAM_RSA_COEFFICIENT1, x->qinv);
  x->more_primes = OSSL_PARAM_locate_const(params, OSSL_PKEY_PARAM_RSA_FACTOR3) != nullptr;
  return 1;
}

}  // namespace

RsaKeyObject::~RsaKeyObject() {
  if (inner != nullptr) rsa_inner(*pc).key_free(inner);
}

bool RsaKeyObject::served() {
  if (tried_) return key_.has_value();
  tried_ = true;
  Exported x;
  const int selection = rsa_inner(*pc).has(inner, OSSL_KEYMGMT_SELECT_PRIVATE_KEY)
                            ? OSSL_KEYMGMT_SELECT_KEYPAIR
                            : OSSL_KEYMGMT_SELECT_PUBLIC_KEY;
  if (rsa_inner(*pc).export_(inner, selection, &collect, &x) != 1 || x.more_primes || x.n.empty() ||
      x.e.empty())
    return false;
  const std::size_t bits = x.n.size() * 8;
  if (bits != 2048 && bits != 3072 && bits != 4096) return false;
  try {
    RsaKey key = RsaKey::from_components(
        {.n = x.n, .e = x.e, .d = x.d, .p = x.p, .q = x.q, .dp = x.dp, .dq = x.dq, .qinv = x.qinv});
    if (!pc->offers(key.algorithm().id)) return false;
    key_.emplace(std::move(key));
  } catch (const Error&) {
    return false;  // OpenSSL's own implementation says what is wrong with it
  }
  return true;
}

namespace {

struct PublicCopy {
  RsaInner* inner;
  void* key;
};

int import_public(const OSSL_PARAM params[], void* arg) {
  auto* copy = static_cast<PublicCopy*>(arg);
  return copy->inner->import(copy->key, OSSL_KEYMGMT_SELECT_PUBLIC_KEY, params);
}

}  // namespace

void RsaKeyObject::keep_private_in_kernel() {
  const std::lock_guard lock(mutex_);
  idle_.clear();
  key_.reset();
  tried_ = false;
  if (!served())
    throw Unsupported(
        "key_storage = keyring: cryptoaccel does not serve this RSA key (two-prime keys of "
        "2048, 3072 or 4096 bits are kept in the kernel keyring), and it is not kept in memory "
        "either");
  key_->keep_in_kernel_keyring();
  // The default provider's key keeps the public half only; freeing the old
  // one clears its private numbers (OpenSSL's RSA_free).
  RsaInner& fns = rsa_inner(*pc);
  PublicCopy copy{&fns, fns.key_new(fns.provctx)};
  if (copy.key == nullptr) throw std::bad_alloc();
  if (fns.export_(inner, OSSL_KEYMGMT_SELECT_PUBLIC_KEY, &import_public, &copy) != 1) {
    fns.key_free(copy.key);
    key_.reset();
    throw DriverFailure("key_storage = keyring: could not copy the public key");
  }
  fns.key_free(inner);
  inner = copy.key;
  private_in_kernel_ = true;
}

bool RsaKeyObject::refuse_unserved_private(const char* operation) const noexcept {
  if (!private_in_kernel_) return false;
  CRYPTOACCEL_RAISE(pc, kReasonOperationFailed,
                    "RSA %s: the private key is kept in the kernel keyring (key_storage = "
                    "keyring), where only the padding and digests cryptoaccel serves can use it",
                    operation);
  return true;
}

void RsaKeyObject::adopt_kernel_key(RsaKey key) {
  if (!key.in_kernel_keyring()) throw InvalidKey("the key is not in the kernel keyring");
  const std::lock_guard lock(mutex_);
  idle_.clear();
  key_.emplace(std::move(key));
  tried_ = true;
  private_in_kernel_ = true;
}

void RsaKeyObject::share_kernel_key_of(RsaKeyObject& other) {
  std::scoped_lock lock(mutex_, other.mutex_);
  if (!other.key_) throw InvalidKey("key_storage = keyring: the key has no kernel key");
  key_.emplace(*other.key_);
  tried_ = true;
  private_in_kernel_ = true;
}

RsaKeyObject::Lease RsaKeyObject::lease() {
  std::unique_lock lock(mutex_);
  if (!served()) return Lease(*this, nullptr);
  if (!idle_.empty()) {
    std::unique_ptr<RsaSession> session = std::move(idle_.back());
    idle_.pop_back();
    return Lease(*this, std::move(session));
  }
  const RsaKey& key = *key_;
  lock.unlock();
  return Lease(*this, std::make_unique<RsaSession>(key, pc->session_options()));
}

RsaKeyObject::Lease::~Lease() {
  if (!session_) return;
  try {
    const std::lock_guard lock(key_->mutex_);
    key_->idle_.push_back(std::move(session_));
  } catch (...) {
    // Out of memory: the session just closes.
  }
}

RsaInner::RsaInner(ProviderContext& pc) : provctx(pc.openssl_default().default_provider_context()) {
  const OSSL_DISPATCH* k = pc.openssl_default().implementation(OSSL_OP_KEYMGMT, "RSA");
  key_new = inner_function<OSSL_FUNC_keymgmt_new_fn>(k, OSSL_FUNC_KEYMGMT_NEW);
  key_free = inner_function<OSSL_FUNC_keymgmt_free_fn>(k, OSSL_FUNC_KEYMGMT_FREE);
  gen_init = inner_function<OSSL_FUNC_keymgmt_gen_init_fn>(k, OSSL_FUNC_KEYMGMT_GEN_INIT);
  gen_set_template =
      inner_function<OSSL_FUNC_keymgmt_gen_set_template_fn>(k, OSSL_FUNC_KEYMGMT_GEN_SET_TEMPLATE);
  gen_set_params =
      inner_function<OSSL_FUNC_keymgmt_gen_set_params_fn>(k, OSSL_FUNC_KEYMGMT_GEN_SET_PARAMS);
  gen_settable_params = inner_function<OSSL_FUNC_keymgmt_gen_settable_params_fn>(
      k, OSSL_FUNC_KEYMGMT_GEN_SETTABLE_PARAMS);
  gen = inner_function<OSSL_FUNC_keymgmt_gen_fn>(k, OSSL_FUNC_KEYMGMT_GEN);
  gen_cleanup = inner_function<OSSL_FUNC_keymgmt_gen_cleanup_fn>(k, OSSL_FUNC_KEYMGMT_GEN_CLEANUP);
  get_params = inner_function<OSSL_FUNC_keymgmt_get_params_fn>(k, OSSL_FUNC_KEYMGMT_GET_PARAMS);
  gettable_params =
      inner_function<OSSL_FUNC_keymgmt_gettable_params_fn>(k, OSSL_FUNC_KEYMGMT_GETTABLE_PARAMS);
  set_params = inner_function<OSSL_FUNC_keymgmt_set_params_fn>(k, OSSL_FUNC_KEYMGMT_SET_PARAMS);
  settable_params =
      inner_function<OSSL_FUNC_keymgmt_settable_params_fn>(k, OSSL_FUNC_KEYMGMT_SETTABLE_PARAMS);
  has = inner_function<OSSL_FUNC_keymgmt_has_fn>(k, OSSL_FUNC_KEYMGMT_HAS);
  validate = inner_function<OSSL_FUNC_keymgmt_validate_fn>(k, OSSL_FUNC_KEYMGMT_VALIDATE);
  match = inner_function<OSSL_FUNC_keymgmt_match_fn>(k, OSSL_FUNC_KEYMGMT_MATCH);
  import = inner_function<OSSL_FUNC_keymgmt_import_fn>(k, OSSL_FUNC_KEYMGMT_IMPORT);
  import_types =
      inner_function<OSSL_FUNC_keymgmt_import_types_fn>(k, OSSL_FUNC_KEYMGMT_IMPORT_TYPES);
  export_ = inner_function<OSSL_FUNC_keymgmt_export_fn>(k, OSSL_FUNC_KEYMGMT_EXPORT);
  export_types =
      inner_function<OSSL_FUNC_keymgmt_export_types_fn>(k, OSSL_FUNC_KEYMGMT_EXPORT_TYPES);
  dup = inner_function<OSSL_FUNC_keymgmt_dup_fn>(k, OSSL_FUNC_KEYMGMT_DUP);
  if (import_types != nullptr) g_import_types.store(import_types);
  if (export_types != nullptr) g_export_types.store(export_types);
  signature = pc.openssl_default().implementation(OSSL_OP_SIGNATURE, "RSA");
  asym_cipher = pc.openssl_default().implementation(OSSL_OP_ASYM_CIPHER, "RSA");
}

bool RsaInner::complete() const noexcept {
  return key_new && key_free && gen_init && gen_set_params && gen_settable_params && gen &&
         gen_cleanup && get_params && gettable_params && has && validate && match && import &&
         import_types && export_ && export_types && signature && asym_cipher;
}

RsaInner& rsa_inner(ProviderContext& pc) {
  return pc.rsa_inner();
}

std::optional<AlgorithmId> digest_named(std::string_view name) noexcept {
  if (name.empty()) return kNoDigest;
  const Algorithm* a = find_algorithm(name);
  if (a == nullptr || a->kind != AlgorithmKind::digest) return std::nullopt;
  return a->id;
}

const OSSL_DISPATCH* rsa_keymgmt_functions() noexcept {
  static const OSSL_DISPATCH table[] = {
      entry(OSSL_FUNC_KEYMGMT_NEW, &key_new),
      entry(OSSL_FUNC_KEYMGMT_FREE, &key_free),
      entry(OSSL_FUNC_KEYMGMT_GEN_INIT, &gen_init),
      entry(OSSL_FUNC_KEYMGMT_GEN_SET_TEMPLATE, &gen_set_template),
      entry(OSSL_FUNC_KEYMGMT_GEN_SET_PARAMS, &gen_set_params),
      entry(OSSL_FUNC_KEYMGMT_GEN_SETTABLE_PARAMS, &gen_settable_params),
      entry(OSSL_FUNC_KEYMGMT_GEN, &gen),
      entry(OSSL_FUNC_KEYMGMT_GEN_CLEANUP, &gen_cleanup),
      entry(OSSL_FUNC_KEYMGMT_GET_PARAMS, &get_params),
      entry(OSSL_FUNC_KEYMGMT_GETTABLE_PARAMS, &gettable_params),
      entry(OSSL_FUNC_KEYMGMT_SET_PARAMS, &set_params),
      entry(OSSL_FUNC_KEYMGMT_SETTABLE_PARAMS, &settable_params),
      entry(OSSL_FUNC_KEYMGMT_HAS, &has),
      entry(OSSL_FUNC_KEYMGMT_VALIDATE, &validate),
      entry(OSSL_FUNC_KEYMGMT_MATCH, &match),
      entry(OSSL_FUNC_KEYMGMT_IMPORT, &import),
      entry(OSSL_FUNC_KEYMGMT_IMPORT_TYPES, &import_types),
      entry(OSSL_FUNC_KEYMGMT_EXPORT, &export_),
      entry(OSSL_FUNC_KEYMGMT_EXPORT_TYPES, &export_types_of),
      entry(OSSL_FUNC_KEYMGMT_DUP, &dup),
      entry(OSSL_FUNC_KEYMGMT_LOAD, &load),
      entry(OSSL_FUNC_KEYMGMT_QUERY_OPERATION_NAME, &query_operation_name),
      kEnd};
  return table;
}

}  // namespace cryptoaccel::provider
