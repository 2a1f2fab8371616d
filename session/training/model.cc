#include "session/training/model.h"

#include <algorithm>
#include <map>
#include <optional>
#include <random>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "core/path.h"
#include "core/status_macros.h"
#include "runtime/cc/import_graph.h"
#include "runtime/cc/optimizers.h"
#include "runtime/cc/summary.h"
#include "runtime/cc/variables.h"
#include "session/basic_session_run_hooks.h"
#include "session/distributed/cluster.h"
#include "session/graph_files.h"
#include "session/init_from_checkpoint.h"

// Comments and errors spell the options as train's flags ("--graph").

namespace minigraph {
namespace {

// --warm_start_map, or every trainable variable by its own name.
std::map<std::string, std::string> WarmStartMap(const Scope& root,
                                                const std::map<std::string, std::string>& given) {
  if (!given.empty()) return given;
  std::map<std::string, std::string> map;
  for (const Variable& v : TrainableVariables(root)) map[v.name()] = v.name();
  return map;
}

// The variables of a built-in model: weights from a truncated normal
// (scaled by 0.05, seeded by --seed and each layer's op seed), biases zero.
class ModelVariables {
 public:
  ModelVariables(const Scope& root, int64_t seed, bool resource)
      : root_(root), seed_(seed), resource_(resource) {}

  Variable Weights(const std::string& name, std::vector<int64_t> dims, int64_t op_seed) const {
    Tensor shape_value(DT_INT64, TensorShape({static_cast<int64_t>(dims.size())}));
    std::copy(dims.begin(), dims.end(), shape_value.data<int64_t>());
    Output shape = ops::Const(root_, shape_value);
    Output init = ops::Mul(root_, ops::TruncatedNormal(root_, shape, DT_FLOAT, seed_, op_seed),
                           ops::Const(root_, 0.05f));
    return Variable::Create(root_, name, init, {.use_resource = resource_});
  }
  Variable Zeros(const std::string& name, int64_t n) const {
    Tensor t(DT_FLOAT, TensorShape({n}));
    std::fill_n(t.data<float>(), t.NumElements(), 0.0f);
    return Variable::Create(root_, name, t, {.use_resource = resource_});
  }

