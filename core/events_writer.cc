#include "core/events_writer.h"

#include <unistd.h>

#include <cinttypes>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "core/logging.h"
#include "core/path.h"
#include "core/status_macros.h"

namespace minigraph {
namespace {

std::string Hostname() {
  char name[256] = {};
  if (gethostname(name, sizeof(name) - 1) != 0 || name[0] == '\0') return "localhost";
  return name;
}

}  // namespace

absl::StatusOr<std::unique_ptr<EventsWriter>> EventsWriter::Create(const std::string& logdir,
                                                                   EventsWriterOptions options) {
  if (logdir.empty()) return absl::InvalidArgumentError("an event file needs a log directory");
  if (options.env == nullptr) return absl::InvalidArgumentError("EventsWriterOptions::env is null");
  if (options.max_pending < 1) {
    return absl::InvalidArgumentError(absl::StrCat(
        "EventsWriterOptions::max_pending must be at least 1, got ", options.max_pending));
  }
  std::unique_ptr<EventsWriter> w(new EventsWriter(logdir, std::move(options)));
  absl::MutexLock lock(&w->mu_);
  if (!w->options_.open_on_first_event) MG_RETURN_IF_ERROR(w->OpenFile());
  return w;
}

EventsWriter::~EventsWriter() { Close().IgnoreError(); }

std::string EventsWriter::filename() const {
  absl::MutexLock lock(&mu_);
  return filename_;
}

double EventsWriter::WallTime() const { return options_.env->NowMicros() * 1e-6; }

absl::Status EventsWriter::OpenFile() {
  Env* env = options_.env;
  if (absl::Status s = env->CreateDir(logdir_); !s.ok()) {
    return absl::Status(s.code(), absl::StrCat("cannot create the log directory ", logdir_,
                                               " for an event file: ", s.message()));
  }
  const std::string base = absl::StrFormat(
      "events.out.tfevents.%010" PRIu64 ".%s%s", env->NowMicros() / 1000000, Hostname(),
      options_.filename_suffix);
  std::string path = JoinPath(logdir_, base);
  for (int n = 1; env->FileExists(path).ok(); ++n) {
    path = JoinPath(logdir_, absl::StrCat(base, ".", n));
  }
  MG_ASSIGN_OR_RETURN(file_, env->NewWritableFile(path));
  filename_ = path;
  records_ = std::make_unique<RecordWriter>(file_.get());
  Event version;
  version.set_wall_time(WallTime());
  version.set_file_version(kEventFileVersion);
  MG_RETURN_IF_ERROR(records_->WriteRecord(version.SerializeAsString()));
  return FlushLocked();
}

absl::Status EventsWriter::WriteLocked(const Event& event) {
  if (closed_) {
    return absl::FailedPreconditionError(
        absl::StrCat("event file ", filename_, " is closed; the event was not written"));
  }
  if (file_ == nullptr) MG_RETURN_IF_ERROR(OpenFile());
  MG_RETURN_IF_ERROR(records_->WriteRecord(event.SerializeAsString()));
  ++pending_;
  const uint64_t now = options_.env->NowMicros();
  if (pending_ >= options_.max_pending ||
      now >= last_flush_micros_ + absl::ToInt64Microseconds(options_.flush_every)) {
    return FlushLocked();
  }
  return absl::OkStatus();
}

absl::Status EventsWriter::FlushLocked() {
  if (closed_) return absl::OkStatus();
  if (file_ == nullptr) return OpenFile();
  if (!options_.env->FileExists(filename_).ok()) {
    // Deleted under us: what was written is gone with it; go on in a new
    // file rather than into an unlinked one nobody can read.
    MG_LOG(WARNING) << "event file " << filename_ << " has disappeared; writing a new one";
    file_.reset();
    records_.reset();
    pending_ = 0;
    return OpenFile();
  }
  MG_RETURN_IF_ERROR(file_->Flush());
  MG_RETURN_IF_ERROR(file_->Sync());
  pending_ = 0;
  last_flush_micros_ = options_.env->NowMicros();
  return absl::OkStatus();
}

absl::Status EventsWriter::WriteEvent(Event event) {
  if (event.wall_time() == 0) event.set_wall_time(WallTime());
  absl::MutexLock lock(&mu_);
  return WriteLocked(event);
}

absl::Status EventsWriter::AddSummary(const Summary& summary, int64_t step) {
  Event event;
  event.set_step(step);
  *event.mutable_summary() = summary;
  return WriteEvent(std::move(event));
}

absl::Status EventsWriter::AddSummary(absl::string_view serialized, int64_t step) {
  Event event;
  event.set_step(step);
  if (!event.mutable_summary()->ParseFromArray(serialized.data(),
                                               static_cast<int>(serialized.size()))) {
    return absl::InvalidArgumentError(absl::StrCat(
        "a summary of ", serialized.size(), " bytes for step ", step,
        " does not parse as a Summary proto; not written to ", filename()));
  }
  return WriteEvent(std::move(event));
}

absl::Status EventsWriter::AddScalar(const std::string& tag, float value, int64_t step) {
  Summary summary;
  Summary::Value* v = summary.add_value();
  v->set_tag(tag);
  v->set_simple_value(value);
  return AddSummary(summary, step);
}

absl::Status EventsWriter::AddGraph(const GraphDef& graph) {
  Event event;
  event.set_graph_def(graph.SerializeAsString());
  return WriteEvent(std::move(event));
}

absl::Status EventsWriter::AddMetaGraph(const MetaGraphDef& meta_graph) {
  Event event;
  event.set_meta_graph_def(meta_graph.SerializeAsString());
  return WriteEvent(std::move(event));
}

absl::Status EventsWriter::AddRunMetadata(const std::string& tag, absl::string_view serialized,
                                          int64_t step) {
  Event event;
  event.set_step(step);
  event.mutable_tagged_run_metadata()->set_tag(tag);
  event.mutable_tagged_run_metadata()->set_run_metadata(std::string(serialized));
  return WriteEvent(std::move(event));
}

absl::Status EventsWriter::AddSessionLog(const SessionLog& log, int64_t step) {
  Event event;
  event.set_step(step);
  *event.mutable_session_log() = log;
  return WriteEvent(std::move(event));
}

absl::Status EventsWriter::Flush() {
  absl::MutexLock lock(&mu_);
  return FlushLocked();
}

absl::Status EventsWriter::Close() {
  absl::MutexLock lock(&mu_);
  if (closed_) return absl::OkStatus();
  absl::Status s = file_ != nullptr ? FlushLocked() : absl::OkStatus();
  closed_ = true;
  if (file_ != nullptr) s.Update(file_->Close());
  records_.reset();
  file_.reset();
  return s;
}

absl::Status EventsWriter::Reopen() {
  absl::MutexLock lock(&mu_);
  if (!closed_) return absl::OkStatus();
  closed_ = false;
  pending_ = 0;
  if (options_.open_on_first_event) return absl::OkStatus();
  return OpenFile();
}

}  // namespace minigraph
