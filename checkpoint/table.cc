#include "checkpoint/table.h"

#include <memory>

#include "absl/strings/str_cat.h"
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
    return absl::InvalidArgumentError(absl::StrCat("table ", r.name, ": key \"", key,
                                                   "\" is not after \"", r.last_key, "\""));
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

absl::Status ReadTable(
    Env* env, const std::string& path,
    const std::function<absl::Status(absl::string_view, absl::string_view)>& visit) {
  MG_ASSIGN_OR_RETURN(uint64_t size, env->GetFileSize(path));
  MG_ASSIGN_OR_RETURN(auto raw, env->NewRandomAccessFile(path));
  RandomAccessAdapter file(std::move(raw));
  leveldb::Options options;
  options.paranoid_checks = true;  // verify the index block's crc too
  leveldb::Table* table_ptr = nullptr;
  MG_RETURN_IF_ERROR(FromLevelDb(leveldb::Table::Open(options, &file, size, &table_ptr), path));
  std::unique_ptr<leveldb::Table> table(table_ptr);
  leveldb::ReadOptions read_options;
  read_options.verify_checksums = true;
  read_options.fill_cache = false;
  std::unique_ptr<leveldb::Iterator> it(table->NewIterator(read_options));
  for (it->SeekToFirst(); it->Valid(); it->Next()) {
    MG_RETURN_IF_ERROR(visit(absl::string_view(it->key().data(), it->key().size()),
                             absl::string_view(it->value().data(), it->value().size())));
  }
  return FromLevelDb(it->status(), path);
}

}  // namespace table
}  // namespace minigraph
