// TensorFlow 1's readers: TFRecordReader, TextLineReader,
// FixedLengthRecordReader, WholeFileReader and IdentityReader, shared by
// name like queues, and the ops that read with them. A reader takes its
// work (file names) from a queue, one at a time, and turns each into
// records keyed "file:position"; the read waits while the queue is empty,
// and ends OutOfRange once it is closed and drained, which is how a
// queue-fed input pipeline ends. Files are read through the session's Env.
// After TensorFlow's reader_base.cc and its readers, checked against
// TensorFlow 2.21 (keys, line numbers, hops, the counters and states).
#include <algorithm>
#include <cstring>
#include <memory>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "absl/synchronization/mutex.h"
#include "core/env.h"
#include "core/proto/reader_base.pb.h"
#include "core/record_io.h"
#include "core/status_macros.h"
#include "runtime/engine/kernels/internal/inflater.h"
#include "runtime/engine/kernels/internal/kernel_families.h"
#include "runtime/engine/kernels/internal/queue.h"
#include "runtime/engine/kernels/internal/resource_handles.h"

namespace minigraph {
namespace kernels_internal {
namespace {

constexpr char kReaderTypeName[] = "N10tensorflow15ReaderInterfaceE";  // TensorFlow's
constexpr size_t kChunk = 256 << 10;

absl::StatusOr<Compression> CompressionNamed(const std::string& kind, absl::string_view attr) {
  if (kind.empty()) return Compression::kNone;
  if (kind == "ZLIB") return Compression::kZlib;
  if (kind == "GZIP") return Compression::kGzip;
  return absl::InvalidArgumentError(
      absl::StrCat(attr, " '", kind, "' is not one of \"\", \"ZLIB\" and \"GZIP\""));
}

// A file's bytes in order, decompressed where it is compressed.
class FileBytes final : public RecordSource {
 public:
  static absl::StatusOr<std::unique_ptr<FileBytes>> Open(Env* env, const std::string& path,
                                                         Compression compression) {
    auto bytes = std::unique_ptr<FileBytes>(new FileBytes());
    if (compression == Compression::kNone) {
      MG_ASSIGN_OR_RETURN(bytes->file_, env->NewSequentialFile(path));
    } else {
      MG_ASSIGN_OR_RETURN(bytes->inflater_, OpenInflater(env, path, compression, kChunk));
    }
    return bytes;
  }
  absl::StatusOr<size_t> Read(size_t n, char* dst) override {
    if (inflater_ != nullptr) return inflater_->Read(n, dst);
    size_t done = 0;
    while (done < n) {
      MG_ASSIGN_OR_RETURN(absl::string_view got, file_->Read(n - done, dst + done));
      if (got.empty()) break;
      if (got.data() != dst + done) std::memmove(dst + done, got.data(), got.size());
      done += got.size();
    }
    return done;
  }

 private:
  FileBytes() = default;
  std::unique_ptr<SequentialFile> file_;
  std::unique_ptr<Inflater> inflater_;
};

// What every reader does (TensorFlow's ReaderBase): the work in progress,
// the counters, and reading across work items.
class Reader : public Resource {
 public:
  explicit Reader(std::string name) : name_(std::move(name)) {}
  std::string TypeName() const override { return "ReaderInterface"; }

  // The next record, taking work from `queue` as needed.
  absl::Status Read(Queue* queue, const Queue::Waiter& waiter, Env* env, std::string* key,
                    std::string* value) ABSL_LOCKS_EXCLUDED(mu_) {
    absl::MutexLock l(&mu_);
    while (true) {
      MG_RETURN_IF_ERROR(StartWorkIfNone(queue, waiter, env));
      bool produced = false, at_end = false;
      MG_RETURN_IF_ERROR(ReadLocked(key, value, &produced, &at_end));
      if (at_end) FinishWorkLocked();
      if (produced) {
        ++records_produced_;
        return absl::OkStatus();
      }
    }
  }

