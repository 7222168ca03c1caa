// What the kernel checks a keyring call against, for one thread: its
// credentials (every uid and gid, the supplementary groups, the
// capabilities, no_new_privs, seccomp filters, the security module's
// label) and the process and session keyrings it possesses.
//
// A call that a thread got EACCES for is run on a possessor
// (possessor_thread.hpp) only when the two threads' credentials are the
// same and their keyrings are not: then the refusal came from what the
// thread does not possess, which is what the possessor is for. Any other
// difference (a thread that switched its own uid with a raw setresuid, a
// per-thread seccomp filter, another AppArmor hat) or the same keyrings
// means the refusal is the kernel's answer to that thread: it stands.
#pragma once

#include <array>
#include <cstddef>

namespace cryptoaccel::keyring {

struct ThreadIdentity {
  // The credential lines of /proc/thread-self/status and the label of
  // /proc/thread-self/attr/current, as read; empty when they could not be.
  std::array<char, 4096> credentials{};
  std::size_t credentials_length = 0;
  bool readable = false;
  long process_keyring = 0;  // serial, or -errno (-ENOKEY: none)
  long session_keyring = 0;
};

// The calling thread's. Reads /proc (fails closed: `readable` is false
// when /proc is missing or the credentials do not fit).
void identify_this_thread(ThreadIdentity& out) noexcept;

// Whether a call refused to `caller` may be run on `possessor`'s thread.
bool may_act_for(const ThreadIdentity& possessor, const ThreadIdentity& caller) noexcept;

// Whether the process runs another thread than the caller (true when it
// cannot tell).
bool other_threads_running() noexcept;

}  // namespace cryptoaccel::keyring
