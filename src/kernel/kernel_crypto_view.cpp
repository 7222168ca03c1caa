// kernel_crypto_view(): the kernel's users' algorithms instantiated through
// AF_ALG, then /proc/crypto, the devices and the module aliases read.
#include <sys/utsname.h>

#include <cstring>

#include "af_alg_socket.hpp"
#include "cryptoaccel/kernel_crypto.hpp"
#include "kernel_choices.hpp"
#include "unloaded_accelerators.hpp"

namespace cryptoaccel {

KernelCryptoView kernel_crypto_view() {
  KernelCryptoView view;
  const int af_alg = kernel::probe_af_alg();
  if (af_alg != 0) {
    view.instantiate_note = std::string("AF_ALG is not available (") + std::strerror(-af_alg) +
                            "): template instances (authenc, rfc4106, xts...) show only once "
                            "the kernel's users have asked for them";
  } else {
    // Binding instantiates the template with the implementations a kernel
    // user would get; no key is set and nothing is computed. A name this
    // kernel cannot build is simply absent below.
    for (const kernel::KernelUserAlgorithm& u : kernel::kernel_user_algorithms()) {
      int error = 0;
      kernel::Fd bound = kernel::bind_transform(u.type, u.name, error);
    }
    view.instantiated = true;
  }
  const std::vector<kernel::KernelImplementation> all = kernel::read_proc_crypto();
  view.readable = !all.empty();
  view.algorithms = kernel::kernel_choices(all);
  utsname host{};
  const std::string release = uname(&host) == 0 ? host.release : "";
  view.unloaded =
      kernel::describe_unloaded(kernel::unloaded_accelerators_here(), view.algorithms, release);
  return view;
}

}  // namespace cryptoaccel
