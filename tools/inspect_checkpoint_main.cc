// Lists, prints and verifies checkpoints (TensorFlow's V2 format, and V1).
//
//   inspect_checkpoint --prefix=/logs/model-300            # one line per tensor
//   inspect_checkpoint --prefix=/logs/model-300 --tensor=layer1/weight [--full]
//   inspect_checkpoint --prefix=/logs/model-300 --verify   # read all, check every crc
//   inspect_checkpoint --dir=/logs                          # the checkpoint state
//   inspect_checkpoint --dir=/logs --repair_state [--write]  # rebuild a lost state file
//   inspect_checkpoint --prefix=/logs/model-300 --diff=model.meta   # before restoring
#include <algorithm>
#include <cstdio>
#include <iostream>
#include <map>
#include <set>
#include <tuple>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/flags/usage.h"
#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "checkpoint/bundle_reader.h"
#include "checkpoint/checkpoint_diff.h"
#include "checkpoint/checkpoint_directory.h"
#include "checkpoint/checkpoint_state.h"
#include "checkpoint/proto/tensor_bundle.pb.h"
#include "checkpoint/saved_slices.h"
#include "core/env.h"
#include "core/path.h"
#include "core/proto/meta_graph.pb.h"
#include "core/status_macros.h"
#include "google/protobuf/text_format.h"
#include "session/graph_files.h"
#include "tools/flag_checks.h"
#include "tools/graph_variables.h"

ABSL_FLAG(std::string, prefix, "",
          "Checkpoint prefix P (files P.index and P.data-*): list its tensors as "
          "key<TAB>dtype<TAB>shape<TAB>size_bytes<TAB>shard<TAB>offset<TAB>crc32c");
ABSL_FLAG(std::string, tensor, "", "With --prefix: print this tensor's values instead");
ABSL_FLAG(bool, verify, false,
          "With --prefix: read every tensor and check every crc; exit 1 naming each bad one");
ABSL_FLAG(std::string, dir, "",
          "Print the checkpoint state (the `checkpoint` file) of a directory");
ABSL_FLAG(std::string, diff, "",
          "With --prefix: compare the checkpoint with the variables of this graph (a .meta, or a "
          "GraphDef, binary or text .pbtxt): missing, unused and mismatched tensors, with rename "
          "hints; exit 1 when a restore would fail");
ABSL_FLAG(bool, repair_state, false,
          "With --dir: rebuild the `checkpoint` state file from the complete checkpoints in the "
          "directory (newest by step, then time), with relative paths; prints it, and writes it "
          "(atomically) only with --write");
ABSL_FLAG(bool, write, false, "With --repair_state: write the rebuilt state file");
ABSL_FLAG(int, max_values, 20, "With --tensor: values shown before summarizing (>= 1)");
ABSL_FLAG(bool, full, false,
          "With --tensor: print every value, and strings whole (one per line, C-escaped)");

