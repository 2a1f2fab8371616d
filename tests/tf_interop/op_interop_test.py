"""Ops against TensorFlow 2.21. For each op of docs/ops.md with a generator
(op_generators.py): seeded cases of the op alone, for every dtype both
TensorFlow and minigraph's kernel take, run by TensorFlow and by minigraph
(op_runner, all cases in one process); the same outputs (exact for
integers, bools and strings, floats within a tolerance by dtype), the same
error code where TensorFlow refuses the inputs, and minigraph's symbolic
gradients equal to tf.gradients. Then graphs of Philox's stateless random
ops, bit for bit.

The counts of cases per op are kept in op_counts.tsv, from which docs/ops.md
gets its column; after changing a generator, write it again with
  MG_OP_RUNNER=bazel-bin/tests/tf_interop/op_runner \\
  MG_MODEL_RUNNER=bazel-bin/tests/tf_interop/model_runner \\
  MG_WRITE_OP_COUNTS=$PWD/tests/tf_interop/op_counts.tsv \\
  /var/cache/minigraph-tf/bin/python tests/tf_interop/op_interop_test.py
then bazel run //tools:op_coverage -- $PWD/tests/tf_interop/op_counts.tsv > docs/ops.md;
and the golden files (GOLDEN_DIR) with MG_WRITE_GOLDEN=$PWD/tests/tf_interop/golden."""

import collections
import os
import shutil
import subprocess
import tempfile
import unittest

import numpy as np

import interop
import models
import op_cases
from interop import tf
from op_generators import GENERATORS
from op_graphs import GRAPH_GROUPS

v1 = tf.compat.v1
HERE = os.path.dirname(os.path.abspath(__file__))

# Cases where minigraph and TensorFlow differ, by op: a substring of the
# difference, and why. A gap that closes fails the test until its line goes.
KNOWN_GAPS = {
}

# Cases where TensorFlow 2.21 is wrong, by op: a substring of the case
# names (or a tuple of them), and why. They are run and counted apart, never
# as agreeing.
_UNEQUAL_STRIDES = ("its graph-mode CPU kernel refuses a depthwise convolution whose row "
                    "and column strides differ (InvalidArgument), which its eager (oneDNN) "
                    "kernel and minigraph compute")
_DILATED_GRADIENTS = ("; its CPU kernels refuse the gradients of a dilated depthwise "
                      "convolution, whose forward they compute (graph mode: InvalidArgument; "
                      "eager: Aborted, oneDNN 'could not create a primitive descriptor'), "
                      "which minigraph computes")
_V2_DIAGONALS = (
    "the gradient of a V2 diagonal op over a band whose diagonals differ in length is misplaced: "
    "V2 packs every diagonal left, but TensorFlow's gradient (_MatrixDiagV2Grad, "
    "_MatrixDiagPartV2Grad) calls the V3 op with its default align RIGHT_LEFT, which reads "
    "superdiagonals from the right; minigraph's gradient packs as the op does")
_BROADCAST_WINDOWS = (
    "the 3-D gradients take their windows from GetBroadcastSize, which widens a SAME window "
    "that starts in the padding and is longer than the input to the whole input: the "
    "gradient of AvgPool3D([0, 1, 2, 3], ksize 5)'s first output, the mean of three "
    "elements, goes to four as 1/4; minigraph spreads it over the window's three")
