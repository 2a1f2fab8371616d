"""The op definitions minigraph registers for every op of TensorFlow's
(runtime/graph/ops/tensorflow_op_defs.pbtxt) are those of the TensorFlow 2.21
this virtualenv holds, op for op (tools/tf_op_defs.py writes them; the C++
op_defs_test holds minigraph's own definitions to them)."""

import difflib
import os
import unittest

import tensorflow as tf
import tf_op_defs


class OpDefsInterop(unittest.TestCase):

  def test_the_kept_op_definitions_are_tensorflows(self):
    path = os.environ["MG_OP_DEFS"]
    with open(path, encoding="utf-8") as f:
      kept = f.read().splitlines()
    now = tf_op_defs.render().splitlines()
    self.assertEqual(tf.__version__, "2.21.0")
    diff = list(difflib.unified_diff(kept, now, "kept", "TensorFlow", lineterm="", n=0))
    self.assertFalse(diff, "tensorflow_op_defs.pbtxt is not TensorFlow's registry; regenerate it "
                     "with tools/tf_op_defs.py:\n" + "\n".join(diff[:40]))
    # Each op on one line, so that grep finds an interface whole.
    self.assertGreater(sum(line.startswith("op { name: ") for line in kept), 1800)


if __name__ == "__main__":
  unittest.main()
