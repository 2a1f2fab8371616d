"""Cases for DecodeProtoV2 and EncodeProto (tf.io.decode_proto and
encode_proto): a proto2 message type with a field of every type (singular
with defaults, repeated, packed, an enum, a nested message and a group),
given as a serialized FileDescriptorSet (bytes:// and a file) and
TensorFlow's own types by local://; messages written by Python's protobuf."""

import os
import tempfile

import numpy as np

from interop import tf
from op_cases import Spec

from google.protobuf import descriptor_pb2
from google.protobuf import descriptor_pool
from google.protobuf import message_factory

F = descriptor_pb2.FieldDescriptorProto

# (name, field type, output dtypes the field reads into, proto2 default).
SCALARS = [
    ("d", F.TYPE_DOUBLE, (tf.float64,), "-2.5"),
    ("f", F.TYPE_FLOAT, (tf.float32, tf.float64), "1.25"),
    ("i64", F.TYPE_INT64, (tf.int64,), "-7"),
    ("u64", F.TYPE_UINT64, (tf.uint64,), "9"),
    ("i32", F.TYPE_INT32, (tf.int32, tf.int64), "-3"),
    ("x64", F.TYPE_FIXED64, (tf.uint64,), "11"),
    ("x32", F.TYPE_FIXED32, (tf.uint32, tf.uint64), "12"),
    ("b", F.TYPE_BOOL, (tf.bool,), "true"),
    ("u32", F.TYPE_UINT32, (tf.uint32, tf.uint64), "13"),
    ("e", F.TYPE_ENUM, (tf.int32,), "BLUE"),
    ("sx32", F.TYPE_SFIXED32, (tf.int32, tf.int64), "-14"),
    ("sx64", F.TYPE_SFIXED64, (tf.int64,), "-15"),
    ("s32", F.TYPE_SINT32, (tf.int32, tf.int64), "-16"),
    ("s64", F.TYPE_SINT64, (tf.int64,), "-17"),
]
STRINGS = [("str", F.TYPE_STRING, "dflt"), ("byt", F.TYPE_BYTES, "\\001z")]

_SCHEMA = None


def schema():
    """(FileDescriptorSet bytes, message class of mgtest.All)."""
    global _SCHEMA
    if _SCHEMA is not None:
        return _SCHEMA
    f = descriptor_pb2.FileDescriptorProto(name="mgtest.proto", package="mgtest",
                                           syntax="proto2")
    color = f.enum_type.add(name="Color")
    for name, number in (("RED", 0), ("GREEN", 1), ("BLUE", 2), ("DARK", -4)):
        color.value.add(name=name, number=number)
    inner = f.message_type.add(name="Inner")
    inner.field.add(name="x", number=1, type=F.TYPE_INT32, label=F.LABEL_OPTIONAL)
    msg = f.message_type.add(name="All")
    number = 1
    for name, typ, _, default in SCALARS:
        extra = {"type_name": ".mgtest.Color"} if typ == F.TYPE_ENUM else {}
        msg.field.add(name="o_" + name, number=number, type=typ, label=F.LABEL_OPTIONAL,
                      default_value=default, **extra)
        msg.field.add(name="r_" + name, number=number + 1, type=typ, label=F.LABEL_REPEATED,
                      **extra)
        packed = msg.field.add(name="p_" + name, number=number + 2, type=typ,
                               label=F.LABEL_REPEATED, **extra)
        packed.options.packed = True
        number += 3
    for name, typ, default in STRINGS:
        msg.field.add(name="o_" + name, number=number, type=typ, label=F.LABEL_OPTIONAL,
                      default_value=default)
        msg.field.add(name="r_" + name, number=number + 1, type=typ, label=F.LABEL_REPEATED)
        number += 2
    msg.field.add(name="o_msg", number=number, type=F.TYPE_MESSAGE, label=F.LABEL_OPTIONAL,
                  type_name=".mgtest.Inner")
    msg.field.add(name="r_msg", number=number + 1, type=F.TYPE_MESSAGE,
                  label=F.LABEL_REPEATED, type_name=".mgtest.Inner")
    grp = msg.nested_type.add(name="Grp")
    grp.field.add(name="y", number=1, type=F.TYPE_INT64, label=F.LABEL_OPTIONAL)
    msg.field.add(name="grp", number=number + 2, type=F.TYPE_GROUP, label=F.LABEL_REPEATED,
                  type_name=".mgtest.All.Grp")
    pool = descriptor_pool.DescriptorPool()
    pool.Add(f)
    cls = message_factory.GetMessageClass(pool.FindMessageTypeByName("mgtest.All"))
    fds = descriptor_pb2.FileDescriptorSet(file=[f]).SerializeToString()
    _SCHEMA = (fds, cls)
    return _SCHEMA


