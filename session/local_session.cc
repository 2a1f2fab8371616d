#include "session/local_session.h"

#include <atomic>
#include <map>
#include <thread>

#include "absl/base/thread_annotations.h"
#include "absl/cleanup/cleanup.h"
#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/synchronization/mutex.h"
#include "core/env.h"
#include "core/proto/step_stats.pb.h"
#include "core/status_macros.h"
#include "google/protobuf/util/message_differencer.h"
#include "session/internal/in_process_factory.h"
#include "session/internal/run_partition.h"
#include "session/targets.h"
#include "runtime/engine/denormal.h"
#include "runtime/engine/executor.h"
#include "runtime/engine/kernel_registry.h"
#include "runtime/engine/rendezvous.h"
#include "runtime/engine/step_stats.h"
#include "runtime/graph/graph.h"
#include "runtime/graph/lower_while.h"
#include "runtime/graph/ops/standard_ops.h"
#include "unsupported/Eigen/CXX11/Tensor"

namespace minigraph {
namespace {

int Threads(int requested) {
  if (requested > 0) return requested;
  const unsigned n = std::thread::hardware_concurrency();
  return n == 0 ? 1 : static_cast<int>(n);
}

// Thread pools are shared by every session with the same sizes and live for
// the process, as TensorFlow's global pools do.
struct Pools {
  std::unique_ptr<DenormalFlushingThreadPool> inter_op;
  std::unique_ptr<DenormalFlushingThreadPool> intra_op;
  std::unique_ptr<Eigen::ThreadPoolDevice> device;
};

const Pools& PoolsFor(int inter, int intra) {
  static absl::Mutex mu(absl::kConstInit);
  static auto* pools = new std::map<std::pair<int, int>, std::unique_ptr<Pools>>;
  absl::MutexLock l(&mu);
  auto& p = (*pools)[{inter, intra}];
  if (p == nullptr) {
    p = std::make_unique<Pools>();
    if (inter > 1) p->inter_op = std::make_unique<DenormalFlushingThreadPool>(inter);
    p->intra_op = std::make_unique<DenormalFlushingThreadPool>(intra);
    p->device = std::make_unique<Eigen::ThreadPoolDevice>(p->intra_op.get(), intra);
  }
  return *p;
}

std::atomic<int64_t> next_step_id{1};

// The static registrar that makes NewSession build LocalSessions for "" and
// local:// targets whenever this target is linked (alwayslink).
const bool kInProcessSessionsRegistered = [] {
  session_internal::SetInProcessSessionFactory(
      [](const SessionOptions& options) -> absl::StatusOr<std::unique_ptr<Session>> {
        MG_ASSIGN_OR_RETURN(std::shared_ptr<SessionState> state, StateForTarget(options.target));
        return std::unique_ptr<Session>(new LocalSession(options, std::move(state)));
      });
  return true;
}();

}  // namespace

// The session's state, behind the header's interface.
class LocalSession::Impl {
 public:
  Impl(const SessionOptions& options, std::shared_ptr<SessionState> state);

  absl::Status Create(const GraphDef& graph);
  absl::Status Extend(const GraphDef& graph);
  absl::Status Run(const RunOptions& options,
                   const std::vector<std::pair<std::string, Tensor>>& feeds,
                   const std::vector<std::string>& fetches,
                   const std::vector<std::string>& targets, std::vector<Tensor>* outputs);
  absl::Status RunPartition(const RunOptions& options, const std::vector<std::string>& targets,
                            Rendezvous* rendezvous, int64_t step_id);
  absl::Status Close();
  GraphDef graph_def() const;
  absl::StatusOr<std::unique_ptr<StateWatch>> WatchState();
  SessionState* state() const { return state_.get(); }

