#include "session/distributed/cluster.h"

#include "core/mem_env.h"
#include "core/status_matchers.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace minigraph {
namespace {

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
        Case{"ps=a:70000", "port in 0..65535"}, Case{"p s=a:1", "may use only letters"}}) {
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

}  // namespace
}  // namespace minigraph
