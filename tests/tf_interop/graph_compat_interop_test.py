"""What real TensorFlow graphs trip on, with TensorFlow 2.21 as the oracle.

GraphDef versions: hand-built GraphDefs whose semantics depend on `versions`
(a TensorFlow 1.0-era Placeholder whose `shape` attr has no dimensions,
reduction axes of rank 2, min_consumer and bad_consumers) at versions on both
sides of each change. TensorFlow imports and runs each; minigraph's
model_runner runs the same GraphDef. Both must give the same values, or both
refuse it.

Python functions: a graph with tf.compat.v1.py_func and tf.py_function
nodes, its variables in a checkpoint. minigraph restores the variables and
runs every fetch that does not need Python, as TensorFlow does; a fetch that
reaches a Python function fails naming the node, and run_graph says which
nodes need Python.

Serving inputs: SavedModels whose signatures take serialized
tf.train.Examples (an Estimator-style export) or JPEG bytes (an image
classifier that decodes and resizes in the graph) run from the same bytes
with TensorFlow's outputs."""

import os
import shutil
import subprocess
import tempfile
import unittest

import numpy as np
from google.protobuf import text_format

import interop
from interop import tf

v1 = tf.compat.v1
v1.disable_eager_execution()

# tf.placeholder(tf.float32) as TensorFlow 1.0 wrote it, and an ArgMax along
# dimension 1 of it.
LEGACY_PLACEHOLDER = """
  node { name: "x" op: "Placeholder"
         attr { key: "dtype" value { type: DT_FLOAT } }
         attr { key: "shape" value { shape {} } } }
  node { name: "d" op: "Const"
         attr { key: "dtype" value { type: DT_INT32 } }
         attr { key: "value" value { tensor { dtype: DT_INT32 tensor_shape {} int_val: 1 } } } }
  node { name: "m" op: "ArgMax" input: "x" input: "d"
         attr { key: "T" value { type: DT_FLOAT } }
         attr { key: "Tidx" value { type: DT_INT32 } }
         attr { key: "output_type" value { type: DT_INT64 } } }
"""

# A Sum whose axes are a [1, 1] tensor.
RANK2_AXES = """
  node { name: "x" op: "Placeholder"
         attr { key: "dtype" value { type: DT_FLOAT } }
         attr { key: "shape" value { shape { dim { size: 2 } dim { size: 3 } } } } }
  node { name: "axes" op: "Const"
         attr { key: "dtype" value { type: DT_INT32 } }
         attr { key: "value" value { tensor { dtype: DT_INT32
           tensor_shape { dim { size: 1 } dim { size: 1 } } int_val: 1 } } } }
  node { name: "m" op: "Sum" input: "x" input: "axes"
         attr { key: "T" value { type: DT_FLOAT } }
         attr { key: "Tidx" value { type: DT_INT32 } }
         attr { key: "keep_dims" value { b: false } } }
"""

# The largest two of each row of x, by TopKV2.
TOP_K_V2 = """
  node { name: "x" op: "Placeholder"
         attr { key: "dtype" value { type: DT_FLOAT } }
         attr { key: "shape" value { shape { dim { size: 2 } dim { size: 3 } } } } }
  node { name: "k" op: "Const"
         attr { key: "dtype" value { type: DT_INT32 } }
         attr { key: "value" value { tensor { dtype: DT_INT32 tensor_shape {} int_val: 2 } } } }
  node { name: "m" op: "TopKV2" input: "x" input: "k"
         attr { key: "T" value { type: DT_FLOAT } } }
"""

# TensorFlow 0.12's PlaceholderV2 (deprecated at version 23), summed.
PLACEHOLDER_V2 = """
  node { name: "x" op: "PlaceholderV2"
         attr { key: "dtype" value { type: DT_FLOAT } }
         attr { key: "shape" value { shape { dim { size: 2 } dim { size: 3 } } } } }
  node { name: "axes" op: "Const"
         attr { key: "dtype" value { type: DT_INT32 } }
         attr { key: "value" value { tensor { dtype: DT_INT32 tensor_shape { dim { size: 1 } }
                                              int_val: 0 } } } }
  node { name: "m" op: "Sum" input: "x" input: "axes"
         attr { key: "T" value { type: DT_FLOAT } }
         attr { key: "Tidx" value { type: DT_INT32 } } }
"""


def _const(name, values, shape):
    vals = " ".join(f"float_val: {v}" for v in values)
    dims = " ".join(f"dim {{ size: {d} }}" for d in shape)
    return (f'node {{ name: "{name}" op: "Const" attr {{ key: "dtype" value {{ type: DT_FLOAT }} }}'
            f' attr {{ key: "value" value {{ tensor {{ dtype: DT_FLOAT tensor_shape {{ {dims} }}'
            f' {vals} }} }} }} }}')


