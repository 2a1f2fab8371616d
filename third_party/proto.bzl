"""C++ code generation for .proto files with the system protoc.

`mg_cc_proto_library(name, srcs, deps)` makes:
  :<name>         cc_library with the generated *.pb.{h,cc}
  :<name>_protos  filegroup of these and the dependencies' .proto files, so
                  that protoc sees every imported file in the sandbox.
`mg_cc_grpc_library(name, srcs, deps)` does the same for files that declare
services, adding the gRPC stubs (*.grpc.pb.{h,cc}) from grpc_cpp_plugin.
Imports are written from the workspace root ("core/proto/types.proto").
Moving to upstream rules (proto_library + cc_proto_library) changes only
this file.
"""

load("//tools/build:cc.bzl", "cc_library")

def mg_cc_proto_library(name, srcs, deps = [], visibility = None):
    proto_deps = [d + "_protos" for d in deps]
    native.filegroup(
        name = name + "_protos",
        srcs = srcs + proto_deps,
        visibility = visibility,
    )
    stems = [s[:-len(".proto")] for s in srcs]
    pkg = native.package_name()
    hdrs = [s + ".pb.h" for s in stems]
    cc_srcs = [s + ".pb.cc" for s in stems]
    native.genrule(
        name = name + "_genproto",
        srcs = srcs + proto_deps,
        outs = hdrs + cc_srcs,
        tools = ["@com_google_protobuf//:protoc"],
        cmd = "$(location @com_google_protobuf//:protoc) -I. --cpp_out=$(GENDIR) " +
              " ".join([pkg + "/" + s for s in srcs]),
    )
    cc_library(
        name = name,
        srcs = cc_srcs,
        hdrs = hdrs,
        deps = deps + ["@com_google_protobuf//:protobuf"],
        # Generated code needs no project header; the floors' PCHs depend
        # on it (see //tools/build:cc.bzl).
        pch = "base",
        visibility = visibility,
    )

def mg_cc_grpc_library(name, srcs, deps = [], visibility = None):
    proto_deps = [d + "_protos" for d in deps]
    stems = [s[:-len(".proto")] for s in srcs]
    pkg = native.package_name()
    hdrs = [s + ".pb.h" for s in stems] + [s + ".grpc.pb.h" for s in stems]
    cc_srcs = [s + ".pb.cc" for s in stems] + [s + ".grpc.pb.cc" for s in stems]
    native.genrule(
        name = name + "_genproto",
        srcs = srcs + proto_deps,
        outs = hdrs + cc_srcs,
        tools = [
            "@com_google_protobuf//:protoc",
            "@com_github_grpc_grpc//:grpc_cpp_plugin",
        ],
        cmd = "$(location @com_google_protobuf//:protoc) -I. --cpp_out=$(GENDIR) " +
              "--grpc_out=$(GENDIR) " +
              "--plugin=protoc-gen-grpc=$(location @com_github_grpc_grpc//:grpc_cpp_plugin) " +
              " ".join([pkg + "/" + s for s in srcs]),
    )
    cc_library(
        name = name,
        srcs = cc_srcs,
        hdrs = hdrs,
        deps = deps + [
            "@com_google_protobuf//:protobuf",
            "@com_github_grpc_grpc//:grpc++",
        ],
        pch = "base",
        visibility = visibility,
    )
