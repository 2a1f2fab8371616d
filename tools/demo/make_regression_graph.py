"""Writes the demo's TensorFlow-built model: regression.meta, a TensorFlow 1
meta graph (tf.compat.v1: a tf.data pipeline over TFRecord files of
tf.Examples, a linear model, its loss and summary, SGD with a global step, a
Saver), and regression.tfrecord, 512 examples of y = x . [1, -2, 3, 0.5] + 1.
`train --graph=regression.meta --input=regression.tfrecord` trains it with no
Python. Run with the TensorFlow virtualenv of `tools/setup.sh tf`:

  /var/cache/minigraph-tf/bin/python tools/demo/make_regression_graph.py tools/demo
"""

import os
import sys

import numpy as np
import tensorflow as tf

tf1 = tf.compat.v1


def main(out):
    rng = np.random.default_rng(0)
    with tf.io.TFRecordWriter(os.path.join(out, "regression.tfrecord")) as w:
        for _ in range(512):
            x = rng.normal(size=4).astype(np.float32)
            y = float(x @ np.array([1.0, -2.0, 3.0, 0.5]) + 1.0)
            w.write(tf.train.Example(features=tf.train.Features(feature={
                "x": tf.train.Feature(float_list=tf.train.FloatList(value=x)),
                "y": tf.train.Feature(float_list=tf.train.FloatList(value=[y])),
            })).SerializeToString())
    g = tf.Graph()
    with g.as_default():
        global_step = tf1.train.get_or_create_global_step()
        filenames = tf1.placeholder(tf.string, [None], name="filenames")

        def parse(record):
            f = tf.io.parse_single_example(record, {
                "x": tf.io.FixedLenFeature([4], tf.float32),
                "y": tf.io.FixedLenFeature([1], tf.float32)})
            return f["x"], f["y"]

        batches = tf.data.TFRecordDataset(filenames).map(parse).repeat().batch(32)
        x, y = tf1.data.make_initializable_iterator(batches).get_next()
        w = tf1.get_variable("linear/w", [4, 1], initializer=tf1.zeros_initializer())
        b = tf1.get_variable("linear/b", [1], initializer=tf1.zeros_initializer())
        loss = tf1.losses.mean_squared_error(y, tf.matmul(x, w) + b)
        tf1.summary.scalar("loss", loss)
        train_op = tf1.train.GradientDescentOptimizer(0.02).minimize(loss, global_step=global_step)
        tf1.add_to_collection(tf1.GraphKeys.TRAIN_OP, train_op)
        saver = tf1.train.Saver()
        tf1.train.export_meta_graph(os.path.join(out, "regression.meta"),
                                    saver_def=saver.as_saver_def())


if __name__ == "__main__":
    main(sys.argv[1])
