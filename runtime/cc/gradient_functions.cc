// Gradient functions of the standard ops (TensorFlow's math_grad.cc,
// nn_grad.cc, array_grad.cc), built from ops of the standard set so that the
// backward graph stays importable by TensorFlow.
#include <cmath>
#include <limits>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "core/status_macros.h"
#include "runtime/cc/gradients.h"
#include "runtime/cc/internal/gradient_families.h"
#include "runtime/cc/ops.h"
#include "runtime/graph/node_def_util.h"

namespace minigraph {
namespace gradients_internal {

Output Conj(const Scope& s, Output x) {
  const DataType t = BaseType(x.dtype());
  if (t != DT_COMPLEX64 && t != DT_COMPLEX128) return x;
  return s.AddOp("Conj", {{x}}).output(0);
}

std::map<std::string, AttrValue> CopyAttrs(const NodeDef& node,
                                           std::initializer_list<const char*> names) {
  std::map<std::string, AttrValue> attrs;
  for (const char* name : names) {
    auto it = node.attr().find(name);
    if (it != node.attr().end()) attrs[name] = it->second;
  }
  return attrs;
}

namespace {

using Grads = std::vector<Output>;

Output Scalar(const Scope& s, DataType dt, double v) {
  Tensor t(dt, TensorShape());
  if (dt == DT_FLOAT) *t.data<float>() = static_cast<float>(v);
  if (dt == DT_DOUBLE) *t.data<double>() = v;
  if (dt == DT_INT32) *t.data<int32_t>() = static_cast<int32_t>(v);
  if (dt == DT_INT64) *t.data<int64_t>() = static_cast<int64_t>(v);
  if (dt == DT_COMPLEX64) *t.data<complex64>() = complex64(static_cast<float>(v), 0);
  if (dt == DT_COMPLEX128) *t.data<complex128>() = complex128(v, 0);
  return ops::Const(s, t);
}

// The "Tout" attr of Real, Imag and friends: the real type of complex x.
AttrValue RealOf(Output x) {
  AttrValue v;
  v.set_type(BaseType(x.dtype()) == DT_COMPLEX128 ? DT_DOUBLE : DT_FLOAT);
  return v;
}

// Sums `grad` (shaped like the broadcast output) down to `x`'s shape.
Output ReduceTo(const Scope& s, Output grad, Output x, Output reduce_axes) {
  return ops::Reshape(s, ops::Sum(s, grad, reduce_axes), ops::Shape(s, x));
}

// The two reductions for a broadcasting binary op.
std::pair<Output, Output> BroadcastAxes(const Scope& s, Output x, Output y) {
  auto r = ops::BroadcastGradientArgs(s, ops::Shape(s, x), ops::Shape(s, y));
  return {r.r0, r.r1};
}

// The axes of the broadcast of shapes `x` and `y` (both fully defined)
// that `x` does not have or has as 1: what x's gradient sums over.
std::vector<int32_t> StaticReduceAxes(const PartialShape& x, const PartialShape& y) {
  const int rank = std::max(x.rank(), y.rank());
  std::vector<int32_t> axes;
  for (int i = 0; i < rank; ++i) {
    const int xi = i - (rank - x.rank()), yi = i - (rank - y.rank());
    const int64_t xd = xi < 0 ? 1 : x.dims()[xi], yd = yi < 0 ? 1 : y.dims()[yi];
    if (xi < 0 || (xd == 1 && yd != 1)) axes.push_back(i);
  }
  return axes;
}

absl::Status BinaryGrad(const Scope& s, const Operation& op, const Grads& dy, Grads* dx,
                        const std::function<std::pair<Output, Output>(Output, Output, Output)>& f) {
  const Grads in = s.GetInputs(op);
  auto [gx, gy] = f(in[0], in[1], dy[0]);
  const PartialShape &sx = in[0].shape(), &sy = in[1].shape();
  if (sx.IsFullyDefined() && sy.IsFullyDefined()) {
    // As TensorFlow's SmartBroadcastGradientArgs: constant axes and shapes,
    // so that nothing reads the inputs at run time (a While's gradient then
    // keeps fewer of its iterations' values), and no sum for equal shapes.
    auto reduce = [&](Output g, const PartialShape& to, const PartialShape& other) {
      const std::vector<int32_t> axes = StaticReduceAxes(to, other);
      if (axes.empty()) return g;
      Tensor a(DT_INT32, TensorShape({static_cast<int64_t>(axes.size())}));
      std::copy(axes.begin(), axes.end(), a.data<int32_t>());
      Tensor shape(DT_INT64, TensorShape({to.rank()}));
      std::copy(to.dims().begin(), to.dims().end(), shape.data<int64_t>());
      return ops::Reshape(s, ops::Sum(s, g, ops::Const(s, a)), ops::Const(s, shape));
    };
    *dx = {reduce(gx, sx, sy), reduce(gy, sy, sx)};
    return absl::OkStatus();
  }
  auto [rx, ry] = BroadcastAxes(s, in[0], in[1]);
  *dx = {ReduceTo(s, gx, in[0], rx), ReduceTo(s, gy, in[1], ry)};
  return absl::OkStatus();
}

// The kept-dims shape of reducing `x` over constant `axes`: Shape(x) with 1
// for each reduced axis, built from Gather and Pack.
absl::StatusOr<Output> KeptShape(const Scope& s, Output x, Output axes_out) {
  const int rank = x.shape().rank();
  if (rank < 0) {
    return absl::UnimplementedError(absl::StrCat(
        "the gradient of a reduction needs the input's rank; '", x.name(), "' has unknown rank"));
  }
  const NodeDef& axes_node = s.GetNodeDef(axes_out.op());
  Tensor axes;
  if (axes_node.op() != "Const" || !GetNodeAttr(axes_node, "value", &axes).ok()) {
    return absl::UnimplementedError("the gradient of a reduction needs constant axes");
  }
  std::vector<bool> reduced(rank, false);
  for (int64_t i = 0; i < axes.NumElements(); ++i) {
    int64_t a = axes.dtype() == DT_INT32 ? axes.data<int32_t>()[i] : axes.data<int64_t>()[i];
    if (a < 0) a += rank;
    if (a >= 0 && a < rank) reduced[a] = true;
  }
  Output shape = ops::Shape(s, x);
  std::vector<Output> dims;
  for (int d = 0; d < rank; ++d) {
    dims.push_back(reduced[d] ? ops::Const<int32_t>(s, 1)
                              : ops::GatherV2(s, shape, ops::Const<int32_t>(s, d),
                                              ops::Const<int32_t>(s, 0)));
  }
  if (dims.empty()) return ops::Const(s, Tensor(DT_INT32, TensorShape({0})));
  return ops::Pack(s, dims);
}

// Broadcasts `dy` of a reduction back to `x`'s shape.
absl::StatusOr<Output> Unreduce(const Scope& s, Output x, Output axes, Output dy) {
  MG_ASSIGN_OR_RETURN(Output kept, KeptShape(s, x, axes));
  return ops::Add(s, ops::ZerosLike(s, x), ops::Reshape(s, dy, kept));
}

Output LastAxisKeep(const Scope& s, Output t) {
  return ops::Sum(s, t, ops::Const<int32_t>(s, {-1}), /*keep_dims=*/true);
}

// Identities and reads: the gradient passes through.
void RegisterIdentityGradients(GradientRegistry* r) {
  auto identity = [](const Scope& s, const Operation& op, const Grads& dy, Grads* dx) {
    *dx = {dy[0]};
    return absl::OkStatus();
  };
  r->Register("Identity", identity);
  r->Register("Snapshot", identity);
  r->Register("IdentityN", [](const Scope& s, const Operation& op, const Grads& dy, Grads* dx) {
    *dx = dy;
    return absl::OkStatus();
  });
  r->Register("PlaceholderWithDefault", identity);
  r->Register("EnsureShape", identity);
  // TensorFlow's _ReadGrad: the read's gradient is the variable's.
  r->Register("ReadVariableOp", identity);
}

// Sums, differences, products, quotients, maxima and minima; ops with none.
void RegisterArithmeticGradients(GradientRegistry* r) {
  for (const char* op : {"Add", "AddV2"}) {
    r->Register(op, [](const Scope& s, const Operation& op, const Grads& dy, Grads* dx) {
      return BinaryGrad(s, op, dy, dx,
                        [](Output, Output, Output g) { return std::make_pair(g, g); });
    });
  }
  r->Register("Sub", [](const Scope& s, const Operation& op, const Grads& dy, Grads* dx) {
    return BinaryGrad(s, op, dy, dx,
                      [&](Output, Output, Output g) { return std::make_pair(g, ops::Neg(s, g)); });
  });
  r->Register("Mul", [](const Scope& s, const Operation& op, const Grads& dy, Grads* dx) {
    return BinaryGrad(s, op, dy, dx, [&](Output x, Output y, Output g) {
      return std::make_pair(ops::Mul(s, g, Conj(s, y)), ops::Mul(s, Conj(s, x), g));
    });
  });
  r->Register("RealDiv", [](const Scope& s, const Operation& op, const Grads& dy, Grads* dx) {
    return BinaryGrad(s, op, dy, dx, [&](Output x, Output y, Output g) {
      x = Conj(s, x);
      y = Conj(s, y);
      // g * ((-x / y) / y), grouped as TensorFlow's: y * y may overflow.
      return std::make_pair(ops::RealDiv(s, g, y),
                            ops::Mul(s, g, ops::RealDiv(s, ops::RealDiv(s, ops::Neg(s, x), y), y)));
    });
  });
  r->Register("Div", [](const Scope& s, const Operation& op, const Grads& dy, Grads* dx) {
    return BinaryGrad(s, op, dy, dx, [&](Output x, Output y, Output g) {
      x = Conj(s, x);
      y = Conj(s, y);
      // g * ((-x / y) / y), grouped as TensorFlow's: y * y may overflow.
      return std::make_pair(ops::Div(s, g, y),
                            ops::Mul(s, g, ops::Div(s, ops::Div(s, ops::Neg(s, x), y), y)));
    });
  });
  r->Register("DivNoNan", [](const Scope& s, const Operation& op, const Grads& dy, Grads* dx) {
    return BinaryGrad(s, op, dy, dx, [&](Output x, Output y, Output g) {
      x = Conj(s, x);
      y = Conj(s, y);
      return std::make_pair(
          ops::DivNoNan(s, g, y),
          ops::Mul(s, g, ops::DivNoNan(s, ops::DivNoNan(s, ops::Neg(s, x), y), y)));
    });
  });
  // TensorFlow's _XdivyGrad, _XlogyGrad, _Xlog1pyGrad: partials that are 0
  // where x is.
  for (const char* name : {"Xdivy", "Xlogy", "Xlog1py"}) {
    const std::string type = name;
    r->Register(name, [type](const Scope& s, const Operation& op, const Grads& dy, Grads* dx) {
      return BinaryGrad(s, op, dy, dx, [&](Output x, Output y, Output g) {
        const DataType t = BaseType(x.dtype());
        Output not_zero = ops::Cast(s, ops::NotEqual(s, x, Scalar(s, t, 0)), t);
        auto call = [&](const char* f, Output a, Output b) {
          return s.AddOp(f, {{a}, {b}}).output(0);
        };
        Output px = call(type.c_str(), not_zero, y);
        Output py = type == "Xdivy" ? call("Xdivy", ops::Neg(s, x), ops::Square(s, y))
                    : type == "Xlogy"
                        ? call("Xdivy", x, y)
                        : call("Xdivy", x, ops::Add(s, y, Scalar(s, t, 1)));
        return std::make_pair(ops::Mul(s, px, g), ops::Mul(s, py, g));
      });
    });
  }
  r->Register("MulNoNan", [](const Scope& s, const Operation& op, const Grads& dy, Grads* dx) {
    return BinaryGrad(s, op, dy, dx, [&](Output x, Output y, Output g) {
      return std::make_pair(s.AddOp("MulNoNan", {{g}, {y}}).output(0),
                            s.AddOp("MulNoNan", {{x}, {g}}).output(0));
    });
  });
  // TensorFlow's _ClipByValueGrad: the gradient where t is inside the
  // bounds, else the bound's (summed where the bound was broadcast).
  r->Register("ClipByValue", [](const Scope& s, const Operation& op, const Grads& dy,
                                Grads* dx) {
    const Grads in = s.GetInputs(op);
    Output g = dy[0], zeros = ops::ZerosLike(s, dy[0]);
    Output below = ops::Less(s, in[0], in[1]), above = ops::Greater(s, in[0], in[2]);
    Output shape = ops::Shape(s, in[0]);
    auto bound = [&](Output mask, Output b) {
      Output axes = ops::BroadcastGradientArgs(s, shape, ops::Shape(s, b)).r1;
      return ops::Reshape(s, ops::Sum(s, ops::Select(s, mask, g, zeros), axes), ops::Shape(s, b));
    };
    Output outside = s.AddOp("LogicalOr", {{below}, {above}}).output(0);
    *dx = {ops::Select(s, outside, zeros, g), bound(below, in[1]),
           bound(above, in[2])};
    return s.status();
  });
  r->Register("FloorMod", [](const Scope& s, const Operation& op, const Grads& dy, Grads* dx) {
    return BinaryGrad(s, op, dy, dx, [&](Output x, Output y, Output g) {
      return std::make_pair(g, ops::Mul(s, ops::Neg(s, g), ops::FloorDiv(s, x, y)));
    });
  });
  r->Register("Rsqrt", [](const Scope& s, const Operation& op, const Grads& dy, Grads* dx) {
    *dx = {s.AddOp("RsqrtGrad", {{op.output(0)}, {dy[0]}}).output(0)};
    return absl::OkStatus();
  });
  r->Register("Log1p", [](const Scope& s, const Operation& op, const Grads& dy, Grads* dx) {
    Output x = s.GetInputs(op)[0];
    *dx = {
        ops::Mul(s, dy[0], ops::Reciprocal(s, ops::Add(s, Scalar(s, BaseType(x.dtype()), 1), x)))};
    return absl::OkStatus();
  });
  for (const char* op : {"Round", "Rint", "FloorDiv", "ArgMin", "All", "Any", "HSVToRGB",
                         "BitwiseAnd",
                         "BitwiseOr", "BitwiseXor", "LeftShift", "RightShift", "Invert"}) {
    r->RegisterNoGradient(op);
  }
  // TensorFlow's _FloorGrad and _CeilGrad: gradient functions that give
  // none (not "not differentiable": a gradient through them is no error).
  for (const char* op : {"Floor", "Ceil"}) {
    r->Register(op, [](const Scope& s, const Operation& op, const Grads& dy, Grads* dx) {
      *dx = {Output()};
      return absl::OkStatus();
    });
  }
  // TensorFlow's _NextAfterGrad: dy to x1, zeros to x2.
  r->Register("NextAfter", [](const Scope& s, const Operation& op, const Grads& dy, Grads* dx) {
    return BinaryGrad(s, op, dy, dx, [&](Output x, Output y, Output g) {
      return std::make_pair(g, ops::ZerosLike(s, g));
    });
  });
  // TensorFlow's _PowGrad: x's dy y x^(y-1) and y's dy x^y log(x) (log(x)
  // taken as 0 where x <= 0, or x == 0 for complex x), multiplied in that
  // order.
  r->Register("Pow", [](const Scope& s, const Operation& op, const Grads& dy, Grads* dx) {
    Output z = Conj(s, op.output(0));
    return BinaryGrad(s, op, dy, dx, [&](Output x, Output y, Output g) {
      x = Conj(s, x);
      y = Conj(s, y);
      const DataType dt = BaseType(x.dtype());
      Output gx = ops::Mul(s, ops::Mul(s, g, y),
                           s.AddOp("Pow", {{x}, {ops::Sub(s, y, Scalar(s, dt, 1))}}).output(0));
      const bool complex = dt == DT_COMPLEX64 || dt == DT_COMPLEX128;
      Output zero = ops::ZerosLike(s, x);
      Output mask = complex ? ops::NotEqual(s, x, zero) : ops::Greater(s, x, zero);
      Output safe_x = ops::SelectV2(s, mask, x, ops::OnesLike(s, x));
      Output log_x = ops::SelectV2(s, mask, ops::Log(s, safe_x), zero);
      return std::make_pair(gx, ops::Mul(s, ops::Mul(s, g, z), log_x));
    });
  });
  r->Register("SquaredDifference", [](const Scope& s, const Operation& op, const Grads& dy,
                                      Grads* dx) {
    return BinaryGrad(s, op, dy, dx, [&](Output x, Output y, Output g) {
      Output two_d = ops::Mul(s, Scalar(s, BaseType(x.dtype()), 2), ops::Sub(s, x, y));
      Output gx = ops::Mul(s, g, two_d);
      return std::make_pair(gx, ops::Neg(s, gx));
    });
  });
  for (bool is_max : {true, false}) {
    r->Register(is_max ? "Maximum" : "Minimum",
                [is_max](const Scope& s, const Operation& op, const Grads& dy, Grads* dx) {
                  return BinaryGrad(s, op, dy, dx, [&](Output x, Output y, Output g) {
                    // Ties go to x, as in TensorFlow.
                    Output mask = is_max ? ops::GreaterEqual(s, x, y) : ops::LessEqual(s, x, y);
                    Output gx = ops::Mul(s, g, ops::Cast(s, mask, BaseType(g.dtype())));
                    return std::make_pair(gx, ops::Sub(s, g, gx));
                  });
                });
  }
}

// Complex numbers made from and taken to real ones (math_grad.py's).
void RegisterComplexGradients(GradientRegistry* r) {
  // Complex(re, im) of real tensors `re` and `im` (float: complex64).
  auto complex = [](const Scope& s, Output re, Output im) {
    AttrValue out;
    out.set_type(BaseType(re.dtype()) == DT_DOUBLE ? DT_COMPLEX128 : DT_COMPLEX64);
    return s.AddOp("Complex", {{re}, {im}}, {{"Tout", out}}).output(0);
  };
  r->Register("Complex", [](const Scope& s, const Operation& op, const Grads& dy, Grads* dx) {
    return BinaryGrad(s, op, dy, dx, [&](Output, Output, Output g) {
      return std::make_pair(s.AddOp("Real", {{g}}, {{"Tout", RealOf(g)}}).output(0),
                            s.AddOp("Imag", {{g}}, {{"Tout", RealOf(g)}}).output(0));
    });
  });
  r->Register("Real", [complex](const Scope& s, const Operation&, const Grads& dy, Grads* dx) {
    *dx = {complex(s, dy[0], ops::ZerosLike(s, dy[0]))};
    return s.status();
  });
  r->Register("Imag", [complex](const Scope& s, const Operation&, const Grads& dy, Grads* dx) {
    *dx = {complex(s, ops::ZerosLike(s, dy[0]), dy[0])};
    return s.status();
  });
  r->Register("Conj", [](const Scope& s, const Operation&, const Grads& dy, Grads* dx) {
    *dx = {s.AddOp("Conj", {{dy[0]}}).output(0)};
    return s.status();
  });
  // g z / |z| (0 where z is 0).
  r->Register("ComplexAbs", [complex](const Scope& s, const Operation& op, const Grads& dy,
                                      Grads* dx) {
    Output z = s.GetInputs(op)[0], abs = op.output(0);
    *dx = {ops::DivNoNan(s, ops::Mul(s, complex(s, dy[0], ops::ZerosLike(s, dy[0])), z),
                         complex(s, abs, ops::ZerosLike(s, abs)))};
    return s.status();
  });
  // -g / (im + i re).
  r->Register("Angle", [complex](const Scope& s, const Operation& op, const Grads& dy,
                                 Grads* dx) {
    Output z = s.GetInputs(op)[0];
    AttrValue real = RealOf(z);
    Output re = s.AddOp("Real", {{z}}, {{"Tout", real}}).output(0);
    Output im = s.AddOp("Imag", {{z}}, {{"Tout", real}}).output(0);
    Output inverse = ops::Reciprocal(s, complex(s, im, re));
    *dx = {ops::Neg(s, ops::Mul(s, complex(s, dy[0], ops::ZerosLike(s, dy[0])), inverse))};
    return s.status();
  });
}

// Unary math.
void RegisterUnaryGradients(GradientRegistry* r) {
  r->Register("Neg", [](const Scope& s, const Operation& op, const Grads& dy, Grads* dx) {
    *dx = {ops::Neg(s, dy[0])};
    return absl::OkStatus();
  });
  r->Register("Square", [](const Scope& s, const Operation& op, const Grads& dy, Grads* dx) {
    Output x = s.GetInputs(op)[0];
    *dx = {ops::Mul(s, dy[0], ops::Mul(s, Scalar(s, BaseType(x.dtype()), 2), Conj(s, x)))};
    return absl::OkStatus();
  });
  r->Register("Sqrt", [](const Scope& s, const Operation& op, const Grads& dy, Grads* dx) {
    *dx = {s.AddOp("SqrtGrad", {{op.output(0)}, {dy[0]}}).output(0)};
    return absl::OkStatus();
  });
  r->Register("Exp", [](const Scope& s, const Operation& op, const Grads& dy, Grads* dx) {
    *dx = {ops::Mul(s, dy[0], Conj(s, op.output(0)))};
    return absl::OkStatus();
  });
  // d sin(x) = cos(x) dx; d cos(x) = -sin(x) dx (TensorFlow's _SinGrad, _CosGrad).
  r->Register("Sin", [](const Scope& s, const Operation& op, const Grads& dy, Grads* dx) {
    *dx = {ops::Mul(s, dy[0], s.AddOp("Cos", {{s.GetInputs(op)[0]}}).output(0))};
    return absl::OkStatus();
  });
  r->Register("Cos", [](const Scope& s, const Operation& op, const Grads& dy, Grads* dx) {
    Output sin = s.AddOp("Sin", {{s.GetInputs(op)[0]}}).output(0);
    *dx = {ops::Mul(s, dy[0], s.AddOp("Neg", {{sin}}).output(0))};
    return absl::OkStatus();
  });
  // TensorFlow's math_grad.py for the trigonometric, hyperbolic and special
  // functions, op for op.
  auto unary = [r](const char* name, auto grad) {
    r->Register(name, [grad](const Scope& s, const Operation& op, const Grads& dy, Grads* dx) {
      *dx = {grad(s, s.GetInputs(op)[0], op.output(0), dy[0])};
      return absl::OkStatus();
    });
  };
  auto call = [](const Scope& s, const char* op, Output x) {
    return s.AddOp(op, {{x}}).output(0);
  };
  auto one = [](const Scope& s, Output like) { return ops::OnesLike(s, like); };
  unary("Tan", [call](const Scope& s, Output x, Output, Output dy) {
    return ops::Mul(s, dy, ops::Square(s, call(s, "Reciprocal", call(s, "Cos", x))));
  });
  unary("Sinh", [call](const Scope& s, Output x, Output, Output dy) {
    return ops::Mul(s, dy, call(s, "Cosh", x));
  });
  unary("Cosh", [call](const Scope& s, Output x, Output, Output dy) {
    return ops::Mul(s, dy, call(s, "Sinh", x));
  });
  unary("Asin", [call, one](const Scope& s, Output x, Output, Output dy) {
    Output den = ops::Sqrt(s, ops::Sub(s, one(s, x), ops::Square(s, x)));
    return ops::Mul(s, dy, call(s, "Reciprocal", den));
  });
  unary("Acos", [call, one](const Scope& s, Output x, Output, Output dy) {
    Output den = ops::Sqrt(s, ops::Sub(s, one(s, x), ops::Square(s, x)));
    return ops::Neg(s, ops::Mul(s, dy, call(s, "Reciprocal", den)));
  });
  unary("Atan", [call, one](const Scope& s, Output x, Output, Output dy) {
    return ops::Mul(s, dy, call(s, "Reciprocal", ops::Add(s, one(s, x), ops::Square(s, x))));
  });
  unary("Asinh", [call](const Scope& s, Output, Output y, Output dy) {
    return ops::RealDiv(s, dy, call(s, "Cosh", y));
  });
  unary("Acosh", [call](const Scope& s, Output, Output y, Output dy) {
    return ops::RealDiv(s, dy, call(s, "Sinh", y));
  });
  unary("Atanh", [call, one](const Scope& s, Output x, Output, Output dy) {
    return ops::Mul(s, dy, call(s, "Reciprocal", ops::Sub(s, one(s, x), ops::Square(s, x))));
  });
  unary("Lgamma", [call](const Scope& s, Output x, Output, Output dy) {
    return ops::Mul(s, dy, call(s, "Digamma", x));
  });
  unary("Digamma", [one](const Scope& s, Output x, Output, Output dy) {
    return ops::Mul(s, dy, s.AddOp("Polygamma", {{one(s, x)}, {x}}).output(0));
  });
  unary("Ndtri", [](const Scope& s, Output, Output y, Output dy) {
    // sqrt(2 pi) exp(y^2 / 2).
    const DataType t = BaseType(y.dtype());
    return ops::Mul(s, ops::Mul(s, dy, Scalar(s, t, 2.5066282746310002)),
                    ops::Exp(s, ops::RealDiv(s, ops::Square(s, y), Scalar(s, t, 2))));
  });
  unary("Erfinv", [](const Scope& s, Output, Output y, Output dy) {
    // sqrt(pi) / 2 exp(y^2).
    const DataType t = BaseType(y.dtype());
    return ops::Mul(s, ops::Mul(s, dy, Scalar(s, t, 0.88622692545275801)),
                    ops::Exp(s, ops::Square(s, y)));
  });
  unary("BesselI0", [call](const Scope& s, Output x, Output, Output dy) {
    return ops::Mul(s, dy, call(s, "BesselI1", x));
  });
  unary("BesselI0e", [call](const Scope& s, Output x, Output y, Output dy) {
    return ops::Mul(s, dy, ops::Sub(s, call(s, "BesselI1e", x),
                                    ops::Mul(s, call(s, "Sign", x), y)));
  });
  // d I1(x) = I0(x) - I1(x) / x, 1/2 at 0 (TensorFlow's gives 1 there:
  // TENSORFLOW_BUGS).
  unary("BesselI1", [call](const Scope& s, Output x, Output y, Output dy) {
    const DataType t = BaseType(x.dtype());
    Output zero = ops::ZerosLike(s, x);
    Output slope = ops::Sub(s, call(s, "BesselI0", x), ops::RealDiv(s, y, x));
    return ops::Mul(s, dy, ops::Select(s, ops::Equal(s, x, zero),
                                       ops::Add(s, zero, Scalar(s, t, 0.5)), slope));
  });
  // d I1e(x) = I0e(x) - I1e(x) (sign(x) + 1 / x), 1/2 at 0.
  unary("BesselI1e", [call](const Scope& s, Output x, Output y, Output dy) {
    const DataType t = BaseType(x.dtype());
    Output zero = ops::ZerosLike(s, x);
    Output slope = ops::Sub(s, call(s, "BesselI0e", x),
                            ops::Mul(s, y, ops::Add(s, call(s, "Sign", x),
                                                    call(s, "Reciprocal", x))));
    return ops::Mul(s, dy, ops::Select(s, ops::Equal(s, x, zero),
                                       ops::Add(s, zero, Scalar(s, t, 0.5)), slope));
  });
  r->Register("Log", [](const Scope& s, const Operation& op, const Grads& dy, Grads* dx) {
    *dx = {ops::RealDiv(s, dy[0], s.GetInputs(op)[0])};
    return absl::OkStatus();
  });
  r->Register("Reciprocal", [](const Scope& s, const Operation& op, const Grads& dy, Grads* dx) {
    *dx = {ops::Neg(s, ops::Mul(s, dy[0], ops::Square(s, Conj(s, op.output(0)))))};
    return absl::OkStatus();
  });
  r->Register("Sigmoid", [](const Scope& s, const Operation& op, const Grads& dy, Grads* dx) {
    *dx = {s.AddOp("SigmoidGrad", {{op.output(0)}, {dy[0]}}).output(0)};
    return absl::OkStatus();
  });
  r->Register("Tanh", [](const Scope& s, const Operation& op, const Grads& dy, Grads* dx) {
    *dx = {s.AddOp("TanhGrad", {{op.output(0)}, {dy[0]}}).output(0)};
    return absl::OkStatus();
  });
  // TensorFlow's _AbsGrad, _SignGrad (zero), _Expm1Grad, _ErfGrad, _ErfcGrad.
  r->Register("Abs", [](const Scope& s, const Operation& op, const Grads& dy, Grads* dx) {
    *dx = {ops::Mul(s, dy[0], s.AddOp("Sign", {{s.GetInputs(op)[0]}}).output(0))};
    return absl::OkStatus();
  });
  r->Register("Sign", [](const Scope& s, const Operation& op, const Grads& dy, Grads* dx) {
    *dx = {s.AddOp("ZerosLike", {{s.GetInputs(op)[0]}}).output(0)};
    return absl::OkStatus();
  });
  r->Register("Expm1", [](const Scope& s, const Operation& op, const Grads& dy, Grads* dx) {
    *dx = {ops::Mul(s, dy[0], s.AddOp("Exp", {{s.GetInputs(op)[0]}}).output(0))};
    return absl::OkStatus();
  });
  for (bool erfc : {false, true}) {
    r->Register(erfc ? "Erfc" : "Erf",
                [erfc](const Scope& s, const Operation& op, const Grads& dy, Grads* dx) {
                  // d erf(x) = 2 / sqrt(pi) exp(-x^2) dx; erfc's is its negation.
                  Output x = s.GetInputs(op)[0];
                  const double two_over_root_pi = 1.1283791670955126;
                  Output e = s.AddOp("Exp", {{ops::Neg(s, ops::Square(s, x))}}).output(0);
                  *dx = {ops::Mul(
                      s, dy[0],
                      ops::Mul(s, Scalar(s, BaseType(x.dtype()),
                                         erfc ? -two_over_root_pi : two_over_root_pi),
                               e))};
                  return absl::OkStatus();
                });
  }
  // atan2(y, x): dy = x g / (x^2 + y^2), dx = -y g / (x^2 + y^2).
  r->Register("Atan2", [](const Scope& s, const Operation& op, const Grads& dy, Grads* dx) {
    return BinaryGrad(s, op, dy, dx, [&](Output y, Output x, Output g) {
      Output g_over = ops::RealDiv(s, g, ops::Add(s, ops::Square(s, x), ops::Square(s, y)));
      return std::make_pair(ops::Mul(s, x, g_over), ops::Neg(s, ops::Mul(s, y, g_over)));
    });
  });
  // TensorFlow's _IgammaGrad and _IgammacGrad: d/da is IgammaGradA's, d/dx
  // exp(-x + (a - 1) log x - lgamma(a)) (computed in logs, as Gamma(a)
  // grows large); Igammac's the negatives.
  for (const char* name : {"Igamma", "Igammac"}) {
    const bool complement = name == std::string("Igammac");
    r->Register(name, [complement](const Scope& s, const Operation& op, const Grads& dy,
                                   Grads* dx) {
      return BinaryGrad(s, op, dy, dx, [&](Output a, Output x, Output g) {
        Output da = s.AddOp("IgammaGradA", {{a}, {x}}).output(0);
        Output a_less_1 = ops::Sub(s, a, ops::OnesLike(s, a));
        Output dx = ops::Exp(s, ops::Sub(s, ops::Sub(s, ops::Mul(s, a_less_1, ops::Log(s, x)), x),
                                         s.AddOp("Lgamma", {{a}}).output(0)));
        if (complement) g = ops::Neg(s, g);
        return std::make_pair(ops::Mul(s, da, g), ops::Mul(s, dx, g));
      });
    });
  }
  // TensorFlow's _ZetaGrad: d zeta(x, q) / dq = -x zeta(x + 1, q); none for
  // x.
  r->Register("Zeta", [](const Scope& s, const Operation& op, const Grads& dy, Grads* dx) {
    MG_RETURN_IF_ERROR(BinaryGrad(s, op, dy, dx, [&](Output x, Output q, Output g) {
      Output next = s.AddOp("Zeta", {{ops::Add(s, x, ops::OnesLike(s, x))}, {q}}).output(0);
      return std::make_pair(g, ops::Mul(s, ops::Neg(s, ops::Mul(s, x, next)), g));
    }));
    (*dx)[0] = Output();
    return absl::OkStatus();
  });
  // TensorFlow's _BetaincGrad: d/dx only, x^(a-1) (1-x)^(b-1) / B(a, b),
  // in logs (xlogy and xlog1py keep a tail finite where a or b is 1), summed
  // back to x's shape where x was a scalar beside tensors; none for a and b.
  r->Register("Betainc", [](const Scope& s, const Operation& op, const Grads& dy, Grads* dx) {
    const Grads in = s.GetInputs(op);
    Output a = in[0], b = in[1], x = in[2];
    Output one = Scalar(s, BaseType(x.dtype()), 1.0);
    auto lgamma = [&](Output v) { return s.AddOp("Lgamma", {{v}}).output(0); };
    Output log_beta = ops::Sub(s, ops::Add(s, lgamma(a), lgamma(b)), lgamma(ops::Add(s, a, b)));
    Output log_partial =
        ops::Add(s, s.AddOp("Xlog1py", {{ops::Sub(s, b, one)}, {ops::Neg(s, x)}}).output(0),
                 s.AddOp("Xlogy", {{ops::Sub(s, a, one)}, {x}}).output(0));
    Output partial = ops::Exp(s, ops::Sub(s, log_partial, log_beta));
    Output x_shape = ops::Shape(s, x);
    Output axes = ops::BroadcastGradientArgs(s, ops::Shape(s, a), x_shape).r1;
    *dx = {Output(), Output(),
           ops::Reshape(s, ops::Sum(s, ops::Mul(s, partial, dy[0]), axes), x_shape)};
    return absl::OkStatus();
  });
  // c = a x b: da = b x dc, db = dc x a (math_grad.py's _CrossGrad).
  r->Register("Cross", [](const Scope& s, const Operation& op, const Grads& dy, Grads* dx) {
    const Grads in = s.GetInputs(op);
    *dx = {s.AddOp("Cross", {{in[1]}, {dy[0]}}).output(0),
           s.AddOp("Cross", {{dy[0]}, {in[0]}}).output(0)};
    return absl::OkStatus();
  });
  // d polygamma(n, x) / dx = polygamma(n + 1, x); none for the order n.
  r->Register("Polygamma", [](const Scope& s, const Operation& op, const Grads& dy, Grads* dx) {
    MG_RETURN_IF_ERROR(BinaryGrad(s, op, dy, dx, [&](Output n, Output x, Output g) {
      Output next = ops::Add(s, n, ops::OnesLike(s, n));
      return std::make_pair(g, ops::Mul(s, s.AddOp("Polygamma", {{next}, {x}}).output(0), g));
    }));
    (*dx)[0] = Output();
    return absl::OkStatus();
  });
}

// Sums of many, matrix products and reductions; shapes, which have none.
void RegisterMatMulAndReductionGradients(GradientRegistry* r) {
  r->Register("AddN", [](const Scope& s, const Operation& op, const Grads& dy, Grads* dx) {
    dx->assign(s.GetInputs(op).size(), dy[0]);
    return absl::OkStatus();
  });
  r->Register("MatMul", [](const Scope& s, const Operation& op, const Grads& dy, Grads* dx) {
    const NodeDef& n = s.GetNodeDef(op);
    bool ta = false, tb = false;
    MG_RETURN_IF_ERROR(GetNodeAttr(n, "transpose_a", &ta));
    MG_RETURN_IF_ERROR(GetNodeAttr(n, "transpose_b", &tb));
    const Grads in = s.GetInputs(op);
    Output a = in[0], b = in[1], g = dy[0];
    if (!ta && !tb) {
      *dx = {ops::MatMul(s, g, b, false, true), ops::MatMul(s, a, g, true, false)};
    } else if (!ta && tb) {
      *dx = {ops::MatMul(s, g, b, false, false), ops::MatMul(s, g, a, true, false)};
    } else if (ta && !tb) {
      *dx = {ops::MatMul(s, b, g, false, true), ops::MatMul(s, a, g, false, false)};
    } else {
      *dx = {ops::MatMul(s, b, g, true, true), ops::MatMul(s, g, a, true, true)};
    }
    return absl::OkStatus();
  });
  for (const char* name : {"Sum", "Mean"}) {
    const bool mean = name == std::string("Mean");
    r->Register(name, [mean](const Scope& s, const Operation& op, const Grads& dy, Grads* dx) {
      const Grads in = s.GetInputs(op);
      MG_ASSIGN_OR_RETURN(Output g, Unreduce(s, in[0], in[1], dy[0]));
      if (mean) {
        const DataType dt = BaseType(in[0].dtype());
        Output count = ops::RealDiv(s, ops::Cast(s, ops::Size(s, in[0]), DT_DOUBLE),
                                    ops::Cast(s, ops::Size(s, op.output(0)), DT_DOUBLE));
        g = ops::RealDiv(s, g, ops::Cast(s, count, dt));
      }
      *dx = {g, Output()};
      return absl::OkStatus();
    });
  }
  for (const char* name : {"Max", "Min"}) {
    r->Register(name, [](const Scope& s, const Operation& op, const Grads& dy, Grads* dx) {
      const Grads in = s.GetInputs(op);
      MG_ASSIGN_OR_RETURN(Output kept, KeptShape(s, in[0], in[1]));
      const DataType dt = BaseType(in[0].dtype());
      Output hit = ops::Cast(s, ops::Equal(s, in[0], ops::Reshape(s, op.output(0), kept)), dt);
      Output count = ops::Sum(s, hit, in[1], /*keep_dims=*/true);
      *dx = {ops::RealDiv(s, ops::Mul(s, hit, ops::Reshape(s, dy[0], kept)), count), Output()};
      return absl::OkStatus();
    });
  }
  r->Register("EuclideanNorm", [](const Scope& s, const Operation& op, const Grads& dy,
                                   Grads* dx) {
    // x / (norm / dy), as math_grad.py's (not finite where the norm is 0).
    const Grads in = s.GetInputs(op);
    MG_ASSIGN_OR_RETURN(Output kept, KeptShape(s, in[0], in[1]));
    Output norm = ops::Reshape(s, op.output(0), kept);
    *dx = {ops::RealDiv(s, in[0], ops::RealDiv(s, norm, ops::Reshape(s, dy[0], kept))), Output()};
    return absl::OkStatus();
  });
  // TensorFlow's _ProdGrad: the reduced axes moved first and flattened,
  // each element's gradient the product of the others in its column (an
  // exclusive cumulative product from each end), moved back.
  r->Register("Prod", [](const Scope& s, const Operation& op, const Grads& dy, Grads* dx) {
    const Grads in = s.GetInputs(op);
    Output x = in[0];
    Tensor axes;
    if (!x.shape().rank_known() ||
        !GetNodeAttr(s.GetNodeDef(in[1].op()), "value", &axes).ok()) {
      return absl::UnimplementedError(
          "the gradient of Prod needs its input's rank and constant axes");
    }
    const int rank = x.shape().rank();
    std::vector<bool> is_reduced(rank, false);
    std::vector<int32_t> perm;
    for (int64_t i = 0; i < axes.NumElements(); ++i) {
      int64_t a = axes.dtype() == DT_INT32 ? axes.data<int32_t>()[i] : axes.data<int64_t>()[i];
      if (a < 0) a += rank;
      if (a < 0 || a >= rank || is_reduced[a]) continue;
      is_reduced[a] = true;
      perm.push_back(static_cast<int32_t>(a));
    }
    const int num_reduced = static_cast<int>(perm.size());
    for (int d = 0; d < rank; ++d) {
      if (!is_reduced[d]) perm.push_back(d);
    }
    auto vector = [&](std::vector<int32_t> v) {
      Tensor t(DT_INT32, TensorShape({static_cast<int64_t>(v.size())}));
      std::copy(v.begin(), v.end(), t.data<int32_t>());
      return ops::Const(s, t);
    };
    MG_ASSIGN_OR_RETURN(Output g, Unreduce(s, x, in[1], dy[0]));
    Output shape = ops::Shape(s, x);
    Output zero = ops::Const<int32_t>(s, 0);
    auto count = [&](std::vector<int32_t> dims) {
      return ops::Prod(s, ops::GatherV2(s, shape, vector(dims), zero), zero);
    };
    Output rows = count({perm.begin(), perm.begin() + num_reduced});
    Output cols = count({perm.begin() + num_reduced, perm.end()});
    Output permuted = ops::Transpose(s, x, vector(perm));
    Output matrix = ops::Reshape(s, permuted, ops::Pack(s, {rows, cols}));
    auto others = [&](bool reverse) {
      AttrValue yes, rev;
      yes.set_b(true);
      rev.set_b(reverse);
      return Conj(s, s.AddOp("Cumprod", {{matrix}, {zero}}, {{"exclusive", yes}, {"reverse", rev}})
                         .output(0));
    };
    Output y = ops::Reshape(s, ops::Mul(s, others(false), others(true)), ops::Shape(s, permuted));
    Output out = ops::Mul(s, g, ops::Transpose(s, y, ops::InvertPermutation(s, vector(perm))));
    *dx = {ops::Reshape(s, out, shape), Output()};
    return s.status();
  });
  for (const char* op : {"Shape",
                         "Size",
                         "Rank",
                         "ZerosLike",
                         "OnesLike",
                         "Greater",
                         "Less",
                         "GreaterEqual",
                         "LessEqual",
                         "Equal",
                         "NotEqual",
                         "Unique",
                         "UniqueWithCounts",
                         "ConcatOffset",
                         "LogicalAnd",
                         "LogicalOr",
                         "LogicalNot",
                         "ReduceJoin",
                         "ArgMax",
                         "Where",
                         "BroadcastGradientArgs",
                         "RandomUniform",
                         "RandomStandardNormal",
                         "TruncatedNormal",
                         "RandomShuffle",
                         "Const",
                         "Placeholder",
                         "IsVariableInitialized",
                         "VariableV2",
                         "Variable",
                         "VarHandleOp",
                         "VarIsInitializedOp",
                         "VariableShape"}) {
    r->RegisterNoGradient(op);
  }
}

// The gamma draws' (random_grad.py): with respect to alpha, through the
// derivative of each draw by its alpha (RandomGammaGrad), summed over the
// leading sample dimensions. `sample_dims` counts them.
Output GammaAlphaGrad(const Scope& s, Output alpha, Output sample, Output dy,
                      Output sample_dims) {
  Output ones = ops::Fill(s, ops::Reshape(s, sample_dims, ops::Const<int32_t>(s, {1})),
                          ops::Const<int32_t>(s, 1));
  Output alpha_b = ops::Reshape(
      s, alpha, ops::ConcatV2(s, {ones, ops::Shape(s, alpha)}, ops::Const<int32_t>(s, 0)));
  Output partial = s.AddOp("RandomGammaGrad", {{alpha_b}, {sample}}).output(0);
  return ops::Sum(s, ops::Mul(s, dy, partial),
                  ops::Range(s, ops::Const<int32_t>(s, 0), sample_dims,
                             ops::Const<int32_t>(s, 1)));
}

void RegisterRandomGradients(GradientRegistry* r) {
  r->Register("RandomGamma", [](const Scope& s, const Operation& op, const Grads& dy,
                                Grads* dx) {
    const Grads in = s.GetInputs(op);
    *dx = {Output(), GammaAlphaGrad(s, in[1], op.output(0), dy[0], ops::Size(s, in[0]))};
    return s.status();
  });
  for (const char* name : {"StatelessRandomGammaV2", "StatelessRandomGammaV3"}) {
    r->Register(name, [](const Scope& s, const Operation& op, const Grads& dy, Grads* dx) {
      const Grads in = s.GetInputs(op);
      Output alpha = in.back();
      Output dims = ops::Sub(s, ops::Size(s, in[0]), ops::Rank(s, alpha));
      *dx = Grads(in.size());
      dx->back() = GammaAlphaGrad(s, alpha, op.output(0), dy[0], dims);
      return s.status();
    });
  }
  // TensorFlow's _StatelessParameterizedTruncatedNormalGrad: implicit
  // reparameterization (Figurnov et al., 2018). With the sample, mean and
  // bounds standardized and F the truncated distribution's CDF at the
  // sample (clipped to [tiny, 1 - eps]), d/dmean = 1, d/dstddev = the
  // standardized sample, d/dmaxval = exp((z^2 - b^2) / 2 + log F), d/dminval
  // = exp((z^2 - a^2) / 2 + log(1 - F)); each summed over the sample
  // dimensions `shape` adds and the dimensions its parameter was broadcast
  // along.
  r->Register("StatelessParameterizedTruncatedNormal", [](const Scope& s, const Operation& op,
                                                          const Grads& dy, Grads* dx) {
    const Grads in = s.GetInputs(op);
    Output mean = in[2], stddev = in[3], minval = in[4], maxval = in[5];
    Output sample = op.output(0);
    const DataType dt = BaseType(mean.dtype());
    auto standard = [&](Output x) { return ops::RealDiv(s, ops::Sub(s, x, mean), stddev); };
    Output half_sqrt2 = Scalar(s, dt, 0.5 * std::sqrt(2.0));
    auto ndtr = [&](Output x) {  // TensorFlow's _Ndtr
      Output w = ops::Mul(s, x, half_sqrt2);
      Output z = s.AddOp("Abs", {{w}}).output(0);
      Output erfc = s.AddOp("Erfc", {{z}}).output(0);
      Output y = ops::SelectV2(
          s, ops::Less(s, z, half_sqrt2),
          ops::Add(s, Scalar(s, dt, 1), s.AddOp("Erf", {{w}}).output(0)),
          ops::SelectV2(s, ops::Greater(s, w, Scalar(s, dt, 0)),
                        ops::Sub(s, Scalar(s, dt, 2), erfc), erfc));
      return ops::Mul(s, Scalar(s, dt, 0.5), y);
    };
    Output a = standard(minval), b = standard(maxval), z = standard(sample);
    Output cdf = ops::RealDiv(s, ops::Sub(s, ndtr(z), ndtr(a)), ops::Sub(s, ndtr(b), ndtr(a)));
    const bool f32 = dt == DT_FLOAT;
    const double tiny =
        f32 ? std::numeric_limits<float>::min() : std::numeric_limits<double>::min();
    const double eps =
        f32 ? std::numeric_limits<float>::epsilon() : std::numeric_limits<double>::epsilon();
    cdf = s.AddOp("ClipByValue", {{cdf}, {Scalar(s, dt, tiny)}, {Scalar(s, dt, 1 - eps)}})
              .output(0);
    Output half = Scalar(s, dt, 0.5);
    auto tail = [&](Output bound, Output log_mass) {
      return ops::Exp(s, ops::Add(s, ops::Mul(s, half, ops::Sub(s, ops::Square(s, z),
                                                                ops::Square(s, bound))),
                                  log_mass));
    };
    Output dmax = tail(b, ops::Log(s, cdf));
    Output dmin = tail(a, ops::Log1p(s, ops::Neg(s, cdf)));
    Output shape = ops::Shape(s, mean);
    Output broadcast = shape;
    for (Output p : {stddev, minval, maxval}) {
      broadcast = s.AddOp("BroadcastArgs", {{ops::Shape(s, p)}, {broadcast}}).output(0);
    }
    Output extra = ops::Range(s, ops::Const<int32_t>(s, 0),
                              ops::Sub(s, ops::Size(s, in[0]), ops::Size(s, broadcast)),
                              ops::Const<int32_t>(s, 1));
    auto reduce = [&](Output partial, Output param) {
      Output g = ops::Sum(s, ops::Mul(s, dy[0], partial), extra);
      Output param_shape = ops::Shape(s, param);
      Output axes = ops::BroadcastGradientArgs(s, broadcast, param_shape).r1;
      return ops::Reshape(s, ops::Sum(s, g, axes, /*keep_dims=*/true), param_shape);
    };
    *dx = {Output(), Output(), reduce(ops::OnesLike(s, z), mean), reduce(z, stddev),
           reduce(dmin, minval), reduce(dmax, maxval)};
    return s.status();
  });
}

}  // namespace

void RegisterMathGradients(GradientRegistry* r) {
  RegisterIdentityGradients(r);
  RegisterArithmeticGradients(r);
  RegisterUnaryGradients(r);
  RegisterComplexGradients(r);
  RegisterMatMulAndReductionGradients(r);
  RegisterRandomGradients(r);
}

namespace {

// The window attrs of a convolution or pool (strides, padding, ...), for
// the op that computes its gradient.
std::map<std::string, AttrValue> WindowAttrs(const NodeDef& node) {
  return CopyAttrs(
      node, {"strides", "padding", "explicit_paddings", "dilations", "data_format", "ksize"});
}

// The gradients of the activations' gradient ops (nn_grad.py's and
// math_grad.py's *GradGrad), for gradients of gradients (penalties,
// Hessian-vector products). An activation's gradient op takes (dy, x) or
// (y, dy); its gradient with respect to dy is the gradient op again.
void RegisterActivationGradGradients(GradientRegistry* r) {
  // (dy, features) ops whose gradient is zero with respect to the features.
  for (const char* name : {"ReluGrad", "Relu6Grad", "LeakyReluGrad"}) {
    const std::string op_name = name;
    r->Register(name, [op_name](const Scope& s, const Operation& op, const Grads& dy,
                                Grads* dx) {
      const Grads in = s.GetInputs(op);
      *dx = {s.AddOp(op_name, {{dy[0]}, {in[1]}}, CopyAttrs(s.GetNodeDef(op), {"alpha"}))
                 .output(0),
             ops::ZerosLike(s, in[1])};
      return s.status();
    });
  }
  // EluGrad and SeluGrad take (dy, y): where y < 0 the gradient's slope
  // depends on y.
  for (const char* name : {"EluGrad", "SeluGrad"}) {
    const std::string op_name = name;
    r->Register(name, [op_name](const Scope& s, const Operation& op, const Grads& dy,
                                Grads* dx) {
      const Grads in = s.GetInputs(op);
      Output y = in[1];
      Output negative = ops::Less(s, y, Scalar(s, BaseType(y.dtype()), 0));
      *dx = {s.AddOp(op_name, {{dy[0]}, {y}}).output(0),
             ops::SelectV2(s, negative, ops::Mul(s, dy[0], in[0]), ops::ZerosLike(s, y))};
      return s.status();
    });
  }
  // The (y, dy) ops: SigmoidGrad = dy y (1 - y), TanhGrad = dy (1 - y^2),
  // RsqrtGrad = -dy y^3 / 2, ReciprocalGrad = -dy y^2.
  r->Register("SigmoidGrad", [](const Scope& s, const Operation& op, const Grads& dy,
                                Grads* dx) {
    const Grads in = s.GetInputs(op);
    Output a = Conj(s, in[0]), gb = ops::Mul(s, dy[0], Conj(s, in[1]));
    *dx = {ops::Sub(s, gb, ops::Mul(s, ops::Mul(s, Scalar(s, BaseType(a.dtype()), 2), gb), a)),
           s.AddOp("SigmoidGrad", {{a}, {dy[0]}}).output(0)};
    return s.status();
  });
  r->Register("TanhGrad", [](const Scope& s, const Operation& op, const Grads& dy, Grads* dx) {
    const Grads in = s.GetInputs(op);
    Output a = Conj(s, in[0]), b = Conj(s, in[1]);
    *dx = {ops::Mul(s, ops::Mul(s, ops::Mul(s, dy[0], Scalar(s, BaseType(a.dtype()), -2)), b), a),
           s.AddOp("TanhGrad", {{a}, {dy[0]}}).output(0)};
    return s.status();
  });
  r->Register("RsqrtGrad", [](const Scope& s, const Operation& op, const Grads& dy, Grads* dx) {
    const Grads in = s.GetInputs(op);
    Output a = Conj(s, in[0]), g = Conj(s, dy[0]);
    *dx = {ops::Mul(s, ops::Mul(s, ops::Mul(s, Scalar(s, BaseType(a.dtype()), -1.5), g), in[1]),
                    ops::Square(s, a)),
           s.AddOp("RsqrtGrad", {{a}, {dy[0]}}).output(0)};
    return s.status();
  });
  r->Register("ReciprocalGrad", [](const Scope& s, const Operation& op, const Grads& dy,
                                   Grads* dx) {
    const Grads in = s.GetInputs(op);
    Output a = Conj(s, in[0]), g = Conj(s, dy[0]);
    *dx = {ops::Mul(s, ops::Mul(s, ops::Mul(s, g, Scalar(s, BaseType(a.dtype()), -2)), in[1]), a),
           s.AddOp("ReciprocalGrad", {{a}, {dy[0]}}).output(0)};
    return s.status();
  });
  // SqrtGrad = dy / (2 y): its output is 0.5 b / conj(a).
  r->Register("SqrtGrad", [](const Scope& s, const Operation& op, const Grads& dy, Grads* dx) {
    const Grads in = s.GetInputs(op);
    Output ga = ops::RealDiv(s, dy[0], in[0]);
    *dx = {ops::Mul(s, ops::Neg(s, Conj(s, ga)), op.output(0)),
           ops::Mul(s, Scalar(s, BaseType(ga.dtype()), 0.5), ga)};
    return s.status();
  });
  // BiasAddGrad sums dy over all but the channels: its gradient spreads the
  // bias's gradient back over them.
  r->Register("BiasAddGrad", [](const Scope& s, const Operation& op, const Grads& dy,
                                Grads* dx) {
    std::string format = "NHWC";
    GetNodeAttr(s.GetNodeDef(op), "data_format", &format).IgnoreError();
    Output shape = ops::Shape(s, s.GetInputs(op)[0]);
    Output bias_shape = ops::Shape(s, dy[0]);
    Output zero = ops::Const<int32_t>(s, {0}), one = ops::Const<int32_t>(s, {1});
    Output minus_one = ops::Const<int32_t>(s, {-1}), big = ops::Const<int32_t>(s, {1 << 30});
    Output axis = ops::Const<int32_t>(s, 0);
    auto slice = [&](Output begin, Output end) {
      return ops::StridedSlice(s, shape, begin, end, one);
    };
    Output expanded, multiples;
    if (format == "NCHW" || format == "NCDHW") {
      Output first = slice(zero, one), rest = slice(ops::Const<int32_t>(s, {2}), big);
      expanded = ops::ConcatV2(s, {ops::OnesLike(s, first), bias_shape, ops::OnesLike(s, rest)},
                               axis);
      multiples = ops::ConcatV2(s, {first, one, rest}, axis);
    } else {
      Output leading = slice(zero, minus_one);
      expanded = ops::ConcatV2(s, {ops::OnesLike(s, leading), bias_shape}, axis);
      multiples = ops::ConcatV2(s, {leading, one}, axis);
    }
    *dx = {ops::Tile(s, ops::Reshape(s, dy[0], expanded), multiples)};
    return s.status();
  });
}

// Activations and biases.
void RegisterActivationGradients(GradientRegistry* r) {
  r->Register("Relu", [](const Scope& s, const Operation& op, const Grads& dy, Grads* dx) {
    *dx = {s.AddOp("ReluGrad", {{dy[0]}, {s.GetInputs(op)[0]}}).output(0)};
    return absl::OkStatus();
  });
  for (const char* name : {"Softplus", "Relu6"}) {
    r->Register(name, [](const Scope& s, const Operation& op, const Grads& dy, Grads* dx) {
      *dx = {s.AddOp(absl::StrCat(s.GetNodeDef(op).op(), "Grad"), {{dy[0]}, {s.GetInputs(op)[0]}})
                 .output(0)};
      return absl::OkStatus();
    });
  }
  r->Register("Elu", [](const Scope& s, const Operation& op, const Grads& dy, Grads* dx) {
    *dx = {s.AddOp("EluGrad", {{dy[0]}, {op.output(0)}}).output(0)};
    return absl::OkStatus();
  });
  r->Register("LeakyRelu", [](const Scope& s, const Operation& op, const Grads& dy, Grads* dx) {
    *dx = {s.AddOp("LeakyReluGrad", {{dy[0]}, {s.GetInputs(op)[0]}},
                   CopyAttrs(s.GetNodeDef(op), {"alpha"}))
               .output(0)};
    return absl::OkStatus();
  });
  r->Register("Selu", [](const Scope& s, const Operation& op, const Grads& dy, Grads* dx) {
    *dx = {s.AddOp("SeluGrad", {{dy[0]}, {op.output(0)}}).output(0)};
    return absl::OkStatus();
  });
  r->Register("Softsign", [](const Scope& s, const Operation& op, const Grads& dy, Grads* dx) {
    *dx = {s.AddOp("SoftsignGrad", {{dy[0]}, {s.GetInputs(op)[0]}}).output(0)};
    return absl::OkStatus();
  });
  r->Register("L2Loss", [](const Scope& s, const Operation& op, const Grads& dy, Grads* dx) {
    *dx = {ops::Mul(s, s.GetInputs(op)[0], dy[0])};
    return absl::OkStatus();
  });
  r->Register("BiasAdd", [](const Scope& s, const Operation& op, const Grads& dy, Grads* dx) {
    *dx = {dy[0],
           s.AddOp("BiasAddGrad", {{dy[0]}}, CopyAttrs(s.GetNodeDef(op), {"data_format"}))
               .output(0)};
    return absl::OkStatus();
  });
  RegisterActivationGradGradients(r);
}

// Convolutions, pools and image resizes.
void RegisterConvolutionGradients(GradientRegistry* r) {
  // Convolutions and pools (TensorFlow's nn_grad.py): the backprop ops take
  // the forward op's window attrs.
  // TensorFlow's _Dilation2DGrad: the two backprop ops with the forward
  // op's window.
  r->Register("Dilation2D", [](const Scope& s, const Operation& op, const Grads& dy, Grads* dx) {
    const Grads in = s.GetInputs(op);
    const auto attrs = CopyAttrs(s.GetNodeDef(op), {"strides", "rates", "padding"});
    *dx = {s.AddOp("Dilation2DBackpropInput", {{in[0]}, {in[1]}, {dy[0]}}, attrs).output(0),
           s.AddOp("Dilation2DBackpropFilter", {{in[0]}, {in[1]}, {dy[0]}}, attrs).output(0)};
    return absl::OkStatus();
  });
  // Conv2D's and Conv3D's, and their gradients' gradients: each backprop's
  // gradient is the other backprop and the forward op.
  struct ConvFamily {
    const char* forward;
    const char* input;
    const char* filter;
  };
  // (TensorFlow's _DepthwiseConv2dNativeGrad and its backprops' gradients
  // too.)
  for (const ConvFamily f : {ConvFamily{"Conv2D", "Conv2DBackpropInput", "Conv2DBackpropFilter"},
                             ConvFamily{"Conv3D", "Conv3DBackpropInputV2",
                                        "Conv3DBackpropFilterV2"},
                             ConvFamily{"DepthwiseConv2dNative",
                                        "DepthwiseConv2dNativeBackpropInput",
                                        "DepthwiseConv2dNativeBackpropFilter"}}) {
    r->Register(f.forward, [f](const Scope& s, const Operation& op, const Grads& dy, Grads* dx) {
      const Grads in = s.GetInputs(op);
      const auto attrs = WindowAttrs(s.GetNodeDef(op));
      *dx = {s.AddOp(f.input, {{ops::Shape(s, in[0])}, {in[1]}, {dy[0]}}, attrs).output(0),
             s.AddOp(f.filter, {{in[0]}, {ops::Shape(s, in[1])}, {dy[0]}}, attrs).output(0)};
      return absl::OkStatus();
    });
    r->Register(f.input, [f](const Scope& s, const Operation& op, const Grads& dy, Grads* dx) {
      const Grads in = s.GetInputs(op);
      const auto attrs = WindowAttrs(s.GetNodeDef(op));
      *dx = {Output(),
             s.AddOp(f.filter, {{dy[0]}, {ops::Shape(s, in[1])}, {in[2]}}, attrs).output(0),
             s.AddOp(f.forward, {{dy[0]}, {in[1]}}, attrs).output(0)};
      return absl::OkStatus();
    });
    r->Register(f.filter, [f](const Scope& s, const Operation& op, const Grads& dy, Grads* dx) {
      const Grads in = s.GetInputs(op);
      const auto attrs = WindowAttrs(s.GetNodeDef(op));
      *dx = {s.AddOp(f.input, {{ops::Shape(s, in[0])}, {dy[0]}, {in[2]}}, attrs).output(0),
             Output(), s.AddOp(f.forward, {{in[0]}, {dy[0]}}, attrs).output(0)};
      return absl::OkStatus();
    });
  }
  r->Register("MaxPool", [](const Scope& s, const Operation& op, const Grads& dy, Grads* dx) {
    *dx = {s.AddOp("MaxPoolGrad", {{s.GetInputs(op)[0]}, {op.output(0)}, {dy[0]}},
                   WindowAttrs(s.GetNodeDef(op)))
               .output(0)};
    return absl::OkStatus();
  });
  r->Register("AvgPool", [](const Scope& s, const Operation& op, const Grads& dy, Grads* dx) {
    *dx = {s.AddOp("AvgPoolGrad", {{ops::Shape(s, s.GetInputs(op)[0])}, {dy[0]}},
                   WindowAttrs(s.GetNodeDef(op)))
               .output(0)};
    return absl::OkStatus();
  });
  // TensorFlow's _MaxPoolGradGrad and _MaxPoolGradGradGrad: the windows'
  // maxima route the gradient one way and back; the pool's input and
  // output get zeros.
  for (const auto& [name, other] : {std::pair<const char*, const char*>{"MaxPoolGrad",
                                                                         "MaxPoolGradGrad"},
                                    {"MaxPoolGradGrad", "MaxPoolGrad"}}) {
    const std::string next = other;
    r->Register(name, [next](const Scope& s, const Operation& op, const Grads& dy, Grads* dx) {
      const Grads in = s.GetInputs(op);
      *dx = {ops::ZerosLike(s, in[0]), ops::ZerosLike(s, in[1]),
             s.AddOp(next, {{in[0]}, {in[1]}, {dy[0]}},
                     CopyAttrs(s.GetNodeDef(op), {"ksize", "strides", "padding", "data_format"}))
                 .output(0)};
      return s.status();
    });
  }
  // TensorFlow's _AvgPoolGradGrad: the pool of the gradient's gradient.
  r->Register("AvgPoolGrad", [](const Scope& s, const Operation& op, const Grads& dy,
                                Grads* dx) {
    *dx = {Output(), s.AddOp("AvgPool", {{dy[0]}}, WindowAttrs(s.GetNodeDef(op))).output(0)};
    return absl::OkStatus();
  });
  // The 3-D pools' (nn_grad.py): the max's gradient and its gradient's
  // take the forward op's input and output; their other inputs' gradients
  // are zeros.
  r->Register("MaxPool3D", [](const Scope& s, const Operation& op, const Grads& dy, Grads* dx) {
    *dx = {s.AddOp("MaxPool3DGrad", {{s.GetInputs(op)[0]}, {op.output(0)}, {dy[0]}},
                   WindowAttrs(s.GetNodeDef(op)))
               .output(0)};
    return absl::OkStatus();
  });
  for (const auto& [grad, its_grad] : {std::pair<const char*, const char*>{"MaxPool3DGrad",
                                                                           "MaxPool3DGradGrad"},
                                       {"MaxPool3DGradGrad", "MaxPool3DGrad"}}) {
    r->Register(grad, [its_grad = its_grad](const Scope& s, const Operation& op, const Grads& dy,
                                            Grads* dx) {
      const Grads in = s.GetInputs(op);
      *dx = {ops::ZerosLike(s, in[0]), ops::ZerosLike(s, in[1]),
             s.AddOp(its_grad, {{in[0]}, {in[1]}, {dy[0]}}, WindowAttrs(s.GetNodeDef(op)))
                 .output(0)};
      return absl::OkStatus();
    });
  }
  // MaxPoolWithArgmax's (nn_grad.py): the gradient goes where argmax says.
  // (MaxPoolGradWithArgmax's own gradient needs MaxPoolGradGradWithArgmax,
  // which TensorFlow runs on GPUs only.)
  static constexpr std::initializer_list<const char*> kArgmaxPoolAttrs = {
      "ksize", "strides", "padding", "include_batch_in_index"};
  r->Register("MaxPoolWithArgmax",
              [](const Scope& s, const Operation& op, const Grads& dy, Grads* dx) {
                const auto attrs = CopyAttrs(s.GetNodeDef(op), kArgmaxPoolAttrs);
                *dx = {s.AddOp("MaxPoolGradWithArgmax",
                               {{s.GetInputs(op)[0]}, {dy[0]}, {op.output(1)}}, attrs)
                           .output(0)};
                return absl::OkStatus();
              });
  // ExtractImagePatches' (array_grad.py): each input pixel's gradient is the
  // sum of the patch elements it became. The patches of an image of pixel
  // numbers (1 up; 0 where padding) say which, and an unsorted segment sum
  // over them adds the gradients of [batch, depth] at once (TensorFlow
  // multiplies by a sparse matrix instead; the sums are the same).
  r->Register("ExtractImagePatches",
              [](const Scope& s, const Operation& op, const Grads& dy, Grads* dx) {
                const NodeDef& def = s.GetNodeDef(op);
                std::vector<int64_t> ksizes;
                MG_RETURN_IF_ERROR(GetNodeAttr(def, "ksizes", &ksizes));
                if (ksizes.size() != 4) {
                  return absl::InvalidArgumentError(absl::StrCat(
                      "the gradient of ", def.name(), ": ksizes must have 4 elements"));
                }
                const Output in_shape = ops::Shape(s, s.GetInputs(op)[0]);
                const Output out_shape = ops::Shape(s, op.output(0));
                auto dim = [&](Output shape, int i) {
                  return ops::Slice(s, shape, ops::Const<int32_t>(s, {i}),
                                    ops::Const<int32_t>(s, {1}));
                };
                const Output batch = dim(in_shape, 0), rows = dim(in_shape, 1),
                             cols = dim(in_shape, 2), depth = dim(in_shape, 3);
                const Output pixels = ops::Mul(s, rows, cols);
                const Output zero = ops::Const<int32_t>(s, 0);
                const Output scalar = ops::Const(s, Tensor(DT_INT32, TensorShape({0})));
                const Output one = ops::Const<int32_t>(s, {1});
                const Output count = ops::Reshape(s, ops::Add(s, pixels, one), scalar);
                const Output numbers = ops::Reshape(
                    s, ops::Range(s, ops::Const<int32_t>(s, 1), count, ops::Const<int32_t>(s, 1)),
                    ops::ConcatV2(s, {one, rows, cols, one}, zero));
                const Output patched =
                    s.AddOp("ExtractImagePatches", {{numbers}},
                            CopyAttrs(def, {"ksizes", "strides", "rates", "padding"}))
                        .output(0);
                const Output ids = ops::Reshape(s, patched, ops::Const<int32_t>(s, {-1}));
                const Output k = ops::Const<int32_t>(s, {static_cast<int32_t>(ksizes[1] *
                                                                               ksizes[2])});
                Output g = ops::Reshape(s, dy[0],
                                        ops::ConcatV2(s, {batch, dim(out_shape, 1),
                                                          dim(out_shape, 2), k, depth},
                                                      zero));
                g = ops::Transpose(s, g, ops::Const<int32_t>(s, {1, 2, 3, 0, 4}));
                // [patch elements, batch * depth], the first counted (not -1:
                // with no depth there is nothing to infer it from).
                const Output elements =
                    ops::Mul(s, ops::Mul(s, dim(out_shape, 1), dim(out_shape, 2)), k);
                g = ops::Reshape(s, g,
                                 ops::ConcatV2(s, {elements, ops::Mul(s, batch, depth)}, zero));
                Output sums = ops::UnsortedSegmentSum(s, g, ids, count);
                sums = ops::Slice(s, sums, ops::Const<int32_t>(s, {1, 0}),
                                  ops::Const<int32_t>(s, {-1, -1}));
                sums = ops::Reshape(s, sums, ops::ConcatV2(s, {rows, cols, batch, depth}, zero));
                *dx = {ops::Transpose(s, sums, ops::Const<int32_t>(s, {2, 0, 1, 3}))};
                return absl::OkStatus();
              });
  // The fractional pools' (nn_grad.py): through the cells the forward op
  // drew, given by its second and third outputs.
  r->Register("FractionalMaxPool",
              [](const Scope& s, const Operation& op, const Grads& dy, Grads* dx) {
                const Output x = s.GetInputs(op)[0];
                *dx = {s.AddOp("FractionalMaxPoolGrad",
                               {{x}, {op.output(0)}, {dy[0]}, {op.output(1)}, {op.output(2)}},
                               CopyAttrs(s.GetNodeDef(op), {"overlapping"}))
                           .output(0)};
                return absl::OkStatus();
              });
  r->Register("FractionalAvgPool",
              [](const Scope& s, const Operation& op, const Grads& dy, Grads* dx) {
                const Output shape = ops::Shape(s, s.GetInputs(op)[0], DT_INT64);
                *dx = {s.AddOp("FractionalAvgPoolGrad",
                               {{shape}, {dy[0]}, {op.output(1)}, {op.output(2)}},
                               CopyAttrs(s.GetNodeDef(op), {"overlapping"}))
                           .output(0)};
                return absl::OkStatus();
              });
  r->Register("AvgPool3D", [](const Scope& s, const Operation& op, const Grads& dy, Grads* dx) {
    *dx = {s.AddOp("AvgPool3DGrad", {{ops::Shape(s, s.GetInputs(op)[0])}, {dy[0]}},
                   WindowAttrs(s.GetNodeDef(op)))
               .output(0)};
    return absl::OkStatus();
  });
  r->Register("AvgPool3DGrad",
              [](const Scope& s, const Operation& op, const Grads& dy, Grads* dx) {
                *dx = {Output(),
                       s.AddOp("AvgPool3D", {{dy[0]}}, WindowAttrs(s.GetNodeDef(op))).output(0)};
                return absl::OkStatus();
              });
  // The projective transforms' (image_ops.py): the gradient transformed by
  // the inverse transform, into the images' height and width with fill 0
  // (an approximation of the adjoint, as TensorFlow's is). Each row of
  // eight becomes a 3x3 matrix with a 1 appended, inverted, normalized by
  // its last entry and cut back to eight.
  for (const char* name : {"ImageProjectiveTransformV2", "ImageProjectiveTransformV3"}) {
    r->Register(name, [](const Scope& s, const Operation& op, const Grads& dy, Grads* dx) {
      const Grads in = s.GetInputs(op);
      const NodeDef& node = s.GetNodeDef(op);
      Output rows = ops::Slice(s, ops::Shape(s, in[1]), ops::Const<int32_t>(s, {0}),
                               ops::Const<int32_t>(s, {1}));
      Output ones =
          ops::Fill(s, ops::ConcatV2(s, {rows, ops::Const<int32_t>(s, {1})}, ops::Const(s, 0)),
                    ops::Const<float>(s, 1.0f));
      Output matrices = ops::Reshape(s, ops::ConcatV2(s, {in[1], ones}, ops::Const(s, 1)),
                                     ops::Const<int32_t>(s, {-1, 3, 3}));
      Output flat = ops::Reshape(s, s.AddOp("MatrixInverse", {{matrices}}).output(0),
                                 ops::Const<int32_t>(s, {-1, 9}));
      flat = ops::RealDiv(s, flat, ops::Slice(s, flat, ops::Const<int32_t>(s, {0, 8}),
                                              ops::Const<int32_t>(s, {-1, 1})));
      Output inverse = ops::Slice(s, flat, ops::Const<int32_t>(s, {0, 0}),
                                  ops::Const<int32_t>(s, {-1, 8}));
      Output size = ops::Slice(s, ops::Shape(s, in[0]), ops::Const<int32_t>(s, {1}),
                               ops::Const<int32_t>(s, {2}));
      const bool v3 = in.size() > 3;
      std::vector<std::vector<Output>> args = {{dy[0]}, {inverse}, {size}};
      if (v3) args.push_back({ops::Const<float>(s, 0.0f)});
      *dx = {s.AddOp(node.op(), args, CopyAttrs(node, {"interpolation", "fill_mode"})).output(0),
             Output(), Output()};
      if (v3) dx->push_back(Output());
      return absl::OkStatus();
    });
  }
  // TensorFlow's _CropAndResizeGrad: the image's (float types only) by
  // CropAndResizeGradImage with the forward's method, the boxes' by
  // CropAndResizeGradBoxes (bilinear for either method).
  r->Register("CropAndResize", [](const Scope& s, const Operation& op, const Grads& dy,
                                  Grads* dx) {
    const Grads in = s.GetInputs(op);
    const NodeDef& node = s.GetNodeDef(op);
    const DataType t = BaseType(in[0].dtype());
    Output image;
    if (t == DT_FLOAT || t == DT_DOUBLE || t == DT_HALF) {
      image = s.AddOp("CropAndResizeGradImage",
                      {{dy[0]}, {in[1]}, {in[2]}, {ops::Shape(s, in[0])}},
                      CopyAttrs(node, {"T", "method"}))
                  .output(0);
    }
    Output boxes =
        s.AddOp("CropAndResizeGradBoxes", {{dy[0]}, {in[0]}, {in[1]}, {in[2]}}).output(0);
    *dx = {image, boxes, Output(), Output()};
    return s.status();
  });
  // TensorFlow's _RGBToHSVGrad: each of h, s and v differentiated by r, g
  // and b piecewise, by which channel is the largest and which the smallest
  // (ties broken R > G > B), with its reciprocals 0 where they would divide
  // by 0 (DivNoNan); the terms transcribed as TensorFlow writes them.
  r->Register("RGBToHSV", [](const Scope& s, const Operation& op, const Grads& dy, Grads* dx) {
    Output x = s.GetInputs(op)[0];
    const DataType dt = BaseType(x.dtype());
    const std::vector<Output> rgb = ops::Unstack(s, x, 3, -1);
    const std::vector<Output> hsv = ops::Unstack(s, op.output(0), 3, -1);
    const std::vector<Output> g = ops::Unstack(s, dy[0], 3, -1);
    Output r = rgb[0], gr = rgb[1], b = rgb[2], sat = hsv[1], val = hsv[2];
    auto as = [&](Output c) { return ops::Cast(s, c, dt); };
    auto both = [&](Output p, Output q) { return as(ops::LogicalAnd(s, p, q)); };
    auto inv = [&](Output t) {
      return s.AddOp("DivNoNan", {{ops::OnesLike(s, t)}, {t}}).output(0);
    };
    auto pos = [&](Output c) { return as(ops::Greater(s, c, ops::ZerosLike(s, c))); };
    auto mul = [&](std::vector<Output> fs) {
      Output out = fs[0];
      for (size_t i = 1; i < fs.size(); ++i) out = ops::Mul(s, out, fs[i]);
      return out;
    };
    auto k = [&](double v) { return Scalar(s, dt, v); };
    auto sq = [&](Output t) { return ops::Square(s, t); };
    auto sub = [&](Output p, Output q) { return ops::Sub(s, p, q); };
    auto add = [&](std::vector<Output> fs) {
      Output out = fs[0];
      for (size_t i = 1; i < fs.size(); ++i) out = ops::Add(s, out, fs[i]);
      return out;
    };
    Output r_max = both(ops::GreaterEqual(s, r, b), ops::GreaterEqual(s, r, gr));
    Output g_max = both(ops::Greater(s, gr, r), ops::GreaterEqual(s, gr, b));
    Output b_max = both(ops::Greater(s, b, r), ops::Greater(s, b, gr));
    Output r_min = both(ops::Less(s, r, b), ops::Less(s, r, gr));
    Output g_min = both(ops::LessEqual(s, gr, r), ops::Less(s, gr, b));
    Output b_min = both(ops::LessEqual(s, b, r), ops::LessEqual(s, b, gr));
    // Saturation: as the largest, MIN / MAX^2; as the smallest, -1 / MAX.
    auto ds = [&](Output c, Output c_max, Output c_min, Output o1, Output o1_min, Output o1_max,
                  Output o2, Output o2_min, Output o2_max) {
      return mul({pos(c), add({mul({c_max, add({mul({o1_min, o1}), mul({o2_min, o2})}),
                                    inv(sq(c))}),
                               mul({c_min, k(-1), inv(add({mul({o1_max, o1}),
                                                           mul({o2_max, o2})}))})})});
    };
    Output ds_dr = ds(r, r_max, r_min, gr, g_min, g_max, b, b_min, b_max);
    Output ds_dg = ds(gr, g_max, g_min, r, r_min, r_max, b, b_min, b_max);
    Output ds_db = ds(b, b_max, b_min, gr, g_min, g_max, r, r_min, r_max);
    Output sv = mul({inv(sq(sat)), inv(sq(val))});
    Output dh_dr = add({mul({pos(r), r_max, k(-1), sub(gr, b), sv}),
                        mul({pos(gr), g_max, r_min, sub(b, gr), inv(sq(sub(r, gr)))}),
                        mul({pos(gr), g_max, b_min, k(-1), inv(sub(gr, b))}),
                        mul({pos(b), b_max, r_min, sub(b, gr), inv(sq(sub(b, r)))}),
                        mul({pos(b), b_max, g_min, inv(sub(b, gr))})});
    Output dh_dg = add({mul({pos(gr), g_max, k(-1), sub(b, r), sv}),
                        mul({pos(r), r_max, g_min, sub(r, b), inv(sq(sub(r, gr)))}),
                        mul({pos(r), r_max, b_min, inv(sub(r, b))}),
                        mul({pos(b), b_max, g_min, sub(r, b), inv(sq(sub(b, gr)))}),
                        mul({pos(b), b_max, r_min, k(-1), inv(sub(b, r))})});
    Output dh_db = add({mul({pos(b), b_max, k(-1), sub(r, gr), sv}),
                        mul({pos(r), r_max, b_min, sub(gr, r), inv(sq(sub(r, b)))}),
                        mul({pos(r), r_max, g_min, k(-1), inv(sub(r, gr))}),
                        mul({pos(gr), g_max, b_min, sub(gr, r), inv(sq(sub(gr, b)))}),
                        mul({pos(gr), g_max, r_min, inv(sub(gr, r))})});
    // Degrees to TensorFlow's [0, 1] hue.
    auto hue = [&](Output d) { return ops::RealDiv(s, ops::Mul(s, k(60), d), k(360)); };
    auto per_channel = [&](Output grad, Output a, Output b2, Output c) {
      return ops::Pack(s, {ops::Mul(s, grad, a), ops::Mul(s, grad, b2), ops::Mul(s, grad, c)},
                       -1);
    };
    *dx = {add({per_channel(g[2], r_max, g_max, b_max), per_channel(g[1], ds_dr, ds_dg, ds_db),
                per_channel(g[0], hue(dh_dr), hue(dh_dg), hue(dh_db))})};
    return s.status();
  });
  // The resizes' gradients take the forward op's corner attrs; the size
  // input has none.
  r->Register("ResizeBilinear",
              [](const Scope& s, const Operation& op, const Grads& dy, Grads* dx) {
                const NodeDef& node = s.GetNodeDef(op);
                *dx = {s.AddOp("ResizeBilinearGrad", {{dy[0]}, {s.GetInputs(op)[0]}},
                               CopyAttrs(node, {"align_corners", "half_pixel_centers"}))
                           .output(0),
                       Output()};
                return absl::OkStatus();
              });
  r->Register("ResizeNearestNeighbor",
              [](const Scope& s, const Operation& op, const Grads& dy, Grads* dx) {
                const NodeDef& node = s.GetNodeDef(op);
                // The input's height and width: shape[1:3].
                Output size = ops::Slice(s, ops::Shape(s, s.GetInputs(op)[0]),
                                         ops::Const<int32_t>(s, {1}), ops::Const<int32_t>(s, {2}));
                *dx = {s.AddOp("ResizeNearestNeighborGrad", {{dy[0]}, {size}},
                               CopyAttrs(node, {"align_corners", "half_pixel_centers"}))
                           .output(0),
                       Output()};
                return absl::OkStatus();
              });
}

// The last element of an int64 shape, as a scalar.
Output LastDim(const Scope& s, Output shape) {
  Output at = ops::Sub(s, ops::Size(s, shape, DT_INT64), ops::Const<int64_t>(s, 1));
  Output one = ops::Slice(s, shape, ops::Reshape(s, at, ops::Const<int32_t>(s, {1})),
                          ops::Const<int64_t>(s, {1}));
  return ops::Reshape(s, one, ops::Const(s, Tensor(DT_INT32, TensorShape({0}))));
}

// Top k, isotonic regression, softmaxes and cross-entropies.
void RegisterSoftmaxGradients(GradientRegistry* r) {
  // TopK's (and ApproxTopK's) values take the gradient where they came
  // from: each row's indices offset by the row's start in x, the gradient
  // summed there.
  auto top_k = [](const Scope& s, const Operation& op, const Grads& dy, Grads* dx) {
    Output shape = ops::Shape(s, s.GetInputs(op)[0], DT_INT64);
    Output indices = ops::Cast(s, op.output(1), DT_INT64);
    Output k = LastDim(s, ops::Shape(s, indices, DT_INT64));
    Output rows = ops::Reshape(s, indices, ops::Pack(s, {ops::Const<int64_t>(s, -1), k}));
    Output total = ops::Prod(s, shape, ops::Const<int32_t>(s, 0));
    Output starts = ops::ExpandDims(
        s, ops::Range(s, ops::Const<int64_t>(s, 0), total, LastDim(s, shape)),
        ops::Const<int32_t>(s, -1));
    Output flat = ops::Reshape(s, ops::Add(s, rows, starts), ops::Const<int32_t>(s, {-1}));
    Output sums = ops::UnsortedSegmentSum(
        s, ops::Reshape(s, dy[0], ops::Const<int32_t>(s, {-1})), flat, total);
    *dx = {ops::Reshape(s, sums, shape)};
    if (s.GetNodeDef(op).op() == "TopKV2") dx->push_back(Output());
    return absl::OkStatus();
  };
  // IsotonicRegression's (nn_grad.py): each element's gradient replaced by
  // the mean of its block's (the blocks numbered per row by segments).
  r->Register("IsotonicRegression", [](const Scope& s, const Operation& op, const Grads& dy,
                                       Grads* dx) {
    Output segments = ops::Cast(s, op.output(1), DT_INT64);
    Output shape = ops::Shape(s, segments, DT_INT64);
    Output total = ops::Prod(s, shape, ops::Const<int32_t>(s, 0));
    Output n = LastDim(s, shape);
    // Block k of the row starting at element i is segment i + k.
    Output rows = ops::Reshape(s, segments, ops::Pack(s, {ops::Const<int64_t>(s, -1), n}));
    // (Rows of no elements: no ids, and a step of 1 for the empty range.)
    Output step = ops::Maximum(s, n, ops::Const<int64_t>(s, 1));
    Output starts = ops::ExpandDims(s, ops::Range(s, ops::Const<int64_t>(s, 0), total, step),
                                    ops::Const<int32_t>(s, -1));
    Output ids = ops::Reshape(s, ops::Add(s, rows, starts), ops::Const<int32_t>(s, {-1}));
    Output g = ops::Reshape(s, dy[0], ops::Const<int32_t>(s, {-1}));
    Output sums = ops::UnsortedSegmentSum(s, g, ids, total);
    Output counts = ops::UnsortedSegmentSum(s, ops::OnesLike(s, g), ids, total);
    Output means = ops::DivNoNan(s, sums, counts);
    *dx = {ops::Reshape(s, ops::Gather(s, means, ids), ops::Shape(s, dy[0]))};
    return absl::OkStatus();
  });
  r->Register("TopK", top_k);
  r->Register("TopKV2", top_k);
  // (On a CPU, ApproxTopK is TopK over the last dimension.)
  r->Register("ApproxTopK", top_k);
  r->Register("Softmax", [](const Scope& s, const Operation& op, const Grads& dy, Grads* dx) {
    Output y = op.output(0);
    *dx = {ops::Mul(s, ops::Sub(s, dy[0], LastAxisKeep(s, ops::Mul(s, dy[0], y))), y)};
    return absl::OkStatus();
  });
  r->Register("LogSoftmax", [](const Scope& s, const Operation& op, const Grads& dy, Grads* dx) {
    *dx = {ops::Sub(s, dy[0], ops::Mul(s, LastAxisKeep(s, dy[0]), ops::Exp(s, op.output(0))))};
    return absl::OkStatus();
  });
  auto xent = [](bool sparse) {
    return [sparse](const Scope& s, const Operation& op, const Grads& dy, Grads* dx) {
      // d loss / d logits = backprop * dloss; labels: -log_softmax * dloss.
      Output dloss = ops::Reshape(s, dy[0], ops::Const<int32_t>(s, {-1, 1}));
      Output dlogits = ops::Mul(s, op.output(1), dloss);
      if (s.GetNodeDef(dy[1].op()).op() != "ZerosLike") {
        // A gradient flowing into backprop (softmax - labels) too, as
        // TensorFlow's: (g - sum(g * softmax)) * softmax.
        Output logits = s.GetInputs(op)[0];
        Output softmax = ops::Softmax(s, logits);
        Output centered = ops::Sub(s, dy[1], LastAxisKeep(s, ops::Mul(s, dy[1], softmax)));
        dlogits = ops::Add(s, dlogits, ops::Mul(s, centered, softmax));
      }
      if (sparse) {
        *dx = {dlogits, Output()};
      } else {
        Output logits = s.GetInputs(op)[0];
        *dx = {dlogits, ops::Mul(s, ops::Neg(s, ops::LogSoftmax(s, logits)), dloss)};
      }
      return absl::OkStatus();
    };
  };
  r->Register("SoftmaxCrossEntropyWithLogits", xent(false));
  r->Register("SparseSoftmaxCrossEntropyWithLogits", xent(true));
}

}  // namespace

void RegisterNnGradients(GradientRegistry* r) {
  RegisterActivationGradients(r);
  RegisterConvolutionGradients(r);
  RegisterSoftmaxGradients(r);
}

namespace {

// Fill, dimension changes, transposes, slices, tiles and pads.
void RegisterReshapingGradients(GradientRegistry* r) {
  r->Register("Fill", [](const Scope& s, const Operation& op, const Grads& dy, Grads* dx) {
    Output flat = ops::Reshape(s, dy[0], ops::Const<int32_t>(s, {-1}));
    *dx = {Output(), ops::Sum(s, flat, ops::Const<int32_t>(s, 0))};
    return absl::OkStatus();
  });
  // TensorFlow's array_grad.py.
  for (const char* op : {"ExpandDims", "Squeeze"}) {
    r->Register(op, [](const Scope& s, const Operation& op, const Grads& dy, Grads* dx) {
      *dx = {ops::Reshape(s, dy[0], ops::Shape(s, s.GetInputs(op)[0])), Output()};
      dx->resize(s.GetInputs(op).size());
      return absl::OkStatus();
    });
  }
  r->Register("Transpose", [](const Scope& s, const Operation& op, const Grads& dy, Grads* dx) {
    *dx = {ops::Transpose(s, dy[0], ops::InvertPermutation(s, s.GetInputs(op)[1])), Output()};
    return absl::OkStatus();
  });
  r->Register("Slice", [](const Scope& s, const Operation& op, const Grads& dy, Grads* dx) {
    // Pad dy back: `begin` before, the rest after, per dim.
    const Grads in = s.GetInputs(op);
    const DataType index = BaseType(in[1].dtype());
    Output column = ops::Const<int32_t>(s, {-1, 1});
    Output after = ops::Sub(
        s, ops::Sub(s, ops::Shape(s, in[0], index), ops::Shape(s, op.output(0), index)), in[1]);
    Output paddings = ops::ConcatV2(
        s, {ops::Reshape(s, in[1], column), ops::Reshape(s, after, column)},
        ops::Const<int32_t>(s, 1));
    *dx = {ops::Pad(s, dy[0], paddings), Output(), Output()};
    return absl::OkStatus();
  });
  r->Register("StridedSlice", [](const Scope& s, const Operation& op, const Grads& dy, Grads* dx) {
    const Grads in = s.GetInputs(op);
    auto attrs = CopyAttrs(s.GetNodeDef(op), {"begin_mask", "end_mask", "ellipsis_mask",
                                               "new_axis_mask", "shrink_axis_mask"});
    Output shape = ops::Shape(s, in[0], BaseType(in[1].dtype()));
    *dx = {s.AddOp("StridedSliceGrad", {{shape}, {in[1]}, {in[2]}, {in[3]}, {dy[0]}}, attrs)
               .output(0),
           Output(), Output(), Output()};
    return absl::OkStatus();
  });
  r->Register("StridedSliceGrad",
              [](const Scope& s, const Operation& op, const Grads& dy, Grads* dx) {
                const Grads in = s.GetInputs(op);
                auto attrs = CopyAttrs(s.GetNodeDef(op), {"begin_mask", "end_mask", "ellipsis_mask",
                                                           "new_axis_mask", "shrink_axis_mask"});
                *dx = {Output(), Output(), Output(), Output(),
                       s.AddOp("StridedSlice", {{dy[0]}, {in[1]}, {in[2]}, {in[3]}}, attrs)
                           .output(0)};
                return absl::OkStatus();
              });
  r->Register("Tile", [](const Scope& s, const Operation& op, const Grads& dy, Grads* dx) {
    // dy as [m0, d0, m1, d1, ...], summed over the m's.
    const Grads in = s.GetInputs(op);
    Output shape = ops::Shape(s, in[0], BaseType(in[1].dtype()));
    Output split = ops::Reshape(
        s, ops::Transpose(s, ops::Pack(s, {in[1], shape}), ops::Const<int32_t>(s, {1, 0})),
        ops::Const<int32_t>(s, {-1}));
    Output axes = ops::Range(s, ops::Const<int32_t>(s, 0), ops::Size(s, split),
                             ops::Const<int32_t>(s, 2));
    *dx = {ops::Sum(s, ops::Reshape(s, dy[0], split), axes), Output()};
    return absl::OkStatus();
  });
  for (const char* op : {"Pad", "PadV2"}) {
    r->Register(op, [](const Scope& s, const Operation& op, const Grads& dy, Grads* dx) {
      const Grads in = s.GetInputs(op);
      const DataType index = BaseType(in[1].dtype());
      Tensor zero(index, TensorShape({2})), first_column(index, TensorShape({2}));
      for (int i = 0; i < 2; ++i) {
        if (index == DT_INT32) {
          zero.data<int32_t>()[i] = 0;
          first_column.data<int32_t>()[i] = i == 0 ? -1 : 1;
        } else {
          zero.data<int64_t>()[i] = 0;
          first_column.data<int64_t>()[i] = i == 0 ? -1 : 1;
        }
      }
      Output before = ops::Reshape(
          s, ops::Slice(s, in[1], ops::Const(s, zero), ops::Const(s, first_column)),
          ops::Const<int32_t>(s, {-1}));
      *dx = {ops::Slice(s, dy[0], before, ops::Shape(s, in[0], index)), Output()};
      dx->resize(in.size());
      return absl::OkStatus();
    });
  }
  // TensorFlow's _MirrorPadGrad and _MirrorPadGradGrad: each other's op.
  for (auto [forward, inverse] : {std::pair{"MirrorPad", "MirrorPadGrad"},
                                  std::pair{"MirrorPadGrad", "MirrorPad"}}) {
    const std::string back = inverse;
    r->Register(forward, [back](const Scope& s, const Operation& op, const Grads& dy, Grads* dx) {
      const Grads in = s.GetInputs(op);
      *dx = {s.AddOp(back, {{dy[0]}, {in[1]}}, CopyAttrs(s.GetNodeDef(op), {"mode"})).output(0),
             Output()};
      return s.status();
    });
  }
  // Moves of blocks between space and batch (depth): the gradient moves
  // back by the inverse op, with the same blocks and paddings (crops).
  for (auto [forward, inverse] : {std::pair{"SpaceToBatchND", "BatchToSpaceND"},
                                  std::pair{"BatchToSpaceND", "SpaceToBatchND"}}) {
    const std::string back = inverse;
    r->Register(forward, [back](const Scope& s, const Operation& op, const Grads& dy, Grads* dx) {
      const Grads in = s.GetInputs(op);
      *dx = {s.AddOp(back, {{dy[0]}, {in[1]}, {in[2]}}).output(0), Output(), Output()};
      return s.status();
    });
  }
  for (auto [forward, inverse] : {std::pair{"SpaceToBatch", "BatchToSpace"},
                                  std::pair{"BatchToSpace", "SpaceToBatch"},
                                  std::pair{"SpaceToDepth", "DepthToSpace"},
                                  std::pair{"DepthToSpace", "SpaceToDepth"}}) {
    const std::string back = inverse;
    r->Register(forward, [back](const Scope& s, const Operation& op, const Grads& dy, Grads* dx) {
      const Grads in = s.GetInputs(op);
      std::vector<std::vector<Output>> args = {{dy[0]}};
      if (in.size() == 2) args.push_back({in[1]});
      *dx = {s.AddOp(back, args, CopyAttrs(s.GetNodeDef(op), {"block_size", "data_format"}))
                 .output(0)};
      dx->resize(in.size());
      return s.status();
    });
  }
}

// TensorFlow's _GatherDropNegatives: params' rows at `ids` (zeros where an
// id is negative), and where they are kept, as a mask of the result's shape.
std::pair<Output, Output> GatherDropNegatives(const Scope& s, Output params, Output ids) {
  Output zero = ops::Cast(s, ops::Const<int32_t>(s, 0), BaseType(ids.dtype()));
  Output gathered =
      ops::GatherV2(s, params, ops::Maximum(s, ids, zero), ops::Const<int32_t>(s, 0));
  Output positive = ops::GreaterEqual(s, ids, zero);
  Output extra = ops::Reshape(s, ops::Sub(s, ops::Rank(s, gathered), ops::Rank(s, positive)),
                              ops::Const<int32_t>(s, {1}));
  Output shape = ops::ConcatV2(
      s, {ops::Shape(s, positive), ops::Fill(s, extra, ops::Const<int32_t>(s, 1))},
      ops::Const<int32_t>(s, 0));
  Output mask = ops::LogicalAnd(s, ops::Reshape(s, positive, shape),
                                ops::Cast(s, ops::OnesLike(s, gathered), DT_BOOL));
  return {ops::Select(s, mask, gathered, ops::ZerosLike(s, gathered)), mask};
}

// The reductions by segment (math_grad.py's): sorted (segment ids a
// vector, never negative) and unsorted.
void RegisterSegmentReductionGradients(GradientRegistry* r) {
  auto gather = [](const Scope& s, Output params, Output ids) {
    return ops::GatherV2(s, params, ids, ops::Const<int32_t>(s, 0));
  };
  auto call = [](const Scope& s, const char* op, std::vector<Output> in) {
    std::vector<std::vector<Output>> args;
    for (Output& o : in) args.push_back({o});
    return s.AddOp(op, args).output(0);
  };
  r->Register("SegmentSum", [gather](const Scope& s, const Operation& op, const Grads& dy,
                                     Grads* dx) {
    *dx = {gather(s, dy[0], s.GetInputs(op)[1]), Output()};
    return s.status();
  });
  r->Register("SegmentMean", [gather, call](const Scope& s, const Operation& op,
                                            const Grads& dy, Grads* dx) {
    const Grads in = s.GetInputs(op);
    Output rest = ops::Reshape(s, ops::Sub(s, ops::Rank(s, in[0]), ops::Const<int32_t>(s, 1)),
                               ops::Const<int32_t>(s, {1}));
    Output ones_shape = ops::ConcatV2(
        s, {ops::Shape(s, in[1]), ops::Fill(s, rest, ops::Const<int32_t>(s, 1))},
        ops::Const<int32_t>(s, 0));
    Output ones = ops::Fill(s, ones_shape, Scalar(s, BaseType(dy[0].dtype()), 1));
    Output scaled = ops::RealDiv(s, dy[0], call(s, "SegmentSum", {ones, in[1]}));
    *dx = {gather(s, scaled, in[1]), Output()};
    return s.status();
  });
  // Max and min: the gradient shared by the elements equal to the result.
  for (const char* name : {"SegmentMax", "SegmentMin", "UnsortedSegmentMax",
                           "UnsortedSegmentMin"}) {
    const bool unsorted = absl::StartsWith(name, "Unsorted");
    r->Register(name, [unsorted, gather, call](const Scope& s, const Operation& op,
                                               const Grads& dy, Grads* dx) {
      const Grads in = s.GetInputs(op);
      const DataType t = BaseType(dy[0].dtype());
      if (!unsorted) {
        Output selected = ops::Equal(s, in[0], gather(s, op.output(0), in[1]));
        Output count = call(s, "SegmentSum", {ops::Cast(s, selected, t), in[1]});
        Output shared = gather(s, ops::RealDiv(s, dy[0], count), in[1]);
        *dx = {ops::Select(s, selected, shared, ops::ZerosLike(s, in[0])), Output()};
        return s.status();
      }
      auto [outputs, kept] = GatherDropNegatives(s, op.output(0), in[1]);
      Output selected = ops::LogicalAnd(s, ops::Equal(s, in[0], outputs), kept);
      Output count = call(s, "UnsortedSegmentSum", {ops::Cast(s, selected, t), in[1], in[2]});
      Output shared = GatherDropNegatives(s, ops::RealDiv(s, dy[0], count), in[1]).first;
      *dx = {ops::Select(s, selected, shared, ops::ZerosLike(s, shared)), Output(), Output()};
      return s.status();
    });
  }
  // Products: the product of the others (without dividing by a zero; no
  // gradient to a segment with two zeros).
  for (const char* name : {"SegmentProd", "UnsortedSegmentProd"}) {
    const bool unsorted = absl::StartsWith(name, "Unsorted");
    r->Register(name, [unsorted, gather, call](const Scope& s, const Operation& op,
                                               const Grads& dy, Grads* dx) {
      const Grads in = s.GetInputs(op);
      const DataType t = BaseType(dy[0].dtype());
      auto by_segment = [&](const char* reduce, Output v) {
        return unsorted ? call(s, absl::StrCat("Unsorted", reduce).c_str(), {v, in[1], in[2]})
                        : call(s, reduce, {v, in[1]});
      };
      Output zero = Scalar(s, t, 0);
      Output is_zero = ops::Equal(s, in[0], zero);
      Output zeros = by_segment("SegmentSum", ops::Cast(s, is_zero, DT_INT32));
      Output grad = ops::Select(s, ops::Greater(s, zeros, ops::Const<int32_t>(s, 1)),
                                ops::ZerosLike(s, dy[0]), dy[0]);
      Output non_zero = ops::Select(s, is_zero, ops::OnesLike(s, in[0]), in[0]);
      Output non_zero_prod = by_segment("SegmentProd", non_zero);
      Output ids = in[1];
      if (unsorted) {
        ids = ops::Maximum(s, ids, ops::Cast(s, ops::Const<int32_t>(s, 0), BaseType(ids.dtype())));
      }
      Output others = ops::Select(s, is_zero, gather(s, non_zero_prod, ids),
                                  ops::RealDiv(s, gather(s, op.output(0), ids),
                                               unsorted ? in[0] : non_zero));
      Output gathered = unsorted ? GatherDropNegatives(s, grad, in[1]).first
                                 : gather(s, grad, in[1]);
      *dx = {ops::Mul(s, gathered, others), Output()};
      if (unsorted) dx->push_back(Output());
      return s.status();
    });
  }
}

// Fused batch normalization, batch matrix products, local response normalization.
void RegisterBatchGradients(GradientRegistry* r) {
  for (const char* v : {"", "V2", "V3"}) {
    const std::string grad_op = absl::StrCat("FusedBatchNormGrad", v);
    r->Register(absl::StrCat("FusedBatchNorm", v), [grad_op](const Scope& s, const Operation& op,
                                                             const Grads& dy, Grads* dx) {
      // TensorFlow's: from the reserve spaces (the batch statistics in
      // training, the given ones in inference); the statistics outputs
      // pass no gradient.
      const Grads in = s.GetInputs(op);
      std::vector<std::vector<Output>> args = {
          {dy[0]}, {in[0]}, {in[1]}, {op.output(3)}, {op.output(4)}};
      if (op.num_outputs() == 6) args.push_back({op.output(5)});
      Operation g = s.AddOp(grad_op, args,
                            CopyAttrs(s.GetNodeDef(op), {"epsilon", "data_format", "is_training"}));
      *dx = {g.output(0), g.output(1), g.output(2), Output(), Output()};
      return absl::OkStatus();
    });
  }
  // The gradients' gradients (TensorFlow's _FusedBatchNormGradGrad): the
  // batch norm gradient written out in ops (_BatchNormGrad: the batch's
  // statistics in training, the given ones in inference) and differentiated
  // with respect to y_backprop, x and scale, as TensorFlow differentiates
  // it on a tape.
  for (const char* v : {"", "V2", "V3"}) {
    r->Register(absl::StrCat("FusedBatchNormGrad", v), [](const Scope& s, const Operation& op,
                                                          const Grads& dy, Grads* dx) {
      const Grads in = s.GetInputs(op);
      const NodeDef& node = s.GetNodeDef(op);
      float epsilon = 1e-4f;
      std::string format = "NHWC";
      bool training = true;
      GetNodeAttr(node, "epsilon", &epsilon).IgnoreError();
      GetNodeAttr(node, "data_format", &format).IgnoreError();
      GetNodeAttr(node, "is_training", &training).IgnoreError();
      Output gy = ops::Identity(s, in[0]), x = ops::Identity(s, in[1]);
      Output scale = ops::Identity(s, in[2]);
      const DataType dt = BaseType(x.dtype());
      const bool channels_first = format == "NCHW" || format == "NCDHW";
      const bool five = format == "NDHWC" || format == "NCDHW";
      std::vector<int32_t> axes = channels_first ? std::vector<int32_t>{0, 2, 3}
                                                 : std::vector<int32_t>{0, 1, 2};
      if (five) axes.push_back(channels_first ? 4 : 3);
      Tensor axes_t(DT_INT32, TensorShape({static_cast<int64_t>(axes.size())}));
      std::copy(axes.begin(), axes.end(), axes_t.data<int32_t>());
      Output reduce = ops::Const(s, axes_t);
      // A channel vector as [1, C, 1, 1(, 1)] for channels-first data.
      auto per_channel = [&](Output t) {
        if (!channels_first) return t;
        std::vector<int32_t> shape(five ? 5 : 4, 1);
        shape[1] = -1;
        Tensor sh(DT_INT32, TensorShape({static_cast<int64_t>(shape.size())}));
        std::copy(shape.begin(), shape.end(), sh.data<int32_t>());
        return ops::Reshape(s, t, ops::Const(s, sh));
      };
      Output eps = Scalar(s, DT_FLOAT, epsilon);
      Output x32 = ops::Cast(s, x, DT_FLOAT), gy32 = ops::Cast(s, gy, DT_FLOAT);
      Output gx, gscale, goffset;
      if (training) {
        Output mean_gy = ops::Mean(s, gy32, reduce, channels_first);
        Output mean_x = ops::Mean(s, x32, reduce, channels_first);
        Output var_x = ops::Mean(
            s, ops::SquaredDifference(s, x32, ops::StopGradient(s, mean_x)), reduce,
            channels_first);
        Output x_off = ops::Sub(s, x32, mean_x);
        Output mean = ops::Mean(s, ops::Mul(s, gy32, x_off), reduce, channels_first);
        Output var_eps = ops::Add(s, var_x, eps);
        gx = ops::Mul(s, ops::Mul(s, per_channel(scale), ops::Rsqrt(s, var_eps)),
                      ops::Sub(s, ops::Sub(s, gy32, mean_gy),
                               ops::Mul(s, ops::Mul(s, ops::Reciprocal(s, var_eps), mean),
                                        x_off)));
        gscale = ops::Mul(s, ops::Rsqrt(s, var_eps),
                          ops::Sum(s, ops::Mul(s, gy32, x_off), reduce, channels_first));
        if (channels_first) gscale = ops::Squeeze(s, gscale);
      } else {
        Output var_rsqrt = ops::Rsqrt(s, ops::Add(s, per_channel(in[4]), eps));
        gscale = ops::Sum(
            s, ops::Mul(s, ops::Mul(s, gy32, ops::Sub(s, x32, per_channel(in[3]))), var_rsqrt),
            reduce);
        gx = ops::Mul(s, ops::Mul(s, gy32, per_channel(scale)), var_rsqrt);
      }
      goffset = ops::Sum(s, gy32, reduce);
      std::vector<Output> grads;
      MG_RETURN_IF_ERROR(AddSymbolicGradients(s, {ops::Cast(s, gx, dt), gscale, goffset},
                                              {gy, x, scale}, {dy[0], dy[1], dy[2]}, &grads));
      *dx = {grads[0], grads[1], grads[2]};
      dx->resize(in.size());
      return s.status();
    });
  }
  for (const char* name : {"BatchMatMul", "BatchMatMulV2"}) {
    r->Register(name, [](const Scope& s, const Operation& op, const Grads& dy, Grads* dx) {
      // TensorFlow's: the two products by the other input (adjoints as
      // the flags say), then summed over the batch dimensions each input
      // was broadcast along.
      const Grads in = s.GetInputs(op);
      const NodeDef& node = s.GetNodeDef(op);
      const bool ax = node.attr().at("adj_x").b(), ay = node.attr().at("adj_y").b();
      const std::string type = node.op();
      auto mm = [&](Output a, Output b, bool adj_a, bool adj_b) {
        return s
            .AddOp(type, {{a}, {b}},
                   {{"adj_x", MakeAttrValue(adj_a)}, {"adj_y", MakeAttrValue(adj_b)}})
            .output(0);
      };
      Output gx, gy;
      if (!ax) {
        gx = ay ? mm(dy[0], in[1], false, false) : mm(dy[0], in[1], false, true);
        gy = ay ? mm(dy[0], in[0], true, false) : mm(in[0], dy[0], true, false);
      } else {
        gx = ay ? mm(in[1], dy[0], true, true) : mm(in[1], dy[0], false, true);
        gy = ay ? mm(dy[0], in[0], true, true) : mm(in[0], dy[0], false, false);
      }
      Output sx = ops::Shape(s, in[0]), sy = ops::Shape(s, in[1]);
      auto batch = [&](Output shape) {
        Output len = ops::Reshape(s, ops::Sub(s, ops::Size(s, shape), ops::Const<int32_t>(s, 2)),
                                  ops::Const<int32_t>(s, {1}));
        return ops::Slice(s, shape, ops::Const<int32_t>(s, {0}), len);
      };
      auto axes = ops::BroadcastGradientArgs(s, batch(sx), batch(sy));
      *dx = {ops::Reshape(s, ops::Sum(s, gx, axes.r0), sx),
             ops::Reshape(s, ops::Sum(s, gy, axes.r1), sy)};
      return absl::OkStatus();
    });
  }
  r->Register("LRN", [](const Scope& s, const Operation& op, const Grads& dy, Grads* dx) {
    *dx = {s.AddOp("LRNGrad", {{dy[0]}, {s.GetInputs(op)[0]}, {op.output(0)}},
                   CopyAttrs(s.GetNodeDef(op), {"depth_radius", "bias", "alpha", "beta"}))
               .output(0)};
    return absl::OkStatus();
  });
}

// Broadcasts, partitions, stitches, scans, reversals, splits and unpacking.
void RegisterPartitionGradients(GradientRegistry* r) {
  r->Register("BroadcastTo", [](const Scope& s, const Operation& op, const Grads& dy, Grads* dx) {
    // Summed over the broadcast axes, back to the input's shape.
    const Grads in = s.GetInputs(op);
    Output shape = ops::Shape(s, in[0], BaseType(in[1].dtype()));
    Output axes = ops::BroadcastGradientArgs(s, shape, in[1]).r0;
    *dx = {ops::Reshape(s, ops::Sum(s, dy[0], axes, /*keep_dims=*/true), shape), Output()};
    return absl::OkStatus();
  });
  r->Register(
      "DynamicPartition", [](const Scope& s, const Operation& op, const Grads& dy, Grads* dx) {
        // TensorFlow's: the positions of data's rows, partitioned the same way,
        // put each output's gradient back where its rows came from.
        const Grads in = s.GetInputs(op);
        Output prefix = ops::Shape(s, in[1]);
        Output positions = ops::Reshape(
            s,
            ops::Range(s, ops::Const<int32_t>(s, 0),
                       ops::Prod(s, prefix, ops::Const<int32_t>(s, 0)), ops::Const<int32_t>(s, 1)),
            prefix);
        const std::vector<Output> parts =
            ops::DynamicPartition(s, positions, in[1], static_cast<int64_t>(dy.size()));
        Output stitched = ops::DynamicStitch(s, parts, dy);
        *dx = {ops::Reshape(s, stitched, ops::Shape(s, in[0])), Output()};
        return absl::OkStatus();
      });
  for (const char* name : {"DynamicStitch", "ParallelDynamicStitch"}) {
    r->Register(name, [](const Scope& s, const Operation& op, const Grads& dy, Grads* dx) {
      // TensorFlow's: each data input gets the rows its indices name.
      const Grads in = s.GetInputs(op);
      const size_t n = in.size() / 2;
      dx->assign(in.size(), Output());
      for (size_t i = 0; i < n; ++i) (*dx)[n + i] = ops::Gather(s, dy[0], in[i]);
      return absl::OkStatus();
    });
  }
  r->Register("Cumsum", [](const Scope& s, const Operation& op, const Grads& dy, Grads* dx) {
    // The sum the other way round.
    const Grads in = s.GetInputs(op);
    auto attrs = CopyAttrs(s.GetNodeDef(op), {"exclusive", "reverse"});
    attrs["reverse"].set_b(!attrs["reverse"].b());
    *dx = {s.AddOp("Cumsum", {{dy[0]}, {in[1]}}, attrs).output(0), Output()};
    return absl::OkStatus();
  });
  // TensorFlow's _CumprodGrad: the products times dy summed the other way
  // round, over x (0 where x is).
  r->Register("Cumprod", [](const Scope& s, const Operation& op, const Grads& dy, Grads* dx) {
    const Grads in = s.GetInputs(op);
    const auto attrs = CopyAttrs(s.GetNodeDef(op), {"exclusive", "reverse"});
    auto other_way = attrs;
    other_way["reverse"].set_b(!other_way["reverse"].b());
    Output prod = s.AddOp("Cumprod", {{in[0]}, {in[1]}}, attrs).output(0);
    Output out =
        s.AddOp("Cumsum", {{ops::Mul(s, prod, dy[0])}, {in[1]}}, other_way).output(0);
    *dx = {s.AddOp("DivNoNan", {{out}, {in[0]}}).output(0), Output()};
    return s.status();
  });
  // TensorFlow's _CumulativeLogsumexpGrad: dy split by sign so that the
  // logs exist, each part's log-sum-exp taken the other way round against
  // the output, and the parts' exponentials subtracted.
  r->Register("CumulativeLogsumexp", [](const Scope& s, const Operation& op, const Grads& dy,
                                        Grads* dx) {
    const Grads in = s.GetInputs(op);
    auto attrs = CopyAttrs(s.GetNodeDef(op), {"exclusive", "reverse"});
    attrs["reverse"].set_b(!attrs["reverse"].b());
    const DataType dt = dy[0].dtype();
    Output lowest = ops::Cast(
        s, ops::Const<double>(s, dt == DT_FLOAT ? std::numeric_limits<float>::lowest()
                                                : std::numeric_limits<double>::lowest()),
        dt);
    Output zero = ops::ZerosLike(s, dy[0]);
    auto part = [&](Output positive, Output magnitude) {
      Output logs = ops::SelectV2(s, positive, ops::Log(s, magnitude), lowest);
      Output scan = s.AddOp("CumulativeLogsumexp", {{ops::Sub(s, logs, op.output(0))}, {in[1]}},
                            attrs)
                        .output(0);
      return ops::Exp(s, ops::Add(s, scan, in[0]));
    };
    Output pos = part(ops::Greater(s, dy[0], zero), dy[0]);
    Output neg = part(ops::Less(s, dy[0], zero), ops::Neg(s, dy[0]));
    *dx = {ops::Sub(s, pos, neg), Output()};
    return s.status();
  });
  // TensorFlow's _RollGrad and _ReverseSequenceGrad: the same move back.
  r->Register("Roll", [](const Scope& s, const Operation& op, const Grads& dy, Grads* dx) {
    const Grads in = s.GetInputs(op);
    *dx = {s.AddOp("Roll", {{dy[0]}, {ops::Neg(s, in[1])}, {in[2]}}).output(0), Output(),
           Output()};
    return s.status();
  });
  r->Register("ReverseSequence", [](const Scope& s, const Operation& op, const Grads& dy,
                                    Grads* dx) {
    const Grads in = s.GetInputs(op);
    *dx = {s.AddOp("ReverseSequence", {{dy[0]}, {in[1]}},
                   CopyAttrs(s.GetNodeDef(op), {"seq_dim", "batch_dim"}))
               .output(0),
           Output()};
    return s.status();
  });
  r->Register("ReverseV2", [](const Scope& s, const Operation& op, const Grads& dy, Grads* dx) {
    *dx = {ops::ReverseV2(s, dy[0], s.GetInputs(op)[1]), Output()};
    return absl::OkStatus();
  });
  // The pieces joined again; one piece is the whole (ConcatV2 needs two).
  auto join = [](const Scope& s, const Grads& dy, Output axis) {
    return dy.size() == 1 ? ops::Identity(s, dy[0]) : ops::ConcatV2(s, dy, axis);
  };
  r->Register("Split", [join](const Scope& s, const Operation& op, const Grads& dy, Grads* dx) {
    *dx = {Output(), join(s, dy, s.GetInputs(op)[0])};
    return absl::OkStatus();
  });
  r->Register("SplitV", [join](const Scope& s, const Operation& op, const Grads& dy, Grads* dx) {
    *dx = {join(s, dy, s.GetInputs(op)[2]), Output(), Output()};
    return absl::OkStatus();
  });
  r->Register("Unpack", [](const Scope& s, const Operation& op, const Grads& dy, Grads* dx) {
    int64_t axis = 0;
    MG_RETURN_IF_ERROR(GetNodeAttr(s.GetNodeDef(op), "axis", &axis));
    *dx = {ops::Pack(s, dy, axis)};
    return absl::OkStatus();
  });
  r->Register("PreventGradient",
              [](const Scope& s, const Operation& op, const Grads& dy, Grads* dx) {
                std::string message;
                GetNodeAttr(s.GetNodeDef(op), "message", &message).IgnoreError();
                return absl::InvalidArgumentError(absl::StrCat(
                    "Gradient explicitly disabled for '", op.name(), "'. Reason: ", message));
              });
}

// Ops with none; reshapes, casts, selections and packing.
void RegisterSelectionGradients(GradientRegistry* r) {
  for (const char* op : {"Range", "OneHot", "ShapeN", "InvertPermutation", "Bucketize",
                         "ListDiff", "Empty"}) {
    r->RegisterNoGradient(op);
  }
  r->Register("Reshape", [](const Scope& s, const Operation& op, const Grads& dy, Grads* dx) {
    *dx = {ops::Reshape(s, dy[0], ops::Shape(s, s.GetInputs(op)[0])), Output()};
    return absl::OkStatus();
  });
  r->Register("Cast", [](const Scope& s, const Operation& op, const Grads& dy, Grads* dx) {
    const DataType src = BaseType(s.GetInputs(op)[0].dtype());
    const bool float_src = src == DT_FLOAT || src == DT_DOUBLE;
    *dx = {float_src ? ops::Cast(s, dy[0], src) : Output()};
    return absl::OkStatus();
  });
  r->Register("Select", [](const Scope& s, const Operation& op, const Grads& dy, Grads* dx) {
    const Grads in = s.GetInputs(op);
    Output zeros = ops::ZerosLike(s, dy[0]);
    *dx = {Output(), ops::Select(s, in[0], dy[0], zeros), ops::Select(s, in[0], zeros, dy[0])};
    return absl::OkStatus();
  });
  // TensorFlow's _SelectGradV2: each branch gets dy where it was taken,
  // summed down to its own shape.
  r->Register("SelectV2", [](const Scope& s, const Operation& op, const Grads& dy, Grads* dx) {
    const Grads in = s.GetInputs(op);
    Output zeros = ops::ZerosLike(s, dy[0]);
    Output out_shape = ops::Shape(s, op.output(0));
    auto branch = [&](Output x, Output g) {
      Output axes = ops::BroadcastGradientArgs(s, ops::Shape(s, x), out_shape).r0;
      return ReduceTo(s, g, x, axes);
    };
    *dx = {Output(), branch(in[1], ops::SelectV2(s, in[0], dy[0], zeros)),
           branch(in[2], ops::SelectV2(s, in[0], zeros, dy[0]))};
    return absl::OkStatus();
  });
  r->Register("Pack", [](const Scope& s, const Operation& op, const Grads& dy, Grads* dx) {
    int64_t axis = 0;
    MG_RETURN_IF_ERROR(GetNodeAttr(s.GetNodeDef(op), "axis", &axis));
    const Grads in = s.GetInputs(op);
    if (axis < 0) axis += op.output(0).shape().rank();
    dx->clear();
    for (size_t i = 0; i < in.size(); ++i) {
      dx->push_back(ops::GatherV2(s, dy[0], ops::Const<int32_t>(s, static_cast<int32_t>(i)),
                                  ops::Const<int32_t>(s, static_cast<int32_t>(axis))));
    }
    return absl::OkStatus();
  });
}

// Concatenations.
void RegisterConcatGradients(GradientRegistry* r) {
  for (const char* name : {"ConcatV2", "Concat"}) {
    const bool v2 = name == std::string("ConcatV2");
    r->Register(name, [v2](const Scope& s, const Operation& op, const Grads& dy, Grads* dx) {
      const Grads in = s.GetInputs(op);
      const size_t first = v2 ? 0 : 1, n = in.size() - 1;
      const Output axis_out = v2 ? in.back() : in[0];
      Tensor axis_t;
      if (!GetNodeAttr(s.GetNodeDef(axis_out.op()), "value", &axis_t).ok()) {
        return absl::UnimplementedError("the gradient of Concat needs a constant axis");
      }
      const int rank = in[first].shape().rank();
      int64_t axis = axis_t.dtype() == DT_INT32 ? axis_t.data<int32_t>()[0]
                                                : axis_t.data<int64_t>()[0];
      if (axis < 0) axis += rank;
      dx->assign(in.size(), Output());
      bool static_sizes = true;
      for (size_t i = first; i < first + n; ++i) {
        static_sizes = static_sizes && in[i].shape().rank_known() && in[i].shape().dim(axis) >= 0;
      }
      if (!static_sizes) {
        // Sizes known only when the step runs (as DynamicPartition's
        // outputs): SplitV by the inputs' runtime sizes along the axis.
        if (axis < 0) {
          return absl::UnimplementedError(
              "the gradient of Concat needs a non-negative axis or inputs of known rank");
        }
        std::vector<Output> sizes;
        for (size_t i = first; i < first + n; ++i) {
          sizes.push_back(ops::GatherV2(s, ops::Shape(s, in[i]),
                                        ops::Const<int32_t>(s, static_cast<int32_t>(axis)),
                                        ops::Const<int32_t>(s, 0)));
        }
        const std::vector<Output> parts = ops::SplitV(
            s, dy[0], ops::Pack(s, sizes), ops::Const<int32_t>(s, static_cast<int32_t>(axis)),
            static_cast<int64_t>(n));
        for (size_t i = 0; i < n; ++i) (*dx)[first + i] = parts[i];
        return absl::OkStatus();
      }
      int64_t start = 0;
      for (size_t i = first; i < first + n; ++i) {
        const int64_t len = in[i].shape().dim(axis);
        Tensor idx(DT_INT64, TensorShape({len}));
        for (int64_t k = 0; k < len; ++k) idx.data<int64_t>()[k] = start + k;
        (*dx)[i] = ops::GatherV2(s, dy[0], ops::Const(s, idx),
                                 ops::Const<int32_t>(s, static_cast<int32_t>(axis)));
        start += len;
      }
      return absl::OkStatus();
    });
  }
}

// GatherV2's gradient with batch_dims == axis != 0: each batch's gather as
// one gather from the batches' slices laid end to end (index + batch *
// params.shape[axis]), summed by index.
Output BatchedGatherGrad(const Scope& s, Output params, Output indices, Output dy,
                         int batch_dims) {
  Output zero = ops::Const<int32_t>(s, 0);
  Output shape = ops::Shape(s, params);
  const int b = batch_dims;
  Output batches = ops::Prod(
      s, ops::Slice(s, shape, ops::Const<int32_t>(s, {0}), ops::Const<int32_t>(s, {b})), zero);
  Output limit = ops::GatherV2(s, shape, ops::Const<int32_t>(s, b), zero);
  const DataType it = BaseType(indices.dtype());
  Output offsets = ops::Reshape(
      s,
      ops::Cast(s, ops::Mul(s, ops::Range(s, zero, batches, ops::Const<int32_t>(s, 1)), limit),
                it),
      ops::Const<int32_t>(s, {-1, 1}));
  Output by_batch =
      ops::Reshape(s, indices, ops::Pack(s, {batches, ops::Const<int32_t>(s, -1)}, 0));
  Output flat = ops::Reshape(s, ops::Add(s, by_batch, offsets), ops::Const<int32_t>(s, {-1}));
  Output inner =
      ops::Slice(s, shape, ops::Const<int32_t>(s, {b + 1}), ops::Const<int32_t>(s, {-1}));
  Output values =
      ops::Reshape(s, dy, ops::ConcatV2(s, {ops::Const<int32_t>(s, {-1}), inner}, zero));
  Output summed = ops::UnsortedSegmentSum(s, values, flat, ops::Mul(s, batches, limit));
  return ops::Reshape(s, summed, shape);
}

// TensorFlow's _GatherV2Grad along `axis` > 0 of params (of known rank):
// dy as [outer..., indices, inner...], the indices' axis moved first,
// summed by index, moved back.
absl::StatusOr<Output> GatherAxisGrad(const Scope& s, Output params, Output indices, Output dy,
                                      int64_t axis) {
  const PartialShape& ps = params.shape();
  if (!ps.rank_known()) {
    return absl::UnimplementedError(
        "the gradient of GatherV2 along an axis other than 0 needs params' rank");
  }
  const int rank = ps.rank();
  if (axis < 0) axis += rank;
  if (axis <= 0 || axis >= rank) {
    return absl::InvalidArgumentError(
        absl::StrCat("GatherV2 axis ", axis, " is out of range for rank ", rank));
  }
  Output zero = ops::Const<int32_t>(s, 0);
  Output shape = ops::Shape(s, params);
  const int a = static_cast<int>(axis);
  Output outer = ops::Slice(s, shape, zero, ops::Const<int32_t>(s, {a}));
  Output inner =
      ops::Slice(s, shape, ops::Const<int32_t>(s, {a + 1}), ops::Const<int32_t>(s, {-1}));
  Output count = ops::Reshape(s, ops::Size(s, indices), ops::Const<int32_t>(s, {1}));
  Output values = ops::Reshape(s, dy, ops::ConcatV2(s, {outer, count, inner}, zero));
  std::vector<int32_t> perm = {a}, back;
  for (int d = 0; d < rank; ++d) {
    if (d != a) perm.push_back(d);
  }
  for (int d = 1; d <= a; ++d) back.push_back(d);
  back.push_back(0);
  for (int d = a + 1; d < rank; ++d) back.push_back(d);
  auto vector = [&](const std::vector<int32_t>& v) {
    Tensor t(DT_INT32, TensorShape({static_cast<int64_t>(v.size())}));
    std::copy(v.begin(), v.end(), t.data<int32_t>());
    return ops::Const(s, t);
  };
  Output moved = ops::Transpose(s, values, vector(perm));
  Output rows = ops::GatherV2(s, shape, ops::Const<int32_t>(s, a), zero);
  Output summed = ops::UnsortedSegmentSum(
      s, moved, ops::Reshape(s, indices, ops::Const<int32_t>(s, {-1})), rows);
  return ops::Transpose(s, summed, vector(back));
}

// Gather's and GatherV2's dense gradient: dy's slices summed into the
// slices of params the indices name (TensorFlow's IndexedSlices, applied
// densely), in O(indices x slice + params), empty indices too.
absl::Status GatherGrad(bool v2, const Scope& s, const Operation& op, const Grads& dy,
                        Grads* dx) {
  const Grads in = s.GetInputs(op);
  Output params = in[0], indices = in[1];
  int64_t axis = 0;
  if (v2) {
    int64_t batch_dims = 0;
    MG_RETURN_IF_ERROR(GetNodeAttr(s.GetNodeDef(op), "batch_dims", &batch_dims));
    Tensor axis_t;
    if (!GetNodeAttr(s.GetNodeDef(in[2].op()), "value", &axis_t).ok() ||
        axis_t.NumElements() != 1) {
      return absl::UnimplementedError("the gradient of GatherV2 needs a constant axis");
    }
    axis = axis_t.dtype() == DT_INT32 ? axis_t.data<int32_t>()[0] : axis_t.data<int64_t>()[0];
    const PartialShape& ps = params.shape();
    if (axis < 0 && ps.rank_known()) axis += ps.rank();
    if (batch_dims < 0 && indices.shape().rank_known()) batch_dims += indices.shape().rank();
    if (batch_dims != 0) {
      if (batch_dims != axis) {
        return absl::UnimplementedError(
            absl::StrCat("the gradient of GatherV2 with batch_dims ", batch_dims,
                         " supports axis == batch_dims only, got axis ", axis));
      }
      *dx = {BatchedGatherGrad(s, params, indices, dy[0], static_cast<int>(batch_dims)),
             Output(), Output()};
      return absl::OkStatus();
    }
  }
  if (axis != 0) {
    MG_ASSIGN_OR_RETURN(Output d, GatherAxisGrad(s, params, indices, dy[0], axis));
    *dx = {d, Output(), Output()};
    return absl::OkStatus();
  }
  Output zero = ops::Const<int32_t>(s, 0);
  Output rows = ops::GatherV2(s, ops::Shape(s, params), zero, zero);
  *dx = {ops::UnsortedSegmentSum(s, dy[0], indices, rows), Output()};
  if (v2) dx->push_back(Output());
  return absl::OkStatus();
}

// Segment sums and gathers.
void RegisterGatherGradients(GradientRegistry* r) {
  // TensorFlow's _ScatterNdGrad: each update's gradient is the slice of dy
  // it was added to.
  r->Register("ScatterNd", [](const Scope& s, const Operation& op, const Grads& dy, Grads* dx) {
    *dx = {Output(), ops::GatherNd(s, dy[0], s.GetInputs(op)[0]), Output()};
    return s.status();
  });
  // TensorFlow's _TensorScatterUpdateGrad, _TensorScatterAddGrad,
  // _TensorScatterSubGrad and _ScatterNdNonAliasingAddGrad: the tensor's
  // gradient is dy (zeros where an update replaced it), each update's the
  // slice of dy it went to (negated for Sub).
  for (const char* op : {"TensorScatterUpdate", "TensorScatterAdd", "TensorScatterSub",
                         "ScatterNdNonAliasingAdd"}) {
    const std::string kind = op;
    r->Register(op, [kind](const Scope& s, const Operation& op, const Grads& dy, Grads* dx) {
      const Grads in = s.GetInputs(op);
      Output updates = ops::GatherNd(s, dy[0], in[1]);
      Output tensor = dy[0];
      if (kind == "TensorScatterUpdate") {
        tensor = s.AddOp("TensorScatterUpdate", {{dy[0]}, {in[1]}, {ops::ZerosLike(s, in[2])}})
                     .output(0);
      }
      *dx = {tensor, Output(), kind == "TensorScatterSub" ? ops::Neg(s, updates) : updates};
      return s.status();
    });
  }
  // TensorFlow's _TensorScatterMinOrMaxGrad: dy goes to the tensor's
  // elements and the updates that equal the output, shared equally between
  // those that tie.
  for (const char* op : {"TensorScatterMin", "TensorScatterMax"}) {
    r->Register(op, [](const Scope& s, const Operation& op, const Grads& dy, Grads* dx) {
      const Grads in = s.GetInputs(op);
      const DataType dt = dy[0].dtype();
      Output out = op.output(0);
      Output x_won = ops::Cast(s, ops::Equal(s, in[0], out), dt);
      Output y_won = ops::Cast(s, ops::Equal(s, in[2], ops::GatherNd(s, out, in[1])), dt);
      Output shape = ops::Shape(s, in[0], BaseType(in[1].dtype()));
      Output ties =
          ops::Add(s, x_won, s.AddOp("ScatterNd", {{in[1]}, {y_won}, {shape}}).output(0));
      *dx = {ops::Div(s, ops::Mul(s, dy[0], x_won), ties), Output(),
             ops::Mul(s, ops::GatherNd(s, ops::Div(s, dy[0], ties), in[1]), y_won)};
      return s.status();
    });
  }
  // TensorFlow's _UnsortedSegmentSumGrad: each data row gets its segment's
  // gradient; rows with a negative id (dropped by the sum) get zeros.
  r->Register("UnsortedSegmentSum", [](const Scope& s, const Operation& op, const Grads& dy,
                                       Grads* dx) {
    const Grads in = s.GetInputs(op);
    Output ids = ops::Reshape(s, in[1], ops::Const<int32_t>(s, {-1}));
    Output zero = ops::Cast(s, ops::Const<int32_t>(s, 0), BaseType(in[1].dtype()));
    Output rows = ops::GatherV2(s, dy[0], ops::Maximum(s, ids, zero), ops::Const<int32_t>(s, 0));
    Output kept = ops::Select(s, ops::GreaterEqual(s, ids, zero), rows, ops::ZerosLike(s, rows));
    *dx = {ops::Reshape(s, kept, ops::Shape(s, in[0])), Output(), Output()};
    return absl::OkStatus();
  });
  RegisterSegmentReductionGradients(r);
  // TensorFlow's _SparseSegmentSumGrad, _SparseSegmentMeanGrad and
  // _SparseSegmentSqrtNGrad (and their WithNumSegments forms): data row
  // indices[i] gets segment segment_ids[i]'s gradient, scaled as the
  // segment was, summed over the i that pick it (the op
  // SparseSegment<kind>Grad; a sparse_gradient attr asks TensorFlow for
  // IndexedSlices of the same rows).
  for (const char* kind : {"Sum", "Mean", "SqrtN"}) {
    const std::string grad_op = absl::StrCat("SparseSegment", kind, "Grad");
    for (const char* form : {"", "WithNumSegments"}) {
      r->Register(absl::StrCat("SparseSegment", kind, form),
                  [grad_op](const Scope& s, const Operation& op, const Grads& dy, Grads* dx) {
                    const Grads in = s.GetInputs(op);
                    Output zero = ops::Const<int32_t>(s, 0);
                    Output rows = ops::GatherV2(s, ops::Shape(s, in[0]), zero, zero);
                    *dx = {s.AddOp(grad_op, {{dy[0]}, {in[1]}, {in[2]}, {rows}}).output(0)};
                    dx->resize(in.size());
                    return s.status();
                  });
    }
    r->RegisterNoGradient(grad_op);
    r->RegisterNoGradient(grad_op + "V2");
  }
  // TensorFlow's _GatherNdGrad: dy scattered (summed) into params' shape.
  r->Register("GatherNd", [](const Scope& s, const Operation& op, const Grads& dy, Grads* dx) {
    const Grads in = s.GetInputs(op);
    Output shape = ops::Shape(s, in[0], BaseType(in[1].dtype()));
    *dx = {s.AddOp("ScatterNd", {{in[1]}, {dy[0]}, {shape}}).output(0), Output()};
    return s.status();
  });
  // TensorFlow's _SparseToDenseGrad: each value's gradient is dy at its
  // index, the default's the rest of dy's sum.
  r->Register("SparseToDense", [](const Scope& s, const Operation& op, const Grads& dy,
                                  Grads* dx) {
    const Grads in = s.GetInputs(op);
    Output values = ops::GatherNd(s, dy[0], in[0]);
    auto total = [&](Output t) { return ops::Sum(s, t, ops::Range(s, ops::Const<int32_t>(s, 0),
                                                                 ops::Rank(s, t),
                                                                 ops::Const<int32_t>(s, 1))); };
    *dx = {Output(), Output(), values, ops::Sub(s, total(dy[0]), total(values))};
    return s.status();
  });
  // TensorFlow's _GatherGrad for a resource variable (IndexedSlices of its
  // rows), applied densely as Gather's is: the variable's gradient.
  r->Register("ResourceGather", [](const Scope& s, const Operation& op, const Grads& dy,
                                   Grads* dx) {
    int64_t batch_dims = 0;
    GetNodeAttr(s.GetNodeDef(op), "batch_dims", &batch_dims).IgnoreError();
    if (batch_dims != 0) {
      return absl::UnimplementedError(absl::StrCat(
          "the gradient of ResourceGather with batch_dims ", batch_dims, " (0 only)"));
    }
    const Grads in = s.GetInputs(op);
    Output zero = ops::Const<int32_t>(s, 0);
    Output rows = ops::GatherV2(s, s.AddOp("VariableShape", {{in[0]}}).output(0), zero, zero);
    *dx = {ops::UnsortedSegmentSum(s, dy[0], in[1], rows), Output()};
    return s.status();
  });
  for (const char* name : {"Gather", "GatherV2"}) {
    const bool v2 = name == std::string("GatherV2");
    r->Register(name, [v2](const Scope& s, const Operation& op, const Grads& dy, Grads* dx) {
      return GatherGrad(v2, s, op, dy, dx);
    });
  }
}

}  // namespace

void RegisterArrayGradients(GradientRegistry* r) {
  RegisterReshapingGradients(r);
  RegisterBatchGradients(r);
  RegisterPartitionGradients(r);
  RegisterSelectionGradients(r);
  RegisterConcatGradients(r);
  RegisterGatherGradients(r);
}


// cond (Switch/Merge): the gradient flows back only through the branch that
// ran. Merge routes dy to the input it took (its value_index), the other
// inputs' gradients being dead; Switch merges its two outputs' gradients,
// of which only the taken side's is live. A tensor used inside a branch
// gets a gradient when it came in through the cond's Switch (ops::Cond's
// inputs), as in TensorFlow. While loops have no gradient yet.
void RegisterControlFlowGradients(GradientRegistry* r) {
  r->Register("Merge", [](const Scope& s, const Operation& op, const Grads& dy, Grads* dx) {
    const std::vector<Output> inputs = s.GetInputs(op);
    dx->clear();
    for (size_t i = 0; i < inputs.size(); ++i) {
      Output taken = ops::Equal(s, op.output(1), ops::Const<int32_t>(s, static_cast<int32_t>(i)));
      dx->push_back(ops::Switch(s, dy[0], taken).output_true);
    }
    return absl::OkStatus();
  });
  r->Register("Switch", [](const Scope& s, const Operation&, const Grads& dy, Grads* dx) {
    *dx = {ops::Merge(s, {dy[0], dy[1]}), Output()};
    return absl::OkStatus();
  });
}

}  // namespace gradients_internal
}  // namespace minigraph
