"""The op census: which TensorFlow ops the models and APIs people use put into
their graphs, built in TensorFlow 2.21 itself. Four sources:

  applications  every model of tf.keras.applications (weights=None, the
                smallest input it accepts), forward and one SGD training step;
  layers        every layer class of Keras 3 and of tf_keras in a common
                configuration, forward and the gradient of its output;
  compat_v1     tf.compat.v1's layers, losses, metrics and initializers, and
                every tf.compat.v1.train optimizer minimizing a dense and a
                sparse (embedding) variable;
  functions     every public function of tf.math, tf.linalg, tf.signal,
                tf.image, tf.strings, tf.sparse, tf.ragged, tf.nn, tf.random,
                tf.io and tf.bitwise that a call with generated arguments
                traces, with its gradient where it has one.

Each item is traced into a graph (tf.function, or a tf.compat.v1 graph), and
every op type of it is counted: its nodes, its function library's, and its
gradient's. Writes tests/tf_interop/op_census.tsv: per op, how many items of
each source use it; and per source, the items built and those that could not
be (with the first line of their error).

  /var/cache/minigraph-tf/bin/python tests/tf_interop/op_census.py \\
      --out tests/tf_interop/op_census.tsv [--sources=applications,layers,...]

//tools:op_coverage puts the census beside the kernels in docs/ops.md.
"""

import argparse
import collections
import inspect
import os
import sys
import time
import traceback

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
os.environ.setdefault("KERAS_BACKEND", "tensorflow")

import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402

v1 = tf.compat.v1
SOURCES = ("applications", "layers", "compat_v1", "functions")


def graph_ops(graph_def):
  """The op types of a GraphDef's nodes and of its library's functions."""
  ops = {n.op for n in graph_def.node}
  for f in graph_def.library.function:
    ops.update(n.op for n in f.node_def)
  names = {f.signature.name for f in graph_def.library.function}
  return ops - names


def traced_ops(fn, *specs):
  """The ops of tf.function `fn` traced for `specs`."""
  concrete = tf.function(fn).get_concrete_function(*specs)
  return graph_ops(concrete.graph.as_graph_def(add_shapes=False))


def first_line(e):
  """The line of an error that says what went wrong (a tf.function's error
  ends with it, after the user code's trace)."""
  lines = [line.strip() for line in str(e).strip().splitlines() if line.strip()]
  last = lines[-1] if lines else ""
  name = type(e).__name__
  return (last if last.startswith(name) else f"{name}: {last}")[:160]


def gradient(tape, loss, wrt):
  """tape.gradient, for an op TensorFlow registers no gradient for too: the
  census then counts the forward ops alone."""
  try:
    tape.gradient(loss, wrt)
  except LookupError:  # "gradient registry has no entry for: Lu"
    pass


class Census:

  def __init__(self):
    self.uses = collections.defaultdict(collections.Counter)  # op -> source -> items
    self.built = collections.defaultdict(list)  # source -> item names
    self.failed = collections.defaultdict(list)  # source -> (item, reason)
    self.skipped = collections.defaultdict(list)  # source -> item names

  def add(self, source, item, ops):
    self.built[source].append(item)
    for op in ops:
      self.uses[op][source] += 1

  def fail(self, source, item, error):
    self.failed[source].append((item, first_line(error)))

  def run(self, source, item, make_ops):
    try:
      ops = make_ops()
    except Exception as e:  # noqa: BLE001: every failure is recorded, named
      self.fail(source, item, e)
      return
    self.add(source, item, ops)

  def write(self, path):
    with open(path, "w", encoding="utf-8") as f:
      f.write("# The op census (tests/tf_interop/op_census.py; TensorFlow "
              f"{tf.__version__}): per op, how many items of each source put it "
              "into their graphs.\n")
      for s in SOURCES:
        f.write(f"# built\t{s}\t{len(self.built[s])}\n")
      for s in SOURCES:
        if self.skipped[s]:
          f.write(f"# skipped\t{s}\t{', '.join(sorted(self.skipped[s]))}\n")
      for s in SOURCES:
        for item, reason in sorted(self.failed[s]):
          f.write(f"# not built\t{s}\t{item}\t{reason}\n")
      f.write("op\t" + "\t".join(SOURCES) + "\n")
      for op in sorted(self.uses):
        f.write(op + "\t" + "\t".join(str(self.uses[op][s]) for s in SOURCES) + "\n")


# (a) Keras applications.

def applications(census):
  import keras
  names = sorted(n for n, o in inspect.getmembers(keras.applications)
                 if callable(o) and n[:1].isupper())
  for name in names:
    ctor = getattr(keras.applications, name)

    def make(ctor=ctor):
      last = None
      for size in (32, 75, 224, 331):
        try:
          model = ctor(weights=None, input_shape=(size, size, 3), classes=10)
          break
        except ValueError as e:  # too small an input for this model
          last = e
      else:
        raise last
      opt = keras.optimizers.SGD(0.01)
      opt.build(model.trainable_variables)

      def step(x, y):
        with tf.GradientTape() as tape:
          loss = tf.reduce_mean(keras.losses.sparse_categorical_crossentropy(
              y, model(x, training=True)))
        grads = tape.gradient(loss, model.trainable_variables)
        opt.apply_gradients(zip(grads, model.trainable_variables))
        return loss

      ops = traced_ops(lambda x: model(x, training=False),
                       tf.TensorSpec([1, size, size, 3], tf.float32))
      ops |= traced_ops(step, tf.TensorSpec([1, size, size, 3], tf.float32),
                        tf.TensorSpec([1], tf.int32))
      keras.backend.clear_session()
      return ops

    t = time.time()
    census.run("applications", name, make)
    print(f"applications: {name} {time.time() - t:.0f} s", file=sys.stderr, flush=True)


# (b) Layers of Keras 3 and tf_keras.

