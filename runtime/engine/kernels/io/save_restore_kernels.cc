// SaveV2, RestoreV2 and MergeV2Checkpoints over checkpoint/ (the one edge
// from runtime to checkpoint), and the V1-era Save, SaveSlices, Restore and
// RestoreSlice. RestoreV2 reads its tensors in parallel on the intra-op
// pool, largest first, each straight into its output buffer.
#include <algorithm>
#include <atomic>
#include <map>
#include <memory>
#include <optional>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "absl/synchronization/blocking_counter.h"
#include "absl/synchronization/mutex.h"
#include "checkpoint/bundle_merge.h"
#include "checkpoint/bundle_reader.h"
#include "checkpoint/bundle_writer.h"
#include "checkpoint/proto/tensor_bundle.pb.h"
#include "checkpoint/saved_slices.h"
#include "checkpoint/v1_writer.h"
#include "core/tensor_arena.h"
#include "core/tensor_types.h"
#include "runtime/engine/kernels/internal/eigen_util.h"
#include "runtime/engine/kernels/internal/kernel_families.h"
#include "runtime/graph/node_def_util.h"
#include "runtime/graph/ops/standard_ops.h"

namespace minigraph {
namespace kernels_internal {
namespace {

absl::StatusOr<std::string> ScalarString(const Tensor& t, absl::string_view what) {
  if (t.NumElements() != 1) {
    return absl::InvalidArgumentError(
        absl::StrCat(what, " must be a single string, got shape ", t.shape().DebugString()));
  }
  return t.flat<std::string>()(0);
}

using SliceSpec = ShapeAndSlice;

// The entry's full shape and slice, or nullopt for an empty entry (the
// whole tensor, whatever its shape); errors name the tensor.
absl::StatusOr<std::optional<SliceSpec>> ParseSliceSpec(absl::string_view name,
                                                        absl::string_view spec) {
  absl::StatusOr<std::optional<ShapeAndSlice>> parsed = ParseShapeAndSlice(spec);
  if (!parsed.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("tensor \"", name, "\": ", parsed.status().message()));
  }
  return *std::move(parsed);
}

// Checks the counts and parses every shape_and_slices entry.
absl::StatusOr<std::vector<std::optional<SliceSpec>>> CheckNames(const Tensor& names,
                                                                 const Tensor& slices, int64_t n) {
  if (names.NumElements() != n || slices.NumElements() != n) {
    return absl::InvalidArgumentError(absl::StrCat(
        "expected ", n, " tensor names and shape_and_slices, got ", names.NumElements(), " and ",
        slices.NumElements()));
  }
  std::vector<std::optional<SliceSpec>> specs(n);
  for (int64_t i = 0; i < n; ++i) {
    MG_ASSIGN_OR_RETURN(
        specs[i], ParseSliceSpec(names.flat<std::string>()(i), slices.flat<std::string>()(i)));
  }
  return specs;
}

class SaveV2Op : public OpKernel {
 public:
  using OpKernel::OpKernel;
  absl::Status Init(OpKernelConstruction* c) {
    int64_t alignment = 1;
    if (GetNodeAttr(c->def(), kTensorAlignmentAttr, &alignment).ok()) {
      if (alignment < 1 || (alignment & (alignment - 1)) != 0) {
        return absl::InvalidArgumentError(absl::StrCat(
            "SaveV2 ", c->def().name(), ": ", kTensorAlignmentAttr, " = ", alignment,
            " is not a power of two"));
      }
      options_.alignment = static_cast<size_t>(alignment);
    }
    return absl::OkStatus();
  }

