// tf.data pipelines' speed: drains an iterator of a graph TensorFlow wrote
// (tools/tf_bench.py data --export=DIR writes them, and times TensorFlow on
// the same graphs), and prints elements per second as one JSON line.
//
//   graph_bench --graph=DIR/map_parallel.meta --reps=3
//
// Each repetition runs --init (the iterator's initializer), then --fetch
// until the end of the sequence (OutOfRange); the figure is the median of
// the repetitions' rates. With --profile=FILE, one more run of --fetch is
// traced (RunOptions.step_stats) and FILE gets the microseconds its nodes
// took, summed per op type, largest first, as JSON ({"Conv2D": 1234, ...};
// tools/tf_bench.py models --profile writes TensorFlow's alike).
#include <algorithm>
#include <cstdio>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/flags/flag.h"
#include "absl/flags/usage.h"
#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "core/allocator.h"
#include "core/env.h"
#include "core/proto/step_stats.pb.h"
#include "core/status_macros.h"
#include "session/graph_files.h"
#include "session/session.h"
#include "tools/flag_checks.h"

ABSL_FLAG(std::string, graph, "", "A MetaGraphDef (.meta) holding the pipeline");
ABSL_FLAG(std::string, init, "make", "The op that (re)starts the iterator");
ABSL_FLAG(std::string, fetch, "bench_step:0",
          "The tensor fetched per element or run (an op name without ':' runs as a target)");
ABSL_FLAG(int, reps, 3, "Passes over the dataset (>= 1)");
ABSL_FLAG(int, runs, 0, "With > 0: runs of --fetch per repetition, instead of draining it");
ABSL_FLAG(int64_t, max_elements, 10000000,
          "A pass longer than this fails (a fetch that never ends is not an iterator's)");
ABSL_FLAG(int, intra_op_threads, 2, "The session's intra-op threads (>= 1)");
ABSL_FLAG(std::string, profile, "",
          "When set: one traced run of --fetch, its microseconds per op type written here");

