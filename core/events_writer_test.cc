#include "core/events_writer.h"

#include <string>
#include <vector>

#include "core/mem_env.h"
#include "core/path.h"
#include "core/record_io.h"
#include "core/status_matchers.h"
#include "gtest/gtest.h"

namespace minigraph {
namespace {

using ::testing::HasSubstr;
using ::testing::MatchesRegex;
using ::testing::SizeIs;

// Counts the syncs of the files it opens for writing.
class SyncCountingEnv : public EnvWrapper {
 public:
  using EnvWrapper::EnvWrapper;
  absl::StatusOr<std::unique_ptr<WritableFile>> NewWritableFile(const std::string& path) override {
    MG_ASSIGN_OR_RETURN(std::unique_ptr<WritableFile> f, EnvWrapper::NewWritableFile(path));
    return std::unique_ptr<WritableFile>(new Counted(std::move(f), &syncs));
  }
  int syncs = 0;

 private:
  class Counted : public WritableFile {
   public:
    Counted(std::unique_ptr<WritableFile> f, int* syncs) : f_(std::move(f)), syncs_(syncs) {}
    absl::Status Append(absl::string_view data) override { return f_->Append(data); }
    absl::Status Flush() override { return f_->Flush(); }
    absl::Status Sync() override {
      ++*syncs_;
      return f_->Sync();
    }
    absl::Status Close() override { return f_->Close(); }

   private:
    std::unique_ptr<WritableFile> f_;
    int* syncs_;
  };
};

class EventsWriterTest : public ::testing::Test {
 protected:
  // The events of `path`, in order; the test fails on any bad record.
  std::vector<Event> ReadEvents(const std::string& path) {
    std::vector<Event> events;
    absl::StatusOr<std::unique_ptr<RandomAccessFile>> file = mem_.NewRandomAccessFile(path);
    EXPECT_THAT(file.status(), IsOk());
    if (!file.ok()) return events;
    RecordReader reader(file->get(), path);
    uint64_t offset = 0;
    std::string record;
    absl::Status s;
    while ((s = reader.ReadRecord(&offset, &record)).ok()) {
      events.emplace_back();
      EXPECT_TRUE(events.back().ParseFromString(record));
    }
    EXPECT_THAT(s, StatusIs(absl::StatusCode::kOutOfRange));
    return events;
  }

  std::vector<std::string> Files() {
    return mem_.GetChildren("/logs").value_or(std::vector<std::string>());
  }