  absl::Status Compute(OpKernelContext* ctx) const override {
    MG_ASSIGN_OR_RETURN(std::string prefix, ScalarString(ctx->input(0), "prefix"));
    const Tensor& names = ctx->input(1);
    const int64_t n = ctx->num_inputs() - 3;
    MG_ASSIGN_OR_RETURN(std::vector<std::optional<SliceSpec>> specs,
                        CheckNames(names, ctx->input(2), n));
    for (int64_t i = 0; i < n; ++i) {
      const Tensor& t = ctx->input(3 + i);
      if (specs[i].has_value() && specs[i]->slice.SliceShape(specs[i]->full) != t.shape()) {
        return absl::InvalidArgumentError(absl::StrCat(
            "tensor \"", names.flat<std::string>()(i), "\" has shape ", t.shape().DebugString(),
            " but its shape_and_slices \"", ctx->input(2).flat<std::string>()(i), "\" says ",
            specs[i]->slice.SliceShape(specs[i]->full).DebugString()));
      }
    }
    MG_ASSIGN_OR_RETURN(auto writer, BundleWriter::Create(ctx->env(), prefix, options_));
    for (int64_t i = 0; i < n; ++i) {
      const std::string& key = names.flat<std::string>()(i);
      if (specs[i].has_value()) {
        MG_RETURN_IF_ERROR(
            writer->AddSlice(key, specs[i]->full, specs[i]->slice, ctx->input(3 + i)));
      } else {
        MG_RETURN_IF_ERROR(writer->Add(key, ctx->input(3 + i)));
      }
    }
    return writer->Finish();
  }

 private:
  BundleWriterOptions options_;
};

// The checkpoints a step's restore ops have opened, one reader per prefix:
// a graph that restores each variable with an op of its own (TensorFlow
// 1.0's Saver wrote such graphs) reads and checks each index once, not once
// per variable. It lives in the step's resources, so files are let go when
// the step ends.
class StepCheckpointReaders : public Resource {
 public:
  std::string TypeName() const override { return "StepCheckpointReaders"; }
  absl::StatusOr<std::shared_ptr<BundleReader>> Get(Env* env, const std::string& prefix) {
    absl::MutexLock l(&mu_);
    auto it = readers_.find(prefix);
    if (it != readers_.end()) return it->second;
    MG_ASSIGN_OR_RETURN(std::unique_ptr<BundleReader> reader, BundleReader::Open(env, prefix));
    std::shared_ptr<BundleReader> shared = std::move(reader);
    readers_.emplace(prefix, shared);
    return shared;
  }

