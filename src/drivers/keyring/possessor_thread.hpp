// Keyring calls made for a thread that does not possess our keyrings, on a
// thread that does.
//
// Since Linux 3.8 the process and session keyrings are in each thread's
// credentials: a process keyring made by one thread (and a session keyring
// it joins) is installed in that thread's credentials and inherited by the
// threads it starts afterwards, not by threads that already run, and
// nothing can install it in theirs. Our keys and keyrings grant a
// possessor's permissions only, so such a thread gets EACCES on them: a
// thread pool, or the provider's async workers, started before the first
// key was kept. A thread started right after the keyring was made holds a
// copy of the maker's credentials for good: it possesses what the maker
// possessed, and runs those calls for the others. Nothing gets wider
// permissions and nothing leaves the process: the possessor takes requests
// from this process's threads only, which could already drive the thread
// that made the keyring, and only for a thread whose credentials are the
// possessor's own and whose keyrings are not (thread_identity.hpp): a
// thread with a uid, a seccomp filter or a security label of its own, or
// one refused although it holds the same keyrings, keeps its EACCES.
#pragma once

#include <cerrno>
#include "kernel_keys.hpp"

namespace cryptoaccel::keyring {

// Starts a possessor holding the calling thread's credentials. Called by
// the thread that has just made a keyring that the process's other
// threads may not possess (kernel_keys.cpp says when). None when the
// process has no other thread: every thread it starts later inherits the
// keyring. Best effort: without one (no thread could be started) the
// calls fail as they did before.
void start_possessor() noexcept;

// Runs call(context) on each possessor of this process in turn, while the
// answer is EACCES; EACCES when there is none. A forked child has none of
// its parent's (no thread survives fork): its own start when it makes its
// own keyrings.
KeyResult on_possessor(KeyResult (*call)(void*), void* context) noexcept;

// `call` on the calling thread, and again on a possessor when the kernel
// answered EACCES (this thread possesses nothing that reaches the key or
// keyring) and the possessor may act for this thread. EACCES from every
// possessor too is a real refusal (a process outside the family, a
// security module): returned, never retried. The wait for the possessor
// is not a cancellation point (a pthread_cancel() takes effect after it).
// `call` is a noexcept lambda that captures by reference: the caller waits
// for the possessor, so what it points to (its buffers too) outlives the call.
template <typename Call>
KeyResult possessed(Call call) noexcept {
  const KeyResult here = call();
  if (here.error != EACCES) return here;
  return on_possessor([](void* c) noexcept { return (*static_cast<Call*>(c))(); }, &call);
}

}  // namespace cryptoaccel::keyring
