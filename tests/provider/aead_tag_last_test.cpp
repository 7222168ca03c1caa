// AEAD decryptions whose tag comes only at the end (OpenVPN's receive path:
// AAD, payload, tag, final), against OpenSSL's default provider: the same
// plaintext and the same verdict for honest and forged messages, in one or
// several payload pieces, copied mid-message, with ChaCha20-Poly1305's AAD
// after a payload piece. Through the framework's sessions the driver must
// do the decryption (the key's AES-CTR or ChaCha20) and OpenSSL's own
// implementation none of it.
#include <gtest/gtest.h>
#include <openssl/core_names.h>
#include <openssl/evp.h>

#include <cstring>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "evp_fixture.hpp"
#include "openssl_errors.hpp"
#include "provider_stats.hpp"

namespace {

struct Opened {
  Bytes plaintext;
  std::vector<int> results;  // every call's return value, final's last
  bool operator==(const Opened&) const = default;
};

// OpenVPN's order: key and nonce, AAD, the payload in `pieces` updates, the
// tag, final. `copy_after_first`: the rest goes to a dupctx made after the
// first piece (and the original is finished too, with the same result).
Opened open_tag_last(EVP_CIPHER* c, const Bytes& key, const Bytes& iv, const Bytes& aad,
                     const Bytes& ct, Bytes tag, int pieces, bool copy_after_first = false) {
  Opened o;
  auto ctx = new_ctx();
  std::size_t ivlen = iv.size();
  OSSL_PARAM params[] = {OSSL_PARAM_construct_size_t(OSSL_CIPHER_PARAM_AEAD_IVLEN, &ivlen),
                         OSSL_PARAM_END};
  o.plaintext.assign(ct.size(), 0);
  int n = 0;
  o.results.push_back(EVP_DecryptInit_ex2(ctx.get(), c, nullptr, nullptr, params));
  o.results.push_back(EVP_DecryptInit_ex2(ctx.get(), nullptr, key.data(), iv.data(), nullptr));
  o.results.push_back(
      EVP_DecryptUpdate(ctx.get(), nullptr, &n, aad.data(), static_cast<int>(aad.size())));
  std::size_t done = 0;
  CtxPtr copy(nullptr, &EVP_CIPHER_CTX_free);
  EVP_CIPHER_CTX* current = ctx.get();
  for (int i = 0; i < pieces; ++i) {
    const std::size_t piece = i + 1 == pieces ? ct.size() - done : ct.size() / pieces;
    o.results.push_back(EVP_DecryptUpdate(current, o.plaintext.data() + done, &n, ct.data() + done,
                                          static_cast<int>(piece)));
    o.results.push_back(n);
    done += static_cast<std::size_t>(n > 0 ? n : 0);
    if (i == 0 && copy_after_first) {
      copy = new_ctx();
      o.results.push_back(EVP_CIPHER_CTX_copy(copy.get(), ctx.get()));
      current = copy.get();
    }
  }
  o.results.push_back(EVP_CIPHER_CTX_ctrl(current, EVP_CTRL_AEAD_SET_TAG,
                                          static_cast<int>(tag.size()), tag.data()));
  int fin = 0;
  o.results.push_back(EVP_DecryptFinal_ex(current, o.plaintext.data() + done, &fin));
  return o;
}

class TagLast : public Evp {};

TEST_F(TagLast, OpensAsTheDefaultProviderDoes) {
  for (const char* name : {"AES-128-GCM", "AES-192-GCM", "AES-256-GCM", "ChaCha20-Poly1305"}) {
    CipherPtr mine(ours(name), &EVP_CIPHER_free), ref(theirs(name), &EVP_CIPHER_free);
    const bool gcm = std::strstr(name, "GCM") != nullptr;
    const Bytes key = random_bytes(static_cast<std::size_t>(EVP_CIPHER_get_key_length(mine.get())));
    for (std::size_t ivlen : {12, 16}) {
      if (!gcm && ivlen != 12) continue;
      for (std::size_t aadlen : {0, 13, 16, 100}) {
        for (std::size_t ptlen : {1, 15, 16, 17, 64, 65, 1000, 70000}) {
          const Bytes iv = random_bytes(ivlen), aad = random_bytes(aadlen),
                      pt = random_bytes(ptlen);
          const Sealed s = seal(ref.get(), key, iv, aad, pt);
          ASSERT_TRUE(s.ok) << openssl_errors();
          for (int pieces : {1, 3}) {
            for (int forge = 0; forge < 4; ++forge) {
              Bytes ct = s.ct, tag = s.tag, a = aad;
              if (forge == 1) ct[ct.size() / 2] ^= 0x20;
              if (forge == 2) tag[7] ^= 1;
              if (forge == 3 && !a.empty()) a[0] ^= 1;
              if (forge == 3 && a.empty()) tag.resize(gcm ? 12 : 16);  // a short tag, honest
              const Opened x = open_tag_last(mine.get(), key, iv, a, ct, tag, pieces);
              const Opened y = open_tag_last(ref.get(), key, iv, a, ct, tag, pieces);
              EXPECT_EQ(x, y) << name << " iv " << ivlen << " aad " << aadlen << " pt " << ptlen
                              << " pieces " << pieces << " forge " << forge;
              if (forge == 0) {
                EXPECT_EQ(x.plaintext, pt);
              }
            }
          }
        }
      }
    }
  }
}

TEST_F(TagLast, ACopyMadeMidMessageFinishesIt) {
  for (const char* name : {"AES-128-GCM", "AES-256-GCM", "ChaCha20-Poly1305"}) {
    CipherPtr mine(ours(name), &EVP_CIPHER_free), ref(theirs(name), &EVP_CIPHER_free);
    const Bytes key = random_bytes(static_cast<std::size_t>(EVP_CIPHER_get_key_length(mine.get())));
    for (std::size_t ptlen : {3, 100, 5000}) {
      const Bytes iv = random_bytes(12), aad = random_bytes(20), pt = random_bytes(ptlen);
      const Sealed s = seal(ref.get(), key, iv, aad, pt);
      for (int forge = 0; forge < 2; ++forge) {
        Bytes tag = s.tag;
        tag[0] ^= static_cast<unsigned char>(forge);
        const Opened x = open_tag_last(mine.get(), key, iv, aad, s.ct, tag, 3, true);
        const Opened y = open_tag_last(ref.get(), key, iv, aad, s.ct, tag, 3, true);
        EXPECT_EQ(x, y) << name << " pt " << ptlen << " forge " << forge;
        if (!forge) {
          EXPECT_EQ(x.plaintext, pt) << name;
        }
      }
    }
  }
}

// OpenSSL's ChaCha20-Poly1305 authenticates AAD given after a payload piece
// where it comes; a message sealed that way by OpenSSL opens here.
TEST_F(TagLast, ChaCha20Poly1305AadAfterThePayload) {
  CipherPtr mine(ours("ChaCha20-Poly1305"), &EVP_CIPHER_free),
      ref(theirs("ChaCha20-Poly1305"), &EVP_CIPHER_free);
  const Bytes key = random_bytes(32), iv = random_bytes(12), aad = random_bytes(21),
              pt = random_bytes(300);
  auto run = [&](EVP_CIPHER* c, bool encrypt, const Bytes& in, Bytes& tag) {
    Opened o;
    auto ctx = new_ctx();
    int n = 0;
    o.plaintext.assign(in.size(), 0);
    o.results.push_back(EVP_CipherInit_ex2(ctx.get(), c, key.data(), iv.data(), encrypt, nullptr));
    o.results.push_back(EVP_CipherUpdate(ctx.get(), nullptr, &n, aad.data(), 5));
    o.results.push_back(EVP_CipherUpdate(ctx.get(), o.plaintext.data(), &n, in.data(), 100));
    o.results.push_back(EVP_CipherUpdate(ctx.get(), nullptr, &n, aad.data() + 5, 16));
    o.results.push_back(
        EVP_CipherUpdate(ctx.get(), o.plaintext.data() + 100, &n, in.data() + 100, 200));
    if (!encrypt)
      o.results.push_back(EVP_CIPHER_CTX_ctrl(ctx.get(), EVP_CTRL_AEAD_SET_TAG, 16, tag.data()));
    o.results.push_back(EVP_CipherFinal_ex(ctx.get(), o.plaintext.data() + 300, &n));
    if (encrypt)
      o.results.push_back(EVP_CIPHER_CTX_ctrl(ctx.get(), EVP_CTRL_AEAD_GET_TAG, 16, tag.data()));
    return o;
  };
  Bytes tag(16);
  const Opened sealed = run(ref.get(), true, pt, tag);
  Bytes tag_mine = tag, tag_ref = tag;
  const Opened x = run(mine.get(), false, sealed.plaintext, tag_mine);
  const Opened y = run(ref.get(), false, sealed.plaintext, tag_ref);
  EXPECT_EQ(x, y);
  EXPECT_EQ(x.plaintext, pt);
  EXPECT_EQ(x.results.back(), 1);
}

// "  ALGORITHM DRIVER requests=N ..." lines: requests per (algorithm, driver).
std::map<std::pair<std::string, std::string>, long> usage(OSSL_PROVIDER* provider) {
  std::map<std::pair<std::string, std::string>, long> out;
  std::istringstream lines(cryptoaccel::test::provider_stats(provider));
  std::string algorithm, driver, requests;
  for (std::string line; std::getline(lines, line);) {
    std::istringstream fields(line);
    if (fields >> algorithm >> driver >> requests && requests.rfind("requests=", 0) == 0)
      out[{algorithm, driver}] = std::stol(requests.substr(9));
  }
  return out;
}

long requests_of(const std::map<std::pair<std::string, std::string>, long>& u,
                 const std::string& algorithm, const std::string& driver) {
  long n = 0;
  for (const auto& [key, value] : u)
    if (key.first == algorithm && (driver.empty() || key.second == driver)) n += value;
  return n;
}

// Through the sessions (CRYPTOACCEL_DIRECT=0), 200 packets opened in
// OpenVPN's order: the keystream cipher's driver serves every payload and
// OpenSSL's implementation in the provider serves none.
TEST_F(TagLast, OpenVpnReceivePathStaysOnTheDriver) {
  ASSERT_FALSE(direct()) << "run with CRYPTOACCEL_DIRECT=0";
  const std::pair<const char*, const char*> cases[] = {{"AES-128-GCM", "aes-128-ctr"},
                                                       {"AES-256-GCM", "aes-256-ctr"},
                                                       {"ChaCha20-Poly1305", "chacha20"}};
  for (const auto& [name, keystream] : cases) {
    CipherPtr mine(ours(name), &EVP_CIPHER_free), ref(theirs(name), &EVP_CIPHER_free);
    const Bytes key = random_bytes(static_cast<std::size_t>(EVP_CIPHER_get_key_length(mine.get())));
    std::string aead = name;
    for (char& ch : aead) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    const auto before = usage(provider_);
    constexpr int kPackets = 200;
    for (int i = 0; i < kPackets; ++i) {
      const Bytes iv = random_bytes(12), aad = random_bytes(8), pt = random_bytes(1400);
      const Sealed s = seal(ref.get(), key, iv, aad, pt);
      const Opened x = open_tag_last(mine.get(), key, iv, aad, s.ct, s.tag, 1);
      ASSERT_EQ(x.results.back(), 1) << name << ' ' << openssl_errors();
      ASSERT_EQ(x.plaintext, pt);
    }
    const auto after = usage(provider_);
    EXPECT_EQ(requests_of(after, aead, "openssl-default"),
              requests_of(before, aead, "openssl-default"))
        << name << ": OpenSSL's implementation decrypted";
    EXPECT_GE(requests_of(after, keystream, "") - requests_of(before, keystream, ""), kPackets)
        << name << ": " << cryptoaccel::test::provider_stats(provider_);
  }
}

// OpenVPN's own sequence on its one decryption context per key: cipher and
// key once, then per packet an IV with the direction kept (-1), AAD, the
// payload, the tag, final. `forged` packets carry a wrong tag.
std::vector<Opened> open_on_one_context(EVP_CIPHER* c, const Bytes& key,
                                        const std::vector<Bytes>& ivs, const Bytes& aad,
                                        const std::vector<Sealed>& packets,
                                        const std::vector<bool>& forged) {
  std::vector<Opened> out;
  auto ctx = new_ctx();
  if (EVP_CipherInit(ctx.get(), c, nullptr, nullptr, 0) != 1 ||
      EVP_CipherInit_ex(ctx.get(), nullptr, nullptr, key.data(), nullptr, 0) != 1)
    return out;
  for (std::size_t i = 0; i < packets.size(); ++i) {
    Opened o;
    Bytes tag = packets[i].tag;
    if (forged[i]) tag[0] ^= 1;
    o.plaintext.assign(packets[i].ct.size(), 0);
    int n = 0, fin = 0;
    o.results.push_back(EVP_CipherInit_ex(ctx.get(), nullptr, nullptr, nullptr, ivs[i].data(), -1));
    o.results.push_back(
        EVP_CipherUpdate(ctx.get(), nullptr, &n, aad.data(), static_cast<int>(aad.size())));
    o.results.push_back(EVP_CipherUpdate(ctx.get(), o.plaintext.data(), &n, packets[i].ct.data(),
                                         static_cast<int>(packets[i].ct.size())));
    o.results.push_back(n);
    o.results.push_back(EVP_CIPHER_CTX_ctrl(ctx.get(), EVP_CTRL_AEAD_SET_TAG,
                                            static_cast<int>(tag.size()), tag.data()));
    o.results.push_back(EVP_CipherFinal(ctx.get(), o.plaintext.data() + n, &fin));
    if (forged[i]) o.plaintext.clear();  // released before the verdict: not compared
    out.push_back(std::move(o));
  }
  return out;
}

// The same packets on one reused context, as OpenVPN keeps it: the tag of
// one packet must not make the next one's payload an open on that stale
// tag, which fails and is then decrypted a second time by OpenSSL's own
// implementation. Every verdict as the default provider's; the keystream
// cipher serves every payload, OpenSSL's implementation only the forgeries.
TEST_F(TagLast, OpenVpnReusedContextStaysOnTheDriver) {
  ASSERT_FALSE(direct()) << "run with CRYPTOACCEL_DIRECT=0";
  const std::pair<const char*, const char*> cases[] = {{"AES-256-GCM", "aes-256-ctr"},
                                                       {"ChaCha20-Poly1305", "chacha20"}};
  for (const auto& [name, keystream] : cases) {
    CipherPtr mine(ours(name), &EVP_CIPHER_free), ref(theirs(name), &EVP_CIPHER_free);
    const Bytes key = random_bytes(static_cast<std::size_t>(EVP_CIPHER_get_key_length(mine.get())));
    const Bytes aad = random_bytes(8);
    constexpr int kPackets = 100;
    std::vector<Bytes> ivs;
    std::vector<Sealed> packets;
    std::vector<bool> forged;
    for (int i = 0; i < kPackets; ++i) {
      ivs.push_back(random_bytes(12));
      packets.push_back(seal(ref.get(), key, ivs.back(), aad, random_bytes(1400)));
      forged.push_back(i == 40 || i == 41);
    }
    std::string aead = name;
    for (char& ch : aead) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    const auto before = usage(provider_);
    const auto x = open_on_one_context(mine.get(), key, ivs, aad, packets, forged);
    const auto after = usage(provider_);
    const auto y = open_on_one_context(ref.get(), key, ivs, aad, packets, forged);
    ASSERT_EQ(x.size(), static_cast<std::size_t>(kPackets)) << name << ' ' << openssl_errors();
    for (int i = 0; i < kPackets; ++i) {
      EXPECT_EQ(x[i], y[i]) << name << " packet " << i;
      EXPECT_EQ(x[i].results.back(), forged[i] ? 0 : 1) << name << " packet " << i;
    }
    EXPECT_LE(requests_of(after, aead, "openssl-default") - requests_of(before, aead, "openssl-default"),
              2)
        << name << ": OpenSSL's implementation decrypted honest packets: "
        << cryptoaccel::test::provider_stats(provider_);
    EXPECT_GE(requests_of(after, keystream, "") - requests_of(before, keystream, ""), kPackets)
        << name << ": " << cryptoaccel::test::provider_stats(provider_);
  }
}

// Through the sessions, a tag-last decryption past what the provider keeps
// for a replay (1 MiB) cannot follow a direction or key change in the
// middle: the init that asks for it fails, and so does everything after it
// in that message; above all no final succeeds on the old key or
// direction, and nothing crashes. A new nonce starts a message again.
TEST_F(TagLast, AChangeAMessageCannotFollowRefusesTheRestOfTheMessage) {
  ASSERT_FALSE(direct()) << "run with CRYPTOACCEL_DIRECT=0";
  for (const char* name : {"AES-256-GCM", "ChaCha20-Poly1305"}) {
    for (const bool key_change : {false, true}) {
      if (key_change && std::string(name) == "ChaCha20-Poly1305") continue;  // a key ends its message
      CipherPtr mine(ours(name), &EVP_CIPHER_free), ref(theirs(name), &EVP_CIPHER_free);
      const Bytes key = random_bytes(32), other_key = random_bytes(32), iv = random_bytes(12),
                  aad = random_bytes(8), pt = random_bytes((std::size_t{1} << 20) + 1);
      Sealed s = seal(ref.get(), key, iv, aad, pt);
      auto ctx = new_ctx();
      Bytes out(pt.size() + 16);
      int n = 0, fin = 0;
      ASSERT_EQ(EVP_DecryptInit_ex(ctx.get(), mine.get(), nullptr, key.data(), iv.data()), 1);
      ASSERT_EQ(EVP_DecryptUpdate(ctx.get(), nullptr, &n, aad.data(), 8), 1);
      ASSERT_EQ(EVP_DecryptUpdate(ctx.get(), out.data(), &n, s.ct.data(),
                                  static_cast<int>(s.ct.size())),
                1);
      const int changed =
          key_change ? EVP_CipherInit_ex(ctx.get(), nullptr, nullptr, other_key.data(), nullptr, -1)
                     : EVP_CipherInit_ex(ctx.get(), nullptr, nullptr, nullptr, nullptr, 1);
      EXPECT_EQ(changed, 0) << name << (key_change ? ": key" : ": direction");
      EVP_CIPHER_CTX_ctrl(ctx.get(), EVP_CTRL_AEAD_SET_TAG, 16, s.tag.data());
      EXPECT_NE(EVP_CipherFinal_ex(ctx.get(), out.data() + n, &fin), 1)
          << name << ": a final succeeded after the refused change";
      EXPECT_NE(EVP_CipherUpdate(ctx.get(), out.data(), &n, s.ct.data(), 16), 1) << name;
      ERR_clear_error();
      // A new nonce: a message like any other.
      const Opened again = open_tag_last(mine.get(), key, iv, aad, s.ct, s.tag, 1);
      EXPECT_EQ(again.results.back(), 1) << name;
    }
  }
}

}  // namespace
