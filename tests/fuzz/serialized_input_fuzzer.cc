// Fuzzes the ops that parse serialized inputs a serving graph is fed: the
// input is one string, fed to every op of a fixed graph (tf.train.Examples
// through ParseExampleV2, ParseExample and ParseSingleExample with dense,
// variable-length, sparse and ragged features; TensorProtos through
// ParseTensor; SequenceExamples through ParseSequenceExampleV2; Examples as
// JSON; raw bytes, base64, ZLIB and GZIP; JPEG, PNG,
// GIF, BMP and JPEG XL images through every decoder). Each fetch runs alone:
// bad bytes must come back as a Status, never a crash or a hang.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "core/allocator.h"
#include "core/mem_env.h"
#include "google/protobuf/text_format.h"
#include "session/session.h"

namespace {

// "one" is the input as a scalar, "batch" as a vector of two.
constexpr char kGraph[] = R"pb(
  node { name: "one" op: "Placeholder" attr { key: "dtype" value { type: DT_STRING } }
         attr { key: "shape" value { shape {} } } }
  node { name: "batch" op: "Placeholder" attr { key: "dtype" value { type: DT_STRING } }
         attr { key: "shape" value { shape { dim { size: 2 } } } } }
  node { name: "names" op: "Const" attr { key: "dtype" value { type: DT_STRING } }
         attr { key: "value" value { tensor { dtype: DT_STRING
                                              tensor_shape { dim { size: 0 } } } } } }
  node { name: "sparse_keys" op: "Const" attr { key: "dtype" value { type: DT_STRING } }
         attr { key: "value" value { tensor { dtype: DT_STRING tensor_shape { dim { size: 1 } }
                                              string_val: "s" } } } }
  node { name: "dense_keys" op: "Const" attr { key: "dtype" value { type: DT_STRING } }
         attr { key: "value" value { tensor { dtype: DT_STRING tensor_shape { dim { size: 2 } }
                                              string_val: "x" string_val: "seq" } } } }
  node { name: "ragged_keys" op: "Const" attr { key: "dtype" value { type: DT_STRING } }
         attr { key: "value" value { tensor { dtype: DT_STRING tensor_shape { dim { size: 1 } }
                                              string_val: "r" } } } }
  node { name: "key_s" op: "Const" attr { key: "dtype" value { type: DT_STRING } }
         attr { key: "value" value { tensor { dtype: DT_STRING tensor_shape {}
                                              string_val: "s" } } } }
  node { name: "key_x" op: "Const" attr { key: "dtype" value { type: DT_STRING } }
         attr { key: "value" value { tensor { dtype: DT_STRING tensor_shape {}
                                              string_val: "x" } } } }
  node { name: "key_seq" op: "Const" attr { key: "dtype" value { type: DT_STRING } }
         attr { key: "value" value { tensor { dtype: DT_STRING tensor_shape {}
                                              string_val: "seq" } } } }
  node { name: "default_x" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } }
         attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape { dim { size: 2 } }
                                              float_val: 0 } } } }
  node { name: "default_seq" op: "Const" attr { key: "dtype" value { type: DT_INT64 } }
         attr { key: "value" value { tensor { dtype: DT_INT64 tensor_shape {} int64_val: -1 } } } }
  node { name: "v2" op: "ParseExampleV2"
         input: "batch" input: "names" input: "sparse_keys" input: "dense_keys"
         input: "ragged_keys" input: "default_x" input: "default_seq"
         attr { key: "Tdense" value { list { type: DT_FLOAT type: DT_INT64 } } }
         attr { key: "num_sparse" value { i: 1 } }
         attr { key: "sparse_types" value { list { type: DT_STRING } } }
         attr { key: "ragged_value_types" value { list { type: DT_FLOAT } } }
         attr { key: "ragged_split_types" value { list { type: DT_INT64 } } }
         attr { key: "dense_shapes" value { list { shape { dim { size: 2 } }
                                                   shape { dim { size: -1 } } } } } }
  node { name: "v1" op: "ParseExample"
         input: "batch" input: "names" input: "key_s" input: "key_x" input: "key_seq"
         input: "default_x" input: "default_seq"
         attr { key: "Nsparse" value { i: 1 } }
         attr { key: "Ndense" value { i: 2 } }
         attr { key: "sparse_types" value { list { type: DT_STRING } } }
         attr { key: "Tdense" value { list { type: DT_FLOAT type: DT_INT64 } } }
         attr { key: "dense_shapes" value { list { shape { dim { size: 2 } }
                                                   shape { dim { size: -1 } } } } } }
  node { name: "single" op: "ParseSingleExample" input: "one" input: "default_x"
         attr { key: "num_sparse" value { i: 1 } }
         attr { key: "sparse_keys" value { list { s: "s" } } }
         attr { key: "dense_keys" value { list { s: "x" } } }
         attr { key: "sparse_types" value { list { type: DT_STRING } } }
         attr { key: "Tdense" value { list { type: DT_FLOAT } } }
         attr { key: "dense_shapes" value { list { shape { dim { size: 2 } } } } } }
  node { name: "tensor_float" op: "ParseTensor" input: "one"
         attr { key: "out_type" value { type: DT_FLOAT } } }
  node { name: "tensor_string" op: "ParseTensor" input: "one"
         attr { key: "out_type" value { type: DT_STRING } } }
  node { name: "raw" op: "DecodeRaw" input: "batch"
         attr { key: "out_type" value { type: DT_COMPLEX64 } }
         attr { key: "little_endian" value { b: false } } }
  node { name: "length" op: "Const" attr { key: "dtype" value { type: DT_INT32 } }
         attr { key: "value" value { tensor { dtype: DT_INT32 tensor_shape {} int_val: 12 } } } }
  node { name: "padded" op: "DecodePaddedRaw" input: "batch" input: "length"
         attr { key: "out_type" value { type: DT_INT32 } }
         attr { key: "little_endian" value { b: false } } }
  node { name: "base64" op: "DecodeBase64" input: "batch" }
  node { name: "json" op: "DecodeJSONExample" input: "batch" }
  node { name: "zlib" op: "DecodeCompressed" input: "one"
         attr { key: "compression_type" value { s: "ZLIB" } } }
  node { name: "gzip" op: "DecodeCompressed" input: "one"
         attr { key: "compression_type" value { s: "GZIP" } } }
  node { name: "no_keys" op: "Const" attr { key: "dtype" value { type: DT_STRING } }
         attr { key: "value" value { tensor { dtype: DT_STRING
                                              tensor_shape { dim { size: 0 } } } } } }
  node { name: "key_d" op: "Const" attr { key: "dtype" value { type: DT_STRING } }
         attr { key: "value" value { tensor { dtype: DT_STRING tensor_shape { dim { size: 1 } }
                                              string_val: "d" } } } }
  node { name: "assumed_empty" op: "Const" attr { key: "dtype" value { type: DT_BOOL } }
         attr { key: "value" value { tensor { dtype: DT_BOOL tensor_shape { dim { size: 1 } }
                                              bool_val: true } } } }
  node { name: "sequence" op: "ParseSequenceExampleV2"
         input: "batch" input: "names" input: "sparse_keys" input: "dense_keys"
         input: "ragged_keys" input: "sparse_keys" input: "key_d" input: "ragged_keys"
         input: "assumed_empty" input: "default_x" input: "default_seq"
         attr { key: "Ncontext_sparse" value { i: 1 } }
         attr { key: "context_sparse_types" value { list { type: DT_STRING } } }
         attr { key: "Tcontext_dense" value { list { type: DT_FLOAT type: DT_INT64 } } }
         attr { key: "context_dense_shapes" value { list { shape { dim { size: 2 } }
                                                           shape { dim { size: -1 } } } } }
         attr { key: "context_ragged_value_types" value { list { type: DT_FLOAT } } }
         attr { key: "context_ragged_split_types" value { list { type: DT_INT64 } } }
         attr { key: "Nfeature_list_sparse" value { i: 1 } }
         attr { key: "feature_list_sparse_types" value { list { type: DT_STRING } } }
         attr { key: "Nfeature_list_dense" value { i: 1 } }
         attr { key: "feature_list_dense_types" value { list { type: DT_FLOAT } } }
         attr { key: "feature_list_dense_shapes" value { list { shape { dim { size: 2 } } } } }
         attr { key: "feature_list_ragged_value_types" value { list { type: DT_FLOAT } } }
         attr { key: "feature_list_ragged_split_types" value { list { type: DT_INT32 } } } }
  node { name: "image" op: "DecodeImage" input: "one"
         attr { key: "dtype" value { type: DT_FLOAT } } }
  node { name: "png16" op: "DecodePng" input: "one"
         attr { key: "dtype" value { type: DT_UINT16 } } attr { key: "channels" value { i: 4 } } }
  node { name: "jpeg_gray" op: "DecodeJpeg" input: "one" attr { key: "channels" value { i: 1 } }
         attr { key: "try_recover_truncated" value { b: true } }
         attr { key: "acceptable_fraction" value { f: 0.25 } }
         attr { key: "ratio" value { i: 2 } } }
  node { name: "window" op: "Const" attr { key: "dtype" value { type: DT_INT32 } }
         attr { key: "value" value { tensor { dtype: DT_INT32 tensor_shape { dim { size: 4 } }
                                              int_val: 1 int_val: 3 int_val: 2 int_val: 5 } } } }
  node { name: "crop" op: "DecodeAndCropJpeg" input: "one" input: "window" }
  node { name: "gif" op: "DecodeGif" input: "one" }
  node { name: "bmp" op: "DecodeBmp" input: "one" attr { key: "channels" value { i: 4 } } }
  node { name: "jpeg_shape" op: "ExtractJpegShape" input: "one" }
  versions { producer: 2474 }
)pb";

