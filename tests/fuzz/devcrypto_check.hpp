// What the /dev/crypto request decoder (src/devcrypto/protocol.cpp) must do
// with any client (issue 15): whatever the client's structs and memory hold,
// answer every ioctl with an errno of docs/devcrypto.md, a retry the kernel
// can serve (at most 256 pieces and 32 pages each way, the struct first), or
// the bytes the last retry declared; take two rounds for CIOCFSESSION and
// CIOCGSESSINFO and three for the others; keep every client within its
// bound and the server within its quota, with the quota's counts exact; and
// never crash, hang or run into undefined behaviour. A failed check prints
// what and aborts, so libFuzzer keeps the input.
//
// An input is a sequence of steps on two clients of one server, each an
// ioctl driven as the kernel's CUSE drives it (round 1 -> retry -> round 2
// -> retry -> round 3 with the bytes fetched from the client's memory), or
// a client closing its file. One step:
//
//   byte 0   what (modulo 11; the layout: a 32-bit program's step, its
//            structs cryptodev::Layout32's, its numbers 32-bit ones and
//            FUSE_IOCTL_32BIT on its calls, when byte 0 / 11 is odd):
//            0 CIOCGSESSION, 1 CIOCCRYPT, 2 CIOCAUTHCRYPT,
//            3 CIOCFSESSION, 4 CIOCGSESSINFO, 5 a command the input names
//            (4 bytes follow), 6 close and reopen the client, 7 one raw call
//            (the decoder given bytes no retry asked for, CIOCKEY's and
//            CIOCASYMFEAT's too; which command: the flags' top three bits
//            and one byte that follows), 8 CIOCASYNCCRYPT,
//            9 CIOCASYNCFETCH, 10 CIOCKEY
//   byte 1   flags: kOnB the second client; kKnownSession the session id
//            is one the server gave (index: the next byte); kMapPointers
//            pointers become addresses in the client's memory (value modulo
//            its size; 0 stays 0; CIOCKEY's crp_nbits become at most
//            4096, so that its numbers are read); kChangeStruct a byte of the struct
//            changes between rounds 2 and 3 (position: the next byte);
//            kFill some client memory is written first (offset, length,
//            bytes follow)
//   2 bytes  where the struct lies in the client's memory
//   the struct's bytes (missing bytes are 0)
//
// Used by the libFuzzer entry (devcrypto_fuzzer.cpp, clang, ASan+UBSan) and
// by the deterministic run in the unit tests (gcc, and ASan+UBSan there).
#pragma once

#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iterator>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include "abi/cryptodev.hpp"
#include "cryptoaccel/framework.hpp"
#include "devcrypto/protocol.hpp"

namespace cryptoaccel::fuzz {

inline constexpr std::uint64_t kClientBase = 0x7f1200000000;  // where the client's memory lies
inline constexpr std::size_t kClientMemory = 256 * 1024;      // room for 64 KiB src and dst
// Where a 32-bit program sees the same memory: its last bytes are the last
// below 4 GiB, so that a 32-bit pointer plus a length that wraps runs off it.
inline constexpr std::uint64_t kClientBase32 = 0x100000000 - kClientMemory;
inline constexpr std::size_t kMaxIoctlIov = 256;              // FUSE_IOCTL_MAX_IOV
inline constexpr std::size_t kMaxIoctlBytes = 32 * 4096;      // 32 pages each way
inline constexpr std::size_t kPerClient = 4;                  // Service::max_sessions
inline constexpr devcrypto::QuotaLimits kQuota{.open_files = 4, .sessions = 6, .user_share = 1};

enum StepFlags : std::uint8_t {
  kOnB = 1,
  kKnownSession = 2,
  kMapPointers = 4,
  kChangeStruct = 8,
  kFill = 16,
};

// What a run did, so that a deterministic run can show it reached the work.
struct DevcryptoTally {
  std::size_t steps = 0, done = 0, errors = 0, faults = 0, sessions = 0;
};

[[noreturn]] inline void devcrypto_check_failed(const char* what, const std::string& detail) {
  std::fprintf(stderr, "devcrypto check failed: %s: %.300s\n", what, detail.c_str());
  std::abort();
}

// The server side, built once: the soft driver behind a Service.
inline const devcrypto::Service& fuzz_service() {
  static Framework framework(FrameworkOptions{.excluded_families = {"cryptodev"}});
  static const devcrypto::Service service(framework,
                                          {.driver = "soft", .max_sessions = kPerClient});
  return service;
}

class DevcryptoRun {
 public:
  DevcryptoRun(const std::uint8_t* data, std::size_t size)
      : data_(data), size_(size), memory_(kClientMemory) {
    // A pattern where keys and IVs lie, so that they are not all zero
    // (all of it would cost more than the rest of a short input).
    for (std::size_t i = 0; i < 16 * 1024; ++i)
      memory_[i] = static_cast<std::uint8_t>(i * 131 + (i >> 8));
    for (auto& c : clients_) c = std::make_unique<devcrypto::Client>(quota_, 1000);
  }

