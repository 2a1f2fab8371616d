#include "session/saved_model.h"

#include <deque>
#include <map>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "checkpoint/bundle_reader.h"
#include "checkpoint/checkpoint_state.h"
#include "core/path.h"
#include "core/status_macros.h"
#include "runtime/graph/node_def_util.h"
#include "session/graph_files.h"
#include "session/saver.h"

namespace minigraph {
namespace {

// The init op and what it is fed: TensorFlow 2's __saved_model_init_op
// signature, else TensorFlow 1's main_op or legacy_init_op collection; the
// asset tensors get their files' paths.
absl::Status RunInitOp(const MetaGraphDef& meta, const std::string& dir, Session* session) {
  std::string op;
  if (auto it = meta.signature_def().find("__saved_model_init_op");
      it != meta.signature_def().end()) {
    auto out = it->second.outputs().find("__saved_model_init_op");
    if (out != it->second.outputs().end()) op = out->second.name();
  }
  for (const char* key : {"saved_model_main_op", "legacy_init_op"}) {
    if (!op.empty()) break;
    auto it = meta.collection_def().find(key);
    if (it != meta.collection_def().end() && it->second.node_list().value_size() == 1) {
      op = it->second.node_list().value(0);
    }
  }
  if (op.empty()) return absl::OkStatus();
  std::vector<std::pair<std::string, Tensor>> feeds;
  for (const AssetFileDef& asset : meta.asset_file_def()) {
    feeds.emplace_back(asset.tensor_info().name(), Tensor::Scalar<std::string>(JoinPath(
                                                       JoinPath(dir, "assets"), asset.filename())));
  }
  std::vector<Tensor> out;
  const std::string target = op.substr(0, op.find(':'));
  return session->Run(feeds, {}, {target}, &out);
}

// The path of each object of the object graph from its root, by its
// children's local names ("layer_with_weights-0/kernel"), for messages.
std::vector<std::string> ObjectPaths(const SavedObjectGraph& objects) {
  std::vector<std::string> path(objects.nodes_size());
  std::vector<bool> seen(objects.nodes_size());
  std::deque<int> queue = {0};
  if (!seen.empty()) seen[0] = true;
  while (!queue.empty()) {
    const int id = queue.front();
    queue.pop_front();
    for (const auto& child : objects.nodes(id).children()) {
      const int c = child.node_id();
      if (c < 0 || c >= objects.nodes_size() || seen[c]) continue;
      seen[c] = true;
      path[c] = path[id].empty() ? child.local_name() : JoinPath(path[id], child.local_name());
      queue.push_back(c);
    }
  }
  return path;
}

// TensorFlow 2's object-based restore, for a SavedModel without a SaverDef:
// each variable of the object graph gets the value its object has in the
// checkpoint (whose own object graph numbers the objects the same way), and
// is found in the graph as an input of the calls that capture it (a
// concrete function's bound inputs follow the caller's own inputs). The
// assignments run as one step of ops added to the session's graph.
absl::Status RestoreByObjectGraph(const MetaGraphDef& meta, const std::string& prefix, Env* env,
                                  Session* session) {
  const SavedObjectGraph& objects = meta.object_graph_def();
  const std::vector<std::string> paths = ObjectPaths(objects);
  std::map<int, std::string> handle_of;  // variable object -> handle tensor
  for (const NodeDef& n : meta.graph_def().node()) {
    auto f = n.attr().find("f");
    if (f == n.attr().end() || !f->second.has_func()) continue;
    auto fn = objects.concrete_functions().find(f->second.func().name());
    if (fn == objects.concrete_functions().end()) continue;
    std::vector<std::string> inputs;
    for (const std::string& in : n.input()) {
      if (in.empty() || in[0] != '^') inputs.push_back(in);
    }
    const int bound = fn->second.bound_inputs_size();
    if (bound > static_cast<int>(inputs.size())) continue;
    for (int k = 0; k < bound; ++k) {
      const int id = fn->second.bound_inputs(k);
      if (id < 0 || id >= objects.nodes_size() || !objects.nodes(id).has_variable()) continue;
      handle_of.emplace(id, inputs[inputs.size() - bound + k]);
    }
  }
  if (handle_of.empty()) return absl::OkStatus();

  MG_ASSIGN_OR_RETURN(std::unique_ptr<BundleReader> reader, BundleReader::Open(env, prefix));
  constexpr char kObjectGraphKey[] = "_CHECKPOINTABLE_OBJECT_GRAPH";
  MG_ASSIGN_OR_RETURN(Tensor serialized, reader->Lookup(kObjectGraphKey));
  TrackableObjectGraph saved;
  if (serialized.dtype() != DT_STRING || serialized.NumElements() != 1 ||
      !saved.ParseFromString(*serialized.data<std::string>())) {
    return absl::DataLossError(absl::StrCat("checkpoint ", prefix, ": ", kObjectGraphKey,
                                            " is not a serialized TrackableObjectGraph"));
  }
  std::vector<std::string> keys, handles;
  std::vector<DataType> dtypes;
  for (const auto& [id, handle] : handle_of) {
    std::string key;
    if (id < saved.nodes_size()) {
      for (const auto& attr : saved.nodes(id).attributes()) {
        if (attr.name() == "VARIABLE_VALUE") key = attr.checkpoint_key();
      }
    }
    if (key.empty()) {
      return absl::NotFoundError(absl::StrCat("checkpoint ", prefix, " has no value for variable '",
                                              objects.nodes(id).variable().name(), "' (object ", id,
                                              ", '", paths[id],
                                              "' of the SavedModel's object graph)"));
    }
    keys.push_back(key);
    handles.push_back(handle);
    dtypes.push_back(objects.nodes(id).variable().dtype());
  }

  GraphDef restore;
  const std::string scope = "saved_model_restore";
  auto add = [&](const std::string& name, const std::string& op) {
    NodeDef* n = restore.add_node();
    n->set_name(absl::StrCat(scope, "/", name));
    n->set_op(op);
    return n;
  };
  auto constant = [&](const std::string& name, const Tensor& value) {
    NodeDef* n = add(name, "Const");
    (*n->mutable_attr())["value"] = MakeAttrValue(value);
    (*n->mutable_attr())["dtype"] = MakeAttrValue(value.dtype());
    return n->name();
  };
  Tensor names(DT_STRING, TensorShape({static_cast<int64_t>(keys.size())}));
  Tensor slices(DT_STRING, TensorShape({static_cast<int64_t>(keys.size())}));
  for (size_t i = 0; i < keys.size(); ++i) names.data<std::string>()[i] = keys[i];
  NodeDef* read = add("RestoreV2", "RestoreV2");
  read->add_input(constant("prefix", Tensor::Scalar<std::string>(prefix)));
  read->add_input(constant("tensor_names", names));
  read->add_input(constant("shape_and_slices", slices));
  (*read->mutable_attr())["dtypes"] = MakeAttrValue(dtypes);
  NodeDef* all = add("restore_all", "NoOp");
  for (size_t i = 0; i < keys.size(); ++i) {
    NodeDef* assign = add(absl::StrCat("Assign_", i), "AssignVariableOp");
    assign->add_input(handles[i]);
    assign->add_input(absl::StrCat(read->name(), ":", i));
    (*assign->mutable_attr())["dtype"] = MakeAttrValue(dtypes[i]);
    all->add_input(absl::StrCat("^", assign->name()));
  }
  MG_RETURN_IF_ERROR(session->Extend(restore));
  std::vector<Tensor> none;
  return session->Run({}, {}, {all->name()}, &none);
}

}  // namespace

absl::StatusOr<SavedModelBundle> LoadSavedModel(const SessionOptions& options,
                                                const std::string& export_dir,
                                                const std::set<std::string>& tags) {
  Env* env = options.env != nullptr ? options.env : Env::Default();
  MG_ASSIGN_OR_RETURN(SavedModel model, ReadSavedModel(env, export_dir));
  SavedModelBundle bundle;
  MG_ASSIGN_OR_RETURN(bundle.meta_graph, FindMetaGraph(model, tags, export_dir));
  const MetaGraphDef* meta = &bundle.meta_graph;
  MG_ASSIGN_OR_RETURN(bundle.session, NewSession(options));
  MG_RETURN_IF_ERROR(bundle.session->Create(meta->graph_def()));
  const std::string variables = JoinPath(JoinPath(export_dir, "variables"), "variables");
  if (meta->has_saver_def() && CheckpointExists(env, variables)) {
    MG_RETURN_IF_ERROR(
        Saver::FromSaverDef(meta->saver_def(), env)->Restore(bundle.session.get(), variables));
  } else if (meta->has_object_graph_def() && CheckpointExists(env, variables)) {
    MG_RETURN_WITH_CONTEXT_IF_ERROR(
        RestoreByObjectGraph(*meta, variables, env, bundle.session.get()),
        "restoring the variables of ", export_dir, " by its object graph");
  }
  MG_RETURN_IF_ERROR(RunInitOp(*meta, export_dir, bundle.session.get()));
  return bundle;
}

absl::StatusOr<std::map<std::string, Tensor>> SavedModelBundle::Run(
    const std::string& name, const std::map<std::string, Tensor>& inputs) const {
  auto sig = meta_graph.signature_def().find(name);
  if (sig == meta_graph.signature_def().end()) {
    std::vector<std::string> names;
    for (const auto& [n, s] : meta_graph.signature_def()) {
      if (n != "__saved_model_init_op") names.push_back(n);
    }
    return absl::NotFoundError(
        absl::StrCat("no signature '", name, "'; the model has: ", absl::StrJoin(names, ", ")));
  }
  std::vector<std::pair<std::string, Tensor>> feeds;
  for (const auto& [key, value] : inputs) {
    auto in = sig->second.inputs().find(key);
    if (in == sig->second.inputs().end()) {
      return absl::NotFoundError(absl::StrCat("signature '", name, "' has no input '", key, "'"));
    }
    feeds.emplace_back(in->second.name(), value);
  }
  for (const auto& [key, info] : sig->second.inputs()) {
    if (!inputs.count(key)) {
      return absl::InvalidArgumentError(
          absl::StrCat("signature '", name, "' needs input '", key, "' (", info.name(), ")"));
    }
  }
  std::vector<std::string> keys, fetches;
  for (const auto& [key, info] : sig->second.outputs()) {
    keys.push_back(key);
    fetches.push_back(info.name());
  }
  std::vector<Tensor> out;
  MG_RETURN_IF_ERROR(session->Run(feeds, fetches, {}, &out));
  std::map<std::string, Tensor> result;
  for (size_t i = 0; i < keys.size(); ++i) result[keys[i]] = std::move(out[i]);
  return result;
}

}  // namespace minigraph
