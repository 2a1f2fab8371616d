#include "core/tensor_arena.h"

#include <algorithm>

namespace minigraph {

namespace {
size_t RoundUp(size_t bytes) {
  // At least one alignment unit, so that every allocation has its own address.
  return std::max<size_t>(kTensorAlignment,
                          (bytes + kTensorAlignment - 1) & ~(kTensorAlignment - 1));
}
}  // namespace

TensorArena* TensorArena::Create(size_t capacity) {
  capacity = RoundUp(capacity);
  void* base = DefaultAllocator()->Allocate(capacity);
  if (base == nullptr) return nullptr;
  return new TensorArena(static_cast<char*>(base), capacity);
}

TensorArena::~TensorArena() { DefaultAllocator()->Deallocate(base_, capacity_); }

void* TensorArena::Allocate(size_t bytes) {
  const size_t len = RoundUp(bytes);
  const size_t offset = used_.fetch_add(len, std::memory_order_relaxed);
  if (offset > capacity_ || capacity_ - offset < len) return DefaultAllocator()->Allocate(bytes);
  refs_.fetch_add(1, std::memory_order_relaxed);
  return base_ + offset;
}

void TensorArena::Deallocate(void* p, size_t bytes) {
  char* const c = static_cast<char*>(p);
  if (c < base_ || c >= base_ + capacity_) {
    DefaultAllocator()->Deallocate(p, bytes);
    return;
  }
  Unref();
}

void TensorArena::Release() { Unref(); }

void TensorArena::Unref() {
  if (refs_.fetch_sub(1, std::memory_order_acq_rel) == 1) delete this;
}

}  // namespace minigraph
