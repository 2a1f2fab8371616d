#include "session/distributed/cluster.h"

#include "core/mem_env.h"
#include "core/status_matchers.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace minigraph {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;

TEST(ClusterTest, ParsesTheFlagForm) {
  ASSERT_OK_AND_ASSIGN(tensorflow::ClusterDef c,
                       ParseClusterSpec("ps=127.0.0.1:2222;worker=127.0.0.1:2223,127.0.0.1:2224"));
  ASSERT_EQ(c.job_size(), 2);
  EXPECT_EQ(c.job(0).name(), "ps");
  EXPECT_EQ(c.job(1).tasks().at(1), "127.0.0.1:2224");
  EXPECT_THAT(TaskAddress(c, "worker", 0), IsOkAndHolds("127.0.0.1:2223"));
  EXPECT_EQ(ClusterSpecString(c), "ps=127.0.0.1:2222;worker=127.0.0.1:2223,127.0.0.1:2224");
  EXPECT_THAT(TaskAddress(c, "chief", 0), StatusIs(absl::StatusCode::kNotFound,
                                                   HasSubstr("no job 'chief' (jobs: ps, worker)")));
  EXPECT_THAT(
      TaskAddress(c, "worker", 2),
      StatusIs(absl::StatusCode::kNotFound, HasSubstr("no task 2 in job 'worker' (it has 2)")));
}

TEST(ClusterTest, BadSpecsNameThePartAtFault) {
  struct Case {
    const char* spec;
    const char* message;
  };
  for (const Case& c :
       {Case{"", "names no job"}, Case{"ps", "'ps' is not JOB=HOST:PORT"},
        Case{"=a:1", "a job has no name"}, Case{"ps=a:1;ps=b:2", "job 'ps' appears twice"},
        Case{"ps=a:1,", "/job:ps/task:1: '' is not HOST:PORT"},
        Case{"ps=a", "/job:ps/task:0: 'a' is not HOST:PORT"},
        Case{"ps=a:70000", "port in 0..65535"}, Case{"p s=a:1", "may use only letters"},
        Case{"ps=a:1;worker=b:2,a:1", "/job:ps/task:0 and /job:worker/task:1 have the same "
                                      "address a:1"}}) {
    EXPECT_THAT(ParseClusterSpec(c.spec).status(),
                StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr(c.message)))
        << c.spec;
  }
}

TEST(ClusterTest, ReadsTensorFlowsTextFormat) {
  MemEnv env;
  ASSERT_OK(WriteStringToFile(&env, "/c.pbtxt",
                              "job { name: 'ps' tasks { key: 0 value: 'h:1' } }\n"
                              "job { name: 'worker' tasks { key: 0 value: 'h:2' } "
                              "tasks { key: 1 value: 'h:3' } }\n"));
  ASSERT_OK_AND_ASSIGN(tensorflow::ClusterDef c, ReadClusterFile(&env, "/c.pbtxt"));
  EXPECT_EQ(ClusterSpecString(c), "ps=h:1;worker=h:2,h:3");
  ASSERT_OK(
      WriteStringToFile(&env, "/gap.pbtxt", "job { name: 'ps' tasks { key: 1 value: 'h:1' } }"));
  EXPECT_THAT(ReadClusterFile(&env, "/gap.pbtxt").status(),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("/gap.pbtxt: cluster: job 'ps' has 1 tasks but no task 0")));
  ASSERT_OK(WriteStringToFile(&env, "/junk.pbtxt", "job {"));
  EXPECT_THAT(
      ReadClusterFile(&env, "/junk.pbtxt").status(),
      StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("/junk.pbtxt: not a ClusterDef")));
  EXPECT_THAT(ReadClusterFile(&env, "/missing").status(), StatusIs(absl::StatusCode::kNotFound));
}

