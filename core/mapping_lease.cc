#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <sys/mman.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <map>
#include <mutex>
#include <thread>

#include "absl/synchronization/mutex.h"
#include "core/internal/mapping_lease.h"
#include "core/internal/signal_chain.h"
#include "core/logging.h"

namespace minigraph {
namespace env_internal {

struct MappingLease::State {
  int fd;
  char* data;
  size_t size;
  std::atomic<bool> broken{false};
};

namespace {

// Descriptors at or above this are not leased (the signal handler looks
// them up in a fixed table).
constexpr int kMaxLeasedFd = 1 << 16;

// Which descriptors hold a lease: read by the signal handler, which can
// take no lock.
std::atomic<bool> g_leased[kMaxLeasedFd];
// The signal handler writes the broken lease's descriptor here; the lease
// thread reads it.
int g_pipe[2] = {-1, -1};
struct sigaction g_previous;

absl::Mutex g_mu;
std::map<int, std::shared_ptr<MappingLease::State>>& Leases() ABSL_EXCLUSIVE_LOCKS_REQUIRED(g_mu) {
  static auto* leases = new std::map<int, std::shared_ptr<MappingLease::State>>;
  return *leases;
}

void OnSigio(int sig, siginfo_t* info, void* context) {
  const int fd = info->si_fd;
  if (fd >= 0 && fd < kMaxLeasedFd && g_leased[fd].load(std::memory_order_acquire)) {
    const int saved = errno;
    ssize_t ignored = write(g_pipe[1], &fd, sizeof(fd));
    (void)ignored;
    errno = saved;
    return;
  }
  // Not a lease of ours: what the process did before.
  PassOnSignal(g_previous, sig, info, context, /*is_fault=*/false);
}

// The range being made private, if any: a write to it meanwhile waits in
// OnSigsegv until it is done, then lands in the private copy.
std::atomic<uintptr_t> g_privatizing_begin{0}, g_privatizing_end{0};
struct sigaction g_previous_sigsegv;

void OnSigsegv(int sig, siginfo_t* info, void* context) {
  const uintptr_t addr = reinterpret_cast<uintptr_t>(info->si_addr);
  if (addr >= g_privatizing_begin.load(std::memory_order_acquire) &&
      addr < g_privatizing_end.load(std::memory_order_acquire)) {
    // Returning retries the write: once the range is private and writable.
    while (addr >= g_privatizing_begin.load(std::memory_order_acquire) &&
           addr < g_privatizing_end.load(std::memory_order_acquire)) {
      sched_yield();
    }
    return;
  }
  PassOnSignal(g_previous_sigsegv, sig, info, context, /*is_fault=*/true);
}

// Replaces the mapping with anonymous memory holding its bytes as they are
// (the file's, and what the process wrote to its private pages). Copy on
// write would not do: truncation discards private copies of pages past
// the new end too. Writes wait meanwhile (read-only, OnSigsegv), so none
// is lost between the copy and the swap; reads go on.
void Privatize(const MappingLease::State& s) {
  if (s.size == 0) return;
  void* copy = mmap(nullptr, s.size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (copy == MAP_FAILED) {
    MG_LOG(WARNING) << "no memory to copy a mapped file of " << s.size
                    << " bytes before it changes: its pages past the file's new end will "
                       "raise SIGBUS when touched";
    return;
  }
  const uintptr_t begin = reinterpret_cast<uintptr_t>(s.data);
  g_privatizing_end.store(begin + s.size, std::memory_order_release);
  g_privatizing_begin.store(begin, std::memory_order_release);
  mprotect(s.data, s.size, PROT_READ);
  std::memcpy(copy, s.data, s.size);
  if (mremap(copy, s.size, s.size, MREMAP_MAYMOVE | MREMAP_FIXED, s.data) == MAP_FAILED) {
    MG_LOG(WARNING) << "swapping a mapped file of " << s.size
                    << " bytes for a copy failed (errno " << errno
                    << "): its pages past the file's new end will raise SIGBUS when touched";
    mprotect(s.data, s.size, PROT_READ | PROT_WRITE);
    munmap(copy, s.size);
  }
  g_privatizing_begin.store(0, std::memory_order_release);
  g_privatizing_end.store(0, std::memory_order_release);
}

// The lease thread: for each broken lease, privatizes its mapping and
// releases it, so the process that broke it goes on.
void ServeBrokenLeases() {
  for (;;) {
    int fd;
    const ssize_t got = read(g_pipe[0], &fd, sizeof(fd));
    if (got != sizeof(fd)) {
      if (got < 0 && errno == EINTR) continue;
      return;
    }
    absl::MutexLock l(&g_mu);
    auto it = Leases().find(fd);
    if (it == Leases().end() || it->second->broken.load()) continue;
    Privatize(*it->second);
    it->second->broken.store(true);
    fcntl(fd, F_SETLEASE, F_UNLCK);
  }
}

bool Start() {
  if (pipe2(g_pipe, O_CLOEXEC) != 0) return false;
  struct sigaction action = {};
  action.sa_sigaction = OnSigio;
  action.sa_flags = SA_SIGINFO | SA_RESTART;
  sigemptyset(&action.sa_mask);
  if (sigaction(SIGIO, &action, &g_previous) != 0) return false;
  struct sigaction segv = {};
  segv.sa_sigaction = OnSigsegv;
  segv.sa_flags = SA_SIGINFO | SA_ONSTACK;
  sigemptyset(&segv.sa_mask);
  if (sigaction(SIGSEGV, &segv, &g_previous_sigsegv) != 0) return false;
  std::thread(ServeBrokenLeases).detach();  // for the life of the process
  return true;
}

}  // namespace

MappingLease::MappingLease(std::shared_ptr<State> state) : state_(std::move(state)) {}

std::unique_ptr<MappingLease> MappingLease::Take(int fd, char* data, size_t size) {
  static const bool started = Start();
  if (!started || fd < 0 || fd >= kMaxLeasedFd) {
    if (fd >= 0) close(fd);
    return nullptr;
  }
  auto state = std::make_shared<State>();
  state->fd = fd;
  state->data = data;
  state->size = size;
  {
    absl::MutexLock l(&g_mu);
    Leases()[fd] = state;
    g_leased[fd].store(true, std::memory_order_release);
  }
  // The break signal carries the descriptor (si_fd) only when it is set
  // with F_SETSIG.
  if (fcntl(fd, F_SETSIG, SIGIO) != 0 || fcntl(fd, F_SETLEASE, F_RDLCK) != 0) {
    absl::MutexLock l(&g_mu);
    g_leased[fd].store(false, std::memory_order_release);
    Leases().erase(fd);
    close(fd);
    return nullptr;
  }
  return std::unique_ptr<MappingLease>(new MappingLease(std::move(state)));
}

MappingLease::~MappingLease() {
  absl::MutexLock l(&g_mu);
  g_leased[state_->fd].store(false, std::memory_order_release);
  Leases().erase(state_->fd);
  if (!state_->broken.load()) fcntl(state_->fd, F_SETLEASE, F_UNLCK);
  close(state_->fd);
}

bool MappingLease::broken() const { return state_->broken.load(); }

}  // namespace env_internal
}  // namespace minigraph
