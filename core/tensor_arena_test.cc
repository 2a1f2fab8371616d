#include "core/tensor_arena.h"

#include <cstdint>
#include <cstring>
#include <thread>
#include <vector>

#include "core/tensor.h"
#include "gtest/gtest.h"

namespace minigraph {
namespace {

bool Inside(const void* p, const void* base, size_t n) {
  auto a = reinterpret_cast<uintptr_t>(p), b = reinterpret_cast<uintptr_t>(base);
  return a >= b && a < b + n;
}

TEST(TensorArenaTest, CarvesAlignedDistinctBuffersThatOutliveTheCreatorsReference) {
  TensorArena* arena = TensorArena::Create(size_t{3} << 20);
  ASSERT_NE(arena, nullptr);
  EXPECT_GE(arena->capacity(), size_t{3} << 20);
  std::vector<Tensor> ts;
  for (int64_t n : {1, 1000, 0, 250000, 17}) {
    auto t = Tensor::Create(DT_FLOAT, TensorShape({n}), arena);
    ASSERT_TRUE(t.ok()) << t.status();
    ts.push_back(*std::move(t));
  }
  const void* first = ts[0].data<float>();
  for (size_t i = 0; i < ts.size(); ++i) {
    EXPECT_EQ(reinterpret_cast<uintptr_t>(ts[i].data<float>()) % kTensorAlignment, 0u);
    EXPECT_TRUE(Inside(ts[i].data<float>(), first, arena->capacity())) << i;
    for (size_t j = 0; j < i; ++j) EXPECT_NE(ts[i].data<float>(), ts[j].data<float>());
  }
  EXPECT_EQ(arena->used(), 64u + 4032u + 64u + 1000000u + 128u);
  arena->Release();
  // The tensors keep the memory: write and read every element. (Under ASan
  // and LeakSanitizer the suite also shows the arena goes when they do.)
  for (Tensor& t : ts) {
    float* f = t.data<float>();
    for (int64_t i = 0; i < t.NumElements(); ++i) f[i] = static_cast<float>(i);
  }
  EXPECT_EQ(ts[3].data<float>()[249999], 249999.0f);
  ts.clear();
}

TEST(TensorArenaTest, FullArenaFallsBackToTheDefaultAllocator) {
  TensorArena* arena = TensorArena::Create(4096);
  ASSERT_NE(arena, nullptr);
  void* in = arena->Allocate(4096);
  void* out = arena->Allocate(100000);
  ASSERT_NE(out, nullptr);
  EXPECT_FALSE(Inside(out, in, arena->capacity()));
  std::memset(out, 7, 100000);
  arena->Release();
  arena->Deallocate(out, 100000);  // goes back to the default allocator
  arena->Deallocate(in, 4096);     // the last buffer: the arena goes
}

TEST(TensorArenaTest, UnusedArenaGoesOnRelease) {
  TensorArena* arena = TensorArena::Create(size_t{1} << 20);
  ASSERT_NE(arena, nullptr);
  arena->Release();
}

// Allocation from many threads at once hands out disjoint ranges, and the
// last free from any thread releases the arena (run under TSan as well).
TEST(TensorArenaTest, ConcurrentAllocateAndFree) {
  constexpr int kThreads = 4, kEach = 200;
  TensorArena* arena = TensorArena::Create(size_t{kThreads} * kEach * 1024);
  ASSERT_NE(arena, nullptr);
  std::vector<std::vector<char*>> got(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < kEach; ++i) {
        char* p = static_cast<char*>(arena->Allocate(1024));
        std::memset(p, t, 1024);
        got[t].push_back(p);
      }
    });
  }
  for (auto& th : threads) th.join();
  threads.clear();
  for (int t = 0; t < kThreads; ++t) {
    for (char* p : got[t]) ASSERT_EQ(p[0], t) << "two threads were handed the same bytes";
  }
  arena->Release();
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (char* p : got[t]) arena->Deallocate(p, 1024);
    });
  }
  for (auto& th : threads) th.join();
}

}  // namespace
}  // namespace minigraph
