"""Models TensorFlow 2.21 builds, runs and saves for minigraph to run again:
TensorFlow 1 graphs (a .meta, its checkpoint, its inputs, TensorFlow's
outputs and gradients, and its weights after some training steps) and
TensorFlow 2 SavedModels (Keras 3's export, tf_keras's save, tf.function).

Each builder returns a Model; make(name, dir) writes its files."""

import dataclasses
import os
import tempfile

import numpy as np

import interop
from interop import tf

v1 = tf.compat.v1


@dataclasses.dataclass
class Model:
    name: str
    kind: str                      # "meta" or "saved_model"
    path: str                      # the .meta, or the SavedModel directory
    checkpoint: str = ""           # with "meta"
    feeds: dict = dataclasses.field(default_factory=dict)     # name -> ndarray
    want: dict = dataclasses.field(default_factory=dict)      # fetched name -> ndarray
    train_op: str = ""
    steps: int = 0
    after: list = dataclasses.field(default_factory=list)     # names fetched after training
    # float32 against TensorFlow: sums and reductions add in another order.
    rtol: float = 1e-4
    atol: float = 1e-5
    # The variables after training, when they need more (None: rtol, atol).
    after_rtol: float = None
    after_atol: float = None
    # The absolute tolerance of single variables after training, by the name
    # of their read ("after_3:0"), where round-off alone moves them further.
    after_atol_of: dict = dataclasses.field(default_factory=dict)


def _rng():
    return np.random.default_rng(1234)


def graph_model(name, root, build, steps=3, rtol=1e-4, atol=1e-5):
    """A TensorFlow 1 graph: `build(rng)` makes it in the default graph and
    returns (feeds {placeholder: value}, outputs [tensor], loss, train_op).
    Saved before any training step; TensorFlow's outputs and the gradients
    of the loss with respect to each trainable variable are recorded, then
    the variables after `steps` training steps."""
    d = os.path.join(root, name)
    os.makedirs(d, exist_ok=True)
    rng = _rng()
    # TensorFlow 1's variables (VariableV2), as its graphs have them; a
    # builder asks for resource variables with variable_scope(use_resource).
    v1.disable_resource_variables()
    with tf.Graph().as_default():
        v1.set_random_seed(7)
        feeds, outputs, loss, train_op = build(rng)
        trainable = v1.trainable_variables()
        grads = [g for g in tf.gradients(loss, trainable) if g is not None] if loss is not None else []
        grads = [tf.convert_to_tensor(g) for g in grads]  # IndexedSlices of embeddings
        reads = [tf.identity(v.value() if hasattr(v, "value") else v, name=f"after_{i}")
                 for i, v in enumerate(v1.global_variables())]
        saver = v1.train.Saver() if v1.global_variables() else None
        meta = os.path.join(d, "model.meta")
        with v1.Session() as sess:
            sess.run(v1.global_variables_initializer())
            sess.run(v1.tables_initializer())
            if saver is not None:
                ckpt = saver.save(sess, os.path.join(d, "model"), write_meta_graph=False)
                saver.export_meta_graph(meta)
            else:  # nothing to restore
                ckpt = ""
                v1.train.export_meta_graph(meta)
            feed = {k: v for k, v in feeds.items()}
            fetched = outputs + grads
            values = sess.run(fetched, feed) if fetched else []
            if train_op is not None:
                for _ in range(steps):
                    sess.run(train_op, feed)
            after = sess.run(reads, feed) if train_op is not None else []
    return Model(
        name=name, kind="meta", path=meta, checkpoint=ckpt,
        feeds={k.name: v for k, v in feeds.items()},
        want={**{t.name: v for t, v in zip(fetched, values)},
              **{"after:" + t.name: v for t, v in zip(reads, after)}},
        train_op=train_op.name if train_op is not None else "",
        steps=steps if train_op is not None else 0,
        after=[t.name for t in reads] if train_op is not None else [],
        rtol=rtol, atol=atol,
        after_rtol=getattr(build, "after_rtol", None),
        after_atol=getattr(build, "after_atol", None),
        after_atol_of=getattr(build, "after_atol_of", {}),
    )


def _classifier_data(rng, batch=8, features=6, classes=3):
    x = rng.standard_normal((batch, features)).astype(np.float32)
    y = rng.integers(0, classes, batch).astype(np.int64)
    return x, y


