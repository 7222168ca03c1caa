// Keys and other secrets: the one type that holds them, in the library, its
// drivers and the provider alike. Copies are deep; every copy is wiped when
// it is replaced, cleared, moved from or destroyed. Also the two helpers
// every holder of a secret needs: a wipe the compiler may not remove, and a
// comparison whose time depends only on the lengths.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <span>

namespace cryptoaccel {

// Overwrites `size` bytes at `data` in a way the compiler may not remove.
void secure_wipe(void* data, std::size_t size) noexcept;

// Compares in time that depends only on the length.
bool constant_time_equal(std::span<const std::uint8_t> a, std::span<const std::uint8_t> b) noexcept;

class SecretBytes {
 public:
  SecretBytes() = default;
  explicit SecretBytes(std::span<const std::uint8_t> bytes) { assign(bytes); }
  SecretBytes(const SecretBytes& other) { assign(other.span()); }
  SecretBytes(SecretBytes&& other) noexcept
      : data_(std::move(other.data_)), size_(other.size_), capacity_(other.capacity_) {
    other.size_ = other.capacity_ = 0;
  }
  SecretBytes& operator=(const SecretBytes& other) {
    if (this != &other) assign(other.span());
    return *this;
  }
  SecretBytes& operator=(SecretBytes&& other) noexcept {
    if (this != &other) {
      release();
      data_ = std::move(other.data_);
      size_ = other.size_;
      capacity_ = other.capacity_;
      other.size_ = other.capacity_ = 0;
    }
    return *this;
  }
  ~SecretBytes() { release(); }

  // The old bytes are wiped first; the storage is reused when it is large
  // enough, so that re-keying with a key of the same length allocates nothing.
  void assign(std::span<const std::uint8_t> bytes) {
    clear();
    if (bytes.size() > capacity_) {
      release();
      data_ = std::make_unique<std::uint8_t[]>(bytes.size());
      capacity_ = bytes.size();
    }
    if (!bytes.empty()) std::memcpy(data_.get(), bytes.data(), bytes.size());
    size_ = bytes.size();
  }
  void clear() noexcept {
    if (data_) secure_wipe(data_.get(), capacity_);
    size_ = 0;
  }
  // Constant time in the contents.
  bool equals(std::span<const std::uint8_t> other) const noexcept {
    return other.size() == size_ && constant_time_equal(other, span());
  }

  // Never null, even when empty: OpenSSL reads a null key as "keep the old one".
  const std::uint8_t* data() const noexcept { return data_ ? data_.get() : &kEmpty; }
  std::size_t size() const noexcept { return size_; }
  bool empty() const noexcept { return size_ == 0; }
  std::span<const std::uint8_t> span() const noexcept { return {data(), size_}; }

 private:
  void release() noexcept {
    clear();
    data_.reset();
    capacity_ = 0;
  }
  static constexpr std::uint8_t kEmpty = 0;
  std::unique_ptr<std::uint8_t[]> data_;
  std::size_t size_ = 0, capacity_ = 0;
};

}  // namespace cryptoaccel
