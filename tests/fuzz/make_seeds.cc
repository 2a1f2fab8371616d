// Writes the fuzzers' seed corpora, OUT/<fuzzer>/<seed>: checkpoints,
// state files, TensorProtos and GraphDefs written here by minigraph, and,
// when SHARED_TESTDATA is given, the ones TensorFlow wrote there.
//
//   make_seeds OUT [SHARED_TESTDATA]
#include <cstdio>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "checkpoint/bundle_writer.h"
#include "checkpoint/naming.h"
#include "checkpoint/saved_slices.h"
#include "checkpoint/v1_writer.h"
#include "core/allocator.h"
#include "core/coding.h"
#include "core/env.h"
#include "core/path.h"
#include "core/proto/example.pb.h"
#include "core/proto/meta_graph.pb.h"
#include "core/status_macros.h"
#include "core/tensor_proto.h"
#include "google/protobuf/text_format.h"
#include "runtime/cc/ops.h"
#include "runtime/cc/optimizers.h"
#include "runtime/cc/variables.h"
#include "runtime/engine/kernels/internal/image_codecs.h"
#include "runtime/graph/node_def_util.h"
#include "runtime/graph/op_registry.h"
#include "runtime/graph/ops/standard_ops.h"
#include "session/saver.h"
#include "session/session.h"
#include "tests/testing/function_library.h"
#include "zlib.h"

