// TensorBoard's event files: LOGDIR/events.out.tfevents.<seconds>.<host>,
// a sequence of Event protos in TensorFlow's record framing
// (core/record_io.h), the first one {file_version: "brain.Event:2"}.
// TensorBoard, tf.compat.v1.summary.FileWriter and tf.data read them as
// TensorFlow's EventsWriter writes them.
//
//   MG_ASSIGN_OR_RETURN(auto events, EventsWriter::Create("/logs/run1"));
//   MG_RETURN_IF_ERROR(events->AddScalar("loss", 0.25f, step));
//   MG_RETURN_IF_ERROR(events->AddSummary(merged_summary_bytes, step));
//   MG_RETURN_IF_ERROR(events->Close());
//
// Writes go through the Env's file, buffered. They reach the operating
// system when `max_pending` events wait or `flush_every` has passed since
// the last flush (both checked at each write), on Flush(), and on Close();
// each of those also syncs the file. A process killed at any moment leaves
// a file every reader loads up to its last complete record (a reader stops
// at a record cut short). A file deleted while open (log directory cleaned
// up under a run) is noticed at the next flush, which goes on in a new
// file, as TensorFlow's writer does. Safe for concurrent use.

#ifndef MINIGRAPH_CORE_EVENTS_WRITER_H_
#define MINIGRAPH_CORE_EVENTS_WRITER_H_

#include <cstdint>
#include <memory>
#include <string>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "core/env.h"
#include "core/proto/event.pb.h"
#include "core/proto/graph.pb.h"
#include "core/proto/meta_graph.pb.h"
#include "core/proto/summary.pb.h"
#include "core/record_io.h"

namespace minigraph {

inline constexpr char kEventFileVersion[] = "brain.Event:2";

struct EventsWriterOptions {
  // Files and time (each event's wall_time, the file name's seconds, the
  // flush schedule); not owned.
  Env* env = Env::Default();
  // TensorFlow's FileWriter defaults: flush_secs=120, max_queue=10.
  absl::Duration flush_every = absl::Seconds(120);
  int max_pending = 10;
  // Appended to the file name (TensorFlow's filename_suffix).
  std::string filename_suffix = {};
  // Beyond TensorFlow: Create makes no file; the first event (or Flush)
  // does, so a process that fails before it has anything to say leaves
  // its log directory as it was.
  bool open_on_first_event = false;
};

class EventsWriter {
 public:
  // Creates `logdir` (and its parents) if needed and a new event file in
  // it (at once, or at the first event: see the options), with its
  // file_version event written and flushed. A name already
  // taken (two writers in one second) gets ".1", ".2", ... appended rather
  // than overwriting it.
  static absl::StatusOr<std::unique_ptr<EventsWriter>> Create(const std::string& logdir,
                                                              EventsWriterOptions options = {});
  // Closes the file, dropping any error (call Close() where it matters).
  ~EventsWriter();

  EventsWriter(const EventsWriter&) = delete;
  EventsWriter& operator=(const EventsWriter&) = delete;

  // The file being written ("" before it is opened).
  std::string filename() const;

  // Writes `event`, its wall_time set to now when it is 0.
  absl::Status WriteEvent(Event event);
  absl::Status AddSummary(const Summary& summary, int64_t step);
  // A serialized Summary, as ScalarSummary and MergeSummary give it;
  // InvalidArgument when it does not parse.
  absl::Status AddSummary(absl::string_view serialized, int64_t step);
  absl::Status AddScalar(const std::string& tag, float value, int64_t step);
  // The graph TensorBoard's graph tab draws (at step 0, as TensorFlow's
  // add_graph writes it).
  absl::Status AddGraph(const GraphDef& graph);
  absl::Status AddMetaGraph(const MetaGraphDef& meta_graph);
  absl::Status AddSessionLog(const SessionLog& log, int64_t step);
  // A serialized RunMetadata (a traced step's stats), under `tag`, as
  // TensorFlow's FileWriter.add_run_metadata writes it.
  absl::Status AddRunMetadata(const std::string& tag, absl::string_view serialized,
                              int64_t step);

  // Hands the pending events to the operating system and syncs the file.
  absl::Status Flush();
  // Flushes and closes; later writes fail with FailedPrecondition.
  absl::Status Close();
  // After Close, goes on in a new event file of the same directory (as
  // TensorFlow's FileWriter.reopen; a Supervisor reopens its writer for
  // each new session). Does nothing on an open writer.
  absl::Status Reopen();

 private:
  EventsWriter(std::string logdir, EventsWriterOptions options)
      : logdir_(std::move(logdir)), options_(std::move(options)) {}

  // Opens a new file and writes its file_version event.
  absl::Status OpenFile() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  absl::Status WriteLocked(const Event& event) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  absl::Status FlushLocked() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  double WallTime() const;

  const std::string logdir_;
  const EventsWriterOptions options_;
  mutable absl::Mutex mu_;
  std::string filename_ ABSL_GUARDED_BY(mu_);
  std::unique_ptr<WritableFile> file_ ABSL_GUARDED_BY(mu_);
  std::unique_ptr<RecordWriter> records_ ABSL_GUARDED_BY(mu_);
  int pending_ ABSL_GUARDED_BY(mu_) = 0;
  uint64_t last_flush_micros_ ABSL_GUARDED_BY(mu_) = 0;
  bool closed_ ABSL_GUARDED_BY(mu_) = false;
};

}  // namespace minigraph

#endif  // MINIGRAPH_CORE_EVENTS_WRITER_H_
