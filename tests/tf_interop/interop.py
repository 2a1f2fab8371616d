"""What the TensorFlow interop tests share: TensorFlow itself, minigraph's
binaries (paths from the environment the sh_test wrapper sets), and exact
comparison of tensors."""

import os
import random
import socket
import struct
import subprocess
import tempfile
import threading

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
# TensorFlow's own kernels are the oracle: oneDNN's (on by default for some float32
# ops) give results that depend on the CPU's vector width where NaNs and
# ties are involved (Softmax, MaxPool's gradient).
os.environ.setdefault("TF_ENABLE_ONEDNN_OPTS", "0")
import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402
from tensorflow.core.framework import tensor_pb2  # noqa: E402


def binary(name):
    """The path of one of minigraph's binaries, from MG_<NAME>."""
    return os.environ["MG_" + name.upper()]


def run(args, **kwargs):
    """Runs a minigraph binary; raises with its output when it fails."""
    p = subprocess.run(args, capture_output=True, text=True, **kwargs)
    if p.returncode != 0:
        raise AssertionError(f"{args} exited {p.returncode}:\n{p.stdout}\n{p.stderr}")
    return p


def write_records(path, tensors):
    """Writes {key: ndarray} in ckpt_tool's tensor file format."""
    with open(path, "wb") as f:
        for key, value in tensors.items():
            proto = tf.make_tensor_proto(value).SerializeToString()
            k = key.encode()
            f.write(struct.pack("<I", len(k)) + k + struct.pack("<Q", len(proto)) + proto)


def read_records(path):
    """Reads ckpt_tool's tensor file as {key: ndarray}."""
    out = {}
    with open(path, "rb") as f:
        data = f.read()
    at = 0
    while at < len(data):
        (n,) = struct.unpack_from("<I", data, at)
        key = data[at + 4 : at + 4 + n].decode()
        at += 4 + n
        (m,) = struct.unpack_from("<Q", data, at)
        proto = tensor_pb2.TensorProto.FromString(data[at + 8 : at + 8 + m])
        at += 8 + m
        out[key] = tf.make_ndarray(proto)
    return out


def listen_ports(n):
    """`n` distinct loopback ports for a test's servers: free now, and below
    the kernel's ephemeral range, so that no outgoing connection (one task
    dialing another) takes one as its source port before its server binds
    it, as it could a port the kernel picked."""
    try:
        with open("/proc/sys/net/ipv4/ip_local_port_range") as f:
            low = int(f.read().split()[0])
    except (OSError, ValueError):
        low = 32768
    pick = random.SystemRandom()
    ports = []
    while len(ports) < n:
        port = pick.randrange(max(1024, low - 16384), low)
        if port in ports:
            continue
        with socket.socket() as sock:
            try:
                sock.bind(("127.0.0.1", port))
            except OSError:
                continue
        ports.append(port)
    return ports


def start_serving(test, args, ready, what):
    """Starts the task `args` until `test` ends; returns its process once a
    line of its output has `ready`. AssertionError naming `what` when it
    exits before."""
    proc = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    test.addCleanup(proc.stdout.close)
    test.addCleanup(proc.wait)
    test.addCleanup(proc.kill)
    for line in proc.stdout:
        if ready in line:
            # Drain the rest, so that the task never blocks on the pipe.
            threading.Thread(target=proc.stdout.read, daemon=True).start()
            return proc
    raise AssertionError(f"{what} exited before serving")


def minigraph_read(prefix):
    """Every tensor of a checkpoint as minigraph's BundleReader reads it."""
    with tempfile.TemporaryDirectory() as d:
        out = os.path.join(d, "tensors")
        run([binary("ckpt_tool"), "dump", prefix, out])
        return read_records(out)


