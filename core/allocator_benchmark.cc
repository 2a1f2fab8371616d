// First-touch cost of fresh tensor buffers: allocate, fill once, free, as a
// restore does. DefaultAllocator (huge pages) next to plain malloc.
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

void BM_FillFresh_Default(benchmark::State& state) { FillFresh(state, DefaultAllocator()); }
void BM_FillFresh_Malloc(benchmark::State& state) { FillFresh(state, MallocAllocator()); }

BENCHMARK(BM_FillFresh_Malloc)->Arg(64 << 20)->UseRealTime();
BENCHMARK(BM_FillFresh_Default)->Arg(64 << 20)->UseRealTime();

}  // namespace
}  // namespace minigraph
