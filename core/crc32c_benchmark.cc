// crc32c (ISA-L) and the fused copy-and-crc32c kernels next to memcpy of the
// same buffer, in one run.
//   bazel run -c opt //core:crc32c_benchmark
#include <algorithm>
#include <cstring>

#include "benchmark/benchmark.h"
#include "core/allocator.h"
#include "core/crc32c.h"
#include "core/internal/crc32c_copy.h"

namespace minigraph {
namespace {

// A filled buffer from the tensor allocator, as checkpoint data would be.
class Buffer {
 public:
  explicit Buffer(size_t n, char fill)
      : n_(n), p_(static_cast<char*>(DefaultAllocator()->Allocate(n))) {
    std::memset(p_, fill, n_);
  }
  ~Buffer() { DefaultAllocator()->Deallocate(p_, n_); }
  char* data() { return p_; }
  size_t size() const { return n_; }

 private:
  size_t n_;
  char* p_;
};

void BM_Crc32c(benchmark::State& state) {
  Buffer buf(state.range(0), 'x');
  uint32_t crc = 0;
  for (auto _ : state) {
    crc = crc32c::Value(buf.data(), buf.size());
    benchmark::DoNotOptimize(crc);
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * buf.size());
}

void BM_Memcpy(benchmark::State& state) {
  Buffer src(state.range(0), 'x');
  Buffer dst(state.range(0), 'y');
  for (auto _ : state) {
    std::memcpy(dst.data(), src.data(), src.size());
    benchmark::DoNotOptimize(dst.data());
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * src.size());
}

// memcpy, then crc32c of the destination: the two passes CopyAndExtend fuses.
void BM_MemcpyThenCrc32c(benchmark::State& state) {
  Buffer src(state.range(0), 'x');
  Buffer dst(state.range(0), 'y');
  uint32_t crc = 0;
  for (auto _ : state) {
    std::memcpy(dst.data(), src.data(), src.size());
    crc = crc32c::Value(dst.data(), dst.size());
    benchmark::DoNotOptimize(crc);
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * src.size());
}

// One copy kernel (crc32c_internal::AvailableCopyKernels), by index.
void BM_CopyAndCrc32c(benchmark::State& state) {
  const auto kernels = crc32c_internal::AvailableCopyKernels();
  const auto& k = kernels[std::min<size_t>(state.range(1), kernels.size() - 1)];
  state.SetLabel(k.name);
  Buffer src(state.range(0), 'x');
  Buffer dst(state.range(0), 'y');
  uint32_t crc = 0;
  for (auto _ : state) {
    crc = k.kernel(crc, dst.data(), src.data(), src.size());
    benchmark::DoNotOptimize(crc);
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * src.size());
}

BENCHMARK(BM_Memcpy)->Arg(4 << 10)->Arg(1 << 20)->Arg(64 << 20)->Arg(256 << 20);
BENCHMARK(BM_Crc32c)->Arg(4 << 10)->Arg(1 << 20)->Arg(64 << 20)->Arg(256 << 20);
BENCHMARK(BM_MemcpyThenCrc32c)->Arg(4 << 10)->Arg(1 << 20)->Arg(64 << 20)->Arg(256 << 20);
BENCHMARK(BM_CopyAndCrc32c)
    ->ArgsProduct({{4 << 10, 1 << 20, 64 << 20, 256 << 20}, {0, 1, 2}});

}  // namespace
}  // namespace minigraph