  FakeClockEnv clock_{Env::Default(), 1'700'000'000'250'000};
  MemEnv mem_{&clock_};
  SyncCountingEnv env_{&mem_};
};

TEST_F(EventsWriterTest, FileIsNamedAsTensorFlowsAndStartsWithItsVersion) {
  ASSERT_OK_AND_ASSIGN(auto w, EventsWriter::Create("/logs", {.env = &env_}));
  EXPECT_THAT(Basename(w->filename()), MatchesRegex("events\\.out\\.tfevents\\.1700000000\\..+"));
  ASSERT_THAT(Files(), SizeIs(1));
  std::vector<Event> events = ReadEvents(w->filename());
  ASSERT_THAT(events, SizeIs(1));
  EXPECT_EQ(events[0].file_version(), "brain.Event:2");
  EXPECT_DOUBLE_EQ(events[0].wall_time(), 1700000000.25);
}

TEST_F(EventsWriterTest, EveryKindOfEventReadsBack) {
  ASSERT_OK_AND_ASSIGN(auto w, EventsWriter::Create("/logs", {.env = &env_}));
  ASSERT_THAT(w->AddScalar("loss", 0.5f, 7), IsOk());
  Summary merged;
  merged.add_value()->set_tag("lr");
  merged.mutable_value(0)->set_simple_value(0.01f);
  ASSERT_THAT(w->AddSummary(merged.SerializeAsString(), 8), IsOk());
  GraphDef graph;
  graph.add_node()->set_name("x");
  ASSERT_THAT(w->AddGraph(graph), IsOk());
  SessionLog log;
  log.set_status(SessionLog::CHECKPOINT);
  log.set_checkpoint_path("/logs/model.ckpt");
  ASSERT_THAT(w->AddSessionLog(log, 9), IsOk());
  ASSERT_THAT(w->Close(), IsOk());

  std::vector<Event> events = ReadEvents(w->filename());
  ASSERT_THAT(events, SizeIs(5));
  EXPECT_EQ(events[1].step(), 7);
  EXPECT_EQ(events[1].summary().value(0).tag(), "loss");
  EXPECT_EQ(events[1].summary().value(0).simple_value(), 0.5f);
  EXPECT_EQ(events[2].step(), 8);
  EXPECT_EQ(events[2].summary().value(0).tag(), "lr");
  GraphDef back;
  ASSERT_TRUE(back.ParseFromString(events[3].graph_def()));
  EXPECT_EQ(back.node(0).name(), "x");
  EXPECT_EQ(events[4].session_log().status(), SessionLog::CHECKPOINT);
  EXPECT_EQ(events[4].session_log().checkpoint_path(), "/logs/model.ckpt");
  EXPECT_EQ(events[4].step(), 9);
  for (const Event& e : events) EXPECT_DOUBLE_EQ(e.wall_time(), 1700000000.25);
}

TEST_F(EventsWriterTest, FlushesWhenEnoughEventsWaitOrEnoughTimePassed) {
  ASSERT_OK_AND_ASSIGN(auto w, EventsWriter::Create(
                                   "/logs", {.env = &env_,
                                             .flush_every = absl::Seconds(120),
                                             .max_pending = 3}));
  EXPECT_EQ(env_.syncs, 1);  // the version event
  ASSERT_THAT(w->AddScalar("a", 1, 1), IsOk());
  ASSERT_THAT(w->AddScalar("a", 2, 2), IsOk());
  EXPECT_EQ(env_.syncs, 1);
  ASSERT_THAT(w->AddScalar("a", 3, 3), IsOk());  // 3 pending
  EXPECT_EQ(env_.syncs, 2);
  ASSERT_THAT(w->AddScalar("a", 4, 4), IsOk());
  EXPECT_EQ(env_.syncs, 2);
  clock_.AdvanceMicros(119'000'000);
  ASSERT_THAT(w->AddScalar("a", 5, 5), IsOk());
  EXPECT_EQ(env_.syncs, 2);
  clock_.AdvanceMicros(1'000'000);
  ASSERT_THAT(w->AddScalar("a", 6, 6), IsOk());  // 120 s since the last flush
  EXPECT_EQ(env_.syncs, 3);
  ASSERT_THAT(w->Flush(), IsOk());
  EXPECT_EQ(env_.syncs, 4);
}

TEST_F(EventsWriterTest, TwoWritersInOneSecondGetTwoFiles) {
  ASSERT_OK_AND_ASSIGN(auto a, EventsWriter::Create("/logs", {.env = &env_}));
  ASSERT_OK_AND_ASSIGN(auto b, EventsWriter::Create("/logs", {.env = &env_}));
  EXPECT_EQ(b->filename(), a->filename() + ".1");
  ASSERT_THAT(a->AddScalar("a", 1, 1), IsOk());
  ASSERT_THAT(a->Close(), IsOk());
  ASSERT_THAT(b->Close(), IsOk());
  EXPECT_THAT(ReadEvents(a->filename()), SizeIs(2));
  EXPECT_THAT(ReadEvents(b->filename()), SizeIs(1));
}

TEST_F(EventsWriterTest, ReopenedAfterCloseItGoesOnInANewFile) {
  ASSERT_OK_AND_ASSIGN(auto w, EventsWriter::Create("/logs", {.env = &env_}));
  ASSERT_THAT(w->AddScalar("loss", 1, 1), IsOk());
  ASSERT_THAT(w->Reopen(), IsOk());  // open: nothing to do
  ASSERT_THAT(w->Close(), IsOk());
  const std::string first = w->filename();
  EXPECT_THAT(w->AddScalar("loss", 2, 2).message(), HasSubstr("is closed"));
  ASSERT_THAT(w->Reopen(), IsOk());
  EXPECT_NE(w->filename(), first);
  ASSERT_THAT(w->AddScalar("loss", 3, 3), IsOk());
  ASSERT_THAT(w->Close(), IsOk());
  EXPECT_THAT(ReadEvents(first), SizeIs(2));
  std::vector<Event> events = ReadEvents(w->filename());
  ASSERT_THAT(events, SizeIs(2));
  EXPECT_EQ(events[1].step(), 3);
}

TEST_F(EventsWriterTest, DeletedFileIsReplacedAtTheNextFlush) {
  ASSERT_OK_AND_ASSIGN(auto w, EventsWriter::Create("/logs", {.env = &env_}));
  const std::string first = w->filename();
  ASSERT_THAT(mem_.DeleteFile(first), IsOk());
  clock_.AdvanceMicros(5'000'000);
  ASSERT_THAT(w->AddScalar("loss", 1, 1), IsOk());
  ASSERT_THAT(w->Flush(), IsOk());
  EXPECT_NE(w->filename(), first);
  ASSERT_THAT(Files(), SizeIs(1));
  std::vector<Event> events = ReadEvents(w->filename());
  ASSERT_THAT(events, SizeIs(1));  // the lost scalar went with the old file
  EXPECT_EQ(events[0].file_version(), "brain.Event:2");
  ASSERT_THAT(w->AddScalar("loss", 2, 2), IsOk());
  ASSERT_THAT(w->Close(), IsOk());
  EXPECT_THAT(ReadEvents(w->filename()), SizeIs(2));
}

TEST_F(EventsWriterTest, OpenOnFirstEventLeavesNoFileUntilThen) {
  ASSERT_OK_AND_ASSIGN(auto w, EventsWriter::Create("/logs", {.env = &env_,
                                                              .open_on_first_event = true}));
  EXPECT_EQ(w->filename(), "");
  EXPECT_THAT(Files(), SizeIs(0));
  ASSERT_THAT(w->AddScalar("loss", 1, 1), IsOk());
  ASSERT_THAT(w->Close(), IsOk());
  std::vector<Event> events = ReadEvents(w->filename());
  ASSERT_THAT(events, SizeIs(2));
  EXPECT_EQ(events[0].file_version(), "brain.Event:2");
  ASSERT_OK_AND_ASSIGN(auto unused, EventsWriter::Create("/logs/quiet",
                                                         {.env = &env_,
                                                          .open_on_first_event = true}));
  ASSERT_THAT(unused->Close(), IsOk());
  EXPECT_FALSE(mem_.FileExists("/logs/quiet").ok());
}

TEST_F(EventsWriterTest, BadInputsAreErrorsThatNameThem) {
  EXPECT_THAT(EventsWriter::Create("", {.env = &env_}).status(),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("log directory")));
  EXPECT_THAT(EventsWriter::Create("/logs", {.env = &env_, .max_pending = 0}).status(),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("max_pending")));
  ASSERT_OK_AND_ASSIGN(auto w, EventsWriter::Create("/logs", {.env = &env_}));
  EXPECT_THAT(w->AddSummary(absl::string_view("\xff\xff\xff", 3), 4),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("3 bytes for step 4 does not parse")));
  ASSERT_THAT(w->Close(), IsOk());
  EXPECT_THAT(w->AddScalar("loss", 1, 1),
              StatusIs(absl::StatusCode::kFailedPrecondition, HasSubstr("is closed")));
}