TENSORFLOW_BUGS = {
    **{op: (".updates_shape", "the resource form checks only that the updates' count is a "
            "multiple of the indices' and then copies whole update rows into rows of another "
            "length: updates of shape [1, 3] for row 1 of a [3, 2] variable write [1, 0], "
            "[1, 1] and [2, 0], and an index of the last row writes past the buffer (its "
            "Scatter* form refuses them, as minigraph does)")
       for op in ("ResourceScatterUpdate", "ResourceScatterAdd", "ResourceScatterSub",
                  "ResourceScatterMul", "ResourceScatterDiv", "ResourceScatterMin",
                  "ResourceScatterMax")},
    "MirrorPadGrad": (".SYMMETRIC.[6, 12].[[3, 0], [4, 4]].",
                      "with a SYMMETRIC padding as long as its dimension (4 before and after "
                      "4 columns), the last column's gradient misses the padded copies of it: "
                      "element [2, 3] is 0 where every one of the 6 copies of it has a gradient, "
                      "which minigraph sums (the adjoint of MirrorPad)"),
    "DepthwiseConv2dNative": ((".(1, 2, 1, 1).SAME", ".(0, 4, 4, 2)."),
                              _UNEQUAL_STRIDES + "; and for an empty batch the gradient of the "
                              "filter is uninitialized memory (as DepthwiseConv2dNativeBackprop"
                              "Filter's below)"),
    "DepthwiseConv2dNativeBackpropInput": (
        (".(1, 2, 1, 1).SAME", ".VALID.(1, 2, 2, 1)", ".(0, 4, 4, 2)."),
        _UNEQUAL_STRIDES + _DILATED_GRADIENTS + "; and for an empty batch its gradient with "
        "respect to the filter (DepthwiseConv2dNativeBackpropFilter's) is uninitialized memory"),
    "DepthwiseConv2dNativeBackpropFilter": (
        (".(1, 2, 1, 1).SAME", ".VALID.(1, 2, 2, 1)", ".(0, 4, 4, 2)."),
        _UNEQUAL_STRIDES + _DILATED_GRADIENTS + "; and for an empty batch the filter gradient "
        "is uninitialized memory (values like 2.7e36) where it is zeros, which minigraph "
        "returns"),
    "AvgPool3D": ((".lowest", ".longer_than_input"),
                  "an input of exactly float's lowest (-3.4e38, the value Eigen pads volumes "
                  "with) is left out of its window's average as if it were padding (the window "
                  "[lowest, 1, ..., 7] averages to 4, not -4.3e37); and the gradient of a SAME "
                  "window longer than the input is AvgPool3DGrad's (below)"),
    "AvgPool3DGrad": ((".longer_than_input", ".grad_smaller"), _BROADCAST_WINDOWS +
                      "; and a grad smaller than the pool's output is read past its end "
                      "(the op returns values) where minigraph fails with InvalidArgument"),
    "BesselI1": (".zero", "the gradient of BesselI1 at 0 is 1, where I1'(0) = I0(0) - 1/2 = "
                          "1/2 (its own BesselI1e gradient says 0.5), which minigraph gives"),
    "MatrixDiagV2": (("(3, 4).k[-1, 1].", "(2, 3, 3).k[0, 2]."), _V2_DIAGONALS),
    "MatrixDiagPartV2": (("(2, 3, 4).k[-1, 2].", "(3, 5).k[1, 3]."), _V2_DIAGONALS),
    "Cholesky": (".not_positive_definite", "when a matrix is not positive definite, the lower "
                 "triangle is NaN but the upper is uninitialized memory (values like 4.6 that "
                 "change from run to run) where it should be zeros, which minigraph gives"),
    "Erf": ((".float64.2.", ".float64.3.", ".float64.5."),
            "float64 Erf of +inf and -inf is NaN (its kernel's rational approximation divides "
            "infinities) where it is 1 and -1, which minigraph gives (float32's is right)"),
    "DecodeProtoV2": (".packed_negative.", "a packed int32 field read into int64 gives "
                      "negative values as their unsigned 32 bits (-5 as 4294967291) where the "
                      "same values unpacked give -5, as minigraph gives both"),
    "DecodeCompressed": (".truncated", "a ZLIB stream cut short decodes to an empty string, "
                                       "without an error (the 10,000 bytes it held are lost "
                                       "silently); minigraph fails with DataLoss"),
    **{op: (".[].[].", "SparseSegmentSumGrad, SparseSegmentMeanGrad and SparseSegmentSqrtNGrad "
                       "with no indices (and so the gradients of the sparse segment reductions) "
                       "return uninitialized memory (values like -6e26 or 9e34 that change from "
                       "run to run) where they should be zeros, which minigraph gives")
       for op in [f"SparseSegment{kind}{form}" for kind in ("Sum", "Mean", "SqrtN")
                  for form in ("", "WithNumSegments", "Grad")]},
    "datasets": ("legacy_v1_batch", "TensorFlow 1's BatchDataset and PaddedBatchDataset (no "
                                    "drop_remainder) fail with Internal whenever TensorFlow "
                                    "rewrites the dataset graph (MakeIterator's default "
                                    "optimizations): it serializes them with the V2 ops' "
                                    "drop_remainder input ('More Input() calls than the 2 "
                                    "input_args')"),
    "Pow": (".2.x[7].y[7]", "Pow of a negative denormal depends on where the element lies: in "
                            "the vectorized body it is flushed to -0 (pow(-0, 0.5) is 0), in "
                            "the scalar tail (this 7-element case, and the last elements of "
                            "any input whose length is not a multiple of the vector width) it "
                            "is not (NaN); minigraph flushes every element, as the vectorized "
                            "body does"),
    "Round": (".int", "graph-mode Round of int32 and int64 returns zeros (its integer kernel "
                      "computes nothing; eager mode has no integer kernel); rounding an integer "
                      "is the integer, which minigraph returns"),
}


