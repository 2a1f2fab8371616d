"""The op interop test's cases of the image ops: bytes of every format and
colour type the decoders meet (JPEGs and PNGs TensorFlow encoded; palette,
transparent, interlaced and low-bit PNGs, GIFs and BMPs written here, since
TensorFlow has no encoder for them), decoded with every option; images
encoded with every option, compared byte for byte; resizes of every dtype
and corner mode, with their gradients; projective transforms of every fill
mode."""

import io
import os
import shutil
import struct
import subprocess
import tempfile
import zlib

import numpy as np

from interop import tf
from op_cases import Spec, random_values

v1 = tf.compat.v1


def _run(fn):
    with tf.Graph().as_default(), v1.Session() as sess:
        return sess.run(fn())


def _picture(rng, h, w, c, dtype=np.uint8):
    """A smooth picture with noise (as photographs are), so that JPEG's
    rounding meets real gradients."""
    y, x = np.mgrid[0:h, 0:w]
    top = np.iinfo(dtype).max
    planes = [(np.sin(x / (3.0 + k) + y / (5.0 + k)) + 1) / 2 * top for k in range(c)]
    noise = rng.integers(0, max(top // 16, 1), (h, w, c))
    return np.clip(np.stack(planes, -1) + noise, 0, top).astype(dtype)


def _scalar(b):
    return np.array(b, dtype=object)


# ---------------------------------------------------------------- writers

def _chunk(kind, data):
    return (struct.pack(">I", len(data)) + kind + data
            + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF))


def _adam7(h, w):
    """The rows and columns of each of Adam7's seven passes."""
    passes = [(0, 0, 8, 8), (0, 4, 8, 8), (4, 0, 8, 4), (0, 2, 4, 4), (2, 0, 4, 2),
              (0, 1, 2, 2), (1, 0, 2, 1)]
    return [(range(r0, h, dr), range(c0, w, dc)) for r0, c0, dr, dc in passes]


def png(samples, color_type, bit_depth, palette=None, trns=None, interlace=False):
    """A PNG of `samples` [h, w, k] (palette indices, gray or RGB, with or
    without alpha) at `bit_depth`, with no filtering."""
    h, w = samples.shape[:2]

    def rows_of(block):
        out = b""
        for row in block:
            flat = row.reshape(-1).astype(np.int64)
            if bit_depth == 16:
                data = flat.astype(">u2").tobytes()
            elif bit_depth == 8:
                data = flat.astype(np.uint8).tobytes()
            else:
                per = 8 // bit_depth
                flat = np.concatenate([flat, np.zeros((-len(flat)) % per, np.int64)])
                packed = np.zeros(len(flat) // per, np.int64)
                for k in range(per):
                    packed |= flat[k::per] << (8 - bit_depth * (k + 1))
                data = packed.astype(np.uint8).tobytes()
            out += b"\x00" + data
        return out

    if interlace:
        raw = b"".join(rows_of(samples[np.ix_(list(r), list(c))])
                       for r, c in _adam7(h, w) if len(r) and len(c))
    else:
        raw = rows_of(samples)
    out = b"\x89PNG\r\n\x1a\n" + _chunk(b"IHDR", struct.pack(
        ">IIBBBBB", w, h, bit_depth, color_type, 0, 0, 1 if interlace else 0))
    if palette is not None:
        out += _chunk(b"PLTE", np.asarray(palette, np.uint8).tobytes())
    if trns is not None:
        out += _chunk(b"tRNS", trns)
    return out + _chunk(b"IDAT", zlib.compress(raw)) + _chunk(b"IEND", b"")


def _lzw_uncompressed(indices):
    """GIF's LZW stream of 8-bit indices, each a literal code: a clear code
    every 250 pixels keeps the code width at 9 bits."""
    clear, end = 256, 257
    codes = []
    for at in range(0, len(indices), 250):
        codes.append(clear)
        codes.extend(int(i) for i in indices[at:at + 250])
    codes.append(end)
    acc, nbits, out = 0, 0, bytearray()
    for code in codes:
        acc |= code << nbits
        nbits += 9
        while nbits >= 8:
            out.append(acc & 0xFF)
            acc >>= 8
            nbits -= 8
    if nbits:
        out.append(acc & 0xFF)
    blocks = b"".join(bytes([len(out[i:i + 255])]) + bytes(out[i:i + 255])
                      for i in range(0, len(out), 255))
    return b"\x08" + blocks + b"\x00"


def gif(width, height, frames, palette):
    """A GIF89a: `frames` are dicts of pixels (indices [h, w]), left, top, and
    optionally a local palette, a transparent index and interlacing."""
    out = b"GIF89a" + struct.pack("<HHBBB", width, height, 0xF7, 0, 0)
    out += np.asarray(palette, np.uint8).tobytes()
    for f in frames:
        px = np.asarray(f["pixels"])
        fh, fw = px.shape
        if "transparent" in f:
            gce = struct.pack("<BHB", 1 | (1 << 2), 10, f["transparent"])  # transparent, disposal 1
            out += b"\x21\xF9\x04" + gce + b"\x00"
        flags = (0x80 | 7 if "palette" in f else 0) | (0x40 if f.get("interlace") else 0)
        out += b"\x2C" + struct.pack("<HHHHB", f.get("left", 0), f.get("top", 0), fw, fh, flags)
        if "palette" in f:
            out += np.asarray(f["palette"], np.uint8).tobytes()
        rows = list(range(fh))
        if f.get("interlace"):
            rows = (list(range(0, fh, 8)) + list(range(4, fh, 8)) + list(range(2, fh, 4))
                    + list(range(1, fh, 2)))
        out += _lzw_uncompressed(px[rows].reshape(-1))
    return out + b"\x3B"


def bmp(pixels, bits, top_down=False):
    """A BMP of BGR(A) or 8-bit pixels [h, w, k] (an 8-bit one with a gray
    palette, which TensorFlow skips and reads the indices of)."""
    h, w = pixels.shape[:2]
    k = bits // 8
    row = (k * w + 3) // 4 * 4
    palette = bytes(x for i in range(256) for x in (i, i, i, 0)) if bits == 8 else b""
    offset = 14 + 40 + len(palette)
    body = b""
    for r in (range(h) if top_down else range(h - 1, -1, -1)):
        line = pixels[r].astype(np.uint8).tobytes()
        body += line + b"\x00" * (row - len(line))
    header = b"BM" + struct.pack("<IHHI", offset + len(body), 0, 0, offset)
    info = struct.pack("<IiiHHIIiiII", 40, w, -h if top_down else h, 1, bits, 0, len(body),
                       2835, 2835, 0, 0)
    return header + info + palette + body


# ---------------------------------------------------------------- the images

_IMAGES = None


def images():
    """{name: bytes}, made once (TensorFlow encodes the JPEGs and some PNGs)."""
    global _IMAGES
    if _IMAGES is not None:
        return _IMAGES
    rng = np.random.default_rng(7)
    rgb = _picture(rng, 37, 53, 3)
    gray = _picture(rng, 29, 31, 1)
    out = {}
    jpegs = {
        "rgb": (rgb, {}), "gray": (gray, {}), "progressive": (rgb, {"progressive": True}),
        "no_subsampling": (rgb, {"chroma_downsampling": False}),
        "q30": (rgb, {"quality": 30}), "big": (_picture(rng, 211, 317, 3), {}),
    }
    for name, (img, attrs) in jpegs.items():
        out["jpeg_" + name] = _run(lambda: tf.io.encode_jpeg(img, **attrs))
    for k in (1, 2, 3, 4):
        out[f"png_{k}ch"] = _run(lambda: tf.io.encode_png(_picture(rng, 17, 23, k)))
        out[f"png16_{k}ch"] = _run(lambda: tf.io.encode_png(_picture(rng, 13, 11, k, np.uint16)))
    pal = rng.integers(0, 256, (256, 3))
    idx = rng.integers(0, 16, (9, 14, 1))
    out["png_palette4"] = png(idx, 3, 4, palette=pal[:16])
    out["png_palette8_trns"] = png(idx * 3, 3, 8, palette=pal, trns=bytes(range(0, 255, 5)))
    out["png_gray1"] = png(rng.integers(0, 2, (10, 13, 1)), 0, 1)
    out["png_gray2_trns"] = png(rng.integers(0, 4, (7, 9, 1)), 0, 2, trns=b"\x00\x02")
    out["png_gray16_alpha"] = png(rng.integers(0, 65536, (6, 5, 2)), 4, 16)
    out["png_rgb_interlaced"] = png(rng.integers(0, 256, (19, 21, 3)), 2, 8, interlace=True)
    out["png_rgba16_interlaced"] = png(rng.integers(0, 65536, (9, 10, 4)), 6, 16, interlace=True)
    palette = rng.integers(0, 256, (256, 3))
    frame = lambda h, w: rng.integers(0, 256, (h, w))
    out["gif_one"] = gif(12, 10, [{"pixels": frame(10, 12)}], palette)
    out["gif_animated"] = gif(12, 10, [
        {"pixels": frame(10, 12)},
        {"pixels": frame(4, 5), "left": 3, "top": 2, "transparent": 7},
        {"pixels": frame(10, 12), "palette": rng.integers(0, 256, (256, 3)), "interlace": True},
        {"pixels": np.full((3, 3), 9), "left": 10, "top": 8, "transparent": 9},
    ], palette)
    out["gif_offset_first"] = gif(8, 8, [{"pixels": frame(3, 4), "left": 2, "top": 1,
                                          "transparent": 5}], palette)
    out["bmp_24"] = bmp(rng.integers(0, 256, (7, 5, 3)), 24)
    out["bmp_32_top_down"] = bmp(rng.integers(0, 256, (4, 6, 4)), 32, top_down=True)
    out["bmp_8"] = bmp(rng.integers(0, 256, (5, 3, 1)), 8)
    out.update(webp_images(rng))
    out.update(jxl_images(rng))
    _IMAGES = out
    return out


def webp_images(rng):
    """WebP stills (lossy and lossless RGB, lossless RGBA) and an RGBA
    animation, by Pillow's libwebp. (An RGB animation crashes TensorFlow:
    its decoder needs RGBA and frees the frame buffer twice.)"""
    from PIL import Image

    def save(frames, **kw):
        b = io.BytesIO()
        images = [Image.fromarray(f) for f in frames]
        images[0].save(b, "WEBP", save_all=len(images) > 1, append_images=images[1:], **kw)
        return b.getvalue()
    return {
        "webp_lossy": save([_picture(rng, 13, 17, 3)], quality=60),
        "webp_lossless": save([_picture(rng, 9, 11, 3)], lossless=True),
        "webp_rgba": save([_picture(rng, 8, 6, 4)], lossless=True),
        "webp_animated": save([_picture(rng, 7, 5, 4) for _ in range(3)], lossless=True,
                              duration=40),
    }


def jxl_images(rng):
    """JPEG XL by Debian's cjxl (libjxl-tools): lossless and lossy, gray,
    gray with alpha, RGB and RGBA, a bare codestream and a container, and an
    animation (of which every decode op reads the first frame)."""
    cjxl = shutil.which("cjxl")
    if cjxl is None:
        raise RuntimeError("cjxl is missing: tools/setup.sh installs libjxl-tools")
    out = {}
    with tempfile.TemporaryDirectory() as tmp:
        def encode(name, source, suffix, *flags):
            src, dst = os.path.join(tmp, name + suffix), os.path.join(tmp, name + ".jxl")
            with open(src, "wb") as f:
                f.write(source)
            subprocess.run([cjxl, src, dst, *flags], check=True, capture_output=True)
            with open(dst, "rb") as f:
                out["jxl_" + name] = f.read()
        color = {1: 0, 2: 4, 3: 2, 4: 6}
        for k in (1, 2, 3, 4):
            pic = _picture(rng, 11 + k, 13, k)
            encode(f"lossless_{k}ch", png(pic, color[k], 8), ".png", "-d", "0")
        encode("lossy_3ch", png(_picture(rng, 23, 19, 3), 2, 8), ".png", "-d", "1.5")
        encode("lossy_4ch_container", png(_picture(rng, 9, 17, 4), 6, 8), ".png",
               "-d", "2", "--container=1")
        palette = rng.integers(0, 256, (256, 3))
        frames = [{"pixels": rng.integers(0, 256, (6, 7))} for _ in range(3)]
        encode("animated", gif(7, 6, frames, palette), ".gif", "-d", "0")
    return out


def _lossy_atol(name):
    """Debian's libjxl 0.7 rounds some lossy JPEG XL pixels one off the
    libjxl TensorFlow links; its lossless pixels are exact."""
    return 1 if name.startswith("jxl_lossy") else 0


def _broken(b):
    """A truncated copy and one with its middle overwritten."""
    mid = len(b) // 2
    return {"truncated": b[:mid], "corrupt": b[:mid] + b"\xff\x00" * 8 + b[mid + 16:]}


# ---------------------------------------------------------------- decoders

def decode_jpeg(crop):
    def gen(dt, rng):
        imgs = images()
        out = []
        jpegs = {k: v for k, v in imgs.items() if k.startswith("jpeg_")}
        window = np.array([3, 5, 20, 30], np.int32)  # x = 5: not on a block boundary
        inputs = lambda b: [_scalar(b), window] if crop else [_scalar(b)]
        for name, b in jpegs.items():
            for ch in (0, 1, 3):
                out.append(Spec(f"{name}.ch{ch}", inputs(b), {"channels": ch}))
        b = jpegs["jpeg_rgb"]
        for attrs in ({"ratio": 2}, {"ratio": 4}, {"ratio": 8}, {"fancy_upscaling": False},
                      {"dct_method": "INTEGER_ACCURATE"}, {"dct_method": "INTEGER_FAST"},
                      {"channels": 4}):
            label = ".".join(f"{k}_{v}" for k, v in attrs.items())
            out.append(Spec(label, inputs(jpegs["jpeg_big"] if "ratio" in attrs else b), attrs))
        for name, bad in _broken(jpegs["jpeg_big"]).items():
            out.append(Spec(name, inputs(bad)))
            out.append(Spec(name + ".recover", inputs(bad), {"try_recover_truncated": True}))
            out.append(Spec(name + ".recover.half", inputs(bad),
                            {"try_recover_truncated": True, "acceptable_fraction": 0.5}))
        for other in ("png_3ch", "gif_one", "gif_animated", "bmp_24"):
            out.append(Spec(other, inputs(imgs[other])))
        out += [Spec("not_an_image", inputs(b"not an image")), Spec("empty", inputs(b""))]
        if crop:
            b = jpegs["jpeg_big"]
            for label, w in (("whole", [0, 0, 211, 317]), ("corner", [200, 300, 11, 17]),
                             ("one_pixel", [17, 33, 1, 1]), ("outside", [0, 0, 212, 10]),
                             ("negative", [-1, 0, 5, 5]), ("empty", [0, 0, 0, 5])):
                out.append(Spec(f"window_{label}", [_scalar(b), np.array(w, np.int32)]))
            out.append(Spec("window_of_3", [_scalar(b), np.array([0, 0, 5], np.int32)]))
            out.append(Spec("window_ratio2", [_scalar(b), window], {"ratio": 2}))
        else:
            out.append(Spec("not_a_scalar", [np.array([jpegs["jpeg_rgb"]] * 2, dtype=object)]))
        return out
    return gen


def decode_png(dt, rng):
    imgs = images()
    out = []
    for name, b in imgs.items():
        if name.startswith("png"):
            for ch in (0, 1, 2, 3, 4):
                out.append(Spec(f"{name}.ch{ch}", [_scalar(b)], {"channels": ch, "dtype": dt}))
    for name in ("jpeg_rgb", "gif_one", "gif_animated", "bmp_24"):
        out.append(Spec(name, [_scalar(imgs[name])], {"dtype": dt}))
    for name, bad in _broken(imgs["png_rgb_interlaced"]).items():
        out.append(Spec(name, [_scalar(bad)], {"dtype": dt}))
    out.append(Spec("bad_crc", [_scalar(imgs["png_3ch"][:-5] + b"\x00" * 5)], {"dtype": dt}))
    return out


def decode_gif(dt, rng):
    imgs = images()
    out = [Spec(name, [_scalar(b)]) for name, b in imgs.items()
           if name.startswith("gif") or name in ("png_3ch", "jpeg_rgb", "bmp_24")]
    for name, bad in _broken(imgs["gif_animated"]).items():
        out.append(Spec(name, [_scalar(bad)]))
    out.append(Spec("no_trailer", [_scalar(imgs["gif_one"][:-1])]))
    return out


def decode_bmp(dt, rng):
    imgs = images()
    out = []
    for name, b in imgs.items():
        if name.startswith("bmp"):
            for ch in (0, 1, 3, 4):
                out.append(Spec(f"{name}.ch{ch}", [_scalar(b)], {"channels": ch}))
    out += [Spec("jpeg", [_scalar(imgs["jpeg_rgb"])]), Spec("png", [_scalar(imgs["png_3ch"])]),
            Spec("short", [_scalar(imgs["bmp_24"][:20])]),
            Spec("size_mismatch", [_scalar(imgs["bmp_24"] + b"\x00")])]
    return out


def decode_image(dt, rng):
    imgs = images()
    out = []
    for name, b in imgs.items():
        if name == "bmp_32_top_down" and dt != tf.uint8:
            continue  # TensorFlow aborts: it allocates height * width with a negative height
        for ch in (0, 1, 3, 4):
            for expand in (True, False):
                out.append(Spec(f"{name}.ch{ch}.expand_{expand}", [_scalar(b)],
                                {"channels": ch, "dtype": dt, "expand_animations": expand},
                                int_atol=_lossy_atol(name)))
    out.append(Spec("unknown", [_scalar(b"\x00\x01\x02")], {"dtype": dt}))
    return out


def decode_webp(dt, rng):
    """DecodeWebP: every image (WebP stills and an animation as [frames,
    height, width, channels]; other formats as DecodeImage reads them), each
    number of channels (3 and 4 must be the image's, 1 fails); truncated and
    corrupt WebP, bytes of no format."""
    return _every_image_and_broken(["webp_lossy"], lambda name, kind: f"webp_{kind}")


def _every_image_and_broken(broken, label):
    """A decode op of one frame's cases: every image at each number of
    channels, broken copies of the `broken` images, and bytes of no
    format."""
    out = []
    for name, b in images().items():
        if name == "bmp_32_top_down":
            continue  # TensorFlow aborts (see decode_image)
        for ch in (0, 1, 3, 4):
            out.append(Spec(f"{name}.ch{ch}", [_scalar(b)], {"channels": ch},
                            int_atol=_lossy_atol(name)))
    for name in broken:
        for kind, b in _broken(images()[name]).items():
            out.append(Spec(label(name, kind), [_scalar(b)]))
    out.append(Spec("unknown", [_scalar(b"\x00\x01\x02")]))
    return out


def decode_jxl(dt, rng):
    """DecodeJxl: every image (JPEG XL's first frame as [height, width,
    channels], the image's own channels; other formats as DecodeImage reads
    them), each number of channels (those not the image's fail); truncated
    and corrupt JPEG XL, bytes of no format."""
    return _every_image_and_broken(["jxl_lossless_3ch", "jxl_lossy_4ch_container"],
                                   lambda name, kind: f"{name}_{kind}")


def extract_jpeg_shape(dt, rng):
    imgs = images()
    out = [Spec(name, [_scalar(b)], {"output_type": dt}) for name, b in imgs.items()
           if name.startswith("jpeg")]
    out.append(Spec("png", [_scalar(imgs["png_3ch"])], {"output_type": dt}))
    return out


# ---------------------------------------------------------------- encoders

def encode_jpeg(dt, rng):
    rgb = _picture(rng, 21, 34, 3)
    gray = _picture(rng, 16, 9, 1)
    out = [Spec("rgb", [rgb]), Spec("gray", [gray])]
    for attrs in ({"quality": 0}, {"quality": 100}, {"quality": 50, "progressive": True},
                  {"optimize_size": True}, {"chroma_downsampling": False},
                  {"density_unit": "cm", "x_density": 72, "y_density": 150},
                  {"xmp_metadata": "<x:xmpmeta>minigraph</x:xmpmeta>"}, {"format": "rgb"},
                  {"format": "grayscale"}, {"quality": 101}):
        label = ".".join(f"{k}_{v}" for k, v in attrs.items() if k != "xmp_metadata") or "xmp"
        out.append(Spec(label, [rgb], attrs))
    out += [Spec("gray_as_grayscale", [gray], {"format": "grayscale"}),
            Spec("two_channels", [_picture(rng, 4, 4, 2)]),
            Spec("empty", [np.zeros((0, 5, 3), np.uint8)]),
            Spec("rank2", [np.zeros((4, 5), np.uint8)])]
    return out


def encode_jpeg_variable_quality(dt, rng):
    rgb = _picture(rng, 18, 27, 3)
    return [Spec(f"q{q}", [rgb, np.int32(q)]) for q in (0, 1, 42, 95, 100)] + [
        Spec("q101", [rgb, np.int32(101)]), Spec("q_vector", [rgb, np.array([5], np.int32)])]


def encode_png(dt, rng):
    np_dt = dt.as_numpy_dtype
    out = []
    for k in (1, 2, 3, 4):
        img = _picture(rng, 11, 17, k, np_dt)
        for comp in (-1, 0, 1, 9):
            out.append(Spec(f"{k}ch.compression{comp}", [img], {"compression": comp}))
    out += [Spec("5ch", [_picture(rng, 3, 3, 5, np_dt)]),
            Spec("empty", [np.zeros((3, 0, 3), np_dt)]),
            Spec("compression10", [_picture(rng, 3, 3, 3, np_dt)], {"compression": 10})]
    return out


# ---------------------------------------------------------------- resizes

RESIZES = [((1, 4, 5, 1), (8, 10)), ((2, 7, 6, 3), (3, 4)), ((1, 5, 5, 2), (5, 5)),
           ((1, 1, 1, 4), (3, 2)), ((3, 9, 13, 3), (17, 7)), ((0, 3, 3, 2), (2, 2)),
           ((1, 6, 4, 5), (1, 1))]
CORNERS = [{}, {"align_corners": True}, {"half_pixel_centers": True}]


def resize(grad_ok):
    def gen(dt, rng):
        out = []
        for shape, size in RESIZES:
            x = random_values(rng, shape, dt, edges=False, low=None, high=None)
            for attrs in CORNERS:
                label = f"{list(shape)}to{list(size)}." + ("".join(attrs) or "legacy")
                grad = (0,) if grad_ok and dt.is_floating and shape[0] else ()
                out.append(Spec(label, [x, np.array(size, np.int32)], dict(attrs), grad=grad))
        x = random_values(rng, (1, 3, 3, 1), dt)
        sz = np.array([2, 2], np.int32)
        out += [Spec("both_corner_modes", [x, sz], {"align_corners": True,
                                                    "half_pixel_centers": True}),
                Spec("size_zero", [x, np.array([0, 2], np.int32)]),
                Spec("size_of_3", [x, np.array([2, 2, 2], np.int32)]),
                Spec("rank3", [x[0], sz]),
                Spec("no_channels", [np.zeros((1, 3, 3, 0), x.dtype), sz]),
                Spec("empty_image", [np.zeros((1, 0, 3, 1), x.dtype), sz])]
        return out
    return gen


def resize_bilinear_grad(dt, rng):
    out = []
    for shape, size in RESIZES:
        if not shape[0]:
            continue
        g = random_values(rng, (shape[0],) + size + (shape[3],), tf.float32, edges=False)
        original = random_values(rng, shape, dt, edges=False)
        for attrs in CORNERS:
            out.append(Spec(f"{list(shape)}from{list(size)}." + ("".join(attrs) or "legacy"),
                            [g, original], dict(attrs)))
    g = random_values(rng, (1, 2, 2, 1), tf.float32)
    out += [Spec("original_rank3", [g, random_values(rng, (3, 3, 1), dt)]),
            Spec("grads_empty", [np.zeros((1, 0, 2, 1), np.float32),
                                 random_values(rng, (1, 3, 3, 1), dt)])]
    return out


def resize_nearest_grad(dt, rng):
    out = []
    for shape, size in RESIZES:
        if not shape[0]:
            continue
        g = random_values(rng, (shape[0],) + size + (shape[3],), dt, edges=False)
        for attrs in CORNERS:
            out.append(Spec(f"{list(shape)}from{list(size)}." + ("".join(attrs) or "legacy"),
                            [g, np.array(shape[1:3], np.int32)], dict(attrs)))
    g = random_values(rng, (1, 2, 2, 1), dt)
    out += [Spec("size_zero", [g, np.array([0, 3], np.int32)]),
            Spec("rank3", [g[0], np.array([3, 3], np.int32)])]
    return out


# Rows of eight: [a0, a1, a2, b0, b1, b2, c0, c1] maps output (x, y) to
# input ((a0 x + a1 y + a2) / k, (b0 x + b1 y + b2) / k), k = c0 x + c1 y + 1.
_C, _S = np.cos(0.3), np.sin(0.3)
TRANSFORMS = {
    "identity": [1, 0, 0, 0, 1, 0, 0, 0],
    # About the centre of a 5 x 6 image (Keras' RandomRotation).
    "rotation": [_C, -_S, 2.5 - 2.5 * _C + 2 * _S, _S, _C, 2 - 2.5 * _S - 2 * _C, 0, 0],
    "zoom": [1.3, 0, -0.75, 0, 0.7, 0.6, 0, 0],
    "translation": [1, 0, -1.5, 0, 1, 2.25, 0, 0],
    "far_translation": [1, 0, 13.5, 0, 1, -11, 0, 0],  # every fill mode's wrapping
    "shear": [1, 0.4, -1, 0, 1, 0, 0, 0],
    "projective": [1, 0.1, 0, 0.05, 1, 0, 0.04, -0.03],
    "vanishing": [1, 0, 0, 0, 1, 0, -1, 0],  # k = 0 at x = 1: fill
}


def projective_transform(v3):
    """ImageProjectiveTransformV2 (fill 0) and V3 (a fill_value): rotations,
    zooms, translations far outside (wrapping every fill mode), shear, a
    projective map and one whose denominator reaches 0, one row for all
    images or one each, both interpolations, every fill mode, another output
    size; bad ranks, transform shapes, output shapes and fill values."""
    def gen(dt, rng):
        out = []
        x = (random_values(rng, (2, 5, 6, 3), dt, edges=False, low=0, high=200)
             if not dt.is_floating else random_values(rng, (2, 5, 6, 3), dt, edges=False))
        modes = ("REFLECT", "WRAP", "CONSTANT", "NEAREST")
        for i, (name, t) in enumerate(TRANSFORMS.items()):
            for interpolation in ("NEAREST", "BILINEAR"):
                # Every fill mode for the transforms that leave the image;
                # the others in turn.
                for mode in modes if "translation" in name else modes[i % 4:i % 4 + 1]:
                    rows = np.asarray([t], np.float32)
                    if name == "zoom":  # one row per image
                        rows = np.asarray([t, TRANSFORMS["shear"]], np.float32)
                    size = [4, 7] if name == "shear" else [5, 6]
                    inputs = [x, rows, np.asarray(size, np.int32)]
                    if v3:
                        inputs.append(np.asarray(0.5 if mode == "CONSTANT" else 0.0, np.float32))
                    out.append(Spec(f"{name}.{interpolation}.{mode}", inputs,
                                    {"interpolation": interpolation, "fill_mode": mode},
                                    grad=(0,) if dt in (tf.float32, tf.float64) else (),
                                    tol=4.0))
        attrs = {"interpolation": "BILINEAR", "fill_mode": "CONSTANT"}
        t = np.asarray([TRANSFORMS["rotation"]], np.float32)
        size = np.asarray([5, 6], np.int32)
        fill = [np.asarray(0, np.float32)] if v3 else []
        out += [Spec("rank3", [x[0], t, size] + fill, attrs),
                Spec("transform_of_7", [x, t[:, :7], size] + fill, attrs),
                Spec("transform_rows", [x, np.repeat(t, 3, 0), size] + fill, attrs),
                Spec("output_shape_of_3", [x, t, np.asarray([5, 6, 1], np.int32)] + fill, attrs),
                Spec("output_shape_zero", [x, t, np.asarray([0, 6], np.int32)] + fill, attrs)]
        if v3:
            out.append(Spec("fill_value_vector", [x, t, size, np.zeros(1, np.float32)], attrs))
        return out
    return gen


def _colours(rng, shape, dt):
    """Colours in [0, 1] with grays (equal channels), two channels equal,
    black and white among them, and a few out of range (negative, above 1)."""
    x = random_values(rng, shape, dt, edges=False, low=0.0, high=1.0)
    flat = x.reshape(-1, 3)
    special = np.array([[0.5, 0.5, 0.5], [0, 0, 0], [1, 1, 1], [0.2, 0.7, 0.7],
                        [0.9, 0.1, 0.9], [0.3, 0.3, 0.8], [-0.2, 0.5, 1.3]], flat.dtype)
    k = min(len(flat), len(special))
    flat[:k] = special[:k]
    return x


def colour_space(dt, rng):
    """RGBToHSV and HSVToRGB: pixels of any rank >= 1 (RGBToHSV's gradient
    too); a hue of 1 and past it (HSVToRGB wraps nothing); not 3 channels."""
    grad = (0,) if dt in (tf.float32, tf.float64) else ()
    out = [Spec(f"{list(s)}", [_colours(rng, s, dt)], tol=2.0, grad=grad)
           for s in [(3,), (7, 3), (2, 4, 5, 3), (0, 3)]]
    out.append(Spec("channels", [random_values(rng, (2, 4), dt, edges=False)]))
    return out


def colour_adjustment(param, values, rank=3):
    """AdjustHue, AdjustSaturation, AdjustContrastv2: images of rank >= 3,
    several amounts; a non-scalar amount and a low rank are refused."""
    def gen(dt, rng):
        out = []
        for shape in [(4, 5, 3), (2, 3, 4, 3), (1, 1, 3), (0, 2, 2, 3)]:
            for v in values:
                out.append(Spec(f"{list(shape)}.{param}{v}",
                                [_colours(rng, shape, dt), np.float32(v)], tol=2.0))
        x = _colours(rng, (2, 2, 3), dt)
        out.append(Spec(f"vector_{param}", [x, np.float32([0.1, 0.2])]))
        out.append(Spec("rank", [_colours(rng, (4, 3), dt), np.float32(values[0])]))
        return out
    return gen


def register(generators):
    generators["DecodeJpeg"] = (decode_jpeg(crop=False), None)
    generators["DecodeAndCropJpeg"] = (decode_jpeg(crop=True), None)
    generators["DecodePng"] = (decode_png, "dtype")
    generators["DecodeGif"] = (decode_gif, None)
    generators["DecodeBmp"] = (decode_bmp, None)
    generators["DecodeImage"] = (decode_image, "dtype")
    generators["DecodeWebP"] = (decode_webp, None)
    generators["DecodeJxl"] = (decode_jxl, None)
    generators["ExtractJpegShape"] = (extract_jpeg_shape, "output_type")
    generators["EncodeJpeg"] = (encode_jpeg, None)
    generators["EncodeJpegVariableQuality"] = (encode_jpeg_variable_quality, None)
    generators["EncodePng"] = (encode_png, "T")
    generators["ResizeBilinear"] = (resize(grad_ok=True), "T")
    generators["ResizeNearestNeighbor"] = (resize(grad_ok=True), "T")
    generators["ResizeBilinearGrad"] = (resize_bilinear_grad, "T")
    generators["ResizeNearestNeighborGrad"] = (resize_nearest_grad, "T")
    generators["ImageProjectiveTransformV2"] = (projective_transform(v3=False), "dtype")
    generators["ImageProjectiveTransformV3"] = (projective_transform(v3=True), "dtype")
    generators["RGBToHSV"] = (colour_space, "T")
    generators["HSVToRGB"] = (colour_space, "T")
    generators["AdjustHue"] = (colour_adjustment("delta", [0.2, -0.7, 1.5, 0.0]), "T")
    generators["AdjustSaturation"] = (colour_adjustment("scale", [0.5, 2.0, 0.0]), "T")
    generators["AdjustContrastv2"] = (colour_adjustment("factor", [1.8, -0.5, 0.0]), "T")
