// Real TLS through libssl with cryptoaccel.so loaded by an openssl.cnf
// (OSSL_LIB_CTX_load_config, the path applications take) and preferred with
// "?provider=cryptoaccel": every suite moves 10 MB each way over loopback
// TCP intact, and the provider's usage counters show that it protected the
// records. A tampered record is rejected.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <openssl/core_names.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/params.h>
#include <openssl/provider.h>
#include <openssl/rand.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "openssl_errors.hpp"

namespace {

using Bytes = std::vector<unsigned char>;
constexpr std::size_t kTransfer = 10 * 1024 * 1024;

using cryptoaccel::test::openssl_errors;

Bytes sha256(const Bytes& data) {
  Bytes md(32);
  unsigned n = 0;
  EVP_Digest(data.data(), data.size(), md.data(), &n, EVP_sha256(), nullptr);
  return md;
}

struct Suite {
  const char* name;    // what SSL_CIPHER_get_name reports
  int version;         // TLS1_3_VERSION or TLS1_2_VERSION
  bool etm;            // TLS 1.2 CBC: encrypt-then-MAC allowed
  const char* cipher;  // the provider algorithm that protects records
  const char* mac;     // and the record MAC (CBC suites), or null
};

std::ostream& operator<<(std::ostream& out, const Suite& s) {
  return out << s.name
             << (s.version == TLS1_2_VERSION && s.mac ? (s.etm ? " etm" : " no-etm") : "");
}

// A self-signed RSA certificate, made once.
struct Identity {
  EVP_PKEY* key = nullptr;
  X509* cert = nullptr;
  Identity() {
    key = EVP_RSA_gen(2048);
    cert = X509_new();
    ASN1_INTEGER_set(X509_get_serialNumber(cert), 1);
    X509_gmtime_adj(X509_getm_notBefore(cert), 0);
    X509_gmtime_adj(X509_getm_notAfter(cert), 3600);
    X509_set_pubkey(cert, key);
    X509_NAME* name = X509_get_subject_name(cert);
    X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC,
                               reinterpret_cast<const unsigned char*>("localhost"), -1, -1, 0);
    X509_set_issuer_name(cert, name);
    X509_sign(cert, key, EVP_sha256());
  }
  ~Identity() {
    X509_free(cert);
    EVP_PKEY_free(key);
  }
};

// A library context configured like an application's openssl.cnf.
class ConfiguredLibctx {
 public:
  ConfiguredLibctx() {
    char dir[] = "/tmp/cryptoaccel-tls-XXXXXX";
    path_ = std::string(mkdtemp(dir)) + "/openssl.cnf";
    std::ofstream(path_) << "openssl_conf = openssl_init\n"
                            "[openssl_init]\nproviders = provider_sect\n"
                            "alg_section = algorithm_sect\n"
                            "[provider_sect]\ncryptoaccel = cryptoaccel_sect\n"
                            "default = default_sect\n"
                            "[cryptoaccel_sect]\nmodule = " CRYPTOACCEL_PROVIDER_MODULE
                            "\n"
                            "activate = 1\n"
                            "[default_sect]\nactivate = 1\n"
                            "[algorithm_sect]\ndefault_properties = ?provider=cryptoaccel\n";
    ctx_ = OSSL_LIB_CTX_new();
    loaded_ = OSSL_LIB_CTX_load_config(ctx_, path_.c_str()) == 1;
  }
  ~ConfiguredLibctx() {
    OSSL_LIB_CTX_free(ctx_);  // tears the provider down: CRYPTOACCEL_STATS prints here
    std::remove(path_.c_str());
    rmdir(path_.substr(0, path_.rfind('/')).c_str());
  }
  OSSL_LIB_CTX* get() const { return ctx_; }
  bool loaded() const { return loaded_; }

  // The provider's "stats" parameter (docs/provider.md).
  std::string stats() const {
    OSSL_PROVIDER* p = OSSL_PROVIDER_load(ctx_, "cryptoaccel");  // the configured one
    if (p == nullptr) return "cryptoaccel is not loaded: " + openssl_errors();
    std::string text(8192, '\0');
    OSSL_PARAM params[] = {OSSL_PARAM_construct_utf8_string("stats", text.data(), text.size()),
                           OSSL_PARAM_END};
    OSSL_PROVIDER_get_params(p, params);
    OSSL_PROVIDER_unload(p);
    return text.c_str();
  }

 private:
  std::string path_;
  OSSL_LIB_CTX* ctx_ = nullptr;
  bool loaded_ = false;
};

