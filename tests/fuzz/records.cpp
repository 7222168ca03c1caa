#include "records.hpp"

namespace cryptoaccel::fuzz {

std::vector<Record> parse_records(std::span<const std::uint8_t> bytes) {
  std::vector<Record> out;
  for (std::size_t at = 0; at < bytes.size(); at += Record::kSize) {
    std::array<std::uint8_t, Record::kSize> raw{};
    for (std::size_t i = 0; i < Record::kSize && at + i < bytes.size(); ++i) raw[i] = bytes[at + i];
    Record r;
    r.op = raw[0];
    for (std::size_t i = 0; i < r.arg.size(); ++i) r.arg[i] = raw[1 + i];
    for (std::size_t i = 0; i < 8; ++i) r.data_seed |= std::uint64_t{raw[8 + i]} << (8 * i);
    out.push_back(r);
  }
  return out;
}

Bytes serialise_records(std::span<const Record> records) {
  Bytes out;
  for (const Record& r : records) {
    out.push_back(r.op);
    out.insert(out.end(), r.arg.begin(), r.arg.end());
    for (std::size_t i = 0; i < 8; ++i)
      out.push_back(static_cast<unsigned char>(r.data_seed >> (8 * i)));
  }
  return out;
}

Bytes derived_bytes(std::uint64_t seed, std::size_t n, std::uint64_t stream) {
  SplitMix g(seed ^ (stream * 0xd1342543de82ef95ULL));
  Bytes out(n);
  for (std::size_t i = 0; i < n; i += 8) {
    const std::uint64_t v = g.next();
    for (std::size_t j = 0; j < 8 && i + j < n; ++j)
      out[i + j] = static_cast<unsigned char>(v >> (8 * j));
  }
  return out;
}

}  // namespace cryptoaccel::fuzz
