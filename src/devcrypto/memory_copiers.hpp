// Processes that copy between the server and its clients' memory, for the
// requests larger than a round (client_memory.hpp explains why not threads).
//
// A copier is a process of its own with one socket to the server and one
// shared staging buffer: the server puts a request's output there and asks
// it to write it to the client, or asks it to read the client's input
// there. The server waits for the answer until a deadline; a copier that
// has not answered by then (stuck in a page the client's FUSE daemon never
// gives) is killed and given up, and is counted against the client's user
// while the kernel keeps it alive. The server itself never touches the
// client's memory, so nothing the client does can keep a server thread
// asleep, and stop() ends every wait at once.
//
// The copiers are forked by a small process of their own (the factory),
// itself forked when the server starts: before any client's key is in the
// server's memory, and keeping no descriptor of the server's but its
// socket. A copier the kernel keeps alive after the server has gone so
// holds no secret of other clients and does not hold the device open.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <span>
#include <vector>

#include "client_memory.hpp"

namespace cryptoaccel::devcrypto {

// The most one transfer moves: a request's data (kMaxData) with its struct,
// IV, AAD's share beyond the data, tag and digest.
inline constexpr std::size_t kMaxTransferBytes = 1024 * 1024 + 64 * 1024;

class MemoryCopiers {
 public:
  // Forks the factory; throws std::system_error when it cannot. Call it
  // before any client's secret is in this process's memory.
  explicit MemoryCopiers(std::chrono::milliseconds deadline);
  // Ends every copier: those the kernel keeps in a client's memory as soon
  // as it lets them go. Call after every transfer has returned.
  ~MemoryCopiers();
  MemoryCopiers(const MemoryCopiers&) = delete;
  MemoryCopiers& operator=(const MemoryCopiers&) = delete;

  // move_client_bytes() done by a copier. Errors as there, and: ETIMEDOUT
  // when the copier did not answer by the deadline (it is given up, and
  // counted against `user` while it lives); ECANCELED after stop(); EIO
  // when no copier could be had.
  int transfer(pid_t tid, uid_t user, std::span<const ClientIov> pieces, void* bytes,
               std::size_t size, MemoryDirection direction);
  // The copiers given up on `user`'s memory that are still alive.
  unsigned stuck(uid_t user);
  // Every transfer waiting returns ECANCELED at once, and every later one.
  void stop();

  std::chrono::milliseconds deadline() const noexcept { return deadline_; }

 private:
  struct Copier {
    int socket = -1;
    int pidfd = -1;
    std::uint8_t* staging = nullptr;
  };
  struct GivenUp {
    uid_t user;
    int pidfd;
  };
  bool spawn(Copier& copier);
  void give_up(Copier& copier, uid_t user);
  static void end(Copier& copier);
  // Waits for the copier's answer until the deadline or stop(): true when
  // it answered (in `error`).
  bool await_answer(const Copier& copier, int& error);

  const std::chrono::milliseconds deadline_;
  int factory_socket_ = -1;
  int factory_pidfd_ = -1;
  int stop_fd_ = -1;  // an eventfd, readable once stop() was called
  std::mutex spawn_mutex_;  // one exchange with the factory at a time
  std::mutex mutex_;
  bool stopped_ = false;
  std::vector<Copier> idle_;
  std::vector<GivenUp> given_up_;
};

// The caller's memory for one request, through the copiers.
class CopiedMemory final : public CallerMemory {
 public:
  CopiedMemory(MemoryCopiers& copiers, pid_t tid, uid_t user)
      : copiers_(copiers), tid_(tid), user_(user) {}
  int read(std::span<const ClientIov> pieces, std::span<std::uint8_t> bytes) override {
    return copiers_.transfer(tid_, user_, pieces, bytes.data(), bytes.size(),
                             MemoryDirection::read);
  }
  int write(std::span<const ClientIov> pieces, std::span<const std::uint8_t> bytes) override {
    return copiers_.transfer(tid_, user_, pieces, const_cast<std::uint8_t*>(bytes.data()),
                             bytes.size(), MemoryDirection::write);
  }

 private:
  MemoryCopiers& copiers_;
  pid_t tid_;
  uid_t user_;
};

}  // namespace cryptoaccel::devcrypto
