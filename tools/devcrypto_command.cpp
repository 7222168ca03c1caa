// `cryptoaccel devcrypto`: serves /dev/crypto (the cryptodev-linux ABI) from
// userland through CUSE, on top of the framework, so that programs written
// for cryptodev-linux run where the module does not (docs/devcrypto.md).
#include <fmt/core.h>
#include <grp.h>
#include <pwd.h>

#include <cstdlib>
#include <memory>
#include <string>

#include "command.hpp"
#include "cryptoaccel/cryptoaccel.hpp"
#include "devcrypto/cuse_server.hpp"
#include "devcrypto/device_node.hpp"

namespace cryptoaccel::tools {
namespace {

struct DevcryptoOptions {
  devcrypto::ServerOptions server;
  std::string mode = "0666";
  std::string owner;
  std::string policy = "fastest";
  std::string driver;
  std::size_t max_sessions = 64;
  unsigned memory_deadline_ms = 2000;
};

// "user", "user:group" or ":group", by name or number.
void parse_owner(const std::string& text, devcrypto::ServerOptions& server) {
  const auto colon = text.find(':');
  const std::string user = text.substr(0, colon);
  const std::string group_name = colon == std::string::npos ? "" : text.substr(colon + 1);
  if (!user.empty()) {
    if (const passwd* pw = getpwnam(user.c_str()))
      server.uid = pw->pw_uid;
    else if (user.find_first_not_of("0123456789") == std::string::npos)
      server.uid = static_cast<uid_t>(std::stoul(user));
    else
      throw InvalidArgument("--owner: no user '" + user + "'");
  }
  if (!group_name.empty()) {
    if (const struct group* gr = getgrnam(group_name.c_str()))
      server.gid = gr->gr_gid;
    else if (group_name.find_first_not_of("0123456789") == std::string::npos)
      server.gid = static_cast<gid_t>(std::stoul(group_name));
    else
      throw InvalidArgument("--owner: no group '" + group_name + "'");
  }
}

}  // namespace

Action add_devcrypto_command(CLI::App& app) {
  auto options = std::make_shared<DevcryptoOptions>();
  CLI::App* cmd = app.add_subcommand(
      "devcrypto",
      "Serve /dev/crypto (the cryptodev-linux ABI) from userland through CUSE, on top of\n"
      "this framework: any driver, the dispatcher's policy. Needs root and the cuse module.\n"
      "Programs that call CRIOGET (OpenBSD style) run with libcryptoaccel-crioget.so\n"
      "preloaded, from the cryptoaccel/ folder beside the library (docs/devcrypto.md, \"CRIOGET\").");
  // A plain name here; that /dev/NAME does not exist yet is checked when
  // the server starts (run_server), where the answer is current.
  cmd->add_option("-n,--name", options->server.device_name,
                  "Device name under /dev: a plain name that does not exist yet")
      ->capture_default_str()
      ->check([](const std::string& name) { return devcrypto::device_name_problem(name); });
  cmd->add_option("-m,--mode", options->mode, "Mode of the device node, in octal")
      ->capture_default_str()
      ->check([](const std::string& m) {
        return m.empty() || m.size() > 4 || m.find_first_not_of("01234567") != std::string::npos
                   ? "an octal mode such as 0660"
                   : "";
      });
  cmd->add_option("-o,--owner", options->owner, "Owner of the device node: USER[:GROUP]");
  cmd->add_flag("-f,--foreground", options->server.foreground,
                "Stay in the foreground (systemd, tests); default: detach");
  cmd->add_option("-p,--policy", options->policy, "Dispatcher policy: fastest, offload, software")
      ->capture_default_str()
      ->check(CLI::IsMember({"fastest", "offload", "software"}));
  cmd->add_option("-d,--driver", options->driver,
                  "Pin every session to this driver (`cryptoaccel list`); default: dispatch");
  cmd->add_option("--max-sessions", options->max_sessions,
                  "Sessions one open file of the device may hold")
      ->capture_default_str()
      ->check(CLI::Range(1, 65536));
  cmd->add_option("--max-sessions-total", options->server.limits.sessions,
                  "Sessions all open files together may hold (then ENOMEM)")
      ->capture_default_str()
      ->check(CLI::Range(1, 1 << 20));
  cmd->add_option("--max-open-files", options->server.limits.open_files,
                  "Open files of the device at once (then ENOMEM)")
      ->capture_default_str()
      ->check(CLI::Range(1, 1 << 20));
  cmd->add_option("--user-share", options->server.limits.user_share,
                  "One user holds at most 1/N of the open files, the sessions and the unfetched "
                  "asynchronous output (1: no bound per user)")
      ->capture_default_str()
      ->check(CLI::Range(1, 1 << 20));
  cmd->add_option("--threads", options->server.max_threads, "Requests served at once")
      ->capture_default_str()
      ->check(CLI::Range(1, 64));
  cmd->add_option("--memory-deadline", options->memory_deadline_ms,
                  "Milliseconds a request above 128 KiB may wait on the client's memory "
                  "(then ETIMEDOUT)")
      ->capture_default_str()
      ->check(CLI::Range(10, 600000));
  cmd->add_option("--memory-slots", options->server.memory_slots_per_user,
                  "Requests above 128 KiB of one user served at once (0: half of --threads)")
      ->capture_default_str()
      ->check(CLI::Range(0, 64));
  cmd->add_flag("--debug", options->server.debug, "Trace every CUSE request on stderr");
  return [options] {
    options->server.mode = static_cast<mode_t>(std::stoul(options->mode, nullptr, 8));
    options->server.memory_deadline = std::chrono::milliseconds(options->memory_deadline_ms);
    if (!options->owner.empty()) parse_owner(options->owner, options->server);
    const Policy policy = parse_policy(options->policy, "--policy");
    // A name that is not ours to serve is refused at once, before the
    // framework probes the drivers (seconds in an emulated guest); the
    // server checks again as it starts, where the answer is current.
    if (const std::string why = devcrypto::device_node_problem("/dev", options->server.device_name);
        !why.empty()) {
      fmt::print(stderr, "cryptoaccel devcrypto: --name: {}\n", why);
      return 1;
    }
    // The null driver returns its input unchanged: refused before anything
    // is served (the Service checks again, on the framework it serves).
    check_serving_preference(Framework(FrameworkOptions{.excluded_families = {"cryptodev"}}),
                             options->driver, "/dev/crypto clients");
    std::unique_ptr<Framework> framework;
    const int status = devcrypto::run_server(options->server, [&]() {
      // The rule that keeps the server from calling into itself: its
      // framework never probes the cryptodev family, and the mark tells
      // any other framework made in this process (Framework::global()) the
      // same (docs/devcrypto.md).
      ::setenv("CRYPTOACCEL_DEVCRYPTO_SERVER", "1", 1);
      // The same dispatcher as everything else: the dispatch profile from
      // `cryptoaccel calibrate` ($CRYPTOACCEL_PROFILE or the user's cache).
      framework = std::make_unique<Framework>(FrameworkOptions{
          .excluded_families = {"cryptodev"}, .policy = policy, .profile_from_environment = true});
      return std::make_unique<devcrypto::Service>(
          *framework, devcrypto::ServiceOptions{.driver = options->driver,
                                                .max_sessions = options->max_sessions});
    });
    // Every client's session is closed and its keys wiped (run_server), the
    // device is gone: what is left is memory the kernel takes back. The
    // server ends here, without the framework's, OpenSSL's and the drivers'
    // exit-time clean-up, which in an emulated guest under load took a good
    // part of the second a stopping server may take.
    std::fflush(nullptr);
    std::_Exit(status);
  };
}

}  // namespace cryptoaccel::tools
