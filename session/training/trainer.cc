#include "session/training/trainer.h"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <climits>
#include <cmath>
#include <cstdio>
#include <map>
#include <memory>
#include <optional>
#include <random>
#include <thread>
#include <utility>
#include <vector>

#include "absl/cleanup/cleanup.h"
#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "checkpoint/bundle_reader.h"
#include "checkpoint/naming.h"
#include "core/env.h"
#include "core/events_writer.h"
#include "core/path.h"
#include "core/status_macros.h"
#include "runtime/cc/import_graph.h"
#include "runtime/cc/ops.h"
#include "runtime/cc/optimizers.h"
#include "runtime/cc/summary.h"
#include "runtime/cc/variables.h"
#include "session/basic_session_run_hooks.h"
#include "session/distributed/cluster.h"
#include "session/graph_files.h"
#include "session/init_from_checkpoint.h"
#include "session/monitored_session.h"
#include "session/saver.h"
#include "session/session_manager.h"

// The options carry the names of train's flags, and comments and errors
// here spell them as the flags ("--graph", "--steps").

namespace minigraph {
namespace {

// Larger batches would not fit in memory as one step's activations.
constexpr int kMaxBatch = 1 << 16;
// In the log directory, held by the chief while it trains.
constexpr char kLockFile[] = "train.lock";

// One progress line to `o.log`, or to standard output.
void Log(const TrainOptions& o, const std::string& line) {
  if (o.log) {
    o.log(line);
    return;
  }
  std::printf("%s\n", line.c_str());
  std::fflush(stdout);
}

// A run's model, and what the loop runs of it.
struct Model {
  explicit Model(const TrainOptions& options) : o(options) {}

  const TrainOptions& o;
  Scope root = Scope::NewRootScope();
  int inputs = 0, classes = 0;
  bool images = false;  // inputs are 28x28 images (cnn)
  Output loss;
  Operation train, init;
  Output ready;  // the uninitialized variables' names (SessionManager's ready_op)
  std::unique_ptr<Saver> saver;
  std::string summary;  // the merged summaries (loss, learning_rate)
  MetaGraphDef meta_graph;  // the graph, its collections and SaverDef
  int warm_started = 0;  // assignment_map pairs, with --warm_start_from
  // The --warm_start_from checkpoint, open and leased until the session's
  // initializers have read it.
  std::unique_ptr<BundleReader> warm_start_reader;
  // What the loop runs, by name: the built-in model's, or --graph's.
  std::string train_op;
  std::string loss_tensor = "loss:0";
  std::string global_step = "global_step/read:0";
  // --graph: the graph reads its own input (nothing is fed to its steps);
  // its iterators are initialized once per session, with these feeds.
  bool reads_own_input = false;
  std::vector<std::string> iterator_inits;
  FeedList iterator_feeds;
  // --graph=SAVED_MODEL_DIR: the checkpoint a run without one of its own
  // starts from (the SavedModel's variables).
  std::string start_from;
};

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
  MG_ASSIGN_OR_RETURN(m->train, opt->Minimize(root, m->loss, {}, &step));
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
  m->init = ops::Group(root.WithOpName("train/init"),
                       {GlobalVariablesInitializer(root), LocalVariablesInitializer(root)});
  m->ready = ReportUninitializedVariables(root);
  if (std::optional<Output> merged = summary::MergeAll(root)) m->summary = merged->tensor_name();
  MG_RETURN_IF_ERROR(root.status());
  MG_ASSIGN_OR_RETURN(m->meta_graph, root.ToMetaGraphDef());
  return absl::OkStatus();
}

// Batch number k of a seed's: a pure function of (seed, k). Labels follow
// a fixed teacher the model can learn, so the loss can fall.
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

// The batches a run feeds: step k's is batch k mod a period, each made the
// first time a step needs it and kept, so that making inputs (normal
// numbers by the million) costs nothing once the first period has passed
// and the rate `train` prints is the engine's. The period holds at most
// kCycleBytes of inputs (and at least one batch), so it depends only on
// the model and --batch: a resumed run feeds what an uninterrupted one
// would. Not thread-safe; one per thread.
class BatchCycle {
 public:
  static constexpr int64_t kMaxPeriod = 64;
  static constexpr int64_t kCycleBytes = int64_t{64} << 20;

  BatchCycle(const Model& m, uint64_t seed, int batch)
      : m_(m),
        seed_(seed),
        batch_(batch),
        period_(Period(m, batch)),
        made_(period_) {}

