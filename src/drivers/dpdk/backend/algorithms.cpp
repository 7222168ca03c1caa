// The backend's algorithms as DPDK names them, what a device offers for
// each, and DPDK sessions for them.
#include "algorithms.hpp"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <new>
#include <string>

#include <rte_cryptodev.h>
#include <rte_errno.h>

#include "device.hpp"

namespace cryptoaccel::dpdk_backend {
namespace {

struct DpdkName {
  rte_crypto_sym_xform_type type;
  int algorithm;  // the enum of that xform type
};

DpdkName dpdk_name(int algorithm) {
  switch (algorithm) {
    case CA_DPDK_AES_ECB: return {RTE_CRYPTO_SYM_XFORM_CIPHER, RTE_CRYPTO_CIPHER_AES_ECB};
    case CA_DPDK_AES_CBC: return {RTE_CRYPTO_SYM_XFORM_CIPHER, RTE_CRYPTO_CIPHER_AES_CBC};
    case CA_DPDK_AES_CTR: return {RTE_CRYPTO_SYM_XFORM_CIPHER, RTE_CRYPTO_CIPHER_AES_CTR};
    case CA_DPDK_AES_XTS: return {RTE_CRYPTO_SYM_XFORM_CIPHER, RTE_CRYPTO_CIPHER_AES_XTS};
    case CA_DPDK_DES_CBC: return {RTE_CRYPTO_SYM_XFORM_CIPHER, RTE_CRYPTO_CIPHER_DES_CBC};
    case CA_DPDK_3DES_CBC: return {RTE_CRYPTO_SYM_XFORM_CIPHER, RTE_CRYPTO_CIPHER_3DES_CBC};
    case CA_DPDK_AES_GCM: return {RTE_CRYPTO_SYM_XFORM_AEAD, RTE_CRYPTO_AEAD_AES_GCM};
    case CA_DPDK_CHACHA20_POLY1305:
      return {RTE_CRYPTO_SYM_XFORM_AEAD, RTE_CRYPTO_AEAD_CHACHA20_POLY1305};
    case CA_DPDK_MD5: return {RTE_CRYPTO_SYM_XFORM_AUTH, RTE_CRYPTO_AUTH_MD5};
    case CA_DPDK_SHA1: return {RTE_CRYPTO_SYM_XFORM_AUTH, RTE_CRYPTO_AUTH_SHA1};
    case CA_DPDK_SHA224: return {RTE_CRYPTO_SYM_XFORM_AUTH, RTE_CRYPTO_AUTH_SHA224};
    case CA_DPDK_SHA256: return {RTE_CRYPTO_SYM_XFORM_AUTH, RTE_CRYPTO_AUTH_SHA256};
    case CA_DPDK_SHA384: return {RTE_CRYPTO_SYM_XFORM_AUTH, RTE_CRYPTO_AUTH_SHA384};
    case CA_DPDK_SHA512: return {RTE_CRYPTO_SYM_XFORM_AUTH, RTE_CRYPTO_AUTH_SHA512};
    case CA_DPDK_HMAC_MD5: return {RTE_CRYPTO_SYM_XFORM_AUTH, RTE_CRYPTO_AUTH_MD5_HMAC};
    case CA_DPDK_HMAC_SHA1: return {RTE_CRYPTO_SYM_XFORM_AUTH, RTE_CRYPTO_AUTH_SHA1_HMAC};
    case CA_DPDK_HMAC_SHA224: return {RTE_CRYPTO_SYM_XFORM_AUTH, RTE_CRYPTO_AUTH_SHA224_HMAC};
    case CA_DPDK_HMAC_SHA256: return {RTE_CRYPTO_SYM_XFORM_AUTH, RTE_CRYPTO_AUTH_SHA256_HMAC};
    case CA_DPDK_HMAC_SHA384: return {RTE_CRYPTO_SYM_XFORM_AUTH, RTE_CRYPTO_AUTH_SHA384_HMAC};
    case CA_DPDK_HMAC_SHA512: return {RTE_CRYPTO_SYM_XFORM_AUTH, RTE_CRYPTO_AUTH_SHA512_HMAC};
    default: return {RTE_CRYPTO_SYM_XFORM_NOT_SPECIFIED, 0};
  }
}

ca_dpdk_range range(const rte_crypto_param_range& r) { return {r.min, r.max, r.increment}; }

void copy_message(char* message, std::size_t size, const char* text) {
  if (size != 0) std::snprintf(message, size, "%s", text);
}

}  // namespace

// What an operation's private area holds: an IV of at most kIvSpace bytes
// and, where requests are copied, an AAD of at most kAadSpace.
void fit_operation(int id, ca_dpdk_capability* out) {
  out->iv.max = std::min<std::uint32_t>(out->iv.max, kIvSpace);
  const Device* device = open_device(id);
  if (device != nullptr && !device->description.by_reference)
    out->aad.max = std::min<std::uint32_t>(out->aad.max, kAadSpace);
  out->digest.max = std::min<std::uint32_t>(out->digest.max, kDigestSpace);
  if (out->iv.min > out->iv.max || out->aad.min > out->aad.max ||
      out->digest.min > out->digest.max)
    out->supported = 0;
}

void describe_capability(int id, int algorithm, ca_dpdk_capability* out) {
  *out = {};
  const DpdkName name = dpdk_name(algorithm);
  if (name.type == RTE_CRYPTO_SYM_XFORM_NOT_SPECIFIED) return;
  rte_cryptodev_info info{};
  rte_cryptodev_info_get(static_cast<std::uint8_t>(id), &info);
  for (const rte_cryptodev_capabilities* c = info.capabilities;
       c != nullptr && c->op != RTE_CRYPTO_OP_TYPE_UNDEFINED; ++c) {
    if (c->op != RTE_CRYPTO_OP_TYPE_SYMMETRIC || c->sym.xform_type != name.type) continue;
    switch (name.type) {
      case RTE_CRYPTO_SYM_XFORM_CIPHER:
        if (c->sym.cipher.algo != name.algorithm) continue;
        *out = {1, range(c->sym.cipher.key_size), range(c->sym.cipher.iv_size), {}, {}};
        return fit_operation(id, out);
      case RTE_CRYPTO_SYM_XFORM_AUTH:
        if (c->sym.auth.algo != name.algorithm) continue;
        *out = {1, range(c->sym.auth.key_size), range(c->sym.auth.iv_size),
                range(c->sym.auth.digest_size), {}};
        return fit_operation(id, out);
      case RTE_CRYPTO_SYM_XFORM_AEAD:
        if (c->sym.aead.algo != name.algorithm) continue;
        *out = {1, range(c->sym.aead.key_size), range(c->sym.aead.iv_size),
                range(c->sym.aead.digest_size), range(c->sym.aead.aad_size)};
        return fit_operation(id, out);
      default:
        continue;
    }
  }
}

void* create_session(int id, const ca_dpdk_session_params* p, char* message,
                     std::size_t message_size) {
  Device* device = open_device(id);
  const DpdkName name = dpdk_name(p->algorithm);
  if (device == nullptr || device->failed || name.type == RTE_CRYPTO_SYM_XFORM_NOT_SPECIFIED) {
    copy_message(message, message_size, "no such device or algorithm");
    return nullptr;
  }
  auto* session = new (std::nothrow) Session{};
  if (session == nullptr) {
    copy_message(message, message_size, "out of memory");
    return nullptr;
  }
  session->type = name.type;
  session->direction = p->direction;
  session->iv_length = p->iv_length;
  session->digest_length = p->digest_length;
  session->aad_length = p->aad_length;

  rte_crypto_sym_xform xform{};
  xform.type = name.type;
  // DPDK's key fields are not const; the PMD copies the key into its
  // session and never writes it.
  auto* key = const_cast<std::uint8_t*>(p->key);
  switch (name.type) {
    case RTE_CRYPTO_SYM_XFORM_CIPHER:
      xform.cipher.op = p->direction == CA_DPDK_DECRYPT ? RTE_CRYPTO_CIPHER_OP_DECRYPT
                                                        : RTE_CRYPTO_CIPHER_OP_ENCRYPT;
      xform.cipher.algo = static_cast<rte_crypto_cipher_algorithm>(name.algorithm);
      xform.cipher.key = {key, static_cast<std::uint16_t>(p->key_length)};
      xform.cipher.iv = {kIvOffset, static_cast<std::uint16_t>(p->iv_length)};
      break;
    case RTE_CRYPTO_SYM_XFORM_AUTH:
      xform.auth.op = RTE_CRYPTO_AUTH_OP_GENERATE;
      xform.auth.algo = static_cast<rte_crypto_auth_algorithm>(name.algorithm);
      xform.auth.key = {key, static_cast<std::uint16_t>(p->key_length)};
      xform.auth.digest_length = static_cast<std::uint16_t>(p->digest_length);
      break;
    case RTE_CRYPTO_SYM_XFORM_AEAD:
      xform.aead.op = p->direction == CA_DPDK_DECRYPT ? RTE_CRYPTO_AEAD_OP_DECRYPT
                                                      : RTE_CRYPTO_AEAD_OP_ENCRYPT;
      xform.aead.algo = static_cast<rte_crypto_aead_algorithm>(name.algorithm);
      xform.aead.key = {key, static_cast<std::uint16_t>(p->key_length)};
      xform.aead.iv = {kIvOffset, static_cast<std::uint16_t>(p->iv_length)};
      xform.aead.digest_length = static_cast<std::uint16_t>(p->digest_length);
      xform.aead.aad_length = static_cast<std::uint16_t>(p->aad_length);
      break;
    default:
      break;
  }
  std::string why;
  session->dpdk = device->sessions.create(xform, why);
  if (session->dpdk == nullptr) {
    copy_message(message, message_size, why.c_str());
    delete session;
    return nullptr;
  }
  return session;
}

void free_session(int id, void* handle) {
  auto* session = static_cast<Session*>(handle);
  if (session == nullptr) return;
  if (Device* device = open_device(id))
    device->sessions.free(session->dpdk);
  delete session;
}

}  // namespace cryptoaccel::dpdk_backend
