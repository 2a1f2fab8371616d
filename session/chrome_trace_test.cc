#include "session/chrome_trace.h"

#include <string>
#include <vector>

#include "core/status_matchers.h"
#include "gmock/gmock.h"
#include "google/protobuf/struct.pb.h"
#include "google/protobuf/text_format.h"
#include "google/protobuf/util/json_util.h"
#include "gtest/gtest.h"

namespace minigraph {
namespace {

using ::testing::ElementsAre;
using ::testing::UnorderedElementsAre;

// Two devices: a on the ps, b (of a) and c (of b) on the worker, c on
// another thread than b.
tensorflow::StepStats TwoDevices() {
  tensorflow::StepStats stats;
  EXPECT_TRUE(google::protobuf::TextFormat::ParseFromString(R"pb(
    dev_stats {
      device: "/job:ps/replica:0/task:0/device:CPU:0"
      node_stats { node_name: "a" timeline_label: "a = Const()"
                   all_start_micros: 100 all_end_rel_micros: 5 thread_id: 0 }
    }
    dev_stats {
      device: "/job:worker/replica:0/task:0/device:CPU:0"
      node_stats { node_name: "b" timeline_label: "b = Neg(a:0)"
                   all_start_micros: 110 all_end_rel_micros: 3 thread_id: 0 }
      node_stats { node_name: "c" timeline_label: "c = AddV2(b, b, ^a)"
                   all_start_micros: 115 all_end_rel_micros: 2 thread_id: 1 }
      node_stats { node_name: "odd" timeline_label: "no label of TensorFlow's form"
                   all_start_micros: 120 all_end_rel_micros: 1 thread_id: 1 }
    }
  )pb", &stats));
  return stats;
}

std::vector<google::protobuf::Struct> Events(const std::string& json) {
  google::protobuf::Struct trace;
  EXPECT_TRUE(google::protobuf::util::JsonStringToMessage(json, &trace).ok()) << json;
  std::vector<google::protobuf::Struct> out;
  for (const auto& e : trace.fields().at("traceEvents").list_value().values()) {
    out.push_back(e.struct_value());
  }
  return out;
}

std::string Field(const google::protobuf::Struct& s, const std::string& key) {
  const google::protobuf::Value& v = s.fields().at(key);
  return v.has_string_value() ? v.string_value() : std::to_string(int64_t(v.number_value()));
}

TEST(ChromeTraceTest, AProcessPerDeviceAndAnEventPerNodeAsTensorFlowsTimeline) {
  ASSERT_OK_AND_ASSIGN(std::string json, ChromeTrace(TwoDevices(), /*show_dataflow=*/false));
  std::vector<std::string> processes, ops;
  for (const auto& e : Events(json)) {
    const auto& args = e.fields().at("args").struct_value();
    if (Field(e, "ph") == "M") {
      processes.push_back(Field(e, "pid") + " " + Field(args, "name"));
    } else {
      ASSERT_EQ(Field(e, "ph"), "X");
      std::string line = Field(e, "pid") + "/" + Field(e, "tid") + " " + Field(e, "ts") + "+" +
                         Field(e, "dur") + " " + Field(e, "name") + " " + Field(args, "name");
      if (args.fields().count("input0") > 0) line += " " + Field(args, "input0");
      ops.push_back(line);
    }
  }
  EXPECT_THAT(processes, ElementsAre("0 /job:ps/replica:0/task:0/device:CPU:0 Compute",
                                     "1 /job:worker/replica:0/task:0/device:CPU:0 Compute"));
  EXPECT_THAT(ops, ElementsAre("0/0 100+5 Const a", "1/0 110+3 Neg b a:0", "1/1 115+2 AddV2 c b",
                               "1/1 120+1 no label of TensorFlow's form odd"));
}

TEST(ChromeTraceTest, DataflowArrowsCrossThreadsAndDevicesOnly) {
  ASSERT_OK_AND_ASSIGN(std::string json, ChromeTrace(TwoDevices()));
  std::vector<std::string> flows;
  for (const auto& e : Events(json)) {
    const std::string ph = Field(e, "ph");
    if (ph != "s" && ph != "t") continue;
    flows.push_back(ph + " " + Field(e, "name") + " " + Field(e, "pid") + "/" + Field(e, "tid") +
                    " " + Field(e, "ts") + " #" + Field(e, "id"));
  }
  // a (ps) -> b (worker); b -> c (another thread), once per input; not the
  // control input ^a.
  EXPECT_THAT(flows, UnorderedElementsAre("s a:0 0/0 105 #0", "t a:0 1/0 110 #0",
                                          "s b 1/0 113 #1", "t b 1/1 115 #1", "s b 1/0 113 #2",
                                          "t b 1/1 115 #2"));
}

}  // namespace
}  // namespace minigraph