  static int64_t Period(const Model& m, int batch) {
    const int64_t bytes = std::max<int64_t>(int64_t{4} * batch * m.inputs, 1);
    return std::clamp<int64_t>(kCycleBytes / bytes, 1, kMaxPeriod);
  }

  // Step k's inputs, as feeds for "x" and "labels".
  FeedList Feeds(int64_t k) {
    Made& b = made_[k % period_];
    if (!b.x.IsInitialized()) {
      b.x = Tensor(DT_FLOAT, TensorShape({batch_, m_.inputs}));
      b.labels = Tensor(DT_INT64, TensorShape({batch_}));
      MakeBatch(m_, seed_, k % period_, &b.x, &b.labels);
    }
    return {{"x", b.x}, {"labels", b.labels}};
  }

 private:
  struct Made {
    Tensor x, labels;
  };
  const Model& m_;
  const uint64_t seed_;
  const int batch_;
  const int64_t period_;
  std::vector<Made> made_;
};

// InvalidArgument naming the option as train's flag unless lo <= value <=
// hi (and, for floating point, value is finite). As tools/flag_checks.h's
// FlagInRange, which the library cannot reach (tools/ is above it).
template <typename T>
absl::Status InRange(absl::string_view option, T value, T lo, T hi) {
  bool ok = lo <= value && value <= hi;
  if constexpr (std::is_floating_point_v<T>) ok = ok && std::isfinite(value);
  if (ok) return absl::OkStatus();
  return absl::InvalidArgumentError(
      absl::StrCat("--", option, "=", value, " is out of range: give ", lo, " to ", hi));
}

// One chief per log directory: two trainings in one directory would restore
// and overwrite each other's checkpoints. The lock file holds the holder's
// pid; creating it is also the check, before any work, that the directory is
// writable. A lock on a file that its name no longer reaches excludes
// nobody, so the lock is taken again when the file was deleted or replaced
// between its open and its lock, and the training checks it as it goes
// (LogdirLockHook).
absl::StatusOr<std::unique_ptr<FileLock>> LockLogdir(Env* env, const std::string& logdir) {
  const std::string path = JoinPath(logdir, kLockFile);
  auto not_writable = [&](const absl::Status& s) {
    return absl::FailedPreconditionError(
        absl::StrCat("log directory ", logdir,
                     " is not writable (checkpoints could not be saved): ", s.message()));
  };
  std::unique_ptr<FileLock> held;
  for (int attempt = 0; held == nullptr; ++attempt) {
    if (!env->FileExists(path).ok()) {
      // Appending creates the file without truncating one made meanwhile.
      absl::StatusOr<std::unique_ptr<WritableFile>> made = env->NewAppendableFile(path);
      if (!made.ok()) return not_writable(made.status());
      if (absl::Status s = (*made)->Close(); !s.ok()) return not_writable(s);
    }
    absl::StatusOr<std::unique_ptr<FileLock>> lock = env->TryLockFile(path);
    if (absl::IsFailedPrecondition(lock.status())) {
      std::string pid(absl::StripAsciiWhitespace(ReadFileToString(env, path, 64).value_or("")));
      return absl::FailedPreconditionError(absl::StrCat(
          "log directory ", logdir, " in use by pid ", pid.empty() ? "(unknown)" : pid,
          " (it holds ", path, "); give each training its own --logdir"));
    }
    if (!lock.ok()) return lock.status();
    if (absl::Status s = (*lock)->Check(); !s.ok()) {
      if (attempt == 10) return s;
      continue;
    }
    held = *std::move(lock);
  }
  if (absl::Status s = WriteStringToFile(env, path, absl::StrCat(getpid(), "\n")); !s.ok()) {
    return not_writable(s);
  }
  return held;
}

// OK while this training still holds its log directory's lock (LockLogdir):
// a lock file deleted or replaced under it lets a second training in, so
// this one stops, before its next step or save writes anything more.
absl::Status CheckLogdirLock(const FileLock* lock, const std::string& logdir) {
  if (lock == nullptr) return absl::OkStatus();
  absl::Status s = lock->Check();
  if (s.ok()) return s;
  return absl::FailedPreconditionError(
      absl::StrCat("lost the lock on log directory ", logdir, ": ", s.message(),
                   "; another training may use the directory now, so this one stopped without "
                   "saving"));
}

// Checks the log directory's lock before a step, at most once a second
// (two stat calls): a training whose lock is gone stops within a second.
class LogdirLockHook : public SessionRunHook {
 public:
  LogdirLockHook(const FileLock* lock, std::string logdir, Env* env)
      : lock_(lock), logdir_(std::move(logdir)), env_(env) {}
  absl::Status BeforeRun(SessionRunContext*, SessionRunArgs*) override {
    const uint64_t now = env_->NowMicros();
    if (now - last_check_ < 1000000) return absl::OkStatus();
    last_check_ = now;
    return CheckLogdirLock(lock_, logdir_);
  }

