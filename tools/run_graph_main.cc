// Checks that a TensorFlow graph runs here, and runs it.
//
//   run_graph model.ckpt-300.meta          # every op known, graph valid,
//                                          # variables restored: exit 0, else 1
//   run_graph graph.pbtxt --checkpoint=/logs/model-300
//   run_graph export_dir                   # a SavedModel (TensorFlow 1's layout)
//   run_graph model.meta --fetch=logits:0 --input=x=batch.npy
//   run_graph export_dir --signature=serving_default --input=images=batch.npy
//   run_graph export_dir --signature=serving_default --input=image_bytes=@cat.jpg
//   run_graph model.meta --fetch=logits:0 --target=grpc://ps0:2222   # on a server
//
// GRAPH is a MetaGraphDef (.meta; its checkpoint is the prefix beside it), a
// GraphDef (binary, or text in .pbtxt; --checkpoint names its checkpoint) or
// a SavedModel directory (variables/variables). Without --fetch it checks
// everything a run needs and lists what is missing: unknown ops with their
// counts (in the graph and in its functions), the ops without a kernel here
// (with --fetch: those the fetches need, which fail the run before it
// starts, and those present but unused), what makes the graph invalid,
// variables the checkpoint lacks or holds with another dtype or shape. With
// --fetch it restores the variables, feeds each Placeholder the .npy file
// --input gives (or random values of its declared shape, unknown dimensions
// 1) and prints the fetched tensors. --input=NAME=@FILE feeds a file's bytes
// as a string: an image, a serialized tf.train.Example.
#include <cstdio>
#include <cstring>
#include <map>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/flags/usage.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "checkpoint/bundle_reader.h"
#include "checkpoint/checkpoint_diff.h"
#include "checkpoint/checkpoint_state.h"
#include "core/env.h"
#include "core/path.h"
#include "core/status_macros.h"
#include "core/tensor_proto.h"
#include "runtime/engine/kernel_registry.h"
#include "runtime/graph/function.h"
#include "runtime/graph/ops/standard_ops.h"
#include "session/graph_files.h"
#include "session/saved_model.h"
#include "session/saver.h"
#include "session/session.h"
#include "tools/flag_checks.h"
#include "tools/graph_variables.h"
#include "tools/npy.h"

ABSL_FLAG(std::string, checkpoint, "",
          "The checkpoint prefix to restore (default: the one that goes with GRAPH)");
ABSL_FLAG(std::vector<std::string>, fetch, {},
          "Tensors to compute and print, e.g. logits:0 (comma-separated; the flag may repeat)");
ABSL_FLAG(std::vector<std::string>, input, {},
          "Placeholder values as NAME=FILE.npy (little-endian, C order: float16/32/64, "
          "int8/16/32/64, uint8/16/32/64, bool, complex64/128), or NAME=@FILE: the file's bytes "
          "as a string (an image, a serialized tf.train.Example); comma-separated, and the flag "
          "may repeat");
ABSL_FLAG(std::string, signature, "",
          "With a SavedModel directory: run this SignatureDef (e.g. serving_default), its "
          "inputs given by key with --input, printing its outputs by key");
ABSL_FLAG(std::vector<std::string>, tags, {"serve"}, "With --signature: the meta graph's tags");
ABSL_FLAG(int, max_values, 20, "Values printed per fetched tensor (>= 1)");
ABSL_FLAG(uint64_t, seed, 1, "Seed of the random values for Placeholders without --input");
ABSL_FLAG(std::string, output_dir, "",
          "Also write each fetched tensor, every value at full precision, to DIR/NAME.npy (the "
          "fetch's name with '/' and ':' as '_'); the directory must exist");
ABSL_FLAG(std::string, target, "",
          "Run on this session target: \"\" (in this process) or grpc://HOST:PORT, a minigraph or "
          "TensorFlow server (checkpoint paths are then the server's)");

