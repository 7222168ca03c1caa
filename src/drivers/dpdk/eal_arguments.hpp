// The EAL arguments a configuration gives the dpdk driver (eal_arguments.cpp).
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace cryptoaccel::dpdk {

// The line that enables the driver for trying it: no hugepages, no PCI,
// one software device (docs/drivers/dpdk.md).
inline constexpr std::string_view kTryingArguments = "--no-huge -m 256 --vdev crypto_aesni_mb0";

// Splits `setting` as a shell would split words (spaces; 'single' and
// "double" quotes; backslash escapes), then adds what a library inside
// someone else's process needs unless the user chose otherwise: no shared
// runtime files (--no-shconf), no telemetry socket, and one lcore on a CPU
// this thread may run on. Throws InvalidArgument for an unclosed quote.
std::vector<std::string> eal_arguments(std::string_view setting);

}  // namespace cryptoaccel::dpdk