namespace minigraph {
namespace {

int Fail(const absl::Status& s) {
  std::fprintf(stderr, "inspect_checkpoint: %s\n", std::string(s.ToString()).c_str());
  return 1;
}

int ListOrVerify(const std::string& prefix) {
  auto reader = BundleReader::Open(Env::Default(), prefix);
  if (!reader.ok()) return Fail(reader.status());
  int bad = 0;
  const std::vector<std::string> names = (*reader)->tensor_names();
  for (const std::string& key : names) {
    const BundleEntryProto* e = *(*reader)->GetEntry(key);
    if (absl::GetFlag(FLAGS_verify)) {
      absl::StatusOr<Tensor> t = (*reader)->Lookup(key);
      if (!t.ok()) {
        ++bad;
        std::fprintf(stderr, "BAD %s: %s\n", key.c_str(),
                     std::string(t.status().message()).c_str());
      }
      continue;
    }
    auto shape = (*reader)->GetShape(key);
    if (e->slices_size() > 0) {
      // Saved in slices (a partitioned variable, or any V1 tensor): where
      // each slice lies is in the slices' own entries.
      std::vector<std::string> slices;
      for (const TensorSliceProto& p : e->slices()) {
        slices.push_back(TensorSlice::FromProto(p)->DebugString());
      }
      std::printf("%s\t%s\t%s\tslices %s\n", key.c_str(), DataTypeName(e->dtype()).c_str(),
                  shape.ok() ? shape->DebugString().c_str() : "?",
                  absl::StrJoin(slices, " ").c_str());
      continue;
    }
    std::printf("%s\t%s\t%s\t%lld\t%d\t%lld\t%08x\n", key.c_str(), DataTypeName(e->dtype()).c_str(),
                shape.ok() ? shape->DebugString().c_str() : "?", static_cast<long long>(e->size()),
                e->shard_id(), static_cast<long long>(e->offset()), e->crc32c());
  }
  if (absl::GetFlag(FLAGS_verify)) {
    std::printf("%s: %zu tensors, %d bad\n", prefix.c_str(), names.size(), bad);
  }
  return bad == 0 ? 0 : 1;
}

int PrintTensor(const std::string& prefix, const std::string& key) {
  auto reader = BundleReader::Open(Env::Default(), prefix);
  if (!reader.ok()) return Fail(reader.status());
  auto t = (*reader)->Lookup(key);
  if (!t.ok()) return Fail(t.status());
  std::printf("%s\t%s\t%s\n", key.c_str(), DataTypeName(t->dtype()).c_str(),
              t->shape().DebugString().c_str());
  if (!absl::GetFlag(FLAGS_full)) {
    std::printf("%s\n", t->SummarizeValue(absl::GetFlag(FLAGS_max_values)).c_str());
  } else if (t->dtype() == DT_STRING) {
    for (int64_t i = 0; i < t->NumElements(); ++i) {
      std::printf("\"%s\"\n", absl::CHexEscape(t->data<std::string>()[i]).c_str());
    }
  } else {
    std::printf("%s\n", t->SummarizeValue(t->NumElements()).c_str());
  }
  return 0;
}

int Diff(const std::string& prefix, const std::string& graph_path) {
  auto file = LoadGraphFile(Env::Default(), graph_path);
  if (!file.ok()) return Fail(file.status());
  auto reader = BundleReader::Open(Env::Default(), prefix);
  if (!reader.ok()) return Fail(reader.status());
  const CheckpointDiff d = DiffCheckpoint(**reader, GraphVariables(file->graph));
  std::printf("%s", d.ToString().c_str());
  return d.compatible() ? 0 : 1;
}

int RepairState(const std::string& dir) {
  const CheckpointDirectory directory(dir, {.env = Env::Default()});
  std::vector<std::string> skipped;
  absl::StatusOr<CheckpointState> rebuilt = directory.RebuildState(&skipped);
  const std::string in_dir = absl::EndsWith(dir, "/") ? dir : absl::StrCat(dir, "/");
  for (const std::string& why : skipped) {
    std::fprintf(stderr, "skipping %s\n", std::string(absl::StripPrefix(why, in_dir)).c_str());
  }
  if (!rebuilt.ok()) return Fail(rebuilt.status());
  // Printed as written: relative to the directory, so a copy of it works.
  CheckpointState state;
  for (int i = 0; i < rebuilt->all_model_checkpoint_paths_size(); ++i) {
    const std::string& p = rebuilt->all_model_checkpoint_paths(i);
    state.add_all_model_checkpoint_paths(std::string(Basename(p)));
    state.add_all_model_checkpoint_timestamps(rebuilt->all_model_checkpoint_timestamps(i));
  }
  state.set_model_checkpoint_path(std::string(Basename(rebuilt->model_checkpoint_path())));
  std::string text;
  google::protobuf::TextFormat::PrintToString(state, &text);
  std::printf("%s", text.c_str());
  const std::string path = JoinPath(dir, kDefaultLatestFilename);
  if (!absl::GetFlag(FLAGS_write)) {
    std::printf("# dry run: %d checkpoints found; --write replaces %s with the above\n",
                state.all_model_checkpoint_paths_size(), path.c_str());
    return 0;
  }
  absl::StatusOr<std::vector<std::string>> written =
      directory.WriteRebuiltState(*rebuilt, rebuilt->model_checkpoint_path());
  if (!written.ok()) return Fail(written.status());
  std::printf("# wrote %s\n", path.c_str());
  return 0;
}

int PrintState(const std::string& dir) {
  if (absl::StatusOr<bool> is_dir = Env::Default()->IsDirectory(dir); !is_dir.ok() || !*is_dir) {
    return Fail(is_dir.ok()
                    ? absl::InvalidArgumentError(absl::StrCat(dir, " is not a directory"))
                    : absl::NotFoundError(absl::StrCat("directory ", dir, " does not exist")));
  }
  auto state = GetCheckpointState(Env::Default(), dir);
  if (!state.ok()) return Fail(state.status());
  if (!state->has_value()) {
    std::printf("%s: no checkpoint state\n", dir.c_str());
    return 1;
  }
  const CheckpointState& s = **state;
  // Paths are printed C-escaped: a NUL or a newline in one would otherwise
  // cut or split the line.
  std::printf("model_checkpoint_path\t%s\t%s\n", absl::CEscape(s.model_checkpoint_path()).c_str(),
              CheckpointExists(Env::Default(), s.model_checkpoint_path()) ? "present" : "MISSING");
  for (int i = 0; i < s.all_model_checkpoint_paths_size(); ++i) {
    const std::string& p = s.all_model_checkpoint_paths(i);
    std::printf("all_model_checkpoint_paths\t%s\t%s", absl::CEscape(p).c_str(),
                CheckpointExists(Env::Default(), p) ? "present" : "MISSING");
    if (i < s.all_model_checkpoint_timestamps_size()) {
      std::printf("\t%.6f", s.all_model_checkpoint_timestamps(i));
    }
    std::printf("\n");
  }
  return 0;
}

}  // namespace
}  // namespace minigraph

