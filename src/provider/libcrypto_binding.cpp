// Fills the slots the jump stubs (libcrypto_stubs_x86_64.S) go through.
//
// When the module is loaded (a constructor, before the module's other
// static initialisers), from the one libcrypto in the process, so that
// nothing can call through an empty slot; and in OSSL_provider_init, from the
// libcrypto whose core functions it was handed.
//
// One loaded module has one table of slots, and the module keeps what it
// got from its libcrypto (the default provider's dispatch tables, its
// library contexts) for as long as it is loaded. So it serves one libcrypto:
// the first whose OSSL_provider_init succeeds. Another libcrypto in the same
// process (OpenSSL 4's beside 3's in a plugin host) is refused with the
// reason; rebinding the slots to it would send the first one's calls into
// the second. A second copy of the module under another file name is a
// module of its own, with its own slots, and serves the second libcrypto.
#include "libcrypto_binding.hpp"

#ifdef CRYPTOACCEL_PROVIDER_BINDS_LIBCRYPTO

#include <dlfcn.h>
#include <link.h>
#include <unistd.h>

#include <array>
#include <atomic>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string_view>
#include <vector>

namespace {

using Function = void (*)();

// A call before any libcrypto was found: the module was loaded by something
// other than libcrypto into a process with no libcrypto, or with two and a
// call before OSSL_provider_init. Nothing sensible can follow.
[[noreturn]] void called_before_binding() {
  static constexpr std::string_view message =
      "cryptoaccel provider: a libcrypto function was called before the module found the "
      "libcrypto that loaded it\n";
  [[maybe_unused]] const auto written = ::write(2, message.data(), message.size());
  std::abort();
}

constexpr std::array kFunctionNames = {
#define CRYPTOACCEL_LIBCRYPTO_FUNCTION(name) #name,
#include "libcrypto_functions.def"
#undef CRYPTOACCEL_LIBCRYPTO_FUNCTION
};

}  // namespace

// Read by every stub: slot i is the address of kFunctionNames[i] in the
// bound libcrypto. Written only while binding, an aligned pointer at a time.
extern "C" {
[[gnu::visibility("hidden")]] Function cryptoaccel_libcrypto_slots[kFunctionNames.size()] = {
#define CRYPTOACCEL_LIBCRYPTO_FUNCTION(name) &called_before_binding,
#include "libcrypto_functions.def"
#undef CRYPTOACCEL_LIBCRYPTO_FUNCTION
};
}

namespace cryptoaccel::provider {
namespace {

// The libcrypto the slots are bound to, as dlopen named it (empty: none).
std::string& bound_path() {
  static std::string path;
  return path;
}

// The libcrypto an OSSL_provider_init succeeded for (empty: none yet): the
// only one this loaded module serves.
std::string& served_path() {
  static std::string path;
  return path;
}

// Two libcryptos may initialise the module from two threads at once.
std::mutex& binding_mutex() {
  static std::mutex m;
  return m;
}

// Looks up every function in the libcrypto at `path` (already loaded) and,
// only if all are there, fills the slots with them.
std::string bind_to(const char* path) {
  void* handle = ::dlopen(path, RTLD_LAZY | RTLD_LOCAL | RTLD_NOLOAD);
  if (handle == nullptr) {
    const char* why = ::dlerror();
    return std::string("cannot open the libcrypto at ") + path + ": " +
           (why != nullptr ? why : "not loaded");
  }
  std::array<Function, kFunctionNames.size()> found{};
  std::string missing;
  std::size_t missing_count = 0;
  for (std::size_t i = 0; i < kFunctionNames.size(); ++i) {
    found[i] = reinterpret_cast<Function>(::dlsym(handle, kFunctionNames[i]));
    if (found[i] != nullptr) continue;
    if (++missing_count <= 5)
      missing += std::string(missing.empty() ? "" : ", ") + kFunctionNames[i];
  }
  // The functions stay where they are while the module is loaded: libcrypto
  // unloads its providers before it goes.
  ::dlclose(handle);
  if (missing_count != 0)
    return std::string(path) + " lacks " + std::to_string(missing_count) +
           " function(s) the provider calls: " + missing + (missing_count > 5 ? ", ..." : "");
  for (std::size_t i = 0; i < found.size(); ++i)
    __atomic_store_n(&cryptoaccel_libcrypto_slots[i], found[i], __ATOMIC_RELEASE);
  bound_path() = path;
  return {};
}

bool is_libcrypto(std::string_view path) {
  const std::size_t slash = path.rfind('/');
  const std::string_view file = slash == std::string_view::npos ? path : path.substr(slash + 1);
  return file.starts_with("libcrypto.so.");
}

// The libcryptos this process has loaded, by the names the loader used.
std::vector<std::string> loaded_libcryptos() {
  std::vector<std::string> paths;
  ::dl_iterate_phdr(
      [](dl_phdr_info* info, std::size_t, void* out) {
        if (info->dlpi_name != nullptr && is_libcrypto(info->dlpi_name))
          static_cast<std::vector<std::string>*>(out)->emplace_back(info->dlpi_name);
        return 0;
      },
      &paths);
  return paths;
}

// At load: the process's libcrypto, when there is exactly one (libcrypto is
// loading the module, so there is at least one unless a program other than
// libcrypto loads it).
[[gnu::constructor(101)]] void bind_sole_libcrypto() {
  const std::vector<std::string> paths = loaded_libcryptos();
  if (paths.size() == 1) (void)bind_to(paths.front().c_str());
}

}  // namespace

std::string bind_libcrypto_of_core(const OSSL_DISPATCH* in) {
  if (in == nullptr || in->function == nullptr) return "OpenSSL's core handed no functions";
  Dl_info info{};
  if (::dladdr(reinterpret_cast<const void*>(in->function), &info) == 0 ||
      info.dli_fname == nullptr)
    return "cannot tell which library holds OpenSSL's core functions";
  const std::lock_guard lock(binding_mutex());
  if (!served_path().empty() && served_path() != info.dli_fname)
    return std::string("this copy of the module already serves the libcrypto at ") + served_path() +
           ", and one loaded module serves one libcrypto; for the one at " + info.dli_fname +
           ", load a copy of cryptoaccel.so under another file name";
  if (bound_path() != info.dli_fname) {
    // The core is in a program linked statically with libcrypto: its
    // functions are not to be had by name.
    if (!is_libcrypto(info.dli_fname))
      return std::string("OpenSSL's core is in ") + info.dli_fname +
             ", not in a shared libcrypto: the provider needs libcrypto.so";
    if (std::string problem = bind_to(info.dli_fname); !problem.empty()) return problem;
  }
  served_path() = info.dli_fname;
  return {};
}

void* optional_libcrypto_function(const char* name) {
  const std::lock_guard lock(binding_mutex());
  if (served_path().empty()) return nullptr;
  void* handle = ::dlopen(served_path().c_str(), RTLD_LAZY | RTLD_LOCAL | RTLD_NOLOAD);
  if (handle == nullptr) return nullptr;
  void* function = ::dlsym(handle, name);
  ::dlclose(handle);  // the served libcrypto outlives the module's use of it
  return function;
}

}  // namespace cryptoaccel::provider

#else  // the module is linked to libcrypto

#include <dlfcn.h>

namespace cryptoaccel::provider {
std::string bind_libcrypto_of_core(const OSSL_DISPATCH*) {
  return {};
}

void* optional_libcrypto_function(const char* name) {
  return ::dlsym(RTLD_DEFAULT, name);
}
}  // namespace cryptoaccel::provider

#endif
