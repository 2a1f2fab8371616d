#include "runtime/graph/versions.h"

#include "absl/strings/str_cat.h"

namespace minigraph {

absl::Status CheckGraphDefVersions(const VersionDef& versions) {
  if (versions.producer() < kGraphDefVersionMinProducer) {
    return absl::InvalidArgumentError(absl::StrCat(
        "GraphDef producer version ", versions.producer(), " below min producer ",
        kGraphDefVersionMinProducer, " supported by TensorFlow ", kGraphDefVersion,
        " (minigraph). Please regenerate your graph."));
  }
  if (versions.min_consumer() > kGraphDefVersion) {
    return absl::InvalidArgumentError(absl::StrCat(
        "GraphDef min consumer version ", versions.min_consumer(), " above current version ",
        kGraphDefVersion, " for TensorFlow (minigraph implements TensorFlow 2.21's). Please "
        "upgrade TensorFlow."));
  }
  for (int bad : versions.bad_consumers()) {
    if (bad == kGraphDefVersion) {
      return absl::InvalidArgumentError(absl::StrCat(
          "GraphDef disallows consumer version ", kGraphDefVersion,
          ". Please upgrade TensorFlow: this version is likely buggy."));
    }
  }
  return absl::OkStatus();
}

absl::Status CheckOpDeprecation(const OpDef& op, int producer) {
  if (!op.has_deprecation() || producer < op.deprecation().version()) return absl::OkStatus();
  return absl::UnimplementedError(absl::StrCat(
      "Op ", op.name(), " is not available in GraphDef version ", producer,
      ". It has been removed in version ", op.deprecation().version(), ". ",
      op.deprecation().explanation(), "."));
}

}  // namespace minigraph
