"""`train --graph`: a model written in Python with tf.compat.v1 (its own
tf.data pipeline over TFRecord files of tf.Examples, a global step, a loss in
the "losses" collection, a train op, a summary, a Saver), exported as a
.meta and trained by minigraph's `train` with no Python at run time: alone,
killed and restarted, and as a ps and two workers. TensorFlow trains the same
graph on the same files, and reads what minigraph saved."""

import os
import signal
import subprocess
import tempfile
import time
import unittest

import interop
import numpy as np
import regression_model
import tensorflow as tf
from tensorboard.backend.event_processing import event_accumulator

tf1 = tf.compat.v1
TRUE_W = regression_model.TRUE_W
# The model (tools/demo/regression_model.py, the demo's), in batches of 16
# at a learning rate of 0.05, its variables "w" and "b".
MODEL = dict(batch=16, learning_rate=0.05)


def write_data(path):
    regression_model.write_data(path, n=256)


def build(ps_tasks=0):
    """The model in a new graph; returns (graph, saver, nodes)."""
    return regression_model.build(ps_tasks=ps_tasks, **MODEL)


def export(path, ps_tasks=0):
    regression_model.export(path, ps_tasks=ps_tasks, **MODEL)


def tensorflow_train(data, steps):
    """TensorFlow's own run of the graph: the variables after `steps`."""
    g, _, n = build()
    with g.as_default(), tf1.Session() as s:
        s.run(tf1.global_variables_initializer())
        s.run(n["iterator"].initializer, {n["filenames"]: [data]})
        for _ in range(steps):
            s.run(n["train"])
        return {v.op.name: s.run(v) for v in tf1.global_variables()}


def build_queue_fed(data, epochs=2):
    """The same model fed as TensorFlow 1's tutorials fed one: a filename
    queue of `epochs` epochs (a local variable counts them), a
    TFRecordReader, parse_single_example and tf.train.batch, its threads
    in the graph's queue_runners collection. Returns (graph, saver, nodes)."""
    g = tf.Graph()
    with g.as_default():
        global_step = tf1.train.get_or_create_global_step()
        files = tf1.train.string_input_producer([data], num_epochs=epochs, shuffle=False)
        _, record = tf1.TFRecordReader().read(files)
        f = tf1.parse_single_example(record, {"x": tf1.FixedLenFeature([4], tf.float32),
                                              "y": tf1.FixedLenFeature([1], tf.float32)})
        x, y = tf1.train.batch([f["x"], f["y"]], batch_size=MODEL["batch"], num_threads=1)
        w = tf1.get_variable("w", [4, 1], initializer=tf1.zeros_initializer())
        b = tf1.get_variable("b", [1], initializer=tf1.zeros_initializer())
        loss = tf1.losses.mean_squared_error(y, tf.matmul(x, w) + b)
        train_op = tf1.train.GradientDescentOptimizer(MODEL["learning_rate"]).minimize(
            loss, global_step=global_step)
        tf1.add_to_collection(tf1.GraphKeys.TRAIN_OP, train_op)
        saver = tf1.train.Saver()
    return g, saver, dict(train=train_op)


class TrainGraphTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp()
        cls.data = os.path.join(cls.tmp, "data.tfrecord")
        write_data(cls.data)
        cls.meta = os.path.join(cls.tmp, "model.meta")
        export(cls.meta)

    def train(self, logdir, *flags, **kwargs):
        return interop.run([interop.binary("train"), f"--graph={self.meta}",
                            f"--input={self.data}", f"--logdir={logdir}", *flags], **kwargs)

    def test_trains_as_tensorflow_does(self):
        logdir = os.path.join(self.tmp, "alone")
        p = self.train(logdir, "--steps=200", "--save_every=50", "--summary_every=20")
        self.assertIn("initialized from scratch", p.stdout)
        self.assertIn("done: step 200", p.stdout)
        mine = interop.tensorflow_read(os.path.join(logdir, "model.ckpt-200"))
        theirs = tensorflow_train(self.data, 200)
        self.assertEqual(sorted(mine), sorted(theirs))
        self.assertEqual(int(mine["global_step"]), 200)
        for k in ("w", "b"):
            np.testing.assert_allclose(mine[k], theirs[k], rtol=1e-4, atol=1e-5, err_msg=k)
        np.testing.assert_allclose(mine["w"].ravel(), TRUE_W, atol=1e-3)
        # TensorFlow restores it into its own graph, through the graph's Saver.
        g, saver, n = build()
        with g.as_default(), tf1.Session() as s:
            saver.restore(s, os.path.join(logdir, "model.ckpt-200"))
            s.run(n["iterator"].initializer, {n["filenames"]: [self.data]})
            self.assertLess(s.run(n["loss"]), 1e-4)
        # TensorBoard draws the graph's own summary.
        acc = event_accumulator.EventAccumulator(logdir)
        acc.Reload()
        steps = [e.step for e in acc.Scalars("loss")]
        self.assertEqual(steps, [1, 21, 41, 61, 81, 101, 121, 141, 161, 181])
        self.assertLess(acc.Scalars("loss")[-1].value, acc.Scalars("loss")[0].value)

    def test_killed_and_restarted_it_resumes_from_its_checkpoint(self):
        logdir = os.path.join(self.tmp, "killed")
        p = subprocess.Popen([interop.binary("train"), f"--graph={self.meta}",
                              f"--input={self.data}", f"--logdir={logdir}",
                              "--steps=100000000", "--save_every=50"],
                             stdout=subprocess.PIPE, text=True)
        for line in p.stdout:
            if line.startswith("saved checkpoint at step 100"):
                break
        p.send_signal(signal.SIGKILL)
        p.wait()
        p = self.train(logdir, "--steps=300", "--save_every=50")
        self.assertRegex(p.stdout, r"restored step (1\d\d|[2-9]\d\d)")
        self.assertIn("done: step 300", p.stdout)
        mine = interop.tensorflow_read(os.path.join(logdir, "model.ckpt-300"))
        np.testing.assert_allclose(mine["w"].ravel(), TRUE_W, atol=1e-3)

    def test_a_ps_and_two_workers_train_it(self):
        meta = os.path.join(self.tmp, "model_ps.meta")
        export(meta, ps_tasks=1)
        ports = interop.listen_ports(3)
        cluster = f"ps=127.0.0.1:{ports[0]};worker=127.0.0.1:{ports[1]},127.0.0.1:{ports[2]}"
        logdir = os.path.join(self.tmp, "cluster")
        common = [interop.binary("train"), f"--cluster={cluster}", "--recovery_wait_secs=0.2"]
        ps = subprocess.Popen(common + ["--job_name=ps"], stdout=subprocess.PIPE, text=True)
        try:
            graph = [f"--graph={meta}", f"--input={self.data}", "--steps=400", "--save_every=100"]
            chief = subprocess.Popen(common + ["--job_name=worker", "--task_index=0",
                                               f"--logdir={logdir}"] + graph,
                                     stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
            worker = subprocess.Popen(common + ["--job_name=worker", "--task_index=1"] + graph,
                                      stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
            out_chief, _ = chief.communicate(timeout=300)
            out_worker, _ = worker.communicate(timeout=300)
            self.assertEqual(chief.returncode, 0, out_chief)
            self.assertEqual(worker.returncode, 0, out_worker)
            self.assertIn("worker 1 done: ran ", out_worker)
            last = int(out_chief.split("done: step ")[1].split()[0])
            self.assertGreaterEqual(last, 400)
            mine = interop.tensorflow_read(os.path.join(logdir, f"model.ckpt-{last}"))
            # The file is named for the step read when the chief saved; the
            # other worker's step in flight may still move the variable.
            self.assertIn(int(mine["global_step"]), (last, last + 1))
            np.testing.assert_allclose(mine["w"].ravel(), TRUE_W, atol=1e-3)
        finally:
            ps.send_signal(signal.SIGTERM)
            ps.wait(timeout=60)

    def test_a_saved_models_training_graph_starts_from_its_variables(self):
        export_dir = os.path.join(self.tmp, "saved_model")
        g, saver, n = build()
        with g.as_default(), tf1.Session() as s:
            s.run(tf1.global_variables_initializer())
            w = [v for v in tf1.global_variables() if v.op.name == "w"][0]
            b = [v for v in tf1.global_variables() if v.op.name == "b"][0]
            w.load(TRUE_W.reshape(4, 1), s)
            b.load([1.0], s)
            builder = tf1.saved_model.Builder(export_dir)
            builder.add_meta_graph_and_variables(s, [tf1.saved_model.tag_constants.TRAINING],
                                                 saver=saver)
            builder.save()
        logdir = os.path.join(self.tmp, "from_saved_model")
        p = interop.run([interop.binary("train"), f"--graph={export_dir}", f"--input={self.data}",
                         f"--logdir={logdir}", "--steps=10"])
        self.assertIn("initialized from the SavedModel's variables", p.stdout)
        mine = interop.tensorflow_read(os.path.join(logdir, "model.ckpt-10"))
        np.testing.assert_allclose(mine["w"].ravel(), TRUE_W, atol=1e-4)
        # Restarted, it restores its own checkpoint instead.
        p = interop.run([interop.binary("train"), f"--graph={export_dir}", f"--input={self.data}",
                         f"--logdir={logdir}", "--steps=20"])
        self.assertIn("restored step 10", p.stdout)
        # A SavedModel for serving only has nothing to train.
        serving = os.path.join(self.tmp, "serving")
        g, saver, n = build()
        with g.as_default(), tf1.Session() as s:
            s.run(tf1.global_variables_initializer())
            builder = tf1.saved_model.Builder(serving)
            builder.add_meta_graph_and_variables(s, ["serve"])
            builder.save()
        p = subprocess.run([interop.binary("train"), f"--graph={serving}", f"--input={self.data}",
                            f"--logdir={logdir}_serving"], capture_output=True, text=True)
        self.assertIn(f"--graph={serving}: Could not find meta graph def matching supplied tags: "
                      f"{{ train }}. The SavedModel in {serving} has: {{ serve }}", p.stderr)

    def test_a_queue_fed_graph_trains_until_its_input_ends(self):
        g, saver, n = build_queue_fed(self.data)
        meta = os.path.join(self.tmp, "queues.meta")
        with g.as_default():
            tf1.train.export_meta_graph(meta, saver_def=saver.as_saver_def())
            # TensorFlow: its queue runners until the input ends.
            with tf1.Session() as s:
                s.run([tf1.global_variables_initializer(), tf1.local_variables_initializer()])
                coord = tf1.train.Coordinator()
                threads = tf1.train.start_queue_runners(s, coord)
                steps = 0
                try:
                    while True:
                        s.run(n["train"])
                        steps += 1
                except tf.errors.OutOfRangeError:
                    pass
                coord.request_stop()
                coord.join(threads)
                theirs = {v.op.name: s.run(v) for v in tf1.global_variables()}
        self.assertEqual(steps, 2 * 256 // MODEL["batch"])
        logdir = os.path.join(self.tmp, "queues")
        p = interop.run([interop.binary("train"), f"--graph={meta}", f"--logdir={logdir}",
                         "--steps=100000"])
        self.assertIn(f"end of input at step {steps}", p.stdout)
        mine = interop.tensorflow_read(os.path.join(logdir, f"model.ckpt-{steps}"))
        for k in ("w", "b"):
            np.testing.assert_allclose(mine[k], theirs[k], rtol=1e-5, atol=1e-6, err_msg=k)
        # A restart finds the input's epochs counted again from zero (a local
        # variable, not in the checkpoint), as TensorFlow's would: two more
        # epochs, from the checkpoint's step.
        p = interop.run([interop.binary("train"), f"--graph={meta}", f"--logdir={logdir}",
                         "--steps=100000"])
        self.assertIn(f"end of input at step {2 * steps}", p.stdout)

    def test_bad_graphs_and_flags_name_what_is_wrong(self):
        logdir = os.path.join(self.tmp, "bad")
        cases = [
            (["--input=/nonexistent/*.tfrecord"], "no file matches /nonexistent/*.tfrecord"),
            (["--train_op=nope"], "--train_op=nope: " + self.meta + " has no node nope"),
        ]
        for flags, message in cases:
            p = subprocess.run([interop.binary("train"), f"--graph={self.meta}",
                                f"--input={self.data}", f"--logdir={logdir}", *flags],
                               capture_output=True, text=True)
            self.assertNotEqual(p.returncode, 0, flags)
            self.assertIn(message, p.stderr, flags)
        p = subprocess.run([interop.binary("train"), f"--graph={self.meta}",
                            f"--logdir={logdir}"], capture_output=True, text=True)
        self.assertIn("names: give them with --input", p.stderr)
        not_meta = os.path.join(self.tmp, "not.meta")
        with open(not_meta, "wb") as f:
            f.write(b"\xff\x00garbage")
        p = subprocess.run([interop.binary("train"), f"--graph={not_meta}",
                            f"--logdir={logdir}"], capture_output=True, text=True)
        self.assertIn("is not a MetaGraphDef", p.stderr)
        p = subprocess.run([interop.binary("train"), "--loss=x", f"--logdir={logdir}"],
                           capture_output=True, text=True)
        self.assertIn("--loss=x needs --graph", p.stderr)


if __name__ == "__main__":
    unittest.main()
