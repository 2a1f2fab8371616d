// TensorFlow 1's queues as ops: FIFOQueueV2, PaddingFIFOQueueV2,
// RandomShuffleQueueV2 and PriorityQueueV2 make a queue (internal/queue.h)
// in the session's ResourceMgr and output its handle; the enqueue,
// dequeue, close, size and is-closed ops find it by that handle. The ops
// that wait (enqueues, dequeues, a close behind pending enqueues) are
// blocking kernels: each waits on a thread of its own, until the queue
// serves it, the queue closes, or its step is cancelled or passes its
// deadline (RunOptions.timeout_in_ms).
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/match.h"
#include "absl/strings/str_join.h"
#include "absl/strings/strip.h"
#include "core/status_macros.h"
#include "runtime/engine/kernels/internal/kernel_families.h"
#include "runtime/engine/kernels/internal/queue.h"
#include "runtime/engine/kernels/internal/resource_handles.h"

namespace minigraph {
namespace kernels_internal {
namespace {

// The node's "shapes" attr (absent: none).
absl::StatusOr<std::vector<PartialShape>> ShapesAttr(const NodeDef& def) {
  std::vector<PartialShape> shapes;
  auto it = def.attr().find("shapes");
  if (it == def.attr().end()) return shapes;
  for (const TensorShapeProto& p : it->second.list().shape()) {
    shapes.push_back(PartialShape::FromProto(p));
  }
  return shapes;
}

Queue::Kind KindOf(absl::string_view op) {
  op = absl::StripSuffix(op, "V2");
  if (op == "PaddingFIFOQueue") return Queue::Kind::kPaddingFifo;
  if (op == "RandomShuffleQueue") return Queue::Kind::kRandomShuffle;
  if (op == "PriorityQueue") return Queue::Kind::kPriority;
  return Queue::Kind::kFifo;
}

// FIFOQueueV2, PaddingFIFOQueueV2, RandomShuffleQueueV2, PriorityQueueV2:
// the queue's handle; the queue is made on the first run, or found by its
// shared name (then it must be the queue this node describes). The ops
// without "V2" (graphs of TensorFlow before 1.2) output a reference to a
// string vector [container, name] instead, which the V1 ops on queues read.
class QueueOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  absl::Status Init(OpKernelConstruction* c) {
    const NodeDef& def = c->def();
    Queue::Options& o = options_;
    o.kind = KindOf(def.op());
    MG_RETURN_IF_ERROR(c->GetAttr("component_types", &o.dtypes));
    MG_ASSIGN_OR_RETURN(o.shapes, ShapesAttr(def));
    MG_RETURN_IF_ERROR(c->GetAttr("capacity", &o.capacity));
    if (o.kind == Queue::Kind::kPriority) {
      // The priority is an int64 scalar before the components.
      o.dtypes.insert(o.dtypes.begin(), DT_INT64);
      if (!o.shapes.empty()) o.shapes.insert(o.shapes.begin(), PartialShape::Scalar());
    }
    if (o.kind == Queue::Kind::kRandomShuffle) {
      MG_RETURN_IF_ERROR(c->GetAttr("min_after_dequeue", &o.min_after_dequeue));
      MG_RETURN_IF_ERROR(c->GetAttr("seed", &o.seed));
      MG_RETURN_IF_ERROR(c->GetAttr("seed2", &o.seed2));
    }
    MG_RETURN_IF_ERROR(c->GetAttr("container", &container_));
    MG_RETURN_IF_ERROR(c->GetAttr("shared_name", &o.name));
    // Without a shared name the queue is the node's, by its name.
    if (o.name.empty()) o.name = def.name();
    if (!absl::EndsWith(def.op(), "V2")) ref_handle_ = RefHandle(container_, o.name, def.name());
    return Queue::CheckOptions(o, def.name());
  }
  absl::Status Compute(OpKernelContext* ctx) const override {
    MG_ASSIGN_OR_RETURN(std::shared_ptr<Resource> r,
                        ctx->resource_manager()->LookupOrCreateResource(
                            container_, options_.name, [&] { return Queue::Create(options_); }));
    auto* queue = dynamic_cast<Queue*>(r.get());
    if (queue == nullptr) {
      return absl::InvalidArgumentError(absl::StrCat("resource ", options_.name,
                                                     " exists and is not a queue but a ",
                                                     r->TypeName()));
    }
    MG_RETURN_IF_ERROR(queue->Matches(options_));
    SetHandleOutput(ctx, ref_handle_.get(), container_, options_.name, Queue::kHandleTypeName);
    return absl::OkStatus();
  }