def mlp(optimizer):
    def build(rng):
        x_value, y_value = _classifier_data(rng)
        x = v1.placeholder(tf.float32, [None, 6], name="x")
        y = v1.placeholder(tf.int64, [None], name="y")
        h = v1.layers.dense(x, 16, activation=tf.nn.relu, name="hidden")
        logits = v1.layers.dense(h, 3, name="logits")
        loss = tf.reduce_mean(
            tf.nn.sparse_softmax_cross_entropy_with_logits(labels=y, logits=logits), name="loss")
        step = v1.train.get_or_create_global_step()
        train = optimizer().minimize(loss, global_step=step, name="train")
        probs = tf.nn.softmax(logits, name="probs")
        return {x: x_value, y: y_value}, [logits, probs, loss], loss, train
    return build


OPTIMIZERS = {
    "sgd": lambda: v1.train.GradientDescentOptimizer(0.1),
    "momentum": lambda: v1.train.MomentumOptimizer(0.1, 0.9),
    "nesterov": lambda: v1.train.MomentumOptimizer(0.1, 0.9, use_nesterov=True),
    "adam": lambda: v1.train.AdamOptimizer(0.01),
    "adagrad": lambda: v1.train.AdagradOptimizer(0.1),
    "rmsprop": lambda: v1.train.RMSPropOptimizer(0.01),
    "rmsprop_centered": lambda: v1.train.RMSPropOptimizer(0.01, momentum=0.5, centered=True),
    "adadelta": lambda: v1.train.AdadeltaOptimizer(1.0),
    "ftrl": lambda: v1.train.FtrlOptimizer(0.1, l1_regularization_strength=0.01),
    "proximal_sgd": lambda: v1.train.ProximalGradientDescentOptimizer(0.1, l2_regularization_strength=0.01),
    "proximal_adagrad": lambda: v1.train.ProximalAdagradOptimizer(0.1),
    "adagrad_da": lambda: v1.train.AdagradDAOptimizer(
        0.1, global_step=v1.train.get_or_create_global_step()),
}


def resource(build):
    """`build` with resource variables (ResourceApply* updates)."""
    def wrapped(rng):
        with v1.variable_scope("model", use_resource=True):
            return build(rng)
    return wrapped


def cnn(pool, padding):
    def build(rng):
        x_value = rng.standard_normal((4, 12, 12, 3)).astype(np.float32)
        y_value = rng.integers(0, 5, 4).astype(np.int64)
        x = v1.placeholder(tf.float32, [None, 12, 12, 3], name="x")
        y = v1.placeholder(tf.int64, [None], name="y")
        c = v1.layers.conv2d(x, 8, 3, strides=1, padding=padding, activation=tf.nn.relu, name="c1")
        c = pool(c, 2, 2, padding=padding)
        c = v1.layers.conv2d(c, 4, 3, strides=2, padding="same", name="c2")
        logits = v1.layers.dense(v1.layers.flatten(c), 5, name="logits")
        loss = tf.reduce_mean(
            tf.nn.sparse_softmax_cross_entropy_with_logits(labels=y, logits=logits), name="loss")
        train = v1.train.AdamOptimizer(0.01).minimize(loss, name="train")
        return {x: x_value, y: y_value}, [logits, loss], loss, train
    # Adam divides each step by the root of the gradient's square, so where
    # a gradient is near zero (a pooled-away input, a ReLU at its kink) the
    # round-off of the convolutions' sums, either side's, moves a weight by
    # up to a step (lr 0.01) in three: one ASan run in ten of
    # cnn_max_pool_valid exceeded rtol 1e-4 (1.03e-4), and a cold run of
    # cnn_avg_pool_same differed by 3.2e-4 in one weight. The weights after
    # training are compared within a tenth of one step (atol 1e-3); a wrong
    # gradient moves them by whole steps. The outputs and gradients before
    # training keep the tight tolerance.
    build.after_rtol, build.after_atol = 1e-3, 1e-3
    return build


