"""Keras applications as TensorFlow 1 training graphs: each model of
tf_keras.applications (weights=None, 10 classes, the smallest input of
SIZES it accepts, a batch of 4), built by TensorFlow 2.21 into a .meta with
a global step, a cross-entropy loss, a plain SGD train op (batch norm's
moving averages updated with it) and a Saver, saved before any step. minigraph
then

  - runs its inference output (training=False) on a fed batch, which must
    match TensorFlow's, and
  - trains it three steps with `train --graph` from the .meta, resuming from
    TensorFlow's checkpoint at step 0 and saving after each step; TensorFlow
    takes each step again from minigraph's checkpoint of the step before,
    and the updates must agree (within the bounds below; batch norm's
    moving averages, dropout and stochastic depth included: the random ops
    draw TensorFlow's numbers for the graph's seeds).

One model of each architecture by default, the smallest (about 5 minutes
here); MG_APPLICATIONS=all runs all 71 of tf_keras (long: TensorFlow alone
took 19 minutes here to build 57 of them and step each three times at 32
pixels, batch 2; ConvNeXtXLarge has 350M parameters), or a comma-separated
list names some."""

import os

# tf_keras (Keras 2) builds TensorFlow 1 graphs; Keras 3 does not.
os.environ["TF_USE_LEGACY_KERAS"] = "1"

import shutil  # noqa: E402
import tempfile  # noqa: E402
import time  # noqa: E402
import unittest  # noqa: E402

import numpy as np  # noqa: E402

import interop  # noqa: E402
import models  # noqa: E402
from interop import tf  # noqa: E402

v1 = tf.compat.v1

# The smallest model of each architecture.
DEFAULT = ("ConvNeXtTiny", "DenseNet121", "EfficientNetB0", "EfficientNetV2B0",
           "InceptionResNetV2", "InceptionV3", "MobileNet", "MobileNetV2", "MobileNetV3Small",
           "NASNetMobile", "RegNetX002", "RegNetY002", "ResNet50", "ResNet50V2", "ResNetRS50",
           "VGG16", "Xception")
# Applications minigraph does not run yet, each with what stops it (a
# substring of the first problem). One that starts to pass fails the test
# until its line goes; docs/tf_interop.md lists the same.
KNOWN_GAPS = {}
STEPS = 3
BATCH = 4
# The smallest input each model takes from these: at 64 x 64 the last
# feature maps of the stride-32 models are 2 x 2, so batch norm's batch
# statistics are over 16 values, not 2.
SIZES = (64, 75, 224, 331)
# Small steps: the second and third stay near the first's point.
LEARNING_RATE = 0.0001
# A step's update (new values minus the ones both started from) must point
# TensorFlow's way and be as long, within these, for the whole model and,
# more loosely, for each variable. Steps are compared one at a time, each
# from minigraph's checkpoint of the step before, because these random
# networks on random inputs are chaotic: TensorFlow against itself, from
# variables 1e-6 apart, updates some of ResNetRS50's variables at cosines
# down to 0.54 after one step, and ResNet50's at 0.5 after two. Rounding
# pushes less, but single variables still wander: at this learning rate
# minigraph against TensorFlow has shown per-variable cosines down to
# 0.9966 and lengths 3.1% apart, and the whole model's update a cosine of
# 0.99945 (InceptionV3, the most sensitive); at 0.001, one variable of
# InceptionV3 once fell to 0.967. A wrong gradient of any layer type moves
# many variables and falls far below these.
MIN_COSINE = 0.9
MAX_NORM_RATIO = 0.1
MIN_MODEL_COSINE = 0.995
MAX_MODEL_NORM_RATIO = 0.02
# An update this small against its variable (a convolution's bias before
# batch norm, whose gradient is zero but for rounding) counts in the
# model's update only.
NEGLIGIBLE = 1e-5
# The inference outputs: softmax probabilities through the whole network.
OUT_RTOL, OUT_ATOL = 1e-4, 1e-6


def names():
    import tf_keras
    every = sorted(n for n in dir(tf_keras.applications)
                   if n[:1].isupper() and callable(getattr(tf_keras.applications, n)))
    chosen = os.environ.get("MG_APPLICATIONS", "")
    if chosen == "all":
        return every
    if chosen:
        unknown = set(chosen.split(",")) - set(every)
        if unknown:
            raise ValueError(f"MG_APPLICATIONS names no application: {sorted(unknown)}")
        return chosen.split(",")
    return list(DEFAULT)