  DevcryptoTally run() {
    while (at_ < size_) step();
    for (auto& c : clients_) c.reset();
    if (quota_.sessions() != 0)
      devcrypto_check_failed("sessions left in the quota after every file closed",
                             std::to_string(quota_.sessions()));
    return tally_;
  }

 private:
  std::uint8_t byte() { return at_ < size_ ? data_[at_++] : 0; }
  void take(void* out, std::size_t n) {
    auto* p = static_cast<std::uint8_t*>(out);
    for (std::size_t i = 0; i < n; ++i) p[i] = byte();
  }
  std::uint16_t u16() { return static_cast<std::uint16_t>(byte() | byte() << 8); }

  static bool inside_at(std::uint64_t base, const devcrypto::ClientIov& v) {
    return v.base >= base && v.len <= kClientMemory && v.base - base <= kClientMemory - v.len;
  }
  bool inside(const devcrypto::ClientIov& v) const {
    return inside_at(kClientBase, v) || inside_at(kClientBase32, v);
  }
  std::uint8_t* at(std::uint64_t address) {
    return memory_.data() + (address - (address >= kClientBase ? kClientBase : kClientBase32));
  }

  template <class L>
  static void command_of(std::uint8_t what, unsigned& cmd, std::size_t& struct_size) {
    switch (what) {
      case 0:
        cmd = L::kCiocGSession, struct_size = sizeof(typename L::SessionOp);
        break;
      case 1:
        cmd = L::kCiocCrypt, struct_size = sizeof(typename L::CryptOp);
        break;
      case 2:
        cmd = L::kCiocAuthCrypt, struct_size = sizeof(typename L::CryptAuthOp);
        break;
      case 8:
        cmd = L::kCiocAsyncCrypt, struct_size = sizeof(typename L::CryptOp);
        break;
      case 9:
        cmd = L::kCiocAsyncFetch, struct_size = sizeof(typename L::CryptOp);
        break;
      case 10:
        cmd = L::kCiocKey, struct_size = sizeof(typename L::CryptKop);
        break;
    }
  }

  void step() {
    ++tally_.steps;
    const std::uint8_t raw_what = byte();
    const std::uint8_t what = raw_what % 11;
    const bool layout32 = (raw_what / 11) % 2 == 1;
    const std::uint8_t flags = byte();
    devcrypto::Client& client = *clients_[(flags & kOnB) ? 1 : 0];
    if (what == 6) {
      clients_[(flags & kOnB) ? 1 : 0] = std::make_unique<devcrypto::Client>(quota_, u16());
      check_counts();
      return;
    }
    if (flags & kFill) {
      const std::size_t offset = u16() * 4u % kClientMemory;
      const std::size_t len = std::min<std::size_t>(byte(), kClientMemory - offset);
      take(memory_.data() + offset, len);
    }
    if (what == 7) return raw_call(client, flags, layout32);
    unsigned cmd = 0;
    std::size_t struct_size = 0;
    switch (what) {
      case 0:
      case 1:
      case 2:
      case 8:
      case 9:
      case 10:
        if (layout32)
          command_of<cryptodev::Layout32>(what, cmd, struct_size);
        else
          command_of<cryptodev::Layout64>(what, cmd, struct_size);
        break;
      case 3:
        cmd = cryptodev::kCiocFSession, struct_size = sizeof(std::uint32_t);
        break;
      case 4:
        cmd = cryptodev::kCiocGSessInfo, struct_size = sizeof(cryptodev::SessionInfoOp);
        break;
      default:
        take(&cmd, sizeof cmd), struct_size = 16;
        break;
    }
    const std::size_t offset = u16() * 4u % (kClientMemory - struct_size);
    const std::uint64_t arg = (layout32 ? kClientBase32 : kClientBase) + offset;
    std::uint8_t* s = at(arg);
    take(s, struct_size);
    if ((flags & kKnownSession) && !known_.empty() && what != 10) {
      // Every struct here has the session id first.
      const std::uint32_t id = known_[byte() % known_.size()];
      if (what != 0) std::memcpy(s, &id, sizeof id);
    }
    if (flags & kMapPointers) {
      if (layout32)
        map_pointers<cryptodev::Layout32>(what, s);
      else
        map_pointers<cryptodev::Layout64>(what, s);
    }
    const std::uint8_t change = (flags & kChangeStruct) ? byte() : 0;
    drive(client, cmd, arg, struct_size, what, (flags & kChangeStruct) != 0, change, layout32);
  }