  // Up to `n` records: fewer when the work item in progress ends after
  // some were read (TensorFlow's ReadUpTo).
  absl::Status ReadUpTo(int64_t n, Queue* queue, const Queue::Waiter& waiter, Env* env,
                        std::vector<std::string>* keys, std::vector<std::string>* values)
      ABSL_LOCKS_EXCLUDED(mu_) {
    absl::MutexLock l(&mu_);
    while (static_cast<int64_t>(keys->size()) < n) {
      // (Only ever asks for work before this call has read a record.)
      MG_RETURN_IF_ERROR(StartWorkIfNone(queue, waiter, env));
      std::string key, value;
      bool produced = false, at_end = false;
      MG_RETURN_IF_ERROR(ReadLocked(&key, &value, &produced, &at_end));
      if (produced) {
        ++records_produced_;
        keys->push_back(std::move(key));
        values->push_back(std::move(value));
      }
      if (at_end) {
        FinishWorkLocked();
        if (!keys->empty()) break;
      }
    }
    return absl::OkStatus();
  }

  int64_t records_produced() const ABSL_LOCKS_EXCLUDED(mu_) {
    absl::MutexLock l(&mu_);
    return records_produced_;
  }
  int64_t work_finished() const ABSL_LOCKS_EXCLUDED(mu_) {
    absl::MutexLock l(&mu_);
    return work_finished_;
  }
  void Reset() ABSL_LOCKS_EXCLUDED(mu_) {
    absl::MutexLock l(&mu_);
    ResetLocked();
  }

  // TensorFlow's readers keep their position only in an IdentityReader's
  // state; the others are Unimplemented, as there.
  absl::StatusOr<std::string> SerializeState() const ABSL_LOCKS_EXCLUDED(mu_) {
    absl::MutexLock l(&mu_);
    if (!HasState()) return absl::UnimplementedError("Reader SerializeState");
    ReaderBaseState state;
    state.set_work_started(work_started_);
    state.set_work_finished(work_finished_);
    state.set_num_records_produced(records_produced_);
    state.set_current_work(work_);
    return state.SerializeAsString();
  }
  absl::Status RestoreState(const std::string& bytes) ABSL_LOCKS_EXCLUDED(mu_) {
    absl::MutexLock l(&mu_);
    if (!HasState()) return absl::UnimplementedError("Reader RestoreState");
    ReaderBaseState state;
    absl::Status s;
    if (!state.ParseFromString(bytes)) {
      s = absl::InvalidArgumentError(absl::StrCat("Could not parse state for ", TypeName(), " '",
                                                  name_, "': ", absl::CHexEscape(bytes)));
    } else if (state.work_started() < 0 || state.work_finished() < 0 ||
               state.num_records_produced() < 0) {
      s = absl::InvalidArgumentError(absl::StrCat("Unexpected negative value when restoring in ",
                                                  name_, ": ", state.ShortDebugString()));
    } else if (state.work_started() > state.work_finished()) {
      s = absl::InvalidArgumentError(
          absl::StrCat("Inconsistent work started vs. finished when restoring in ", name_, ": ",
                       state.ShortDebugString()));
    }
    if (!s.ok()) {
      ResetLocked();  // as TensorFlow: a bad state leaves a fresh reader
      return s;
    }
    work_started_ = state.work_started();
    work_finished_ = state.work_finished();
    records_produced_ = state.num_records_produced();
    work_ = state.current_work();
    return absl::OkStatus();
  }

 protected:
  // Opens `work` (a file name) for ReadLocked.
  virtual absl::Status OnWorkStartedLocked(Env* env, const std::string& work)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) = 0;
  // The next record of the work in progress, or `*at_end`.
  virtual absl::Status ReadLocked(std::string* key, std::string* value, bool* produced,
                                  bool* at_end) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) = 0;
  // Drops what OnWorkStartedLocked opened.
  virtual void CloseWorkLocked() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {}
  virtual bool HasState() const { return false; }

