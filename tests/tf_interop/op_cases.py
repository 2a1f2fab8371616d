"""Seeded cases of single ops for the op interop test: for an op, for each
dtype TensorFlow allows it, graphs of the op on placeholders of unknown shape
(so that the kernels, not shape inference, meet every input), fed random
values of many shapes and edge values; TensorFlow runs each, and records its
outputs, its error code, and tf.gradients of the outputs.

A generator is `gen(dt, rng)` -> a list of Specs for one dtype `dt` (None for
ops without a type attr); GENERATORS maps op names to (generator, the type
attr its dtypes come from)."""

import dataclasses
import zlib

import numpy as np

from interop import tf

v1 = tf.compat.v1

# The dtypes tried, where the op's type attr allows them; a dtype minigraph's
# kernel does not register is found by a probe and left out.
CANDIDATE_DTYPES = [
    tf.float32, tf.float64, tf.float16, tf.bfloat16, tf.int32, tf.int64, tf.int8, tf.int16,
    tf.uint8, tf.uint16, tf.uint32, tf.uint64, tf.bool, tf.string, tf.complex64, tf.complex128,
]

FLOATS = (tf.float16, tf.bfloat16, tf.float32, tf.float64)

# Tolerances by the dtype of a float output (relative, absolute); a Spec's
# `tol` scales them. Integers (but for a Spec's `int_atol`), bools and
# strings are compared exactly.
TOLERANCE = {
    np.dtype(np.float16): (2e-3, 1e-3), np.dtype(tf.bfloat16.as_numpy_dtype): (2e-2, 1e-2),
    np.dtype(np.float32): (2e-5, 1e-6), np.dtype(np.float64): (1e-12, 1e-14),
    np.dtype(np.complex64): (2e-5, 1e-6), np.dtype(np.complex128): (1e-12, 1e-14),
}


class Const:
    """An input given as a constant in the graph (an attr-like input whose
    value shape inference or the kernel needs at graph build time)."""

    def __init__(self, value):
        self.value = value


@dataclasses.dataclass
class Spec:
    label: str
    inputs: list                  # per input arg: ndarray, Const, or a list of them
    attrs: dict = dataclasses.field(default_factory=dict)
    grad: tuple = ()              # input positions (flattened; a graph's feeds) to differentiate
    tol: float = 1.0
    # How far integer outputs may be from TensorFlow's: 0 (exact) but for a
    # lossy image codec whose Debian version rounds otherwise than the one
    # TensorFlow links (JPEG XL).
    int_atol: int = 0
    outputs: tuple = ()           # output positions compared (all when empty)
    # Input args given as constants in the gradient's graph (a reduction's
    # axes: minigraph's gradients of reductions need them constant).
    grad_const: tuple = ()
    # A whole small graph instead of the op on `inputs`, for ops that take
    # variables, resources or functions: called in a fresh default graph, it
    # returns (feeds {placeholder: value}, [tensors to fetch]).
    graph: object = None


@dataclasses.dataclass
class Case:
    op: str
    name: str
    graph: bytes
    feeds: dict                   # tensor name -> ndarray
    fetch: list
    want: list = None             # TensorFlow's outputs, or None
    error: int = 0                # TensorFlow's error code, 0 when it ran
    grad_ys: list = dataclasses.field(default_factory=list)
    grad_xs: list = dataclasses.field(default_factory=list)
    grad_dys: list = dataclasses.field(default_factory=list)
    tol: float = 1.0
    int_atol: int = 0
    compared: tuple = ()
    grad_graph: bytes = b""
    grad_feeds: dict = dataclasses.field(default_factory=dict)
    grad_want: list = None


def seeded(op):
    return np.random.default_rng(zlib.crc32(op.encode()))


# ---------------------------------------------------------------- values

@np.errstate(over="ignore", invalid="ignore")
def edge_values(dt):
    """The edge values of a dtype: NaN, ±inf, ±0, denormals, extremes; integer
    min and max, 0, ±1."""
    if dt.is_floating:
        np_dt = dt.as_numpy_dtype
        info = np.finfo(np.float32 if dt == tf.bfloat16 else np_dt)
        tiny = np.float64(info.tiny) / 4  # a denormal
        v = [0.0, -0.0, np.inf, -np.inf, np.nan, tiny, -tiny, float(info.max), -float(info.max),
             1.0, -1.0, 0.5, -2.5, 100.0, -7.0]
        return np.array(v, np.float64).astype(np_dt)
    if dt.is_complex:
        return np.array([0, 1 + 1j, complex(np.inf, 0), complex(np.nan, 1), -2.5j, 1e30],
                        dt.as_numpy_dtype)
    if dt == tf.bool:
        return np.array([True, False])
    if dt == tf.string:
        return np.array([b"", b"a", b"\x00\xff", b"Hello, World"], dtype=object)
    info = np.iinfo(dt.as_numpy_dtype)
    v = [info.min, info.max, 0, 1, info.max - 1]
    if info.min < 0:
        v += [-1, info.min + 1]
    return np.array(v, dt.as_numpy_dtype)


