#include "core/text_proto.h"

#include <string>

#include "absl/strings/str_cat.h"
#include "google/protobuf/io/tokenizer.h"
#include "google/protobuf/text_format.h"

namespace minigraph {
namespace {

// Keeps the first error instead of logging each.
class FirstError : public google::protobuf::io::ErrorCollector {
 public:
  void AddError(int line, int column, const std::string& message) override {
    if (first_.empty()) first_ = absl::StrCat(line + 1, ":", column + 1, ": ", message);
  }
  const std::string& first() const { return first_; }

 private:
  std::string first_;
};

}  // namespace

absl::Status ParseTextProto(absl::string_view text, google::protobuf::Message* message) {
  FirstError errors;
  google::protobuf::TextFormat::Parser parser;
  parser.RecordErrorsTo(&errors);
  if (parser.ParseFromString(std::string(text), message)) return absl::OkStatus();
  return absl::InvalidArgumentError(errors.first().empty() ? "not in protobuf text format"
                                                           : errors.first());
}

}  // namespace minigraph