  // "file:position", TensorFlow's keys.
  std::string KeyName(absl::string_view position) const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    return absl::StrCat(work_, ":", position);
  }
  const std::string& work() const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) { return work_; }

  mutable absl::Mutex mu_;

 private:
  absl::Status StartWorkIfNone(Queue* queue, const Queue::Waiter& waiter, Env* env)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    if (work_finished_ < work_started_) return absl::OkStatus();  // one in progress
    // (TensorFlow's reader, too, holds its lock while it waits for work.)
    MG_ASSIGN_OR_RETURN(Queue::Tuple tuple, queue->Dequeue(waiter));
    if (tuple.size() != 1) return absl::InvalidArgumentError("Expected single component queue");
    if (tuple[0].dtype() != DT_STRING) {
      return absl::InvalidArgumentError("Expected queue with single string component");
    }
    if (tuple[0].NumElements() != 1) {
      return absl::InvalidArgumentError("Expected to dequeue a one-element string tensor");
    }
    work_ = tuple[0].data<std::string>()[0];
    MG_RETURN_IF_ERROR(OnWorkStartedLocked(env, work_));
    ++work_started_;
    return absl::OkStatus();
  }
  // The finished work stays current (in the state) until the next starts.
  void FinishWorkLocked() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    CloseWorkLocked();
    work_finished_ = work_started_;
  }
  void ResetLocked() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    CloseWorkLocked();
    work_started_ = work_finished_ = records_produced_ = 0;
    work_.clear();
  }

  const std::string name_;
  std::string work_ ABSL_GUARDED_BY(mu_);
  int64_t work_started_ ABSL_GUARDED_BY(mu_) = 0;
  int64_t work_finished_ ABSL_GUARDED_BY(mu_) = 0;
  int64_t records_produced_ ABSL_GUARDED_BY(mu_) = 0;
};

class TFRecordReader final : public Reader {
 public:
  TFRecordReader(std::string name, Compression compression)
      : Reader(std::move(name)), compression_(compression) {}

 private:
  absl::Status OnWorkStartedLocked(Env* env, const std::string& work) override {
    offset_ = 0;
    MG_ASSIGN_OR_RETURN(bytes_, FileBytes::Open(env, work, compression_));
    return absl::OkStatus();
  }
  absl::Status ReadLocked(std::string* key, std::string* value, bool* produced,
                          bool* at_end) override {
    *key = KeyName(absl::StrCat(offset_));
    absl::Status s = ReadRecordFrom(bytes_.get(), work(), offset_, value);
    if (absl::IsOutOfRange(s)) {
      *at_end = true;
      return absl::OkStatus();
    }
    MG_RETURN_IF_ERROR(s);
    offset_ += value->size() + 16;  // length, its crc, the data, its crc
    *produced = true;
    return absl::OkStatus();
  }
  void CloseWorkLocked() override { bytes_.reset(); }

  const Compression compression_;
  std::unique_ptr<FileBytes> bytes_;
  uint64_t offset_ = 0;
};

class TextLineReader final : public Reader {
 public:
  TextLineReader(std::string name, int64_t skip_header_lines)
      : Reader(std::move(name)), skip_header_lines_(skip_header_lines) {}

 private:
  absl::Status OnWorkStartedLocked(Env* env, const std::string& work) override {
    line_number_ = 0;
    buffer_.clear();
    pos_ = 0;
    eof_ = false;
    MG_ASSIGN_OR_RETURN(bytes_, FileBytes::Open(env, work, Compression::kNone));
    std::string ignored;
    for (; line_number_ < skip_header_lines_; ++line_number_) {
      MG_ASSIGN_OR_RETURN(bool got, ReadLine(&ignored));
      if (!got) break;  // a file of header lines alone yields nothing
    }
    return absl::OkStatus();
  }
  absl::Status ReadLocked(std::string* key, std::string* value, bool* produced,
                          bool* at_end) override {
    MG_ASSIGN_OR_RETURN(bool got, ReadLine(value));
    ++line_number_;
    if (!got) {
      *at_end = true;
      return absl::OkStatus();
    }
    *key = KeyName(absl::StrCat(line_number_));
    *produced = true;
    return absl::OkStatus();
  }
  void CloseWorkLocked() override { bytes_.reset(); }

