// The checkpoint side of the TensorFlow interop tests: minigraph's reader
// and writer between a checkpoint and a file of tensors that TensorFlow's
// Python reads and writes exactly (each tensor as a TensorProto).
//
//   ckpt_tool dump PREFIX OUT       every tensor of PREFIX (whole, slices
//                                    assembled) to OUT, in key order
//   ckpt_tool write PREFIX IN       the tensors of IN as the checkpoint
//                                    PREFIX (BundleWriter, key order)
//   ckpt_tool write-aligned PREFIX IN  the same, each tensor at a multiple
//                                    of 64 bytes (BundleWriterOptions)
//   ckpt_tool write-v1 FILE IN      the same as one file in TensorFlow's V1
//                                    format (what its Save op writes)
//
// The tensor file is tensor_records.h's.
// Exit 0, or 1 with the error on stderr.

#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include "checkpoint/bundle_reader.h"
#include "checkpoint/bundle_writer.h"
#include "checkpoint/v1_writer.h"
#include "core/env.h"
#include "core/status_macros.h"
#include "tests/tf_interop/tensor_records.h"

namespace minigraph {
namespace {

absl::Status Dump(const std::string& prefix, const std::string& out) {
  Env* env = Env::Default();
  MG_ASSIGN_OR_RETURN(std::unique_ptr<BundleReader> reader, BundleReader::Open(env, prefix));
  std::string records;
  for (const std::string& key : reader->tensor_names()) {
    MG_ASSIGN_OR_RETURN(Tensor t, reader->Lookup(key));
    AppendTensorRecord(key, t, &records);
  }
  return WriteStringToFile(env, out, records);
}

absl::Status Write(const std::string& prefix, const std::string& in, size_t alignment) {
  MG_ASSIGN_OR_RETURN(auto records, ReadTensorRecords(in));
  std::map<std::string, Tensor> tensors(records.begin(), records.end());
  MG_ASSIGN_OR_RETURN(std::unique_ptr<BundleWriter> writer,
                      BundleWriter::Create(Env::Default(), prefix, {.alignment = alignment}));
  for (const auto& [key, t] : tensors) MG_RETURN_IF_ERROR(writer->Add(key, t));
  return writer->Finish();
}

absl::Status WriteV1(const std::string& path, const std::string& in) {
  MG_ASSIGN_OR_RETURN(auto records, ReadTensorRecords(in));
  std::map<std::string, Tensor> tensors(records.begin(), records.end());
  std::vector<V1Slice> slices;
  for (const auto& [key, t] : tensors) {
    slices.push_back({key, t.shape(), TensorSlice::Full(t.dims()), t});
  }
  return WriteV1Checkpoint(Env::Default(), path, slices);
}

}  // namespace
}  // namespace minigraph

int main(int argc, char** argv) {
  const std::string command = argc == 4 ? argv[1] : "";
  if (command != "dump" && command != "write" && command != "write-aligned" &&
      command != "write-v1") {
    std::fprintf(stderr,
                 "usage: ckpt_tool dump|write|write-aligned PREFIX FILE | "
                 "ckpt_tool write-v1 FILE IN\n");
    return 2;
  }
  const absl::Status s = command == "dump"    ? minigraph::Dump(argv[2], argv[3])
                         : command == "write" ? minigraph::Write(argv[2], argv[3], 1)
                         : command == "write-aligned"
                             ? minigraph::Write(argv[2], argv[3], 64)
                             : minigraph::WriteV1(argv[2], argv[3]);
  if (!s.ok()) {
    std::fprintf(stderr, "ckpt_tool: %s\n", s.ToString().c_str());
    return 1;
  }
  return 0;
}
