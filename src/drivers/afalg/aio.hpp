// Linux native AIO (io_setup/io_submit/io_getevents), the kernel interface
// that lets one thread keep several AF_ALG reads outstanding: algif_skcipher
// and algif_aead start the operation when the read is submitted and complete
// it from the driver's callback, so an asynchronous device (virtio-crypto,
// an accelerator card) works on all of them at once. Raw system calls: glibc
// has no wrappers, and libaio is not needed for this much.
#pragma once

#include <linux/aio_abi.h>
#include <sys/uio.h>

#include <cstddef>
#include <span>

namespace cryptoaccel::afalg {

class AioContext {
 public:
  AioContext() = default;
  AioContext(const AioContext&) = delete;
  AioContext& operator=(const AioContext&) = delete;
  ~AioContext();

  // Creates the kernel context for up to `depth` reads on first use; 0 or a
  // negative errno (ENOSYS, or EAGAIN when fs.aio-max-nr is used up).
  int ready(unsigned depth) noexcept;

  // Prepares a vectored read of `fd` into `iov`, tagged with `tag`.
  static iocb read_request(int fd, std::span<const iovec> iov, std::size_t tag) noexcept;

  // Submits the reads; returns how many the kernel took (the first ones) or
  // a negative errno when it took none.
  int submit(std::span<iocb*> reads) noexcept;

  // Waits for exactly events.size() completions.
  int wait(std::span<io_event> events) noexcept;

  // Destroys the context, waiting for every read still in the kernel; the
  // next ready() makes a new one.
  void reset() noexcept;

 private:
  aio_context_t context_ = 0;
  bool ready_ = false;
};

}  // namespace cryptoaccel::afalg
