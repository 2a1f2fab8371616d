"""minigraph's C++ rules: Bazel's, with a precompiled header.

Every BUILD file loads `cc_library`, `cc_binary` and `cc_test` from here; they
are the native rules plus one precompiled header of system headers
(`//tools/build:pch.bzl`), which takes about a third off a cold build. The
header is chosen by `pch`:

  "base"     the standard library, Abseil and protobuf (the default);
  "eigen"    and Eigen's Tensor module (the default for targets that list
             "@eigen" in deps);
  "kernels"  the same, matching the kernels' copts;
  "none"     none.

`--define=mg_pch=off` turns them all off.
"""

_PCH = {
    "base": "//tools/build:pch_base",
    "eigen": "//tools/build:pch_eigen",
    "kernels": "//tools/build:pch_kernels",
}

def _with_pch(kwargs):
    pch = kwargs.pop("pch", None)
    if pch == None:
        deps = kwargs.get("deps", [])
        pch = "eigen" if type(deps) == "list" and "@eigen" in deps else "base"
    if pch == "none":
        return kwargs
    if pch not in _PCH:
        fail("pch must be one of %s or \"none\", not %r" % (sorted(_PCH.keys()), pch))
    label = _PCH[pch]
    pch_file = "$(BINDIR)/" + label[len("//"):].replace(":", "/") + ".pch"
    off = "//tools/build:pch_off"
    kwargs["copts"] = select({
        off: [],
        "//conditions:default": ["-include-pch", pch_file],
    }) + kwargs.get("copts", [])
    kwargs["deps"] = kwargs.get("deps", []) + select({
        off: [],
        "//conditions:default": [label],
    })
    return kwargs

def cc_library(**kwargs):
    native.cc_library(**_with_pch(kwargs))

def cc_binary(**kwargs):
    native.cc_binary(**_with_pch(kwargs))

def cc_test(**kwargs):
    native.cc_test(**_with_pch(kwargs))
