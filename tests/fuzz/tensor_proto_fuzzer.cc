// Fuzzes TensorProto -> Tensor (what every Const node and attr goes
// through): the input is a serialized TensorProto.
#include <cstddef>
#include <cstdint>

#include "core/allocator.h"
#include "core/logging.h"
#include "core/tensor_proto.h"
#include "google/protobuf/stubs/logging.h"

// Parse errors are expected by the thousand: keep the fuzzer's output to
// its own lines and findings.
extern "C" int LLVMFuzzerInitialize(int*, char***) {
  minigraph::SetMinLogLevel(minigraph::LogLevel::kFatal);
  google::protobuf::SetLogHandler(nullptr);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace minigraph;
  SetMaxTensorBytes(size_t{64} << 20);
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
