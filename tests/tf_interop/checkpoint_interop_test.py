"""Checkpoints between TensorFlow 2.21 and minigraph, both directions: every
value bit for bit, the files byte for byte, and the `checkpoint` state file."""

import os
import re
import shutil
import subprocess
import tempfile
import unittest

import numpy as np

import interop
from interop import tf

# Two CPU devices, for a sharded Saver's two shards (before any TF work).
tf.config.set_logical_device_configuration(
    tf.config.list_physical_devices("CPU")[0],
    [tf.config.LogicalDeviceConfiguration(), tf.config.LogicalDeviceConfiguration()],
)


def save_v2(prefix, tensors, slices=None):
    """TensorFlow's SaveV2 kernel writes `tensors` (eager, any dtype)."""
    names = sorted(tensors)
    specs = [(slices or {}).get(n, "") for n in names]
    tf.raw_ops.SaveV2(
        prefix=prefix,
        tensor_names=names,
        shape_and_slices=specs,
        tensors=[tf.constant(tensors[n]) for n in names],
    )


class TensorFlowWritesMinigraphReads(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp()
        self.rng = np.random.default_rng(20261203)

    def tearDown(self):
        shutil.rmtree(self.dir)

    def check(self, prefix, what):
        interop.assert_same_bits(
            self, interop.tensorflow_read(prefix), interop.minigraph_read(prefix), what
        )

    def test_every_dtype_and_edge_value(self):
        prefix = os.path.join(self.dir, "dtypes")
        values = interop.edge_values(self.rng)
        save_v2(prefix, values)
        got = interop.minigraph_read(prefix)
        interop.assert_same_bits(self, values, got, "SaveV2")
        self.check(prefix, "SaveV2")

    def test_slices_in_two_dimensions(self):
        # A 4x6 tensor saved as a 2x2 grid of slices, as partitioned saves
        # write them; minigraph assembles the whole tensor.
        whole = self.rng.standard_normal((4, 6)).astype(np.float32)
        prefix = os.path.join(self.dir, "grid")
        parts = {}
        for i, rows in enumerate([(0, 2), (2, 2)]):
            for j, cols in enumerate([(0, 3), (3, 3)]):
                spec = f"4 6 {rows[0]},{rows[1]}:{cols[0]},{cols[1]}"
                parts[spec] = whole[rows[0] : rows[0] + rows[1], cols[0] : cols[0] + cols[1]]
        specs = list(parts)
        tf.raw_ops.SaveV2(
            prefix=prefix,
            tensor_names=["grid"] * 4,
            shape_and_slices=specs,
            tensors=[tf.constant(parts[s]) for s in specs],
        )
        got = interop.minigraph_read(prefix)
        interop.assert_same_bits(self, {"grid": whole}, got, "2-D slices")

    def graph_saver_case(self, build, sharded=False):
        """Builds variables in a TF1 graph, saves with tf.compat.v1.train.Saver."""
        prefix = os.path.join(self.dir, "model.ckpt")
        with tf.Graph().as_default():
            build()
            saver = tf.compat.v1.train.Saver(sharded=sharded)
            with tf.compat.v1.Session() as sess:
                sess.run(tf.compat.v1.global_variables_initializer())
                path = saver.save(sess, prefix, global_step=7)
        return path

    def test_ref_and_resource_variables(self):
        for use_resource in (False, True):
            def build():
                for name, value in [
                    ("dense/kernel", self.rng.standard_normal((5, 3)).astype(np.float32)),
                    ("dense/bias", np.zeros(3, np.float32)),
                    ("step", np.int64(42)),
                    ("counts", self.rng.integers(0, 9, (4,)).astype(np.int32)),
                    ("d", self.rng.standard_normal((2, 2))),
                ]:
                    tf.compat.v1.get_variable(
                        name, initializer=tf.constant(value), use_resource=use_resource
                    )
            path = self.graph_saver_case(build)
            self.check(path, f"Saver, use_resource={use_resource}")
            shutil.rmtree(self.dir)
            os.makedirs(self.dir)

    def test_sharded_saver(self):
        def build():
            for device, name in [("/cpu:0", "a"), ("/cpu:1", "b"), ("/cpu:1", "c")]:
                with tf.device(device):
                    tf.compat.v1.get_variable(
                        name, initializer=tf.constant(self.rng.standard_normal((3, 2)))
                    )
        path = self.graph_saver_case(build, sharded=True)
        files = sorted(os.listdir(self.dir))
        self.assertIn("model.ckpt-7.data-00000-of-00002", files)
        self.assertIn("model.ckpt-7.data-00001-of-00002", files)
        self.check(path, "sharded Saver")

    def test_partitioned_variables(self):
        def build():
            fixed = tf.compat.v1.fixed_size_partitioner
            tf.compat.v1.get_variable(
                "emb", initializer=tf.constant(self.rng.standard_normal((10, 4)).astype(np.float32)),
                partitioner=fixed(3),
            )
            tf.compat.v1.get_variable(
                "wide", initializer=tf.constant(self.rng.standard_normal((3, 8)).astype(np.float32)),
                partitioner=fixed(4, axis=1),
            )
            tf.compat.v1.get_variable(
                "vec", initializer=tf.constant(self.rng.integers(0, 99, 7).astype(np.int64)),
                partitioner=fixed(2),
            )
        path = self.graph_saver_case(build)
        tf_values = interop.tensorflow_read(path)
        self.assertEqual(tf_values["emb"].shape, (10, 4))
        self.assertEqual(tf_values["wide"].shape, (3, 8))
        self.check(path, "partitioned variables")

    def test_variables_partitioned_in_two_dimensions(self):
        """get_variable partitions along one dimension only (both runtimes
        refuse more), but a SaveSliceInfo may name a block of any
        dimensions: a 4x6 variable as a 2x3 grid of parts, saved by
        TensorFlow's Saver, restores part by part in minigraph, and
        minigraph's run of the same Saver's save op writes a checkpoint
        TensorFlow reads whole."""
        v1 = tf.compat.v1
        whole = self.rng.standard_normal((4, 6)).astype(np.float32)
        meta = os.path.join(self.dir, "grid.meta")
        prefix = os.path.join(self.dir, "grid")
        blocks = {f"w/part_{i}_{j}": (slice(2 * i, 2 * i + 2), slice(2 * j, 2 * j + 2))
                  for i in range(2) for j in range(3)}
        with tf.Graph().as_default():
            parts = []
            for name, (rows, cols) in blocks.items():
                v = v1.Variable(whole[rows, cols], name=name)
                v._set_save_slice_info(v1.Variable.SaveSliceInfo(
                    "w", [4, 6], [rows.start, cols.start], [2, 2]))
                tf.identity(v.read_value(), name=name + "/value")
                parts.append(v)
            saver = v1.train.Saver(parts)
            with v1.Session() as sess:
                sess.run(v1.global_variables_initializer())
                saver.save(sess, prefix)
            saver_def = saver.as_saver_def()
            v1.train.export_meta_graph(meta, saver_def=saver_def)
        feeds, out = os.path.join(self.dir, "feeds"), os.path.join(self.dir, "out")
        runner = [interop.binary("model_runner"), f"--graph={meta}", f"--checkpoint={prefix}",
                  f"--feeds={feeds}", f"--out={out}"]
        interop.write_records(feeds, {})
        interop.run(runner + ["--fetch=" + ",".join(f"{n}/value:0" for n in blocks)])
        got = interop.read_records(out)
        for name, (rows, cols) in blocks.items():
            np.testing.assert_array_equal(got[f"{name}/value:0"], whole[rows, cols], name)

        mine = os.path.join(self.dir, "by_minigraph")
        interop.write_records(feeds, {saver_def.filename_tensor_name: mine.encode()})
        interop.run(runner + [f"--fetch={saver_def.save_tensor_name}"])
        interop.assert_same_bits(self, {"w": whole}, interop.tensorflow_read(mine),
                                 "2-D parts saved by minigraph")

    def test_object_based_checkpoint(self):
        root = tf.train.Checkpoint(
            v=tf.Variable(self.rng.standard_normal(4).astype(np.float32)),
            nested=tf.train.Checkpoint(step=tf.Variable(3, dtype=tf.int64)),
        )
        path = root.save(os.path.join(self.dir, "obj"))
        got = interop.minigraph_read(path)
        self.assertIn("_CHECKPOINTABLE_OBJECT_GRAPH", got)
        self.assertIn("v/.ATTRIBUTES/VARIABLE_VALUE", got)
        self.check(path, "tf.train.Checkpoint")

    def test_keras_save_weights(self):
        import tf_keras as keras

        model = keras.Sequential(
            [keras.layers.Dense(4, activation="relu", input_shape=(3,)), keras.layers.Dense(2)]
        )
        model.compile(optimizer="adam", loss="mse")
        model.fit(
            self.rng.standard_normal((8, 3)), self.rng.standard_normal((8, 2)), epochs=1, verbose=0
        )
        prefix = os.path.join(self.dir, "weights")
        model.save_weights(prefix, save_format="tf")
        self.check(prefix, "tf_keras save_weights")


class MinigraphWritesTensorFlowReads(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp()
        self.rng = np.random.default_rng(7)

    def tearDown(self):
        shutil.rmtree(self.dir)

    def test_every_dtype_and_the_same_bytes_as_tensorflow(self):
        values = interop.edge_values(self.rng)
        ours = os.path.join(self.dir, "ours")
        theirs = os.path.join(self.dir, "theirs")
        interop.minigraph_write(ours, values)
        interop.assert_same_bits(self, values, interop.tensorflow_read(ours), "BundleWriter")
        save_v2(theirs, values)
        for suffix in (".index", ".data-00000-of-00001"):
            with open(ours + suffix, "rb") as a, open(theirs + suffix, "rb") as b:
                self.assertEqual(a.read(), b.read(), f"{suffix} differs from TensorFlow's")

    def test_aligned_checkpoint_tensorflow_reads(self):
        # Each tensor at a multiple of 64 bytes, zeros between them: every
        # dtype reads in TensorFlow's CheckpointReader and RestoreV2 the same.
        values = interop.edge_values(self.rng)
        aligned = os.path.join(self.dir, "aligned")
        packed = os.path.join(self.dir, "packed")
        interop.minigraph_write(aligned, values, aligned=True)
        interop.minigraph_write(packed, values)
        data = ".data-00000-of-00001"
        self.assertGreater(os.path.getsize(aligned + data), os.path.getsize(packed + data))
        interop.assert_same_bits(self, values, interop.tensorflow_read(aligned), "aligned")
        names = sorted(values)
        restored = tf.raw_ops.RestoreV2(
            prefix=aligned, tensor_names=names, shape_and_slices=[""] * len(names),
            dtypes=[tf.constant(values[n]).dtype for n in names])
        interop.assert_same_bits(self, values, {n: t.numpy() for n, t in zip(names, restored)},
                                 "RestoreV2 of the aligned checkpoint")
        interop.assert_same_bits(self, values, interop.minigraph_read(aligned), "minigraph")

    def test_v1_format_the_same_bytes_as_tensorflows_save(self):
        # Every dtype TensorFlow's V1 writer takes (not bfloat16, uint32 or
        # uint64), written by minigraph and by TensorFlow's Save op.
        values = {k: v for k, v in interop.edge_values(self.rng).items()
                  if k not in ("bfloat16", "uint32", "uint64")}
        ours = os.path.join(self.dir, "ours.ckpt")
        theirs = os.path.join(self.dir, "theirs.ckpt")
        interop.minigraph_write(ours, values, v1=True)
        names = sorted(values)
        tf.raw_ops.Save(filename=theirs, tensor_names=names,
                        data=[tf.constant(values[n]) for n in names])
        with open(ours, "rb") as a, open(theirs, "rb") as b:
            self.assertEqual(a.read(), b.read(), "the V1 file differs from TensorFlow's")
        restored = {n: tf.raw_ops.Restore(file_pattern=ours, tensor_name=n,
                                          dt=tf.constant(values[n]).dtype).numpy()
                    for n in names}
        interop.assert_same_bits(self, values, restored, "Restore of minigraph's V1 file")
        self.assertEqual(sorted(os.listdir(self.dir)), ["ours.ckpt", "theirs.ckpt"])

    def train(self, logdir, *flags):
        interop.run(
            [interop.binary("train"), f"--logdir={logdir}", "--model=mlp", "--optimizer=adam",
             "--steps=30", "--save_every=10", "--max_to_keep=2", *flags]
        )
        return tf.train.latest_checkpoint(logdir)

    def test_train_checkpoints_restore_in_tensorflow(self):
        for flags in ([], ["--async_save"], ["--resource_variables"], ["--align_tensors"]):
            logdir = os.path.join(self.dir, "run" + "".join(flags))
            path = self.train(logdir, *flags)
            self.assertEqual(path, os.path.join(logdir, "model.ckpt-30"), flags)
            ours = interop.minigraph_read(path)
            interop.assert_same_bits(self, ours, interop.tensorflow_read(path), f"train {flags}")
            self.assertEqual(
                sorted(n for n, _ in tf.train.list_variables(path)), sorted(ours), flags
            )
            # TensorFlow's own Saver restores it into a graph of those
            # variables, then saves them: the same bytes.
            with tf.Graph().as_default():
                variables = [
                    tf.compat.v1.Variable(tf.zeros(v.shape, v.dtype), name=k)
                    for k, v in sorted(ours.items())
                ]
                saver = tf.compat.v1.train.Saver(variables)
                with tf.compat.v1.Session() as sess:
                    saver.restore(sess, path)
                    restored = dict(zip(sorted(ours), sess.run(variables)))
                    again = saver.save(sess, os.path.join(self.dir, "tf_copy"), write_state=False)
            interop.assert_same_bits(self, ours, restored, f"Saver.restore {flags}")
            # TensorFlow imports train's own meta graph and runs its Saver:
            # its restore, and its save (SaveV2 with minigraph's attrs).
            with tf.Graph().as_default():
                saver = tf.compat.v1.train.import_meta_graph(path + ".meta")
                with tf.compat.v1.Session() as sess:
                    saver.restore(sess, path)
                    resaved = saver.save(sess, os.path.join(self.dir, "tf_meta_copy"),
                                         write_state=False)
            interop.assert_same_bits(self, ours, interop.tensorflow_read(resaved),
                                     f"train's meta graph in TensorFlow {flags}")
            if "--align_tensors" in flags:
                continue  # TensorFlow's save packs the tensors: other bytes
            for suffix in (".index", ".data-00000-of-00001"):
                with open(path + suffix, "rb") as a, open(again + suffix, "rb") as b:
                    self.assertEqual(a.read(), b.read(), f"{flags}: {suffix} differs")


    def test_sharded_saver_on_ps_tasks(self):
        """`train` in a cluster of two ps tasks and a chief: each ps task
        writes the shard of the variables it holds, the chief merges them;
        TensorFlow reads the one checkpoint and its Saver restores it."""
        ports = interop.listen_ports(3)
        cluster = (f"ps=127.0.0.1:{ports[0]},127.0.0.1:{ports[1]};"
                   f"worker=127.0.0.1:{ports[2]}")
        logdir = os.path.join(self.dir, "cluster")
        ps = [subprocess.Popen([interop.binary("train"), f"--cluster={cluster}", "--job_name=ps",
                                f"--task_index={i}"], stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL) for i in range(2)]
        try:
            interop.run([interop.binary("train"), f"--cluster={cluster}", "--job_name=worker",
                         "--task_index=0", f"--logdir={logdir}", "--model=mlp",
                         "--optimizer=adam", "--steps=20", "--save_every=10",
                         "--recovery_wait_secs=0.5"], timeout=600)
        finally:
            for p in ps:
                p.terminate()
                p.wait()
        path = tf.train.latest_checkpoint(logdir)
        self.assertEqual(path, os.path.join(logdir, "model.ckpt-20"))
        for shard in range(2):
            self.assertTrue(os.path.exists(f"{path}.data-0000{shard}-of-00002"), shard)
        ours = interop.minigraph_read(path)
        interop.assert_same_bits(self, ours, interop.tensorflow_read(path), "sharded on ps")
        self.assertEqual(sorted(n for n, _ in tf.train.list_variables(path)), sorted(ours))
        with tf.Graph().as_default():
            variables = [tf.compat.v1.Variable(tf.zeros(v.shape, v.dtype), name=k)
                         for k, v in sorted(ours.items())]
            saver = tf.compat.v1.train.Saver(variables)
            with tf.compat.v1.Session() as sess:
                saver.restore(sess, path)
                restored = dict(zip(sorted(ours), sess.run(variables)))
        interop.assert_same_bits(self, ours, restored, "Saver.restore of the merged shards")


class StateFile(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp()

    def tearDown(self):
        shutil.rmtree(self.dir)

    def minigraph_state(self, d):
        """inspect_checkpoint --dir's reading: (model path, [(path, timestamp)])."""
        out = interop.run([interop.binary("inspect_checkpoint"), f"--dir={d}"]).stdout
        model = re.search(r"^model_checkpoint_path\t(\S+)\t", out, re.M).group(1)
        paths = re.findall(r"^all_model_checkpoint_paths\t(\S+)\t\w+(?:\t(\S+))?$", out, re.M)
        return model, paths

    def test_tensorflow_writes_minigraph_reads(self):
        from tensorflow.python.checkpoint import checkpoint_management as cm

        interop.minigraph_write(os.path.join(self.dir, "m-1"), {"v": np.float32(1)})
        interop.minigraph_write(os.path.join(self.dir, "m-2"), {"v": np.float32(2)})
        for relative in (False, True):
            cm.update_checkpoint_state_internal(
                self.dir,
                os.path.join(self.dir, "m-2"),
                all_model_checkpoint_paths=[os.path.join(self.dir, p) for p in ("m-1", "m-2")],
                save_relative_paths=relative,
                all_model_checkpoint_timestamps=[1700000000.25, 1700000100.5],
            )
            with open(os.path.join(self.dir, "checkpoint")) as f:
                text = f.read()
            self.assertEqual('model_checkpoint_path: "m-2"' in text, relative, text)
            model, paths = self.minigraph_state(self.dir)
            self.assertEqual(model, os.path.join(self.dir, "m-2"))
            self.assertEqual(
                paths,
                [(os.path.join(self.dir, "m-1"), "1700000000.250000"),
                 (os.path.join(self.dir, "m-2"), "1700000100.500000")],
            )

    def test_minigraph_writes_tensorflow_reads(self):
        logdir = os.path.join(self.dir, "run")
        interop.run([interop.binary("train"), f"--logdir={logdir}", "--model=linear",
                     "--steps=30", "--save_every=10", "--max_to_keep=2"])
        state = tf.train.get_checkpoint_state(logdir)
        self.assertEqual(state.model_checkpoint_path, os.path.join(logdir, "model.ckpt-30"))
        self.assertEqual(
            list(state.all_model_checkpoint_paths),
            [os.path.join(logdir, "model.ckpt-20"), os.path.join(logdir, "model.ckpt-30")],
        )
        # Rebuilt by inspect_checkpoint --repair_state: relative paths and
        # timestamps, which TensorFlow reads joined with the directory.
        os.remove(os.path.join(logdir, "checkpoint"))
        interop.run([interop.binary("inspect_checkpoint"), f"--dir={logdir}", "--repair_state",
                     "--write"])
        state = tf.train.get_checkpoint_state(logdir)
        self.assertEqual(state.model_checkpoint_path, os.path.join(logdir, "model.ckpt-30"))
        self.assertEqual(len(state.all_model_checkpoint_timestamps), 2)
        self.assertEqual(tf.train.latest_checkpoint(logdir), os.path.join(logdir, "model.ckpt-30"))


if __name__ == "__main__":
    unittest.main(verbosity=2)
