#include "session/distributed/internal/worker.h"

#include "absl/strings/str_cat.h"
#include "core/logging.h"
#include "session/distributed/internal/grpc_util.h"

namespace minigraph {
namespace distributed_internal {
namespace {

grpc::Status NoPartitions(absl::string_view method) {
  return ToGrpcStatus(absl::UnimplementedError(
      absl::StrCat(method,
                   ": this server does not run graph partitions yet; run whole graphs through "
                   "MasterService (a grpc:// session)")));
}

}  // namespace

grpc::Status Worker::GetStatus(grpc::ServerContext* ctx, const tensorflow::GetStatusRequest* req,
                               tensorflow::GetStatusResponse* resp) {
  *resp->add_device_attributes() = task_.device;
  return grpc::Status::OK;
}

grpc::Status Worker::CreateWorkerSession(grpc::ServerContext* ctx,
                                         const tensorflow::CreateWorkerSessionRequest* req,
                                         tensorflow::CreateWorkerSessionResponse* resp) {
  return grpc::Status::OK;
}

grpc::Status Worker::DeleteWorkerSession(grpc::ServerContext* ctx,
                                         const tensorflow::DeleteWorkerSessionRequest* req,
                                         tensorflow::DeleteWorkerSessionResponse* resp) {
  return grpc::Status::OK;
}

grpc::Status Worker::RegisterGraph(grpc::ServerContext* ctx,
                                   const tensorflow::RegisterGraphRequest* req,
                                   tensorflow::RegisterGraphResponse* resp) {
  return NoPartitions("RegisterGraph");
}

grpc::Status Worker::RunGraph(grpc::ServerContext* ctx, const tensorflow::RunGraphRequest* req,
                              tensorflow::RunGraphResponse* resp) {
  return NoPartitions("RunGraph");
}

grpc::Status Worker::RecvTensor(grpc::ServerContext* ctx, const tensorflow::RecvTensorRequest* req,
                                tensorflow::RecvTensorResponse* resp) {
  return NoPartitions("RecvTensor");
}

grpc::Status Worker::CleanupAll(grpc::ServerContext* ctx, const tensorflow::CleanupAllRequest* req,
                                tensorflow::CleanupAllResponse* resp) {
  ClearContainers(task_.state.get(), req->container());
  MG_LOG(INFO) << "containers cleared by " << ctx->peer();
  return grpc::Status::OK;
}

}  // namespace distributed_internal
}  // namespace minigraph