  // A pointer field of the struct becomes an address in the client's memory
  // as a program of layout `L` sees it.
  template <class L>
  void map_pointers(std::uint8_t what, std::uint8_t* s) {
    using namespace cryptodev;
    // The inputs lay the structs out as a program of the step's layout
    // does, whatever compiles this: the server serves both on every machine.
    using SessionOp = typename L::SessionOp;
    using CryptOp = typename L::CryptOp;
    using CryptAuthOp = typename L::CryptAuthOp;
    using CryptKop = typename L::CryptKop;
    using CrParam = typename L::CrParam;
    using P = decltype(CryptOp::src);
    constexpr std::uint64_t base = std::is_same_v<L, Layout32> ? kClientBase32 : kClientBase;
    std::vector<std::size_t> fields;
    if (what == 0) fields = {offsetof(SessionOp, key), offsetof(SessionOp, mackey)};
    if (what == 1 || what == 8)
      fields = {offsetof(CryptOp, src), offsetof(CryptOp, dst), offsetof(CryptOp, mac),
                offsetof(CryptOp, iv)};
    if (what == 2)
      fields = {offsetof(CryptAuthOp, auth_src), offsetof(CryptAuthOp, src),
                offsetof(CryptAuthOp, dst), offsetof(CryptAuthOp, tag), offsetof(CryptAuthOp, iv)};
    if (what == 10) {
      for (std::size_t i = 0; i < L::kMaxKeyParams; ++i) {
        fields.push_back(offsetof(CryptKop, crk_param) + i * sizeof(CrParam));
        std::uint32_t nbits;
        std::uint8_t* field =
            s + offsetof(CryptKop, crk_param) + i * sizeof(CrParam) + offsetof(CrParam, crp_nbits);
        std::memcpy(&nbits, field, sizeof nbits);
        nbits %= 4097;
        std::memcpy(field, &nbits, sizeof nbits);
      }
    }
    for (std::size_t f : fields) {
      P p;
      std::memcpy(&p, s + f, sizeof p);
      if (p != 0) p = static_cast<P>(base + p % kClientMemory);
      std::memcpy(s + f, &p, sizeof p);
    }
  }