 private:
  const FileLock* const lock_;
  const std::string logdir_;
  Env* const env_;
  uint64_t last_check_ = 0;
};

// Where this process stands in the job.
struct Role {
  bool chief = true;
  bool in_cluster = false;
  int task_index = 0;
  std::string target;
  std::unique_ptr<Server> server;  // this task's, in a cluster
  DeviceFunction device_fn;        // ReplicaDeviceSetter, in a cluster
  std::string own_task;            // "/job:worker/task:1", in a cluster
  uint64_t seed = 0;
};

// The Role of a run of `o`: in a cluster, this task's server and
// placement. The options are checked (CheckTrainOptions).
absl::Status JoinCluster(const TrainOptions& o, Role* role) {
  role->target = o.target;
  role->seed = o.seed;
  if (!o.cluster.has_value()) return absl::OkStatus();
  role->in_cluster = true;
  ServerOptions so = *o.cluster;
  const std::string job = so.job_name;
  const int task = so.task_index;
  role->task_index = task;
  so.intra_op_threads = o.threads;
  so.inter_op_threads = 2;
  int num_ps = 0;
  bool chief_job = false;  // TensorFlow's "chief" job: then no worker is the chief
  for (const auto& j : so.cluster.job()) {
    if (j.name() == "ps") num_ps = j.tasks_size();
    if (j.name() == "chief") chief_job = true;
  }
  MG_ASSIGN_OR_RETURN(role->server, Server::Create(so));
  role->target = role->server->target();
  role->own_task = absl::StrCat("/job:", job, "/task:", task);
  role->device_fn = ReplicaDeviceSetter(num_ps, role->own_task);
  role->chief = job == "chief" || (!chief_job && task == 0);
  // Each worker trains on its own data; a chief job's task on the seed's.
  if (job == "worker") role->seed += chief_job ? task + 1 : task;
  return absl::OkStatus();
}

// The step of a checkpoint prefix ("model.ckpt-300" -> 300), or -1.
int64_t StepOfPrefix(const std::string& prefix) {
  int64_t step = -1;
  const std::string base(Basename(prefix));
  if (!absl::SimpleAtoi(base.substr(base.rfind('-') + 1), &step)) return -1;
  return step;
}

// How the MonitoredSession gets its sessions: the chief through the
// SessionManager's PrepareSession with train's restore policy (and a line
// saying what it restored), a worker by waiting for the chief.
class TrainSessionCreator : public SessionCreator {
 public:
  TrainSessionCreator(SessionManager* sm, const GraphDef* graph,
                      SessionManager::PrepareOptions prepare, const Role* role, const Model* m,
                      Env* env, std::string logdir)
      : sm_(sm),
        graph_(graph),
        prepare_(std::move(prepare)),
        role_(role),
        m_(m),
        env_(env),
        logdir_(std::move(logdir)) {
    prepare_.restored_from = &restored_from_;
  }

  absl::StatusOr<std::unique_ptr<Session>> CreateSession() override {
    if (!role_->chief) {
      Log(m_->o, absl::StrCat("worker ", role_->task_index, " waiting for the chief"));
      return sm_->WaitForSession(role_->target, prepare_.config);
    }
    const auto t0 = std::chrono::steady_clock::now();
    absl::StatusOr<std::unique_ptr<Session>> session =
        sm_->PrepareSession(role_->target, prepare_);
    if (role_->in_cluster && absl::IsUnavailable(session.status())) {
      // The ps may come up after the chief, or be restarting: the
      // MonitoredSession tries again every --recovery_wait_secs.
      Log(m_->o, absl::StrCat("chief waiting for the cluster: ", session.status().message()));
    }
    if (!session.ok()) return session.status();
    const double ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    MG_RETURN_IF_ERROR(Report(session->get(), ms));
    return session;
  }
  const GraphDef& graph() const override { return *graph_; }