  // The next line without its "\n" (or "\r\n"); a last line without one
  // counts when not empty. False at the end.
  absl::StatusOr<bool> ReadLine(std::string* line) {
    line->clear();
    while (true) {
      const size_t newline = buffer_.find('\n', pos_);
      if (newline != std::string::npos) {
        line->append(buffer_, pos_, newline - pos_);
        pos_ = newline + 1;
        break;
      }
      line->append(buffer_, pos_, std::string::npos);
      pos_ = buffer_.size();
      if (eof_) {
        if (line->empty()) return false;
        break;
      }
      buffer_.resize(kChunk);
      MG_ASSIGN_OR_RETURN(size_t n, bytes_->Read(buffer_.size(), buffer_.data()));
      buffer_.resize(n);
      pos_ = 0;
      eof_ = n == 0;
    }
    if (!line->empty() && line->back() == '\r') line->pop_back();
    return true;
  }

  const int64_t skip_header_lines_;
  std::unique_ptr<FileBytes> bytes_;
  std::string buffer_;
  size_t pos_ = 0;
  bool eof_ = false;
  int64_t line_number_ = 0;
};

class FixedLengthRecordReader final : public Reader {
 public:
  struct Sizes {
    int64_t header = 0, record = 0, footer = 0, hop = 0;
  };
  FixedLengthRecordReader(std::string name, Sizes sizes, Compression compression)
      : Reader(std::move(name)), sizes_(sizes), compression_(compression) {}

 private:
  absl::Status OnWorkStartedLocked(Env* env, const std::string& work) override {
    record_number_ = 0;
    cache_.clear();
    eof_ = false;
    MG_ASSIGN_OR_RETURN(bytes_, FileBytes::Open(env, work, compression_));
    MG_RETURN_IF_ERROR(Fill(sizes_.header));
    cache_.erase(0, std::min<size_t>(cache_.size(), sizes_.header));
    return absl::OkStatus();
  }
  // Records start `hop` bytes apart (`record` when hop is 0), and each
  // needs `footer` bytes after it.
  absl::Status ReadLocked(std::string* key, std::string* value, bool* produced,
                          bool* at_end) override {
    if (record_number_ != 0 && sizes_.hop > 0) {
      MG_RETURN_IF_ERROR(Fill(sizes_.hop));
      if (static_cast<int64_t>(cache_.size()) < sizes_.hop) {
        *at_end = true;
        return absl::OkStatus();
      }
      cache_.erase(0, sizes_.hop);
    }
    MG_RETURN_IF_ERROR(Fill(sizes_.record + sizes_.footer));
    if (static_cast<int64_t>(cache_.size()) < sizes_.record + sizes_.footer) {
      *at_end = true;
      return absl::OkStatus();
    }
    value->assign(cache_, 0, sizes_.record);
    if (sizes_.hop == 0) cache_.erase(0, sizes_.record);
    *key = KeyName(absl::StrCat(record_number_));
    ++record_number_;
    *produced = true;
    return absl::OkStatus();
  }
  void CloseWorkLocked() override {
    bytes_.reset();
    cache_.clear();
  }
  // Reads until the cache holds `n` bytes or the file ends.
  absl::Status Fill(int64_t n) {
    while (static_cast<int64_t>(cache_.size()) < n && !eof_) {
      const size_t have = cache_.size();
      cache_.resize(std::max<size_t>(n, have + kChunk));
      MG_ASSIGN_OR_RETURN(size_t got, bytes_->Read(cache_.size() - have, cache_.data() + have));
      cache_.resize(have + got);
      eof_ = got == 0;
    }
    return absl::OkStatus();
  }

