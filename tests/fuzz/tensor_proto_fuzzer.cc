// Fuzzes TensorProto -> Tensor (what every Const node and attr goes
// through): the input is a serialized TensorProto.
#include <cstddef>
#include <cstdint>

#include "core/allocator.h"
#include "core/tensor_proto.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace minigraph;
  SetMaxTensorBytes(size_t{1} << 20);  // the cap is what is fuzzed, not its size
  TensorProto proto;
  if (!proto.ParseFromArray(data, static_cast<int>(size))) return 0;
  absl::StatusOr<Tensor> t = TensorFromProto(proto);
  if (t.ok()) {
    TensorProto back;
    TensorToProto(*t, &back);
    t->SummarizeValue(8);
  }
  return 0;
}
