#include "session/distributed/internal/master_session.h"

#include <chrono>
#include <set>

#include "absl/random/random.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "core/logging.h"
#include "core/status_macros.h"
#include "core/tensor_proto.h"
#include "runtime/graph/ops/standard_ops.h"
#include "session/distributed/cluster.h"
#include "session/distributed/internal/grpc_util.h"
#include "session/distributed/internal/partition.h"

namespace minigraph {
namespace distributed_internal {

// How one step signature (feeds, fetches, targets) runs.
struct MasterSession::Plan {
  bool local = false;
  // Built for a graph that was extended meanwhile: used once, then released.
  bool transient = false;
  struct Part {
    WorkerCache::Worker* worker = nullptr;
    std::string graph_handle;
    Partition partition;
  };
  std::vector<Part> parts;
  // Fetch name -> rendezvous key of the partition that sends it.
  absl::flat_hash_map<std::string, std::string> fetch_key;
};

namespace {

uint64_t RandomNonZero() {
  static absl::Mutex mu(absl::kConstInit);
  static absl::BitGen* gen = new absl::BitGen;
  absl::MutexLock l(&mu);
  uint64_t v = 0;
  while (v == 0) v = absl::Uniform<uint64_t>(*gen);
  return v;
}

// Fire and forget: the reply only frees the call.
void CleanupStep(WorkerCache* cache, WorkerCache::Worker* w, int64_t step_id) {
  cache->Async([cache, w, step_id](std::function<void()> done) {
    struct Call {
      grpc::ClientContext ctx;
      tensorflow::CleanupGraphRequest req;
      tensorflow::CleanupGraphResponse resp;
    };
    auto* c = new Call;
    c->req.set_step_id(step_id);
    c->ctx.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(10));
    AddToken(cache->security(), &c->ctx);
    w->stub->async()->CleanupGraph(&c->ctx, &c->req, &c->resp,
                                   [c, done = std::move(done)](grpc::Status) {
                                     delete c;
                                     done();
                                   });
  });
}

// Of a step's errors, the cause: one not derived from another task's
// failure (a _Recv that failed because its peer did) or from the abort that
// follows the first failure.
absl::Status RootCause(const std::vector<absl::Status>& errors) {
  const absl::Status* best = nullptr;
  auto rank = [](const absl::Status& s) {
    if (absl::IsCancelled(s)) return 3;  // the abort that follows a failure
    if (absl::StrContains(s.message(), "RecvTensor from ")) return 2;  // a peer failed
    if (absl::IsAborted(s)) return 1;  // e.g. a task lost its partitions
    return 0;
  };
  for (const absl::Status& s : errors) {
    if (s.ok()) continue;
    if (best == nullptr || rank(s) < rank(*best)) best = &s;
  }
  return best == nullptr ? absl::OkStatus() : *best;
}

}  // namespace

MasterSession::MasterSession(std::string handle, const TaskContext* task,
                             const SessionOptions& options, std::shared_ptr<SessionState> state,
                             int64_t operation_timeout_in_ms)
    : handle_(std::move(handle)),
      task_(task),
      own_device_(TaskDeviceName(task->job_name, task->task_index)),
      local_(std::make_unique<LocalSession>(options, std::move(state))),
      operation_timeout_in_ms(operation_timeout_in_ms) {}

MasterSession::~MasterSession() { Close().IgnoreError(); }

absl::StatusOr<std::shared_ptr<MasterSession::Program>> MasterSession::Prepare(GraphDef def) const {
  auto program = std::make_shared<Program>();
  MG_ASSIGN_OR_RETURN(program->graph, Graph::Create(def, GlobalOpRegistry()));
  MG_ASSIGN_OR_RETURN(program->placement, PlaceGraph(*program->graph, task_->workers->cluster(),
                                                     task_->job_name, task_->task_index));
  std::set<std::string> state_devices;
  for (const Node& n : program->graph->nodes()) {
    const std::string& d = program->placement[n.id()];
    if (d != own_device_) program->all_local = false;
    if (n.is_stateful() && n.def().attr().contains("container")) state_devices.insert(d);
  }
  program->state_devices.assign(state_devices.begin(), state_devices.end());
  program->def = std::move(def);
  return program;
}

void MasterSession::Install(std::shared_ptr<Program> program) {
  absl::flat_hash_map<std::string, std::shared_ptr<Plan>> old;
  {
    absl::MutexLock l(&mu_);
    program_ = std::move(program);
    old.swap(plans_);
  }
  for (auto& [key, plan] : old) Deregister(*plan);
}

std::vector<std::string> MasterSession::StateDevices() {
  absl::MutexLock l(&mu_);
  return program_ == nullptr ? std::vector<std::string>() : program_->state_devices;
}

absl::Status MasterSession::Create(const GraphDef& graph) {
  MG_ASSIGN_OR_RETURN(std::shared_ptr<Program> program, Prepare(graph));
  MG_RETURN_IF_ERROR(local_->Create(graph));
  Install(std::move(program));
  return absl::OkStatus();
}

absl::Status MasterSession::Extend(const GraphDef& graph, int64_t current_version,
                                   int64_t* new_version) {
  GraphDef combined;
  {
    absl::MutexLock l(&mu_);
    if (current_version != graph_version_) {
      return absl::AbortedError(absl::StrCat("Current version is ", graph_version_,
                                             " but caller expected ", current_version, "."));
    }
    if (program_ != nullptr) combined = program_->def;
  }
  for (const NodeDef& n : graph.node()) *combined.add_node() = n;
  if (graph.has_versions()) *combined.mutable_versions() = graph.versions();
  MG_ASSIGN_OR_RETURN(std::shared_ptr<Program> program, Prepare(std::move(combined)));
  MG_RETURN_IF_ERROR(local_->Extend(graph));
  Install(std::move(program));
  absl::MutexLock l(&mu_);
  *new_version = ++graph_version_;
  return absl::OkStatus();
}

absl::StatusOr<uint64_t> MasterSession::Incarnation(const std::string& device) {
  {
    absl::MutexLock l(&mu_);
    auto it = incarnations_.find(device);
    if (it != incarnations_.end()) return it->second;
  }
  MG_ASSIGN_OR_RETURN(WorkerCache::Worker * w, task_->workers->ForDevice(device));
  tensorflow::GetStatusRequest req;
  tensorflow::GetStatusResponse resp;
  auto ctx = task_->workers->NewContext(20000);
  grpc::Status s = w->stub->GetStatus(ctx.get(), req, &resp);
  if (!s.ok()) {
    absl::Status st = FromGrpcStatus(s);
    return absl::Status(st.code(), absl::StrCat("task ", w->task, " (", w->address,
                                                ") did not answer: ", st.message()));
  }
  for (const tensorflow::DeviceAttributes& d : resp.device_attributes()) {
    if (d.name() == device) {
      absl::MutexLock l(&mu_);
      incarnations_[device] = d.incarnation();
      return d.incarnation();
    }
  }
  return absl::NotFoundError(absl::StrCat("task ", w->task, " has no device ", device));
}

absl::StatusOr<std::shared_ptr<MasterSession::Plan>> MasterSession::GetPlan(
    const std::vector<std::pair<std::string, Tensor>>& feeds,
    const std::vector<std::string>& fetches, const std::vector<std::string>& targets) {
  std::vector<std::string> feed_names;
  for (const auto& f : feeds) feed_names.push_back(f.first);
  const std::string key =
      absl::StrCat(absl::StrJoin(feed_names, ","), "->", absl::StrJoin(fetches, ","), "//",
                   absl::StrJoin(targets, ","));
  std::shared_ptr<Program> program;
  {
    absl::MutexLock l(&mu_);
    auto it = plans_.find(key);
    if (it != plans_.end()) return it->second;
    program = program_;
  }
  if (program == nullptr) {
    return absl::FailedPreconditionError("Session was not created with a graph before Run()");
  }
  auto plan = std::make_shared<Plan>();
  if (program->all_local) {
    plan->local = true;
  } else {
    // Incarnations of every task a node is placed on.
    absl::flat_hash_map<std::string, uint64_t> incarnations;
    MG_ASSIGN_OR_RETURN(std::vector<Partition> parts,
                        PartitionGraph(*program->graph, program->placement, {}, feed_names, fetches,
                                       targets));
    if (parts.size() == 1 && parts[0].device == own_device_) {
      plan->local = true;
    } else {
      for (const Partition& p : parts) {
        MG_ASSIGN_OR_RETURN(incarnations[p.device], Incarnation(p.device));
      }
      MG_ASSIGN_OR_RETURN(
          parts, PartitionGraph(*program->graph, program->placement, incarnations, feed_names,
                                fetches, targets));
      for (Partition& p : parts) {
        Plan::Part part;
        MG_ASSIGN_OR_RETURN(part.worker, task_->workers->ForDevice(p.device));
        if (absl::Status s = WorkerSessionOn(part.worker); !s.ok()) {
          Deregister(*plan);
          return s;
        }
        tensorflow::RegisterGraphRequest req;
        req.set_session_handle(handle_);
        req.set_create_worker_session_called(true);
        *req.mutable_graph_def() = p.graph;
        tensorflow::RegisterGraphResponse resp;
        auto ctx = task_->workers->NewContext(60000);
        grpc::Status s = part.worker->stub->RegisterGraph(ctx.get(), req, &resp);
        if (!s.ok()) {
          Deregister(*plan);
          absl::Status st = FromGrpcStatus(s);
          return absl::Status(st.code(), absl::StrCat("RegisterGraph on ", part.worker->task, " (",
                                                      part.worker->address, "): ", st.message()));
        }
        part.graph_handle = resp.graph_handle();
        for (const auto& [name, k] : p.fetches) plan->fetch_key[name] = k;
        part.partition = std::move(p);
        plan->parts.push_back(std::move(part));
      }
    }
  }
  absl::MutexLock l(&mu_);
  if (program_ != program) {
    // Extended meanwhile: this plan is for the old graph; use it once.
    plan->transient = true;
    return plan;
  }
  auto [it, inserted] = plans_.try_emplace(key, plan);
  if (!inserted) {
    Deregister(*plan);  // another call built it first
  }
  return it->second;
}

void MasterSession::Deregister(const Plan& plan) {
  for (const Plan::Part& p : plan.parts) {
    if (p.graph_handle.empty()) continue;
    task_->workers->Async([this, &p](std::function<void()> done) {
      struct Call {
        grpc::ClientContext ctx;
        tensorflow::DeregisterGraphRequest req;
        tensorflow::DeregisterGraphResponse resp;
      };
      auto* c = new Call;
      c->req.set_session_handle(handle_);
      c->req.set_graph_handle(p.graph_handle);
      c->ctx.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(10));
      AddToken(task_->workers->security(), &c->ctx);
      p.worker->stub->async()->DeregisterGraph(&c->ctx, &c->req, &c->resp,
                                               [c, done = std::move(done)](grpc::Status) {
                                                 delete c;
                                                 done();
                                               });
    });
  }
}