# Constructor arguments and input shape (batch included) by layer class name;
# a class not listed is tried with no arguments on each of GENERIC_INPUTS.
LAYER_CONFIGS = {
    "Dense": ({"units": 4}, [2, 5]),
    "EinsumDense": ({"equation": "ab,bc->ac", "output_shape": 4}, [2, 5]),
    "Conv1D": ({"filters": 4, "kernel_size": 3, "dilation_rate": 2}, [2, 9, 3]),
    "Conv2D": ({"filters": 4, "kernel_size": 3}, [2, 8, 8, 3]),
    "Conv3D": ({"filters": 4, "kernel_size": 3}, [2, 6, 6, 6, 3]),
    "Conv1DTranspose": ({"filters": 4, "kernel_size": 3}, [2, 8, 3]),
    "Conv2DTranspose": ({"filters": 4, "kernel_size": 3, "strides": 2}, [2, 8, 8, 3]),
    "Conv3DTranspose": ({"filters": 4, "kernel_size": 3}, [2, 6, 6, 6, 3]),
    "DepthwiseConv1D": ({"kernel_size": 3}, [2, 8, 3]),
    "DepthwiseConv2D": ({"kernel_size": 3}, [2, 8, 8, 3]),
    "SeparableConv1D": ({"filters": 4, "kernel_size": 3}, [2, 8, 3]),
    "SeparableConv2D": ({"filters": 4, "kernel_size": 3}, [2, 8, 8, 3]),
    "Convolution1D": ({"filters": 4, "kernel_size": 3}, [2, 9, 3]),
    "Convolution2D": ({"filters": 4, "kernel_size": 3}, [2, 8, 8, 3]),
    "Convolution3D": ({"filters": 4, "kernel_size": 3}, [2, 6, 6, 6, 3]),
    "Convolution2DTranspose": ({"filters": 4, "kernel_size": 3}, [2, 8, 8, 3]),
    "Convolution3DTranspose": ({"filters": 4, "kernel_size": 3}, [2, 6, 6, 6, 3]),
    "SeparableConvolution1D": ({"filters": 4, "kernel_size": 3}, [2, 8, 3]),
    "SeparableConvolution2D": ({"filters": 4, "kernel_size": 3}, [2, 8, 8, 3]),
    "ConvLSTM1D": ({"filters": 4, "kernel_size": 3}, [2, 3, 8, 3]),
    "ConvLSTM2D": ({"filters": 4, "kernel_size": 3}, [2, 3, 8, 8, 3]),
    "ConvLSTM3D": ({"filters": 4, "kernel_size": 3}, [2, 3, 6, 6, 6, 3]),
    "LSTM": ({"units": 4, "return_sequences": True}, [2, 5, 3]),
    "GRU": ({"units": 4, "return_sequences": True}, [2, 5, 3]),
    "SimpleRNN": ({"units": 4, "return_sequences": True}, [2, 5, 3]),
    "Bidirectional": (None, [2, 5, 3]),
    "RNN": (None, [2, 5, 3]),
    "TimeDistributed": (None, [2, 5, 3]),
    "LSTMCell": (None, None),
    "GRUCell": (None, None),
    "SimpleRNNCell": (None, None),
    "StackedRNNCells": (None, None),
    "Embedding": ({"input_dim": 10, "output_dim": 4}, ("int", [2, 5])),
    "CategoryEncoding": ({"num_tokens": 6, "output_mode": "multi_hot"}, ("int", [2, 3])),
    "Hashing": ({"num_bins": 4}, ("str", [2, 3])),
    "HashedCrossing": (None, None),
    "StringLookup": ({"vocabulary": ["a", "b"]}, ("str", [2, 3])),
    "IntegerLookup": ({"vocabulary": [1, 2]}, ("int", [2, 3])),
    "TextVectorization": ({"vocabulary": ["a", "b"]}, ("str", [2])),
    "Discretization": ({"bin_boundaries": [0.0, 1.0]}, [2, 3]),
    "Normalization": ({"mean": 0.0, "variance": 1.0}, [2, 3]),
    "MultiHeadAttention": ({"num_heads": 2, "key_dim": 4}, "attention"),
    "GroupedQueryAttention": ({"head_dim": 4, "num_query_heads": 2, "num_key_value_heads": 1},
                              "attention"),
    "Attention": ({}, "qv"),
    "AdditiveAttention": ({}, "qv"),
    "Add": ({}, "pair"),
    "Subtract": ({}, "pair"),
    "Multiply": ({}, "pair"),
    "Average": ({}, "pair"),
    "Maximum": ({}, "pair"),
    "Minimum": ({}, "pair"),
    "Concatenate": ({}, "pair"),
    "Dot": ({"axes": 1}, "pair"),
    "Reshape": ({"target_shape": (15,)}, [2, 3, 5]),
    "Permute": ({"dims": (2, 1)}, [2, 3, 5]),
    "RepeatVector": ({"n": 3}, [2, 5]),
    "Cropping1D": ({"cropping": 1}, [2, 6, 3]),
    "Cropping2D": ({"cropping": 1}, [2, 6, 6, 3]),
    "Cropping3D": ({"cropping": 1}, [2, 6, 6, 6, 3]),
    "ZeroPadding1D": ({"padding": 1}, [2, 6, 3]),
    "ZeroPadding2D": ({"padding": 1}, [2, 6, 6, 3]),
    "ZeroPadding3D": ({"padding": 1}, [2, 6, 6, 6, 3]),
    "UpSampling1D": ({}, [2, 6, 3]),
    "UpSampling2D": ({"interpolation": "bilinear"}, [2, 6, 6, 3]),
    "UpSampling3D": ({}, [2, 4, 4, 4, 3]),
    "MaxPooling1D": ({}, [2, 6, 3]),
    "MaxPooling2D": ({}, [2, 6, 6, 3]),
    "MaxPooling3D": ({}, [2, 6, 6, 6, 3]),
    "AveragePooling1D": ({"pool_size": 2}, [2, 6, 3]),
    "AveragePooling2D": ({"pool_size": 2}, [2, 6, 6, 3]),
    "AveragePooling3D": ({"pool_size": 2}, [2, 6, 6, 6, 3]),
    "MaxPool1D": ({}, [2, 6, 3]),
    "MaxPool2D": ({}, [2, 6, 6, 3]),
    "MaxPool3D": ({}, [2, 6, 6, 6, 3]),
    "AvgPool1D": ({"pool_size": 2}, [2, 6, 3]),
    "AvgPool2D": ({"pool_size": 2}, [2, 6, 6, 3]),
    "AvgPool3D": ({"pool_size": 2}, [2, 6, 6, 6, 3]),
    "AdaptiveAveragePooling1D": ({"output_size": 2}, [2, 6, 3]),
    "AdaptiveAveragePooling2D": ({"output_size": 2}, [2, 6, 6, 3]),
    "AdaptiveAveragePooling3D": ({"output_size": 2}, [2, 4, 4, 4, 3]),
    "AdaptiveMaxPooling1D": ({"output_size": 2}, [2, 6, 3]),
    "AdaptiveMaxPooling2D": ({"output_size": 2}, [2, 6, 6, 3]),
    "AdaptiveMaxPooling3D": ({"output_size": 2}, [2, 4, 4, 4, 3]),
    "Convolution1DTranspose": ({"filters": 4, "kernel_size": 3}, [2, 8, 3]),
    "GroupQueryAttention": ({"head_dim": 4, "num_query_heads": 2, "num_key_value_heads": 1},
                            "attention"),
    "MaxNumBoundingBoxes": (None, None),
    "RandomColorDegeneration": ({"factor": 0.5}, [2, 6, 6, 3]),
    "RandomHue": ({"factor": 0.5}, [2, 6, 6, 3]),
    "RandomPosterization": ({"factor": (1, 4)}, [2, 6, 6, 3]),
    "RandomSaturation": ({"factor": 0.5}, [2, 6, 6, 3]),
    "RandomSharpness": ({"factor": 0.5}, [2, 6, 6, 3]),
    "ReversibleEmbedding": ({"input_dim": 10, "output_dim": 4}, ("int", [2, 5])),
    "STFTSpectrogram": (None, None),
    "SpectralNormalization": (None, [2, 5]),
    "AbstractRNNCell": (None, None),
    "DenseFeatures": (None, None),
    "LocallyConnected1D": ({"filters": 4, "kernel_size": 3}, [2, 8, 3]),
    "LocallyConnected2D": ({"filters": 4, "kernel_size": 3}, [2, 6, 6, 3]),
    "Dropout": ({"rate": 0.5}, [2, 5]),
    "SpatialDropout1D": ({"rate": 0.5}, [2, 6, 3]),
    "SpatialDropout2D": ({"rate": 0.5}, [2, 6, 6, 3]),
    "SpatialDropout3D": ({"rate": 0.5}, [2, 4, 4, 4, 3]),
    "GaussianDropout": ({"rate": 0.5}, [2, 5]),
    "GaussianNoise": ({"stddev": 0.5}, [2, 5]),
    "AlphaDropout": ({"rate": 0.5}, [2, 5]),
    "ActivityRegularization": ({"l1": 0.1}, [2, 5]),
    "Activation": ({"activation": "gelu"}, [2, 5]),
    "GroupNormalization": ({"groups": 2}, [2, 6, 4]),
    "Lambda": ({"function": lambda x: x * 2.0}, [2, 5]),
    "Resizing": ({"height": 4, "width": 4}, [2, 6, 6, 3]),
    "CenterCrop": ({"height": 4, "width": 4}, [2, 6, 6, 3]),
    "RandomCrop": ({"height": 4, "width": 4}, [2, 6, 6, 3]),
    "RandomRotation": ({"factor": 0.2}, [2, 6, 6, 3]),
    "RandomZoom": ({"height_factor": 0.2}, [2, 6, 6, 3]),
    "RandomTranslation": ({"height_factor": 0.2, "width_factor": 0.2}, [2, 6, 6, 3]),
    "RandomContrast": ({"factor": 0.2}, [2, 6, 6, 3]),
    "RandomBrightness": ({"factor": 0.2}, [2, 6, 6, 3]),
    "RandomHeight": ({"factor": 0.2}, [2, 6, 6, 3]),
    "RandomWidth": ({"factor": 0.2}, [2, 6, 6, 3]),
    "Rescaling": ({"scale": 0.5}, [2, 6, 6, 3]),
    "Masking": ({}, [2, 5, 3]),
    "Wrapper": (None, None),
    "InputLayer": (None, None),
    "Input": (None, None),
    "InputSpec": (None, None),
    "Layer": (None, None),
    "TFSMLayer": (None, None),
    "Pipeline": (None, None),
    "JaxLayer": (None, None),
    "FlaxLayer": (None, None),
    "TorchModuleWrapper": (None, None),
}
GENERIC_INPUTS = ([2, 5], [2, 6, 3], [2, 6, 6, 3], [2, 4, 4, 4, 3])