 private:
  const Scope root_;
  const int64_t seed_;
  const bool resource_;
};

// The logits of --model (mlp, linear or cnn) of the inputs `x`.
absl::StatusOr<Output> BuiltinLogits(const std::string& kind, const Scope& root, Output x,
                                     Model* m) {
  const ModelVariables v(root, static_cast<int64_t>(m->o.seed), m->o.resource_variables);
  if (kind == "mlp") {
    Variable w1 = v.Weights("layer1/weights", {m->inputs, 128}, 1);
    Variable b1 = v.Zeros("layer1/bias", 128);
    Variable w2 = v.Weights("layer2/weights", {128, m->classes}, 2);
    Variable b2 = v.Zeros("layer2/bias", m->classes);
    Output h = ops::Relu(root, ops::BiasAdd(root, ops::MatMul(root, x, w1.value()), b1.value()));
    return ops::BiasAdd(root, ops::MatMul(root, h, w2.value()), b2.value());
  }
  if (kind == "linear") {
    Variable w = v.Weights("linear/weights", {m->inputs, m->classes}, 1);
    Variable b = v.Zeros("linear/bias", m->classes);
    return ops::BiasAdd(root, ops::MatMul(root, x, w.value()), b.value());
  }
  if (kind == "cnn") {
    m->images = true;
    // tf.nn's idiom: conv2d + bias + relu, max_pool 2x2, then a dense layer.
    Output images = ops::Reshape(root, x, ops::Const<int32_t>(root, {-1, 28, 28, 1}));
    auto conv_layer = [&](const std::string& name, Output in, int64_t in_depth, int64_t depth,
                          int64_t op_seed) {
      Variable w = v.Weights(name + "/weights", {5, 5, in_depth, depth}, op_seed);
      Variable b = v.Zeros(name + "/bias", depth);
      Output conv = ops::Conv2D(root, in, w.value(), {1, 1, 1, 1}, "SAME");
      Output act = ops::Relu(root, ops::BiasAdd(root, conv, b.value()));
      return ops::MaxPool(root, act, {1, 2, 2, 1}, {1, 2, 2, 1}, "SAME");
    };
    Output h1 = conv_layer("conv1", images, 1, 8, 1);  // 14x14x8
    Output h2 = conv_layer("conv2", h1, 8, 16, 2);     // 7x7x16
    Output flat = ops::Reshape(root, h2, ops::Const<int32_t>(root, {-1, 7 * 7 * 16}));
    Variable w = v.Weights("dense/weights", {7 * 7 * 16, m->classes}, 3);
    Variable b = v.Zeros("dense/bias", m->classes);
    return ops::BiasAdd(root, ops::MatMul(root, flat, w.value()), b.value());
  }
  return absl::InvalidArgumentError(absl::StrCat("--model must be mlp, linear or cnn, got ", kind));
}

// --optimizer at --learning_rate.
absl::StatusOr<std::unique_ptr<Optimizer>> NewOptimizer(const std::string& name, double lr) {
  if (name == "sgd") return std::make_unique<GradientDescentOptimizer>(lr);
  if (name == "momentum") return std::make_unique<MomentumOptimizer>(lr, 0.9);
  if (name == "adam") return std::make_unique<AdamOptimizer>(lr);
  if (name == "rmsprop") return std::make_unique<RMSPropOptimizer>(lr);
  if (name == "adagrad") return std::make_unique<AdagradOptimizer>(lr);
  if (name == "adadelta") return std::make_unique<AdadeltaOptimizer>(lr);
  if (name == "ftrl") return std::make_unique<FtrlOptimizer>(lr);
  return absl::InvalidArgumentError(absl::StrCat(
      "--optimizer must be sgd, momentum, adam, rmsprop, adagrad, adadelta or ftrl, got ", name));
}

// `device_fn`: where nodes go (ReplicaDeviceSetter in a cluster); null
// leaves them unplaced. `env` is the sessions' Env (the Saver's too).
absl::Status Build(Model* m, DeviceFunction device_fn, Env* env) {
  const TrainOptions& o = m->o;
  const std::string kind = o.model;
  const int batch = o.batch;
  const Scope root = device_fn ? m->root.WithDeviceFunction(device_fn) : m->root;
  m->inputs = kind == "linear" ? 16 : 784;
  m->classes = kind == "linear" ? 4 : 10;
  Output x = ops::Placeholder(root.WithOpName("x"), DT_FLOAT, PartialShape({batch, m->inputs}));
  Output labels = ops::Placeholder(root.WithOpName("labels"), DT_INT64, PartialShape({batch}));
  MG_ASSIGN_OR_RETURN(Output logits, BuiltinLogits(kind, root, x, m));
  m->loss = ops::Mean(root.WithOpName("loss"),
                      ops::SparseSoftmaxCrossEntropyWithLogits(root, logits, labels).loss,
                      ops::Const<int32_t>(root, 0));
  Variable step = GetOrCreateGlobalStep(root);
  const double lr = o.learning_rate;
  MG_ASSIGN_OR_RETURN(std::unique_ptr<Optimizer> opt,
                      NewOptimizer(o.optimizer, lr));
  if (o.sync_replicas) {
    SyncReplicasOptimizer sync(opt.get(), /*replicas_to_aggregate=*/m->replicas);
    MG_ASSIGN_OR_RETURN(m->train, sync.Minimize(root, m->loss, {}, step));
    MG_ASSIGN_OR_RETURN(m->sync, sync.HookOps(root, m->chief));
    // The replica's local step, which every session initializes.
    m->local_init = LocalVariablesInitializer(root).name();
  } else {
    MG_ASSIGN_OR_RETURN(m->train, opt->Minimize(root, m->loss, {}, &step));
  }
  m->train_op = m->train.name();
  if (const std::string from = o.warm_start_from; !from.empty()) {
    using AssignmentMap = std::map<std::string, std::string>;
    const AssignmentMap map = WarmStartMap(root, o.warm_start_map);
    MG_RETURN_IF_ERROR(InitFromCheckpoint(root, from, map, env, &m->warm_start_reader));
    m->warm_started = static_cast<int>(map.size());
  }
  m->init = GlobalVariablesInitializer(root);
  m->ready = ReportUninitializedVariables(root);
  // In a cluster each ps task writes the shard of the variables it holds
  // (TensorFlow's sharded Saver); the chief merges them.
  SaverOptions saver_options;
  saver_options.max_to_keep = o.max_to_keep;
  saver_options.shard_by_device = device_fn != nullptr;
  saver_options.align_tensors = o.align_tensors;
  saver_options.lease_checkpoints = o.lease_checkpoints;
  MG_ASSIGN_OR_RETURN(m->saver, Saver::Create(root, saver_options, env));
  // What TensorBoard draws: the loss and the learning rate, summarized where
  // the model lives (a worker's nodes, in a cluster).
  summary::Scalar(root, "loss", m->loss);
  summary::Scalar(root, "learning_rate", ops::Const(root, static_cast<float>(lr)));
  std::optional<Output> merged = summary::MergeAll(root);
  MG_RETURN_IF_ERROR(m->root.status());
  m->summary = merged->tensor_name();
  MG_ASSIGN_OR_RETURN(m->meta_graph, m->root.ToMetaGraphDef());
  return absl::OkStatus();
}

// The distinct names of the collection `key` ("node:0" -> "node" when
// `ops`), in order.
std::vector<std::string> Distinct(const Scope& root, const std::string& key, bool ops) {
  std::vector<std::string> out;
  for (std::string name : root.GetCollection(key)) {
    if (ops && absl::EndsWith(name, ":0")) name.resize(name.size() - 2);
    if (std::find(out.begin(), out.end(), name) == out.end()) out.push_back(name);
  }
  return out;
}

// The one entry of --`flag`, else of the collection `key`; InvalidArgument
// naming both when there is none or more than one.
absl::StatusOr<std::string> FromFlagOrCollection(const Scope& root, const std::string& graph,
                                                 const std::string& flag,
                                                 const std::string& value,
                                                 const std::string& key, bool ops) {
  if (!value.empty()) {
    const std::string node = value.substr(0, value.find(':'));
    if (!root.FindOp(node).ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat("--", flag, "=", value, ": ", graph, " has no node ", node));
    }
    return value;
  }
  std::vector<std::string> names = Distinct(root, key, ops);
  if (names.size() != 1) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--graph=", graph, ": its \"", key, "\" collection holds ", names.size(),
        names.empty() ? "" : absl::StrCat(" (", absl::StrJoin(names, ", "), ")"),
        "; name the one to use with --", flag));
  }
  return names[0];
}