 private:
  absl::Status Report(Session* session, double ms) {
    if (restored_from_.empty()) {
      if (!m_->start_from.empty()) {
        Log(m_->o, absl::StrCat("initialized from the SavedModel's variables, ", m_->start_from));
      } else if (m_->warm_started > 0) {
        Log(m_->o, absl::StrCat("initialized from scratch, warm-started from ",
                                m_->o.warm_start_from, " (", m_->warm_started, " assignment",
                                m_->warm_started == 1 ? "" : "s", ")"));
      } else {
        Log(m_->o, "initialized from scratch");
      }
      return absl::OkStatus();
    }
    uint64_t bytes = 0;
    const std::string base(Basename(restored_from_));
    for (const std::string& f : env_->GetChildren(logdir_).value_or(std::vector<std::string>())) {
      if (IsDataFilenameOf(base, f)) bytes += env_->GetFileSize(JoinPath(logdir_, f)).value_or(0);
    }
    // The checkpoint's step, from its name (in a cluster, workers may
    // already have moved global_step on since the restore).
    int64_t restored = StepOfPrefix(restored_from_);
    if (restored < 0) {
      std::vector<Tensor> gs;
      MG_RETURN_IF_ERROR(session->Run({}, {m_->global_step}, {}, &gs));
      restored = *gs[0].data<int64_t>();
    }
    Log(m_->o, absl::StrFormat("restored step %d from %s in %.1f ms (%.2f MB, %.2f GB/s)",
                               restored, restored_from_, ms, bytes / 1e6,
                               bytes / 1e9 / (ms / 1e3)));
    return absl::OkStatus();
  }

  SessionManager* const sm_;
  const GraphDef* const graph_;
  SessionManager::PrepareOptions prepare_;
  const Role* const role_;
  const Model* const m_;
  Env* const env_;
  const std::string logdir_;
  std::string restored_from_;
};

absl::Status Diverged(float value, int64_t at, int64_t mine, const std::string& logdir) {
  return absl::InternalError(absl::StrCat("loss is ", value, " at step ", at, " (", mine,
                                          " steps into this run); stopped without saving, the "
                                          "checkpoints in ",
                                          logdir, " are as they were. Lower --learning_rate?"));
}

// Around each of the chief's saves: TensorFlow's NanTensorHook stops on a
// non-finite loss, but a step's update can make the model diverge after its
// own loss was finite, so the loss of the model about to be saved is
// checked first (one forward pass); after it, the line saying so.
class TrainSaveListener : public CheckpointSaverListener {
 public:
  // `lock`, the log directory's (none in a test), is checked before each save.
  TrainSaveListener(const Model* m, uint64_t seed, const int64_t* mine, std::string logdir,
                    const FileLock* lock)
      : m_(m), seed_(seed), mine_(mine), logdir_(std::move(logdir)), lock_(lock) {}
  absl::Status BeforeSave(Session* session, int64_t step) override {
    MG_RETURN_IF_ERROR(CheckLogdirLock(lock_, logdir_));
    // A graph that reads its own input would consume a batch here.
    if (m_->reads_own_input) return absl::OkStatus();
    const int batch = m_->o.batch;
    Tensor x(DT_FLOAT, TensorShape({batch, m_->inputs}));
    Tensor labels(DT_INT64, TensorShape({batch}));
    // The batch step `step` trained on (BatchCycle's).
    MakeBatch(*m_, seed_, step % BatchCycle::Period(*m_, batch), &x, &labels);
    std::vector<Tensor> check;
    MG_RETURN_IF_ERROR(
        session->Run({{"x", x}, {"labels", labels}}, {m_->loss_tensor}, {}, &check));
    if (const float l = *check[0].data<float>(); !std::isfinite(l)) {
      return Diverged(l, step, *mine_, logdir_);
    }
    return absl::OkStatus();
  }
  absl::StatusOr<bool> AfterSave(Session*, int64_t step) override {
    // As TensorFlow's CheckpointSaverHook logs each save; the final one
    // is told by train's last line.
    if (!quiet_) {
      Log(m_->o, absl::StrCat(m_->o.async_save ? "saving" : "saved", " checkpoint at step ", step));
    }
    return false;
  }
  // The step of the checkpoint the hook's End saved or found saved: the
  // file the run's last line names. Other workers still training can move
  // the global step after the training loop last read it and before End
  // reads it.
  absl::Status End(Session*, int64_t step) override {
    final_step_ = step;
    return absl::OkStatus();
  }
  void set_quiet() { quiet_ = true; }
  std::optional<int64_t> final_step() const { return final_step_; }

