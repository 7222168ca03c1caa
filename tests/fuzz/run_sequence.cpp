#include "sequences.hpp"

namespace cryptoaccel::fuzz {

void run_sequence(const Setup& setup, const Target& t, std::span<const Record> records,
                  Differential& d, const OpFilter& filter) {
  switch (t.family) {
    case Family::cipher:
    case Family::aead:
      run_cipher_sequence(t, records, d, filter);
      break;
    case Family::digest:
      run_digest_sequence(t, records, d, filter);
      break;
    case Family::mac:
      run_mac_sequence(setup, t, records, d, filter);
      break;
  }
  d.finish();
}

std::size_t pick_length(const Record& r, std::size_t i, std::size_t max) {
  static constexpr std::size_t kLengths[] = {
      0,  1,  2,  3,  7,  8,   12,  13,  15,  16,   17,   24,     31,     32,
      33, 48, 63, 64, 65, 100, 255, 256, 257, 1000, 4096, 0xffff, 0xffff, 0xffff};
  std::size_t n = r.pick(i, kLengths);
  if (n == 0xffff) n = static_cast<std::size_t>(r.data_seed % (max + 1));
  return n > max ? max : n;
}

}  // namespace cryptoaccel::fuzz
