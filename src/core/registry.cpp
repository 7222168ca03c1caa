#include "registry.hpp"

#include "cryptoaccel/driver/vector_state.hpp"
#include "self_test.hpp"

namespace cryptoaccel::detail {

void Registry::add(std::unique_ptr<Driver> driver) {
  auto entry = std::make_unique<RegisteredDriver>();
  entry->name = std::string(driver->name());
  entry->traits = driver->traits();
  entry->index = drivers_.size();
  for (const Capability& capability : driver->capabilities()) {
    SelfTestResult result;
    const std::size_t multiple = capability.input_multiple;
    if (multiple == 0 || (multiple & (multiple - 1)) != 0) {
      // The dispatcher tests lengths against it with a mask.
      result = {.algorithm = capability.algorithm,
                .passed = false,
                .tested = false,
                .detail = "the driver declares an input multiple of " + std::to_string(multiple) +
                          " bytes: not a power of two"};
    } else if (entry->traits.self_test) {
      result = self_test(*driver, capability);
    } else {
      result = {.algorithm = capability.algorithm,
                .passed = true,
                .tested = false,
                .detail = "not tested: this driver does no cryptography"};
    }
    if (result.passed) entry->enabled[index_of(capability.algorithm)] = &capability;
    entry->self_tests.push_back(std::move(result));
  }
  entry->driver = std::move(driver);
  drivers_.push_back(std::move(entry));
  // The self-tests ran the driver's vector code on this thread, often the
  // application's: none of it may leave the AVX upper state in use.
  clear_upper_vector_state();
}

void Registry::add_absent(std::string family, std::string reason) {
  absent_.push_back({std::move(family), std::move(reason)});
}

RegisteredDriver* Registry::find(std::string_view name) const noexcept {
  for (const auto& d : drivers_)
    if (d->name == name) return d.get();
  return nullptr;
}

}  // namespace cryptoaccel::detail
