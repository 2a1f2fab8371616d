// minigraph's side of session_manager_interop_test: takes the steps of a
// SessionManager scenario (sm_scenario.proto, written by sm_scenarios.py from
// graphs TensorFlow built) with minigraph's SessionManager, and prints one
// Outcome per step, a JSON line each, as sm_scenarios.run_on_tensorflow does
// with TensorFlow's.
//
//   sm_scenario_runner --plan=PLAN.json --dir=DIR
//
// Files go to DIR through the real file system; time is a fake clock that
// only sleeps move, as TensorFlow's side patches session_manager's `time`.
// The managers use TensorFlow's fixed sleep between attempts
// (wake_on_state_change off), so the sleeps are TensorFlow's to compare.
// Exit 0 once every step has an outcome (failed steps included), 1 when the
// plan cannot be read.

#include <cstdio>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "checkpoint/checkpoint_state.h"
#include "core/env.h"
#include "core/logging.h"
#include "core/mem_env.h"
#include "core/path.h"
#include "core/status_macros.h"
#include "core/tensor_proto.h"
#include "core/tensor_types.h"
#include "google/protobuf/util/json_util.h"
#include "session/saver.h"
#include "session/session.h"
#include "session/session_manager.h"
#include "tests/tf_interop/sm_scenario.pb.h"

ABSL_FLAG(std::string, plan, "", "The scenario: sm_scenario.Plan as JSON");
ABSL_FLAG(std::string, dir, "", "The scenario's directory (relative paths of the plan)");

namespace minigraph {
namespace {

using sm_scenario::Feed;
using sm_scenario::Outcome;
using sm_scenario::Plan;
using sm_scenario::Step;
using sm_scenario::Value;

constexpr char kNoSession[] = "the call that makes the session failed";

// Feeds, fetches ("node:k") and targets ("^node") of a list of names.
struct RunArgs {
  std::vector<std::pair<std::string, Tensor>> feeds;
  std::vector<std::string> fetches;
  std::vector<std::string> targets;
};

RunArgs Split(const google::protobuf::RepeatedPtrField<std::string>& names) {
  RunArgs args;
  for (const std::string& name : names) {
    if (absl::StartsWith(name, "^")) {
      args.targets.push_back(name.substr(1));
    } else {
      args.fetches.push_back(name);
    }
  }
  return args;
}

absl::StatusOr<std::vector<std::pair<std::string, Tensor>>> Feeds(
    const google::protobuf::RepeatedPtrField<Feed>& entries) {
  std::vector<std::pair<std::string, Tensor>> feeds;
  for (const Feed& f : entries) {
    TensorProto proto;
    if (!proto.ParseFromString(f.tensor())) {
      return absl::InvalidArgumentError(
          absl::StrCat("the feed of ", f.name(), " is no TensorProto"));
    }
    MG_ASSIGN_OR_RETURN(Tensor t, TensorFromProto(proto));
    feeds.emplace_back(f.name(), std::move(t));
  }
  return feeds;
}

template <typename T>
void AppendNumbers(const Tensor& t, Value* value) {
  const auto flat = t.flat<T>();
  for (int64_t i = 0; i < t.NumElements(); ++i) value->add_numbers(static_cast<double>(flat(i)));
}

absl::Status ToValue(const Tensor& t, Value* value) {
  value->set_initialized(true);
  switch (t.dtype()) {
    case DT_FLOAT: AppendNumbers<float>(t, value); break;
    case DT_DOUBLE: AppendNumbers<double>(t, value); break;
    case DT_INT32: AppendNumbers<int32_t>(t, value); break;
    case DT_INT64: AppendNumbers<int64_t>(t, value); break;
    case DT_BOOL: AppendNumbers<bool>(t, value); break;
    default:
      return absl::UnimplementedError(absl::StrCat("values of ", DataTypeString(t.dtype())));
  }
  return absl::OkStatus();
}

class Runner {
 public:
  Runner(Plan plan, std::string dir) : plan_(std::move(plan)), dir_(std::move(dir)) {}

  absl::Status Init() {
    for (const sm_scenario::Graph& g : plan_.graphs()) {
      GraphDef def;
      if (!def.ParseFromString(g.graph_def())) return absl::DataLossError("a graph is no GraphDef");
      graphs_.push_back(std::move(def));
      if (g.saver_def().empty()) {
        savers_.push_back(nullptr);
        continue;
      }
      SaverDef saver_def;
      if (!saver_def.ParseFromString(g.saver_def())) {
        return absl::DataLossError("a graph's saver_def is no SaverDef");
      }
      savers_.push_back(Saver::FromSaverDef(saver_def, &clock_));
    }
    return absl::OkStatus();
  }