def _value(rng, typ):
    return {
        F.TYPE_DOUBLE: lambda: float(rng.normal() * 1e3),
        F.TYPE_FLOAT: lambda: float(np.float32(rng.normal() * 10)),
        F.TYPE_INT64: lambda: int(rng.integers(-2**62, 2**62)),
        F.TYPE_UINT64: lambda: int(rng.integers(0, 2**63)) * 2 + 1,
        F.TYPE_INT32: lambda: int(rng.integers(-2**31, 2**31)),
        F.TYPE_FIXED64: lambda: int(rng.integers(0, 2**63)) * 2,
        F.TYPE_FIXED32: lambda: int(rng.integers(0, 2**32)),
        F.TYPE_BOOL: lambda: bool(rng.integers(0, 2)),
        F.TYPE_UINT32: lambda: int(rng.integers(0, 2**32)),
        F.TYPE_ENUM: lambda: int(rng.choice([0, 1, 2, -4])),
        F.TYPE_SFIXED32: lambda: int(rng.integers(-2**31, 2**31)),
        F.TYPE_SFIXED64: lambda: int(rng.integers(-2**62, 2**62)),
        F.TYPE_SINT32: lambda: int(rng.integers(-2**31, 2**31)),
        F.TYPE_SINT64: lambda: int(rng.integers(-2**62, 2**62)),
    }[typ]()


def messages(rng, count):
    """`count` serialized mgtest.All: each field set with probability 1/2,
    repeated ones 0 to 4 times; every third message two serializations
    joined (fields out of order, a singular field's last value wins)."""
    _, cls = schema()
    out = []
    for k in range(count):
        parts = []
        for _ in range(2 if k % 3 == 2 else 1):
            m = cls()
            for name, typ, _, _ in SCALARS:
                if rng.integers(0, 2):
                    setattr(m, "o_" + name, _value(rng, typ))
                for prefix in ("r_", "p_"):
                    getattr(m, prefix + name).extend(
                        _value(rng, typ) for _ in range(rng.integers(0, 5)))
            for name, typ, _ in STRINGS:
                word = lambda: bytes(rng.integers(0, 256, rng.integers(0, 6)).astype(np.uint8))
                if rng.integers(0, 2):
                    setattr(m, "o_" + name, word().hex() if typ == F.TYPE_STRING else word())
                for _ in range(rng.integers(0, 4)):
                    getattr(m, "r_" + name).append(
                        word().hex() if typ == F.TYPE_STRING else word())
            if rng.integers(0, 2):
                m.o_msg.x = int(rng.integers(-50, 50))
            for _ in range(rng.integers(0, 3)):
                m.r_msg.add(x=int(rng.integers(-50, 50)))
                m.grp.add(y=int(rng.integers(-50, 50)))
            parts.append(m.SerializeToString())
        out.append(b"".join(parts))
    return out


def _bytes(values, shape=None):
    a = np.array(values, dtype=object)
    return a.reshape(shape) if shape is not None else a


def _decode_spec(label, bufs, fields, types, source, **attrs):
    a = {"message_type": attrs.pop("message_type", "mgtest.All"), "field_names": fields,
         "output_types": types, "descriptor_source": source}
    a.update(attrs)
    return Spec(label, [bufs], a)


