// Runs one Supervisor scenario (session/supervisor.h) on a meta graph
// TensorFlow built, for supervisor_interop_test.py, which runs the same
// scenario with TensorFlow's Supervisor and compares: what the managed
// session's body saw, the error it ended with, and the log directory.
//
//   supervisor_runner --meta=g.meta --logdir=D --train=train --steps=3 \
//     --read=v:0,global_step:0 --wait_for_checkpoint --save_at_end
//
// Prints one JSON object: {"code": "OK" | absl's code name, "message": its
// first line, "values": {tensor: [numbers]}, "taken": [numbers],
// "worker_values": {tensor: [numbers]}}.
#include <cstdio>
#include <string>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "core/env.h"
#include "core/logging.h"
#include "core/path.h"
#include "core/status_macros.h"
#include "runtime/cc/import_graph.h"
#include "runtime/cc/scope.h"
#include "session/graph_files.h"
#include "session/supervisor.h"
#include "session/targets.h"

ABSL_FLAG(std::string, meta, "", "The meta graph file");
ABSL_FLAG(std::string, logdir, "", "The Supervisor's logdir");
ABSL_FLAG(std::string, master, "", "The sessions' target");
ABSL_FLAG(bool, chief, true, "is_chief");
ABSL_FLAG(bool, init_op_none, false, "init_op=None");
ABSL_FLAG(bool, local_init_op_none, false, "local_init_op=None");
ABSL_FLAG(double, save_model_secs, 600, "");
ABSL_FLAG(double, save_summaries_secs, 120, "");
ABSL_FLAG(bool, wait_for_checkpoint, false,
          "The body first waits for the checkpoint thread's first save");
ABSL_FLAG(std::string, read, "", "Tensors the body reads first, comma-separated");
ABSL_FLAG(std::string, train, "", "The op the body runs --steps times");
ABSL_FLAG(int, steps, 0, "");
ABSL_FLAG(std::string, run, "", "An op the body runs once after training");
ABSL_FLAG(std::string, dequeue, "", "A tensor the body fetches until it fails");
ABSL_FLAG(bool, save_at_end, false, "The body saves sv.saver to sv.save_path at the end");
ABSL_FLAG(bool, worker_after_chief, false,
          "Then a non-chief Supervisor on --master reads --read");

