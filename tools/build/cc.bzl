"""minigraph's C++ rules: Bazel's, with a precompiled header.

Every BUILD file loads `cc_library`, `cc_binary` and `cc_test` from here; they
are the native rules plus one precompiled header (`//tools/build:pch.bzl`).
A floor's PCH holds the system headers and the project headers of the floors
below the target's package, so its headers are parsed once per build instead
of once per file. The header is chosen by `pch`:

  "base"         the standard library, Abseil and protobuf;
  "eigen"        and Eigen's Tensor module (the default for targets that list
                 "@eigen" in deps and whose package would take "base");
  "core"         base and core's tensors, status, Env, logging and protos;
  "graph"        and runtime/graph's Graph, op registry and shape inference;
  "runtime"      and runtime/engine's OpKernel and kernel registry;
  "kernels"      runtime and Eigen's Tensor module, with the kernels' copts;
  "distributed"  runtime and gRPC, the sessions and the distributed protos;
  "none"         none.

By default each package takes the highest floor it sits on (`_PACKAGE_PCH`);
a target that a floor's PCH depends on must say `pch = "base"` (or a lower
floor), or Bazel reports the cycle. `--define=mg_pch=off` turns them all off.
"""

_PCH = {
    "base": "//tools/build:pch_base",
    "eigen": "//tools/build:pch_eigen",
    "core": "//core:pch_core",
    "graph": "//runtime/graph:pch_graph",
    "runtime": "//runtime/engine:pch_runtime",
    "kernels": "//runtime/engine:pch_kernels",
    "distributed": "//session/distributed:pch_distributed",
}

# The default by package; packages not listed (and their subpackages unless
# listed) take the entry of the nearest listed parent, else "base".
_PACKAGE_PCH = {
    "checkpoint": "core",
    "checkpoint/proto": "base",
    "runtime/graph": "core",
    "runtime/graph/ops": "graph",
    "runtime/engine": "graph",
    "runtime/engine/kernels": "runtime",
    "runtime/cc": "runtime",
    "session": "runtime",
    "session/distributed": "distributed",
    "tests": "runtime",
    "tools": "runtime",
}

def _package_pch():
    pkg = native.package_name()
    for _ in range(pkg.count("/") + 1):
        if pkg in _PACKAGE_PCH:
            return _PACKAGE_PCH[pkg]
        pkg = pkg.rpartition("/")[0]
    return "base"

def _with_pch(kwargs):
    pch = kwargs.pop("pch", None)
    if pch == None:
        pch = _package_pch()
        deps = kwargs.get("deps", [])
        if pch == "base" and type(deps) == "list" and "@eigen" in deps:
            pch = "eigen"
    if pch == "none":
        return kwargs
    if pch not in _PCH:
        fail("pch must be one of %s or \"none\", not %r" % (sorted(_PCH.keys()), pch))
    label = _PCH[pch]
    pch_file = "$(BINDIR)/" + label[len("//"):].replace(":", "/") + ".pch"
    copts = [
        "-include-pch",
        pch_file,
        # Named in the dependency file, so that a changed PCH recompiles
        # this target (see the stamp in pch.bzl).
        "-include",
        pch_file[:-len(".pch")] + "_stamp.h",
        # The overlay through which a PCH finds the one it is built on.
        "-ivfsoverlay",
        "tools/build/mg_root.yaml",
        # After Bazel's -MD: the dependency file lists no system headers
        # (Bazel ignores those anyway), and so none of the PCH's (see
        # pch.bzl). Clang warns that -MD is then unused.
        "-MMD",
        "-Wno-unused-command-line-argument",
    ]
    off = "//tools/build:pch_off"
    kwargs["copts"] = select({
        off: [],
        "//conditions:default": copts,
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
