#include "session/testing/event_lines.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "core/path.h"
#include "core/proto/event.pb.h"
#include "core/record_io.h"
#include "gtest/gtest.h"

namespace minigraph {

std::vector<std::string> EventLines(Env* env, const std::string& dir) {
  std::vector<std::string> lines;
  std::vector<std::string> files = env->GetChildren(dir).value_or(std::vector<std::string>());
  std::sort(files.begin(), files.end());
  for (const std::string& f : files) {
    if (f.find("tfevents") == std::string::npos) continue;
    auto file = env->NewRandomAccessFile(JoinPath(dir, f));
    if (!file.ok()) {
      ADD_FAILURE() << f << ": " << file.status();
      continue;
    }
    RecordReader reader(file->get(), f);
    uint64_t offset = 0;
    std::string record;
    while (reader.ReadRecord(&offset, &record).ok()) {
      Event e;
      if (!e.ParseFromString(record)) ADD_FAILURE() << f << ": a record is not an Event";
      std::string line = absl::StrCat(e.step(), " ");
      switch (e.what_case()) {
        case Event::kFileVersion: line += "file_version"; break;
        case Event::kGraphDef: line += "graph_def"; break;
        case Event::kMetaGraphDef: line += "meta_graph_def"; break;
        case Event::kSessionLog:
          line += SessionLog::SessionStatus_Name(e.session_log().status());
          break;
        case Event::kSummary:
          for (const auto& v : e.summary().value()) {
            absl::StrAppend(&line, v.tag(), "=", v.simple_value());
          }
          break;
        case Event::kTaggedRunMetadata:
          absl::StrAppend(&line, "run_metadata ", e.tagged_run_metadata().tag());
          break;
        default: line += "other";
      }
      lines.push_back(line);
    }
  }
  return lines;
}

}  // namespace minigraph
