"""The op interop test's generators, by kind of op: for each op, the inputs
its cases feed (op_cases.Spec) for one dtype. GENERATORS maps an op to
(generator, the type attr whose allowed dtypes are tried, or None)."""

import dataclasses

import numpy as np

from interop import tf
import image_generators
import proto_generators
from op_cases import Const, SHAPES, Spec, random_values

F32_64 = (tf.float32, tf.float64)


def _grad(dt, *positions):
    return positions if dt in F32_64 else ()


def _i32(x):
    return np.asarray(x, np.int32)


def _i64(x):
    return np.asarray(x, np.int64)


# ---------------------------------------------------------------- elementwise

def unary(low=None, high=None, grad=True, tol=1.0, min_rank=0, attrs=None, edges=True,
          label="x"):
    def gen(dt, rng):
        out = []
        for shape in SHAPES:
            if len(shape) < min_rank:
                continue
            x = random_values(rng, shape, dt, edges=edges, low=low, high=high)
            out.append(Spec(f"{label}{list(shape)}", [x], dict(attrs or {}),
                            grad=_grad(dt, 0) if grad else (), tol=tol))
        return out
    return gen


BROADCASTS = [((), ()), ((7,), ()), ((7,), (7,)), ((2, 3, 4), (4,)), ((2, 1, 4), (3, 1)),
              ((0, 3), (1, 3)), ((129, 67), (129, 67)), ((1, 67), (129, 1))]
BAD_BROADCASTS = [((2, 3), (4,)), ((5,), (0,))]


def _signed_zero_for_denormals(v):
    if not v.dtype.kind == "f":
        return v
    return np.where(np.abs(v) < np.finfo(v.dtype).tiny, np.copysign(0, v), v).astype(v.dtype)


def binary(low=None, high=None, grad=True, tol=1.0, nonzero_y=False, same_shape=False,
           no_denormals=False, divides=False):
    """Two inputs of one dtype, broadcast (or of the same shape, as gradient
    kernels want); shapes that do not broadcast must fail as TensorFlow's.
    With `divides`, a complex y has no zeros, infinities or NaNs: TensorFlow's
    quotient by one depends on where the element falls (Eigen's vectorized
    pdiv_complex gives NaN, its scalar tail C's infinities).
    With no_denormals, the edge values' denormals are zeros of their sign:
    for ops whose TensorFlow kernel answers a denormal differently by where
    the element lies (its vectorized body flushes it, its scalar tail may
    not)."""
    def values(rng, shape, dt):
        v = random_values(rng, shape, dt, low=low, high=high)
        return _signed_zero_for_denormals(v) if no_denormals else v

    def divisor(rng, shape, dt):
        v = values(rng, shape, dt)
        if divides and dt.is_complex:
            v = np.where(np.isfinite(v) & (v != 0), v, np.ones_like(v) * (1 - 2j))
        return v

    def gen(dt, rng):
        out = []
        pairs = [(s, s) for s in SHAPES] if same_shape else BROADCASTS
        for sx, sy in pairs + BAD_BROADCASTS:
            x = values(rng, sx, dt)
            y = divisor(rng, sy, dt)
            if nonzero_y and not (dt.is_floating or dt.is_complex):
                y = np.where(y == 0, np.ones_like(y), y)
            out.append(Spec(f"x{list(sx)}.y{list(sy)}", [x, y],
                            grad=_grad(dt, 0, 1) if grad else (), tol=tol))
        # Both operands the edge values, every pair of them.
        e = values(rng, (15,), dt)
        x, y = np.meshgrid(e, divisor(rng, (15,), dt) if divides and dt.is_complex else e)
        if nonzero_y and not (dt.is_floating or dt.is_complex):
            y = np.where(y == 0, np.ones_like(y), y)
        out.append(Spec("edge_pairs", [x, y], tol=tol))
        return out
    return gen


def integer_division_by_zero():
    """Integer Div, FloorDiv, FloorMod and friends by zero: an error in
    TensorFlow, never a crash."""
    def gen(dt, rng):
        if dt.is_floating or dt.is_complex or dt in (tf.bool, tf.string):
            return []
        x = random_values(rng, (4,), dt, edges=False)
        return [Spec("by_zero", [x, np.zeros((4,), dt.as_numpy_dtype)]),
                Spec("by_zero_scalar", [x, np.zeros((), dt.as_numpy_dtype)])]
    return gen


def both(*gens):
    def gen(dt, rng):
        return [s for g in gens for s in g(dt, rng)]
    return gen


def add_n(dt, rng):
    out = []
    for n, shape in [(1, (3,)), (2, ()), (3, (2, 3, 4)), (4, (0, 2)), (2, (129, 67))]:
        xs = [random_values(rng, shape, dt) for _ in range(n)]
        out.append(Spec(f"n{n}.{list(shape)}", [xs], grad=_grad(dt, *range(n))))
    out.append(Spec("mismatched", [[random_values(rng, (3,), dt), random_values(rng, (4,), dt)]]))
    return out


def cast(dt, rng):
    out = []
    for dst in (tf.float32, tf.float64, tf.float16, tf.bfloat16, tf.int32, tf.int64, tf.int8,
                tf.uint8, tf.uint32, tf.uint64, tf.bool, tf.complex64, tf.complex128):
        for shape in [(), (15,), (3, 0), (129, 67)]:
            x = random_values(rng, shape, dt)
            if not (dst.is_floating or dst.is_complex) and dt.is_complex:
                # A complex number converts by its real part: the same rule.
                f = np.nan_to_num(x.real.astype(np.float64), nan=0.0, posinf=100.0,
                                  neginf=-100.0)
                x = (np.clip(f, 0 if dst.is_unsigned else -100, 100) + 1j * x.imag).astype(x.dtype)
            if not (dst.is_floating or dst.is_complex) and dt.is_floating:
                # Float to integer of a NaN or out of range (a negative float
                # to an unsigned type too) is undefined in C++, and
                # TensorFlow's answer depends on where the element falls
                # (docs/tf_interop.md). Keep to what both define.
                # (In float32: NumPy's nan_to_num leaves bfloat16's NaNs.)
                f = np.nan_to_num(x.astype(np.float32), nan=0.0, posinf=100.0, neginf=-100.0)
                x = np.clip(f, 0 if dst.is_unsigned else -100, 100).astype(x.dtype)
            out.append(Spec(f"to_{dst.name}.{list(shape)}", [x], {"DstT": dst},
                            grad=_grad(dt, 0) if dst in F32_64 else ()))
    return out


def shape_of(out_type_attr="out_type"):
    def gen(dt, rng):
        out = []
        for shape in SHAPES:
            x = random_values(rng, shape, dt)
            for ot in (tf.int32, tf.int64):
                attrs = {out_type_attr: ot} if out_type_attr else {}
                out.append(Spec(f"{list(shape)}.{ot.name}", [x], attrs))
                if not out_type_attr:
                    break
        return out
    return gen


def shape_n(dt, rng):
    xs = [random_values(rng, s, dt) for s in [(), (3,), (2, 0, 5)]]
    return [Spec("three", [xs], {"out_type": ot}) for ot in (tf.int32, tf.int64)]


# ---------------------------------------------------------------- reductions

REDUCTIONS = [
    ((2, 3, 4), [0], False), ((2, 3, 4), [1], True), ((2, 3, 4), [-1], False),
    ((2, 3, 4), [0, 2], True), ((2, 3, 4), [], False), ((2, 3, 4), [0, 1, 2], False),
    ((0, 3), [0], False), ((0, 3), [1], True), ((), [], False), ((129, 67), [0], False),
    ((129, 67), [1], False), ((129, 67), [0, 1], True), ((5,), 0, False),
]
BAD_REDUCTIONS = [((2, 3), [2]), ((2, 3), [-3])]


def reduction(grad=True, tol=4.0, no_huge=False, no_int_edges=False):
    """Reductions over axes; `no_huge` leaves out the largest finite values
    (a product overflows to inf or not by the order of its factors),
    `no_int_edges` integers' edge values (a norm's squares would wrap)."""
    def gen(dt, rng):
        out = []
        for shape, axis, keep in REDUCTIONS:
            for idx in (np.int32, np.int64):
                edges = shape != (129, 67) and not (no_int_edges and dt.is_integer)
                x = random_values(rng, shape, dt, edges=edges)
                if no_huge and dt.is_floating:
                    x = np.where(np.abs(x.astype(np.float64)) > 1e4, 3, x).astype(x.dtype)
                out.append(Spec(f"{list(shape)}.axis{axis}.keep{keep}.{np.dtype(idx).name}",
                                [x, np.asarray(axis, idx)], {"keep_dims": keep},
                                grad=_grad(dt, 0) if grad else (), tol=tol, grad_const=(1,)))
        for shape, axis in BAD_REDUCTIONS:
            out.append(Spec(f"bad_axis{axis}", [random_values(rng, shape, dt), _i32(axis)]))
        return out
    return gen


def arg_reduction(dt, rng):
    out = []
    for shape, axis in [((7,), 0), ((2, 3, 4), 1), ((2, 3, 4), -1), ((129, 67), 0),
                        ((129, 67), 1), ((4, 5), 0)]:
        x = random_values(rng, shape, dt, edges=shape == (7,))
        if shape == (4, 5):
            x = np.zeros(shape, x.dtype)  # ties: the first index
        for ot in (tf.int64, tf.int32):
            out.append(Spec(f"{list(shape)}.axis{axis}.{ot.name}", [x, _i32(axis)],
                            {"output_type": ot}))
    out.append(Spec("bad_axis", [random_values(rng, (2, 3), dt), _i32(2)]))
    out.append(Spec("empty_axis", [random_values(rng, (0, 3), dt), _i32(0)]))
    return out


def cumulative(dt, rng):
    out = []
    for shape, axis in [((7,), 0), ((2, 3, 4), 1), ((2, 3, 4), -1), ((0, 3), 0), ((129, 67), 0)]:
        for exclusive in (False, True):
            for reverse in (False, True):
                x = random_values(rng, shape, dt, low=-2, high=2, edges=False)
                out.append(Spec(f"{list(shape)}.axis{axis}.ex{exclusive}.rev{reverse}",
                                [x, _i32(axis)], {"exclusive": exclusive, "reverse": reverse},
                                grad=_grad(dt, 0), tol=8.0))
    out.append(Spec("bad_axis", [random_values(rng, (2, 3), dt), _i32(2)]))
    return out


# ---------------------------------------------------------------- matrices

def matmul(dt, rng):
    out = []
    for (m, k, n) in [(1, 1, 1), (3, 4, 5), (0, 4, 5), (3, 0, 5), (65, 33, 17)]:
        for ta in (False, True):
            for tb in (False, True):
                a = random_values(rng, (k, m) if ta else (m, k), dt, edges=False)
                b = random_values(rng, (n, k) if tb else (k, n), dt, edges=False)
                out.append(Spec(f"{m}x{k}x{n}.ta{ta}.tb{tb}", [a, b],
                                {"transpose_a": ta, "transpose_b": tb}, grad=_grad(dt, 0, 1),
                                tol=10.0))
    out.append(Spec("inner_mismatch", [random_values(rng, (2, 3), dt),
                                        random_values(rng, (4, 2), dt)]))
    out.append(Spec("not_matrix", [random_values(rng, (3,), dt), random_values(rng, (3, 2), dt)]))
    return out


def batch_matmul(broadcast):
    def gen(dt, rng):
        out = []
        shapes = [((2, 3, 4), (2, 4, 5)), ((1, 2, 3), (1, 3, 2)), ((0, 2, 3), (0, 3, 4)),
                  ((2, 2, 3, 4), (2, 2, 4, 1))]
        if broadcast:
            shapes += [((2, 3, 4), (4, 5)), ((3, 1, 2, 3), (4, 3, 2))]
        for sa, sb in shapes:
            for adj_x, adj_y in [(False, False), (True, False), (False, True)]:
                a = random_values(rng, sa, dt, edges=False)
                b = random_values(rng, sb, dt, edges=False)
                if adj_x:
                    a = np.swapaxes(a, -1, -2).copy()
                if adj_y:
                    b = np.swapaxes(b, -1, -2).copy()
                out.append(Spec(f"{sa}x{sb}.adj{adj_x}{adj_y}", [a, b],
                                {"adj_x": adj_x, "adj_y": adj_y}, grad=_grad(dt, 0, 1), tol=10.0))
        out.append(Spec("mismatch", [random_values(rng, (2, 3, 4), dt),
                                     random_values(rng, (2, 5, 4), dt)]))
        return out
    return gen


# ---------------------------------------------------------------- registry

def fixed(dt, gen):
    """`gen` for one dtype, for an op without a type attr (LogicalNot)."""
    return lambda _, rng: gen(dt, rng)


def _ops(names, gen, attr="T"):
    return {n: (gen, attr) for n in names}


GENERATORS = {}
GENERATORS.update(_ops(["Neg", "Square", "Exp", "Sin", "Cos", "Tanh", "Sigmoid", "Floor", "Ceil",
                        "Round", "Relu", "Relu6", "Elu", "Softplus", "Identity", "Snapshot",
                        "StopGradient", "ZerosLike", "OnesLike", "Sqrt", "Rsqrt", "Log",
                        "Log1p", "PreventGradient"], unary()))
# A complex reciprocal of zero or infinity: as a complex quotient's (binary).
GENERATORS["Reciprocal"] = (lambda dt, rng: unary(edges=not dt.is_complex)(dt, rng), "T")
GENERATORS.update(_ops(["Abs", "Sign", "Expm1", "Erf", "Erfc", "Selu", "Softsign"], unary()))
GENERATORS["L2Loss"] = (unary(tol=4.0), "T")
GENERATORS["LogicalNot"] = (fixed(tf.bool, unary()), None)
GENERATORS["LeakyRelu"] = (both(unary(), unary(attrs={"alpha": 0.05})), "T")
GENERATORS.update(_ops(["Softmax", "LogSoftmax"], unary(min_rank=1, tol=4.0)))
GENERATORS.update(_ops(["SoftplusGrad", "SoftsignGrad", "InvGrad"],
                       binary(same_shape=True, grad=False)))
# The activations' gradient ops, with their own gradients (gradients of
# gradients).
GENERATORS.update(_ops(["ReluGrad", "Relu6Grad", "EluGrad", "SigmoidGrad", "TanhGrad",
                        "RsqrtGrad", "SqrtGrad", "LeakyReluGrad", "SeluGrad", "ReciprocalGrad"],
                       binary(same_shape=True, tol=2.0)))
GENERATORS.update(_ops(["Add", "AddV2", "Sub", "Mul", "Maximum", "Minimum", "SquaredDifference"],
                       binary(tol=2.0)))


def scalar_exponents(dt, rng):
    """Pow of the scalar exponents minigraph computes without pow (2, 3,
    1, 0.5, -0.5, -1: a GELU's cube, norms' roots), and one it does not,
    over values with every edge (zeros, infinities, NaN, denormals)."""
    out = []
    for e in (2.0, 3.0, 1.0, 0.5, -0.5, -1.0, 2.5):
        x = random_values(rng, (129, 7), dt)
        y = np.array(e, dtype=dt.as_numpy_dtype)
        out.append(Spec(f"x[129, 7].y={e}", [x, y], grad=_grad(dt, 0, 1), tol=2.0))
    return out


GENERATORS["Pow"] = (both(binary(tol=2.0), scalar_exponents), "T")
GENERATORS.update(_ops(["RealDiv", "DivNoNan"], binary(tol=2.0, divides=True)))
# TensorFlow's Atan2 of denormals: pi/4 for (d, d) in its vectorized body,
# NaN in its scalar tail; minigraph reads them as zeros everywhere.
GENERATORS["Atan2"] = (binary(tol=2.0, no_denormals=True), "T")
# Trigonometric, hyperbolic and special functions (edge values too), their
# random values inside their domains where they have one.
GENERATORS.update(_ops(["Tan", "Sinh", "Cosh", "Atan", "Asinh", "BesselI0e", "BesselI1e",
                        "BesselI0"], unary(tol=2.0)))
# BesselI1's gradient at 0 is TensorFlow's bug (TENSORFLOW_BUGS): the edge
# values (0 first) forward only, the gradient on random values and at 0.
GENERATORS["BesselI1"] = (both(unary(grad=False, tol=2.0, label="edges"),
                               unary(edges=False, tol=2.0),
                               lambda dt, rng: [Spec("zero", [np.zeros(3, dt.as_numpy_dtype)],
                                                     grad=_grad(dt, 0))]), "T")
GENERATORS.update(_ops(["Asin", "Acos", "Atanh"], unary(low=-0.95, high=0.95, tol=2.0)))
GENERATORS["Acosh"] = (unary(low=1.05, high=6.0, tol=2.0), "T")
GENERATORS.update(_ops(["Lgamma", "Digamma"], unary(low=0.1, high=6.0, tol=4.0)))
GENERATORS["Ndtri"] = (unary(low=0.02, high=0.98, tol=4.0), "T")
GENERATORS["Erfinv"] = (unary(low=-0.96, high=0.96, tol=4.0), "T")
GENERATORS["Rint"] = (unary(grad=False), "T")


def polygamma(dt, rng):
    """Polygamma(n, x): orders 0 to 3 (integers as floats), x broadcast
    against them; a non-integer order (NaN) and a negative one."""
    out = []
    for shape_n, shape_x in [((), (7,)), ((4,), (4,)), ((4, 1), (3,))]:
        n = rng.integers(0, 4, shape_n).astype(dt.as_numpy_dtype)
        x = random_values(rng, shape_x, dt, edges=False, low=0.2, high=5.0)
        out.append(Spec(f"n{list(shape_n)}.x{list(shape_x)}", [n, x], grad=_grad(dt, 1),
                        tol=8.0))
    x = random_values(rng, (3,), dt, edges=False, low=0.2, high=5.0)
    out.append(Spec("fractional_order", [np.asarray(1.5, dt.as_numpy_dtype), x]))
    out.append(Spec("negative_order", [np.asarray(-1, dt.as_numpy_dtype), x]))
    out.append(Spec("edges", [np.asarray(2, dt.as_numpy_dtype), random_values(rng, (15,), dt)]))
    return out


def special_binary(a_range, x_range, grad):
    """Igamma, Igammac, IgammaGradA and Zeta: operands in the functions'
    domain (a_range, x_range) broadcast against each other, the gradients
    at `grad` (positions); values outside the domain (NaN) and edge
    values."""
    def gen(dt, rng):
        out = []
        for shape_a, shape_x in [((7,), (7,)), ((), (5,)), ((4, 1), (3,))]:
            a = random_values(rng, shape_a, dt, edges=False, low=a_range[0], high=a_range[1])
            x = random_values(rng, shape_x, dt, edges=False, low=x_range[0], high=x_range[1])
            out.append(Spec(f"a{list(shape_a)}.x{list(shape_x)}", [a, x], grad=_grad(dt, *grad),
                            tol=64.0))
        out.append(Spec("outside_domain", [np.asarray([-1, 0, 2], dt.as_numpy_dtype),
                                           np.asarray([1, -1, 0], dt.as_numpy_dtype)], tol=64.0))
        out.append(Spec("edges", [np.asarray(2, dt.as_numpy_dtype),
                                  np.abs(random_values(rng, (15,), dt))], tol=64.0))
        return out
    return gen


def betainc(dt, rng):
    """Betainc with a, b and x of one shape or scalars among them; its
    gradient (x's, summed where x is a scalar); a or b of 1 (the tails the
    gradient's logs keep); values outside the domain (NaN); shapes that
    differ fail."""
    def vals(shape, low, high):
        return random_values(rng, shape, dt, edges=False, low=low, high=high)
    out = []
    for sa, sb, sx in [((6,), (6,), (6,)), ((), (2, 3), (2, 3)), ((4,), (), ()),
                       ((), (), (5,)), ((2, 2), (2, 2), ())]:
        out.append(Spec(f"a{list(sa)}.b{list(sb)}.x{list(sx)}",
                        [vals(sa, 0.3, 8.0), vals(sb, 0.3, 8.0), vals(sx, 0.02, 0.98)],
                        grad=_grad(dt, 2), tol=64.0))
    out.append(Spec("a_or_b_one", [np.asarray([1, 2, 1], dt.as_numpy_dtype),
                                   np.asarray([3, 1, 1], dt.as_numpy_dtype), vals((3,), 0.1, 0.9)],
                    grad=_grad(dt, 2), tol=64.0))
    out.append(Spec("outside_domain", [np.asarray([-1, 0, 2, 2, 2], dt.as_numpy_dtype),
                                       np.asarray([1, 1, -2, 2, 2], dt.as_numpy_dtype),
                                       np.asarray([0.5, 0.5, 0.5, 0, 1.5], dt.as_numpy_dtype)],
                    tol=64.0))
    out.append(Spec("shapes_differ", [vals((2,), 1, 2), vals((3,), 1, 2), vals((2,), 0.1, 0.9)]))
    return out


GENERATORS["Polygamma"] = (polygamma, "T")
GENERATORS["Betainc"] = (betainc, "T")
GENERATORS["NextAfter"] = (binary(), "T")
GENERATORS.update(_ops(["Igamma", "Igammac"], special_binary((0.3, 6.0), (0.1, 8.0), (0, 1))))
GENERATORS["IgammaGradA"] = (special_binary((0.3, 6.0), (0.1, 8.0), ()), "T")
GENERATORS["Zeta"] = (special_binary((1.2, 6.0), (0.3, 5.0), (1,)), "T")
GENERATORS.update(_ops(["Div", "FloorDiv", "FloorMod"],
                       both(binary(nonzero_y=True, divides=True), integer_division_by_zero())))
GENERATORS.update(_ops(["Equal", "NotEqual", "Less", "LessEqual", "Greater", "GreaterEqual",
                        ], binary(grad=False)))
GENERATORS["LogicalAnd"] = (fixed(tf.bool, binary(grad=False)), None)
GENERATORS["LogicalOr"] = (fixed(tf.bool, binary(grad=False)), None)
GENERATORS.update(_ops(["IsFinite", "IsNan", "IsInf"], unary(grad=False)))
GENERATORS["AddN"] = (add_n, "T")
GENERATORS["Cast"] = (cast, "SrcT")
GENERATORS["Shape"] = (shape_of(), "T")
GENERATORS["Size"] = (shape_of(), "T")
GENERATORS["Rank"] = (shape_of(None), "T")
GENERATORS["ShapeN"] = (shape_n, "T")
GENERATORS.update(_ops(["Sum", "Mean", "Max", "Min"], reduction()))
GENERATORS["Prod"] = (reduction(no_huge=True), "T")
GENERATORS["EuclideanNorm"] = (reduction(no_huge=True, no_int_edges=True), "T")
GENERATORS.update(_ops(["All", "Any"], fixed(tf.bool, reduction(grad=False)), None))
GENERATORS.update(_ops(["ArgMax", "ArgMin"], arg_reduction))
GENERATORS.update(_ops(["Cumsum", "Cumprod", "CumulativeLogsumexp"], cumulative))
GENERATORS["MatMul"] = (matmul, "T")
GENERATORS["BatchMatMul"] = (batch_matmul(False), "T")
GENERATORS["BatchMatMulV2"] = (batch_matmul(True), "T")


# ---------------------------------------------------------------- array ops

def _f(rng, shape, dt, edges=False):
    return random_values(rng, shape, dt, edges=edges)


def bias_add(dt, rng):
    out = []
    for shape, fmt in [((2, 3, 4), "NHWC"), ((2, 3, 4, 5), "NHWC"), ((2, 5, 3, 4), "NCHW"),
                       ((4,), "NHWC"), ((0, 3), "NHWC")]:
        c = shape[1] if fmt == "NCHW" else shape[-1]
        out.append(Spec(f"{list(shape)}.{fmt}", [_f(rng, shape, dt, True), _f(rng, (c,), dt)],
                        {"data_format": fmt}, grad=_grad(dt, 0, 1)))
    out.append(Spec("bad_bias", [_f(rng, (2, 3), dt), _f(rng, (4,), dt)]))
    return out


def bias_add_grad(dt, rng):
    return [Spec(f"{list(s)}.{fmt}", [_f(rng, s, dt, True)], {"data_format": fmt},
                 grad=_grad(dt, 0))
            for s, fmt in [((2, 3, 4), "NHWC"), ((2, 3, 4, 5), "NHWC"), ((2, 5, 3, 4), "NCHW"),
                           ((0, 3), "NHWC")]]


def broadcast_to(dt, rng):
    out = []
    for s, target in [((3,), [2, 3]), ((1, 3), [4, 2, 3]), ((), [0, 2]), ((2, 1), [2, 5]),
                      ((3,), [3])]:
        for idx in (np.int32, np.int64):
            out.append(Spec(f"{list(s)}_to_{target}.{np.dtype(idx).name}",
                            [_f(rng, s, dt, True), np.asarray(target, idx)],
                            grad=_grad(dt, 0), grad_const=(1,)))
    out.append(Spec("bad", [_f(rng, (3,), dt), _i32([4])]))
    if dt == tf.float32:
        # The shape computed (not a constant) from a constant value: the
        # output's rank is the shape's length, whatever the value's values
        # (tf.reduce_sum of a ragged tensor over its rows builds this).
        def computed_shape():
            b = tf.broadcast_to(tf.constant([2, 1]), tf.stack([tf.constant([2])[0]]))
            return {}, [tf.stack([1, tf.maximum(0, tf.reduce_max(b, [0]))])]

        def ragged_row_sums():
            r = tf.ragged.constant([[1.0, 2.0], [3.0], []])
            return {}, [tf.reduce_sum(r, axis=1)]
        out += [Spec("computed_shape", [], graph=computed_shape),
                Spec("ragged_row_sums", [], graph=ragged_row_sums)]
    return out


def broadcast_gradient_args(dt, rng):
    np_dt = dt.as_numpy_dtype
    pairs = [([2, 3], [3]), ([2, 1, 4], [3, 1]), ([], [5]), ([0, 3], [1, 3]), ([4], [4]),
             ([2, 3], [4])]
    return [Spec(f"{a}.{b}", [np.asarray(a, np_dt), np.asarray(b, np_dt)]) for a, b in pairs]


def concat(v2):
    def gen(dt, rng):
        out = []
        for shapes, axis in [([(2, 3), (4, 3)], 0), ([(2, 3), (2, 1), (2, 0)], 1),
                             ([(2, 3, 4), (2, 3, 4)], -1), ([(3,)], 0), ([(0, 2), (1, 2)], 0)]:
            xs = [_f(rng, s, dt, True) for s in shapes]
            grad = _grad(dt, *range(1 if not v2 else 0, len(xs) + (1 if not v2 else 0)))
            inputs = [xs, _i32(axis)] if v2 else [_i32(axis), xs]
            out.append(Spec(f"{shapes}.axis{axis}", inputs, grad=grad,
                            grad_const=(1,) if v2 else (0,)))
        bad = [_f(rng, (2, 3), dt), _f(rng, (3, 2), dt)]
        out.append(Spec("mismatch", [bad, _i32(0)] if v2 else [_i32(0), bad]))
        out.append(Spec("bad_axis", [bad[:1] * 2, _i32(2)] if v2 else [_i32(2), bad[:1] * 2]))
        return out
    return gen


def concat_offset(dt, rng):
    return [Spec("two", [_i32(1), [_i32([2, 3, 5]), _i32([2, 7, 5])]]),
            Spec("three", [_i32(0), [_i32([2, 3]), _i32([4, 3]), _i32([1, 3])]]),
            Spec("mismatch", [_i32(1), [_i32([2, 3]), _i32([3, 3])]])]


def expand_dims(dt, rng):
    out = []
    for s, d in [((), 0), ((3,), 0), ((3,), -1), ((2, 3), 1), ((2, 0), 2)]:
        out.append(Spec(f"{list(s)}.dim{d}", [_f(rng, s, dt, True), _i32(d)], grad=_grad(dt, 0),
                        grad_const=(1,)))
    out.append(Spec("bad_dim", [_f(rng, (2,), dt), _i32(3)]))
    return out


def fill(dt, rng):
    out = []
    for dims in ([2, 3], [0], [], [4, 1, 2]):
        for idx in (np.int32, np.int64):
            out.append(Spec(f"{dims}.{np.dtype(idx).name}",
                            [np.asarray(dims, idx), _f(rng, (), dt, True)]))
    out.append(Spec("negative", [_i32([2, -1]), _f(rng, (), dt)]))
    out.append(Spec("value_not_scalar", [_i32([2]), _f(rng, (2,), dt)]))
    return out


def gather(version):
    def gen(dt, rng):
        out = []
        for ps, idx, axis, bd in [((5,), [0, 4, 2], 0, 0), ((5, 3), [[1, 1], [0, 4]], 0, 0),
                                  ((2, 5, 3), [4, 0], 1, 0), ((4, 3), [], 0, 0),
                                  ((2, 4), [[1, 3], [0, 0]], 1, 1), ((6, 2), [5], -2, 0)]:
            if version == 1 and (axis != 0 or bd):
                continue
            for it in (np.int32, np.int64):
                params = _f(rng, ps, dt, True)
                ind = np.asarray(idx, it).reshape(np.shape(idx))
                inputs = [params, ind] + ([np.asarray(axis, it)] if version == 2 else [])
                attrs = {"batch_dims": bd} if version == 2 else {}
                out.append(Spec(f"{list(ps)}.{idx}.axis{axis}.bd{bd}.{np.dtype(it).name}",
                                inputs, attrs, grad=_grad(dt, 0),
                                grad_const=(2,) if version == 2 else ()))
        bad = [_f(rng, (5,), dt), _i32([5])] + ([_i32(0)] if version == 2 else [])
        out.append(Spec("out_of_range", bad))
        neg = [_f(rng, (5,), dt), _i32([-1])] + ([_i32(0)] if version == 2 else [])
        out.append(Spec("negative_index", neg))
        return out
    return gen


def gather_nd(dt, rng):
    out = []
    for ps, idx in [((4, 3), [[0, 1], [3, 2]]), ((4, 3), [[2], [0]]), ((2, 3, 4), [[1, 2, 3]]),
                    ((5,), [[4], [0], [4]]), ((3, 2), np.zeros((0, 1), int))]:
        for it in (np.int32, np.int64):
            out.append(Spec(f"{list(ps)}.{np.asarray(idx).tolist()}.{np.dtype(it).name}",
                            [_f(rng, ps, dt, True), np.asarray(idx, it)], grad=_grad(dt, 0)))
    out.append(Spec("out_of_range", [_f(rng, (4, 3), dt), _i32([[4, 0]])]))
    return out


def invert_permutation(dt, rng):
    np_dt = dt.as_numpy_dtype
    return [Spec("p5", [np.asarray([3, 0, 4, 1, 2], np_dt)]), Spec("empty", [np.zeros(0, np_dt)]),
            Spec("p1", [np.asarray([0], np_dt)]),
            Spec("repeated", [np.asarray([0, 0, 1], np_dt)]),
            Spec("out_of_range", [np.asarray([0, 3], np_dt)])]


def one_hot(dt, rng):
    out = []
    for idx, depth, axis in [([0, 2, -1, 5], 4, -1), ([[1, 0], [2, 3]], 3, 0), (2, 5, -1),
                             ([1, 2], 0, -1), ([[0, 1, 2]], 3, 1)]:
        for it in (np.int32, np.int64, np.uint8):
            if it == np.uint8 and np.min(idx) < 0:
                continue
            out.append(Spec(f"{idx}.d{depth}.axis{axis}.{np.dtype(it).name}",
                            [np.asarray(idx, it), _i32(depth), _f(rng, (), dt, True),
                             _f(rng, (), dt, True)], {"axis": axis}))
    out.append(Spec("negative_depth", [_i32([0]), _i32(-1), _f(rng, (), dt), _f(rng, (), dt)]))
    return out


def pack(dt, rng):
    out = []
    for n, s, axis in [(3, (2,), 0), (2, (2, 3), 1), (2, (2, 3), -1), (1, (), 0), (2, (0, 2), 0)]:
        xs = [_f(rng, s, dt, True) for _ in range(n)]
        out.append(Spec(f"n{n}.{list(s)}.axis{axis}", [xs], {"axis": axis},
                        grad=_grad(dt, *range(n))))
    out.append(Spec("mismatch", [[_f(rng, (2,), dt), _f(rng, (3,), dt)]], {"axis": 0}))
    return out


def unpack(dt, rng):
    out = []
    for s, axis in [((3, 2), 0), ((2, 3, 4), 1), ((2, 3), -1), ((2, 0), 0)]:
        out.append(Spec(f"{list(s)}.axis{axis}", [_f(rng, s, dt, True)],
                        {"num": s[axis], "axis": axis}, grad=_grad(dt, 0)))
    out.append(Spec("wrong_num", [_f(rng, (3, 2), dt)], {"num": 2, "axis": 0}))
    return out


def pad(v2):
    def gen(dt, rng):
        out = []
        for s, p in [((2, 3), [[1, 0], [2, 2]]), ((3,), [[0, 0]]), ((), []),
                     ((0, 2), [[1, 1], [0, 1]]), ((2, 3, 4), [[0, 1], [1, 0], [2, 3]])]:
            for pt in (np.int32, np.int64):
                inputs = [_f(rng, s, dt, True), np.asarray(p, pt).reshape(len(s), 2)]
                if v2:
                    inputs.append(_f(rng, (), dt, True))
                out.append(Spec(f"{list(s)}.{p}.{np.dtype(pt).name}", inputs, grad=_grad(dt, 0),
                                grad_const=(1,)))
        bad = [_f(rng, (2,), dt), _i32([[-1, 0]])] + ([_f(rng, (), dt)] if v2 else [])
        out.append(Spec("negative", bad))
        bad = [_f(rng, (2,), dt), _i32([[1, 0], [0, 0]])] + ([_f(rng, (), dt)] if v2 else [])
        out.append(Spec("rank_mismatch", bad))
        return out
    return gen