def cnn3d(rng):
    """Two 3-D convolutions (VALID, then strided SAME) with a 3-D max pool
    between them and a classifier, trained by momentum."""
    x_value = rng.standard_normal((3, 6, 7, 5, 2)).astype(np.float32)
    y_value = rng.integers(0, 4, 3).astype(np.int64)
    x = v1.placeholder(tf.float32, [None, 6, 7, 5, 2], name="x")
    y = v1.placeholder(tf.int64, [None], name="y")
    c = v1.layers.conv3d(x, 6, 3, padding="valid", activation=tf.nn.relu, name="c1")
    c = v1.layers.max_pooling3d(c, 2, 2, padding="same")
    c = v1.layers.conv3d(c, 4, (2, 3, 2), strides=(2, 1, 2), padding="same", name="c2")
    logits = v1.layers.dense(v1.layers.flatten(c), 4, name="logits")
    loss = tf.reduce_mean(
        tf.nn.sparse_softmax_cross_entropy_with_logits(labels=y, logits=logits), name="loss")
    train = v1.train.MomentumOptimizer(0.05, 0.9).minimize(loss, name="train")
    return {x: x_value, y: y_value}, [logits, loss], loss, train


def augmented_cnn(rng):
    """tf_keras' augmentation layers in training mode (RandomFlip,
    RandomRotation, RandomZoom, RandomTranslation: ImageProjectiveTransformV3
    and their random draws) before a convolution, trained by SGD."""
    import tf_keras as keras
    keras.utils.set_random_seed(9)
    x_value = rng.standard_normal((4, 12, 12, 3)).astype(np.float32)
    y_value = rng.integers(0, 3, 4).astype(np.int64)
    x = v1.placeholder(tf.float32, [None, 12, 12, 3], name="x")
    y = v1.placeholder(tf.int64, [None], name="y")
    h = x
    for layer in (keras.layers.RandomFlip(seed=1), keras.layers.RandomRotation(0.2, seed=2),
                  keras.layers.RandomZoom(0.2, seed=3),
                  keras.layers.RandomTranslation(0.1, 0.1, fill_mode="constant", seed=4)):
        h = layer(h, training=True)
    h = keras.layers.Conv2D(4, 3, activation="relu")(h)
    logits = keras.layers.Dense(3)(keras.layers.Flatten()(h))
    loss = tf.reduce_mean(
        tf.nn.sparse_softmax_cross_entropy_with_logits(labels=y, logits=logits), name="loss")
    train = v1.train.GradientDescentOptimizer(0.05).minimize(loss, name="train")
    return {x: x_value, y: y_value}, [logits, loss], loss, train


def transformer_block(rng):
    """A transformer encoder block of tf_keras layers: causal
    MultiHeadAttention (Einsum, MatrixBandPart), residuals with
    LayerNormalization and a feed-forward of exact GELU (Erf), trained by
    Adam."""
    import tf_keras as keras
    keras.utils.set_random_seed(11)
    x_value = rng.standard_normal((3, 6, 8)).astype(np.float32)
    x = v1.placeholder(tf.float32, [None, 6, 8], name="x")
    attention = keras.layers.MultiHeadAttention(num_heads=2, key_dim=4)
    h = keras.layers.LayerNormalization()(x + attention(x, x, use_causal_mask=True))
    ff = keras.layers.Dense(8)(keras.layers.Dense(16, activation="gelu")(h))
    y = keras.layers.LayerNormalization()(h + ff)
    loss = tf.reduce_mean(tf.square(y[:, -1, :2] - 0.5), name="loss")
    train = v1.train.AdamOptimizer(0.01).minimize(loss, name="train")
    return {x: x_value}, [y, loss], loss, train


# The key projection's bias has no gradient in exact arithmetic (softmax
# does not change when one number is added to all of a query's scores), so
# either side's is round-off near 1e-9, which Adam (epsilon 1e-8) turns into
# steps up to a tenth of its learning rate: the weights after training are
# compared within a tenth of one step, as the CNNs' are; and that bias
# (after_3), whose three steps are round-off's alone, of either sign on
# either side, within six tenths (0.00106 apart on an AVX2 host, 2026-12-07).
transformer_block.after_rtol, transformer_block.after_atol = 1e-3, 1e-3
transformer_block.after_atol_of = {"after_3:0": 6e-3}


