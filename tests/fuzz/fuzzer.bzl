"""cc_fuzzer: a libFuzzer target of this package."""

load("//tools/build:cc.bzl", "cc_binary")

def cc_fuzzer(name, deps):
    """A fuzzer built from `<name>.cc` with libFuzzer's main and `:quiet`.

    Tagged manual: only `--config=fuzz` (ASan, UBSan, coverage) builds it, through
    tools/fuzz.sh; the normal build skips it.

    Args:
      name: the target, and the basename of its one source file.
      deps: what the fuzzer's source uses, besides `:quiet`.
    """
    cc_binary(
        name = name,
        srcs = [name + ".cc"],
        linkopts = ["-fsanitize=fuzzer"],
        tags = ["manual"],
        deps = [":quiet"] + deps,
    )
