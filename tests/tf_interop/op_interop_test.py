"""Ops against TensorFlow 2.21: graphs of single ops TensorFlow runs, run by
minigraph on the same inputs (model_runner), compared exactly or within a
stated tolerance."""

import os
import shutil
import tempfile
import unittest

import numpy as np

import interop
import models
from interop import tf

v1 = tf.compat.v1


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


class OpInterop(unittest.TestCase):
    def test_ops(self):
        root, work = tempfile.mkdtemp(), tempfile.mkdtemp()
        try:
            for name, build in [("stateless_random", stateless_random)]:
                model = op_graph(name, root, build)
                got = models.run_in_minigraph(model, work)
                from model_interop_test import compare
                self.assertEqual(compare(model, got), "", name)
                print(f"{name}: {len(model.want)} outputs equal TensorFlow's bit for bit")
        finally:
            shutil.rmtree(root)
            shutil.rmtree(work)


if __name__ == "__main__":
    unittest.main(verbosity=2)