  // Takes every step, printing its outcome.
  void RunAll() {
    for (const Step& step : plan_.steps()) {
      Outcome out;
      out.set_op(step.op());
      const int64_t sleeps = clock_.sleeps();
      const int64_t slept = clock_.slept_micros();
      absl::Status st = Take(step, &out);
      if (!st.ok()) {
        out.set_error(true);
        // As sm_scenarios.py names a step on a session its call did not return.
        out.set_code(st.message() == kNoSession ? "NO_SESSION"
                                                : absl::StatusCodeToString(st.code()));
        out.set_message(FirstLine(st.message()));
      }
      out.set_sleeps(static_cast<int32_t>(clock_.sleeps() - sleeps));
      out.set_slept_secs(static_cast<double>(clock_.slept_micros() - slept) / 1e6);
      std::string json;
      google::protobuf::util::JsonPrintOptions options;
      options.preserve_proto_field_names = true;
      (void)google::protobuf::util::MessageToJsonString(out, &json, options);
      std::printf("%s\n", json.c_str());
    }
    std::fflush(stdout);
  }

 private:
  std::string FirstLine(absl::string_view message) const {
    std::string line(message.substr(0, message.find('\n')));
    return absl::StrReplaceAll(line, {{dir_, "$DIR"}});
  }

  std::string Path(const std::string& rel) {
    if (rel.empty()) return "";
    if (absl::StartsWith(rel, "latest:")) {
      auto latest = LatestCheckpoint(&clock_, JoinPath(dir_, rel.substr(7)));
      return latest.ok() && latest->has_value() ? **latest : "";
    }
    return JoinPath(dir_, rel);
  }

  std::string Master(const std::string& name) {
    if (name.empty()) return "";
    return "local://sm_scenario_shared";
  }

  absl::StatusOr<Session*> SessionAt(int i) {
    if (i >= static_cast<int>(sessions_.size()) || sessions_[i] == nullptr) {
      return absl::Status(absl::StatusCode::kUnknown, kNoSession);
    }
    return sessions_[i].get();
  }

  absl::StatusOr<Saver*> SaverAt(int i) {
    if (i <= 0 || i > static_cast<int>(savers_.size()) || savers_[i - 1] == nullptr) {
      return absl::InvalidArgumentError(absl::StrCat("graph ", i - 1, " has no Saver"));
    }
    return savers_[i - 1].get();
  }

  static std::vector<std::string> Names(const google::protobuf::RepeatedPtrField<std::string>& n) {
    return {n.begin(), n.end()};
  }

  absl::Status NewSessionManager(const Step& step) {
    sms_.push_back(nullptr);
    SessionManager::Options o;
    o.env = &clock_;
    o.wake_on_state_change = false;
    o.ready_op = Names(step.ready_op());
    o.ready_for_local_init_op = Names(step.ready_for_local_init_op());
    o.local_init_op = Names(step.local_init_op());
    if (step.recovery_wait_secs() > 0) o.recovery_wait = absl::Seconds(step.recovery_wait_secs());
    MG_ASSIGN_OR_RETURN(o.local_init_feed_dict, Feeds(step.local_init_feed_dict()));
    MG_ASSIGN_OR_RETURN(sms_.back(), SessionManager::Create(graphs_.at(step.graph()), o));
    return absl::OkStatus();
  }

  absl::Status Call(const Step& step, Outcome* out) {
    sessions_.push_back(nullptr);
    if (step.sm() >= static_cast<int>(sms_.size()) || sms_[step.sm()] == nullptr) {
      return absl::Status(absl::StatusCode::kUnknown, "the call that makes the manager failed");
    }
    SessionManager* sm = sms_[step.sm()].get();
    const std::string master = Master(step.master());
    if (step.op() == "wait_for_session") {
      SessionOptions config;
      config.env = &clock_;
      std::optional<absl::Duration> max_wait;
      if (step.has_max_wait()) max_wait = absl::Seconds(step.max_wait_secs());
      MG_ASSIGN_OR_RETURN(sessions_.back(), sm->WaitForSession(master, config, max_wait));
      return absl::OkStatus();
    }
    SessionManager::PrepareOptions p;
    p.config.env = &clock_;
    if (step.saver() > 0) {
      MG_ASSIGN_OR_RETURN(p.saver, SaverAt(step.saver()));
    }
    p.checkpoint_dir = Path(step.checkpoint_dir());
    p.checkpoint_filename_with_path = Path(step.checkpoint_filename_with_path());
    p.wait_for_checkpoint = step.wait_for_checkpoint();
    if (step.has_max_wait()) p.max_wait = absl::Seconds(step.max_wait_secs());
    if (step.op() == "recover_session") {
      MG_ASSIGN_OR_RETURN(SessionManager::RecoverResult r, sm->RecoverSession(master, p));
      sessions_.back() = std::move(r.session);
      out->set_initialized(r.initialized);
      return absl::OkStatus();
    }
    p.init_op = Names(step.init_op());
    MG_ASSIGN_OR_RETURN(p.init_feed_dict, Feeds(step.init_feed_dict()));
    if (step.has_init_fn()) {
      const RunArgs runs = Split(step.init_fn_runs());
      p.init_fn = [runs](Session* s) {
        std::vector<Tensor> outputs;
        return s->Run({}, runs.fetches, runs.targets, &outputs);
      };
    }
    MG_ASSIGN_OR_RETURN(sessions_.back(), sm->PrepareSession(master, p));
    return absl::OkStatus();
  }

