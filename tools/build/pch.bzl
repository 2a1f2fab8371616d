"""Precompiled headers for clang, as a rule Bazel 4.2.3 can run.

Two-thirds of a typical minigraph compile was spent parsing the same headers
(the standard library, Abseil, protobuf's runtime, Eigen's Tensor module, and
then our own: `core/tensor.h`, the generated `.pb.h` files, `op_kernel.h`)
again in every translation unit. `cc_pch` compiles such headers once per
configuration into a clang PCH; `//tools/build:cc.bzl` makes every C++ target
load one with `-include-pch`. Bazel has no built-in support for this (it
arrived in no release we can use), hence this rule.

A PCH is one floor's: `hdrs` are text files of system includes, concatenated;
`includes` are the floor's project headers, by workspace path, and `deps` the
libraries that declare them; `base` is the PCH of the floor below, whose
content comes first. A PCH may only be loaded by targets that may include all
it holds, and none of its `deps` may load it (a cycle).

Paths. Clang records in a PCH the path of every header it read and, by
default, reads them again when the PCH is loaded. A build action runs in a
sandbox whose path changes from one action to the next, so:
  - the compile runs in `/`, reads the concatenated text from stdin and writes
    the PCH to stdout (clang records the working directory, the input's path
    and the output's directory);
  - project headers are reached through a virtual directory, `/mg`, which a
    clang VFS overlay (passed on file descriptor 3, so no path is recorded)
    maps to the action's execution root: every recorded path is `/mg/...`,
    the same in every sandbox, clone and output base;
  - the headers' contents are embedded (`-fmodules-embed-all-files`), so a
    compile that loads the PCH never opens `/mg`;
  - `/mg` is a system include directory, so that the consumers, which write
    their dependency file with `-MMD` (cc.bzl), list none of these paths:
    Bazel tracks them as this rule's inputs instead. A consumer's dependency
    file names neither its PCH nor the headers the PCH holds (even those it
    includes itself), so consumers also include the PCH's stamp (below). The
    tsan configuration, built without PCHs, checks that every include of a
    target is declared.
The PCH's bytes therefore depend only on its inputs, which keeps the keys of
every compile that loads it, and so the disk cache, stable.

Chains. A floor's PCH is built on the one below (`-include-pch` of `base`,
named as `/mg-pch/bazel-out/...`, so only its own headers are parsed), unless
its copts differ from the base's (clang refuses a PCH with other language
options); then it parses everything itself. A consumer loads the whole chain,
finding the PCHs below through `mg_root.yaml`, an overlay that maps `/mg-pch`
to the working directory, that is, the consumer's own sandbox. It must not
map `/mg`: clang would then find the PCH's headers in the sandbox, take them
for the same files as the consumer's own includes, and list them under
their `/mg` names in the dependency file.

Templates the headers use are instantiated once, in the PCH
(`-fpch-instantiate-templates`), instead of in every consumer.
"""

load("@bazel_tools//tools/cpp:toolchain_utils.bzl", "find_cpp_toolchain")

PchInfo = provider(
    doc = "What a PCH holds, for the PCH of the floor above (`base`).",
    fields = {
        "hdrs": "list of File: system-include text files, in order",
        "includes": "list of string: project headers, by workspace path",
        "contexts": "list of CompilationContext: of the libraries declaring them",
        "copts": "list of string: the copts the PCH was built with",
        "chain": "depset of File: this PCH and the ones it is built on",
        "stamp": "File: the header consumers force-include (see below)",
    },
)

# The virtual directory that stands for the execution root when a PCH is
# built, and the one through which a PCH names the PCH it is built on (which
# a consumer maps to its own working directory, and only that: the headers
# stay out of reach, see below).
_ROOT = "/mg"
_PCH_ROOT = "/mg-pch"

def _include_dirs(contexts):
    dirs = []
    for c in contexts:
        for d in (c.quote_includes.to_list() + c.includes.to_list() +
                  c.system_includes.to_list()):
            if d not in dirs:
                dirs.append(d)
    flags = []
    for d in dirs:
        if d.startswith("/"):
            flags += ["-isystem", d]
        elif d == ".":
            flags += ["-isystem", _ROOT]
        else:
            flags += ["-isystem", _ROOT + "/" + d]
    return flags