def dilated_cnn(rng):
    """tf_keras' dilated convolutions (Conv1D with GroupNormalization, Conv2D,
    SeparableConv2D): TensorFlow builds each as SpaceToBatchND, the
    convolution, BatchToSpaceND; trained by momentum."""
    import tf_keras as keras
    keras.utils.set_random_seed(13)
    seq_value = rng.standard_normal((3, 16, 4)).astype(np.float32)
    img_value = rng.standard_normal((3, 10, 10, 2)).astype(np.float32)
    seq = v1.placeholder(tf.float32, [None, 16, 4], name="seq")
    img = v1.placeholder(tf.float32, [None, 10, 10, 2], name="img")
    h1 = keras.layers.Conv1D(6, 3, dilation_rate=2, padding="causal", activation="relu")(seq)
    h1 = keras.layers.GroupNormalization(groups=2)(h1)
    h1 = keras.layers.Conv1D(4, 2, dilation_rate=4)(h1)
    h2 = keras.layers.Conv2D(4, 3, dilation_rate=2, padding="same", activation="relu")(img)
    h2 = keras.layers.SeparableConv2D(3, 3, dilation_rate=(2, 3))(h2)
    features = tf.concat([keras.layers.Flatten()(h1), keras.layers.Flatten()(h2)], axis=1)
    logits = keras.layers.Dense(3)(features)
    loss = tf.reduce_mean(tf.square(logits), name="loss")
    train = v1.train.MomentumOptimizer(0.01, 0.9).minimize(loss, name="train")
    return {seq: seq_value, img: img_value}, [logits, loss], loss, train


def spectrogram_classifier(rng):
    """A learned filter (Conv1D) before tf.signal.stft (frames, a Hann
    window, RFFT), log magnitudes and a classifier, trained by momentum:
    the gradient flows back through RFFT and ComplexAbs."""
    import tf_keras as keras
    keras.utils.set_random_seed(17)
    x_value = rng.standard_normal((4, 256)).astype(np.float32)
    y_value = rng.integers(0, 3, 4).astype(np.int64)
    x = v1.placeholder(tf.float32, [None, 256], name="x")
    y = v1.placeholder(tf.int64, [None], name="y")
    filtered = tf.squeeze(keras.layers.Conv1D(1, 5, padding="same")(x[:, :, None]), -1)
    spectrum = tf.signal.stft(filtered, frame_length=64, frame_step=32, fft_length=64)
    features = tf.math.log(tf.abs(spectrum) + 1e-3)
    logits = keras.layers.Dense(3)(keras.layers.Flatten()(features))
    loss = tf.reduce_mean(
        tf.nn.sparse_softmax_cross_entropy_with_logits(labels=y, logits=logits), name="loss")
    train = v1.train.MomentumOptimizer(0.01, 0.9).minimize(loss, name="train")
    return {x: x_value, y: y_value}, [logits, loss], loss, train


def fnet_block(rng):
    """An FNet encoder block: token mixing by the real part of a 2-D FFT over
    the sequence and features (Complex, FFT2D, Real), LayerNormalization and
    a feed-forward, trained by SGD."""
    import tf_keras as keras
    keras.utils.set_random_seed(19)
    x_value = rng.standard_normal((3, 8, 6)).astype(np.float32)
    x = v1.placeholder(tf.float32, [None, 8, 6], name="x")
    h = keras.layers.Dense(6)(x)
    mixed = tf.math.real(tf.signal.fft2d(tf.complex(h, tf.zeros_like(h))))
    h = keras.layers.LayerNormalization()(h + mixed)
    h = keras.layers.LayerNormalization()(h + keras.layers.Dense(6)(
        keras.layers.Dense(12, activation="relu")(h)))
    loss = tf.reduce_mean(tf.square(h[:, 0, :] - 0.25), name="loss")
    train = v1.train.GradientDescentOptimizer(0.05).minimize(loss, name="train")
    return {x: x_value}, [h, loss], loss, train


def rnn(cell):
    def build(rng):
        x_value = rng.standard_normal((3, 5, 4)).astype(np.float32)
        x = v1.placeholder(tf.float32, [None, 5, 4], name="x")
        lengths = v1.placeholder(tf.int32, [None], name="lengths")
        outputs, _ = v1.nn.dynamic_rnn(cell(), x, sequence_length=lengths, dtype=tf.float32)
        y = tf.reduce_sum(outputs, axis=1)
        loss = tf.reduce_mean(tf.square(y), name="loss")
        train = v1.train.GradientDescentOptimizer(0.1).minimize(loss, name="train")
        feeds = {x: x_value, lengths: np.array([5, 3, 1], np.int32)}
        return feeds, [outputs, loss], loss, train
    return build


def tf_keras_lstm_orthogonal(rng):
    """A tf_keras LSTM in a TensorFlow 1 graph: its recurrent kernel's
    default orthogonal initializer puts Qr (an op minigraph has no kernel
    for) into the init op, which a run that restores the variables never
    executes. Forward only: its gradient (a While's, adding TensorLists one
    of which is an empty variant) is not minigraph's yet."""
    import tf_keras
    x_value = rng.standard_normal((3, 5, 4)).astype(np.float32)
    x = v1.placeholder(tf.float32, [None, 5, 4], name="x")
    y = tf_keras.layers.LSTM(6)(x)
    return {x: x_value}, [y], None, None


