"""TensorFlow 2.21 as the performance peer: the figures tools/bench.sh takes of
minigraph, taken of TensorFlow on the same machine in the same run, as the
TensorFlow 1 user would write them (tf.compat.v1 graphs, ref variables,
Session.make_callable: the client's fastest path). Each command prints one JSON
object on its last line of stdout.

  tf_bench.py ckpt --prefix=P --reps=5 --dir=D
      Saver.restore of the checkpoint P (restore_bench's, kept with --keep:
      the same tensors and bytes minigraph restores) into variables of its
      shapes, and Saver.save of them to D, plain (as TensorFlow saves) and
      followed by an fsync of its files (as minigraph's durable save). GB/s,
      medians; the first restore apart.
  tf_bench.py mlp --threads=N
      The MLP of session/mlp_benchmark.cc (784-128-10, ReLU, softmax cross
      entropy, batch 32, SGD 0.01, a global step), fed every step: steps/s.
  tf_bench.py oneop
      Session.run of a graph of one Const: microseconds per call.
  tf_bench.py session_graphs --export=DIR
      The one-Const graph (DIR/oneop.meta, its Const "c") and the MLP's
      (DIR/mlp.meta: placeholders "x" and "labels", ops "train" and
      "init") for tools/tf_session_peer.cc, TensorFlow's C++ client.
  tf_bench.py cluster --mlp_steps=300 --recv_mb=64
      tools/distributed_bench's "mlp" and "recv" on TensorFlow's servers (in
      this process, gRPC over loopback): 1 ps + 2 workers training the MLP
      (between-graph, replica_device_setter, a client thread per worker),
      steps/s per worker; and a 64 MiB variable on the ps read by a step on
      the worker, GB/s.

  tf_bench.py data --export=DIR --elements=256
      tf.data pipelines of a map that decodes a JPEG and resizes it
      (TensorFlow's image preprocessing), sequential and with
      num_parallel_calls, prefetched ahead of a consumer that computes
      about as long as the map, interleaved with and without threads:
      elements/s drained by TensorFlow, each graph written to DIR/NAME.meta
      for tools/graph_bench (its initializer "make", its fetch
      "bench_step:0"). tf.data's own rewrites are off, so both runtimes run
      the pipeline as written; one intra-op thread (--threads), so that one
      element's kernels use one core and the pipeline's threads are what
      makes elements at once.

  tf_bench.py kernels --export=DIR --runs=20 --reps=3
      Single ops at real models' shapes (KERNEL_BENCHES: a MobileNetV2
      depthwise layer, plain and strided; a 3x3x3 Conv3D; the attention
      scores of Keras' MultiHeadAttention (Einsum); l2_loss of a
      1M-parameter layer),
      each as a graph of random variables whose "forward" runs the op and
      whose "backward" computes the gradients of its inputs, written to
      DIR/NAME.meta for tools/graph_bench (initializer "init"): runs/s of
      each at 1 and 2 intra-op threads, keyed "NAME/forward/1".

  tf_bench.py loops --export=DIR --steps=50 [--v2]
      A recurrent loop as TensorFlow 1 writes it (tf.compat.v1.while_loop,
      control flow v1, or with --v2 TensorFlow 2's While, which both
      runtimes lower to a frame: h = tanh(h W + x_t U), 50 steps, batch 32, 128
      units) and its gradient (tf.gradients: the stacks of the loop's
      gradient): runs/s of the loss alone and of the loss and the
      gradients, by TensorFlow; the graph written to DIR/rnn.meta for
      tools/graph_bench (its initializer "init", fetches "loss:0" and
      "train:0").

  tf_bench.py models --export=DIR [--only=NAME] [--threads=1] [--runs=10]
      Training steps of ordinary model shapes (MODELS: a ResNet-style CNN
      with batch norm, a MobileNet-style depthwise net, a 2-layer LSTM by
      dynamic_rnn and by Keras, a transformer encoder block with attention
      by tf.matmul and by Keras' MultiHeadAttention), each a TensorFlow 1
      graph of a constant batch and Adam, written to DIR/NAME.meta for
      tools/graph_bench (initializer "init"; "bench_step:0" is the loss
      after the train op, "forward:0" the loss alone): steps/s of each by
      TensorFlow as users run it (grappler and oneDNN on), keyed
      "NAME/train" and "NAME/forward". With --profile=FILE, also the step
      stats of one traced training step: the microseconds of each op type,
      as JSON to FILE.

Run with the virtualenv of `tools/setup.sh tf`.
"""

