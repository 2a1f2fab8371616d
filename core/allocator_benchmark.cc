// Cost of tensor buffers that are allocated, filled once and freed, as a
// restore or a training step does: plain malloc; huge pages with every buffer
// fresh (no cache: a page fault and kernel zeroing per 2 MiB); and
// DefaultAllocator, which reuses freed buffers.
//   bazel run -c opt //core:allocator_benchmark
#include <cstring>

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
    std::memset(p, 1, bytes);
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

BENCHMARK(BM_Fill_Malloc)->Arg(64 << 20)->UseRealTime();
BENCHMARK(BM_Fill_HugePagesUncached)->Arg(64 << 20)->UseRealTime();
BENCHMARK(BM_Fill_Default)->Arg(64 << 20)->UseRealTime();

}  // namespace
}  // namespace minigraph