// Whether running `op` can change a variable: an optimizer's update, an
// assignment or a scatter, or a call whose function may hold one.
bool UpdatesState(absl::string_view op) {
  for (absl::string_view prefix : {"Apply", "ResourceApply", "SparseApply", "ResourceSparseApply",
                                   "Assign", "Scatter", "ResourceScatter", "TensorScatter"}) {
    if (absl::StartsWith(op, prefix)) return true;
  }
  return op == "PartitionedCall" || op == "StatefulPartitionedCall" || op == "If" ||
         op == "While";
}

// InvalidArgument unless what the train op `name` runs (its inputs and
// control inputs, all the way up) updates a variable: a step of anything
// else trains nothing (--train_op=global_step would run for ever, or until
// the input ends, and exit 0).
absl::Status CheckTrainOpUpdates(const GraphDef& graph, const std::string& path,
                                 const std::string& name) {
  absl::flat_hash_map<absl::string_view, const NodeDef*> nodes;
  for (const NodeDef& n : graph.node()) nodes[n.name()] = &n;
  std::vector<absl::string_view> todo = {absl::string_view(name).substr(0, name.find(':'))};
  absl::flat_hash_set<absl::string_view> seen(todo.begin(), todo.end());
  while (!todo.empty()) {
    auto it = nodes.find(todo.back());
    todo.pop_back();
    if (it == nodes.end()) continue;
    if (UpdatesState(it->second->op())) return absl::OkStatus();
    for (absl::string_view in : it->second->input()) {
      in = absl::StripPrefix(in, "^");
      in = in.substr(0, in.find(':'));
      if (seen.insert(in).second) todo.push_back(in);
    }
  }
  return absl::InvalidArgumentError(absl::StrCat(
      "--graph=", path, ": the train op ", name,
      " updates no variable (no Apply*, Assign* or Scatter* op among what it runs), so its "
      "steps would train nothing; name the optimizer's op with --train_op"));
}

