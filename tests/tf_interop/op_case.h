// One case of an op, as op_interop_test.py writes it in a tensor file
// (tensor_records.h): a small graph TensorFlow built, the feeds and fetches,
// optionally the gradients minigraph should add, and, in the golden files
// (tests/tf_interop/golden), what TensorFlow 2.21 gave. Records of a case
// have keys starting "<case>|":
//
//   <case>|graph          a scalar string: the serialized GraphDef
//   <case>|feed|<name>    a tensor to feed to <name> ("x:0")
//   <case>|fetch          a vector of strings: the tensors to fetch
//   <case>|grad_ys, <case>|grad_xs, <case>|grad_dys   (optional) vectors of
//       tensor names: minigraph's AddSymbolicGradients of ys with respect to
//       xs, with dys (placeholders in the graph) as the gradients flowing
//       into ys; the gradients are fetched after the fetch list.
//   golden files only:
//   <case>|covers         a vector of strings: the ops the case checks
//   <case>|want|<i>       TensorFlow's value of the i-th compared output
//   <case>|tol|<i>        a float64 pair: the relative and absolute tolerance
//                         of output i ([0, 0]: exact; for integers the
//                         absolute one is how far they may be)
//   <case>|error_code     an int32 scalar: TensorFlow refused the inputs with
//                         this status code
//
// Thread-compatible.

#ifndef MINIGRAPH_TESTS_TF_INTEROP_OP_CASE_H_
#define MINIGRAPH_TESTS_TF_INTEROP_OP_CASE_H_

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "core/proto/graph.pb.h"
#include "core/tensor.h"

namespace minigraph {

struct OpCase {
  std::string name;
  GraphDef graph;
  std::vector<std::pair<std::string, Tensor>> feeds;
  std::vector<std::string> fetch;
  std::vector<std::string> grad_ys, grad_xs, grad_dys;

  // What TensorFlow gave (golden files only).
  std::vector<std::string> covers;
  std::map<int, Tensor> want;                     // by output
  std::map<int, std::pair<double, double>> tol;   // by output: rtol, atol
  int error_code = 0;                             // 0: TensorFlow ran it
};

// The cases of the tensor file at `path`, in the order their first records
// come. InvalidArgument naming the file and the key for a record that is not
// one of the above.
absl::StatusOr<std::vector<OpCase>> ReadOpCases(const std::string& path);

// Runs `c` in a fresh session: its fetches, then the gradients it asks for.
absl::Status RunOpCase(const OpCase& c, std::vector<Tensor>* out);

// "" when `got` is `want` within (rtol, atol): the same dtype and shape;
// floats and complex numbers as numpy's allclose(want, got, rtol, atol,
// equal_nan=True); integers within atol; bools and strings exactly.
// Otherwise what differs, with the first element that does.
std::string CompareToWant(const Tensor& want, const Tensor& got, double rtol, double atol);

// "" when running `c` gave what TensorFlow did (its error code, or each
// wanted output within its tolerance), else the first difference.
std::string CheckAgainstGolden(const OpCase& c, const absl::Status& status,
                               const std::vector<Tensor>& out);

}  // namespace minigraph

#endif  // MINIGRAPH_TESTS_TF_INTEROP_OP_CASE_H_
