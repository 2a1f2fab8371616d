// Fuzzes LoadSavedModel and the signatures of what it loads. The input is a
// SavedModel directory in one buffer: a 4-byte little-endian length and
// saved_model.pb, then, optionally, a 4-byte length and variables.index,
// and the rest as variables.data-00000-of-00001. Loading (the meta graph,
// its Saver or object graph, the restore, the init op) must refuse what it
// cannot run; a model it loads runs each signature once on zeros of its
// inputs' dtypes and shapes (unknown dimensions 1). All in memory (MemEnv),
// with a deadline on every step and a small tensor limit.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <map>
#include <string>

#include "absl/strings/string_view.h"
#include "core/allocator.h"
#include "core/coding.h"
#include "core/mem_env.h"
#include "core/proto/meta_graph.pb.h"
#include "core/tensor.h"
#include "core/types.h"
#include "session/saved_model.h"

namespace minigraph {
namespace {

// The next length-prefixed part of `in`; false when there is none.
bool Take(absl::string_view* in, absl::string_view* part) {
  if (in->size() < 4) return false;
  const uint32_t n = DecodeFixed32(in->data());
  in->remove_prefix(4);
  if (n > in->size()) return false;
  *part = in->substr(0, n);
  in->remove_prefix(n);
  return true;
}

// Zeros of `info`'s dtype and shape, or an empty tensor when it has none
// that fits in a few KB.
Tensor Zeros(const TensorInfo& info) {
  const DataType dtype = info.dtype();
  if (!IsSupportedTensorType(dtype) || IsRefType(dtype)) return Tensor();
  TensorShape shape;
  int64_t elements = 1;
  for (const TensorShapeProto::Dim& d : info.tensor_shape().dim()) {
    const int64_t size = d.size() < 0 ? 1 : d.size();
    if (size > 1024 || (elements *= size) > 1024) return Tensor();
    if (!shape.AddDim(size).ok()) return Tensor();
  }
  absl::StatusOr<Tensor> t = Tensor::Create(dtype, shape);
  if (!t.ok()) return Tensor();
  if (DataTypeCanUseMemcpy(dtype)) std::memset(t->raw_data(), 0, t->TotalBytes());
  return *std::move(t);
}

}  // namespace
}  // namespace minigraph

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace minigraph;
  SetMaxTensorBytes(size_t{1} << 20);
  absl::string_view in(reinterpret_cast<const char*>(data), size);
  absl::string_view pb, index;
  if (!Take(&in, &pb)) return 0;
  SavedModel model;
  if (model.ParseFromArray(pb.data(), static_cast<int>(pb.size()))) {
    for (const MetaGraphDef& meta : model.meta_graphs()) {
      // Keep each input's steps short.
      if (meta.graph_def().node_size() > 1000) return 0;
    }
  }
  MemEnv env;
  if (!env.CreateDir("/m").ok() ||
      !WriteStringToFile(&env, "/m/saved_model.pb", std::string(pb)).ok()) {
    return 0;
  }
  if (Take(&in, &index)) {
    if (!env.CreateDir("/m/variables").ok() ||
        !WriteStringToFile(&env, "/m/variables/variables.index", std::string(index)).ok() ||
        !WriteStringToFile(&env, "/m/variables/variables.data-00000-of-00001", std::string(in))
             .ok()) {
      return 0;
    }
  }
  SessionOptions options;
  options.env = &env;
  options.intra_op_threads = 1;
  options.inter_op_threads = 1;
  options.operation_timeout_in_ms = 200;
  absl::StatusOr<SavedModelBundle> bundle = LoadSavedModel(options, "/m", {"serve"});
  if (!bundle.ok()) return 0;
  for (const auto& [name, sig] : bundle->meta_graph.signature_def()) {
    if (name == "__saved_model_init_op") continue;
    std::map<std::string, Tensor> inputs;
    for (const auto& [key, info] : sig.inputs()) inputs[key] = Zeros(info);
    bundle->Run(name, inputs).IgnoreError();
  }
  return 0;
}