 private:
  const Model* const m_;
  const uint64_t seed_;
  const int64_t* const mine_;
  const std::string logdir_;
  const FileLock* const lock_;
  bool quiet_ = false;
  std::optional<int64_t> final_step_;
};

// The chief's hooks: the last step, checkpoints (every --save_every steps;
// at the start and at the end), summaries and the step rate to event files.
absl::StatusOr<HookList> ChiefHooks(const Model& m, const std::string& logdir, Env* env,
                                    std::shared_ptr<TrainSaveListener> listener,
                                    const FileLock* lock,
                                    std::shared_ptr<EventsWriter>* events) {
  const TrainOptions& o = m.o;
  // First: no other hook's work before a step once the lock is gone.
  HookList hooks = {std::make_shared<LogdirLockHook>(lock, logdir, env)};
  MG_ASSIGN_OR_RETURN(auto stop, StopAtStepHook::Create({.last_step = o.steps,
                                                          .global_step = m.global_step}));
  hooks.push_back(stop);
  // No file until the session is made: a run that is refused (a strict
  // restart, a bad checkpoint) leaves --logdir as it was.
  MG_ASSIGN_OR_RETURN(*events, EventsWriter::Create(logdir, {.env = env,
                                                             .flush_every = absl::Seconds(10),
                                                             .open_on_first_event = true}));
  CheckpointSaverHook::Options co;
  co.checkpoint_dir = logdir;
  // 0: only at the start and the end.
  const int64_t save_every = o.save_every;
  co.save_steps = save_every > 0 ? save_every : INT64_MAX / 2;
  co.saver = m.saver.get();
  co.listeners = {listener};
  co.writer = *events;
  co.meta_graph = &m.meta_graph;
  co.async_save = o.async_save;
  co.global_step = m.global_step;
  co.env = env;
  MG_ASSIGN_OR_RETURN(auto saver_hook, CheckpointSaverHook::Create(std::move(co)));
  hooks.push_back(saver_hook);
  if (const int64_t every = o.summary_every; every > 0) {
    SummarySaverHook::Options so;
    so.save_steps = every;
    so.writer = *events;
    if (!m.summary.empty()) so.summary_op = {m.summary};
    so.global_step = m.global_step;
    so.env = env;
    MG_ASSIGN_OR_RETURN(auto summaries, SummarySaverHook::Create(std::move(so)));
    hooks.push_back(summaries);
  }
  if (const int64_t every = o.log_every; every > 0) {
    MG_ASSIGN_OR_RETURN(auto counter, StepCounterHook::Create({.every_n_steps = every,
                                                               .writer = *events,
                                                               .global_step = m.global_step,
                                                               .env = env}));
    hooks.push_back(counter);
  }
  return hooks;
}

// The SessionManager of `m`'s graph: its ready op, the iterators each
// session initializes, and waiting workers that say why they wait.
absl::StatusOr<std::unique_ptr<SessionManager>> NewSessionManager(const Model& m, Env* env) {
  SessionManager::Options options;
  options.env = env;
  options.ready_op = {m.ready.tensor_name()};
  if (!m.iterator_inits.empty()) {
    // Each session (the chief's, a worker's) gets its own iterators.
    options.local_init_op = m.iterator_inits;
    options.local_init_feed_dict = m.iterator_feeds;
  }
  options.recovery_wait = m.o.recovery_wait;
  // Waiting workers say why, on a change and then once a minute.
  const TrainOptions* o = &m.o;
  options.on_readiness = [o](const SessionManager::ReadinessReport& r) {
    Log(*o, absl::StrCat("waiting for the model: ", r.ToString()));
  };
  return SessionManager::Create(m.meta_graph.graph_def(), options);
}

// How each session is prepared: init_op, then --graph's SavedModel
// variables if any; or the newest checkpoint of `logdir`, with the recovery
// flags. `m` must outlive the options.
SessionManager::PrepareOptions TrainPrepareOptions(Model* m, const std::string& logdir,
                                                   Env* env) {
  const TrainOptions& o = m->o;
  SessionManager::PrepareOptions prepare;
  prepare.init_op = {m->init.name()};
  prepare.saver = m->saver.get();
  if (!m->start_from.empty()) {
    // After init_op (local variables, anything the SavedModel lacks), its
    // variables, through the graph's Saver.
    prepare.init_fn = [m](Session* s) { return m->saver->Restore(s, m->start_from); };
  }
  // --start_over: nothing is restored, so nothing refuses either.
  if (!o.start_over) prepare.checkpoint_dir = logdir;
  prepare.fallback_to_valid_checkpoint = o.fallback_to_valid_checkpoint;
  prepare.strict = o.strict;
  prepare.recover_state_from_directory = o.recover_state;
  prepare.config.intra_op_threads = o.threads;
  prepare.config.inter_op_threads = 1;
  prepare.config.env = env;
  return prepare;
}

// The chief's hooks (ChiefHooks, which makes `*events`), or a worker's:
// only the stop at --steps.
absl::StatusOr<HookList> TrainHooks(const Model& m, const Role& role, const std::string& logdir,
                                    Env* env, std::shared_ptr<TrainSaveListener> listener,
                                    const FileLock* lock,
                                    std::shared_ptr<EventsWriter>* events) {
  if (role.chief) return ChiefHooks(m, logdir, env, std::move(listener), lock, events);
  MG_ASSIGN_OR_RETURN(auto stop, StopAtStepHook::Create({.last_step = m.o.steps,
                                                          .global_step = m.global_step}));
  return HookList{stop};
}

// --workers: threads of this process that train the shared local:// model
// beside the main loop, each in a session of its own, until the global step
// reaches --steps or Join.
class LocalWorkers {
 public:
  LocalWorkers(SessionManager* sm, const SessionOptions& config, const Role& role,
               const Model& m) {
    const int64_t steps = m.o.steps;
    const int batch = m.o.batch;
    for (int w = 0; w < m.o.workers; ++w) {
      threads_.emplace_back(
          [this, sm, config, &role, &m, w, steps, batch] {
            Train(sm, config, role, m, w, steps, batch);
          });
    }
  }
  ~LocalWorkers() { Join(); }

