#include "session/saved_model.h"

#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "checkpoint/checkpoint_state.h"
#include "core/path.h"
#include "core/status_macros.h"
#include "google/protobuf/text_format.h"
#include "session/saver.h"

namespace minigraph {
namespace {

std::string TagSet(const google::protobuf::RepeatedPtrField<std::string>& tags) {
  return absl::StrCat("{ ", absl::StrJoin(tags, " "), " }");
}

absl::StatusOr<SavedModel> ReadSavedModel(Env* env, const std::string& dir) {
  SavedModel model;
  const std::string pb = JoinPath(dir, "saved_model.pb");
  if (env->FileExists(pb).ok()) {
    MG_ASSIGN_OR_RETURN(std::string bytes, ReadFileToString(env, pb));
    if (!model.ParseFromString(bytes)) {
      return absl::DataLossError(absl::StrCat(pb, " is not a SavedModel"));
    }
    return model;
  }
  const std::string pbtxt = JoinPath(dir, "saved_model.pbtxt");
  if (env->FileExists(pbtxt).ok()) {
    MG_ASSIGN_OR_RETURN(std::string text, ReadFileToString(env, pbtxt));
    if (!google::protobuf::TextFormat::ParseFromString(text, &model)) {
      return absl::DataLossError(absl::StrCat(pbtxt, " is not a SavedModel"));
    }
    return model;
  }
  return absl::NotFoundError(absl::StrCat("SavedModel not found in export directory: ", dir,
                                          " (no saved_model.pb or saved_model.pbtxt)"));
}

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

}  // namespace

absl::StatusOr<SavedModelBundle> LoadSavedModel(const SessionOptions& options,
                                                const std::string& export_dir,
                                                const std::set<std::string>& tags) {
  Env* env = options.env != nullptr ? options.env : Env::Default();
  MG_ASSIGN_OR_RETURN(SavedModel model, ReadSavedModel(env, export_dir));
  const MetaGraphDef* meta = nullptr;
  std::vector<std::string> available;
  for (const MetaGraphDef& m : model.meta_graphs()) {
    const auto& t = m.meta_info_def().tags();
    if (std::set<std::string>(t.begin(), t.end()) == tags) meta = &m;
    available.push_back(TagSet(t));
  }
  if (meta == nullptr) {
    return absl::NotFoundError(absl::StrCat(
        "Could not find meta graph def matching supplied tags: { ", absl::StrJoin(tags, " "),
        " }. The SavedModel in ", export_dir, " has: ", absl::StrJoin(available, ", ")));
  }
  SavedModelBundle bundle;
  bundle.meta_graph = *meta;
  MG_ASSIGN_OR_RETURN(bundle.session, NewSession(options));
  MG_RETURN_IF_ERROR(bundle.session->Create(meta->graph_def()));
  const std::string variables = JoinPath(JoinPath(export_dir, "variables"), "variables");
  if (meta->has_saver_def() && CheckpointExists(env, variables)) {
    MG_RETURN_IF_ERROR(
        Saver::FromSaverDef(meta->saver_def(), env)->Restore(bundle.session.get(), variables));
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
