#include "checkpoint/table.h"

#include <memory>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "core/coding.h"
#include "core/crc32c.h"
#include "core/status_macros.h"
#include "leveldb/env.h"
#include "leveldb/iterator.h"
#include "leveldb/options.h"
#include "leveldb/table.h"
#include "leveldb/table_builder.h"

namespace minigraph {
namespace table {
namespace {

// LevelDB file interfaces over minigraph's Env. Each keeps the first Env
// error so it can be returned with its code after LevelDB's status.
class WritableAdapter : public leveldb::WritableFile {
 public:
  explicit WritableAdapter(minigraph::WritableFile* file) : file_(file) {}
  leveldb::Status Append(const leveldb::Slice& data) override {
    return Wrap(file_->Append(absl::string_view(data.data(), data.size())));
  }
  // The caller closes, flushes and syncs the underlying file.
  leveldb::Status Close() override { return leveldb::Status::OK(); }
  leveldb::Status Flush() override { return Wrap(file_->Flush()); }
  leveldb::Status Sync() override { return leveldb::Status::OK(); }
  const absl::Status& error() const { return error_; }

 private:
  leveldb::Status Wrap(const absl::Status& s) {
    if (s.ok()) return leveldb::Status::OK();
    if (error_.ok()) error_ = s;
    return leveldb::Status::IOError(std::string(s.message()));
  }
  minigraph::WritableFile* file_;
  absl::Status error_;
};

class RandomAccessAdapter : public leveldb::RandomAccessFile {
 public:
  explicit RandomAccessAdapter(std::unique_ptr<minigraph::RandomAccessFile> f)
      : file_(std::move(f)) {}
  leveldb::Status Read(uint64_t offset, size_t n, leveldb::Slice* result,
                       char* scratch) const override {
    absl::StatusOr<absl::string_view> got = file_->Read(offset, n, scratch);
    if (!got.ok()) return leveldb::Status::IOError(std::string(got.status().message()));
    *result = leveldb::Slice(got->data(), got->size());
    return leveldb::Status::OK();
  }

