"""The linear regression model of the demo and of train_graph_interop_test,
written with tf.compat.v1 as a TensorFlow 1 user writes it: a tf.data
pipeline over TFRecord files of tf.Examples (float features "x", 4 wide, and
"y"), a linear model, its mean squared error (in the "losses" collection)
and a scalar summary, SGD with a global step (the train op in its
collection), and a Saver."""

import numpy as np
import tensorflow as tf

tf1 = tf.compat.v1
TRUE_W = np.array([1.0, -2.0, 3.0, 0.5], dtype=np.float32)


def write_data(path, n, seed=0):
    """n examples of y = x . TRUE_W + 1, x drawn from a normal distribution."""
    rng = np.random.default_rng(seed)
    with tf.io.TFRecordWriter(path) as w:
        for _ in range(n):
            x = rng.normal(size=4).astype(np.float32)
            y = float(x @ TRUE_W.astype(np.float64) + 1.0)
            w.write(tf.train.Example(features=tf.train.Features(feature={
                "x": tf.train.Feature(float_list=tf.train.FloatList(value=x)),
                "y": tf.train.Feature(float_list=tf.train.FloatList(value=[y])),
            })).SerializeToString())


def build(batch, learning_rate, prefix="", ps_tasks=0):
    """The model in a new graph, its variables named PREFIX + "w" and "b",
    placed by replica_device_setter when ps_tasks > 0. Returns (graph, saver,
    nodes): nodes holds the iterator, the "filenames" placeholder it is
    initialized with, the train op and the loss."""
    g = tf.Graph()
    with g.as_default():
        device = tf1.train.replica_device_setter(ps_tasks=ps_tasks) if ps_tasks else None
        with tf1.device(device):
            global_step = tf1.train.get_or_create_global_step()
            filenames = tf1.placeholder(tf.string, [None], name="filenames")

            def parse(record):
                f = tf.io.parse_single_example(record, {
                    "x": tf.io.FixedLenFeature([4], tf.float32),
                    "y": tf.io.FixedLenFeature([1], tf.float32)})
                return f["x"], f["y"]

            batches = tf.data.TFRecordDataset(filenames).map(parse).repeat().batch(batch)
            iterator = tf1.data.make_initializable_iterator(batches)
            x, y = iterator.get_next()
            w = tf1.get_variable(prefix + "w", [4, 1], initializer=tf1.zeros_initializer())
            b = tf1.get_variable(prefix + "b", [1], initializer=tf1.zeros_initializer())
            loss = tf1.losses.mean_squared_error(y, tf.matmul(x, w) + b)
            tf1.summary.scalar("loss", loss)
            train_op = tf1.train.GradientDescentOptimizer(learning_rate).minimize(
                loss, global_step=global_step)
            tf1.add_to_collection(tf1.GraphKeys.TRAIN_OP, train_op)
            saver = tf1.train.Saver()
    return g, saver, dict(iterator=iterator, filenames=filenames, train=train_op, loss=loss)


def export(path, **build_args):
    """build(**build_args)'s meta graph, with its Saver, written to `path`."""
    g, saver, _ = build(**build_args)
    with g.as_default():
        tf1.train.export_meta_graph(path, saver_def=saver.as_saver_def())