import argparse
import json
import os
import socket
import statistics
import threading
import time

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
# tf_keras (Keras 2) builds TensorFlow 1 graphs; Keras 3 does not.
os.environ.setdefault("TF_USE_LEGACY_KERAS", "1")
import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402

v1 = tf.compat.v1
v1.disable_eager_execution()


def config(threads=2):
    return v1.ConfigProto(intra_op_parallelism_threads=threads, inter_op_parallelism_threads=1)


def ckpt(args):
    shapes = v1.train.list_variables(args.prefix)
    total = sum(int(np.prod(s)) * 4 for _, s in shapes)
    graph = tf.Graph()
    with graph.as_default():
        variables = {name: v1.Variable(tf.zeros(shape, tf.float32), name="v%d" % i,
                                       use_resource=False)
                     for i, (name, shape) in enumerate(shapes)}
        saver = v1.train.Saver(variables)
        init = v1.global_variables_initializer()
    gb = total / 1e9
    with v1.Session(graph=graph, config=config()) as sess:
        sess.run(init)
        times = []
        for _ in range(args.reps + 1):
            t0 = time.perf_counter()
            saver.restore(sess, args.prefix)
            times.append(time.perf_counter() - t0)
        first, restore = times[0], statistics.median(times[1:])
        plain, durable = [], []
        saved = os.path.join(args.dir, "tf_saved")
        for sync in (False, True) * args.reps:
            t0 = time.perf_counter()
            saver.save(sess, saved, write_meta_graph=False, write_state=False)
            if sync:
                for f in (saved + ".index", saved + ".data-00000-of-00001"):
                    fd = os.open(f, os.O_RDONLY)
                    os.fsync(fd)
                    os.close(fd)
                fd = os.open(args.dir, os.O_RDONLY)
                os.fsync(fd)
                os.close(fd)
            (durable if sync else plain).append(time.perf_counter() - t0)
            for f in (saved + ".index", saved + ".data-00000-of-00001"):
                os.remove(f)
    return {"size_mb": total / 1048576.0, "tensors": len(shapes),
            "restore_gbps": gb / restore, "restore_first_gbps": gb / first,
            "save_gbps": gb / statistics.median(plain),
            "save_durable_gbps": gb / statistics.median(durable)}


def build_mlp(device_fn=None):
    """session/mlp_benchmark.cc's MLP; returns (x, labels, train_op, init)."""
    rng = np.random.default_rng(0)
    with v1.device(device_fn):
        w1 = v1.Variable(rng.standard_normal((784, 128)).astype(np.float32) * 0.05, name="w1",
                         use_resource=False)
        b1 = v1.Variable(np.zeros(128, np.float32), name="b1", use_resource=False)
        w2 = v1.Variable(rng.standard_normal((128, 10)).astype(np.float32) * 0.05, name="w2",
                         use_resource=False)
        b2 = v1.Variable(np.zeros(10, np.float32), name="b2", use_resource=False)
        step = v1.train.get_or_create_global_step()
        x = v1.placeholder(tf.float32, (32, 784), name="x")
        labels = v1.placeholder(tf.int64, (32,), name="labels")
        h = tf.nn.relu(tf.nn.bias_add(tf.matmul(x, w1), b1))
        logits = tf.nn.bias_add(tf.matmul(h, w2), b2)
        loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(
            labels=labels, logits=logits))
        train = v1.train.GradientDescentOptimizer(0.01).minimize(loss, global_step=step)
    return x, labels, train, v1.global_variables_initializer()