absl::Status MasterSession::Run(const RunOptions& options,
                                const std::vector<std::pair<std::string, Tensor>>& feeds,
                                const std::vector<std::string>& fetches,
                                const std::vector<std::string>& targets,
                                std::vector<Tensor>* outputs) {
  // A tensor fetched twice ("x" and "x:0", or a hook's fetch beside the
  // caller's) is fetched once and returned at each place, as TensorFlow's
  // sessions do: two receives of one rendezvous key would find one value.
  std::vector<std::string> unique;
  std::vector<size_t> place(fetches.size());
  absl::flat_hash_map<std::string, size_t> seen;
  for (size_t i = 0; i < fetches.size(); ++i) {
    const std::string& f = fetches[i];
    auto [it, inserted] =
        seen.try_emplace(f.find(':') == std::string::npos ? absl::StrCat(f, ":0") : f,
                         unique.size());
    if (inserted) unique.push_back(f);
    place[i] = it->second;
  }
  if (unique.size() < fetches.size()) {
    std::vector<Tensor> values;
    MG_RETURN_IF_ERROR(Run(options, feeds, unique, targets, &values));
    if (outputs != nullptr) {
      outputs->clear();
      for (size_t i : place) outputs->push_back(values[i]);
    }
    return absl::OkStatus();
  }
  MG_ASSIGN_OR_RETURN(std::shared_ptr<Plan> plan, GetPlan(feeds, fetches, targets));
  // Closing the session cancels its steps, as TensorFlow's master does
  // (TensorFlow's client waits for its steps to end after it closes: a
  // queue runner's step blocked on a queue would hold it for ever).
  RunOptions run = options;
  run.cancelled = [this, outer = options.cancelled] {
    return closed_.load(std::memory_order_relaxed) || (outer && outer());
  };
  absl::Status s = plan->local ? local_->Run(run, feeds, fetches, targets, outputs)
                               : RunPartitions(*plan, run, feeds, fetches, outputs);
  if (absl::IsCancelled(s) && closed_.load(std::memory_order_relaxed)) {
    return absl::CancelledError(
        absl::StrCat("the step was cancelled: session ", handle_, " was closed"));
  }
  if (plan->local) return s;
  if (plan->transient) Deregister(*plan);
  if (absl::IsAborted(s) && (absl::StrContains(s.message(), "is not registered on") ||
                             absl::StrContains(s.message(), "Graph handle is not found") ||
                             absl::StrContains(s.message(), "Session handle is not found"))) {
    // A task restarted and lost its partitions or this session's worker
    // session (a minigraph worker's text, or a TensorFlow worker's): the
    // next step creates and registers them again (with the task's new
    // incarnation).
    absl::flat_hash_map<std::string, std::shared_ptr<Plan>> stale;
    {
      absl::MutexLock l(&mu_);
      plans_.swap(stale);
      incarnations_.clear();
      worker_sessions_.clear();
    }
    for (auto& [key, p] : stale) Deregister(*p);
  }
  return s;
}

