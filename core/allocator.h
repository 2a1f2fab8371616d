// Where tensor buffers come from.
//
//   Allocator* a = DefaultAllocator();
//   void* p = a->Allocate(bytes);          // 64-byte aligned, or nullptr
//   a->Deallocate(p, bytes);
//
// The default allocator maps large buffers (>= kHugeAllocationThreshold) as
// transparent-huge-page memory (madvise(MADV_HUGEPAGE)): on a software-paged
// VM a fresh 4 KiB page costs ~12 us on first touch, so a fresh buffer fills
// at ~0.3 GB/s, while 2 MiB pages fill at memory speed. Freed large buffers
// are kept (up to 4 GiB, or $MG_ALLOCATOR_CACHE_MB) and handed to the next
// allocation of the same size, so steady-state restores and training steps
// pay no page faults and no kernel zeroing at all.

#ifndef MINIGRAPH_CORE_ALLOCATOR_H_
#define MINIGRAPH_CORE_ALLOCATOR_H_

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"

namespace minigraph {

// Tensor buffers are aligned for any Eigen packet and a cache line.
inline constexpr size_t kTensorAlignment = 64;

// Implementations are safe for concurrent use.
class Allocator {
 public:
  virtual ~Allocator() = default;
  virtual std::string Name() const = 0;
  // Returns `bytes` bytes aligned to kTensorAlignment, or nullptr when out of
  // memory. Allocate(0) returns a valid non-null pointer.
  virtual void* Allocate(size_t bytes) = 0;
  // REQUIRES: `p` came from Allocate(bytes) on this allocator.
  virtual void Deallocate(void* p, size_t bytes) = 0;
  // OK unless what this allocator handed out may have changed behind the
  // program's back: DataLoss saying where it came from (a checkpoint's
  // mapped pages whose lease the kernel revoked).
  virtual absl::Status CheckIntact() const { return absl::OkStatus(); }
};

// Large buffers as huge-page mappings, small ones from aligned malloc.
// Never destroyed.
Allocator* DefaultAllocator();

// Sets how many bytes of freed large buffers DefaultAllocator() keeps for
// reuse (default 4 GiB, or $MG_ALLOCATOR_CACHE_MB), returning what it
// keeps beyond that to the kernel now. 0: every large buffer is unmapped
// when freed, so a process's memory falls back after a step that needed
// much (a server's), at the price of page faults on the next one.
void SetDefaultAllocatorCacheBytes(size_t bytes);

// An allocator over `base` that has at most `limit` bytes handed out at
// once: past it Allocate returns nullptr, so the Tensor being made fails
// with ResourceExhausted naming it. One step's tensors (a session's
// max_step_bytes): a step that makes many large tensors fails instead of
// taking the machine's memory, which the bound on each tensor
// (MaxTensorBytes) does not prevent. It lives as long as its creator and
// the buffers it handed out: New returns it with the creator's reference,
// each buffer holds one more, and the last to go deletes it.
class BoundedAllocator final : public Allocator {
 public:
  static BoundedAllocator* New(Allocator* base, size_t limit);
  // Drops the creator's reference.
  void Release();
  // "step memory (a bound of LIMIT bytes, N in use)".
  std::string Name() const override;
  void* Allocate(size_t bytes) override;
  void Deallocate(void* p, size_t bytes) override;
  // The most bytes handed out at once so far.
  size_t peak() const { return peak_.load(std::memory_order_relaxed); }

 private:
  BoundedAllocator(Allocator* base, size_t limit) : base_(base), limit_(limit) {}
  void Unref();

  Allocator* const base_;
  const size_t limit_;
  std::atomic<size_t> in_use_{0};
  std::atomic<size_t> peak_{0};
  std::atomic<int64_t> refs_{1};
};

// Plain aligned malloc for every size: the baseline for benchmarks.
Allocator* MallocAllocator();

// A huge-page allocator of its own that keeps at most `cache_bytes` of freed
// buffers (0: every large buffer is unmapped when freed).
std::unique_ptr<Allocator> NewHugePageAllocator(size_t cache_bytes);

// The largest tensor buffer minigraph allocates, in bytes. A larger request
// is ResourceExhausted before anything is allocated, so a corrupt size field
// or a graph that asks for terabytes fails cleanly instead of ending the
// process. Default: the machine's physical memory. Tools set it from
// --max_tensor_bytes; fuzzers set it low.
size_t MaxTensorBytes();
void SetMaxTensorBytes(size_t bytes);

// Makes the C library keep freed memory for the next allocation instead of
// returning it to the kernel (glibc: buffers below 32 MiB come from the heap,
// and the heap is trimmed only past 1 GiB free at its top). A fresh page
// costs a page fault, about 12 us per 4 KiB on the VMs measured here: a
// training loop that allocates the same mid-size tensors every step (the
// copies a step makes of variables an asynchronous save still reads,
// tensors received over the network) then reuses pages. The process's
// memory stays at its peak, as TensorFlow's allocators keep theirs. For
// tools and benchmarks, once at start-up.
void RetainFreedMemory();

// Buffers of at least this many bytes are mmap'ed with MADV_HUGEPAGE.
inline constexpr size_t kHugeAllocationThreshold = size_t{1} << 20;

// Faults fresh memory in on a thread of its own while the caller fills it:
// madvise(MADV_POPULATE_WRITE) over each range in turn, 2 MiB at a time, so
// the page faults of a first restore (on a VM each a fault of the host too)
// overlap the copy instead of adding to it. Memory already in use costs a
// walk of its page tables. Does nothing on a single-core machine, below
// `min_bytes` in all, or where the kernel lacks MADV_POPULATE_WRITE (before
// Linux 5.14). Destruction stops the thread and waits for it; the ranges
// must stay mapped until then. Not for concurrent use.
class Prefaulter {
 public:
  struct Range {
    char* data;
    size_t size;
  };
  Prefaulter(std::vector<Range> ranges, size_t min_bytes);
  ~Prefaulter();
  Prefaulter(const Prefaulter&) = delete;
  Prefaulter& operator=(const Prefaulter&) = delete;

 private:
  class Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace minigraph

#endif  // MINIGRAPH_CORE_ALLOCATOR_H_
