// The readers on the executor, over an in-memory Env: what each makes of
// its files, how reads cross files and end with the queue, the counters,
// and bad use. TensorFlow 2.21's values for the same files are checked by
// op_interop_test (the "readers" graphs).
#include <map>
#include <string>
#include <vector>

#include "core/env.h"
#include "core/mem_env.h"
#include "core/record_io.h"
#include "core/status_matchers.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "runtime/cc/ops.h"
#include "runtime/cc/scope.h"
#include "runtime/engine/kernels/kernel_test_util.h"
#include "runtime/graph/node_def_util.h"

namespace minigraph {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

std::vector<std::string> Strings(const Tensor& t) {
  return std::vector<std::string>(t.data<std::string>(), t.data<std::string>() + t.NumElements());
}

class ReaderTest : public ::testing::Test {
 protected:
  ReaderTest() { EXPECT_OK(env_.CreateDir("/d")); }

  // A filename queue holding `files`, closed, and reader "r" of `op` with
  // `attrs`: "read" (key, value), "read_up_to" (feed "n:0"), "produced",
  // "completed", "reset", "state", "restore" (feed "state_in:0").
  void Start(const std::string& op, const std::vector<std::string>& files,
             std::map<std::string, AttrValue> attrs = {}) {
    Scope s = Scope::NewRootScope();
    const std::map<std::string, AttrValue> strings = {
        {"component_types", MakeAttrValue(std::vector<DataType>{DT_STRING})}};
    Output q = s.WithOpName("q").AddOp("FIFOQueueV2", {}, strings).output(0);
    Tensor names(DT_STRING, TensorShape({static_cast<int64_t>(files.size())}));
    for (size_t i = 0; i < files.size(); ++i) names.data<std::string>()[i] = files[i];
    s.WithOpName("fill").AddOp("QueueEnqueueManyV2", {{q}, {ops::Const(s, names)}});
    s.WithOpName("close").AddOp("QueueCloseV2", {{q}});
    Output r = s.WithOpName("r").AddOp(op, {}, attrs).output(0);
    s.WithOpName("read").AddOp("ReaderReadV2", {{r}, {q}});
    Output n = ops::Placeholder(s.WithOpName("n"), DT_INT64);
    s.WithOpName("read_up_to").AddOp("ReaderReadUpToV2", {{r}, {q}, {n}});
    s.WithOpName("produced").AddOp("ReaderNumRecordsProducedV2", {{r}});
    s.WithOpName("completed").AddOp("ReaderNumWorkUnitsCompletedV2", {{r}});
    s.WithOpName("reset").AddOp("ReaderResetV2", {{r}});
    s.WithOpName("state").AddOp("ReaderSerializeStateV2", {{r}});
    Output state = ops::Placeholder(s.WithOpName("state_in"), DT_STRING);
    s.WithOpName("restore").AddOp("ReaderRestoreStateV2", {{r}, {state}});
    ASSERT_OK_AND_ASSIGN(runner_, GraphRunner::Create(s.ToGraphDef().value(), &env_));
    std::vector<Tensor> out;
    ASSERT_OK(runner_->Run({}, {}, {"fill"}, &out));
    ASSERT_OK(runner_->Run({}, {}, {"close"}, &out));
  }
  // Every (key, value) "read" gives until the queue ends.
  std::vector<std::string> ReadAll() {
    std::vector<std::string> got;
    while (true) {
      std::vector<Tensor> out;
      absl::Status s = runner_->Run({}, {"read:0", "read:1"}, {}, &out);
      if (absl::IsOutOfRange(s)) return got;
      EXPECT_OK(s);
      if (!s.ok()) return got;
      got.push_back(out[0].data<std::string>()[0] + "=" + out[1].data<std::string>()[0]);
    }
  }
  int64_t Count(const std::string& op) {
    std::vector<Tensor> out;
    EXPECT_OK(runner_->Run({}, {op + ":0"}, {}, &out));
    return out.empty() ? -1 : out[0].data<int64_t>()[0];
  }
  void WriteRecords(const std::string& path, const std::vector<std::string>& records) {
    ASSERT_OK_AND_ASSIGN(auto file, env_.NewWritableFile(path));
    RecordWriter writer(file.get());
    for (const std::string& r : records) ASSERT_OK(writer.WriteRecord(r));
    ASSERT_OK(file->Close());
  }