  absl::Status Values(const Step& step, Outcome* out) {
    MG_ASSIGN_OR_RETURN(Session * s, SessionAt(step.session()));
    for (const std::string& name : step.names()) {
      std::vector<Tensor> outputs;
      absl::Status st = s->Run({}, {name}, {}, &outputs);
      Value& value = (*out->mutable_values())[name];
      if (st.code() == absl::StatusCode::kFailedPrecondition) continue;  // uninitialized
      MG_RETURN_IF_ERROR(st);
      MG_RETURN_IF_ERROR(ToValue(outputs[0], &value));
    }
    return absl::OkStatus();
  }

  absl::Status Take(const Step& step, Outcome* out) {
    const std::string& op = step.op();
    if (op == "new_sm") return NewSessionManager(step);
    if (op == "prepare_session" || op == "recover_session" || op == "wait_for_session") {
      return Call(step, out);
    }
    if (op == "new_session") {
      sessions_.push_back(nullptr);
      SessionOptions config;
      config.target = Master(step.master());
      MG_ASSIGN_OR_RETURN(sessions_.back(), NewSession(config));
      return sessions_.back()->Create(graphs_.at(step.graph()));
    }
    if (op == "run") {
      MG_ASSIGN_OR_RETURN(Session * s, SessionAt(step.session()));
      const RunArgs args = Split(step.names());
      std::vector<Tensor> outputs;
      return s->Run({}, args.fetches, args.targets, &outputs);
    }
    if (op == "values") return Values(step, out);
    if (op == "save") {
      MG_ASSIGN_OR_RETURN(Session * s, SessionAt(step.session()));
      MG_ASSIGN_OR_RETURN(Saver * saver, SaverAt(step.saver()));
      return saver->Save(s, Path(step.path())).status();
    }
    if (op == "last_checkpoints") {
      MG_ASSIGN_OR_RETURN(Saver * saver, SaverAt(step.saver()));
      for (const std::string& c : saver->last_checkpoints()) {
        out->add_paths(absl::StartsWith(c, dir_ + "/") ? c.substr(dir_.size() + 1) : c);
      }
      return absl::OkStatus();
    }
    if (op == "mkdir") return clock_.CreateDir(Path(step.path()));
    if (op == "rename") return clock_.RenameFile(Path(step.path()), Path(step.path2()));
    if (op == "rmtree") {
      const std::string path = Path(step.path());
      absl::StatusOr<bool> is_dir = clock_.IsDirectory(path);
      return is_dir.ok() && *is_dir ? DeleteRecursively(&clock_, path) : clock_.DeleteFile(path);
    }
    if (op == "write_file") return WriteStringToFile(&clock_, Path(step.path()), step.path2());
    return absl::InvalidArgumentError(absl::StrCat("unknown step '", op, "'"));
  }

  FakeClockEnv clock_{Env::Default()};
  const Plan plan_;
  const std::string dir_;
  std::vector<GraphDef> graphs_;
  std::vector<std::unique_ptr<Saver>> savers_;  // one per graph; null: no Saver
  std::vector<std::unique_ptr<SessionManager>> sms_;
  std::vector<std::unique_ptr<Session>> sessions_;
};

absl::Status Main() {
  MG_ASSIGN_OR_RETURN(std::string json,
                      ReadFileToString(Env::Default(), absl::GetFlag(FLAGS_plan)));
  Plan plan;
  auto parsed = google::protobuf::util::JsonStringToMessage(json, &plan);
  if (!parsed.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat(absl::GetFlag(FLAGS_plan), " is no sm_scenario.Plan: ", parsed.ToString()));
  }
  Runner runner(std::move(plan), absl::GetFlag(FLAGS_dir));
  MG_RETURN_IF_ERROR(runner.Init());
  runner.RunAll();
  return absl::OkStatus();
}

}  // namespace
}  // namespace minigraph

int main(int argc, char** argv) {
  absl::ParseCommandLine(argc, argv);
  minigraph::SetMinLogLevel(minigraph::LogLevel::kError);
  absl::Status st = minigraph::Main();
  if (!st.ok()) {
    std::fprintf(stderr, "sm_scenario_runner: %s\n", st.ToString().c_str());
    return 1;
  }
  return 0;
}
