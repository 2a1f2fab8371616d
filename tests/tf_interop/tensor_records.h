// The tensor file the TensorFlow interop tests pass between TensorFlow's
// Python (interop.py's write_records and read_records) and minigraph's
// binaries: records of a fixed32 key length, the key, a fixed64 length and a
// serialized tensorflow.TensorProto (all little-endian), in any order.

#ifndef MINIGRAPH_TESTS_TF_INTEROP_TENSOR_RECORDS_H_
#define MINIGRAPH_TESTS_TF_INTEROP_TENSOR_RECORDS_H_

#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "core/tensor.h"

namespace minigraph {

// The records of the file at `path`, in file order. DataLoss naming the file
// and the key for a record cut short or not a TensorProto; TensorFromProto's
// error for a tensor it refuses.
absl::StatusOr<std::vector<std::pair<std::string, Tensor>>> ReadTensorRecords(
    const std::string& path);

// Appends the record of `t` under `key` to `records`.
void AppendTensorRecord(const std::string& key, const Tensor& t, std::string* records);

}  // namespace minigraph

#endif  // MINIGRAPH_TESTS_TF_INTEROP_TENSOR_RECORDS_H_