def case_records(c, grads=True):
    """The records of case `c` for op_runner (tests/tf_interop/op_case.h),
    its gradient's (the case "<name>~grad") with `grads`."""
    records = {}
    records[f"{c.name}|graph"] = np.array(c.graph, dtype=object)
    for k, v in c.feeds.items():
        records[f"{c.name}|feed|{k}"] = v
    records[f"{c.name}|fetch"] = np.array([f.encode() for f in c.fetch] or [b""],
                                          dtype=object)[: len(c.fetch)]
    if grads and c.grad_xs:
        g = c.name + "~grad"
        records[f"{g}|graph"] = np.array(c.grad_graph, dtype=object)
        for k, v in c.grad_feeds.items():
            records[f"{g}|feed|{k}"] = v
        for field in ("grad_ys", "grad_xs", "grad_dys"):
            records[f"{g}|{field}"] = np.array([x.encode() for x in getattr(c, field)],
                                               dtype=object)
    return records


def write_cases(path, cases, grads=True):
    records = {}
    for c in cases:
        records.update(case_records(c, grads))
    interop.write_records(path, records)


def run_cases(path, out):
    p = subprocess.run([interop.binary("op_runner"), path, out], capture_output=True, text=True)
    if p.returncode != 0:
        # The case that was running, and what the runner (or a sanitizer) said after it
        # began: the report's first lines name the fault and where it is.
        lines = p.stderr.splitlines()
        starts = [i for i, line in enumerate(lines) if line.startswith("case: ")]
        case = lines[starts[-1]][len("case: "):] if starts else "?"
        after = "\n".join(lines[starts[-1] + 1 if starts else 0:])
        raise AssertionError(f"op_runner exited {p.returncode} in case {case}:\n{after[:4000]}")
    results = collections.defaultdict(dict)
    for key, value in interop.read_records(out).items():
        name, kind, *rest = key.split("|")
        if kind == "error":
            results[name]["error"] = (int(value[0]), value[1].decode(errors="replace"))
        else:
            results[name][int(rest[0])] = value
    return results


def no_kernel(result):
    """Whether minigraph has no kernel for the case's dtype: its OpDef does
    not allow it, or its kernel does not take it."""
    error = result.get("error")
    return error is not None and (
        (error[0] in (3, 12) and "no CPU kernel" in error[1])
        or (error[0] == 3 and "which is not one of the allowed types" in error[1]))