  MemEnv env_;
  std::unique_ptr<GraphRunner> runner_;
};

TEST_F(ReaderTest, ATFRecordReaderKeysEachRecordByItsOffset) {
  WriteRecords("/d/a.tfrecord", {"x", "yy"});
  WriteRecords("/d/empty.tfrecord", {});
  WriteRecords("/d/b.tfrecord", {"z"});
  Start("TFRecordReaderV2", {"/d/a.tfrecord", "/d/empty.tfrecord", "/d/b.tfrecord"});
  EXPECT_THAT(ReadAll(), ElementsAre("/d/a.tfrecord:0=x", "/d/a.tfrecord:17=yy",
                                     "/d/b.tfrecord:0=z"));
  EXPECT_EQ(Count("produced"), 3);
  EXPECT_EQ(Count("completed"), 3);
}

TEST_F(ReaderTest, ATextLineReaderSkipsHeadersAndNumbersLinesFromOne) {
  ASSERT_OK(WriteStringToFile(&env_, "/d/a.csv", "h\nx,1\r\ny,2"));
  ASSERT_OK(WriteStringToFile(&env_, "/d/b.csv", "h\n"));
  Start("TextLineReaderV2", {"/d/a.csv", "/d/b.csv"},
        {{"skip_header_lines", MakeAttrValue(int64_t{1})}});
  EXPECT_THAT(ReadAll(), ElementsAre("/d/a.csv:2=x,1", "/d/a.csv:3=y,2"));
  EXPECT_EQ(Count("completed"), 2);
}

TEST_F(ReaderTest, AFixedLengthRecordReaderHopsOverHeaderAndFooter) {
  ASSERT_OK(WriteStringToFile(&env_, "/d/f.bin", "HHabcdefgFF"));
  Start("FixedLengthRecordReaderV2", {"/d/f.bin"},
        {{"header_bytes", MakeAttrValue(int64_t{2})},
         {"record_bytes", MakeAttrValue(int64_t{3})},
         {"footer_bytes", MakeAttrValue(int64_t{2})},
         {"hop_bytes", MakeAttrValue(int64_t{2})}});
  // Records start 2 bytes apart and each needs 2 bytes after it.
  EXPECT_THAT(ReadAll(), ElementsAre("/d/f.bin:0=abc", "/d/f.bin:1=cde", "/d/f.bin:2=efg"));
}

TEST_F(ReaderTest, ReadUpToStopsAtTheEndOfAFile) {
  WriteRecords("/d/a.tfrecord", {"1", "2", "3"});
  WriteRecords("/d/b.tfrecord", {"4"});
  Start("TFRecordReaderV2", {"/d/a.tfrecord", "/d/b.tfrecord"});
  std::vector<Tensor> out;
  ASSERT_OK(runner_->Run({{"n:0", Tensor::Scalar<int64_t>(2)}}, {"read_up_to:1"}, {}, &out));
  EXPECT_THAT(Strings(out[0]), ElementsAre("1", "2"));
  ASSERT_OK(runner_->Run({{"n:0", Tensor::Scalar<int64_t>(5)}}, {"read_up_to:1"}, {}, &out));
  EXPECT_THAT(Strings(out[0]), ElementsAre("3"));
  ASSERT_OK(runner_->Run({{"n:0", Tensor::Scalar<int64_t>(5)}}, {"read_up_to:1"}, {}, &out));
  EXPECT_THAT(Strings(out[0]), ElementsAre("4"));
  EXPECT_THAT(runner_->Run({{"n:0", Tensor::Scalar<int64_t>(5)}}, {"read_up_to:1"}, {}, &out),
              StatusIs(absl::StatusCode::kOutOfRange, HasSubstr("is closed")));
}

TEST_F(ReaderTest, AWholeFileReaderAndAnIdentityReaderKeepTheirWork) {
  ASSERT_OK(WriteStringToFile(&env_, "/d/w", "all of it"));
  Start("WholeFileReaderV2", {"/d/w"});
  EXPECT_THAT(ReadAll(), ElementsAre("/d/w=all of it"));
  Start("IdentityReaderV2", {"a", "b"});
  EXPECT_THAT(ReadAll(), ElementsAre("a=a", "b=b"));
}

TEST_F(ReaderTest, AnIdentityReadersStateRestoresItsCounters) {
  Start("IdentityReaderV2", {"a", "b", "c"});
  ASSERT_EQ(ReadAll().size(), 3u);
  std::vector<Tensor> out;
  ASSERT_OK(runner_->Run({}, {"state:0"}, {}, &out));
  const Tensor state = out[0];
  ASSERT_OK(runner_->Run({}, {}, {"reset"}, &out));
  EXPECT_EQ(Count("produced"), 0);
  ASSERT_OK(runner_->Run({{"state_in:0", state}}, {}, {"restore"}, &out));
  EXPECT_EQ(Count("produced"), 3);
  EXPECT_EQ(Count("completed"), 3);
  EXPECT_THAT(runner_->Run({{"state_in:0", Tensor::Scalar<std::string>("\xff")}}, {},
                           {"restore"}, &out),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("Could not parse state for ReaderInterface 'r'")));
  EXPECT_EQ(Count("produced"), 0);  // a bad state leaves a fresh reader
}

