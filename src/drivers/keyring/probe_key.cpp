// The key the probe loads to learn whether this kernel takes RSA private
// keys at all: a 2048-bit key made for the purpose with `openssl genpkey`
// and `openssl pkcs8 -topk8 -nocrypt`. It protects nothing.
#include "probe_key.hpp"

#include <array>
#include <cstdint>
#include <string_view>

namespace cryptoaccel::keyring {
namespace {

constexpr std::string_view kProbeKeyHex =
    "308204bc020100300d06092a864886f70d0101010500048204a6308204a202010002820101009e0f52bf2e48a12efd"
    "98"
    "eefe6c1bea53ba82a9e575597f68664b2cc86521067c6eac0617e38f3ffe1fc5298e099a6817f163954d20fa8be613"
    "b0"
    "81719af25f3abfd915751f26b6e79bcb5437d3dc6da6d7c6319b32c98581c4bb2345bc5bfb50bcdb2f13c095c0c242"
    "9b"
    "48a9b906f7a005ec43a2678f375334a298b849de1814c1f4a5d2d93bddbcf54defbd0e60ecd06c6e31487615946ff8"
    "bd"
    "c173b85833b16dad2ece12f4bb4aa1b0da05cb9e3b441713001bdce4f44d1f468f837227a637bd1180d820038e837e"
    "75"
    "1a595615595659be56d0c7b0be2121a8d78f1885ed56a3c370861f6df3aca0ef676438c8532077a1bb708e5acf9108"
    "e3"
    "ed9f0739f9690203010001028201000702d0fdcff4c2c98dd029d1b943e7b9fd0cecb253e93b608b210c847b0fe2f4"
    "c4"
    "07f76139e3d1c7d8eaeaf3f4f31768f07925573d7e3f945e0d3740adc9d0758faaf66bb28d0a11edf42ff12601a20f"
    "83"
    "84b41099491d15eb7f0d8a7b576d2760a92c4669057b7e626bf6e62861e9bbfc67457cbfb13798063eac1d8891446a"
    "1d"
    "6e40798ed78798447c814fd47bc130e90d5f84aad2347a925715e2115d5ca17b12d839386bd940b668fac56b77c49c"
    "8d"
    "a26027f6fc5085ccabb5dfe6fc4dc927a839f6cad7782f93d5cfbaea87ebacb660908a452ca19c6c9ec4e706cedce2"
    "a3"
    "34d5b2ca06cfac4bd9720ef2bd48f3fe183478a476de16ca7eb2fba1a6223102818100d36e9e20dcc1972ae618c4d7"
    "cf"
    "2d70ec120faa486922716b7e88476e344252cf0398ed20d6ab09439dd78161d08ca4daf1ddd2412e460ca5f5a65a2f"
    "c1"
    "53c224aa3114d30f7916ef3c8e5c2d306d00cd8fd1eb833339e8d1063bdfa49c989d49afe9a031ff0b428af2771473"
    "43"
    "94ba3cec38ed4b89633ffcd26a4fb2523fe04d02818100bf609c89fa44b1d978ba3fbcaaf0688c2e22f241fae87468"
    "5b"
    "6abc3b4d02108a608a25aab6837e5f75d47c9f8e7859b4f239b055849705c2b599fef01a7c49bf495aafea38f05a9a"
    "27"
    "e36f4aae9c4357e8b8a52cd8752dcfc74ee48f5d33e0dee32a4fe09c970728f1dc75c795fc0e6dccbc26bfedac64e5"
    "f8"
    "e02b262818ab8d02818070ea4a98d24cb126bfebca7456b8b5eddd5770616b84717e2efd28e8ba1011996d1a66c97a"
    "db"
    "acfee775082bececafbe1e1d91042e6a4aa6f721f85838af3aa7ca1c9c3a7bb0f7869c988ab1b782ff42c8e41b1ade"
    "68"
    "b6e5aaa69f3192500ef0237a698b49e2018fa31de55609698c6cacdb5a1f5528242c29538d6c767096a10281800587"
    "1f"
    "de6869358de78bd1ad7c6e87468d4a9b1ec6c5921f358cc6b51bcb5478fac2e2c5a491f5c3821eca1ebdb9c23594cd"
    "8f"
    "c75896182780a15b18ca5b0eb244c726cfa827612694c260039339964462c77a95ea06b07510f7b9685eb3d1e9fe3b"
    "c9"
    "a4de410a86e73d8bf560e2aff401f6e9539fe4dbe13ca814f6fc2f823d028180202654e5893ea418c2cd534296ac72"
    "e9"
    "1f75fb76af60f14935685bcf89fdb502c91bafaa1162836af3c902f3324163bd69f3b848bbcf1ac32b7ed460fba8b5"
    "43"
    "a37b11ec917c1380aabeff9ed751102f2a8fd018a16a2ec67776c7b90ce858f4c7c234c41cb16b41999ce54b0e9251"
    "3e"
    "e382311c6bd380b9a96fa7be7e5a74f8";

constexpr int nibble(char c) {
  return c <= '9' ? c - '0' : c - 'a' + 10;
}

constexpr std::array<std::uint8_t, kProbeKeyHex.size() / 2> decoded() {
  std::array<std::uint8_t, kProbeKeyHex.size() / 2> out{};
  for (std::size_t i = 0; i < out.size(); ++i)
    out[i] = static_cast<std::uint8_t>(nibble(kProbeKeyHex[2 * i]) << 4 |
                                       nibble(kProbeKeyHex[2 * i + 1]));
  return out;
}

constexpr auto kProbeKey = decoded();

}  // namespace

std::span<const std::uint8_t> probe_key() noexcept {
  return kProbeKey;
}

}  // namespace cryptoaccel::keyring
