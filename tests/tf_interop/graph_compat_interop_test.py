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
nodes need Python."""

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


if __name__ == "__main__":
    unittest.main()
