"""TensorFlow 2.21's own gRPC client against minigraph's server: graphs built
in Python run on `tools/server` through tf.compat.v1.Session("grpc://..."),
and must give what TensorFlow's in-process session gives (values bit for
bit, errors with the same class); TensorFlow's Saver, SessionManager and
MonitoredTrainingSession drive it unchanged; and clusters that mix
TensorFlow's tasks with minigraph's train as clusters of one kind do."""

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import unittest

import numpy as np

import interop
from interop import tf

v1 = tf.compat.v1
v1.disable_eager_execution()


class Server:
    """A minigraph server (by default one task, /job:localhost, a free port;
    `args` name a task of a cluster) for the length of a test class."""

    def __init__(self, *args):
        self.proc = subprocess.Popen([interop.binary("server"), *args], stdout=subprocess.PIPE,
                                     stderr=subprocess.STDOUT, text=True)
        self.log = []
        self.changed = threading.Condition()
        self.reader = threading.Thread(target=self._read)
        self.reader.start()
        self.target = "grpc://" + self.wait_for(r"serving at (\S+)").group(1)

    def _read(self):
        for line in self.proc.stdout:
            with self.changed:
                self.log.append(line)
                self.changed.notify_all()
        with self.changed:
            self.log.append(None)  # the end
            self.changed.notify_all()

    def wait_for(self, pattern, start=0, timeout=120):
        """The match of the first line from `start` on that has `pattern`
        (a failure, not a hang, if none comes within `timeout` seconds)."""
        with self.changed:
            i = start
            while True:
                while i == len(self.log):
                    if not self.changed.wait(timeout):
                        raise AssertionError(f"no server line matches {pattern!r} in {timeout} s")
                if self.log[i] is None:
                    raise AssertionError("server exited:\n" + "".join(self.log[:-1]))
                m = re.search(pattern, self.log[i])
                if m:
                    return m
                i += 1

    def stop(self):
        """Stops the server (again: no-op) and returns its exit code."""
        if self.proc.returncode is None:
            self.proc.terminate()
        code = self.proc.wait(timeout=60)
        self.reader.join()
        return code


def run_both(build, target, feeds=None):
    """Builds the graph twice (build() returns the fetches and, optionally,
    a function making the feed dict) and runs it in TensorFlow's own session
    and in a session on `target`: (TensorFlow's results, minigraph's)."""
    results = []
    for where in ("", target):
        with tf.Graph().as_default():
            fetches, feed = build()
            with v1.Session(where) as sess:
                results.append(sess.run(fetches, feed))
    return results


def assert_same(test, want, got, what):
    test.assertEqual(len(want), len(got), what)
    for i, (w, g) in enumerate(zip(want, got)):
        w, g = np.asarray(w), np.asarray(g)
        test.assertEqual(w.dtype, g.dtype, f"{what}: fetch {i} dtype")
        test.assertEqual(w.shape, g.shape, f"{what}: fetch {i} shape")
        if w.dtype == object:
            test.assertEqual(w.tolist(), g.tolist(), f"{what}: fetch {i}")
        else:
            test.assertEqual(w.tobytes(), g.tobytes(), f"{what}: fetch {i} bits")