def compare_values(want, got, tol, int_atol=0):
    """'' when `got` equals `want` (TensorFlow's), else what differs."""
    a, b = interop.as_array(want), interop.as_array(got)
    if a.dtype != b.dtype or a.shape != b.shape:
        return f"{b.dtype}{list(b.shape)} where TensorFlow has {a.dtype}{list(a.shape)}"
    if a.dtype == object:
        same = [bytes(x) for x in a.ravel()] == [bytes(x) for x in b.ravel()]
        return "" if same else f"strings differ: {list(b.ravel())[:4]} where TensorFlow has {list(a.ravel())[:4]}"
    if a.dtype not in op_cases.TOLERANCE:
        if np.array_equal(a, b):
            return ""
        if int_atol and a.dtype.kind in "iu":
            gap = np.abs(a.astype(np.int64) - b.astype(np.int64))
            if gap.max() <= int_atol:
                return ""
            return f"{int((gap > int_atol).sum())} of {a.size} differ by more than {int_atol}"
        return f"differs (exact): {a.ravel()[:6]} vs {b.ravel()[:6]}"
    rtol, atol = (t * tol for t in op_cases.TOLERANCE[a.dtype])
    a64 = a.astype(np.complex128 if a.dtype.kind == "c" else np.float64)
    b64 = b.astype(a64.dtype)
    if np.allclose(a64, b64, rtol=rtol, atol=atol, equal_nan=True):
        return ""
    bad = ~np.isclose(a64, b64, rtol=rtol, atol=atol, equal_nan=True)
    i = np.argmax(bad.ravel())
    return (f"{int(bad.sum())} of {a.size} differ, e.g. at {i}: TensorFlow {a64.ravel()[i]!r},"
            f" minigraph {b64.ravel()[i]!r} (rtol {rtol:.2g}, atol {atol:.2g})")


def check(case, result, grad_result):
    """(forward problem, gradient problem): '' when they agree, None when
    not checked (no gradient asked)."""
    error = result.get("error")
    if case.error:
        if error is None:
            forward = f"TensorFlow fails with code {case.error}, minigraph runs"
        elif error[0] != case.error:
            forward = f"code {error[0]} ({error[1]}) where TensorFlow's is {case.error}"
        else:
            forward = ""
    elif error is not None:
        forward = f"minigraph fails: {error}"
    else:
        forward = ""
        for k, want in enumerate(case.want):
            forward = (compare_values(want, result.get(k), case.tol, case.int_atol)
                       if k in result else "missing")
            if forward:
                forward = f"output {case.compared[k]}: {forward}"
                break
    if grad_result is None:
        return forward, None
    error = grad_result.get("error")
    if error is not None:
        return forward, f"gradient: minigraph fails: {error}"
    for k, want in enumerate(case.grad_want):
        problem = compare_values(want, grad_result.get(k), case.tol * 10)
        if problem:
            return forward, f"gradient of {case.grad_xs[k]}: {problem}"
    return forward, ""


def gradient_registered():
    """Ops docs/ops.md says minigraph has a gradient for."""
    out = set()
    with open(os.path.join(HERE, "..", "..", "docs", "ops.md")) as f:
        for line in f:
            cells = [c.strip(" `") for c in line.strip().strip("|").split("|")]
            if len(cells) >= 3 and cells[2] == "yes":
                out.add(cells[0])
    return out


# The golden files: a few cases of every op with what TensorFlow gave, which
# //tests/tf_interop:op_golden_test replays without Python (op_case.h has
# their records). Per op, of the cases that agree: the smallest of each of
# up to two output dtypes, the smallest TensorFlow refuses, and the smallest
# whose gradient agrees. A full run checks that they are still what the
# generators and TensorFlow give; MG_WRITE_GOLDEN=$PWD/tests/tf_interop/golden
# writes them again.
GOLDEN_DIR = os.path.join(HERE, "golden")


def covered_ops(c):
    return getattr(c, "covers", None) or [c.op]


def golden_tolerance(value, tol, int_atol):
    a = interop.as_array(value)
    if a.dtype in op_cases.TOLERANCE:
        return np.array([t * tol for t in op_cases.TOLERANCE[a.dtype]], np.float64)
    return np.array([0.0, float(int_atol) if a.dtype.kind in "iu" else 0.0], np.float64)