struct MasterSession::PartitionCall {
  std::unique_ptr<grpc::ClientContext> ctx;
  tensorflow::RunGraphRequest req;
  tensorflow::RunGraphResponse resp;
  absl::Status status;
};

std::vector<MasterSession::PartitionCall> MasterSession::NewCalls(
    const Plan& plan, const RunOptions& options, int64_t step_id,
    const FeedValues& feed_value) const {
  std::vector<PartitionCall> calls(plan.parts.size());
  for (size_t i = 0; i < plan.parts.size(); ++i) {
    const Plan::Part& p = plan.parts[i];
    PartitionCall& c = calls[i];
    c.ctx = task_->workers->NewContext(options.timeout_in_ms);
    c.req.set_session_handle(handle_);
    c.req.set_create_worker_session_called(true);
    c.req.set_graph_handle(p.graph_handle);
    c.req.set_step_id(step_id);
    c.req.set_store_errors_in_response_body(true);
    if (options.step_stats != nullptr) c.req.mutable_exec_opts()->set_record_timeline(true);
    for (const auto& [name, key] : p.partition.feeds) {
      tensorflow::NamedTensorProto* s = c.req.add_send();
      s->set_name(key);
      TensorToProto(*feed_value.at(name), s->mutable_tensor());
    }
    for (const auto& [name, key] : p.partition.fetches) c.req.add_recv_key(key);
  }
  return calls;
}

