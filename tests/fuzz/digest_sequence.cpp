// Digest sequences: init (with and without the digest), split updates,
// final (twice too), copy, reset, one-shot EVP_Digest, size queries.
#include <openssl/evp.h>

#include <array>
#include <memory>

#include "sequences.hpp"

namespace cryptoaccel::fuzz {
namespace {

struct MdCtxFree {
  void operator()(EVP_MD_CTX* c) const { EVP_MD_CTX_free(c); }
};
using MdCtxPtr = std::unique_ptr<EVP_MD_CTX, MdCtxFree>;

constexpr std::size_t kMaxUpdate = 4096;
constexpr std::size_t kOut = EVP_MAX_MD_SIZE + 64;

Outcome value(long long v) {
  return Outcome{{v}, {}, 0};
}

class DigestSequence {
 public:
  DigestSequence(const Target& t, Differential& d) : t_(t), d_(d) {
    for (auto& c : ctx_) c.reset(EVP_MD_CTX_new());
  }

  void run(std::span<const Record> records, const OpFilter& filter) {
    filter_ = &filter;
    d_.both("properties", "EVP_MD_get_size, EVP_MD_get_block_size", [&](int s) {
      return Outcome{{EVP_MD_get_size(md(s)), EVP_MD_get_block_size(md(s))}, {}, 0};
    });
    for (std::size_t i = 0; i < records.size(); ++i) {
      const Record& r = records[i];
      const Operation& op = i == 0 ? kOperations[0] : select(r.op);
      if (filter.allows(op.name)) (this->*op.run)(r);
    }
  }

  struct Operation {
    const char* name;
    unsigned weight;
    void (DigestSequence::*run)(const Record&);
  };
  static const std::array<Operation, 7> kOperations;

 private:
  static const Operation& select(std::uint8_t byte) {
    return pick_weighted(kOperations, byte);
  }

  EVP_MD* md(int s) const { return t_.md[s].get(); }
  EVP_MD_CTX* ctx(int s) const { return ctx_[s].get(); }

  // EVP_DigestUpdate calls through a null pointer on a context without a
  // digest: only when both have one (and that must agree).
  bool have_digest() {
    const bool a = EVP_MD_CTX_get0_md(ctx(kSideA)) != nullptr;
    if (a != (EVP_MD_CTX_get0_md(ctx(kSideB)) != nullptr))
      d_.both("guard", "EVP_MD_CTX_get0_md(ctx) != NULL",
              [&](int s) { return value(EVP_MD_CTX_get0_md(ctx(s)) != nullptr); });
    return a;
  }

  void init(const Record& r) {
    const bool with_md = r.arg[0] % 4 != 0;
    finalised_ = false;
    d_.end_documented("final_after_final");
    d_.both("md_init", std::string("EVP_DigestInit_ex2(ctx, ") + (with_md ? "md" : "NULL") + ")",
            [&](int s) {
              return value(EVP_DigestInit_ex2(ctx(s), with_md ? md(s) : nullptr, nullptr));
            });
  }

  void update(const Record& r) {
    if (!have_digest()) return;
    const std::size_t len = pick_length(r, 0, kMaxUpdate);
    const Bytes in = derived_bytes(r.data_seed, len + 1, 1);
    d_.both("md_update",
            "EVP_DigestUpdate(ctx, " + hex(in.data(), len, 16) + ", " + std::to_string(len) + ")",
            [&](int s) { return value(EVP_DigestUpdate(ctx(s), in.data(), len)); });
  }

  // A second final without a new init: its own name, to be skipped apart
  // (OpenSSL 3.0's default provider goes on hashing; 3.2 refuses).
  void final(const Record& r) {
    const bool with_len = r.flag(0);
    const char* op = finalised_ ? "md_final_again" : "md_final";
    if (!filter_->allows(op)) return;
    // A final after final: OpenSSL 3.0 hashes its wiped state on (3.2
    // refuses); cryptoaccel gives the digest of the empty message.
    if (finalised_) d_.documented("final_after_final");
    const Outcome a = d_.both(
        op, std::string("EVP_DigestFinal_ex(ctx, out, ") + (with_len ? "&len" : "NULL") + ")",
        [&](int s) {
          Bytes out = canary(kOut);
          unsigned len = 9999;
          const int ret = EVP_DigestFinal_ex(ctx(s), out.data(), with_len ? &len : nullptr);
          return Outcome{{ret, len}, out, static_cast<std::size_t>(EVP_MD_get_size(md(s)))};
        });
    if (a.values[0] == 1) finalised_ = true;
  }

  void copy(const Record& r) {
    std::array<MdCtxPtr, 2> copies;
    const Outcome a = d_.both("md_copy", "EVP_MD_CTX_copy_ex(copy, ctx)", [&](int s) {
      copies[s].reset(EVP_MD_CTX_new());
      return value(EVP_MD_CTX_copy_ex(copies[s].get(), ctx(s)));
    });
    if (a.values[0] == 1 && !r.flag(0)) {
      ctx_ = std::move(copies);
      d_.note("continuing on the copy");
    } else if (a.values[0] == 1) {
      d_.note("copy freed; continuing on the original");
    }
  }

  void reset(const Record&) {
    finalised_ = false;
    d_.both("md_reset", "EVP_MD_CTX_reset(ctx)",
            [&](int s) { return value(EVP_MD_CTX_reset(ctx(s))); });
  }

  void oneshot(const Record& r) {
    const std::size_t len = pick_length(r, 0, kMaxUpdate);
    const Bytes in = derived_bytes(r.data_seed, len + 1, 2);
    d_.both(
        "md_oneshot",
        "EVP_Digest(" + hex(in.data(), len, 16) + ", " + std::to_string(len) + ", out, &len, md)",
        [&](int s) {
          Bytes out = canary(kOut);
          unsigned outl = 9999;
          const int ret = EVP_Digest(in.data(), len, out.data(), &outl, md(s), nullptr);
          return Outcome{{ret, outl}, out, outl < kOut ? outl : 0};
        });
  }

  void query(const Record&) {
    if (!have_digest()) return;
    d_.both("md_query", "EVP_MD_CTX_get_size, EVP_MD_CTX_get_block_size", [&](int s) {
      return Outcome{{EVP_MD_CTX_get_size(ctx(s)), EVP_MD_CTX_get_block_size(ctx(s))}, {}, 0};
    });
  }

  const Target& t_;
  Differential& d_;
  std::array<MdCtxPtr, 2> ctx_;
  const OpFilter* filter_ = nullptr;
  bool finalised_ = false;
};

const std::array<DigestSequence::Operation, 7> DigestSequence::kOperations = {{
    {"md_init", 3, &DigestSequence::init},
    {"md_update", 8, &DigestSequence::update},
    {"md_final", 4, &DigestSequence::final},
    {"md_copy", 2, &DigestSequence::copy},
    {"md_reset", 1, &DigestSequence::reset},
    {"md_oneshot", 1, &DigestSequence::oneshot},
    {"md_query", 1, &DigestSequence::query},
}};

}  // namespace

void run_digest_sequence(const Target& t, std::span<const Record> records, Differential& d,
                         const OpFilter& filter) {
  DigestSequence(t, d).run(records, filter);
}

std::vector<std::string> digest_operation_names() {
  std::vector<std::string> names{"properties", "guard", "md_final_again"};
  for (const auto& op : DigestSequence::kOperations) names.emplace_back(op.name);
  return names;
}

}  // namespace cryptoaccel::fuzz