def golden_selection(cases, agreed, agreed_grad):
    """{case name: (case, with its gradient)} of the golden files."""
    def size(c):
        return len(c.graph) + sum(interop.as_array(v).nbytes for v in c.feeds.values())

    # A case that reads a file its generator made in a temporary directory
    # cannot be replayed from the golden file alone.
    tmp = tempfile.gettempdir().encode()

    def reads_files(c):
        strings = [x for v in c.feeds.values() for x in interop.as_array(v).ravel()
                   if interop.as_array(v).dtype == object]
        return tmp in c.graph or any(tmp in bytes(x) for x in strings)

    by_op = collections.defaultdict(list)
    for c in cases:
        if c.name in agreed and not reads_files(c):
            for op in covered_ops(c):
                by_op[op].append(c)
    chosen = {}
    for op, found in by_op.items():
        found = sorted(found, key=lambda c: (size(c), c.name))
        dtypes = []
        for c in found:
            if c.error or not c.want:
                continue
            dt = interop.as_array(c.want[0]).dtype
            if dt not in dtypes and len(dtypes) < 2:
                dtypes.append(dt)
                chosen.setdefault(c.name, [c, False])
        for c in found:
            if c.error:
                chosen.setdefault(c.name, [c, False])
                break
        for c in found:
            if c.name in agreed_grad:
                chosen.setdefault(c.name, [c, False])[1] = True
                break
    return chosen


def golden_records(chosen):
    """{file name: {key: value}}: the chosen cases, by their op's first letter."""
    files = collections.defaultdict(dict)
    for name in sorted(chosen):
        c, grad = chosen[name]
        records = case_records(c, grad)
        covers = np.array([op.encode() for op in covered_ops(c)], dtype=object)
        records[f"{c.name}|covers"] = covers
        if c.error:
            records[f"{c.name}|error_code"] = np.array(c.error, np.int32)
        else:
            for k, w in enumerate(c.want):
                records[f"{c.name}|want|{k}"] = interop.as_array(w)
                records[f"{c.name}|tol|{k}"] = golden_tolerance(w, c.tol, c.int_atol)
        if grad:
            g = c.name + "~grad"
            records[f"{g}|covers"] = covers
            for k, w in enumerate(c.grad_want):
                records[f"{g}|want|{k}"] = interop.as_array(w)
                records[f"{g}|tol|{k}"] = golden_tolerance(w, c.tol * 10, 0)
        letter = c.op[0].upper() if c.op[0].isalpha() else "_"
        files[f"{letter}.records"].update(records)
    return files


def same_bits(a, b):
    a, b = interop.as_array(a), interop.as_array(b)
    if a.dtype != b.dtype or a.shape != b.shape:
        return False
    if a.dtype == object:
        return [bytes(x) for x in a.ravel()] == [bytes(x) for x in b.ravel()]
    return a.tobytes() == b.tobytes()


def same_graph(a, b):
    """Whether two serialized GraphDefs are one graph: protobuf writes a
    map's entries in no fixed order, and a lookup table's resource gets a
    shared_name of its own in every process."""
    from tensorflow.core.framework import graph_pb2

    def parse(v):
        g = graph_pb2.GraphDef.FromString(bytes(interop.as_array(v).ravel()[0]))
        for n in g.node:
            n.attr.pop("shared_name", None)
        return g
    return parse(a) == parse(b)


def last_bits_apart(a, b):
    """Whether float tensors `a` and `b` differ by at most 4 units in the last place."""
    a, b = interop.as_array(a), interop.as_array(b)
    if a.dtype != b.dtype or a.shape != b.shape or a.dtype.kind != "f":
        return False
    ulp = np.spacing(np.maximum(np.abs(a), np.abs(b)).astype(a.dtype))
    return bool(np.all((np.abs(a - b) <= 4 * ulp) | (np.isnan(a) & np.isnan(b))))


