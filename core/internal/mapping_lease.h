// What keeps a private mapping of a file readable when someone else shrinks
// the file: a read lease (fcntl F_SETLEASE). The kernel holds back another
// process that opens the file for writing or truncates it (for at most
// /proc/sys/fs/lease-break-time seconds) and signals this one (SIGIO), whose
// lease thread replaces the mapping with anonymous memory holding the same
// bytes (mremap over it; writes to it wait meanwhile, in a SIGSEGV handler)
// and then lets the lease go. The mapping keeps its bytes and no read of it
// can raise SIGBUS, so tensors backed by it stay valid. Copy on write alone
// would not do: truncation discards private copies of pages past the new
// end as well.
//
// The protection lasts only while the process answers: a process that does
// not within /proc/sys/fs/lease-break-time (stopped by SIGSTOP or a
// debugger, a frozen container) loses the lease, and the writer goes ahead.
// When the process runs again the lease thread finds the lease gone (it is
// no longer listed in /proc/self/fdinfo), copies the mapping as it now is
// and marks it revoked(): its bytes may be another process's. A page past
// the end of a file truncated meanwhile is replaced by zeros when touched
// (the SIGBUS handler of bus_errors.cc asks ReplaceLostPage), so the
// process never dies of it; the mapping is marked revoked then too.
//
// The first lease installs handlers for SIGIO and SIGSEGV (and SIGBUS);
// signals that are not about a lease go on to the handlers there were
// before. A handler installed later that does not pass other faults on
// takes the writes made during a swap (they would then fault there).
//
// Thread safety: Take and destruction are safe from any thread.

#ifndef MINIGRAPH_CORE_INTERNAL_MAPPING_LEASE_H_
#define MINIGRAPH_CORE_INTERNAL_MAPPING_LEASE_H_

#include <cstddef>
#include <cstdint>
#include <memory>

namespace minigraph {
namespace env_internal {

class MappingLease {
 public:
  // Takes a read lease on `fd` (open read-only; owned from now on, closed by
  // the lease) for the writable private mapping [data, data + size). nullptr
  // (and `fd` closed) when the kernel refuses: the file is open for writing
  // somewhere, belongs to another user (without CAP_LEASE), or lives on a
  // file system without leases.
  static std::unique_ptr<MappingLease> Take(int fd, char* data, size_t size);
  // Releases the lease (if still held) and closes the file.
  ~MappingLease();
  MappingLease(const MappingLease&) = delete;
  MappingLease& operator=(const MappingLease&) = delete;

  // Whether someone broke the lease: the mapping is private memory now.
  bool broken() const;
  // Whether the lease was lost before the mapping was copied (see above):
  // bytes of pages the process had not written may have changed.
  bool revoked() const;

  // What the lease thread sees of a lease (mapping_lease.cc).
  struct State;

 private:
  explicit MappingLease(std::shared_ptr<State> state);
  std::shared_ptr<State> state_;
};

// For the SIGBUS handler (async-signal-safe): when `addr` lies in a leased
// mapping, replaces its page with a page of zeros, marks the mapping
// revoked and returns true (the faulting access then runs again); false for
// any other address.
bool ReplaceLostPage(const void* addr);

// Zero while no lease of this process was ever revoked and no page ever
// replaced; grows with each (a cheap test before a closer look).
uint64_t RevokedLeases();

}  // namespace env_internal
}  // namespace minigraph

#endif  // MINIGRAPH_CORE_INTERNAL_MAPPING_LEASE_H_
