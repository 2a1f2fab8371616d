"""TensorFlow 1's SyncReplicasOptimizer, its graph built by TensorFlow, on
clusters of a ps and two workers of each kind and mixed: TensorFlow's
clients (MonitoredTrainingSession with the optimizer's hook; worker 0 the
chief, running the chief queue runner that takes the aggregated gradients
and hands out tokens) train through minigraph's servers as through
TensorFlow's, to the same weights."""

import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import unittest

import numpy as np

import interop
from interop import tf  # noqa: F401 (TensorFlow's path set up for the tasks)

TASK = os.path.join(os.path.dirname(os.path.abspath(__file__)), "sync_replicas_task.py")
STEPS = 10


class SyncReplicas(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp()

    def tearDown(self):
        shutil.rmtree(self.dir)

    def serve(self, kind, job, index, ps, w0, w1):
        if kind == "tensorflow":
            args = [sys.executable, TASK, "serve", job, str(index), ps, w0, w1]
            ready = "serving"
        else:
            args = [interop.binary("server"), f"--cluster=ps={ps};worker={w0},{w1}",
                    f"--job_name={job}", f"--task_index={index}"]
            ready = "serving at"
        interop.start_serving(self, args, ready, f"{kind} {job}:{index}")

    def train(self, ps_kind, worker_kind):
        """Trains STEPS steps on a cluster with a ps of ps_kind and workers of
        worker_kind; returns each client's JSON (weights, steps it ran)."""
        ps, w0, w1 = [f"127.0.0.1:{p}" for p in interop.listen_ports(3)]
        self.serve(ps_kind, "ps", 0, ps, w0, w1)
        for i in (0, 1):
            self.serve(worker_kind, "worker", i, ps, w0, w1)
        logdir = os.path.join(self.dir, f"{ps_kind}_{worker_kind}")
        clients, errors = [], []
        for i in (0, 1):
            c = subprocess.Popen(
                [sys.executable, TASK, "train", str(i), ps, w0, w1, logdir, str(STEPS)],
                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            self.addCleanup(c.kill)
            clients.append(c)
            lines = []
            errors.append(lines)
            # The other worker starts once the chief's session is ready: a
            # worker that asks before waits TensorFlow's 30 s to ask again.
            for line in c.stderr:
                lines.append(line)
                if line.strip() == "training":
                    break
            threading.Thread(target=lambda f=c.stderr, out=lines: out.extend(f),
                             daemon=True).start()
        results = []
        for i, c in enumerate(clients):
            out = c.communicate(timeout=300)[0]
            self.assertEqual(c.returncode, 0,
                             f"worker {i} ({worker_kind}):\n{''.join(errors[i])[-3000:]}")
            results.append(json.loads(out.strip().splitlines()[-1]))
        return results

    def test_each_kind_of_cluster_trains_to_tensorflows_weights(self):
        want = None
        for ps_kind, worker_kind in [("tensorflow", "tensorflow"), ("minigraph", "minigraph"),
                                     ("minigraph", "tensorflow"), ("tensorflow", "minigraph")]:
            with self.subTest(ps=ps_kind, workers=worker_kind):
                results = self.train(ps_kind, worker_kind)
                for r in results:
                    self.assertEqual(r["step"], STEPS)
                # The chief's steps alone cannot make STEPS updates of two
                # gradients each unless the other worker gave none.
                self.assertGreaterEqual(sum(r["ran"] for r in results), STEPS)
                got = {k: np.array(results[0][k]) for k in ("emb", "w")}
                if want is None:
                    want = got
                    continue
                for k in want:
                    np.testing.assert_allclose(got[k], want[k], rtol=1e-5, atol=1e-6,
                                               err_msg=f"{k}: {ps_kind} ps, {worker_kind} workers")


if __name__ == "__main__":
    unittest.main()