 private:
  // A graph, its kernels and the plans built for it. Replaced whole by
  // Extend, so a step in flight keeps the one it started with.
  struct Program;
  absl::Status Install(const GraphDef& graph);
  absl::Status RunStep(const RunOptions& options,
                       const std::vector<std::pair<std::string, Tensor>>& feeds,
                       const std::vector<std::string>& fetches,
                       const std::vector<std::string>& targets, bool every_node,
                       Rendezvous* rendezvous, int64_t step_id, std::vector<Tensor>* outputs);
  // See Executor::Create.
  absl::StatusOr<const Executor*> GetExecutor(
      Program* program, const std::vector<std::pair<std::string, Tensor>>& feeds,
      const std::vector<std::string>& fetches, const std::vector<std::string>& targets,
      bool every_node);

  const SessionOptions options_;
  const std::shared_ptr<SessionState> state_;
  // Process-wide pools for these thread counts.
  Eigen::ThreadPoolInterface* inter_op_pool_;  // Not owned.
  const Eigen::ThreadPoolDevice* device_;      // Not owned.

  mutable absl::Mutex mu_;
  std::shared_ptr<Program> program_ ABSL_GUARDED_BY(mu_);
  bool closed_ ABSL_GUARDED_BY(mu_) = false;
};

struct LocalSession::Impl::Program {
  GraphDef def;
  std::unique_ptr<Graph> graph;
  std::vector<std::unique_ptr<OpKernel>> kernels;
  // Per node id, why it has no kernel (OK where it has one): an op without
  // a kernel, or attrs its kernel refuses, fails the steps that need the
  // node, not the graph.
  std::vector<absl::Status> why_no_kernel;
  // Whether the graph has _Send or _Recv nodes, and the first _Recv whose
  // _Send is not in the graph ("" if none): run on its own, such a graph
  // would wait for ever.
  bool sends_or_receives = false;
  std::string unmatched_recv;
  // Each lowered loop's output ("loop:1") and the tensor its readers read.
  absl::flat_hash_map<std::string, std::string> loop_exits;
  absl::Mutex mu;
  absl::flat_hash_map<std::string, std::unique_ptr<Executor>> executors ABSL_GUARDED_BY(mu);
};

LocalSession::Impl::Impl(const SessionOptions& options, std::shared_ptr<SessionState> state)
    : options_(options), state_(std::move(state)) {
  const Pools& pools = PoolsFor(Threads(options.inter_op_threads),
                                Threads(options.intra_op_threads));
  inter_op_pool_ = pools.inter_op.get();
  device_ = pools.device.get();
}

absl::Status LocalSession::Impl::Install(const GraphDef& def) {
  auto program = std::make_shared<Program>();
  program->def = def;
  if (HasLoopsToLower(def)) {
    GraphDef lowered = def;
    MG_RETURN_IF_ERROR(
        LowerWhileLoops(&lowered, GlobalOpRegistry(), nullptr, &program->loop_exits));
    MG_ASSIGN_OR_RETURN(program->graph, Graph::Create(lowered, GlobalOpRegistry()));
  } else {
    MG_ASSIGN_OR_RETURN(program->graph, Graph::Create(def, GlobalOpRegistry()));
  }
  absl::flat_hash_set<std::string> sent;
  std::vector<std::pair<std::string, std::string>> received;  // (node, key)
  for (const Node& node : program->graph->nodes()) {
    absl::StatusOr<std::unique_ptr<OpKernel>> k = GlobalKernelRegistry()->CreateKernel(node);
    program->why_no_kernel.push_back(k.status());
    program->kernels.push_back(k.ok() ? *std::move(k) : nullptr);
    const std::string& op = node.type_string();
    const bool send = op == "_Send" || op == "_HostSend";
    if (send || op == "_Recv" || op == "_HostRecv") {
      program->sends_or_receives = true;
      const auto& attr = node.def().attr();
      const auto s = [&](const char* name) {
        auto it = attr.find(name);
        return it == attr.end() ? std::string() : it->second.s();
      };
      std::string key = absl::StrCat(s("send_device"), ";", s("recv_device"), ";",
                                     s("tensor_name"));
      if (send) {
        sent.insert(std::move(key));
      } else {
        received.emplace_back(node.name(), std::move(key));
      }
    }
  }
  for (const auto& [name, key] : received) {
    if (!sent.contains(key)) {
      program->unmatched_recv = name;
      break;
    }
  }
  absl::MutexLock l(&mu_);
  program_ = std::move(program);
  return absl::OkStatus();
}

absl::Status LocalSession::Impl::Create(const GraphDef& graph) {
  {
    absl::MutexLock l(&mu_);
    if (closed_) return absl::CancelledError("Session has been closed.");
    if (program_ != nullptr) {
      return absl::AlreadyExistsError("A Graph has already been created for this session.");
    }
  }
  return Install(graph);
}

absl::Status LocalSession::Impl::Extend(const GraphDef& graph) {
  GraphDef combined;
  {
    absl::MutexLock l(&mu_);
    if (closed_) return absl::CancelledError("Session has been closed.");
    if (program_ != nullptr) combined = program_->def;
  }
  for (const NodeDef& n : graph.node()) *combined.add_node() = n;
  if (graph.has_versions()) *combined.mutable_versions() = graph.versions();
  // The new functions join the library, as TensorFlow's Extend adds them; one
  // that is there already must be the same message. TensorFlow's client sends
  // the whole library again with each Extend, and a FunctionDef's maps
  // serialize in no fixed order, so equal functions may differ in bytes.
  absl::flat_hash_map<std::string, const FunctionDef*> have;
  for (const FunctionDef& f : combined.library().function()) have[f.signature().name()] = &f;
  std::vector<const FunctionDef*> added;
  for (const FunctionDef& f : graph.library().function()) {
    auto it = have.find(f.signature().name());
    if (it == have.end()) {
      added.push_back(&f);
    } else if (!google::protobuf::util::MessageDifferencer::Equals(*it->second, f)) {
      return absl::InvalidArgumentError(absl::StrCat(
          "Cannot add function '", f.signature().name(),
          "' because a different function with the same name already exists."));
    }
  }
  for (const FunctionDef* f : added) *combined.mutable_library()->add_function() = *f;
  return Install(combined);
}

absl::StatusOr<const Executor*> LocalSession::Impl::GetExecutor(
    Program* program, const std::vector<std::pair<std::string, Tensor>>& feeds,
    const std::vector<std::string>& fetches, const std::vector<std::string>& targets,
    bool every_node) {
  std::string key = every_node ? "*" : "";
  for (const auto& f : feeds) absl::StrAppend(&key, f.first, ",");
  absl::StrAppend(&key, "->", absl::StrJoin(fetches, ","), "//", absl::StrJoin(targets, ","));
  {
    absl::MutexLock l(&program->mu);
    auto it = program->executors.find(key);
    if (it != program->executors.end()) return it->second.get();
  }
  std::vector<TensorId> feed_ids, fetch_ids;
  for (const auto& f : feeds) {
    MG_ASSIGN_OR_RETURN(TensorId id, ParseTensorName(f.first));
    feed_ids.push_back(std::move(id));
  }
  for (const auto& f : fetches) {
    MG_ASSIGN_OR_RETURN(TensorId id, ParseTensorName(f));
    if (id.control) {
      return absl::InvalidArgumentError(absl::StrCat("cannot fetch control input '", f, "'"));
    }
    fetch_ids.push_back(std::move(id));
  }
  std::vector<const OpKernel*> kernels;
  for (const auto& k : program->kernels) kernels.push_back(k.get());
  MG_ASSIGN_OR_RETURN(auto ex, Executor::Create(program->graph.get(), kernels, feed_ids,
                                                fetch_ids, targets, every_node,
                                                &program->why_no_kernel));
  absl::MutexLock l(&program->mu);
  auto& slot = program->executors[key];
  if (slot == nullptr) slot = std::move(ex);
  return slot.get();
}

absl::Status LocalSession::Impl::Run(const RunOptions& options,
                                     const std::vector<std::pair<std::string, Tensor>>& feeds,
                                     const std::vector<std::string>& fetches,
                                     const std::vector<std::string>& targets,
                                     std::vector<Tensor>* outputs) {
  return RunStep(options, feeds, fetches, targets, /*every_node=*/false, nullptr,
                 next_step_id.fetch_add(1), outputs);
}

absl::Status LocalSession::Impl::RunPartition(const RunOptions& options,
                                              const std::vector<std::string>& targets,
                                              Rendezvous* rendezvous, int64_t step_id) {
  std::vector<Tensor> none;
  return RunStep(options, {}, {}, targets, /*every_node=*/targets.empty(), rendezvous, step_id,
                 &none);
}

absl::Status LocalSession::Impl::RunStep(const RunOptions& options,
                                         const std::vector<std::pair<std::string, Tensor>>& feeds,
                                         const std::vector<std::string>& fetches,
                                         const std::vector<std::string>& targets, bool every_node,
                                         Rendezvous* rendezvous, int64_t step_id,
                                         std::vector<Tensor>* outputs) {
  std::shared_ptr<Program> program;
  {
    absl::MutexLock l(&mu_);
    if (closed_) return absl::CancelledError("Session has been closed.");
    program = program_;
  }
  if (program == nullptr) {
    return absl::FailedPreconditionError("Session was not created with a graph before Run()");
  }
  // A lowered loop's readers read its outputs one by one: a fed output of
  // the loop is fed to them there too.
  // (The feeds are copied only in a step that feeds one.)
  std::vector<std::pair<std::string, Tensor>> with_exits;
  const std::vector<std::pair<std::string, Tensor>>* fed = &feeds;
  for (size_t i = 0; !program->loop_exits.empty() && i < feeds.size(); ++i) {
    absl::StatusOr<TensorId> id = ParseTensorName(feeds[i].first);
    if (!id.ok()) continue;
    auto exit = program->loop_exits.find(absl::StrCat(id->node, ":", id->index));
    if (exit == program->loop_exits.end()) continue;
    if (fed == &feeds) with_exits = feeds;
    with_exits.emplace_back(exit->second, feeds[i].second);
    fed = &with_exits;
  }
  MG_ASSIGN_OR_RETURN(const Executor* ex,
                      GetExecutor(program.get(), *fed, fetches, targets, every_node));
  // A graph with its own _Send and _Recv pairs, run on its own (as
  // TensorFlow's DirectSession runs one): the step's own rendezvous.
  std::unique_ptr<LocalRendezvous> own;
  if (rendezvous == nullptr && program->sends_or_receives) {
    if (!program->unmatched_recv.empty()) {
      return absl::FailedPreconditionError(absl::StrCat(
          "node '", program->unmatched_recv,
          "' (_Recv) waits for a tensor that no _Send in this graph sends; it runs only in a "
          "partition of a distributed step"));
    }
    own = std::make_unique<LocalRendezvous>();
    rendezvous = own.get();
  }
  Executor::Args args;
  args.feeds.reserve(fed->size());
  for (const auto& f : *fed) args.feeds.push_back(f.second);
  args.step.device = device_;
  args.step.env = options_.env;
  args.step.resource_mgr = state_->resource_mgr();
  args.step.allocator = DefaultAllocator();
  BoundedAllocator* bounded = nullptr;
  if (options_.max_step_bytes > 0) {
    bounded = BoundedAllocator::New(DefaultAllocator(), options_.max_step_bytes);
    args.step.allocator = bounded;
  }
  // The bound's own reference goes with the step; its tensors keep it.
  absl::Cleanup release = [bounded] {
    if (bounded != nullptr) bounded->Release();
  };
  args.step.step_id = step_id;
  args.step.rendezvous = rendezvous;
  args.pool = inter_op_pool_;
  const int64_t timeout_ms =
      options.timeout_in_ms > 0 ? options.timeout_in_ms : options_.operation_timeout_in_ms;
  if (timeout_ms > 0) args.timeout = absl::Milliseconds(timeout_ms);
  args.cancelled = options.cancelled;
  StepStatsCollector stats;
  if (options.step_stats != nullptr) args.step.stats = &stats;
  std::vector<Tensor> unused;
  absl::Status run = ex->Run(args, outputs != nullptr ? outputs : &unused);
  if (options.step_stats != nullptr) {
    AppendStepStats(stats.Take(), options_.device_name, options.step_stats);
  }
  MG_RETURN_IF_ERROR(run);
  // A variable restored in place from a checkpoint mapping that lost its
  // lease may hold another process's bytes: every step fails, naming it,
  // until it is restored or assigned again. (One atomic load while no lease
  // was ever lost.)
  if (MappedFileLeasesRevoked() != 0) {
    MG_RETURN_IF_ERROR(state_->resource_mgr()->CheckVariablesIntact());
  }
  return absl::OkStatus();
}

absl::Status LocalSession::Impl::Close() {
  absl::MutexLock l(&mu_);
  closed_ = true;
  program_.reset();
  return absl::OkStatus();
}

namespace {

class LocalStateWatch : public StateWatch {
 public:
  explicit LocalStateWatch(std::shared_ptr<SessionState> state)
      : state_(std::move(state)), seen_(state_->resource_mgr()->version()) {}
  ~LocalStateWatch() override {
    if (id_ >= 0) state_->resource_mgr()->Unwatch(id_);
  }
  // In process a watch costs nothing while it waits: `timeout` is the
  // waiter's to keep.
  void Start(absl::Duration timeout, std::function<void()> on_change) override {
    id_ = state_->resource_mgr()->Watch(seen_, [fn = std::move(on_change)](uint64_t) { fn(); });
  }