absl::StatusOr<std::vector<GraphDef>> MasterSession::PartitionGraphs(
    const std::vector<std::pair<std::string, Tensor>>& feeds,
    const std::vector<std::string>& fetches, const std::vector<std::string>& targets) {
  std::shared_ptr<Program> program;
  {
    absl::MutexLock l(&mu_);
    program = program_;
  }
  if (program == nullptr) {
    return absl::FailedPreconditionError("Session was not created with a graph before Run()");
  }
  std::vector<std::string> feed_names;
  for (const auto& f : feeds) feed_names.push_back(f.first);
  MG_ASSIGN_OR_RETURN(std::vector<Partition> parts,
                      PartitionGraph(*program->graph, program->placement, {}, feed_names,
                                     fetches, targets));
  std::vector<GraphDef> graphs;
  for (Partition& p : parts) graphs.push_back(std::move(p.graph));
  return graphs;
}

absl::Status MasterSession::RunPartitions(const Plan& plan, const RunOptions& options,
                                          const std::vector<std::pair<std::string, Tensor>>& feeds,
                                          const std::vector<std::string>& fetches,
                                          std::vector<Tensor>* outputs) {
  const int64_t step_id = static_cast<int64_t>(RandomNonZero() >> 1);
  FeedValues feed_value;
  for (const auto& [name, t] : feeds) feed_value[name] = &t;
  std::vector<PartitionCall> calls = NewCalls(plan, options, step_id, feed_value);

  // The partition on the master's own task runs in process (TensorFlow's
  // local worker), on this thread, once the others are under way.
  int local = -1;
  for (size_t i = 0; i < plan.parts.size(); ++i) {
    if (task_->local_worker != nullptr && plan.parts[i].partition.device == own_device_) {
      local = static_cast<int>(i);
    }
  }
  auto end_step = [&](size_t j) {
    if (static_cast<int>(j) == local) {
      task_->local_worker->EndStep(step_id);
    } else {
      CleanupStep(task_->workers.get(), plan.parts[j].worker, step_id);
    }
  };
  absl::Mutex mu;
  size_t remaining = calls.size();
  bool aborted = false;
  // The first failure cancels the step everywhere: the other partitions'
  // waiting _Recvs end at once instead of waiting for values never sent.
  auto abort_all = [&]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu) {
    if (aborted) return;
    aborted = true;
    for (size_t j = 0; j < calls.size(); ++j) end_step(j);
  };
  for (size_t i = 0; i < calls.size(); ++i) {
    if (static_cast<int>(i) == local) continue;
    PartitionCall* c = &calls[i];
    const Plan::Part* p = &plan.parts[i];
    p->worker->stub->async()->RunGraph(c->ctx.get(), &c->req, &c->resp, [&, c, p](grpc::Status s) {
      absl::Status st = s.ok() ? FromBody(c->resp.status_code(), c->resp.status_error_message())
                               : FromGrpcStatus(s);
      if (!s.ok() && (absl::IsUnavailable(st) || absl::IsDeadlineExceeded(st))) {
        st =
            absl::Status(st.code(), absl::StrCat("task ", p->worker->task, " (", p->worker->address,
                                                 ") did not answer: ", st.message()));
      }
      absl::MutexLock l(&mu);
      c->status = std::move(st);
      if (!c->status.ok()) abort_all();
      --remaining;
    });
  }
  if (local >= 0) {
    PartitionCall* c = &calls[local];
    absl::Status st = task_->local_worker->RunGraphLocally(
        c->req, &c->resp, options.timeout_in_ms, options.cancelled);
    absl::MutexLock l(&mu);
    c->status = std::move(st);
    if (!c->status.ok()) abort_all();
    --remaining;
  }
  // Waits for every partition; a client that goes away meanwhile (asked
  // every 100 ms) cancels the step on every task, as TensorFlow's master
  // does: their calls are cancelled and their steps end.
  bool cancelled = false;
  for (;;) {
    {
      absl::MutexLock l(&mu);
      if (mu.AwaitWithTimeout(absl::Condition(
                                  +[](size_t* n) { return *n == 0; }, &remaining),
                              absl::Milliseconds(100))) {
        if (!aborted) {
          for (size_t j = 0; j < calls.size(); ++j) end_step(j);
        }
        break;
      }
      if (cancelled || !options.cancelled || !options.cancelled()) continue;
      cancelled = true;
      abort_all();
    }
    for (size_t j = 0; j < calls.size(); ++j) {
      if (static_cast<int>(j) != local) calls[j].ctx->TryCancel();
    }
  }
  if (cancelled) return absl::CancelledError("the step was cancelled: its client went away");
  if (options.step_stats != nullptr) {
    for (PartitionCall& c : calls) {
      for (tensorflow::DeviceStepStats& d : *c.resp.mutable_step_stats()->mutable_dev_stats()) {
        *options.step_stats->add_dev_stats() = std::move(d);
      }
    }
  }
  std::vector<absl::Status> errors;
  for (const PartitionCall& c : calls) errors.push_back(c.status);
  MG_RETURN_IF_ERROR(RootCause(errors));
  return CollectFetches(plan, calls, feed_value, fetches, outputs);
}