 private:
  std::unique_ptr<minigraph::RandomAccessFile> file_;
};

absl::Status FromLevelDb(const leveldb::Status& s, const std::string& path) {
  if (s.ok()) return absl::OkStatus();
  const std::string msg = absl::StrCat("checkpoint index ", path, ": ", s.ToString());
  if (s.IsNotFound()) return absl::NotFoundError(msg);
  if (s.IsIOError()) return absl::InternalError(msg);
  return absl::DataLossError(msg);  // corruption, bad magic, bad block type, ...
}

// LevelDB's reader allocates a block's size before it reads the block, so a
// corrupt footer or index entry claiming a 2^40-byte block ends the process
// with std::bad_alloc. LevelDB's block parser is not in its public headers,
// so the few lines below check every block handle against the file first:
// the footer's two handles, then each data block handle in the index block.
constexpr size_t kFooterSize = 48;       // two padded handles + 8-byte magic
constexpr size_t kBlockTrailerSize = 5;  // type byte + masked crc32c
constexpr uint64_t kTableMagic = 0xdb4775248b80fb57ull;

struct Handle {
  uint64_t offset = 0;
  uint64_t size = 0;
};

bool DecodeHandle(absl::string_view* in, Handle* h) {
  return GetVarint64(in, &h->offset) && GetVarint64(in, &h->size);
}

absl::Status CheckHandle(const Handle& h, uint64_t limit, absl::string_view what,
                         const std::string& path) {
  uint64_t end;
  if (__builtin_add_overflow(h.offset, h.size, &end) ||
      __builtin_add_overflow(end, kBlockTrailerSize, &end) || end > limit) {
    return absl::DataLossError(absl::StrCat("checkpoint index ", path, ": ", what, " [", h.offset,
                                            ", +", h.size, ") reaches past the table's ", limit,
                                            " bytes of blocks (corrupt or truncated)"));
  }
  return absl::OkStatus();
}

absl::Status CheckBlockHandles(const minigraph::RandomAccessFile& file, uint64_t size,
                               const std::string& path) {
  if (size < kFooterSize) {
    return absl::DataLossError(absl::StrCat("checkpoint index ", path, " is ", size,
                                            " bytes, shorter than a table footer (", kFooterSize,
                                            "); truncated?"));
  }
  const uint64_t limit = size - kFooterSize;
  char footer_buf[kFooterSize];
  MG_ASSIGN_OR_RETURN(absl::string_view footer, file.Read(limit, kFooterSize, footer_buf));
  if (footer.size() != kFooterSize ||
      DecodeFixed64(footer.data() + kFooterSize - 8) != kTableMagic) {
    return absl::DataLossError(
        absl::StrCat("checkpoint index ", path, " does not end with a table footer (bad magic)"));
  }
  Handle meta, index;
  if (!DecodeHandle(&footer, &meta) || !DecodeHandle(&footer, &index)) {
    return absl::DataLossError(
        absl::StrCat("checkpoint index ", path, ": the footer's block handles do not parse"));
  }
  MG_RETURN_IF_ERROR(CheckHandle(meta, limit, "the footer's metaindex block", path));
  MG_RETURN_IF_ERROR(CheckHandle(index, limit, "the footer's index block", path));

  // The index block is within the file, so reading it allocates at most the
  // file's size. Its crc is checked first: without it, the parse below could
  // only call a corrupt block malformed.
  std::string block(index.size + kBlockTrailerSize, '\0');
  MG_ASSIGN_OR_RETURN(absl::string_view got, file.Read(index.offset, block.size(), block.data()));
  auto corrupt = [&](absl::string_view why) {
    return absl::DataLossError(absl::StrCat("checkpoint index ", path, ": the index block ", why));
  };
  if (got.size() != block.size()) return corrupt("is truncated");
  if (crc32c::Unmask(DecodeFixed32(got.data() + index.size + 1)) !=
      crc32c::Value(got.data(), index.size + 1)) {
    return corrupt("fails its checksum");
  }
  // Block layout: entries, then num_restarts fixed32 offsets, then
  // num_restarts. Each entry: varint32 shared, non_shared and value lengths,
  // the key's non-shared bytes, the value (a data block handle).
  absl::string_view contents = got.substr(0, index.size);
  if (contents.size() < 4) return corrupt("is shorter than its restart count");
  const uint64_t restarts = DecodeFixed32(contents.data() + contents.size() - 4);
  if (restarts * 4 + 4 > contents.size()) return corrupt("has a bad restart count");
  absl::string_view entries = contents.substr(0, contents.size() - 4 - restarts * 4);
  while (!entries.empty()) {
    uint64_t shared, non_shared, value_size;
    if (!GetVarint64(&entries, &shared) || !GetVarint64(&entries, &non_shared) ||
        !GetVarint64(&entries, &value_size) || non_shared > entries.size() ||
        value_size > entries.size() - non_shared) {
      return corrupt("has a malformed entry");
    }
    entries.remove_prefix(non_shared);
    absl::string_view value = entries.substr(0, value_size);
    entries.remove_prefix(value_size);
    Handle data;
    if (!DecodeHandle(&value, &data)) return corrupt("has a malformed block handle");
    MG_RETURN_IF_ERROR(CheckHandle(data, limit, "a data block", path));
  }
  return absl::OkStatus();
}

}  // namespace

struct TableWriter::Rep {
  std::string name;
  std::unique_ptr<WritableAdapter> file;
  std::unique_ptr<leveldb::TableBuilder> builder;
  std::string last_key;
  bool has_entries = false;
};

TableWriter::TableWriter(std::unique_ptr<Rep> rep) : rep_(std::move(rep)) {}

TableWriter::~TableWriter() {
  if (rep_->builder != nullptr) rep_->builder->Abandon();
}

std::unique_ptr<TableWriter> TableWriter::Create(WritableFile* file, std::string name) {
  auto rep = std::make_unique<Rep>();
  rep->name = std::move(name);
  rep->file = std::make_unique<WritableAdapter>(file);
  leveldb::Options options;
  options.block_size = kBlockSize;
  options.block_restart_interval = kBlockRestartInterval;
  options.compression = leveldb::kNoCompression;
  options.filter_policy = nullptr;
  rep->builder = std::make_unique<leveldb::TableBuilder>(options, rep->file.get());
  return std::unique_ptr<TableWriter>(new TableWriter(std::move(rep)));
}

absl::Status TableWriter::Add(absl::string_view key, absl::string_view value) {
  Rep& r = *rep_;
  if (r.builder == nullptr) {
    return absl::FailedPreconditionError(absl::StrCat("table ", r.name, " is already finished"));
  }
  if (r.has_entries && key <= r.last_key) {
    return absl::InvalidArgumentError(
        absl::StrCat("table ", r.name, ": key \"", key, "\" is not after \"", r.last_key, "\""));
  }
  // TensorFlow's TableBuilder flushes the current block before an entry of
  // at least two blocks, so the big entry starts a block of its own.
  if (r.has_entries && key.size() + value.size() >= 2 * kBlockSize) r.builder->Flush();
  r.builder->Add(leveldb::Slice(key.data(), key.size()),
                 leveldb::Slice(value.data(), value.size()));
  r.last_key = std::string(key);
  r.has_entries = true;
  if (!r.file->error().ok()) return r.file->error();
  return FromLevelDb(r.builder->status(), r.name);
}

absl::Status TableWriter::Finish() {
  Rep& r = *rep_;
  if (r.builder == nullptr) {
    return absl::FailedPreconditionError(absl::StrCat("table ", r.name, " is already finished"));
  }
  leveldb::Status s = r.builder->Finish();
  r.builder.reset();
  if (!r.file->error().ok()) return r.file->error();
  return FromLevelDb(s, r.name);
}

struct TableReader::Rep {
  std::string path;
  std::unique_ptr<RandomAccessAdapter> file;
  std::unique_ptr<leveldb::Table> table;
};

TableReader::TableReader(std::unique_ptr<Rep> rep) : rep_(std::move(rep)) {}
TableReader::~TableReader() = default;
const std::string& TableReader::path() const { return rep_->path; }

absl::StatusOr<std::unique_ptr<TableReader>> TableReader::Open(Env* env, const std::string& path) {
  MG_ASSIGN_OR_RETURN(uint64_t size, env->GetFileSize(path));
  MG_ASSIGN_OR_RETURN(auto raw, env->NewRandomAccessFile(path));
  MG_RETURN_IF_ERROR(CheckBlockHandles(*raw, size, path));
  auto rep = std::make_unique<Rep>();
  rep->path = path;
  rep->file = std::make_unique<RandomAccessAdapter>(std::move(raw));
  leveldb::Options options;
  options.paranoid_checks = true;  // verify the index block's crc too
  leveldb::Table* table = nullptr;
  MG_RETURN_IF_ERROR(
      FromLevelDb(leveldb::Table::Open(options, rep->file.get(), size, &table), path));
  rep->table.reset(table);
  return std::unique_ptr<TableReader>(new TableReader(std::move(rep)));
}

static leveldb::ReadOptions CheckedReads() {
  leveldb::ReadOptions options;
  options.verify_checksums = true;
  options.fill_cache = false;
  return options;
}

absl::StatusOr<std::string> TableReader::Get(absl::string_view key) const {
  std::unique_ptr<leveldb::Iterator> it(rep_->table->NewIterator(CheckedReads()));
  const leveldb::Slice k(key.data(), key.size());
  it->Seek(k);
  if (it->Valid() && it->key() == k) return it->value().ToString();
  MG_RETURN_IF_ERROR(FromLevelDb(it->status(), rep_->path));
  return absl::NotFoundError(
      absl::StrCat("table ", rep_->path, " has no key \"", absl::CHexEscape(key), "\""));
}

absl::Status TableReader::ForEach(
    const std::function<absl::Status(absl::string_view, absl::string_view)>& visit) const {
  std::unique_ptr<leveldb::Iterator> it(rep_->table->NewIterator(CheckedReads()));
  for (it->SeekToFirst(); it->Valid(); it->Next()) {
    MG_RETURN_IF_ERROR(visit(absl::string_view(it->key().data(), it->key().size()),
                             absl::string_view(it->value().data(), it->value().size())));
  }
  return FromLevelDb(it->status(), rep_->path);
}

absl::Status ReadTable(
    Env* env, const std::string& path,
    const std::function<absl::Status(absl::string_view, absl::string_view)>& visit) {
  MG_ASSIGN_OR_RETURN(std::unique_ptr<TableReader> table, TableReader::Open(env, path));
  return table->ForEach(visit);
}

}  // namespace table
}  // namespace minigraph