def while_loop(rng):
    x = v1.placeholder(tf.float32, [4], name="x")
    w = v1.get_variable("w", initializer=tf.constant([0.5, -0.25, 1.0, 2.0]))
    i0 = tf.constant(0)

    def body(i, acc):
        return i + 1, tf.tanh(acc * w + x)

    _, out = tf.while_loop(lambda i, acc: i < 5, body, [i0, x], name="loop")
    loss = tf.reduce_sum(out, name="loss")
    train = v1.train.GradientDescentOptimizer(0.1).minimize(loss, name="train")
    return {x: rng.standard_normal(4).astype(np.float32)}, [out, loss], loss, train


def cond(rng):
    x = v1.placeholder(tf.float32, [3], name="x")
    flag = v1.placeholder(tf.bool, [], name="flag")
    w = v1.get_variable("w", initializer=tf.constant([1.0, 2.0, 3.0]))
    out = tf.cond(flag, lambda: tf.sin(x * w), lambda: tf.square(x) + w, name="choice")
    loss = tf.reduce_sum(out, name="loss")
    train = v1.train.GradientDescentOptimizer(0.1).minimize(loss, name="train")
    return {x: rng.standard_normal(3).astype(np.float32), flag: np.bool_(True)}, [out, loss], loss, train


def embedding(strategy):
    def build(rng):
        ids = v1.placeholder(tf.int64, [None], name="ids")
        table = v1.get_variable(
            "table", shape=[11, 4], initializer=v1.random_normal_initializer(seed=3),
            partitioner=v1.fixed_size_partitioner(3))
        vectors = v1.nn.embedding_lookup(table, ids, partition_strategy=strategy)
        loss = tf.reduce_sum(tf.square(vectors), name="loss")
        train = v1.train.AdagradOptimizer(0.1).minimize(loss, name="train")
        return {ids: np.array([0, 3, 10, 3, 7], np.int64)}, [vectors, loss], loss, train
    return build


def batch_norm(training):
    def build(rng):
        x = v1.placeholder(tf.float32, [None, 4, 4, 2], name="x")
        y = v1.layers.batch_normalization(x, training=training, name="bn")
        loss = tf.reduce_sum(y * y, name="loss")
        updates = v1.get_collection(v1.GraphKeys.UPDATE_OPS)
        with tf.control_dependencies(updates):
            train = v1.train.GradientDescentOptimizer(0.01).minimize(loss, name="train")
        return {x: rng.standard_normal((3, 4, 4, 2)).astype(np.float32)}, [y, loss], loss, train
    return build


def multi_rnn(rng):
    x = v1.placeholder(tf.float32, [None, 4, 3], name="x")
    cells = v1.nn.rnn_cell.MultiRNNCell([v1.nn.rnn_cell.LSTMCell(4), v1.nn.rnn_cell.GRUCell(3)])
    outputs, _ = v1.nn.dynamic_rnn(cells, x, dtype=tf.float32)
    loss = tf.reduce_mean(tf.square(outputs), name="loss")
    train = v1.train.AdamOptimizer(0.01).minimize(loss, name="train")
    return {x: rng.standard_normal((2, 4, 3)).astype(np.float32)}, [outputs, loss], loss, train


def bidirectional_rnn(rng):
    x = v1.placeholder(tf.float32, [None, 5, 3], name="x")
    (fw, bw), _ = v1.nn.bidirectional_dynamic_rnn(
        v1.nn.rnn_cell.LSTMCell(3), v1.nn.rnn_cell.LSTMCell(3), x, dtype=tf.float32)
    out = tf.concat([fw, bw], axis=-1)
    loss = tf.reduce_sum(out, name="loss")
    train = v1.train.GradientDescentOptimizer(0.05).minimize(loss, name="train")
    return {x: rng.standard_normal((2, 5, 3)).astype(np.float32)}, [out, loss], loss, train


def _ids_and_words():
    ids = v1.placeholder(tf.int64, [None], name="ids")
    words = v1.placeholder(tf.string, [None], name="words")
    feeds = {ids: np.array([1, 3, 3, 5, 0], np.int64),
             words: np.array([b"a", b"Bc", b"", b"d e"], dtype=object)}
    return ids, words, feeds