// Every fetch, each run on its own.
constexpr const char* kFetches[] = {"v2:0",     "v2:3",           "v2:4",            "v2:5",
                                    "v2:6",     "v1:0",           "v1:3",            "v1:4",
                                    "single:0", "single:3",       "tensor_float:0",  "raw:0",
                                    "padded:0", "tensor_string:0", "base64:0",       "zlib:0",
                                    "gzip:0",   "json:0",         "image:0",         "png16:0",
                                    "jpeg_gray:0", "crop:0",      "gif:0",           "bmp:0",
                                    "jpeg_shape:0", "sequence:3",  "sequence:5",      "sequence:9",
                                    "sequence:10",  "sequence:12", "sequence:13"};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace minigraph;
  SetMaxTensorBytes(size_t{1} << 22);
  static MemEnv* env = new MemEnv();
  static Session* session = [] {
    GraphDef def;
    if (!google::protobuf::TextFormat::ParseFromString(kGraph, &def)) std::abort();
    SessionOptions options;
    options.env = env;
    options.intra_op_threads = 1;
    options.inter_op_threads = 1;
    auto s = NewSession(options);
    if (!s.ok() || !(*s)->Create(def).ok()) std::abort();
    return s->release();
  }();
  const std::string input(reinterpret_cast<const char*>(data), size);
  Tensor batch(DT_STRING, TensorShape({2}));
  batch.data<std::string>()[0] = input;
  batch.data<std::string>()[1] = input;
  const std::vector<std::pair<std::string, Tensor>> feeds = {
      {"one:0", Tensor::Scalar<std::string>(input)}, {"batch:0", batch}};
  RunOptions run;
  run.timeout_in_ms = 1000;
  for (const char* fetch : kFetches) {
    std::vector<Tensor> out;
    session->Run(run, feeds, {fetch}, {}, &out).IgnoreError();
  }
  return 0;
}
