// Looks for an RSA private key in another process's memory: reads every
// readable mapping of /proc/PID/maps through /proc/PID/mem and searches it
// for the private values of the key in KEY-FILE (d, p, q, dP, dQ, qInv), in
// big-endian (DER, PKCS#8, raw byte strings) and little-endian byte order
// (OpenSSL's BIGNUM limbs on x86-64 and arm64). It looks for every 16-byte
// piece of each value, not the whole value only, so a copy cut short or split
// across buffers is found too; a random 16-byte string turns up by chance in
// 2^-128 of the positions.
//
//   key_memory_scan PID KEY-FILE
//
// Prints what it read and each piece found (value, byte order, address).
// Exit 0: none of the private key is in the process's memory; 1: some is;
// 2: the scan could not be made (no such process, unreadable key, nothing
// read). tests/vm/key-not-in-memory runs it against `openssl s_server` with
// the provider's `key_storage = keyring` (must find nothing) and `memory`
// (must find the key: the scanner's negative control).
#include <openssl/bn.h>
#include <openssl/core_names.h>
#include <openssl/evp.h>
#include <openssl/pem.h>

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include <fcntl.h>
#include <unistd.h>

namespace {

constexpr std::size_t kPiece = 16;

struct Needle {
  std::string value;  // "d", "p", ...
  bool big_endian;
  std::size_t offset;  // of the piece within the value's bytes
  std::uint8_t bytes[kPiece];
};

struct Region {
  std::uint64_t start, end;
  std::string line;
};

std::vector<std::uint8_t> bytes_of(const BIGNUM* bn, bool big_endian) {
  std::vector<std::uint8_t> out(static_cast<std::size_t>(BN_num_bytes(bn)));
  const int n = static_cast<int>(out.size());
  if ((big_endian ? BN_bn2binpad(bn, out.data(), n) : BN_bn2lebinpad(bn, out.data(), n)) != n)
    out.clear();
  return out;
}

// The private values of the key in `path`, cut into 16-byte pieces in both
// byte orders; empty when the file holds no RSA private key.
std::vector<Needle> needles_from(const char* path) {
  std::unique_ptr<FILE, int (*)(FILE*)> file(std::fopen(path, "r"), std::fclose);
  if (!file) return {};
  std::unique_ptr<EVP_PKEY, void (*)(EVP_PKEY*)> key(
      PEM_read_PrivateKey(file.get(), nullptr, nullptr, nullptr), EVP_PKEY_free);
  if (!key || EVP_PKEY_get_base_id(key.get()) != EVP_PKEY_RSA) return {};
  const std::pair<const char*, const char*> values[] = {
      {"d", OSSL_PKEY_PARAM_RSA_D},          {"p", OSSL_PKEY_PARAM_RSA_FACTOR1},
      {"q", OSSL_PKEY_PARAM_RSA_FACTOR2},    {"dP", OSSL_PKEY_PARAM_RSA_EXPONENT1},
      {"dQ", OSSL_PKEY_PARAM_RSA_EXPONENT2}, {"qInv", OSSL_PKEY_PARAM_RSA_COEFFICIENT1},
  };
  std::vector<Needle> needles;
  for (const auto& [name, param] : values) {
    BIGNUM* bn = nullptr;
    if (EVP_PKEY_get_bn_param(key.get(), param, &bn) != 1) return {};
    for (const bool big_endian : {true, false}) {
      const std::vector<std::uint8_t> b = bytes_of(bn, big_endian);
      for (std::size_t at = 0; at + kPiece <= b.size(); at += kPiece) {
        Needle needle{name, big_endian, at, {}};
        std::memcpy(needle.bytes, b.data() + at, kPiece);
        needles.push_back(needle);
      }
    }
    BN_clear_free(bn);
  }
  return needles;
}

std::vector<Region> readable_regions(const std::string& pid) {
  std::ifstream maps("/proc/" + pid + "/maps");
  std::vector<Region> regions;
  std::string line;
  while (std::getline(maps, line)) {
    std::istringstream fields(line);
    std::string range, perms;
    fields >> range >> perms;
    const auto dash = range.find('-');
    if (dash == std::string::npos || perms.empty() || perms[0] != 'r') continue;
    regions.push_back({std::stoull(range.substr(0, dash), nullptr, 16),
                       std::stoull(range.substr(dash + 1), nullptr, 16), line});
  }
  return regions;
}

std::uint16_t first_two(const std::uint8_t* p) {
  return static_cast<std::uint16_t>(p[0] | (p[1] << 8));
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: key_memory_scan PID KEY-FILE\n");
    return 2;
  }
  const std::string pid = argv[1];
  const std::vector<Needle> needles = needles_from(argv[2]);
  if (needles.empty()) {
    std::fprintf(stderr, "key_memory_scan: %s holds no RSA private key in PEM\n", argv[2]);
    return 2;
  }
  // The pieces by their first two bytes: one table look-up per position.
  std::multimap<std::uint16_t, const Needle*> by_prefix;
  std::vector<bool> prefix_seen(65536, false);
  for (const Needle& n : needles) {
    by_prefix.emplace(first_two(n.bytes), &n);
    prefix_seen[first_two(n.bytes)] = true;
  }