namespace minigraph {
namespace {

std::string Numbers(const Tensor& t) {
  std::vector<std::string> out;
  for (int64_t i = 0; i < t.NumElements(); ++i) {
    switch (t.dtype()) {
      case DT_FLOAT: out.push_back(absl::StrCat(t.data<float>()[i])); break;
      case DT_INT32: out.push_back(absl::StrCat(t.data<int32_t>()[i])); break;
      case DT_INT64: out.push_back(absl::StrCat(t.data<int64_t>()[i])); break;
      default: out.push_back("null");
    }
  }
  return absl::StrCat("[", absl::StrJoin(out, ", "), "]");
}

// {"tensor": [numbers], ...} of the --read tensors.
absl::StatusOr<std::string> Read(Session* session) {
  std::vector<std::string> names = absl::StrSplit(absl::GetFlag(FLAGS_read), ',',
                                                  absl::SkipEmpty());
  std::vector<Tensor> out;
  if (!names.empty()) MG_RETURN_IF_ERROR(session->Run({}, names, {}, &out));
  std::vector<std::string> items;
  for (size_t i = 0; i < names.size(); ++i) {
    items.push_back(absl::StrCat("\"", names[i], "\": ", Numbers(out[i])));
  }
  return absl::StrCat("{", absl::StrJoin(items, ", "), "}");
}

absl::StatusOr<std::unique_ptr<Supervisor>> NewSupervisor(bool chief) {
  MG_ASSIGN_OR_RETURN(MetaGraphDef meta,
                      ReadMetaGraphFile(Env::Default(), absl::GetFlag(FLAGS_meta)));
  Scope root = Scope::NewRootScope();
  MG_RETURN_IF_ERROR(ImportMetaGraphDef(root, meta));
  SupervisorOptions o;
  o.is_chief = chief;
  o.logdir = absl::GetFlag(FLAGS_logdir);
  if (absl::GetFlag(FLAGS_init_op_none)) o.init_op = std::vector<std::string>{};
  if (absl::GetFlag(FLAGS_local_init_op_none)) o.local_init_op = std::vector<std::string>{};
  o.save_model = absl::Seconds(absl::GetFlag(FLAGS_save_model_secs));
  o.save_summaries = absl::Seconds(absl::GetFlag(FLAGS_save_summaries_secs));
  o.recovery_wait = absl::Seconds(1);
  return Supervisor::Create(root, o);
}

absl::Status Body(Supervisor* sv, Session* session, std::string* values,
                  std::vector<std::string>* taken) {
  if (absl::GetFlag(FLAGS_wait_for_checkpoint)) {
    // The checkpoint thread saves at once, on its own thread: wait for it
    // so that the steps below come after, on both sides.
    const std::string state = JoinPath(absl::GetFlag(FLAGS_logdir), "checkpoint");
    while (!Env::Default()->FileExists(state).ok()) Env::Default()->SleepForMicroseconds(10'000);
  }
  MG_ASSIGN_OR_RETURN(*values, Read(session));
  for (int i = 0; i < absl::GetFlag(FLAGS_steps); ++i) {
    MG_RETURN_IF_ERROR(session->Run({}, {}, {absl::GetFlag(FLAGS_train)}, nullptr));
  }
  if (!absl::GetFlag(FLAGS_run).empty()) {
    MG_RETURN_IF_ERROR(session->Run({}, {}, {absl::GetFlag(FLAGS_run)}, nullptr));
  }
  if (const std::string dequeue = absl::GetFlag(FLAGS_dequeue); !dequeue.empty()) {
    while (!sv->ShouldStop()) {
      std::vector<Tensor> out;
      MG_RETURN_IF_ERROR(session->Run({}, {dequeue}, {}, &out));
      taken->push_back(Numbers(out[0]));
    }
  }
  if (absl::GetFlag(FLAGS_save_at_end)) {
    SaveOptions save;
    std::vector<Tensor> step;
    MG_RETURN_IF_ERROR(session->Run({}, {sv->global_step()}, {}, &step));
    save.global_step = step[0].dtype() == DT_INT64 ? *step[0].data<int64_t>()
                                                   : *step[0].data<int32_t>();
    save.meta_graph = &sv->meta_graph();
    MG_RETURN_IF_ERROR(sv->saver()->Save(session, sv->save_path(), save).status());
  }
  return absl::OkStatus();
}

std::string Quoted(absl::string_view s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    if (c == '\n') break;  // the first line
    out += c;
  }
  return out + "\"";
}

int Main() {
  std::string values = "{}", worker_values = "{}";
  std::vector<std::string> taken;
  absl::Status s = [&]() -> absl::Status {
    MG_ASSIGN_OR_RETURN(std::unique_ptr<Supervisor> sv, NewSupervisor(absl::GetFlag(FLAGS_chief)));
    MG_RETURN_IF_ERROR(sv->ManagedSession(absl::GetFlag(FLAGS_master), {}, [&](Session* session) {
      return Body(sv.get(), session, &values, &taken);
    }));
    if (!absl::GetFlag(FLAGS_worker_after_chief)) return absl::OkStatus();
    MG_ASSIGN_OR_RETURN(std::unique_ptr<Supervisor> worker, NewSupervisor(false));
    return worker->ManagedSession(absl::GetFlag(FLAGS_master), {}, [&](Session* session) {
      MG_ASSIGN_OR_RETURN(worker_values, Read(session));
      return absl::OkStatus();
    });
  }();
  std::printf("{\"code\": %s, \"message\": %s, \"values\": %s, \"taken\": [%s], "
              "\"worker_values\": %s}\n",
              Quoted(absl::StatusCodeToString(s.code())).c_str(), Quoted(s.message()).c_str(),
              values.c_str(), absl::StrJoin(taken, ", ").c_str(), worker_values.c_str());
  return 0;
}

}  // namespace
}  // namespace minigraph

int main(int argc, char** argv) {
  absl::ParseCommandLine(argc, argv);
  minigraph::SetMinLogLevel(minigraph::LogLevel::kError);
  return minigraph::Main();
}