TEST(ClusterTest, DeviceStrings) {
  EXPECT_EQ(TaskDeviceName("ps", 1), "/job:ps/replica:0/task:1/device:CPU:0");
  ASSERT_OK_AND_ASSIGN(DeviceSpec d, ParseDeviceSpec("/job:ps/replica:0/task:1/device:CPU:0"));
  EXPECT_EQ(d.job, "ps");
  EXPECT_EQ(d.task, 1);
  EXPECT_EQ(d.type, "CPU");
  ASSERT_OK_AND_ASSIGN(d, ParseDeviceSpec("/cpu:0"));
  EXPECT_EQ(d.type, "CPU");
  EXPECT_EQ(d.job, "");
  EXPECT_EQ(d.task, -1);
  ASSERT_OK_AND_ASSIGN(d, ParseDeviceSpec(""));
  EXPECT_EQ(d.type, "");
  EXPECT_THAT(ParseDeviceSpec("/job:ps/task:x").status(),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("cannot read 'task:x'")));
}

TEST(ClusterTest, ReadsTfConfig) {
  ASSERT_OK_AND_ASSIGN(
      TfConfig c,
      ParseTfConfig(R"({"cluster": {"worker": ["w0:2223", "w1:2224"], "ps": ["p:2222"],
                                    "chief": {"0": "c:2225"}},
                        "task": {"type": "worker", "index": 1}, "rpc_layer": "grpc"})"));
  EXPECT_EQ(ClusterSpecString(c.cluster), "chief=c:2225;ps=p:2222;worker=w0:2223,w1:2224");
  EXPECT_EQ(c.task_type, "worker");
  EXPECT_EQ(c.task_index, 1);
  EXPECT_EQ(c.rpc_layer, "grpc");
  ASSERT_OK_AND_ASSIGN(TfConfig no_task, ParseTfConfig(R"({"cluster": {"ps": ["p:1"]}})"));
  EXPECT_EQ(no_task.task_type, "");
}

TEST(ClusterTest, BadTfConfigsNameThePartAtFault) {
  auto bad = [](absl::string_view json, absl::string_view what) {
    EXPECT_THAT(ParseTfConfig(json).status(),
                StatusIs(absl::StatusCode::kInvalidArgument,
                         AllOf(HasSubstr("TF_CONFIG: "), HasSubstr(what))))
        << json;
  };
  bad("{cluster", "not a JSON object");
  bad(R"({"cluster": ["a:1"]})", "\"cluster\" must be an object");
  bad(R"({"cluster": {"ps": "a:1"}})", "cluster.ps must be a list");
  bad(R"({"cluster": {"ps": [1]}})", "cluster.ps[0] must be a \"host:port\" string");
  bad(R"({"cluster": {"ps": {"x": "a:1"}}})", "cluster.ps: 'x' is not a task index");
  bad(R"({"cluster": {"ps": ["nohost"]}})", "nohost");
  bad(R"({"cluster": {"ps": ["a:1"]}, "task": {"type": "worker", "index": 0}})",
      "task worker:0");
  bad(R"({"cluster": {"ps": ["a:1"]}, "task": {"type": "ps", "index": 3}})", "task ps:3");
  bad(R"({"cluster": {"ps": ["a:1"]}, "task": {"type": "ps", "index": -1}})",
      "task.index must be a task index");
  bad(R"({"cluster": {"ps": ["a:1"]}, "task": {"index": 0}})", "task.type must be a job name");
  bad(R"({"cluster": {"ps": ["a:1"]}, "rpc_layer": "grpc+verbs"})",
      "rpc_layer \"grpc+verbs\" is not supported");
  // A NUL (or any control character) in a name is shown, not a cut.
  bad(R"({"cluster": {"ps": ["a:1"]}, "task": {"type": "ps\u0000evil", "index": 0}})",
      "task ps\\x00evil:0: ");
  // Port 0 (any free port) may repeat.
  EXPECT_OK(ParseClusterSpec("ps=localhost:0;worker=localhost:0").status());
}

}  // namespace
}  // namespace minigraph
