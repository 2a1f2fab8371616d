// The checkpoint `.index` file: a LevelDB table (Debian's libleveldb)
// configured so its bytes are TensorFlow's (see FORMAT.md): block size
// 256 KiB, restart interval 16, no compression, no filter, and TensorFlow's
// extra rule of flushing the current block before an entry of 512 KiB or
// more.
//
//   MG_ASSIGN_OR_RETURN(auto w, TableWriter::Create(file.get(), path));
//   MG_RETURN_IF_ERROR(w->Add("", header));       // keys strictly increasing
//   MG_RETURN_IF_ERROR(w->Finish());
//
//   MG_RETURN_IF_ERROR(ReadTable(env, path, [](absl::string_view k, absl::string_view v) {
//     ...; return absl::OkStatus();
//   }));

#ifndef MINIGRAPH_CHECKPOINT_TABLE_H_
#define MINIGRAPH_CHECKPOINT_TABLE_H_

#include <functional>
#include <memory>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "core/env.h"

namespace minigraph {
namespace table {

// TensorFlow's table options (tensor_bundle.cc, table_options.h).
inline constexpr size_t kBlockSize = 256 * 1024;
inline constexpr int kBlockRestartInterval = 16;

// Not thread-safe.
class TableWriter {
 public:
  // `file` (not owned) must outlive the writer; `name` is for messages.
  static std::unique_ptr<TableWriter> Create(WritableFile* file, std::string name);
  ~TableWriter();
  // Returns InvalidArgument when `key` is not greater than the previous key,
  // or the file's error.
  absl::Status Add(absl::string_view key, absl::string_view value);
  // Writes the index block and footer. The caller syncs and closes the file.
  absl::Status Finish();

 private:
  struct Rep;
  explicit TableWriter(std::unique_ptr<Rep> rep);
  std::unique_ptr<Rep> rep_;
};

// A table open for reading: Open reads and checks the footer and the index
// block; Get and ForEach read each data block they need and check its crc.
// Safe for concurrent use.
class TableReader {
 public:
  // NotFound when the file is missing, DataLoss naming it when it is
  // truncated or its footer or index block is corrupt.
  static absl::StatusOr<std::unique_ptr<TableReader>> Open(Env* env, const std::string& path);
  ~TableReader();
  const std::string& path() const;
  // The value of `key`; NotFound when the table has no such key, DataLoss
  // naming the file when the block that would hold it is corrupt.
  absl::StatusOr<std::string> Get(absl::string_view key) const;
  // Calls `visit` for every entry in key order; returns the first error of
  // `visit` or of the file.
  absl::Status ForEach(const std::function<absl::Status(absl::string_view key,
                                                        absl::string_view value)>& visit) const;

 private:
  struct Rep;
  explicit TableReader(std::unique_ptr<Rep> rep);
  std::unique_ptr<Rep> rep_;
};

// Reads every entry of the table at `path` in key order, checking every
// block's crc, and calls `visit` for each. Returns NotFound when the file is
// missing, DataLoss naming the file when it is truncated or corrupt, or the
// first error `visit` returns.
absl::Status ReadTable(
    Env* env, const std::string& path,
    const std::function<absl::Status(absl::string_view key, absl::string_view value)>& visit);

}  // namespace table
}  // namespace minigraph

#endif  // MINIGRAPH_CHECKPOINT_TABLE_H_
