// Owned bytes that are wiped when they are released: keys and key copies.
#pragma once

#include <cstdint>
#include <cstring>
#include <memory>
#include <span>

#include "cryptoaccel/session.hpp"

namespace cryptoaccel::detail {

class SecureBuffer {
 public:
  SecureBuffer() = default;
  explicit SecureBuffer(std::span<const std::uint8_t> bytes)
      : data_(std::make_unique<std::uint8_t[]>(bytes.size() + 1)), size_(bytes.size()) {
    if (!bytes.empty()) std::memcpy(data_.get(), bytes.data(), bytes.size());
  }
  SecureBuffer(SecureBuffer&&) noexcept = default;
  SecureBuffer& operator=(SecureBuffer&& other) noexcept {
    wipe();
    data_ = std::move(other.data_);
    size_ = other.size_;
    other.size_ = 0;
    return *this;
  }
  ~SecureBuffer() { wipe(); }

  // Never null, even when empty: OpenSSL treats a null key as "keep the old one".
  const std::uint8_t* data() const noexcept { return data_ ? data_.get() : &kEmpty; }
  std::size_t size() const noexcept { return size_; }
  std::span<const std::uint8_t> span() const noexcept { return {data(), size_}; }

 private:
  void wipe() noexcept {
    if (data_) secure_wipe(data_.get(), size_);
  }
  static constexpr std::uint8_t kEmpty = 0;
  std::unique_ptr<std::uint8_t[]> data_;
  std::size_t size_ = 0;
};

}  // namespace cryptoaccel::detail