// InvalidArgument unless `tensor` ("node:k") is a `dtype` tensor of the
// graph (its shape is checked when the step runs).
absl::Status CheckScalar(const Scope& root, const std::string& tensor, DataType dtype,
                         absl::string_view what) {
  const size_t colon = tensor.rfind(':');
  int index = 0;
  MG_ASSIGN_OR_RETURN(Operation op, root.FindOp(tensor.substr(0, colon)));
  if (colon == std::string::npos || !absl::SimpleAtoi(tensor.substr(colon + 1), &index) ||
      index < 0 || index >= op.num_outputs()) {
    return absl::InvalidArgumentError(absl::StrCat(what, " ", tensor, " names no output of ",
                                                   op.name()));
  }
  if (op.output(index).dtype() != dtype) {
    return absl::InvalidArgumentError(absl::StrCat(
        what, " ", tensor, " is ", DataTypeString(op.output(index).dtype()), "; train needs ",
        DataTypeString(dtype)));
  }
  return absl::OkStatus();
}

// In a cluster, where the imported nodes go: the device the graph records
// (replica_device_setter's), a worker's or chief's task made this task;
// `device_fn`'s pick for a node with none.
absl::Status PlaceImported(const DeviceFunction& device_fn, const std::string& own_task,
                           GraphDef* graph) {
  for (NodeDef& node : *graph->mutable_node()) {
    if (node.device().empty()) {
      node.set_device(device_fn(node));
      continue;
    }
    MG_ASSIGN_OR_RETURN(DeviceSpec spec, ParseDeviceSpec(node.device()));
    if (spec.job == "worker" || spec.job == "chief") node.set_device(own_task);
  }
  return absl::OkStatus();
}

// The imported graph's global step: TensorFlow's collection holds its
// VariableDef; else FindGlobalStepTensor's search. InvalidArgument naming
// `path` when it has none.
absl::StatusOr<std::string> ImportedGlobalStep(const Scope& root, const std::string& path) {
  std::string step;  // the collection's last variable
  for (const std::string& entry : root.GetCollection("global_step")) {
    VariableDef def;
    if (!def.ParseFromString(entry)) continue;
    if (absl::StatusOr<Variable> v = Variable::FromDef(root, def); v.ok()) {
      step = v->value().tensor_name();
    }
  }
  if (!step.empty()) return step;
  MG_ASSIGN_OR_RETURN(GraphDef graph, root.ToGraphDef());
  absl::StatusOr<std::string> found = FindGlobalStepTensor(graph, "train");
  if (!found.ok()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--graph=", path, " has no global step (tf.train.get_or_create_global_step): train "
        "counts its steps, checkpoints and summaries by it"));
  }
  return *found;
}

