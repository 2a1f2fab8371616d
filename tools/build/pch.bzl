"""Precompiled headers for clang, as a rule Bazel 4.2.3 can run.

Two-thirds of a typical minigraph compile was spent parsing the same system
headers (the standard library, Abseil, protobuf's runtime, Eigen's Tensor
module) again in every translation unit. `cc_pch` compiles such headers once per
configuration into a clang PCH; `//tools/build:cc.bzl` makes every C++ target
load one with `-include-pch`. Bazel has no built-in support for this (it
arrived in no release we can use), hence this rule.

The PCH holds system headers only: Bazel does not track those, so the PCH must
not be the only way a project header reaches a compile. The compile runs in
`/`, reads the header from stdin and writes the PCH to stdout, so that the
PCH records no sandbox path (clang records the working directory, the
input's path and the output's directory): a consumer's dependency file then
names only system headers (which Bazel accepts), and the PCH's bytes are the
same in every sandbox, clone and output base, which keeps the keys of every
compile that loads it, and so the disk cache, stable.
"""

load("@bazel_tools//tools/cpp:toolchain_utils.bzl", "find_cpp_toolchain")

def _cc_pch_impl(ctx):
    cc_toolchain = find_cpp_toolchain(ctx)
    features = cc_common.configure_features(
        ctx = ctx,
        cc_toolchain = cc_toolchain,
        requested_features = ctx.features,
        unsupported_features = ctx.disabled_features,
    )

    # The flags every C++ compile of this configuration gets (the toolchain's,
    # --copt, --cxxopt), then the consumers' own; clang refuses a PCH whose
    # language options differ from the compile that loads it.
    variables = cc_common.create_compile_variables(
        cc_toolchain = cc_toolchain,
        feature_configuration = features,
        user_compile_flags = ctx.fragments.cpp.copts + ctx.fragments.cpp.cxxopts +
                             ctx.attr.copts + [
            # Input files are checked by size only: their mtimes differ
            # between machines.
            "-Xclang",
            "-fno-pch-timestamp",
            "-x",
            "c++-header",
            "-",
        ],
        use_pic = True,
    )
    args = cc_common.get_memory_inefficient_command_line(
        feature_configuration = features,
        action_name = "c++-compile",
        variables = variables,
    )
    env = cc_common.get_environment_variables(
        feature_configuration = features,
        action_name = "c++-compile",
        variables = variables,
    )
    tool = cc_common.get_tool_for_action(
        feature_configuration = features,
        action_name = "c++-compile",
    )
    out = ctx.actions.declare_file(ctx.label.name + ".pch")
    ctx.actions.run_shell(
        command = 'd="$PWD"; out="$1"; shift; n="$1"; shift; ' +
                  'hdrs=(); for ((i = 0; i < n; i++)); do hdrs+=("$d/$1"); shift; done; ' +
                  'cat "${hdrs[@]}" | (cd / && "$@" -o -) > "$d/$out"',
        arguments = [out.path, str(len(ctx.files.hdrs))] +
                    [h.path for h in ctx.files.hdrs] + [tool] + args,
        env = env,
        inputs = depset(ctx.files.hdrs, transitive = [cc_toolchain.all_files]),
        outputs = [out],
        mnemonic = "CppPch",
        progress_message = "Precompiling %s" % ctx.label,
    )
    return [
        DefaultInfo(files = depset([out])),
        # Listed as a header, the PCH becomes an input of every compile that
        # depends on this target.
        CcInfo(compilation_context = cc_common.create_compilation_context(
            headers = depset([out]),
        )),
    ]

cc_pch = rule(
    implementation = _cc_pch_impl,
    doc = "A clang precompiled header of system headers, `<name>.pch`.",
    attrs = {
        "hdrs": attr.label_list(
            allow_files = [".h"],
            doc = "Concatenated in order; they may include system headers only.",
        ),
        "copts": attr.string_list(
            doc = "The consuming targets' own copts and defines that change " +
                  "what the headers mean (clang checks them on load).",
        ),
        "_cc_toolchain": attr.label(
            default = "@bazel_tools//tools/cpp:current_cc_toolchain",
        ),
    },
    toolchains = ["@bazel_tools//tools/cpp:toolchain_type"],
    fragments = ["cpp"],
    incompatible_use_toolchain_transition = True,
)
