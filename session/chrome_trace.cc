#include "session/chrome_trace.h"

#include <cstdint>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/string_view.h"
#include "google/protobuf/struct.pb.h"
#include "google/protobuf/util/json_util.h"

namespace minigraph {
namespace {

using google::protobuf::Struct;

// A node's op and inputs, from its timeline label "NAME = Op(in, ...)";
// a label of another form gives the whole label as the op.
struct Label {
  std::string op;
  std::vector<std::string> inputs;
};

Label ParseLabel(absl::string_view label) {
  Label out;
  const size_t eq = label.find(" = ");
  absl::string_view rest = eq == absl::string_view::npos ? label : label.substr(eq + 3);
  const size_t open = rest.find('(');
  if (open == absl::string_view::npos || rest.back() != ')') {
    out.op = std::string(rest);
    return out;
  }
  out.op = std::string(rest.substr(0, open));
  absl::string_view args = rest.substr(open + 1, rest.size() - open - 2);
  if (!args.empty()) out.inputs = absl::StrSplit(args, ", ");
  return out;
}

void Set(Struct* s, const std::string& key, const std::string& value) {
  (*s->mutable_fields())[key].set_string_value(value);
}
void Set(Struct* s, const std::string& key, double value) {
  (*s->mutable_fields())[key].set_number_value(value);
}

Struct* NewEvent(google::protobuf::ListValue* events, const std::string& ph,
                 const std::string& name, int pid, int64_t tid, int64_t ts) {
  Struct* e = events->add_values()->mutable_struct_value();
  Set(e, "ph", ph);
  Set(e, "name", name);
  Set(e, "pid", pid);
  Set(e, "tid", static_cast<double>(tid));
  Set(e, "ts", static_cast<double>(ts));
  return e;
}

}  // namespace

absl::StatusOr<std::string> ChromeTrace(const tensorflow::StepStats& stats, bool show_dataflow) {
  Struct root;
  google::protobuf::ListValue* events =
      (*root.mutable_fields())["traceEvents"].mutable_list_value();
  // Where and when each node's outputs became ready: its device's process,
  // its thread, its end.
  struct Produced {
    int pid;
    int64_t tid;
    int64_t end;
  };
  absl::flat_hash_map<std::string, Produced> produced;
  for (int pid = 0; pid < stats.dev_stats_size(); ++pid) {
    const tensorflow::DeviceStepStats& dev = stats.dev_stats(pid);
    Struct* meta = NewEvent(events, "M", "process_name", pid, 0, 0);
    Set((*meta->mutable_fields())["args"].mutable_struct_value(), "name",
        absl::StrCat(dev.device(), " Compute"));
    for (const tensorflow::NodeExecStats& n : dev.node_stats()) {
      produced[n.node_name()] = {pid, n.thread_id(), n.all_start_micros() + n.all_end_rel_micros()};
    }
  }
  int64_t flow_id = 0;
  for (int pid = 0; pid < stats.dev_stats_size(); ++pid) {
    for (const tensorflow::NodeExecStats& n : stats.dev_stats(pid).node_stats()) {
      const Label label = ParseLabel(n.timeline_label());
      const std::string& op = label.op.empty() ? n.node_name() : label.op;
      Struct* e = NewEvent(events, "X", op, pid, n.thread_id(), n.all_start_micros());
      Set(e, "cat", "Op");
      Set(e, "dur", static_cast<double>(n.all_end_rel_micros()));
      Struct* args = (*e->mutable_fields())["args"].mutable_struct_value();
      Set(args, "name", n.node_name());
      Set(args, "op", op);
      for (size_t i = 0; i < label.inputs.size(); ++i) {
        Set(args, absl::StrCat("input", i), label.inputs[i]);
      }
      if (!show_dataflow) continue;
      for (const std::string& input : label.inputs) {
        if (absl::StartsWith(input, "^")) continue;  // a control input
        const std::string producer(input.substr(0, input.find(':')));
        auto it = produced.find(producer);
        if (it == produced.end()) continue;
        const Produced& p = it->second;
        if (p.pid == pid && p.tid == n.thread_id()) continue;
        const double id = static_cast<double>(flow_id++);
        Struct* start = NewEvent(events, "s", input, p.pid, p.tid, p.end);
        Set(start, "cat", "DataFlow");
        Set(start, "id", id);
        Struct* end = NewEvent(events, "t", input, pid, n.thread_id(), n.all_start_micros());
        Set(end, "cat", "DataFlow");
        Set(end, "id", id);
      }
    }
  }
  std::string json;
  if (auto s = google::protobuf::util::MessageToJsonString(root, &json); !s.ok()) {
    return absl::InternalError(absl::StrCat("Chrome trace: ", s.ToString()));
  }
  return json;
}

}  // namespace minigraph
