// gRPC's C++ API, for the distributed runtime's PCH
// (//session/distributed:pch_distributed). System headers only.
#include <grpcpp/grpcpp.h>
#include <grpcpp/generic/generic_stub.h>
#include <grpcpp/impl/codegen/proto_utils.h>
