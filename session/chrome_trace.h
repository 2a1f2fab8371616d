// A traced step's stats (RunMetadata.step_stats) as a Chrome trace, the JSON
// chrome://tracing and Perfetto load, laid out as TensorFlow's timeline
// module lays it out: a process per device ("DEVICE Compute"), a complete
// event per node run on its thread, named by its op, with the node's name,
// op and inputs as arguments; with `show_dataflow`, an arrow from each
// tensor's producer to each consumer that ran on another thread or device.
//
//   tensorflow::StepStats stats;
//   RunOptions traced;
//   traced.step_stats = &stats;
//   MG_RETURN_IF_ERROR(session->Run(traced, feeds, fetches, targets, &out));
//   MG_ASSIGN_OR_RETURN(std::string json, ChromeTrace(stats));

#ifndef MINIGRAPH_SESSION_CHROME_TRACE_H_
#define MINIGRAPH_SESSION_CHROME_TRACE_H_

#include <string>

#include "absl/status/statusor.h"
#include "core/proto/step_stats.pb.h"

namespace minigraph {

absl::StatusOr<std::string> ChromeTrace(const tensorflow::StepStats& stats,
                                        bool show_dataflow = true);

}  // namespace minigraph

#endif  // MINIGRAPH_SESSION_CHROME_TRACE_H_