// A writer killed mid-record leaves a file whose complete records read;
// the cut record is DataLoss naming the file and its offset.
TEST_F(EventsWriterTest, RecordsBeforeACutOneStillRead) {
  ASSERT_OK_AND_ASSIGN(auto w, EventsWriter::Create("/logs", {.env = &env_}));
  ASSERT_THAT(w->AddScalar("loss", 1, 1), IsOk());
  ASSERT_THAT(w->AddScalar("loss", 2, 2), IsOk());
  ASSERT_THAT(w->Close(), IsOk());
  ASSERT_OK_AND_ASSIGN(std::string bytes, ReadFileToString(&mem_, w->filename()));
  for (size_t cut : {size_t{1}, size_t{5}, size_t{13}}) {
    const std::string path = "/cut/events";
    ASSERT_THAT(WriteStringToFile(&mem_, path, bytes.substr(0, bytes.size() - cut)), IsOk());
    ASSERT_OK_AND_ASSIGN(auto file, mem_.NewRandomAccessFile(path));
    RecordReader reader(file.get(), path);
    uint64_t offset = 0;
    std::string record;
    ASSERT_THAT(reader.ReadRecord(&offset, &record), IsOk());
    ASSERT_THAT(reader.ReadRecord(&offset, &record), IsOk());
    const uint64_t last = offset;
    EXPECT_THAT(reader.ReadRecord(&offset, &record),
                StatusIs(absl::StatusCode::kDataLoss,
                         HasSubstr(absl::StrCat(path, ": corrupted record at ", last))));
    EXPECT_EQ(offset, last);
  }
  // A flipped byte of data fails its checksum.
  bytes[bytes.size() - 6] ^= 1;
  ASSERT_THAT(WriteStringToFile(&mem_, "/bad", bytes), IsOk());
  ASSERT_OK_AND_ASSIGN(auto file, mem_.NewRandomAccessFile("/bad"));
  RecordReader reader(file.get(), "/bad");
  uint64_t offset = 0;
  std::string record;
  absl::Status s;
  while ((s = reader.ReadRecord(&offset, &record)).ok()) {
  }
  EXPECT_THAT(s, StatusIs(absl::StatusCode::kDataLoss, HasSubstr("data's checksum")));
}

}  // namespace
}  // namespace minigraph
