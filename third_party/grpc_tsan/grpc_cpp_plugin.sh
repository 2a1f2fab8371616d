#!/bin/sh
# protoc's C++ gRPC plugin, from Debian's protobuf-compiler-grpc.
exec /usr/bin/grpc_cpp_plugin "$@"