namespace minigraph {
namespace {

absl::Status CheckFlags(const std::vector<char*>& rest) {
  MG_RETURN_IF_ERROR(NoPositionalArguments(rest));
  if (absl::GetFlag(FLAGS_graph).empty()) return absl::InvalidArgumentError("--graph is required");
  MG_RETURN_IF_ERROR(FlagInRange("reps", absl::GetFlag(FLAGS_reps), 1, 1000));
  MG_RETURN_IF_ERROR(FlagInRange("runs", absl::GetFlag(FLAGS_runs), 0, 1000000));
  MG_RETURN_IF_ERROR(FlagInRange<int64_t>("max_elements", absl::GetFlag(FLAGS_max_elements), 1,
                                          int64_t{1} << 40));
  return FlagInRange("intra_op_threads", absl::GetFlag(FLAGS_intra_op_threads), 1, 1024);
}

// Fetches `fetch` until the end of the sequence; the elements it gave.
absl::StatusOr<int64_t> Drain(Session* session, const std::string& fetch) {
  std::vector<Tensor> out;
  int64_t elements = 0;
  for (;;) {
    absl::Status s = session->Run({}, {fetch}, {}, &out);
    if (absl::IsOutOfRange(s)) return elements;
    MG_RETURN_IF_ERROR(s);
    if (++elements > absl::GetFlag(FLAGS_max_elements)) {
      return absl::FailedPreconditionError(
          absl::StrCat(fetch, " gave more than --max_elements=", absl::GetFlag(FLAGS_max_elements),
                       " elements without reaching the end of a sequence"));
    }
  }
}

// The fetch as Session::Run takes it: a tensor ("loss:0") fetched, an op
// ("train") run as a target.
std::pair<std::vector<std::string>, std::vector<std::string>> FetchesAndTargets(
    const std::string& fetch) {
  if (absl::StrContains(fetch, ':')) return {{fetch}, {}};
  return {{}, {fetch}};
}

// One traced run of `fetch`; writes its microseconds per op type to `path`.
absl::Status WriteProfile(Session* session, const std::string& fetch, const std::string& path) {
  tensorflow::StepStats stats;
  RunOptions options;
  options.step_stats = &stats;
  const auto [fetches, targets] = FetchesAndTargets(fetch);
  std::vector<Tensor> out;
  MG_RETURN_IF_ERROR(session->Run(options, {}, fetches, targets, &out));
  absl::flat_hash_map<std::string, int64_t> micros;
  for (const tensorflow::DeviceStepStats& dev : stats.dev_stats()) {
    for (const tensorflow::NodeExecStats& node : dev.node_stats()) {
      // "NAME = Op(inputs)"
      const std::string& label = node.timeline_label();
      const size_t eq = label.find(" = ");
      const size_t paren = label.find('(', eq);
      micros[label.substr(eq + 3, paren - eq - 3)] += node.all_end_rel_micros();
    }
  }
  std::vector<std::pair<std::string, int64_t>> sorted(micros.begin(), micros.end());
  std::sort(sorted.begin(), sorted.end(),
            [](const auto& a, const auto& b) { return a.second > b.second; });
  const std::string json =
      absl::StrCat("{", absl::StrJoin(sorted, ", ", [](std::string* o, const auto& op) {
                     absl::StrAppend(o, "\"", op.first, "\": ", op.second);
                   }), "}\n");
  absl::Status written = WriteStringToFile(Env::Default(), path, json);
  if (!written.ok()) {
    return absl::UnavailableError(
        absl::StrCat("cannot write --profile file ", path, ": ", written.message()));
  }
  return absl::OkStatus();
}

// Runs `fetch` `runs` times.
absl::StatusOr<int64_t> RunTimes(Session* session, const std::string& fetch, int runs) {
  std::vector<Tensor> out;
  const auto [fetches, targets] = FetchesAndTargets(fetch);
  for (int i = 0; i < runs; ++i) MG_RETURN_IF_ERROR(session->Run({}, fetches, targets, &out));
  return runs;
}

absl::Status Run() {
  const std::string path = absl::GetFlag(FLAGS_graph);
  const int reps = absl::GetFlag(FLAGS_reps);
  const int threads = absl::GetFlag(FLAGS_intra_op_threads);
  MG_ASSIGN_OR_RETURN(GraphFile file, LoadGraphFile(Env::Default(), path));
  SessionOptions options;
  options.intra_op_threads = threads;
  options.inter_op_threads = 1;
  MG_ASSIGN_OR_RETURN(std::unique_ptr<Session> session, NewSession(options));
  MG_RETURN_IF_ERROR(session->Create(file.graph));
  const std::string init = absl::GetFlag(FLAGS_init);
  const std::string fetch = absl::GetFlag(FLAGS_fetch);
  const int runs = absl::GetFlag(FLAGS_runs);
  std::vector<Tensor> out;
  if (runs > 0) MG_RETURN_IF_ERROR(session->Run({}, {}, {init}, &out));
  std::vector<double> rates;
  int64_t count = 0;
  for (int r = 0; r < reps; ++r) {
    if (runs == 0) MG_RETURN_IF_ERROR(session->Run({}, {}, {init}, &out));
    const absl::Time start = absl::Now();
    MG_ASSIGN_OR_RETURN(count, runs > 0 ? RunTimes(session.get(), fetch, runs)
                                        : Drain(session.get(), fetch));
    rates.push_back(count / absl::ToDoubleSeconds(absl::Now() - start));
  }
  std::sort(rates.begin(), rates.end());
  if (const std::string profile = absl::GetFlag(FLAGS_profile); !profile.empty()) {
    MG_RETURN_IF_ERROR(WriteProfile(session.get(), fetch, profile));
  }
  std::printf("{\"graph\": \"%s\", \"%s\": %lld, \"%s\": %.2f}\n", path.c_str(),
              runs > 0 ? "runs" : "elements", static_cast<long long>(count),
              runs > 0 ? "runs_per_s" : "elements_per_s", rates[rates.size() / 2]);
  return absl::OkStatus();
}

}  // namespace
}  // namespace minigraph

int main(int argc, char** argv) {
  absl::SetProgramUsageMessage(
      "Times a TensorFlow graph: a tf.data iterator drained, or a fetch run --runs times.\n"
      "  graph_bench --graph=G.meta [--init=make] [--fetch=bench_step:0] [--reps=3] [--runs=N]");
  std::vector<char*> rest = minigraph::ParseFlags(argc, argv);
  absl::Status s = minigraph::CheckFlags(rest);
  if (s.ok()) s = minigraph::ApplyMaxTensorBytes();
  if (!s.ok()) return minigraph::UsageError("graph_bench", s);
  // Freed memory kept for the next step, as `train` keeps it (and as
  // TensorFlow's allocators keep theirs).
  minigraph::RetainFreedMemory();
  s = minigraph::Run();
  if (!s.ok()) {
    std::fprintf(stderr, "graph_bench: %s\n", std::string(s.message()).c_str());
    return 1;
  }
  return 0;
}