  const std::vector<Region> regions = readable_regions(pid);
  const int mem = open(("/proc/" + pid + "/mem").c_str(), O_RDONLY | O_CLOEXEC);
  if (regions.empty() || mem < 0) {
    std::fprintf(stderr, "key_memory_scan: cannot read the memory of process %s: %s\n", pid.c_str(),
                 std::strerror(errno));
    return 2;
  }
  std::uint64_t scanned = 0;
  std::size_t read_regions = 0, skipped = 0;
  std::map<std::string, std::size_t> found;  // "d big-endian" -> pieces
  std::vector<std::uint8_t> buffer;
  for (const Region& region : regions) {
    buffer.resize(region.end - region.start);
    const ssize_t n = pread(mem, buffer.data(), buffer.size(), static_cast<off_t>(region.start));
    if (n <= 0) {  // [vvar], [vsyscall] and the like cannot be read through mem
      ++skipped;
      continue;
    }
    ++read_regions;
    scanned += static_cast<std::uint64_t>(n);
    const auto size = static_cast<std::size_t>(n);
    for (std::size_t at = 0; at + kPiece <= size; ++at) {
      const std::uint16_t prefix = first_two(buffer.data() + at);
      if (!prefix_seen[prefix]) continue;
      const auto [first, last] = by_prefix.equal_range(prefix);
      for (auto it = first; it != last; ++it) {
        const Needle& needle = *it->second;
        if (std::memcmp(buffer.data() + at, needle.bytes, kPiece) != 0) continue;
        const std::string what =
            needle.value + (needle.big_endian ? " big-endian" : " little-endian");
        if (found[what]++ < 4)
          std::printf("  found %s bytes %zu-%zu at 0x%llx in %s\n", what.c_str(), needle.offset,
                      needle.offset + kPiece - 1,
                      static_cast<unsigned long long>(region.start + at), region.line.c_str());
      }
    }
  }
  close(mem);
  if (read_regions == 0) {
    std::fprintf(stderr, "key_memory_scan: no mapping of process %s could be read\n", pid.c_str());
    return 2;
  }
  std::printf(
      "key_memory_scan: process %s: %llu bytes in %zu mappings read (%zu unreadable),"
      " %zu 16-byte pieces of d, p, q, dP, dQ and qInv looked for\n",
      pid.c_str(), static_cast<unsigned long long>(scanned), read_regions, skipped, needles.size());
  if (found.empty()) {
    std::printf("key_memory_scan: none of the private key is in its memory\n");
    return 0;
  }
  for (const auto& [what, count] : found)
    std::printf("key_memory_scan: %s: %zu pieces found\n", what.c_str(), count);
  return 1;
}