absl::Status MasterSession::CollectFetches(const Plan& plan,
                                           const std::vector<PartitionCall>& calls,
                                           const FeedValues& feed_value,
                                           const std::vector<std::string>& fetches,
                                           std::vector<Tensor>* outputs) {
  absl::flat_hash_map<std::string, const TensorProto*> by_key;
  for (const PartitionCall& c : calls) {
    for (const tensorflow::NamedTensorProto& t : c.resp.recv()) by_key[t.name()] = &t.tensor();
  }
  outputs->clear();
  outputs->reserve(fetches.size());
  for (const std::string& f : fetches) {
    auto fed = feed_value.find(f);
    if (fed != feed_value.end()) {
      outputs->push_back(*fed->second);
      continue;
    }
    auto key = plan.fetch_key.find(f);
    auto proto = key == plan.fetch_key.end() ? by_key.end() : by_key.find(key->second);
    if (proto == by_key.end()) {
      return absl::InternalError(absl::StrCat("no partition returned fetch '", f, "'"));
    }
    MG_ASSIGN_OR_RETURN(Tensor t, TensorFromProto(*proto->second));
    outputs->push_back(std::move(t));
  }
  return absl::OkStatus();
}

absl::Status MasterSession::Close() {
  closed_.store(true, std::memory_order_relaxed);
  absl::flat_hash_map<std::string, std::shared_ptr<Plan>> plans;
  std::set<WorkerCache::Worker*> workers;
  {
    absl::MutexLock l(&mu_);
    plans.swap(plans_);
    workers.swap(worker_sessions_);
  }
  for (auto& [key, plan] : plans) Deregister(*plan);
  for (WorkerCache::Worker* w : workers) {
    task_->workers->Async([this, w](std::function<void()> done) {
      struct Call {
        grpc::ClientContext ctx;
        tensorflow::DeleteWorkerSessionRequest req;
        tensorflow::DeleteWorkerSessionResponse resp;
      };
      auto* c = new Call;
      c->req.set_session_handle(handle_);
      c->ctx.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(10));
      AddToken(task_->workers->security(), &c->ctx);
      w->stub->async()->DeleteWorkerSession(&c->ctx, &c->req, &c->resp,
                                            [c, done = std::move(done)](grpc::Status) {
                                              delete c;
                                              done();
                                            });
    });
  }
  return local_->Close();
}