  const Sizes sizes_;
  const Compression compression_;
  std::unique_ptr<FileBytes> bytes_;
  std::string cache_;
  bool eof_ = false;
  int64_t record_number_ = 0;
};

class WholeFileReader final : public Reader {
 public:
  using Reader::Reader;

 private:
  absl::Status OnWorkStartedLocked(Env* env, const std::string&) override {
    env_ = env;
    return absl::OkStatus();
  }
  absl::Status ReadLocked(std::string* key, std::string* value, bool* produced,
                          bool* at_end) override {
    *key = work();
    MG_ASSIGN_OR_RETURN(*value, ReadFileToString(env_, work()));
    *produced = *at_end = true;
    return absl::OkStatus();
  }

  Env* env_ = nullptr;
};

class IdentityReader final : public Reader {
 public:
  using Reader::Reader;

 private:
  absl::Status OnWorkStartedLocked(Env*, const std::string&) override {
    return absl::OkStatus();
  }
  absl::Status ReadLocked(std::string* key, std::string* value, bool* produced,
                          bool* at_end) override {
    *key = *value = work();
    *produced = *at_end = true;
    return absl::OkStatus();
  }
  bool HasState() const override { return true; }
};

// TFRecordReader(V2), TextLineReader(V2), FixedLengthRecordReader(V2),
// WholeFileReader(V2), IdentityReader(V2): the reader's handle (V1: by
// reference); the reader is made on the first run, or found by its
// shared name.
class ReaderOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  absl::Status Init(OpKernelConstruction* c) {
    const NodeDef& def = c->def();
    kind_ = std::string(absl::StripSuffix(def.op(), "V2"));
    MG_RETURN_IF_ERROR(c->GetAttr("container", &container_));
    MG_RETURN_IF_ERROR(c->GetAttr("shared_name", &name_));
    if (name_.empty()) name_ = def.name();
    const std::string where = absl::StrCat(def.op(), " '", def.name(), "': ");
    if (kind_ == "TFRecordReader") {
      std::string kind;
      MG_RETURN_IF_ERROR(c->GetAttr("compression_type", &kind));
      absl::StatusOr<Compression> compression = CompressionNamed(kind, "compression_type");
      if (!compression.ok()) {
        return absl::InvalidArgumentError(absl::StrCat(where, compression.status().message()));
      }
      compression_ = *compression;
    } else if (kind_ == "TextLineReader") {
      MG_RETURN_IF_ERROR(c->GetAttr("skip_header_lines", &skip_header_lines_));
    } else if (kind_ == "FixedLengthRecordReader") {
      MG_RETURN_IF_ERROR(FixedLengthAttrs(c, where));
    }
    if (!absl::EndsWith(def.op(), "V2")) ref_handle_ = RefHandle(container_, name_, def.name());
    return absl::OkStatus();
  }
  absl::Status Compute(OpKernelContext* ctx) const override {
    MG_ASSIGN_OR_RETURN(std::shared_ptr<Resource> r,
                        ctx->resource_manager()->LookupOrCreateResource(
                            container_, name_, [&] { return NewReader(); }));
    if (dynamic_cast<Reader*>(r.get()) == nullptr) {
      return absl::InvalidArgumentError(absl::StrCat(
          "resource ", name_, " exists and is not a reader but a ", r->TypeName()));
    }
    SetHandleOutput(ctx, ref_handle_.get(), container_, name_, kReaderTypeName);
    return absl::OkStatus();
  }

 private:
  absl::Status FixedLengthAttrs(OpKernelConstruction* c, const std::string& where) {
    FixedLengthRecordReader::Sizes& s = sizes_;
    MG_RETURN_IF_ERROR(c->GetAttr("header_bytes", &s.header));
    MG_RETURN_IF_ERROR(c->GetAttr("record_bytes", &s.record));
    MG_RETURN_IF_ERROR(c->GetAttr("footer_bytes", &s.footer));
    MG_RETURN_IF_ERROR(c->GetAttr("hop_bytes", &s.hop));
    for (const auto& [attr, value, least] : {std::tuple{"header_bytes", s.header, 0},
                                             std::tuple{"record_bytes", s.record, 1},
                                             std::tuple{"footer_bytes", s.footer, 0},
                                             std::tuple{"hop_bytes", s.hop, 0}}) {
      if (value < least) {
        return absl::InvalidArgumentError(absl::StrCat(where, attr, " must be ",
                                                       least == 0 ? ">= 0" : "> 0", " not ",
                                                       value));
      }
    }
    std::string encoding;
    if (c->def().attr().count("encoding")) MG_RETURN_IF_ERROR(c->GetAttr("encoding", &encoding));
    absl::StatusOr<Compression> compression = CompressionNamed(encoding, "encoding");
    if (!compression.ok()) {
      return absl::InvalidArgumentError(absl::StrCat(where, compression.status().message()));
    }
    compression_ = *compression;
    return absl::OkStatus();
  }
  std::unique_ptr<Resource> NewReader() const {
    if (kind_ == "TFRecordReader") return std::make_unique<TFRecordReader>(name_, compression_);
    if (kind_ == "TextLineReader") {
      return std::make_unique<TextLineReader>(name_, skip_header_lines_);
    }
    if (kind_ == "FixedLengthRecordReader") {
      return std::make_unique<FixedLengthRecordReader>(name_, sizes_, compression_);
    }
    if (kind_ == "WholeFileReader") return std::make_unique<WholeFileReader>(name_);
    return std::make_unique<IdentityReader>(name_);
  }

  std::string kind_, container_, name_;
  Compression compression_ = Compression::kNone;
  int64_t skip_header_lines_ = 0;
  FixedLengthRecordReader::Sizes sizes_;
  std::unique_ptr<Var> ref_handle_;
};

