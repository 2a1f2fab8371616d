#include "session/graph_files.h"

#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "core/path.h"
#include "core/status_macros.h"
#include "core/text_proto.h"
#include "google/protobuf/text_format.h"

namespace minigraph {
namespace {

std::string TagSet(const google::protobuf::RepeatedPtrField<std::string>& tags) {
  return absl::StrCat("{ ", absl::StrJoin(tags, " "), " }");
}

}  // namespace

absl::StatusOr<SavedModel> ReadSavedModel(Env* env, const std::string& export_dir) {
  SavedModel model;
  const std::string pb = JoinPath(export_dir, "saved_model.pb");
  if (env->FileExists(pb).ok()) {
    MG_ASSIGN_OR_RETURN(std::string bytes, ReadFileToString(env, pb));
    if (!model.ParseFromString(bytes)) {
      return absl::DataLossError(absl::StrCat(pb, " is not a SavedModel"));
    }
    return model;
  }
  const std::string pbtxt = JoinPath(export_dir, "saved_model.pbtxt");
  if (env->FileExists(pbtxt).ok()) {
    MG_ASSIGN_OR_RETURN(std::string text, ReadFileToString(env, pbtxt));
    if (absl::Status parsed = ParseTextProto(text, &model); !parsed.ok()) {
      return absl::DataLossError(
          absl::StrCat(pbtxt, " is not a SavedModel (", parsed.message(), ")"));
    }
    return model;
  }
  return absl::NotFoundError(absl::StrCat("SavedModel not found in export directory: ",
                                          export_dir,
                                          " (no saved_model.pb or saved_model.pbtxt)"));
}

absl::StatusOr<MetaGraphDef> FindMetaGraph(const SavedModel& model,
                                           const std::set<std::string>& tags,
                                           const std::string& export_dir) {
  std::vector<std::string> available;
  for (const MetaGraphDef& m : model.meta_graphs()) {
    const auto& t = m.meta_info_def().tags();
    if (std::set<std::string>(t.begin(), t.end()) == tags) return m;
    available.push_back(TagSet(t));
  }
  return absl::NotFoundError(absl::StrCat(
      "Could not find meta graph def matching supplied tags: { ", absl::StrJoin(tags, " "),
      " }. The SavedModel in ", export_dir, " has: ",
      available.empty() ? "no meta graph" : absl::StrJoin(available, ", ")));
}

absl::StatusOr<MetaGraphDef> ReadMetaGraphFile(Env* env, const std::string& path) {
  MG_ASSIGN_OR_RETURN(std::string bytes, ReadFileToString(env, path));
  MetaGraphDef meta;
  if (meta.ParseFromString(bytes)) return meta;
  if (absl::Status parsed = ParseTextProto(bytes, &meta); !parsed.ok()) {
    return absl::DataLossError(absl::StrCat(
        path, " is not a MetaGraphDef (binary, or text: ", parsed.message(), ")"));
  }
  return meta;
}

absl::StatusOr<GraphFile> LoadGraphFile(Env* env, const std::string& path) {
  GraphFile out;
  if (env->IsDirectory(path).value_or(false)) {
    MG_ASSIGN_OR_RETURN(SavedModel model, ReadSavedModel(env, path));
    if (model.meta_graphs_size() == 0) {
      return absl::DataLossError(absl::StrCat("the SavedModel in ", path, " has no meta graph"));
    }
    // The serving graph, else the first.
    const MetaGraphDef* meta = &model.meta_graphs(0);
    for (const MetaGraphDef& m : model.meta_graphs()) {
      for (const std::string& tag : m.meta_info_def().tags()) {
        if (tag == "serve") meta = &m;
      }
    }
    out.graph = meta->graph_def();
    if (meta->has_saver_def()) out.saver = meta->saver_def();
    out.default_checkpoint = JoinPath(JoinPath(path, "variables"), "variables");
    return out;
  }
  const std::string kinds =
      "neither a MetaGraphDef (.meta) nor a GraphDef (binary, or text in .pbtxt), nor a "
      "SavedModel directory";
  if (absl::EndsWith(path, ".meta")) {
    absl::StatusOr<MetaGraphDef> meta = ReadMetaGraphFile(env, path);
    if (absl::IsDataLoss(meta.status())) {
      return absl::DataLossError(absl::StrCat(path, " is not a graph: ", kinds, " (",
                                              meta.status().message(), ")"));
    }
    MG_RETURN_IF_ERROR(meta.status());
    out.graph = meta->graph_def();
    if (meta->has_saver_def()) out.saver = meta->saver_def();
    out.default_checkpoint = path.substr(0, path.size() - 5);
    return out;
  }
  MG_ASSIGN_OR_RETURN(std::string bytes, ReadFileToString(env, path));
  if (absl::EndsWith(path, ".pbtxt") || absl::EndsWith(path, ".txt")) {
    if (absl::Status text = ParseTextProto(bytes, &out.graph); !text.ok()) {
      return absl::DataLossError(
          absl::StrCat(path, " is not a graph: ", kinds, " (as text: ", text.message(), ")"));
    }
    return out;
  }
  if (!out.graph.ParseFromString(bytes) && !ParseTextProto(bytes, &out.graph).ok()) {
    return absl::DataLossError(absl::StrCat(path, " is not a graph: ", kinds));
  }
  return out;
}

absl::Status WriteGraphText(Env* env, const GraphDef& graph, const std::string& dir,
                            const std::string& name) {
  std::string text;
  google::protobuf::TextFormat::PrintToString(graph, &text);
  const std::string path = JoinPath(dir, name);
  const std::string tmp = absl::StrCat(path, ".tmp");
  MG_RETURN_IF_ERROR(env->CreateDir(dir));
  absl::Status written = WriteStringToFile(env, tmp, text);
  if (written.ok()) written = env->RenameFile(tmp, path);
  // Nothing left behind (a full disk; a directory where the graph goes).
  if (!written.ok()) env->DeleteFile(tmp).IgnoreError();
  return written;
}

}  // namespace minigraph