def golden_differences(stored, made):
    """What differs between the golden records on disk and those made now:
    the cases' keys and inputs exactly, TensorFlow's values within their
    tolerance (its float results may move in the last bits). An input a
    generator had TensorFlow compute (LRNGrad's output image) moves the same
    way with the CPU (AVX-512 or not): a float input may differ by a few
    units in the last place; the golden file keeps its inputs and TensorFlow's
    values for them together."""
    out = []
    for key in sorted(set(stored) | set(made)):
        if key not in made:
            out.append(f"{key}: in the golden files, no longer made")
        elif key not in stored:
            out.append(f"{key}: made, not in the golden files")
        elif same_bits(stored[key], made[key]):
            continue
        elif key.endswith("|graph") and same_graph(stored[key], made[key]):
            continue
        elif "|feed|" in key and last_bits_apart(stored[key], made[key]):
            continue
        elif "|want|" not in key:
            out.append(f"{key}: differs")
        else:
            a, b = interop.as_array(stored[key]), interop.as_array(made[key])
            rtol, atol = made[key.replace("|want|", "|tol|")]
            close = (a.dtype == b.dtype and a.shape == b.shape and a.dtype in op_cases.TOLERANCE
                     and np.allclose(a.astype(np.complex128), b.astype(np.complex128),
                                     rtol=rtol, atol=atol, equal_nan=True))
            if not close:
                out.append(f"{key}: TensorFlow's value changed")
    return out


