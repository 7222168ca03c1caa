// MAC sequences (HMAC): "digest" and "key" parameters (NULL and empty keys,
// digests cryptoaccel lacks, an unknown one), init with and without a key,
// split updates, final with short and NULL outputs, dup, size queries.
#include <openssl/core_names.h>
#include <openssl/evp.h>
#include <openssl/params.h>

#include <array>
#include <memory>

#include "sequences.hpp"

namespace cryptoaccel::fuzz {
namespace {

struct MacCtxFree {
  void operator()(EVP_MAC_CTX* c) const { EVP_MAC_CTX_free(c); }
};
using MacCtxPtr = std::unique_ptr<EVP_MAC_CTX, MacCtxFree>;

constexpr std::size_t kMaxUpdate = 4096;
constexpr std::size_t kOut = 256;

Outcome value(long long v) {
  return Outcome{{v}, {}, 0};
}

class MacSequence {
 public:
  MacSequence(const Setup& setup, const Target& t, Differential& d) : setup_(setup), t_(t), d_(d) {}

  void run(std::span<const Record> records, const OpFilter& filter) {
    filter_ = &filter;
    for (std::size_t i = 0; i < records.size(); ++i) {
      const Record& r = records[i];
      const Operation& op = i == 0 ? kOperations[0] : select(r.op);
      if (filter.allows(op.name)) (this->*op.run)(r);
    }
  }

  struct Operation {
    const char* name;
    unsigned weight;
    void (MacSequence::*run)(const Record&);
  };
  static const std::array<Operation, 7> kOperations;

 private:
  static const Operation& select(std::uint8_t byte) {
    return pick_weighted(kOperations, byte);
  }

  EVP_MAC_CTX* ctx(int s) const { return ctx_[s].get(); }
  bool have_ctx() {
    if ((ctx(kSideA) == nullptr) != (ctx(kSideB) == nullptr))
      d_.both("guard", "ctx != NULL", [&](int s) { return value(ctx(s) != nullptr); });
    return ctx(kSideA) != nullptr;
  }

  // A fresh context with the target's digest set (the sequence's start).
  void fresh(const Record& r) {
    finalised_ = false;
    d_.both("mac_new", "EVP_MAC_CTX_new(mac)", [&](int s) {
      ctx_[s].reset(EVP_MAC_CTX_new(t_.mac[s].get()));
      return value(ctx_[s] != nullptr);
    });
    if (r.arg[6] % 8 != 0 && filter_->allows("mac_params")) params(r);
  }

  // The parameter list one record describes; the strings it points at
  // live in `digest` and `key`.
  std::string describe_params(const Record& r, std::string& digest, Bytes& key,
                              std::vector<OSSL_PARAM>& list) const {
    std::string text;
    const int digest_choice = r.arg[0] % 8;
    if (digest_choice < 6) {
      digest = t_.digest;
    } else if (digest_choice == 6) {
      digest = setup_.hmac_digests[r.data_seed % setup_.hmac_digests.size()];
    } else {
      digest = "NO-SUCH-DIGEST";
    }
    if (r.arg[1] % 4 != 0 && !digest.empty()) {
      list.push_back(OSSL_PARAM_construct_utf8_string(OSSL_MAC_PARAM_DIGEST, digest.data(), 0));
      text += "digest=" + digest;
    }
    const int key_choice = r.arg[2] % 6;
    static constexpr std::size_t kKeyLens[] = {1, 16, 20, 32, 64, 65, 128, 200, 0};
    key = derived_bytes(r.data_seed, r.pick(3, kKeyLens) + 1, 1);
    key.pop_back();
    if (key_choice == 1 || key_choice == 2 || key_choice == 3) {
      list.push_back(OSSL_PARAM_construct_octet_string(OSSL_MAC_PARAM_KEY, key.data(), key.size()));
      text += (text.empty() ? "" : ", ") + std::string("key=") + hex(key, 16) + "(" +
              std::to_string(key.size()) + ")";
    } else if (key_choice == 4) {
      list.push_back(OSSL_PARAM_construct_octet_string(OSSL_MAC_PARAM_KEY, nullptr, 0));
      text += (text.empty() ? "" : ", ") + std::string("key=NULL(0)");
    }
    list.push_back(OSSL_PARAM_construct_end());
    return text;
  }

  void params(const Record& r) {
    if (!have_ctx()) return;
    std::string digest;
    Bytes key;
    std::vector<OSSL_PARAM> list;
    const std::string text = describe_params(r, digest, key, list);
    d_.both("mac_params", "EVP_MAC_CTX_set_params(ctx, {" + text + "})",
            [&](int s) { return value(EVP_MAC_CTX_set_params(ctx(s), list.data())); });
  }

  void init(const Record& r) {
    if (!have_ctx()) return;
    std::string digest;
    Bytes key;
    std::vector<OSSL_PARAM> list;
    const std::string text = describe_params(r, digest, key, list);
    const bool with_key = r.flag(4);
    const bool with_params = r.flag(5);
    Bytes direct = derived_bytes(r.data_seed, 65, 2);
    const std::size_t direct_len = r.arg[6] % 66;
    const std::string call =
        "EVP_MAC_init(ctx, " +
        (with_key ? hex(direct.data(), direct_len, 16) + ", " + std::to_string(direct_len)
                  : std::string("NULL, 0")) +
        ", " + (with_params ? "{" + text + "}" : std::string("NULL")) + ")";
    const Outcome a = d_.both("mac_init", call, [&](int s) {
      return value(EVP_MAC_init(ctx(s), with_key ? direct.data() : nullptr,
                                with_key ? direct_len : 0, with_params ? list.data() : nullptr));
    });
    if (a.values[0] == 1) {
      finalised_ = false;
      d_.end_documented("final_after_final");
    }
  }