def mlp_feeds():
    rng = np.random.default_rng(1)
    return (rng.standard_normal((32, 784)).astype(np.float32),
            rng.integers(0, 10, 32).astype(np.int64))


def mlp(args):
    graph = tf.Graph()
    with graph.as_default():
        x, labels, train, init = build_mlp()
    xs, ls = mlp_feeds()
    with v1.Session(graph=graph, config=config(args.threads)) as sess:
        sess.run(init)
        step = sess.make_callable(train, feed_list=[x, labels])
        for _ in range(20):
            step(xs, ls)
        rates = []
        for _ in range(args.reps):
            t0 = time.perf_counter()
            for _ in range(args.steps):
                step(xs, ls)
            rates.append(args.steps / (time.perf_counter() - t0))
    return {"threads": args.threads, "steps_per_s": statistics.median(rates)}


def oneop(args):
    graph = tf.Graph()
    with graph.as_default():
        c = tf.constant(1.0, name="c")
    with v1.Session(graph=graph, config=config(1)) as sess:
        run = sess.make_callable(c)
        for _ in range(1000):
            run()
        times = []
        for _ in range(args.reps):
            t0 = time.perf_counter()
            for _ in range(args.calls):
                run()
            times.append((time.perf_counter() - t0) / args.calls * 1e6)
    return {"one_op_run_us": statistics.median(times)}


def session_graphs(args):
    os.makedirs(args.export, exist_ok=True)
    graph = tf.Graph()
    with graph.as_default():
        tf.constant(1.0, name="c")
    v1.train.export_meta_graph(os.path.join(args.export, "oneop.meta"), graph=graph)
    graph = tf.Graph()
    with graph.as_default():
        _, _, train, init = build_mlp()
        tf.group(train, name="train")
        tf.group(init, name="init")
    v1.train.export_meta_graph(os.path.join(args.export, "mlp.meta"), graph=graph)
    return {"exported": args.export}


