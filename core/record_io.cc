#include "core/record_io.h"

#include <algorithm>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "core/coding.h"
#include "core/crc32c.h"
#include "core/status_macros.h"

namespace minigraph {
namespace {

constexpr size_t kHeaderBytes = sizeof(uint64_t) + sizeof(uint32_t);
constexpr size_t kFooterBytes = sizeof(uint32_t);

}  // namespace

absl::Status RecordWriter::WriteRecord(absl::string_view data) {
  char header[kHeaderBytes];
  EncodeFixed64(header, data.size());
  EncodeFixed32(header + 8, crc32c::Mask(crc32c::Value(header, 8)));
  char footer[kFooterBytes];
  EncodeFixed32(footer, crc32c::Mask(crc32c::Value(data.data(), data.size())));
  MG_RETURN_IF_ERROR(file_->Append(absl::string_view(header, kHeaderBytes)));
  MG_RETURN_IF_ERROR(file_->Append(data));
  return file_->Append(absl::string_view(footer, kFooterBytes));
}

namespace {

// The bytes of a RandomAccessFile from a position on.
class FileSource : public RecordSource {
 public:
  FileSource(const RandomAccessFile* file, uint64_t position) : file_(file), position_(position) {}

  absl::StatusOr<size_t> Read(size_t n, char* dst) override {
    MG_ASSIGN_OR_RETURN(absl::string_view got, file_->Read(position_, n, dst));
    if (got.data() != dst) std::memmove(dst, got.data(), got.size());
    position_ += got.size();
    return got.size();
  }

 private:
  const RandomAccessFile* const file_;
  uint64_t position_;
};

}  // namespace

absl::Status ReadRecordFrom(RecordSource* source, absl::string_view name, uint64_t offset,
                            std::string* record, uint64_t max_length, size_t chunk) {
  auto corrupt = [&](absl::string_view why) {
    return absl::DataLossError(
        absl::StrCat(name, ": corrupted record at ", offset, ": ", why));
  };
  char header[kHeaderBytes];
  MG_ASSIGN_OR_RETURN(size_t got, source->Read(kHeaderBytes, header));
  if (got == 0) return absl::OutOfRangeError(absl::StrCat(name, ": no record at ", offset));
  if (got < kHeaderBytes) return corrupt("the file ends inside its header");
  if (crc32c::Unmask(DecodeFixed32(header + 8)) != crc32c::Value(header, 8)) {
    return corrupt("its length's checksum does not match");
  }
  const uint64_t length = DecodeFixed64(header);
  if (length > max_length) {
    return absl::ResourceExhaustedError(absl::StrCat(name, ": the record at ", offset, " holds ",
                                                     length, " bytes, more than ", max_length));
  }
  const uint64_t want = length + kFooterBytes;
  const std::optional<uint64_t> left = source->Remaining();
  if (left.has_value() && want > *left) {
    return corrupt(absl::StrCat("the file ends inside its ", length, " bytes of data"));
  }
  // Read in chunks, so a length larger than the stream (a record cut short)
  // costs no more memory than the bytes that are there.
  record->clear();
  while (record->size() < want) {
    const size_t n = static_cast<size_t>(std::min<uint64_t>(chunk, want - record->size()));
    const size_t old_size = record->size();
    record->resize(old_size + n);
    MG_ASSIGN_OR_RETURN(got, source->Read(n, record->data() + old_size));
    if (got < n) {
      return corrupt(absl::StrCat("the file ends inside its ", length, " bytes of data"));
    }
  }
  const uint32_t stored = DecodeFixed32(record->data() + length);
  record->resize(length);
  if (crc32c::Unmask(stored) != crc32c::Value(record->data(), length)) {
    return corrupt("its data's checksum does not match");
  }
  return absl::OkStatus();
}

absl::Status RecordReader::ReadRecord(uint64_t* offset, std::string* record) const {
  FileSource source(file_, *offset);
  MG_RETURN_IF_ERROR(ReadRecordFrom(&source, name_, *offset, record));
  *offset += kHeaderBytes + record->size() + kFooterBytes;
  return absl::OkStatus();
}

}  // namespace minigraph
