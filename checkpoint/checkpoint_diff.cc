#include "checkpoint/checkpoint_diff.h"

#include <algorithm>
#include <set>

#include "absl/strings/str_cat.h"
#include "checkpoint/proto/tensor_bundle.pb.h"

namespace minigraph {
namespace {

// How alike two names are for a rename hint: the length of their common
// suffix ("model/dense/kernel" and "dense/kernel" share 12), which favours a
// moved scope over a renamed leaf.
size_t CommonSuffix(absl::string_view a, absl::string_view b) {
  size_t n = 0;
  while (n < a.size() && n < b.size() && a[a.size() - 1 - n] == b[b.size() - 1 - n]) ++n;
  return n;
}

std::string Describe(DataType dtype, const std::optional<TensorShape>& shape) {
  return absl::StrCat(DataTypeString(dtype), " ", shape ? shape->DebugString() : "(any shape)");
}

}  // namespace

CheckpointDiff DiffCheckpoint(const BundleReader& reader,
                              const std::vector<ExpectedTensor>& expected) {
  CheckpointDiff d;
  d.expected = static_cast<int>(expected.size());
  const std::vector<std::string> names = reader.tensor_names();
  d.keys = static_cast<int>(names.size());
  std::set<std::string> used;
  for (const ExpectedTensor& e : expected) {
    absl::StatusOr<const BundleEntryProto*> entry = reader.GetEntry(e.key);
    if (!entry.ok()) {
      d.missing.push_back({e, ""});
      continue;
    }
    used.insert(e.key);
    absl::StatusOr<TensorShape> shape = reader.GetShape(e.key);
    const bool dtype_ok = (*entry)->dtype() == e.dtype;
    const bool shape_ok = !e.shape || (shape.ok() && *shape == *e.shape);
    if (!dtype_ok || !shape_ok) {
      d.mismatched.push_back({e, (*entry)->dtype(), shape.value_or(TensorShape())});
    }
  }
  for (const std::string& key : names) {
    if (used.count(key)) continue;
    absl::StatusOr<TensorShape> shape = reader.GetShape(key);
    d.unused.push_back({key, (*reader.GetEntry(key))->dtype(),
                        shape.ok() ? std::optional<TensorShape>(*shape) : std::nullopt});
  }
  // Rename hints: the unused key of the same dtype and shape whose name is
  // most alike; each key suggested once.
  std::set<std::string> suggested;
  for (CheckpointDiff::Missing& m : d.missing) {
    size_t best = 0;
    for (const CheckpointDiff::Unused& u : d.unused) {
      if (suggested.count(u.key) || u.dtype != m.expected.dtype || !u.shape ||
          (m.expected.shape && *u.shape != *m.expected.shape)) {
        continue;
      }
      const size_t score = CommonSuffix(u.key, m.expected.key);
      if (score > best) {
        best = score;
        m.renamed_from = u.key;
      }
    }
    if (!m.renamed_from.empty()) suggested.insert(m.renamed_from);
  }
  return d;
}

std::string CheckpointDiff::ToString() const {
  std::string out;
  for (const Missing& m : missing) {
    absl::StrAppend(&out, "missing\t", m.expected.key, "\t",
                    Describe(m.expected.dtype, m.expected.shape));
    if (!m.renamed_from.empty()) {
      absl::StrAppend(&out, "\tmaybe renamed from \"", m.renamed_from, "\" (same dtype and shape)");
    }
    absl::StrAppend(&out, "\n");
  }
  for (const Mismatch& m : mismatched) {
    absl::StrAppend(&out, "mismatch\t", m.expected.key, "\tmodel ",
                    Describe(m.expected.dtype, m.expected.shape), ", checkpoint ",
                    Describe(m.dtype, m.shape), "\n");
  }
  for (const Unused& u : unused) {
    absl::StrAppend(&out, "unused\t", u.key, "\t", Describe(u.dtype, u.shape), "\n");
  }
  absl::StrAppend(&out, expected, " tensors expected, ", keys,
                  " in the checkpoint: ", missing.size(), " missing, ", mismatched.size(),
                  " mismatched, ", unused.size(), " unused; ",
                  compatible() ? "a restore would succeed" : "a restore would fail", "\n");
  return out;
}

}  // namespace minigraph