class OpInterop(unittest.TestCase):
    def test_every_op(self):
        work = tempfile.mkdtemp()
        try:
            self._every_op(work)
        finally:
            shutil.rmtree(work)

    def _every_op(self, work):
        # A probe: the first case of each (op, dtype), without TensorFlow,
        # finds the dtypes minigraph's kernels register.
        # MG_OPS=A,B checks those ops (or graph groups) alone, while working on them.
        only = set(filter(None, os.environ.get("MG_OPS", "").split(",")))
        planned = {op: op_cases.cases_for(op, gen, attr) for op, (gen, attr) in GENERATORS.items()
                   if not only or op in only}
        probes = {}
        for op, cases in planned.items():
            for dt, spec, name in cases:
                if dt not in probes.setdefault(op, {}):
                    probes[op][dt] = op_cases.build(op, spec, name, run=False)
        probe_cases = [c for per_op in probes.values() for c in per_op.values() if c]
        write_cases(os.path.join(work, "probe"), probe_cases, grads=False)
        probed = run_cases(os.path.join(work, "probe"), os.path.join(work, "probe.out"))
        registered = {op: {dt for dt, c in per_op.items() if c and not no_kernel(probed[c.name])}
                      for op, per_op in probes.items()}

        cases = []
        for op, planned_cases in planned.items():
            for dt, spec, name in planned_cases:
                if dt in registered[op]:
                    c = op_cases.build(op, spec, name)
                    if c is not None:
                        cases.append(c)
        # The ops that run only in small graphs: each case is credited to the
        # ops of its group that its graph holds.
        missing = []
        for group, gen, ops in [g for g in GRAPH_GROUPS if not only or g[0] in only]:
            seen = set()
            for i, spec in enumerate(gen(None, op_cases.seeded(group))):
                c = op_cases.build(group, spec, op_cases.case_name(f"{group}.{i}", spec))
                if c is None:
                    missing.append(f"{group}.{spec.label}: TensorFlow has no kernel for it")
                    continue
                c.covers = sorted(op_cases.graph_ops(c.graph) & set(ops))
                seen.update(c.covers)
                cases.append(c)
            missing += [f"{group}: no case's graph has {op}" for op in ops if op not in seen]
        write_cases(os.path.join(work, "cases"), cases)
        results = run_cases(os.path.join(work, "cases"), os.path.join(work, "cases.out"))

        with_gradient = gradient_registered()
        counts = collections.defaultdict(lambda: [0, 0])
        problems = collections.defaultdict(list)
        tf_bugs = collections.Counter()
        unregistered = collections.Counter()
        agreed, agreed_grad = set(), set()
        for c in cases:
            if no_kernel(results[c.name]):
                # A dtype combination the probe did not try (Cast's DstT).
                unregistered[c.op] += 1
                continue
            # Never counted either way: TensorFlow's answer may be garbage
            # that happens to agree.
            bug = TENSORFLOW_BUGS.get(c.op)
            if bug is not None and any(
                    part in c.name for part in ((bug[0],) if isinstance(bug[0], str) else bug[0])):
                tf_bugs[c.op] += 1
                continue
            # (A whole graph's gradient is checked whenever it has one.)
            checked = c.op in with_gradient or getattr(c, "covers", None)
            grad = results.get(c.name + "~grad") if c.grad_xs and checked else None
            forward, backward = check(c, results[c.name], grad)
            if forward == "":
                agreed.add(c.name)
                if backward == "":
                    agreed_grad.add(c.name)
            for i, problem in enumerate((forward, backward)):
                if problem is None:
                    continue
                if problem:
                    problems[c.op].append(f"{c.name}: {problem}")
                else:
                    for op in getattr(c, "covers", None) or [c.op]:
                        counts[op][i] += 1
        unexpected = list(missing)
        for op, found in sorted(problems.items()):
            gap = KNOWN_GAPS.get(op)
            for p in found:
                if gap is None or gap[0] not in p:
                    unexpected.append(p)
        # A generator whose cases TensorFlow all refused to build checks nothing.
        unexpected += [f"{op}: no case agrees with TensorFlow (none could be built?)"
                       for op in planned if counts[op][0] == 0 and op not in KNOWN_GAPS]
        for op, (gap, why) in KNOWN_GAPS.items():
            if op in planned and not any(gap in p for p in problems.get(op, [])):
                unexpected.append(f"{op}: known gap '{gap}' ({why}) no longer seen")
        for op in sorted(counts):
            dts = sorted(d.name for d in registered.get(op, ()) if d is not None)
            print(f"{op}: {counts[op][0]} cases, {counts[op][1]} gradient cases "
                  f"({', '.join(dts) or 'no type attr'}), {len(problems.get(op, []))} differ")
        print(f"cases of dtypes minigraph's kernels do not register: {dict(unregistered)}")
        print(f"ops: {len(counts)}, cases: {len(cases)} (TensorFlow's bugs: {dict(tf_bugs)}); "
              f"agreeing with TensorFlow, per op: {sum(f for f, _ in counts.values())}, "
              f"gradient cases: {sum(g for _, g in counts.values())}")
        for p in unexpected:
            print("DIFFERS:", p[:400])
        self.assertEqual(len(unexpected), 0, f"{len(unexpected)} cases differ (DIFFERS lines)")
        if not only:
            self._check_counts(counts, registered)
            self._check_golden(golden_selection(cases, agreed, agreed_grad), counts)

    def _check_counts(self, counts, registered):
        lines = ["# op\tcases\tgradient cases\tdtypes (written by op_interop_test.py)"]
        for op in sorted(counts):
            dts = ",".join(sorted(d.name for d in registered.get(op, ()) if d is not None))
            lines.append(f"{op}\t{counts[op][0]}\t{counts[op][1]}\t{dts}")
        text = "\n".join(lines) + "\n"
        target = os.environ.get("MG_WRITE_OP_COUNTS")
        if target:
            with open(target, "w") as f:
                f.write(text)
            return
        with open(os.path.join(HERE, "op_counts.tsv")) as f:
            self.assertEqual(f.read(), text, "op_counts.tsv is out of date: see this file's "
                                             "docstring")

    def _check_golden(self, chosen, counts):
        files = golden_records(chosen)
        # The ops op_counts.tsv credits that have no golden case (their every
        # case reads files): op_golden_test lets these alone go uncovered.
        forward = {op for c, _ in chosen.values() for op in covered_ops(c)}
        gradient = {op for c, grad in chosen.values() if grad for op in covered_ops(c)}
        uncovered = ["# op\twhat has no golden case (written by op_interop_test.py: every "
                     "case of it reads files its generator made)"]
        for op in sorted(counts):
            if counts[op][0] and op not in forward:
                uncovered.append(f"{op}\tcases")
            elif counts[op][1] and op not in gradient:
                uncovered.append(f"{op}\tgradient cases")
        uncovered_text = "\n".join(uncovered) + "\n"
        uncovered_path = "uncovered.tsv"
        target = os.environ.get("MG_WRITE_GOLDEN")
        if target:
            os.makedirs(target, exist_ok=True)
            for old in os.listdir(target):
                if old.endswith(".records"):
                    os.remove(os.path.join(target, old))
            for name, records in files.items():
                interop.write_records(os.path.join(target, name), records)
            with open(os.path.join(target, uncovered_path), "w") as f:
                f.write(uncovered_text)
            print(f"golden files: {len(chosen)} cases in {len(files)} files, written to {target}; "
                  f"{len(uncovered) - 1} ops without")
            return
        stored, made = {}, {}
        for name in sorted(os.listdir(GOLDEN_DIR)):
            if name.endswith(".records"):
                stored.update(interop.read_records(os.path.join(GOLDEN_DIR, name)))
        for records in files.values():
            made.update(records)
        differences = golden_differences(stored, made)
        with open(os.path.join(GOLDEN_DIR, uncovered_path)) as f:
            if f.read() != uncovered_text:
                differences.append(f"{uncovered_path} differs")
        for d in differences[:20]:
            print("GOLDEN:", d[:300])
        self.assertEqual(len(differences), 0,
                         f"{len(differences)} golden records are out of date (GOLDEN lines): "
                         "see GOLDEN_DIR's comment in this file")

    def test_stateless_random(self):
        root, work = tempfile.mkdtemp(), tempfile.mkdtemp()
        try:
            model = op_graph("stateless_random", root, stateless_random)
            got = models.run_in_minigraph(model, work)
            from model_interop_test import compare
            self.assertEqual(compare(model, got), "")
            print(f"stateless_random: {len(model.want)} outputs equal TensorFlow's bit for bit")
        finally:
            shutil.rmtree(root)
            shutil.rmtree(work)


