"""`kernel_library`: a cc_library of CPU kernels (a family's, or what the
families share in internal/), compiled with the kernels' options and their
precompiled header (//runtime/engine:pch_kernels, which must match them)."""

load("//tools/build:cc.bzl", "cc_library")

# `#pragma omp simd` on hand-written inner loops (no OpenMP runtime);
# std::sqrt and friends vectorize only when they need not set errno (no
# kernel reads it).
KERNEL_COPTS = [
    "-fopenmp-simd",
    "-fno-math-errno",
]

def kernel_library(name, **kwargs):
    cc_library(
        name = name,
        copts = KERNEL_COPTS + kwargs.pop("copts", []),
        pch = "kernels",
        **kwargs
    )

def kernel_family(name, srcs, **kwargs):
    """A family's kernels (`name`, a kernel_library), and its sources as
    `name`_sources, where //runtime/engine/kernels:standard_kernels_test
    finds each registration's op name."""
    kernel_library(name = name, srcs = srcs, **kwargs)
    native.filegroup(
        name = name + "_sources",
        srcs = srcs,
        visibility = ["//runtime/engine/kernels:__pkg__"],
    )