// The imported graph's iterators, initialized with --input's files fed to
// the filename placeholder (the graph's one string Placeholder, or
// --input_placeholder).
absl::Status SetUpInput(const Scope& root, const std::string& path, Env* env, Model* m) {
  const TrainOptions& o = m->o;
  MG_ASSIGN_OR_RETURN(GraphDef graph, root.ToGraphDef());
  std::vector<std::string> string_placeholders;
  for (const NodeDef& n : graph.node()) {
    if (n.op() == "MakeIterator") m->iterator_inits.push_back(n.name());
    auto dtype = n.attr().find("dtype");
    if (n.op() == "Placeholder" && dtype != n.attr().end() && dtype->second.type() == DT_STRING) {
      string_placeholders.push_back(n.name());
    }
  }
  const std::string input = o.input;
  std::string placeholder = o.input_placeholder;
  if (!input.empty()) {
    if (placeholder.empty()) {
      if (string_placeholders.size() != 1) {
        return absl::InvalidArgumentError(absl::StrCat(
            "--input: ", path, " has ", string_placeholders.size(), " string placeholders (",
            absl::StrJoin(string_placeholders, ", "),
            "); name the one its pipeline reads file names from with --input_placeholder"));
      }
      placeholder = string_placeholders[0];
    }
    std::vector<std::string> files;
    for (absl::string_view pattern : absl::StrSplit(input, ',', absl::SkipEmpty())) {
      MG_ASSIGN_OR_RETURN(std::vector<std::string> matched,
                          GetMatchingPaths(env, std::string(pattern)));
      if (matched.empty()) {
        return absl::NotFoundError(absl::StrCat("--input: no file matches ", pattern));
      }
      files.insert(files.end(), matched.begin(), matched.end());
    }
    if (files.empty()) {
      return absl::InvalidArgumentError(
          absl::StrCat("--input=", input, " names no file: give file names or patterns"));
    }
    Tensor names(DT_STRING, TensorShape({static_cast<int64_t>(files.size())}));
    std::copy(files.begin(), files.end(), names.data<std::string>());
    m->iterator_feeds = {{placeholder + ":0", names}};
  } else if (!string_placeholders.empty() && !m->iterator_inits.empty()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--graph=", path, " reads the files its placeholder ",
        placeholder.empty() ? string_placeholders[0] : placeholder,
        " names: give them with --input"));
  }
  return absl::OkStatus();
}

// --graph: a TensorFlow 1 meta graph, with its own train op, loss, global
// step, Saver, summaries and input pipeline.
absl::Status BuildFromGraph(Model* m, const DeviceFunction& device_fn,
                            const std::string& own_task, Env* env) {
  const TrainOptions& o = m->o;
  const std::string path = o.graph;
  absl::StatusOr<MetaGraphDef> read;
  if (env->IsDirectory(path).value_or(false)) {
    // A SavedModel's meta graph tagged "train" (TensorFlow's
    // tag_constants.TRAINING, as Estimator exports it for training).
    absl::StatusOr<SavedModel> model = ReadSavedModel(env, path);
    read = model.ok() ? FindMetaGraph(*model, {"train"}, path) : model.status();
    const std::string variables = JoinPath(path, "variables/variables");
    if (env->FileExists(variables + ".index").ok()) m->start_from = variables;
  } else {
    read = ReadMetaGraphFile(env, path);
  }
  MG_RETURN_WITH_CONTEXT_IF_ERROR(read.status(), "--graph=", path);
  MetaGraphDef meta = *std::move(read);
  if (meta.graph_def().node_size() == 0) {
    return absl::InvalidArgumentError(absl::StrCat("--graph=", path, " holds no graph"));
  }
  if (device_fn) MG_RETURN_IF_ERROR(PlaceImported(device_fn, own_task, meta.mutable_graph_def()));
  const Scope& root = m->root;
  MG_RETURN_IF_ERROR(ImportMetaGraphDef(root, meta));
  MG_RETURN_IF_ERROR(root.status());
  MG_ASSIGN_OR_RETURN(m->train_op, FromFlagOrCollection(root, path, "train_op",
                                                        o.train_op,
                                                        "train_op", true));
  MG_RETURN_IF_ERROR(CheckTrainOpUpdates(meta.graph_def(), path, m->train_op));
  MG_ASSIGN_OR_RETURN(m->loss_tensor, FromFlagOrCollection(root, path, "loss", o.loss,
                                                           "losses", false));
  if (m->loss_tensor.find(':') == std::string::npos) absl::StrAppend(&m->loss_tensor, ":0");
  MG_RETURN_IF_ERROR(CheckScalar(root, m->loss_tensor, DT_FLOAT, "the loss"));
  MG_ASSIGN_OR_RETURN(m->global_step, ImportedGlobalStep(root, path));
  MG_RETURN_IF_ERROR(CheckScalar(root, m->global_step, DT_INT64, "the global step"));
  MG_RETURN_IF_ERROR(SetUpInput(root, path, env, m));
  m->reads_own_input = true;
  absl::StatusOr<std::vector<QueueRunnerDef>> runners = QueueRunnersOf(meta);
  if (!runners.ok()) {
    return absl::InvalidArgumentError(absl::StrCat("--graph=", path, ": ",
                                                   runners.status().message()));
  }
  m->queue_runners = *std::move(runners);
  // Its Saver, else a default one.
  if (meta.has_saver_def()) {
    m->saver = Saver::FromSaverDef(meta.saver_def(), env,
                                   {.max_to_keep = o.max_to_keep});
  } else {
    SaverOptions so;
    so.max_to_keep = o.max_to_keep;
    so.shard_by_device = static_cast<bool>(device_fn);
    so.align_tensors = o.align_tensors;
    MG_ASSIGN_OR_RETURN(m->saver, Saver::Create(root, so, env));
  }
  // Local variables (an input producer's epoch counter, metrics) are
  // initialized by every session, restored or not, as TensorFlow's
  // Scaffold does; they are not in checkpoints.
  m->init = ops::Group(root.WithOpName("train/init"), {GlobalVariablesInitializer(root)});
  if (!LocalVariables(root).empty()) m->local_init = LocalVariablesInitializer(root).name();
  m->ready = ReportUninitializedVariables(root);
  if (std::optional<Output> merged = summary::MergeAll(root)) m->summary = merged->tensor_name();
  MG_RETURN_IF_ERROR(root.status());
  MG_ASSIGN_OR_RETURN(m->meta_graph, root.ToMetaGraphDef());
  return absl::OkStatus();
}

}  // namespace