 private:
  absl::Mutex mu_;
  std::map<std::string, std::shared_ptr<BundleReader>> readers_ ABSL_GUARDED_BY(mu_);
};

// The reader of `prefix` for this step (opened on its first use).
absl::StatusOr<std::shared_ptr<BundleReader>> StepReader(OpKernelContext* ctx,
                                                        const std::string& prefix) {
  if (ctx->step_resources() == nullptr) {
    MG_ASSIGN_OR_RETURN(std::unique_ptr<BundleReader> reader,
                        BundleReader::Open(ctx->env(), prefix));
    return std::shared_ptr<BundleReader>(std::move(reader));
  }
  MG_ASSIGN_OR_RETURN(std::shared_ptr<Resource> r,
                      ctx->step_resources()->LookupOrCreateResource(
                          "_checkpoints", "readers",
                          [] { return std::make_unique<StepCheckpointReaders>(); }));
  return static_cast<StepCheckpointReaders*>(r.get())->Get(ctx->env(), prefix);
}

// RestoreV2 reads tensors below this size in runs of neighbours in the
// data file, each run up to kRunBytes in one read.
constexpr int64_t kSmallTensorBytes = 64 << 10;
constexpr int64_t kRunBytes = 1 << 20;

// Where RestoreV2's requested tensors are: each one's shape; for a whole
// tensor its bytes, offset and shard in the data files (a string's shard
// is its own, -1 - i); a part of a partitioned variable (bytes -1) is in
// `partial`.
struct RestoreLayout {
  std::vector<TensorShape> shapes;
  std::vector<int64_t> partial;
  std::vector<int64_t> bytes, offset, shard;
  std::vector<size_t> tensor_bytes;
  // Read where they lie in the mapped file (BundleReader::ClaimInPlace):
  // no output is allocated for them.
  std::vector<bool> in_place;
  size_t arena_bytes = 0;  // of the tensors that go in one arena
};

// A unit of work for RestoreV2's pool: one large tensor, or small ones
// that lie back to back in a data file (one read for the run).
struct ReadUnit {
  int64_t bytes;
  std::vector<int64_t> items;
};

// Each large tensor alone and the small ones in runs of neighbours in the
// data file, largest units first.
std::vector<ReadUnit> ReadUnits(const RestoreLayout& l) {
  const int64_t n = static_cast<int64_t>(l.bytes.size());
  std::vector<int64_t> by_offset;
  for (int64_t i = 0; i < n; ++i) {
    if (l.bytes[i] >= 0 && l.bytes[i] < kSmallTensorBytes) by_offset.push_back(i);
  }
  std::sort(by_offset.begin(), by_offset.end(), [&](int64_t a, int64_t b) {
    return std::make_pair(l.shard[a], l.offset[a]) < std::make_pair(l.shard[b], l.offset[b]);
  });
  std::vector<ReadUnit> units;
  for (int64_t i = 0; i < n; ++i) {
    if (l.bytes[i] >= kSmallTensorBytes) units.push_back({l.bytes[i], {i}});
  }
  const size_t large = units.size();
  for (int64_t i : by_offset) {
    if (units.size() > large) {
      ReadUnit& run = units.back();
      const int64_t j = run.items.back();
      if (l.shard[j] == l.shard[i] && l.offset[j] + l.bytes[j] == l.offset[i] &&
          run.bytes + l.bytes[i] <= kRunBytes) {
        run.bytes += l.bytes[i];
        run.items.push_back(i);
        continue;
      }
    }
    units.push_back({l.bytes[i], {i}});
  }
  std::stable_sort(units.begin(), units.end(),
                   [](const ReadUnit& a, const ReadUnit& b) { return a.bytes > b.bytes; });
  return units;
}

// Restores of at least this many bytes fault their fresh outputs in on a
// thread of their own (Prefaulter); smaller ones would spend more on the
// thread than they save.
constexpr size_t kPrefaultBytes = size_t{16} << 20;

// The outputs' buffers in the order ReadInParallel fills them.
std::vector<Prefaulter::Range> PrefaultRanges(const std::vector<ReadUnit>& units,
                                              const std::vector<Tensor*>& outs) {
  std::vector<Prefaulter::Range> ranges;
  for (const ReadUnit& u : units) {
    for (int64_t i : u.items) {
      if (outs[i] == nullptr || outs[i]->dtype() == DT_STRING) continue;
      ranges.push_back({static_cast<char*>(outs[i]->raw_data()), outs[i]->TotalBytes()});
    }
  }
  return ranges;
}

// Reads every unit into `outs` on the device's pool and the calling thread,
// each tensor's outcome into (*status)[i]; a tensor claimed in place (no
// output allocated: outs[i] null) into (*in_place)[i].
void ReadInParallel(const Eigen::ThreadPoolDevice& d, const BundleReader& reader,
                    const Tensor& names, const std::vector<ReadUnit>& units,
                    const std::vector<Tensor*>& outs, std::vector<Tensor>* in_place,
                    std::vector<absl::Status>* status) {
  const int64_t num_units = static_cast<int64_t>(units.size());
  std::atomic<int64_t> next{0};
  auto work = [&] {
    std::vector<absl::string_view> keys;
    std::vector<Tensor*> dsts;
    std::vector<int64_t> copied;
    std::vector<absl::Status> got;
    for (int64_t u = next.fetch_add(1); u < num_units; u = next.fetch_add(1)) {
      keys.clear();
      dsts.clear();
      copied.clear();
      for (int64_t i : units[u].items) {
        const std::string& key = names.data<std::string>()[i];
        if (outs[i] == nullptr) {  // claimed in place
          absl::StatusOr<Tensor> t = reader.ReadInPlace(key);
          (*status)[i] = t.status();
          if (t.ok()) (*in_place)[i] = *std::move(t);
          continue;
        }
        keys.push_back(key);
        dsts.push_back(outs[i]);
        copied.push_back(i);
      }
      got.assign(keys.size(), absl::OkStatus());
      reader.ReadRunInto(keys, dsts, absl::MakeSpan(got));
      for (size_t k = 0; k < copied.size(); ++k) (*status)[copied[k]] = std::move(got[k]);
    }
  };
  const int helpers = static_cast<int>(std::min<int64_t>(d.numThreads(), num_units) - 1);
  absl::BlockingCounter done(std::max(helpers, 0));
  for (int h = 0; h < helpers; ++h) {
    d.enqueueNoNotification([&] {
      work();
      done.DecrementCount();
    });
  }
  work();
  done.Wait();
}

class RestoreV2Op : public OpKernel {
 public:
  using OpKernel::OpKernel;
  absl::Status Init(OpKernelConstruction* c) { return c->GetAttr("dtypes", &dtypes_); }