class Application:
    """Application `name` built under directory d: the .meta, its logdir
    with TensorFlow's checkpoint at step 0, the inference output
    TensorFlow computes for a fed batch, and a session on the graph for
    steps from minigraph's checkpoints."""

    def __init__(self, name, d):
        import tf_keras
        ctor = getattr(tf_keras.applications, name)
        self.graph = tf.Graph()
        with self.graph.as_default():
            v1.set_random_seed(7)
            for size in SIZES:
                try:
                    model = ctor(weights=None, input_shape=(size, size, 3), classes=10)
                    break
                except ValueError as e:  # too small an input for this model
                    last = e
            else:
                raise last
            rng = np.random.default_rng(1)
            x = tf.constant(rng.standard_normal((BATCH, size, size, 3)).astype(np.float32))
            y = tf.constant(rng.integers(0, 10, BATCH), tf.int64)
            global_step = v1.train.get_or_create_global_step()
            # The training call's batch norm updates: ops it made, run with
            # the train op as TensorFlow 1's UPDATE_OPS would be.
            before = set(self.graph.get_operations())
            probs = model(x, training=True)
            updates = [op for op in self.graph.get_operations()
                       if op not in before and op.type in ("AssignSubVariableOp",
                                                           "AssignVariableOp")]
            loss = tf.reduce_mean(tf_keras.losses.sparse_categorical_crossentropy(y, probs))
            with tf.control_dependencies(updates):
                self.train_op = v1.train.GradientDescentOptimizer(LEARNING_RATE).minimize(
                    loss, global_step=global_step)
            images = v1.placeholder(tf.float32, [None, size, size, 3], name="images")
            inference = tf.identity(model(images, training=False), name="inference")
            v1.add_to_collection("train_op", self.train_op)
            v1.add_to_collection("losses", loss)
            self.saver = v1.train.Saver()
            self.variables = v1.global_variables()
            self.logdir = os.path.join(d, "logdir")
            self.meta = os.path.join(d, "model.meta")
            feed = rng.standard_normal((2, size, size, 3)).astype(np.float32)
            # One thread and deterministic kernels: TensorFlow's step is the
            # same from run to run, as minigraph's `train` (one thread) is.
            self.session = v1.Session(config=v1.ConfigProto(
                intra_op_parallelism_threads=1, inter_op_parallelism_threads=1))
            self.session.run(v1.global_variables_initializer())
            self.checkpoint = self.saver.save(self.session, os.path.join(self.logdir, "model.ckpt"),
                                              global_step=0, write_meta_graph=False)
            self.saver.export_meta_graph(self.meta)
            self.feeds = {images.name: feed}
            self.outputs = {inference.name: self.session.run(inference, {images: feed})}

    def step_from(self, checkpoint):
        """TensorFlow's variables after one step from `checkpoint`, in this
        session (its random ops' state carried from the step before)."""
        with self.graph.as_default():
            self.saver.restore(self.session, checkpoint)
            self.session.run(self.train_op)
            return {v.op.name: value for v, value in
                    zip(self.variables, self.session.run(self.variables))}

    def close(self):
        self.session.close()


def differences(want, got, rtol, atol):
    """What differs between two {name: value} maps, as text lines."""
    out = []
    for key in sorted(want):
        if key not in got:
            out.append(f"{key}: missing")
            continue
        a, b = np.asarray(want[key]), np.asarray(got[key])
        if a.shape != b.shape:
            out.append(f"{key}: shape {b.shape} where TensorFlow has {a.shape}")
        elif not np.allclose(a, b, rtol=rtol, atol=atol):
            err = np.max(np.abs(a.astype(np.float64) - b.astype(np.float64)))
            out.append(f"{key}: max abs difference {err:.3g} (rtol {rtol}, atol {atol})")
    return out