def integer_ops(rng):
    # No training: exact integer results through a graph.
    ids, words, feeds = _ids_and_words()
    counts = tf.math.bincount(tf.cast(ids, tf.int32), minlength=6)
    hashed = tf.strings.to_hash_bucket_fast(words, 50)
    return feeds, [counts, hashed, tf.cumsum(ids), tf.argmax(ids)], None, None


def string_ops(rng):
    ids, words, feeds = _ids_and_words()
    del feeds[ids]
    return feeds, [tf.strings.upper(words), tf.strings.reduce_join(words, separator="|")], None, None


def example_input_pipeline(rng):
    """An Estimator's input_fn as TensorFlow 1 users wrote it: tf.train.Examples
    in a TFRecord file, read, batched and parsed (ParseExampleV2) by tf.data,
    dense, sparse and string features into a linear model trained by FTRL
    (LinearClassifier's optimizer)."""
    path = os.path.join(tempfile.mkdtemp(), "train.tfrecord")
    with tf.io.TFRecordWriter(path) as w:
        for _ in range(24):
            x = rng.standard_normal(3)
            tags = rng.integers(0, 5, rng.integers(0, 3)).tolist()
            feature = {
                "age": tf.train.Feature(float_list=tf.train.FloatList(value=[x[0]])),
                "income": tf.train.Feature(float_list=tf.train.FloatList(value=x[1:].tolist())),
                "city": tf.train.Feature(bytes_list=tf.train.BytesList(
                    value=[[b"paris", b"oslo", b"lima"][int(rng.integers(0, 3))]])),
                "tags": tf.train.Feature(int64_list=tf.train.Int64List(value=tags)),
                "label": tf.train.Feature(int64_list=tf.train.Int64List(value=[int(x.sum() > 0)])),
            }
            example = tf.train.Example(features=tf.train.Features(feature=feature))
            w.write(example.SerializeToString())
    spec = {
        "age": tf.io.FixedLenFeature([1], tf.float32),
        "income": tf.io.FixedLenFeature([2], tf.float32),
        "city": tf.io.FixedLenFeature([], tf.string, default_value="unknown"),
        "tags": tf.io.VarLenFeature(tf.int64),
        "label": tf.io.FixedLenFeature([], tf.int64),
    }

    def parse(serialized):
        # The sparse feature made dense in the input_fn (a SparseTensor out of
        # a dataset needs SerializeSparse and DeserializeSparse, not here yet).
        f = tf.io.parse_example(serialized, spec)
        f["tags"] = tf.sparse.to_dense(f["tags"], default_value=-1)
        return f

    dataset = tf.data.TFRecordDataset(path).repeat().batch(8).map(parse)
    f = v1.data.make_one_shot_iterator(dataset).get_next()
    city = tf.one_hot(tf.strings.to_hash_bucket_fast(f["city"], 4), 4)
    tags = tf.reduce_sum(tf.one_hot(f["tags"], 5), axis=1)
    x = tf.concat([f["age"], f["income"], city, tags], axis=1)
    logits = v1.layers.dense(x, 2, name="linear")
    loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(
        labels=f["label"], logits=logits), name="loss")
    train = v1.train.FtrlOptimizer(0.1).minimize(
        loss, global_step=v1.train.get_or_create_global_step(), name="train")
    return {}, [logits, loss], loss, train


def graph_models():
    """name -> builder of the TensorFlow 1 graphs."""
    out = {f"mlp_{name}": mlp(opt) for name, opt in OPTIMIZERS.items()}
    out.update({
        "mlp_adam_resource": resource(mlp(OPTIMIZERS["adam"])),
        "mlp_momentum_resource": resource(mlp(OPTIMIZERS["momentum"])),
        "cnn_max_pool_valid": cnn(v1.layers.max_pooling2d, "valid"),
        "cnn_avg_pool_same": cnn(v1.layers.average_pooling2d, "same"),
        "cnn3d_momentum": cnn3d,
        "tf_keras_augmentation": augmented_cnn,
        "tf_keras_transformer_block": transformer_block,
        "tf_keras_dilated_convolutions": dilated_cnn,
        "spectrogram_classifier": spectrogram_classifier,
        "fnet_block": fnet_block,
        "dynamic_rnn_lstm": rnn(lambda: v1.nn.rnn_cell.LSTMCell(6)),
        "dynamic_rnn_basic_lstm": rnn(lambda: v1.nn.rnn_cell.BasicLSTMCell(5)),
        "dynamic_rnn_gru": rnn(lambda: v1.nn.rnn_cell.GRUCell(6)),
        "dynamic_rnn_basic_rnn": rnn(lambda: v1.nn.rnn_cell.BasicRNNCell(4)),
        "while_loop_gradient": while_loop,
        "tf_keras_lstm_orthogonal_init": tf_keras_lstm_orthogonal,
        "cond_gradient": cond,
        "embedding_partitioned_mod": embedding("mod"),
        "embedding_partitioned_div": embedding("div"),
        "batch_norm_training": batch_norm(True),
        "batch_norm_inference": batch_norm(False),
        "dynamic_rnn_multi_cell": multi_rnn,
        "bidirectional_dynamic_rnn": bidirectional_rnn,
        "integer_ops": integer_ops,
        "string_ops": string_ops,
        "example_input_pipeline": example_input_pipeline,
    })
    return out