def random_values(rng, shape, dt, edges=True, low=None, high=None):
    """Random values of `dt` and `shape`; with `edges`, the first elements are
    the dtype's edge values."""
    n = int(np.prod(shape, dtype=np.int64))
    if dt.is_floating:
        lo, hi = (-4.0, 4.0) if low is None else (low, high)
        v = rng.uniform(lo, hi, n).astype(dt.as_numpy_dtype)
    elif dt.is_complex:
        v = (rng.standard_normal(n) + 1j * rng.standard_normal(n)).astype(dt.as_numpy_dtype)
    elif dt == tf.bool:
        v = rng.random(n) > 0.5
    elif dt == tf.string:
        words = [b"", b"a", b"tensor", b"Flow", b"\xc3\xa9t\xc3\xa9", b"x y", b"42"]
        v = np.array([words[i] for i in rng.integers(0, len(words), n)], dtype=object)
    else:
        info = np.iinfo(dt.as_numpy_dtype)
        lo = max(info.min, -50) if low is None else low
        hi = min(info.max, 50) if high is None else high
        v = rng.integers(lo, hi, n, endpoint=True).astype(dt.as_numpy_dtype)
    if edges and n:
        e = edge_values(dt)
        if low is not None and not dt.is_floating and dt not in (tf.bool, tf.string):
            e = e[(e >= low) & (e <= high)]
        k = min(n, len(e))
        v[:k] = e[:k]
    return v.reshape(shape)


SHAPES = [(), (0,), (7,), (2, 3, 4), (3, 0, 2), (129, 67)]


# ---------------------------------------------------------------- building

def _flatten(inputs):
    for x in inputs:
        if isinstance(x, list):
            yield from x
        else:
            yield x


def _placeholder(value, name, static):
    a = np.asarray(value)
    if a.dtype == object or a.dtype.kind in "SU":
        dt = tf.string
    else:
        dt = tf.as_dtype(a.dtype)
    return v1.placeholder(dt, a.shape if static else None, name=name)


def _default_attrs(op_def):
    """The defaults of the attrs that no input argument sets, as Python
    values for op_def_library."""
    inferred = set()
    for arg in op_def.input_arg:
        inferred.update(a for a in (arg.type_attr, arg.number_attr, arg.type_list_attr) if a)
    out = {}
    for attr in op_def.attr:
        if attr.name in inferred or not attr.HasField("default_value"):
            continue
        v = attr.default_value
        which = v.WhichOneof("value")
        if which == "list":
            lst = v.list
            out[attr.name] = (list(lst.s) or list(lst.i) or list(lst.f) or list(lst.b)
                              or [tf.as_dtype(t) for t in lst.type]
                              or [tf.TensorShape(sh) for sh in lst.shape])
        elif which == "type":
            out[attr.name] = tf.as_dtype(v.type)
        elif which == "shape":
            out[attr.name] = tf.TensorShape(v.shape)
        elif which is not None:
            out[attr.name] = getattr(v, which)
    return out


def _make_graph(op, spec, static):
    """In the default graph: placeholders (of unknown shape unless `static`)
    or constants for the inputs, the op named "op", and a placeholder "dyK"
    for the gradient flowing into each compared float output. Returns
    (feeds {placeholder: value}, flat inputs, compared outputs, dys), or None
    when TensorFlow refuses to build the op."""
    from tensorflow.python.framework import op_def_library, op_def_registry
    op_def = op_def_registry.get(op)
    feeds, kwargs, flat = {}, {}, []
    for i, (arg, value) in enumerate(zip(op_def.input_arg, spec.inputs)):
        def one(v, j):
            if isinstance(v, Const) or (static and i in spec.grad_const):
                t = tf.constant(v.value if isinstance(v, Const) else v)
            else:
                t = _placeholder(v, f"in{i}_{j}", static)
                feeds[t] = np.asarray(v)
            flat.append(t)
            return t
        if isinstance(value, list):
            kwargs[arg.name] = [one(v, j) for j, v in enumerate(value)]
        else:
            kwargs[arg.name] = one(value, 0)
    try:
        # The OpDef's own argument names (tf.raw_ops renames some); the
        # helper wants every attr its inputs do not set.
        attrs = {**_default_attrs(op_def), **spec.attrs}
        op_def_library._apply_op_helper(op, name="op", **kwargs, **attrs)
    except (ValueError, TypeError, tf.errors.OpError):
        return None
    outputs = list(tf.compat.v1.get_default_graph().get_operation_by_name("op").outputs)
    fetch = [outputs[k] for k in spec.outputs or range(len(outputs))]
    dys = [v1.placeholder(t.dtype, None, name=f"dy{k}") for k, t in enumerate(fetch)]
    return feeds, flat, fetch, dys