def range_op(dt, rng):
    np_dt = dt.as_numpy_dtype
    out = []
    for start, limit, delta in [(0, 5, 1), (2, 11, 3), (10, 0, -2), (0, 0, 1), (1, 1.5, 0.25),
                                (-3, 4, 2)]:
        if not dt.is_floating and any(float(v) != int(v) for v in (start, limit, delta)):
            continue
        if dt.is_unsigned and min(start, limit, delta) < 0:
            continue
        out.append(Spec(f"{start}.{limit}.{delta}", [np.asarray(start, np_dt),
                                                      np.asarray(limit, np_dt),
                                                      np.asarray(delta, np_dt)]))
    out.append(Spec("zero_delta", [np.asarray(0, np_dt), np.asarray(3, np_dt),
                                   np.asarray(0, np_dt)]))
    out.append(Spec("wrong_direction", [np.asarray(5, np_dt), np.asarray(0, np_dt),
                                        np.asarray(1, np_dt)]))
    return out


def reshape(dt, rng):
    out = []
    for s, target in [((2, 3), [3, 2]), ((2, 3), [-1]), ((6,), [2, -1, 3]), ((), [1, 1]),
                      ((0, 3), [-1, 3]), ((4,), [2, 2])]:
        for it in (np.int32, np.int64):
            out.append(Spec(f"{list(s)}.{target}.{np.dtype(it).name}",
                            [_f(rng, s, dt, True), np.asarray(target, it)], grad=_grad(dt, 0),
                            grad_const=(1,)))
    out.append(Spec("wrong_size", [_f(rng, (2, 3), dt), _i32([4])]))
    out.append(Spec("two_unknown", [_f(rng, (2, 3), dt), _i32([-1, -1])]))
    return out


def reverse(dt, rng):
    out = []
    for s, axes in [((5,), [0]), ((2, 3, 4), [1]), ((2, 3, 4), [0, 2]), ((2, 3), [-1]),
                    ((2, 3), []), ((0, 3), [1])]:
        for it in (np.int32, np.int64):
            out.append(Spec(f"{list(s)}.{axes}.{np.dtype(it).name}",
                            [_f(rng, s, dt, True), np.asarray(axes, it)], grad=_grad(dt, 0),
                            grad_const=(1,)))
    out.append(Spec("bad_axis", [_f(rng, (2,), dt), _i32([1])]))
    out.append(Spec("repeated_axis", [_f(rng, (2, 2), dt), _i32([0, 0])]))
    return out


def select(v2):
    def gen(dt, rng):
        out = []
        shapes = [((3,), (3,)), ((2, 3), (2, 3)), ((), ()), ((0, 2), (0, 2))]
        shapes += [((2,), (2, 3))] if not v2 else [((3,), (2, 3)), ((2, 1), (1, 3)), ((), (2, 2))]
        for sc, sv in shapes:
            cond = rng.random(sc) > 0.5
            out.append(Spec(f"{list(sc)}.{list(sv)}", [np.asarray(cond),
                                                        _f(rng, sv, dt, True),
                                                        _f(rng, sv, dt, True)],
                            grad=_grad(dt, 1, 2)))
        out.append(Spec("mismatch", [np.asarray([True, False]), _f(rng, (3,), dt),
                                     _f(rng, (3,), dt)]))
        return out
    return gen


def slice_op(dt, rng):
    out = []
    for s, b, z in [((5,), [1], [3]), ((4, 3), [1, 0], [-1, 2]), ((2, 3, 4), [0, 1, 1], [2, 2, 3]),
                    ((4,), [4], [0]), ((), [], [])]:
        for it in (np.int32, np.int64):
            out.append(Spec(f"{list(s)}.{b}.{z}.{np.dtype(it).name}",
                            [_f(rng, s, dt, True), np.asarray(b, it), np.asarray(z, it)],
                            grad=_grad(dt, 0), grad_const=(1, 2)))
    out.append(Spec("too_far", [_f(rng, (4,), dt), _i32([2]), _i32([3])]))
    out.append(Spec("negative_begin", [_f(rng, (4,), dt), _i32([-1]), _i32([1])]))
    return out


def split(dt, rng):
    out = []
    for s, axis, n in [((6,), 0, 3), ((2, 4), 1, 2), ((2, 4), -1, 4), ((0, 2), 1, 2), ((3,), 0, 1)]:
        out.append(Spec(f"{list(s)}.axis{axis}.n{n}", [_i32(axis), _f(rng, s, dt, True)],
                        {"num_split": n}, grad=_grad(dt, 1), grad_const=(0,)))
    out.append(Spec("uneven", [_i32(0), _f(rng, (5,), dt)], {"num_split": 2}))
    return out


def split_v(dt, rng):
    out = []
    for s, sizes, axis in [((6,), [1, 2, 3], 0), ((2, 5), [2, -1], 1), ((4, 2), [0, 4], 0),
                           ((3,), [3], 0)]:
        for it in (np.int32, np.int64):
            out.append(Spec(f"{list(s)}.{sizes}.axis{axis}.{np.dtype(it).name}",
                            [_f(rng, s, dt, True), np.asarray(sizes, it), _i32(axis)],
                            {"num_split": len(sizes)}, grad=_grad(dt, 0), grad_const=(1, 2)))
    out.append(Spec("bad_sum", [_f(rng, (5,), dt), _i32([1, 2]), _i32(0)], {"num_split": 2}))
    return out


def squeeze(dt, rng):
    out = []
    for s, dims in [((1, 3, 1), []), ((1, 3, 1), [0]), ((1, 3, 1), [-1]), ((3,), []),
                    ((1,), []), ((1, 0, 1), [2])]:
        out.append(Spec(f"{list(s)}.{dims}", [_f(rng, s, dt, True)], {"squeeze_dims": dims},
                        grad=_grad(dt, 0)))
    out.append(Spec("not_one", [_f(rng, (2, 3), dt)], {"squeeze_dims": [0]}))
    return out


STRIDED = [
    ((10,), [2], [8], [2], {}), ((10,), [-1], [0], [-1], {}),
    ((10,), [0], [0], [1], {"end_mask": 1}),
    ((4, 5), [1, 0], [3, 5], [1, 2], {}), ((4, 5), [0, 1], [0, 0], [1, 1],
                                          {"begin_mask": 1, "end_mask": 3}),
    ((4, 5), [1], [2], [1], {"shrink_axis_mask": 1}),
    ((2, 3, 4), [0, 1], [0, 2], [1, 1], {"ellipsis_mask": 1}),
    ((2, 3), [0, 0], [1, 3], [1, 1], {"new_axis_mask": 1}),
    ((5,), [7], [9], [1], {}), ((5,), [-9], [2], [1], {}),
]


def strided_slice(dt, rng):
    out = []
    for s, b, e, st, masks in STRIDED:
        for it in (np.int32, np.int64):
            out.append(Spec(f"{list(s)}.{b}.{e}.{st}.{masks}.{np.dtype(it).name}",
                            [_f(rng, s, dt, True), np.asarray(b, it), np.asarray(e, it),
                             np.asarray(st, it)], dict(masks), grad=_grad(dt, 0),
                            grad_const=(1, 2, 3)))
    out.append(Spec("zero_stride", [_f(rng, (4,), dt), _i32([0]), _i32([2]), _i32([0])]))
    out.append(Spec("shrink_out_of_range", [_f(rng, (4,), dt), _i32([4]), _i32([5]), _i32([1])],
                    {"shrink_axis_mask": 1}))
    return out


def strided_slice_grad(dt, rng):
    out = []
    for s, b, e, st, masks in STRIDED[:6]:
        with tf.Graph().as_default():
            y = tf.raw_ops.StridedSlice(input=np.zeros(s, np.float32), begin=b, end=e, strides=st,
                                        **masks)
            dy_shape = y.shape.as_list()
        out.append(Spec(f"{list(s)}.{b}.{e}.{st}.{masks}",
                        [_i32(s), _i32(b), _i32(e), _i32(st), _f(rng, dy_shape, dt, True)],
                        dict(masks)))
    return out


def tile(dt, rng):
    out = []
    for s, m in [((3,), [2]), ((2, 3), [1, 2]), ((), []), ((2, 1), [0, 3]), ((1, 2, 1), [2, 1, 3])]:
        for it in (np.int32, np.int64):
            out.append(Spec(f"{list(s)}.{m}.{np.dtype(it).name}",
                            [_f(rng, s, dt, True), np.asarray(m, it)], grad=_grad(dt, 0),
                            grad_const=(1,)))
    out.append(Spec("rank_mismatch", [_f(rng, (2,), dt), _i32([1, 2])]))
    out.append(Spec("negative", [_f(rng, (2,), dt), _i32([-1])]))
    return out


def transpose(dt, rng):
    out = []
    for s, p in [((2, 3), [1, 0]), ((2, 3, 4), [2, 0, 1]), ((5,), [0]), ((), []),
                 ((0, 2, 3), [1, 2, 0]), ((33, 65), [1, 0])]:
        for it in (np.int32, np.int64):
            out.append(Spec(f"{list(s)}.{p}.{np.dtype(it).name}",
                            [_f(rng, s, dt, True), np.asarray(p, it)], grad=_grad(dt, 0),
                            grad_const=(1,)))
    out.append(Spec("not_permutation", [_f(rng, (2, 3), dt), _i32([0, 0])]))
    return out


def unique(counts):
    def gen(dt, rng):
        out = []
        for n in (0, 1, 9, 200):
            x = random_values(rng, (n,), dt, edges=False, low=-3, high=3)
            if dt.is_floating:
                x = np.round(x).astype(x.dtype)
            for ot in (tf.int32, tf.int64):
                out.append(Spec(f"n{n}.{ot.name}", [x], {"out_idx": ot}))
        out.append(Spec("matrix", [random_values(rng, (2, 2), dt)], {"out_idx": tf.int32}))
        return out
    return gen


def where(dt, rng):
    out = []
    for s in [(5,), (2, 3, 4), (), (0, 3), (40, 31)]:
        x = random_values(rng, s, dt, edges=False, low=-1, high=1) if dt != tf.bool else \
            rng.random(s) > 0.6
        if dt.is_floating:
            x = np.round(x).astype(x.dtype)
        out.append(Spec(f"{list(s)}", [np.asarray(x)]))
    return out


def dynamic_partition(dt, rng):
    out = []
    for s, parts, n in [((6,), [0, 2, 1, 0, 2, 2], 3), ((4, 2), [1, 1, 0, 1], 2),
                        ((0,), [], 2), ((3,), [0, 0, 0], 4)]:
        out.append(Spec(f"{list(s)}.{parts}.n{n}", [_f(rng, s, dt, True),
                                                     np.asarray(parts, np.int32)],
                        {"num_partitions": n}, grad=_grad(dt, 0)))
    out.append(Spec("out_of_range", [_f(rng, (2,), dt), _i32([0, 3])], {"num_partitions": 2}))
    return out


def dynamic_stitch(dt, rng):
    out = []
    for idx, shapes in [([[0, 2], [1, 3]], [(2,), (2,)]), ([[1], [0, 2]], [(1, 3), (2, 3)]),
                        ([[0, 1], [1]], [(2,), (1,)]), ([[]], [(0, 2)]), ([[2]], [(1,)])]:
        indices = [np.asarray(i, np.int32) for i in idx]
        data = [_f(rng, s, dt, True) for s in shapes]
        out.append(Spec(f"{idx}", [indices, data], grad=_grad(dt, *range(len(idx), 2 * len(idx)))))
    out.append(Spec("shape_mismatch", [[_i32([0, 1])], [_f(rng, (3,), dt)]]))
    return out


def unsorted_segment_sum(dt, rng):
    out = []
    for s, seg, n in [((5,), [0, 1, 0, 2, 1], 3), ((4, 2), [1, -1, 1, 0], 3), ((0,), [], 2),
                      ((3,), [0, 0, 0], 1), ((2, 3), [[0, 1, 1], [2, 2, 0]], 4)]:
        for it in (np.int32, np.int64):
            out.append(Spec(f"{list(s)}.{seg}.n{n}.{np.dtype(it).name}",
                            [_f(rng, s, dt, False), np.asarray(seg, it).reshape(np.shape(seg)),
                             _i32(n)], grad=_grad(dt, 0), grad_const=(2,)))
    out.append(Spec("out_of_range", [_f(rng, (2,), dt), _i32([0, 3]), _i32(2)]))
    return out


def unsorted_segment_reduction(dt, rng):
    """UnsortedSegmentMax, Min and Prod: unsorted_segment_sum's cases, ties
    (the gradient shared), zeros (the product's gradient without them), an
    empty segment (the reduction's identity)."""
    out = unsorted_segment_sum(dt, rng)
    tie = np.asarray([1, 3, 3, 0, 2, 0], dt.as_numpy_dtype)
    for it in (np.int32, np.int64):
        out.append(Spec(f"ties_and_zeros.{np.dtype(it).name}",
                        [tie, np.asarray([0, 0, 0, 1, 1, 3], it), _i32(5)],
                        grad=_grad(dt, 0), grad_const=(2,)))
    return out


def segment_reduction(dt, rng):
    """SegmentSum, Mean, Max, Min, Prod: sorted ids with an empty segment,
    rows of several dimensions, ties and zeros, an empty input; ids not
    increasing, negative, of the wrong length or rank."""
    out = []
    tie = np.asarray([1, 3, 3, 0, 2, 0], dt.as_numpy_dtype)
    for s, seg, values in [((5, 3), [0, 0, 1, 3, 3], None), ((4,), [0, 1, 1, 1], None),
                           ((6, 2, 2), [0, 0, 0, 1, 1, 2], None), ((0, 3), [], None),
                           ((6,), [0, 0, 0, 1, 1, 3], tie)]:
        for it in (np.int32, np.int64):
            x = _f(rng, s, dt, False) if values is None else values
            out.append(Spec(f"{list(s)}.{seg}.{np.dtype(it).name}", [x, np.asarray(seg, it)],
                            grad=_grad(dt, 0)))
    for label, s, seg in [("not_increasing", (3,), [1, 0, 2]), ("negative", (2,), [-1, 0]),
                          ("length", (3,), [0, 1]), ("rank", (2, 2), [[0, 0], [1, 1]])]:
        out.append(Spec(label, [_f(rng, s, dt), _i32(seg)]))
    return out


def sparse_segment(num_segments):
    """SparseSegmentSum, Mean and SqrtN (with num_segments: their
    WithNumSegments forms, with more segments than ids name): repeated
    indices, empty segments, no indices at all, int64 indices and ids, and
    their gradients; an index out of range, unsorted and negative ids (and
    an id past num_segments) fail as TensorFlow's."""
    def gen(dt, rng):
        out = []
        for s, idx, seg in [((4, 2), [0, 1, 3], [0, 0, 1]), ((5,), [4, 4, 0], [0, 1, 1]),
                            ((3, 2), [], []), ((3,), [2, 0], [0, 2]),
                            ((4, 2, 3), [3, 0, 3, 1], [0, 0, 2, 3])]:
            for it in (np.int32, np.int64):
                extra = [np.asarray((seg[-1] if seg else 0) + 2, it)] if num_segments else []
                out.append(Spec(f"{list(s)}.{idx}.{seg}.{np.dtype(it).name}",
                                [_f(rng, s, dt, False), np.asarray(idx, it),
                                 np.asarray(seg, it)] + extra, grad=_grad(dt, 0)))
        extra = [_i32(3)] if num_segments else []
        out.append(Spec("index_out_of_range", [_f(rng, (2,), dt), _i32([2]), _i32([0])] + extra))
        out.append(Spec("unsorted_segments",
                        [_f(rng, (3,), dt), _i32([0, 1]), _i32([1, 0])] + extra))
        out.append(Spec("negative_segment",
                        [_f(rng, (3,), dt), _i32([0, 1]), _i32([-1, 0])] + extra))
        if num_segments:
            out.append(Spec("past_num_segments",
                            [_f(rng, (3,), dt), _i32([0, 1]), _i32([0, 3]), _i32(3)]))
        return out
    return gen


def sparse_segment_grad(dt, rng):
    """SparseSegment*Grad and *GradV2: rows picked twice, segments in any
    order, untouched rows, an empty gradient; an index past output_dim0 and
    an id past the gradient's rows fail as TensorFlow's."""
    out = []
    for g, idx, seg, dim0 in [((3, 2), [0, 3, 3], [0, 0, 2], 5), ((3,), [3, 0, 1], [2, 0, 1], 4),
                              ((2, 2, 2), [1, 1], [1, 0], 2), ((0, 2), [], [], 3)]:
        for it in (np.int32, np.int64):
            out.append(Spec(f"{list(g)}.{idx}.{seg}.{dim0}.{np.dtype(it).name}",
                            [_f(rng, g, dt, False), np.asarray(idx, it), np.asarray(seg, it),
                             _i32(dim0)]))
    out.append(Spec("index_out_of_range", [_f(rng, (3, 2), dt), _i32([0, 7, 3]),
                                            _i32([0, 0, 2]), _i32(5)]))
    out.append(Spec("segment_out_of_range", [_f(rng, (3, 2), dt), _i32([0, 1, 3]),
                                              _i32([0, 0, 4]), _i32(5)]))
    return out


SPARSE_ENTRIES = {  # name: (dense shape, indices), some out of row-major order or repeated
    "ordered": ((3, 4), [[0, 1], [0, 3], [2, 0], [2, 2]]),
    "unordered": ((3, 4), [[2, 2], [0, 1], [2, 0], [1, 3]]),
    "repeated": ((2, 3), [[0, 1], [1, 2], [1, 2]]),
    "empty": ((2, 3), np.zeros((0, 2))),
    "rank3": ((2, 3, 2), [[0, 0, 1], [0, 2, 0], [1, 1, 1], [1, 2, 0]]),
}


def _sparse(rng, dt, name, index=None):
    shape, idx = SPARSE_ENTRIES[name]
    idx = np.asarray(idx, np.int64).reshape(-1, len(shape))
    return [(index or _i64)(idx), _f(rng, (len(idx),), dt), (index or _i64)(shape)]


def sparse_dense_matmul(dt, rng):
    """SparseTensorDenseMatMul with each adjoint, entries in and out of
    order and repeated (added), none at all, int32 indices; and its
    gradients (values and the dense matrix); an index past A's columns and
    inner dimensions that differ fail as TensorFlow's."""
    out = []
    for name in ("ordered", "unordered", "repeated", "empty"):
        for adj_a in (False, True):
            for adj_b in (False, True):
                a = _sparse(rng, dt, name)
                m, k = SPARSE_ENTRIES[name][0]
                k_a = m if adj_a else k
                b = _f(rng, (5, k_a) if adj_b else (k_a, 5), dt)
                out.append(Spec(f"{name}.adj{adj_a}{adj_b}", a + [b],
                                {"adjoint_a": adj_a, "adjoint_b": adj_b}, grad=_grad(dt, 1, 3)))
    out.append(Spec("int32_indices", _sparse(rng, dt, "unordered", _i32)[:2] +
                    [_i64([3, 4]), _f(rng, (4, 2), dt)]))
    out.append(Spec("k_out_of_range", [_i64([[0, 5]]), _f(rng, (1,), dt), _i64([3, 3]),
                                        _f(rng, (3, 2), dt)]))
    out.append(Spec("inner_mismatch", _sparse(rng, dt, "ordered") + [_f(rng, (3, 2), dt)]))
    return out


def sparse_reduce(op):
    """SparseReduceSum/Max and their *Sparse forms: over one axis, several
    (negative, repeated), none, all, kept dimensions, entries out of order
    and repeated, none at all; and SparseReduceSum's gradient; an axis past
    the rank and an index outside the shape fail."""
    def gen(dt, rng):
        out = []
        for name in ("ordered", "unordered", "repeated", "empty", "rank3"):
            rank = len(SPARSE_ENTRIES[name][0])
            for axes in ([1], [0], [-1, 0], [1, 1], [], list(range(rank))):
                for keep in (False, True):
                    out.append(Spec(f"{name}.{axes}.keep{keep}",
                                    _sparse(rng, dt, name) + [_i32(axes)], {"keep_dims": keep},
                                    grad=_grad(dt, 1) if op == "SparseReduceSum" else ()))
        out.append(Spec("axis_past_rank", _sparse(rng, dt, "ordered") + [_i32([2])]))
        out.append(Spec("index_outside", [_i64([[0, 4]]), _f(rng, (1,), dt), _i64([3, 4]),
                                           _i32([1])]))
        return out
    return gen


def sparse_add(dt, rng):
    """SparseAdd of ordered operands sharing some indices (their sums kept
    or dropped by thresh), one of them empty, unordered operands merged as
    TensorFlow merges them; its gradient; shapes that differ fail."""
    out = []
    a_idx, b_idx = _i64([[0, 1], [1, 0], [2, 3]]), _i64([[0, 1], [1, 2], [2, 3]])
    for thresh in (0, 1, 100):
        for label, (ai, bi) in [("shared", (a_idx, b_idx)), ("b_empty", (a_idx, b_idx[:0])),
                                ("unordered", (a_idx[::-1], b_idx))]:
            a = _f(rng, (len(ai),), dt)
            b = -a[: len(bi)] + np.asarray(0.5, dt.as_numpy_dtype) if label == "shared" else \
                _f(rng, (len(bi),), dt)
            out.append(Spec(f"{label}.thresh{thresh}",
                            [ai, a, _i64([3, 4]), bi, b.astype(dt.as_numpy_dtype), _i64([3, 4]),
                             np.asarray(thresh, dt.real_dtype.as_numpy_dtype)],
                            grad=_grad(dt, 1, 4)))
    out.append(Spec("shapes_differ", [a_idx, _f(rng, (3,), dt), _i64([3, 4]), b_idx,
                                       _f(rng, (3,), dt), _i64([3, 5]),
                                       np.asarray(0, dt.real_dtype.as_numpy_dtype)]))
    return out


def sparse_add_grad(dt, rng):
    """SparseAddGrad: a's and b's entries found in the sum's, one dropped
    from it, an empty operand."""
    a_idx, b_idx = _i64([[0, 1], [1, 0], [2, 3]]), _i64([[0, 1], [1, 2], [2, 3]])
    return [Spec("all", [_f(rng, (4,), dt), a_idx, b_idx, _i64([[0, 1], [1, 0], [1, 2], [2, 3]])]),
            Spec("dropped", [_f(rng, (3,), dt), a_idx, b_idx, _i64([[1, 0], [1, 2], [2, 3]])]),
            Spec("b_empty", [_f(rng, (3,), dt), a_idx, b_idx[:0], a_idx])]


def sparse_tensor_dense_add(dt, rng):
    """SparseTensorDenseAdd: entries added into the dense operand (repeats
    add up), int32 indices; its gradients; shapes that differ fail."""
    out = []
    for name in ("ordered", "repeated", "empty", "rank3"):
        for index in (_i32, _i64):
            sp = _sparse(rng, dt, name, index)
            out.append(Spec(f"{name}.{index.__name__}",
                            sp + [_f(rng, SPARSE_ENTRIES[name][0], dt)], grad=_grad(dt, 1, 3)))
    out.append(Spec("shapes_differ", _sparse(rng, dt, "ordered") + [_f(rng, (3, 5), dt)]))
    return out


def sparse_dense_cwise(dt, rng):
    """SparseDenseCwiseAdd/Mul/Div: the dense operand whole, broadcast along
    rows, columns and from a scalar; a dense operand that does not broadcast
    to the sparse shape fails."""
    out = []
    for name in ("ordered", "repeated", "rank3"):
        shape = SPARSE_ENTRIES[name][0]
        for label, dshape in [("same", shape), ("row", shape[-1:]), ("column", shape[:-1] + (1,)),
                              ("scalar", ())]:
            dense = _f(rng, dshape, dt)
            if dt.is_integer:
                dense = np.where(dense == 0, 1, dense).astype(dense.dtype)
            out.append(Spec(f"{name}.{label}", _sparse(rng, dt, name) + [dense]))
    out.append(Spec("not_broadcast", _sparse(rng, dt, "ordered") + [_f(rng, (2, 4), dt)]))
    return out


def sparse_softmax(dt, rng):
    """SparseSoftmax over each innermost row's entries (in and out of
    order, rank 3, none at all); its gradient; a vector fails."""
    out = [Spec(name, _sparse(rng, dt, name), grad=_grad(dt, 1), tol=4.0)
           for name in ("ordered", "unordered", "rank3", "empty")]
    out.append(Spec("vector", [_i64([[0], [2]]), _f(rng, (2,), dt), _i64([3])]))
    return out


def sparse_reorder(dt, rng):
    """SparseReorder: entries out of order, repeated (kept in order), rank
    3, none; its gradient; an index outside the shape fails."""
    out = [Spec(name, _sparse(rng, dt, name), grad=_grad(dt, 1))
           for name in ("ordered", "unordered", "repeated", "rank3", "empty")]
    out.append(Spec("index_outside", [_i64([[0, 4]]), _f(rng, (1,), dt), _i64([3, 4])]))
    return out


def sparse_slice(dt, rng):
    """SparseSlice: boxes inside, across and past the shape, a negative
    start, an empty size, unordered entries (their order kept), rank 3 and
    no entries; its gradient; start or size of the wrong length and a
    negative size fail."""
    out = []
    for name in ("ordered", "unordered", "rank3", "empty"):
        sp = _sparse(rng, dt, name)
        rank = len(SPARSE_ENTRIES[name][0])
        for start, size in [((1,) * rank, (2,) * rank), ((0,) * rank, (9,) * rank),
                            ((5,) + (0,) * (rank - 1), (2,) * rank),
                            ((-1,) * rank, (3,) * rank), ((0,) * rank, (0,) * rank)]:
            out.append(Spec(f"{name}.{start}.{size}", sp + [_i64(start), _i64(size)],
                            grad=_grad(dt, 1)))
    sp = _sparse(rng, dt, "ordered")
    out.append(Spec("start_length", sp + [_i64([1]), _i64([2, 2])]))
    out.append(Spec("size_length", sp + [_i64([1, 1]), _i64([2, 2, 2])]))
    out.append(Spec("negative_size", sp + [_i64([0, 0]), _i64([-1, 2])]))
    return out


def sparse_slice_grad(dt, rng):
    """SparseSliceGrad over the slices TensorFlow computes; a gradient
    whose entry is not in the input fails."""
    out = []
    for name in ("ordered", "unordered", "rank3"):
        shape, idx = SPARSE_ENTRIES[name]
        idx = _i64(idx).reshape(-1, len(shape))
        start = _i64((1,) * len(shape))
        kept = [i for i in idx if all(start <= i) and all(i < start + 2)]
        out_idx = _i64(kept).reshape(-1, len(shape)) - start
        out.append(Spec(name, [_f(rng, (len(out_idx),), dt), idx, start, out_idx]))
    out.append(Spec("not_in_input", [_f(rng, (1,), dt), _i64([[0, 1]]), _i64([0, 0]),
                                      _i64([[2, 2]])]))
    return out


def sparse_split(dt, rng):
    """SparseSplit along each dimension (a negative one too) into parts of
    unequal length, unordered entries, none; a dimension outside the rank
    and more parts than the dimension has fail."""
    out = []
    for name in ("ordered", "unordered", "rank3", "empty"):
        rank = len(SPARSE_ENTRIES[name][0])
        for dim in range(-1, rank):
            for num in (1, 2):
                out.append(Spec(f"{name}.dim{dim}.num{num}",
                                [_i64(dim)] + _sparse(rng, dt, name), {"num_split": num}))
    out.append(Spec("three_of_four", [_i64(1)] + _sparse(rng, dt, "ordered"), {"num_split": 3}))
    out.append(Spec("dim_outside", [_i64(2)] + _sparse(rng, dt, "ordered"), {"num_split": 2}))
    out.append(Spec("too_many", [_i64(0)] + _sparse(rng, dt, "ordered"), {"num_split": 4}))
    return out


def sparse_concat(dt, rng):
    """SparseConcat of two and three operands along each dimension (a
    negative one too), unordered operands, an empty one; a dimension
    outside the rank, shapes that differ off the concatenated dimension and
    ranks that differ fail."""
    out = []
    for names in [("ordered", "unordered"), ("ordered", "empty", "ordered")]:
        for dim in (0, 1, -1):
            parts = []
            for name in names:
                shape, idx = SPARSE_ENTRIES[name]
                idx = np.asarray(idx, np.int64).reshape(-1, 2)
                parts.append([_i64(idx), _f(rng, (len(idx),), dt), _i64((3, 4))])
            out.append(Spec(f"{'+'.join(names)}.dim{dim}",
                            [[p[k] for p in parts] for k in range(3)], {"concat_dim": dim}))
    a, b = _sparse(rng, dt, "ordered"), _sparse(rng, dt, "repeated")
    out.append(Spec("dim_outside", [[a[k], a[k]] for k in range(3)], {"concat_dim": 2}))
    out.append(Spec("shapes_differ", [[a[k], b[k]] for k in range(3)], {"concat_dim": 0}))
    c = _sparse(rng, dt, "rank3")
    out.append(Spec("ranks_differ", [[a[k], c[k]] for k in range(3)], {"concat_dim": 0}))
    return out


def sparse_sparse_max_min(dt, rng):
    """SparseSparseMaximum/Minimum of operands sharing some indices, one
    empty, one unordered (merged as TensorFlow merges it); shapes that
    differ fail."""
    a_idx, b_idx = _i64([[0, 1], [1, 0], [1, 3], [2, 2]]), _i64([[0, 1], [0, 2], [2, 2]])
    out = []
    for label, (ai, bi) in [("shared", (a_idx, b_idx)), ("b_empty", (a_idx, b_idx[:0])),
                            ("a_empty", (a_idx[:0], b_idx)), ("unordered", (a_idx[::-1], b_idx))]:
        out.append(Spec(label, [ai, _f(rng, (len(ai),), dt), _i64([3, 4]),
                                bi, _f(rng, (len(bi),), dt), _i64([3, 4])]))
    out.append(Spec("shapes_differ", [a_idx, _f(rng, (4,), dt), _i64([3, 4]),
                                       b_idx, _f(rng, (3,), dt), _i64([3, 5])]))
    return out


def serialize_sparse(many):
    """SerializeSparse and SerializeManySparse of each entry layout (string
    values too), byte for byte; SerializeManySparse of rank 1 or of
    unordered entries fails."""
    def gen(dt, rng):
        out = []
        for name in ("ordered", "repeated" if not many else "rank3", "empty"):
            out.append(Spec(name, _sparse(rng, dt, name)))
        if many:
            out.append(Spec("rank1", [_i64([[0], [2]]), _f(rng, (2,), dt), _i64([3])]))
            out.append(Spec("unordered", _sparse(rng, dt, "unordered")))
        return out
    return gen


def _serialized_sparse(rng, dt, names):
    """The [N, 3] rows TensorFlow's SerializeManySparse writes for the
    named entry layouts, one row each."""
    rows = []
    with tf.Graph().as_default(), tf.compat.v1.Session() as sess:
        for name in names:
            ind, val, shape = _sparse(rng, dt, name)
            rows.append(sess.run(tf.raw_ops.SerializeSparse(
                sparse_indices=ind, sparse_values=val, sparse_shape=shape)))
    return np.array(rows, dtype=object)


def deserialize_sparse(many):
    """DeserializeManySparse (rows [N, 3]) and DeserializeSparse (rows of
    any leading shape, one row alone): rows of different dense shapes
    (the largest kept), no entries; rows of different ranks, the wrong
    dtype and bytes that are no TensorProto fail."""
    def gen(dt, rng):
        if dt not in (None, tf.float32):
            return []
        f32 = tf.float32
        out = [Spec("two", [_serialized_sparse(rng, f32, ["ordered", "repeated"])],
                    {"dtype": f32}),
               Spec("with_empty", [_serialized_sparse(rng, f32, ["empty", "ordered", "empty"])],
                    {"dtype": f32})]
        if not many:
            rows = _serialized_sparse(rng, f32, ["ordered", "repeated", "empty", "ordered"])
            out.append(Spec("grid", [rows.reshape(2, 2, 3)], {"dtype": f32}))
            out.append(Spec("one", [rows[0]], {"dtype": f32}))
        out.append(Spec("ranks_differ", [_serialized_sparse(rng, f32, ["ordered", "rank3"])],
                        {"dtype": f32}))
        out.append(Spec("wrong_dtype", [_serialized_sparse(rng, f32, ["ordered"])],
                        {"dtype": tf.float64}))
        out.append(Spec("not_a_proto", [np.array([[b"\xff", b"", b""]], dtype=object)],
                        {"dtype": f32}))
        return out
    return gen


def string_format(dt, rng):
    """StringFormat of every dtype at every rank (none, one, three), with
    and without elision (summarize 1, 2, 3 and all), empty tensors,
    floats that need 6, 9 or 17 digits, NaN, infinities and -0, strings
    to escape, other placeholders, none at all; a count of placeholders
    other than of inputs fails."""
    out = []
    values = [np.float32(1 / 3), np.arange(24, dtype=np.float32).reshape(2, 3, 4) / 3,
              np.array([1e10, 1e-5, 123456789.0, -0.0, np.nan, -np.inf, 1.5], np.float32),
              np.array([1e10, 1 / 3, 0.1, 2.5], np.float64), np.arange(10, dtype=np.int64),
              np.array([-3, 7], np.int8), np.array([200], np.uint8), np.array([True, False]),
              np.array([b'a"b', "\u00e9\n".encode(), b"\x01"], dtype=object),
              np.zeros((0, 3), np.float32), np.zeros((2, 0), np.int32),
              np.array([1.5, -2.25], np.float16), np.array([1 + 2j], np.complex64),
              np.arange(60, dtype=np.int32).reshape(3, 4, 5)]
    for i, v in enumerate(values):
        for summarize in (1, 2, 3, -1):
            out.append(Spec(f"{i}.{v.dtype}{list(np.shape(v))}.summarize{summarize}", [[v]],
                            {"template": "x = {} .", "placeholder": "{}",
                             "summarize": summarize}))
    out.append(Spec("two", [[values[4], values[7]]],
                    {"template": "%s and %s", "placeholder": "%s"}))
    out.append(Spec("no_inputs", [[]], {"template": "nothing {}", "placeholder": "%s"}))
    out.append(Spec("too_few", [[values[4]]], {"template": "{} {}", "placeholder": "{}"}))
    out.append(Spec("too_many", [[values[4], values[4]]],
                    {"template": "{}", "placeholder": "{}"}))
    return out


