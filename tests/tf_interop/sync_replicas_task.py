"""One task of a SyncReplicasOptimizer cluster (a ps, two workers), for
sync_replicas_interop_test.

  sync_replicas_task.py serve JOB INDEX PS W0 W1
      serves /job:JOB/task:INDEX (TensorFlow's server) until killed; prints
      "serving" once it listens.
  sync_replicas_task.py train INDEX PS W0 W1 LOGDIR STEPS
      a TensorFlow 1 client of worker INDEX (its master, grpc://W<INDEX>):
      builds the model with replica_device_setter and SyncReplicasOptimizer
      (2 replicas to aggregate; an embedding, whose gradient is sparse, and
      a dense layer), and trains it with MonitoredTrainingSession and the
      optimizer's hook (worker 0 is the chief) until global step STEPS;
      says "training" on stderr once its session is ready, and at the end
      prints the weights and the steps this worker ran as JSON.
"""

import json
import sys

import numpy as np
import tensorflow as tf

v1 = tf.compat.v1


def cluster(ps, w0, w1):
    return tf.train.ClusterSpec({"ps": [ps], "worker": [w0, w1]})


def model(spec):
    # Both workers train on the same batch: whichever worker's gradients a
    # step aggregates (a fast worker may give two), the update is the same,
    # so the weights after N steps are those of N steps of plain SGD.
    rng = np.random.default_rng(5)
    ids = rng.integers(0, 10, (16,))
    y = rng.standard_normal((16, 1)).astype(np.float32)
    with v1.device(v1.train.replica_device_setter(cluster=spec)):
        step = v1.train.get_or_create_global_step()
        emb = v1.get_variable("emb", [10, 4], initializer=v1.random_normal_initializer(seed=1))
        w = v1.get_variable("w", [4, 1], initializer=v1.random_normal_initializer(seed=2))
        pred = tf.matmul(tf.nn.embedding_lookup(emb, tf.constant(ids)), w)
        loss = tf.reduce_mean((pred - tf.constant(y)) ** 2)
    return step, emb, w, loss


def main(mode, *args):
    if mode == "serve":
        job, index, ps, w0, w1 = args
        server = tf.distribute.Server(cluster(ps, w0, w1), job_name=job, task_index=int(index))
        print("serving", flush=True)
        server.join()
        return
    index, ps, w0, w1, logdir, steps = args
    index, steps = int(index), int(steps)
    v1.disable_eager_execution()
    spec = cluster(ps, w0, w1)
    with tf.Graph().as_default():
        step, emb, w, loss = model(spec)
        with v1.device(v1.train.replica_device_setter(cluster=spec)):
            opt = v1.train.SyncReplicasOptimizer(v1.train.GradientDescentOptimizer(0.1),
                                                 replicas_to_aggregate=2, total_num_replicas=2)
            train = opt.minimize(loss, global_step=step)
        final = v1.train.FinalOpsHook({"emb": emb, "w": w, "step": step})
        hooks = [opt.make_session_run_hook(index == 0),
                 v1.train.StopAtStepHook(last_step=steps), final]
        ran = 0
        with v1.train.MonitoredTrainingSession(
                master="grpc://" + (w0, w1)[index], is_chief=index == 0,
                checkpoint_dir=logdir if index == 0 else None, hooks=hooks,
                save_checkpoint_steps=None, save_checkpoint_secs=None,
                save_summaries_steps=None, log_step_count_steps=None,
                stop_grace_period_secs=1) as sess:
            print("training", file=sys.stderr, flush=True)
            while not sess.should_stop():
                sess.run(train)
                ran += 1
        values = final.final_ops_values
    print(json.dumps({"emb": values["emb"].tolist(), "w": values["w"].tolist(),
                      "step": int(values["step"]), "ran": ran}), flush=True)


if __name__ == "__main__":
    main(*sys.argv[1:])
