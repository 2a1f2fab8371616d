// The record framing on its own: what RecordWriter writes, ReadRecordFrom
// reads back from any source, in small chunks or large; its errors.
#include "core/record_io.h"

#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "core/coding.h"
#include "core/crc32c.h"
#include "core/mem_env.h"
#include "core/status_matchers.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace minigraph {
namespace {

using ::testing::HasSubstr;

// The bytes of a string, handed out at most `step` at a time; fails with
// `error` once `fail_at` bytes have been read.
class StringSource : public RecordSource {
 public:
  StringSource(std::string bytes, size_t step, size_t fail_at = std::string::npos,
               absl::Status error = absl::OkStatus())
      : bytes_(std::move(bytes)), step_(step), fail_at_(fail_at), error_(std::move(error)) {}

  absl::StatusOr<size_t> Read(size_t n, char* dst) override {
    size_t done = 0;
    while (done < n && at_ < bytes_.size()) {
      if (at_ >= fail_at_) return error_;
      const size_t take = std::min({n - done, step_, bytes_.size() - at_});
      bytes_.copy(dst + done, take, at_);
      at_ += take;
      done += take;
    }
    return done;
  }

 private:
  const std::string bytes_;
  const size_t step_;
  const size_t fail_at_;
  const absl::Status error_;
  size_t at_ = 0;
};

// `records` framed by RecordWriter, in memory.
std::string Framed(const std::vector<std::string>& records) {
  MemEnv env;
  auto file = env.NewWritableFile("/r");
  EXPECT_OK(file.status());
  RecordWriter writer(file->get());
  for (const std::string& r : records) EXPECT_OK(writer.WriteRecord(r));
  EXPECT_OK((*file)->Close());
  return ReadFileToString(&env, "/r").value_or("");
}

TEST(RecordIoTest, ReadsWhatTheWriterWroteInAnyChunkSize) {
  const std::string big(100'000, 'x');
  const std::string bytes = Framed({"a", "", big});
  EXPECT_EQ(bytes.size(), 3 * 16 + 1 + big.size());
  for (size_t chunk : {size_t{1}, size_t{7}, size_t{1} << 20}) {
    StringSource source(bytes, /*step=*/3);
    std::string record;
    uint64_t offset = 0;
    for (const std::string& want : {std::string("a"), std::string(), big}) {
      ASSERT_OK(ReadRecordFrom(&source, "/r", offset, &record, UINT64_MAX, chunk));
      EXPECT_EQ(record, want);
      offset += 16 + record.size();
    }
    EXPECT_THAT(ReadRecordFrom(&source, "/r", offset, &record),
                StatusIs(absl::StatusCode::kOutOfRange, HasSubstr("/r: no record at 100049")));
  }
}

TEST(RecordIoTest, ErrorsNameTheStreamAndTheRecordsOffset) {
  const std::string bytes = Framed({"hello"});
  std::string record;
  {
    StringSource source(bytes.substr(0, 5), 100);
    EXPECT_THAT(ReadRecordFrom(&source, "/r", 40, &record),
                StatusIs(absl::StatusCode::kDataLoss,
                         HasSubstr("/r: corrupted record at 40: the file ends inside its header")));
  }
  {
    StringSource source(bytes.substr(0, 15), 100);
    EXPECT_THAT(ReadRecordFrom(&source, "/r", 0, &record),
                StatusIs(absl::StatusCode::kDataLoss,
                         HasSubstr("the file ends inside its 5 bytes of data")));
  }
  for (size_t flip : {size_t{0}, size_t{13}}) {
    std::string bad = bytes;
    bad[flip] ^= 1;
    StringSource source(bad, 100);
    EXPECT_THAT(ReadRecordFrom(&source, "/r", 0, &record),
                StatusIs(absl::StatusCode::kDataLoss,
                         HasSubstr(flip == 0 ? "its length's checksum does not match"
                                             : "its data's checksum does not match")));
  }
  {
    StringSource source(bytes, 100);
    EXPECT_THAT(ReadRecordFrom(&source, "/r", 0, &record, /*max_length=*/4),
                StatusIs(absl::StatusCode::kResourceExhausted,
                         HasSubstr("/r: the record at 0 holds 5 bytes, more than 4")));
  }
  {
    StringSource source(bytes, 1, /*fail_at=*/14, absl::UnavailableError("disk gone"));
    EXPECT_THAT(ReadRecordFrom(&source, "/r", 0, &record),
                StatusIs(absl::StatusCode::kUnavailable, "disk gone"));
  }
}

// A length far beyond the stream (its own checksum intact) costs no more
// memory than the bytes that are there.
TEST(RecordIoTest, AHugeLengthReadsOnlyWhatIsThere) {
  char header[12];
  EncodeFixed64(header, uint64_t{1} << 40);
  EncodeFixed32(header + 8, crc32c::Mask(crc32c::Value(header, 8)));
  StringSource source(std::string(header, 12) + std::string(1000, 'x'), 100);
  std::string record;
  EXPECT_THAT(ReadRecordFrom(&source, "/r", 0, &record, UINT64_MAX, /*chunk=*/256),
              StatusIs(absl::StatusCode::kDataLoss,
                       HasSubstr("the file ends inside its 1099511627776 bytes of data")));
  EXPECT_LE(record.capacity(), 4096u);
}

// A source that knows how much is left: a length beyond it fails unread.
TEST(RecordIoTest, ASourceOfKnownSizeRefusesALengthBeyondItUnread) {
  class Sized : public StringSource {
   public:
    using StringSource::StringSource;
    std::optional<uint64_t> Remaining() const override { return 1000; }
  };
  char header[12];
  EncodeFixed64(header, 2000);
  EncodeFixed32(header + 8, crc32c::Mask(crc32c::Value(header, 8)));
  Sized source(std::string(header, 12) + std::string(2004, 'x'), 100);
  std::string record;
  EXPECT_THAT(ReadRecordFrom(&source, "/r", 0, &record),
              StatusIs(absl::StatusCode::kDataLoss,
                       HasSubstr("the file ends inside its 2000 bytes of data")));
  EXPECT_TRUE(record.empty());
}

}  // namespace
}  // namespace minigraph