namespace minigraph {
namespace {

int Fail(const absl::Status& s) {
  std::fprintf(stderr, "run_graph: %s\n", std::string(s.ToString()).c_str());
  return 1;
}

// Values of the declared shape (unknown dimensions 1).
absl::StatusOr<Tensor> RandomFor(const NodeDef& placeholder, std::mt19937_64* rng) {
  auto dtype = placeholder.attr().find("dtype");
  if (dtype == placeholder.attr().end()) {
    return absl::InvalidArgumentError(
        absl::StrCat("Placeholder '", placeholder.name(), "' has no dtype"));
  }
  const DataType dt = dtype->second.type();
  std::vector<int64_t> dims;
  if (auto it = placeholder.attr().find("shape"); it != placeholder.attr().end()) {
    for (const auto& d : it->second.shape().dim()) dims.push_back(d.size() < 0 ? 1 : d.size());
  }
  MG_ASSIGN_OR_RETURN(TensorShape shape, TensorShape::Build(dims));
  MG_ASSIGN_OR_RETURN(Tensor t, Tensor::Create(dt, shape));
  std::uniform_real_distribution<double> u(0, 1);
  for (int64_t i = 0; i < t.NumElements(); ++i) {
    switch (dt) {
      case DT_FLOAT:
        t.data<float>()[i] = static_cast<float>(u(*rng));
        break;
      case DT_DOUBLE:
        t.data<double>()[i] = u(*rng);
        break;
      case DT_INT32:
        t.data<int32_t>()[i] = static_cast<int32_t>((*rng)() % 10);
        break;
      case DT_INT64:
        t.data<int64_t>()[i] = static_cast<int64_t>((*rng)() % 10);
        break;
      case DT_BOOL:
        t.data<bool>()[i] = false;
        break;
      case DT_STRING:
        break;
      default:
        return absl::UnimplementedError(absl::StrCat("no random values for Placeholder '",
                                                     placeholder.name(), "' of ",
                                                     DataTypeString(dt), "; give --input"));
    }
  }
  return t;
}

// For a graph without a Saver: a restore of every variable under its op
// name (TensorFlow's default Saver's keys), fed the prefix at
// "run_graph/prefix", run as "run_graph/restore_all".
void AddRestore(const std::vector<ExpectedTensor>& vars, GraphDef* g) {
  auto add = [&](const std::string& name, const std::string& op) {
    NodeDef* n = g->add_node();
    n->set_name(name);
    n->set_op(op);
    return n;
  };
  auto strings = [&](const std::string& name, const std::vector<std::string>& v) {
    NodeDef* n = add(name, "Const");
    Tensor t(DT_STRING, TensorShape({static_cast<int64_t>(v.size())}));
    for (size_t i = 0; i < v.size(); ++i) t.data<std::string>()[i] = v[i];
    (*n->mutable_attr())["dtype"].set_type(DT_STRING);
    TensorToProto(t, (*n->mutable_attr())["value"].mutable_tensor());
  };
  (*add("run_graph/prefix", "Placeholder")->mutable_attr())["dtype"].set_type(DT_STRING);
  std::vector<std::string> keys;
  AttrValue dtypes;
  for (const ExpectedTensor& v : vars) {
    keys.push_back(v.key);
    dtypes.mutable_list()->add_type(v.dtype);
  }
  strings("run_graph/tensor_names", keys);
  strings("run_graph/shape_and_slices", std::vector<std::string>(keys.size()));
  NodeDef* restore = add("run_graph/RestoreV2", "RestoreV2");
  restore->add_input("run_graph/prefix");
  restore->add_input("run_graph/tensor_names");
  restore->add_input("run_graph/shape_and_slices");
  (*restore->mutable_attr())["dtypes"] = dtypes;
  std::map<std::string, std::string> op_of;
  for (const NodeDef& n : g->node()) op_of[n.name()] = n.op();
  for (size_t i = 0; i < vars.size(); ++i) {
    const bool resource = op_of[vars[i].key] == "VarHandleOp";
    NodeDef* assign =
        add(absl::StrCat("run_graph/assign_", i), resource ? "AssignVariableOp" : "Assign");
    assign->add_input(vars[i].key);
    assign->add_input(absl::StrCat("run_graph/RestoreV2:", i));
    (*assign->mutable_attr())[resource ? "dtype" : "T"].set_type(vars[i].dtype);
    if (!resource) (*assign->mutable_attr())["validate_shape"].set_b(false);
  }
  NodeDef* all = add("run_graph/restore_all", "NoOp");
  for (size_t i = 0; i < vars.size(); ++i) all->add_input(absl::StrCat("^run_graph/assign_", i));
}

// InvalidArgument naming an --input that is not NAME=FILE.
absl::Status CheckInputFlags() {
  std::set<std::string> named;
  for (const std::string& in : absl::GetFlag(FLAGS_input)) {
    std::vector<std::string> kv = absl::StrSplit(in, absl::MaxSplits('=', 1));
    if (kv.size() != 2 || kv[0].empty() || kv[1].empty()) {
      return absl::InvalidArgumentError(
          absl::StrCat("--input=", in, " is not NAME=FILE.npy or NAME=@FILE"));
    }
    if (!named.insert(kv[0]).second) {
      return absl::InvalidArgumentError(absl::StrCat("--input gives ", kv[0], " twice"));
    }
  }
  if (const std::string dir = absl::GetFlag(FLAGS_output_dir);
      !dir.empty() && !Env::Default()->IsDirectory(dir).value_or(false)) {
    return absl::InvalidArgumentError(absl::StrCat("--output_dir=", dir, " is not a directory"));
  }
  return absl::OkStatus();
}

// "2 nodes call Python functions (PyFunc 'f', EagerPyFunc 'g')", counting the
// graph's functions too; "" when none does.
std::string PythonCalls(const GraphDef& graph) {
  std::vector<std::string> calls;
  auto scan = [&](const auto& nodes, absl::string_view where) {
    for (const NodeDef& n : nodes) {
      if (n.op() == "PyFunc" || n.op() == "PyFuncStateless" || n.op() == "EagerPyFunc") {
        calls.push_back(absl::StrCat(n.op(), " '", where, n.name(), "'"));
      }
    }
  };
  scan(graph.node(), "");
  for (const FunctionDef& f : graph.library().function()) {
    scan(f.node_def(), absl::StrCat(f.signature().name(), "/"));
  }
  if (calls.empty()) return "";
  const size_t n = calls.size();
  if (n > 5) calls.resize(5);
  return absl::StrCat(n, n == 1 ? " node calls a Python function (" : " nodes call Python "
                                                                     "functions (",
                      absl::StrJoin(calls, ", "), n > 5 ? ", ..." : "", ")");
}

// The declared rank of each input a run may feed (-1: unknown).
using InputRanks = std::map<std::string, int>;

int RankOf(const TensorShapeProto& shape) { return shape.unknown_rank() ? -1 : shape.dim_size(); }

// --input as NAME -> tensor (CheckInputFlags passed): NAME=FILE.npy, or
// NAME=@FILE for the file's bytes as a string (an image, a serialized
// tf.train.Example), a batch of one where the input is a vector.
absl::StatusOr<std::map<std::string, Tensor>> Inputs(const InputRanks& ranks) {
  std::map<std::string, Tensor> given;
  for (const std::string& in : absl::GetFlag(FLAGS_input)) {
    std::vector<std::string> kv = absl::StrSplit(in, absl::MaxSplits('=', 1));
    if (!absl::StartsWith(kv[1], "@")) {
      MG_ASSIGN_OR_RETURN(given[kv[0]], ReadNpy(Env::Default(), kv[1]));
      continue;
    }
    MG_ASSIGN_OR_RETURN(std::string bytes, ReadFileToString(Env::Default(), kv[1].substr(1)));
    auto rank = ranks.find(kv[0]);
    Tensor t(DT_STRING, rank != ranks.end() && rank->second == 1 ? TensorShape({1})
                                                                 : TensorShape({}));
    *t.data<std::string>() = std::move(bytes);
    given[kv[0]] = std::move(t);
  }
  return given;
}

// Prints a fetched tensor, and with --output_dir writes it there whole as
// NAME.npy (the fetch's name, '/' and ':' as '_').
absl::Status Output(const std::string& name, const Tensor& t) {
  std::printf("%s: %s %s\n%s\n", name.c_str(), DataTypeString(t.dtype()).c_str(),
              t.shape().DebugString().c_str(),
              t.SummarizeValue(absl::GetFlag(FLAGS_max_values)).c_str());
  const std::string dir = absl::GetFlag(FLAGS_output_dir);
  if (dir.empty()) return absl::OkStatus();
  std::string file = name;
  for (char& c : file) {
    if (c == '/' || c == ':') c = '_';
  }
  const std::string path = JoinPath(dir, absl::StrCat(file, ".npy"));
  MG_RETURN_IF_ERROR(WriteNpy(Env::Default(), path, t));
  std::printf("wrote %s\n", path.c_str());
  return absl::OkStatus();
}

// A SavedModel's signature, through LoadSavedModel; inputs not given get
// random values of their declared dtype and shape.
int RunSignature(const std::string& dir, const std::string& signature) {
  const std::vector<std::string> tag_list = absl::GetFlag(FLAGS_tags);
  SessionOptions options;
  options.target = absl::GetFlag(FLAGS_target);
  absl::StatusOr<SavedModelBundle> model = LoadSavedModel(
      options, dir, std::set<std::string>(tag_list.begin(), tag_list.end()));
  if (!model.ok()) return Fail(model.status());
  auto sig = model->meta_graph.signature_def().find(signature);
  InputRanks ranks;
  if (sig != model->meta_graph.signature_def().end()) {
    for (const auto& [key, info] : sig->second.inputs()) ranks[key] = RankOf(info.tensor_shape());
  }
  absl::StatusOr<std::map<std::string, Tensor>> inputs = Inputs(ranks);
  if (!inputs.ok()) return Fail(inputs.status());
  if (sig != model->meta_graph.signature_def().end()) {
    std::mt19937_64 rng(absl::GetFlag(FLAGS_seed));
    for (const auto& [key, info] : sig->second.inputs()) {
      if (inputs->count(key)) continue;
      NodeDef as_placeholder;
      as_placeholder.set_name(key);
      (*as_placeholder.mutable_attr())["dtype"].set_type(info.dtype());
      *(*as_placeholder.mutable_attr())["shape"].mutable_shape() = info.tensor_shape();
      absl::StatusOr<Tensor> t = RandomFor(as_placeholder, &rng);
      if (!t.ok()) return Fail(t.status());
      std::printf("%s: random %s %s\n", key.c_str(), DataTypeString(t->dtype()).c_str(),
                  t->shape().DebugString().c_str());
      (*inputs)[key] = *std::move(t);
    }
  }
  absl::StatusOr<std::map<std::string, Tensor>> out = model->Run(signature, *inputs);
  if (!out.ok()) return Fail(out.status());
  for (const auto& [key, t] : *out) {
    if (absl::Status s = Output(key, t); !s.ok()) return Fail(s);
  }
  return 0;
}

// The op types of `nodes` and of the library functions they may call (not
// the cuDNN twins of Keras' recurrent layers, nor gradient functions nothing
// calls), each with its node count; a call of a library function by its
// name is not an op.
std::map<std::string, int> OpsRun(const GraphDef& graph, const std::vector<const NodeDef*>& nodes) {
  std::set<std::string> functions;
  for (const FunctionDef& f : graph.library().function()) functions.insert(f.signature().name());
  std::map<std::string, int> ops;
  for (const NodeDef* n : nodes) {
    if (!functions.count(n->op())) ++ops[n->op()];
  }
  const std::set<std::string> reachable = ReachableFunctions(graph.library(), nodes);
  for (const FunctionDef& f : graph.library().function()) {
    if (!reachable.count(f.signature().name())) continue;
    for (const NodeDef& n : f.node_def()) {
      if (!functions.count(n.op())) ++ops[n.op()];
    }
  }
  return ops;
}

// "Qr (1 node), Sign (2 nodes)": each op with its node count.
std::string OpList(const std::map<std::string, int>& ops) {
  std::vector<std::string> list;
  for (const auto& [op, count] : ops) {
    list.push_back(absl::StrCat(op, " (", count, count == 1 ? " node)" : " nodes)"));
  }
  return absl::StrJoin(list, ", ");
}

// 1. Every op known, in the graph and in the functions a run may call:
// prints the unknown ones and returns 1. Then the known ops no kernel here
// runs: with --fetch, those the fetches need (and the restore: `restore`,
// "" for none) and those present but unused, returning 1 if any is needed;
// without, each of them, as what a step that needs one fails on.
int CheckOps(const std::string& path, const GraphDef& graph,
             const std::vector<std::string>& fetches, const std::string& restore) {
  std::vector<const NodeDef*> all;
  for (const NodeDef& n : graph.node()) all.push_back(&n);
  std::map<std::string, int> unknown, no_kernel;
  for (const auto& [op, count] : OpsRun(graph, all)) {
    if (!GlobalOpRegistry()->LookUp(op).ok()) {
      unknown[op] = count;
    } else if (!GlobalKernelRegistry()->HasKernel(op)) {
      no_kernel[op] = count;
    }
  }
  if (!unknown.empty()) {
    std::printf("%s: ops neither minigraph nor TensorFlow 2.21 has: %s\n", path.c_str(),
                OpList(unknown).c_str());
    return 1;
  }
  if (no_kernel.empty()) return 0;
  if (fetches.empty()) {
    std::printf("%s: ops without a kernel here: %s; a step that needs one fails naming it, "
                "every other runs\n",
                path.c_str(), OpList(no_kernel).c_str());
    return 0;
  }
  // Every Placeholder is fed (from --input, or random values).
  std::set<std::string> fed;
  for (const NodeDef& n : graph.node()) {
    if (n.op() == "Placeholder") fed.insert(n.name());
  }
  std::vector<std::string> outputs = fetches;
  if (!restore.empty()) outputs.push_back(restore);
  absl::StatusOr<std::vector<const NodeDef*>> needed = NodesNeeded(graph, outputs, fed);
  if (!needed.ok()) return Fail(needed.status());
  std::map<std::string, int> needed_ops, unused;
  for (const auto& [op, count] : OpsRun(graph, *needed)) {
    if (no_kernel.count(op)) needed_ops[op] = count;
  }
  for (const auto& [op, count] : no_kernel) {
    if (!needed_ops.count(op)) unused[op] = count;
  }
  if (!unused.empty()) {
    std::printf("%s: ops without a kernel here, present but not needed by --fetch: %s\n",
                path.c_str(), OpList(unused).c_str());
  }
  if (needed_ops.empty()) return 0;
  std::printf("%s: --fetch needs ops without a kernel here: %s\n", path.c_str(),
              OpList(needed_ops).c_str());
  return 1;
}

// 2. The checkpoint (--checkpoint, else the graph's own), and what it must
// hold. Sets `*prefix` ("" for none needed); prints what is wrong and
// returns non-zero.
int CheckCheckpoint(const std::string& path, const GraphFile& file,
                    const std::vector<ExpectedTensor>& vars, std::string* prefix) {
  *prefix = absl::GetFlag(FLAGS_checkpoint);
  if (prefix->empty() && !file.default_checkpoint.empty() &&
      CheckpointExists(Env::Default(), file.default_checkpoint)) {
    *prefix = file.default_checkpoint;
  }
  if (!vars.empty() && prefix->empty()) {
    std::printf("%s has %zu variables and no checkpoint goes with it: give --checkpoint=PREFIX\n",
                path.c_str(), vars.size());
    return 1;
  }
  if (prefix->empty()) return 0;
  auto reader = BundleReader::Open(Env::Default(), *prefix);
  if (!reader.ok()) return Fail(reader.status());
  const CheckpointDiff d = DiffCheckpoint(**reader, vars);
  if (!d.compatible()) {
    std::printf("%s", d.ToString().c_str());
    return 1;
  }
  return 0;
}

// 3. The graph valid, and the variables restored (by the graph's Saver, or
// by restore ops added here). Prints what failed and returns non-zero.
int CreateAndRestore(const std::string& path, const GraphFile& file,
                     const std::vector<ExpectedTensor>& vars, const std::string& prefix,
                     std::unique_ptr<Session>* session) {
  GraphDef graph = file.graph;
  const bool own_restore = !file.saver && !vars.empty();
  if (own_restore) AddRestore(vars, &graph);
  SessionOptions options;
  options.target = absl::GetFlag(FLAGS_target);
  auto made = NewSession(options);
  if (!made.ok()) return Fail(made.status());
  *session = *std::move(made);
  if (absl::Status s = (*session)->Create(graph); !s.ok()) {
    std::printf("%s is not a valid graph: %s\n", path.c_str(), std::string(s.message()).c_str());
    return 1;
  }
  if (!vars.empty()) {
    absl::Status s;
    if (own_restore) {
      std::vector<Tensor> out;
      s = (*session)->Run({{"run_graph/prefix", Tensor::Scalar<std::string>(prefix)}}, {},
                          {"run_graph/restore_all"}, &out);
    } else {
      s = Saver::FromSaverDef(*file.saver)->Restore(session->get(), prefix);
    }
    if (!s.ok()) {
      std::printf("restoring %s failed: %s\n", prefix.c_str(), std::string(s.message()).c_str());
      return 1;
    }
  }
  std::printf("%s: %d nodes, %d functions, every op known; %zu variables restored%s%s\n",
              path.c_str(), graph.node_size(), file.graph.library().function_size(), vars.size(),
              prefix.empty() ? "" : " from ", prefix.c_str());
  return 0;
}

// 4. Runs --fetch: inputs from .npy files (--input), random values for the
// other Placeholders.
int RunFetches(const GraphDef& graph, Session* session, const std::vector<std::string>& fetches) {
  InputRanks ranks;
  for (const NodeDef& n : graph.node()) {
    auto shape = n.attr().find("shape");
    if (n.op() == "Placeholder") {
      ranks[n.name()] = shape == n.attr().end() ? -1 : RankOf(shape->second.shape());
    }
  }
  absl::StatusOr<std::map<std::string, Tensor>> inputs = Inputs(ranks);
  if (!inputs.ok()) return Fail(inputs.status());
  std::map<std::string, Tensor> given = *std::move(inputs);
  std::mt19937_64 rng(absl::GetFlag(FLAGS_seed));
  std::vector<std::pair<std::string, Tensor>> feeds;
  for (const NodeDef& n : graph.node()) {
    if (n.op() != "Placeholder") continue;
    if (auto it = given.find(n.name()); it != given.end()) {
      feeds.emplace_back(n.name(), it->second);
      given.erase(it);
      continue;
    }
    absl::StatusOr<Tensor> t = RandomFor(n, &rng);
    if (!t.ok()) return Fail(t.status());
    std::printf("%s: random %s %s\n", n.name().c_str(), DataTypeString(t->dtype()).c_str(),
                t->shape().DebugString().c_str());
    feeds.emplace_back(n.name(), *std::move(t));
  }
  if (!given.empty()) {
    return UsageError("run_graph", absl::InvalidArgumentError(
                                       absl::StrCat("--input names ", given.begin()->first,
                                                    ", which is not a Placeholder of the graph")));
  }
  std::vector<Tensor> out;
  if (absl::Status s = session->Run(feeds, fetches, {}, &out); !s.ok()) return Fail(s);
  for (size_t i = 0; i < fetches.size(); ++i) {
    if (absl::Status s = Output(fetches[i], out[i]); !s.ok()) return Fail(s);
  }
  return 0;
}

int Run(const std::string& path) {
  if (const std::string sig = absl::GetFlag(FLAGS_signature); !sig.empty()) {
    if (!Env::Default()->IsDirectory(path).value_or(false)) {
      return UsageError("run_graph", absl::InvalidArgumentError(
                                         "--signature runs a SavedModel: give its directory"));
    }
    return RunSignature(path, sig);
  }
  absl::StatusOr<GraphFile> file = LoadGraphFile(Env::Default(), path);
  if (!file.ok()) return Fail(file.status());
  const std::vector<std::string> fetches = absl::GetFlag(FLAGS_fetch);
  const std::string restore = file->saver ? file->saver->restore_op_name() : "";
  if (int code = CheckOps(path, file->graph, fetches, restore); code != 0) return code;
  const std::vector<ExpectedTensor> vars = GraphVariables(file->graph);
  std::string prefix;
  if (int code = CheckCheckpoint(path, *file, vars, &prefix); code != 0) return code;
  std::unique_ptr<Session> session;
  if (int code = CreateAndRestore(path, *file, vars, prefix, &session); code != 0) return code;
  if (const std::string python = PythonCalls(file->graph); !python.empty()) {
    std::printf("%s: they need Python, which only the process that built the graph has; "
                "a fetch that depends on one fails, every other runs\n",
                python.c_str());
  }
  if (fetches.empty()) return 0;
  return RunFetches(file->graph, session.get(), fetches);
}

}  // namespace
}  // namespace minigraph

int main(int argc, char** argv) {
  absl::SetProgramUsageMessage(
      "Checks that a TensorFlow graph runs here (every op known, the graph valid, its "
      "variables restored), and runs it.\n"
      "  run_graph GRAPH [--checkpoint=PREFIX] [--fetch=T:0,...] [--input=NAME=FILE.npy,...]\n"
      "GRAPH: a .meta, a GraphDef (binary or .pbtxt) or a SavedModel directory.");
  std::vector<char*> rest = minigraph::ParseFlags(argc, argv, {"fetch", "input"});
  absl::Status s;
  if (rest.size() != 2) {
    s = absl::InvalidArgumentError(rest.size() < 2
                                       ? "give the graph: run_graph GRAPH"
                                       : absl::StrCat("unexpected argument \"", rest[2], "\""));
  }
  if (s.ok()) s = minigraph::FlagInRange("max_values", absl::GetFlag(FLAGS_max_values), 1, 1 << 30);
  if (s.ok()) s = minigraph::CheckInputFlags();
  if (s.ok()) s = minigraph::ApplyMaxTensorBytes();
  if (!s.ok()) return minigraph::UsageError("run_graph", s);
  return minigraph::Run(rest[1]);
}
