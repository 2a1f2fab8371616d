// TensorFlow's record framing, the format of TFRecord files and of
// TensorBoard's event files: each record is its length (little-endian
// uint64), the masked crc32c of those 8 bytes, the data, and the masked
// crc32c of the data.
//
//   RecordWriter writer(file.get());
//   MG_RETURN_IF_ERROR(writer.WriteRecord(event.SerializeAsString()));
//
//   RecordReader reader(file.get(), path);
//   uint64_t offset = 0;
//   std::string record;
//   while ((s = reader.ReadRecord(&offset, &record)).ok()) { ... }
//   // OutOfRange at the end; DataLoss naming the file and offset otherwise
//
// ReadRecordFrom parses the same framing from any RecordSource, such as a
// decompressed stream (TFRecordDataset reads through it).
//
// Thread-compatible: one writer, reader or source per thread.

#ifndef MINIGRAPH_CORE_RECORD_IO_H_
#define MINIGRAPH_CORE_RECORD_IO_H_

#include <cstdint>
#include <limits>
#include <optional>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "core/env.h"

namespace minigraph {

class RecordWriter {
 public:
  // `file` is not owned and must outlive the writer.
  explicit RecordWriter(WritableFile* file) : file_(file) {}

  // Appends one record (not flushed: see WritableFile::Flush).
  absl::Status WriteRecord(absl::string_view data);

 private:
  WritableFile* const file_;
};

// A stream of records' bytes, read in order: a file, or the decompressed
// bytes of one.
class RecordSource {
 public:
  virtual ~RecordSource() = default;
  // Reads up to `n` bytes into `dst`; fewer only where the stream ends.
  virtual absl::StatusOr<size_t> Read(size_t n, char* dst) = 0;
  // How many bytes are left, where the source knows (a file of known
  // size): a record longer than that fails at once, unread.
  virtual std::optional<uint64_t> Remaining() const { return std::nullopt; }
};

// Reads the record at the start of `source`, which is at `offset` of the
// stream named `name`, into `record`. Returns OutOfRange when the stream
// ends there; DataLoss "NAME: corrupted record at OFFSET: WHY" when it ends
// inside the record or a checksum fails (TensorFlow's words); and
// ResourceExhausted when the record holds more than `max_length` bytes. The
// data is read `chunk` bytes at a time, so a length beyond the stream's end
// costs no more memory than the bytes that are there. Errors of the source
// pass through as they are.
absl::Status ReadRecordFrom(RecordSource* source, absl::string_view name, uint64_t offset,
                            std::string* record,
                            uint64_t max_length = std::numeric_limits<uint64_t>::max(),
                            size_t chunk = size_t{1} << 20);

class RecordReader {
 public:
  // `file` is not owned and must outlive the reader; `name` is for errors.
  RecordReader(const RandomAccessFile* file, std::string name)
      : file_(file), name_(std::move(name)) {}

  // Reads the record at `*offset` into `record` and moves `*offset` past it.
  // Returns OutOfRange when the file ends exactly at `*offset`, DataLoss
  // naming the file and the offset when a checksum fails or the file ends
  // inside the record (a writer killed mid-record leaves one such record
  // at the end; everything before it reads), as ReadRecordFrom.
  absl::Status ReadRecord(uint64_t* offset, std::string* record) const;

 private:
  const RandomAccessFile* const file_;
  const std::string name_;
};

}  // namespace minigraph

#endif  // MINIGRAPH_CORE_RECORD_IO_H_
