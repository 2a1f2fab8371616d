"""GraphDef versions, with TensorFlow 2.21 as the oracle: hand-built GraphDefs
whose semantics depend on `versions` (a TensorFlow 1.0-era Placeholder whose
`shape` attr has no dimensions, reduction axes of rank 2, min_consumer and
bad_consumers) at versions on both sides of each change. TensorFlow imports
and runs each; minigraph's model_runner runs the same GraphDef. Both must
give the same values, or both refuse it."""

import os
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


if __name__ == "__main__":
    unittest.main()
