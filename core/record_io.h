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
// Thread-compatible: one writer or reader per thread.

#ifndef MINIGRAPH_CORE_RECORD_IO_H_
#define MINIGRAPH_CORE_RECORD_IO_H_

#include <cstdint>
#include <string>

#include "absl/status/status.h"
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

class RecordReader {
 public:
  // `file` is not owned and must outlive the reader; `name` is for errors.
  RecordReader(const RandomAccessFile* file, std::string name)
      : file_(file), name_(std::move(name)) {}

  // Reads the record at `*offset` into `record` and moves `*offset` past it.
  // Returns OutOfRange when the file ends exactly at `*offset`, DataLoss
  // naming the file and the offset when a checksum fails or the file ends
  // inside the record (a writer killed mid-record leaves one such record
  // at the end; everything before it reads).
  absl::Status ReadRecord(uint64_t* offset, std::string* record) const;

 private:
  const RandomAccessFile* const file_;
  const std::string name_;
};

}  // namespace minigraph

#endif  // MINIGRAPH_CORE_RECORD_IO_H_