def layer_call_inputs(kind):
  """(call arguments, the float tensors to differentiate) for an input kind."""
  rng = np.random.default_rng(0)
  if kind == "attention":
    q = tf.constant(rng.normal(size=[2, 3, 8]), tf.float32)
    v = tf.constant(rng.normal(size=[2, 4, 8]), tf.float32)
    return (q, v), [q, v]
  if kind == "qv":
    q = tf.constant(rng.normal(size=[2, 3, 4]), tf.float32)
    v = tf.constant(rng.normal(size=[2, 5, 4]), tf.float32)
    return ([q, v],), [q, v]
  if kind == "pair":
    a = tf.constant(rng.normal(size=[2, 5]), tf.float32)
    b = tf.constant(rng.normal(size=[2, 5]), tf.float32)
    return ([a, b],), [a, b]
  if isinstance(kind, tuple):
    dtype, shape = kind
    if dtype == "int":
      return (tf.constant(rng.integers(0, 5, size=shape), tf.int64),), []
    return (tf.constant(np.full(shape, "a b", dtype=object)),), []
  x = tf.constant(rng.normal(size=kind), tf.float32)
  return (x,), [x]


def layer_ops(layer, kind):
  args, wrt = layer_call_inputs(kind)

  def forward_and_gradient():
    with tf.GradientTape() as tape:
      for t in wrt:
        tape.watch(t)
      out = layer(*args, training=True)
      if isinstance(out, (list, tuple)):
        out = out[0]
      loss = tf.reduce_sum(tf.cast(out, tf.float32)) if out.dtype.is_floating else None
    if loss is not None:
      targets = wrt + list(layer.trainable_variables)
      if targets:
        gradient(tape, loss, targets)
    return out

  return traced_ops(forward_and_gradient)


def layer_classes(module):
  return sorted((n, o) for n, o in inspect.getmembers(module.layers) if inspect.isclass(o))


def wrapped_layer(module, name):
  """The wrapper layers, around an LSTM (cells: around their RNN)."""
  L = module.layers
  if name == "Bidirectional":
    return L.Bidirectional(L.LSTM(4, return_sequences=True))
  if name == "TimeDistributed":
    return L.TimeDistributed(L.Dense(4))
  if name == "RNN":
    return L.RNN(L.LSTMCell(4), return_sequences=True)
  if name == "SpectralNormalization":
    return L.SpectralNormalization(L.Dense(4))
  return None


def layers(census):
  import keras
  import tf_keras
  for label, module in (("keras", keras), ("tf_keras", tf_keras)):
    for name, cls in layer_classes(module):
      item = f"{label}.layers.{name}"
      config, kind = LAYER_CONFIGS.get(name, ({}, "generic"))
      if config is None and kind is None:
        # Not a layer one computes with on its own: bases, inputs, wrappers
        # of other frameworks' modules.
        census.skipped["layers"].append(item)
        continue

      def make(cls=cls, config=config, kind=kind, name=name, module=module):
        layer = wrapped_layer(module, name) if config is None else None
        if kind != "generic":
          return layer_ops(layer or cls(**config), kind)
        last = None
        for shape in GENERIC_INPUTS:
          try:
            return layer_ops(cls(), shape)
          except Exception as e:  # noqa: BLE001: the next input shape may suit it
            last = e
        raise last

      census.run("layers", item, make)
    print(f"layers: {label} done", file=sys.stderr, flush=True)


# (c) tf.compat.v1.

def v1_graph_ops(build):
  """The ops of a tf.compat.v1 graph that `build()` fills."""
  g = tf.Graph()
  with g.as_default():
    build()
  return graph_ops(g.as_graph_def())


