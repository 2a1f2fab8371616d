#include "core/bus_errors.h"

#include <setjmp.h>
#include <signal.h>

#include <mutex>

#include "core/internal/mapping_lease.h"
#include "core/internal/signal_chain.h"

namespace minigraph {
namespace {

// Where the innermost RunCatchingBusErrors of this thread resumes, if any.
thread_local sigjmp_buf* t_resume = nullptr;
struct sigaction g_previous;

void OnBusError(int sig, siginfo_t* info, void* context) {
  if (sigjmp_buf* resume = t_resume; resume != nullptr) {
    // SA_NODEFER left SIGBUS unblocked, so the mask needs no restoring and
    // sigsetjmp did not save it (which would cost a system call per read).
    siglongjmp(*resume, 1);
  }
  // A page of a leased mapping whose file shrank while the lease was
  // revoked: zeros instead, and the mapping is marked (mapping_lease.h).
  if (env_internal::ReplaceLostPage(info->si_addr)) return;
  // Not raised inside RunCatchingBusErrors: what the process did before.
  env_internal::PassOnSignal(g_previous, sig, info, context, /*is_fault=*/true);
}

void InstallHandler() {
  struct sigaction action = {};
  action.sa_sigaction = OnBusError;
  action.sa_flags = SA_SIGINFO | SA_NODEFER | SA_ONSTACK;
  sigemptyset(&action.sa_mask);
  sigaction(SIGBUS, &action, &g_previous);
}

}  // namespace

bool RunCatchingBusErrors(absl::FunctionRef<void()> fn) {
  if (!kCanCatchBusErrors) {
    fn();
    return true;
  }
  static std::once_flag installed;
  std::call_once(installed, InstallHandler);
  sigjmp_buf resume;
  sigjmp_buf* const outer = t_resume;
  if (sigsetjmp(resume, /*savemask=*/0) != 0) {
    t_resume = outer;
    return false;
  }
  t_resume = &resume;
  fn();
  t_resume = outer;
  return true;
}

}  // namespace minigraph
