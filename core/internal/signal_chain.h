// Handing a signal that a handler of ours did not take on to the handler the
// process had before (bus_errors.cc, mapping_lease.cc).
//
// Thread safety: async-signal-safe; `previous` must not change meanwhile.

#ifndef MINIGRAPH_CORE_INTERNAL_SIGNAL_CHAIN_H_
#define MINIGRAPH_CORE_INTERNAL_SIGNAL_CHAIN_H_

#include <signal.h>

namespace minigraph {
namespace env_internal {

// Calls `previous` (what sigaction returned when ours was installed). Where
// that was the default or ignoring: a fault (`is_fault`: SIGBUS, SIGSEGV,
// whose access runs again when the handler returns) gets the default
// disposition back and so faults again, fatally; another signal is raised
// again under the default unless it was ignored.
void PassOnSignal(const struct sigaction& previous, int sig, siginfo_t* info, void* context,
                  bool is_fault);

}  // namespace env_internal
}  // namespace minigraph

#endif  // MINIGRAPH_CORE_INTERNAL_SIGNAL_CHAIN_H_
