#include "core/internal/signal_chain.h"

namespace minigraph {
namespace env_internal {

void PassOnSignal(const struct sigaction& previous, int sig, siginfo_t* info, void* context,
                  bool is_fault) {
  if (previous.sa_flags & SA_SIGINFO) {
    if (previous.sa_sigaction != nullptr) previous.sa_sigaction(sig, info, context);
    return;
  }
  if (previous.sa_handler == SIG_DFL || previous.sa_handler == SIG_IGN) {
    if (is_fault) {
      signal(sig, SIG_DFL);  // an ignored fault kills too
    } else if (previous.sa_handler == SIG_DFL) {
      signal(sig, SIG_DFL);
      raise(sig);
    }
    return;
  }
  previous.sa_handler(sig);
}

}  // namespace env_internal
}  // namespace minigraph