def update_differences(start, want, got, worst):
    """What differs between TensorFlow's (`want`) and minigraph's (`got`)
    updates of each variable from `start`, as text lines; `worst` keeps the
    lowest cosine and the largest length difference seen."""
    out = []
    dot = sq_want = sq_got = 0.0
    for key in sorted(want):
        if key not in got or np.shape(got[key]) != np.shape(want[key]):
            out.append(f"{key}: missing or misshapen")
            continue
        x0 = np.asarray(start[key], np.float64).ravel()
        a = np.asarray(want[key], np.float64).ravel() - x0
        b = np.asarray(got[key], np.float64).ravel() - x0
        na, nb = np.linalg.norm(a), np.linalg.norm(b)
        dot, sq_want, sq_got = dot + a @ b, sq_want + na * na, sq_got + nb * nb
        if na <= NEGLIGIBLE * max(np.linalg.norm(x0), 1.0):
            continue
        cosine = float(a @ b / (na * nb)) if nb > 0 else 0.0
        worst["cosine"] = min(worst["cosine"], cosine)
        worst["norm"] = max(worst["norm"], abs(nb / na - 1))
        if cosine < MIN_COSINE or abs(nb / na - 1) > MAX_NORM_RATIO:
            out.append(f"{key}: update's cosine {cosine:.4f}, norm {nb / na:.4f} of "
                       "TensorFlow's")
    if sq_want > 0:
        cosine = dot / np.sqrt(sq_want * sq_got) if sq_got > 0 else 0.0
        ratio = np.sqrt(sq_got / sq_want)
        worst["model"] = min(worst["model"], cosine)
        if cosine < MIN_MODEL_COSINE or abs(ratio - 1) > MAX_MODEL_NORM_RATIO:
            out.append(f"the model's update: cosine {cosine:.5f}, norm {ratio:.4f} of "
                       "TensorFlow's")
    return out


def check(name, root):
    """Application `name`'s problems (text lines) and TensorFlow's and
    minigraph's times."""
    t = time.time()
    app = Application(name, root)
    tf_time = time.time() - t
    try:
        t = time.time()
        model = models.Model(name=name, kind="meta", path=app.meta, checkpoint=app.checkpoint,
                             feeds=app.feeds, want=app.outputs)
        wrong = differences(app.outputs, models.run_in_minigraph(model, root), OUT_RTOL, OUT_ATOL)
        p = interop.run([interop.binary("train"), f"--graph={app.meta}", f"--logdir={app.logdir}",
                         f"--steps={STEPS}", "--save_every=1", "--log_every=1"])
        mg_time = time.time() - t
        if "restored step 0" not in p.stdout:
            wrong.append(f"train did not resume from step 0: {p.stdout[-300:]}")
        t = time.time()
        previous = app.checkpoint
        worst = {"cosine": 1.0, "norm": 0.0, "model": 1.0}
        for step in range(1, STEPS + 1):
            mine = os.path.join(app.logdir, f"model.ckpt-{step}")
            want = app.step_from(previous)
            wrong += [f"step {step}: {w}" for w in update_differences(
                interop.tensorflow_read(previous), want, interop.tensorflow_read(mine), worst)]
            previous = mine
        tf_time += time.time() - t
    finally:
        app.close()
    return wrong, tf_time, mg_time, worst


class ApplicationsInterop(unittest.TestCase):
    def test_applications(self):
        rows, problems = [], []
        for name in names():
            root = tempfile.mkdtemp()
            try:
                wrong, tf_time, mg_time, worst = check(name, root)
                status = (f"passes (the model's updates' cosines >= {worst['model']:.5f}; "
                          f"each variable's >= {worst['cosine']:.4f}, lengths within "
                          f"{100 * worst['norm']:.1f}%)" if not wrong
                          else f"{len(wrong)} differ: {wrong[0]}")
                rows.append(f"| {name} | {tf_time:.0f} s | {mg_time:.0f} s | {status} |")
            except AssertionError as e:  # a minigraph binary failed
                text = str(e)
                at = text.find("model_runner: ")
                if at < 0:
                    at = text.find("train: ")
                wrong = [text[at:].splitlines()[0] if at >= 0 else text[-600:]]
                rows.append(f"| {name} | | | {wrong[0]} |")
            finally:
                shutil.rmtree(root)
            gap = KNOWN_GAPS.get(name)
            if gap is None:
                problems += [f"{name}: {w}" for w in wrong]
            elif not wrong or gap not in wrong[0]:
                problems.append(f"{name}: known gap '{gap}' but: "
                                f"{wrong[0] if wrong else 'passes'}")
            print(rows[-1], flush=True)
        print("| model | TensorFlow | minigraph | result |")
        for row in rows:
            print(row)
        self.assertEqual(problems, [])


if __name__ == "__main__":
    unittest.main(verbosity=2)
