// Words for what libipsec-mb says: the code a manager runs, its last error.
#pragma once

#include <intel-ipsec-mb.h>

#include <string>

namespace cryptoaccel::mb {

// "AVX-512", "AVX2", "AVX", "SSE", "no AES-NI": the code a manager runs.
std::string arch_name(IMB_ARCH arch);

// The library's last error on `manager`, as text ("Invalid hash algorithm").
std::string last_error(IMB_MGR& manager);

}  // namespace cryptoaccel::mb