  // The kernel's part: each retry's input fetched from the client's memory,
  // the final answer copied to the output the last retry declared.
  void drive(devcrypto::Client& client, unsigned cmd, std::uint64_t arg, std::size_t struct_size,
             std::uint8_t what, bool change, std::uint8_t change_at, bool layout32) {
    std::vector<std::uint8_t> in;
    std::vector<devcrypto::ClientIov> out_iov;
    std::size_t out_size = 0;
    for (int round = 1;; ++round) {
      const devcrypto::IoctlCall call{.cmd = cmd,
                                      .arg = arg,
                                      .in = in,
                                      .out_size = out_size,
                                      .caller = caller_,
                                      .layout32 = layout32};
      const devcrypto::IoctlReply r = devcrypto::handle_ioctl(fuzz_service(), client, call);
      check_counts();
      switch (r.kind) {
        case devcrypto::IoctlReply::Kind::error:
          check_errno(r.error);
          ++tally_.errors;
          return;
        case devcrypto::IoctlReply::Kind::done: {
          const int rounds = what == 3 || what == 4 ? 2 : 3;
          if ((what < 5 || what == 10) && round != rounds)
            devcrypto_check_failed("done after the wrong number of rounds", std::to_string(round));
          if (r.out.size() != out_size && !r.out.empty())
            devcrypto_check_failed(
                "answer of another size than the retry declared",
                std::to_string(r.out.size()) + " of " + std::to_string(out_size));
          std::size_t from = 0;
          for (const auto& v : out_iov) {
            if (from + v.len > r.out.size()) break;
            if (!inside(v)) {
              ++tally_.faults;  // the kernel's copy fails: EFAULT, the work is done
              return;
            }
            std::memcpy(at(v.base), r.out.data() + from, v.len);
            from += v.len;
          }
          if (what == 0) remember_session(r.out, layout32);
          ++tally_.done;
          return;
        }
        case devcrypto::IoctlReply::Kind::defer:
          devcrypto_check_failed("deferred a request that had no memory to defer to", "");
        case devcrypto::IoctlReply::Kind::retry:
          if (round >= 3) devcrypto_check_failed("a retry after round 3", std::to_string(round));
          if (!check_retry(r, arg, what < 5 || what == 8 || what == 10 ? struct_size : 0,
                           layout32)) {
            ++tally_.faults;  // the kernel answers EIO; the server hears nothing
            return;
          }
          // The client changes its struct between the copies of round 2 and 3.
          if (round == 2 && change) at(arg)[change_at % struct_size] ^= 1 + (change_at >> 4);
          if (!fetch(r.in_iov, in)) {
            ++tally_.faults;  // the kernel answers EFAULT; the server hears nothing
            return;
          }
          out_iov = r.out_iov;
          out_size = 0;
          for (const auto& v : out_iov) out_size += v.len;
          break;
      }
    }
  }

  bool fetch(const std::vector<devcrypto::ClientIov>& iov, std::vector<std::uint8_t>& in) {
    in.clear();
    for (const auto& v : iov) {
      if (!inside(v)) return false;
      in.insert(in.end(), at(v.base), at(v.base) + v.len);
    }
    return true;
  }

  // struct_size 0: a command number chosen by the input, whose struct is unknown.
  // False: the kernel refuses the retry (EIO).
  static bool check_retry(const devcrypto::IoctlReply& r, std::uint64_t arg,
                          std::size_t struct_size, bool layout32) {
    // The kernel's fuse_copy_ioctl_iovec: a compat caller's pieces must
    // name 32-bit addresses and lengths, or the ioctl fails with EIO.
    if (layout32)
      for (const auto* iov : {&r.in_iov, &r.out_iov})
        for (const auto& v : *iov)
          if (v.base > 0xffffffffu || v.len > 0xffffffffu)
            devcrypto_check_failed("a 32-bit caller's piece beyond 32 bits",
                                   std::to_string(v.base) + "+" + std::to_string(v.len));
    if (r.in_iov.size() > kMaxIoctlIov || r.out_iov.size() > kMaxIoctlIov)
      devcrypto_check_failed("more pieces than CUSE moves", std::to_string(r.in_iov.size()));
    std::size_t in = 0, out = 0;
    for (const auto& v : r.in_iov) in += v.len;
    for (const auto& v : r.out_iov) out += v.len;
    if (in > kMaxIoctlBytes || out > kMaxIoctlBytes)
      devcrypto_check_failed("more bytes than CUSE moves",
                             std::to_string(in) + "/" + std::to_string(out));
    if (struct_size != 0 &&
        (r.in_iov.empty() || r.in_iov[0].base != arg || r.in_iov[0].len != struct_size))
      devcrypto_check_failed("a retry that does not start with the struct", "");
    return true;
  }

  static void check_errno(int error) {
    for (int e :
         {EINVAL, EFAULT, ENOENT, EOPNOTSUPP, EMSGSIZE, ENOSPC, ENOMEM, EBADMSG, EIO, EBUSY, EFBIG})
      if (error == e) return;
    devcrypto_check_failed("an errno docs/devcrypto.md does not list", std::to_string(error));
  }

