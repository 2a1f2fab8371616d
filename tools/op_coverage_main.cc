// Prints the op coverage table (docs/ops.md): every op minigraph runs or the
// op census counts (tests/tf_interop/op_census.tsv: the ops TensorFlow's
// model zoo and public API put into graphs), whether a CPU kernel runs it,
// whether symbolic gradients pass through it, how many items of each census
// source use it, and how many cases of it the op interop test checks against
// TensorFlow (its counts file, tests/tf_interop/op_counts.tsv). The census
// ops without a kernel are listed apart, most used first.
// op_coverage_test keeps docs/ops.md equal to this output.
//
//   op_coverage tests/tf_interop/op_counts.tsv tests/tf_interop/op_census.tsv > docs/ops.md
#include <algorithm>
#include <cstdio>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/str_split.h"

#include "runtime/cc/gradients.h"
#include "runtime/engine/kernel_registry.h"
#include "runtime/engine/kernels/standard_kernels.h"
#include "runtime/graph/ops/standard_ops.h"

namespace {

struct Checked {
  std::string cases, gradient_cases, dtypes;
};

// op -> its counts: the lines "op<TAB>cases<TAB>gradient cases<TAB>dtypes"
// of the counts file ('#' lines are comments).
bool ReadCounts(const char* path, std::map<std::string, Checked>* counts) {
  std::ifstream in(path);
  if (!in) return false;
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::vector<std::string> f = absl::StrSplit(line, '\t');
    if (f.size() != 4) return false;
    (*counts)[f[0]] = {f[1], f[2], f[3]};
  }
  return true;
}

// The census: per op, how many items of each source use it (the lines
// "op<TAB>n<TAB>n<TAB>n<TAB>n" after its header "op<TAB>applications..."),
// and each source's count of items built ("# built<TAB>source<TAB>n").
struct Census {
  std::vector<std::string> sources;
  std::map<std::string, std::vector<int>> uses;
  std::map<std::string, int> built;
};

bool ReadCensus(const char* path, Census* census) {
  std::ifstream in(path);
  if (!in) return false;
  std::string line;
  while (std::getline(in, line)) {
    std::vector<std::string> f = absl::StrSplit(line, '\t');
    if (f[0] == "# built" && f.size() == 3) {
      census->built[f[1]] = std::stoi(f[2]);
      continue;
    }
    if (line.empty() || line[0] == '#') continue;
    if (f[0] == "op") {
      census->sources.assign(f.begin() + 1, f.end());
      continue;
    }
    if (f.size() != census->sources.size() + 1) return false;
    std::vector<int>& n = census->uses[f[0]];
    for (size_t i = 1; i < f.size(); ++i) n.push_back(std::stoi(f[i]));
  }
  return !census->sources.empty();
}

// Census ops minigraph leaves out on purpose, and why.
const std::map<std::string, std::string>& LeftOut() {
  static const auto* const left_out = new std::map<std::string, std::string>{
      {"CudnnRNNV3", "GPU only: the cuDNN twin Keras traces beside each LSTM and GRU, which a "
                     "CPU run never calls (it runs the standard twin, CpuImplementation)"},
      {"CudnnRNNBackpropV3", "GPU only: the gradient of CudnnRNNV3"},
      // tf.signal.fftnd and its siblings, and tf.image.generate_bounding_box_proposals:
      // TensorFlow 2.21 registers no CPU kernel for them.
      {"FFTND", "GPU only: TensorFlow has no CPU kernel for it"},
      {"IFFTND", "GPU only: TensorFlow has no CPU kernel for it"},
      {"RFFTND", "GPU only: TensorFlow has no CPU kernel for it"},
      {"IRFFTND", "GPU only: TensorFlow has no CPU kernel for it"},
      {"GenerateBoundingBoxProposals", "GPU only: TensorFlow has no CPU kernel for it"},
  };
  return *left_out;
}