  void Join() {
    stop_.store(true);
    for (auto& t : threads_) t.join();
    threads_.clear();
  }

 private:
  void Train(SessionManager* sm, const SessionOptions& config, const Role& role, const Model& m,
             int w, int64_t steps, int batch) {
    auto session = sm->WaitForSession(role.target, config, absl::Seconds(60));
    if (!session.ok()) {
      Log(m.o, absl::StrCat("worker ", w, ": ", session.status().message()));
      return;
    }
    BatchCycle batches(m, role.seed + 1 + w, batch);
    std::vector<Tensor> out;
    int64_t ran = 0;
    while (!stop_.load()) {
      if (!(*session)->Run({}, {m.global_step}, {}, &out).ok()) break;
      const int64_t at = *out[0].data<int64_t>();
      if (at >= steps) break;
      if (!(*session)->Run(batches.Feeds(at), {}, {m.train_op}, &out).ok()) break;
      ++ran;
    }
    Log(m.o, absl::StrCat("worker ", w, " ran ", ran, " steps"));
  }

  std::vector<std::thread> threads_;
  std::atomic<bool> stop_{false};
};

// Where a run is: the global step, this process's steps and the last loss.
struct Progress {
  int64_t step = 0;
  int64_t mine = 0;
  float loss = 0;
  bool stopped = false;
};

// Trains from `progress->step` until --steps, a hook's stop, the end of the
// graph's input or TrainOptions::stop; logs the loss and the step rate
// once a second. A diverged loss is an error (TensorFlow's NanTensorHook), before
// a save puts the model over the good checkpoints.
absl::Status TrainLoop(MonitoredSession* session, const Model& m, const Role& role,
                       const std::string& logdir, Progress* progress) {
  const TrainOptions& o = m.o;
  const int batch = o.batch;
  const int64_t steps = o.steps;
  BatchCycle batches(m, role.seed, batch);
  std::vector<Tensor> out;
  auto last_print = std::chrono::steady_clock::now();
  int64_t printed_step = progress->step;
  // Others (threads, worker processes) move the shared global_step too: it
  // is fetched with every step.
  // A run that starts at --steps or past it trains no step (as Estimator
  // skips training there; the MonitoredSession alone would run one).
  while (progress->step < steps && !session->ShouldStop()) {
    FeedList feeds;
    if (!m.reads_own_input) feeds = batches.Feeds(progress->step);
    if (absl::Status s =
            session->Run(feeds, {m.loss_tensor, m.global_step}, {m.train_op}, &out);
        !s.ok()) {
      if (m.reads_own_input && absl::IsOutOfRange(s)) {
        // The graph's input ended: the end of training, as a
        // MonitoredSession's `with` block takes it.
        Log(o, absl::StrCat("end of input at step ", progress->step));
        return absl::OkStatus();
      }
      return s;
    }
    ++progress->mine;
    progress->step = std::max(progress->step + 1, *out[1].data<int64_t>());
    progress->loss = *out[0].data<float>();
    if (!std::isfinite(progress->loss)) {
      return Diverged(progress->loss, progress->step, progress->mine, logdir);
    }
    const auto now = std::chrono::steady_clock::now();
    const double since = std::chrono::duration<double>(now - last_print).count();
    if (since >= 1.0) {
      Log(o, absl::StrFormat("step %d loss %.4f (%.0f steps/s)", progress->step, progress->loss,
                             (progress->step - printed_step) / since));
      last_print = now;
      printed_step = progress->step;
    }
    if (o.stop != nullptr && o.stop->load()) {
      progress->stopped = true;
      break;
    }
  }
  return absl::OkStatus();
}

absl::Status ReadGlobalStep(MonitoredSession* session, const Model& m, int64_t* step) {
  std::vector<Tensor> gs;
  MG_RETURN_IF_ERROR(session->raw_session()->Run({}, {m.global_step}, {}, &gs));
  *step = *gs[0].data<int64_t>();
  return absl::OkStatus();
}

// Checks the options of this process's role and takes the log directory
// (the chief).
absl::Status TakeLogdir(const TrainOptions& o, const Role& role, const std::string& logdir,
                        Env* env, std::unique_ptr<FileLock>* logdir_lock) {
  if (logdir.empty() && role.chief) return absl::InvalidArgumentError("--logdir is required");
  if (o.workers > 0 && role.target.rfind("local://", 0) != 0) {
    return absl::InvalidArgumentError("--workers needs --target=local://NAME");
  }
  if (!role.chief) return absl::OkStatus();
  MG_RETURN_IF_ERROR(env->CreateDir(logdir));
  MG_ASSIGN_OR_RETURN(*logdir_lock, LockLogdir(env, logdir));
  return absl::OkStatus();
}


// Trains `o` (checked) in the role `role`, whose log directory `lock` holds
// (the chief's; null for a worker).
absl::StatusOr<TrainResult> TrainAs(const TrainOptions& o, const Role& role, Env* env,
                                    const FileLock* lock) {
  const std::string& logdir = o.logdir;
  Model m(o);
  MG_RETURN_IF_ERROR(o.graph.empty() ? Build(&m, role.device_fn, env)
                                     : BuildFromGraph(&m, role.device_fn, role.own_task, env));
  MG_ASSIGN_OR_RETURN(std::unique_ptr<SessionManager> sm, NewSessionManager(m, env));
  const SessionManager::PrepareOptions prepare = TrainPrepareOptions(&m, logdir, env);
  Progress progress;
  std::shared_ptr<EventsWriter> events;
  auto listener =
      std::make_shared<TrainSaveListener>(&m, role.seed, &progress.mine, logdir, lock);
  MG_ASSIGN_OR_RETURN(HookList hooks, TrainHooks(m, role, logdir, env, listener, lock, &events));
  // An asynchronous save still running uses the session: finish it before
  // the session goes, whatever path leaves this function. Its error is the
  // run's unless the run failed first.
  std::unique_ptr<MonitoredSession> session;
  absl::Status saves;
  absl::Cleanup finish_saves = [&] { saves = m.saver->Wait().status(); };
  {
    MG_ASSIGN_OR_RETURN(
        session, MonitoredSession::Create(
                     std::make_unique<TrainSessionCreator>(sm.get(), &m.meta_graph.graph_def(),
                                                           prepare, &role, &m, env, logdir),
                     hooks,
                     {.give_up_after = absl::Minutes(10),
                      .retry_every = o.recovery_wait,
                      .env = env}));
  }
  m.warm_start_reader.reset();  // read by the initializers, or not needed
  MG_RETURN_IF_ERROR(ReadGlobalStep(session.get(), m, &progress.step));
  {
    LocalWorkers workers(sm.get(), prepare.config, role, m);
    if (o.on_training) o.on_training();
    // No Close after a divergence: it would save.
    MG_RETURN_IF_ERROR(TrainLoop(session.get(), m, role, logdir, &progress));
  }
  MG_RETURN_IF_ERROR(ReadGlobalStep(session.get(), m, &progress.step));
  // Closing runs the hooks' End: the chief saves at the last step.
  listener->set_quiet();
  MG_RETURN_IF_ERROR(session->Close());
  if (listener->final_step().has_value()) progress.step = *listener->final_step();
  if (events != nullptr) MG_RETURN_IF_ERROR(events->Close());
  std::move(finish_saves).Invoke();
  MG_RETURN_IF_ERROR(saves);
  TrainResult result;
  result.chief = role.chief;
  result.task_index = role.task_index;
  result.step = progress.step;
  result.steps_run = progress.mine;
  result.loss = progress.loss;
  result.stopped = progress.stopped;
  if (role.chief) result.checkpoint = JoinPath(logdir, absl::StrCat("model.ckpt-", progress.step));
  return result;
}

}  // namespace