class TensorFlowClientMinigraphServer(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.server = Server()
        cls.target = cls.server.target

    @classmethod
    def tearDownClass(cls):
        code = cls.server.stop()
        assert code == 0, "server exit code %d:\n%s" % (code, "".join(cls.server.log))

    def setUp(self):
        self.dir = tempfile.mkdtemp()
        self.rng = np.random.default_rng(37)
        # Variables outlive sessions on a server, as on TensorFlow's; each
        # test starts from none.
        v1.Session.reset(self.target)

    def tearDown(self):
        shutil.rmtree(self.dir)

    def test_feeds_and_fetches_of_every_dtype(self):
        values = {k: v for k, v in interop.edge_values(self.rng).items()}

        def build():
            feeds, fetches = {}, []
            for name, value in sorted(values.items()):
                value = np.asarray(value)
                dtype = tf.string if value.dtype == object else tf.as_dtype(value.dtype)
                p = v1.placeholder(dtype, None, name=name)
                feeds[p] = value
                fetches += [tf.identity(p), tf.shape(p), tf.constant(value)]
            return fetches, feeds
        want, got = run_both(build, self.target)
        assert_same(self, want, got, "identity, shape and constant of every dtype")

    def test_computation_and_variables(self):
        x0 = self.rng.standard_normal((4, 3)).astype(np.float32)

        def build():
            x = v1.placeholder(tf.float32, [None, 3])
            w = v1.get_variable("w", initializer=tf.constant(
                np.arange(6, dtype=np.float32).reshape(3, 2)), use_resource=False)
            r = v1.get_variable("r", initializer=tf.constant([1.5, -2.0]), use_resource=True)
            y = tf.nn.relu(tf.matmul(x, w) + r)
            loss = tf.reduce_mean(tf.square(y))
            step = v1.train.GradientDescentOptimizer(0.1).minimize(loss)
            init = v1.global_variables_initializer()
            return [init, loss, y, step, w, r.read_value(), loss], {x: x0}

        # One run: the initializer, then a step, fetched together, as
        # TensorFlow's own session would order them is not defined; run in
        # stages instead.
        results = []
        for where in ("", self.target):
            with tf.Graph().as_default():
                fetches, feed = build()
                init, loss, y, step, w, r, _ = fetches
                with v1.Session(where) as sess:
                    sess.run(init)
                    before = sess.run([loss, y], feed)
                    for _ in range(3):
                        sess.run(step, feed)
                    results.append(before + sess.run([w, r, loss], feed))
        want, got = results
        for i in range(len(want)):
            np.testing.assert_allclose(got[i], want[i], rtol=1e-5, atol=1e-6)

    def test_saver_runs_on_the_server(self):
        path = os.path.join(self.dir, "model.ckpt")
        w0 = self.rng.standard_normal((5, 3)).astype(np.float32)
        with tf.Graph().as_default():
            w = v1.get_variable("w", initializer=tf.constant(w0), use_resource=False)
            n = v1.get_variable("n", initializer=tf.constant(7, tf.int64), use_resource=True)
            saver = v1.train.Saver()
            with v1.Session(self.target) as sess:
                sess.run(v1.global_variables_initializer())
                saved = saver.save(sess, path, global_step=3)
                sess.run([w.assign(tf.zeros_like(w)), n.assign(0)])
                saver.restore(sess, saved)
                got = sess.run([w, n])
        self.assertEqual(saved, path + "-3")
        self.assertEqual(tf.train.latest_checkpoint(self.dir), saved)
        np.testing.assert_array_equal(got[0], w0)
        self.assertEqual(got[1], 7)
        read = interop.tensorflow_read(saved)
        np.testing.assert_array_equal(read["w"], w0)
        self.assertEqual(read["n"], 7)

    def test_errors_have_tensorflows_classes(self):
        cases = [
            # A reshape to a shape of another size.
            (lambda: (tf.reshape(v1.placeholder(tf.float32, None), [2]),
                      lambda p: {p.op.inputs[0]: np.zeros(3, np.float32)}),
             tf.errors.InvalidArgumentError),
            # A kernel's own error: a matrix product of mismatched shapes.
            (lambda: (tf.matmul(v1.placeholder(tf.float32, None), tf.ones([3, 3])),
                      lambda p: {p.op.inputs[0]: np.zeros((2, 2), np.float32)}),
             tf.errors.InvalidArgumentError),
            # An uninitialized variable.
            (lambda: (v1.get_variable("u", [2], use_resource=False) + 1.0, lambda p: {}),
             tf.errors.FailedPreconditionError),
            # A failed assertion.
            (lambda: (_assert_positive(v1.placeholder(tf.float32, None)),
                      lambda p: {p.op.inputs[0]: np.float32(-1)}),
             tf.errors.InvalidArgumentError),
        ]
        for i, (build, error) in enumerate(cases):
            for where in ("", self.target):
                with self.subTest(case=i, target=where or "in-process"), \
                        tf.Graph().as_default():
                    fetch, feed = build()
                    with v1.Session(where) as sess:
                        with self.assertRaises(error):
                            sess.run(fetch, feed(fetch))

    def test_a_graph_with_functions_grows_after_its_first_run(self):
        # TensorFlow's client sends the whole function library again with
        # each ExtendSession, its maps in whatever order they serialize in:
        # the server takes the functions it has already, as TensorFlow's does.
        def build_and_grow(target):
            with tf.Graph().as_default():
                x = tf.constant(1)
                y = tf.cond(x > 0, lambda: x + 1, lambda: x - 1)
                v = tf.Variable(tf.cond(x > 5, lambda: 2.0, lambda: 3.0))
                with v1.Session(target) as sess:
                    got = [sess.run(y)]
                    z = tf.constant(5)
                    got.append(sess.run(z))
                    w = y * z
                    sess.run(v.initializer)
                    got += sess.run([w, v])
                    return got
        self.assertEqual(build_and_grow(""), [2, 5, 10, 3.0])
        self.assertEqual(build_and_grow(self.target), [2, 5, 10, 3.0])

    def test_run_options_partial_runs_and_reset_of_containers(self):
        from tensorflow.python.ops import control_flow_v2_toggles as toggles
        # A step past RunOptions.timeout_in_ms: DeadlineExceeded, as in
        # TensorFlow's session (a TensorFlow 1 loop of 2e9 iterations).
        toggles.disable_control_flow_v2()
        try:
            for where in ("", self.target):
                with self.subTest(target=where or "in-process"), tf.Graph().as_default():
                    i = v1.while_loop(lambda i: i < 2000000000, lambda i: i + 1,
                                      [tf.constant(0)])
                    with v1.Session(where) as sess:
                        with self.assertRaises(tf.errors.DeadlineExceededError):
                            sess.run(i, options=v1.RunOptions(timeout_in_ms=300))
        finally:
            toggles.enable_control_flow_v2()
        with tf.Graph().as_default():
            a = v1.placeholder(tf.float32, [])
            b = a * 2
            with v1.Session(self.target) as sess:
                # Partial runs: TensorFlow's Unimplemented status.
                with self.assertRaisesRegex(tf.errors.UnimplementedError,
                                            "partial runs are not supported"):
                    sess.partial_run_setup([b], [a])
                self.assertEqual(sess.run(b, {a: 2.0}), 4.0, "the session goes on")
        # Reset of one container clears its variables only.
        with tf.Graph().as_default():
            with v1.container("c1"):
                x = v1.get_variable("x", initializer=1.0, use_resource=False)
            y = v1.get_variable("y", initializer=2.0, use_resource=False)
            with v1.Session(self.target) as sess:
                sess.run([x.initializer, y.initializer])
            v1.Session.reset(self.target, ["c1"])
            with v1.Session(self.target) as sess:
                self.assertEqual(sess.run(y), 2.0)
                with self.assertRaises(tf.errors.FailedPreconditionError):
                    sess.run(x)

    def test_a_full_trace_returns_step_stats_tensorflows_timeline_reads(self):
        with tf.Graph().as_default():
            a = v1.placeholder(tf.float32, [2, 3], name="a")
            w = v1.get_variable("w", initializer=tf.ones([3, 4]), use_resource=False)
            y = tf.nn.relu(tf.matmul(a, w, name="product"), name="y")
            with v1.Session(self.target) as sess:
                sess.run(w.initializer)
                feed = {a: np.ones((2, 3), np.float32)}
                for level in (v1.RunOptions.NO_TRACE, v1.RunOptions.SOFTWARE_TRACE):
                    meta = v1.RunMetadata()
                    sess.run(y, feed, options=v1.RunOptions(trace_level=level),
                             run_metadata=meta)
                    self.assertEqual(len(meta.step_stats.dev_stats), 0,
                                     "TensorFlow's master traces FULL_TRACE steps only")
                meta = v1.RunMetadata()
                sess.run(y, feed, options=v1.RunOptions(trace_level=v1.RunOptions.FULL_TRACE),
                         run_metadata=meta)
        (dev,) = meta.step_stats.dev_stats
        self.assertEqual(dev.device, "/job:localhost/replica:0/task:0/device:CPU:0")
        nodes = {n.node_name: n for n in dev.node_stats}
        for name in ("w", "product", "y"):
            self.assertIn(name, nodes)
        self.assertEqual(nodes["product"].timeline_label, "product = MatMul(a, w/read)")
        out = nodes["product"].output[0].tensor_description
        self.assertEqual((out.dtype, [d.size for d in out.shape.dim]), (tf.float32, [2, 4]))
        self.assertEqual(out.allocation_description.requested_bytes, 2 * 4 * 4)
        # TensorFlow's timeline module makes its Chrome trace of them: one
        # complete event per node, named by its op, with the node's name.
        from tensorflow.python.client import timeline
        trace = json.loads(timeline.Timeline(meta.step_stats).generate_chrome_trace_format(
            show_dataflow=True, show_memory=True))
        events = {e["args"]["name"]: e for e in trace["traceEvents"]
                  if e.get("ph") == "X"}
        self.assertEqual(events["product"]["name"], "MatMul")
        self.assertEqual(events["y"]["name"], "Relu")
        self.assertGreaterEqual(events["y"]["ts"], events["product"]["ts"])
        # Its memory view: each output a tensor object, with its description.
        snapshots = {e["name"]: e["args"]["snapshot"]["tensor_description"]
                     for e in trace["traceEvents"] if e.get("ph") == "O"}
        self.assertIn("requested_bytes: 32", snapshots["product"])

    def test_what_minigraph_does_not_model_is_refused_by_name(self):
        # A graph holding an op minigraph has no kernel for (Abort, which
        # would end the server's process) imports, and what does not need it
        # runs; a step that needs it fails NotFound naming the node and op.
        with tf.Graph().as_default():
            abort = tf.raw_ops.Abort(error_msg="stop", name="stop_everything")
            two = tf.constant(2.0)
            with v1.Session(self.target) as sess:
                self.assertEqual(sess.run(two), 2.0)
                with self.assertRaisesRegex(
                        tf.errors.NotFoundError,
                        r"no kernel registered for op Abort \(node 'stop_everything'\)"):
                    sess.run(abort)
                self.assertEqual(sess.run(two), 2.0)
        with tf.Graph().as_default():
            c = tf.constant(1.0, name="c")
            with v1.Session(self.target) as sess:
                # tfdbg's tensor watches (RunOptions.debug_options, which
                # TensorFlow's server honours by writing dumps).
                watch = v1.RunOptions()
                watch.debug_options.debug_tensor_watch_opts.add(
                    node_name="c", debug_ops=["DebugIdentity"],
                    debug_urls=["file://" + os.path.join(self.dir, "dumps")])
                with self.assertRaisesRegex(tf.errors.UnimplementedError,
                                            "RunOptions.debug_options watches c:0 into file://"):
                    sess.run(c, options=watch)
                # A watch with nowhere to write does nothing, as on
                # TensorFlow's server.
                idle = v1.RunOptions()
                idle.debug_options.debug_tensor_watch_opts.add(node_name="c",
                                                               debug_ops=["DebugIdentity"])
                self.assertEqual(sess.run(c, options=idle), 1.0)
                # The partition graphs come back when asked for, as
                # TensorFlow's do: here one, holding the fetched node.
                meta = v1.RunMetadata()
                self.assertEqual(sess.run(c, options=v1.RunOptions(output_partition_graphs=True),
                                          run_metadata=meta), 1.0)
                self.assertEqual(len(meta.partition_graphs), 1)
                self.assertIn("c", [n.name for n in meta.partition_graphs[0].node])
                # Options that only tune TensorFlow's own scheduling run.
                tuned = v1.RunOptions(inter_op_thread_pool=0)
                tuned.experimental.collective_graph_key = 7
                self.assertEqual(sess.run(c, options=tuned), 1.0)
                # Dtypes beyond the numeric ones, fed and fetched.
                p = v1.placeholder(tf.complex128, [2])
                np.testing.assert_array_equal(
                    sess.run(tf.identity(p), {p: [1 + 2j, 3 - 4j]}), [1 + 2j, 3 - 4j])

    def test_session_manager_and_monitored_training_session(self):
        # TensorFlow's own SessionManager and MonitoredTrainingSession,
        # unchanged, against the server: initialize, train, checkpoint,
        # then a second session restores the checkpoint.
        logdir = os.path.join(self.dir, "train")
        x0 = self.rng.standard_normal((8, 4)).astype(np.float32)
        y0 = (x0.sum(axis=1, keepdims=True) > 0).astype(np.float32)
        losses = []
        for attempt in range(2):
            with tf.Graph().as_default():
                step = v1.train.get_or_create_global_step()
                x = tf.constant(x0)
                w = v1.get_variable("w", [4, 1], initializer=v1.zeros_initializer())
                loss = tf.reduce_mean(tf.nn.sigmoid_cross_entropy_with_logits(
                    labels=tf.constant(y0), logits=tf.matmul(x, w)))
                train = v1.train.AdamOptimizer(0.1).minimize(loss, global_step=step)
                with v1.train.MonitoredTrainingSession(
                        master=self.target, is_chief=True, checkpoint_dir=logdir,
                        save_checkpoint_steps=5, save_summaries_steps=None,
                        log_step_count_steps=None,
                        hooks=[v1.train.StopAtStepHook(last_step=10 * (attempt + 1))]) as sess:
                    first = sess.run(step)
                    while not sess.should_stop():
                        _, l = sess.run([train, loss])
                    losses.append((first, l))
        self.assertEqual(losses[0][0], 0)
        self.assertEqual(losses[1][0], 10, "the second session restores step 10")
        self.assertLess(losses[1][1], losses[0][1])
        self.assertEqual(tf.train.latest_checkpoint(logdir), os.path.join(logdir, "model.ckpt-20"))

        with tf.Graph().as_default():
            w = v1.get_variable("w", [4, 1])
            ready = v1.report_uninitialized_variables()
            manager = v1.train.SessionManager(ready_op=ready)
            sess = manager.prepare_session(self.target, saver=v1.train.Saver(),
                                           checkpoint_dir=logdir)
            restored = sess.run(w)
            sess.close()
        np.testing.assert_array_equal(restored, interop.tensorflow_read(
            os.path.join(logdir, "model.ckpt-20"))["w"])


def free_ports(n):
    return [f"127.0.0.1:{port}" for port in interop.listen_ports(n)]


TASK = os.path.join(os.path.dirname(os.path.abspath(__file__)), "tf_cluster_task.py")


def start_task(test, kind, job, ps, worker):
    """Starts /job:JOB/task:0 of the cluster ps=PS;worker=WORKER, of `kind`
    (tensorflow or minigraph), until the test ends; returns its process once
    it serves."""
    if kind == "tensorflow":
        args = [sys.executable, TASK, "ps" if job == "ps" else "worker_server", ps, worker]
        ready = "serving"
    else:
        args = [interop.binary("server"), f"--cluster=ps={ps};worker={worker}",
                f"--job_name={job}", "--task_index=0"]
        ready = "serving at"
    return interop.start_serving(test, args, ready, f"{kind} {job}")


class MixedClusters(unittest.TestCase):
    """A ps of one kind with a worker of the other: the same training, to
    the same loss and checkpoint, as a cluster of the worker's own kind."""

    def setUp(self):
        self.dir = tempfile.mkdtemp()

    def tearDown(self):
        shutil.rmtree(self.dir)

    def train_with_each_ps(self, worker_kind, run_worker, loss_delta):
        """Runs run_worker(ps, worker, logdir) -> loss once with a ps of the
        worker's kind and once with one of the other; both must end at the
        same loss and write the same checkpoint at step 30."""
        results = {}
        for kind in ("tensorflow", "minigraph"):
            ps, worker = free_ports(2)
            start_task(self, kind, "ps", ps, worker)
            logdir = os.path.join(self.dir, kind)
            loss = run_worker(ps, worker, logdir)
            path = tf.train.latest_checkpoint(logdir)
            self.assertEqual(path, os.path.join(logdir, "model.ckpt-30"), kind)
            results[kind] = (loss, interop.tensorflow_read(path))
        other = "minigraph" if worker_kind == "tensorflow" else "tensorflow"
        (want_loss, want), (loss, got) = results[worker_kind], results[other]
        self.assertAlmostEqual(loss, want_loss, delta=loss_delta)
        self.assertEqual(sorted(got), sorted(want))
        for name in want:
            np.testing.assert_allclose(got[name], want[name], rtol=1e-5, atol=1e-6,
                                       err_msg=name)

    def test_tensorflow_worker_with_a_minigraph_ps(self):
        def tensorflow_worker(ps, worker, logdir):
            out = interop.run([sys.executable, TASK, "worker", ps, worker, logdir],
                              timeout=600).stdout
            return json.loads(out.strip().splitlines()[-1])["loss"]
        self.train_with_each_ps("tensorflow", tensorflow_worker, 1e-5)

    def test_minigraph_worker_with_a_tensorflow_ps(self):
        def minigraph_worker(ps, worker, logdir):
            out = interop.run(
                [interop.binary("train"), f"--cluster=ps={ps};worker={worker}",
                 "--job_name=worker", "--task_index=0", f"--logdir={logdir}", "--model=mlp",
                 "--optimizer=adam", "--steps=30", "--save_every=10",
                 "--recovery_wait_secs=0.5"], timeout=600).stdout
            # train prints the loss to 4 decimals.
            return float(re.search(r"done: step 30 loss (\S+)", out).group(1))
        self.train_with_each_ps("minigraph", minigraph_worker, 1e-4)


class MixedClusterTraces(unittest.TestCase):
    """A FULL_TRACE step across a ps of one kind and a master of the other:
    the master gathers every task's node runs into RunMetadata (TensorFlow's
    master asks minigraph's worker, minigraph's master asks TensorFlow's),
    and the partition graphs."""

    def trace(self, ps_kind, master_kind):
        ps, worker = free_ports(2)
        start_task(self, ps_kind, "ps", ps, worker)
        start_task(self, master_kind, "worker", ps, worker)
        with tf.Graph().as_default():
            with v1.device("/job:ps/task:0"):
                v = v1.get_variable("v", initializer=tf.fill([8], 2.0), use_resource=False)
            with v1.device("/job:worker/task:0"):
                total = tf.reduce_sum(v * 3.0, name="total")
            with v1.Session("grpc://" + worker) as sess:
                sess.run(v.initializer)
                meta = v1.RunMetadata()
                got = sess.run(total, options=v1.RunOptions(
                    trace_level=v1.RunOptions.FULL_TRACE, output_partition_graphs=True),
                    run_metadata=meta)
        self.assertEqual(got, 48.0)
        # A graph per task, each with its own nodes.
        placed = sorted(sorted({n.device for n in g.node if n.op not in ("_Recv", "_Send")})
                        for g in meta.partition_graphs)
        self.assertEqual(len(placed), 2, meta.partition_graphs)
        device_of = {}
        for dev in meta.step_stats.dev_stats:
            for n in dev.node_stats:
                device_of[n.node_name] = dev.device
        self.assertEqual(device_of.get("v"), "/job:ps/replica:0/task:0/device:CPU:0",
                         meta.step_stats)
        self.assertEqual(device_of.get("total"), "/job:worker/replica:0/task:0/device:CPU:0",
                         meta.step_stats)

    def test_a_minigraph_ps_under_a_tensorflow_master(self):
        self.trace("minigraph", "tensorflow")

    def test_a_tensorflow_ps_under_a_minigraph_master(self):
        self.trace("tensorflow", "minigraph")


class TaskRestarts(unittest.TestCase):
    """A ps that restarts (a new incarnation, its variables and registered
    graphs gone) under a master of the other kind. TensorFlow's
    MonitoredTrainingSession, the client, sees a preemption error (Aborted
    or Unavailable), makes a new session, restores the last checkpoint on the
    new ps and trains on to the end, as in a cluster of one kind."""

    def setUp(self):
        self.dir = tempfile.mkdtemp()

    def tearDown(self):
        shutil.rmtree(self.dir)

    def train_through_a_restart(self, ps_kind, master_kind):
        ps, worker = free_ports(2)
        procs = [start_task(self, ps_kind, "ps", ps, worker)]
        start_task(self, master_kind, "worker", ps, worker)
        cluster = tf.train.ClusterSpec({"ps": [ps], "worker": [worker]})
        rng = np.random.default_rng(2)
        x0 = rng.standard_normal((32, 8)).astype(np.float32)
        y0 = (x0.sum(axis=1) > 0).astype(np.int64)
        seen = []
        with tf.Graph().as_default():
            with v1.device(v1.train.replica_device_setter(cluster=cluster)):
                step = v1.train.get_or_create_global_step()
                w = v1.get_variable("w", [8, 2], initializer=v1.zeros_initializer())
                loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(
                    labels=tf.constant(y0), logits=tf.matmul(tf.constant(x0), w)))
                train = v1.train.GradientDescentOptimizer(0.5).minimize(loss, global_step=step)
            done = False
            while not done:
                try:
                    with v1.train.MonitoredTrainingSession(
                            master="grpc://" + worker, is_chief=True, checkpoint_dir=self.dir,
                            hooks=[v1.train.StopAtStepHook(last_step=30)],
                            save_checkpoint_steps=5, save_summaries_steps=None,
                            log_step_count_steps=None) as sess:
                        while not sess.should_stop():
                            before = sess.run(step)
                            seen.append(before)
                            sess.run(train)
                            if before == 12 and len(procs) == 1:
                                procs[0].kill()
                                procs[0].wait()
                                procs.append(start_task(self, ps_kind, "ps", ps, worker))
                    done = True
                except tf.errors.CancelledError as e:
                    # TensorFlow's master, when the worker's partition was
                    # cancelled because the restarted ps refused the step
                    # (Aborted), may report both errors as Cancelled (it
                    # ranks them by their text), which MonitoredSession does
                    # not recover from; a program restarts its session then.
                    # The restarted ps answers as TensorFlow's does: it has
                    # no worker session of that handle.
                    self.assertEqual(master_kind, "tensorflow", str(e))
                    self.assertIn("Session handle is not found", str(e))
                    self.assertIn("just restarted", str(e))
        restart = seen.index(12) + 1
        self.assertEqual(seen[restart], 10, f"after the restart, step 10 restored: {seen}")
        self.assertEqual(seen[restart:], list(range(10, 30)))
        self.assertEqual(tf.train.latest_checkpoint(self.dir),
                         os.path.join(self.dir, "model.ckpt-30"))

    def test_a_tensorflow_ps_restarts_under_a_minigraph_master(self):
        self.train_through_a_restart("tensorflow", "minigraph")

    def test_a_minigraph_ps_restarts_under_a_tensorflow_master(self):
        self.train_through_a_restart("minigraph", "tensorflow")


