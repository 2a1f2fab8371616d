"""TensorFlow's Supervisor and minigraph's, scenario by scenario.

Each scenario builds its graph with TensorFlow 2.21 (tf.compat.v1, ref
variables) twice: once for TensorFlow's own Supervisor, and once exported as
a meta graph, before any Supervisor added its defaults, for minigraph's
(supervisor_runner), so that both sides build their defaults (init_op,
ready_op, local_init_op, saver, summary_op, global step) themselves. Each
run is a managed session whose body reads tensors, trains, runs an op,
dequeues until the input ends and saves, as the scenario says. Compared: the
error each run ended with (its code and first line), what the body read and
dequeued, the files of the log directory, and its events (graph, meta graph,
session logs at their steps, summaries by tag: the service threads' first
summaries race with the body on both sides, so their steps and values are
not compared).
"""

import glob
import json
import os
import re
import subprocess
import tempfile
import time
import unittest

import interop
import numpy as np
import tensorflow as tf

v1 = tf.compat.v1
v1.disable_eager_execution()
v1.disable_resource_variables()


def train_graph(placed=False):
    """A global step, v = 1 that "train" adds 1 to (then the step), a
    summary of v, and "bad", an assertion that fails."""
    g = tf.Graph()
    with g.as_default(), g.device("/device:CPU:0" if placed else None):
        gs = v1.train.get_or_create_global_step()
        v = v1.Variable(1.0, name="v")
        v1.summary.scalar("v_summary", v)
        update = v1.assign_add(v, 1.0)
        with tf.control_dependencies([update]):
            inc = v1.assign_add(gs, 1)
        tf.group(inc, name="train")
        tf.raw_ops.Assert(condition=tf.less(v, 0.0), data=[v], name="bad")
    return g


def queue_graph():
    """TensorFlow 1's input pipeline: range_input_producer over 0..4 for one
    epoch (a queue, its runner, a local epoch counter, a fullness summary)."""
    g = tf.Graph()
    with g.as_default():
        v1.train.get_or_create_global_step()
        q = v1.train.range_input_producer(5, num_epochs=1, shuffle=False)
        q.dequeue(name="take")
    return g


# name -> (graph builder, master, [run, ...]); a run's keys are
# supervisor_runner's flags. Runs of a scenario share its log directory.
SCENARIOS = {
    "chief_fresh_then_restored": (train_graph, "", [
        dict(read="v:0,global_step:0", train="train", steps=3, wait_for_checkpoint=True,
             save_at_end=True),
        dict(read="v:0,global_step:0", save_model_secs=0, save_summaries_secs=0),
    ]),
    "queue_input_ends_cleanly": (queue_graph, "", [
        dict(dequeue="take:0", save_model_secs=0, save_summaries_secs=0),
    ]),
    "body_error_is_raised_after_stop": (train_graph, "", [
        dict(train="train", steps=1, run="bad", save_model_secs=0, save_summaries_secs=0),
    ]),
    "no_init_op_is_an_error": (train_graph, "", [
        dict(init_op_none=True, local_init_op_none=True),
    ]),
    "non_chief_needs_placed_variables": (train_graph, "", [dict(chief=False)]),
    "worker_waits_for_the_chief": (lambda: train_graph(placed=True), "shared", [
        dict(read="v:0", train="train", steps=2, save_model_secs=0, save_summaries_secs=0,
             worker_after_chief=True),
    ]),
}


def _numbers(value):
    return [float(x) for x in np.asarray(value).reshape(-1)]


def _outcome(error=None, values=None, taken=None, worker_values=None):
    if error is None:
        code, message = "OK", ""
    elif isinstance(error, tf.errors.OpError):
        # InvalidArgumentError -> INVALID_ARGUMENT, absl's name of the code.
        code = re.sub(r"(?<!^)(?=[A-Z])", "_", type(error).__name__[:-len("Error")]).upper()
        message = error.message
        if message.startswith("Graph execution error:"):
            # TensorFlow 2's client puts where the node was defined first; the
            # kernel's own message is the last line before "\t [[{{node ...}}]]".
            message = [line for line in message.split("\n")
                       if line.strip() and not line.startswith("\t")][-1]
    elif isinstance(error, ValueError):
        code, message = "INVALID_ARGUMENT", str(error)
    else:  # RuntimeError
        code, message = "FAILED_PRECONDITION", str(error)
    return {"code": code, "message": message.split("\n")[0], "values": values or {},
            "taken": taken or [], "worker_values": worker_values or {}}


def _read(sess, names):
    names = [n for n in names.split(",") if n]
    if not names:
        return {}
    return {n: _numbers(x) for n, x in zip(names, sess.run(names))}


