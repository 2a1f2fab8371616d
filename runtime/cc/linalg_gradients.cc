// Gradients of the linear algebra ops (TensorFlow's linalg_grad.py and the
// matrix ops of array_grad.py): bands and diagonals.
#include <map>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "runtime/cc/gradients.h"
#include "runtime/cc/internal/gradient_families.h"
#include "runtime/cc/ops.h"
#include "runtime/graph/node_def_util.h"

namespace minigraph {
namespace {

using Grads = std::vector<Output>;

// A zero of `dtype` (float or double: the dtypes gradients flow in), the
// padding of a gradient's diagonals.
Output Zero(const Scope& s, DataType dtype) {
  Tensor t(dtype, TensorShape());
  if (dtype == DT_DOUBLE) {
    *t.data<double>() = 0;
  } else {
    *t.data<float>() = 0;
  }
  return ops::Const(s, t);
}

// The `align` attr of a V3 op (V1 and V2 ops have none: both sides left).
std::map<std::string, AttrValue> Align(const Scope& s, const Operation& op) {
  const NodeDef& n = s.GetNodeDef(op);
  auto it = n.attr().find("align");
  if (it == n.attr().end()) return {};
  return {{"align", it->second}};
}

// The op of the same version as `op_type` (its V2/V3 suffix) for `base`.
std::string SameVersion(const std::string& op_type, const char* base) {
  for (const char* v : {"V2", "V3"}) {
    if (absl::EndsWith(op_type, v)) return absl::StrCat(base, v);
  }
  return base;
}

}  // namespace

void gradients_internal::RegisterLinalgGradients(GradientRegistry* r) {
  // The band of the gradient; the bounds have none.
  r->Register("MatrixBandPart", [](const Scope& s, const Operation& op, const Grads& dy,
                                   Grads* dx) {
    const Grads in = s.GetInputs(op);
    *dx = {s.AddOp("MatrixBandPart", {{dy[0]}, {in[1]}, {in[2]}}).output(0), Output(), Output()};
    return s.status();
  });
  // diag -> matrix: the same band of the gradient.
  for (const char* op_type : {"MatrixDiag", "MatrixDiagV2", "MatrixDiagV3"}) {
    r->Register(op_type, [](const Scope& s, const Operation& op, const Grads& dy, Grads* dx) {
      const Grads in = s.GetInputs(op);
      const std::string part = SameVersion(s.GetNodeDef(op).op(), "MatrixDiagPart");
      if (in.size() == 1) {
        *dx = {s.AddOp(part, {{dy[0]}}).output(0)};
      } else {
        *dx = {s.AddOp(part, {{dy[0]}, {in[1]}, {Zero(s, dy[0].dtype())}}, Align(s, op)).output(0),
               Output(), Output(), Output(), Output()};
      }
      return s.status();
    });
  }
  // matrix -> band: zeros with the band set to the gradient.
  for (const char* op_type : {"MatrixDiagPart", "MatrixDiagPartV2", "MatrixDiagPartV3"}) {
    r->Register(op_type, [](const Scope& s, const Operation& op, const Grads& dy, Grads* dx) {
      const Grads in = s.GetInputs(op);
      const std::string set = SameVersion(s.GetNodeDef(op).op(), "MatrixSetDiag");
      Output zeros = ops::ZerosLike(s, in[0]);
      if (in.size() == 1) {
        *dx = {s.AddOp(set, {{zeros}, {dy[0]}}).output(0)};
      } else {
        *dx = {s.AddOp(set, {{zeros}, {dy[0]}, {in[1]}}, Align(s, op)).output(0), Output(),
               Output()};
      }
      return s.status();
    });
  }
  // input with a band replaced: the input's gradient outside the band, the
  // diagonal's the band of the gradient.
  for (const char* op_type : {"MatrixSetDiag", "MatrixSetDiagV2", "MatrixSetDiagV3"}) {
    r->Register(op_type, [](const Scope& s, const Operation& op, const Grads& dy, Grads* dx) {
      const Grads in = s.GetInputs(op);
      const std::string& type = s.GetNodeDef(op).op();
      const std::string part = SameVersion(type, "MatrixDiagPart");
      Output zeros = ops::ZerosLike(s, in[1]);
      if (in.size() == 2) {
        *dx = {s.AddOp(type, {{dy[0]}, {zeros}}).output(0), s.AddOp(part, {{dy[0]}}).output(0)};
      } else {
        const auto align = Align(s, op);
        *dx = {s.AddOp(type, {{dy[0]}, {zeros}, {in[2]}}, align).output(0),
               s.AddOp(part, {{dy[0]}, {in[2]}, {Zero(s, dy[0].dtype())}}, align).output(0),
               Output()};
      }
      return s.status();
    });
  }
  r->Register("Diag", [](const Scope& s, const Operation&, const Grads& dy, Grads* dx) {
    *dx = {s.AddOp("DiagPart", {{dy[0]}}).output(0)};
    return s.status();
  });
  r->Register("DiagPart", [](const Scope& s, const Operation&, const Grads& dy, Grads* dx) {
    *dx = {s.AddOp("Diag", {{dy[0]}}).output(0)};
    return s.status();
  });
}

}  // namespace minigraph