class ClientGoesAway(unittest.TestCase):
    def test_a_client_killed_mid_step_cancels_its_step(self):
        # A TensorFlow client starts a step of 2e9 loop iterations, each
        # counting in a variable, and is killed once the count moves. The
        # server cancels the step, as TensorFlow's does: it says so, the
        # count stops, and the server stops at once.
        server = Server()
        self.addCleanup(server.stop)
        self.kill_client_mid_step(server)
        self.assertEqual(server.stop(), 0)

    def test_a_client_killed_mid_step_cancels_it_on_every_task(self):
        # The same loop placed on the ps of a minigraph cluster, the client
        # on its worker's master: the master cancels the ps's part too.
        ps, worker = free_ports(2)
        cluster = f"--cluster=ps={ps};worker={worker}"
        ps_server = Server(cluster, "--job_name=ps", "--task_index=0")
        self.addCleanup(ps_server.stop)
        server = Server(cluster, "--job_name=worker", "--task_index=0")
        self.addCleanup(server.stop)
        self.kill_client_mid_step(server, "/job:ps", ps_server)
        self.assertEqual(server.stop(), 0)
        self.assertEqual(ps_server.stop(), 0)

    def kill_client_mid_step(self, server, device=None, device_server=None):
        """Starts LONG_STEP's client on `server` (its loop on `device`, served by
        `device_server`), kills it once the count moves, and checks that the
        server cancels the step: it says so, the task running the loop says
        its part ended (the master cancels it without waiting), and the count
        stops."""
        client = subprocess.Popen(
            [sys.executable, "-c", LONG_STEP, server.target] + ([device] if device else []),
            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        self.addCleanup(client.wait)
        self.addCleanup(client.kill)
        self.assertEqual(client.stdout.readline().strip(), "running")
        with tf.Graph().as_default():
            with tf.device(device):
                counter = v1.get_variable("counter", [], tf.int64, use_resource=False)
            with v1.Session(server.target) as sess:
                while sess.run(counter) == 0:
                    pass  # until the step runs
                seen = len(server.log)
                seen_part = len(device_server.log) if device_server else 0
                client.kill()
                server.wait_for("step cancelled, its client .* went away", start=seen)
                if device_server:
                    device_server.wait_for("cancelled, its master .* went away", start=seen_part)
                count = sess.run(counter)
                self.assertEqual(sess.run(counter), count, "the step goes on")


# Counts 2e9 loop iterations in a variable, on the target argv[1], on the
# device argv[2] (none: wherever the target puts it).
LONG_STEP = """
import sys
import tensorflow as tf
from tensorflow.python.ops import control_flow_v2_toggles as toggles
v1 = tf.compat.v1
v1.disable_eager_execution()
toggles.disable_control_flow_v2()
with tf.device(sys.argv[2] if len(sys.argv) > 2 else None):
    counter = v1.get_variable("counter", initializer=tf.constant(0, tf.int64),
                              use_resource=False)
    def body(i):
        with tf.control_dependencies([v1.assign_add(counter, 1)]):
            return i + 1
    i = v1.while_loop(lambda i: i < 2000000000, body, [tf.constant(0)])
with v1.Session(sys.argv[1]) as sess:
    sess.run(counter.initializer)
    print("running", flush=True)
    sess.run(i)
"""


class MinigraphClientTensorFlowServer(unittest.TestCase):
    """minigraph's grpc:// client (run_graph --target) against TensorFlow's
    own server: a TensorFlow 1 graph and its checkpoint, restored by its
    Saver on the server, fetched as TensorFlow's session fetches them."""

    def test_run_graph_on_a_tensorflow_server(self):
        d = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, d)
        x0 = np.arange(6, dtype=np.float32).reshape(2, 3) / 7
        with tf.Graph().as_default():
            x = v1.placeholder(tf.float32, [None, 3], name="x")
            w = v1.get_variable("w", initializer=tf.constant(
                np.linspace(-1, 1, 6, dtype=np.float32).reshape(3, 2)), use_resource=False)
            v1.nn.softmax(tf.matmul(x, w), name="y")
            tf.strings.join([tf.constant("a\x00"), tf.constant("b")], name="s")
            with v1.Session() as sess:
                sess.run(v1.global_variables_initializer())
                v1.train.Saver().save(sess, os.path.join(d, "model"))
                want = sess.run(["y:0", "s:0"], {x: x0})
        np.save(os.path.join(d, "x.npy"), x0)
        server = subprocess.Popen([sys.executable, TASK, "local"], stdout=subprocess.PIPE,
                                  stderr=subprocess.DEVNULL, text=True)
        self.addCleanup(server.wait)
        self.addCleanup(server.kill)
        target = server.stdout.readline().strip()
        self.assertTrue(target.startswith("grpc://localhost:"), target)
        # By address: resolving "localhost" goes through Debian's c-ares,
        # which leaks 10 bytes that LeakSanitizer reports in the ASan pass.
        target = target.replace("localhost", "127.0.0.1")
        out = interop.run([interop.binary("run_graph"), os.path.join(d, "model.meta"),
                           "--fetch=y:0,s:0", f"--input=x={os.path.join(d, 'x.npy')}",
                           f"--target={target}"], timeout=120).stdout
        lines = out.splitlines()
        y = lines[lines.index("y:0: float [2,2]") + 1]
        np.testing.assert_allclose([float(v) for v in y.split()], want[0].ravel(), rtol=1e-5)
        # run_graph prints strings C-escaped (a NUL, then "b" as hex).
        self.assertEqual(want[1], b"a\x00b")
        self.assertEqual(lines[lines.index("s:0: string []") + 1], '"a\\x00\\x62"')


def _assert_positive(x):
    with tf.control_dependencies([v1.assert_positive(x)]):
        return tf.identity(x)


if __name__ == "__main__":
    unittest.main(verbosity=2)
