// For tests: the events of a log directory's event files as short lines
// ("STEP KIND[ detail]"), so a test states what TensorBoard would see.

#ifndef MINIGRAPH_SESSION_TESTING_EVENT_LINES_H_
#define MINIGRAPH_SESSION_TESTING_EVENT_LINES_H_

#include <string>
#include <vector>

#include "core/env.h"

namespace minigraph {

// Every event of every event file in `dir` (files in name order, events in
// file order): "0 file_version", "0 graph_def", "0 meta_graph_def",
// "3 START" (a session log's status), "3 loss=0.5" (a summary's simple
// values, tag=value, concatenated), "3 run_metadata step_3", "0 other".
// Files that cannot be read, and records that do not parse, are test
// failures (gtest's ADD_FAILURE).
std::vector<std::string> EventLines(Env* env, const std::string& dir);

}  // namespace minigraph

#endif  // MINIGRAPH_SESSION_TESTING_EVENT_LINES_H_