# TensorFlow 0.x's BatchNormWithGlobalNormalization (deprecated at version 9,
# in Inception's 2015 graph) of x as [1, 2, 3, 1].
BATCH_NORM_GLOBAL = """
  node { name: "x" op: "Placeholder"
         attr { key: "dtype" value { type: DT_FLOAT } }
         attr { key: "shape" value { shape { dim { size: 2 } dim { size: 3 } } } } }
  node { name: "shape" op: "Const"
         attr { key: "dtype" value { type: DT_INT32 } }
         attr { key: "value" value { tensor { dtype: DT_INT32 tensor_shape { dim { size: 4 } }
                int_val: 1 int_val: 2 int_val: 3 int_val: 1 } } } }
  node { name: "t" op: "Reshape" input: "x" input: "shape"
         attr { key: "T" value { type: DT_FLOAT } } }
""" + "\n".join(_const(n, [v], [1]) for n, v in
                (("mean", 1.5), ("var", 4.0), ("beta", 0.25), ("gamma", -2.0))) + """
  node { name: "m" op: "BatchNormWithGlobalNormalization"
         input: "t" input: "mean" input: "var" input: "beta" input: "gamma"
         attr { key: "T" value { type: DT_FLOAT } }
         attr { key: "variance_epsilon" value { f: 0.001 } }
         attr { key: "scale_after_normalization" value { b: true } } }
"""


def _int_const(name, values, vector=True):
    vals = " ".join(f"int_val: {v}" for v in values)
    shape = f"dim {{ size: {len(values)} }}" if vector else ""
    return (f'node {{ name: "{name}" op: "Const" attr {{ key: "dtype" value {{ type: DT_INT32 }} }}'
            f' attr {{ key: "value" value {{ tensor {{ dtype: DT_INT32 tensor_shape {{ {shape} }}'
            f' {vals} }} }} }} }}')


# TensorFlow 0.12's TensorArray ops (deprecated at version 26: string
# handles, no flow out of the array): x's rows scattered, gathered in
# reverse, concatenated, counted; a gradient array with one row written,
# gathered (the other row zeros); closed last. All of it flattened into m.
TENSOR_ARRAY_V2 = "\n".join([
    _int_const("size", [2], False), _int_const("rows", [0, 1]), _int_const("reversed", [1, 0]),
    _int_const("one", [1], False), _int_const("flat", [-1]), _int_const("axis", [0], False),
    _const("flow0", [0.0], []), _const("row", [7.0, 8.0, 9.0], [3])]) + """
  node { name: "x" op: "Placeholder"
         attr { key: "dtype" value { type: DT_FLOAT } }
         attr { key: "shape" value { shape { dim { size: 2 } dim { size: 3 } } } } }
  node { name: "ta" op: "TensorArrayV2" input: "size"
         attr { key: "dtype" value { type: DT_FLOAT } }
         attr { key: "element_shape" value { shape { dim { size: 3 } } } }
         attr { key: "dynamic_size" value { b: false } }
         attr { key: "clear_after_read" value { b: false } }
         attr { key: "tensor_array_name" value { s: "" } } }
  node { name: "scatter" op: "TensorArrayScatterV2" input: "ta" input: "rows" input: "x"
         input: "flow0" attr { key: "T" value { type: DT_FLOAT } } }
  node { name: "gathered" op: "TensorArrayGatherV2" input: "ta" input: "reversed"
         input: "scatter" attr { key: "dtype" value { type: DT_FLOAT } }
         attr { key: "element_shape" value { shape { dim { size: 3 } } } } }
  node { name: "concat" op: "TensorArrayConcatV2" input: "ta" input: "scatter"
         attr { key: "dtype" value { type: DT_FLOAT } }
         attr { key: "element_shape_except0" value { shape { unknown_rank: true } } } }
  node { name: "count" op: "TensorArraySizeV2" input: "ta" input: "scatter" }
  node { name: "grad" op: "TensorArrayGradV2" input: "ta" input: "scatter"
         attr { key: "source" value { s: "gradients" } } }
  node { name: "grad_write" op: "TensorArrayWriteV2" input: "grad" input: "one" input: "row"
         input: "scatter" attr { key: "T" value { type: DT_FLOAT } } }
  node { name: "grad_gathered" op: "TensorArrayGatherV2" input: "grad" input: "rows"
         input: "grad_write" attr { key: "dtype" value { type: DT_FLOAT } }
         attr { key: "element_shape" value { shape { dim { size: 3 } } } } }
  node { name: "close" op: "TensorArrayCloseV2" input: "ta" input: "^gathered"
         input: "^concat" input: "^count" input: "^grad_gathered" }
  node { name: "g_flat" op: "Reshape" input: "gathered" input: "flat"
         attr { key: "T" value { type: DT_FLOAT } } }
  node { name: "gg_flat" op: "Reshape" input: "grad_gathered" input: "flat"
         attr { key: "T" value { type: DT_FLOAT } } }
  node { name: "count_f" op: "Cast" input: "count"
         attr { key: "SrcT" value { type: DT_INT32 } }
         attr { key: "DstT" value { type: DT_FLOAT } } }
  node { name: "count_flat" op: "Reshape" input: "count_f" input: "flat"
         attr { key: "T" value { type: DT_FLOAT } } }
  node { name: "all" op: "ConcatV2" input: "g_flat" input: "concat" input: "gg_flat"
         input: "count_flat" input: "axis"
         attr { key: "N" value { i: 4 } } attr { key: "T" value { type: DT_FLOAT } }
         attr { key: "Tidx" value { type: DT_INT32 } } }
  node { name: "m" op: "Identity" input: "all" input: "^close"
         attr { key: "T" value { type: DT_FLOAT } } }
"""