def string_ngrams(dt, rng):
    """StringNGrams with one and several widths, padding of fixed and
    growing width, no padding, short rows kept or not, empty rows, no data,
    int32 and int64 splits; widths not positive, splits that do not start
    at 0, go back, pass the data or stop short, and preserving short rows
    with a growing pad fail."""
    data = np.array([b"a", b"b", b"c", b"d", b"e", b"f"], dtype=object)
    base = {"separator": " ", "left_pad": "<", "right_pad": ">", "pad_width": 0,
            "preserve_short_sequences": False}
    out = []
    for index in (np.int64, np.int32):
        splits = np.array([0, 3, 3, 4, 6], index)
        for widths in ([1], [2], [3], [1, 3], [5]):
            for pad in (0, 1, 2, -1):
                for short in (False, True):
                    attrs = {**base, "ngram_widths": widths, "pad_width": pad,
                             "preserve_short_sequences": short}
                    out.append(Spec(f"{index.__name__}.w{widths}.pad{pad}.short{short}",
                                    [data, splits], attrs))
        out.append(Spec(f"{index.__name__}.no_data", [data[:0], np.array([0, 0], index)],
                        {**base, "ngram_widths": [2]}))
        out.append(Spec(f"{index.__name__}.no_splits", [data, np.array([], index)],
                        {**base, "ngram_widths": [2]}))
    good = np.array([0, 3, 6], np.int64)
    out.append(Spec("sep", [data, good], {**base, "ngram_widths": [2, 3], "separator": "--",
                                          "left_pad": "", "right_pad": "", "pad_width": 1}))
    out.append(Spec("width0", [data, good], {**base, "ngram_widths": [0]}))
    for label, splits in [("first", [1, 6]), ("back", [0, 4, 3, 6]), ("past", [0, 7]),
                          ("short", [0, 5])]:
        out.append(Spec(f"splits_{label}", [data, np.array(splits, np.int64)],
                        {**base, "ngram_widths": [2]}))
    out.append(Spec("short_growing", [data, good], {**base, "ngram_widths": [5],
                                                     "pad_width": -1,
                                                     "preserve_short_sequences": True}))
    return out


def _set_values(rng, shape, dt):
    """Set elements: few distinct values, so that sets overlap and repeat."""
    if dt == tf.string:
        return random_values(rng, shape, dt, edges=False)
    return random_values(rng, shape, dt, edges=False, low=0, high=5)


def _sparse_set(rng, dt, shape, groups, index_order=None):
    """A SparseTensor set operand of dense `shape` with `groups` (a list of
    (leading coordinates, number of entries)), its entries in that order or
    in `index_order`."""
    idx = [list(g) + [j] for g, n in groups for j in range(n)]
    if index_order is not None:
        idx = [idx[i] for i in index_order]
    idx = np.asarray(idx, np.int64).reshape(-1, len(shape))
    return [idx, _set_values(rng, (len(idx),), dt), _i64(shape)]


SET_OPERATIONS = ("a-b", "b-a", "intersection", "union")


def set_size(dt, rng):
    """SetSize: groups with repeated values, missing groups, rank 3, none at
    all, entries out of order unvalidated (runs of a group counted apart,
    as TensorFlow's); out of order, repeated and out-of-bounds indices and
    a rank-1 set fail."""
    out = [
        Spec("ordered", _sparse_set(rng, dt, (3, 4), [((0,), 4), ((2,), 2)])),
        Spec("rank3", _sparse_set(rng, dt, (2, 2, 5), [((0, 1), 5), ((1, 0), 1), ((1, 1), 3)])),
        Spec("empty", _sparse_set(rng, dt, (2, 3), [])),
        Spec("unordered_unvalidated", _sparse_set(rng, dt, (3, 3), [((0,), 2), ((2,), 3)],
                                                  [2, 0, 3, 1, 4]),
             {"validate_indices": False}),
        Spec("unordered", _sparse_set(rng, dt, (3, 3), [((0,), 2), ((2,), 3)], [2, 0, 3, 1, 4])),
        Spec("repeated", [_i64([[0, 1], [0, 1]]), _set_values(rng, (2,), dt), _i64([2, 3])]),
        Spec("out_of_bounds", [_i64([[0, 1], [0, 3]]), _set_values(rng, (2,), dt), _i64([2, 3])]),
        Spec("out_of_bounds_unvalidated", [_i64([[0, 1], [0, 3]]), _set_values(rng, (2,), dt),
                                           _i64([2, 3])], {"validate_indices": False}),
        Spec("rank1", [_i64([[0], [1]]), _set_values(rng, (2,), dt), _i64([3])]),
    ]
    return out


def dense_to_dense_set_operation(dt, rng):
    """DenseToDenseSetOperation: each operation on rows of different
    lengths, rank 3, an empty row and no rows; the operation's name in
    capitals; a rank-1 set, leading dimensions that differ and an unknown
    operation fail."""
    out = []
    for op in SET_OPERATIONS:
        for a_shape, b_shape in [((3, 4), (3, 3)), ((2, 2, 3), (2, 2, 5)), ((2, 0), (2, 3)),
                                 ((0, 3), (0, 2))]:
            out.append(Spec(f"{op}.{list(a_shape)}.{list(b_shape)}",
                            [_set_values(rng, a_shape, dt), _set_values(rng, b_shape, dt)],
                            {"set_operation": op}))
    out.append(Spec("capitals", [_set_values(rng, (2, 3), dt), _set_values(rng, (2, 3), dt)],
                    {"set_operation": "UNION"}))
    out.append(Spec("rank1", [_set_values(rng, (3,), dt), _set_values(rng, (3,), dt)],
                    {"set_operation": "union"}))
    out.append(Spec("groups_differ", [_set_values(rng, (2, 3), dt), _set_values(rng, (3, 3), dt)],
                    {"set_operation": "union"}))
    out.append(Spec("unknown_operation", [_set_values(rng, (2, 3), dt),
                                          _set_values(rng, (2, 3), dt)],
                    {"set_operation": "xor"}))
    return out


def dense_to_sparse_set_operation(dt, rng):
    """DenseToSparseSetOperation: each operation with the sparse operand
    missing groups, rank 3, no entries; entries out of order unvalidated
    (TensorFlow's walk skips what it passed); out-of-order and
    out-of-bounds entries and leading dimensions that differ fail."""
    out = []
    for op in SET_OPERATIONS:
        out.append(Spec(f"{op}.missing_groups", [_set_values(rng, (4, 3), dt)] + _sparse_set(
            rng, dt, (4, 5), [((0,), 2), ((2,), 5), ((3,), 1)]), {"set_operation": op}))
        out.append(Spec(f"{op}.rank3", [_set_values(rng, (2, 2, 2), dt)] + _sparse_set(
            rng, dt, (2, 2, 3), [((0, 1), 3), ((1, 0), 2)]), {"set_operation": op}))
        out.append(Spec(f"{op}.no_entries", [_set_values(rng, (2, 3), dt)] + _sparse_set(
            rng, dt, (2, 3), []), {"set_operation": op}))
    unordered = _sparse_set(rng, dt, (3, 3), [((0,), 2), ((2,), 3)], [2, 0, 3, 1, 4])
    out.append(Spec("unordered_unvalidated", [_set_values(rng, (3, 2), dt)] + unordered,
                    {"set_operation": "union", "validate_indices": False}))
    out.append(Spec("unordered", [_set_values(rng, (3, 2), dt)] + unordered,
                    {"set_operation": "union"}))
    out.append(Spec("out_of_bounds", [_set_values(rng, (2, 2), dt), _i64([[0, 3]]),
                                      _set_values(rng, (1,), dt), _i64([2, 3])],
                    {"set_operation": "union"}))
    out.append(Spec("groups_differ", [_set_values(rng, (3, 2), dt)] + _sparse_set(
        rng, dt, (2, 3), [((0,), 1)]), {"set_operation": "union"}))
    return out


def sparse_to_sparse_set_operation(dt, rng):
    """SparseToSparseSetOperation: each operation on groups both, one or
    neither operand has, rank 3, no entries; an operand out of order
    (unvalidated: TensorFlow's merge of runs) and leading dimensions that
    differ."""
    out = []
    for op in SET_OPERATIONS:
        a = _sparse_set(rng, dt, (4, 4), [((0,), 2), ((1,), 4), ((3,), 1)])
        b = _sparse_set(rng, dt, (4, 3), [((1,), 3), ((2,), 2), ((3,), 3)])
        out.append(Spec(f"{op}.groups", a + b, {"set_operation": op}))
        a = _sparse_set(rng, dt, (2, 2, 3), [((0, 0), 3), ((1, 1), 1)])
        b = _sparse_set(rng, dt, (2, 2, 2), [((0, 1), 2), ((1, 1), 2)])
        out.append(Spec(f"{op}.rank3", a + b, {"set_operation": op}))
        out.append(Spec(f"{op}.a_empty", _sparse_set(rng, dt, (2, 3), []) + _sparse_set(
            rng, dt, (2, 3), [((1,), 2)]), {"set_operation": op}))
    unordered = _sparse_set(rng, dt, (3, 3), [((0,), 2), ((2,), 3)], [2, 0, 3, 1, 4])
    ordered = _sparse_set(rng, dt, (3, 3), [((0,), 1), ((1,), 2), ((2,), 2)])
    out.append(Spec("unordered_unvalidated", unordered + ordered,
                    {"set_operation": "intersection", "validate_indices": False}))
    out.append(Spec("unordered", unordered + ordered, {"set_operation": "intersection"}))
    out.append(Spec("groups_differ", ordered + _sparse_set(rng, dt, (2, 3), [((0,), 1)]),
                    {"set_operation": "union"}))
    return out


def cross(dt, rng):
    """Cross of vectors, batches of them and none; its gradients; shapes
    that differ and an innermost dimension other than 3 fail."""
    out = [Spec(f"{list(shape)}", [_f(rng, shape, dt, True), _f(rng, shape, dt, True)],
                grad=_grad(dt, 0, 1)) for shape in [(3,), (4, 3), (2, 2, 3), (0, 3)]]
    out.append(Spec("shapes_differ", [_f(rng, (2, 3), dt), _f(rng, (3, 3), dt)]))
    out.append(Spec("not_3", [_f(rng, (2, 4), dt), _f(rng, (2, 4), dt)]))
    out.append(Spec("scalar", [_f(rng, (), dt), _f(rng, (), dt)]))
    return out


def ctc_greedy_decoder(dt, rng):
    """CTCGreedyDecoder with repeats merged or not, the blank first, last or
    inside, sequences of every length up to the inputs' (none at all too),
    tied maxima (the first wins); a sequence longer than the inputs, a
    length per batch entry missing, inputs not of rank 3 and a blank index
    outside the classes fail."""
    out = []
    # Few classes over many steps: repeats and blanks happen.
    logits = _f(rng, (6, 3, 3), dt)
    lengths = _i32([6, 2, 0])
    for merge in (False, True):
        for blank in (-1, 0, 1):
            out.append(Spec(f"merge{merge}.blank{blank}", [logits, lengths],
                            {"merge_repeated": merge, "blank_index": blank}))
    ties = np.zeros((3, 2, 4), dt.as_numpy_dtype)
    ties[:, 1, 2:] = 1
    out.append(Spec("ties", [ties, _i32([3, 3])], {"merge_repeated": True}))
    out.append(Spec("too_long", [logits, _i32([7, 1, 1])]))
    out.append(Spec("lengths_missing", [logits, _i32([6, 2])]))
    out.append(Spec("rank2", [_f(rng, (6, 3), dt), lengths]))
    out.append(Spec("blank_outside", [logits, lengths], {"blank_index": 3}))
    return out


def ctc_beam_search_decoder(dt, rng):
    """CTCBeamSearchDecoder: beams of 1 to 64 prefixes, the best 1 to 4
    paths, repeats merged or not, sequences of every length up to the
    inputs' (none at all, whose only path is the empty one), one class
    besides the blank and many, logits all equal (prefixes of equal
    probability: which stay in the beam is TensorFlow's heap order) and
    peaked ones. More paths than the beam holds or than it found, a sequence
    longer than the inputs, a length per batch entry missing, inputs not of
    rank 3 and empty inputs fail."""
    out = []
    logits = _f(rng, (6, 3, 4), dt)
    lengths = _i32([6, 3, 1])
    for beam, paths in ((1, 1), (2, 2), (3, 1), (5, 3), (64, 4)):
        for merge in (False, True):
            out.append(Spec(f"beam{beam}.paths{paths}.merge{merge}", [logits, lengths],
                            {"beam_width": beam, "top_paths": paths, "merge_repeated": merge}))
    peaked = (4 * _f(rng, (8, 2, 6), dt)).astype(dt.as_numpy_dtype)
    out.append(Spec("peaked", [peaked, _i32([8, 5])], {"beam_width": 10, "top_paths": 3}))
    out.append(Spec("two_classes", [_f(rng, (5, 2, 2), dt), _i32([5, 4])],
                    {"beam_width": 4, "top_paths": 2}))
    ties = np.zeros((4, 2, 3), dt.as_numpy_dtype)
    for beam, paths in ((2, 2), (3, 3), (7, 5)):
        out.append(Spec(f"ties.beam{beam}", [ties, _i32([4, 2])],
                        {"beam_width": beam, "top_paths": paths}))
    wide_ties = np.zeros((6, 1, 5), dt.as_numpy_dtype)
    wide_ties[::2, 0, 1] = 1
    for beam, paths in ((20, 9), (50, 20)):
        out.append(Spec(f"wide_ties.beam{beam}", [wide_ties, _i32([6])],
                        {"beam_width": beam, "top_paths": paths, "merge_repeated": False}))
    out.append(Spec("length_0", [logits, _i32([0, 2, 0])], {"beam_width": 3, "top_paths": 1}))
    out.append(Spec("length_0_two_paths", [logits, _i32([0, 2, 0])],
                    {"beam_width": 3, "top_paths": 2}))
    out.append(Spec("paths_over_beam", [logits, lengths], {"beam_width": 2, "top_paths": 3}))
    out.append(Spec("too_long", [logits, _i32([7, 1, 1])], {"beam_width": 2}))
    out.append(Spec("lengths_missing", [logits, _i32([6, 2])], {"beam_width": 2}))
    out.append(Spec("rank2", [_f(rng, (6, 3), dt), lengths], {"beam_width": 2}))
    out.append(Spec("empty", [_f(rng, (0, 3, 4), dt), _i32([0, 0, 0])], {"beam_width": 2}))
    return out

def in_top_k(dt, rng):
    out = []
    preds = random_values(rng, (4, 5), tf.float32, edges=False)
    preds[1, :] = 1.0  # ties
    for k in (1, 2, 5, 0):
        for it in (np.int32, np.int64):
            out.append(Spec(f"k{k}.{np.dtype(it).name}", [preds, np.asarray([0, 3, 4, 1], it),
                                                           np.asarray(k, it)]))
    out.append(Spec("target_out_of_range", [preds, _i32([0, 5, 1, 1]), _i32(1)]))
    return out


def dense_bincount(dt, rng):
    out = []
    for shape in [(10,), (3, 4), (0,)]:
        x = random_values(rng, shape, tf.int32, edges=False, low=0, high=6).astype(np.int32)
        for binary in (False, True):
            no_weights = np.zeros(0, dt.as_numpy_dtype)
            out.append(Spec(f"{list(shape)}.binary{binary}", [x, _i32(5), no_weights],
                            {"binary_output": binary}))
            out.append(Spec(f"{list(shape)}.weights.binary{binary}",
                            [x, _i32(7), _f(rng, shape, dt)], {"binary_output": binary}))
    out.append(Spec("negative", [_i32([1, -1]), _i32(3), np.zeros(0, dt.as_numpy_dtype)]))
    return out


def sparse_to_dense(dt, rng):
    out = []
    for idx, shape, n in [([[0, 1], [2, 0]], [3, 2], 2), ([1, 3], [5], 2), ([[0, 0]], [1, 1], 1),
                          (np.zeros((0, 2), int), [2, 2], 0)]:
        for it in (np.int32, np.int64):
            out.append(Spec(f"{np.asarray(idx).tolist()}.{shape}.{np.dtype(it).name}",
                            [np.asarray(idx, it), np.asarray(shape, it), _f(rng, (n,), dt, True),
                             _f(rng, (), dt, True)], grad=_grad(dt, 2, 3)))
    out.append(Spec("out_of_range", [_i32([[3, 0]]), _i32([3, 2]), _f(rng, (1,), dt),
                                     _f(rng, (), dt)]))
    out.append(Spec("unsorted", [_i32([[2, 0], [0, 1]]), _i32([3, 2]), _f(rng, (2,), dt),
                                 _f(rng, (), dt)]))
    return out


def sparse_reshape(dt, rng):
    idx = np.asarray([[0, 0], [0, 3], [1, 2], [2, 1]], np.int64)
    out = [Spec(f"{ns}", [idx, _i64([3, 4]), _i64(ns)])
           for ns in ([4, 3], [12], [2, -1, 2], [3, 4])]
    out.append(Spec("wrong_size", [idx, _i64([3, 4]), _i64([5, 2])]))
    return out


def sparse_fill_empty_rows(dt, rng):
    out = []
    for idx, shape in [([[0, 1], [2, 0]], [4, 2]), ([[1, 0]], [2, 3]),
                       (np.zeros((0, 2), int), [3, 1]), ([[0, 0], [0, 1]], [1, 2])]:
        idx = np.asarray(idx, np.int64).reshape(-1, 2)
        out.append(Spec(f"{idx.tolist()}.{shape}", [idx, _f(rng, (len(idx),), dt, True),
                                                     _i64(shape), _f(rng, (), dt, True)],
                        grad=_grad(dt, 1, 3)))
    out.append(Spec("out_of_range", [_i64([[5, 0]]), _f(rng, (1,), dt), _i64([2, 2]),
                                     _f(rng, (), dt)]))
    return out


def placeholder_with_default(dt, rng):
    return [Spec(f"{list(s)}", [_f(rng, s, dt, True)], {"shape": s}) for s in [(), (3,), (2, 0)]]


# ---------------------------------------------------------------- nn

def conv2d(dt, rng):
    out = []
    for xs, fs, strides, padding, dil in [
        ((1, 5, 5, 2), (3, 3, 2, 4), (1, 1, 1, 1), "SAME", (1, 1, 1, 1)),
        ((2, 7, 6, 3), (3, 2, 3, 2), (1, 2, 2, 1), "VALID", (1, 1, 1, 1)),
        ((2, 8, 8, 1), (3, 3, 1, 2), (1, 2, 1, 1), "SAME", (1, 1, 1, 1)),
        ((1, 9, 9, 2), (3, 3, 2, 1), (1, 1, 1, 1), "VALID", (1, 2, 2, 1)),
        ((1, 4, 4, 2), (1, 1, 2, 3), (1, 1, 1, 1), "SAME", (1, 1, 1, 1)),
    ]:
        out.append(Spec(f"{xs}.{fs}.{strides}.{padding}.{dil}",
                        [_f(rng, xs, dt), _f(rng, fs, dt)],
                        {"strides": list(strides), "padding": padding, "dilations": list(dil)},
                        grad=_grad(dt, 0, 1), tol=20.0))
    # Grouped: the filter's depth a divisor of the input's (ConvNeXt's
    # depthwise and RegNet's group convolutions as tf_keras builds them).
    # TensorFlow's CPU kernels compute these forward but refuse their
    # gradients (XLA computes them): applications_interop_test checks
    # minigraph's against XLA's.
    for xs, fs, strides, padding, dil in [
        ((1, 5, 5, 4), (3, 3, 2, 6), (1, 1, 1, 1), "SAME", (1, 1, 1, 1)),
        ((2, 7, 6, 6), (3, 2, 1, 12), (1, 2, 2, 1), "VALID", (1, 1, 1, 1)),
        ((1, 9, 9, 8), (3, 3, 2, 4), (1, 1, 1, 1), "SAME", (1, 2, 2, 1)),
        ((1, 4, 4, 6), (1, 1, 3, 4), (1, 1, 1, 1), "SAME", (1, 1, 1, 1)),
    ]:
        out.append(Spec(f"grouped.{xs}.{fs}.{strides}.{padding}.{dil}",
                        [_f(rng, xs, dt), _f(rng, fs, dt)],
                        {"strides": list(strides), "padding": padding, "dilations": list(dil)},
                        tol=20.0))
    out.append(Spec("channel_mismatch", [_f(rng, (1, 4, 4, 2), dt), _f(rng, (3, 3, 3, 1), dt)],
                    {"strides": [1, 1, 1, 1], "padding": "SAME"}))
    out.append(Spec("groups_out_depth", [_f(rng, (1, 4, 4, 4), dt), _f(rng, (3, 3, 2, 3), dt)],
                    {"strides": [1, 1, 1, 1], "padding": "SAME"}))
    return out


def conv2d_backprop(which):
    def gen(dt, rng):
        out = []
        for xs, fs, strides, padding in [((1, 5, 5, 2), (3, 3, 2, 4), (1, 1, 1, 1), "SAME"),
                                         ((2, 7, 6, 3), (3, 2, 3, 2), (1, 2, 2, 1), "VALID"),
                                         ((2, 8, 8, 1), (3, 3, 1, 2), (1, 2, 1, 1), "SAME")]:
            with tf.Graph().as_default():
                y = tf.raw_ops.Conv2D(input=np.zeros(xs, np.float32),
                                      filter=np.zeros(fs, np.float32), strides=list(strides),
                                      padding=padding)
                ys = y.shape.as_list()
            dy = _f(rng, ys, dt)
            if which == "input":
                inputs = [_i32(xs), _f(rng, fs, dt), dy]
                grads = dict(grad=_grad(dt, 1, 2), grad_const=(0,))
            else:
                inputs = [_f(rng, xs, dt), _i32(fs), dy]
                grads = dict(grad=_grad(dt, 0, 2), grad_const=(1,))
            out.append(Spec(f"{xs}.{fs}.{strides}.{padding}", inputs,
                            {"strides": list(strides), "padding": padding}, tol=20.0, **grads))
        return out
    return gen


CONV3D_CASES = [
    # input [n, planes, rows, cols, depth], filter [planes, rows, cols,
    # depth, out_depth], strides, padding
    ((1, 4, 5, 5, 2), (3, 3, 3, 2, 4), (1, 1, 1, 1, 1), "SAME"),
    ((2, 5, 6, 7, 3), (2, 3, 2, 3, 2), (1, 2, 1, 2, 1), "VALID"),
    ((2, 6, 5, 4, 1), (3, 2, 3, 1, 3), (1, 2, 2, 1, 1), "SAME"),
    ((1, 3, 4, 4, 3), (1, 1, 1, 3, 5), (1, 1, 1, 1, 1), "SAME"),
    ((1, 7, 3, 3, 2), (3, 1, 1, 2, 2), (1, 3, 1, 1, 1), "VALID"),
    ((0, 4, 4, 4, 2), (2, 2, 2, 2, 1), (1, 1, 1, 1, 1), "SAME"),
]


def conv3d(dt, rng):
    """Conv3D: both paddings, strides per dimension, a 1x1x1 filter, an
    empty batch, a filter deeper than the input (VALID: empty output); bad
    depths, ranks, strides, dilations (TensorFlow's CPU kernel takes none)
    and format."""
    out = []
    for xs, fs, strides, padding in CONV3D_CASES:
        out.append(Spec(f"{xs}.{fs}.{strides}.{padding}", [_f(rng, xs, dt), _f(rng, fs, dt)],
                        {"strides": list(strides), "padding": padding},
                        grad=_grad(dt, 0, 1), tol=20.0))
    x, f = _f(rng, (1, 4, 4, 4, 2), dt), _f(rng, (2, 2, 2, 2, 3), dt)
    same = {"strides": [1, 1, 1, 1, 1], "padding": "SAME"}
    out += [
        Spec("filter_deeper", [x, _f(rng, (5, 2, 2, 2, 3), dt)],
             {"strides": [1, 1, 1, 1, 1], "padding": "VALID"}),
        Spec("depth_not_divisible", [x, _f(rng, (2, 2, 2, 3, 3), dt)], same),
        Spec("grouped", [_f(rng, (1, 4, 4, 4, 4), dt), f], same),
        Spec("rank4", [x[0], f], same),
        Spec("filter_rank4", [x, f[0]], same),
        Spec("dilated", [x, f], {**same, "dilations": [1, 2, 1, 1, 1]}),
        Spec("batch_stride", [x, f], {**same, "strides": [2, 1, 1, 1, 1]}),
        Spec("zero_stride", [x, f], {**same, "strides": [1, 1, 0, 1, 1]}),
        Spec("ncdhw", [x, f], {**same, "data_format": "NCDHW"}),
    ]
    return out


def conv3d_backprop(which):
    def gen(dt, rng):
        out = []
        for xs, fs, strides, padding in CONV3D_CASES:
            with tf.Graph().as_default():
                ys = tf.raw_ops.Conv3D(input=np.zeros(xs, np.float32),
                                       filter=np.zeros(fs, np.float32), strides=list(strides),
                                       padding=padding).shape.as_list()
            dy = _f(rng, ys, dt)
            for it in (np.int32, np.int64) if which == "input" else (np.int32,):
                if which == "input":
                    inputs = [np.asarray(xs, it), _f(rng, fs, dt), dy]
                else:
                    inputs = [_f(rng, xs, dt), _i32(fs), dy]
                out.append(Spec(f"{xs}.{fs}.{strides}.{padding}.{np.dtype(it).name}", inputs,
                                {"strides": list(strides), "padding": padding},
                                grad=_grad(dt, *((1, 2) if which == "input" else (0, 2))),
                                tol=20.0))
        xs, fs, attrs = (1, 4, 4, 4, 2), (2, 2, 2, 2, 3), {"strides": [1, 1, 1, 1, 1],
                                                            "padding": "SAME"}
        x, f = ((_i32(xs), _f(rng, fs, dt)) if which == "input"
                else (_f(rng, xs, dt), _i32(fs)))
        dy = _f(rng, (1, 4, 4, 4, 3), dt)
        out += [Spec("out_backprop_mismatch", [x, f, dy[:, :3]], attrs),
                Spec("out_backprop_depth", [x, f, dy[..., :2]], attrs),
                Spec("dilated", [x, f, dy], {**attrs, "dilations": [1, 1, 2, 1, 1]})]
        sizes = _i32(xs[:3]) if which == "input" else _i32(fs[:3])
        out.append(Spec("sizes_of_3", [sizes, f, dy] if which == "input" else [x, sizes, dy],
                        attrs))
        return out
    return gen


DEPTHWISE_CASES = [
    # input, filter [rows, cols, depth, multiplier], strides, padding, dilations
    ((1, 5, 5, 2), (3, 3, 2, 1), (1, 1, 1, 1), "SAME", (1, 1, 1, 1)),
    ((2, 7, 6, 3), (3, 2, 3, 2), (1, 2, 2, 1), "VALID", (1, 1, 1, 1)),
    ((2, 8, 8, 4), (3, 3, 4, 1), (1, 2, 1, 1), "SAME", (1, 1, 1, 1)),
    ((1, 9, 9, 2), (3, 3, 2, 3), (1, 1, 1, 1), "VALID", (1, 2, 2, 1)),
    ((1, 9, 8, 3), (5, 5, 3, 1), (1, 2, 2, 1), "SAME", (1, 1, 1, 1)),
    ((3, 4, 4, 5), (1, 1, 5, 2), (1, 1, 1, 1), "SAME", (1, 1, 1, 1)),
    ((0, 4, 4, 2), (3, 3, 2, 1), (1, 1, 1, 1), "SAME", (1, 1, 1, 1)),
    # Whole blocks of channels (minigraph's register-blocked loops) with
    # edge columns, as MobileNet's layers have them.
    ((2, 9, 10, 32), (3, 3, 32, 1), (1, 1, 1, 1), "SAME", (1, 1, 1, 1)),
    ((1, 8, 11, 48), (3, 3, 48, 1), (1, 2, 2, 1), "SAME", (1, 1, 1, 1)),
]


def depthwise_conv2d(dt, rng):
    """DepthwiseConv2dNative: multipliers of 1 (MobileNet's, EfficientNet's)
    and more, strides, dilations, both paddings, an empty batch; bad depths
    and ranks."""
    out = []
    for xs, fs, strides, padding, dil in DEPTHWISE_CASES:
        out.append(Spec(f"{xs}.{fs}.{strides}.{padding}.{dil}",
                        [_f(rng, xs, dt), _f(rng, fs, dt)],
                        {"strides": list(strides), "padding": padding, "dilations": list(dil)},
                        grad=_grad(dt, 0, 1), tol=20.0))
    attrs = {"strides": [1, 1, 1, 1], "padding": "SAME"}
    out.append(Spec("depth_mismatch", [_f(rng, (1, 4, 4, 2), dt), _f(rng, (3, 3, 3, 1), dt)],
                    attrs))
    out.append(Spec("rank3_input", [_f(rng, (4, 4, 2), dt), _f(rng, (3, 3, 2, 1), dt)], attrs))
    out.append(Spec("filter_too_big", [_f(rng, (1, 2, 2, 2), dt), _f(rng, (3, 3, 2, 1), dt)],
                    {"strides": [1, 1, 1, 1], "padding": "VALID"}))
    return out


def depthwise_conv2d_backprop(which):
    def gen(dt, rng):
        out = []
        for xs, fs, strides, padding, dil in DEPTHWISE_CASES:
            with tf.Graph().as_default():
                y = tf.raw_ops.DepthwiseConv2dNative(
                    input=np.zeros(xs, np.float32), filter=np.zeros(fs, np.float32),
                    strides=list(strides), padding=padding, dilations=list(dil))
                ys = y.shape.as_list()
            dy = _f(rng, ys, dt)
            attrs = {"strides": list(strides), "padding": padding, "dilations": list(dil)}
            if which == "input":
                inputs = [_i32(xs), _f(rng, fs, dt), dy]
                grads = dict(grad=_grad(dt, 1, 2), grad_const=(0,))
            else:
                inputs = [_f(rng, xs, dt), _i32(fs), dy]
                grads = dict(grad=_grad(dt, 0, 2), grad_const=(1,))
            out.append(Spec(f"{xs}.{fs}.{strides}.{padding}.{dil}", inputs, attrs, tol=20.0,
                            **grads))
        # out_backprop of the wrong shape.
        xs, fs = (1, 5, 5, 2), (3, 3, 2, 1)
        bad = _f(rng, (1, 4, 5, 2), dt)
        inputs = ([_i32(xs), _f(rng, fs, dt), bad] if which == "input"
                  else [_f(rng, xs, dt), _i32(fs), bad])
        out.append(Spec("bad_out_backprop", inputs, {"strides": [1, 1, 1, 1], "padding": "SAME"}))
        return out
    return gen


DILATION_CASES = [  # input, filter, strides, rates, padding
    ((2, 5, 6, 3), (2, 2, 3), (1, 1, 1, 1), (1, 1, 1, 1), "VALID"),
    ((1, 7, 7, 2), (3, 3, 2), (1, 2, 2, 1), (1, 1, 1, 1), "SAME"),
    ((1, 8, 9, 1), (2, 3, 1), (1, 1, 2, 1), (1, 2, 2, 1), "SAME"),
    ((2, 6, 6, 2), (3, 2, 2), (1, 3, 1, 1), (1, 1, 3, 1), "VALID"),
    ((0, 4, 4, 2), (2, 2, 2), (1, 1, 1, 1), (1, 1, 1, 1), "SAME"),
]


def _dilation_attrs(strides, rates, padding):
    return {"strides": list(strides), "rates": list(rates), "padding": padding}


def dilation2d(dt, rng):
    """Dilation2D with strides, rates, both paddings and an empty batch;
    its gradients; a depth mismatch, a 3-D input and a stride over the
    batch fail."""
    out = [Spec(f"{xs}.{fs}.{st}.{ra}.{pad}", [_f(rng, xs, dt), _f(rng, fs, dt)],
                _dilation_attrs(st, ra, pad), grad=_grad(dt, 0, 1))
           for xs, fs, st, ra, pad in DILATION_CASES]
    ones = (1, 1, 1, 1)
    out.append(Spec("depth_mismatch", [_f(rng, (1, 4, 4, 2), dt), _f(rng, (2, 2, 3), dt)],
                    _dilation_attrs(ones, ones, "SAME")))
    out.append(Spec("rank3_input", [_f(rng, (4, 4, 2), dt), _f(rng, (2, 2, 2), dt)],
                    _dilation_attrs(ones, ones, "SAME")))
    out.append(Spec("batch_stride", [_f(rng, (2, 4, 4, 2), dt), _f(rng, (2, 2, 2), dt)],
                    _dilation_attrs((2, 1, 1, 1), ones, "SAME")))
    return out


def dilation2d_backprop(dt, rng):
    """Dilation2DBackpropInput and Dilation2DBackpropFilter for each
    dilation case; an out_backprop of the wrong shape fails."""
    out = []
    for xs, fs, st, ra, pad in DILATION_CASES:
        with tf.Graph().as_default():
            y = tf.raw_ops.Dilation2D(input=np.zeros(xs, np.float32),
                                      filter=np.zeros(fs, np.float32), strides=list(st),
                                      rates=list(ra), padding=pad)
            ys = y.shape.as_list()
        out.append(Spec(f"{xs}.{fs}.{st}.{ra}.{pad}",
                        [_f(rng, xs, dt), _f(rng, fs, dt), _f(rng, ys, dt)],
                        _dilation_attrs(st, ra, pad)))
    ones = (1, 1, 1, 1)
    out.append(Spec("bad_out_backprop", [_f(rng, (1, 5, 5, 2), dt), _f(rng, (2, 2, 2), dt),
                                         _f(rng, (1, 4, 5, 2), dt)],
                    _dilation_attrs(ones, ones, "SAME")))
    return out


