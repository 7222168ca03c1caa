// Framework::Impl, for the library's own translation units.
#pragma once

#include "cryptoaccel/framework.hpp"
#include "dispatcher.hpp"
#include "registry.hpp"

namespace cryptoaccel {

struct Framework::Impl {
  detail::Registry registry;
  detail::Dispatcher dispatcher;
  DispatchInfo dispatch;  // what dispatch_info() reports, less the live quarantine list
};

}  // namespace cryptoaccel