namespace minigraph {
namespace {

using kernels_internal::EncodeJpeg;
using kernels_internal::EncodePng;
using kernels_internal::JpegEncodeOptions;

Env* const env = Env::Default();

absl::Status Put(const std::string& out, const std::string& fuzzer, const std::string& name,
                 const std::string& bytes) {
  const std::string dir = JoinPath(out, fuzzer);
  absl::Status s = env->CreateDir(dir);
  if (!s.ok() && !env->IsDirectory(dir).value_or(false)) return s;
  return WriteStringToFile(env, JoinPath(dir, name), bytes);
}

// `part` after its 4-byte little-endian length.
std::string LengthPrefixed(const std::string& part) {
  std::string bytes;
  PutFixed32(&bytes, static_cast<uint32_t>(part.size()));
  return bytes + part;
}

// A bundle as the fuzzers take it: the length-prefixed index, then the
// single data shard.
absl::StatusOr<std::string> PackBundle(const std::string& prefix) {
  MG_ASSIGN_OR_RETURN(std::string index, ReadFileToString(env, MetaFilename(prefix)));
  MG_ASSIGN_OR_RETURN(std::string data, ReadFileToString(env, DataFilename(prefix, 0, 1)));
  return LengthPrefixed(index) + data;
}

absl::Status PutBundle(const std::string& out, const std::string& name, const std::string& prefix) {
  MG_ASSIGN_OR_RETURN(std::string bytes, PackBundle(prefix));
  return Put(out, "bundle_reader_fuzzer", name, bytes);
}

// The SavedModel fuzzer's input: the length-prefixed saved_model.pb, then
// variables/variables as a bundle (when it is there).
absl::Status PutSavedModel(const std::string& out, const std::string& name,
                           const std::string& dir) {
  MG_ASSIGN_OR_RETURN(std::string pb, ReadFileToString(env, JoinPath(dir, "saved_model.pb")));
  std::string bytes = LengthPrefixed(pb);
  const std::string variables = JoinPath(dir, "variables/variables");
  if (env->FileExists(MetaFilename(variables)).ok()) {
    MG_ASSIGN_OR_RETURN(std::string bundle, PackBundle(variables));
    bytes += bundle;
  }
  return Put(out, "saved_model_fuzzer", name, bytes);
}

std::vector<Tensor> SampleTensors() {
  std::vector<Tensor> t;
  t.push_back(Tensor::Vector<float>({1.5f, -2, 0, 3e10f}));
  t.push_back(Tensor::Scalar<int64_t>(42));
  t.push_back(Tensor::Vector<std::string>({"ab", "", std::string(300, 'x')}));
  t.push_back(Tensor(DT_DOUBLE, TensorShape({0, 2})));
  t.push_back(Tensor::Vector<int32_t>({1, 2, 3, 4, 5, 6}));
  t.push_back(Tensor::Vector<bool>({true, false}));
  return t;
}

// Minigraph checkpoints of the sample tensors: packed, and aligned as
// `train --align_tensors` saves them (the reader's in-place path).
absl::Status SeedV2Checkpoint(const std::string& out, const std::string& tmp) {
  for (const size_t alignment : {size_t{1}, kTensorAlignment}) {
    const std::string prefix = JoinPath(tmp, absl::StrCat("c", alignment));
    MG_ASSIGN_OR_RETURN(auto w, BundleWriter::Create(env, prefix, {.alignment = alignment}));
    std::vector<Tensor> tensors = SampleTensors();
    for (size_t i = 0; i < tensors.size(); ++i) {
      MG_RETURN_IF_ERROR(w->Add(absl::StrCat("t", i), tensors[i]));
    }
    MG_RETURN_IF_ERROR(w->Finish());
    MG_RETURN_IF_ERROR(
        PutBundle(out, alignment == 1 ? "minigraph" : "minigraph_aligned", prefix));
  }
  return absl::OkStatus();
}

// A V1 checkpoint: whole tensors and one in two slices, as the index
// part of a seed (the fuzzer reads those bytes as a V1 file too).
absl::Status SeedV1Checkpoint(const std::string& out, const std::string& tmp) {
    std::vector<V1Slice> slices;
  std::vector<Tensor> tensors = SampleTensors();
  for (size_t i = 0; i < tensors.size(); ++i) {
    slices.push_back({absl::StrCat("t", i), tensors[i].shape(),
                      TensorSlice::Full(tensors[i].dims()), tensors[i]});
  }
  const Tensor rows = Tensor::Vector<float>({1, 2});
  slices.push_back({"emb", TensorShape({4}), *TensorSlice::Parse("0,2"), rows});
  slices.push_back({"emb", TensorShape({4}), *TensorSlice::Parse("2,2"), rows});
  const std::string v1 = JoinPath(tmp, "v1");
  MG_RETURN_IF_ERROR(WriteV1Checkpoint(env, v1, slices));
  MG_ASSIGN_OR_RETURN(std::string file, ReadFileToString(env, v1));
  MG_RETURN_IF_ERROR(Put(out, "bundle_reader_fuzzer", "v1", LengthPrefixed(file)));
  return absl::OkStatus();
}

// A training graph: MatMul, BiasAdd, Relu, cross entropy, its gradients,
// SGD and a Saver.
absl::Status SeedTrainingGraph(const std::string& out, const std::string& tmp) {
  Scope root = Scope::NewRootScope();
  Output x = ops::Const<float>(root, {1, 2, 3, 4, 5, 6}, TensorShape({2, 3}));
  Variable w = Variable::Create(root, "w",
                                Tensor::Vector<float>({.1f, .2f, .3f, .4f, .5f, .6f})
                                    .Reshaped(TensorShape({3, 2}))
                                    .value());
  Variable b = Variable::Create(root, "b", Tensor::Vector<float>({0, 0}));
  Output logits = ops::Relu(root, ops::BiasAdd(root, ops::MatMul(root, x, w.value()), b.value()));
  Output loss = ops::Mean(
      root,
      ops::SparseSoftmaxCrossEntropyWithLogits(root, logits, ops::Const<int64_t>(root, {0, 1}))
          .loss,
      ops::Const<int32_t>(root, 0));
  GradientDescentOptimizer sgd(0.1);
  MG_RETURN_IF_ERROR(sgd.Minimize(root, loss).status());
  GlobalVariablesInitializer(root);
  MG_RETURN_IF_ERROR(Saver::Create(root).status());
  MG_ASSIGN_OR_RETURN(GraphDef g, root.ToGraphDef());
  MG_RETURN_IF_ERROR(Put(out, "graph_fuzzer", "train", g.SerializeAsString()));
  return absl::OkStatus();
}

// The same with resource variables (VarHandleOp, ResourceApplyAdam).
absl::Status SeedResourceVariableGraph(const std::string& out, const std::string& tmp) {
  Scope root = Scope::NewRootScope();
  Output x = ops::Const<float>(root, {1, 2, 3, 4}, TensorShape({2, 2}));
  Variable w = Variable::Create(
      root, "w",
      Tensor::Vector<float>({.1f, .2f, .3f, .4f}).Reshaped(TensorShape({2, 2})).value(),
      {.use_resource = true});
  Output loss = ops::Sum(root, ops::Square(root, ops::MatMul(root, x, w.value())),
                         ops::Const<int32_t>(root, {0, 1}));
  AdamOptimizer adam(0.1);
  MG_RETURN_IF_ERROR(adam.Minimize(root, loss).status());
  GlobalVariablesInitializer(root);
  ReportUninitializedVariables(root);
  MG_ASSIGN_OR_RETURN(GraphDef g, root.ToGraphDef());
  MG_RETURN_IF_ERROR(Put(out, "graph_fuzzer", "resource", g.SerializeAsString()));
  return absl::OkStatus();
}

// What feature columns and Keras text layers use: a vocabulary table,
// string ops, unique ids, segment sums, SparseTensor ops, GatherNd and
// SelectV2 (every kernel here gets a graph that runs to start from).
absl::Status SeedFeatureColumnGraph(const std::string& out, const std::string& tmp) {
  Scope root = Scope::NewRootScope();
  Tensor words(DT_STRING, TensorShape({3}));
  words.data<std::string>()[0] = "Us";
  words.data<std::string>()[1] = "de";
  words.data<std::string>()[2] = "FR";
  Output text = ops::Const(root, words);
  Output lowered =
      root.WithOpName("lower")
          .AddOp("StringLower", {{text}}, {{"encoding", MakeAttrValue("utf-8")}})
          .output(0);
  auto table_attrs = [](DataType v) -> std::map<std::string, AttrValue> {
    return {{"key_dtype", MakeAttrValue(DT_STRING)}, {"value_dtype", MakeAttrValue(v)}};
  };
  Output vocab = root.WithOpName("vocab").AddOp("HashTableV2", {}, table_attrs(DT_INT64)).output(0);
  Operation init = root.WithOpName("vocab_init")
                       .AddOp("InitializeTableV2", {{vocab},
                                                    {lowered},
                                                    {ops::Const<int64_t>(root, {0, 1, 2})}});
  Output ids = root.WithOpName("ids")
                   .WithControlDependencies({init})
                   .AddOp("LookupTableFindV2",
                          {{vocab}, {lowered}, {ops::Const<int64_t>(root, int64_t{-1})}})
                   .output(0);
  Output counts =
      root.WithOpName("counts").AddOp("MutableHashTableV2", {}, table_attrs(DT_FLOAT)).output(0);
  Operation insert = root.WithOpName("counts_insert")
                         .AddOp("LookupTableInsertV2",
                                {{counts}, {lowered}, {ops::Const<float>(root, {1, 2, 3})}});
  root.WithOpName("counts_export")
      .WithControlDependencies({insert})
      .AddOp("LookupTableExportV2", {{counts}},
             {{"Tkeys", MakeAttrValue(DT_STRING)}, {"Tvalues", MakeAttrValue(DT_FLOAT)}});
  root.WithOpName("counts_size").WithControlDependencies({insert}).AddOp("LookupTableSizeV2",
                                                                          {{counts}});
  Output emb = ops::Const<float>(root, {1, 2, 3, 4, 5, 6}, TensorShape({3, 2}));
  Output segments = ops::Const<int32_t>(root, {0, 0, 1});
  ops::SparseSegmentSum(root, emb, ids, segments);
  ops::UnsortedSegmentSum(root, emb, segments, ops::Const<int32_t>(root, 2));
  ops::Unique(root, ids);
  ops::GatherNd(root, emb, ops::Const<int32_t>(root, {0, 1, 2, 0}, TensorShape({2, 2})));
  ops::SelectV2(root, ops::NotEqual(root, lowered, text), ops::Const<float>(root, {1, 2, 3}),
                ops::Const<float>(root, 0.0f));
  Output indices = ops::Const<int64_t>(root, {0, 0, 2, 1}, TensorShape({2, 2}));
  Output values = ops::Const<float>(root, {7, 8});
  Output dense_shape = ops::Const<int64_t>(root, {3, 2});
  root.WithOpName("to_dense").AddOp(
      "SparseToDense",
      {{indices}, {dense_shape}, {values}, {ops::Const<float>(root, 0.0f)}});
  root.WithOpName("fill_empty_rows")
      .AddOp("SparseFillEmptyRows",
             {{indices}, {values}, {dense_shape}, {ops::Const<float>(root, -1.0f)}});
  root.WithOpName("reshape").AddOp(
      "SparseReshape", {{indices}, {dense_shape}, {ops::Const<int64_t>(root, {-1})}});
  MG_ASSIGN_OR_RETURN(GraphDef g, root.ToGraphDef());
  MG_RETURN_IF_ERROR(Put(out, "graph_fuzzer", "feature_columns", g.SerializeAsString()));
  return absl::OkStatus();
}

// Function calls over a library: tests/testing/function_library.h's graph
// of calls (StatefulPartitionedCall, a call inside a call, If,
// StatelessWhile, a variable read in a function), its placeholders made
// constants (x = 1.5, y = -2, p = false) so that every node runs unfed.
absl::Status SeedFunctionCalls(const std::string& out, const std::string& tmp) {
  GraphDef g;
  if (!google::protobuf::TextFormat::ParseFromString(kFunctionLibraryText, &g) ||
      !google::protobuf::TextFormat::MergeFromString(kFunctionCallsText, &g)) {
    return absl::InternalError("the function seed does not parse");
  }
  for (NodeDef& n : *g.mutable_node()) {
    if (n.op() != "Placeholder") continue;
    const bool is_bool = n.attr().at("dtype").type() == DT_BOOL;
    n.set_op("Const");
    (*n.mutable_attr())["value"] =
        MakeAttrValue(is_bool ? Tensor::Scalar<bool>(false)
                              : Tensor::Scalar<float>(n.name() == "x" ? 1.5f : -2.0f));
  }
  MG_RETURN_IF_ERROR(Put(out, "graph_fuzzer", "functions", g.SerializeAsString()));
  return absl::OkStatus();
}

// A SavedModel in TensorFlow 1's layout: y = x * w, w (a resource
// variable) restored by the Saver, a local counter that the main op
// initializes, one signature.
absl::Status SeedSavedModel(const std::string& out, const std::string& tmp) {
  Scope root = Scope::NewRootScope();
  Variable w = Variable::Create(root, "w", Tensor::Vector<float>({2, 3}), {.use_resource = true});
  Variable counter = Variable::Create(root, "counter", Tensor::Scalar<int64_t>(7),
                                      {.trainable = false, .collections = {kLocalVariables}});
  Output x = ops::Placeholder(root.WithOpName("x"), DT_FLOAT, PartialShape({2}));
  ops::Mul(root.WithOpName("y"), x, w.value());
  Operation init = GlobalVariablesInitializer(root);
  Operation main_op = LocalVariablesInitializer(root);
  MG_ASSIGN_OR_RETURN(auto saver, Saver::Create(root));
  MG_ASSIGN_OR_RETURN(auto sess, NewSession(SessionOptions()));
  MG_ASSIGN_OR_RETURN(GraphDef g, root.ToGraphDef());
  MG_RETURN_IF_ERROR(sess->Create(g));
  std::vector<Tensor> unused;
  MG_RETURN_IF_ERROR(sess->Run({}, {}, {init.name()}, &unused));
  const std::string dir = JoinPath(tmp, "saved_model");
  MG_RETURN_IF_ERROR(env->CreateDir(dir));
  MG_RETURN_IF_ERROR(env->CreateDir(JoinPath(dir, "variables")));
  MG_RETURN_IF_ERROR(
      saver->Save(sess.get(), JoinPath(dir, "variables/variables"), {.write_state = false})
          .status());
  MG_ASSIGN_OR_RETURN(MetaGraphDef meta, root.ToMetaGraphDef());
  meta.mutable_meta_info_def()->add_tags("serve");
  SignatureDef& sig = (*meta.mutable_signature_def())["serving_default"];
  (*sig.mutable_inputs())["x"].set_name("x:0");
  (*sig.mutable_inputs())["x"].set_dtype(DT_FLOAT);
  (*sig.mutable_inputs())["x"].mutable_tensor_shape()->add_dim()->set_size(2);
  (*sig.mutable_outputs())["y"].set_name("y:0");
  sig.set_method_name("tensorflow/serving/predict");
  (*meta.mutable_collection_def())["saved_model_main_op"].mutable_node_list()->add_value(
      main_op.name());
  SavedModel model;
  *model.add_meta_graphs() = meta;
  MG_RETURN_IF_ERROR(
      WriteStringToFile(env, JoinPath(dir, "saved_model.pb"), model.SerializeAsString()));
  MG_RETURN_IF_ERROR(PutSavedModel(out, "minigraph", dir));
  return absl::OkStatus();
}

// serialized_input_fuzzer: an Example with the features its graph parses,
// and the same bytes compressed.
absl::Status SeedExamples(const std::string& out, const std::string& tmp) {
  Example e;
  auto& f = *e.mutable_features()->mutable_feature();
  f["x"].mutable_float_list()->add_value(1.5f);
  f["x"].mutable_float_list()->add_value(-2.0f);
  f["seq"].mutable_int64_list()->add_value(7);
  f["s"].mutable_bytes_list()->add_value("abc");
  f["r"].mutable_float_list()->add_value(0.5f);
  const std::string bytes = e.SerializeAsString();
  MG_RETURN_IF_ERROR(Put(out, "serialized_input_fuzzer", "example", bytes));
  TensorProto t;
  TensorToProto(Tensor::Vector<float>({1, 2, 3}), &t);
  MG_RETURN_IF_ERROR(Put(out, "serialized_input_fuzzer", "tensor", t.SerializeAsString()));
  uLongf n = compressBound(bytes.size());
  std::string z(n, '\0');
  if (compress(reinterpret_cast<Bytef*>(z.data()), &n,
               reinterpret_cast<const Bytef*>(bytes.data()), bytes.size()) != Z_OK) {
    return absl::InternalError("make_seeds: zlib failed");
  }
  z.resize(n);
  MG_RETURN_IF_ERROR(Put(out, "serialized_input_fuzzer", "zlib", z));
  SequenceExample se;
  *se.mutable_context() = e.features();
  auto& lists = *se.mutable_feature_lists()->mutable_feature_list();
  for (int step = 0; step < 3; ++step) {
    lists["d"].add_feature()->mutable_float_list()->add_value(step);
    lists["d"].mutable_feature(step)->mutable_float_list()->add_value(-step);
    lists["s"].add_feature()->mutable_bytes_list()->add_value(std::string(step, 'z'));
    lists["r"].add_feature()->mutable_float_list()->add_value(0.5f * step);
  }
  MG_RETURN_IF_ERROR(
      Put(out, "serialized_input_fuzzer", "sequence_example", se.SerializeAsString()));
  return absl::OkStatus();
}

// serialized_input_fuzzer: small images of every format its decoders read.
absl::Status SeedImages(const std::string& out, const std::string& tmp) {
  std::vector<uint8_t> pixels(6 * 10 * 4);
  for (size_t i = 0; i < pixels.size(); ++i) pixels[i] = static_cast<uint8_t>(i * 7);
  JpegEncodeOptions progressive;
  progressive.progressive = true;
  MG_ASSIGN_OR_RETURN(std::string jpeg, EncodeJpeg(pixels.data(), 6, 10, 3, {}));
  MG_RETURN_IF_ERROR(Put(out, "serialized_input_fuzzer", "jpeg", jpeg));
  MG_ASSIGN_OR_RETURN(jpeg, EncodeJpeg(pixels.data(), 6, 10, 1, progressive));
  MG_RETURN_IF_ERROR(Put(out, "serialized_input_fuzzer", "jpeg_progressive", jpeg));
  MG_ASSIGN_OR_RETURN(std::string png, EncodePng(pixels.data(), 6, 10, 4, 8, -1));
  MG_RETURN_IF_ERROR(Put(out, "serialized_input_fuzzer", "png", png));
  MG_ASSIGN_OR_RETURN(png, EncodePng(pixels.data(), 3, 10, 2, 16, 9));
  MG_RETURN_IF_ERROR(Put(out, "serialized_input_fuzzer", "png16", png));
  // Two 2x2 frames of a two-colour table, the second with a transparent
  // colour (index 1); each LZW stream is literal 3-bit codes.
  static constexpr char kGif[] =
      "GIF89a\x02\x00\x02\x00\x80\x00\x00\xff\x00\x00\x00\x00\xff"
      ",\x00\x00\x00\x00\x02\x00\x02\x00\x00\x02\x03\x44\x18\x14\x00"
      "!\xf9\x04\x05\x0a\x00\x01\x00"
      ",\x00\x00\x00\x00\x02\x00\x02\x00\x00\x02\x03\x4c\x98\x14\x00;";
  MG_RETURN_IF_ERROR(
      Put(out, "serialized_input_fuzzer", "gif", std::string(kGif, sizeof(kGif) - 1)));
  // A 2x2 24-bit BMP, bottom-up, rows padded to 8 bytes.
  std::string bmp = "BM";
  for (uint32_t v : {70u, 0u, 54u, 40u, 2u, 2u}) {
    bmp.append(reinterpret_cast<const char*>(&v), 4);  // little-endian, as this machine
  }
  bmp += std::string("\x01\x00\x18\x00", 4) + std::string(24, '\0') +
         std::string("\x10\x20\x30\x40\x50\x60\x00\x00\x70\x80\x90\xa0\xb0\xc0\x00\x00",
                     16);
  MG_RETURN_IF_ERROR(Put(out, "serialized_input_fuzzer", "bmp", bmp));
  // A 2x2 RGB JPEG XL codestream, lossless (cjxl -d 0).
  static constexpr char kJxl[] =
      "\xff\x0a\x08\x10\x10\x50\x5c\x08\x08\x02\x01\x00\x54\x00\x4b\x18\x8b\x15"
      "\x0a\x1d\x83\xf3\x46\xa1\x3c\x3f\x00\x36\xb8\xfc\xb2\x2e\x9a\x04\x00";
  MG_RETURN_IF_ERROR(
      Put(out, "serialized_input_fuzzer", "jxl", std::string(kJxl, sizeof(kJxl) - 1)));
  return absl::OkStatus();
}

// graph_fuzzer's and saved_model_fuzzer's dictionary (libFuzzer's -dict):
// every op's name and its attrs' names, so that a mutation can turn one op
// into another.
absl::Status SeedDictionary(const std::string& out, const std::string& tmp) {
  std::set<std::string> words;
  const OpRegistry* ops = GlobalOpRegistry();
  for (const std::string& name : ops->OpNames()) {
    words.insert(name);
    MG_ASSIGN_OR_RETURN(const OpRegistrationData* op, ops->LookUp(name));
    for (const OpDef::AttrDef& attr : op->op_def.attr()) words.insert(attr.name());
  }
  std::string dict;
  for (const std::string& w : words) absl::StrAppend(&dict, "\"", w, "\"\n");
  for (const char* fuzzer : {"graph_fuzzer", "saved_model_fuzzer"}) {
    MG_RETURN_IF_ERROR(
        WriteStringToFile(env, JoinPath(out, absl::StrCat(fuzzer, ".dict")), dict));
  }
  return absl::OkStatus();
}

// A state file, and TensorProtos of the sample tensors in both encodings.
absl::Status SeedStateFileAndTensorProtos(const std::string& out) {
  MG_RETURN_IF_ERROR(Put(out, "checkpoint_state_fuzzer", "minigraph",
                         "model_checkpoint_path: \"model.ckpt-5\"\n"
                         "all_model_checkpoint_paths: \"model.ckpt-4\"\n"
                         "all_model_checkpoint_paths: \"/elsewhere/model.ckpt-5\"\n"
                         "all_model_checkpoint_timestamps: 1700000000.5\n"
                         "last_preserved_timestamp: 1699999999\n"));
  // TensorProtos, both encodings.
  std::vector<Tensor> tensors = SampleTensors();
  for (size_t i = 0; i < tensors.size(); ++i) {
    TensorProto content, field;
    TensorToProto(tensors[i], &content);
    TensorToProtoField(tensors[i], &field);
    MG_RETURN_IF_ERROR(
        Put(out, "tensor_proto_fuzzer", absl::StrCat("content", i), content.SerializeAsString()));
    MG_RETURN_IF_ERROR(
        Put(out, "tensor_proto_fuzzer", absl::StrCat("field", i), field.SerializeAsString()));
  }
  return absl::OkStatus();
}

// Seeds from TensorFlow's files under `shared` (checkpoints, SavedModels,
// state files, meta graphs and their constants); returns how many.
absl::StatusOr<int> SeedTensorFlowFiles(const std::string& out, const std::string& shared) {
  int n = 0;
  if (!shared.empty() && env->IsDirectory(shared).value_or(false)) {
    std::vector<std::string> stack = {shared};
    while (!stack.empty()) {
      const std::string dir = stack.back();
      stack.pop_back();
      for (const std::string& f : env->GetChildren(dir).value_or(std::vector<std::string>())) {
        const std::string p = JoinPath(dir, f);
        if (env->IsDirectory(p).value_or(false)) {
          stack.push_back(p);
        } else if (absl::EndsWith(f, ".index")) {
          const std::string prefix = p.substr(0, p.size() - 6);
          if (env->FileExists(DataFilename(prefix, 0, 1)).ok()) {
            MG_RETURN_IF_ERROR(PutBundle(out, absl::StrCat("tf", n++), prefix));
          }
        } else if (f == "saved_model.pb") {
          MG_RETURN_IF_ERROR(PutSavedModel(out, absl::StrCat("tf", n++), dir));
        } else if (f == "checkpoint") {
          MG_ASSIGN_OR_RETURN(std::string text, ReadFileToString(env, p));
          MG_RETURN_IF_ERROR(Put(out, "checkpoint_state_fuzzer", absl::StrCat("tf", n++), text));
        } else if (absl::EndsWith(f, ".meta")) {
          MG_ASSIGN_OR_RETURN(std::string bytes, ReadFileToString(env, p));
          MetaGraphDef meta;
          if (meta.ParseFromString(bytes)) {
            MG_RETURN_IF_ERROR(Put(out, "graph_fuzzer", absl::StrCat("tf", n++),
                                   meta.graph_def().SerializeAsString()));
            for (const NodeDef& node : meta.graph_def().node()) {
              auto it = node.attr().find("value");
              if (node.op() == "Const" && it != node.attr().end() && n < 200) {
                MG_RETURN_IF_ERROR(Put(out, "tensor_proto_fuzzer", absl::StrCat("tf", n++),
                                       it->second.tensor().SerializeAsString()));
              }
            }
          }
        }
      }
    }
  }
  return n;
}

absl::Status Run(const std::string& out, const std::string& shared) {
  MG_RETURN_IF_ERROR(env->CreateDir(out));
  // Checkpoints.
  const std::string tmp = JoinPath(out, "tmp");
  MG_RETURN_IF_ERROR(env->CreateDir(tmp));
  MG_RETURN_IF_ERROR(SeedV2Checkpoint(out, tmp));
  MG_RETURN_IF_ERROR(SeedV1Checkpoint(out, tmp));
  MG_RETURN_IF_ERROR(SeedStateFileAndTensorProtos(out));
  MG_RETURN_IF_ERROR(SeedTrainingGraph(out, tmp));
  MG_RETURN_IF_ERROR(SeedResourceVariableGraph(out, tmp));
  MG_RETURN_IF_ERROR(SeedFeatureColumnGraph(out, tmp));
  MG_RETURN_IF_ERROR(SeedFunctionCalls(out, tmp));
  MG_RETURN_IF_ERROR(SeedSavedModel(out, tmp));
  MG_RETURN_IF_ERROR(SeedExamples(out, tmp));
  MG_RETURN_IF_ERROR(SeedImages(out, tmp));
  MG_RETURN_IF_ERROR(SeedDictionary(out, tmp));
  MG_ASSIGN_OR_RETURN(const int n, SeedTensorFlowFiles(out, shared));
  std::printf("make_seeds: wrote seeds to %s (%d from %s)\n", out.c_str(), n,
              shared.empty() ? "nowhere" : shared.c_str());
  return absl::OkStatus();
}

}  // namespace
}  // namespace minigraph

int main(int argc, char** argv) {
  if (argc < 2 || argc > 3) {
    std::fprintf(stderr, "usage: make_seeds OUT [SHARED_TESTDATA]\n");
    return 2;
  }
  absl::Status s = minigraph::Run(argv[1], argc == 3 ? argv[2] : "");
  if (!s.ok()) {
    std::fprintf(stderr, "make_seeds: %s\n", std::string(s.ToString()).c_str());
    return 1;
  }
  return 0;
}