absl::Status MasterSession::WorkerSessionOn(WorkerCache::Worker* w) {
  {
    absl::MutexLock l(&mu_);
    if (worker_sessions_.count(w) > 0) return absl::OkStatus();
  }
  tensorflow::CreateWorkerSessionRequest req;
  req.set_session_handle(handle_);
  req.set_master_task(TaskName(task_->job_name, task_->task_index));
  req.set_master_incarnation(static_cast<int64_t>(task_->device.incarnation()));
  tensorflow::CreateWorkerSessionResponse resp;
  auto ctx = task_->workers->NewContext(60000);
  grpc::Status s = w->stub->CreateWorkerSession(ctx.get(), req, &resp);
  if (!s.ok()) {
    absl::Status st = FromGrpcStatus(s);
    return absl::Status(st.code(), absl::StrCat("CreateWorkerSession on ", w->task, " (",
                                                w->address, "): ", st.message()));
  }
  absl::MutexLock l(&mu_);
  worker_sessions_.insert(w);
  return absl::OkStatus();
}

int64_t MasterSession::AddCallable(tensorflow::CallableOptions options) {
  absl::MutexLock l(&mu_);
  const int64_t h = next_callable_++;
  callables_[h] = std::move(options);
  return h;
}

absl::StatusOr<tensorflow::CallableOptions> MasterSession::GetCallable(int64_t handle) {
  absl::MutexLock l(&mu_);
  auto it = callables_.find(handle);
  if (it == callables_.end()) {
    return absl::InvalidArgumentError(absl::StrCat("no callable with handle ", handle));
  }
  return it->second;
}

bool MasterSession::ReleaseCallable(int64_t handle) {
  absl::MutexLock l(&mu_);
  return callables_.erase(handle) > 0;
}

}  // namespace distributed_internal
}  // namespace minigraph
