// Tensors allocated together that will likely live together (the outputs of
// one restore) carved from one large buffer of the default allocator.
//
//   TensorArena* arena = TensorArena::Create(total_bytes);  // may be nullptr
//   Tensor t = *Tensor::Create(DT_FLOAT, shape, arena);
//   ...
//   arena->Release();  // the creator's reference; `t` keeps the arena alive
//
// Below kHugeAllocationThreshold a tensor comes from malloc, whose fresh
// 4 KiB pages cost a page fault each on first touch (~12 us on this kind of
// VM): a checkpoint of many mid-size tensors then restores at a fraction of
// memory speed the first time. Carved from one huge-page buffer they fault
// once per 2 MiB. The buffer goes back to the default allocator (and its
// cache of freed buffers, so a repeated restore of the same checkpoint gets
// warm memory) when the creator has released it and the last tensor carved
// from it is freed; a tensor that outlives its neighbours keeps all of it.
#ifndef MINIGRAPH_CORE_TENSOR_ARENA_H_
#define MINIGRAPH_CORE_TENSOR_ARENA_H_

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <string>

#include "core/allocator.h"

namespace minigraph {

class TensorArena final : public Allocator {
 public:
  // An arena of at least `capacity` bytes, or nullptr when that much memory
  // is not available. The caller holds one reference: Release() it.
  static TensorArena* Create(size_t capacity);

  TensorArena(const TensorArena&) = delete;
  TensorArena& operator=(const TensorArena&) = delete;

  std::string Name() const override { return "tensor_arena"; }
  // The next kTensorAlignment-aligned `bytes` of the arena; from
  // DefaultAllocator() once the arena is full. Thread-safe.
  void* Allocate(size_t bytes) override;
  void Deallocate(void* p, size_t bytes) override;

  // Drops the creator's reference. The arena must not be used to allocate
  // afterwards; it is gone once every buffer carved from it is freed.
  void Release();

  size_t capacity() const { return capacity_; }
  // Bytes handed out from the arena itself (not the fallback), rounded.
  size_t used() const { return std::min(used_.load(std::memory_order_relaxed), capacity_); }

 private:
  TensorArena(char* base, size_t capacity) : base_(base), capacity_(capacity) {}
  ~TensorArena() override;
  void Unref();

  char* const base_;
  const size_t capacity_;
  std::atomic<size_t> used_{0};
  std::atomic<int64_t> refs_{1};
};

}  // namespace minigraph

#endif  // MINIGRAPH_CORE_TENSOR_ARENA_H_
