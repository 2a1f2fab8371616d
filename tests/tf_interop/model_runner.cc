// minigraph's side of the model interop tests: runs a model TensorFlow
// built and saved, on the inputs TensorFlow ran it on.
//
//   model_runner --graph=model.meta --checkpoint=P --feeds=IN --out=OUT
//       --fetch=logits:0,grad_w:0 [--train_op=train --steps=K --after=w:0,b:0]
//   model_runner --saved_model=DIR --signature=serving_default --feeds=IN --out=OUT
//
// A .meta: its variables are restored from P by its own Saver; the feeds
// (tensor_records.h's file, keyed by tensor name) go to one Run fetching
// --fetch; then --train_op runs --steps times on the same feeds, and --after
// is fetched. A SavedModel: LoadSavedModel, and the signature run on the
// feeds (keyed by input key). OUT receives every fetched tensor under its
// name ("after:" before each --after name), in the same format.
// Exit 0, or 1 with the error on stderr.

#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "core/env.h"
#include "core/proto/meta_graph.pb.h"
#include "core/status_macros.h"
#include "session/graph_files.h"
#include "session/saved_model.h"
#include "session/saver.h"
#include "session/session.h"
#include "tests/tf_interop/tensor_records.h"

ABSL_FLAG(std::string, graph, "", "A MetaGraphDef (.meta) TensorFlow wrote");
ABSL_FLAG(std::string, checkpoint, "", "With --graph: the checkpoint its Saver restores");
ABSL_FLAG(std::string, saved_model, "", "A SavedModel directory");
ABSL_FLAG(std::string, signature, "serving_default", "With --saved_model: the signature");
ABSL_FLAG(std::string, feeds, "", "The inputs: a tensor file (tensor_records.h)");
ABSL_FLAG(std::vector<std::string>, fetch, {}, "With --graph: tensors to fetch");
ABSL_FLAG(std::string, train_op, "", "With --graph: an op to run --steps times");
ABSL_FLAG(int, steps, 0, "With --train_op: how many times");
ABSL_FLAG(std::vector<std::string>, after, {}, "With --train_op: tensors fetched after");
ABSL_FLAG(std::string, out, "", "Where the fetched tensors go (a tensor file)");

namespace minigraph {
namespace {

absl::Status RunMetaGraph(const std::map<std::string, Tensor>& given, std::string* records) {
  MG_ASSIGN_OR_RETURN(MetaGraphDef meta,
                      ReadMetaGraphFile(Env::Default(), absl::GetFlag(FLAGS_graph)));
  MG_ASSIGN_OR_RETURN(std::unique_ptr<Session> session, NewSession(SessionOptions()));
  MG_RETURN_IF_ERROR(session->Create(meta.graph_def()));
  if (!absl::GetFlag(FLAGS_checkpoint).empty()) {
    MG_RETURN_IF_ERROR(Saver::FromSaverDef(meta.saver_def())
                           ->Restore(session.get(), absl::GetFlag(FLAGS_checkpoint)));
  }
  const std::vector<std::pair<std::string, Tensor>> feeds(given.begin(), given.end());
  const std::vector<std::string> fetch = absl::GetFlag(FLAGS_fetch);
  std::vector<Tensor> out;
  if (!fetch.empty()) {
    MG_RETURN_IF_ERROR(session->Run(feeds, fetch, {}, &out));
    for (size_t i = 0; i < fetch.size(); ++i) AppendTensorRecord(fetch[i], out[i], records);
  }
  if (absl::GetFlag(FLAGS_train_op).empty()) return absl::OkStatus();
  for (int step = 0; step < absl::GetFlag(FLAGS_steps); ++step) {
    MG_RETURN_IF_ERROR(session->Run(feeds, {}, {absl::GetFlag(FLAGS_train_op)}, &out));
  }
  const std::vector<std::string> after = absl::GetFlag(FLAGS_after);
  MG_RETURN_IF_ERROR(session->Run(feeds, after, {}, &out));
  for (size_t i = 0; i < after.size(); ++i) {
    AppendTensorRecord("after:" + after[i], out[i], records);
  }
  return absl::OkStatus();
}

absl::Status RunSavedModel(const std::map<std::string, Tensor>& given, std::string* records) {
  MG_ASSIGN_OR_RETURN(
      SavedModelBundle bundle,
      LoadSavedModel(SessionOptions(), absl::GetFlag(FLAGS_saved_model), {"serve"}));
  MG_ASSIGN_OR_RETURN(auto out, bundle.Run(absl::GetFlag(FLAGS_signature), given));
  for (const auto& [key, t] : out) AppendTensorRecord(key, t, records);
  return absl::OkStatus();
}

absl::Status Main() {
  MG_ASSIGN_OR_RETURN(auto records_in, ReadTensorRecords(absl::GetFlag(FLAGS_feeds)));
  const std::map<std::string, Tensor> given(records_in.begin(), records_in.end());
  std::string records;
  MG_RETURN_IF_ERROR(absl::GetFlag(FLAGS_saved_model).empty() ? RunMetaGraph(given, &records)
                                                              : RunSavedModel(given, &records));
  return WriteStringToFile(Env::Default(), absl::GetFlag(FLAGS_out), records);
}

}  // namespace
}  // namespace minigraph

int main(int argc, char** argv) {
  absl::ParseCommandLine(argc, argv);
  if (absl::Status s = minigraph::Main(); !s.ok()) {
    std::fprintf(stderr, "model_runner: %s\n", s.ToString().c_str());
    return 1;
  }
  return 0;
}
