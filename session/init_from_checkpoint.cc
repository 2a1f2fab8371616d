#include "session/init_from_checkpoint.h"

#include <optional>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "checkpoint/bundle_reader.h"
#include "checkpoint/checkpoint_state.h"
#include "checkpoint/naming.h"
#include "checkpoint/proto/tensor_bundle.pb.h"
#include "core/status_macros.h"
#include "runtime/cc/ops.h"
#include "runtime/cc/variables.h"
#include "runtime/graph/node_def_util.h"

namespace minigraph {
namespace {

// The checkpoint `ckpt_dir_or_file` names, open (`*prefix` its prefix). A
// directory's latest is chosen and opened under the directory's lease, when
// its Saver takes leases, so that retention keeps it until its own lease is
// taken; without leases, a checkpoint deleted between the state file's read
// and the open is chosen again, a few times.
absl::StatusOr<std::unique_ptr<BundleReader>> OpenCheckpoint(Env* env,
                                                             const std::string& ckpt_dir_or_file,
                                                             std::string* prefix) {
  *prefix = ckpt_dir_or_file;
  if (!env->IsDirectory(ckpt_dir_or_file).value_or(false)) return BundleReader::Open(env, *prefix);
  std::unique_ptr<FileLock> dir_lease;
  if (const std::string path = DirectoryLeaseFilename(ckpt_dir_or_file);
      env->FileExists(path).ok()) {
    dir_lease = env->LockFileShared(path).value_or(nullptr);
  }
  for (int attempt = 0;; ++attempt) {
    MG_ASSIGN_OR_RETURN(std::optional<std::string> latest,
                        LatestCheckpoint(env, ckpt_dir_or_file));
    if (!latest.has_value()) {
      return absl::NotFoundError(absl::StrCat(
          "Couldn't find 'checkpoint' file or checkpoints in given directory ", ckpt_dir_or_file));
    }
    *prefix = *std::move(latest);
    absl::StatusOr<std::unique_ptr<BundleReader>> reader = BundleReader::Open(env, *prefix);
    if (reader.ok() || !absl::IsNotFound(reader.status()) || attempt == 3) return reader;
  }
}

}  // namespace

absl::Status InitFromCheckpoint(const Scope& scope, const std::string& ckpt_dir_or_file,
                                const std::map<std::string, std::string>& assignment_map,
                                Env* env, std::unique_ptr<BundleReader>* reader_out) {
  std::string prefix;
  MG_ASSIGN_OR_RETURN(std::unique_ptr<BundleReader> reader,
                      OpenCheckpoint(env, ckpt_dir_or_file, &prefix));
  // TensorFlow's variable store: the variables by name, a partitioned
  // variable's parts together under its full name.
  std::map<std::string, std::vector<Variable>> vars;
  for (const auto& list : {GlobalVariables(scope), LocalVariables(scope)}) {
    for (const Variable& v : list) vars[v.checkpoint_key()].push_back(v);
  }

  // Every (variable, checkpoint tensor) pair, checked before the graph
  // changes. The resolution of scopes is TensorFlow's, quirks included.
  std::vector<std::pair<std::vector<Variable>, std::string>> plan;
  for (const auto& [in_ckpt, current] : assignment_map) {
    if (auto it = vars.find(current); it != vars.end()) {
      if (!reader->Contains(in_ckpt)) {
        return absl::NotFoundError(absl::StrCat("Tensor ", in_ckpt, " is not found in ",
                                                ckpt_dir_or_file, " checkpoint ", prefix));
      }
      plan.emplace_back(it->second, in_ckpt);
      continue;
    }
    const size_t slash = current.rfind('/');
    const std::string scopes = slash == std::string::npos ? "" : current.substr(0, slash);
    if (!absl::EndsWith(in_ckpt, "/")) {
      return absl::InvalidArgumentError(absl::StrCat(
          "Assignment map with scope only name ", scopes, " should map to scope only ", in_ckpt,
          ". Should be 'scope/': 'other_scope/'. (No variable is named '", current, "'.)"));
    }
    for (const auto& [name, var] : vars) {
      if (!scopes.empty() && !absl::StartsWith(name, scopes + "/")) continue;
      std::string full = name.substr(scopes.size());
      if (current != "/") full = full.substr(1);
      if (in_ckpt != "/") full = in_ckpt + full;
      if (absl::EndsWith(full, "/")) full.pop_back();
      if (!reader->Contains(full)) {
        return absl::NotFoundError(
            absl::StrCat("Tensor ", full, " (", name.substr(scopes.empty() ? 0 : scopes.size() + 1),
                         " in ", in_ckpt, ") is not found in ", ckpt_dir_or_file, " checkpoint"));
      }
      plan.emplace_back(var, full);
    }
  }
  for (const auto& [parts, tensor] : plan) {
    const Variable& var = parts[0];
    const BundleEntryProto& e = **reader->GetEntry(tensor);
    MG_ASSIGN_OR_RETURN(TensorShape shape, TensorShape::FromProto(e.shape()));
    const std::optional<SaveSliceInfo>& part = var.save_slice_info();
    const PartialShape var_shape = part.has_value() ? PartialShape(part->full_shape) : var.shape();
    if (!var_shape.IsCompatibleWith(shape)) {
      return absl::InvalidArgumentError(
          absl::StrCat("Shape of variable ", var.checkpoint_key(), " (", var_shape.DebugString(),
                       ") doesn't match with shape of tensor ", tensor, " (", shape.DebugString(),
                       ") from checkpoint reader (", prefix, ")."));
    }
    if (e.dtype() != var.dtype()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "variable ", var.checkpoint_key(), " is ", DataTypeString(var.dtype()), ", but tensor ",
          tensor, " in checkpoint ", prefix, " is ", DataTypeString(e.dtype())));
    }
  }

  // One RestoreV2 per variable (per part of a partitioned one, of its
  // slice), as TensorFlow's _set_checkpoint_initializer.
  for (const auto& [parts, tensor] : plan) {
    for (const Variable& var : parts) {
      const std::string full = scope.UniqueName("checkpoint_initializer");
      const std::string base =
          scope.prefix().empty() ? full : full.substr(scope.prefix().size() + 1);
      const Scope s = scope.WithDevice(scope.GetNodeDef(var.ref().op()).device());
      AttrValue dtypes;
      dtypes.mutable_list()->add_type(var.dtype());
      // The inputs go first, under NAME/, with NAME still free.
      Output file = ops::Const(s.WithOpName(base + "/prefix"), Tensor::Scalar<std::string>(prefix));
      Output names =
          ops::Const(s.WithOpName(base + "/tensor_names"), Tensor::Vector<std::string>({tensor}));
      Output slices = ops::Const(s.WithOpName(base + "/shape_and_slices"),
                                 Tensor::Vector<std::string>({var.checkpoint_slice_spec()}));
      Operation restore =
          s.WithOpName(base).AddOp("RestoreV2", {{file}, {names}, {slices}}, {{"dtypes", dtypes}});
      MG_RETURN_IF_ERROR(scope.status());
      MG_RETURN_IF_ERROR(var.ReplaceInitialValue(s.InsideOp(restore), restore.output(0)).status());
    }
  }
  if (reader_out != nullptr) *reader_out = std::move(reader);
  return absl::OkStatus();
}

}  // namespace minigraph
