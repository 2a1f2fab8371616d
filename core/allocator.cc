#include "core/allocator.h"

#include <malloc.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <iterator>
#include <map>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"

namespace minigraph {
namespace {

constexpr size_t kHugePage = size_t{2} << 20;
// Freed large buffers kept for reuse, at most (MG_ALLOCATOR_CACHE_MB
// overrides).
constexpr size_t kDefaultCacheBytes = size_t{4} << 30;

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

// Large buffers are mapped with MADV_HUGEPAGE and, when freed, kept for
// reuse by the next allocation of the same rounded size (up to a byte
// budget): a fresh mapping costs a page fault and the kernel zeroing every
// page, which for a restore or a training step is as much work as the data
// itself. TensorFlow's BFC allocator keeps memory for the same reason.
class HugePageAllocator : public Allocator {
 public:
  explicit HugePageAllocator(size_t cache_limit) : cache_limit_(cache_limit) {}

  std::string Name() const override { return "cpu_hugepage"; }

  void* Allocate(size_t bytes) override {
    if (bytes < kHugeAllocationThreshold) return AlignedMalloc(bytes);
    {
      absl::MutexLock l(&mu_);
      auto it = cache_.find(RoundUp(bytes));
      if (it != cache_.end()) {
        void* p = it->second;
        cached_bytes_ -= it->first;
        cache_.erase(it);
        return p;
      }
    }
    return Map(bytes);
  }

  void Deallocate(void* p, size_t bytes) override {
    if (bytes < kHugeAllocationThreshold) {
      std::free(p);
      return;
    }
    const size_t len = RoundUp(bytes);
    {
      absl::MutexLock l(&mu_);
      if (cached_bytes_ + len <= cache_limit_.load(std::memory_order_relaxed)) {
        cache_.emplace(len, p);
        cached_bytes_ += len;
        return;
      }
    }
    munmap(p, len);
  }

