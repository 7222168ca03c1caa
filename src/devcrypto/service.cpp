#include "service.hpp"

#include "cryptoaccel/settings.hpp"

namespace cryptoaccel::devcrypto {

Service::Service(Framework& framework, ServiceOptions options)
    : framework_(framework), options_(std::move(options)) {
  check_serving_preference(framework_, options_.driver, "/dev/crypto clients");
  for (const DriverInfo& d : framework_.drivers()) {
    const bool pinned = d.name == options_.driver;
    if (!options_.driver.empty() && !pinned) continue;
    if (options_.driver.empty() && !d.traits.automatic) continue;
    if (pinned) hardware_ = d.traits.kind == DriverKind::hardware;
    for (std::size_t i = 0; i < d.capabilities.size() && i < d.self_tests.size(); ++i)
      if (d.self_tests[i].passed && d.self_tests[i].tested)
        served_[index_of(d.capabilities[i].algorithm)] = true;
  }
  driver_name_ =
      "cryptoaccel:" + (options_.driver.empty()
                            ? "dispatch(" + std::string(to_string(framework_.policy())) + ")"
                            : options_.driver);
}

}  // namespace cryptoaccel::devcrypto
