// Cost of tensor buffers that are allocated, filled once and freed, as a
// restore or a training step does: plain malloc; huge pages with every buffer
// fresh (no cache: a page fault and kernel zeroing per 2 MiB); and
// DefaultAllocator, which reuses freed buffers. Each of the first two also
// with a Prefaulter faulting the buffer in ahead of the fill (range(1) = 1).
//   bazel run -c opt //core:allocator_benchmark
#include <algorithm>
#include <cstring>
#include <vector>

#include "benchmark/benchmark.h"
#include "core/allocator.h"

namespace minigraph {
namespace {

void FillFresh(benchmark::State& state, Allocator* a) {
  const size_t bytes = state.range(0);
  // One untimed round first: memory this VM has never touched costs a host
  // page fault per page whatever the allocator (reported separately by the
  // restore benchmark as the first restore).
  void* warm = a->Allocate(bytes);
  std::memset(warm, 1, bytes);
  a->Deallocate(warm, bytes);
  for (auto _ : state) {
    void* p = a->Allocate(bytes);
    {
      Prefaulter prefault(state.range(1) == 1
                              ? std::vector<Prefaulter::Range>{{static_cast<char*>(p), bytes}}
                              : std::vector<Prefaulter::Range>{},
                          /*min_bytes=*/1);
      // In 1 MiB pieces, as a restore copies: the prefaulter keeps ahead.
      for (size_t off = 0; off < bytes; off += size_t{1} << 20) {
        std::memset(static_cast<char*>(p) + off, 1, std::min(bytes - off, size_t{1} << 20));
      }
    }
    benchmark::DoNotOptimize(p);
    a->Deallocate(p, bytes);
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * bytes);
}

void BM_Fill_Malloc(benchmark::State& state) { FillFresh(state, MallocAllocator()); }
void BM_Fill_HugePagesUncached(benchmark::State& state) {
  auto a = NewHugePageAllocator(0);
  FillFresh(state, a.get());
}
void BM_Fill_Default(benchmark::State& state) { FillFresh(state, DefaultAllocator()); }

BENCHMARK(BM_Fill_Malloc)->Args({64 << 20, 0})->Args({64 << 20, 1})->UseRealTime();
BENCHMARK(BM_Fill_HugePagesUncached)->Args({64 << 20, 0})->Args({64 << 20, 1})->UseRealTime();
BENCHMARK(BM_Fill_Default)->Args({64 << 20, 0})->UseRealTime();

}  // namespace
}  // namespace minigraph