// Graphs from before TensorFlow 1.2 (GraphDef versions below 26, which
// TensorFlow 2.21 no longer builds) hold the V1 readers and queues, whose
// handles are references.
TEST_F(ReaderTest, TheV1OpsReadThroughReferenceHandles) {
  WriteRecords("/d/a.tfrecord", {"x", "yy"});
  Scope s = Scope::NewRootScope();
  Output q = s.WithOpName("q")
                 .AddOp("FIFOQueue", {},
                        {{"component_types", MakeAttrValue(std::vector<DataType>{DT_STRING})}})
                 .output(0);
  s.WithOpName("fill").AddOp("QueueEnqueue",
                             {{q}, {ops::Const(s, Tensor::Scalar<std::string>("/d/a.tfrecord"))}});
  s.WithOpName("close").AddOp("QueueClose", {{q}});
  Output r = s.WithOpName("r").AddOp("TFRecordReader", {}).output(0);
  s.WithOpName("read").AddOp("ReaderRead", {{r}, {q}});
  s.WithOpName("produced").AddOp("ReaderNumRecordsProduced", {{r}});
  GraphDef def = s.ToGraphDef().value();
  def.mutable_versions()->set_producer(21);  // TensorFlow 1.0's
  ASSERT_OK_AND_ASSIGN(runner_, GraphRunner::Create(def, &env_));
  std::vector<Tensor> out;
  ASSERT_OK(runner_->Run({}, {}, {"fill"}, &out));
  ASSERT_OK(runner_->Run({}, {}, {"close"}, &out));
  EXPECT_THAT(ReadAll(), ElementsAre("/d/a.tfrecord:0=x", "/d/a.tfrecord:17=yy"));
  EXPECT_EQ(Count("produced"), 2);
}

TEST_F(ReaderTest, BadUseIsAnErrorNamingWhatIsWrong) {
  Start("TFRecordReaderV2", {"/d/missing"});
  std::vector<Tensor> out;
  EXPECT_THAT(runner_->Run({}, {"read:0"}, {}, &out),
              StatusIs(absl::StatusCode::kNotFound, HasSubstr("/d/missing")));
  EXPECT_THAT(runner_->Run({}, {"state:0"}, {}, &out),
              StatusIs(absl::StatusCode::kUnimplemented, HasSubstr("Reader SerializeState")));
  ASSERT_OK(WriteStringToFile(&env_, "/d/bad.tfrecord", "not a record at all"));
  Start("TFRecordReaderV2", {"/d/bad.tfrecord"});
  EXPECT_THAT(runner_->Run({}, {"read:0"}, {}, &out),
              StatusIs(absl::StatusCode::kDataLoss, HasSubstr("/d/bad.tfrecord")));
  absl::StatusOr<std::unique_ptr<GraphRunner>> bad;
  for (const auto& [attr, value] : std::vector<std::pair<std::string, int64_t>>{
           {"record_bytes", 0}, {"hop_bytes", -1}}) {
    Scope s = Scope::NewRootScope();
    std::map<std::string, AttrValue> attrs = {{"record_bytes", MakeAttrValue(int64_t{4})}};
    attrs[attr] = MakeAttrValue(value);
    s.WithOpName("r").AddOp("FixedLengthRecordReaderV2", {}, attrs);
    bad = GraphRunner::Create(s.ToGraphDef().value(), &env_);
    absl::Status st = bad.ok() ? (*bad)->Run({}, {}, {"r"}, &out) : bad.status();
    EXPECT_THAT(st, StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr(attr + " must be")));
  }
}

}  // namespace
}  // namespace minigraph