def descriptor_file():
    """The FileDescriptorSet in a file (the same bytes every run)."""
    fds, _ = schema()
    path = os.path.join(tempfile.gettempdir(), "minigraph_op_test_mgtest.desc")
    with open(path, "wb") as f:
        f.write(fds)
    return path


def decode_proto(dt, rng):
    """DecodeProtoV2: every field type into each dtype it reads into
    (singular ones absent in some messages: their defaults; repeated ones
    padded with defaults to the longest), packed and unpacked, the nested
    message and the group as bytes, a batch of rank 2, text messages,
    sanitized ones, a field asked for twice, extensions' absence, from
    bytes://, a file and local:// (TensorFlow's own Example and FloatList).
    An unknown message type or field, an output type the field cannot read
    into, an empty batch, truncated and corrupt messages, a text message
    that does not parse and a descriptor_source of no FileDescriptorSet
    fail."""
    fds, cls = schema()
    source = b"bytes://" + fds
    bufs = _bytes(messages(rng, 6))
    out = []
    for name, _, dtypes, _ in SCALARS:
        for d in dtypes:
            fields = ["o_" + name, "r_" + name, "p_" + name]
            if (name, d) == ("i32", tf.int64):
                # TensorFlow reads packed int32s into int64 unsigned (TENSORFLOW_BUGS).
                out.append(_decode_spec("packed_negative.i32.int64", bufs, fields[2:], [d],
                                        source))
                fields = fields[:2]
            out.append(_decode_spec(f"{name}.{d.name}", bufs, fields, [d] * len(fields),
                                    source))
    for name, _, _ in STRINGS:
        out.append(_decode_spec(name, bufs, ["o_" + name, "r_" + name], [tf.string] * 2, source))
    out.append(_decode_spec("messages", bufs, ["r_msg", "o_msg", "grp"], [tf.string] * 3,
                            source))
    out.append(_decode_spec("mixed.file", bufs.reshape(2, 3), ["p_s64", "o_str", "r_e", "o_b"],
                            [tf.int64, tf.string, tf.int32, tf.bool], descriptor_file()))
    out.append(_decode_spec("twice", bufs, ["r_i32", "r_i32"], [tf.int32, tf.int64], source))
    out.append(_decode_spec("none", bufs, [], [], source))
    out.append(_decode_spec("sanitize", bufs, ["r_u64", "o_d", "p_sx32"],
                            [tf.uint64, tf.float64, tf.int32], source, sanitize=True))
    texts = _bytes([b"o_i32: 5 r_str: 'a' r_str: 'b'", b"", b"p_f: [1.5, 2] o_e: DARK"])
    out.append(_decode_spec("text", texts, ["o_i32", "r_str", "p_f", "o_e"],
                            [tf.int32, tf.string, tf.float32, tf.int32], source,
                            message_format="text"))
    ex = tf.train.Example(features=tf.train.Features(feature={
        "a": tf.train.Feature(float_list=tf.train.FloatList(value=[1.0, 2.5]))}))
    fl = [tf.train.FloatList(value=v).SerializeToString() for v in ([1, 2, 3], [], [0.5])]
    out.append(_decode_spec("local.example", _bytes([ex.SerializeToString(), b""]),
                            ["features"], [tf.string], "local://",
                            message_type="tensorflow.Example"))
    out.append(_decode_spec("local.float_list", _bytes(fl), ["value"], [tf.float32], "local://",
                            message_type="tensorflow.FloatList"))
    good = bufs[0]
    out.append(_decode_spec("unknown_type", bufs, ["o_i32"], [tf.int32], source,
                            message_type="mgtest.Nope"))
    out.append(_decode_spec("unknown_field", bufs, ["o_nope"], [tf.int32], source))
    out.append(_decode_spec("incompatible", bufs, ["o_i64"], [tf.int32], source))
    out.append(_decode_spec("empty_batch", _bytes([]), ["o_i32"], [tf.int32], source))
    out.append(_decode_spec("truncated", _bytes([good[:len(good) // 2]]), ["r_i64"],
                            [tf.int64], source))
    out.append(_decode_spec("corrupt", _bytes([b"\x0a\xff\xff\xff\xff\x0f"]), ["r_i64"],
                            [tf.int64], source))
    out.append(_decode_spec("bad_text", _bytes([b"o_i32: 'x'"]), ["o_i32"], [tf.int32], source,
                            message_format="text"))
    out.append(_decode_spec("bad_descriptor", bufs, ["o_i32"], [tf.int32],
                            b"bytes://not a descriptor set"))
    return out


def encode_proto(dt, rng):
    """EncodeProto: every field type from each dtype it writes from
    (packed and unpacked, sizes below the values' width, zero sizes), the
    nested message and the group from bytes, a batch of rank 2, TensorFlow's
    FloatList by local://, bytes exactly as TensorFlow writes them. Sizes
    larger than the values, sizes of the wrong shape, values of another
    batch, values of rank 1, a dtype the field cannot take and an unknown
    field fail."""
    fds, _ = schema()
    source = b"bytes://" + fds
    batch = 4
    out = []

    def values(d, width):
        if d == tf.bool:
            return rng.integers(0, 2, (batch, width)).astype(bool)
        if d.is_floating:
            return (rng.normal(size=(batch, width)) * 100).astype(d.as_numpy_dtype)
        info = np.iinfo(d.as_numpy_dtype)
        lo, hi = max(info.min, -2**40), min(info.max, 2**40)
        return rng.integers(lo, hi, (batch, width), dtype=np.int64).astype(d.as_numpy_dtype)

    def spec(label, fields, vals, sizes, **attrs):
        a = {"message_type": "mgtest.All", "field_names": fields, "descriptor_source": source}
        a.update(attrs)
        return Spec(label, [np.asarray(sizes, np.int32), vals], a)

    for name, _, dtypes, _ in SCALARS:
        for d in dtypes:
            fields = ["p_" + name, "o_" + name, "r_" + name]
            vals = [values(d, 3), values(d, 1), values(d, 4)]
            sizes = np.stack([rng.integers(0, 4, batch), rng.integers(0, 2, batch),
                              rng.integers(0, 5, batch)], axis=1)
            out.append(spec(f"{name}.{d.name}", fields, vals, sizes))
    words = np.array([[b"", b"ab", b"\x00\xff"], [b"xyz", b"", b"q"]] * 2, dtype=object)
    inner = np.array([[b"\x08\x05", b""]] * batch, dtype=object)
    out.append(spec("strings", ["r_byt", "o_str", "r_msg", "grp"],
                    [words, words[:, :1], inner, np.array([[b"\x08\x07"]] * batch, dtype=object)],
                    [[3, 1, 2, 1], [0, 0, 1, 0], [2, 1, 0, 1], [1, 1, 2, 0]]))
    out.append(spec("rank2", ["r_s32", "o_b"],
                    [values(tf.int32, 2).reshape(2, 2, 2), values(tf.bool, 1).reshape(2, 2, 1)],
                    np.ones((2, 2, 2))))
    out.append(Spec("local.float_list", [np.array([[2], [0]], np.int32),
                                         [np.array([[1.5, 2.0], [3.0, 4.0]], np.float32)]],
                    {"message_type": "tensorflow.FloatList", "field_names": ["value"],
                     "descriptor_source": "local://"}))
    v = [values(tf.int64, 2)]
    out.append(spec("size_too_large", ["r_i64"], v, np.full((batch, 1), 3)))
    out.append(spec("sizes_shape", ["r_i64"], v, np.ones((batch, 2))))
    out.append(spec("batches_differ", ["r_i64", "r_s64"], v + [values(tf.int64, 2)[:2]],
                    np.ones((batch, 2))))
    out.append(spec("rank1", ["r_i64"], [values(tf.int64, 2)[:, 0]], np.ones((batch, 1))))
    out.append(spec("incompatible", ["r_i64"], [values(tf.int32, 2)], np.ones((batch, 1))))
    out.append(spec("unknown_field", ["r_nope"], v, np.ones((batch, 1))))
    return out


def register(generators):
    generators["DecodeProtoV2"] = (decode_proto, None)
    generators["EncodeProto"] = (encode_proto, None)
