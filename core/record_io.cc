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

absl::Status RecordReader::ReadRecord(uint64_t* offset, std::string* record) const {
  const uint64_t at = *offset;
  char header[kHeaderBytes];
  MG_ASSIGN_OR_RETURN(absl::string_view h, file_->Read(at, kHeaderBytes, header));
  if (h.empty()) return absl::OutOfRangeError(absl::StrCat(name_, ": no record at ", at));
  auto loss = [&](absl::string_view what) {
    return absl::DataLossError(absl::StrCat(name_, ": record at offset ", at, ": ", what));
  };
  if (h.size() < kHeaderBytes) return loss("the file ends inside its header");
  if (crc32c::Unmask(DecodeFixed32(h.data() + 8)) != crc32c::Value(h.data(), 8)) {
    return loss("its length's checksum does not match");
  }
  const uint64_t length = DecodeFixed64(h.data());
  // Read in chunks, so a length larger than the file (a record cut short)
  // costs no more memory than the bytes that are there.
  constexpr uint64_t kChunk = uint64_t{1} << 20;
  const uint64_t want = length + kFooterBytes;
  record->clear();
  while (record->size() < want) {
    const size_t n = static_cast<size_t>(std::min<uint64_t>(kChunk, want - record->size()));
    const size_t old_size = record->size();
    record->resize(old_size + n);
    MG_ASSIGN_OR_RETURN(absl::string_view d, file_->Read(at + kHeaderBytes + old_size, n,
                                                         record->data() + old_size));
    if (d.data() != record->data() + old_size) {
      std::memcpy(record->data() + old_size, d.data(), d.size());
    }
    if (d.size() < n) {
      return loss(absl::StrCat("the file ends inside its ", length, " bytes of data"));
    }
  }
  const uint32_t stored = DecodeFixed32(record->data() + length);
  record->resize(length);
  if (crc32c::Unmask(stored) != crc32c::Value(record->data(), length)) {
    return loss("its data's checksum does not match");
  }
  *offset = at + kHeaderBytes + length + kFooterBytes;
  return absl::OkStatus();
}

}  // namespace minigraph