X = np.arange(6, dtype=np.float32).reshape(2, 3)[:, ::-1].copy()

# (case, graph, versions): each run with x fed X and m fetched.
CASES = [
    ("legacy placeholder, version 21", LEGACY_PLACEHOLDER, "producer: 21"),
    ("legacy placeholder, version 0", LEGACY_PLACEHOLDER, "producer: 0"),
    ("legacy placeholder, no versions", LEGACY_PLACEHOLDER, None),
    ("scalar placeholder, version 22", LEGACY_PLACEHOLDER, "producer: 22"),
    ("rank-2 reduction axes, version 20", RANK2_AXES, "producer: 20"),
    ("rank-2 reduction axes, version 21", RANK2_AXES, "producer: 21"),
    ("min_consumer above 2.21's", RANK2_AXES, "producer: 3000 min_consumer: 3000"),
    ("bad_consumers naming 2.21's", LEGACY_PLACEHOLDER, "producer: 21 bad_consumers: 2474"),
    ("TopKV2", TOP_K_V2, "producer: 2474"),
    ("PlaceholderV2, version 22", PLACEHOLDER_V2, "producer: 22"),
    ("PlaceholderV2, version 23 (removed)", PLACEHOLDER_V2, "producer: 23"),
    ("BatchNormWithGlobalNormalization, version 8", BATCH_NORM_GLOBAL, "producer: 8"),
    ("BatchNormWithGlobalNormalization, version 9 (removed)", BATCH_NORM_GLOBAL, "producer: 9"),
    ("TensorArrayV2 and its ops, version 25", TENSOR_ARRAY_V2, "producer: 25"),
    ("TensorArrayV2 and its ops, version 26 (removed)", TENSOR_ARRAY_V2, "producer: 26"),
]


def graph_def(nodes, versions):
    text = nodes + (f" versions {{ {versions} }}" if versions is not None else "")
    return text_format.Parse(text, v1.GraphDef())


def run_tensorflow(gd):
    """The fetched m, or None when TensorFlow refuses the graph."""
    try:
        with tf.Graph().as_default() as g:
            tf.import_graph_def(gd, name="")
            with v1.Session(graph=g) as sess:
                return sess.run("m:0", {"x:0": X})
    except (ValueError, tf.errors.OpError):
        return None


def run_minigraph(gd, work):
    """(the fetched m or None, minigraph's error text)."""
    meta = v1.MetaGraphDef()
    meta.graph_def.CopyFrom(gd)
    path, feeds, out = (os.path.join(work, n) for n in ("g.meta", "feeds", "out"))
    with open(path, "wb") as f:
        f.write(meta.SerializeToString())
    interop.write_records(feeds, {"x:0": X})
    proc = subprocess.run([interop.binary("model_runner"), f"--graph={path}",
                           f"--feeds={feeds}", "--fetch=m:0", f"--out={out}"],
                          capture_output=True, text=True, timeout=120)
    if proc.returncode != 0:
        return None, proc.stderr.strip()
    return interop.read_records(out)["m:0"], ""