  void check_counts() const {
    const std::size_t a = clients_[0]->size(), b = clients_[1]->size();
    if (a > kPerClient || b > kPerClient)
      devcrypto_check_failed("a client beyond its bound",
                             std::to_string(a) + "/" + std::to_string(b));
    if (quota_.sessions() != a + b || quota_.sessions() > kQuota.sessions)
      devcrypto_check_failed("the quota does not count the sessions",
                             std::to_string(quota_.sessions()) + " for " + std::to_string(a + b));
  }

  void remember_session(const std::vector<std::uint8_t>& out, bool layout32) {
    std::uint32_t ses = 0;
    if (layout32) {
      if (out.size() < sizeof(cryptodev::Layout32::SessionOp)) return;
      ses = read_ses<cryptodev::Layout32>(out);
    } else {
      if (out.size() < sizeof(cryptodev::Layout64::SessionOp)) return;
      ses = read_ses<cryptodev::Layout64>(out);
    }
    if (ses == 0) devcrypto_check_failed("session id 0", "");
    struct {
      std::uint32_t ses;
    } op{ses};
    ++tally_.sessions;
    if (known_.size() < 64) known_.push_back(op.ses);
  }

  template <class L>
  static std::uint32_t read_ses(const std::vector<std::uint8_t>& out) {
    typename L::SessionOp op;
    std::memcpy(&op, out.data(), sizeof op);
    return op.ses;
  }

  // Bytes no retry asked for: the decoder must still answer sanely. Every
  // number of both layouts, with or without FUSE_IOCTL_32BIT.
  void raw_call(devcrypto::Client& client, std::uint8_t flags, bool layout32) {
    static const unsigned kCommands[] = {cryptodev::Layout32::kCiocGSession,
                                         cryptodev::Layout32::kCiocCrypt,
                                         cryptodev::Layout32::kCiocAuthCrypt,
                                         cryptodev::Layout32::kCiocAsyncCrypt,
                                         cryptodev::Layout32::kCiocAsyncFetch,
                                         cryptodev::Layout32::kCiocKey,cryptodev::Layout64::kCiocGSession,   cryptodev::Layout64::kCiocCrypt,
                                         cryptodev::Layout64::kCiocAuthCrypt,  cryptodev::kCiocFSession,
                                         cryptodev::kCiocGSessInfo,  cryptodev::Layout64::kCiocAsyncCrypt,
                                         cryptodev::Layout64::kCiocAsyncFetch, cryptodev::kCiocCopyHash,
                                         cryptodev::Layout64::kCiocKey,        cryptodev::kCiocAsymFeat};
    // Which: the flags' top three bits and the next byte.
    const unsigned cmd = kCommands[((flags >> 5) | (byte() << 3)) % std::size(kCommands)];
    std::vector<std::uint8_t> in(byte());
    take(in.data(), in.size());
    const std::size_t out_size = u16();
    const devcrypto::IoctlCall call{.cmd = cmd,
                                    .arg = layout32 ? kClientBase32 : kClientBase,
                                    .in = in,
                                    .out_size = out_size,
                                    .caller = caller_,
                                    .layout32 = layout32};
    const devcrypto::IoctlReply r = devcrypto::handle_ioctl(fuzz_service(), client, call);
    check_counts();
    if (r.kind == devcrypto::IoctlReply::Kind::error) check_errno(r.error);
    if (r.kind == devcrypto::IoctlReply::Kind::done && r.out.size() > out_size)
      devcrypto_check_failed("a raw answer longer than declared", std::to_string(r.out.size()));
  }

  const std::uint8_t* data_;
  std::size_t size_;
  std::size_t at_ = 0;
  std::vector<std::uint8_t> memory_;
  devcrypto::ServerQuota quota_{kQuota};
  std::unique_ptr<devcrypto::Client> clients_[2];
  std::vector<std::uint32_t> known_;
  std::uint32_t caller_ = 1;  // the client's thread: async fetches claim results by it
  DevcryptoTally tally_;
};

inline DevcryptoTally check_devcrypto_input(const std::uint8_t* data, std::size_t size) {
  return DevcryptoRun(data, size).run();
}

}  // namespace cryptoaccel::fuzz