 private:
  Queue::Options options_;
  std::string container_;
  std::unique_ptr<Var> ref_handle_;  // the V1 ops' output
};

std::string Signature(const std::vector<DataType>& in, const std::vector<DataType>& out) {
  auto names = [](const std::vector<DataType>& v) {
    return absl::StrJoin(v, ", ", [](std::string* s, DataType d) {
      absl::StrAppend(s, DataTypeString(d));
    });
  };
  return absl::StrCat(names(in), "->", names(out));
}

// The ops on a queue: input 0 its handle.
class QueueAccessOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  absl::Status Init(OpKernelConstruction* c) {
    if (c->def().attr().count("timeout_ms")) {
      int64_t timeout_ms;
      MG_RETURN_IF_ERROR(c->GetAttr("timeout_ms", &timeout_ms));
      // As TensorFlow, which never implemented it (RunOptions.timeout_in_ms
      // bounds a step instead).
      if (timeout_ms != -1) return absl::InvalidArgumentError("Timeout not supported yet.");
    }
    return absl::OkStatus();
  }

 protected:
  // The queue input 0 names (`hold` keeps it alive), its dtypes checked
  // against this node's inputs after `fixed_inputs` and its outputs (as
  // TensorFlow's MatchSignature).
  absl::StatusOr<Queue*> QueueOf(OpKernelContext* ctx, std::shared_ptr<Resource>* hold,
                                 int fixed_inputs, bool components_in, bool components_out) const {
    MG_ASSIGN_OR_RETURN(Queue * queue,
                        ResourceFromInput<Queue>(ctx, 0, Queue::kHandleTypeName, hold));
    std::vector<DataType> have_in, have_out, want_in, want_out;
    for (int i = 0; i < ctx->num_inputs(); ++i) have_in.push_back(ctx->input_dtype(i));
    for (int i = 0; i < ctx->num_outputs(); ++i) have_out.push_back(ctx->expected_output_dtype(i));
    want_in.assign(have_in.begin(), have_in.begin() + std::min<int>(fixed_inputs, have_in.size()));
    if (components_in) {
      want_in.insert(want_in.end(), queue->dtypes().begin(), queue->dtypes().end());
    }
    if (components_out) want_out = queue->dtypes();
    if (!components_out) want_out = have_out;
    if (have_in != want_in || have_out != want_out) {
      return absl::InvalidArgumentError(absl::StrCat("Signature mismatch, have: ",
                                                     Signature(have_in, have_out),
                                                     " expected: ", Signature(want_in, want_out)));
    }
    return queue;
  }
  static Queue::Waiter WaiterOf(const OpKernelContext* ctx) {
    return {ctx->cancelled_flag(), ctx->step_context().deadline};
  }
  static void SetOutputs(OpKernelContext* ctx, Queue::Tuple tuple) {
    for (size_t i = 0; i < tuple.size(); ++i) ctx->set_output(i, std::move(tuple[i]));
  }
  static Queue::Tuple Components(const OpKernelContext* ctx) {
    Queue::Tuple tuple;
    for (int i = 1; i < ctx->num_inputs(); ++i) tuple.push_back(ctx->input(i));
    return tuple;
  }
};

// QueueEnqueueV2 and QueueEnqueueManyV2.
class EnqueueOp : public QueueAccessOp {
 public:
  using QueueAccessOp::QueueAccessOp;
  absl::Status Init(OpKernelConstruction* c) {
    many_ = absl::StartsWith(c->def().op(), "QueueEnqueueMany");
    return QueueAccessOp::Init(c);
  }
  bool IsBlocking() const override { return true; }
  absl::Status Compute(OpKernelContext* ctx) const override {
    std::shared_ptr<Resource> hold;
    MG_ASSIGN_OR_RETURN(Queue * queue, QueueOf(ctx, &hold, 1, /*components_in=*/true, false));
    Queue::Tuple tuple = Components(ctx);
    if (many_) {
      MG_RETURN_IF_ERROR(queue->ValidateManyTuple(tuple));
      return queue->EnqueueMany(std::move(tuple), WaiterOf(ctx));
    }
    MG_RETURN_IF_ERROR(queue->ValidateTuple(tuple));
    return queue->Enqueue(std::move(tuple), WaiterOf(ctx));
  }