 private:
  const std::shared_ptr<SessionState> state_;
  const uint64_t seen_;
  int64_t id_ = -1;
};

}  // namespace

absl::StatusOr<std::unique_ptr<StateWatch>> LocalSession::Impl::WatchState() {
  return std::make_unique<LocalStateWatch>(state_);
}

GraphDef LocalSession::Impl::graph_def() const {
  absl::MutexLock l(&mu_);
  return program_ == nullptr ? GraphDef() : program_->def;
}

LocalSession::LocalSession(const SessionOptions& options, std::shared_ptr<SessionState> state)
    : impl_(std::make_unique<Impl>(options, std::move(state))) {}

LocalSession::~LocalSession() = default;

absl::Status LocalSession::Create(const GraphDef& graph) { return impl_->Create(graph); }

absl::Status LocalSession::Extend(const GraphDef& graph) { return impl_->Extend(graph); }

absl::Status LocalSession::Run(const RunOptions& options,
                               const std::vector<std::pair<std::string, Tensor>>& feeds,
                               const std::vector<std::string>& fetches,
                               const std::vector<std::string>& targets,
                               std::vector<Tensor>* outputs) {
  return impl_->Run(options, feeds, fetches, targets, outputs);
}

absl::Status LocalSession::Close() { return impl_->Close(); }

GraphDef LocalSession::graph_def() const { return impl_->graph_def(); }

absl::StatusOr<std::unique_ptr<StateWatch>> LocalSession::WatchState() {
  return impl_->WatchState();
}

SessionState* LocalSession::state() const { return impl_->state(); }

namespace session_internal {

absl::Status RunPartition(LocalSession* session, const RunOptions& options,
                          const std::vector<std::string>& targets, Rendezvous* rendezvous,
                          int64_t step_id) {
  return session->impl_->RunPartition(options, targets, rendezvous, step_id);
}

}  // namespace session_internal
}  // namespace minigraph