def op_graph(name, root, build, rtol=0.0, atol=0.0):
    """`build()` makes placeholders and ops in a fresh graph and returns
    (feeds {placeholder: value}, [outputs]); TensorFlow runs it once."""
    d = os.path.join(root, name)
    os.makedirs(d, exist_ok=True)
    with tf.Graph().as_default() as g:
        feeds, outputs = build()
        meta = os.path.join(d, "graph.meta")
        v1.train.export_meta_graph(meta, graph=g)
        with v1.Session() as sess:
            values = sess.run(outputs, feeds)
    return models.Model(name=name, kind="meta", path=meta,
                        feeds={k.name: v for k, v in feeds.items()},
                        want={t.name: v for t, v in zip(outputs, values)}, rtol=rtol, atol=atol)


def stateless_random():
    """TF 2's initializers and tf.random.stateless_*: the Philox stream."""
    out = []
    seeds = [(0, 0), (1, 2), (-7, 123456789), (2**31 - 1, -(2**31))]
    shapes = [[], [1], [7], [3, 5], [1001], [0, 4]]
    for dtype in (tf.float32, tf.float64):
        for fn in (tf.random.stateless_uniform, tf.random.stateless_normal,
                   tf.random.stateless_truncated_normal):
            for seed in seeds:
                for shape in shapes:
                    out.append(fn(shape, seed=seed, dtype=dtype))
    for seed_dtype in (tf.int32, tf.int64):
        seed = tf.constant([5, -9], seed_dtype)
        key, counter = tf.raw_ops.StatelessRandomGetKeyCounter(seed=seed)
        out += [key, counter, tf.raw_ops.StatelessRandomGetAlg()]
        for op in (tf.raw_ops.StatelessRandomUniform, tf.raw_ops.StatelessRandomNormal,
                   tf.raw_ops.StatelessTruncatedNormal):
            out.append(op(shape=[4, 3], seed=seed, dtype=tf.float32))
    # A glorot_uniform initializer as tf_keras builds it into a layer's graph.
    import tf_keras as keras
    out.append(keras.initializers.GlorotUniform(seed=11)((6, 4)))
    return {}, out


if __name__ == "__main__":
    unittest.main(verbosity=2)