class GraphVersionsInterop(unittest.TestCase):
    def test_old_and_new_versions_as_tensorflow(self):
        with tempfile.TemporaryDirectory() as work:
            for case, nodes, versions in CASES:
                with self.subTest(case=case):
                    gd = graph_def(nodes, versions)
                    want = run_tensorflow(gd)
                    got, error = run_minigraph(gd, work)
                    if want is None:
                        self.assertIsNone(got, "TensorFlow refuses the graph; minigraph ran it")
                        self.assertTrue(error)
                    else:
                        self.assertIsNotNone(got, f"TensorFlow runs it; minigraph: {error}")
                        interop.assert_same_bits(self, {"m": want}, {"m": got}, case)
                    if "removed" in case:
                        self.assertIn("It has been removed in version", error)

    def test_top_k_of_old_graphs(self):
        """TopK (k an attr) was removed at version 7: TensorFlow refuses it there
        and later, with the message minigraph gives. Below 7 TensorFlow 2.21
        cannot run it either (its kernel requires an index_type attr TopK never
        had, its bug); minigraph runs it, with the values TopKV2 gives in
        TensorFlow."""
        top_k = TOP_K_V2.replace('op: "TopKV2" input: "x" input: "k"', 'op: "TopK" input: "x"')
        top_k = top_k.replace('attr { key: "T" value { type: DT_FLOAT } } }',
                              'attr { key: "T" value { type: DT_FLOAT } }'
                              ' attr { key: "k" value { i: 2 } } }')
        want = run_tensorflow(graph_def(TOP_K_V2, "producer: 2474"))
        with tempfile.TemporaryDirectory() as work:
            got, error = run_minigraph(graph_def(top_k, "producer: 6"), work)
            self.assertIsNotNone(got, error)
            interop.assert_same_bits(self, {"m": want}, {"m": got}, "TopK at version 6")
            got, error = run_minigraph(graph_def(top_k, "producer: 7"), work)
            self.assertIsNone(got)
            self.assertIn("Op TopK is not available in GraphDef version 7. It has been removed "
                          "in version 7. Use TopKV2 instead.", error)
        self.assertIsNone(run_tensorflow(graph_def(top_k, "producer: 7")))


def _reader(name, op, attrs=""):
    return f'node {{ name: "{name}" op: "{op}" {attrs} }}'


def v1_readers(work):
    """A TensorFlow 1.0-era graph (version 21) of the V1 readers over a V1
    queue: each reader's records, ReadUpTo, the counters, a reset and an
    IdentityReader's state restored, joined into the string "m". (Not the V1
    FixedLengthRecordReader: TensorFlow 2.21's kernel asks for an `encoding`
    attr that only the V2 op has, so it runs in no graph there, a bug;
    minigraph reads an absent `encoding` as none, and reader_kernels_test
    runs the V2 op's cases.)"""
    text = os.path.join(work, "a.txt")
    with open(text, "w") as f:
        f.write("header\nx,1\ny,2\n")
    record = os.path.join(work, "a.tfrecord")
    with tf.io.TFRecordWriter(record) as w:
        w.write(b"r0")
        w.write(b"r1")
    blob = os.path.join(work, "a.bin")
    with open(blob, "wb") as f:
        f.write(b"HHabcdef")
    files = [record, text, blob, "ident"]
    strs = lambda v: "".join(f' string_val: "{x}"' for x in v)
    shape = lambda n: f"tensor_shape {{ dim {{ size: {n} }} }}" if n else "tensor_shape {}"
    const = lambda name, v, n: (
        f'node {{ name: "{name}" op: "Const" attr {{ key: "dtype" value {{ type: DT_STRING }} }}'
        f' attr {{ key: "value" value {{ tensor {{ dtype: DT_STRING {shape(n)}{strs(v)} }} }} }} }}')
    s_type = 'attr { key: "component_types" value { list { type: DT_STRING } } }'
    nodes = [
        'node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }',
        const("files", files, len(files)), const("sep", [","], 0),
        f'node {{ name: "q" op: "FIFOQueue" {s_type} }}',
        'node { name: "fill" op: "QueueEnqueueMany" input: "q" input: "files"'
        ' attr { key: "Tcomponents" value { list { type: DT_STRING } } } }',
        'node { name: "close" op: "QueueClose" input: "q" input: "^fill" }',
        _reader("tfr", "TFRecordReader"),
        _reader("lines", "TextLineReader", 'attr { key: "skip_header_lines" value { i: 1 } }'),
        _reader("whole", "WholeFileReader"), _reader("ident", "IdentityReader"),
        'node { name: "n" op: "Const" attr { key: "dtype" value { type: DT_INT64 } }'
        ' attr { key: "value" value { tensor { dtype: DT_INT64 tensor_shape {} int64_val: 2 } } } }',
        'node { name: "r0" op: "ReaderRead" input: "tfr" input: "q" input: "^close" }',
        'node { name: "r1" op: "ReaderReadUpTo" input: "lines" input: "q" input: "n"'
        ' input: "^r0" }',
        'node { name: "r3" op: "ReaderRead" input: "whole" input: "q" input: "^r1" }',
        'node { name: "r4" op: "ReaderRead" input: "ident" input: "q" input: "^r3" }',
        'node { name: "state" op: "ReaderSerializeState" input: "ident" input: "^r4" }',
        'node { name: "reset" op: "ReaderReset" input: "ident" input: "^state" }',
        'node { name: "restore" op: "ReaderRestoreState" input: "ident" input: "state"'
        ' input: "^reset" }',
        'node { name: "produced" op: "ReaderNumRecordsProduced" input: "ident"'
        ' input: "^restore" }',
        'node { name: "done" op: "ReaderNumWorkUnitsCompleted" input: "lines" input: "^r4" }',
    ]
    for name, t in (("produced", "DT_INT64"), ("done", "DT_INT64")):
        nodes.append(f'node {{ name: "{name}_s" op: "AsString" input: "{name}"'
                     f' attr {{ key: "T" value {{ type: {t} }} }} }}')
    parts = ["r0:0", "r0:1", "r1:0", "r1:1", "r3:1", "r4:0", "produced_s", "done_s"]
    vectors = {"r1:0", "r1:1"}  # ReadUpTo's; the rest are scalars
    for i, part in enumerate(parts):
        axes = "axis" if part in vectors else "no_axis"
        nodes.append(f'node {{ name: "j{i}" op: "ReduceJoin" input: "{part}" input: "{axes}"'
                     ' attr { key: "keep_dims" value { b: false } }'
                     ' attr { key: "separator" value { s: "|" } } }')
    for name, dims in (("axis", "tensor_shape {}"), ("no_axis", "tensor_shape { dim {} }")):
        nodes.append(f'node {{ name: "{name}" op: "Const"'
                     ' attr { key: "dtype" value { type: DT_INT32 } }'
                     f' attr {{ key: "value" value {{ tensor {{ dtype: DT_INT32 {dims} }} }} }} }}')
    joined = " ".join(f'input: "j{i}"' for i in range(len(parts)))
    nodes.append(f'node {{ name: "m" op: "StringJoin" {joined}'
                 f' attr {{ key: "N" value {{ i: {len(parts)} }} }}'
                 ' attr { key: "separator" value { s: ";" } } }')
    return "\n".join(nodes)


