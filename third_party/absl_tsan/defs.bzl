"""Abseil built from its Debian source package, for ThreadSanitizer.

tools/tsan_deps.sh assembles this repository in /var/cache/minigraph-tsan and
--config=tsan points @com_google_absl at it. The targets keep the labels of
third_party/absl (upstream's), so no BUILD file of ours changes: every one is
backed by :system_absl, which here compiles Abseil's sources with the build's
flags (and so with -fsanitize=thread) instead of linking Debian's shared
libraries, whose uninstrumented Mutex would hide every happens-before edge
from the sanitizer.
"""

def absl_libraries(names):
    """Declares `names` and the package's files for //:system_absl."""
    for name in names:
        native.cc_library(
            name = name,
            deps = ["//:system_absl"],
            visibility = ["//visibility:public"],
        )
    native.filegroup(
        name = "hdrs",
        srcs = native.glob(["**/*.h", "**/*.inc"]),
        visibility = ["//visibility:public"],
    )
    native.filegroup(
        name = "srcs",
        srcs = native.glob(
            ["**/*.cc"],
            exclude = [
                # Tests, benchmarks and their helpers, and the two
                # generators with a main().
                "**/*_test.cc",
                "**/*_test_*.cc",
                "**/*benchmark*.cc",
                "**/chi_square.cc",
                "**/*_testing.cc",
                "**/*test_util*.cc",
                "**/*test_helper*.cc",
                "**/*mock*.cc",
                "**/*fuzz*.cc",
                "**/print_hash_of.cc",
                "**/gaussian_distribution_gentables.cc",
                # Would switch LeakSanitizer off in every binary.
                "**/leak_check_disable.cc",
            ],
        ),
        visibility = ["//visibility:public"],
    )