int Total(const std::vector<int>& uses) {
  int total = 0;
  for (int n : uses) total += n;
  return total;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace minigraph;  // NOLINT: a tool's main
  std::map<std::string, Checked> counts;
  Census census;
  if (argc != 3 || !ReadCounts(argv[1], &counts) || !ReadCensus(argv[2], &census)) {
    std::fprintf(stderr,
                 "usage: op_coverage tests/tf_interop/op_counts.tsv (4 columns) "
                 "tests/tf_interop/op_census.tsv (op and a count per source)\n");
    return 2;
  }
  const OpRegistry* ops = GlobalOpRegistry();
  const KernelRegistry* kernels = GlobalKernelRegistry();
  const GradientRegistry* grads = GlobalGradientRegistry();
  int with_kernel = 0, with_gradient = 0, n = 0, checked = 0;
  int census_ops = 0, census_with_kernel = 0, census_left_out = 0;
  std::vector<std::pair<int, std::string>> missing;  // (-items using it, op)
  long total_cases = 0, total_gradient_cases = 0;
  std::string rows;
  const std::vector<std::string> names = ops->OpNames();
  for (const std::string& op : names) {
    bool no_gradient = false;
    const bool has_grad = grads->Lookup(op, &no_gradient) != nullptr;
    const bool has_kernel = kernels->HasKernel(op);
    // Every op of TensorFlow's is registered (its interface); the table
    // shows those minigraph runs and those the census counts.
    auto used = census.uses.find(op);
    if (!has_kernel && counts.count(op) == 0 && used == census.uses.end()) continue;
    ++n;
    std::string uses = "";
    if (used != census.uses.end()) {
      uses = absl::StrJoin(used->second, " / ");
      ++census_ops;
      if (has_kernel) {
        ++census_with_kernel;
      } else if (LeftOut().count(op) > 0) {
        ++census_left_out;
      } else {
        missing.emplace_back(-Total(used->second), op);
      }
    }
    with_kernel += has_kernel;
    with_gradient += has_grad;
    std::string check = "not yet";
    if (auto it = LeftOut().find(op); it != LeftOut().end()) {
      check = "left out: " + it->second;
    } else if (op == "PyFunc" || op == "PyFuncStateless" || op == "EagerPyFunc") {
      // Nothing to compare: the function is Python's.
      check = "needs Python: a step that reaches it fails naming it "
              "(`graph_compat_interop_test`)";
    } else if (op == "FixedLengthRecordReader") {
      // TensorFlow 2.21's kernel reads an `encoding` attr only the V2 op has.
      check = "removed at GraphDef version 26, and TensorFlow's kernel runs in no graph (it asks "
              "for the V2 op's `encoding`): the V2 op's cases";
    } else if (absl::StartsWith(op, "Reader") && !absl::EndsWith(op, "V2")) {
      check = "takes a V1 reader's handle (removed at GraphDef version 26): run in older "
              "graphs (`graph_compat_interop_test`)";
    } else if (op == "WholeFileReader") {
      // Not deprecated itself, but Python makes only the V2 reader.
      check = "a V1 reader, which TensorFlow 1.2's Python stopped making: run in older graphs "
              "(`graph_compat_interop_test`)";
    } else if (op == "TensorArrayConcatV2") {
      // Not deprecated itself, but only TensorArrayV2 makes its handle.
      check = "takes TensorArrayV2's handle (removed at GraphDef version 26): run in older "
              "graphs (`graph_compat_interop_test`)";
    } else if (const OpDef& def = (*ops->LookUp(op))->op_def; def.has_deprecation()) {
      // TensorFlow refuses it in graphs of today's version, as minigraph.
      check = absl::StrCat("removed at GraphDef version ", def.deprecation().version(),
                           ": run in older graphs (`graph_compat_interop_test`)");
    } else if (auto it = counts.find(op); it != counts.end()) {
      ++checked;
      total_cases += std::stol(it->second.cases);
      total_gradient_cases += std::stol(it->second.gradient_cases);
      check = absl::StrCat(it->second.cases, it->second.cases == "1" ? " case" : " cases");
      if (it->second.gradient_cases != "0") {
        absl::StrAppend(&check, ", ", it->second.gradient_cases, " of the gradient");
      }
      if (!it->second.dtypes.empty()) {
        absl::StrAppend(&check, " (", absl::StrReplaceAll(it->second.dtypes, {{",", ", "}}), ")");
      }
    }
    rows += "| `" + op + "` | " + (has_kernel ? "yes" : "no") + " | " +
            (has_grad ? "yes" : no_gradient ? "not differentiable" : "no") + " | " + uses +
            " | " + check + " |\n";
  }
  std::sort(missing.begin(), missing.end());
  std::vector<std::string> missing_list;
  for (const auto& [minus_items, op] : missing) {
    missing_list.push_back(absl::StrCat("`", op, "` (", -minus_items, ")"));
  }
  // Those without a kernel, most used first.
  const std::string without =
      missing_list.empty()
          ? ""
          : absl::StrCat(", by the number of\nitems using them:\n\n",
                         absl::StrJoin(missing_list, ", "));
  std::vector<std::string> built;
  for (const std::string& source : census.sources) {
    built.push_back(absl::StrCat(census.built[source], " ", source));
  }
  const std::string sources = absl::StrJoin(census.sources, " / ");
  std::printf(
      "# Op coverage\n\n"
      "Generated by `bazel run //tools:op_coverage --\n"
      "$PWD/tests/tf_interop/op_counts.tsv $PWD/tests/tf_interop/op_census.tsv`\n"
      "(and checked by `//tools:op_coverage_test`).\n\n"
      "All %zu ops of TensorFlow 2.21 are registered with their signatures\n"
      "(`runtime/graph/ops/tensorflow_op_defs.pbtxt`), so that every graph\n"
      "imports; a step that needs an op without a kernel fails naming the node\n"
      "and the op, and `run_graph` lists which ops without a kernel a fetch needs.\n\n"
      "## The census\n\n"
      "`tests/tf_interop/op_census.py` builds in TensorFlow 2.21 what people\n"
      "bring: every Keras application (forward and a training step), every layer\n"
      "class of Keras 3 and tf_keras (forward and gradient), tf.compat.v1's\n"
      "layers, losses, metrics, initializers and optimizers (dense and sparse),\n"
      "and every public function of tf.math, tf.linalg, tf.signal, tf.image,\n"
      "tf.strings, tf.sparse, tf.ragged, tf.nn, tf.random, tf.io and tf.bitwise\n"
      "(with its gradient), and counts the op types their graphs hold, function\n"
      "libraries and gradients included; what could not be built is listed,\n"
      "with the reason, in the census file. Items built:\n\n%s.\n\n"
      "**%d ops in the census, %d of them with a kernel here, %zu left out on\n"
      "purpose (see the table), %zu without a kernel yet**%s.\n\n"
      "## Every op minigraph runs or the census counts\n\n"
      "Whether a CPU kernel runs it (for the dtypes its kernel takes, mostly\n"
      "float and double, often int32 and int64); whether symbolic gradients pass\n"
      "through it (\"not differentiable\" as TensorFlow declares it); how many\n"
      "census items use it (%s);\n"
      "and how many seeded cases of it\n"
      "`//tests/tf_interop:op_interop_test` runs in both TensorFlow 2.21 and\n"
      "minigraph, all agreeing (outputs, error codes, and minigraph's gradients\n"
      "against tf.gradients), with the dtypes checked (see docs/tf_interop.md).\n\n"
      "%d ops, %d with a kernel, %d with a gradient; %d checked against\n"
      "TensorFlow 2.21 in %ld cases and %ld gradient cases.\n\n"
      "| op | kernel | gradient | census (%s) | checked against TensorFlow 2.21 |\n"
      "| --- | --- | --- | --- | --- |\n%s",
      names.size(), absl::StrJoin(built, ", ").c_str(), census_ops, census_with_kernel,
      census_left_out, missing.size(), without.c_str(), sources.c_str(), n,
      with_kernel, with_gradient, checked, total_cases, total_gradient_cases, sources.c_str(),
      rows.c_str());
  return 0;
}