# TensorFlow 2 SavedModels -------------------------------------------------


def saved_model(name, root, save, inputs, rtol=1e-4, atol=1e-5):
    """`save(path)` writes a SavedModel whose serving_default signature takes
    `inputs` (key -> value); TensorFlow's outputs are recorded by loading it
    back in TensorFlow."""
    path = os.path.join(root, name)
    save(path)
    fn = tf.saved_model.load(path).signatures["serving_default"]
    want = {k: v.numpy() for k, v in fn(**{k: tf.constant(v) for k, v in inputs.items()}).items()}
    return Model(name=name, kind="saved_model", path=path, feeds=inputs, want=want,
                 rtol=rtol, atol=atol)


def _keras3_sequential(path):
    import keras  # Keras 3 (tf.keras is tf_keras here: TF_USE_LEGACY_KERAS)
    model = keras.Sequential([keras.Input((5,), name="x"), keras.layers.Dense(8, activation="relu"),
                              keras.layers.Dense(3, activation="softmax")])
    model.export(path, verbose=False)


def _tf_keras(layers_fn, input_shape, dtype="float32"):
    def save(path):
        import tf_keras as keras
        keras.utils.set_random_seed(5)
        inputs = keras.Input(input_shape, dtype=dtype, name="x")
        model = keras.Model(inputs, layers_fn(keras, inputs))
        model.save(path, save_format="tf")
    return save


def _tf_function_loops(path):
    class Loops(tf.Module):
        def __init__(self):
            self.w = tf.Variable([1.5, -0.5, 0.25])

        @tf.function(input_signature=[tf.TensorSpec([3], tf.float32)])
        def __call__(self, x):
            acc = x
            for _ in tf.range(4):
                acc = tf.cond(tf.reduce_sum(acc) > 0, lambda: acc * self.w, lambda: acc - self.w)
            return {"y": acc}

    m = Loops()
    tf.saved_model.save(m, path, signatures=m.__call__)


def _keras3_cnn(path):
    import keras
    keras.utils.set_random_seed(3)
    model = keras.Sequential([keras.Input((8, 8, 3), name="x"),
                              keras.layers.Conv2D(4, 3, activation="relu"),
                              keras.layers.MaxPooling2D(), keras.layers.Flatten(),
                              keras.layers.Dense(2)])
    model.export(path, verbose=False)


def _tf_keras_two_inputs(path):
    import tf_keras as keras
    keras.utils.set_random_seed(5)
    a = keras.Input((4,), name="a")
    b = keras.Input((3,), name="b")
    h = keras.layers.Concatenate()([keras.layers.Dense(5, activation="tanh")(a), b])
    out = keras.layers.Dense(2, activation="softmax")(keras.layers.LayerNormalization()(h))
    keras.Model([a, b], out).save(path, save_format="tf")


def _tf_keras_text(path):
    import tf_keras as keras
    keras.utils.set_random_seed(5)
    vectorize = keras.layers.TextVectorization(max_tokens=20, output_sequence_length=6)
    vectorize.adapt(np.array(["the cat sat", "the dog ran far", "a cat ran"]))
    text = keras.Input((), dtype="string", name="x")
    h = keras.layers.GlobalAveragePooling1D()(keras.layers.Embedding(20, 4)(vectorize(text)))
    keras.Model(text, keras.layers.Dense(2)(h)).save(path, save_format="tf")


