// Protobuf's text format, parsed with the parser's first complaint kept
// for the caller's error (protobuf would otherwise log every complaint to
// stderr itself).
//
//   MG_RETURN_IF_ERROR(ParseTextProto(text, &cluster_def));
//
// Thread safety: a function of its arguments only.

#ifndef MINIGRAPH_CORE_TEXT_PROTO_H_
#define MINIGRAPH_CORE_TEXT_PROTO_H_

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "google/protobuf/message.h"

namespace minigraph {

// Parses `text` into `message` (cleared first). Returns InvalidArgument
// "LINE:COLUMN: WHAT" (both from 1) for text that does not parse, which
// callers prefix with what the text is (a file's name).
absl::Status ParseTextProto(absl::string_view text, google::protobuf::Message* message);

}  // namespace minigraph

#endif  // MINIGRAPH_CORE_TEXT_PROTO_H_