  absl::Status Compute(OpKernelContext* ctx) const override {
    MG_ASSIGN_OR_RETURN(std::string prefix, ScalarString(ctx->input(0), "prefix"));
    const Tensor& names = ctx->input(1);
    const int64_t n = static_cast<int64_t>(dtypes_.size());
    MG_ASSIGN_OR_RETURN(std::vector<std::optional<SliceSpec>> specs,
                        CheckNames(names, ctx->input(2), n));
    MG_ASSIGN_OR_RETURN(std::shared_ptr<BundleReader> reader, StepReader(ctx, prefix));
    // Check every key and dtype and allocate every output first, then read.
    MG_ASSIGN_OR_RETURN(const RestoreLayout layout, Layout(*reader, names, specs, prefix));
    std::vector<Tensor> in_arena;
    std::vector<Tensor*> outs;
    MG_RETURN_IF_ERROR(AllocateOutputs(ctx, layout, &in_arena, &outs));
    const std::vector<ReadUnit> units = ReadUnits(layout);
    std::vector<absl::Status> status(n);
    std::vector<Tensor> in_place(n);
    {
      // A cold file read ahead front to back while tensors are copied out
      // largest first.
      std::vector<absl::string_view> keys;
      for (const ReadUnit& u : units) {
        for (int64_t i : u.items) keys.push_back(names.data<std::string>()[i]);
      }
      reader->ReadAhead(keys);
    }
    {
      // Fresh output memory faulted in ahead of the reads, in their order.
      Prefaulter prefault(PrefaultRanges(units, outs), kPrefaultBytes);
      ReadInParallel(ctx->eigen_device(), *reader, names, units, outs, &in_place, &status);
    }
    for (const absl::Status& s : status) MG_RETURN_IF_ERROR(s);
    for (int64_t i : layout.partial) {
      MG_ASSIGN_OR_RETURN(Tensor t,
                          reader->LookupSlice(names.flat<std::string>()(i), specs[i]->slice));
      ctx->set_output(static_cast<int>(i), std::move(t));
    }
    for (size_t i = 0; i < in_arena.size(); ++i) {
      if (in_arena[i].IsInitialized()) ctx->set_output(static_cast<int>(i), std::move(in_arena[i]));
    }
    for (int64_t i = 0; i < n; ++i) {
      if (in_place[i].IsInitialized()) ctx->set_output(static_cast<int>(i), std::move(in_place[i]));
    }
    return absl::OkStatus();
  }