// The ops on a reader: input 0 its handle.
class ReaderAccessOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

 protected:
  static absl::StatusOr<Reader*> ReaderOf(OpKernelContext* ctx, std::shared_ptr<Resource>* hold) {
    return ResourceFromInput<Reader>(ctx, 0, kReaderTypeName, hold);
  }
  static absl::StatusOr<Queue*> QueueOf(OpKernelContext* ctx, std::shared_ptr<Resource>* hold) {
    return ResourceFromInput<Queue>(ctx, 1, Queue::kHandleTypeName, hold);
  }
  static Queue::Waiter WaiterOf(const OpKernelContext* ctx) {
    return {ctx->cancelled_flag(), ctx->step_context().deadline};
  }
};

// ReaderRead(V2) and ReaderReadUpTo(V2): wait for work from the queue.
class ReaderReadOp : public ReaderAccessOp {
 public:
  using ReaderAccessOp::ReaderAccessOp;
  absl::Status Init(OpKernelConstruction* c) {
    up_to_ = absl::StartsWith(c->def().op(), "ReaderReadUpTo");
    return absl::OkStatus();
  }
  bool IsBlocking() const override { return true; }
  absl::Status Compute(OpKernelContext* ctx) const override {
    std::shared_ptr<Resource> hold_reader, hold_queue;
    MG_ASSIGN_OR_RETURN(Reader * reader, ReaderOf(ctx, &hold_reader));
    MG_ASSIGN_OR_RETURN(Queue * queue, QueueOf(ctx, &hold_queue));
    if (!up_to_) {
      std::string key, value;
      MG_RETURN_IF_ERROR(reader->Read(queue, WaiterOf(ctx), ctx->env(), &key, &value));
      ctx->set_output(0, Tensor::Scalar<std::string>(std::move(key)));
      ctx->set_output(1, Tensor::Scalar<std::string>(std::move(value)));
      return absl::OkStatus();
    }
    const Tensor& n = ctx->input(2);
    if (n.dtype() != DT_INT64 || n.NumElements() != 1) {
      return absl::InvalidArgumentError("num_records must be an int64 scalar");
    }
    const int64_t num_records = n.data<int64_t>()[0];
    if (num_records < 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("num_records must be non-negative, not ", num_records));
    }
    std::vector<std::string> keys, values;
    MG_RETURN_IF_ERROR(
        reader->ReadUpTo(num_records, queue, WaiterOf(ctx), ctx->env(), &keys, &values));
    for (int out = 0; out < 2; ++out) {
      std::vector<std::string>& v = out == 0 ? keys : values;
      Tensor t(DT_STRING, TensorShape({static_cast<int64_t>(v.size())}));
      std::move(v.begin(), v.end(), t.data<std::string>());
      ctx->set_output(out, std::move(t));
    }
    return absl::OkStatus();
  }

 private:
  bool up_to_ = false;
};