def _cc_pch_impl(ctx):
    cc_toolchain = find_cpp_toolchain(ctx)
    features = cc_common.configure_features(
        ctx = ctx,
        cc_toolchain = cc_toolchain,
        requested_features = ctx.features,
        unsupported_features = ctx.disabled_features,
    )

    base = ctx.attr.base[PchInfo] if ctx.attr.base else None
    if base:
        hdrs = base.hdrs + [f for f in ctx.files.hdrs if f not in base.hdrs]
        includes = base.includes + [i for i in ctx.attr.includes if i not in base.includes]
        contexts = base.contexts + [d[CcInfo].compilation_context for d in ctx.attr.deps]
        copts = base.copts + [c for c in ctx.attr.copts if c not in base.copts]
    else:
        hdrs = ctx.files.hdrs
        includes = ctx.attr.includes
        contexts = [d[CcInfo].compilation_context for d in ctx.attr.deps]
        copts = ctx.attr.copts
    chained = base and copts == base.copts
    if chained:
        # Only what the base does not hold is parsed here.
        below = base.chain.to_list()[0]
        text = [f for f in hdrs if f not in base.hdrs]
        own_includes = [i for i in includes if i not in base.includes]
        chain_flags = ["-include-pch", _PCH_ROOT + "/" + below.path]
    else:
        text = hdrs
        own_includes = includes
        chain_flags = []

    defines = []
    for c in contexts:
        for d in c.defines.to_list():
            if d not in defines:
                defines.append(d)

    # The flags every C++ compile of this configuration gets (the toolchain's,
    # --copt, --cxxopt), then the consumers' own; clang refuses a PCH whose
    # language options or command-line macros differ from the compile that
    # loads it.
    variables = cc_common.create_compile_variables(
        cc_toolchain = cc_toolchain,
        feature_configuration = features,
        user_compile_flags = ctx.fragments.cpp.copts + ctx.fragments.cpp.cxxopts +
                             copts + ["-D" + d for d in defines] +
                             _include_dirs(contexts) + chain_flags + [
            # Input files are checked by size only: their mtimes differ
            # between machines.
            "-Xclang",
            "-fno-pch-timestamp",
            "-Xclang",
            "-fpch-instantiate-templates",
            "-Xclang",
            "-fmodules-embed-all-files",
            "-ivfsoverlay",
            "/dev/fd/3",
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
                  'm="$1"; shift; incs=(); for ((i = 0; i < m; i++)); do ' +
                  'incs+=("#include <$1>"); shift; done; ' +
                  ('overlay="{ \'version\': 0, \'use-external-names\': false, \'roots\': [ ' +
                   '{ \'name\': \'%s\', \'type\': \'directory-remap\', \'external-contents\': \'$d\' }, ' +
                   '{ \'name\': \'%s\', \'type\': \'directory-remap\', \'external-contents\': \'$d\' } ] }"; ') %
                  (_ROOT, _PCH_ROOT) +
                  '{ cat "${hdrs[@]}"; if ((m > 0)); then printf "%s\\n" "${incs[@]}"; fi; } | ' +
                  '(cd / && "$@" -o - 3<<<"$overlay") > "$d/$out"',
        arguments = [out.path, str(len(text))] + [h.path for h in text] +
                    [str(len(own_includes))] + own_includes + [tool] + args,
        env = env,
        inputs = depset(
            hdrs,
            transitive = [cc_toolchain.all_files] + [c.headers for c in contexts] +
                         ([base.chain] if chained else []),
        ),
        outputs = [out],
        mnemonic = "CppPch",
        progress_message = "Precompiling %s" % ctx.label,
    )

    # The stamp: a header holding only a comment with the digest of this PCH
    # and of the stamp of the PCH below. Consumers force-include it
    # (//tools/build:cc.bzl), so their dependency files name it. They name
    # neither the PCH nor the headers embedded in it, and Bazel keeps only
    # what a dependency file names as a compile's inputs for the next build:
    # without the stamp, a header changed inside a PCH rebuilt the PCH but
    # not the files compiled against it, which kept the old declarations
    # (found by ASan: a SessionOptions grown by a field, copied out of a
    # caller compiled with the old one).
    stamp = ctx.actions.declare_file(ctx.label.name + "_stamp.h")
    stamp_inputs = [out] + ([base.stamp] if chained else [])
    ctx.actions.run_shell(
        command = 'out="$1"; shift; printf "// %s\\n" "$(cat "$@" | sha256sum | cut -c1-64)" > "$out"',
        arguments = [stamp.path] + [f.path for f in stamp_inputs],
        inputs = stamp_inputs,
        outputs = [stamp],
        mnemonic = "CppPchStamp",
        progress_message = "Stamping %s" % ctx.label,
    )

    # The first element is this PCH (see `below` above).
    chain = depset([out], transitive = [base.chain] if chained else [], order = "preorder")
    return [
        DefaultInfo(files = depset([out])),
        # Listed as headers, the chain of PCHs, the stamp, the overlay that
        # finds them and UBSan's ignorelist (.bazelrc's asan configuration)
        # become inputs of every compile that depends on this target. The
        # libraries in `deps` are not passed on: a consumer links what it
        # depends on itself.
        CcInfo(compilation_context = cc_common.create_compilation_context(
            headers = depset(
                ctx.files._overlay + ctx.files._ubsan_ignorelist + [stamp],
                transitive = [chain],
            ),
        )),
        PchInfo(
            hdrs = hdrs,
            includes = includes,
            contexts = contexts,
            copts = copts,
            chain = chain,
            stamp = stamp,
        ),
    ]

cc_pch = rule(
    implementation = _cc_pch_impl,
    doc = "A clang precompiled header, `<name>.pch`.",
    attrs = {
        "hdrs": attr.label_list(
            allow_files = [".h"],
            doc = "Concatenated in order; they may include system headers only.",
        ),
        "includes": attr.string_list(
            doc = "Project headers, by workspace path (generated ones too), " +
                  "included after `hdrs`.",
        ),
        "deps": attr.label_list(
            providers = [CcInfo],
            doc = "The libraries that declare `includes`.",
        ),
        "base": attr.label(
            providers = [PchInfo],
            doc = "The PCH of the floor below: its headers come first.",
        ),
        "copts": attr.string_list(
            doc = "The consuming targets' own copts that change what the " +
                  "headers mean (clang checks them on load).",
        ),
        "_overlay": attr.label(
            default = "//tools/build:mg_root.yaml",
            allow_single_file = True,
        ),
        "_ubsan_ignorelist": attr.label(
            default = "//tools/build:ubsan_ignorelist.txt",
            allow_single_file = True,
        ),
        "_cc_toolchain": attr.label(
            default = "@bazel_tools//tools/cpp:current_cc_toolchain",
        ),
    },
    toolchains = ["@bazel_tools//tools/cpp:toolchain_type"],
    fragments = ["cpp"],
    incompatible_use_toolchain_transition = True,
)