 private:
  // The requested tensors' shapes, each whole one's place in the data files,
  // checked against the entries.
  absl::StatusOr<RestoreLayout> Layout(const BundleReader& reader, const Tensor& names,
                                       const std::vector<std::optional<SliceSpec>>& specs,
                                       const std::string& prefix) const {
    const int64_t n = static_cast<int64_t>(dtypes_.size());
    RestoreLayout l;
    l.shapes.resize(n);
    l.bytes.resize(n);
    l.offset.resize(n);
    l.shard.resize(n);
    l.tensor_bytes.resize(n);
    l.in_place.assign(n, false);
    for (int64_t i = 0; i < n; ++i) {
      const std::string& key = names.flat<std::string>()(i);
      MG_ASSIGN_OR_RETURN(const BundleEntryProto* entry, reader.GetEntry(key));
      const BundleEntryProto& e = *entry;
      if (e.dtype() != dtypes_[i]) {
        return absl::InvalidArgumentError(
            absl::StrCat("tensor_name = ", key, "; expected dtype ", DataTypeString(dtypes_[i]),
                         " does not equal original dtype ", DataTypeString(e.dtype()),
                         " in checkpoint ", prefix));
      }
      MG_ASSIGN_OR_RETURN(l.shapes[i], TensorShape::FromProto(e.shape()));
      if (specs[i].has_value() && specs[i]->full != l.shapes[i]) {
        return absl::InvalidArgumentError(absl::StrCat(
            "tensor_name = ", key, "; shape in shape_and_slice spec ", specs[i]->full.DebugString(),
            " does not match the shape stored in checkpoint: ", l.shapes[i].DebugString(),
            " (checkpoint ", prefix, ")"));
      }
      if (specs[i].has_value() && specs[i]->partial()) {
        // A part of a partitioned variable: assembled from the slices that
        // cover it, at the end; the whole tensors go the parallel way.
        l.partial.push_back(i);
        l.bytes[i] = -1;
        continue;
      }
      l.bytes[i] = e.size();
      l.offset[i] = static_cast<int64_t>(e.offset());
      // Strings are decoded, not copied: read one by one.
      l.shard[i] = e.dtype() == DT_STRING ? -1 - i : e.shard_id();
      l.tensor_bytes[i] =
          static_cast<size_t>(l.shapes[i].num_elements()) * DataTypeSize(dtypes_[i]);
      l.in_place[i] = reader.ClaimInPlace(key);
      if (!l.in_place[i] && InArena(dtypes_[i], l.tensor_bytes[i])) {
        l.arena_bytes += ArenaSize(l.tensor_bytes[i]);
      }
    }
    return l;
  }

  // The whole tensors' destinations: outputs, or tensors of one huge-page
  // buffer (TensorArena) for those below the huge-page threshold when there
  // are enough of them to fill it: from malloc, a fresh process's first
  // restore faults on every 4 KiB page of them. `*in_arena` holds those
  // until they are set as outputs.
  absl::Status AllocateOutputs(OpKernelContext* ctx, const RestoreLayout& l,
                               std::vector<Tensor>* in_arena, std::vector<Tensor*>* outs) const {
    const int64_t n = static_cast<int64_t>(dtypes_.size());
    TensorArena* arena =
        l.arena_bytes >= kHugeAllocationThreshold ? TensorArena::Create(l.arena_bytes) : nullptr;
    in_arena->resize(arena != nullptr ? n : 0);
    outs->assign(n, nullptr);
    absl::Status allocated;
    for (int64_t i = 0; i < n && allocated.ok(); ++i) {
      if (l.bytes[i] < 0 || l.in_place[i]) continue;  // partial, or no copy
      if (arena != nullptr && InArena(dtypes_[i], l.tensor_bytes[i])) {
        absl::StatusOr<Tensor> t = Tensor::Create(dtypes_[i], l.shapes[i], arena);
        allocated = t.status();
        if (t.ok()) (*in_arena)[i] = *std::move(t);
        (*outs)[i] = &(*in_arena)[i];
      } else {
        allocated = ctx->allocate_output(static_cast<int>(i), l.shapes[i], &(*outs)[i]);
      }
    }
    if (arena != nullptr) arena->Release();
    return allocated;
  }

  // Numeric tensors below the huge-page threshold; strings own their bytes.
  static bool InArena(DataType dtype, size_t bytes) {
    return dtype != DT_STRING && bytes > 0 && bytes < kHugeAllocationThreshold;
  }
  static size_t ArenaSize(size_t bytes) {
    return (bytes + kTensorAlignment - 1) & ~(kTensorAlignment - 1);
  }