def build(op, spec, case_name, run=True):
    """The Case of `spec`: its graph, feeds and fetches, then (with `run`)
    TensorFlow's run. None when TensorFlow refuses the graph itself (an attr
    its op builder checks): no kernel runs, so there is nothing to compare."""
    with tf.Graph().as_default() as g:
        if spec.graph is not None:
            feeds, fetch = spec.graph()
        else:
            made = _make_graph(op, spec, static=False)
            if made is None:
                return None
            feeds, _, fetch, _ = made
        case = Case(op=op, name=case_name, graph=g.as_graph_def().SerializeToString(),
                    feeds={t.name: v for t, v in feeds.items()}, fetch=[t.name for t in fetch],
                    compared=spec.outputs or tuple(range(len(fetch))), tol=spec.tol,
                    int_atol=spec.int_atol)
        if not run:
            return case
        with v1.Session() as sess:
            try:
                case.want = sess.run(fetch, feeds)
            except tf.errors.OpError as e:
                if "No OpKernel was registered" in e.message or e.error_code == 12:
                    return None  # TensorFlow has no kernel for it: nothing to compare
                case.error = e.error_code
                return case
    if spec.grad:
        _add_gradient(op, spec, case)
    return case


def graph_ops(serialized):
    """The op types of a serialized GraphDef and of its functions."""
    from tensorflow.core.framework import graph_pb2
    g = graph_pb2.GraphDef.FromString(serialized)
    ops = {n.op for n in g.node}
    for f in g.library.function:
        ops |= {n.op for n in f.node_def}
    return ops


def _add_gradient(op, spec, case):
    """tf.gradients of the case's float outputs with respect to the inputs
    `spec.grad` names, with random gradients flowing in, on placeholders of
    static shape (minigraph's gradients of some ops need the rank); the
    graph before the gradients were added goes to minigraph."""
    with tf.Graph().as_default() as g:
        if spec.graph is not None:  # spec.grad picks among its feeds
            feeds, fetch = spec.graph()
            flat = list(feeds)
            # (Of the output's shape where the graph knows it: some of
            # TensorFlow's gradients need that.)
            dys = [v1.placeholder(t.dtype, t.shape if t.shape.is_fully_defined() else None,
                                  name=f"dy{k}") for k, t in enumerate(fetch)]
        else:
            feeds, flat, fetch, dys = _make_graph(op, spec, static=True)
        xs = [flat[k] for k in spec.grad]
        ys = [(t, d, w) for t, d, w in zip(fetch, dys, case.want) if t.dtype.is_floating]
        if not ys:
            return
        graph = g.as_graph_def().SerializeToString()
        try:
            grads = tf.gradients([t for t, _, _ in ys], xs, grad_ys=[d for _, d, _ in ys])
        except (LookupError, ValueError, TypeError):  # TensorFlow has none
            return
        kept = [(x, gr) for x, gr in zip(xs, grads) if gr is not None]
        if not kept:
            return
        rng = seeded(case.name)
        dy_values = {d: random_values(rng, np.shape(w), tf.as_dtype(d.dtype), False)
                     for _, d, w in ys}
        with v1.Session() as sess:
            try:
                values = sess.run([tf.convert_to_tensor(gr) for _, gr in kept],
                                  {**feeds, **dy_values})
            except tf.errors.OpError:
                return
    case.grad_graph = graph
    case.grad_ys = [t.name for t, _, _ in ys]
    case.grad_dys = [d.name for _, d, _ in ys]
    case.grad_xs = [x.name for x, _ in kept]
    case.grad_feeds = {**{t.name: v for t, v in feeds.items()},
                       **{d.name: v for d, v in dy_values.items()}}
    case.grad_want = values


def case_name(prefix, spec):
    """A case's name: '|' separates the fields of op_runner's records."""
    return f"{prefix}.{spec.label}".replace("|", "(or)")


def cases_for(op, gen, type_attr, only_dtypes=None):
    """Every Case of `op` from its generator, for the dtypes TensorFlow's
    OpDef allows in `type_attr` (among CANDIDATE_DTYPES and `only_dtypes`)."""
    from tensorflow.python.framework import op_def_registry
    op_def = op_def_registry.get(op)
    dtypes = [None]
    if type_attr:
        attr = next(a for a in op_def.attr if a.name == type_attr)
        allowed = (set(attr.allowed_values.list.type)
                   or {d.as_datatype_enum for d in CANDIDATE_DTYPES})
        dtypes = [d for d in CANDIDATE_DTYPES if d.as_datatype_enum in allowed]
        if only_dtypes is not None:
            dtypes = [d for d in dtypes if d in only_dtypes]
    out = []
    for dt in dtypes:
        for i, spec in enumerate(gen(dt, seeded(f"{op}.{dt}"))):
            name = case_name(f"{op}.{dt.name if dt is not None else 'any'}.{i}", spec)
            out.append((dt, spec, name))
    return out