def saved_models():
    """name -> (save, inputs) of the TensorFlow 2 SavedModels."""
    rng = _rng()
    images = rng.standard_normal((2, 8, 8, 3)).astype(np.float32)
    seq = rng.standard_normal((2, 6, 4)).astype(np.float32)
    tokens = rng.integers(1, 20, (2, 7)).astype(np.int32)
    k = "x"
    return {
        "keras3_export_dense": (_keras3_sequential, {"x": rng.standard_normal((4, 5)).astype(np.float32)}),
        "tf_keras_dense": (_tf_keras(lambda K, x: K.layers.Dense(3)(K.layers.Dense(8, "relu")(x)), (5,)),
                           {k: rng.standard_normal((4, 5)).astype(np.float32)}),
        "tf_keras_conv2d_pool_bn": (_tf_keras(
            lambda K, x: K.layers.Dense(2)(K.layers.Flatten()(K.layers.BatchNormalization()(
                K.layers.MaxPooling2D()(K.layers.Conv2D(4, 3, activation="relu")(x))))), (8, 8, 3)),
            {k: images}),
        "tf_keras_conv3d": (_tf_keras(
            lambda K, x: K.layers.Dense(2)(K.layers.GlobalAveragePooling3D()(
                K.layers.AveragePooling3D(2, 1, padding="same")(
                    K.layers.Conv3D(3, (2, 3, 3), strides=(1, 2, 1), padding="same",
                                    activation="relu")(x)))), (4, 6, 5, 2)),
            {k: rng.standard_normal((2, 4, 6, 5, 2)).astype(np.float32)}),
        "tf_keras_conv1d_avgpool": (_tf_keras(
            lambda K, x: K.layers.GlobalAveragePooling1D()(K.layers.Conv1D(5, 2)(x)), (6, 4)),
            {k: seq}),
        "tf_keras_embedding_lstm": (_tf_keras(
            lambda K, x: K.layers.Dense(2)(K.layers.LSTM(5)(K.layers.Embedding(20, 4)(x))), (7,), "int32"),
            {k: tokens}),
        "tf_keras_gru": (_tf_keras(lambda K, x: K.layers.GRU(3)(x), (6, 4)), {k: seq}),
        "tf_keras_multi_head_attention": (_tf_keras(
            lambda K, x: K.layers.MultiHeadAttention(2, 3)(x, x), (6, 4)), {k: seq}),
        "tf_keras_bidirectional_lstm": (_tf_keras(
            lambda K, x: K.layers.Bidirectional(K.layers.LSTM(3))(x), (6, 4)), {k: seq}),
        "tf_function_while_cond": (_tf_function_loops, {"x": np.array([0.5, 1.0, -2.0], np.float32)}),
        "keras3_export_cnn": (_keras3_cnn, {"x": images}),
        "tf_keras_two_inputs_layer_norm": (_tf_keras_two_inputs, {
            "a": rng.standard_normal((3, 4)).astype(np.float32),
            "b": rng.standard_normal((3, 3)).astype(np.float32)}),
        "tf_keras_text_vectorization": (_tf_keras_text, {
            "x": np.array([b"the cat ran", b"unknown words here", b""], dtype=object)}),
    }


def make_all(root):
    """Every model, written under `root`: name -> Model (or the exception
    TensorFlow raised making it)."""
    out = {}
    for name, build in graph_models().items():
        try:
            out[name] = graph_model(name, root, build)
        except Exception as e:  # noqa: BLE001 - reported as the row's reason
            out[name] = e
    for name, (save, inputs) in saved_models().items():
        try:
            out[name] = saved_model(name, root, save, inputs)
        except Exception as e:  # noqa: BLE001
            out[name] = e
    return out


def run_in_minigraph(model, work):
    """minigraph's outputs for `model`: name -> ndarray."""
    feeds = os.path.join(work, model.name + ".feeds")
    out = os.path.join(work, model.name + ".out")
    interop.write_records(feeds, model.feeds)
    if model.kind == "meta":
        fetch = [k for k in model.want if not k.startswith("after:")]
        args = [f"--graph={model.path}", f"--checkpoint={model.checkpoint}",
                f"--fetch={','.join(fetch)}"]
        if model.train_op:
            args += [f"--train_op={model.train_op}", f"--steps={model.steps}",
                     f"--after={','.join(model.after)}"]
    else:
        args = [f"--saved_model={model.path}"]
    interop.run([interop.binary("model_runner"), f"--feeds={feeds}", f"--out={out}", *args])
    return interop.read_records(out)