 private:
  void* Map(size_t bytes) {
    // Map with room to align the start to a huge page, then trim the slack
    // so the kernel can back the whole range with 2 MiB pages.
    const size_t len = RoundUp(bytes);
    const size_t map_len = len + kHugePage;
    void* raw = mmap(nullptr, map_len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
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

  static size_t RoundUp(size_t bytes) { return (bytes + kHugePage - 1) & ~(kHugePage - 1); }

  absl::Mutex mu_;
  std::multimap<size_t, void*> cache_ ABSL_GUARDED_BY(mu_);
  size_t cached_bytes_ ABSL_GUARDED_BY(mu_) = 0;
  std::atomic<size_t> cache_limit_;

 public:
  void SetCacheLimit(size_t bytes) {
    std::vector<std::pair<void*, size_t>> freed;
    {
      absl::MutexLock l(&mu_);
      cache_limit_.store(bytes, std::memory_order_relaxed);
      while (cached_bytes_ > bytes && !cache_.empty()) {
        auto it = std::prev(cache_.end());  // the largest first
        freed.emplace_back(it->second, it->first);
        cached_bytes_ -= it->first;
        cache_.erase(it);
      }
    }
    for (const auto& [p, len] : freed) munmap(p, len);
  }
};

HugePageAllocator* DefaultHugePageAllocator() {
  static HugePageAllocator* const a = [] {
    size_t limit = kDefaultCacheBytes;
    if (const char* mb = std::getenv("MG_ALLOCATOR_CACHE_MB"); mb != nullptr) {
      limit = static_cast<size_t>(std::atoll(mb)) << 20;
    }
    return new HugePageAllocator(limit);
  }();
  return a;
}

}  // namespace

Allocator* DefaultAllocator() { return DefaultHugePageAllocator(); }

void SetDefaultAllocatorCacheBytes(size_t bytes) {
  DefaultHugePageAllocator()->SetCacheLimit(bytes);
}

BoundedAllocator* BoundedAllocator::New(Allocator* base, size_t limit) {
  return new BoundedAllocator(base, limit);
}

void BoundedAllocator::Release() { Unref(); }

void BoundedAllocator::Unref() {
  if (refs_.fetch_sub(1, std::memory_order_acq_rel) == 1) delete this;
}

std::string BoundedAllocator::Name() const {
  return "step memory (a bound of " + std::to_string(limit_) + " bytes, " +
         std::to_string(in_use_.load(std::memory_order_relaxed)) + " in use)";
}

void* BoundedAllocator::Allocate(size_t bytes) {
  size_t now = in_use_.load(std::memory_order_relaxed);
  do {
    if (bytes > limit_ || now > limit_ - bytes) return nullptr;
  } while (!in_use_.compare_exchange_weak(now, now + bytes, std::memory_order_relaxed));
  void* p = base_->Allocate(bytes);
  if (p == nullptr) {
    in_use_.fetch_sub(bytes, std::memory_order_relaxed);
    return nullptr;
  }
  size_t peak = peak_.load(std::memory_order_relaxed);
  while (now + bytes > peak &&
         !peak_.compare_exchange_weak(peak, now + bytes, std::memory_order_relaxed)) {
  }
  refs_.fetch_add(1, std::memory_order_relaxed);
  return p;
}

void BoundedAllocator::Deallocate(void* p, size_t bytes) {
  base_->Deallocate(p, bytes);
  in_use_.fetch_sub(bytes, std::memory_order_relaxed);
  Unref();
}

std::unique_ptr<Allocator> NewHugePageAllocator(size_t cache_bytes) {
  return std::make_unique<HugePageAllocator>(cache_bytes);
}

Allocator* MallocAllocator() {
  static Allocator* const a = new MallocAllocatorImpl;
  return a;
}

namespace {
size_t PhysicalMemory() {
  const long pages = sysconf(_SC_PHYS_PAGES);
  const long page = sysconf(_SC_PAGE_SIZE);
  return pages > 0 && page > 0 ? static_cast<size_t>(pages) * static_cast<size_t>(page)
                               : size_t{1} << 40;
}
std::atomic<size_t> max_tensor_bytes{PhysicalMemory()};
}  // namespace

size_t MaxTensorBytes() { return max_tensor_bytes.load(std::memory_order_relaxed); }
void RetainFreedMemory() {
  mallopt(M_MMAP_THRESHOLD, 32 << 20);
  mallopt(M_TRIM_THRESHOLD, 1 << 30);
  mallopt(M_TOP_PAD, 64 << 20);
}

void SetMaxTensorBytes(size_t bytes) { max_tensor_bytes.store(bytes, std::memory_order_relaxed); }

class Prefaulter::Impl {
 public:
  explicit Impl(std::vector<Range> ranges) : ranges_(std::move(ranges)) {
    thread_ = std::thread([this] { Run(); });
  }
  ~Impl() {
    stop_.store(true, std::memory_order_relaxed);
    thread_.join();
  }

 private:
  void Run() {
    constexpr size_t kStep = size_t{2} << 20;
    const uintptr_t page = static_cast<uintptr_t>(sysconf(_SC_PAGE_SIZE));
    for (const Range& r : ranges_) {
      // madvise wants a page-aligned start; the partial first page is the
      // previous buffer's or the copier's to fault.
      uintptr_t p = (reinterpret_cast<uintptr_t>(r.data) + page - 1) & ~(page - 1);
      const uintptr_t end = (reinterpret_cast<uintptr_t>(r.data) + r.size) & ~(page - 1);
      for (; p < end; p += kStep) {
        if (stop_.load(std::memory_order_relaxed)) return;
        const size_t len = std::min<uintptr_t>(kStep, end - p);
        if (madvise(reinterpret_cast<void*>(p), len, MADV_POPULATE_WRITE) != 0 &&
            errno == EINVAL) {
          return;  // a kernel without MADV_POPULATE_WRITE
        }
      }
    }
  }

  const std::vector<Range> ranges_;
  std::atomic<bool> stop_{false};
  std::thread thread_;
};

Prefaulter::Prefaulter(std::vector<Range> ranges, size_t min_bytes) {
  size_t total = 0;
  for (const Range& r : ranges) total += r.size;
  if (total < min_bytes || std::thread::hardware_concurrency() < 2) return;
  impl_ = std::make_unique<Impl>(std::move(ranges));
}

Prefaulter::~Prefaulter() = default;

}  // namespace minigraph