  std::vector<DataType> dtypes_;
};

// Restore and RestoreSlice: one tensor (or a slice of it) per op, as the
// graphs of tf.train.Saver(write_version=V1) restore. They read V1
// checkpoints (a file, or the pattern of a sharded one's files) and V2 ones.
// Messages are TensorFlow's (save_restore_tensor.cc).
class RestoreSliceOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  absl::Status Init(OpKernelConstruction* c) { return c->GetAttr("dt", &dtype_); }

  absl::Status Compute(OpKernelContext* ctx) const override {
    MG_ASSIGN_OR_RETURN(std::string pattern, ScalarString(ctx->input(0), "file_pattern"));
    MG_ASSIGN_OR_RETURN(std::string name, ScalarString(ctx->input(1), "tensor_name"));
    std::string spec;
    if (ctx->num_inputs() > 2) {
      MG_ASSIGN_OR_RETURN(spec, ScalarString(ctx->input(2), "shape_and_slice"));
    }
    MG_ASSIGN_OR_RETURN(std::optional<SliceSpec> slice, ParseSliceSpec(name, spec));
    MG_ASSIGN_OR_RETURN(std::shared_ptr<BundleReader> reader, StepReader(ctx, pattern));
    if (!reader->Contains(name)) {
      return absl::NotFoundError(
          absl::StrCat("Tensor name \"", name, "\" not found in checkpoint files ", pattern));
    }
    const BundleEntryProto& e = **reader->GetEntry(name);
    if (e.dtype() != dtype_) {
      return absl::InvalidArgumentError(absl::StrCat(
          "Expected to restore a tensor of type ", DataTypeString(dtype_),
          ", got a tensor of type ", DataTypeString(e.dtype()), " instead: tensor_name = ", name));
    }
    MG_ASSIGN_OR_RETURN(TensorShape stored, TensorShape::FromProto(e.shape()));
    if (slice.has_value() && slice->full != stored) {
      return absl::InvalidArgumentError(
          absl::StrCat("Shape in shape_and_slice spec ", slice->full.DebugString(),
                       " does not match the shape stored in checkpoint: ", stored.DebugString(),
                       " (tensor_name = ", name, ", checkpoint ", pattern, ")"));
    }
    MG_ASSIGN_OR_RETURN(Tensor t, slice.has_value() && slice->partial()
                                      ? reader->LookupSlice(name, slice->slice)
                                      : reader->Lookup(name));
    ctx->set_output(0, std::move(t));
    return absl::OkStatus();
  }

 private:
  DataType dtype_ = DT_INVALID;
};

// Save and SaveSlices: the tensors (or, for SaveSlices, the slices its
// shapes_and_slices name) as one file in TensorFlow's V1 format, written as
// TensorFlow 1.0 and before wrote every checkpoint. An empty
// shapes_and_slices entry saves the whole tensor.
class SaveV1Op : public OpKernel {
 public:
  using OpKernel::OpKernel;
  absl::Status Compute(OpKernelContext* ctx) const override {
    const Tensor& filename = ctx->input(0);
    if (filename.NumElements() != 1) {
      return absl::InvalidArgumentError(
          absl::StrCat("node ", name(), " (", type_string(),
                       "): input 0 (filename) must be a string scalar; got a tensor of ",
                       filename.NumElements(), " elements"));
    }
    const bool slices = type_string() == "SaveSlices";
    const int fixed = slices ? 3 : 2;
    const Tensor& names = ctx->input(1);
    const int64_t n = names.NumElements();
    if (ctx->num_inputs() != n + fixed) {
      return absl::InvalidArgumentError(absl::StrCat(
          "node ", name(), " (", type_string(), "): expected totally ", n + fixed,
          " inputs as input #1 (which is a string tensor of saved names) contains ", n,
          " names, but received ", ctx->num_inputs(), " inputs"));
    }
    std::vector<std::optional<SliceSpec>> specs(n);
    if (slices) {
      MG_ASSIGN_OR_RETURN(specs, CheckNames(names, ctx->input(2), n));
    }
    std::vector<V1Slice> saved;
    saved.reserve(n);
    for (int64_t i = 0; i < n; ++i) {
      const Tensor& t = ctx->input(fixed + i);
      const std::string& tensor_name = names.flat<std::string>()(i);
      V1Slice s{tensor_name, t.shape(), TensorSlice::Full(t.dims()), t};
      if (specs[i].has_value()) {
        s.shape = specs[i]->full;
        s.slice = specs[i]->slice;
        if (s.slice.SliceShape(s.shape) != t.shape()) {
          return absl::InvalidArgumentError(absl::StrCat(
              "node ", name(), " (SaveSlices): tensor \"", tensor_name, "\" has shape ",
              t.shape().DebugString(), " but its shapes_and_slices \"",
              ctx->input(2).flat<std::string>()(i), "\" says ",
              s.slice.SliceShape(s.shape).DebugString()));
        }
      }
      saved.push_back(std::move(s));
    }
    return WriteV1Checkpoint(ctx->env(), filename.flat<std::string>()(0), saved);
  }
};

class MergeV2CheckpointsOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  absl::Status Init(OpKernelConstruction* c) {
    return c->GetAttr("delete_old_dirs", &delete_old_dirs_);
  }
  absl::Status Compute(OpKernelContext* ctx) const override {
    const Tensor& sources = ctx->input(0);
    MG_ASSIGN_OR_RETURN(std::string dest, ScalarString(ctx->input(1), "destination_prefix"));
    std::vector<std::string> prefixes;
    for (int64_t i = 0; i < sources.NumElements(); ++i) {
      prefixes.push_back(sources.flat<std::string>()(i));
    }
    return MergeBundles(ctx->env(), prefixes, dest, delete_old_dirs_);
  }