def compat_v1(census):
  rng = np.random.default_rng(0)

  def x(shape=(4, 6)):
    return v1.placeholder(tf.float32, shape)

  # tf.compat.v1.layers is tf_keras's (with Keras 3 as tf.keras, TensorFlow's
  # own alias refuses).
  from tf_keras.src.legacy_tf_layers import convolutional, core, normalization, pooling

  class L:  # noqa: N801: tf.compat.v1.layers' namespace
    dense, dropout, flatten = core.dense, core.dropout, core.flatten
    conv1d, conv2d, conv3d = convolutional.conv1d, convolutional.conv2d, convolutional.conv3d
    conv2d_transpose = convolutional.conv2d_transpose
    conv3d_transpose = convolutional.conv3d_transpose
    separable_conv1d = convolutional.separable_conv1d
    separable_conv2d = convolutional.separable_conv2d
    batch_normalization = normalization.batch_normalization
    max_pooling1d, max_pooling2d = pooling.max_pooling1d, pooling.max_pooling2d
    max_pooling3d, average_pooling1d = pooling.max_pooling3d, pooling.average_pooling1d
    average_pooling2d = pooling.average_pooling2d
    average_pooling3d = pooling.average_pooling3d

  layer_builds = {
      "dense": lambda: L.dense(x(), 3),
      "conv1d": lambda: L.conv1d(x((2, 8, 3)), 4, 3),
      "conv2d": lambda: L.conv2d(x((2, 8, 8, 3)), 4, 3),
      "conv3d": lambda: L.conv3d(x((2, 6, 6, 6, 3)), 4, 3),
      "conv2d_transpose": lambda: L.conv2d_transpose(x((2, 8, 8, 3)), 4, 3, strides=2),
      "conv3d_transpose": lambda: L.conv3d_transpose(x((2, 4, 4, 4, 3)), 4, 3),
      "separable_conv1d": lambda: L.separable_conv1d(x((2, 8, 3)), 4, 3),
      "separable_conv2d": lambda: L.separable_conv2d(x((2, 8, 8, 3)), 4, 3),
      "batch_normalization": lambda: L.batch_normalization(x((2, 8, 8, 3)), training=True),
      "dropout": lambda: L.dropout(x(), training=True),
      "flatten": lambda: L.flatten(x((2, 3, 4))),
      "max_pooling1d": lambda: L.max_pooling1d(x((2, 8, 3)), 2, 2),
      "max_pooling2d": lambda: L.max_pooling2d(x((2, 8, 8, 3)), 2, 2),
      "max_pooling3d": lambda: L.max_pooling3d(x((2, 4, 4, 4, 3)), 2, 2),
      "average_pooling1d": lambda: L.average_pooling1d(x((2, 8, 3)), 2, 2),
      "average_pooling2d": lambda: L.average_pooling2d(x((2, 8, 8, 3)), 2, 2),
      "average_pooling3d": lambda: L.average_pooling3d(x((2, 4, 4, 4, 3)), 2, 2),
  }

  def with_gradient(make):
    def build():
      out = make()
      loss = tf.reduce_sum(out)
      v1.train.GradientDescentOptimizer(0.1).minimize(loss) if v1.trainable_variables() \
          else tf.gradients(loss, [t for t in v1.get_default_graph().get_operations()
                                   if t.type == "Placeholder"][0].outputs)
    return build

  for name, make in layer_builds.items():
    census.run("compat_v1", f"layers.{name}", lambda make=make: v1_graph_ops(with_gradient(make)))

  def labels_and_predictions():
    return (v1.placeholder(tf.float32, (4, 3)), v1.placeholder(tf.float32, (4, 3)))

  losses = sorted(n for n, o in inspect.getmembers(v1.losses)
                  if inspect.isfunction(o) and n not in (
                      "add_loss", "get_losses", "get_regularization_loss",
                      "get_regularization_losses", "get_total_loss", "compute_weighted_loss"))
  for name in losses:
    fn = getattr(v1.losses, name)

    def build(fn=fn, name=name):
      labels, predictions = labels_and_predictions()
      if name == "sparse_softmax_cross_entropy":
        loss = fn(v1.placeholder(tf.int32, (4,)), predictions)
      elif name == "cosine_distance":
        loss = fn(labels, predictions, axis=1)
      elif name in ("softmax_cross_entropy", "sigmoid_cross_entropy"):
        loss = fn(labels, predictions)
      else:
        loss = fn(labels, predictions)
      tf.gradients(loss, [predictions])

    census.run("compat_v1", f"losses.{name}", lambda build=build: v1_graph_ops(build))

  metrics = sorted(n for n, o in inspect.getmembers(v1.metrics) if inspect.isfunction(o))
  for name in metrics:
    fn = getattr(v1.metrics, name)

    def build(fn=fn, name=name):
      labels = v1.placeholder(tf.int64, (4, 3))
      predictions = v1.placeholder(tf.float32, (4, 3))
      params = inspect.signature(fn).parameters
      kwargs = {}
      if "k" in params:
        kwargs["k"] = 1
      if "num_classes" in params:
        kwargs["num_classes"] = 3
      if "thresholds" in params and params["thresholds"].default is inspect.Parameter.empty:
        kwargs["thresholds"] = [0.5]
      if "specificity" in params:
        kwargs["specificity"] = 0.5
      if "sensitivity" in params:
        kwargs["sensitivity"] = 0.5
      if "dim" in params:
        kwargs["dim"] = 1
      if "normalizer" in params:
        kwargs["normalizer"] = tf.ones([4, 3])
      if "threshold" in params:
        kwargs["threshold"] = 0.5
      if "recall" in params:
        kwargs["recall"] = 0.5
      if "precision" in params and name.endswith("at_precision"):
        kwargs["precision"] = 0.5
      first = list(params)[0]
      if first == "values":
        fn(predictions, **kwargs)
      elif "top_k" in name or "at_k" in name or "at_top_k" in name:
        if "top_k" in name:
          fn(labels, tf.cast(tf.nn.top_k(predictions, 1).indices, tf.int64), **kwargs)
        else:
          fn(labels, predictions, **kwargs)
      elif first == "labels" and "predictions" in params:
        if name in ("accuracy", "mean_iou", "false_negatives", "false_positives",
                    "true_negatives", "true_positives", "precision", "recall"):
          fn(tf.cast(labels, tf.float32) > 0.5 if name != "mean_iou" else labels,
             predictions > 0.5 if name != "mean_iou" else tf.cast(predictions, tf.int64),
             **kwargs)
        else:
          fn(tf.cast(labels, tf.float32), predictions, **kwargs)
      else:
        fn(labels, predictions, **kwargs)

    census.run("compat_v1", f"metrics.{name}", lambda build=build: v1_graph_ops(build))

  initializers = sorted(n for n, o in inspect.getmembers(v1.initializers) if inspect.isclass(o)
                        or inspect.isfunction(o))
  for name in initializers:
    init = getattr(v1.initializers, name)

    def build(init=init, name=name):
      if name in ("global_variables", "local_variables", "tables_initializer", "variables"):
        v1.get_variable("v", [2], initializer=v1.zeros_initializer())
        init() if name != "variables" else init(v1.global_variables())
        return
      if name == "constant":
        made = init(1.0)
      elif name == "identity":
        made = init()
        v1.get_variable("v", [3, 3], initializer=made)
        return
      else:
        made = init()
      v1.get_variable("v", [4, 3], initializer=made)

    census.run("compat_v1", f"initializers.{name}", lambda build=build: v1_graph_ops(build))

  optimizers = sorted(n for n, o in inspect.getmembers(v1.train)
                      if inspect.isclass(o) and n.endswith("Optimizer") and n != "Optimizer"
                      and n != "SyncReplicasOptimizer")
  args = {
      "MomentumOptimizer": {"learning_rate": 0.1, "momentum": 0.9},
      "AdagradDAOptimizer": {"learning_rate": 0.1,
                             "global_step": None},
  }
  for name in optimizers:
    cls = getattr(v1.train, name)
    for kind in ("dense", "sparse"):
      def build(cls=cls, name=name, kind=kind):
        kwargs = dict(args.get(name, {"learning_rate": 0.1}))
        if name == "AdagradDAOptimizer":
          kwargs["global_step"] = v1.train.get_or_create_global_step()
        if kind == "dense":
          w = v1.get_variable("w", [6, 3])
          loss = tf.reduce_sum(tf.matmul(v1.placeholder(tf.float32, (4, 6)), w))
        else:
          table = v1.get_variable("table", [10, 3])
          loss = tf.reduce_sum(tf.nn.embedding_lookup(table, v1.placeholder(tf.int32, (4,))))
        cls(**kwargs).minimize(loss)

      census.run("compat_v1", f"train.{name}.{kind}", lambda build=build: v1_graph_ops(build))
  del rng


# (d) Public functions, called with generated arguments.

FUNCTION_MODULES = ("math", "linalg", "signal", "image", "strings", "sparse", "ragged", "nn",
                    "random", "io", "bitwise")
# Functions that are not ops at all, or that need resources a call here does
# not have (files, the eager context, a Python function to wrap).
SKIP_FUNCTIONS = {
    "io.write_file", "io.read_file", "io.write_graph", "io.match_filenames_once",
    "io.gfile", "io.serialize_many_sparse", "random.set_seed", "random.set_global_generator",
    "random.get_global_generator", "random.create_rng_state", "image.convert_image_dtype",
}


def candidate_values():
  """Argument profiles: each maps a parameter name to a value."""
  rng = np.random.default_rng(0)
  spd = rng.normal(size=(4, 4)).astype(np.float32)
  spd = spd @ spd.T + 4 * np.eye(4, dtype=np.float32)
  image = rng.uniform(size=(2, 8, 8, 3)).astype(np.float32)
  floats = rng.uniform(0.1, 0.9, size=(4, 4)).astype(np.float32)
  ints = rng.integers(0, 4, size=(4, 4)).astype(np.int32)
  strings = np.array([["a b", "c"], ["d", "e f"]], dtype=object)
  sparse = tf.sparse.from_dense(tf.constant([[1.0, 0.0], [0.0, 2.0]]))
  ragged = tf.ragged.constant([[1.0, 2.0], [3.0]])
  signal = rng.normal(size=(2, 16)).astype(np.float32)
  profiles = []
  for main in (floats, spd, image, ints, strings, sparse, ragged, signal,
               floats.astype(np.complex64)):
    profiles.append(main)
  return profiles


SPECIAL_ARGS = {
    "axis": -1, "dim": -1, "k": 1, "num": 2, "dtype": tf.float32, "seed": [1, 2],
    "shape": [2, 3], "size": [4, 4], "num_segments": 4, "depth": 3, "num_rows": 3,
    "frame_length": 4, "frame_step": 2, "fft_length": [16], "n": 2, "num_lower": 1,
    "num_upper": 1, "delta": 1, "ksize": 2, "strides": 1, "padding": "SAME", "rate": 0.5,
    "max_outputs": 3, "bins": 4, "nbins": 4, "value_range": [0.0, 1.0], "boundaries": [0.5],
    "segment_ids": [0, 0, 1, 2], "indices": [[0, 1]], "sorted_sequence": [[0.0, 0.5, 1.0]],
    "pos": 0, "len": 1, "sep": " ", "separator": " ", "num_buckets": 4, "pattern": "a",
    "rewrite": "b", "alpha": 0.5, "beta": 0.5, "lower": 0.0, "upper": 1.0, "maxval": 1.0,
    "minval": 0.0, "mean": 0.0, "stddev": 1.0, "multiples": [1, 2], "perm": [1, 0],
    "paddings": [[0, 1], [0, 1]], "begin": [0, 0], "end": [1, 1], "block_size": 2,
    "filters": None, "filter": None, "kernel": None, "num_classes": 3, "target_height": 4,
    "target_width": 4, "offset_height": 0, "offset_width": 0, "height": 4, "width": 4,
    "max_delta": 0.1, "contrast_factor": 1.5, "saturation_factor": 1.5, "gamma": 1.0,
    "crop_size": [4, 4], "boxes": [[[0.0, 0.0, 1.0, 1.0]]], "box_indices": [0],
    "box_ind": [0], "scores": [0.9], "max_output_size": 1, "iou_threshold": 0.5,
    "out_type": tf.int32, "unit": "BYTE", "input_encoding": "UTF-8",
    "output_encoding": "UTF-8", "num_or_size_splits": 2, "weights": None,
    "num_true": 1, "num_sampled": 2, "range_max": 4, "true_classes": [[0], [1], [2], [3]],
    "labels": None, "logits": None, "ord": "euclidean", "diagonal": [1.0, 2.0, 3.0, 4.0],
    "expected_shape": [4, 4], "lengths": [1, 2, 1, 2], "inner_shape": [2],
}