absl::StatusOr<std::map<std::string, std::string>> ParseAssignmentMap(absl::string_view spec) {
  std::map<std::string, std::string> map;
  if (spec.empty()) return map;
  for (absl::string_view pair : absl::StrSplit(spec, ',')) {
    std::vector<std::string> sides = absl::StrSplit(pair, '=');
    if (sides.size() != 2 || sides[0].empty() || sides[1].empty()) {
      return absl::InvalidArgumentError(
          absl::StrCat("--warm_start_map=", spec,
                       ": wants CHECKPOINT=VARIABLE pairs separated by commas, got '", pair, "'"));
    }
    map[sides[0]] = sides[1];
  }
  return map;
}

absl::Status CheckTrainOptions(const TrainOptions& o) {
  MG_RETURN_IF_ERROR(InRange("batch", o.batch, 1, kMaxBatch));
  MG_RETURN_IF_ERROR(InRange<int64_t>("steps", o.steps, 0, INT64_MAX));
  MG_RETURN_IF_ERROR(InRange("learning_rate", o.learning_rate, 1e-30, 1e38));
  MG_RETURN_IF_ERROR(InRange<int64_t>("save_every", o.save_every, 0, INT64_MAX));
  MG_RETURN_IF_ERROR(InRange("max_to_keep", o.max_to_keep, 0, INT_MAX));
  MG_RETURN_IF_ERROR(InRange("threads", o.threads, 1, 1024));
  MG_RETURN_IF_ERROR(InRange("workers", o.workers, 0, 1024));
  MG_RETURN_IF_ERROR(InRange<int64_t>("summary_every", o.summary_every, 0, INT64_MAX));
  MG_RETURN_IF_ERROR(InRange<int64_t>("log_every", o.log_every, 0, INT64_MAX));
  if (!o.warm_start_map.empty() && o.warm_start_from.empty()) {
    return absl::InvalidArgumentError("--warm_start_map needs --warm_start_from");
  }
  const bool graph = !o.graph.empty();
  for (const auto& [flag, value] : std::vector<std::pair<std::string, std::string>>{
           {"train_op", o.train_op},
           {"loss", o.loss},
           {"input", o.input},
           {"input_placeholder", o.input_placeholder}}) {
    if (!value.empty() && !graph) {
      return absl::InvalidArgumentError(absl::StrCat("--", flag, "=", value, " needs --graph"));
    }
  }
  if (graph && (o.workers > 0 || !o.warm_start_from.empty())) {
    return absl::InvalidArgumentError(
        "--graph trains the graph as it is: --workers and --warm_start_from do not apply");
  }
  if (o.cluster.has_value()) {
    const std::string& job = o.cluster->job_name;
    if (job != "worker" && job != "chief") {
      return absl::InvalidArgumentError(absl::StrCat(
          "--job_name (or TF_CONFIG's task.type) must be worker or chief to train in a cluster "
          "(a ps task serves: Server), got '", job, "'"));
    }
    if (!o.target.empty() || o.workers > 0) {
      return absl::InvalidArgumentError(
          "--cluster runs one task per process: --target and --workers do not apply");
    }
  }
  return InRange("recovery_wait_secs", absl::ToDoubleSeconds(o.recovery_wait), 1e-3, 86400.0);
}

absl::StatusOr<TrainResult> Train(const TrainOptions& o) {
  MG_RETURN_IF_ERROR(CheckTrainOptions(o));
  Env* env = o.env != nullptr ? o.env : Env::Default();
  Role role;
  MG_RETURN_IF_ERROR(JoinCluster(o, &role));
  std::unique_ptr<FileLock> logdir_lock;
  MG_RETURN_IF_ERROR(TakeLogdir(o, role, o.logdir, env, &logdir_lock));
  return TrainAs(o, role, env, logdir_lock.get());
}

}  // namespace minigraph
