// Zero-copy input for large requests: vmsplice maps the caller's pages into
// a pipe and splice hands them to the operation socket, so the kernel reads
// the input where it lies instead of copying it into its own pages. The
// kernel takes at most 16 pages per operation (ALG_MAX_PAGES), and the pages
// must not change until the output has been read: the session reads it
// before returning.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

#include "kernel_layer.hpp"

namespace cryptoaccel::afalg {

// Below this, the copy costs less than the two extra system calls.
inline constexpr std::size_t kZeroCopyMin = 16 * 1024;
inline constexpr std::size_t kZeroCopyMaxPages = 16;

class SplicePipe {
 public:
  // Whether `in` can go by splice: page-aligned, between kZeroCopyMin and 16
  // pages, and not overlapping `out` (the kernel would read input pages it
  // has already overwritten).
  static bool suits(std::span<const std::uint8_t> in, std::span<const std::uint8_t> out) noexcept;

  // Appends `in` to the request already started on `operation` (by
  // send_request with MSG_MORE and no data) and ends it. 0 or a negative
  // errno; -EOPNOTSUPP when no pipe could be made, so the caller copies.
  int send(const Fd& operation, std::span<const std::uint8_t> in) noexcept;

 private:
  int open() noexcept;
  Fd read_end_, write_end_;
};

}  // namespace cryptoaccel::afalg