def call_with(fn, params, main):
  """Calls fn with `main` for every required tensor-like parameter and the
  special values for the rest."""
  args = []
  kwargs = {}
  first = True
  for name, p in params.items():
    if p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD):
      continue
    if p.default is not inspect.Parameter.empty:
      continue
    if name in SPECIAL_ARGS and not first and SPECIAL_ARGS[name] is not None:
      value = SPECIAL_ARGS[name]
    elif name in SPECIAL_ARGS and SPECIAL_ARGS[name] is not None and first and name in (
        "shape", "size", "dims", "num_rows", "seed", "diagonal", "boxes", "true_classes",
        "sorted_sequence", "segment_ids", "lengths"):
      value = SPECIAL_ARGS[name]
    else:
      value = main
    first = False
    if p.kind == p.POSITIONAL_ONLY:
      args.append(value)
    else:
      kwargs[name] = value
  return fn(*args, **kwargs)


def function_ops(fn, main):
  """Traces fn with `main`'s values, and the gradient of its first float
  output with respect to the float tensors given."""
  params = inspect.signature(fn).parameters

  def body():
    value = tf.constant(main) if isinstance(main, np.ndarray) else main
    if isinstance(value, tf.Tensor) and value.dtype.is_floating:
      with tf.GradientTape() as tape:
        tape.watch(value)
        out = call_with(fn, params, value)
        flat = [t for t in tf.nest.flatten(out, expand_composites=True)
                if isinstance(t, tf.Tensor) and t.dtype.is_floating]
        loss = tf.add_n([tf.reduce_sum(t) for t in flat]) if flat else None
      if loss is not None:
        gradient(tape, loss, value)
      return out
    return call_with(fn, params, value)

  return traced_ops(body)


def _img(shape=(2, 8, 8, 3)):
  return tf.constant(np.random.default_rng(0).uniform(size=shape), tf.float32)


def _jpeg():
  return tf.io.encode_jpeg(tf.zeros([4, 4, 3], tf.uint8))


def _png():
  return tf.io.encode_png(tf.zeros([4, 4, 3], tf.uint8))


def _example():
  return tf.constant([tf.train.Example(features=tf.train.Features(feature={
      "x": tf.train.Feature(float_list=tf.train.FloatList(value=[1.0]))})).SerializeToString()])


def _sp():
  return tf.sparse.from_dense(tf.constant([[1.0, 0.0, 2.0], [0.0, 3.0, 0.0]]))


def _spi():
  return tf.sparse.from_dense(tf.constant([[1, 0, 2], [0, 3, 0]], tf.int64))


def _sps():
  return tf.sparse.from_dense(tf.constant([["a", "", "b"], ["", "c", ""]]))