  void update(const Record& r) {
    if (!have_ctx()) return;
    const std::size_t len = pick_length(r, 0, kMaxUpdate);
    const Bytes in = derived_bytes(r.data_seed, len + 1, 3);
    d_.both("mac_update",
            "EVP_MAC_update(ctx, " + hex(in.data(), len, 16) + ", " + std::to_string(len) + ")",
            [&](int s) { return value(EVP_MAC_update(ctx(s), in.data(), len)); });
  }

  void final(const Record& r) {
    if (!have_ctx()) return;
    static constexpr std::size_t kSizes[] = {0, 1, 19, 20, 28, 32, 48, 63, 64, 64, 128};
    const bool null_out = r.arg[0] % 6 == 0;
    const std::size_t outsize = r.pick(1, kSizes);
    const std::string call = std::string("EVP_MAC_final(ctx, ") + (null_out ? "NULL" : "out") +
                             ", &outl, " + std::to_string(outsize) + ")";
    // A second final without a new init: its own name, to be skipped apart.
    const char* op = finalised_ && !null_out ? "mac_final_again" : "mac_final";
    if (!filter_->allows(op)) return;
    // A final after final: OpenSSL 3.0's HMAC finishes its finished digest
    // again; cryptoaccel gives the HMAC of the empty message.
    if (finalised_ && !null_out) d_.documented("final_after_final");
    const Outcome a = d_.both(op, call, [&](int s) {
      Bytes out = canary(kOut);
      std::size_t outl = 9999;
      const int ret = EVP_MAC_final(ctx(s), null_out ? nullptr : out.data(), &outl, outsize);
      // On failure EVP_MAC_final leaves *outl as its own uninitialised
      // local: not compared.
      if (ret != 1) return Outcome{{ret, -1}, out, 0};
      return Outcome{
          {ret, static_cast<long long>(outl)}, out, std::min<std::size_t>(outl, outsize)};
    });
    if (a.values[0] == 1 && !null_out) finalised_ = true;
  }

  void dup(const Record& r) {
    if (!have_ctx()) return;
    std::array<MacCtxPtr, 2> copies;
    const Outcome a = d_.both("mac_dup", "EVP_MAC_CTX_dup(ctx)", [&](int s) {
      copies[s].reset(EVP_MAC_CTX_dup(ctx(s)));
      return value(copies[s] != nullptr);
    });
    if (a.values[0] == 1 && !r.flag(0)) {
      ctx_ = std::move(copies);
      d_.note("continuing on the copy");
    } else if (a.values[0] == 1) {
      d_.note("copy freed; continuing on the original");
    }
  }

  void query(const Record&) {
    if (!have_ctx()) return;
    d_.both("mac_query",
            "EVP_MAC_CTX_get_mac_size, EVP_MAC_CTX_get_block_size, get_params{size, block-size}",
            [&](int s) {
              std::size_t size = 9999, block = 9999;
              OSSL_PARAM list[] = {OSSL_PARAM_construct_size_t(OSSL_MAC_PARAM_SIZE, &size),
                                   OSSL_PARAM_construct_size_t(OSSL_MAC_PARAM_BLOCK_SIZE, &block),
                                   OSSL_PARAM_construct_end()};
              const int ret = EVP_MAC_CTX_get_params(ctx(s), list);
              return Outcome{{static_cast<long long>(EVP_MAC_CTX_get_mac_size(ctx(s))),
                              static_cast<long long>(EVP_MAC_CTX_get_block_size(ctx(s))), ret,
                              static_cast<long long>(size), static_cast<long long>(block)},
                             {},
                             0};
            });
  }

  const Setup& setup_;
  const Target& t_;
  Differential& d_;
  std::array<MacCtxPtr, 2> ctx_;
  const OpFilter* filter_ = nullptr;
  bool finalised_ = false;
};

const std::array<MacSequence::Operation, 7> MacSequence::kOperations = {{
    {"mac_new", 1, &MacSequence::fresh},
    {"mac_params", 3, &MacSequence::params},
    {"mac_init", 4, &MacSequence::init},
    {"mac_update", 8, &MacSequence::update},
    {"mac_final", 4, &MacSequence::final},
    {"mac_dup", 2, &MacSequence::dup},
    {"mac_query", 2, &MacSequence::query},
}};

}  // namespace

void run_mac_sequence(const Setup& setup, const Target& t, std::span<const Record> records,
                      Differential& d, const OpFilter& filter) {
  MacSequence(setup, t, d).run(records, filter);
}

std::vector<std::string> mac_operation_names() {
  std::vector<std::string> names{"guard", "mac_final_again"};
  for (const auto& op : MacSequence::kOperations) names.emplace_back(op.name);
  return names;
}

}  // namespace cryptoaccel::fuzz