 private:
  bool many_ = false;
};

class DequeueOp : public QueueAccessOp {
 public:
  using QueueAccessOp::QueueAccessOp;
  bool IsBlocking() const override { return true; }
  absl::Status Compute(OpKernelContext* ctx) const override {
    std::shared_ptr<Resource> hold;
    MG_ASSIGN_OR_RETURN(Queue * queue, QueueOf(ctx, &hold, 1, false, /*components_out=*/true));
    MG_ASSIGN_OR_RETURN(Queue::Tuple tuple, queue->Dequeue(WaiterOf(ctx)));
    SetOutputs(ctx, std::move(tuple));
    return absl::OkStatus();
  }
};

// QueueDequeueManyV2 and QueueDequeueUpToV2.
class DequeueManyOp : public QueueAccessOp {
 public:
  using QueueAccessOp::QueueAccessOp;
  absl::Status Init(OpKernelConstruction* c) {
    up_to_ = absl::StartsWith(c->def().op(), "QueueDequeueUpTo");
    return QueueAccessOp::Init(c);
  }
  bool IsBlocking() const override { return true; }
  absl::Status Compute(OpKernelContext* ctx) const override {
    const Tensor& n = ctx->input(1);
    if (n.NumElements() != 1) {
      return absl::InvalidArgumentError(
          absl::StrCat("n must be a scalar, got shape ", n.shape().DebugString()));
    }
    const int64_t count = n.data<int32_t>()[0];
    if (count < 0) {
      return absl::InvalidArgumentError(absl::StrCat(up_to_ ? "DequeueUpToOp" : "DequeueManyOp",
                                                     " requested ", count, " < 0 elements"));
    }
    std::shared_ptr<Resource> hold;
    MG_ASSIGN_OR_RETURN(Queue * queue, QueueOf(ctx, &hold, 2, false, /*components_out=*/true));
    MG_ASSIGN_OR_RETURN(Queue::Tuple tuple, queue->DequeueMany(count, up_to_, WaiterOf(ctx)));
    SetOutputs(ctx, std::move(tuple));
    return absl::OkStatus();
  }

 private:
  bool up_to_ = false;
};

class CloseOp : public QueueAccessOp {
 public:
  using QueueAccessOp::QueueAccessOp;
  absl::Status Init(OpKernelConstruction* c) {
    return c->GetAttr("cancel_pending_enqueues", &cancel_pending_enqueues_);
  }
  // Without cancel_pending_enqueues it waits behind the pending enqueues.
  bool IsBlocking() const override { return !cancel_pending_enqueues_; }
  absl::Status Compute(OpKernelContext* ctx) const override {
    std::shared_ptr<Resource> hold;
    MG_ASSIGN_OR_RETURN(Queue * queue, QueueOf(ctx, &hold, 1, false, false));
    return queue->Close(cancel_pending_enqueues_, WaiterOf(ctx));
  }

 private:
  bool cancel_pending_enqueues_ = false;
};

// QueueSizeV2 and QueueIsClosedV2.
class QueueStateOp : public QueueAccessOp {
 public:
  using QueueAccessOp::QueueAccessOp;
  absl::Status Compute(OpKernelContext* ctx) const override {
    std::shared_ptr<Resource> hold;
    MG_ASSIGN_OR_RETURN(Queue * queue, QueueOf(ctx, &hold, 1, false, false));
    if (absl::StartsWith(type_string(), "QueueIsClosed")) {
      ctx->set_output(0, Tensor::Scalar<bool>(queue->is_closed()));
    } else {
      ctx->set_output(0, Tensor::Scalar<int32_t>(static_cast<int32_t>(queue->size())));
    }
    return absl::OkStatus();
  }
};

}  // namespace

void RegisterQueueKernels(KernelRegistry* r) {
  // Each op in its V1 (reference handle) and V2 (resource handle) form.
  for (const char* op : {"FIFOQueue", "FIFOQueueV2", "PaddingFIFOQueue", "PaddingFIFOQueueV2",
                         "RandomShuffleQueue", "RandomShuffleQueueV2", "PriorityQueue",
                         "PriorityQueueV2"}) {
    r->Register(op, MakeFactory<QueueOp>());
  }
  for (const char* op : {"QueueEnqueue", "QueueEnqueueV2", "QueueEnqueueMany",
                         "QueueEnqueueManyV2"}) {
    r->Register(op, MakeFactory<EnqueueOp>());
  }
  r->Register("QueueDequeue", MakeFactory<DequeueOp>());
  r->Register("QueueDequeueV2", MakeFactory<DequeueOp>());
  for (const char* op : {"QueueDequeueMany", "QueueDequeueManyV2", "QueueDequeueUpTo",
                         "QueueDequeueUpToV2"}) {
    r->Register(op, MakeFactory<DequeueManyOp>());
  }
  r->Register("QueueClose", MakeFactory<CloseOp>());
  r->Register("QueueCloseV2", MakeFactory<CloseOp>());
  for (const char* op : {"QueueSize", "QueueSizeV2", "QueueIsClosed", "QueueIsClosedV2"}) {
    r->Register(op, MakeFactory<QueueStateOp>());
  }
}

}  // namespace kernels_internal
}  // namespace minigraph
