#include "core/allocator.h"

#include <sys/mman.h>

#include <cstdlib>

namespace minigraph {
namespace {

constexpr size_t kHugePage = size_t{2} << 20;

void* AlignedMalloc(size_t bytes) {
  // aligned_alloc wants a multiple of the alignment, and non-zero.
  size_t rounded = (bytes + kTensorAlignment - 1) & ~(kTensorAlignment - 1);
  if (rounded == 0) rounded = kTensorAlignment;
  return std::aligned_alloc(kTensorAlignment, rounded);
}

class MallocAllocatorImpl : public Allocator {
 public:
  std::string Name() const override { return "malloc"; }
  void* Allocate(size_t bytes) override { return AlignedMalloc(bytes); }
  void Deallocate(void* p, size_t) override { std::free(p); }
};

class HugePageAllocator : public Allocator {
 public:
  std::string Name() const override { return "cpu_hugepage"; }

  void* Allocate(size_t bytes) override {
    if (bytes < kHugeAllocationThreshold) return AlignedMalloc(bytes);
    // Map with room to align the start to a huge page, then trim the slack
    // so the kernel can back the whole range with 2 MiB pages.
    const size_t len = RoundUp(bytes);
    const size_t map_len = len + kHugePage;
    void* raw = mmap(nullptr, map_len, PROT_READ | PROT_WRITE,
                     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (raw == MAP_FAILED) return nullptr;
    const uintptr_t start = reinterpret_cast<uintptr_t>(raw);
    const uintptr_t aligned = (start + kHugePage - 1) & ~(kHugePage - 1);
    if (aligned > start) munmap(raw, aligned - start);
    const uintptr_t end = aligned + len;
    const uintptr_t map_end = start + map_len;
    if (map_end > end) munmap(reinterpret_cast<void*>(end), map_end - end);
    void* p = reinterpret_cast<void*>(aligned);
    madvise(p, len, MADV_HUGEPAGE);  // Best effort: fine if THP is off.
    return p;
  }

  void Deallocate(void* p, size_t bytes) override {
    if (bytes < kHugeAllocationThreshold) {
      std::free(p);
    } else {
      munmap(p, RoundUp(bytes));
    }
  }

 private:
  static size_t RoundUp(size_t bytes) {
    return (bytes + kHugePage - 1) & ~(kHugePage - 1);
  }
};

}  // namespace

Allocator* DefaultAllocator() {
  static Allocator* const a = new HugePageAllocator;
  return a;
}

Allocator* MallocAllocator() {
  static Allocator* const a = new MallocAllocatorImpl;
  return a;
}

}  // namespace minigraph
