// Tests of ops' shape functions in the manner of TensorFlow's
// shape_inference_testutil: an op with its attrs, input shapes written as
// TensorFlow prints them, and the output shapes it infers.
//
//   ShapeTestOp op("MatMul");
//   op.Attr("transpose_b", true);
//   INFER_OK(op, "[2,3];[4,3]", "[2,4]");
//   INFER_OK(op, "?;[4,?]", "[?,4]");
//   op.Input(1, Tensor::Vector<int32_t>({-1, 6}));   // a constant input
//   INFER_ERROR("Dimensions must be equal", op, "[2,3];[4,5]");
//
// A shape is "?" (rank unknown) or "[d,...]" with "?" for a dimension not
// known; "[]" is a scalar; the outputs are joined by ";". The op runs in a
// real graph (Graph::Create), so its attrs get their defaults, its inputs'
// dtypes come from its OpDef and the attrs (each input a Placeholder of that
// dtype and shape, or a Const), and its errors are what a user's graph gets.
//
// Thread-compatible.

#ifndef MINIGRAPH_RUNTIME_GRAPH_OPS_SHAPE_TEST_UTIL_H_
#define MINIGRAPH_RUNTIME_GRAPH_OPS_SHAPE_TEST_UTIL_H_

#include <map>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "core/proto/graph.pb.h"
#include "core/status_matchers.h"
#include "core/tensor.h"
#include "gmock/gmock.h"
#include "runtime/graph/node_def_util.h"

namespace minigraph {

class ShapeTestOp {
 public:
  explicit ShapeTestOp(absl::string_view op);

  template <typename T>
  ShapeTestOp& Attr(absl::string_view name, const T& value) {
    SetAttr(name, value, &node_);
    return *this;
  }
  // Input `i` is a Const of `value` (its shape then comes from the value;
  // write any shape, e.g. "?", in its place).
  ShapeTestOp& Input(int i, Tensor value);

  // The output shapes for inputs of `shapes`, or the graph's error.
  absl::StatusOr<std::string> Infer(absl::string_view shapes) const;

 private:
  NodeDef node_;
  std::map<int, Tensor> constants_;
};

// Parses "?", "[]" or "[2,?,3]"; InvalidArgument naming the text otherwise.
absl::StatusOr<PartialShape> ParseShape(absl::string_view text);

// The shapes, or "error: " and the status (what INFER_OK compares, so that
// a failure prints both sides as text).
std::string ShapesOrError(const absl::StatusOr<std::string>& shapes);

}  // namespace minigraph

#define INFER_OK(op, inputs, outputs) \
  EXPECT_EQ(::minigraph::ShapesOrError((op).Infer(inputs)), outputs) << "inputs " << (inputs)
#define INFER_ERROR(substring, op, inputs)                      \
  EXPECT_THAT((op).Infer(inputs).status(),                      \
              StatusIs(absl::StatusCode::kInvalidArgument,      \
                       ::testing::HasSubstr(substring)))

#endif  // MINIGRAPH_RUNTIME_GRAPH_OPS_SHAPE_TEST_UTIL_H_