def data_pipelines(n):
    """name -> (a function making the pipeline, its consumer)."""
    D = tf.data.Dataset
    # A photo-like picture (smooth shading and some noise), as JPEG bytes
    # that come out of the dataset: a constant inside the map function
    # would be decoded once, when TensorFlow optimizes the graph.
    rng = np.random.default_rng(0)
    y, x = np.mgrid[0:480, 0:640]
    shade = np.stack([x / 640 * 200, y / 480 * 200, (x + y) / 1120 * 200], axis=-1)
    image = np.clip(shade + rng.normal(0, 8, shade.shape), 0, 255).astype(np.uint8)
    with tf.Graph().as_default(), v1.Session() as sess:
        jpeg = sess.run(tf.io.encode_jpeg(tf.constant(image), quality=90))

    def images(start, stop):
        return D.zip((D.from_tensors(jpeg).repeat(stop - start), D.range(start, stop)))

    def decode(data, i):
        pixels = tf.image.resize(tf.io.decode_jpeg(data), [224, 224])
        return tf.reduce_mean(pixels) + tf.cast(i, tf.float32)

    def per_input(k):
        return images(k * (n // 4), (k + 1) * (n // 4)).map(decode)

    def train(x):
        # About as long as one map call: a consumer the prefetch overlaps
        # (made of the element, so that no optimizer computes it ahead).
        w = tf.fill([256, 256], 1.0 + x * 1e-9)
        for _ in range(3):
            w = tf.tanh(tf.matmul(w, w) / 256.0)
        return x + tf.reduce_sum(w)

    return {
        "map": (lambda: images(0, n).map(decode), tf.identity),
        "map_parallel": (lambda: images(0, n).map(decode, num_parallel_calls=2), tf.identity),
        "map_then_train": (lambda: images(0, n).map(decode), train),
        "map_prefetch_then_train": (lambda: images(0, n).map(decode).prefetch(2), train),
        "interleave": (lambda: D.range(4).interleave(per_input, cycle_length=4), tf.identity),
        "interleave_parallel": (
            lambda: D.range(4).interleave(per_input, cycle_length=4, num_parallel_calls=2),
            tf.identity),
    }


def data(args):
    options = tf.data.Options()
    options.experimental_optimization.apply_default_optimizations = False
    options.experimental_optimization.inject_prefetch = False
    options.autotune.enabled = False
    out = {}
    os.makedirs(args.export, exist_ok=True)
    for name, (make, consume) in data_pipelines(args.elements).items():
        graph = tf.Graph()
        with graph.as_default():
            it = v1.data.make_initializable_iterator(make().with_options(options))
            tf.group(it.initializer, name="make")
            step = tf.identity(consume(it.get_next()), name="bench_step")
        v1.train.export_meta_graph(os.path.join(args.export, name + ".meta"), graph=graph)
        with v1.Session(graph=graph, config=config(args.threads)) as sess:
            run = sess.make_callable(step)
            rates = []
            for _ in range(args.reps):
                sess.run("make")
                t0 = time.perf_counter()
                count = 0
                try:
                    while True:
                        run()
                        count += 1
                except tf.errors.OutOfRangeError:
                    pass
                rates.append(count / (time.perf_counter() - t0))
        out[name] = statistics.median(rates)
    return {"elements": args.elements, "elements_per_s": out}


def median_rate(run, runs, reps, warmup=3):
    """Calls per second of `run`: the median of `reps` timings of `runs`
    calls, after `warmup` calls."""
    for _ in range(warmup):
        run()
    rates = []
    for _ in range(reps):
        t0 = time.perf_counter()
        for _ in range(runs):
            run()
        rates.append(runs / (time.perf_counter() - t0))
    return statistics.median(rates)


def loops(args):
    from tensorflow.python.ops import control_flow_v2_toggles as toggles
    (toggles.enable_control_flow_v2 if args.v2 else toggles.disable_control_flow_v2)()
    rng = np.random.default_rng(1)
    batch, units, steps = 32, 128, args.steps
    graph = tf.Graph()
    with graph.as_default():
        xs = tf.constant(rng.standard_normal((steps, batch, units)).astype(np.float32))
        w = v1.get_variable("w", initializer=tf.constant(
            rng.standard_normal((units, units)).astype(np.float32) * 0.1), use_resource=False)
        u = v1.get_variable("u", initializer=tf.constant(
            rng.standard_normal((units, units)).astype(np.float32) * 0.1), use_resource=False)

        def body(t, h):
            return t + 1, tf.tanh(tf.matmul(h, w) + tf.matmul(xs[t], u))

        _, h = v1.while_loop(lambda t, h: t < steps, body,
                             [tf.constant(0), tf.zeros([batch, units])])
        loss = tf.reduce_sum(h * h, name="loss")
        grads = tf.gradients(loss, [w, u])
        tf.group(*grads, loss, name="train")
        tf.group(v1.global_variables_initializer(), name="init")
    os.makedirs(args.export, exist_ok=True)
    v1.train.export_meta_graph(os.path.join(args.export, "rnn.meta"), graph=graph)
    out = {"steps": steps}
    with v1.Session(graph=graph, config=config(2)) as sess:
        sess.run("init")
        for name, fetch in (("forward", "loss:0"), ("forward_backward", "train")):
            out[name + "_runs_per_s"] = median_rate(sess.make_callable(fetch), args.runs,
                                                    args.reps, warmup=5)
    return out


# Single ops as training graphs use them, at a real model's shapes: each
# forward, and the gradient of its inputs and parameters (the backward).
KERNEL_BENCHES = {
    # MobileNetV2's 3x3 depthwise layer at 56x56 with 96 channels.
    "depthwise_conv": lambda rng: _bench_graph(
        rng, [(16, 56, 56, 96), (3, 3, 96, 1)],
        lambda x, f: tf.nn.depthwise_conv2d(x, f, [1, 1, 1, 1], "SAME")),
    # Its strided form (every block's first layer), 112x112 to 56x56.
    "depthwise_conv_strided": lambda rng: _bench_graph(
        rng, [(8, 112, 112, 96), (3, 3, 96, 1)],
        lambda x, f: tf.nn.depthwise_conv2d(x, f, [1, 2, 2, 1], "SAME")),
    # A 3x3x3 convolution of a video or volume network's second stage (C3D's
    # conv2 at a quarter of its size): 8 frames of 16x16, 32 to 64 channels.
    "conv3d": lambda rng: _bench_graph(
        rng, [(2, 8, 16, 16, 32), (3, 3, 3, 32, 64)],
        lambda x, f: tf.nn.conv3d(x, f, [1, 1, 1, 1, 1], "SAME")),
    # Keras MultiHeadAttention's attention scores (its einsum "aecd,abcd->acbe"
    # of keys and queries): batch 16, 64 tokens, 4 heads of 32.
    "einsum_attention": lambda rng: _bench_graph(
        rng, [(16, 64, 4, 32), (16, 64, 4, 32)],
        lambda k, q: tf.einsum("aecd,abcd->acbe", k, q)),
    # tf.nn.l2_loss of a 1M-parameter layer (weight decay, clip_by_global_norm).
    "l2_loss": lambda rng: _bench_graph(rng, [(1024, 1024)], tf.nn.l2_loss),
}


def _bench_graph(rng, shapes, op):
    """Variables of `shapes` (random), and `op` of them: "forward" runs it,
    "backward" computes its gradient with respect to each variable (given a
    random gradient of its output), "init" initializes."""
    params = [v1.get_variable("p%d" % i, initializer=tf.constant(
        rng.standard_normal(shape).astype(np.float32))) for i, shape in enumerate(shapes)]
    y = op(*params)
    dy = v1.get_variable("dy", initializer=tf.constant(
        rng.standard_normal(y.shape.as_list()).astype(np.float32)))
    tf.group(y, name="forward")
    tf.group(*tf.gradients(y, params, grad_ys=dy), name="backward")
    tf.group(v1.global_variables_initializer(), name="init")


def kernels(args):
    out = {}
    os.makedirs(args.export, exist_ok=True)
    for name, build in KERNEL_BENCHES.items():
        graph = tf.Graph()
        with graph.as_default():
            build(np.random.default_rng(1))
        v1.train.export_meta_graph(os.path.join(args.export, name + ".meta"), graph=graph)
        for threads in (1, 2):
            # Grappler off: it would prune the op, whose output only a
            # control edge reads, and both runtimes should run this graph.
            cfg = config(threads)
            cfg.graph_options.rewrite_options.disable_meta_optimizer = True
            with v1.Session(graph=graph, config=cfg) as sess:
                sess.run("init")
                for fetch in ("forward", "backward"):
                    out["%s/%s/%d" % (name, fetch, threads)] = median_rate(
                        sess.make_callable(fetch), args.runs, args.reps)
    return {"runs_per_s": out}


# Training steps of ordinary model shapes, as a TensorFlow 1 user writes
# them (tf.compat.v1.layers, rnn_cell, or Keras 2 layers in a graph): each
# builder takes a random generator and returns (loss, the batch's size).
def _conv_bn(x, filters, kernel, strides=1, relu=True):
    x = v1.layers.conv2d(x, filters, kernel, strides, "same", use_bias=False)
    x = v1.layers.batch_normalization(x, training=True, fused=True)
    return tf.nn.relu(x) if relu else x


def _labels(rng, batch, classes=10):
    return tf.constant(rng.integers(0, classes, batch).astype(np.int32))


def _classify(h, labels):
    logits = v1.layers.dense(h, 10)
    return tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(
        labels=labels, logits=logits))


def _cnn(rng):
    """conv-BN-ReLU, two residual blocks, max pool, conv-BN-ReLU, global
    average pool, dense: 32x32x3 images, batch 32."""
    x = tf.constant(rng.standard_normal((32, 32, 32, 3)).astype(np.float32))
    h = _conv_bn(x, 32, 3)
    for _ in range(2):
        y = _conv_bn(_conv_bn(h, 32, 3), 32, 3, relu=False)
        h = tf.nn.relu(h + y)
    h = tf.nn.max_pool2d(h, 2, 2, "VALID")
    h = _conv_bn(h, 64, 3)
    return _classify(tf.reduce_mean(h, [1, 2]), _labels(rng, 32))


def _mobilenet(rng):
    """MobileNet V1's shape at a small size: conv 3x3/2, then depthwise
    3x3 + BN + ReLU6 and pointwise 1x1 + BN + ReLU6 blocks (two strided),
    global average pool, dense: 64x64x3 images, batch 16."""
    x = tf.constant(rng.standard_normal((16, 64, 64, 3)).astype(np.float32))
    h = tf.nn.relu6(_conv_bn(x, 32, 3, 2, relu=False))
    for i, (stride, filters) in enumerate(((1, 64), (2, 128), (1, 128), (2, 256))):
        f = v1.get_variable("depthwise%d" % i, [3, 3, h.shape[-1], 1])
        h = tf.nn.depthwise_conv2d(h, f, [1, stride, stride, 1], "SAME")
        h = tf.nn.relu6(v1.layers.batch_normalization(h, training=True, fused=True))
        h = tf.nn.relu6(_conv_bn(h, filters, 1, relu=False))
    return _classify(tf.reduce_mean(h, [1, 2]), _labels(rng, 16))


def _sequence(rng, batch=32, steps=32, features=64):
    return tf.constant(rng.standard_normal((batch, steps, features)).astype(np.float32))


def _lstm(rng):
    """Two LSTM(128) layers by tf.compat.v1.nn.dynamic_rnn (a while loop):
    32 steps of 64 features, batch 32; the last output classified."""
    cell = v1.nn.rnn_cell.MultiRNNCell([v1.nn.rnn_cell.LSTMCell(128) for _ in range(2)])
    out, _ = v1.nn.dynamic_rnn(cell, _sequence(rng), dtype=tf.float32)
    return _classify(out[:, -1], _labels(rng, 32))


def _keras_lstm(rng):
    """The same two layers as tf.keras.layers.LSTM writes them."""
    import tf_keras
    h = tf_keras.layers.LSTM(128, return_sequences=True)(_sequence(rng))
    h = tf_keras.layers.LSTM(128)(h)
    return _classify(h, _labels(rng, 32))


def _layer_norm(x):
    mean, var = tf.nn.moments(x, [-1], keepdims=True)
    with v1.variable_scope(None, default_name="layer_norm"):
        gamma = v1.get_variable("gamma", x.shape[-1:], initializer=v1.ones_initializer())
        beta = v1.get_variable("beta", x.shape[-1:], initializer=v1.zeros_initializer())
    return (x - mean) * tf.math.rsqrt(var + 1e-6) * gamma + beta


def _encoder(rng, attention):
    """A transformer encoder block (pre-norm, 4 heads, d 128, feed-forward
    512 with tanh GELU): 64 tokens, batch 16, a regression target."""
    x = tf.constant(rng.standard_normal((16, 64, 128)).astype(np.float32))
    target = tf.constant(rng.standard_normal((16, 64, 128)).astype(np.float32))
    h = x + attention(_layer_norm(x))
    f = v1.layers.dense(_layer_norm(h), 512)
    f = tf.nn.gelu(f, approximate=True)
    h = h + v1.layers.dense(f, 128)
    return tf.reduce_mean(tf.square(h - target))


def _matmul_attention(x, heads=4):
    b, n, d = x.shape.as_list()

    def split(t):
        return tf.transpose(tf.reshape(t, [b, n, heads, d // heads]), [0, 2, 1, 3])
    q, k, v = (split(v1.layers.dense(x, d)) for _ in range(3))
    scores = tf.matmul(q, k, transpose_b=True) / float(np.sqrt(d // heads))
    out = tf.matmul(tf.nn.softmax(scores), v)
    return v1.layers.dense(tf.reshape(tf.transpose(out, [0, 2, 1, 3]), [b, n, d]), d)


def _keras_attention(x):
    import tf_keras
    return tf_keras.layers.MultiHeadAttention(4, 32)(x, x)


MODELS = {
    "cnn": _cnn,
    "mobilenet": _mobilenet,
    "lstm": _lstm,
    "keras_lstm": _keras_lstm,
    "transformer": lambda rng: _encoder(rng, _matmul_attention),
    "keras_transformer": lambda rng: _encoder(rng, _keras_attention),
}


def build_model(name):
    """The graph of MODELS[name] with Adam: "bench_step" the loss after a
    training step (batch norm's moving averages updated too), "forward"
    the loss alone, "init" the initializer."""
    graph = tf.Graph()
    with graph.as_default():
        v1.set_random_seed(1)
        loss = MODELS[name](np.random.default_rng(1))
        tf.identity(loss, name="forward")
        with tf.control_dependencies(v1.get_collection(v1.GraphKeys.UPDATE_OPS)):
            train = v1.train.AdamOptimizer(1e-3).minimize(loss)
        with tf.control_dependencies([train]):
            tf.identity(loss, name="bench_step")
        tf.group(v1.global_variables_initializer(), name="init")
    return graph


def op_profile(run_metadata):
    """Microseconds per op type in one traced step's stats (each node's
    all_end_rel_micros, summed by its op, as TensorFlow's timeline labels
    name it), sorted, largest first."""
    totals = {}
    for dev in run_metadata.step_stats.dev_stats:
        for node in dev.node_stats:
            # "name = Op(inputs)"; _SOURCE and the like have no op.
            label = node.timeline_label.split(" = ")
            op = label[1].split("(")[0] if len(label) > 1 else node.node_name
            totals[op] = totals.get(op, 0) + node.all_end_rel_micros
    return dict(sorted(totals.items(), key=lambda kv: -kv[1]))


def models(args):
    out = {}
    os.makedirs(args.export, exist_ok=True)
    profiles = {}
    for name in (args.only.split(",") if args.only else MODELS):
        graph = build_model(name)
        v1.train.export_meta_graph(os.path.join(args.export, name + ".meta"), graph=graph)
        with v1.Session(graph=graph, config=config(args.threads)) as sess:
            sess.run("init")
            for key, fetch in (("train", "bench_step:0"), ("forward", "forward:0")):
                out["%s/%s" % (name, key)] = median_rate(sess.make_callable(fetch), args.runs,
                                                         args.reps)
            if args.profile:
                meta = v1.RunMetadata()
                opts = v1.RunOptions(trace_level=v1.RunOptions.FULL_TRACE)
                sess.run("bench_step:0", options=opts, run_metadata=meta)
                profiles[name] = op_profile(meta)
    if args.profile:
        with open(args.profile, "w") as f:
            json.dump(profiles, f, indent=1)
    return {"threads": args.threads, "steps_per_s": out}


def free_ports(n):
    """n distinct free loopback ports: every socket stays bound until all are,
    or the kernel may hand the same port out twice."""
    sockets = [socket.socket() for _ in range(n)]
    try:
        for s in sockets:
            s.bind(("127.0.0.1", 0))
        return [s.getsockname()[1] for s in sockets]
    finally:
        for s in sockets:
            s.close()


def cluster(args):
    ps, w0, w1 = free_ports(3)
    spec = tf.train.ClusterSpec({"ps": ["127.0.0.1:%d" % ps],
                                 "worker": ["127.0.0.1:%d" % w0, "127.0.0.1:%d" % w1]})
    servers = [tf.distribute.Server(spec, job_name=job, task_index=i, config=config())
               for job, i in (("ps", 0), ("worker", 0), ("worker", 1))]
    out = {}

    # The MLP, between-graph: each worker its graph, the variables on the ps.
    graphs = []
    for i in range(2):
        graph = tf.Graph()
        with graph.as_default():
            setter = v1.train.replica_device_setter(
                cluster=spec, worker_device="/job:worker/task:%d" % i)
            graphs.append((graph, build_mlp(setter)))
    xs, ls = mlp_feeds()
    sessions = [v1.Session(servers[1 + i].target, graph=graphs[i][0]) for i in range(2)]
    sessions[0].run(graphs[0][1][3])
    rates = [0.0, 0.0]

    def work(i):
        x, labels, train, _ = graphs[i][1]
        step = sessions[i].make_callable(train, feed_list=[x, labels])
        for _ in range(20):
            step(xs, ls)
        t0 = time.perf_counter()
        for _ in range(args.mlp_steps):
            step(xs, ls)
        rates[i] = args.mlp_steps / (time.perf_counter() - t0)

    threads = [threading.Thread(target=work, args=(i,)) for i in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for s in sessions:
        s.close()
    out["mlp_worker_steps_per_s"] = statistics.mean(rates)

    # RecvTensor: a big variable on the ps, read by a step on the worker,
    # only one element back to the client.
    n = args.recv_mb << 18
    graph = tf.Graph()
    with graph.as_default():
        with tf.device("/job:ps/task:0"):
            big = v1.Variable(tf.ones([n], tf.float32), name="big", use_resource=False)
        with tf.device("/job:worker/task:0"):
            first = tf.identity(big)[:1]
    with v1.Session(servers[1].target, graph=graph) as sess:
        sess.run(big.initializer)
        run = sess.make_callable(first)
        run()
        times = []
        for _ in range(args.reps):
            t0 = time.perf_counter()
            run()
            times.append(time.perf_counter() - t0)
    out["recv_mb"] = args.recv_mb
    out["recv_gbps"] = n * 4 / statistics.median(times) / 1e9
    return out


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("ckpt")
    p.add_argument("--prefix", required=True)
    p.add_argument("--dir", required=True)
    p.add_argument("--reps", type=int, default=5)
    p = sub.add_parser("mlp")
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--steps", type=int, default=500)
    p.add_argument("--reps", type=int, default=5)
    p = sub.add_parser("oneop")
    p.add_argument("--calls", type=int, default=20000)
    p.add_argument("--reps", type=int, default=5)
    p = sub.add_parser("session_graphs")
    p.add_argument("--export", required=True)
    p = sub.add_parser("data")
    p.add_argument("--export", required=True)
    p.add_argument("--elements", type=int, default=256)
    p.add_argument("--reps", type=int, default=3)
    p.add_argument("--threads", type=int, default=1)
    p = sub.add_parser("loops")
    p.add_argument("--export", required=True)
    p.add_argument("--steps", type=int, default=50)
    p.add_argument("--runs", type=int, default=50)
    p.add_argument("--reps", type=int, default=3)
    p.add_argument("--v2", action="store_true")
    p = sub.add_parser("kernels")
    p.add_argument("--export", required=True)
    p.add_argument("--runs", type=int, default=20)
    p.add_argument("--reps", type=int, default=3)
    p = sub.add_parser("models")
    p.add_argument("--export", required=True)
    p.add_argument("--only", default="")
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--runs", type=int, default=10)
    p.add_argument("--reps", type=int, default=3)
    p.add_argument("--profile", default="")
    p = sub.add_parser("cluster")
    p.add_argument("--mlp_steps", type=int, default=300)
    p.add_argument("--recv_mb", type=int, default=64)
    p.add_argument("--reps", type=int, default=5)
    args = parser.parse_args()
    result = {"ckpt": ckpt, "mlp": mlp, "oneop": oneop, "cluster": cluster,
              "data": data, "loops": loops, "kernels": kernels,
              "models": models, "session_graphs": session_graphs}[args.command](args)
    print(json.dumps(result))


if __name__ == "__main__":
    main()