// ReaderNumRecordsProduced, ReaderNumWorkUnitsCompleted, ReaderReset,
// ReaderSerializeState and ReaderRestoreState (each also V2).
class ReaderStateOp : public ReaderAccessOp {
 public:
  using ReaderAccessOp::ReaderAccessOp;
  absl::Status Compute(OpKernelContext* ctx) const override {
    std::shared_ptr<Resource> hold;
    MG_ASSIGN_OR_RETURN(Reader * reader, ReaderOf(ctx, &hold));
    const absl::string_view op = absl::StripSuffix(type_string(), "V2");
    if (op == "ReaderNumRecordsProduced") {
      ctx->set_output(0, Tensor::Scalar<int64_t>(reader->records_produced()));
    } else if (op == "ReaderNumWorkUnitsCompleted") {
      ctx->set_output(0, Tensor::Scalar<int64_t>(reader->work_finished()));
    } else if (op == "ReaderReset") {
      reader->Reset();
    } else if (op == "ReaderSerializeState") {
      MG_ASSIGN_OR_RETURN(std::string state, reader->SerializeState());
      ctx->set_output(0, Tensor::Scalar<std::string>(std::move(state)));
    } else {
      const Tensor& state = ctx->input(1);
      if (state.dtype() != DT_STRING || state.dims() != 0) {
        return absl::InvalidArgumentError(absl::StrCat(
            "Reader state must be a scalar string, got ", state.shape().DebugString()));
      }
      return reader->RestoreState(state.data<std::string>()[0]);
    }
    return absl::OkStatus();
  }
};

}  // namespace

void RegisterReaderKernels(KernelRegistry* r) {
  // Each op in its V1 (reference handle) and V2 (resource handle) form.
  for (const char* op :
       {"TFRecordReader", "TFRecordReaderV2", "TextLineReader", "TextLineReaderV2",
        "FixedLengthRecordReader", "FixedLengthRecordReaderV2", "WholeFileReader",
        "WholeFileReaderV2", "IdentityReader", "IdentityReaderV2"}) {
    r->Register(op, MakeFactory<ReaderOp>());
  }
  for (const char* op : {"ReaderRead", "ReaderReadV2", "ReaderReadUpTo", "ReaderReadUpToV2"}) {
    r->Register(op, MakeFactory<ReaderReadOp>());
  }
  for (const char* op :
       {"ReaderNumRecordsProduced", "ReaderNumRecordsProducedV2", "ReaderNumWorkUnitsCompleted",
        "ReaderNumWorkUnitsCompletedV2", "ReaderReset", "ReaderResetV2", "ReaderSerializeState",
        "ReaderSerializeStateV2", "ReaderRestoreState", "ReaderRestoreStateV2"}) {
    r->Register(op, MakeFactory<ReaderStateOp>());
  }
}

}  // namespace kernels_internal
}  // namespace minigraph