def _nms_boxes(rng, n):
    """n boxes in clusters (so that they overlap), some with corners in
    the other order, one of no area; scores with ties."""
    centers = rng.uniform(0, 1, (3, 2))[rng.integers(0, 3, n)] + rng.normal(0, 0.05, (n, 2))
    sizes = rng.uniform(0.1, 0.3, (n, 2))
    boxes = np.concatenate([centers - sizes / 2, centers + sizes / 2], axis=1)
    boxes[1] = boxes[1][[2, 3, 0, 1]]
    boxes[2, 2] = boxes[2, 0]
    scores = np.round(rng.uniform(0, 1, n), 1)
    return boxes.astype(np.float32), scores.astype(np.float32)


def non_max_suppression(version):
    """NonMaxSuppression V1 to V5: IoU thresholds, score thresholds,
    max_output_size above and below what survives and 0, padding (V4, V5),
    Soft-NMS (V5); no boxes at all; a threshold outside [0, 1], a negative
    size or sigma and boxes of the wrong shape fail."""
    def gen(dt, rng):
        if dt not in (None, tf.float32):  # TensorFlow's half boxes: minigraph has none
            return []
        boxes, scores = _nms_boxes(rng, 12)
        f32, i32 = np.float32, np.int32

        def inputs(b, s, size, iou, score=0.0, sigma=0.0):
            out = [b, s, i32(size)]
            if version >= 2:
                out.append(f32(iou))
            if version >= 3:
                out.append(f32(score))
            if version == 5:
                out.append(f32(sigma))
            return out

        def attrs(iou, pad=False):
            a = {"iou_threshold": iou} if version == 1 else {}
            if version >= 4:
                a["pad_to_max_output_size"] = pad
            return a
        out = []
        for iou in (0.0, 0.3, 0.7, 1.0):
            for score in ((0.0, 0.45) if version >= 3 else (0.0,)):
                for size in (3, 20, 0):
                    for pad in ((False, True) if version >= 4 else (False,)):
                        out.append(Spec(f"iou{iou}.score{score}.size{size}.pad{pad}",
                                        inputs(boxes, scores, size, iou, score),
                                        attrs(iou, pad)))
        if version == 5:
            for sigma in (0.2, 1.0):
                for score in (0.0, 0.3):
                    out.append(Spec(f"soft.sigma{sigma}.score{score}",
                                    inputs(boxes, scores, 8, 0.5, score, sigma), attrs(0.5, True)))
            out.append(Spec("negative_sigma", inputs(boxes, scores, 3, 0.5, 0.0, -1.0), attrs(0.5)))
        out.append(Spec("no_boxes", inputs(boxes[:0], scores[:0], 3, 0.5), attrs(0.5)))
        out.append(Spec("negative_size", inputs(boxes, scores, -1, 0.5), attrs(0.5)))
        out.append(Spec("boxes_3_columns", inputs(boxes[:, :3], scores, 3, 0.5), attrs(0.5)))
        out.append(Spec("scores_short", inputs(boxes, scores[:5], 3, 0.5), attrs(0.5)))
        if version >= 2:
            out.append(Spec("iou_outside", inputs(boxes, scores, 3, 1.5), attrs(0.5)))
        return out
    return gen


def non_max_suppression_with_overlaps(dt, rng):
    """NonMaxSuppressionWithOverlaps: overlap and score thresholds over a
    given overlap matrix; a matrix that is not square fails."""
    n = 10
    overlaps = rng.uniform(0, 1, (n, n)).astype(np.float32)
    scores = np.round(rng.uniform(0, 1, n), 1).astype(np.float32)
    out = []
    for threshold in (0.2, 0.5, 0.9):
        for score in (0.0, 0.5):
            out.append(Spec(f"overlap{threshold}.score{score}",
                            [overlaps, scores, np.int32(6), np.float32(threshold),
                             np.float32(score)]))
    out.append(Spec("not_square", [overlaps[:, :4], scores, np.int32(3), np.float32(0.5),
                                   np.float32(0.0)]))
    return out


def combined_non_max_suppression(dt, rng):
    """CombinedNonMaxSuppression: two images of 6 boxes, shared by 3
    classes (q 1) or one set per class (q 3), scores with ties, IoU and
    score thresholds, per-class and total limits above and below what
    survives, padded per class or to the total, clipped or not. Limits of
    0, a threshold outside [0, 1], a q that is neither 1 nor the classes
    and batches that differ fail."""
    boxes, _ = _nms_boxes(rng, 36)
    boxes = (boxes * 1.4 - 0.2).reshape(2, 6, 3, 4)  # some corners outside [0, 1]
    scores = np.round(rng.uniform(0, 1, (2, 6, 3)), 1).astype(np.float32)
    f32, i32 = np.float32, np.int32
    out = []
    for q in (1, 3):
        b = boxes[:, :, :q]
        for iou, score in ((0.5, 0.0), (0.3, 0.35), (1.0, 0.0)):
            for per_class, total in ((2, 4), (5, 20), (1, 2)):
                for pad in (False, True):
                    for clip in (False, True):
                        label = f"q{q}.iou{iou}.score{score}.{per_class}.{total}.{pad}.{clip}"
                        out.append(Spec(label, [b, scores, i32(per_class), i32(total),
                                                f32(iou), f32(score)],
                                        {"pad_per_class": pad, "clip_boxes": clip}))
    good = [boxes, scores, i32(2), i32(4), f32(0.5), f32(0.0)]
    out.append(Spec("per_class_0", good[:2] + [i32(0)] + good[3:]))
    out.append(Spec("total_0", good[:3] + [i32(0)] + good[4:]))
    out.append(Spec("iou_outside", good[:4] + [f32(1.5)] + good[5:]))
    out.append(Spec("q_2", [boxes[:, :, :2]] + good[1:]))
    out.append(Spec("batches_differ", [boxes[:1]] + good[1:]))
    return out


def sample_distorted_bounding_box(op):
    """SampleDistortedBoundingBox (V1, V2 and stateless): images of several
    sizes, with boxes and without (the whole image), min_object_covered from
    0 to 1, wide and narrow aspect and area ranges, one attempt and many
    (a crop found, or the whole image), two seeds each. Boxes outside [0, 1],
    none without use_image_if_no_bounding_boxes, an image_size not of three
    and a negative min_object_covered fail."""
    def gen(dt, rng):
        if dt is None:
            return []
        np_dt = dt.as_numpy_dtype
        boxes = np.array([[[0.1, 0.2, 0.6, 0.7], [0.4, 0.4, 0.9, 1.0]]], np.float32)
        out = []

        def spec(label, size, b, covered=0.1, seed=(1, 2), **attrs):
            ins = [np.array(size, np_dt), b]
            a = dict(attrs)
            if op == "SampleDistortedBoundingBox":
                a["min_object_covered"] = covered
            else:
                ins.append(np.float32(covered))
            if op == "StatelessSampleDistortedBoundingBox":
                ins.append(_i64(seed))
            else:
                a.update(seed=seed[0], seed2=seed[1])
            out.append(Spec(f"{label}.{seed[0]}", ins, a))
        for seed in [(1, 2), (87654321, 5)]:
            for size in ([60, 80, 3], [100, 50, 1], [7, 9, 3]):
                for covered in (0.0, 0.3, 1.0):
                    spec(f"{size}.{covered}", size, boxes, covered, seed)
            spec("no_boxes", [60, 80, 3], boxes[:, :0], 0.5, seed,
                 use_image_if_no_bounding_boxes=True)
            spec("narrow", [60, 80, 3], boxes, 0.5, seed, aspect_ratio_range=[0.9, 1.1],
                 area_range=[0.3, 0.4])
            spec("one_attempt", [60, 80, 3], boxes, 0.9, seed, max_attempts=1)
            spec("tiny_area", [40, 40, 3], boxes, 0.1, seed, area_range=[0.01, 0.02])
        spec("box_outside", [60, 80, 3], boxes * 1.5)
        spec("no_boxes_refused", [60, 80, 3], boxes[:, :0])
        spec("size_of_2", [60, 80], boxes)
        spec("negative_covered", [60, 80, 3], boxes, -0.5)
        return out
    return gen


def extract_glimpse(op):
    """ExtractGlimpse and V2: windows inside the images (every noise) and
    across their edges and wholly outside (zero noise: the other noises are
    random), offsets normalized or in pixels, centered or from the corner,
    windows of no rows. A negative size, offsets not [batch, 2], a 3-D
    input and uniform_noise beside another noise fail."""
    def gen(dt, rng):
        x = _f(rng, (2, 6, 8, 3), tf.float32)
        inside = np.array([[0.1, -0.2], [-0.1, 0.05]], np.float32)
        across = np.array([[0.9, -0.95], [-0.7, 0.8]], np.float32)
        pixels = np.array([[1.0, 2.0], [4.0, 6.5]], np.float32)
        out = []
        for normalized, centered, offsets in [(True, True, inside), (True, True, across),
                                              (True, False, np.abs(inside) * 2),
                                              (True, False, np.abs(across)),
                                              (False, True, pixels - 3),
                                              (False, False, pixels),
                                              (False, False, pixels + 20)]:
            for noise in ("zero", "uniform", "gaussian", ""):
                if noise != "zero" and offsets is not inside:
                    continue
                for uniform in ((False, True) if noise in ("", "uniform") else (False,)):
                    for size in ([3, 3], [2, 5]):
                        label = (f"{normalized}.{centered}.{offsets[0].tolist()}.{noise}."
                                 f"{uniform}.{size}")
                        out.append(Spec(label, [x, _i32(size), offsets],
                                        {"normalized": normalized, "centered": centered,
                                         "noise": noise, "uniform_noise": uniform}))
        base = {"noise": "zero", "uniform_noise": False}
        out.append(Spec("no_rows", [x, _i32([0, 3]), inside], base))
        out.append(Spec("negative_size", [x, _i32([-1, 3]), inside], base))
        out.append(Spec("offsets_of_3", [x, _i32([3, 3]), np.zeros((2, 3), np.float32)], base))
        out.append(Spec("rank3", [x[0], _i32([3, 3]), inside[:1]], base))
        out.append(Spec("uniform_beside_zero", [x, _i32([3, 3]), inside],
                        {"noise": "zero", "uniform_noise": True}))
        return out
    return gen


def scatter_nd(dt, rng):
    """ScatterNd: whole rows and single elements, repeated indices (added),
    indices of both dtypes, none at all; an index out of the shape, updates
    of the wrong shape, a non-vector shape and too deep an index fail as
    TensorFlow's."""
    out = []
    for shape, idx, upd_shape, index in [
            ((5, 3), [[1], [3], [1]], (3, 3), _i32), ((4, 4), [[0, 1], [3, 2], [0, 1]], (3,), _i64),
            ((2, 3, 4), [[[1, 2]], [[0, 0]]], (2, 1, 4), _i64), ((6,), [[5], [0]], (2,), _i32),
            ((3, 2), np.zeros((0, 1)), (0, 2), _i64)]:
        out.append(Spec(f"{shape}.{np.shape(idx)}.{index.__name__}",
                        [index(idx), random_values(rng, upd_shape, dt), index(shape)],
                        grad=_grad(dt, 1)))
    for label, shape, idx, upd_shape in [("out_of_range", (3, 2), [[3]], (1, 2)),
                                         ("negative", (3, 2), [[-1]], (1, 2)),
                                         ("updates_shape", (3, 2), [[1]], (1, 3)),
                                         ("too_deep", (3,), [[1, 1]], (1,))]:
        out.append(Spec(label, [_i32(idx), random_values(rng, upd_shape, dt), _i32(shape)]))
    out.append(Spec("shape_matrix", [_i32([[1]]), random_values(rng, (1,), dt), _i32([[3]])]))
    return out


def roll(dt, rng):
    """Roll: one axis, several (one of them twice, the shifts adding up),
    negative shifts and axes, shifts longer than the dimension, an empty
    dimension, int64 shifts; shift and axis of different lengths, an axis
    out of range and a scalar input fail as TensorFlow's."""
    out = []
    for shape, shift, axis in [((7,), 2, 0), ((3, 4), [1, -2], [0, 1]), ((2, 3, 4), 5, -1),
                               ((2, 3, 4), [1, 2], [1, 1]), ((4, 3), [-7], [0]),
                               ((0, 3), 1, 1), ((2, 5, 3), [1, 2], [0, 1])]:
        for index in (_i32, _i64):
            out.append(Spec(f"{list(shape)}.{shift}.{axis}.{index.__name__}",
                            [_f(rng, shape, dt), index(shift), index(axis)],
                            grad=_grad(dt, 0)))
    out.append(Spec("lengths_differ", [_f(rng, (3, 4), dt), _i32([1, 2]), _i32([0])]))
    out.append(Spec("axis_out_of_range", [_f(rng, (3, 4), dt), _i32(1), _i32(2)]))
    out.append(Spec("scalar", [_f(rng, (), dt), _i32(1), _i32(0)]))
    return out


def reverse_sequence(dt, rng):
    """ReverseSequence: batch before and after the sequence dimension,
    lengths from 0 to the whole, int32 and int64 lengths, an empty batch;
    a length past the dimension, a negative one, lengths not matching the
    batch and seq_dim == batch_dim fail as TensorFlow's."""
    out = []
    for shape, seq_dim, batch_dim, lengths in [
            ((3, 5), 1, 0, [5, 0, 2]), ((4, 2, 3), 0, 1, [1, 4]), ((2, 4, 3, 2), 1, 0, [3, 4]),
            ((2, 3, 4), 2, 0, [1, 3]), ((0, 4), 1, 0, [])]:
        for index in (_i32, _i64):
            out.append(Spec(f"{list(shape)}.seq{seq_dim}.batch{batch_dim}.{index.__name__}",
                            [_f(rng, shape, dt), index(lengths)],
                            {"seq_dim": seq_dim, "batch_dim": batch_dim}, grad=_grad(dt, 0)))
    for label, lengths, seq_dim, batch_dim in [("too_long", [6, 1, 1], 1, 0),
                                               ("negative", [1, -1, 1], 1, 0),
                                               ("wrong_count", [1, 1], 1, 0),
                                               ("same_dims", [1, 1, 1], 0, 0)]:
        out.append(Spec(label, [_f(rng, (3, 5), dt), _i64(lengths)],
                        {"seq_dim": seq_dim, "batch_dim": batch_dim}))
    return out


def empty(dt, rng):
    """Empty with init (zeros; without it TensorFlow's values are whatever
    the memory held): shapes of each rank and an empty one; a negative
    dimension fails."""
    return [Spec(f"{shape}", [_i32(shape)], {"dtype": dt, "init": True})
            for shape in ([3], [2, 3], [0, 4], [])] + [
        Spec("negative", [_i32([2, -1])], {"dtype": dt, "init": True})]


def sobol_sample(dt, rng):
    """SobolSample: the first dimension and the last of TensorFlow's 21,200,
    from the first point and after skips of each size (one over a power of
    two, up to 2^24), runs long enough to be split across threads. A dim of
    0 or past the table, no results, a negative skip and a skip plus
    num_results that reach 2^31 fail."""
    out = []
    for dim, num, skip in ((1, 8, 0), (2, 5, 1), (3, 40, 7), (40, 700, 0), (40, 1500, 255),
                           (256, 33, 1000), (1111, 3, 1 << 20), (21200, 2, 0),
                           (21200, 3, 12345), (7, 4, (1 << 24) - 3), (5, 2, (1 << 29) + 17)):
        out.append(Spec(f"{dim}.{num}.{skip}", [_i32(dim), _i32(num), _i32(skip)], {"dtype": dt}))
    for label, dim, num, skip in (("dim_0", 0, 3, 0), ("dim_21201", 21201, 3, 0),
                                  ("num_0", 2, 0, 0), ("skip_negative", 2, 3, -1),
                                  ("past_int32", 2, 3, 2**31 - 3)):
        out.append(Spec(label, [_i32(dim), _i32(num), _i32(skip)], {"dtype": dt}))
    return out

def bucketize(dt, rng):
    """Bucketize: values below, between, on and above the boundaries, no
    boundaries at all; unsorted boundaries fail."""
    x = np.asarray([-5, -1, 0, 1, 2, 3, 10, 4, 7], dtype=dt.as_numpy_dtype)
    out = [Spec(f"{b}", [x], {"boundaries": b})
           for b in ([0.0, 2.0, 5.5], [-1.0, -1.0, 3.0, 100.0], [], [1.5])]
    out.append(Spec("matrix", [x[:8].reshape(2, 4)], {"boundaries": [0.5, 3.0]}))
    out.append(Spec("unsorted", [x], {"boundaries": [3.0, 1.0]}))
    return out


def list_diff(dt, rng):
    """ListDiff (setdiff1d): repeats in x kept, y's repeats and elements not
    in x, empty inputs, int64 positions; a matrix fails."""
    def arr(v):
        return np.asarray(v, dtype=object if dt == tf.string else dt.as_numpy_dtype)
    if dt == tf.string:
        x, y = [b"a", b"b", b"a", b"c", b""], [b"b", b"z", b"b"]
    else:
        x, y = [3, 1, 3, 4, 0, 9], [1, 7, 1, 0]
    out = []
    for label, xs, ys in [("some", x, y), ("none_dropped", x, []), ("all_dropped", x, x),
                          ("empty_x", [], y)]:
        for idx in (tf.int32, tf.int64):
            out.append(Spec(f"{label}.{idx.name}", [arr(xs), arr(ys)], {"out_idx": idx}))
    out.append(Spec("matrix", [arr([x[:2], x[2:4]]), arr(y)], {"out_idx": tf.int32}))
    return out


def tensor_scatter(kind):
    """TensorScatterUpdate/Add/Sub/Min/Max and ScatterNdNonAliasingAdd: a
    copy of the tensor with the updates combined at whole rows, single
    elements and slices, a repeated index (combined twice; the last update
    wins for Update), indices of both dtypes, none at all, and an index out
    of range skipped under bad_indices_policy IGNORE; the gradients of the
    tensor and the updates; an index out of the shape, a negative one,
    updates of the wrong shape, too deep an index and scalar indices fail
    as TensorFlow's."""
    def gen(dt, rng):
        out = []
        for shape, idx, upd_shape, index in [
                ((5, 3), [[1], [3], [1]], (3, 3), _i32),
                ((4, 4), [[0, 1], [3, 2]], (2,), _i64),
                ((2, 3, 4), [[[1, 2]], [[0, 0]]], (2, 1, 4), _i64),
                ((6,), [[5], [0]], (2,), _i32), ((3, 2), np.zeros((0, 1)), (0, 2), _i64)]:
            out.append(Spec(f"{shape}.{np.shape(idx)}.{index.__name__}",
                            [_f(rng, shape, dt), index(idx), _f(rng, upd_shape, dt)],
                            grad=_grad(dt, 0, 2)))
        if kind != "ScatterNdNonAliasingAdd":
            out.append(Spec("ignore_out_of_range",
                            [_f(rng, (4, 2), dt), _i32([[1], [7], [2]]), _f(rng, (3, 2), dt)],
                            {"bad_indices_policy": "IGNORE"}))
        for label, shape, idx, upd_shape in [("out_of_range", (3, 2), [[3]], (1, 2)),
                                             ("negative", (3, 2), [[-1]], (1, 2)),
                                             ("updates_shape", (3, 2), [[1]], (1, 3)),
                                             ("too_deep", (3,), [[1, 1]], (1,)),
                                             ("scalar_indices", (3,), 1, ())]:
            out.append(Spec(label, [_f(rng, shape, dt), _i32(idx), _f(rng, upd_shape, dt)]))
        return out
    return gen