def minigraph_write(prefix, tensors, v1=False, aligned=False):
    """Writes {key: ndarray} as a checkpoint with minigraph's BundleWriter
    (with aligned, each tensor at a multiple of 64 bytes), or with v1, as the
    one file of TensorFlow's V1 format."""
    with tempfile.TemporaryDirectory() as d:
        records = os.path.join(d, "tensors")
        write_records(records, tensors)
        command = "write-v1" if v1 else "write-aligned" if aligned else "write"
        run([binary("ckpt_tool"), command, prefix, records])


def tensorflow_read(prefix):
    """Every tensor of a checkpoint as TensorFlow's CheckpointReader reads it."""
    reader = tf.train.load_checkpoint(prefix)
    return {k: reader.get_tensor(k) for k in reader.get_variable_to_shape_map()}


def as_array(value):
    """An ndarray; strings (TensorFlow's reader gives bytes or S arrays) as
    object arrays of bytes, as tf.make_ndarray gives them."""
    if isinstance(value, bytes):
        return np.array(value, dtype=object)
    a = value if isinstance(value, np.ndarray) else np.asarray(value)
    if a.dtype.kind in "SU" or (a.dtype == object and a.size and isinstance(a.flat[0], str)):
        a = np.array([x.encode() if isinstance(x, str) else bytes(x) for x in a.ravel()],
                     dtype=object).reshape(a.shape)
    return a


def assert_same_bits(test, want, got, what=""):
    """Same keys, dtypes, shapes and bytes (NaN payloads, -0.0, every string)."""
    test.assertEqual(sorted(want), sorted(got), what)
    for key in want:
        a, b = as_array(want[key]), as_array(got[key])
        msg = f"{what}: tensor {key!r}"
        test.assertEqual(a.dtype, b.dtype, msg)
        test.assertEqual(a.shape, b.shape, msg)
        if a.dtype == object:
            test.assertEqual([bytes(x) for x in a.ravel()], [bytes(x) for x in b.ravel()], msg)
        else:
            test.assertEqual(a.tobytes(), b.tobytes(), msg)


@np.errstate(over="ignore")
def edge_values(rng):
    """A tensor of every dtype a checkpoint holds, with their edge values."""
    f32 = np.array(
        [0.0, -0.0, np.inf, -np.inf, np.nan, 1e-45, -1e-45, 3.4028235e38, 1.17549435e-38, 1.5],
        dtype=np.float32,
    )
    # A NaN with a payload: the bits must survive, not only the NaN-ness.
    f32 = np.concatenate([f32, np.array([0x7FC01234], dtype=np.uint32).view(np.float32)])
    f64 = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 5e-324, 1.7976931348623157e308, -2.5])
    values = {
        "bool": rng.random((3, 4)) > 0.5,
        "float": f32.reshape(1, 11),
        "double": f64,
        # float32's extremes become half's infinities and zeros, on purpose.
        "half": np.concatenate([f32.astype(np.float16), rng.standard_normal(5).astype(np.float16)]),
        "bfloat16": f32.astype(tf.bfloat16.as_numpy_dtype),
        "complex64": (rng.standard_normal(6) + 1j * rng.standard_normal(6)).astype(np.complex64),
        "complex128": np.array([complex(np.inf, -0.0), 1 + 2j, complex(np.nan, 1)]),
        "scalar": np.float32(3.25),
        "scalar_string": np.array(b"one", dtype=object),
        "empty": np.zeros((0, 3), np.float32),
        "empty_string": np.array([], dtype=object).reshape(2, 0),
        "odd_shape": rng.standard_normal((1, 7, 1, 3)).astype(np.float32),
        "strings": np.array(
            [b"", b"a", bytes(range(256)), b"\x00" * 5, os.urandom(3 << 20), b"\xff\xfe"],
            dtype=object,
        ),
    }
    for t in (np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64):
        info = np.iinfo(t)
        v = np.concatenate(
            [np.array([info.min, info.max, 0, 1], dtype=t),
             rng.integers(info.min, info.max, 6, dtype=t, endpoint=True)]
        )
        values[np.dtype(t).name] = v.reshape(2, 5)
    return values