# Calls for the functions the generated arguments do not suit: each returns
# (the output, the float tensors to differentiate it with respect to).
EXPLICIT = {
    "image.adjust_contrast": lambda x=_img(): (tf.image.adjust_contrast(x, 1.5), [x]),
    "image.adjust_hue": lambda x=_img(): (tf.image.adjust_hue(x, 0.1), [x]),
    "image.adjust_jpeg_quality": lambda: (tf.image.adjust_jpeg_quality(_img()[0], 50), []),
    "image.adjust_saturation": lambda x=_img(): (tf.image.adjust_saturation(x, 1.5), [x]),
    "image.central_crop": lambda x=_img(): (tf.image.central_crop(x, 0.5), [x]),
    "image.combined_non_max_suppression": lambda: (tf.image.combined_non_max_suppression(
        tf.random.uniform([1, 4, 1, 4]), tf.random.uniform([1, 4, 2]), 2, 2), []),
    "image.crop_and_resize": lambda x=_img(): (tf.image.crop_and_resize(
        x, [[0.0, 0.0, 1.0, 1.0]], [0], [4, 4]), [x]),
    "image.decode_and_crop_jpeg": lambda: (tf.image.decode_and_crop_jpeg(_jpeg(), [0, 0, 2, 2]),
                                           []),
    "image.decode_bmp": lambda: (tf.io.decode_bmp(tf.constant(b"BM")), []),
    "image.decode_gif": lambda: (tf.io.decode_gif(tf.constant(b"GIF89a")), []),
    "image.decode_image": lambda: (tf.io.decode_image(_png()), []),
    "image.decode_jpeg": lambda: (tf.io.decode_jpeg(_jpeg()), []),
    "image.decode_png": lambda: (tf.io.decode_png(_png()), []),
    "image.decode_webp": lambda: (tf.io.decode_webp(tf.constant(b"RIFF")), []),
    "image.decode_jxl": lambda: (tf.image.decode_jxl(tf.constant(b"\xff\x0a")), []),
    "image.generate_bounding_box_proposals": lambda: (tf.image.generate_bounding_box_proposals(
        tf.random.uniform([1, 2, 2, 1]), tf.random.uniform([1, 2, 2, 4]),
        tf.constant([[8.0, 8.0, 1.0, 1.0, 1.0]]), tf.random.uniform([1, 4, 4])), []),
    "image.random_jpeg_quality": lambda: (tf.image.random_jpeg_quality(_img()[0], 40, 60), []),
    "image.stateless_random_jpeg_quality": lambda: (tf.image.stateless_random_jpeg_quality(
        _img()[0], 40, 60, [1, 2]), []),
    "image.draw_bounding_boxes": lambda x=_img(): (tf.image.draw_bounding_boxes(
        x, tf.constant([[[0.1, 0.1, 0.5, 0.5]]] * 2), tf.constant([[1.0, 0.0, 0.0, 1.0]])), [x]),
    "image.encode_jpeg": lambda: (tf.io.encode_jpeg(tf.zeros([4, 4, 3], tf.uint8)), []),
    "image.encode_png": lambda: (tf.io.encode_png(tf.zeros([4, 4, 3], tf.uint8)), []),
    "image.extract_glimpse": lambda x=_img(): (tf.image.extract_glimpse(
        x, [2, 2], tf.zeros([2, 2])), [x]),
    "image.extract_jpeg_shape": lambda: (tf.io.extract_jpeg_shape(_jpeg()), []),
    "image.extract_patches": lambda x=_img(): (tf.image.extract_patches(
        x, [1, 2, 2, 1], [1, 2, 2, 1], [1, 1, 1, 1], "VALID"), [x]),
    "image.grayscale_to_rgb": lambda x=_img((2, 8, 8, 1)): (tf.image.grayscale_to_rgb(x), [x]),
    "image.non_max_suppression": lambda: (tf.image.non_max_suppression(
        tf.random.uniform([4, 4]), tf.random.uniform([4]), 2), []),
    "image.non_max_suppression_overlaps": lambda: (tf.image.non_max_suppression_overlaps(
        tf.random.uniform([4, 4]), tf.random.uniform([4]), 2), []),
    "image.non_max_suppression_padded": lambda: (tf.image.non_max_suppression_padded(
        tf.random.uniform([4, 4]), tf.random.uniform([4]), 2), []),
    "image.non_max_suppression_with_scores": lambda: (tf.image.non_max_suppression_with_scores(
        tf.random.uniform([4, 4]), tf.random.uniform([4]), 2), []),
    "image.pad_to_bounding_box": lambda x=_img(): (tf.image.pad_to_bounding_box(
        x, 1, 1, 10, 10), [x]),
    "image.psnr": lambda x=_img(): (tf.image.psnr(x, x * 0.5, 1.0), [x]),
    "image.random_contrast": lambda x=_img(): (tf.image.random_contrast(x, 0.5, 1.5), [x]),
    "image.random_hue": lambda x=_img(): (tf.image.random_hue(x, 0.1), [x]),
    "image.random_saturation": lambda x=_img(): (tf.image.random_saturation(x, 0.5, 1.5), [x]),
    "image.sample_distorted_bounding_box": lambda: (tf.image.sample_distorted_bounding_box(
        [8, 8, 3], tf.constant([[[0.0, 0.0, 1.0, 1.0]]])), []),
    "image.ssim": lambda x=_img((2, 16, 16, 3)): (tf.image.ssim(x, x * 0.5, 1.0,
                                                                filter_size=3), [x]),
    "image.ssim_multiscale": lambda x=_img((1, 64, 64, 3)): (tf.image.ssim_multiscale(
        x, x * 0.5, 1.0, filter_size=3), [x]),
    "image.stateless_random_contrast": lambda x=_img(): (tf.image.stateless_random_contrast(
        x, 0.5, 1.5, [1, 2]), [x]),
    "image.stateless_random_hue": lambda x=_img(): (tf.image.stateless_random_hue(
        x, 0.1, [1, 2]), [x]),
    "image.stateless_random_saturation": lambda x=_img(): (
        tf.image.stateless_random_saturation(x, 0.5, 1.5, [1, 2]), [x]),
    "image.stateless_sample_distorted_bounding_box": lambda: (
        tf.image.stateless_sample_distorted_bounding_box(
            [8, 8, 3], tf.constant([[[0.0, 0.0, 1.0, 1.0]]]), [1, 2]), []),
    "io.decode_csv": lambda: (tf.io.decode_csv(tf.constant(["1,a"]), [[0.0], [""]]), []),
    "io.decode_proto": lambda: (tf.io.decode_proto(
        tf.constant([b""]), "tensorflow.Example", ["features"], [tf.string]), []),
    "io.deserialize_many_sparse": lambda: (tf.io.deserialize_many_sparse(
        tf.raw_ops.SerializeManySparse(
            sparse_indices=tf.constant([[0, 0]], tf.int64), sparse_values=tf.constant([1.0]),
            sparse_shape=tf.constant([1, 2], tf.int64), out_type=tf.string), tf.float32), []),
    "io.encode_proto": lambda: (tf.io.encode_proto(
        tf.constant([1]), [tf.constant([[1.0]])], ["value"], "tensorflow.FloatList"), []),
    "io.matching_files": lambda: (tf.io.matching_files("/nonexistent/*"), []),
    "io.parse_example": lambda: (tf.io.parse_example(
        _example(), {"x": tf.io.FixedLenFeature([1], tf.float32)}), []),
    "io.parse_single_example": lambda: (tf.io.parse_single_example(
        _example()[0], {"x": tf.io.FixedLenFeature([1], tf.float32)}), []),
    "io.parse_sequence_example": lambda: (tf.io.parse_sequence_example(
        _example(), context_features={"x": tf.io.FixedLenFeature([1], tf.float32)}), []),
    "io.parse_single_sequence_example": lambda: (tf.io.parse_single_sequence_example(
        _example()[0], context_features={"x": tf.io.FixedLenFeature([1], tf.float32)}), []),
    "linalg.einsum": lambda a=_img((2, 3, 4)), b=_img((2, 4, 5)): (
        tf.linalg.einsum("bij,bjk->bik", a, b), [a, b]),
    "linalg.eigh_tridiagonal": lambda: (tf.linalg.eigh_tridiagonal(
        tf.constant([2.0, 2.0, 2.0, 2.0]), tf.constant([1.0, 1.0, 1.0])), []),
    "linalg.global_norm": lambda a=_img((3,)): (tf.linalg.global_norm([a, a]), [a]),
    "linalg.tensordot": lambda a=_img((3, 4)), b=_img((4, 5)): (
        tf.linalg.tensordot(a, b, 1), [a, b]),
    "linalg.tridiagonal_solve": lambda d=_img((3, 4)), r=_img((4, 1)): (
        tf.linalg.tridiagonal_solve(d + 2.0, r), [d, r]),
    "linalg.lu_matrix_inverse": lambda a=_img((3, 3)): (
        tf.linalg.lu_matrix_inverse(*tf.linalg.lu(a + 3.0 * tf.eye(3))), [a]),
    "linalg.lu_solve": lambda a=_img((3, 3)), b=_img((3, 1)): (
        tf.linalg.lu_solve(*tf.linalg.lu(a + 3.0 * tf.eye(3)), b), [a, b]),
    "linalg.lu_reconstruct": lambda a=_img((3, 3)): (
        tf.linalg.lu_reconstruct(*tf.linalg.lu(a + 3.0 * tf.eye(3))), [a]),
    "math.accumulate_n": lambda a=_img((3,)): (tf.math.accumulate_n([a, a]), [a]),
    "math.add_n": lambda a=_img((3,)): (tf.math.add_n([a, a]), [a]),
    "math.confusion_matrix": lambda: (tf.math.confusion_matrix([0, 1], [1, 1]), []),
    "math.in_top_k": lambda: (tf.math.in_top_k([0, 1], _img((2, 3)), 1), []),
    "math.invert_permutation": lambda: (tf.math.invert_permutation([2, 0, 1]), []),
    "math.logical_and": lambda: (tf.math.logical_and([True], [False]), []),
    "math.logical_not": lambda: (tf.math.logical_not([True]), []),
    "math.logical_or": lambda: (tf.math.logical_or([True], [False]), []),
    "math.logical_xor": lambda: (tf.math.logical_xor([True], [False]), []),
    "math.polyval": lambda x=_img((3,)): (tf.math.polyval([1.0, 2.0, x], x), [x]),
    "math.scalar_mul": lambda x=_img((3,)): (tf.math.scalar_mul(2.0, x), [x]),
    "math.sobol_sample": lambda: (tf.math.sobol_sample(2, 4), []),
    "nn.atrous_conv2d": lambda x=_img(), f=_img((3, 3, 3, 4)): (
        tf.nn.atrous_conv2d(x, f, 2, "SAME"), [x, f]),
    "nn.atrous_conv2d_transpose": lambda x=_img((2, 8, 8, 4)), f=_img((3, 3, 3, 4)): (
        tf.nn.atrous_conv2d_transpose(x, f, [2, 8, 8, 3], 2, "SAME"), [x, f]),
    "nn.avg_pool1d": lambda x=_img((2, 8, 3)): (tf.nn.avg_pool1d(x, 2, 2, "VALID"), [x]),
    "nn.avg_pool3d": lambda x=_img((2, 4, 4, 4, 3)): (tf.nn.avg_pool3d(x, 2, 2, "VALID"), [x]),
    "nn.max_pool1d": lambda x=_img((2, 8, 3)): (tf.nn.max_pool1d(x, 2, 2, "VALID"), [x]),
    "nn.max_pool3d": lambda x=_img((2, 4, 4, 4, 3)): (tf.nn.max_pool3d(x, 2, 2, "VALID"), [x]),
    "nn.pool": lambda x=_img(): (tf.nn.pool(x, [2, 2], "MAX", strides=[2, 2]), [x]),
    "nn.batch_norm_with_global_normalization": lambda x=_img(), m=_img((3,)): (
        tf.nn.batch_norm_with_global_normalization(x, m, m + 1.0, m, m, 0.001, True), [x, m]),
    "nn.bias_add": lambda x=_img(), b=_img((3,)): (tf.nn.bias_add(x, b), [x, b]),
    "nn.collapse_repeated": lambda: (tf.nn.collapse_repeated([[1, 1, 2]], [3]), []),
    "nn.compute_accidental_hits": lambda: (tf.nn.compute_accidental_hits(
        tf.constant([[1]], tf.int64), tf.constant([1, 2], tf.int64), 1), []),
    "nn.conv1d": lambda x=_img((2, 8, 3)), f=_img((3, 3, 4)): (
        tf.nn.conv1d(x, f, 1, "SAME"), [x, f]),
    "nn.conv1d_transpose": lambda x=_img((2, 8, 4)), f=_img((3, 3, 4)): (
        tf.nn.conv1d_transpose(x, f, [2, 16, 3], 2), [x, f]),
    "nn.conv2d": lambda x=_img(), f=_img((3, 3, 3, 4)): (tf.nn.conv2d(x, f, 1, "SAME"), [x, f]),
    "nn.conv2d_transpose": lambda x=_img((2, 8, 8, 4)), f=_img((3, 3, 3, 4)): (
        tf.nn.conv2d_transpose(x, f, [2, 16, 16, 3], 2), [x, f]),
    "nn.conv3d": lambda x=_img((2, 6, 6, 6, 3)), f=_img((3, 3, 3, 3, 4)): (
        tf.nn.conv3d(x, f, [1] * 5, "SAME"), [x, f]),
    "nn.conv3d_transpose": lambda x=_img((2, 4, 4, 4, 4)), f=_img((3, 3, 3, 3, 4)): (
        tf.nn.conv3d_transpose(x, f, [2, 8, 8, 8, 3], 2), [x, f]),
    "nn.conv_transpose": lambda x=_img((2, 8, 8, 4)), f=_img((3, 3, 3, 4)): (
        tf.nn.conv_transpose(x, f, [2, 16, 16, 3], 2), [x, f]),
    "nn.convolution": lambda x=_img(), f=_img((3, 3, 3, 4)): (
        tf.nn.convolution(x, f, dilations=2), [x, f]),
    "nn.ctc_beam_search_decoder": lambda: (tf.nn.ctc_beam_search_decoder(
        _img((5, 2, 4)), [5, 5]), []),
    "nn.ctc_greedy_decoder": lambda: (tf.nn.ctc_greedy_decoder(_img((5, 2, 4)), [5, 5]), []),
    "nn.ctc_loss": lambda x=_img((5, 2, 4)): (tf.nn.ctc_loss(
        tf.constant([[1, 2], [1, 0]]), x, [2, 1], [5, 5], logits_time_major=True), [x]),
    "nn.depth_to_space": lambda x=_img((2, 4, 4, 4)): (tf.nn.depth_to_space(x, 2), [x]),
    "nn.space_to_depth": lambda x=_img((2, 4, 4, 4)): (tf.nn.space_to_depth(x, 2), [x]),
    "nn.depthwise_conv2d": lambda x=_img(), f=_img((3, 3, 3, 2)): (
        tf.nn.depthwise_conv2d(x, f, [1, 1, 1, 1], "SAME"), [x, f]),
    "nn.depthwise_conv2d_backprop_filter": lambda x=_img(), g=_img((2, 8, 8, 6)): (
        tf.nn.depthwise_conv2d_backprop_filter(x, [3, 3, 3, 2], g, [1, 1, 1, 1], "SAME"),
        [x, g]),
    "nn.depthwise_conv2d_backprop_input": lambda f=_img((3, 3, 3, 2)), g=_img((2, 8, 8, 6)): (
        tf.nn.depthwise_conv2d_backprop_input([2, 8, 8, 3], f, g, [1, 1, 1, 1], "SAME"),
        [f, g]),
    "nn.separable_conv2d": lambda x=_img(), d=_img((3, 3, 3, 2)), p=_img((1, 1, 6, 4)): (
        tf.nn.separable_conv2d(x, d, p, [1, 1, 1, 1], "SAME"), [x, d, p]),
    "nn.dilation2d": lambda x=_img(), f=_img((3, 3, 3)): (tf.nn.dilation2d(
        x, f, [1, 1, 1, 1], "SAME", "NHWC", [1, 1, 1, 1]), [x, f]),
    "nn.erosion2d": lambda x=_img(), f=_img((3, 3, 3)): (tf.nn.erosion2d(
        x, f, [1, 1, 1, 1], "SAME", "NHWC", [1, 1, 1, 1]), [x, f]),
    "nn.embedding_lookup_sparse": lambda p=_img((4, 3)): (tf.nn.embedding_lookup_sparse(
        p, _spi(), None), [p]),
    "nn.safe_embedding_lookup_sparse": lambda p=_img((4, 3)): (
        tf.nn.safe_embedding_lookup_sparse(p, _spi()), [p]),
    "nn.fractional_avg_pool": lambda x=_img(): (tf.nn.fractional_avg_pool(
        x, [1.0, 1.5, 1.5, 1.0])[0], [x]),
    "nn.fractional_max_pool": lambda x=_img(): (tf.nn.fractional_max_pool(
        x, [1.0, 1.5, 1.5, 1.0])[0], [x]),
    "nn.in_top_k": lambda: (tf.nn.in_top_k([0, 1], _img((2, 3)), 1), []),
    "nn.moments": lambda x=_img(): (tf.nn.moments(x, [0, 1, 2]), [x]),
    "nn.weighted_moments": lambda x=_img(): (tf.nn.weighted_moments(x, [0, 1, 2], x), [x]),
    "nn.sufficient_statistics": lambda x=_img(): (tf.nn.sufficient_statistics(x, [0]), [x]),
    "nn.nce_loss": lambda w=_img((10, 4)), b=_img((10,)), x=_img((2, 4)): (tf.nn.nce_loss(
        w, b, tf.constant([[1], [2]], tf.int64), x, 3, 10), [w, b, x]),
    "nn.sampled_softmax_loss": lambda w=_img((10, 4)), b=_img((10,)), x=_img((2, 4)): (
        tf.nn.sampled_softmax_loss(w, b, tf.constant([[1], [2]], tf.int64), x, 3, 10),
        [w, b, x]),
    "nn.sigmoid_cross_entropy_with_logits": lambda x=_img((2, 3)): (
        tf.nn.sigmoid_cross_entropy_with_logits(x, x), [x]),
    "nn.sparse_softmax_cross_entropy_with_logits": lambda x=_img((2, 3)): (
        tf.nn.sparse_softmax_cross_entropy_with_logits([0, 1], x), [x]),
    "nn.softmax_cross_entropy_with_logits": lambda x=_img((2, 3)): (
        tf.nn.softmax_cross_entropy_with_logits(x, x), [x]),
    "nn.space_to_batch": lambda x=_img((2, 4, 4, 3)): (tf.nn.space_to_batch(
        x, [2, 2], [[0, 0], [0, 0]]), [x]),
    "nn.with_space_to_batch": lambda x=_img(), f=_img((3, 3, 3, 4)): (tf.nn.with_space_to_batch(
        x, [2, 2], "SAME", lambda i, _, p: tf.nn.conv2d(i, f, 1, p), filter_shape=[3, 3]),
        [x, f]),
    "nn.all_candidate_sampler": lambda: (tf.nn.all_candidate_sampler(
        tf.constant([[1]], tf.int64), 1, 4, True), []),
    "nn.fixed_unigram_candidate_sampler": lambda: (tf.nn.fixed_unigram_candidate_sampler(
        tf.constant([[1]], tf.int64), 1, 2, True, 4, unigrams=[1.0] * 4), []),
    "nn.learned_unigram_candidate_sampler": lambda: (tf.nn.learned_unigram_candidate_sampler(
        tf.constant([[1]], tf.int64), 1, 2, True, 4), []),
    "ragged.boolean_mask": lambda: (tf.ragged.boolean_mask([[1, 2], [3, 4]],
                                                           [[True, False], [False, True]]), []),
    "ragged.constant": lambda: (tf.ragged.constant([[1, 2], [3]]), []),
    "ragged.cross": lambda: (tf.ragged.cross([tf.ragged.constant([["a"], ["b", "c"]])]), []),
    "ragged.cross_hashed": lambda: (tf.ragged.cross_hashed(
        [tf.ragged.constant([["a"], ["b", "c"]])], 4), []),
    "ragged.map_flat_values": lambda: (tf.ragged.map_flat_values(
        tf.math.square, tf.ragged.constant([[1.0], [2.0, 3.0]])), []),
    "ragged.range": lambda: (tf.ragged.range([2, 3]), []),
    "ragged.row_splits_to_segment_ids": lambda: (
        tf.ragged.row_splits_to_segment_ids(tf.constant([0, 2, 3], tf.int64)), []),
    "ragged.stack_dynamic_partitions": lambda: (tf.ragged.stack_dynamic_partitions(
        [1.0, 2.0, 3.0], [0, 1, 0], 2), []),
    "random.all_candidate_sampler": lambda: (tf.random.all_candidate_sampler(
        tf.constant([[1]], tf.int64), 1, 4, True), []),
    "random.categorical": lambda: (tf.random.categorical(_img((2, 3)), 4), []),
    "random.stateless_categorical": lambda: (tf.random.stateless_categorical(
        _img((2, 3)), 4, [1, 2]), []),
    "random.fixed_unigram_candidate_sampler": lambda: (
        tf.random.fixed_unigram_candidate_sampler(tf.constant([[1]], tf.int64), 1, 2, True, 4,
                                                  unigrams=[1.0] * 4), []),
    "random.learned_unigram_candidate_sampler": lambda: (
        tf.random.learned_unigram_candidate_sampler(tf.constant([[1]], tf.int64), 1, 2, True,
                                                    4), []),
    "random.log_uniform_candidate_sampler": lambda: (tf.random.log_uniform_candidate_sampler(
        tf.constant([[1]], tf.int64), 1, 2, True, 4), []),
    "random.uniform_candidate_sampler": lambda: (tf.random.uniform_candidate_sampler(
        tf.constant([[1]], tf.int64), 1, 2, True, 4), []),
    "random.fold_in": lambda: (tf.random.fold_in([1, 2], 3), []),
    "signal.fft3d": lambda: (tf.signal.fft3d(tf.complex(_img((2, 4, 4)), 0.0)), []),
    "signal.ifft3d": lambda: (tf.signal.ifft3d(tf.complex(_img((2, 4, 4)), 0.0)), []),
    "signal.irfft3d": lambda x=_img((2, 4, 3)): (tf.signal.irfft3d(tf.complex(x, 0.0)), [x]),
    "signal.hamming_window": lambda: (tf.signal.hamming_window(8), []),
    "signal.hann_window": lambda: (tf.signal.hann_window(8), []),
    "signal.kaiser_window": lambda: (tf.signal.kaiser_window(8), []),
    "signal.kaiser_bessel_derived_window": lambda: (
        tf.signal.kaiser_bessel_derived_window(8), []),
    "signal.vorbis_window": lambda: (tf.signal.vorbis_window(8), []),
    "signal.inverse_stft_window_fn": lambda: (
        tf.signal.inverse_stft_window_fn(2)(8, tf.float32), []),
    "sparse.concat": lambda: (tf.sparse.concat(0, [_sp(), _sp()]), []),
    "sparse.cross": lambda: (tf.sparse.cross([_sps(), _sps()]), []),
    "sparse.cross_hashed": lambda: (tf.sparse.cross_hashed([_sps(), _sps()], 4), []),
    "sparse.fill_empty_rows": lambda: (tf.sparse.fill_empty_rows(_sp(), 0.0), []),
    "sparse.map_values": lambda: (tf.sparse.map_values(tf.math.square, _sp()), []),
    "sparse.mask": lambda: (tf.sparse.mask(tf.IndexedSlices(
        _img((2, 3)), tf.constant([0, 1])), tf.constant([1])), []),
    "sparse.reshape": lambda: (tf.sparse.reshape(_sp(), [3, 2]), []),
    "sparse.retain": lambda: (tf.sparse.retain(_sp(), [True, False, True]), []),
    "sparse.segment_mean": lambda x=_img((4, 3)): (tf.sparse.segment_mean(
        x, [0, 2], [0, 1]), [x]),
    "sparse.segment_sqrt_n": lambda x=_img((4, 3)): (tf.sparse.segment_sqrt_n(
        x, [0, 2], [0, 1]), [x]),
    "sparse.segment_sum": lambda x=_img((4, 3)): (tf.sparse.segment_sum(
        x, [0, 2], [0, 1]), [x]),
    "sparse.slice": lambda: (tf.sparse.slice(_sp(), [0, 0], [1, 2]), []),
    "sparse.sparse_dense_matmul": lambda d=_img((3, 4)): (tf.sparse.sparse_dense_matmul(
        _sp(), d), [d]),
    "sparse.split": lambda: (tf.sparse.split(_sp(), 2, 1), []),
    "sparse.to_indicator": lambda: (tf.sparse.to_indicator(_spi(), 4), []),
    "sparse.sampled_addmm": lambda a=_img((2, 3)), b=_img((3, 2)): (tf.sparse.sampled_addmm(
        tf.constant([[0, 0], [1, 1]], tf.int64), tf.constant([1.0, 2.0]), [2, 2], a, b)[1],
        [a, b]),
    "strings.format": lambda: (tf.strings.format("{}", [tf.constant(1)]), []),
    "strings.join": lambda: (tf.strings.join(["a", "b"]), []),
    "strings.ngrams": lambda: (tf.strings.ngrams(tf.constant(["a", "b", "c"]), 2), []),
    "strings.to_hash_bucket_strong": lambda: (tf.strings.to_hash_bucket_strong(
        ["a"], 4, [1, 2]), []),
    "strings.unsorted_segment_join": lambda: (tf.strings.unsorted_segment_join(
        ["a", "b"], [0, 0], 1), []),
}


