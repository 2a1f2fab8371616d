"""One TensorFlow task of a cluster, for wire_interop_test.

  tf_cluster_task.py local
      serves a one-task cluster (tf.distribute.Server.create_local_server)
      until killed; prints its target, grpc://localhost:PORT.
  tf_cluster_task.py ps PS_ADDR WORKER_ADDR
      serves /job:ps/task:0 until killed; prints "serving" once it listens.
  tf_cluster_task.py worker_server PS_ADDR WORKER_ADDR
      the same for /job:worker/task:0 (a master for clients of the cluster).
  tf_cluster_task.py worker PS_ADDR WORKER_ADDR LOGDIR
      serves /job:worker/task:0 and trains a small softmax regression as
      TensorFlow 1 programs do (replica_device_setter puts the variables on
      the ps; MonitoredTrainingSession with checkpoints in LOGDIR) for 30
      steps; prints the last loss as JSON.
"""

import json
import sys

import numpy as np
import tensorflow as tf

v1 = tf.compat.v1


def main(mode, ps=None, worker=None, logdir=None):
    if mode == "local":
        server = tf.distribute.Server.create_local_server()
        print(server.target.decode() if isinstance(server.target, bytes) else server.target,
              flush=True)
        server.join()
        return
    cluster = tf.train.ClusterSpec({"ps": [ps], "worker": [worker]})
    server = tf.distribute.Server(cluster, job_name="ps" if mode == "ps" else "worker",
                                  task_index=0)
    if mode in ("ps", "worker_server"):
        print("serving", flush=True)
        server.join()
        return
    v1.disable_eager_execution()
    rng = np.random.default_rng(1)
    x0 = rng.standard_normal((32, 8)).astype(np.float32)
    y0 = (x0.sum(axis=1) > 0).astype(np.int64)
    with tf.Graph().as_default():
        with v1.device(v1.train.replica_device_setter(cluster=cluster)):
            step = v1.train.get_or_create_global_step()
            w = v1.get_variable("w", [8, 2], initializer=v1.zeros_initializer())
            b = v1.get_variable("b", [2], initializer=v1.zeros_initializer())
            logits = tf.matmul(tf.constant(x0), w) + b
            loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(
                labels=tf.constant(y0), logits=logits))
            train = v1.train.AdamOptimizer(0.1).minimize(loss, global_step=step)
        hooks = [v1.train.StopAtStepHook(last_step=30)]
        with v1.train.MonitoredTrainingSession(
                master=server.target, is_chief=True, checkpoint_dir=logdir, hooks=hooks,
                save_checkpoint_steps=10, save_summaries_steps=None,
                log_step_count_steps=None) as sess:
            last = None
            while not sess.should_stop():
                _, last = sess.run([train, loss])
    print(json.dumps({"loss": float(last)}), flush=True)


if __name__ == "__main__":
    main(*sys.argv[1:])