def bitcast(dt, rng):
    """Bitcast to a type of each size (1 to 16 bytes): the same shape, a
    last dimension added, or one removed; a last dimension of the wrong
    size and a scalar where one is needed."""
    out = []
    size = dt.size
    for to in (tf.uint8, tf.float16, tf.int32, tf.float64, tf.complex128):
        if to.size <= size:
            shape = (2, 3)
        else:
            shape = (2, to.size // size)
            # Ratios are powers of two: a last dimension of 3 is never one.
            out.append(Spec(f"{to.name}.wrong_last_dim", [_f(rng, (2, 3), dt)], {"type": to}))
            out.append(Spec(f"{to.name}.scalar", [_f(rng, (), dt)], {"type": to}))
        out.append(Spec(f"{to.name}.{shape}", [_f(rng, shape, dt, True)], {"type": to}))
        out.append(Spec(f"{to.name}.empty", [_f(rng, (0,) + shape[1:], dt)], {"type": to}))
    return out


def ensure_shape(dt, rng):
    """EnsureShape: shapes that fit (exactly, with unknown dims, of unknown
    rank, empty) pass the input through; a dim or a rank that differs fails
    as TensorFlow's."""
    out = []
    for label, shape, want in [("exact", (2, 3), [2, 3]), ("unknown_dim", (2, 3), [-1, 3]),
                               ("unknown_rank", (4,), None), ("scalar", (), []),
                               ("empty", (0, 2), [0, -1]), ("dim", (2, 3), [2, 4]),
                               ("rank", (2, 3), [2, 3, 1])]:
        shape_attr = tf.TensorShape(None if want is None else
                                    [None if d == -1 else d for d in want])
        out.append(Spec(label, [random_values(rng, shape, dt)], {"shape": shape_attr},
                        grad=_grad(dt, 0) if label in ("exact", "unknown_dim") else ()))
    return out


def broadcast_args(dt, rng):
    """BroadcastArgs: shapes that broadcast (ones, unequal ranks, scalars,
    zeros); shapes that do not, and a matrix, fail as TensorFlow's."""
    out = []
    for s0, s1 in [([2, 3], [3]), ([4, 1, 5], [2, 1]), ([], [3, 2]), ([0, 3], [1, 3]),
                   ([2, 3], [4]), ([1], [0])]:
        out.append(Spec(f"{s0}.{s1}", [np.asarray(s0, dt.as_numpy_dtype),
                                       np.asarray(s1, dt.as_numpy_dtype)]))
    out.append(Spec("matrix", [np.ones((1, 2), dt.as_numpy_dtype),
                               np.asarray([2], dt.as_numpy_dtype)]))
    return out


# (equation, shapes): the contractions Keras' EinsumDense and
# MultiHeadAttention emit, matrix products with broadcast batches, and the
# unary forms (transposes, diagonals, traces, sums, the "i->ii" that
# Einsum's gradient makes).
EINSUMS = [
    ("ab,bc->ac", [(3, 4), (4, 5)]),
    ("abc,cd->abd", [(2, 3, 4), (4, 5)]),
    ("abc,cde->abde", [(2, 3, 8), (8, 2, 4)]),
    ("abcd,cde->abe", [(2, 3, 2, 4), (2, 4, 8)]),
    ("aecd,abcd->acbe", [(2, 5, 2, 4), (2, 3, 2, 4)]),
    ("acbe,aecd->abcd", [(2, 2, 3, 5), (2, 5, 2, 4)]),
    ("bqhd,bkhd->bhqk", [(2, 3, 2, 4), (2, 5, 2, 4)]),
    ("...ij,...jk->...ik", [(2, 3, 4), (4, 5)]),
    ("...ij,...jk->...ik", [(3, 1, 2, 3), (4, 3, 2)]),
    ("ij...,jk->ik...", [(2, 3, 4), (3, 5)]),
    ("i,i->", [(7,), (7,)]),
    ("i,j->ij", [(3,), (4,)]),
    ("ab,ab->ab", [(3, 4), (3, 4)]),
    ("abc,abc->ab", [(2, 3, 4), (2, 3, 4)]),
    ("aab,bc->ac", [(3, 3, 4), (4, 5)]),
    ("abc,cd->ad", [(2, 3, 4), (4, 5)]),
    ("ba,bc->ac", [(4, 3), (4, 5)]),
    ("ab,cb->ac", [(3, 4), (5, 4)]),
    ("ab,bc->ca", [(3, 4), (4, 5)]),
    ("ab,bc->ac", [(0, 4), (4, 5)]),
    ("ab,bc->ac", [(3, 0), (0, 5)]),
    ("ij->ji", [(3, 4)]),
    ("ii->i", [(4, 4)]),
    ("ii->", [(4, 4)]),
    ("iij->ji", [(3, 3, 2)]),
    ("ij->", [(3, 4)]),
    ("ij->i", [(3, 4)]),
    ("ijk->kj", [(2, 3, 4)]),
    ("i->ii", [(3,)]),
    ("...->...", [(2, 3)]),
    ("...ij->...ji", [(2, 2, 3, 4)]),
    ("a...->...", [(3, 2, 2)]),
]
BAD_EINSUMS = [
    ("ij,jk->ik", [(2, 3, 4), (4, 5)]),          # rank
    ("ij,jk->ik", [(3, 4), (5, 6)]),             # dimension of j
    ("...ij,...jk->...ik", [(2, 3, 4), (3, 4, 5)]),  # batches
    ("...ij->ij", [(2, 3, 4)]),                  # broadcast axes, no ellipsis out
]


def einsum(dt, rng):
    out = []
    for equation, shapes in EINSUMS + BAD_EINSUMS:
        xs = [random_values(rng, s, dt, edges=False) for s in shapes]
        bad = (equation, shapes) in BAD_EINSUMS
        grad = () if bad else _grad(dt, *range(len(xs)))
        out.append(Spec(f"{equation}.{shapes}", [xs], {"equation": equation}, grad=grad,
                        tol=10.0))
    return out


# (input shape, block shape, paddings) of SpaceToBatchND: dilated
# convolutions' shapes (padding to a multiple of the rate), one block
# dimension, a plain dimension before and after, identity, empty batches.
SPACE_TO_BATCH = [
    ((2, 4, 4, 3), [2, 2], [[0, 0], [0, 0]]),
    ((1, 5, 3, 2), [2, 3], [[1, 0], [0, 0]]),
    ((2, 6, 1), [3], [[1, 2]]),
    ((1, 4, 4, 1), [2, 1], [[0, 0], [1, 1]]),
    ((2, 2, 4, 4, 1), [1, 2, 2], [[0, 0], [1, 1], [0, 2]]),
    ((2, 3, 3, 1), [1, 1], [[0, 0], [0, 0]]),
    ((0, 4, 4, 1), [2, 2], [[0, 0], [0, 0]]),
]
BAD_SPACE_TO_BATCH = [
    ("indivisible", (1, 5, 4, 1), [2, 2], [[0, 0], [0, 0]]),
    ("negative_padding", (1, 4, 4, 1), [2, 2], [[-2, 0], [0, 0]]),
    ("zero_block", (1, 4, 4, 1), [0, 2], [[0, 0], [0, 0]]),
    ("paddings_shape", (1, 4, 4, 1), [2, 2], [[0, 0]]),
    ("rank", (4, 4), [2, 2], [[0, 0], [0, 0]]),
    ("block_rank", (1, 4, 4, 1), [[2, 2]], [[0, 0], [0, 0]]),
    ("five_block_dims", (1, 2, 2, 2, 2, 2), [2] * 5, [[0, 0]] * 5),
]
# (input shape, block shape, crops) of BatchToSpaceND: the inverses.
BATCH_TO_SPACE = [
    ((8, 2, 2, 3), [2, 2], [[0, 0], [0, 0]]),
    ((6, 3, 1, 2), [2, 3], [[1, 0], [0, 0]]),
    ((6, 3, 1), [3], [[1, 2]]),
    ((2, 4, 3, 1), [2, 1], [[0, 0], [1, 1]]),
    ((8, 2, 3, 3, 1), [1, 2, 2], [[0, 0], [1, 1], [0, 2]]),
    ((2, 3, 3, 1), [1, 1], [[0, 0], [0, 0]]),
    ((0, 2, 2, 1), [2, 2], [[0, 0], [0, 0]]),
]
BAD_BATCH_TO_SPACE = [
    ("indivisible_batch", (6, 2, 2, 1), [2, 2], [[0, 0], [0, 0]]),
    ("negative_crops", (4, 2, 2, 1), [2, 2], [[-1, 0], [0, 0]]),
    ("cropped_negative", (4, 2, 2, 1), [2, 2], [[3, 2], [0, 0]]),
    ("crops_shape", (4, 2, 2, 1), [2, 2], [[0, 0, 0]]),
    ("rank", (4, 2), [2, 2], [[0, 0], [0, 0]]),
]


def space_batch_nd(good, bad_cases):
    """The block shape a constant (TensorFlow's shape function needs its
    rank), the paddings (crops) fed."""
    def gen(dt, rng):
        out = []
        for shape, block, pads in good:
            for it in (np.int32, np.int64):
                out.append(Spec(f"{list(shape)}.{block}.{pads}.{np.dtype(it).name}",
                                [_f(rng, shape, dt, True), Const(np.asarray(block, it)),
                                 np.asarray(pads, it).reshape(len(block), 2)],
                                grad=_grad(dt, 0)))
        for label, shape, block, pads in bad_cases:
            out.append(Spec(label, [_f(rng, shape, dt), Const(_i32(block)), _i32(pads)]))
        return out
    return gen


def space_batch(to_batch):
    """SpaceToBatch and BatchToSpace: rank 4, one block size."""
    def gen(dt, rng):
        shape = (2, 4, 4, 3) if to_batch else (8, 3, 3, 1)
        pads = [[1, 1], [0, 2]]
        out = [Spec(f"{list(shape)}.{pads}", [_f(rng, shape, dt, True), _i64(pads)],
                    {"block_size": 2}, grad=_grad(dt, 0)),
               Spec("rank", [_f(rng, (2, 4, 4), dt), _i32(pads)], {"block_size": 2})]
        return out
    return gen


def space_depth(to_depth):
    """SpaceToDepth and DepthToSpace, NHWC (NCHW is refused on CPU)."""
    def gen(dt, rng):
        shapes = [((2, 4, 6, 3), 2), ((1, 3, 3, 2), 3), ((0, 2, 2, 1), 2)] if to_depth else \
            [((2, 2, 3, 12), 2), ((1, 1, 2, 9), 3), ((0, 1, 1, 4), 2)]
        out = [Spec(f"{list(s)}.b{b}", [_f(rng, s, dt, True)], {"block_size": b},
                    grad=_grad(dt, 0)) for s, b in shapes]
        bad = (1, 5, 4, 1) if to_depth else (1, 2, 2, 6)
        out.append(Spec("indivisible", [_f(rng, bad, dt)], {"block_size": 2}))
        out.append(Spec("rank", [_f(rng, (4, 4, 4), dt)], {"block_size": 2}))
        out.append(Spec("nchw", [_f(rng, (1, 4, 4, 4), dt)],
                        {"block_size": 2, "data_format": "NCHW"}))
        return out
    return gen


def _complex_of(dt):
    return tf.complex128 if dt == tf.float64 else tf.complex64


def _real_of(dt):
    return tf.float64 if dt == tf.complex128 else tf.float32


def complex_op(dt, rng):
    """Complex(real, imag), broadcast; the output type follows the input's."""
    return [dataclasses.replace(spec, attrs={"Tout": _complex_of(dt)})
            for spec in binary()(dt, rng)]


def complex_parts(has_tout):
    """Real, Imag, ComplexAbs, Angle (with a real Tout) and Conj; their
    gradients through a Complex of real placeholders."""
    def gen(dt, rng):
        attrs = {"Tout": _real_of(dt)} if has_tout else {}
        out = unary(attrs=attrs)(dt, rng)
        for shape in [(3,), (2, 4)]:
            re = random_values(rng, shape, _real_of(dt), edges=False)
            im = random_values(rng, shape, _real_of(dt), edges=False)
            out.append(Spec(f"of_parts{list(shape)}", [re + 1j * im], attrs))
        return out
    return gen


def fft(rank):
    """FFT, IFFT and their 2-D and 3-D forms on complex tensors: lengths of
    every kind (powers of two, odd, prime, 1), batches, empty tensors, a
    rank too small."""
    shapes = {1: [(8,), (3, 5), (2, 7), (2, 12), (2, 1), (0, 4), (4, 0)],
              2: [(4, 6), (2, 3, 5), (1, 1), (2, 0, 3)],
              3: [(2, 3, 4), (2, 2, 3, 5), (1, 1, 1)]}[rank]

    def gen(dt, rng):
        out = [Spec(f"{list(s)}", [random_values(rng, s, dt, edges=False)], tol=4.0)
               for s in shapes]
        small = (5,) * (rank - 1)
        out.append(Spec("rank_too_small", [random_values(rng, small, dt, edges=False)]))
        return out
    return gen


# (input shape, fft_length) of the real FFTs, forward (the input is real)
# and inverse (the input is the half spectrum): lengths that take kissfft's
# multiple-of-4 path, its generic even and odd ones, 1 and 0, and inputs
# longer than fft_length (cropped). No fft_length of 0: TensorFlow aborts
# the process (DUCC's "axis length mismatch" and "No zero-sized FFTs"
# assertions) where minigraph returns the empty output (docs/tf_interop.md).
REAL_FFTS = {
    (1, True): [((8,), [8]), ((3, 10), [10]), ((2, 12), [12]), ((2, 9), [9]), ((2, 10), [6]),
                ((4, 5), [1]), ((0, 6), [6])],
    (1, False): [((3, 5), [8]), ((2, 6), [10]), ((2, 7), [12]), ((2, 5), [9]), ((2, 9), [8]),
                 ((3, 1), [1]), ((0, 4), [6])],
    (2, True): [((4, 6), [4, 6]), ((2, 3, 8), [3, 8]), ((2, 5, 7), [4, 6]), ((3, 5), [1, 5])],
    (2, False): [((4, 4), [4, 6]), ((2, 3, 5), [3, 8]), ((2, 5, 7), [4, 9]), ((3, 3), [3, 5])],
    (3, True): [((2, 3, 4), [2, 3, 4]), ((2, 2, 3, 6), [2, 3, 6]), ((3, 4, 5), [2, 3, 5])],
    (3, False): [((2, 3, 3), [2, 3, 4]), ((2, 2, 3, 4), [2, 3, 7]), ((3, 4, 5), [2, 3, 6])],
}
BAD_REAL_FFTS = {True: [("too_short", (2, 4), 6), ("negative", (2, 4), -2)],
                 False: [("too_short", (2, 3), 8), ("negative", (2, 4), -2)]}


def real_fft(rank, forward):
    """RFFT, IRFFT and their 2-D and 3-D forms; fft_length a constant (the
    shape function needs it)."""
    def gen(dt, rng):
        real = dt if forward else (tf.float64 if dt == tf.complex128 else tf.float32)
        if forward and dt != real:
            return []
        values = (lambda s: random_values(rng, s, dt, edges=False))
        out = [Spec(f"{list(s)}.L{n}", [values(s), Const(_i32(n))], tol=4.0)
               for s, n in REAL_FFTS[(rank, forward)]]
        for label, s, n in BAD_REAL_FFTS[forward]:
            # The bad length on the last dimension, the others 2 long.
            shape = (2,) * (rank - 1) + s
            out.append(Spec(label, [values(shape), Const(_i32([2] * (rank - 1) + [n]))]))
        return out
    return gen


def clip_by_value(dt, rng):
    """ClipByValue with scalar and full-shape bounds, a low bound above the
    high one, edge values; bounds of another shape are refused."""
    out = []
    for shape, bounds in [((2, 3), ((), ())), ((2, 3), ((2, 3), ())), ((7,), ((7,), (7,))),
                          ((0, 2), ((), ()))]:
        t = random_values(rng, shape, dt)
        lo = random_values(rng, bounds[0], dt, edges=False) - 1
        hi = lo + np.abs(random_values(rng, bounds[1], dt, edges=False)).astype(lo.dtype) \
            if bounds[1] == bounds[0] else random_values(rng, bounds[1], dt, edges=False) + 2
        out.append(Spec(f"{list(shape)}.{list(bounds)}", [t, lo.astype(t.dtype),
                                                         np.asarray(hi, t.dtype)],
                        grad=_grad(dt, 0, 1, 2)))
    t = random_values(rng, (5,), dt, edges=False)
    out.append(Spec("low_above_high", [t, np.asarray(2, t.dtype), np.asarray(1, t.dtype)]))
    out.append(Spec("bad_bounds", [t, np.zeros((3,), t.dtype), np.asarray(1, t.dtype)]))
    return out


# (unpadded shape, paddings) of MirrorPad: within REFLECT's limit (each
# padding below its dimension), which SYMMETRIC's (at most the dimension)
# also allows; and paddings of exactly the dimension, SYMMETRIC's alone.
MIRROR_PADS = [((3, 4), [[1, 2], [2, 3]]), ((5,), [[4, 4]]), ((2, 3, 4), [[1, 1], [0, 2], [3, 0]]),
               ((), []), ((0, 3), [[0, 0], [1, 1]]), ((2, 2, 1, 2, 3), [[1, 0]] * 5)]
SYMMETRIC_ONLY = [((3, 4), [[3, 0], [4, 4]])]


def mirror_pad(grad_op):
    """MirrorPad (or MirrorPadGrad, given the padded shape) in both modes;
    paddings too large for the mode, negative, of the wrong shape, rank 6.
    (MirrorPadGrad's sums of edge values are NaN or infinite either way, by
    an order of additions that differs.)"""
    def gen(dt, rng):
        out = []
        for mode in ("REFLECT", "SYMMETRIC"):
            for shape, pads in MIRROR_PADS + (SYMMETRIC_ONLY if mode == "SYMMETRIC" else []):
                p = np.asarray(pads, np.int64).reshape(len(shape), 2)
                if grad_op:
                    shape = tuple(d + int(p[i].sum()) for i, d in enumerate(shape))
                for it in (np.int32, np.int64):
                    out.append(Spec(f"{mode}.{list(shape)}.{pads}.{np.dtype(it).name}",
                                    [_f(rng, shape, dt, not grad_op), p.astype(it)],
                                    {"mode": mode},
                                    grad=_grad(dt, 0), grad_const=(1,)))
        for label, shape, pads, mode in [
                ("reflect_too_far", (3, 4), [[3, 0], [0, 0]], "REFLECT"),
                ("symmetric_too_far", (3, 4), [[4, 0], [0, 0]], "SYMMETRIC"),
                ("negative", (3, 4), [[-1, 0], [0, 0]], "REFLECT"),
                ("paddings_shape", (3, 4), [[1, 0]], "REFLECT"),
                ("rank_6", (1,) * 6, [[0, 0]] * 6, "REFLECT")]:
            out.append(Spec(label, [_f(rng, shape, dt), _i32(pads)], {"mode": mode}))
        return out
    return gen


def matrix_band_part(dt, rng):
    """Bands of matrices and batches of them (a causal mask's lower
    triangle, an upper one, a diagonal, all, empty batches); bounds of both
    index types; ranks below 2, bounds past the matrix and non-scalar bounds
    fail as TensorFlow's."""
    out = []
    for shape, lower, upper, index in [((4, 5), 1, 2, _i64), ((2, 3, 4, 4), -1, 0, _i64),
                                       ((3, 3), 0, -1, _i32), ((5, 4), -1, -1, _i64),
                                       ((0, 3, 3), 1, 1, _i64), ((2, 6, 3), 2, 0, _i32),
                                       ((3, 4), 0, 0, _i64)]:
        out.append(Spec(f"{shape}.{lower}.{upper}",
                        [random_values(rng, shape, dt), index(lower), index(upper)],
                        grad=_grad(dt, 0)))
    for label, shape, lower, upper in [("rank1", (4,), _i64(0), _i64(0)),
                                       ("lower_past_rows", (3, 3), _i64(4), _i64(0)),
                                       ("upper_past_cols", (3, 2), _i64(0), _i64(3)),
                                       ("vector_bound", (3, 3), _i64([1]), _i64(0))]:
        out.append(Spec(label, [random_values(rng, shape, dt), lower, upper]))
    return out


ALIGNS = ("RIGHT_LEFT", "LEFT_RIGHT", "LEFT_LEFT", "RIGHT_RIGHT")


def _pad_value(dt, v):
    return np.asarray(v, dt.as_numpy_dtype)


def matrix_diag(version):
    """Diagonals into matrices: the main one of vectors and batches
    (MatrixDiag), and for V2/V3 bands k of packed diagonals, rectangular
    outputs by num_rows/num_cols, padding values and V3's four alignments;
    no diagonal, lower > upper, a band of the wrong height and too few rows
    fail as TensorFlow's."""
    def gen(dt, rng):
        if version == 1:
            return [Spec(f"{shape}", [random_values(rng, shape, dt)], grad=_grad(dt, 0))
                    for shape in [(4,), (2, 3), (0, 2), (2, 0)]] + [
                Spec("scalar", [random_values(rng, (), dt)])]
        out = []
        for shape, k, rows, cols, align in [
                ((4,), 0, -1, -1, "RIGHT_LEFT"), ((2, 3), 1, -1, -1, "LEFT_RIGHT"),
                ((3, 4), [-1, 1], -1, -1, "RIGHT_LEFT"), ((2, 3, 4), [-2, 0], 6, -1, "LEFT_LEFT"),
                ((2, 3), -1, -1, 5, "RIGHT_RIGHT"), ((2, 3, 3), [0, 2], -1, -1, "LEFT_RIGHT"),
                ((3,), 0, 3, 5, "RIGHT_LEFT"), ((0, 3), 0, -1, -1, "RIGHT_LEFT")]:
            attrs = {"align": align} if version == 3 else {}
            out.append(Spec(f"{shape}.k{k}.{rows}x{cols}.{align if version == 3 else ''}",
                            [random_values(rng, shape, dt), _i32(k), _i32(rows), _i32(cols),
                             _pad_value(dt, 1 if dt != tf.string else b"p")],
                            attrs, grad=_grad(dt, 0)))
        for label, shape, k, rows, cols in [
                ("scalar", (), 0, -1, -1), ("lower_above_upper", (2, 3), [1, 0], -1, -1),
                ("band_height", (3, 4), [0, 1], -1, -1), ("rows_too_few", (3,), 0, 2, -1),
                ("cols_too_few", (3,), 1, -1, 3), ("rows_and_cols_too_many", (3,), 0, 4, 4),
                ("k_three", (3,), [0, 0, 0], -1, -1)]:
            out.append(Spec(label, [random_values(rng, shape, dt), _i32(k), _i32(rows),
                                    _i32(cols), _pad_value(dt, 0 if dt != tf.string else b"")]))
        return out
    return gen


def matrix_diag_part(version):
    """Bands of diagonals out of matrices: square, wide, tall, batched,
    empty; for V2/V3 a band k, a padding value and V3's alignments; ranks
    below 2, k out of the matrix and lower > upper fail as TensorFlow's."""
    def gen(dt, rng):
        pad = _pad_value(dt, 1 if dt != tf.string else b"p")
        if version == 1:
            return [Spec(f"{shape}", [random_values(rng, shape, dt)], grad=_grad(dt, 0))
                    for shape in [(3, 3), (2, 3, 4), (4, 2), (0, 2, 2)]] + [
                Spec("rank1", [random_values(rng, (3,), dt)])]
        out = []
        for shape, k, align in [((3, 3), 0, "RIGHT_LEFT"), ((2, 3, 4), [-1, 2], "RIGHT_LEFT"),
                                ((4, 2), [-3, 0], "LEFT_RIGHT"), ((3, 5), [1, 3], "LEFT_LEFT"),
                                ((2, 4, 3), [-2, -1], "RIGHT_RIGHT"), ((0, 2, 2), 0, "LEFT_LEFT"),
                                ((2, 2), 1, "RIGHT_LEFT")]:
            attrs = {"align": align} if version == 3 else {}
            out.append(Spec(f"{shape}.k{k}.{align if version == 3 else ''}",
                            [random_values(rng, shape, dt), _i32(k), pad], attrs,
                            grad=_grad(dt, 0)))
        for label, shape, k in [("rank1", (3,), 0), ("k_past_cols", (3, 3), 3),
                                ("k_past_rows", (3, 3), -3), ("lower_above_upper", (3, 3), [1, 0]),
                                ("k_matrix", (3, 3), [[0]])]:
            out.append(Spec(label, [random_values(rng, shape, dt), _i32(k), pad]))
        return out
    return gen


def matrix_set_diag(version):
    """Matrices with a band of diagonals replaced (the main one for V1);
    V3's alignments; a diagonal of the wrong shape, a rank-1 input and k out
    of the matrix fail as TensorFlow's."""
    def gen(dt, rng):
        def two(shape, dshape):
            return [random_values(rng, shape, dt), random_values(rng, dshape, dt)]
        if version == 1:
            return [Spec(f"{shape}", two(shape, dshape), grad=_grad(dt, 0, 1))
                    for shape, dshape in [((3, 3), (3,)), ((2, 3, 4), (2, 3)), ((0, 2, 2), (0, 2))]
                    ] + [Spec("wrong_diagonal", two((3, 3), (2,))),
                         Spec("rank1", two((3,), (3,)))]
        out = []
        for shape, dshape, k, align in [
                ((3, 3), (3,), 0, "RIGHT_LEFT"), ((2, 3, 4), (2, 4, 3), [-1, 2], "RIGHT_LEFT"),
                ((4, 2), (4, 2), [-3, 0], "LEFT_RIGHT"), ((3, 5), (3, 3), [1, 3], "LEFT_LEFT"),
                ((2, 4, 3), (2, 2, 3), [-2, -1], "RIGHT_RIGHT"),
                ((0, 2, 2), (0, 2), 0, "LEFT_LEFT")]:
            attrs = {"align": align} if version == 3 else {}
            out.append(Spec(f"{shape}.k{k}.{align if version == 3 else ''}",
                            two(shape, dshape) + [_i32(k)], attrs, grad=_grad(dt, 0, 1)))
        for label, shape, dshape, k in [("wrong_diagonal", (3, 3), (2,), 0),
                                        ("wrong_band", (3, 3), (2, 3), [0, 2]),
                                        ("rank1", (3,), (3,), 0), ("k_past_cols", (3, 3), (1,), 3),
                                        ("k_empty", (3, 3), (3,), np.zeros(0, np.int32))]:
            out.append(Spec(label, two(shape, dshape) + [_i32(k)]))
        return out
    return gen


def diag(dt, rng):
    """Diag: rank k to rank 2k (vectors, matrices, empty); a scalar fails as
    TensorFlow's."""
    return [Spec(f"{shape}", [random_values(rng, shape, dt)], grad=_grad(dt, 0))
            for shape in [(3,), (2, 2), (1, 2, 2), (0,)]] + [
        Spec("scalar", [random_values(rng, (), dt)])]


def diag_part(dt, rng):
    """DiagPart: rank 2k to rank k (a scalar is its own, though TensorFlow's
    shape function refuses it where the rank is known); odd ranks and
    unequal halves fail as TensorFlow's."""
    return [Spec(f"{shape}", [random_values(rng, shape, dt)], grad=_grad(dt, 0))
            for shape in [(3, 3), (2, 3, 2, 3), (0, 0)]] + [
        Spec(label, [random_values(rng, shape, dt)])
        for label, shape in [("scalar", ()), ("rank3", (2, 2, 2)), ("unequal", (2, 3))]]


def _well_conditioned(rng, shape, dt, kind="general"):
    """Square matrices far from singular: random ones plus n times the
    identity; "lower"/"upper" keep a triangle, "spd" is A A^T + n I."""
    n = shape[-1]
    a = rng.uniform(-1, 1, shape)
    eye = np.eye(n) * (n + 1)
    if kind == "spd":
        a = a @ np.swapaxes(a, -1, -2) + eye
    else:
        a = a + eye
        if kind == "lower":
            a = np.tril(a)
        elif kind == "upper":
            a = np.triu(a)
    return a.astype(dt.as_numpy_dtype)


def _rhs(rng, shape, dt):
    return rng.uniform(-2, 2, shape).astype(dt.as_numpy_dtype)


def matrix_inverse(dt, rng):
    """Inverses of matrices and batches, of their adjoints, of empty
    batches; a singular matrix, a non-square one and a vector fail as
    TensorFlow's."""
    out = [Spec(f"{shape}.{adjoint}", [_well_conditioned(rng, shape, dt)],
                {"adjoint": adjoint}, grad=_grad(dt, 0))
           for shape, adjoint in [((3, 3), False), ((2, 4, 4), True), ((1, 1), False),
                                  ((0, 3, 3), False), ((2, 0, 0), True)]]
    for label, x in [("singular", np.zeros((2, 2))), ("not_square", np.ones((2, 3))),
                     ("vector", np.ones(3))]:
        out.append(Spec(label, [x.astype(dt.as_numpy_dtype)]))
    return out


def determinant(dt, rng):
    """Determinants (MatrixDeterminant; LogMatrixDeterminant's sign and
    log |det|) of matrices and batches, negative ones, singular ones (0;
    sign 0 and -inf), empty matrices (1); a non-square batch fails as
    TensorFlow's."""
    neg = _well_conditioned(rng, (3, 3), dt)
    neg[[0, 1]] = neg[[1, 0]]
    out = [Spec(f"{shape}", [_well_conditioned(rng, shape, dt)], grad=_grad(dt, 0))
           for shape in [(3, 3), (2, 4, 4), (1, 1), (2, 0, 0)]]
    out.append(Spec("negative", [neg], grad=_grad(dt, 0)))
    out.append(Spec("singular", [np.ones((2, 3, 3), dt.as_numpy_dtype)]))
    out.append(Spec("not_square", [np.ones((2, 3), dt.as_numpy_dtype)]))
    return out


def matrix_solve(dt, rng):
    """A X = B and A^H X = B for batches; different batch shapes, rows that
    differ, a singular A and a non-square A fail as TensorFlow's."""
    out = []
    for a_shape, b_shape, adjoint in [((3, 3), (3, 2), False), ((2, 4, 4), (2, 4, 3), True),
                                      ((3, 3), (3, 0), False), ((0, 2, 2), (0, 2, 1), False)]:
        out.append(Spec(f"{a_shape}.{b_shape}.{adjoint}",
                        [_well_conditioned(rng, a_shape, dt), _rhs(rng, b_shape, dt)],
                        {"adjoint": adjoint}, grad=_grad(dt, 0, 1)))
    for label, a, b in [("batch", _well_conditioned(rng, (2, 3, 3), dt), _rhs(rng, (1, 3, 1), dt)),
                        ("rows", _well_conditioned(rng, (3, 3), dt), _rhs(rng, (2, 1), dt)),
                        ("singular", np.zeros((2, 2), dt.as_numpy_dtype), _rhs(rng, (2, 1), dt)),
                        ("not_square", np.ones((2, 3), dt.as_numpy_dtype), _rhs(rng, (2, 1), dt))]:
        out.append(Spec(label, [a, b]))
    return out


def matrix_triangular_solve(dt, rng):
    """Lower and upper, plain and adjoint, batches that broadcast (and
    TensorFlow's gradient sums them back); rows that differ and a
    non-square A fail as TensorFlow's."""
    out = []
    for a_shape, b_shape, lower, adjoint in [((3, 3), (3, 2), True, False),
                                             ((3, 3), (3, 2), False, False),
                                             ((2, 4, 4), (2, 4, 3), True, True),
                                             ((2, 4, 4), (2, 4, 1), False, True),
                                             ((2, 1, 3, 3), (4, 3, 2), True, False),
                                             ((3, 3), (0, 3, 2), False, False)]:
        out.append(Spec(f"{a_shape}.{b_shape}.{lower}.{adjoint}",
                        [_well_conditioned(rng, a_shape, dt, "lower" if lower else "upper"),
                         _rhs(rng, b_shape, dt)],
                        {"lower": lower, "adjoint": adjoint}, grad=_grad(dt, 0, 1)))
    for label, a, b in [("rows", _well_conditioned(rng, (3, 3), dt), _rhs(rng, (2, 1), dt)),
                        ("batch", _well_conditioned(rng, (2, 3, 3), dt), _rhs(rng, (3, 3, 1), dt)),
                        ("not_square", np.ones((2, 3), dt.as_numpy_dtype), _rhs(rng, (2, 1), dt))]:
        out.append(Spec(label, [a, b]))
    return out


def cholesky(dt, rng):
    """Cholesky factors of symmetric positive definite matrices and batches
    (the upper triangle is not read), empty batches; a matrix that is not
    positive definite gives NaNs as TensorFlow's does; a non-square one
    fails."""
    out = [Spec(f"{shape}", [_well_conditioned(rng, shape, dt, "spd")], grad=_grad(dt, 0))
           for shape in [(3, 3), (2, 4, 4), (1, 1), (0, 2, 2)]]
    skew = _well_conditioned(rng, (3, 3), dt, "spd")
    skew[0, 2] += 5  # only the lower triangle is read
    out.append(Spec("upper_ignored", [skew]))
    out.append(Spec("not_positive_definite",
                    [np.array([[1, 2], [2, 1]], dt.as_numpy_dtype)]))
    out.append(Spec("not_square", [np.ones((2, 3), dt.as_numpy_dtype)]))
    return out


def lu(dt, rng):
    """LU factors and permutations (int32 and int64) of matrices and
    batches, with rows that must be swapped; a non-square matrix fails as
    TensorFlow's."""
    out = []
    for shape, idx in [((3, 3), tf.int32), ((2, 4, 4), tf.int64), ((5, 5), tf.int32),
                       ((0, 2, 2), tf.int32)]:
        x = rng.uniform(-3, 3, shape).astype(dt.as_numpy_dtype)
        out.append(Spec(f"{shape}.{idx.name}", [x], {"output_idx_type": idx}))
    out.append(Spec("not_square", [np.ones((2, 3), dt.as_numpy_dtype)]))
    return out


# float32's tolerance, and float64's widened to float's precision.
CROP_TOL = (16.0, 1e6)
CROP_BOXES = np.array([[0.1, 0.2, 0.8, 0.9], [0.0, 0.0, 1.0, 1.0], [0.5, 0.6, 0.2, 0.1],
                       [-0.3, 0.4, 0.6, 1.3], [0.25, 0.25, 0.25, 0.25]], np.float32)


def crop_and_resize(dt, rng):
    """CropAndResize, bilinear and nearest: boxes inside, the whole image,
    flipped, partly outside (the extrapolation value there) and a point,
    crops of 1 x 1 and 3 x 4, boxes of each image; the gradients (image and
    boxes); a box index past the batch and a bad crop size fail. (The
    sampling is float arithmetic for every image type, and compared at
    float's precision.)"""
    image = _f(rng, (2, 5, 6, 3), dt)
    tol = CROP_TOL[dt == tf.float64]
    out = []
    for method in ("bilinear", "nearest"):
        for crop in ([3, 4], [1, 1], [4, 2]):
            out.append(Spec(f"{method}.{crop}", [image, CROP_BOXES, _i32([0, 1, 1, 0, 1]),
                                                  _i32(crop)],
                            {"method": method, "extrapolation_value": -2.5},
                            grad=_grad(dt, 0, 1), tol=tol))
    out.append(Spec("box_ind_past_batch", [image, CROP_BOXES[:1], _i32([2]), _i32([2, 2])]))
    out.append(Spec("bad_crop_size", [image, CROP_BOXES[:1], _i32([0]), _i32([0, 2])]))
    return out


def crop_and_resize_grad(kind):
    """CropAndResizeGradImage (with each method) and CropAndResizeGradBoxes:
    the sampled crops' gradients sent back to the image's pixels and to the
    boxes' edges."""
    def gen(dt, rng):
        grads = random_values(rng, (5, 3, 4, 2), tf.float32, edges=False)
        out = []
        for method in ("bilinear", "nearest"):
            if kind == "image":
                out.append(Spec(method, [grads, CROP_BOXES, _i32([0, 1, 1, 0, 1]),
                                         _i32([2, 5, 6, 2])], {"T": dt, "method": method},
                                tol=CROP_TOL[dt == tf.float64]))
            else:
                out.append(Spec(method, [grads, _f(rng, (2, 5, 6, 2), dt), CROP_BOXES,
                                         _i32([0, 1, 1, 0, 1])], {"method": method}, tol=64.0))
        return out
    return gen


def ragged_range(dt, rng):
    """RaggedRange: rows of each direction, empty rows, scalars broadcast
    against vectors, fractional steps, int64 splits; delta 0 and vectors of
    different lengths fail."""
    def v(x):
        return np.asarray(x, dt.as_numpy_dtype)
    out = []
    for label, starts, limits, deltas in [
            ("rows", [0, 5, 3, -5], [4, 1, 3, 5], [1, -2, 1, 3]), ("scalars", 2, 9, 2),
            ("broadcast", 0, [7, -1, 3], 2), ("steps", [1, 10], 20, [3, 4])]:
        for splits in (tf.int64, tf.int32):
            out.append(Spec(f"{label}.{splits.name}", [v(starts), v(limits), v(deltas)],
                            {"Tsplits": splits}))
    if dt.is_floating:
        out.append(Spec("fractional", [v(0), v([2.5, -1, 1]), v([0.5, -0.25, 0.1])]))
    out.append(Spec("zero_delta", [v(0), v(5), v(0)]))
    out.append(Spec("lengths_differ", [v([1, 2]), v([3, 4, 5]), v(1)]))
    return out


def qr(dt, rng):
    """Qr of tall, wide and square matrices and batches, thin and full, an
    empty batch, with their gradients; a vector fails."""
    out = []
    for shape in [(4, 3), (3, 5), (3, 3), (2, 5, 2), (0, 3, 2)]:
        for full in (False, True):
            # Neither TensorFlow nor minigraph has the gradient of a tall
            # matrix's full decomposition.
            tall_full = full and shape[-2] > shape[-1]
            out.append(Spec(f"{shape}.full{full}", [_f(rng, shape, dt)],
                            {"full_matrices": full}, tol=64.0,
                            grad=() if tall_full else _grad(dt, 0)))
    out.append(Spec("vector", [_f(rng, (3,), dt)]))
    return out


def self_adjoint_eig(dt, rng):
    """SelfAdjointEigV2 of symmetric matrices and batches (the upper
    triangle not read), with and without eigenvectors (then only the
    eigenvalues are compared: TensorFlow's second output is a placeholder
    scalar); a non-square matrix fails."""
    out = []
    for shape in [(3, 3), (2, 4, 4), (1, 1), (0, 2, 2)]:
        a = _well_conditioned(rng, shape, dt, "spd")
        for v in (True, False):
            out.append(Spec(f"{shape}.v{v}", [a], {"compute_v": v}, tol=256.0,
                            outputs=() if v else (0,), grad=_grad(dt, 0)))
    skew = _well_conditioned(rng, (3, 3), dt, "spd")
    skew[0, 2] += 5
    out.append(Spec("upper_ignored", [skew], {"compute_v": True}, tol=256.0,
                    grad=_grad(dt, 0)))
    out.append(Spec("not_square", [np.ones((2, 3), dt.as_numpy_dtype)]))
    return out


def svd(dt, rng):
    """Svd of tall, wide and square matrices and batches, thin and full,
    with and without U and V (then only the singular values are compared),
    an empty matrix, with their gradients; a vector fails."""
    out = []
    for shape in [(4, 3), (3, 5), (3, 3), (2, 5, 2), (2, 0, 3)]:
        for full in (False, True):
            for uv in (True, False):
                # Neither has the gradient of full matrices whose sides
                # differ by more than one.
                no_grad = full and uv and abs(shape[-2] - shape[-1]) > 1
                out.append(Spec(f"{shape}.full{full}.uv{uv}", [_f(rng, shape, dt)],
                                {"full_matrices": full, "compute_uv": uv}, tol=256.0,
                                outputs=() if uv else (0,),
                                grad=() if no_grad else _grad(dt, 0)))
    out.append(Spec("vector", [_f(rng, (3,), dt)]))
    return out


def pool(kind):
    def gen(dt, rng):
        out = []
        for xs, k, s, padding in [((1, 4, 4, 2), 2, 2, "VALID"), ((2, 5, 5, 3), 3, 2, "SAME"),
                                  ((1, 6, 5, 1), 2, 1, "SAME"), ((1, 3, 3, 1), 3, 3, "VALID")]:
            attrs = {"ksize": [1, k, k, 1], "strides": [1, s, s, 1], "padding": padding}
            x = _f(rng, xs, dt, True)
            if kind in ("MaxPool", "AvgPool"):
                out.append(Spec(f"{xs}.k{k}.s{s}.{padding}", [x], attrs, grad=_grad(dt, 0),
                                tol=4.0))
                continue
            with tf.Graph().as_default():
                y = tf.raw_ops.MaxPool(input=np.zeros(xs, np.float32), **attrs)
                ys = y.shape.as_list()
            x = _f(rng, xs, dt)  # distinct values: no ties between maxima
            g = _f(rng, ys, dt)
            grads = {}
            if kind in ("MaxPoolGrad", "MaxPoolGradGrad"):
                with tf.Graph().as_default(), tf.compat.v1.Session() as sess:
                    orig = sess.run(tf.raw_ops.MaxPool(input=x.astype(np.float64), **attrs))
                    orig = orig.astype(x.dtype)
                if kind == "MaxPoolGradGrad":
                    g = _f(rng, xs, dt)  # the gradient of MaxPoolGrad's output (x's shape)
                inputs = [x, orig, g]
                grads = dict(grad=_grad(dt, 2))
            else:
                inputs = [_i32(xs), g]
                grads = dict(grad=_grad(dt, 1), grad_const=(0,))
            out.append(Spec(f"{xs}.k{k}.s{s}.{padding}", inputs, attrs, tol=4.0, **grads))
        if kind == "MaxPoolGradGrad":
            out.append(Spec("grad_shape", [inputs[0], inputs[1], inputs[2][:, :1]], attrs))
            out.append(Spec("orig_output_shape", [inputs[0], inputs[1][:, :1], inputs[2]], attrs))
        return out
    return gen


def tridiagonal_mat_mul(dt, rng):
    """TridiagonalMatMul over batches, one equation and none, several
    right-hand sides; its gradients; diagonals of the wrong length or
    batch, ranks that differ and vectors fail."""
    out = []
    for batch, m, n in [((), 5, 3), ((2,), 4, 1), ((2, 3), 3, 2), ((), 1, 2), ((2,), 0, 2)]:
        diags = [_f(rng, (*batch, 1, m), dt) for _ in range(3)]
        out.append(Spec(f"{batch}.m{m}.n{n}", [*diags, _f(rng, (*batch, m, n), dt)],
                        grad=_grad(dt, 0, 1, 2, 3)))
    d = [_f(rng, (2, 1, 4), dt) for _ in range(3)]
    rhs = _f(rng, (2, 4, 3), dt)
    out.append(Spec("short_superdiag", [d[0][..., :3], d[1], d[2], rhs]))
    out.append(Spec("batch_differs", [d[0][:1], d[1], d[2], rhs]))
    out.append(Spec("two_rows", [np.concatenate([d[0], d[0]], 1), d[1], d[2], rhs]))
    out.append(Spec("ranks_differ", [d[0][:, 0], d[1], d[2], rhs]))
    out.append(Spec("vectors", [d[0][0, 0], d[1][0, 0], d[2][0, 0], rhs[0]]))
    return out


def _shaped_tridiagonal_solve(diags, rhs, attrs):
    """TridiagonalSolve with its output's shape set: TensorFlow's shape
    function leaves it unknown, and its gradient needs it."""
    def graph():
        d = tf.compat.v1.placeholder(tf.as_dtype(diags.dtype), diags.shape, name="diagonals")
        r = tf.compat.v1.placeholder(tf.as_dtype(rhs.dtype), rhs.shape, name="rhs")
        x = tf.raw_ops.TridiagonalSolve(diagonals=d, rhs=r, **attrs)
        x.set_shape(rhs.shape)
        return {d: diags, r: rhs}, [x]
    return graph


def tridiagonal_solve(dt, rng):
    """TridiagonalSolve with partial pivoting (rows that must swap), the
    Thomas algorithm and perturbed singular pivots; batches, one equation
    and none; singular systems give NaNs; its gradients; diagonals not of 3
    rows, counts that differ, batches that differ and perturb_singular
    without pivoting fail."""
    out = []
    for batch, m, k in [((), 5, 3), ((2,), 4, 1), ((2, 2), 3, 2), ((), 1, 2), ((2,), 0, 2)]:
        diags = _f(rng, (*batch, 3, m), dt)
        rhs = _f(rng, (*batch, m, k), dt)
        for pivoting, perturb in [(True, False), (False, False), (True, True)]:
            # Thomas without pivoting: diagonally dominant, so it is stable.
            d = diags.copy()
            if not pivoting:
                main = d[..., 1, :]
                d[..., 1, :] += (3 * np.sign(main.real) + (main == 0)).astype(d.dtype)
            attrs = {"partial_pivoting": pivoting, "perturb_singular": perturb}
            out.append(Spec(f"{batch}.m{m}.k{k}.pivot{pivoting}.perturb{perturb}", [d, rhs],
                            attrs, grad=_grad(dt, 0, 1), tol=4.0,
                            graph=_shaped_tridiagonal_solve(d, rhs, attrs)))
    if dt in F32_64:
        # Singular (a zero row), and one that needs pivots: a zero diagonal.
        singular = _f(rng, (3, 4), dt)
        singular[:, 2] = 0
        singular[1, 2] = 0
        singular[0, 3] = 0
        singular[2, 1] = 0
        rhs = _f(rng, (4, 2), dt)
        for pivoting, perturb in [(True, False), (False, False)]:
            out.append(Spec(f"singular.pivot{pivoting}", [singular, rhs],
                            {"partial_pivoting": pivoting, "perturb_singular": perturb}))
        swap = _f(rng, (3, 4), dt)
        swap[1, 0] = 0
        out.append(Spec("zero_first_pivot", [swap, rhs], {"partial_pivoting": True}))
    d = _f(rng, (2, 3, 4), dt)
    rhs = _f(rng, (2, 4, 3), dt)
    out.append(Spec("two_rows", [d[:, :2], rhs]))
    out.append(Spec("counts_differ", [d, rhs[:, :3]]))
    out.append(Spec("batch_differs", [d[:1], rhs]))
    out.append(Spec("rhs_vector", [d, rhs[..., 0]]))
    out.append(Spec("perturb_without_pivoting", [d, rhs],
                    {"partial_pivoting": False, "perturb_singular": True}))
    return out


def banded_triangular_solve(dt, rng):
    """BandedTriangularSolve, lower and upper, adjoint or not, one band to
    more bands than rows, batches broadcast; its gradients; a zero on the
    diagonal, empty inputs, counts that differ and batches that cannot
    broadcast fail."""
    out = []
    for bshape, rshape in [((3, 5), (5, 2)), ((2, 1, 4), (2, 4, 3)), ((1, 2, 4), (3, 4, 1)),
                           ((7, 5), (5, 2)), ((2, 3, 5), (5, 2))]:
        bands = _f(rng, bshape, dt)
        bands[..., 0, :] += (2 * np.sign(bands[..., 0, :].real) + (bands[..., 0, :] == 0)
                             ).astype(bands.dtype)
        bands[..., -1, :] += (2 * np.sign(bands[..., -1, :].real) + (bands[..., -1, :] == 0)
                              ).astype(bands.dtype)
        rhs = _f(rng, rshape, dt)
        for lower in (True, False):
            for adjoint in (False, True):
                # (More bands than rows: TensorFlow's gradient cannot take
                # the diagonals past the matrix. One band: its gradient
                # drops the band dimension, [..., M] for bands [..., 1, M],
                # where minigraph's keeps the input's shape.)
                grad = _grad(dt, 0, 1) if 1 < bshape[-2] <= bshape[-1] else ()
                out.append(Spec(f"{bshape}.{rshape}.lower{lower}.adjoint{adjoint}",
                                [bands, rhs], {"lower": lower, "adjoint": adjoint}, grad=grad,
                                tol=4.0))
    bands = _f(rng, (2, 3, 4), dt)
    bands[..., 0, :] = 1
    bands[..., -1, :] = 1
    rhs = _f(rng, (2, 4, 2), dt)
    zero = bands.copy()
    zero[0, 0, 2] = 0
    out.append(Spec("zero_diagonal", [zero, rhs], {"lower": True}))
    out.append(Spec("empty_rhs", [bands, rhs[:, :, :0]]))
    out.append(Spec("counts_differ", [bands, rhs[:, :3]]))
    out.append(Spec("batches_differ", [bands, _f(rng, (3, 4, 2), dt)]))
    out.append(Spec("vector", [bands[0, 0], rhs]))
    return out


def matrix_square_root(dt, rng):
    """MatrixSquareRoot of matrices with positive eigenvalues (A A^T plus
    a multiple of I), batches, 1x1 and empty, with its gradient; one with a
    negative eigenvalue (NaNs in TensorFlow's real Schur too); not square
    fails."""
    out = []
    for shape in [(3, 3), (2, 4, 4), (1, 1), (2, 0, 0)]:
        a = _f(rng, shape, dt)
        a = a @ np.conj(np.swapaxes(a, -1, -2)) + 0.5 * np.eye(shape[-1], dtype=a.dtype)
        out.append(Spec(f"{list(shape)}", [a.astype(_f(rng, (1,), dt).dtype)], tol=8.0,
                        grad=_grad(dt, 0) if shape[-1] else ()))
    out.append(Spec("not_square", [_f(rng, (2, 3), dt)]))
    return out


def matrix_logarithm(dt, rng):
    """MatrixLogarithm (complex only) of matrices near I and of general
    ones, batches, 1x1 and empty; not square fails."""
    out = []
    for shape in [(3, 3), (2, 4, 4), (1, 1), (2, 0, 0)]:
        a = (np.eye(shape[-1]) + 0.3 * _f(rng, shape, dt)).astype(_f(rng, (1,), dt).dtype)
        out.append(Spec(f"near_identity{list(shape)}", [a], tol=8.0))
    out.append(Spec("general", [_f(rng, (3, 3), dt) + 2 * np.eye(3, dtype=_f(rng, (1,), dt).dtype)],
                    tol=8.0))
    out.append(Spec("not_square", [_f(rng, (2, 3), dt)]))
    return out


def _eig_graph(a, out_type, compute_v):
    """Eig with what does not depend on the order of the eigenvalues or
    the phase of the eigenvectors, which the op leaves open (TensorFlow's
    Eigen, a newer commit than Debian's 3.4, orders them otherwise): the
    real and the imaginary parts each sorted, the vectors' norms, and
    whether A V = V diag(e) holds."""
    def graph():
        x = tf.compat.v1.placeholder(tf.as_dtype(a.dtype), a.shape, name="a")
        e, v = tf.raw_ops.Eig(input=x, compute_v=compute_v, Tout=out_type)
        n = a.shape[-1]
        fetch = [tf.math.top_k(tf.math.real(e), n).values, tf.math.top_k(tf.math.imag(e), n).values]
        if compute_v:
            xc = tf.cast(x, out_type)
            residual = tf.abs(tf.linalg.matmul(xc, v) - v * tf.expand_dims(e, -2))
            scale = 1e-3 * (1 + tf.reduce_max(tf.abs(xc)))
            fetch += [tf.reduce_sum(tf.abs(v) ** 2, -2), tf.reduce_all(residual < scale)]
        return {x: a}, fetch
    return graph


def eig(dt, rng):
    """Eig of general real and complex matrices (complex eigenvalues),
    eigenvectors or not, batches, 1x1 and empty, checked through
    _eig_graph with the gradients of its outputs; not square fails."""
    out_type = tf.complex128 if dt in (tf.float64, tf.complex128) else tf.complex64
    out = []
    for shape in [(3, 3), (2, 4, 4), (1, 1), (2, 0, 0)]:
        a = _f(rng, shape, dt)
        for v in (True, False):
            out.append(Spec(f"{list(shape)}.v{v}", [], tol=8.0, graph=_eig_graph(a, out_type, v),
                            grad=(0,)))
    out.append(Spec("not_square", [_f(rng, (2, 3), dt)], {"Tout": out_type}))
    return out


def compute_accidental_hits(dt, rng):
    """ComputeAccidentalHits: true classes found once, twice (a repeated
    true class) and not at all among the candidates, a repeated candidate
    (its last position), no rows, no candidates; true classes not of
    num_true columns and candidates not a vector fail."""
    truth = _i64([[1, 2], [3, 3], [0, 5]])
    sampled = _i64([2, 3, 7, 1, 3])
    out = [Spec("hits", [truth, sampled], {"num_true": 2}),
           Spec("no_rows", [truth[:0], sampled], {"num_true": 2}),
           Spec("no_candidates", [truth, sampled[:0]], {"num_true": 2}),
           Spec("one_true", [truth[:, :1], sampled], {"num_true": 1}),
           Spec("num_true_differs", [truth, sampled], {"num_true": 3}),
           Spec("candidates_matrix", [truth, sampled.reshape(1, 5)], {"num_true": 2})]
    return out


def candidate_sampler(op):
    """The candidate samplers, from two seed pairs: with and without
    unique draws, true classes of one and two columns, ranges of one value,
    a power of two (masked draws), others (rejected draws) and past 2^32
    (64-bit draws); every value of the range drawn uniquely (many redraws).
    FixedUnigram: weights with a distortion, reserved ids, a shard of
    three, zero weights. A unique batch larger than the range, a true class
    outside it, true classes not a matrix or not of num_true columns fail."""
    def gen(dt, rng):
        truth = _i64([[1, 2], [3, 3], [0, 5]])
        seeds = [(1, 2), (87654321, 5)]
        out = []

        def add(label, classes, num_sampled, range_max, unique, **extra):
            for seed, seed2 in seeds:
                attrs = {"num_true": int(classes.shape[1]) if classes.ndim == 2 else 1,
                         "num_sampled": num_sampled, "unique": unique,
                         "seed": seed, "seed2": seed2, **extra}
                if op != "AllCandidateSampler":
                    attrs["range_max"] = range_max
                out.append(Spec(f"{label}.{seed}", [classes], attrs))

        if op == "AllCandidateSampler":
            for unique in (False, True):
                add(f"all.{unique}", truth, 6, None, unique)
            add("one", truth[:, :1], 4, None, False)
            add("true_outside", truth, 5, None, False)
            add("no_rows", truth[:0], 3, None, True)
            return out
        fixed = {}
        if op == "FixedUnigramCandidateSampler":
            fixed = {"unigrams": [3.0, 1.0, 0.5, 2.0, 7.0, 1.0, 0.25, 4.0, 1.5, 2.5]}
        for unique in (False, True):
            add(f"ten.{unique}", truth, 6, 10, unique, **fixed)
            add(f"all_of_range.{unique}", truth[:, :1], 10, 10, unique, **fixed)
        add("one_column", truth[:, :1], 5, 10, False, **fixed)
        add("no_rows", truth[:0], 3, 10, True, **fixed)
        if op == "FixedUnigramCandidateSampler":
            add("distortion", truth, 6, 10, True, distortion=0.5, **fixed)
            add("reserved", truth, 5, 12, False, num_reserved_ids=2, **fixed)
            add("shard", _i64([[0], [2]]), 4, 3, False, num_shards=3, shard=1, **fixed)
            add("zero_weights", truth, 4, 6, True,
                unigrams=[0.0, 1.0, 0.0, 2.0, 3.0, 5.0])
            add("range_differs", truth, 4, 11, False, **fixed)
        else:
            add("range_1", _i64([[0], [0]]), 3, 1, False)
            add("range_16", truth, 7, 16, True)
            add("range_1000", truth, 20, 1000, False)
        if op in ("UniformCandidateSampler", "LogUniformCandidateSampler"):
            add("range_2_40", _i64([[1 << 39, 5]]), 8, 1 << 40, True)
        add("too_few_unique", truth, 11, 10, True, **fixed)
        add("true_outside", _i64([[1, 10]]), 3, 10, False, **fixed)
        add("true_negative", _i64([[1, -1]]), 3, 10, False, **fixed)
        add("num_true_differs", truth, 3, 10, False, **{**fixed, "num_true": 3})
        out.append(Spec("classes_vector", [_i64([1, 2])],
                        {"num_true": 1, "num_sampled": 2, "unique": False, "range_max": 10,
                         "seed": 1, "seed2": 2, **fixed}))
        return out
    return gen


FRACTIONAL_POOL_CASES = [((2, 5, 7, 3), [1, 1.44, 1.73, 1]), ((1, 8, 6, 2), [1, 3.5, 1.2, 1]),
                         ((2, 4, 6, 1), [1, 2, 2, 1]), ((1, 3, 3, 2), [1, 1, 1, 1])]


def fractional_pool(op):
    """FractionalMaxPool and FractionalAvgPool: fractional, integer and unit
    ratios, pseudo-random and shuffled cells, overlapping or not, from two
    seed pairs (deterministic, as a seeded op must be); their gradients.
    Seeds without `deterministic`, a ratio below 1, above a dimension, or
    over the batch or depth, and a 3-D input fail."""
    def gen(dt, rng):
        out = []
        for shape, ratio in FRACTIONAL_POOL_CASES:
            x = _f(rng, shape, dt)
            for pseudo in (False, True):
                for overlapping in (False, True):
                    for seed, seed2 in [(1, 2), (87654321, 5)]:
                        attrs = {"pooling_ratio": ratio, "pseudo_random": pseudo,
                                 "overlapping": overlapping, "deterministic": True,
                                 "seed": seed, "seed2": seed2}
                        out.append(Spec(f"{list(shape)}.{ratio}.{pseudo}.{overlapping}.{seed}",
                                        [x], attrs, grad=_grad(dt, 0)))
        x = _f(rng, (2, 5, 7, 3), dt)
        attrs = {"pooling_ratio": [1, 1.5, 1.5, 1], "deterministic": True, "seed": 1, "seed2": 2}
        out.append(Spec("seeds_not_deterministic", [x], {**attrs, "deterministic": False}))
        out.append(Spec("ratio_below_1", [x], {**attrs, "pooling_ratio": [1, 0.5, 1.5, 1]}))
        out.append(Spec("ratio_above_dim", [x], {**attrs, "pooling_ratio": [1, 6, 1.5, 1]}))
        out.append(Spec("ratio_on_depth", [x], {**attrs, "pooling_ratio": [1, 1.5, 1.5, 2]}))
        out.append(Spec("ratio_on_batch", [x], {**attrs, "pooling_ratio": [2, 1.5, 1.5, 1]}))
        out.append(Spec("five_ratios", [x], {**attrs, "pooling_ratio": [1, 1.5, 1.5, 1, 1]}))
        out.append(Spec("rank3", [x[0]], attrs))
        out.append(Spec("no_batch", [x[:0]], attrs))
        return out
    return gen


def _tf_fractional_pool(op, x, ratio, overlapping):
    with tf.Graph().as_default(), tf.compat.v1.Session() as sess:
        return sess.run(getattr(tf.raw_ops, op)(
            value=x, pooling_ratio=ratio, overlapping=overlapping, deterministic=True,
            seed=3, seed2=4))


def fractional_max_pool_grad(dt, rng):
    """FractionalMaxPoolGrad over the cells and output TensorFlow's
    FractionalMaxPool gives, overlapping or not; an output that is not the
    pooling of the input, a short or negative sequence, and an input and
    output of other batches fail."""
    out = []
    for shape, ratio in FRACTIONAL_POOL_CASES[:3]:
        x = _f(rng, shape, dt)
        for overlapping in (False, True):
            y, rows, cols = _tf_fractional_pool("FractionalMaxPool", x, ratio, overlapping)
            dy = _f(rng, y.shape, dt)
            out.append(Spec(f"{list(shape)}.{overlapping}", [x, y, dy, rows, cols],
                            {"overlapping": overlapping}))
    x = _f(rng, (2, 5, 7, 3), dt)
    y, rows, cols = _tf_fractional_pool("FractionalMaxPool", x, [1, 1.44, 1.73, 1], False)
    dy = _f(rng, y.shape, dt)
    out.append(Spec("not_the_pooling", [x, y + 1, dy, rows, cols]))
    out.append(Spec("short_rows", [x, y, dy, rows[:-1], cols]))
    out.append(Spec("negative_cols", [x, y, dy, rows, np.concatenate([[-1], cols[1:]])]))
    out.append(Spec("other_batch", [x[:1], y, dy, rows, cols]))
    return out


def fractional_avg_pool_grad(dt, rng):
    """FractionalAvgPoolGrad over the cells TensorFlow's FractionalAvgPool
    draws, overlapping or not; a shape not of four elements, a short or
    negative sequence fail."""
    out = []
    for shape, ratio in FRACTIONAL_POOL_CASES[:3]:
        x = _f(rng, shape, dt)
        for overlapping in (False, True):
            y, rows, cols = _tf_fractional_pool("FractionalAvgPool", x, ratio, overlapping)
            dy = _f(rng, y.shape, dt)
            out.append(Spec(f"{list(shape)}.{overlapping}", [_i64(shape), dy, rows, cols],
                            {"overlapping": overlapping}))
    x = _f(rng, (2, 5, 7, 3), dt)
    y, rows, cols = _tf_fractional_pool("FractionalAvgPool", x, [1, 1.44, 1.73, 1], False)
    dy = _f(rng, y.shape, dt)
    out.append(Spec("shape_of_3", [_i64([2, 5, 7]), dy, rows, cols]))
    out.append(Spec("short_rows", [_i64(x.shape), dy, rows[:-1], cols]))
    out.append(Spec("negative_rows", [_i64(x.shape), dy, np.concatenate([[-1], rows[1:]]), cols]))
    return out


def count_sparse_output(op):
    """DenseCountSparseOutput, SparseCountSparseOutput and
    RaggedCountSparseOutput (tf.sparse.bincount): counts, weights and binary
    output of int32 and int64 values, with minlength and maxlength (values
    past it and negative ones not counted), 1-D and 2-D, repeated values,
    empty rows. Negative values, weights of another shape, a matrix of no
    rows, indices outside the dense shape and splits that do not start at 0
    or end at the values' count fail."""
    def gen(dt, rng):
        out = []
        np_dt = dt.as_numpy_dtype
        data = np.array([[1, 3, 3, 0, 7], [2, 2, 6, 9, 2], [5, 0, 0, 0, 11]])
        weights = np.arange(1, 16).reshape(3, 5).astype(np_dt)
        attr_sets = [dict(minlength=-1, maxlength=-1, binary_output=False),
                     dict(minlength=20, maxlength=-1, binary_output=False),
                     dict(minlength=-1, maxlength=6, binary_output=False),
                     dict(minlength=-1, maxlength=-1, binary_output=True)]

        def inputs(vals, w, ragged_splits=(0, 5, 5, 15), shape=None):
            w = w if w is not None else np.zeros((0,), np_dt)
            if op == "DenseCountSparseOutput":
                return [vals, w]
            flat = vals.reshape(-1)
            wf = w.reshape(-1)
            if op == "SparseCountSparseOutput":
                if vals.ndim == 1:
                    idx = np.arange(len(flat)).reshape(-1, 1)
                    dense = [len(flat)] if shape is None else shape
                else:
                    idx = np.array([[r, c] for r in range(vals.shape[0])
                                    for c in range(vals.shape[1])])
                    dense = list(vals.shape) if shape is None else shape
                return [_i64(idx.reshape(-1, vals.ndim)), flat, _i64(dense), wf]
            return [_i64(ragged_splits), flat, wf]
        for it in (np.int32, np.int64):
            for k, attrs in enumerate(attr_sets):
                for weighted in (False, True):
                    vals = data.astype(it)
                    w = weights if weighted and not attrs["binary_output"] else None
                    out.append(Spec(f"matrix.{it.__name__}.{k}.{weighted}", inputs(vals, w), attrs))
                    if op != "RaggedCountSparseOutput":
                        out.append(Spec(f"vector.{it.__name__}.{k}.{weighted}",
                                        inputs(vals[1], None if w is None else w[1]), attrs))
        attrs = attr_sets[0]
        vals = data.astype(np.int64)
        out.append(Spec("negative", inputs(np.where(vals == 9, -1, vals), None), attrs))
        out.append(Spec("weights_differ", inputs(vals, weights[:, :4].copy()) if op ==
                        "DenseCountSparseOutput" else inputs(vals, weights[:2]), attrs))
        if op == "DenseCountSparseOutput":
            out.append(Spec("no_rows", inputs(vals[:0], None), attrs))
            out.append(Spec("rank3", inputs(vals.reshape(3, 5, 1), None), attrs))
        elif op == "SparseCountSparseOutput":
            out.append(Spec("index_outside", inputs(vals, None, shape=[3, 4]), attrs))
            out.append(Spec("empty_rows", inputs(vals, None, shape=[6, 12]), attrs))
        else:
            out.append(Spec("empty_rows", inputs(vals, None, (0, 0, 5, 5, 15, 15)), attrs))
            out.append(Spec("splits_from_1", inputs(vals, None, (1, 5, 15)), attrs))
            out.append(Spec("splits_short", inputs(vals, None, (0, 5, 14)), attrs))
        return out
    return gen


def draw_bounding_boxes(v2):
    """DrawBoundingBoxes (default colors) and V2 (given colors, cycled;
    none, the default table): grey, RGB and RGBA images, boxes inside,
    across the edges, outside, inverted and overlapping; fewer colors'
    channels than the depth, depth 2 and images of rank 3 fail."""
    def gen(dt, rng):
        out = []
        boxes = np.array([[[0.2, 0.1, 0.8, 0.9], [0, 0, 1, 1], [-0.3, 0.5, 0.4, 1.6],
                           [1.2, 0.2, 1.5, 0.6], [0.7, 0.5, 0.2, 0.6]],
                          [[0.1, 0.1, 0.5, 0.5], [0.45, 0.45, 0.9, 0.95], [0, 0, 0, 0],
                           [-2, -2, -1, -1], [0.3, 0.3, 0.6, 0.7]]], np.float32)
        colors = np.array([[1, 0, 0, 1], [0, 0.5, 1, 1], [0.25, 0.75, 0, 0.5]], np.float32)
        for depth in (1, 3, 4):
            images = _f(rng, (2, 6, 7, depth), dt)
            if v2:
                for label, c in [("colors", colors), ("no_colors", colors[:0])]:
                    out.append(Spec(f"depth{depth}.{label}", [images, boxes, c]))
            else:
                out.append(Spec(f"depth{depth}", [images, boxes]))
        images = _f(rng, (2, 6, 7, 3), dt)
        extra = [colors] if v2 else []
        if v2:
            out.append(Spec("few_channels", [images, boxes, colors[:, :2]]))
        out.append(Spec("depth2", [_f(rng, (2, 6, 7, 2), dt), boxes] + extra))
        out.append(Spec("rank3", [images[0], boxes] + extra))
        return out
    return gen


ARGMAX_POOL_CASES = [((1, 4, 4, 2), 2, 2, "VALID"), ((2, 5, 5, 3), 3, 2, "SAME"),
                     ((2, 6, 5, 1), 2, 1, "SAME"), ((0, 3, 3, 1), 3, 3, "VALID")]


def max_pool_with_argmax(dt, rng):
    """MaxPoolWithArgmax: both paddings, strides, the batch in the index or
    not, int32 and int64 indices, ties (the first wins); its gradient; an
    empty batch, a 3-D input and a pool over the depth fail."""
    out = []
    for xs, k, s, padding in ARGMAX_POOL_CASES:
        for inc in (False, True):
            attrs = {"ksize": [1, k, k, 1], "strides": [1, s, s, 1], "padding": padding,
                     "include_batch_in_index": inc}
            out.append(Spec(f"{xs}.k{k}.s{s}.{padding}.batch{inc}", [_f(rng, xs, dt)], attrs,
                            grad=_grad(dt, 0), outputs=(0, 1)))
    ties = np.maximum(_f(rng, (1, 4, 4, 2), dt), 0).astype(_f(rng, (1,), dt).dtype)
    attrs = {"ksize": [1, 2, 2, 1], "strides": [1, 1, 1, 1], "padding": "SAME"}
    out.append(Spec("ties", [ties], attrs))
    out.append(Spec("int32_index", [_f(rng, (2, 4, 4, 2), dt)], {**attrs, "Targmax": tf.int32}))
    out.append(Spec("rank3", [_f(rng, (4, 4, 2), dt)], attrs))
    out.append(Spec("depth_pool", [_f(rng, (1, 4, 4, 2), dt)], {**attrs, "ksize": [1, 2, 2, 2]}))
    return out


def max_pool_grad_with_argmax(dt, rng):
    """MaxPoolGradWithArgmax over the argmax TensorFlow computes, the batch
    in the index or not; a grad of the wrong shape fails. (An argmax outside
    the image aborts TensorFlow's process: minigraph's InvalidArgument is in
    conv_kernels_test.)"""
    out = []
    for xs, k, s, padding in ARGMAX_POOL_CASES:
        for inc in (False, True):
            attrs = {"ksize": [1, k, k, 1], "strides": [1, s, s, 1], "padding": padding,
                     "include_batch_in_index": inc}
            x = _f(rng, xs, dt)
            with tf.Graph().as_default(), tf.compat.v1.Session() as sess:
                argmax = tf.raw_ops.MaxPoolWithArgmax(input=x.astype(np.float64), **attrs)[1]
                argmax = (sess.run(argmax) if x.size else
                          np.zeros(argmax.shape.as_list(), np.int64))
            g = _f(rng, argmax.shape, dt)
            out.append(Spec(f"{xs}.k{k}.s{s}.{padding}.batch{inc}", [x, g, argmax], attrs))
    x = _f(rng, (1, 4, 4, 2), dt)
    attrs = {"ksize": [1, 2, 2, 1], "strides": [1, 2, 2, 1], "padding": "VALID"}
    out.append(Spec("bad_grad", [x, _f(rng, (1, 3, 3, 2), dt), np.zeros((1, 2, 2, 2),
                                                                       np.int64)], attrs))
    return out


def extract_image_patches(dt, rng):
    """ExtractImagePatches: sizes, strides and rates, both paddings, a
    vision transformer's patches (stride = size), an empty batch and depth;
    its gradient. ksizes, strides or rates over the batch or depth, below 1,
    a window longer than the input and a 3-D input fail."""
    out = []
    base = {"ksizes": [1, 2, 3, 1], "strides": [1, 2, 2, 1], "rates": [1, 2, 1, 1]}
    for xs, attrs in [((1, 5, 6, 2), base), ((2, 4, 4, 3), {**base, "rates": [1, 1, 1, 1]}),
                      ((1, 7, 5, 1), {"ksizes": [1, 3, 3, 1], "strides": [1, 1, 3, 1],
                                      "rates": [1, 2, 2, 1]}),
                      ((2, 8, 8, 3), {"ksizes": [1, 4, 4, 1], "strides": [1, 4, 4, 1],
                                      "rates": [1, 1, 1, 1]}),
                      ((0, 4, 4, 2), base), ((1, 4, 4, 0), base)]:
        for padding in ("SAME", "VALID"):
            label = f"{xs}.{attrs['ksizes']}.{attrs['strides']}.{attrs['rates']}.{padding}"
            out.append(Spec(label, [_f(rng, xs, dt, True)], {**attrs, "padding": padding},
                            grad=_grad(dt, 0)))
    x = _f(rng, (1, 5, 6, 2), dt)
    for label, change in [("ksize_batch", {"ksizes": [2, 2, 3, 1]}),
                          ("stride_depth", {"strides": [1, 1, 1, 2]}),
                          ("rate_0", {"rates": [1, 0, 1, 1]}),
                          ("ksize_0", {"ksizes": [1, 2, 0, 1]}),
                          ("longer", {"ksizes": [1, 9, 1, 1]})]:
        out.append(Spec(label, [x], {**base, "padding": "VALID", **change}))
    out.append(Spec("rank3", [x[0]], {**base, "padding": "SAME"}))
    return out


POOL3D_CASES = [
    # input, ksize, strides, padding
    ((1, 4, 4, 4, 2), (2, 2, 2), (2, 2, 2), "VALID"),
    ((2, 5, 5, 4, 3), (3, 3, 3), (2, 2, 2), "SAME"),
    ((1, 6, 5, 3, 1), (2, 3, 2), (1, 1, 1), "SAME"),
    ((1, 3, 3, 3, 1), (3, 3, 3), (3, 3, 3), "VALID"),
    ((0, 4, 4, 4, 2), (2, 2, 2), (2, 2, 2), "SAME"),
    # A SAME window longer than the input: TensorFlow's 3-D gradients widen
    # the first windows to the whole input (TENSORFLOW_BUGS).
    ((1, 4, 3, 3, 2), (5, 2, 2), (1, 1, 1), "SAME.longer_than_input"),
]


def pool3d(kind):
    """MaxPool3D, AvgPool3D and their gradients (TensorFlow's CPU kernels
    are float32's and bfloat16's, minigraph's float32's): both paddings, strides, an empty batch,
    ties (the max's gradient goes to every tied position); bad ksize,
    strides, ranks, format and shapes of grad and orig_output."""
    def gen(dt, rng):
        out = []
        for xs, k, s, padding in POOL3D_CASES:
            attrs = {"ksize": [1, *k, 1], "strides": [1, *s, 1], "padding": padding.split(".")[0]}
            name = f"{xs}.k{k}.s{s}.{padding}"
            if kind in ("MaxPool3D", "AvgPool3D"):
                out.append(Spec(name, [_f(rng, xs, dt)], attrs, grad=_grad(dt, 0), tol=4.0))
                continue
            for ties in (False, True) if kind == "MaxPool3DGrad" else (False,):
                x = _f(rng, xs, dt)
                if ties:  # after a ReLU: windows of zeros
                    x = np.maximum(x, 0).astype(x.dtype)
                with tf.Graph().as_default(), tf.compat.v1.Session() as sess:
                    y = sess.run(tf.raw_ops.MaxPool3D(input=x.astype(np.float32), **attrs))
                    y = y.astype(x.dtype)
                if kind == "AvgPool3DGrad":
                    inputs = [_i32(xs), _f(rng, y.shape, dt)]
                elif kind == "MaxPool3DGrad":
                    inputs = [x, y, _f(rng, y.shape, dt)]
                else:  # MaxPool3DGradGrad: a gradient of the input's shape
                    inputs = [x, y, _f(rng, xs, dt)]
                out.append(Spec(name + (".ties" if ties else ""), inputs, attrs, tol=4.0,
                                grad=_grad(dt, 1 if kind == "AvgPool3DGrad" else 2)))
        xs = (1, 4, 4, 4, 2)
        attrs = {"ksize": [1, 2, 2, 2, 1], "strides": [1, 2, 2, 2, 1], "padding": "VALID"}
        x, y = _f(rng, xs, dt), _f(rng, (1, 2, 2, 2, 2), dt)
        first = {"MaxPool3D": [x], "AvgPool3D": [x], "AvgPool3DGrad": [_i32(xs), y],
                 "MaxPool3DGrad": [x, y, y], "MaxPool3DGradGrad": [x, y, x]}[kind]
        out += [Spec("ksize_batch", first, {**attrs, "ksize": [2, 2, 2, 2, 1]}),
                Spec("strides_depth", first, {**attrs, "strides": [1, 2, 2, 2, 2]}),
                Spec("ksize_zero", first, {**attrs, "ksize": [1, 0, 2, 2, 1]}),
                Spec("ncdhw", first, {**attrs, "data_format": "NCDHW"})]
        if kind in ("MaxPool3D", "AvgPool3D"):
            out.append(Spec("rank4", [x[0]], attrs))
            # Windows of 2 x 2 x 2 holding infinities, NaNs (which never win
            # a max) and float's lowest (which TensorFlow's average leaves
            # out; TENSORFLOW_BUGS).
            low = np.finfo(np.float32).min
            for label, window in [("infinities", [np.inf, 1, -np.inf, 2, 3, -1, 0, 5]),
                                  ("negative_infinities", [-np.inf] * 8),
                                  ("nan", [1, np.nan, 2, 3, np.nan, 0, -1, 4]),
                                  ("lowest", [low, 1, 2, 3, 4, 5, 6, 7])]:
                v = np.asarray(window, np.float32).astype(x.dtype)
                out.append(Spec(label, [np.broadcast_to(v.reshape(1, 2, 2, 2, 1),
                                                        (1, 2, 2, 2, 2)).copy()], attrs))
        elif kind == "AvgPool3DGrad":
            out += [Spec("shape_of_4", [_i32(xs[:4]), y], attrs),
                    Spec("negative_shape", [_i32([1, -4, 4, 4, 2]), y], attrs),
                    Spec("grad_depth", [_i32(xs), y[..., :1]], attrs),
                    # TensorFlow reads past this grad (TENSORFLOW_BUGS).
                    Spec("grad_smaller", [_i32(xs), y[:, :1]], attrs)]
        else:
            out += [Spec("orig_output_shape", [x, y[:, :1], first[2]], attrs),
                    Spec("rank4", [x[0], y, first[2]], attrs)]
            if kind == "MaxPool3DGrad":
                out.append(Spec("grad_shape", [x, y, y[:, :1]], attrs))
        return out
    return gen


def lrn(dt, rng):
    return [Spec(f"{xs}.r{r}", [_f(rng, xs, dt)], {"depth_radius": r, "bias": b, "alpha": a,
                                                   "beta": be}, grad=_grad(dt, 0), tol=10.0)
            for xs, r, b, a, be in [((1, 2, 2, 5), 2, 1.0, 1.0, 0.5),
                                    ((2, 3, 3, 8), 1, 2.0, 0.1, 0.75),
                                    ((1, 1, 1, 3), 5, 1.0, 1e-3, 0.75)]]


def lrn_grad(dt, rng):
    out = []
    for xs, r, b, a, be in [((1, 2, 2, 5), 2, 1.0, 1.0, 0.5), ((2, 3, 3, 8), 1, 2.0, 0.1, 0.75)]:
        x = _f(rng, xs, dt)
        attrs = {"depth_radius": r, "bias": b, "alpha": a, "beta": be}
        with tf.Graph().as_default(), tf.compat.v1.Session() as sess:
            y = sess.run(tf.raw_ops.LRN(input=x.astype(np.float32), **attrs)).astype(x.dtype)
        out.append(Spec(f"{xs}.r{r}", [_f(rng, xs, dt), x, y], attrs, tol=10.0))
    return out


def fused_batch_norm(version):
    def gen(dt, rng):
        out = []
        for xs, training in [((2, 3, 3, 4), True), ((2, 3, 3, 4), False), ((4, 1, 1, 2), True),
                             ((1, 2, 2, 3), False)]:
            c = xs[-1]
            x = _f(rng, xs, dt)
            mean = np.zeros(0, np.float32) if training else _f(rng, (c,), tf.float32)
            var = np.zeros(0, np.float32) if training else \
                np.abs(_f(rng, (c,), tf.float32)) + 0.5
            attrs = {"epsilon": 1e-3, "is_training": training}
            inputs = [x, _f(rng, (c,), tf.float32), _f(rng, (c,), tf.float32), mean, var]
            out.append(Spec(f"{xs}.training{training}", inputs, attrs, outputs=(0, 1, 2),
                            grad=_grad(dt, 0, 1, 2), tol=20.0))
        return out
    return gen


def fused_batch_norm_grad(version):
    def gen(dt, rng):
        out = []
        for xs, training in [((2, 3, 3, 4), True), ((2, 3, 3, 4), False), ((4, 1, 1, 2), True)]:
            c = xs[-1]
            x = _f(rng, xs, dt)
            mean = x.astype(np.float32).reshape(-1, c).mean(0)
            var = x.astype(np.float32).reshape(-1, c).var(0) + 0.1
            inputs = [_f(rng, xs, dt), x, _f(rng, (c,), tf.float32), mean, var]
            if version == 3:
                inputs.append(np.zeros(0, np.float32))
            out.append(Spec(f"{xs}.training{training}", inputs,
                            {"epsilon": 1e-3, "is_training": training}, outputs=(0, 1, 2),
                            tol=20.0, grad=_grad(dt, 0, 1, 2)))
        return out
    return gen


def softmax_xent(dt, rng):
    out = []
    for s in [(3, 5), (1, 1), (0, 4), (2, 7)]:
        logits = _f(rng, s, dt)
        labels = rng.random(s).astype(logits.dtype)
        labels = labels / np.maximum(labels.sum(-1, keepdims=True), 1e-3)
        out.append(Spec(f"{list(s)}", [logits, labels.astype(logits.dtype)], grad=_grad(dt, 0),
                        tol=10.0))
    out.append(Spec("broadcast_labels", [_f(rng, (3, 4), dt), _f(rng, (1, 4), dt)], tol=10.0))
    out.append(Spec("mismatch", [_f(rng, (3, 4), dt), _f(rng, (3, 5), dt)]))
    return out


def sparse_softmax_xent(dt, rng):
    out = []
    for s in [(3, 5), (1, 1), (0, 4), (4, 7)]:
        for it in (np.int32, np.int64):
            labels = rng.integers(0, s[1], s[0]).astype(it)
            out.append(Spec(f"{list(s)}.{np.dtype(it).name}", [_f(rng, s, dt), labels],
                            grad=_grad(dt, 0), tol=10.0))
    out.append(Spec("label_out_of_range", [_f(rng, (2, 3), dt), _i32([0, 3])]))
    out.append(Spec("negative_label", [_f(rng, (2, 3), dt), _i32([-1, 0])]))
    return out


def random_op(dt, rng):
    out = []
    for shape in ([3], [2, 5], [0], [], [1001]):
        for seed, seed2 in [(1, 2), (87654321, 0), (5, 1 << 30)]:
            for st in (np.int32, np.int64):
                out.append(Spec(f"{shape}.{seed}.{seed2}.{np.dtype(st).name}",
                                [np.asarray(shape, st)],
                                {"dtype": dt, "seed": seed, "seed2": seed2}))
    out.append(Spec("negative_shape", [_i32([-2])], {"dtype": dt, "seed": 1, "seed2": 1}))
    return out


def _multinomial_logits(rng, dt):
    """Logits of a few small batches: plain, one class far ahead, an
    infinite and a NaN logit (left out of the CDF), and none finite; none
    for integers (TensorFlow's kernels take floating point only)."""
    if not dt.is_floating:
        return []
    plain = _f(rng, (3, 5), dt)
    odd = _f(rng, (4, 3), dt)
    odd[0, 1] = 30
    odd[1, 2] = -np.inf
    odd[2, 0] = np.nan
    odd[3, :] = -np.inf
    return [("plain", plain), ("odd", odd)]


def multinomial(dt, rng):
    """Multinomial (tf.random.categorical): samples for each row, int32
    and int64 classes, no samples; a vector of logits, no classes and a
    negative count fail."""
    out = []
    for label, logits in _multinomial_logits(rng, dt):
        for samples in (7, 0):
            for out_dt in (tf.int32, tf.int64):
                for seed, seed2 in [(1, 2), (87654321, 5)]:
                    out.append(Spec(f"{label}.{samples}.{out_dt.name}.{seed}",
                                    [logits, np.int32(samples)],
                                    {"seed": seed, "seed2": seed2, "output_dtype": out_dt}))
    attrs = {"seed": 1, "seed2": 2}
    if not dt.is_floating:
        return out
    out.append(Spec("vector", [_f(rng, (5,), dt), np.int32(3)], attrs))
    out.append(Spec("no_classes", [_f(rng, (2, 0), dt), np.int32(3)], attrs))
    out.append(Spec("negative_count", [_f(rng, (2, 3), dt), np.int32(-1)], attrs))
    return out


def random_shuffle(dt, rng):
    """RandomShuffle of vectors, matrices (whole rows move) and rank 3,
    one row, one element, a scalar and no rows, from two seed pairs."""
    out = []
    for shape in [(7,), (5, 3), (4, 2, 2), (1, 3), (1,), (), (0, 2), (40,)]:
        x = random_values(rng, shape, dt, edges=False) if dt is not None else None
        for seed, seed2 in [(1, 2), (87654321, 5)]:
            out.append(Spec(f"{list(shape)}.{seed}", [x], {"seed": seed, "seed2": seed2}))
    return out


TRUNCATED_PARAMS = [  # mean, stddev, minval, maxval: each of the three samplers
    (0.0, 1.0, -2.0, 2.0),        # normal proposals
    (0.0, 1.0, 0.2, 0.9),         # uniform proposals
    (0.0, 1.0, 2.5, np.inf),      # exponential proposals, one-sided
    (1.0, 0.5, -np.inf, 0.3),     # mirrored: the bound below the mean
    (-3.0, 2.0, 1.0, 4.0),        # far from the mean, exponential
]


def parameterized_truncated_normal(stateless):
    """ParameterizedTruncatedNormal and its stateless form: each sampler
    (normal, uniform and exponential proposals, a bound on either side),
    one parameter set for all and one per row (broadcast, for the stateless
    op), two seeds, outputs small enough that TensorFlow samples in one
    shard; the stateless op's gradients with respect to its parameters. A
    deviation of 0, an empty range, parameters that do not
    broadcast and a shape that does not end with theirs fail."""
    def gen(dt, rng):
        np_dt = dt.as_numpy_dtype
        out = []

        def spec(label, shape, params, seed=(1, 2), grad=False):
            ps = [np.asarray(p, np_dt) for p in params]
            if stateless:
                ins = [_i32(shape), _i64(seed)] + ps
                out.append(Spec(f"{label}.{seed[0]}", ins,
                                grad=_grad(dt, 2, 3, 4, 5) if grad else ()))
            else:
                out.append(Spec(f"{label}.{seed[0]}", [_i32(shape)] + ps,
                                {"seed": seed[0], "seed2": seed[1]}))
        for seed in [(1, 2), (87654321, 5)]:
            for k, p in enumerate(TRUNCATED_PARAMS):
                spec(f"sampler{k}", [3, 4], p, seed, grad=True)
            per_row = [np.array([p[i] for p in TRUNCATED_PARAMS]) for i in range(4)]
            spec("per_row", [4, 5] if stateless else [5, 4], per_row, seed, grad=True)
            if stateless:
                spec("broadcast", [2, 3, 5], [per_row[0], np.float32(1.0), per_row[2],
                                              per_row[3]], seed, grad=True)
        spec("zero_stddev", [2, 3], (0.0, 0.0, -1.0, 1.0))
        spec("empty_range", [2, 3], (0.0, 1.0, 1.0, 1.0))
        spec("both_infinite", [2, 3], (0.0, 1.0, -np.inf, np.inf))
        spec("no_samples", [0, 3], TRUNCATED_PARAMS[0])
        if stateless:
            spec("not_ending", [5, 4], [np.zeros(3), 1.0, -1.0, 1.0])
        else:
            spec("rows_differ", [4, 3], [np.zeros(3), 1.0, -1.0, 1.0])
        return out
    return gen


def random_gamma_grad(dt, rng):
    """RandomGammaGrad (d sample / d alpha of a gamma draw, Eigen's
    functor): alphas below, at and above 1 and large, samples near 0, near
    the mode and in the tail, broadcast between the two; no elements."""
    np_dt = dt.as_numpy_dtype
    alphas = np.array([0.2, 1.0, 2.5, 40.0, 300.0], np_dt)
    samples = np.array([1e-4, 0.5, 2.0, 38.0, 350.0], np_dt)
    out = [Spec("pairs", [alphas, samples], tol=4.0),
           Spec("grid", [alphas.reshape(5, 1), samples.reshape(1, 5)], tol=4.0),
           Spec("scalar_alpha", [np.asarray(1.5, np_dt), samples], tol=4.0),
           Spec("empty", [alphas[:0], samples[:0]])]
    return out


def random_gamma(dt, rng):
    """RandomGamma for alphas below, at and above 1 (and large), scalar and
    matrix alphas, several draws each, no draws and no alphas, from two
    seed pairs; its gradient (with respect to alpha)."""
    out = []
    alphas = np.array([0.3, 1.0, 2.5, 40.0], dt.as_numpy_dtype)
    for shape, alpha in [((5,), alphas), ((2, 3), alphas.reshape(2, 2)),
                         ((3,), np.asarray(0.7, dt.as_numpy_dtype)), ((0,), alphas),
                         ((4,), alphas[:0])]:
        for seed, seed2 in [(1, 2), (87654321, 5)]:
            out.append(Spec(f"{list(shape)}.{list(np.shape(alpha))}.{seed}",
                            [_i32(shape), alpha], {"seed": seed, "seed2": seed2},
                            grad=_grad(dt, 1), tol=4.0))
    return out


def stateless_random_gamma(v3):
    """StatelessRandomGammaV2 (seed) and V3 (key, counter, alg): alphas
    below, at and above 1, broadcast along the leading dimensions, no
    draws; its gradient; a shape that does not end with alpha's, no alphas
    and a bad seed or algorithm fail."""
    def gen(dt, rng):
        out = []
        alphas = np.array([0.3, 1.0, 2.5, 40.0], dt.as_numpy_dtype)

        def inputs(shape, alpha, seed=(1, 2), alg=1):
            if not v3:
                return [_i32(shape), np.asarray(seed, np.int64), alpha]
            with tf.Graph().as_default(), tf.compat.v1.Session() as sess:
                key, counter = sess.run(tf.raw_ops.StatelessRandomGetKeyCounter(
                    seed=np.asarray(seed, np.int64)))
            return [_i32(shape), key, counter, np.int32(alg), alpha]
        for shape, alpha in [((4,), alphas), ((3, 4), alphas), ((2, 2, 2), alphas.reshape(2, 2)),
                             ((0, 4), alphas), ((5,), np.asarray(0.5, dt.as_numpy_dtype))]:
            for seed in [(1, 2), (-7, 1 << 40)]:
                out.append(Spec(f"{list(shape)}.{list(np.shape(alpha))}.{seed[0]}",
                                inputs(shape, alpha, seed), grad=_grad(dt, 4 if v3 else 2),
                                tol=4.0))
        out.append(Spec("not_ending", inputs((4, 3), alphas)))
        out.append(Spec("no_alphas", inputs((0,), alphas[:0])))
        if v3:
            out.append(Spec("bad_alg", inputs((4,), alphas, alg=7)))
        else:
            out.append(Spec("bad_seed", [_i32((4,)), np.asarray([1, 2, 3], np.int64), alphas]))
        return out
    return gen


POISSON_RATES = [0.0, 0.5, 3.0, 9.9, 10.0, 25.0, 1e4]


def random_poisson(stateless):
    """RandomPoissonV2 (output [shape..., rate...]) and
    StatelessRandomPoisson (output `shape`, ending with the rates'): rates
    for Knuth's product (below 10) and for the transformed rejection, zero
    and infinite rates, every rate and output dtype pair, no draws; a
    shape not ending with the rates' fails (stateless)."""
    def gen(dt, rng):
        out = []
        rate_types = [np.float32, np.float64, np.int32, np.int64]
        out_types = [tf.float32, tf.float64, tf.int32, tf.int64]
        for rt in rate_types:
            rates = np.array(POISSON_RATES, rt)
            if rt in (np.float32, np.float64):
                rates = np.append(rates, rt(np.inf))
            for ot in out_types:
                for shape in [(3, len(rates)), (0, len(rates))]:
                    if stateless:
                        inputs = [_i32(shape), np.asarray([5, 9], np.int64), rates]
                        attrs = {"dtype": ot}
                    else:
                        inputs = [_i32(shape[:1]), rates]
                        attrs = {"dtype": ot, "seed": 3, "seed2": 4}
                    out.append(Spec(f"{rt.__name__}.{ot.name}.{list(shape)}", inputs, attrs))
        if stateless:
            out.append(Spec("not_ending", [_i32((3, 2)), np.asarray([5, 9], np.int64),
                                           np.array(POISSON_RATES, np.float32)],
                            {"dtype": tf.float32}))
        return out
    return gen


def stateless_random_binomial(dt, rng):
    """StatelessRandomBinomial: counts and probs for the inversion (small
    count * p) and for BTRS, p above 1/2 (drawn for 1 - p), p of 0 and 1,
    counts of 0, a NaN p for float outputs, broadcast counts and probs,
    every output dtype, no draws; shapes that do not end with the broadcast
    and counts and probs that do not broadcast fail."""
    if not dt.is_floating:  # (TensorFlow's kernels take floating counts)
        return []
    t = dt.as_numpy_dtype
    counts = np.array([5, 40, 200, 1000, 0, 30, 50], t)
    probs = np.array([0.3, 0.5, 0.1, 0.9, 0.4, 0.0, 1.0], t)
    seed = np.asarray([7, 11], np.int64)
    out = []
    for ot in (tf.float32, tf.float64, tf.int32, tf.int64):
        for shape in [(3, 7), (0, 7)]:
            out.append(Spec(f"{ot.name}.{list(shape)}", [_i32(shape), seed, counts, probs],
                            {"dtype": ot}))
        out.append(Spec(f"{ot.name}.broadcast", [_i32((2, 3, 7)), seed, counts[None, :].repeat(
            3, 0), probs], {"dtype": ot}))
    out.append(Spec("nan", [_i32((2, 2)), seed, counts[:2], np.array([np.nan, 0.5], t)],
                    {"dtype": tf.float32}))
    out.append(Spec("scalar_params", [_i32((4,)), seed, t(12), t(0.7)], {"dtype": tf.int32}))
    out.append(Spec("not_ending", [_i32((3, 2)), seed, counts, probs], {"dtype": tf.int32}))
    out.append(Spec("no_broadcast", [_i32((3, 7)), seed, counts, probs[:3]],
                    {"dtype": tf.int32}))
    return out


def stateless_multinomial(dt, rng):
    """StatelessMultinomial: samples for each row from int32 and int64
    seeds; a seed not of shape [2] fails."""
    out = []
    for label, logits in _multinomial_logits(rng, dt):
        for out_dt in (tf.int32, tf.int64):
            for seed in (np.asarray([1, 2], np.int32), np.asarray([-7, 1 << 40], np.int64)):
                out.append(Spec(f"{label}.{out_dt.name}.{seed.dtype}.{seed[0]}",
                                [logits, np.int32(9), seed], {"output_dtype": out_dt}))
    if not dt.is_floating:
        return out
    out.append(Spec("bad_seed", [_f(rng, (2, 3), dt), np.int32(3), _i64([1, 2, 3])]))
    return out


GENERATORS["BiasAdd"] = (bias_add, "T")
GENERATORS["BiasAddGrad"] = (bias_add_grad, "T")
GENERATORS["BroadcastTo"] = (broadcast_to, "T")
GENERATORS["BroadcastGradientArgs"] = (broadcast_gradient_args, "T")
GENERATORS["ConcatV2"] = (concat(True), "T")
GENERATORS["Concat"] = (concat(False), "T")
GENERATORS["ConcatOffset"] = (concat_offset, None)
GENERATORS["ExpandDims"] = (expand_dims, "T")
GENERATORS["Fill"] = (fill, "T")
GENERATORS["Gather"] = (gather(1), "Tparams")
GENERATORS["GatherV2"] = (gather(2), "Tparams")
GENERATORS["ResourceGather"] = None  # with the variable ops
GENERATORS["GatherNd"] = (gather_nd, "Tparams")
GENERATORS["InvertPermutation"] = (invert_permutation, "T")
GENERATORS["OneHot"] = (one_hot, "T")
GENERATORS["Pack"] = (pack, "T")
GENERATORS["Unpack"] = (unpack, "T")
GENERATORS["Pad"] = (pad(False), "T")
GENERATORS["PadV2"] = (pad(True), "T")
GENERATORS["Range"] = (range_op, "Tidx")
GENERATORS["Reshape"] = (reshape, "T")
GENERATORS["ReverseV2"] = (reverse, "T")
GENERATORS["Select"] = (select(False), "T")
GENERATORS["SelectV2"] = (select(True), "T")
GENERATORS["Slice"] = (slice_op, "T")
GENERATORS["Split"] = (split, "T")
GENERATORS["SplitV"] = (split_v, "T")
GENERATORS["Squeeze"] = (squeeze, "T")
GENERATORS["StridedSlice"] = (strided_slice, "T")
GENERATORS["StridedSliceGrad"] = (strided_slice_grad, "T")
GENERATORS["Tile"] = (tile, "T")
GENERATORS["Transpose"] = (transpose, "T")
GENERATORS["Unique"] = (unique(False), "T")
GENERATORS["UniqueWithCounts"] = (unique(True), "T")
GENERATORS["Where"] = (where, "T")
GENERATORS["DynamicPartition"] = (dynamic_partition, "T")
GENERATORS["DynamicStitch"] = (dynamic_stitch, "T")
GENERATORS["ParallelDynamicStitch"] = (dynamic_stitch, "T")
GENERATORS["UnsortedSegmentSum"] = (unsorted_segment_sum, "T")
GENERATORS.update(_ops(["UnsortedSegmentMax", "UnsortedSegmentMin", "UnsortedSegmentProd"],
                       unsorted_segment_reduction))
GENERATORS.update(_ops(["SegmentSum", "SegmentMean", "SegmentMax", "SegmentMin",
                        "SegmentProd"], segment_reduction))
for _kind in ("Sum", "Mean", "SqrtN"):
    GENERATORS["SparseSegment" + _kind] = (sparse_segment(False), "T")
    GENERATORS[f"SparseSegment{_kind}WithNumSegments"] = (sparse_segment(True), "T")
    GENERATORS[f"SparseSegment{_kind}Grad"] = (sparse_segment_grad, "T")
    GENERATORS[f"SparseSegment{_kind}GradV2"] = (sparse_segment_grad, "T")
GENERATORS["InTopKV2"] = (in_top_k, None)
GENERATORS["DenseBincount"] = (dense_bincount, "T")
GENERATORS["SparseToDense"] = (sparse_to_dense, "T")
GENERATORS["SparseTensorDenseMatMul"] = (sparse_dense_matmul, "T")
for _op in ("SparseReduceSum", "SparseReduceSumSparse", "SparseReduceMax", "SparseReduceMaxSparse"):
    GENERATORS[_op] = (sparse_reduce(_op), "T")
GENERATORS["SparseAdd"] = (sparse_add, "T")
GENERATORS["SparseAddGrad"] = (sparse_add_grad, "T")
GENERATORS["SparseTensorDenseAdd"] = (sparse_tensor_dense_add, "T")
for _op in ("SparseDenseCwiseAdd", "SparseDenseCwiseMul", "SparseDenseCwiseDiv"):
    GENERATORS[_op] = (sparse_dense_cwise, "T")
GENERATORS["SparseSoftmax"] = (sparse_softmax, "T")
GENERATORS["SparseReorder"] = (sparse_reorder, "T")
GENERATORS["SparseSlice"] = (sparse_slice, "T")
GENERATORS["SparseSliceGrad"] = (sparse_slice_grad, "T")
GENERATORS["SparseSplit"] = (sparse_split, "T")
GENERATORS["SparseConcat"] = (sparse_concat, "T")
GENERATORS["SparseSparseMaximum"] = (sparse_sparse_max_min, "T")
GENERATORS["SparseSparseMinimum"] = (sparse_sparse_max_min, "T")
GENERATORS["SerializeSparse"] = (serialize_sparse(False), "T")
GENERATORS["SerializeManySparse"] = (serialize_sparse(True), "T")
GENERATORS["DeserializeSparse"] = (deserialize_sparse(False), None)
GENERATORS["DeserializeManySparse"] = (deserialize_sparse(True), None)
GENERATORS["SetSize"] = (set_size, "T")
GENERATORS["CTCBeamSearchDecoder"] = (ctc_beam_search_decoder, "T")
GENERATORS["CTCGreedyDecoder"] = (ctc_greedy_decoder, "T")
GENERATORS["Cross"] = (cross, "T")
GENERATORS["ComputeAccidentalHits"] = (compute_accidental_hits, None)
GENERATORS["CombinedNonMaxSuppression"] = (combined_non_max_suppression, None)
GENERATORS["ExtractGlimpse"] = (extract_glimpse("ExtractGlimpse"), None)
GENERATORS["ExtractGlimpseV2"] = (extract_glimpse("ExtractGlimpseV2"), None)
for _op in ("SampleDistortedBoundingBox", "SampleDistortedBoundingBoxV2",
            "StatelessSampleDistortedBoundingBox"):
    GENERATORS[_op] = (sample_distorted_bounding_box(_op), "T")
for _op in ("DenseCountSparseOutput", "SparseCountSparseOutput", "RaggedCountSparseOutput"):
    GENERATORS[_op] = (count_sparse_output(_op), "output_type")
GENERATORS["FractionalMaxPool"] = (fractional_pool("FractionalMaxPool"), "T")
GENERATORS["FractionalAvgPool"] = (fractional_pool("FractionalAvgPool"), "T")
GENERATORS["FractionalMaxPoolGrad"] = (fractional_max_pool_grad, "T")
GENERATORS["FractionalAvgPoolGrad"] = (fractional_avg_pool_grad, "T")
for _op in ["UniformCandidateSampler", "LogUniformCandidateSampler",
            "LearnedUnigramCandidateSampler", "ThreadUnsafeUnigramCandidateSampler",
            "FixedUnigramCandidateSampler", "AllCandidateSampler"]:
    GENERATORS[_op] = (candidate_sampler(_op), None)
GENERATORS["DrawBoundingBoxes"] = (draw_bounding_boxes(False), "T")
GENERATORS["DrawBoundingBoxesV2"] = (draw_bounding_boxes(True), "T")
GENERATORS["MatrixSquareRoot"] = (matrix_square_root, "T")
GENERATORS["MatrixLogarithm"] = (matrix_logarithm, "T")
GENERATORS["Eig"] = (eig, "T")
GENERATORS["TridiagonalMatMul"] = (tridiagonal_mat_mul, "T")
GENERATORS["TridiagonalSolve"] = (tridiagonal_solve, "T")
GENERATORS["BandedTriangularSolve"] = (banded_triangular_solve, "T")
GENERATORS["MaxPoolWithArgmax"] = (max_pool_with_argmax, "T")
GENERATORS["MaxPoolGradWithArgmax"] = (max_pool_grad_with_argmax, "T")
GENERATORS["ExtractImagePatches"] = (extract_image_patches, "T")
GENERATORS["DenseToDenseSetOperation"] = (dense_to_dense_set_operation, "T")
GENERATORS["DenseToSparseSetOperation"] = (dense_to_sparse_set_operation, "T")
GENERATORS["SparseToSparseSetOperation"] = (sparse_to_sparse_set_operation, "T")
GENERATORS["SparseReshape"] = (sparse_reshape, None)
GENERATORS["SparseFillEmptyRows"] = (sparse_fill_empty_rows, "T")
GENERATORS["PlaceholderWithDefault"] = (placeholder_with_default, "dtype")
GENERATORS["Conv2D"] = (conv2d, "T")
GENERATORS["Conv2DBackpropInput"] = (conv2d_backprop("input"), "T")
GENERATORS["Conv2DBackpropFilter"] = (conv2d_backprop("filter"), "T")
GENERATORS["Conv3D"] = (conv3d, "T")
GENERATORS["Conv3DBackpropInputV2"] = (conv3d_backprop("input"), "T")
GENERATORS["Conv3DBackpropFilterV2"] = (conv3d_backprop("filter"), "T")
GENERATORS["MatrixBandPart"] = (matrix_band_part, "T")
GENERATORS["Einsum"] = (einsum, "T")
GENERATORS.update(_ops(["Xdivy", "MulNoNan"], binary(tol=2.0)))
GENERATORS.update(_ops(["Xlogy", "Xlog1py"], binary(low=0.05, high=4.0, tol=2.0)))
GENERATORS["ClipByValue"] = (clip_by_value, "T")
GENERATORS["MirrorPad"] = (mirror_pad(False), "T")
GENERATORS["MirrorPadGrad"] = (mirror_pad(True), "T")
GENERATORS.update(_ops(["BitwiseAnd", "BitwiseOr", "BitwiseXor", "LeftShift", "RightShift"],
                       binary(grad=False)))
GENERATORS["Invert"] = (unary(grad=False), "T")
GENERATORS["Complex"] = (complex_op, "T")
GENERATORS.update(_ops(["Real", "Imag", "ComplexAbs", "Angle"], complex_parts(True)))
GENERATORS["Conj"] = (complex_parts(False), "T")
for _rank, _suffix in [(1, ""), (2, "2D"), (3, "3D")]:
    GENERATORS["FFT" + _suffix] = (fft(_rank), "Tcomplex")
    GENERATORS["IFFT" + _suffix] = (fft(_rank), "Tcomplex")
    GENERATORS["RFFT" + _suffix] = (real_fft(_rank, True), "Treal")
    GENERATORS["IRFFT" + _suffix] = (real_fft(_rank, False), "Tcomplex")
GENERATORS["SpaceToBatchND"] = (space_batch_nd(SPACE_TO_BATCH, BAD_SPACE_TO_BATCH), "T")
GENERATORS["BatchToSpaceND"] = (space_batch_nd(BATCH_TO_SPACE, BAD_BATCH_TO_SPACE), "T")
GENERATORS["SpaceToBatch"] = (space_batch(True), "T")
GENERATORS["BatchToSpace"] = (space_batch(False), "T")
GENERATORS["SpaceToDepth"] = (space_depth(True), "T")
GENERATORS["DepthToSpace"] = (space_depth(False), "T")
GENERATORS["ScatterNd"] = (scatter_nd, "T")
GENERATORS["Roll"] = (roll, "T")
GENERATORS["ReverseSequence"] = (reverse_sequence, "T")
GENERATORS["Empty"] = (empty, "dtype")
GENERATORS["SobolSample"] = (sobol_sample, "dtype")
GENERATORS["Bucketize"] = (bucketize, "T")
GENERATORS["ListDiff"] = (list_diff, "T")
for _op in ("TensorScatterUpdate", "TensorScatterAdd", "TensorScatterSub", "TensorScatterMin",
            "TensorScatterMax", "ScatterNdNonAliasingAdd"):
    GENERATORS[_op] = (tensor_scatter(_op), "T")
GENERATORS["EnsureShape"] = (ensure_shape, "T")
GENERATORS["Bitcast"] = (bitcast, "T")
GENERATORS["BroadcastArgs"] = (broadcast_args, "T")
for _v, _suffix in [(1, ""), (2, "V2"), (3, "V3")]:
    GENERATORS["MatrixDiag" + _suffix] = (matrix_diag(_v), "T")
    GENERATORS["MatrixDiagPart" + _suffix] = (matrix_diag_part(_v), "T")
    GENERATORS["MatrixSetDiag" + _suffix] = (matrix_set_diag(_v), "T")
GENERATORS["MatrixInverse"] = (matrix_inverse, "T")
GENERATORS["MatrixDeterminant"] = (determinant, "T")
GENERATORS["LogMatrixDeterminant"] = (determinant, "T")
GENERATORS["MatrixSolve"] = (matrix_solve, "T")
GENERATORS["MatrixTriangularSolve"] = (matrix_triangular_solve, "T")
GENERATORS["Cholesky"] = (cholesky, "T")
GENERATORS["Lu"] = (lu, "T")
GENERATORS["Qr"] = (qr, "T")
GENERATORS["RaggedRange"] = (ragged_range, "T")
GENERATORS["CropAndResize"] = (crop_and_resize, "T")
GENERATORS["NonMaxSuppression"] = (non_max_suppression(1), None)
GENERATORS.update({f"NonMaxSuppressionV{v}": (non_max_suppression(v), "T")
                   for v in (2, 3, 4, 5)})
GENERATORS["NonMaxSuppressionWithOverlaps"] = (non_max_suppression_with_overlaps, None)
GENERATORS["CropAndResizeGradImage"] = (crop_and_resize_grad("image"), "T")
GENERATORS["CropAndResizeGradBoxes"] = (crop_and_resize_grad("boxes"), "T")
GENERATORS["SelfAdjointEigV2"] = (self_adjoint_eig, "T")
GENERATORS["Svd"] = (svd, "T")
GENERATORS["Diag"] = (diag, "T")
GENERATORS["DiagPart"] = (diag_part, "T")
GENERATORS["DepthwiseConv2dNative"] = (depthwise_conv2d, "T")
GENERATORS["Dilation2D"] = (dilation2d, "T")
GENERATORS.update(_ops(["Dilation2DBackpropInput", "Dilation2DBackpropFilter"],
                       dilation2d_backprop))
GENERATORS["DepthwiseConv2dNativeBackpropInput"] = (depthwise_conv2d_backprop("input"), "T")
GENERATORS["DepthwiseConv2dNativeBackpropFilter"] = (depthwise_conv2d_backprop("filter"), "T")
GENERATORS.update({k: (pool(k), "T") for k in ("MaxPool", "AvgPool", "MaxPoolGrad",
                                                "MaxPoolGradGrad", "AvgPoolGrad")})
GENERATORS.update({k: (pool3d(k), "T") for k in ("MaxPool3D", "AvgPool3D", "MaxPool3DGrad",
                                                  "AvgPool3DGrad", "MaxPool3DGradGrad")})
GENERATORS["LRN"] = (lrn, "T")
GENERATORS["LRNGrad"] = (lrn_grad, "T")
GENERATORS["FusedBatchNorm"] = (fused_batch_norm(1), "T")
GENERATORS["FusedBatchNormV2"] = (fused_batch_norm(2), "T")
GENERATORS["FusedBatchNormV3"] = (fused_batch_norm(3), "T")
GENERATORS["FusedBatchNormGrad"] = (fused_batch_norm_grad(1), "T")
GENERATORS["FusedBatchNormGradV2"] = (fused_batch_norm_grad(2), "T")
GENERATORS["FusedBatchNormGradV3"] = (fused_batch_norm_grad(3), "T")
GENERATORS["SoftmaxCrossEntropyWithLogits"] = (softmax_xent, "T")
GENERATORS["SparseSoftmaxCrossEntropyWithLogits"] = (sparse_softmax_xent, "T")
GENERATORS.update({k: (random_op, "dtype") for k in ("RandomUniform", "RandomStandardNormal",
                                                      "TruncatedNormal")})
GENERATORS["Multinomial"] = (multinomial, "T")
GENERATORS["RandomShuffle"] = (random_shuffle, "T")
GENERATORS["RandomGammaGrad"] = (random_gamma_grad, "T")
GENERATORS["ParameterizedTruncatedNormal"] = (parameterized_truncated_normal(False), "dtype")
GENERATORS["StatelessParameterizedTruncatedNormal"] = (parameterized_truncated_normal(True),
                                                       "dtype")
GENERATORS["RandomGamma"] = (random_gamma, "T")
GENERATORS["RandomPoissonV2"] = (random_poisson(False), None)
GENERATORS["StatelessRandomPoisson"] = (random_poisson(True), None)
GENERATORS["StatelessRandomBinomial"] = (stateless_random_binomial, "T")
GENERATORS["StatelessRandomGammaV2"] = (stateless_random_gamma(False), "dtype")
GENERATORS["StatelessRandomGammaV3"] = (stateless_random_gamma(True), "dtype")
GENERATORS["StatelessMultinomial"] = (stateless_multinomial, "T")
del GENERATORS["ResourceGather"]


# ---------------------------------------------------------------- strings

WORDS = np.array([b"", b"Hello", b"a,b,,c", b"  two  spaces ", b"\xc3\x89T\xc3\xa9", b"x1y22z333",
                  b"UPPER lower", b"\x00nul"], dtype=object)


def _strings(shape=(8,)):
    if not shape:
        return np.array(WORDS[1], dtype=object)
    return WORDS[: int(np.prod(shape))].reshape(shape)


def as_string(dt, rng):
    out = []
    x = random_values(rng, (9,), dt, edges=True)
    for attrs in [{}, {"precision": 3}, {"scientific": True}, {"shortest": True},
                  {"width": 8}, {"width": 6, "fill": "0"}, {"precision": 2, "scientific": True}]:
        if not dt.is_floating and (attrs.get("precision") or attrs.get("scientific")
                                   or attrs.get("shortest")):
            continue
        out.append(Spec(".".join(f"{k}{v}" for k, v in attrs.items()) or "default", [x], attrs))
    return out


def string_join(dt, rng):
    a, b = _strings((2, 4)), _strings((2, 4))[:, ::-1].copy()
    return [Spec("two", [[a, b]], {"separator": "-"}),
            Spec("scalar_broadcast", [[a, np.array(b"!", dtype=object)]]),
            Spec("one", [[a]], {"separator": ","}),
            Spec("mismatch", [[a, _strings((3,))]])]


def string_lower(dt, rng):
    return [Spec("ascii", [np.array([b"Hello", b"UPPER lower", b"", b"x1Y"], dtype=object)])]


def reduce_join(dt, rng):
    x = _strings((2, 4))
    out = []
    for axes in ([0], [1], [0, 1], [1, 0], [-1], [], 1):
        for keep in (False, True):
            out.append(Spec(f"{axes}.keep{keep}", [x, np.asarray(axes, np.int32)],
                            {"keep_dims": keep, "separator": "|" if keep else ""}))
    out.append(Spec("empty", [np.zeros((0, 3), dtype=object), np.asarray([0], np.int32)]))
    out.append(Spec("out_of_range", [x, np.asarray([2], np.int32)]))
    out.append(Spec("duplicate", [x, np.asarray([0, 0], np.int32)]))
    return out


def unsorted_segment_join(dt, rng):
    """UnsortedSegmentJoin: rows into segments (some never named, some
    twice), ids of rank 1 and 2, empty strings (the separator follows only
    a non-empty join); ids outside the segments, ids of the wrong shape or
    rank and a scalar id fail."""
    words = np.array([b"", b"a", b"bc", b"", b"d", b"ef"], dtype=object)
    out = []
    for count_type in (np.int32, np.int64):
        c = count_type.__name__
        out.append(Spec(f"rows.{c}", [words.reshape(3, 2),
                                      np.asarray([2, 0, 2], dt.as_numpy_dtype),
                                      np.asarray(4, count_type)], {"separator": ","}))
        out.append(Spec(f"vector.{c}", [words, np.asarray([1, 1, 0, 1, 0, 1], dt.as_numpy_dtype),
                                        np.asarray(2, count_type)], {"separator": "--"}))
    out.append(Spec("ids_rank2", [words.reshape(2, 3, 1), np.asarray([[0, 1, 0], [1, 1, 0]],
                                                                      dt.as_numpy_dtype),
                                  np.asarray(2, np.int32)]))
    out.append(Spec("no_rows", [words[:0], np.zeros(0, dt.as_numpy_dtype),
                                np.asarray(3, np.int32)]))
    out.append(Spec("id_outside", [words, np.asarray([0, 1, 2, 3, 0, 0], dt.as_numpy_dtype),
                                   np.asarray(3, np.int32)]))
    out.append(Spec("id_negative", [words, np.asarray([0, -1, 0, 0, 0, 0], dt.as_numpy_dtype),
                                    np.asarray(3, np.int32)]))
    out.append(Spec("ids_shape", [words.reshape(3, 2), np.asarray([0, 1], dt.as_numpy_dtype),
                                  np.asarray(3, np.int32)]))
    out.append(Spec("ids_rank", [words, np.zeros((6, 1), dt.as_numpy_dtype),
                                 np.asarray(3, np.int32)]))
    out.append(Spec("ids_scalar", [words, np.asarray(0, dt.as_numpy_dtype),
                                   np.asarray(3, np.int32)]))
    return out


def string_split(dt, rng):
    out = []
    for sep, maxsplit in [("", -1), (",", -1), (",", 1), ("  ", -1), ("ab", 2)]:
        out.append(Spec(f"sep{sep!r}.max{maxsplit}",
                        [_strings(), np.array(sep.encode(), dtype=object)], {"maxsplit": maxsplit}))
    return out


def string_split_v1(dt, rng):
    """StringSplit (TensorFlow 1's): at any byte of the delimiter, into
    bytes with an empty one, empty pieces kept or skipped; a matrix input
    and a vector delimiter fail."""
    out = []
    for sep in ("", ",", " ,", "ab"):
        for skip in (True, False):
            out.append(Spec(f"sep{sep!r}.skip{skip}",
                            [_strings(), np.array(sep.encode(), dtype=object)],
                            {"skip_empty": skip}))
    out.append(Spec("matrix", [_strings((2, 4)), np.array(b",", dtype=object)]))
    out.append(Spec("vector_delimiter", [_strings(), np.array([b","], dtype=object)]))
    return out


def string_to_number(dt, rng):
    """StringToNumber to each type: signs, whitespace around, exponents,
    hexadecimal, inf and nan for floats, values past the type's range;
    each kind of text it refuses, one per case."""
    good = [b"1.5", b" 2 ", b"-3", b"+4", b"1e3", b"inf", b"-Inf", b"nan", b"0x10", b"3000000000",
            b"1e40", b"1e-50", b"  -0.0", b".5", b"5.", b"infinity", b"\t7\n", b"0010",
            b"2147483647", b"-2147483648", b"2147483648", b"9223372036854775808"]
    bad = [b"", b"abc", b"1.5x", b"12 3", b"1,5", b"1_0", b"-", b"e5"]
    out = []
    for t in (tf.float32, tf.float64, tf.int32, tf.int64):
        for i, text in enumerate(good):
            out.append(Spec(f"{t.name}.{i}", [np.array([text, b"7"], dtype=object)],
                            {"out_type": t}))
        for i, text in enumerate(bad):
            out.append(Spec(f"{t.name}.bad{i}", [np.array([b"1", text], dtype=object)],
                            {"out_type": t}))
    out.append(Spec("matrix", [np.array([[b"1", b"2"], [b"-3.5", b"4e1"]], dtype=object)],
                    {"out_type": tf.float32}))
    return out


def substr(dt, rng):
    """Substr in bytes and UTF-8 characters: positions from the start and
    the end, lengths past the end and negative, pos and len per element and
    broadcast against the input; positions out of range and pos and len of
    different shapes fail as TensorFlow's."""
    words = np.array([b"hello", b"ab\xc3\xa9cd", b"xyz", "\U0001f600!".encode()], dtype=object)
    index = _i32 if dt == tf.int32 else _i64
    out = []
    for unit in ("BYTE", "UTF8_CHAR"):
        for label, x, pos, length in [
                ("scalar", words, 1, 2), ("from_end", words, -2, 5), ("negative_len", words, 0, -1),
                ("zero", words, 0, 0), ("per_element", words, [0, 1, 3, 1], [1, 3, 0, 9]),
                ("broadcast", words.reshape(2, 2), [1, 0], [2, 1]),
                ("broadcast_column", words[:2], [[0], [1]], [[1], [2]]),
                ("scalar_input", np.array(b"abc", dtype=object), [0, 1], [1, 1]),
                ("pos_past_end", words, 4, 1), ("pos_before_start", words, -6, 1),
                ("invalid_utf8", np.array([b"\xff\xfe", b"a\x80b"], dtype=object), 1, 1)]:
            out.append(Spec(f"{unit}.{label}", [x, index(pos), index(length)], {"unit": unit}))
    out.append(Spec("shapes_differ", [words, index([1, 0, 0, 0]), index(1)]))
    return out


def hash_bucket(dt, rng):
    return [Spec(f"n{n}", [_strings((2, 4))], {"num_buckets": n}) for n in (1, 7, 1 << 20)]


def hash_bucket_strong(dt, rng):
    """StringToHashBucketStrong: SipHash under keys of zeros, small, large
    and negative halves, strings of 0 to 20 bytes (every tail length); a
    key of three fails."""
    out = []
    words = np.array([b"", b"a", b"abcdefg", b"abcdefgh", b"abcdefghijklmnopqrst",
                      "\u00e9t\u00e9".encode()], dtype=object)
    for n in (1, 7, 1 << 40):
        for key in ([0, 0], [1, 2], [-1, 1 << 62]):
            out.append(Spec(f"n{n}.{key}", [_strings((2, 4))], {"num_buckets": n, "key": key}))
            out.append(Spec(f"words.n{n}.{key}", [words], {"num_buckets": n, "key": key}))
    out.append(Spec("key_of_3", [_strings((2,))], {"num_buckets": 5, "key": [1, 2, 3]}))
    return out


UNICODE_TEXTS = ["h\u00e9llo", "\u65e5\u672c\u8a9e", "a\U0001F600b", "", "\x01tab\tend",
                 "\u0394\u03b9\u03ac"]
# Malformed UTF-8: a stray continuation byte, a cut sequence, an overlong
# form, an encoded surrogate, a byte never valid.
BAD_UTF8 = [b"ab\xffc", b"x\xc3", b"\xc0\xaf!", b"\xed\xa0\x80z", b"\xe2\x82"]


def _unicode_errors():
    return [{"errors": "replace"}, {"errors": "replace", "replacement_char": 63},
            {"errors": "ignore"}, {"errors": "strict"},
            {"errors": "replace", "replace_control_characters": True},
            {"errors": "ignore", "replace_control_characters": True}]


def _encoded(texts, encoding):
    codec = {"UTF-8": "utf-8", "UTF-16-BE": "utf-16-be", "UTF-32-BE": "utf-32-be",
             "UTF-16": "utf-16", "ISO-8859-1": "latin-1"}[encoding]
    return np.array([t.encode(codec) for t in texts], dtype=object)


def unicode_decode(offsets):
    """UnicodeDecode and UnicodeDecodeWithOffsets: UTF-8, UTF-16-BE,
    UTF-32-BE, UTF-16 with a byte order mark and Latin-1 text, malformed
    UTF-8 under each error policy (replaced, dropped, failing), control
    characters replaced, int32 and int64 splits, a matrix of strings. An
    encoding ICU does not know and a replacement outside Unicode fail."""
    def gen(dt, rng):
        out = []
        for enc in ("UTF-8", "UTF-16-BE", "UTF-32-BE", "UTF-16"):
            out.append(Spec(f"{enc}", [_encoded(UNICODE_TEXTS, enc)],
                            {"input_encoding": enc, "errors": "replace"}))
        out.append(Spec("latin1", [_encoded(["caf\u00e9", "na\u00efve"], "ISO-8859-1")],
                        {"input_encoding": "ISO-8859-1", "errors": "strict"}))
        bad = np.array(BAD_UTF8 + [t.encode() for t in UNICODE_TEXTS], dtype=object)
        # (With offsets and int32 splits TensorFlow aborts: it writes the
        # int64 offsets as Tsplits; strings/unicode_kernels_test runs that.)
        for k, errs in enumerate(_unicode_errors()):
            for splits in (tf.int32, tf.int64) if not offsets else (tf.int64,):
                out.append(Spec(f"bad.{k}.{splits.name}", [bad],
                                {"input_encoding": "UTF-8", "Tsplits": splits, **errs}))
        good = _encoded(UNICODE_TEXTS, "UTF-8")
        out.append(Spec("strict_good", [good], {"input_encoding": "UTF-8", "errors": "strict"}))
        out.append(Spec("matrix", [good.reshape(2, 3)], {"input_encoding": "UTF-8"}))
        out.append(Spec("no_strings", [good[:0]], {"input_encoding": "UTF-8"}))
        out.append(Spec("unknown_encoding", [good], {"input_encoding": "NOPE-9"}))
        out.append(Spec("replacement_outside", [good],
                        {"input_encoding": "UTF-8", "replacement_char": 0x110000}))
        return out
    return gen


def unicode_encode(dt, rng):
    """UnicodeEncode to UTF-8, UTF-16-BE and UTF-32-BE of rows of code
    points (int32 and int64 splits, empty rows, astral characters); values
    outside Unicode, surrogates and noncharacters under each policy. Splits
    not from 0, not to the values' count, or decreasing fail."""
    cps = np.array([ord(c) for c in "h\u00e9llo\u65e5\U0001F600"], np.int32)
    bad = np.array([72, 0x110000, 0xFFFE, 0xD800, -5, 0x1F600, 0xFDD0, 105], np.int32)
    out = []
    for enc in ("UTF-8", "UTF-16-BE", "UTF-32-BE"):
        for splits_dt in (np.int32, np.int64):
            out.append(Spec(f"{enc}.{splits_dt.__name__}",
                            [cps, np.array([0, 5, 5, 8], splits_dt)],
                            {"output_encoding": enc, "errors": "replace"}))
        for k, errs in enumerate(_unicode_errors()[:4]):
            out.append(Spec(f"bad.{enc}.{k}", [bad, _i64([0, 3, 8])],
                            {"output_encoding": enc, **errs}))
    ok = {"output_encoding": "UTF-8", "errors": "replace"}
    out.append(Spec("no_rows", [cps[:0], _i64([0])], ok))
    out.append(Spec("splits_from_1", [cps, _i64([1, 8])], ok))
    out.append(Spec("splits_short", [cps, _i64([0, 7])], ok))
    out.append(Spec("splits_decreasing", [cps, _i64([0, 6, 4, 8])], ok))
    return out


def unicode_transcode(dt, rng):
    """UnicodeTranscode between UTF-8, UTF-16 (with and without a byte order
    mark), UTF-32-BE and Latin-1, malformed input under each policy. An
    unknown input encoding fails."""
    out = []
    for src in ("UTF-8", "UTF-16-BE", "UTF-16", "UTF-32-BE"):
        for dst in ("UTF-8", "UTF-16-BE", "UTF-32-BE"):
            out.append(Spec(f"{src}.{dst}", [_encoded(UNICODE_TEXTS, src)],
                            {"input_encoding": src, "output_encoding": dst,
                             "errors": "replace"}))
    bad = np.array(BAD_UTF8 + [b"\x01ok"], dtype=object)
    for k, errs in enumerate(_unicode_errors()):
        out.append(Spec(f"bad.{k}", [bad], {"input_encoding": "UTF-8",
                                            "output_encoding": "UTF-8", **errs}))
    out.append(Spec("latin1", [_encoded(["caf\u00e9"], "ISO-8859-1")],
                    {"input_encoding": "ISO-8859-1", "output_encoding": "UTF-8",
                     "errors": "replace"}))
    out.append(Spec("unknown_encoding", [_encoded(["a"], "UTF-8")],
                    {"input_encoding": "NOPE-9", "output_encoding": "UTF-8", "errors": "replace"}))
    return out


def unicode_script(dt, rng):
    """UnicodeScript of Latin, Greek, Han, Arabic, Cyrillic, emoji, combining
    marks, unassigned and private-use code points, and values that are not
    code points (-1)."""
    cps = np.array([65, 0x3B1, 0x4E00, 0x627, 0x416, 0x1F600, 0x301, 0x378, 0xE000, 0x10FFFF,
                    -1, 0x110000, 0, 0x30A2, 0x0E01], np.int32)
    return [Spec("mixed", [cps]), Spec("matrix", [cps[:12].reshape(3, 4)]),
            Spec("empty", [cps[:0]])]


def regex(op):
    patterns = [("[a-z]+", "<\\0>"), ("^\\s+|\\s+$", ""), ("(\\d)(\\d)", "\\2\\1"), ("", "-")]

    def gen(dt, rng):
        out = []
        for pattern, rewrite in patterns:
            for glob in (True, False):
                s = np.array(pattern.encode(), dtype=object)
                r = np.array(rewrite.encode(), dtype=object)
                if op == "RegexFullMatch":
                    if glob:
                        out.append(Spec(f"{pattern}", [_strings(), s]))
                elif op == "StaticRegexFullMatch":
                    if glob:
                        out.append(Spec(f"{pattern}", [_strings()], {"pattern": pattern}))
                elif op == "RegexReplace":
                    out.append(Spec(f"{pattern}.{glob}", [_strings(), s, r],
                                    {"replace_global": glob}))
                else:
                    out.append(Spec(f"{pattern}.{glob}", [_strings()],
                                    {"pattern": pattern, "rewrite": rewrite,
                                     "replace_global": glob}))
        if op in ("RegexFullMatch", "RegexReplace"):
            bad = [_strings(), np.array(b"(unclosed", dtype=object)]
            if op == "RegexReplace":
                bad.append(np.array(b"", dtype=object))
            out.append(Spec("bad_pattern", bad))
        return out
    return gen


def decode_csv(dt, rng):
    records = np.array([b"1,2.5,x", b"3,,\"q,uoted\"", b",4.25,", b"-7,1e3,z"], dtype=object)
    defaults = [np.array([0], np.int32), np.array([1.5], np.float32),
                np.array([b"d"], dtype=object)]
    out = [Spec("three_columns", [records, defaults], {}),
           Spec("select_cols", [records, defaults[1:]],
                {"select_cols": [1, 2]}),
           Spec("na_value", [np.array([b"NA,1", b"2,NA"], dtype=object),
                             [np.array([9], np.int64), np.array([8], np.int64)]],
                {"na_value": "NA"}),
           Spec("semicolon", [np.array([b"1;2"], dtype=object), [np.array([0], np.int32)] * 2],
                {"field_delim": ";"}),
           Spec("too_few_fields", [np.array([b"1"], dtype=object), [np.array([0], np.int32)] * 2],
                {}),
           Spec("bad_number", [np.array([b"x,1"], dtype=object), [np.array([0], np.int32)] * 2],
                {}),
           Spec("missing_required", [np.array([b",1"], dtype=object),
                                     [np.zeros(0, np.int32), np.array([0], np.int32)]],
                {})]
    return out


# ---------------------------------------------------------------- serialized inputs


def _bytes_array(rng, n, size, shape, bools=False):
    """`n` byte strings of `size` random bytes (0 or 1 each for bools), shaped."""
    out = np.empty(n, dtype=object)
    for i in range(n):
        raw = rng.integers(0, 2 if bools else 256, size, dtype=np.uint8)
        out[i] = raw.tobytes()
    return out.reshape(shape)


def decode_raw(dt, rng):
    w = dt.size
    bools = dt == tf.bool
    out = []
    for endian in (True, False):
        out += [Spec(f"vector.le{endian}", [_bytes_array(rng, 4, 3 * w, (4,), bools)],
                     {"out_type": dt, "little_endian": endian}),
                Spec(f"matrix.le{endian}", [_bytes_array(rng, 4, 2 * w, (2, 2), bools)],
                     {"out_type": dt, "little_endian": endian})]
    out += [Spec("scalar", [_bytes_array(rng, 1, w, (), bools)], {"out_type": dt}),
            Spec("no_strings", [np.zeros((0,), dtype=object)], {"out_type": dt}),
            Spec("empty_strings", [np.array([b"", b""], dtype=object)], {"out_type": dt}),
            Spec("sizes_differ", [np.array([b"\0" * w, b"\0" * 2 * w], dtype=object)],
                 {"out_type": dt})]
    if w > 1:
        out.append(Spec("not_a_multiple", [np.array([b"\1" * (w + 1)], dtype=object)],
                        {"out_type": dt}))
    return out


def decode_padded_raw(dt, rng):
    w = dt.size
    strings = np.array([rng.integers(0, 256, n, dtype=np.uint8).tobytes()
                        for n in (0, w - 1, 2 * w, 3 * w + 1, 5 * w)], dtype=object)
    out = []
    for endian in (True, False):
        for fixed in (w, 3 * w):
            out.append(Spec(f"fixed{fixed}.le{endian}", [strings, np.int32(fixed)],
                            {"out_type": dt, "little_endian": endian}))
    out += [Spec("matrix", [strings[:4].reshape(2, 2), np.int32(2 * w)], {"out_type": dt}),
            Spec("zero_length", [strings, np.int32(0)], {"out_type": dt})]
    if w > 1:
        out.append(Spec("not_a_multiple", [strings, np.int32(w + 1)], {"out_type": dt}))
    return out


def serialize_tensor(dt, rng):
    shapes = [(), (5,), (2, 3), (0, 4)]
    if dt == tf.string:
        return [Spec(f"{shape}", [_strings(shape)]) for shape in shapes]
    return [Spec(f"{shape}", [random_values(rng, shape, dt)]) for shape in shapes]


def parse_tensor(dt, rng):
    def proto(value, field):
        if field:  # typed repeated fields, as tf.make_tensor_proto writes small ones
            return tf.make_tensor_proto(value).SerializeToString()
        with tf.Graph().as_default(), tf.compat.v1.Session() as sess:
            return sess.run(tf.io.serialize_tensor(tf.constant(value)))
    value = _strings((2, 3)) if dt == tf.string else random_values(rng, (2, 3), dt)
    other = np.int64(7) if dt != tf.int64 else np.float32(1.5)
    out = [Spec("content", [np.array(proto(value, False), dtype=object)], {"out_type": dt}),
           Spec("scalar", [np.array(proto(value.reshape(-1)[0], False), dtype=object)],
                {"out_type": dt}),
           Spec("other_dtype", [np.array(proto(other, False), dtype=object)],
                {"out_type": dt}),
           Spec("not_a_proto", [np.array(b"\xff\xff\xff", dtype=object)], {"out_type": dt}),
           Spec("not_a_scalar", [np.array([proto(value, False)] * 2, dtype=object)],
                {"out_type": dt})]
    if dt != tf.bfloat16:
        out.append(Spec("typed_fields", [np.array(proto(value, True), dtype=object)],
                        {"out_type": dt}))
    return out


def _random_strings(rng, n):
    return np.array([rng.integers(0, 256, k, dtype=np.uint8).tobytes()
                     for k in rng.integers(0, 12, n)] + [b"", b"a", b"ab", b"abc"], dtype=object)


def encode_base64(dt, rng):
    x = _random_strings(rng, 8)
    return [Spec("unpadded", [x]), Spec("padded", [x], {"pad": True}),
            Spec("matrix", [x[:6].reshape(2, 3)], {"pad": True})]


def decode_base64(dt, rng):
    import base64
    raw = _random_strings(rng, 8)
    unpadded = np.array([base64.urlsafe_b64encode(r).rstrip(b"=") for r in raw], dtype=object)
    padded = np.array([base64.urlsafe_b64encode(r) for r in raw], dtype=object)
    return [Spec("unpadded", [unpadded]), Spec("padded", [padded]),
            Spec("invalid_character", [np.array([b"ab$d"], dtype=object)]),
            Spec("standard_alphabet", [np.array([b"a+/b"], dtype=object)]),
            Spec("bad_length", [np.array([b"abcde"], dtype=object)])]


def decode_compressed(dt, rng):
    import gzip
    import zlib
    raw = _random_strings(rng, 6)
    raw[0] = b"minigraph " * 1000  # longer than one inflate buffer once compressed
    out = [Spec("none", [raw]),
           Spec("zlib", [np.array([zlib.compress(r) for r in raw], dtype=object)],
                {"compression_type": "ZLIB"}),
           Spec("gzip", [np.array([gzip.compress(r) for r in raw], dtype=object)],
                {"compression_type": "GZIP"}),
           Spec("zlib_matrix", [np.array([zlib.compress(r) for r in raw[:4]],
                                         dtype=object).reshape(2, 2)],
                {"compression_type": "ZLIB"}),
           Spec("corrupt", [np.array([b"not zlib at all"], dtype=object)],
                {"compression_type": "ZLIB"}),
           Spec("truncated", [np.array([zlib.compress(raw[0])[:20]], dtype=object)],
                {"compression_type": "ZLIB"})]
    return out


def decode_json_example(dt, rng):
    from google.protobuf import json_format
    examples = [tf.train.Example(features=tf.train.Features(feature={
        "x": tf.train.Feature(float_list=tf.train.FloatList(value=[1.5, -2.0])),
        "n": tf.train.Feature(int64_list=tf.train.Int64List(value=[7, -(2**40)])),
        "s": tf.train.Feature(bytes_list=tf.train.BytesList(value=[b"a", b"\xff\x00"])),
    })), tf.train.Example()]
    json = np.array([json_format.MessageToJson(e, sort_keys=True).encode() for e in examples],
                    dtype=object)
    hand = np.array([
        b'{"features": {"feature": {"b": {"int64_list": {"value": ["3", 4]}},'
        b' "a": {"floatList": {"value": [0.25, "NaN"]}}}}}',
        b'{}'], dtype=object)
    return [Spec("from_messages", [json]), Spec("field_order_and_names", [hand]),
            Spec("matrix", [np.concatenate([json, hand]).reshape(2, 2)]),
            Spec("not_json", [np.array([b"{features"], dtype=object)]),
            Spec("unknown_field", [np.array([b'{"feature": {}}'], dtype=object)]),
            Spec("wrong_type", [np.array([b'{"features": {"feature": {"a": {"int64List": '
                                          b'{"value": ["x"]}}}}}'], dtype=object)])]


GENERATORS["DecodeJSONExample"] = (decode_json_example, None)
GENERATORS["DecodeRaw"] = (decode_raw, "out_type")
GENERATORS["DecodePaddedRaw"] = (decode_padded_raw, "out_type")
GENERATORS["SerializeTensor"] = (serialize_tensor, "T")
GENERATORS["ParseTensor"] = (parse_tensor, "out_type")
GENERATORS["EncodeBase64"] = (encode_base64, None)
GENERATORS["DecodeBase64"] = (decode_base64, None)
GENERATORS["DecodeCompressed"] = (decode_compressed, None)


# ---------------------------------------------------------------- stateless random

SEEDS = [(0, 0), (1, 2), (-7, 123456789), (2**31 - 1, -(2**31))]
RANDOM_SHAPES = [[], [7], [3, 5], [1001], [0, 4]]


def _int_ranges(dt):
    """[minval, maxval) ranges for integer random ops: small, around 0, the
    whole type but one (the modulo's bias), a single value."""
    info = np.iinfo(dt.as_numpy_dtype)
    lows = [(0, 10), (3, 1000), (int(info.min), int(info.max)), (7, 8)]
    if info.min < 0:
        lows.append((-5, 3))
    return [(np.asarray(lo, dt.as_numpy_dtype), np.asarray(hi, dt.as_numpy_dtype))
            for lo, hi in lows]


def stateless_random(version, ints=False):
    """Stateless random ops of `version` (1: a seed; 2: a key, counter and
    algorithm); with `ints` the integer ops' [minval, maxval) inputs too."""
    def gen(dt, rng):
        out = []
        ranges = _int_ranges(dt) if ints else [()]
        for seed in SEEDS:
            for shape in RANDOM_SHAPES:
                for st in (np.int32, np.int64):
                    if version == 1:
                        inputs = [np.asarray(shape, np.int32), np.asarray(seed, st)]
                    else:
                        # The key and counter TensorFlow derives from the seed.
                        with tf.Graph().as_default(), tf.compat.v1.Session() as sess:
                            key, counter = sess.run(tf.raw_ops.StatelessRandomGetKeyCounter(
                                seed=np.asarray(seed, st)))
                        inputs = [np.asarray(shape, np.int32), key, counter, np.int32(1)]
                    # (The integer ops' dtype is their range's.)
                    attrs = {} if ints else {"dtype": dt}
                    for r in ranges:
                        out.append(Spec(f"{seed}.{shape}.{np.dtype(st).name}.{list(r)}",
                                        inputs + list(r), attrs))
        if ints:
            # An empty output takes any range (TensorFlow returns before
            # reading it); three values need a scalar, nonempty range.
            empty = out[-1].inputs[:-2]
            three = [np.asarray([3], np.int32)] + empty[1:]
            one = np.asarray(5, dt.as_numpy_dtype)
            pair = np.asarray([1, 2], dt.as_numpy_dtype)
            out.append(Spec("empty_output_any_range", empty + [pair, one]))
            out.append(Spec("empty_range", three + [one, one]))
            out.append(Spec("vector_minval", three + [pair, one]))
        return out
    return gen


def random_int_op(dt, rng):
    """RandomUniformInt: the stateful op's sequence for seeded nodes."""
    out = []
    for shape in ([3], [2, 5], [0], [1001]):
        for seed, seed2 in [(1, 2), (87654321, 0)]:
            for lo, hi in _int_ranges(dt):
                out.append(Spec(f"{shape}.{seed}.{seed2}.{lo}.{hi}",
                                [np.asarray(shape, np.int32), lo, hi],
                                {"seed": seed, "seed2": seed2}))
    one = np.asarray(5, dt.as_numpy_dtype)
    out.append(Spec("empty_range", [_i32([3]), one, one], {"seed": 1, "seed2": 1}))
    out.append(Spec("empty_output", [_i32([0]), one, one], {"seed": 1, "seed2": 1}))
    return out


def key_counter(dt, rng):
    return [Spec(f"{seed}.{np.dtype(st).name}", [np.asarray(seed, st)])
            for seed in SEEDS for st in (np.int32, np.int64)]


GENERATORS["AsString"] = (as_string, "T")
GENERATORS["StringFormat"] = (string_format, None)
GENERATORS["StringNGrams"] = (string_ngrams, None)
GENERATORS["StringJoin"] = (string_join, None)
GENERATORS["StringLower"] = (string_lower, None)
GENERATORS["StringLength"] = (
    lambda dt, rng: [Spec(f"{unit}.{label}", [x], {"unit": unit})
                     for unit in ("BYTE", "UTF8_CHAR")
                     for label, x in (
                         ("words", np.array([b"", b"a", b"tensor", "\u00e9t\u00e9".encode(),
                                             "\U0001f600!".encode()], dtype=object)),
                         ("invalid_utf8", np.array([b"\xff\xfe", b"a\x80b", b"\xc3"],
                                                   dtype=object).reshape(3, 1)),
                         ("scalar", np.array(b"xyz", dtype=object)))],
    None)
GENERATORS["StringUpper"] = (string_lower, None)
GENERATORS["ReduceJoin"] = (reduce_join, None)
GENERATORS["UnsortedSegmentJoin"] = (unsorted_segment_join, "Tindices")
GENERATORS["StringSplitV2"] = (string_split, None)
GENERATORS["StringSplit"] = (string_split_v1, None)
GENERATORS["StringToNumber"] = (string_to_number, None)
GENERATORS["Substr"] = (substr, "T")
GENERATORS["StringStrip"] = (
    lambda dt, rng: [Spec("words", [_strings()]), Spec("matrix", [_strings((2, 4))]),
                     Spec("whitespace", [np.array([b" \t\n\v\f\r", b"\ta b\n", b"\xc2\xa0x"],
                                                  dtype=object)])],
    None)
GENERATORS["StringToHashBucketFast"] = (hash_bucket, None)
GENERATORS["StringToHashBucket"] = (hash_bucket, None)
GENERATORS["StringToHashBucketStrong"] = (hash_bucket_strong, None)
GENERATORS["UnicodeDecode"] = (unicode_decode(False), None)
GENERATORS["UnicodeDecodeWithOffsets"] = (unicode_decode(True), None)
GENERATORS["UnicodeEncode"] = (unicode_encode, None)
GENERATORS["UnicodeTranscode"] = (unicode_transcode, None)
GENERATORS["UnicodeScript"] = (unicode_script, None)
for _op in ("RegexFullMatch", "RegexReplace", "StaticRegexFullMatch", "StaticRegexReplace"):
    GENERATORS[_op] = (regex(_op), None)
GENERATORS["DecodeCSV"] = (decode_csv, None)
for _op in ("StatelessRandomUniform", "StatelessRandomNormal", "StatelessTruncatedNormal"):
    GENERATORS[_op] = (stateless_random(1), "dtype")
for _op in ("StatelessRandomUniformV2", "StatelessRandomNormalV2", "StatelessTruncatedNormalV2"):
    GENERATORS[_op] = (stateless_random(2), "dtype")
GENERATORS["StatelessRandomUniformInt"] = (stateless_random(1, ints=True), "dtype")
GENERATORS["StatelessRandomUniformIntV2"] = (stateless_random(2, ints=True), "dtype")
GENERATORS["StatelessRandomUniformFullInt"] = (stateless_random(1), "dtype")
GENERATORS["StatelessRandomUniformFullIntV2"] = (stateless_random(2), "dtype")
GENERATORS["RandomUniformInt"] = (random_int_op, "Tout")
GENERATORS["StatelessRandomGetKeyCounter"] = (key_counter, "Tseed")
GENERATORS["StatelessRandomGetAlg"] = (lambda dt, rng: [Spec("alg", [])], None)

image_generators.register(GENERATORS)
proto_generators.register(GENERATORS)


def top_k(dt, rng):
    """TopKV2 of rows with ties (broken by the lower index) and infinities;
    no NaN, whose order TensorFlow leaves to its sort."""
    out = []
    for shape in [(7,), (3, 5), (2, 3, 4), (4, 0), (1, 300)]:
        x = random_values(rng, shape, dt, edges=False)
        if dt.is_floating:
            x = np.round(x.astype(np.float64)).astype(dt.as_numpy_dtype)
            if x.size:
                x.reshape(-1)[0] = np.inf
                x.reshape(-1)[-1] = -np.inf
        for k in sorted({0, 1, min(3, shape[-1]), shape[-1]}):
            out.append(Spec(f"{list(shape)}.k{k}", [x, np.int32(k)],
                            grad=_grad(dt, 0) if k else ()))
        out.append(Spec(f"{list(shape)}.k_int64.index_int64", [x, np.int64(shape[-1])],
                        {"index_type": tf.int64}))
    x = random_values(rng, (2, 3), dt, edges=False)
    out += [Spec("k_above_columns", [x, np.int32(4)]), Spec("k_negative", [x, np.int32(-1)]),
            Spec("scalar_input", [x[0, 0], np.int32(0)]),
            Spec("k_not_scalar", [x, np.array([1], np.int32)])]
    return out


def _approx_top_k_graph(x, attrs):
    """ApproxTopK on a placeholder of x's static shape: its shape function
    needs the rank."""
    def graph():
        p = tf.compat.v1.placeholder(tf.as_dtype(x.dtype), x.shape, name="input")
        return {p: x}, list(tf.raw_ops.ApproxTopK(input=p, **attrs))
    return graph


def approx_top_k(dt, rng):
    """ApproxTopK, exact on a CPU: rows with ties and infinities, every k,
    the attrs that change nothing there (recall_target, aggregate_to_topk,
    reduction_input_size_override); its gradient; a reduction dimension
    other than -1 and is_max_k false, which find no CPU kernel, fail. (A k
    above the columns fails in TensorFlow's shape function: TopKV2's cases
    check the kernel's error.)"""
    out = []
    for shape in [(7,), (3, 5), (2, 3, 4), (1, 300)]:
        x = random_values(rng, shape, dt, edges=False)
        if dt.is_floating:
            x = np.round(x.astype(np.float64)).astype(dt.as_numpy_dtype)
            x.reshape(-1)[0] = np.inf
        for k in sorted({0, 1, min(3, shape[-1]), shape[-1]}):
            out.append(Spec(f"{list(shape)}.k{k}", [], grad=_grad(dt, 0) if k else (),
                            graph=_approx_top_k_graph(x, {"k": k})))
    x = random_values(rng, (3, 5), dt, edges=False)
    for label, attrs in [("attrs", {"k": 2, "recall_target": 0.5, "aggregate_to_topk": False,
                                    "reduction_input_size_override": 4}),
                         ("dimension_0", {"k": 2, "reduction_dimension": 0}),
                         ("min_k", {"k": 2, "is_max_k": False})]:
        out.append(Spec(label, [], graph=_approx_top_k_graph(x, attrs)))
    return out


def isotonic_regression(dt, rng):
    """IsotonicRegression of rows in and out of order, with runs of equal
    values (kept apart), rank 0 to 3, empty rows; every dtype pair
    TensorFlow registers; its gradient."""
    out = []
    out_type = {tf.float32: tf.float32, tf.int8: tf.float32, tf.int16: tf.float32,
                tf.float64: tf.float64, tf.int32: tf.float64, tf.int64: tf.float64}.get(dt)
    if out_type is None:
        return out
    ordered = np.array([[1, 3, 2, 4, 5, 5, 0], [3, 2, 1, 0, -1, 7, 7]], dt.as_numpy_dtype)
    for label, x in [("ties", ordered), ("vector", ordered[1]),
                     ("random", random_values(rng, (3, 2, 9), dt, edges=False)),
                     ("empty", np.zeros((2, 0), dt.as_numpy_dtype))]:
        out.append(Spec(label, [x], {"output_dtype": out_type}))
    out.append(Spec("scalar", [ordered[0, 0]], {"output_dtype": out_type}))
    if dt in F32_64:
        # The gradient, of matrices only (TensorFlow's splits the rows by
        # their static count).
        for label, x in [("ties", ordered), ("random", random_values(rng, (4, 9), dt))]:
            def graph(x=x):
                p = tf.compat.v1.placeholder(dt, x.shape, name="input")
                return {p: x}, list(tf.raw_ops.IsotonicRegression(input=p,
                                                                  output_dtype=out_type))
            out.append(Spec(f"{label}.gradient", [], grad=(0,), graph=graph))
    return out


GENERATORS["TopKV2"] = (top_k, "T")
GENERATORS["ApproxTopK"] = (approx_top_k, "T")
GENERATORS["IsotonicRegression"] = (isotonic_regression, "T")