 private:
  bool delete_old_dirs_ = true;
};

// StringJoin: element-wise over inputs of one shape, scalars repeated (as
// TensorFlow's; Saver graphs join scalars).
class StringJoinOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  absl::Status Init(OpKernelConstruction* c) { return c->GetAttr("separator", &separator_); }
  absl::Status Compute(OpKernelContext* ctx) const override {
    const Tensor* shaped = nullptr;
    for (int i = 0; i < ctx->num_inputs(); ++i) {
      const Tensor& t = ctx->input(i);
      if (t.dims() == 0) continue;
      if (shaped != nullptr && t.shape() != shaped->shape()) {
        return absl::InvalidArgumentError(absl::StrCat(
            "StringJoin inputs must be scalars or of one shape, got ",
            shaped->shape().DebugString(), " and ", t.shape().DebugString()));
      }
      shaped = &t;
    }
    Tensor out(DT_STRING, shaped == nullptr ? TensorShape() : shaped->shape());
    std::string* o = out.data<std::string>();
    for (int i = 0; i < ctx->num_inputs(); ++i) {
      const Tensor& t = ctx->input(i);
      const std::string* in = t.data<std::string>();
      for (int64_t k = 0; k < out.NumElements(); ++k) {
        absl::StrAppend(&o[k], i > 0 ? separator_ : "", in[t.dims() == 0 ? 0 : k]);
      }
    }
    ctx->set_output(0, std::move(out));
    return absl::OkStatus();
  }

 private:
  std::string separator_;
};

class ShardedFilenameOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  absl::Status Compute(OpKernelContext* ctx) const override {
    MG_ASSIGN_OR_RETURN(std::string base, ScalarString(ctx->input(0), "basename"));
    ctx->set_output(0, Tensor::Scalar<std::string>(absl::StrFormat(
                           "%s-%05d-of-%05d", base, ctx->input(1).scalar<int32_t>()(),
                           ctx->input(2).scalar<int32_t>()())));
    return absl::OkStatus();
  }
};

// The file's bytes, as a string scalar. TensorFlow's messages: the input
// must be a scalar; a missing file is NotFound naming it.
class ReadFileOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  absl::Status Compute(OpKernelContext* ctx) const override {
    const Tensor& name = ctx->input(0);
    if (name.dims() != 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("Input filename tensor must be scalar, but had shape: ",
                       name.shape().DebugString()));
    }
    const std::string& path = *name.data<std::string>();
    absl::StatusOr<std::string> contents = ReadFileToString(ctx->env(), path);
    if (!contents.ok()) return Named(contents.status(), path);
    ctx->set_output(0, Tensor::Scalar<std::string>(*std::move(contents)));
    return absl::OkStatus();
  }

 private:
  static absl::Status Named(const absl::Status& s, const std::string& path) {
    if (absl::StrContains(s.message(), path)) return s;
    return absl::Status(s.code(), absl::StrCat(path, ": ", s.message()));
  }
};

