// `cryptoaccel list --kernel`: which implementation the kernel itself uses
// per algorithm (for IPsec, dm-crypt, fscrypt), whether it is an
// accelerator, and what loading an accelerator's module would change.
#pragma once

namespace cryptoaccel::tools {

// Prints the view (JSON with `json`; every algorithm of /proc/crypto with
// `verbose`, else those the kernel's users ask for and those an
// accelerator offers). Returns the exit status: 1 when /proc/crypto could
// not be read.
int print_kernel_view(bool json, bool verbose);

}  // namespace cryptoaccel::tools
