"""TensorBoard's event files: what minigraph's MonitoredTrainingSession
writes, read by TensorBoard's own reader (EventAccumulator) and by
TensorFlow's summary_iterator, beside what TensorFlow 2.21's
MonitoredTrainingSession writes for the same loop."""

import glob
import os
import tempfile
import unittest

import interop
import numpy as np
import tensorflow as tf
from tensorboard.backend.event_processing import event_accumulator

tf1 = tf.compat.v1

SCHEDULE = dict(last_step=10, save_checkpoint_steps=4, save_summaries_steps=3,
                log_step_count_steps=2)


def minigraph_run(logdir):
    flags = [f"--{k}={v}" for k, v in SCHEDULE.items()]
    p = interop.run([interop.binary("monitored_runner"), f"--logdir={logdir}"] + flags)
    return int(p.stdout.split()[-1])


def tensorflow_run(logdir):
    """The same model and loop under TensorFlow's MonitoredTrainingSession."""
    with tf.Graph().as_default():
        gs = tf1.train.get_or_create_global_step()
        w = tf1.get_variable("w", initializer=1.0, use_resource=False)
        loss = tf.multiply(w, 2.0, name="loss")
        tf1.summary.scalar("loss", loss)
        tf1.summary.scalar("learning_rate", tf.constant(0.01))
        with tf.control_dependencies([loss]):
            update = tf1.assign_add(w, 0.5)
        with tf.control_dependencies([update]):
            train = tf1.assign_add(gs, 1)
        runs = 0
        with tf1.train.MonitoredTrainingSession(
                checkpoint_dir=logdir,
                save_checkpoint_steps=SCHEDULE["save_checkpoint_steps"],
                save_summaries_steps=SCHEDULE["save_summaries_steps"],
                log_step_count_steps=SCHEDULE["log_step_count_steps"],
                hooks=[tf1.train.StopAtStepHook(last_step=SCHEDULE["last_step"])]) as s:
            while not s.should_stop():
                s.run(train.op)
                runs += 1
    return runs


def events(logdir):
    """(step, kind, detail) of every event, in order, by summary_iterator."""
    out = []
    for f in sorted(glob.glob(os.path.join(logdir, "events.out.tfevents.*"))):
        for e in tf1.train.summary_iterator(f):
            kind = e.WhichOneof("what")
            if kind == "summary":
                for v in e.summary.value:
                    out.append((e.step, "summary", v.tag, v.simple_value))
            elif kind == "session_log":
                out.append((e.step, tf1.SessionLog.SessionStatus.Name(e.session_log.status)))
            else:
                out.append((e.step, kind))
    return out


class SummaryInteropTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp()
        cls.mg_dir = os.path.join(cls.tmp, "minigraph")
        cls.tf_dir = os.path.join(cls.tmp, "tensorflow")
        cls.mg_runs = minigraph_run(cls.mg_dir)
        cls.tf_runs = tensorflow_run(cls.tf_dir)
        cls.mg = events(cls.mg_dir)
        cls.tf = events(cls.tf_dir)

    def test_tensorboard_loads_every_scalar(self):
        acc = event_accumulator.EventAccumulator(self.mg_dir)
        acc.Reload()
        tags = acc.Tags()
        self.assertEqual(sorted(tags["scalars"]),
                         ["global_step/sec", "learning_rate", "loss"])
        self.assertTrue(tags["graph"])
        self.assertTrue(tags["meta_graph"])
        loss = [(s.step, s.value) for s in acc.Scalars("loss")]
        # w = 1 + 0.5 * (step - 1) when the summary is taken, before the update.
        self.assertEqual(loss, [(1, 2.0), (4, 5.0), (7, 8.0), (10, 11.0)])
        lr = [(s.step, round(s.value, 6)) for s in acc.Scalars("learning_rate")]
        self.assertEqual(lr, [(1, 0.01), (4, 0.01), (7, 0.01), (10, 0.01)])
        rate = acc.Scalars("global_step/sec")
        self.assertEqual([s.step for s in rate], [3, 5, 7, 9])
        self.assertTrue(all(s.value > 0 for s in rate))
        graph = acc.Graph()
        self.assertIn("train", [n.name for n in graph.node])

    def test_same_runs_checkpoints_and_session_logs_as_tensorflow(self):
        self.assertEqual(self.mg_runs, self.tf_runs)
        ckpts = lambda d: sorted(tf.train.get_checkpoint_state(d).all_model_checkpoint_paths)
        self.assertEqual([os.path.basename(p) for p in ckpts(self.mg_dir)],
                         [os.path.basename(p) for p in ckpts(self.tf_dir)])
        logs = lambda ev: [e for e in ev if e[1] in ("START", "STOP", "CHECKPOINT")]
        # TensorFlow's last CHECKPOINT event stays in its writer's buffer when
        # the process ends (the summary hook flushed before the last save);
        # minigraph's writer flushes it on close.
        self.assertEqual(logs(self.mg), logs(self.tf) + [(10, "CHECKPOINT")])
        first = lambda ev: [e[1] for e in ev if e[0] == 0]
        self.assertEqual(first(self.mg), first(self.tf))

    def test_summaries_follow_the_schedule_asked_for(self):
        # TensorFlow's hook treats the step it fetched with the training op as
        # the step before it; its read of the variable races with the
        # increment and often sees it, so a summary is due after 2 steps
        # instead of 3 (1, 3, 5, ... when it always does). The step rate's
        # steps race the same way. minigraph reads first and keeps the
        # period asked for.
        # TensorFlow tags it "loss_1": its graph has a node named "loss".
        loss_steps = lambda ev: [e[0] for e in ev
                                 if e[1] == "summary" and e[2] in ("loss", "loss_1")]
        self.assertEqual(loss_steps(self.mg), [1, 4, 7, 10])
        tf_steps = loss_steps(self.tf)
        self.assertEqual(tf_steps[0], 1)
        self.assertTrue(all(b - a in (2, 3) for a, b in zip(tf_steps, tf_steps[1:])), tf_steps)

    def test_tensorboard_loads_every_scalar_train_writes(self):
        logdir = os.path.join(self.tmp, "train")
        interop.run([interop.binary("train"), f"--logdir={logdir}", "--model=linear",
                     "--steps=100", "--save_every=40", "--summary_every=25", "--log_every=30"])
        acc = event_accumulator.EventAccumulator(logdir)
        acc.Reload()
        self.assertEqual(sorted(acc.Tags()["scalars"]),
                         ["global_step/sec", "learning_rate", "loss"])
        steps = lambda tag: [s.step for s in acc.Scalars(tag)]
        self.assertEqual(steps("loss"), [1, 26, 51, 76])
        self.assertEqual(steps("learning_rate"), [1, 26, 51, 76])
        self.assertTrue(all(s.value == np.float32(0.01) for s in acc.Scalars("learning_rate")))
        self.assertEqual(steps("global_step/sec"), [31, 61, 91])
        logs = [e for e in events(logdir) if e[1] in ("START", "CHECKPOINT")]
        self.assertEqual(logs, [(0, "CHECKPOINT"), (1, "START"), (40, "CHECKPOINT"),
                                (80, "CHECKPOINT"), (100, "CHECKPOINT")])

    def test_a_cut_file_still_loads_up_to_the_cut(self):
        [path] = glob.glob(os.path.join(self.mg_dir, "events.out.tfevents.*"))
        with open(path, "rb") as f:
            data = f.read()
        cut_dir = os.path.join(self.tmp, "cut")
        os.makedirs(cut_dir)
        with open(os.path.join(cut_dir, os.path.basename(path)), "wb") as f:
            f.write(data[:-7])  # a writer killed inside its last record
        acc = event_accumulator.EventAccumulator(cut_dir)
        acc.Reload()
        self.assertEqual([s.step for s in acc.Scalars("loss")], [1, 4, 7, 10])


if __name__ == "__main__":
    unittest.main()