absl::Status BuildModel(Model* m, const DeviceFunction& device_fn, const std::string& own_task,
                        Env* env) {
  if (m->o.graph.empty()) return Build(m, device_fn, env);
  return BuildFromGraph(m, device_fn, own_task, env);
}

void MakeBatch(const Model& m, uint64_t seed, int64_t k, Tensor* x, Tensor* labels) {
  std::mt19937_64 rng(seed * 1000003 + static_cast<uint64_t>(k));
  std::normal_distribution<float> normal(0.f, 1.f);
  float* xf = x->data<float>();
  for (int64_t i = 0; i < x->NumElements(); ++i) xf[i] = normal(rng);
  const int batch = static_cast<int>(x->dim_size(0));
  for (int b = 0; b < batch; ++b) {
    float best = -1e30f;
    int64_t arg = 0;
    for (int c = 0; c < m.classes; ++c) {
      float score = 0;
      if (m.images) {
        // The brightest of 10 horizontal bands of the 28x28 image: a
        // teacher a convolutional model can learn (pooling keeps where
        // things are, roughly, not exactly).
        for (int row = c * 28 / m.classes; row < (c + 1) * 28 / m.classes; ++row) {
          for (int col = 0; col < 28; ++col) score += xf[b * m.inputs + row * 28 + col];
        }
      } else {
        for (int j = c; j < m.inputs; j += m.classes) score += xf[b * m.inputs + j];
      }
      if (score > best) {
        best = score;
        arg = c;
      }
    }
    labels->data<int64_t>()[b] = arg;
  }
}

FeedList BatchCycle::Feeds(int64_t k) {
  Made& b = made_[k % period_];
  if (!b.x.IsInitialized()) {
    b.x = Tensor(DT_FLOAT, TensorShape({batch_, m_.inputs}));
    b.labels = Tensor(DT_INT64, TensorShape({batch_}));
    MakeBatch(m_, seed_, k % period_, &b.x, &b.labels);
  }
  return {{"x", b.x}, {"labels", b.labels}};
}

}  // namespace minigraph