// MatchingFiles (tf.io.matching_files): the paths each pattern (a scalar
// or a vector of them) matches, all together and sorted, duplicates kept;
// none is an empty vector.
class MatchingFilesOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  absl::Status Compute(OpKernelContext* ctx) const override {
    const Tensor& patterns = ctx->input(0);
    if (patterns.dims() > 1) {
      return absl::InvalidArgumentError(
          absl::StrCat("Input pattern tensor must be scalar or vector, but had shape: ",
                       patterns.shape().DebugString()));
    }
    std::vector<std::string> all;
    for (int64_t i = 0; i < patterns.NumElements(); ++i) {
      const std::string& pattern = patterns.data<std::string>()[i];
      absl::StatusOr<std::vector<std::string>> matched = GetMatchingPaths(ctx->env(), pattern);
      if (!matched.ok()) {
        return absl::Status(matched.status().code(), absl::StrCat("MatchingFiles '", name(),
                                                                  "', pattern ", pattern, ": ",
                                                                  matched.status().message()));
      }
      all.insert(all.end(), matched->begin(), matched->end());
    }
    std::sort(all.begin(), all.end());
    Tensor* out;
    MG_RETURN_IF_ERROR(
        ctx->allocate_output(0, TensorShape({static_cast<int64_t>(all.size())}), &out));
    std::move(all.begin(), all.end(), out->data<std::string>());
    return absl::OkStatus();
  }
};

// Writes the contents to the file (replacing it), making its directories
// first, as TensorFlow's WriteFile does.
class WriteFileOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  absl::Status Compute(OpKernelContext* ctx) const override {
    for (int i = 0; i < 2; ++i) {
      if (ctx->input(i).dims() != 0) {
        return absl::InvalidArgumentError(absl::StrCat(
            i == 0 ? "Input filename tensor must be scalar, but had shape: "
                   : "Contents tensor must be scalar, but had shape: ",
            ctx->input(i).shape().DebugString()));
      }
    }
    const std::string& path = *ctx->input(0).data<std::string>();
    Env* env = ctx->env();
    // Each missing parent, outermost first.
    for (size_t at = path.find('/', 1); at != std::string::npos; at = path.find('/', at + 1)) {
      const std::string dir = path.substr(0, at);
      if (env->FileExists(dir).ok()) continue;
      absl::Status s = env->CreateDir(dir);
      if (!s.ok() && !absl::IsAlreadyExists(s)) return s;
    }
    return WriteStringToFile(env, path, *ctx->input(1).data<std::string>());
  }
};

}  // namespace

void RegisterSaveRestoreKernels(KernelRegistry* r) {
  r->Register("ReadFile", MakeFactory<ReadFileOp>());
  r->Register("WriteFile", MakeFactory<WriteFileOp>());
  r->Register("MatchingFiles", MakeFactory<MatchingFilesOp>());
  r->Register("StringJoin", MakeFactory<StringJoinOp>());
  r->Register("ShardedFilename", MakeFactory<ShardedFilenameOp>());
  r->Register("SaveV2", MakeFactory<SaveV2Op>());
  r->Register("RestoreV2", MakeFactory<RestoreV2Op>());
  r->Register("Restore", MakeFactory<RestoreSliceOp>());
  r->Register("RestoreSlice", MakeFactory<RestoreSliceOp>());
  r->Register("Save", MakeFactory<SaveV1Op>());
  r->Register("SaveSlices", MakeFactory<SaveV1Op>());
  r->Register("MergeV2Checkpoints", MakeFactory<MergeV2CheckpointsOp>());
}

}  // namespace kernels_internal
}  // namespace minigraph
