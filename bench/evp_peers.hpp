// The EVP peers of framework_bench (evp_peers.cpp): each benchmark runs
// the calls `openssl speed` makes, in one library context and property
// query, so that the default provider and cryptoaccel's are timed alike.
#pragma once

#include <openssl/types.h>

#include <string>
#include <vector>

#include "bench_support.hpp"

namespace bench {

struct EvpPeer {
  std::string family;              // the benchmark's name prefix: raw, provider, provider-sessions
  std::string label;               // in its label
  OSSL_LIB_CTX* libctx = nullptr;  // null: OpenSSL's default context
  const char* properties = nullptr;  // the fetches' property query
};

// raw/ always; provider/ and provider-sessions/ when cryptoaccel.so loads
// from `provider_dir` (a note on stderr when it does not).
std::vector<EvpPeer> evp_peers(const char* provider_dir);

// openssl speed -evp aes-128-cbc: EVP_EncryptUpdate in place on a keyed context.
void evp_cbc_update(benchmark::State& state, const EvpPeer& peer, std::size_t size);
// The peer of a one-shot CBC encrypt: init(IV), update, final.
void evp_cbc_encrypt(benchmark::State& state, const EvpPeer& peer, std::size_t size);
// The peer of a GCM seal: init(IV, with `rekey` the key too), update, final, tag.
void evp_gcm_seal(benchmark::State& state, const EvpPeer& peer, std::size_t size, bool rekey);
// What openssl speed -evp aes-128-gcm times in OpenSSL 3.0: updates on one IV.
void evp_gcm_update(benchmark::State& state, const EvpPeer& peer, std::size_t size);
// openssl speed -evp sha256: EVP_Digest one-shot.
void evp_sha256(benchmark::State& state, const EvpPeer& peer, std::size_t size);
// openssl speed -hmac sha256: EVP_MAC init(NULL key), update, final.
void evp_hmac(benchmark::State& state, const EvpPeer& peer, std::size_t size);

}  // namespace bench