def run_on_tensorflow(build, master, run, logdir):
    """One run with TensorFlow's Supervisor; its outcome as supervisor_runner prints it."""
    g = build()
    values, taken, worker_values = {}, [], {}

    def supervisor(chief):
        kwargs = dict(logdir=logdir, is_chief=chief, recovery_wait_secs=1,
                      save_model_secs=run.get("save_model_secs", 600),
                      save_summaries_secs=run.get("save_summaries_secs", 120))
        if run.get("init_op_none"):
            kwargs["init_op"] = None
        if run.get("local_init_op_none"):
            kwargs["local_init_op"] = None
        return v1.train.Supervisor(**kwargs)

    try:
        with g.as_default():
            sv = supervisor(run.get("chief", True))
            with sv.managed_session(master) as sess:
                if run.get("wait_for_checkpoint"):
                    while not os.path.exists(os.path.join(logdir, "checkpoint")):
                        time.sleep(0.01)
                values = _read(sess, run.get("read", ""))
                for _ in range(run.get("steps", 0)):
                    sess.run("train")
                if run.get("run"):
                    sess.run(g.get_operation_by_name(run["run"]))
                if run.get("dequeue"):
                    while not sv.should_stop():
                        taken.append(_numbers(sess.run(run["dequeue"])))
                if run.get("save_at_end"):
                    sv.saver.save(sess, sv.save_path, global_step=sv.global_step)
        if run.get("worker_after_chief"):
            worker_graph = build()
            with worker_graph.as_default():
                worker = supervisor(False)
                with worker.managed_session(master) as sess:
                    worker_values = _read(sess, run.get("read", ""))
    except (tf.errors.OpError, ValueError, RuntimeError) as e:
        return _outcome(e, values, taken, worker_values)
    return _outcome(None, values, taken, worker_values)


def run_on_minigraph(build, master, run, logdir):
    with tempfile.NamedTemporaryFile(suffix=".meta", delete=False) as f:
        meta = f.name
    try:
        v1.train.export_meta_graph(filename=meta, graph=build())
        flags = [f"--meta={meta}", f"--logdir={logdir}", f"--master={master}"]
        for key, value in run.items():
            if isinstance(value, bool):
                flags.append(f"--{key}={'true' if value else 'false'}")
            else:
                flags.append(f"--{key}={value}")
        out = subprocess.run([interop.binary("supervisor_runner")] + flags,
                             capture_output=True, text=True, timeout=300)
    finally:
        os.unlink(meta)
    if out.returncode != 0:
        raise AssertionError(f"supervisor_runner failed: {out.stderr}")
    return json.loads(out.stdout)


def log_directory(logdir):
    """Its files (event files as "events") and its events, sorted. The
    event files are then deleted: TensorFlow names them by the second they
    were opened in, so the next run's, in the same second, would overwrite
    them (minigraph's would not: it appends ".1")."""
    files = sorted("events" if f.startswith("events.out.tfevents.") else f
                   for f in os.listdir(logdir)) if os.path.isdir(logdir) else []
    events = []
    for path in sorted(glob.glob(os.path.join(logdir, "events.out.tfevents.*"))):
        for e in v1.train.summary_iterator(path):
            kind = e.WhichOneof("what")
            if kind == "summary":
                events.extend(f"summary {v.tag}" for v in e.summary.value)
            elif kind == "session_log":
                status = v1.SessionLog.SessionStatus.Name(e.session_log.status)
                events.append(f"{status} {e.step}")
            else:
                events.append(kind)
        os.unlink(path)
    return files, sorted(events)


def _comparable(outcome):
    """Differences written down: TensorFlow prints the unplaced variable's
    NodeDef (with its attrs); minigraph names its node and op. The rest of
    the message is the same."""
    o = dict(outcome)
    o["message"] = re.sub(r"(device set: ).*", r"\1<node>", o["message"])
    return o


class SupervisorInteropTest(unittest.TestCase):
    maxDiff = None

    def test_every_scenario_agrees_with_tensorflow(self):
        for name, (build, master, runs) in SCENARIOS.items():
            with self.subTest(scenario=name), tempfile.TemporaryDirectory() as tmp:
                tf_dir, mg_dir = os.path.join(tmp, "tf"), os.path.join(tmp, "mg")
                server = v1.train.Server.create_local_server() if master == "shared" else None
                for i, run in enumerate(runs):
                    want = run_on_tensorflow(build, server.target if server else "", run, tf_dir)
                    got = run_on_minigraph(build, "local://sv" if server else "", run, mg_dir)
                    self.assertEqual(_comparable(want), _comparable(got), f"{name} run {i}")
                    self.assertEqual(log_directory(tf_dir), log_directory(mg_dir),
                                     f"{name} run {i}: the log directory")


if __name__ == "__main__":
    unittest.main()