class V1Readers(unittest.TestCase):
    def test_the_v1_readers_of_an_old_graph_read_as_tensorflow(self):
        """TensorFlow 2.21 builds no V1 reader in today's graphs (removed at
        version 26) but runs a graph of version 21 that holds them."""
        with tempfile.TemporaryDirectory() as work:
            gd = graph_def(v1_readers(work), "producer: 21")
            want = run_tensorflow(gd)
            self.assertIsNotNone(want, "TensorFlow refused the graph")
            got, error = run_minigraph(gd, work)
            self.assertIsNotNone(got, error)
            interop.assert_same_bits(self, {"m": want}, {"m": got}, "V1 readers")
            print("V1 readers:", want)
            gd = graph_def(v1_readers(work), "producer: 26")
            self.assertIsNone(run_tensorflow(gd))
            got, error = run_minigraph(gd, work)
            self.assertIsNone(got)
            self.assertIn("It has been removed in version 26", error)


class PythonFunctions(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp()

    def tearDown(self):
        shutil.rmtree(self.dir)

    def test_what_does_not_need_python_runs(self):
        prefix = os.path.join(self.dir, "model")
        with tf.Graph().as_default():
            x = v1.placeholder(tf.float32, [2, 3], name="x")
            w = v1.get_variable("w", initializer=tf.constant(
                np.linspace(-1, 1, 12, dtype=np.float32).reshape(3, 4)), use_resource=False)
            y = tf.nn.relu(tf.matmul(x, w), name="y")
            doubled = v1.py_func(lambda a: a * 2, [y], tf.float32, name="doubled")
            eager = tf.py_function(lambda a: a + 1, [y], tf.float32, name="eager")
            saver = v1.train.Saver()
            with v1.Session() as sess:
                sess.run(w.initializer)
                want = sess.run(y, {x: X})
                saver.save(sess, prefix)
            names = (doubled.op.name, eager.op.name)
        feeds, out = os.path.join(self.dir, "feeds"), os.path.join(self.dir, "out")
        interop.write_records(feeds, {"x:0": X})
        runner = [interop.binary("model_runner"), f"--graph={prefix}.meta",
                  f"--checkpoint={prefix}", f"--feeds={feeds}", f"--out={out}"]
        interop.run(runner + ["--fetch=y:0"])
        interop.assert_same_bits(self, {"y:0": want}, interop.read_records(out), "y")
        for name, op in zip(names, ("PyFunc", "EagerPyFunc")):
            proc = subprocess.run(runner + [f"--fetch={name}:0"], capture_output=True, text=True,
                                  timeout=120)
            self.assertNotEqual(proc.returncode, 0)
            self.assertIn(f"node '{name}' ({op}) calls a Python function", proc.stderr)
            self.assertIn("needs Python", proc.stderr)
        check = interop.run([interop.binary("run_graph"), f"{prefix}.meta"]).stdout
        self.assertIn("every op known; 1 variables restored", check)
        self.assertIn(f"2 nodes call Python functions (PyFunc '{names[0]}', "
                      f"EagerPyFunc '{names[1]}'): they need Python", check)


class ServingInputs(unittest.TestCase):
    """SavedModels in TensorFlow 1's layout whose serving signatures take
    bytes: serialized tf.train.Examples (as an Estimator's export does, with a
    Python function elsewhere in its graph) and JPEG images (decoded, resized
    and classified inside the graph, in a map_fn loop)."""

    def setUp(self):
        self.dir = tempfile.mkdtemp()

    def tearDown(self):
        shutil.rmtree(self.dir)

    def _export(self, inputs, outputs, feeds):
        """Saves the default graph's model with a serving_default signature
        and returns TensorFlow's outputs for `feeds` {key: value}."""
        path = os.path.join(self.dir, "export")
        with v1.Session() as sess:
            sess.run(v1.global_variables_initializer())
            want = sess.run(outputs, {inputs[k]: v for k, v in feeds.items()})
            builder = v1.saved_model.Builder(path)
            signature = v1.saved_model.predict_signature_def(inputs, outputs)
            builder.add_meta_graph_and_variables(
                sess, ["serve"], signature_def_map={"serving_default": signature})
            builder.save()
        return path, want

    def _run_minigraph(self, path, feeds):
        records, out = os.path.join(self.dir, "feeds"), os.path.join(self.dir, "out")
        interop.write_records(records, feeds)
        interop.run([interop.binary("model_runner"), f"--saved_model={path}",
                     f"--feeds={records}", f"--out={out}"])
        return interop.read_records(out)

    def test_estimator_style_export_runs_from_serialized_examples(self):
        def example(x, age, tags):
            f = {"x": tf.train.Feature(float_list=tf.train.FloatList(value=x)),
                 "tags": tf.train.Feature(bytes_list=tf.train.BytesList(value=tags))}
            if age is not None:
                f["age"] = tf.train.Feature(int64_list=tf.train.Int64List(value=[age]))
            return tf.train.Example(features=tf.train.Features(feature=f)).SerializeToString()

        examples = np.array([example([1.0, -2.0, 0.5], 41, [b"red", b"big"]),
                             example([0.0, 3.0, -1.5], None, []),
                             example([2.5, 0.25, 1.0], 7, [b"small"])], dtype=object)
        with tf.Graph().as_default():
            serialized = v1.placeholder(tf.string, [None], name="input_example_tensor")
            f = v1.parse_example(serialized, {
                "x": v1.FixedLenFeature([3], tf.float32),
                "age": v1.FixedLenFeature([], tf.int64, default_value=30),
                "tags": v1.VarLenFeature(tf.string)})
            batch = tf.shape(serialized)[0]
            rows = f["tags"].indices[:, 0]
            table = v1.get_variable("tag_embeddings", [16, 2], initializer=tf.constant_initializer(
                np.linspace(-1, 1, 32).reshape(16, 2)))
            hashed = tf.strings.to_hash_bucket_fast(f["tags"].values, 16)
            tags = tf.math.unsorted_segment_sum(tf.gather(table, hashed), rows, batch)
            count = tf.math.unsorted_segment_sum(tf.ones_like(hashed, tf.float32), rows, batch)
            age = tf.cast(f["age"], tf.float32)[:, None] / 100.0
            features = tf.concat([f["x"], age, tags, count[:, None]], 1)
            w = v1.get_variable("w", initializer=tf.constant(
                np.linspace(-0.5, 0.5, 21, dtype=np.float32).reshape(7, 3)))
            b = v1.get_variable("b", initializer=tf.constant([0.1, -0.2, 0.05]))
            probabilities = tf.nn.softmax(tf.matmul(features, w) + b)
            classes = tf.argmax(probabilities, 1)
            # As an Estimator's hooks might: a Python function off the serving path.
            v1.py_func(lambda a: a, [probabilities], tf.float32, name="debug_print")
            path, want = self._export({"examples": serialized},
                                      {"probabilities": probabilities, "classes": classes},
                                      {"examples": examples})
        got = self._run_minigraph(path, {"examples": examples})
        np.testing.assert_allclose(got["probabilities"], want["probabilities"], rtol=1e-6)
        np.testing.assert_array_equal(got["classes"], want["classes"])

    def test_image_model_runs_from_jpeg_bytes(self):
        rng = np.random.default_rng(3)
        with tf.Graph().as_default(), v1.Session() as sess:
            jpegs = np.array([sess.run(tf.io.encode_jpeg(rng.integers(0, 256, (h, w, 3),
                                                                      dtype=np.uint8)))
                              for h, w in ((40, 56), (17, 33), (64, 64))], dtype=object)

        def preprocess(contents):
            image = tf.io.decode_jpeg(contents, channels=3)
            image = tf.image.resize(image, [24, 24])  # bilinear, half-pixel centres
            return image / 255.0

        with tf.Graph().as_default():
            contents = v1.placeholder(tf.string, [None], name="image_bytes")
            images = tf.map_fn(preprocess, contents, fn_output_signature=tf.float32)
            images.set_shape([None, 24, 24, 3])
            kernel = v1.get_variable("conv", initializer=tf.constant(
                rng.normal(0, 0.2, (3, 3, 3, 4)).astype(np.float32)))
            hidden = tf.nn.relu(tf.nn.conv2d(images, kernel, 1, "SAME"))
            pooled = tf.nn.max_pool2d(hidden, 2, 2, "VALID")
            dense = v1.get_variable("dense", initializer=tf.constant(
                rng.normal(0, 0.05, (12 * 12 * 4, 5)).astype(np.float32)))
            logits = tf.matmul(tf.reshape(pooled, [-1, 12 * 12 * 4]), dense)
            # A thumbnail of the first image, as PNG: the encoder in the graph too.
            thumbnail = tf.io.encode_png(tf.cast(
                tf.image.resize(tf.io.decode_jpeg(contents[0]), [8, 8],
                                method="nearest"), tf.uint8))
            path, want = self._export({"image_bytes": contents},
                                      {"logits": logits, "thumbnail": thumbnail},
                                      {"image_bytes": jpegs})
        got = self._run_minigraph(path, {"image_bytes": jpegs})
        np.testing.assert_allclose(got["logits"], want["logits"], rtol=1e-5, atol=1e-6)
        self.assertEqual(bytes(got["thumbnail"].item()), bytes(want["thumbnail"]))
        # run_graph feeds an image file as it is.
        photo = os.path.join(self.dir, "photo.jpg")
        with open(photo, "wb") as f:
            f.write(jpegs[1])
        printed = interop.run([interop.binary("run_graph"), path, "--signature=serving_default",
                               f"--input=image_bytes=@{photo}"]).stdout
        self.assertIn("logits: float [1,5]", printed)
        self.assertIn("thumbnail: string []", printed)


class TablesInCheckpoints(unittest.TestCase):
    """A MutableHashTable saved by TensorFlow 1's Saver (its keys and values
    under NAME-keys and NAME-values) restores in minigraph from TensorFlow's
    .meta and checkpoint; grown and saved again by minigraph under the same
    keys, TensorFlow's Saver restores what minigraph wrote."""

    def setUp(self):
        self.dir = tempfile.mkdtemp()

    def tearDown(self):
        shutil.rmtree(self.dir)

    def _minigraph_looks_up_grows_and_saves(self, first, second, queries):
        """minigraph restores TensorFlow's checkpoint `first` of the table
        "words" (a, b, c), looks up `queries`, then grows the table by
        running save_grown, which saves it to `second`."""
        feeds, out = os.path.join(self.dir, "feeds"), os.path.join(self.dir, "out")
        interop.write_records(feeds, {"q:0": queries})
        runner = [interop.binary("model_runner"), f"--graph={first}.meta",
                  f"--checkpoint={first}", f"--feeds={feeds}", f"--out={out}"]
        interop.run(runner + ["--fetch=found:0"])
        np.testing.assert_array_equal(interop.read_records(out)["found:0"], [1, 2, 3, -1, -1])
        interop.write_records(feeds, {"q:0": queries, "grown_path:0":
                                      np.array(second.encode(), dtype=object)})
        interop.run(runner + ["--train_op=save_grown", "--steps=1", "--after=found:0"])

    def test_mutable_hash_table_round_trip(self):
        first, second = os.path.join(self.dir, "tf"), os.path.join(self.dir, "minigraph")
        queries = np.array([b"a", b"b", b"c", b"d", b"z"], dtype=object)
        with tf.Graph().as_default():
            table = tf.lookup.experimental.MutableHashTable(tf.string, tf.int64, -1,
                                                            name="words")
            insert = table.insert(tf.constant([b"a", b"b", b"c"]),
                                  tf.constant([1, 2, 3], tf.int64))
            q = v1.placeholder(tf.string, [None], name="q")
            tf.identity(table.lookup(q), name="found")
            grow = table.insert(tf.constant([b"d", b"a"]), tf.constant([4, 10], tf.int64))
            v = v1.get_variable("v", initializer=tf.constant(1.5))
            saver = v1.train.Saver()
            # The table grown, then saved under the Saver's keys.
            path = v1.placeholder(tf.string, [], name="grown_path")
            with tf.control_dependencies([grow]):
                grown_keys, grown_values = table.export()
            tf.raw_ops.SaveV2(prefix=path, tensor_names=["words-keys", "words-values", "v"],
                              shape_and_slices=["", "", ""],
                              tensors=[grown_keys, grown_values, v], name="save_grown")
            with v1.Session() as sess:
                sess.run([insert, v.initializer])
                saver.save(sess, first)
            keys = {name for name, _ in tf.train.list_variables(first)}
            self.assertLessEqual({"words-keys", "words-values"}, keys)
            self._minigraph_looks_up_grows_and_saves(first, second, queries)
            # TensorFlow restores what minigraph wrote.
            with v1.Session() as sess:
                saver.restore(sess, second)
                np.testing.assert_array_equal(sess.run("found:0", {q: queries}),
                                              [10, 2, 3, 4, -1])
                self.assertEqual(sess.run(v), 1.5)

    def test_dense_hash_table_round_trip(self):
        """A DenseHashTable's checkpoint is its buckets: minigraph finds the
        keys where TensorFlow's hash put them, and its grown buckets are the
        ones TensorFlow's own insert gives, byte for byte."""
        first, second = os.path.join(self.dir, "tf"), os.path.join(self.dir, "minigraph")
        queries = np.array([b"a", b"b", b"c", b"d", b"z"], dtype=object)
        with tf.Graph().as_default():
            table = tf.lookup.experimental.DenseHashTable(
                tf.string, tf.int64, default_value=-1, empty_key="", deleted_key="$",
                initial_num_buckets=4, name="words")
            insert = table.insert(tf.constant([b"a", b"b", b"c"]),
                                  tf.constant([1, 2, 3], tf.int64))
            q = v1.placeholder(tf.string, [None], name="q")
            tf.identity(table.lookup(q), name="found")
            grow = table.insert(tf.constant([b"d", b"a"]), tf.constant([4, 10], tf.int64))
            saver = v1.train.Saver()
            path = v1.placeholder(tf.string, [], name="grown_path")
            with tf.control_dependencies([grow]):
                grown_keys, grown_values = table.export()
            tf.raw_ops.SaveV2(prefix=path, tensor_names=["words-keys", "words-values"],
                              shape_and_slices=["", ""], tensors=[grown_keys, grown_values],
                              name="save_grown")
            with v1.Session() as sess:
                sess.run(insert)
                saver.save(sess, first)
                tf_keys, tf_values = sess.run([grown_keys, grown_values])
            self.assertEqual(tf_keys.shape, (8, 1))  # grown from 4 buckets
            self._minigraph_looks_up_grows_and_saves(first, second, queries)
            reader = tf.train.load_checkpoint(second)
            np.testing.assert_array_equal(reader.get_tensor("words-keys"), tf_keys)
            np.testing.assert_array_equal(reader.get_tensor("words-values"), tf_values)
            with v1.Session() as sess:
                saver.restore(sess, second)
                np.testing.assert_array_equal(sess.run("found:0", {q: queries}),
                                              [10, 2, 3, 4, -1])


class DatasetFiles(unittest.TestCase):
    """Dataset.cache(filename): a cache either side wrote, the other reads."""

    @staticmethod
    def _graph(cache, scale):
        """A graph whose one fetch batches the cached pipeline of range(5)
        times `scale` (a cache already written answers instead)."""
        g = tf.Graph()
        with g.as_default():
            ds = (tf.data.Dataset.range(5)
                  .map(lambda j: (j * scale, tf.strings.as_string(j * scale)))
                  .cache(cache).batch(10))
            a, b = v1.data.make_one_shot_iterator(ds).get_next()
            tf.identity(a, name="a")
            tf.identity(b, name="b")
        return g

    @staticmethod
    def _tensorflow(g):
        with v1.Session(graph=g) as sess:
            return sess.run(["a:0", "b:0"])

    def _minigraph(self, g, work):
        meta, feeds, out = (os.path.join(work, n) for n in ("g.meta", "feeds", "out"))
        v1.train.export_meta_graph(meta, graph=g)
        interop.write_records(feeds, {})
        interop.run([interop.binary("model_runner"), f"--graph={meta}", f"--feeds={feeds}",
                     "--fetch=a:0,b:0", f"--out={out}"])
        got = interop.read_records(out)
        return [got["a:0"], got["b:0"]]

    def _check(self, got, scale):
        np.testing.assert_array_equal(got[0], np.arange(5) * scale)
        self.assertEqual([bytes(x) for x in got[1]],
                         [str(i * scale).encode() for i in range(5)])

    def test_file_cache_is_shared_with_tensorflow(self):
        with tempfile.TemporaryDirectory() as work:
            mine = os.path.join(work, "by_minigraph")
            self._check(self._minigraph(self._graph(mine, 3), work), 3)
            self.assertEqual(sorted(f for f in os.listdir(work) if f.startswith("by_")),
                             ["by_minigraph.data-00000-of-00001", "by_minigraph.index"])
            # TensorFlow, asked for other values, reads minigraph's cache.
            self._check(self._tensorflow(self._graph(mine, 100)), 3)

            theirs = os.path.join(work, "by_tensorflow")
            self._check(self._tensorflow(self._graph(theirs, 3)), 3)
            self._check(self._minigraph(self._graph(theirs, 100), work), 3)


if __name__ == "__main__":
    unittest.main()
