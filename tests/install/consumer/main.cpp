// Built against an installed cryptoaccel, through find_package and through
// pkg-config: prints SHA-256("abc") and the driver that computed it.
#include <cryptoaccel/cryptoaccel.hpp>
#include <cstdio>
#include <string>
#include <vector>

int main() {
  cryptoaccel::DigestSession session("sha256");
  const std::vector<std::uint8_t> message{'a', 'b', 'c'};
  for (std::uint8_t byte : session.digest(message)) std::printf("%02x", byte);
  std::printf(" %s\n", std::string(session.last_driver()).c_str());
}
