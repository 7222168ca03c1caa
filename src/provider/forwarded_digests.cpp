// Digests on the direct path without a context of ours. A digest context of
// OpenSSL's default provider never reaches its provider context, so its own
// init, copy, free and parameter functions are registered as they are, and
// an EVP_Digest call costs what it costs on the default provider: the
// wrapper context of forwarded.cpp (an allocation and four more calls per
// message) cost 12% of a 16-byte SHA-256 (docs/performance.md). Only
// newctx and the parameter lists (they take the provider context, which must
// be the default provider's), update and final (to count usage) are ours. Update and
// final cannot tell the provider instance from their arguments, so each of
// up to kDigestInstances instances with a direct path gets its own copies;
// an instance beyond them keeps the wrapper.
#include <openssl/core_dispatch.h>

#include <mutex>
#include <utility>

#include "forwarded.hpp"

namespace cryptoaccel::provider {
namespace {

constexpr std::size_t kDigestInstances = 4;

// Set while an instance's tables are registered; OpenSSL calls them only
// between its init and teardown.
std::array<std::array<const ForwardedAlgorithm*, Forwarding::kSlots>, kDigestInstances> g_digests{};
std::array<bool, kDigestInstances> g_claimed{};
std::mutex g_claim_mutex;

template <typename Fn>
Fn* inner(const ForwardedAlgorithm& a, int id) {
  return a.function<Fn>(id);
}

const ForwardedAlgorithm& slot_of(void* provctx, std::size_t slot) {
  return forwarded_slot(provctx, slot);
}

template <std::size_t Slot>
const OSSL_PARAM* gettable_params(void* provctx) {
  const ForwardedAlgorithm& a = slot_of(provctx, Slot);
  return inner<OSSL_FUNC_digest_gettable_params_fn>(
      a, OSSL_FUNC_DIGEST_GETTABLE_PARAMS)(a.inner_provctx);
}

template <std::size_t Slot, int Id>
const OSSL_PARAM* ctx_params(void* dctx, void* provctx) {
  const ForwardedAlgorithm& a = slot_of(provctx, Slot);
  return inner<OSSL_FUNC_digest_settable_ctx_params_fn>(a, Id)(dctx, a.inner_provctx);
}

// Per instance too, as update and final are: one load finds the default
// provider's function, where the provider context's slots cost a call and
// three dependent loads (2.4 % of a 16-byte SHA-256, EVP_Digest making a
// context per message).
template <std::size_t Instance, std::size_t Slot>
void* instance_newctx(void*) {
  const ForwardedAlgorithm& a = *g_digests[Instance][Slot];
  return inner<OSSL_FUNC_digest_newctx_fn>(a, OSSL_FUNC_DIGEST_NEWCTX)(a.inner_provctx);
}

template <std::size_t Instance, std::size_t Slot>
int update(void* dctx, const unsigned char* in, size_t inl) {
  const ForwardedAlgorithm& a = *g_digests[Instance][Slot];
  a.usage->count(a.counted_as, 0, inl);
  return inner<OSSL_FUNC_digest_update_fn>(a, OSSL_FUNC_DIGEST_UPDATE)(dctx, in, inl);
}

template <std::size_t Instance, std::size_t Slot>
int final(void* dctx, unsigned char* out, size_t* outl, size_t outsz) {
  const ForwardedAlgorithm& a = *g_digests[Instance][Slot];
  a.usage->count(a.counted_as, 1, 0);
  return inner<OSSL_FUNC_digest_final_fn>(a, OSSL_FUNC_DIGEST_FINAL)(dctx, out, outl, outsz);
}

struct Ours {
  OSSL_FUNC_digest_newctx_fn* newctx;
  OSSL_FUNC_digest_update_fn* update;
  OSSL_FUNC_digest_final_fn* final;
};
template <std::size_t Instance, std::size_t... S>
constexpr std::array<Ours, sizeof...(S)> for_instance(std::index_sequence<S...>) {
  return {Ours{&instance_newctx<Instance, S>, &update<Instance, S>, &final<Instance, S>}...};
}
template <std::size_t... I>
constexpr auto all_instances(std::index_sequence<I...>) {
  return std::array{for_instance<I>(std::make_index_sequence<Forwarding::kSlots>())...};
}
constexpr auto kOurs = all_instances(std::make_index_sequence<kDigestInstances>());

struct PerSlot {
  OSSL_FUNC_digest_gettable_params_fn* gettable_params;
  OSSL_FUNC_digest_settable_ctx_params_fn* settable_ctx_params;
  OSSL_FUNC_digest_gettable_ctx_params_fn* gettable_ctx_params;
};
template <std::size_t... S>
constexpr std::array<PerSlot, sizeof...(S)> per_slot(std::index_sequence<S...>) {
  return {PerSlot{&gettable_params<S>, &ctx_params<S, OSSL_FUNC_DIGEST_SETTABLE_CTX_PARAMS>,
                  &ctx_params<S, OSSL_FUNC_DIGEST_GETTABLE_CTX_PARAMS>}...};
}
constexpr auto kPerSlot = per_slot(std::make_index_sequence<Forwarding::kSlots>());

auto as_function = [](auto* f) { return reinterpret_cast<void (*)(void)>(f); };

}  // namespace

std::optional<std::size_t> claim_digest_instance() noexcept {
  std::lock_guard lock(g_claim_mutex);
  for (std::size_t i = 0; i < kDigestInstances; ++i)
    if (!g_claimed[i]) {
      g_claimed[i] = true;
      return i;
    }
  return std::nullopt;
}

void release_digest_instance(std::size_t instance) noexcept {
  std::lock_guard lock(g_claim_mutex);
  g_digests[instance].fill(nullptr);
  g_claimed[instance] = false;
}

bool unwrapped_digest(ForwardedAlgorithm& a, const OSSL_DISPATCH* functions, std::size_t instance,
                      std::size_t slot) {
  a.table.clear();
  for (const OSSL_DISPATCH* f = functions; f->function_id != 0; ++f) {
    void (*ours)(void) = f->function;  // OpenSSL's own, as it is
    switch (f->function_id) {
      case OSSL_FUNC_DIGEST_NEWCTX:
        ours = as_function(kOurs[instance][slot].newctx);
        break;
      case OSSL_FUNC_DIGEST_UPDATE:
        ours = as_function(kOurs[instance][slot].update);
        break;
      case OSSL_FUNC_DIGEST_FINAL:
        ours = as_function(kOurs[instance][slot].final);
        break;
      case OSSL_FUNC_DIGEST_GETTABLE_PARAMS:
        ours = as_function(kPerSlot[slot].gettable_params);
        break;
      case OSSL_FUNC_DIGEST_SETTABLE_CTX_PARAMS:
        ours = as_function(kPerSlot[slot].settable_ctx_params);
        break;
      case OSSL_FUNC_DIGEST_GETTABLE_CTX_PARAMS:
        ours = as_function(kPerSlot[slot].gettable_ctx_params);
        break;
      case OSSL_FUNC_DIGEST_INIT:
      case OSSL_FUNC_DIGEST_FREECTX:
      case OSSL_FUNC_DIGEST_DUPCTX:
      case OSSL_FUNC_DIGEST_GET_PARAMS:
      case OSSL_FUNC_DIGEST_SET_CTX_PARAMS:
      case OSSL_FUNC_DIGEST_GET_CTX_PARAMS:
        break;
      default:  // the one-shot digest (it takes the provider context) or one we do not know
        return false;
    }
    a.table.push_back({f->function_id, ours});
  }
  a.table.push_back({0, nullptr});
  g_digests[instance][slot] = &a;
  return true;
}

}  // namespace cryptoaccel::provider