SSL_CTX* make_ctx(OSSL_LIB_CTX* lib, const Suite& s, bool server, const Identity& id) {
  SSL_CTX* ctx = SSL_CTX_new_ex(lib, "?provider=cryptoaccel",
                                server ? TLS_server_method() : TLS_client_method());
  if (ctx == nullptr) return nullptr;
  SSL_CTX_set_min_proto_version(ctx, s.version);
  SSL_CTX_set_max_proto_version(ctx, s.version);
  if (s.version == TLS1_3_VERSION)
    SSL_CTX_set_ciphersuites(ctx, s.name);
  else
    SSL_CTX_set_cipher_list(ctx, s.name);
  if (!s.etm) SSL_CTX_set_options(ctx, SSL_OP_NO_ENCRYPT_THEN_MAC);
  if (server) {
    SSL_CTX_use_certificate(ctx, id.cert);
    SSL_CTX_use_PrivateKey(ctx, id.key);
  }
  return ctx;
}

bool write_all(SSL* ssl, const Bytes& data) {
  for (std::size_t at = 0; at < data.size();) {
    const int n = SSL_write(ssl, data.data() + at,
                            static_cast<int>(std::min<std::size_t>(data.size() - at, 1 << 20)));
    if (n <= 0) return false;
    at += static_cast<std::size_t>(n);
  }
  return true;
}

bool read_all(SSL* ssl, Bytes& data, std::size_t size) {
  data.resize(size);
  for (std::size_t at = 0; at < size;) {
    const int n = SSL_read(ssl, data.data() + at, static_cast<int>(size - at));
    if (n <= 0) return false;
    at += static_cast<std::size_t>(n);
  }
  return true;
}

// "ALG DRIVER requests=N ..." lines: the requests served for `alg`.
unsigned long long requests_for(const std::string& stats, const std::string& alg) {
  unsigned long long total = 0;
  std::istringstream lines(stats);
  std::string name, driver, requests;
  while (lines >> name >> driver >> requests) {
    if (name == alg && requests.rfind("requests=", 0) == 0)
      total += std::stoull(requests.substr(9));
    lines.ignore(1 << 20, '\n');
  }
  return total;
}

class Tls : public testing::TestWithParam<Suite> {
 protected:
  static void SetUpTestSuite() { identity_ = new Identity(); }
  static void TearDownTestSuite() { delete identity_; }
  static inline Identity* identity_ = nullptr;
};

