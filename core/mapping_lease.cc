#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <sys/mman.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <map>
#include <mutex>
#include <thread>

#include "absl/synchronization/mutex.h"
#include "core/bus_errors.h"
#include "core/internal/mapping_lease.h"
#include "core/internal/signal_chain.h"
#include "core/logging.h"

namespace minigraph {
namespace env_internal {

struct MappingLease::State {
  int fd;
  char* data;
  size_t size;
  int slot = -1;  // in g_ranges, or -1
  std::atomic<bool> broken{false};
  std::atomic<bool> revoked{false};
};

namespace {

// The leased mappings' address ranges, for the SIGBUS handler, which can
// take no lock: a slot is taken and freed under g_mu, and read with atomics.
struct Range {
  std::atomic<uintptr_t> begin{0}, end{0};
  std::atomic<bool> lost{false};  // a page of it was replaced by zeros
};
constexpr int kMaxRanges = 1024;
Range g_ranges[kMaxRanges];
// Counts leases found revoked and pages replaced: zero while none ever was.
std::atomic<uint64_t> g_revoked{0};
uintptr_t g_page_size = 4096;  // set by Start, before any range exists

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

// Whether this process still holds a lease on `fd`, active or being broken:
// /proc/self/fdinfo/FD lists it ("lock: 1: LEASE  BREAKING  UNLCK ...")
// until it is released, or revoked because the process did not answer in
// time. (F_GETLEASE cannot tell: it answers F_UNLCK for both a lease being
// broken and none.) True where fdinfo cannot be read.
bool StillLeased(int fd) {
  char path[64];
  std::snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", fd);
  const int info = open(path, O_RDONLY | O_CLOEXEC);
  if (info < 0) return true;
  char buf[4096];
  const ssize_t n = read(info, buf, sizeof(buf) - 1);
  close(info);
  if (n <= 0) return true;
  buf[n] = '\0';
  return std::strstr(buf, "LEASE") != nullptr;
}

void MarkRevoked(MappingLease::State* s) {
  if (!s->revoked.exchange(true)) g_revoked.fetch_add(1);
}

// The lease thread: for each broken lease, privatizes its mapping and
// releases it, so the process that broke it goes on. A lease the kernel
// revoked first (the process did not answer in time) is privatized all the
// same, as its file is now, and marked revoked.
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
    if (!StillLeased(fd)) {
      MG_LOG(WARNING) << "a mapped file's lease was revoked before this process could answer "
                         "(stopped for longer than /proc/sys/fs/lease-break-time?): another "
                         "process may have changed it, so what was read in place from it is "
                         "marked as lost";
      MarkRevoked(it->second.get());
    }
    Privatize(*it->second);
    it->second->broken.store(true);
    fcntl(fd, F_SETLEASE, F_UNLCK);
  }
}

bool Start() {
  g_page_size = static_cast<uintptr_t>(sysconf(_SC_PAGE_SIZE));
  // The SIGBUS handler, which asks ReplaceLostPage before it kills.
  RunCatchingBusErrors([] {});
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
    for (int i = 0; i < kMaxRanges && size > 0; ++i) {
      if (g_ranges[i].begin.load(std::memory_order_relaxed) != 0) continue;
      state->slot = i;
      g_ranges[i].lost.store(false, std::memory_order_relaxed);
      g_ranges[i].end.store(reinterpret_cast<uintptr_t>(data) + size, std::memory_order_relaxed);
      g_ranges[i].begin.store(reinterpret_cast<uintptr_t>(data), std::memory_order_release);
      break;
    }
  }
  // The break signal carries the descriptor (si_fd) only when it is set
  // with F_SETSIG.
  if (fcntl(fd, F_SETSIG, SIGIO) != 0 || fcntl(fd, F_SETLEASE, F_RDLCK) != 0) {
    absl::MutexLock l(&g_mu);
    g_leased[fd].store(false, std::memory_order_release);
    if (state->slot >= 0) g_ranges[state->slot].begin.store(0, std::memory_order_release);
    Leases().erase(fd);
    close(fd);
    return nullptr;
  }
  return std::unique_ptr<MappingLease>(new MappingLease(std::move(state)));
}

MappingLease::~MappingLease() {
  absl::MutexLock l(&g_mu);
  g_leased[state_->fd].store(false, std::memory_order_release);
  if (state_->slot >= 0) g_ranges[state_->slot].begin.store(0, std::memory_order_release);
  Leases().erase(state_->fd);
  if (!state_->broken.load()) fcntl(state_->fd, F_SETLEASE, F_UNLCK);
  close(state_->fd);
}

bool MappingLease::broken() const { return state_->broken.load(); }

bool MappingLease::revoked() const {
  if (state_->revoked.load()) return true;
  if (state_->slot >= 0 && g_ranges[state_->slot].lost.load(std::memory_order_acquire)) {
    MarkRevoked(state_.get());
    return true;
  }
  return false;
}

bool ReplaceLostPage(const void* addr) {
  const uintptr_t a = reinterpret_cast<uintptr_t>(addr);
  for (Range& r : g_ranges) {
    const uintptr_t begin = r.begin.load(std::memory_order_acquire);
    if (begin == 0 || a < begin || a >= r.end.load(std::memory_order_relaxed)) continue;
    const uintptr_t page = g_page_size;
    void* at = reinterpret_cast<void*>(a & ~(page - 1));
    if (mmap(at, page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) ==
        MAP_FAILED) {
      return false;
    }
    if (!r.lost.exchange(true, std::memory_order_acq_rel)) {
      g_revoked.fetch_add(1, std::memory_order_relaxed);
    }
    return true;
  }
  return false;
}

uint64_t RevokedLeases() { return g_revoked.load(std::memory_order_acquire); }

}  // namespace env_internal
}  // namespace minigraph
