#include "session/saver.h"

#include <algorithm>
#include <functional>
#include <map>
#include <random>
#include <thread>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "checkpoint/bundle_reader.h"
#include "checkpoint/checkpoint_diff.h"
#include "checkpoint/checkpoint_manager.h"
#include "checkpoint/checkpoint_state.h"
#include "core/logging.h"
#include "core/path.h"
#include "core/status_macros.h"
#include "runtime/cc/ops.h"
#include "runtime/graph/node_def_util.h"
#include "runtime/graph/ops/standard_ops.h"

namespace minigraph {
namespace {

Tensor Strings(const std::vector<std::string>& v) {
  Tensor t(DT_STRING, TensorShape({static_cast<int64_t>(v.size())}));
  for (size_t i = 0; i < v.size(); ++i) t.data<std::string>()[i] = v[i];
  return t;
}

// What a save writes for `v`: a ref variable's reference, a resource
// variable's read.
Output SavedTensor(const Variable& v) { return v.is_resource() ? v.value() : v.ref(); }

// One thing a Saver saves: a variable (one tensor), or a mutable lookup
// table (two: its keys and values).
struct SavedItem {
  std::string name;    // the order of the checkpoint's keys
  std::string device;  // where a sharded save by device saves it
  std::vector<std::string> keys, specs;
  std::vector<Output> tensors;  // what the save writes, one per key
  std::vector<DataType> dtypes;
  bool table = false;  // a table's entries are any in number: no shape expected
  // The restore of the item from RestoreV2's outputs for its keys.
  std::function<Operation(const Scope&, const std::vector<Output>&)> restore;
};

SavedItem VariableItem(const Scope& scope, const Variable& v) {
  SavedItem item;
  item.name = v.name();
  item.device = scope.GetNodeDef(v.ref().op()).device();
  item.keys = {v.checkpoint_key()};
  item.specs = {v.checkpoint_slice_spec()};
  item.tensors = {SavedTensor(v)};
  item.dtypes = {v.dtype()};
  item.restore = [v](const Scope& on, const std::vector<Output>& values) {
    return v.is_resource() ? ops::AssignVariableOp(on.WithOpName("AssignVariableOp"), v.ref(),
                                                   values[0])
                           : ops::Assign(on.WithOpName("Assign"), v.ref(), values[0]).op();
  };
  return item;
}

// The tables TensorFlow's Saver saves: the mutable ones (a HashTable is
// filled again by its initializer).
bool IsSavedTable(const std::string& op) {
  return op == "MutableHashTableV2" || op == "MutableHashTableOfTensorsV2" ||
         op == "MutableDenseHashTableV2";
}

// A table's keys and values, exported by an op of the saver's scope `s`.
absl::StatusOr<SavedItem> TableItem(const Scope& scope, const Scope& s, const Output& table) {
  const NodeDef& node = scope.GetNodeDef(table.op());
  if (!IsSavedTable(node.op())) {
    return absl::InvalidArgumentError(absl::StrCat(
        "Saver: '", node.name(), "' is a ", node.op(),
        ", not a MutableHashTableV2, MutableHashTableOfTensorsV2 or MutableDenseHashTableV2 "
        "(other tables are not saved)"));
  }
  SavedItem item;
  item.table = true;
  item.name = node.name();
  item.device = node.device();
  item.keys = {node.name() + "-keys", node.name() + "-values"};
  item.specs = {"", ""};
  const DataType key = node.attr().at("key_dtype").type();
  const DataType value = node.attr().at("value_dtype").type();
  item.dtypes = {key, value};
  Operation out = s.WithDevice(node.device())
                      .WithOpName("LookupTableExportV2")
                      .AddOp("LookupTableExportV2", {{table}},
                             {{"Tkeys", MakeAttrValue(key)}, {"Tvalues", MakeAttrValue(value)}});
  item.tensors = {out.output(0), out.output(1)};
  item.restore = [table](const Scope& on, const std::vector<Output>& values) {
    return on.WithOpName("LookupTableImportV2")
        .AddOp("LookupTableImportV2", {{table}, {values[0]}, {values[1]}});
  };
  return item;
}

// A SaveV2 named `name` of `items` to `prefix` (a string tensor), its
// tensors starting at multiples of `alignment` in the data file.
Operation AddSave(const Scope& s, const std::string& name, Output prefix,
                  const std::vector<const SavedItem*>& items, int64_t alignment) {
  std::vector<std::string> names, specs;
  std::vector<Output> values;
  for (const SavedItem* item : items) {
    names.insert(names.end(), item->keys.begin(), item->keys.end());
    specs.insert(specs.end(), item->specs.begin(), item->specs.end());
    values.insert(values.end(), item->tensors.begin(), item->tensors.end());
  }
  Output tensor_names = ops::Const(s.WithOpName(name + "/tensor_names"), Strings(names));
  Output slices = ops::Const(s.WithOpName(name + "/shape_and_slices"), Strings(specs));
  // An internal attr (TensorFlow ignores attrs named "_..."), set only when
  // asked for, so a default Saver's graph stays TensorFlow's.
  std::map<std::string, AttrValue> attrs;
  if (alignment > 1) attrs[kTensorAlignmentAttr].set_i(alignment);
  return s.WithOpName(name).AddOp("SaveV2", {{prefix}, {tensor_names}, {slices}, values}, attrs);
}

}  // namespace

// The saver's state and its work, behind the header's interface.
class Saver::Impl {
 public:
  Impl(SaverDef def, Env* env, const SaverOptions& options);
  // Waits for an in-flight SaveAsync (its error, if any, is logged).
  ~Impl();