def _call_and_differentiate(make):
  """Calls make() inside a tape watching the tensors it differentiates
  (made as constants by its defaults: watched by re-making them here)."""
  params = inspect.signature(make).parameters
  defaults = {n: p.default for n, p in params.items()}
  with tf.GradientTape() as tape:
    for t in defaults.values():
      tape.watch(t)
    out, wrt = make(**defaults)
    flat = [t for t in tf.nest.flatten(out, expand_composites=True)
            if isinstance(t, tf.Tensor) and t.dtype.is_floating]
    loss = tf.add_n([tf.reduce_sum(t) for t in flat]) if flat and wrt else None
  if loss is not None:
    gradient(tape, loss, wrt)
  return out


# tf.io's image functions are tf.image's.
for _name in ("decode_and_crop_jpeg", "decode_bmp", "decode_gif", "decode_image", "decode_jpeg",
              "decode_png", "decode_webp", "decode_jxl", "encode_jpeg", "encode_png",
              "extract_jpeg_shape"):
  EXPLICIT["io." + _name] = EXPLICIT["image." + _name]


def functions(census):
  profiles = candidate_values()
  for module_name in FUNCTION_MODULES:
    module = getattr(tf, module_name)
    for name, fn in sorted(inspect.getmembers(module)):
      item = f"{module_name}.{name}"
      if name.startswith("_") or inspect.isclass(fn) or inspect.ismodule(fn) or not callable(fn):
        continue
      if item in SKIP_FUNCTIONS:
        continue
      try:
        inspect.signature(fn)
      except (TypeError, ValueError):
        continue
      if item in EXPLICIT:
        census.run("functions", item, lambda item=item: traced_ops(
            lambda: _call_and_differentiate(EXPLICIT[item])))
        continue
      errors = []
      for main in profiles:
        try:
          ops = function_ops(fn, main)
        except Exception as e:  # noqa: BLE001: the next profile may suit it
          errors.append(e)
          continue
        census.add("functions", item, ops)
        break
      else:
        census.fail("functions", item, errors[0])
    print(f"functions: tf.{module_name} done", file=sys.stderr, flush=True)


def main():
  parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
  parser.add_argument("--out", required=True)
  parser.add_argument("--sources", default=",".join(SOURCES))
  args = parser.parse_args()
  # Seeded: random layers choose among graphs (an augmentation's branches)
  # at trace time, and the census should be the same every run.
  import keras
  keras.utils.set_random_seed(0)
  census = Census()
  for source in args.sources.split(","):
    t = time.time()
    globals()[source](census)
    print(f"{source}: {len(census.built[source])} built, {len(census.failed[source])} not, "
          f"{time.time() - t:.0f} s", file=sys.stderr, flush=True)
  census.write(args.out)
  print(f"{len(census.uses)} ops", file=sys.stderr)
  return 0


if __name__ == "__main__":
  sys.exit(main())