int main(int argc, char** argv) {
  absl::SetProgramUsageMessage(
      "Lists, prints and verifies TensorFlow V2 checkpoints.\n"
      "  inspect_checkpoint --prefix=P [--tensor=KEY [--max_values=N | --full] | --verify]\n"
      "  inspect_checkpoint --prefix=P --diff=GRAPH\n"
      "  inspect_checkpoint --dir=D [--repair_state [--write]]");
  std::vector<char*> rest = minigraph::ParseFlags(argc, argv);
  auto usage_error = [](const std::string& why) {
    return minigraph::UsageError("inspect_checkpoint", absl::InvalidArgumentError(why));
  };
  if (absl::Status s = minigraph::NoPositionalArguments(rest); !s.ok()) {
    return minigraph::UsageError("inspect_checkpoint", s);
  }
  if (absl::Status s = minigraph::ApplyMaxTensorBytes(); !s.ok()) {
    return minigraph::UsageError("inspect_checkpoint", s);
  }
  const std::string prefix = absl::GetFlag(FLAGS_prefix);
  const std::string dir = absl::GetFlag(FLAGS_dir);
  const std::string tensor = absl::GetFlag(FLAGS_tensor);
  const bool verify = absl::GetFlag(FLAGS_verify);
  if (!dir.empty() && !prefix.empty()) {
    return usage_error(
        "--dir prints a directory's checkpoint state and --prefix one checkpoint; "
        "give one of them");
  }
  if (dir.empty() && prefix.empty()) return usage_error("give --prefix or --dir");
  if (!dir.empty() && (!tensor.empty() || verify)) {
    return usage_error("--tensor and --verify read one checkpoint: use them with --prefix");
  }
  const std::string diff = absl::GetFlag(FLAGS_diff);
  if (!diff.empty() && (verify || !tensor.empty() || !dir.empty())) {
    return usage_error(
        "--diff compares one checkpoint (--prefix) with a graph; it does not go "
        "with --tensor, --verify or --dir");
  }
  if (verify && !tensor.empty()) {
    return usage_error("--verify checks every tensor and --tensor prints one; give one of them");
  }
  if (absl::GetFlag(FLAGS_max_values) < 1) {
    return usage_error(absl::StrCat("--max_values must be at least 1, got ",
                                    absl::GetFlag(FLAGS_max_values),
                                    "; --full prints every value"));
  }
  if ((absl::GetFlag(FLAGS_repair_state) && dir.empty()) ||
      (absl::GetFlag(FLAGS_write) && !absl::GetFlag(FLAGS_repair_state))) {
    return usage_error("--repair_state works on a directory (--dir); --write goes with it");
  }
  if (!dir.empty() && absl::GetFlag(FLAGS_repair_state)) return minigraph::RepairState(dir);
  if (!dir.empty()) return minigraph::PrintState(dir);
  if (!diff.empty()) return minigraph::Diff(prefix, diff);
  if (!tensor.empty()) return minigraph::PrintTensor(prefix, tensor);
  return minigraph::ListOrVerify(prefix);
}