  absl::StatusOr<std::string> Save(Session* session, const std::string& save_path,
                                   const SaveOptions& options);
  absl::StatusOr<std::string> SaveAsync(Session* session, const std::string& save_path,
                                        const SaveOptions& options);
  absl::StatusOr<std::string> Wait();
  absl::Status Restore(Session* session, const std::string& save_path);
  // The checkpoint prefix a save to `save_path` writes, or Save's
  // InvalidArgument for bad arguments.
  absl::StatusOr<std::string> CheckpointFile(const std::string& save_path,
                                             const SaveOptions& options) const;
  // Runs the save ops (with `feeds` besides the filename) and commits.
  absl::StatusOr<std::string> WriteAndCommit(Session* session, const std::string& save_path,
                                             const std::string& checkpoint_file,
                                             const SaveOptions& options,
                                             std::vector<std::pair<std::string, Tensor>> feeds);
  // After a failed restore: each missing, mismatched and unused tensor (as
  // inspect_checkpoint --diff), or "" when that cannot be said.
  std::string DescribeDifferences(const std::string& save_path) const;

  SaverDef def_;
  Env* env_;  // Not owned.
  const bool pad_step_number_;
  // The directory's protocol around each save: marks, the state file,
  // retention, leases, sweeps. A SaveAsync's background thread uses it.
  CheckpointManager manager_;
  // The variables a restore assigns (empty for FromSaverDef).
  std::vector<ExpectedTensor> expected_;
  // The tensors SaveAsync fetches and feeds: what the save ops read of each
  // variable ("w:0", or "r/Read/ReadVariableOp:0"; empty for FromSaverDef).
  std::vector<std::string> snapshot_names_;
  // The running SaveAsync (joinable while one is in flight) and the result
  // of the last one, until reported. Touched only by the caller's thread;
  // the background thread sets async_result_ before it ends.
  std::thread in_flight_;
  absl::StatusOr<std::string> async_result_ = std::string();
};

Saver::Impl::Impl(SaverDef def, Env* env, const SaverOptions& options)
    : def_(std::move(def)),
      env_(env),
      pad_step_number_(options.pad_step_number),
      manager_({.env = env,
                .max_to_keep = def_.max_to_keep(),
                .keep_checkpoint_every_n_hours = def_.keep_checkpoint_every_n_hours(),
                .delete_stale_temp_files_after = options.delete_stale_temp_files_after,
                .lease_checkpoints = options.lease_checkpoints,
                .save_relative_paths = options.save_relative_paths}) {}

namespace {

// The mutable tables a Saver made by Create saves: `options.tables`, or
// with neither tables nor var_list given every one of the graph's.
absl::StatusOr<std::vector<Output>> TablesToSave(const Scope& scope, const SaverOptions& options) {
  std::vector<Output> tables = options.tables;
  if (tables.empty() && options.var_list.empty()) {
    MG_ASSIGN_OR_RETURN(GraphDef graph, scope.ToGraphDef());
    for (const NodeDef& n : graph.node()) {
      if (IsSavedTable(n.op())) {
        MG_ASSIGN_OR_RETURN(Operation op, scope.FindOp(n.name()));
        tables.push_back(op.output(0));
      }
    }
  }
  return tables;
}

// What is saved of `vars` and `tables`, sorted by name as TensorFlow's
// Saver sorts them, so data files are in key order.
absl::StatusOr<std::vector<SavedItem>> SavedItems(const Scope& scope, const Scope& s,
                                                  const std::vector<Variable>& vars,
                                                  const std::vector<Output>& tables) {
  std::vector<SavedItem> items;
  for (const Variable& v : vars) items.push_back(VariableItem(scope, v));
  for (const Output& t : tables) {
    MG_ASSIGN_OR_RETURN(SavedItem item, TableItem(scope, s, t));
    items.push_back(std::move(item));
  }
  std::sort(items.begin(), items.end(),
            [](const SavedItem& a, const SavedItem& b) { return a.name < b.name; });
  return items;
}

// A device and the items saved or restored there.
using Shard = std::pair<std::string, std::vector<const SavedItem*>>;

// The save shards: round robin over num_shards, or one per device the
// items are on; none for an unsharded save.
std::vector<Shard> SaveShards(const std::vector<SavedItem>& items, const SaverOptions& options) {
  std::vector<Shard> shards;
  if (options.shard_by_device) {
    std::map<std::string, std::vector<const SavedItem*>> by_device;
    for (const SavedItem& item : items) by_device[item.device].push_back(&item);
    shards.assign(by_device.begin(), by_device.end());
  } else {
    for (int i = 0; i < options.num_shards; ++i) {
      shards.emplace_back();
      for (size_t j = i; j < items.size(); j += options.num_shards) {
        shards.back().second.push_back(&items[j]);
      }
    }
  }
  return shards;
}

// The save ops, as TensorFlow's Saver names them; returns the tensor whose
// value is the prefix saved.
Output AddSaveOps(const Scope& s, Output filename, const std::vector<Shard>& shards,
                  const std::vector<const SavedItem*>& all, int64_t alignment) {
  if (shards.empty()) {
    Operation save = AddSave(s, "SaveV2", filename, all, alignment);
    return ops::Identity(s.WithOpName("control_dependency").WithControlDependencies({save}),
                         filename);
  }
  // Shard i of n saves to "<prefix>_temp_<random>/part-0000i-of-0000n";
  // the parts are merged into <prefix>.
  static thread_local std::mt19937_64 rng(std::random_device{}());
  Output suffix_const =
      ops::Const(s.WithOpName("StringJoin/inputs_1"),
                 Tensor::Scalar<std::string>(absl::StrCat("_temp_", absl::Hex(rng()), "/part")));
  Output temp =
      s.WithOpName("StringJoin").AddOp("StringJoin", {{filename, suffix_const}}).output(0);
  Output n = ops::Const(s.WithOpName("num_shards"), static_cast<int32_t>(shards.size()));
  std::vector<Output> parts;
  for (size_t i = 0; i < shards.size(); ++i) {
    const Scope on = s.WithDevice(shards[i].first);
    const std::string suffix = i == 0 ? "" : absl::StrCat("_", i);
    Output shard_index =
        ops::Const(on.WithOpName("ShardedFilename" + suffix + "/shard"), static_cast<int32_t>(i));
    Output part = on.WithOpName("ShardedFilename" + suffix)
                      .AddOp("ShardedFilename", {{temp}, {shard_index}, {n}})
                      .output(0);
    Operation save = AddSave(on, "SaveV2" + suffix, part, shards[i].second, alignment);
    parts.push_back(ops::Identity(
        on.WithOpName("control_dependency" + suffix).WithControlDependencies({save}), part));
  }
  Output prefixes = ops::Pack(s.WithOpName("MergeV2Checkpoints/checkpoint_prefixes"), parts);
  Operation merge =
      s.WithOpName("MergeV2Checkpoints").AddOp("MergeV2Checkpoints", {{prefixes}, {filename}});
  std::vector<Operation> deps = {merge};
  for (const Output& p : parts) deps.push_back(p.op());
  return ops::Identity(s.WithOpName("Identity").WithControlDependencies(deps), filename);
}

// The restore ops: a RestoreV2 per shard of `restores` on its device, and
// the assignments of what it read; returns the op that runs them all.
Operation AddRestoreOps(const Scope& s, Output filename, const std::vector<Shard>& restores) {
  std::vector<Operation> assigns;
  for (size_t r = 0; r < restores.size(); ++r) {
    const Scope on = s.WithDevice(restores[r].first);
    const std::string suffix = r == 0 ? "" : absl::StrCat("_", r);
    std::vector<std::string> names, specs;
    AttrValue dtypes_attr;
    for (const SavedItem* item : restores[r].second) {
      names.insert(names.end(), item->keys.begin(), item->keys.end());
      specs.insert(specs.end(), item->specs.begin(), item->specs.end());
      for (DataType dt : item->dtypes) dtypes_attr.mutable_list()->add_type(dt);
    }
    Operation restore =
        on.WithOpName("RestoreV2" + suffix)
            .AddOp("RestoreV2",
                   {{filename},
                    {ops::Const(on.WithOpName("RestoreV2" + suffix + "/tensor_names"),
                                Strings(names))},
                    {ops::Const(on.WithOpName("RestoreV2" + suffix + "/shape_and_slices"),
                                Strings(specs))}},
                   {{"dtypes", dtypes_attr}});
    int at = 0;
    for (const SavedItem* item : restores[r].second) {
      std::vector<Output> values;
      for (size_t k = 0; k < item->keys.size(); ++k) values.push_back(restore.output(at++));
      assigns.push_back(item->restore(on, values));
    }
  }
  return ops::Group(s.WithOpName("restore_all"), assigns);
}

// What a restore needs, for the error that lists every difference: each
// table's keys, each variable (a partitioned one's parts as one tensor of
// the full shape) with its dtype and, when known, shape.
std::vector<ExpectedTensor> ExpectedTensors(const Scope& scope,
                                            const std::vector<SavedItem>& items,
                                            const std::vector<Variable>& vars) {
  std::vector<ExpectedTensor> expected;
  for (const SavedItem& item : items) {
    if (!item.table) continue;  // variables: below
    for (size_t k = 0; k < item.keys.size(); ++k) {
      ExpectedTensor& e = expected.emplace_back();
      e.key = item.keys[k];
      e.dtype = item.dtypes[k];
    }
  }
  absl::flat_hash_set<std::string> partitioned;
  for (const Variable& v : vars) {
    if (const std::optional<SaveSliceInfo>& part = v.save_slice_info(); part.has_value()) {
      if (!partitioned.insert(part->full_name).second) continue;
      ExpectedTensor& e = expected.emplace_back();
      e.key = part->full_name;
      e.dtype = v.dtype();
      e.shape = TensorShape(part->full_shape);
      continue;
    }
    ExpectedTensor& e = expected.emplace_back();
    e.key = v.name();
    e.dtype = v.dtype();
    const NodeDef& node = scope.GetNodeDef(v.ref().op());
    if (auto it = node.attr().find("shape"); it != node.attr().end()) {
      absl::StatusOr<TensorShape> shape = TensorShape::FromProto(it->second.shape());
      if (shape.ok()) e.shape = *std::move(shape);  // else unknown: any shape
    }
  }
  return expected;
}

}  // namespace

absl::StatusOr<std::unique_ptr<Saver>> Saver::Create(const Scope& scope, SaverOptions options,
                                                     Env* env) {
  const std::vector<Variable> vars =
      options.var_list.empty() ? GlobalVariables(scope) : options.var_list;
  MG_ASSIGN_OR_RETURN(const std::vector<Output> tables, TablesToSave(scope, options));
  if (vars.empty() && tables.empty() && !options.allow_empty) {
    return absl::InvalidArgumentError("No variables to save");
  }
  const Scope s = scope.NewSubScope(options.name);
  MG_ASSIGN_OR_RETURN(const std::vector<SavedItem> items, SavedItems(scope, s, vars, tables));
  Output filename = ops::Const(s.WithOpName("Const"), Tensor::Scalar<std::string>("model"));
  const std::vector<Shard> shards = SaveShards(items, options);
  std::vector<const SavedItem*> all;
  for (const SavedItem& item : items) all.push_back(&item);
  SaverDef def;
  def.set_filename_tensor_name(filename.name() + ":0");
  def.set_max_to_keep(options.max_to_keep);
  def.set_keep_checkpoint_every_n_hours(options.keep_checkpoint_every_n_hours);
  def.set_version(SaverDef::V2);
  def.set_sharded(!shards.empty());
  const int64_t alignment = options.align_tensors ? int64_t{kTensorAlignment} : 1;
  def.set_save_tensor_name(AddSaveOps(s, filename, shards, all, alignment).name() + ":0");
  // Restore: one RestoreV2 of everything, or with shard_by_device one per
  // device, on it.
  const std::vector<Shard> restores =
      options.shard_by_device ? shards : std::vector<Shard>{{"", all}};
  def.set_restore_op_name(AddRestoreOps(s, filename, restores).name());
  MG_RETURN_IF_ERROR(scope.status());
  scope.SetSaverDef(def);
  auto saver = std::unique_ptr<Saver>(new Saver(std::make_unique<Impl>(def, env, options)));
  for (const SavedItem& item : items) {
    for (const Output& t : item.tensors) saver->impl_->snapshot_names_.push_back(t.tensor_name());
  }
  saver->impl_->expected_ = ExpectedTensors(scope, items, vars);
  return saver;
}

std::unique_ptr<Saver> Saver::FromSaverDef(const SaverDef& def, Env* env,
                                           const SaverOptions& options) {
  return std::unique_ptr<Saver>(new Saver(std::make_unique<Impl>(def, env, options)));
}

Saver::Impl::~Impl() {
  if (absl::StatusOr<std::string> last = Wait(); !last.ok()) {
    MG_LOG(ERROR) << "Asynchronous save failed: " << last.status();
  }
}

absl::StatusOr<std::string> Saver::Impl::CheckpointFile(const std::string& save_path,
                                                        const SaveOptions& options) const {
  if (absl::StrContains(options.latest_filename, "/")) {
    return absl::InvalidArgumentError("'latest_filename' must not contain path components");
  }
  std::string checkpoint_file = save_path;
  if (options.global_step) {
    checkpoint_file = pad_step_number_ ? absl::StrFormat("%s-%08d", save_path, *options.global_step)
                                       : absl::StrFormat("%s-%d", save_path, *options.global_step);
  } else if (std::string(Basename(save_path)) == options.latest_filename && !def_.sharded()) {
    return absl::InvalidArgumentError(absl::StrCat("'latest_filename' collides with 'save_path': '",
                                                   options.latest_filename, "' and '", save_path,
                                                   "'"));
  }
  const std::string save_dir(Dirname(save_path));
  if (!save_dir.empty() && !env_->IsDirectory(save_dir).value_or(false)) {
    return absl::InvalidArgumentError(
        absl::StrCat("Parent directory of ", save_path, " doesn't exist, can't save."));
  }
  if (options.write_state) {
    // A directory where the state file goes would refuse it only after the
    // checkpoint was written, leaving one no state file names.
    const std::string state = JoinPath(save_dir.empty() ? "." : save_dir, options.latest_filename);
    if (env_->IsDirectory(state).value_or(false)) {
      return absl::FailedPreconditionError(absl::StrCat(
          "the checkpoint state file ", state, " is a directory; nothing was saved"));
    }
  }
  return checkpoint_file;
}

absl::StatusOr<std::string> Saver::Impl::Save(Session* session, const std::string& save_path,
                                              const SaveOptions& options) {
  MG_RETURN_IF_ERROR(Wait().status());
  MG_ASSIGN_OR_RETURN(std::string checkpoint_file, CheckpointFile(save_path, options));
  return WriteAndCommit(session, save_path, checkpoint_file, options, {});
}

absl::StatusOr<std::string> Saver::Impl::SaveAsync(Session* session, const std::string& save_path,
                                                   const SaveOptions& options) {
  if (snapshot_names_.empty()) {
    return absl::FailedPreconditionError(
        "SaveAsync needs to know the saved variables, and this Saver was made from a SaverDef "
        "(Saver::FromSaverDef); use Save");
  }
  MG_RETURN_IF_ERROR(Wait().status());
  MG_ASSIGN_OR_RETURN(std::string checkpoint_file, CheckpointFile(save_path, options));
  std::vector<Tensor> values;
  MG_RETURN_IF_ERROR(session->Run({}, snapshot_names_, {}, &values));
  std::vector<std::pair<std::string, Tensor>> feeds;
  feeds.reserve(values.size());
  for (size_t i = 0; i < values.size(); ++i) {
    feeds.emplace_back(snapshot_names_[i], std::move(values[i]));
  }
  // The caller's meta graph may be gone before the background save uses it.
  std::shared_ptr<const MetaGraphDef> meta;
  if (options.meta_graph != nullptr) meta = std::make_shared<MetaGraphDef>(*options.meta_graph);
  in_flight_ = std::thread([this, session, save_path, checkpoint_file, options, meta,
                            feeds = std::move(feeds)]() mutable {
    SaveOptions with_meta = options;
    with_meta.meta_graph = meta.get();
    async_result_ =
        WriteAndCommit(session, save_path, checkpoint_file, with_meta, std::move(feeds));
  });
  return checkpoint_file;
}

absl::StatusOr<std::string> Saver::Impl::Wait() {
  if (in_flight_.joinable()) in_flight_.join();
  return std::exchange(async_result_, std::string());
}

absl::StatusOr<std::string> Saver::Impl::WriteAndCommit(
    Session* session, const std::string& save_path, const std::string& checkpoint_file,
    const SaveOptions& options, std::vector<std::pair<std::string, Tensor>> feeds) {
  CheckpointManager::Save save{.save_path = save_path,
                               .checkpoint = checkpoint_file,
                               .latest_filename = options.latest_filename,
                               .write_state = options.write_state};
  MG_RETURN_IF_ERROR(manager_.BeginSave(save));
  feeds.emplace_back(def_.filename_tensor_name(), Tensor::Scalar<std::string>(checkpoint_file));
  std::vector<Tensor> out;
  if (absl::Status s = session->Run(feeds, {def_.save_tensor_name()}, {}, &out); !s.ok()) {
    manager_.AbortSave(save);
    return s;
  }
  feeds.clear();  // the snapshot's buffers go back to the variables
  // `out` is the filename fed, once the files are written (the save ops'
  // save tensor, TensorFlow's and ours, depends on them).
  MG_RETURN_IF_ERROR(manager_.CommitSave(save));
  if (options.meta_graph != nullptr) {
    MG_RETURN_IF_ERROR(AtomicWriteFile(env_, MetaGraphFilename(checkpoint_file),
                                       options.meta_graph->SerializeAsString()));
  }
  return checkpoint_file;
}

absl::Status Saver::Impl::Restore(Session* session, const std::string& save_path) {
  if (save_path.empty()) {
    return absl::InvalidArgumentError("Can't load save_path when it is None.");
  }
  if (!CheckpointExists(env_, save_path)) {
    return absl::InvalidArgumentError(
        absl::StrCat("The passed save_path is not a valid checkpoint: ", save_path));
  }
  manager_.SweepBeforeRestore(save_path);
  MG_LOG(INFO) << "Restoring parameters from " << save_path;
  std::vector<Tensor> out;
  absl::Status s =
      session->Run({{def_.filename_tensor_name(), Tensor::Scalar<std::string>(save_path)}}, {},
                   {def_.restore_op_name()}, &out);
  if (!absl::IsNotFound(s) && !absl::IsInvalidArgument(s)) return s;
  // TensorFlow's text names the first problem; every other one follows.
  const std::string all = DescribeDifferences(save_path);
  if (absl::IsNotFound(s)) {
    return absl::NotFoundError(absl::StrCat(
        "Restoring from checkpoint failed. This is most likely due to a Variable name or other "
        "graph key that is missing from the checkpoint. Please ensure that you have not altered "
        "the graph expected based on the checkpoint. Original error:\n\n",
        s.message(), all));
  }
  return absl::InvalidArgumentError(absl::StrCat(
      "Restoring from checkpoint failed. This is most likely due to a mismatch between the "
      "current graph and the graph from the checkpoint. Please ensure that you have not "
      "altered the graph expected based on the checkpoint. Original error:\n\n",
      s.message(), all));
}

std::string Saver::Impl::DescribeDifferences(const std::string& save_path) const {
  if (expected_.empty()) return "";  // a Saver from a SaverDef: no variables known
  absl::StatusOr<std::unique_ptr<BundleReader>> reader = BundleReader::Open(env_, save_path);
  if (!reader.ok()) return "";
  const CheckpointDiff diff = DiffCheckpoint(**reader, expected_);
  if (diff.compatible()) return "";
  return absl::StrCat("\n\nEvery difference between this Saver's variables and ", save_path, ":\n",
                      diff.ToString());
}

Saver::Saver(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

Saver::~Saver() = default;

const SaverDef& Saver::saver_def() const { return impl_->def_; }

Env* Saver::env() const { return impl_->env_; }

absl::StatusOr<std::string> Saver::Save(Session* session, const std::string& save_path,
                                        const SaveOptions& options) {
  return impl_->Save(session, save_path, options);
}

absl::StatusOr<std::string> Saver::SaveAsync(Session* session, const std::string& save_path,
                                             const SaveOptions& options) {
  return impl_->SaveAsync(session, save_path, options);
}

absl::StatusOr<std::string> Saver::Wait() { return impl_->Wait(); }

absl::Status Saver::Restore(Session* session, const std::string& save_path) {
  return impl_->Restore(session, save_path);
}

std::vector<std::string> Saver::last_checkpoints() const { return impl_->manager_.Tracked(); }

void Saver::RecoverLastCheckpoints(const std::vector<std::string>& paths) {
  impl_->manager_.Adopt(paths);
}

void Saver::SetLastCheckpointsWithTime(std::vector<std::pair<std::string, double>> checkpoints) {
  impl_->manager_.SetTracked(std::move(checkpoints));
}

}  // namespace minigraph