TEST_P(Tls, TenMegabytesEachWayIntactThroughTheProvider) {
  const Suite& s = GetParam();
  ConfiguredLibctx lib;
  ASSERT_TRUE(lib.loaded()) << openssl_errors();
  SSL_CTX* server_ctx = make_ctx(lib.get(), s, true, *identity_);
  SSL_CTX* client_ctx = make_ctx(lib.get(), s, false, *identity_);
  ASSERT_TRUE(server_ctx && client_ctx) << openssl_errors();

  // Port 0: the kernel picks a free port, so parallel runs never collide.
  const int listener = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ASSERT_EQ(bind(listener, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
  ASSERT_EQ(listen(listener, 1), 0);
  socklen_t addr_len = sizeof addr;
  getsockname(listener, reinterpret_cast<sockaddr*>(&addr), &addr_len);

  Bytes upstream(kTransfer), downstream(kTransfer);
  RAND_bytes(upstream.data(), static_cast<int>(upstream.size()));
  RAND_bytes(downstream.data(), static_cast<int>(downstream.size()));
  Bytes server_got, client_got;
  std::string server_error, negotiated;

  std::thread server([&] {
    const int fd = accept(listener, nullptr, nullptr);
    SSL* ssl = SSL_new(server_ctx);
    SSL_set_fd(ssl, fd);
    if (SSL_accept(ssl) != 1 || !read_all(ssl, server_got, kTransfer) ||
        !write_all(ssl, downstream))
      server_error = openssl_errors();
    SSL_shutdown(ssl);
    SSL_free(ssl);
    close(fd);
  });
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  ASSERT_EQ(connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
  SSL* ssl = SSL_new(client_ctx);
  SSL_set_fd(ssl, fd);
  const bool ok =
      SSL_connect(ssl) == 1 && write_all(ssl, upstream) && read_all(ssl, client_got, kTransfer);
  std::string client_error = ok ? "" : openssl_errors();
  if (ok) negotiated = SSL_CIPHER_get_name(SSL_get_current_cipher(ssl));
  SSL_shutdown(ssl);
  SSL_free(ssl);
  close(fd);
  server.join();
  close(listener);
  SSL_CTX_free(server_ctx);
  SSL_CTX_free(client_ctx);

  ASSERT_TRUE(ok) << "client: " << client_error;
  ASSERT_TRUE(server_error.empty()) << "server: " << server_error;
  EXPECT_EQ(negotiated, s.name);
  EXPECT_EQ(sha256(server_got), sha256(upstream)) << "client to server corrupted";
  EXPECT_EQ(sha256(client_got), sha256(downstream)) << "server to client corrupted";

  // Both directions of 10 MB at 16 KB a record, sealed and opened: at
  // least 2 x 2 x 640 requests for the record cipher (and MAC).
  const std::string stats = lib.stats();
  std::printf("%s\n%s", testing::PrintToString(s).c_str(), stats.c_str());
  const unsigned long long records = 4 * kTransfer / 16384;
  EXPECT_GE(requests_for(stats, s.cipher), records) << stats;
  if (s.mac != nullptr) {
    EXPECT_GE(requests_for(stats, s.mac), records) << stats;
  }
}

// Memory BIOs between two SSL objects, so a record can be altered in flight.
struct Pipe {
  SSL* client;
  SSL* server;
  BIO *c_in, *c_out, *s_in, *s_out;
  Pipe(SSL_CTX* cctx, SSL_CTX* sctx)
      : client(SSL_new(cctx)),
        server(SSL_new(sctx)),
        c_in(BIO_new(BIO_s_mem())),
        c_out(BIO_new(BIO_s_mem())),
        s_in(BIO_new(BIO_s_mem())),
        s_out(BIO_new(BIO_s_mem())) {
    for (BIO* b : {c_in, c_out, s_in, s_out}) BIO_set_mem_eof_return(b, -1);
    SSL_set_bio(client, c_in, c_out);
    SSL_set_bio(server, s_in, s_out);
    SSL_set_connect_state(client);
    SSL_set_accept_state(server);
  }
  ~Pipe() {
    SSL_free(client);
    SSL_free(server);
  }
  static void move(BIO* from, BIO* to) {
    char buffer[65536];
    int n;
    while ((n = BIO_read(from, buffer, sizeof buffer)) > 0) BIO_write(to, buffer, n);
  }
  bool handshake() {
    for (int i = 0; i < 100; ++i) {
      const int c = SSL_do_handshake(client), s = SSL_do_handshake(server);
      move(c_out, s_in);
      move(s_out, c_in);
      if (c == 1 && s == 1) return true;
    }
    return false;
  }
};

TEST_P(Tls, TamperedRecordIsRejected) {
  const Suite& s = GetParam();
  ConfiguredLibctx lib;
  ASSERT_TRUE(lib.loaded()) << openssl_errors();
  SSL_CTX* sctx = make_ctx(lib.get(), s, true, *identity_);
  SSL_CTX* cctx = make_ctx(lib.get(), s, false, *identity_);
  {
    Pipe pipe(cctx, sctx);
    ASSERT_TRUE(pipe.handshake()) << openssl_errors();
    // Whatever the server sent after the handshake (TLS 1.3 tickets) first.
    char scratch[64];
    SSL_read(pipe.client, scratch, sizeof scratch);
    ERR_clear_error();
    const std::string message(3000, 'x');
    ASSERT_EQ(SSL_write(pipe.client, message.data(), static_cast<int>(message.size())), 3000);
    char* data = nullptr;
    const long n = BIO_get_mem_data(pipe.c_out, &data);
    ASSERT_GT(n, 100);
    Bytes record(data, data + n);
    BIO_reset(pipe.c_out);
    record[static_cast<std::size_t>(n) - 40] ^= 0x01;  // in the last block (tag, MAC or padding)
    BIO_write(pipe.s_in, record.data(), static_cast<int>(record.size()));
    std::string got(3000, '\0');
    const int r = SSL_read(pipe.server, got.data(), static_cast<int>(got.size()));
    EXPECT_LE(r, 0) << "a tampered record was accepted";
    EXPECT_EQ(SSL_get_error(pipe.server, r), SSL_ERROR_SSL);
    const std::string why = openssl_errors();
    EXPECT_NE(why.find("bad record mac"), std::string::npos) << why;
  }
  SSL_CTX_free(sctx);
  SSL_CTX_free(cctx);
}

INSTANTIATE_TEST_SUITE_P(
    Suites, Tls,
    testing::Values(
        Suite{"TLS_AES_128_GCM_SHA256", TLS1_3_VERSION, true, "aes-128-gcm", nullptr},
        Suite{"TLS_AES_256_GCM_SHA384", TLS1_3_VERSION, true, "aes-256-gcm", nullptr},
        Suite{"TLS_CHACHA20_POLY1305_SHA256", TLS1_3_VERSION, true, "chacha20-poly1305", nullptr},
        Suite{"ECDHE-RSA-AES128-GCM-SHA256", TLS1_2_VERSION, true, "aes-128-gcm", nullptr},
        Suite{"ECDHE-RSA-AES256-SHA384", TLS1_2_VERSION, true, "aes-256-cbc", "hmac-sha384"},
        Suite{"ECDHE-RSA-AES256-SHA384", TLS1_2_VERSION, false, "aes-256-cbc", "hmac-sha384"}),
    [](const testing::TestParamInfo<Suite>& suite) {
      std::string name = suite.param.name;
      for (char& c : name)
        if (!isalnum(static_cast<unsigned char>(c))) c = '_';
      if (suite.param.version == TLS1_2_VERSION && suite.param.mac != nullptr)
        name += suite.param.etm ? "_etm" : "_no_etm";
      return name;
    });

}  // namespace
