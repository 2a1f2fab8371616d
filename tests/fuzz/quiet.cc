// Linked into every fuzzer: parse errors are expected by the thousand, so
// the fuzzer's output keeps to its own lines and its findings.
#include "core/logging.h"
#include "google/protobuf/stubs/logging.h"

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  minigraph::SetMinLogLevel(minigraph::LogLevel::kFatal);
  google::protobuf::SetLogHandler(nullptr);
  return 0;
}
