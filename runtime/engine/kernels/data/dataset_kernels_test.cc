// tf.data pipelines run step by step on the executor (GraphRunner):
// sources (tensor slices, ranges, text and TFRecord files in the steps'
// Env), transformations (map through a
// library function with a captured value, filter, flat_map, interleave,
// zip, concatenate, cache, shuffle, repeat, take, skip, batch, padded batch,
// prefetch, shuffle-and-repeat, map-and-batch), iterators
// (made, exhausted, restarted, passed as string handles) and the errors a
// user meets first.
#include <algorithm>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "core/allocator.h"
#include "core/mem_env.h"
#include "core/status_macros.h"
#include "core/status_matchers.h"
#include "gmock/gmock.h"
#include "google/protobuf/text_format.h"
#include "gtest/gtest.h"
#include "runtime/cc/ops.h"
#include "runtime/cc/scope.h"
#include "runtime/engine/kernels/kernel_test_util.h"
#include "runtime/graph/node_def_util.h"
#include "tests/testing/function_library.h"
#include "tests/testing/tensors.h"
#include "zlib.h"

namespace minigraph {
namespace {

using ::testing::AllOf;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

// output_types and output_shapes attrs for elements of `types`, each of
// shape `shape`.
std::map<std::string, AttrValue> Spec(std::vector<DataType> types, const PartialShape& shape) {
  AttrValue shapes;
  for (size_t i = 0; i < types.size(); ++i) shape.AsProto(shapes.mutable_list()->add_shape());
  return {{"output_types", MakeAttrValue(types)}, {"output_shapes", shapes}};
}

Output Int64(const Scope& s, int64_t v) { return ops::Const(s, Tensor::Scalar<int64_t>(v)); }

// A string vector constant of `values`.
Output Strings(const Scope& s, const std::vector<std::string>& values) {
  Tensor t(DT_STRING, TensorShape({static_cast<int64_t>(values.size())}));
  for (size_t i = 0; i < values.size(); ++i) t.data<std::string>()[i] = values[i];
  return ops::Const(s, t);
}

// An iterator "it" over `dataset`, "make" (its initializer) and "next".
void AddIterator(const Scope& root, Output dataset, std::vector<DataType> types,
                 const PartialShape& shape) {
  auto spec = Spec(types, shape);
  spec["shared_name"] = MakeAttrValue(std::string());
  spec["container"] = MakeAttrValue(std::string());
  Operation it = root.WithOpName("it").AddOp("Iterator", {}, spec);
  root.WithOpName("make").AddOp("MakeIterator", {{dataset}, {it.output(0)}});
  root.WithOpName("next").AddOp("IteratorGetNext", {{it.output(0)}}, Spec(types, shape));
}

// iota(n) = range(n) as an int64 vector: Range(0, n, 1).
constexpr char kIotaLibrary[] = R"pb(
  library {
    function {
      signature {
        name: "iota"
        input_arg { name: "n" type: DT_INT64 }
        output_arg { name: "r" type: DT_INT64 }
      }
      node_def {
        name: "zero"
        op: "Const"
        attr {
          key: "dtype"
          value { type: DT_INT64 }
        }
        attr {
          key: "value"
          value {
            tensor {
              dtype: DT_INT64
              tensor_shape {}
              int64_val: 0
            }
          }
        }
      }
      node_def {
        name: "one"
        op: "Const"
        attr {
          key: "dtype"
          value { type: DT_INT64 }
        }
        attr {
          key: "value"
          value {
            tensor {
              dtype: DT_INT64
              tensor_shape {}
              int64_val: 1
            }
          }
        }
      }
      node_def {
        name: "range"
        op: "Range"
        input: "zero:output:0"
        input: "n"
        input: "one:output:0"
        attr {
          key: "Tidx"
          value { type: DT_INT64 }
        }
      }
      ret { key: "r" value: "range:output:0" }
    }
  }
)pb";

// A MemEnv that counts the files opened under /gated/ and, with a barrier
// of n, holds each opener there until n have come (so only openers running
// at once pass). After 10 s an opener gives up with an error instead, so a
// pipeline that opens one file at a time fails its test rather than hangs.
class GateEnv : public MemEnv {
 public:
  void set_barrier(int n) {
    absl::MutexLock l(&mu_);
    barrier_ = n;
  }
  int opened() {
    absl::MutexLock l(&mu_);
    return opened_;
  }
  // Waits until `n` files were opened; false if that takes 10 s.
  bool AwaitOpened(int n) {
    absl::MutexLock l(&mu_);
    auto reached = [&]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) { return opened_ >= n; };
    return mu_.AwaitWithTimeout(absl::Condition(&reached), absl::Seconds(10));
  }

  absl::StatusOr<std::unique_ptr<SequentialFile>> NewSequentialFile(
      const std::string& path) override {
    MG_RETURN_IF_ERROR(Enter(path));
    return MemEnv::NewSequentialFile(path);
  }
  absl::StatusOr<std::unique_ptr<RandomAccessFile>> NewRandomAccessFile(
      const std::string& path) override {
    MG_RETURN_IF_ERROR(Enter(path));
    return MemEnv::NewRandomAccessFile(path);
  }

 private:
  absl::Status Enter(const std::string& path) {
    if (!absl::StartsWith(path, "/gated/")) return absl::OkStatus();
    absl::MutexLock l(&mu_);
    ++opened_;
    auto all_came = [this]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) { return opened_ >= barrier_; };
    if (!mu_.AwaitWithTimeout(absl::Condition(&all_came), absl::Seconds(10))) {
      return absl::DeadlineExceededError(absl::StrCat(
          path, ": only ", opened_, " of ", barrier_, " openers came while it waited"));
    }
    return absl::OkStatus();
  }

  absl::Mutex mu_;
  int opened_ ABSL_GUARDED_BY(mu_) = 0;
  int barrier_ ABSL_GUARDED_BY(mu_) = 0;
};

class DatasetTest : public ::testing::Test {
 protected:
  void Start(const Scope& root, const char* library = nullptr) {
    ASSERT_OK_AND_ASSIGN(GraphDef g, root.ToGraphDef());
    if (library != nullptr) {
      GraphDef lib;
      ASSERT_TRUE(google::protobuf::TextFormat::ParseFromString(library, &lib));
      *g.mutable_library() = lib.library();
    }
    ASSERT_OK_AND_ASSIGN(runner_, GraphRunner::Create(g, &env_));
  }

  absl::Status Run(const std::vector<std::string>& targets) {
    std::vector<Tensor> out;
    return runner_->Run({}, {}, targets, &out);
  }

  // Every element "next" gives until the end, component 0 as int64s.
  std::vector<std::vector<int64_t>> Drain() {
    std::vector<std::vector<int64_t>> rows;
    for (;;) {
      std::vector<Tensor> out;
      absl::Status s = runner_->Run({}, {"next:0"}, {}, &out);
      if (absl::IsOutOfRange(s)) {
        EXPECT_THAT(s.message(), HasSubstr("End of sequence"));
        return rows;
      }
      EXPECT_OK(s);
      if (!s.ok() || rows.size() > 1000) return rows;
      rows.emplace_back(out[0].data<int64_t>(), out[0].data<int64_t>() + out[0].NumElements());
    }
  }

  GateEnv env_;
  std::unique_ptr<GraphRunner> runner_;
};

TEST_F(DatasetTest, SlicesRepeatedAndBatchedWithTheRemainderLast) {
  Scope root = Scope::NewRootScope();
  Output slices =
      root.AddOp("TensorSliceDataset", {{ops::Const(root, Iota<int64_t>({5}))}},
                 {{"output_shapes", Spec({DT_INT64}, PartialShape::Scalar()).at("output_shapes")}})
          .output(0);
  Output repeated = root.AddOp("RepeatDataset", {{slices}, {Int64(root, 2)}},
                               Spec({DT_INT64}, PartialShape::Scalar()))
                        .output(0);
  Output batched = root.AddOp("BatchDataset", {{repeated}, {Int64(root, 4)}},
                              Spec({DT_INT64}, PartialShape({-1})))
                       .output(0);
  AddIterator(root, batched, {DT_INT64}, PartialShape({-1}));
  Start(root);

  EXPECT_THAT(Run({"next"}), StatusIs(absl::StatusCode::kFailedPrecondition,
                                      HasSubstr("iterator has not been initialized")));
  ASSERT_OK(Run({"make"}));
  using V = std::vector<int64_t>;
  EXPECT_THAT(Drain(), ElementsAre(V{0, 1, 2, 3}, V{4, 0, 1, 2}, V{3, 4}));
  EXPECT_TRUE(absl::IsOutOfRange(Run({"next"}))) << "stays at the end";
  ASSERT_OK(Run({"make"}));
  EXPECT_EQ(Drain().size(), 3u) << "MakeIterator starts over";
}

TEST_F(DatasetTest, DropRemainderTakeSkipAndPrefetch) {
  Scope root = Scope::NewRootScope();
  auto scalar = Spec({DT_INT64}, PartialShape::Scalar());
  Output slices = root.AddOp("TensorSliceDataset", {{ops::Const(root, Iota<int64_t>({10}))}},
                             {{"output_shapes", scalar.at("output_shapes")}})
                      .output(0);
  Output skipped = root.AddOp("SkipDataset", {{slices}, {Int64(root, 3)}}, scalar).output(0);
  Output taken = root.AddOp("TakeDataset", {{skipped}, {Int64(root, 5)}}, scalar).output(0);
  Output prefetched = root.AddOp("PrefetchDataset", {{taken}, {Int64(root, -1)}}, scalar).output(0);
  Output batched =
      root.AddOp("BatchDatasetV2", {{prefetched}, {Int64(root, 2)}, {ops::Const(root, true)}},
                 Spec({DT_INT64}, PartialShape({2})))
          .output(0);
  AddIterator(root, batched, {DT_INT64}, PartialShape({2}));
  Start(root);
  ASSERT_OK(Run({"make"}));
  using V = std::vector<int64_t>;
  EXPECT_THAT(Drain(), ElementsAre(V{3, 4}, V{5, 6})) << "7 is dropped with the remainder";
}

TEST_F(DatasetTest, ShuffleIsAPermutationFixedBySeedsAndNewEachEpoch) {
  Scope root = Scope::NewRootScope();
  auto scalar = Spec({DT_INT64}, PartialShape::Scalar());
  const Tensor values = Iota<int64_t>({50});
  Output slices = root.AddOp("TensorSliceDataset", {{ops::Const(root, values)}},
                             {{"output_shapes", scalar.at("output_shapes")}})
                      .output(0);
  Output shuffled =
      root.AddOp("ShuffleDataset",
                 {{slices}, {Int64(root, 10)}, {Int64(root, 7)}, {Int64(root, 42)}}, scalar)
          .output(0);
  Output repeated = root.AddOp("RepeatDataset", {{shuffled}, {Int64(root, 2)}}, scalar).output(0);
  Output batched = root.AddOp("BatchDataset", {{repeated}, {Int64(root, 50)}},
                              Spec({DT_INT64}, PartialShape({-1})))
                       .output(0);
  AddIterator(root, batched, {DT_INT64}, PartialShape({-1}));
  Start(root);
  ASSERT_OK(Run({"make"}));
  const std::vector<std::vector<int64_t>> epochs = Drain();
  ASSERT_EQ(epochs.size(), 2u);
  const std::vector<int64_t> iota(values.data<int64_t>(), values.data<int64_t>() + 50);
  for (const std::vector<int64_t>& epoch : epochs) {
    std::vector<int64_t> sorted = epoch;
    std::sort(sorted.begin(), sorted.end());
    EXPECT_EQ(sorted, iota);
    EXPECT_NE(epoch, iota) << "shuffled";
    // A buffer of 10: no element comes out more than 9 places early.
    for (int i = 0; i < 50; ++i) EXPECT_LE(epoch[i], i + 9) << i;
  }
  EXPECT_NE(epochs[0], epochs[1]) << "reshuffle_each_iteration";
  // TensorFlow 2.21's orders for these ops and seeds (the same graph run in
  // TensorFlow, BatchDatasetV2 for BatchDataset).
  EXPECT_THAT(epochs[0],
              ElementsAre(8, 7, 5, 11, 0, 3, 12, 1, 17, 18, 13, 19, 21, 20, 2, 16, 9, 25, 14, 15,
                          28, 10, 29, 4, 30, 27, 24, 22, 6, 37, 35, 31, 41, 32, 38, 44, 42, 36, 43,
                          39, 45, 26, 48, 33, 23, 46, 47, 40, 34, 49));
  EXPECT_THAT(epochs[1],
              ElementsAre(3, 4, 7, 9, 2, 12, 13, 8, 10, 1, 14, 18, 6, 20, 17, 15, 19, 22, 5, 26,
                          21, 25, 16, 23, 27, 28, 34, 29, 33, 31, 39, 32, 37, 35, 0, 43, 38, 40,
                          24, 36, 46, 11, 41, 49, 45, 48, 47, 44, 42, 30));

  // Seeds fix the orders: making the iterator again, or in a new runner (a new session),
  // repeats them (as TensorFlow 1.x does when seeds are set).
  ASSERT_OK(Run({"make"}));
  EXPECT_EQ(Drain(), epochs);
  Start(root);
  ASSERT_OK(Run({"make"}));
  EXPECT_EQ(Drain(), epochs);
}

// padded_batch: each component padded to its padded shape (-1: the longest
// in the batch) with its padding value; V2 drops a short last batch.
TEST_F(DatasetTest, PaddedBatchPadsEachComponentToItsShape) {
  Scope root = Scope::NewRootScope();
  // Rows 0..n-1 for n = 1, 3, 2, 0, 2.
  Tensor lengths(DT_INT64, TensorShape({5}));
  const int64_t lens[] = {1, 3, 2, 0, 2};
  for (int i = 0; i < 5; ++i) lengths.data<int64_t>()[i] = lens[i];
  auto scalar = Spec({DT_INT64}, PartialShape::Scalar());
  Output n = root.AddOp("TensorSliceDataset", {{ops::Const(root, lengths)}},
                        {{"output_shapes", scalar.at("output_shapes")}})
                 .output(0);
  auto row_spec = Spec({DT_INT64}, PartialShape({-1}));
  auto map_attrs = row_spec;
  map_attrs["f"].mutable_func()->set_name("iota");
  map_attrs["Targuments"] = MakeAttrValue(std::vector<DataType>{});
  Output rows = root.AddOp("MapDataset", {{n}, {}}, map_attrs).output(0);
  auto padded_spec = Spec({DT_INT64}, PartialShape({-1, -1}));
  std::map<std::string, AttrValue> attrs = {{"Toutput_types", padded_spec.at("output_types")},
                                            {"output_shapes", padded_spec.at("output_shapes")},
                                            {"N", MakeAttrValue(int64_t{1})}};
  Output batched = root.AddOp("PaddedBatchDataset",
                              {{rows},
                               {Int64(root, 2)},
                               {ops::Const(root, Tensor::Vector<int64_t>({-1}))},
                               {Int64(root, -7)}},
                              attrs)
                       .output(0);
  AddIterator(root, batched, {DT_INT64}, PartialShape({-1, -1}));
  Start(root, kIotaLibrary);
  ASSERT_OK(Run({"make"}));
  std::vector<std::vector<int64_t>> shapes, values;
  for (;;) {
    std::vector<Tensor> out;
    if (!runner_->Run({}, {"next:0"}, {}, &out).ok()) break;
    shapes.emplace_back(out[0].shape().dim_sizes().begin(), out[0].shape().dim_sizes().end());
    values.emplace_back(out[0].data<int64_t>(), out[0].data<int64_t>() + out[0].NumElements());
  }
  using V = std::vector<int64_t>;
  EXPECT_THAT(shapes, ElementsAre(V{2, 3}, V{2, 2}, V{1, 2}));
  EXPECT_THAT(values, ElementsAre(V{0, -7, -7, 0, 1, 2}, V{0, 1, -7, -7}, V{0, 1}));

  // V2, a fixed padded length and drop_remainder; a row longer than the
  // padded shape is an error that names the dataset.
  Scope v2 = Scope::NewRootScope();
  Output n2 = v2.AddOp("TensorSliceDataset", {{ops::Const(v2, lengths)}},
                       {{"output_shapes", scalar.at("output_shapes")}})
                  .output(0);
  Output rows2 = v2.AddOp("MapDataset", {{n2}, {}}, map_attrs).output(0);
  auto fixed = Spec({DT_INT64}, PartialShape({2, 4}));
  Output batched2 = v2.WithOpName("padded")
                        .AddOp("PaddedBatchDatasetV2",
                               {{rows2},
                                {Int64(v2, 2)},
                                {ops::Const(v2, Tensor::Vector<int64_t>({4}))},
                                {Int64(v2, 0)},
                                {ops::Const(v2, true)}},
                               {{"Toutput_types", fixed.at("output_types")},
                                {"output_shapes", fixed.at("output_shapes")},
                                {"N", MakeAttrValue(int64_t{1})}})
                        .output(0);
  AddIterator(v2, batched2, {DT_INT64}, PartialShape({2, 4}));
  Start(v2, kIotaLibrary);
  ASSERT_OK(Run({"make"}));
  EXPECT_THAT(Drain(), ElementsAre(V{0, 0, 0, 0, 0, 1, 2, 0}, V{0, 1, 0, 0, 0, 0, 0, 0}));
  // A row of 5 for a padded length of 4.
  Tensor too_long(DT_INT64, TensorShape({1}));
  too_long.data<int64_t>()[0] = 5;
  std::vector<Tensor> out;
  Scope bad = Scope::NewRootScope();
  Output n3 = bad.AddOp("TensorSliceDataset", {{ops::Const(bad, too_long)}},
                        {{"output_shapes", scalar.at("output_shapes")}})
                  .output(0);
  Output rows3 = bad.AddOp("MapDataset", {{n3}, {}}, map_attrs).output(0);
  Output batched3 = bad.WithOpName("padded")
                        .AddOp("PaddedBatchDatasetV2",
                               {{rows3},
                                {Int64(bad, 2)},
                                {ops::Const(bad, Tensor::Vector<int64_t>({4}))},
                                {Int64(bad, 0)},
                                {ops::Const(bad, false)}},
                               {{"Toutput_types", fixed.at("output_types")},
                                {"output_shapes", fixed.at("output_shapes")},
                                {"N", MakeAttrValue(int64_t{1})}})
                        .output(0);
  AddIterator(bad, batched3, {DT_INT64}, PartialShape({-1, 4}));
  Start(bad, kIotaLibrary);
  ASSERT_OK(Run({"make"}));
  EXPECT_THAT(
      runner_->Run({}, {"next:0"}, {}, &out),
      StatusIs(absl::StatusCode::kInvalidArgument,
               AllOf(HasSubstr("'padded'"), HasSubstr("pad to a smaller size"), HasSubstr("[5]"))));
}

// TensorFlow 1's fused transformations: shuffle_and_repeat is shuffle then
// repeat (a new order each epoch), map_and_batch is map then batch.
TEST_F(DatasetTest, ShuffleAndRepeatAndMapAndBatch) {
  Scope root = Scope::NewRootScope();
  auto scalar = Spec({DT_INT64}, PartialShape::Scalar());
  Output slices = root.AddOp("TensorSliceDataset", {{ops::Const(root, Iota<int64_t>({20}))}},
                             {{"output_shapes", scalar.at("output_shapes")}})
                      .output(0);
  Output shuffled =
      root.AddOp(
              "ShuffleAndRepeatDataset",
              {{slices}, {Int64(root, 5)}, {Int64(root, 7)}, {Int64(root, 42)}, {Int64(root, 2)}},
              scalar)
          .output(0);
  Output batched = root.AddOp("BatchDataset", {{shuffled}, {Int64(root, 20)}},
                              Spec({DT_INT64}, PartialShape({-1})))
                       .output(0);
  AddIterator(root, batched, {DT_INT64}, PartialShape({-1}));
  Start(root);
  ASSERT_OK(Run({"make"}));
  const std::vector<std::vector<int64_t>> epochs = Drain();
  ASSERT_EQ(epochs.size(), 2u);
  std::vector<int64_t> iota(20);
  for (int i = 0; i < 20; ++i) iota[i] = i;
  for (const std::vector<int64_t>& epoch : epochs) {
    std::vector<int64_t> sorted = epoch;
    std::sort(sorted.begin(), sorted.end());
    EXPECT_EQ(sorted, iota);
  }
  EXPECT_NE(epochs[0], epochs[1]) << "reshuffled each epoch";

  Scope m = Scope::NewRootScope();
  auto fscalar = Spec({DT_FLOAT}, PartialShape::Scalar());
  Output floats = m.AddOp("TensorSliceDataset", {{ops::Const(m, {1.0f, 2.0f, 3.0f, 4.0f, 5.0f})}},
                          {{"output_shapes", fscalar.at("output_shapes")}})
                      .output(0);
  auto attrs = Spec({DT_FLOAT}, PartialShape({-1}));
  attrs["f"].mutable_func()->set_name("scale_add");  // 2 * x + y
  attrs["Targuments"] = MakeAttrValue(std::vector<DataType>{DT_FLOAT});
  Output mb = m.WithOpName("map_and_batch")
                  .AddOp("MapAndBatchDataset",
                         {{floats},
                          {ops::Const(m, 0.5f)},
                          {Int64(m, 2)},
                          {Int64(m, -1)},
                          {ops::Const(m, false)}},
                         attrs)
                  .output(0);
  AddIterator(m, mb, {DT_FLOAT}, PartialShape({-1}));
  Start(m, kFunctionLibraryText);
  ASSERT_OK(Run({"make"}));
  std::vector<std::vector<float>> got;
  std::vector<Tensor> out;
  while (runner_->Run({}, {"next:0"}, {}, &out).ok()) {
    got.emplace_back(out[0].data<float>(), out[0].data<float>() + out[0].NumElements());
  }
  using F = std::vector<float>;
  EXPECT_THAT(got, ElementsAre(F{2.5f, 4.5f}, F{6.5f, 8.5f}, F{10.5f}));
}

// The new batch, shuffle and map datasets refuse bad arguments with the
// dataset's name and what is wrong, when the iterator is made.
TEST_F(DatasetTest, PaddedFusedDatasetsCheckTheirArguments) {
  auto scalar = Spec({DT_INT64}, PartialShape::Scalar());
  auto fscalar = Spec({DT_FLOAT}, PartialShape::Scalar());
  struct Case {
    std::string name, want;
    std::function<Output(const Scope&, Output)> make;
    bool floats = false;
    bool at_next = false;  // found in an element, when it is batched
  };
  auto padded = [&](const Scope& s, Output in, Tensor shape, Tensor value) {
    auto spec = Spec({DT_INT64}, PartialShape({-1, -1}));
    return s.WithOpName("ds")
        .AddOp("PaddedBatchDataset",
               {{in}, {Int64(s, 2)}, {ops::Const(s, shape)}, {ops::Const(s, value)}},
               {{"Toutput_types", spec.at("output_types")},
                {"output_shapes", spec.at("output_shapes")},
                {"N", MakeAttrValue(int64_t{1})}})
        .output(0);
  };
  const std::vector<Case> cases = {
      {"padded shape of another rank", "of another rank than its padded shape [2,2]",
       [&](const Scope& s, Output in) {
         return padded(s, in, Tensor::Vector<int64_t>({2, 2}), Tensor::Scalar<int64_t>(0));
       },
       false, true},
      {"padding value not a scalar", "padding value 0 must be a scalar, got shape [1]",
       [&](const Scope& s, Output in) {
         return padded(s, in, Tensor::Scalar<int64_t>(0), Tensor::Vector<int64_t>({0}));
       }},
      {"shuffle buffer of 0", "buffer_size must be greater than zero, got 0",
       [&](const Scope& s, Output in) {
         return s.WithOpName("ds")
             .AddOp("ShuffleAndRepeatDataset",
                    {{in}, {Int64(s, 0)}, {Int64(s, 1)}, {Int64(s, 2)}, {Int64(s, 3)}}, scalar)
             .output(0);
       }},
      {"map function of another arity", "map function 'scale_add' takes 2 arguments",
       [&](const Scope& s, Output in) {
         auto attrs = Spec({DT_FLOAT}, PartialShape({-1}));
         attrs["f"].mutable_func()->set_name("scale_add");
         attrs["Targuments"] = MakeAttrValue(std::vector<DataType>{});
         return s.WithOpName("ds")
             .AddOp("MapAndBatchDataset",
                    {{in}, {}, {Int64(s, 2)}, {Int64(s, 1)}, {ops::Const(s, false)}}, attrs)
             .output(0);
       },
       true},
      {"no parallel calls", "num_parallel_calls must be greater than zero (or AUTOTUNE), got 0",
       [&](const Scope& s, Output in) {
         auto attrs = Spec({DT_FLOAT}, PartialShape({-1}));
         attrs["f"].mutable_func()->set_name("scale_add");
         attrs["Targuments"] = MakeAttrValue(std::vector<DataType>{DT_FLOAT});
         return s.WithOpName("ds")
             .AddOp("MapAndBatchDataset",
                    {{in},
                     {ops::Const(s, 1.0f)},
                     {Int64(s, 2)},
                     {Int64(s, 0)},
                     {ops::Const(s, false)}},
                    attrs)
             .output(0);
       },
       true},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    Scope root = Scope::NewRootScope();
    Output in = c.floats ? root.AddOp("TensorSliceDataset", {{ops::Const(root, {1.0f, 2.0f})}},
                                      {{"output_shapes", fscalar.at("output_shapes")}})
                               .output(0)
                         : root.AddOp("TensorSliceDataset",
                                      {{ops::Const(root, Iota<int64_t>({3}))}},
                                      {{"output_shapes", scalar.at("output_shapes")}})
                               .output(0);
    Output ds = c.make(root, in);
    AddIterator(root, ds, {c.floats ? DT_FLOAT : DT_INT64}, PartialShape());
    Start(root, kFunctionLibraryText);
    if (c.at_next) ASSERT_OK(Run({"make"}));
    EXPECT_THAT(
        Run({c.at_next ? "next" : "make"}),
        StatusIs(absl::StatusCode::kInvalidArgument, AllOf(HasSubstr("'ds'"), HasSubstr(c.want))));
  }
}

TEST_F(DatasetTest, TextLinesOfFilesInTheStepsEnv) {
  ASSERT_OK(WriteStringToFile(&env_, "/data/a.txt", "first\nsecond\r\n\nlast without newline"));
  ASSERT_OK(WriteStringToFile(&env_, "/data/b.txt", "b1\n"));
  Scope root = Scope::NewRootScope();
  Output names = root.WithOpName("filenames")
                     .AddOp("Placeholder", {}, {{"dtype", MakeAttrValue(DT_STRING)}})
                     .output(0);
  Output lines =
      root.AddOp("TextLineDataset", {{names}, {ops::Const(root, std::string())}, {Int64(root, 4)}})
          .output(0);
  AddIterator(root, lines, {DT_STRING}, PartialShape::Scalar());
  Start(root);

  Tensor files(DT_STRING, TensorShape({2}));
  files.data<std::string>()[0] = "/data/a.txt";
  files.data<std::string>()[1] = "/data/b.txt";
  std::vector<Tensor> out;
  ASSERT_OK(runner_->Run({{"filenames:0", files}}, {}, {"make"}, &out));
  std::vector<std::string> got;
  for (;;) {
    absl::Status s = runner_->Run({}, {"next:0"}, {}, &out);
    if (!s.ok()) {
      EXPECT_TRUE(absl::IsOutOfRange(s)) << s;
      break;
    }
    got.push_back(*out[0].data<std::string>());
  }
  EXPECT_THAT(got, ElementsAre("first", "second", "", "last without newline", "b1"));

  ASSERT_OK(runner_->Run({{"filenames:0", Tensor::Scalar<std::string>("/data/missing.csv")}}, {},
                          {"make"}, &out));
  EXPECT_THAT(runner_->Run({}, {"next:0"}, {}, &out),
              StatusIs(absl::StatusCode::kNotFound, HasSubstr("/data/missing.csv")));
}

TEST_F(DatasetTest, MapCallsALibraryFunctionWithACapturedValue) {
  Scope root = Scope::NewRootScope();
  auto scalar = Spec({DT_FLOAT}, PartialShape::Scalar());
  Output slices = root.AddOp("TensorSliceDataset", {{ops::Const(root, {1.0f, 2.0f, 3.0f})}},
                             {{"output_shapes", scalar.at("output_shapes")}})
                      .output(0);
  auto map_attrs = scalar;
  map_attrs["f"].mutable_func()->set_name("scale_add");  // 2 * x + y
  Output mapped = root.AddOp("ParallelMapDataset",
                             {{slices}, {ops::Const(root, 0.5f)}, {ops::Const(root, 2)}}, map_attrs)
                      .output(0);
  AddIterator(root, mapped, {DT_FLOAT}, PartialShape::Scalar());
  Start(root, kFunctionLibraryText);
  ASSERT_OK(Run({"make"}));
  std::vector<float> got;
  std::vector<Tensor> out;
  while (runner_->Run({}, {"next:0"}, {}, &out).ok()) got.push_back(*out[0].data<float>());
  EXPECT_THAT(got, ElementsAre(2.5f, 4.5f, 6.5f));
}

// TensorFlow 1's make_one_shot_iterator(): the dataset comes from a
// function of no arguments (here through OptimizeDataset and ModelDataset,
// as TensorFlow 2 writes it), made on the iterator's first use only.
constexpr char kDatasetFactory[] = R"pb(
  library {
    function {
      signature {
        name: "make_dataset"
        output_arg { name: "handle" type: DT_VARIANT }
        is_stateful: true
      }
      node_def {
        name: "values"
        op: "Const"
        attr {
          key: "dtype"
          value { type: DT_INT64 }
        }
        attr {
          key: "value"
          value {
            tensor {
              dtype: DT_INT64
              tensor_shape { dim { size: 3 } }
              int64_val: [ 4, 5, 6 ]
            }
          }
        }
      }
      node_def {
        name: "none"
        op: "Const"
        attr {
          key: "dtype"
          value { type: DT_STRING }
        }
        attr {
          key: "value"
          value {
            tensor {
              dtype: DT_STRING
              tensor_shape { dim { size: 0 } }
            }
          }
        }
      }
      node_def {
        name: "slices"
        op: "TensorSliceDataset"
        input: "values:output:0"
        attr {
          key: "Toutput_types"
          value { list { type: DT_INT64 } }
        }
        attr {
          key: "output_shapes"
          value { list { shape {} } }
        }
      }
      node_def {
        name: "optimized"
        op: "OptimizeDataset"
        input: "slices:handle:0"
        input: "none:output:0"
        attr {
          key: "output_types"
          value { list { type: DT_INT64 } }
        }
        attr {
          key: "output_shapes"
          value { list { shape {} } }
        }
      }
      node_def {
        name: "model"
        op: "ModelDataset"
        input: "optimized:handle:0"
        attr {
          key: "output_types"
          value { list { type: DT_INT64 } }
        }
        attr {
          key: "output_shapes"
          value { list { shape {} } }
        }
      }
      ret { key: "handle" value: "model:handle:0" }
    }
  }
)pb";

TEST_F(DatasetTest, OneShotIteratorMakesItsDatasetOnce) {
  Scope root = Scope::NewRootScope();
  auto spec = Spec({DT_INT64}, PartialShape::Scalar());
  auto attrs = spec;
  attrs["dataset_factory"].mutable_func()->set_name("make_dataset");
  Operation it = root.WithOpName("it").AddOp("OneShotIterator", {}, attrs);
  root.WithOpName("next").AddOp("IteratorGetNext", {{it.output(0)}}, spec);
  Start(root, kDatasetFactory);
  using V = std::vector<int64_t>;
  EXPECT_THAT(Drain(), ElementsAre(V{4}, V{5}, V{6}));
  EXPECT_TRUE(absl::IsOutOfRange(Run({"next"}))) << "one shot: it does not start over";
}

// A pipeline without end feeding a batch too large to fill: the step's
// timeout stops it, and a batch past max_tensor_bytes is refused before it
// is gathered in full.
TEST_F(DatasetTest, EndlessPipelinesStopAtTheDeadlineOrTheMemoryLimit) {
  Scope root = Scope::NewRootScope();
  auto scalar = Spec({DT_INT64}, PartialShape::Scalar());
  Output slices = root.AddOp("TensorSliceDataset", {{ops::Const(root, Iota<int64_t>({3}))}},
                             {{"output_shapes", scalar.at("output_shapes")}})
                      .output(0);
  Output forever = root.AddOp("RepeatDataset", {{slices}, {Int64(root, -1)}}, scalar).output(0);
  Output batched = root.WithOpName("huge_batch")
                       .AddOp("BatchDataset", {{forever}, {Int64(root, int64_t{1} << 60)}},
                              Spec({DT_INT64}, PartialShape({-1})))
                       .output(0);
  AddIterator(root, batched, {DT_INT64}, PartialShape({-1}));
  Start(root);
  ASSERT_OK(Run({"make"}));
  std::vector<Tensor> out;
  // Whichever loop of the pipeline sees the deadline first names itself.
  EXPECT_THAT(
      runner_->Run({}, {"next:0"}, {}, &out, absl::Milliseconds(50)),
      StatusIs(absl::StatusCode::kDeadlineExceeded, HasSubstr("step timed out in dataset '")));

  const size_t limit = MaxTensorBytes();
  SetMaxTensorBytes(1 << 20);
  ASSERT_OK(Run({"make"}));
  EXPECT_THAT(Run({"next"}), StatusIs(absl::StatusCode::kResourceExhausted,
                                      HasSubstr("dataset 'huge_batch': its batch holds more "
                                                "than 1048576 bytes (max_tensor_bytes)")));
  SetMaxTensorBytes(limit);
}

TEST_F(DatasetTest, ErrorsNameTheDatasetTheIteratorOrTheFunction) {
  Scope root = Scope::NewRootScope();
  auto scalar = Spec({DT_FLOAT}, PartialShape::Scalar());
  Output slices = root.WithOpName("slices")
                      .AddOp("TensorSliceDataset", {{ops::Const(root, {1.0f, 2.0f})}},
                             {{"output_shapes", scalar.at("output_shapes")}})
                      .output(0);
  // An iterator of int64 elements cannot walk float ones.
  AddIterator(root, slices, {DT_INT64}, PartialShape::Scalar());
  root.WithOpName("bad_batch")
      .AddOp("BatchDataset", {{slices}, {Int64(root, 0)}}, Spec({DT_FLOAT}, PartialShape({-1})));
  Operation string_handle =
      root.WithOpName("handle").AddOp("IteratorToStringHandle", {{root.FindOp("it")->output(0)}});
  Output parsed = root.WithOpName("from_handle")
                      .AddOp("IteratorFromStringHandle", {{string_handle.output(0)}})
                      .output(0);
  root.WithOpName("next_from_handle")
      .AddOp("IteratorGetNext", {{parsed}}, Spec({DT_INT64}, PartialShape::Scalar()));
  Start(root);

  EXPECT_THAT(Run({"make"}), StatusIs(absl::StatusCode::kInvalidArgument,
                                      HasSubstr("dataset 'slices' has elements of types [float] "
                                                "but iterator 'it' was made for [int64]")));
  EXPECT_THAT(
      Run({"bad_batch"}),
      StatusIs(absl::StatusCode::kInvalidArgument,
               HasSubstr("BatchDataset 'bad_batch': batch_size must be greater than zero")));
  // The string handle names the same iterator (not yet made).
  EXPECT_THAT(Run({"next_from_handle"}), StatusIs(absl::StatusCode::kFailedPrecondition));
  std::vector<Tensor> out;
  EXPECT_THAT(
      runner_->Run({{"handle:0", Tensor::Scalar<std::string>("not a handle")}}, {},
                    {"next_from_handle"}, &out),
      StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("could not parse string_handle")));

  // A map function that does not exist is named when the graph is loaded.
  Scope root2 = Scope::NewRootScope();
  auto map_attrs = scalar;
  map_attrs["f"].mutable_func()->set_name("no_such_function");
  Output s2 = root2
                  .AddOp("TensorSliceDataset", {{ops::Const(root2, {1.0f})}},
                         {{"output_shapes", scalar.at("output_shapes")}})
                  .output(0);
  root2.WithOpName("map").AddOp("MapDataset", {{s2}, {}}, map_attrs);
  ASSERT_OK_AND_ASSIGN(GraphDef g, root2.ToGraphDef());
  absl::StatusOr<std::unique_ptr<GraphRunner>> runner = GraphRunner::Create(g);
  absl::Status created = runner.status();
  if (created.ok()) created = (*runner)->Run({}, {}, {"map"}, &out);
  EXPECT_THAT(created, StatusIs(absl::StatusCode::kNotFound, HasSubstr("no_such_function")));
}

// Functions for the combining datasets: repeat6(x) is the dataset of x six
// times (a dataset-valued function, for FlatMap and Interleave);
// is_even(x) is x % 2 == 0 (a predicate, for Filter).
constexpr char kComposeLibrary[] = R"pb(
  library {
    function {
      signature {
        name: "repeat6"
        input_arg { name: "x" type: DT_INT64 }
        output_arg { name: "handle" type: DT_VARIANT }
        is_stateful: true
      }
      node_def {
        name: "one"
        op: "TensorDataset"
        input: "x"
        attr {
          key: "Toutput_types"
          value { list { type: DT_INT64 } }
        }
        attr {
          key: "output_shapes"
          value { list { shape {} } }
        }
      }
      node_def {
        name: "six"
        op: "Const"
        attr {
          key: "dtype"
          value { type: DT_INT64 }
        }
        attr {
          key: "value"
          value {
            tensor {
              dtype: DT_INT64
              tensor_shape {}
              int64_val: 6
            }
          }
        }
      }
      node_def {
        name: "repeated"
        op: "RepeatDataset"
        input: "one:handle:0"
        input: "six:output:0"
        attr {
          key: "output_types"
          value { list { type: DT_INT64 } }
        }
        attr {
          key: "output_shapes"
          value { list { shape {} } }
        }
      }
      ret { key: "handle" value: "repeated:handle:0" }
    }
    function {
      signature {
        name: "is_even"
        input_arg { name: "x" type: DT_INT64 }
        output_arg { name: "keep" type: DT_BOOL }
      }
      node_def {
        name: "two"
        op: "Const"
        attr {
          key: "dtype"
          value { type: DT_INT64 }
        }
        attr {
          key: "value"
          value {
            tensor {
              dtype: DT_INT64
              tensor_shape {}
              int64_val: 2
            }
          }
        }
      }
      node_def {
        name: "zero"
        op: "Const"
        attr {
          key: "dtype"
          value { type: DT_INT64 }
        }
        attr {
          key: "value"
          value {
            tensor {
              dtype: DT_INT64
              tensor_shape {}
              int64_val: 0
            }
          }
        }
      }
      node_def {
        name: "mod"
        op: "FloorMod"
        input: "x"
        input: "two:output:0"
        attr {
          key: "T"
          value { type: DT_INT64 }
        }
      }
      node_def {
        name: "even"
        op: "Equal"
        input: "mod:z:0"
        input: "zero:output:0"
        attr {
          key: "T"
          value { type: DT_INT64 }
        }
      }
      ret { key: "keep" value: "even:z:0" }
    }
  }
)pb";

// RangeDataset(start, stop) of int64 scalars.
Output Range(const Scope& s, int64_t start, int64_t stop) {
  return s
      .AddOp("RangeDataset", {{Int64(s, start)}, {Int64(s, stop)}, {Int64(s, 1)}},
             Spec({DT_INT64}, PartialShape::Scalar()))
      .output(0);
}

// A dataset-op's attrs for scalar int64 elements and the function `f` in
// attr `attr`, with no captured values.
std::map<std::string, AttrValue> WithFunction(const char* attr, const char* f) {
  auto attrs = Spec({DT_INT64}, PartialShape::Scalar());
  attrs[attr].mutable_func()->set_name(f);
  attrs["Targuments"] = MakeAttrValue(std::vector<DataType>{});
  return attrs;
}

std::vector<int64_t> Flat(const std::vector<std::vector<int64_t>>& rows) {
  std::vector<int64_t> flat;
  for (const auto& r : rows) flat.insert(flat.end(), r.begin(), r.end());
  return flat;
}

TEST_F(DatasetTest, InterleaveFlatMapAndFilterInTensorFlowsOrder) {
  Scope root = Scope::NewRootScope();
  // tf.data's documented example: Dataset.range(1, 6).interleave(
  //     lambda x: Dataset.from_tensors(x).repeat(6), cycle_length=2, block_length=4)
  auto interleave = WithFunction("f", "repeat6");
  Output interleaved =
      root.WithOpName("interleave")
          .AddOp("InterleaveDataset", {{Range(root, 1, 6)}, {}, {Int64(root, 2)}, {Int64(root, 4)}},
                 interleave)
          .output(0);
  Output flat = root.AddOp("FlatMapDataset", {{Range(root, 1, 3)}, {}}, interleave).output(0);
  Output evens =
      root.AddOp("FilterDataset", {{Range(root, 0, 10)}, {}}, WithFunction("predicate", "is_even"))
          .output(0);
  Output all = root.AddOp("ConcatenateDataset", {{interleaved}, {flat}},
                          Spec({DT_INT64}, PartialShape::Scalar()))
                   .output(0);
  all = root.AddOp("ConcatenateDataset", {{all}, {evens}}, Spec({DT_INT64}, PartialShape::Scalar()))
            .output(0);
  AddIterator(root, all, {DT_INT64}, PartialShape::Scalar());
  Start(root, kComposeLibrary);
  ASSERT_OK(Run({"make"}));
  EXPECT_THAT(Flat(Drain()),
              ElementsAre(1, 1, 1, 1, 2, 2, 2, 2, 1, 1, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 3, 3, 4, 4, 5,
                          5, 5, 5, 5, 5,  // interleave, as TensorFlow's docs give it
                          1, 1, 1, 1, 1, 1, 2, 2, 2, 2, 2, 2,  // flat_map
                          0, 2, 4, 6, 8));                     // filter
}

TEST_F(DatasetTest, ZipStopsAtTheShortestAndCacheKeepsAFinishedPass) {
  ASSERT_OK(WriteStringToFile(&env_, "/data/lines.txt", "10\n20\n30\n"));
  Scope root = Scope::NewRootScope();
  auto lines_spec = Spec({DT_STRING}, PartialShape::Scalar());
  Output lines = root.AddOp("TextLineDataset", {{ops::Const(root, std::string("/data/lines.txt"))},
                                                {ops::Const(root, std::string())},
                                                {Int64(root, 0)}})
                     .output(0);
  Output cached =
      root.AddOp("CacheDataset", {{lines}, {ops::Const(root, std::string())}}, lines_spec)
          .output(0);
  Output twice = root.AddOp("RepeatDataset", {{cached}, {Int64(root, 2)}}, lines_spec).output(0);
  auto pair = Spec({DT_INT64, DT_STRING}, PartialShape::Scalar());
  pair["N"] = MakeAttrValue(int64_t{2});
  Output zipped = root.AddOp("ZipDataset", {{Range(root, 0, 100), twice}}, pair).output(0);
  AddIterator(root, zipped, {DT_INT64, DT_STRING}, PartialShape::Scalar());
  Start(root);

  auto next = [&](std::vector<std::string>* got) {
    std::vector<Tensor> out;
    absl::Status s = runner_->Run({}, {"next:0", "next:1"}, {}, &out);
    if (s.ok()) {
      got->push_back(absl::StrCat(*out[0].data<int64_t>(), ":", *out[1].data<std::string>()));
    }
    return s;
  };
  ASSERT_OK(Run({"make"}));
  std::vector<std::string> got;
  for (int i = 0; i < 3; ++i) ASSERT_OK(next(&got));
  // The second pass comes from the cache: without it, the repeat would
  // open the file again.
  ASSERT_OK(env_.DeleteFile("/data/lines.txt"));
  absl::Status s;
  while ((s = next(&got)).ok()) {
  }
  EXPECT_TRUE(absl::IsOutOfRange(s)) << s;
  EXPECT_THAT(got, ElementsAre("0:10", "1:20", "2:30", "3:10", "4:20", "5:30"))
      << "the zip ends with its shorter input";
}

// Three records ("hello", "", "tf.data") in TensorFlow's TFRecord format,
// with checksums computed outside minigraph (a bitwise crc32c in Python).
constexpr char kRecords[] =
    "\x05\x00\x00\x00\x00\x00\x00\x00\xea\xb2\x04\x3e\x68\x65\x6c\x6c\x6f\xbb\x1f\x1c\x19\x00\x00"
    "\x00\x00\x00\x00\x00\x00\x29\x03\x98\x07\xd8\xea\x82\xa2\x07\x00\x00\x00\x00\x00\x00\x00\xbb"
    "\xd7\x9f\x11\x74\x66\x2e\x64\x61\x74\x61\xc7\x0a\xf2\x66";

TEST_F(DatasetTest, TFRecordsAreCheckedAndNameTheFileAndOffsetWhenCorrupt) {
  const std::string good(kRecords, sizeof(kRecords) - 1);
  std::string bad_data = good;
  bad_data[37 + 12 + 2] ^= 1;  // a byte of "tf.data", the record at 37
  ASSERT_OK(WriteStringToFile(&env_, "/r/good.tfrecord", good));
  ASSERT_OK(WriteStringToFile(&env_, "/r/bad_data.tfrecord", bad_data));
  ASSERT_OK(WriteStringToFile(&env_, "/r/short.tfrecord", good.substr(0, good.size() - 3)));
  ASSERT_OK(WriteStringToFile(&env_, "/r/bad_length.tfrecord", "\x06" + good.substr(1)));
  Scope root = Scope::NewRootScope();
  Output files = ops::Placeholder(root.WithOpName("files"), DT_STRING);
  Output records =
      root.AddOp("TFRecordDataset", {{files}, {ops::Const(root, std::string())}, {Int64(root, 4)}})
          .output(0);
  AddIterator(root, records, {DT_STRING}, PartialShape::Scalar());
  Start(root);

  auto read = [&](std::vector<std::string> names, std::vector<std::string>* got) {
    Tensor t(DT_STRING, TensorShape({static_cast<int64_t>(names.size())}));
    for (size_t i = 0; i < names.size(); ++i) t.data<std::string>()[i] = names[i];
    std::vector<Tensor> out;
    absl::Status s = runner_->Run({{"files", t}}, {}, {"make"}, &out);
    while (s.ok()) {
      s = runner_->Run({}, {"next:0"}, {}, &out);
      if (s.ok()) got->push_back(*out[0].data<std::string>());
    }
    return s;
  };
  std::vector<std::string> got;
  EXPECT_TRUE(absl::IsOutOfRange(read({"/r/good.tfrecord", "/r/good.tfrecord"}, &got)));
  EXPECT_THAT(got, ElementsAre("hello", "", "tf.data", "hello", "", "tf.data"));
  got.clear();
  EXPECT_THAT(read({"/r/bad_data.tfrecord"}, &got),
              StatusIs(absl::StatusCode::kDataLoss,
                       HasSubstr("/r/bad_data.tfrecord: corrupted record at 37: its data's "
                                 "checksum does not match")));
  EXPECT_THAT(got, ElementsAre("hello", "")) << "the records before it";
  EXPECT_THAT(read({"/r/short.tfrecord"}, &got),
              StatusIs(absl::StatusCode::kDataLoss,
                       HasSubstr("/r/short.tfrecord: corrupted record at 37: the file ends "
                                 "inside its")));
  EXPECT_THAT(read({"/r/bad_length.tfrecord"}, &got),
              StatusIs(absl::StatusCode::kDataLoss,
                       HasSubstr("/r/bad_length.tfrecord: corrupted record at 0: its length's "
                                 "checksum")));
  EXPECT_THAT(read({"/r/missing.tfrecord"}, &got), StatusIs(absl::StatusCode::kNotFound));
}

// `data` compressed as a gzip member or a zlib stream, with zlib.
std::string Deflate(const std::string& data, bool gzip) {
  z_stream z{};
  EXPECT_EQ(deflateInit2(&z, Z_BEST_SPEED, Z_DEFLATED, gzip ? 16 + MAX_WBITS : MAX_WBITS, 8,
                         Z_DEFAULT_STRATEGY),
            Z_OK);
  std::string out(deflateBound(&z, data.size()) + 32, '\0');
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data()));
  z.avail_in = static_cast<uInt>(data.size());
  z.next_out = reinterpret_cast<Bytef*>(out.data());
  z.avail_out = static_cast<uInt>(out.size());
  EXPECT_EQ(deflate(&z, Z_FINISH), Z_STREAM_END);
  out.resize(z.total_out);
  deflateEnd(&z);
  return out;
}

// compression_type "ZLIB" and "GZIP", as TensorFlow writes and reads them:
// records and lines come out as from the plain file; data that is cut short
// or corrupt is DataLoss naming the file.
TEST_F(DatasetTest, CompressedTFRecordsAndTextLines) {
  const std::string records(kRecords, sizeof(kRecords) - 1);
  ASSERT_OK(WriteStringToFile(&env_, "/z/r.zlib", Deflate(records, false)));
  // Two gzip members read as one file, as zcat reads them.
  ASSERT_OK(WriteStringToFile(
      &env_, "/z/r.gz", Deflate(records.substr(0, 20), true) + Deflate(records.substr(20), true)));
  const std::string gz = Deflate(records, true);
  ASSERT_OK(WriteStringToFile(&env_, "/z/cut.gz", gz.substr(0, gz.size() - 10)));
  std::string flipped = gz;
  flipped[gz.size() / 2] ^= 0x55;
  ASSERT_OK(WriteStringToFile(&env_, "/z/flipped.gz", flipped));
  std::string lines;
  for (int i = 0; i < 5000; ++i) absl::StrAppend(&lines, "line ", i, "\n");
  ASSERT_OK(WriteStringToFile(&env_, "/z/lines.gz", Deflate(lines, true)));

  Scope root = Scope::NewRootScope();
  Output files = ops::Placeholder(root.WithOpName("files"), DT_STRING);
  Output kind = ops::Placeholder(root.WithOpName("kind"), DT_STRING);
  Output records_ds = root.WithOpName("records")
                          .AddOp("TFRecordDataset", {{files}, {kind}, {Int64(root, 7)}})
                          .output(0);
  AddIterator(root, records_ds, {DT_STRING}, PartialShape::Scalar());
  Output lines_ds = root.WithOpName("lines")
                        .AddOp("TextLineDataset", {{files}, {kind}, {Int64(root, 100)}})
                        .output(0);
  auto spec = Spec({DT_STRING}, PartialShape::Scalar());
  spec["shared_name"] = MakeAttrValue(std::string());
  spec["container"] = MakeAttrValue(std::string());
  Operation it = root.WithOpName("line_it").AddOp("Iterator", {}, spec);
  root.WithOpName("make_lines").AddOp("MakeIterator", {{lines_ds}, {it.output(0)}});
  root.WithOpName("next_line")
      .AddOp("IteratorGetNext", {{it.output(0)}}, Spec({DT_STRING}, PartialShape::Scalar()));
  Start(root);

  auto read = [&](const std::string& file, const std::string& compression, bool text,
                  std::vector<std::string>* got) {
    std::vector<Tensor> out;
    absl::Status s = runner_->Run({{"files", Tensor::Scalar<std::string>(file)},
                                    {"kind", Tensor::Scalar<std::string>(compression)}},
                                   {}, {text ? "make_lines" : "make"}, &out);
    while (s.ok()) {
      s = runner_->Run({}, {text ? "next_line:0" : "next:0"}, {}, &out);
      if (s.ok()) got->push_back(*out[0].data<std::string>());
    }
    return s;
  };
  std::vector<std::string> got;
  EXPECT_TRUE(absl::IsOutOfRange(read("/z/r.zlib", "ZLIB", false, &got)));
  EXPECT_THAT(got, ElementsAre("hello", "", "tf.data"));
  got.clear();
  EXPECT_TRUE(absl::IsOutOfRange(read("/z/r.gz", "GZIP", false, &got)));
  EXPECT_THAT(got, ElementsAre("hello", "", "tf.data"));
  got.clear();
  EXPECT_TRUE(absl::IsOutOfRange(read("/z/lines.gz", "GZIP", true, &got)));
  ASSERT_EQ(got.size(), 5000u);
  EXPECT_EQ(got[4321], "line 4321");

  got.clear();
  EXPECT_THAT(read("/z/cut.gz", "GZIP", false, &got),
              StatusIs(absl::StatusCode::kDataLoss,
                       AllOf(HasSubstr("/z/cut.gz"), HasSubstr("ends early"))));
  EXPECT_THAT(read("/z/flipped.gz", "GZIP", false, &got),
              StatusIs(absl::StatusCode::kDataLoss, HasSubstr("/z/flipped.gz")));
  EXPECT_THAT(read("/z/r.zlib", "GZIP", false, &got),
              StatusIs(absl::StatusCode::kDataLoss, HasSubstr("compressed data is corrupt")));
  EXPECT_THAT(read("/z/r.zlib", "LZ4", false, &got),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("compression_type 'LZ4' is not one of")));
}

TEST_F(DatasetTest, CombiningDatasetsCheckTheirArguments) {
  Scope root = Scope::NewRootScope();
  auto scalar = Spec({DT_INT64}, PartialShape::Scalar());
  root.WithOpName("step0").AddOp("RangeDataset",
                                 {{Int64(root, 0)}, {Int64(root, 5)}, {Int64(root, 0)}}, scalar);
  root.WithOpName("cycle0").AddOp("InterleaveDataset",
                                  {{Range(root, 0, 3)}, {}, {Int64(root, 0)}, {Int64(root, 1)}},
                                  WithFunction("f", "repeat6"));
  root.WithOpName("to_files").AddOp(
      "CacheDataset", {{Range(root, 0, 3)}, {Strings(root, {"/tmp/a", "/tmp/b"})}}, scalar);
  // Two int64 inputs zipped, declared as one component.
  root.WithOpName("bad_zip").AddOp("ZipDataset", {{Range(root, 0, 3), Range(root, 0, 3)}}, scalar);
  // The predicate returns an int64, not a bool.
  Output bad_filter =
      root.WithOpName("bad_filter")
          .AddOp("FilterDataset", {{Range(root, 0, 3)}, {}}, WithFunction("predicate", "repeat6"))
          .output(0);
  AddIterator(root, bad_filter, {DT_INT64}, PartialShape::Scalar());
  Start(root, kComposeLibrary);
  EXPECT_THAT(Run({"step0"}), StatusIs(absl::StatusCode::kInvalidArgument,
                                       HasSubstr("RangeDataset 'step0': step must be a non-zero")));
  EXPECT_THAT(Run({"cycle0"}),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("InterleaveDataset 'cycle0': cycle_length must be greater than "
                                 "zero (or AUTOTUNE), got 0")));
  EXPECT_THAT(Run({"to_files"}),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("CacheDataset 'to_files': filename must be a string scalar, got "
                                 "string [2]")));
  EXPECT_THAT(Run({"bad_zip"}),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("ZipDataset 'bad_zip': its output_types [int64] differ from its "
                                 "inputs' components [int64, int64]")));
  ASSERT_OK(Run({"make"}));
  EXPECT_THAT(Run({"next"}),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("predicate 'repeat6' of dataset 'bad_filter' must return a scalar "
                                 "bool, got 1 values: variant []")));
}

// FlatMap's function must make a dataset of each element; a function that
// returns a tensor fails the step that asks for an element, naming both.
TEST_F(DatasetTest, FlatMapFunctionMustReturnADataset) {
  Scope root = Scope::NewRootScope();
  Output flat =
      root.WithOpName("bad_flat_map")
          .AddOp("FlatMapDataset", {{Range(root, 0, 3)}, {}}, WithFunction("f", "is_even"))
          .output(0);
  AddIterator(root, flat, {DT_INT64}, PartialShape::Scalar());
  Start(root, kComposeLibrary);
  ASSERT_OK(Run({"make"}));
  EXPECT_THAT(Run({"next"}),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("function 'is_even' of dataset 'bad_flat_map' must return a "
                                 "single dataset (a variant scalar), got 1 values: bool []")));
}

// read_file(filename) = ReadFile(filename); lines(filename) =
// TextLineDataset(filename).
constexpr char kFileLibrary[] = R"pb(
  library {
    function {
      signature {
        name: "read_file"
        input_arg { name: "filename" type: DT_STRING }
        output_arg { name: "contents" type: DT_STRING }
      }
      node_def { name: "read" op: "ReadFile" input: "filename" }
      ret { key: "contents" value: "read:contents:0" }
    }
    function {
      signature {
        name: "lines"
        input_arg { name: "filename" type: DT_STRING }
        output_arg { name: "handle" type: DT_VARIANT }
        is_stateful: true
      }
      node_def {
        name: "none"
        op: "Const"
        attr {
          key: "dtype"
          value { type: DT_STRING }
        }
        attr {
          key: "value"
          value {
            tensor {
              dtype: DT_STRING
              tensor_shape {}
              string_val: ""
            }
          }
        }
      }
      node_def {
        name: "buffer"
        op: "Const"
        attr {
          key: "dtype"
          value { type: DT_INT64 }
        }
        attr {
          key: "value"
          value {
            tensor {
              dtype: DT_INT64
              tensor_shape {}
              int64_val: 256
            }
          }
        }
      }
      node_def {
        name: "lines"
        op: "TextLineDataset"
        input: "filename"
        input: "none:output:0"
        input: "buffer:output:0"
      }
      ret { key: "handle" value: "lines:handle:0" }
    }
  }
)pb";

// The string elements "next" gives until the end; errors as "error: ...".
std::vector<std::string> DrainStrings(GraphRunner* runner) {
  std::vector<std::string> got;
  for (int i = 0; i < 100; ++i) {
    std::vector<Tensor> out;
    absl::Status s = runner->Run({}, {"next:0"}, {}, &out);
    if (absl::IsOutOfRange(s)) break;
    got.push_back(s.ok() ? *out[0].data<std::string>() : absl::StrCat("error: ", s.message()));
  }
  return got;
}

TEST_F(DatasetTest, PrefetchReadsAheadOnAThreadOfItsOwn) {
  std::vector<std::string> files;
  for (int i = 0; i < 6; ++i) {
    files.push_back(absl::StrCat("/gated/f", i));
    ASSERT_OK(WriteStringToFile(&env_, files.back(), absl::StrCat(i, "\n")));
  }
  Scope root = Scope::NewRootScope();
  Output lines =
      root.AddOp("TextLineDataset",
                 {{Strings(root, files)}, {ops::Const(root, std::string())}, {Int64(root, 64)}})
          .output(0);
  Output prefetched = root.AddOp("PrefetchDataset", {{lines}, {Int64(root, 2)}},
                                 Spec({DT_STRING}, PartialShape::Scalar()))
                          .output(0);
  AddIterator(root, prefetched, {DT_STRING}, PartialShape::Scalar());
  Start(root);
  ASSERT_OK(Run({"make"}));
  std::vector<Tensor> out;
  ASSERT_OK(runner_->Run({}, {"next:0"}, {}, &out));
  EXPECT_EQ(*out[0].data<std::string>(), "0");
  // Without another read, the buffer fills: two more files are read, and
  // no more.
  ASSERT_TRUE(env_.AwaitOpened(3));
  EXPECT_EQ(env_.opened(), 3);
  ASSERT_OK(runner_->Run({}, {"next:0"}, {}, &out));
  EXPECT_EQ(*out[0].data<std::string>(), "1");
  // The runner (its resources) goes while the thread waits for room: it is stopped.
  runner_.reset();

  Start(root);
  ASSERT_OK(Run({"make"}));
  EXPECT_THAT(DrainStrings(runner_.get()), ElementsAre("0", "1", "2", "3", "4", "5"));
}

TEST_F(DatasetTest, ParallelMapCallsRunAtOnceAndKeepTheOrderAndTheErrors) {
  for (int i = 0; i < 4; ++i) {
    ASSERT_OK(WriteStringToFile(&env_, absl::StrCat("/gated/m", i), absl::StrCat("file ", i)));
  }
  Scope root = Scope::NewRootScope();
  Output names = Strings(root, {"/gated/m0", "/gated/m1", "/gated/missing", "/gated/m2",
                                "/gated/m3"});
  Output slices = root.AddOp("TensorSliceDataset", {{names}},
                             {{"output_shapes", Spec({DT_STRING}, PartialShape::Scalar())
                                                    .at("output_shapes")}})
                      .output(0);
  for (const char* deterministic : {"true", "false"}) {
    auto attrs = Spec({DT_STRING}, PartialShape::Scalar());
    attrs["f"].mutable_func()->set_name("read_file");
    attrs["Targuments"] = MakeAttrValue(std::vector<DataType>{});
    attrs["deterministic"] = MakeAttrValue(std::string(deterministic));
    Output mapped = root.WithOpName(absl::StrCat("map_", deterministic))
                        .AddOp("ParallelMapDatasetV2", {{slices}, {}, {Int64(root, 2)}}, attrs)
                        .output(0);
    AddIterator(root.NewSubScope(deterministic), mapped, {DT_STRING}, PartialShape::Scalar());
  }
  Start(root, kFileLibrary);
  // Each file is held until a second one is opened: two calls at once.
  env_.set_barrier(2);
  ASSERT_OK(Run({"true/make"}));
  std::vector<std::string> got;
  std::vector<Tensor> out;
  for (int i = 0; i < 6; ++i) {
    absl::Status s = runner_->Run({}, {"true/next:0"}, {}, &out);
    if (absl::IsOutOfRange(s)) break;
    got.push_back(s.ok() ? *out[0].data<std::string>() : std::string(s.message()));
  }
  ASSERT_EQ(got.size(), 5u);
  EXPECT_EQ(got[0], "file 0");
  EXPECT_EQ(got[1], "file 1");
  EXPECT_THAT(got[2], AllOf(HasSubstr("/gated/missing"), HasSubstr("read_file")));
  EXPECT_EQ(got[3], "file 2");
  EXPECT_EQ(got[4], "file 3");

  ASSERT_OK(Run({"false/make"}));
  got.clear();
  for (int i = 0; i < 6; ++i) {
    absl::Status s = runner_->Run({}, {"false/next:0"}, {}, &out);
    if (absl::IsOutOfRange(s)) break;
    got.push_back(s.ok() ? *out[0].data<std::string>() : "error");
  }
  EXPECT_THAT(got, ::testing::UnorderedElementsAre("file 0", "file 1", "error", "file 2",
                                                   "file 3"));
}

TEST_F(DatasetTest, ParallelInterleaveReadsItsOpenInputsAtOnce) {
  ASSERT_OK(WriteStringToFile(&env_, "/gated/a", "a0\na1\na2\n"));
  ASSERT_OK(WriteStringToFile(&env_, "/gated/b", "b0\nb1\n"));
  Scope root = Scope::NewRootScope();
  Output slices = root.AddOp("TensorSliceDataset", {{Strings(root, {"/gated/a", "/gated/b"})}},
                             {{"output_shapes", Spec({DT_STRING}, PartialShape::Scalar())
                                                    .at("output_shapes")}})
                      .output(0);
  auto attrs = Spec({DT_STRING}, PartialShape::Scalar());
  attrs["f"].mutable_func()->set_name("lines");
  attrs["Targuments"] = MakeAttrValue(std::vector<DataType>{});
  // cycle_length 2, block_length 1, buffer_output_elements 1,
  // prefetch_input_elements 1, num_parallel_calls 2.
  Output interleaved =
      root.AddOp("ParallelInterleaveDatasetV4",
                 {{slices}, {}, {Int64(root, 2)}, {Int64(root, 1)}, {Int64(root, 1)},
                  {Int64(root, 1)}, {Int64(root, 2)}},
                 attrs)
          .output(0);
  AddIterator(root, interleaved, {DT_STRING}, PartialShape::Scalar());
  Start(root, kFileLibrary);
  env_.set_barrier(2);  // each file waits until the other one is open too
  ASSERT_OK(Run({"make"}));
  // TensorFlow's order, as InterleaveDataset gives it.
  EXPECT_THAT(DrainStrings(runner_.get()), ElementsAre("a0", "b0", "a1", "b1", "a2"));
}

TEST_F(DatasetTest, ParallelInterleaveChecksItsArguments) {
  Scope root = Scope::NewRootScope();
  auto attrs = WithFunction("f", "repeat6");
  root.WithOpName("calls").AddOp(
      "ParallelInterleaveDatasetV2",
      {{Range(root, 0, 2)}, {}, {Int64(root, 2)}, {Int64(root, 1)}, {Int64(root, 0)}}, attrs);
  root.WithOpName("buffer").AddOp("ParallelInterleaveDataset",
                                  {{Range(root, 0, 2)}, {}, {Int64(root, 2)}, {Int64(root, 1)},
                                   {ops::Const(root, false)}, {Int64(root, 0)}, {Int64(root, 1)}},
                                  attrs);
  Start(root, kComposeLibrary);
  EXPECT_THAT(Run({"calls"}),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       AllOf(HasSubstr("ParallelInterleaveDatasetV2 'calls'"),
                             HasSubstr("num_parallel_calls must be greater than zero"))));
  EXPECT_THAT(Run({"buffer"}),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       AllOf(HasSubstr("ParallelInterleaveDataset 'buffer'"),
                             HasSubstr("buffer_output_elements must be greater than zero"))));
}

TEST_F(DatasetTest, BatchWithParallelCopyGivesTheSameBatches) {
  Scope root = Scope::NewRootScope();
  auto attrs = Spec({DT_INT64}, PartialShape({-1}));
  attrs["parallel_copy"] = MakeAttrValue(true);
  Output batched = root.AddOp("BatchDatasetV2",
                              {{Range(root, 0, 7)}, {Int64(root, 3)}, {ops::Const(root, true)}},
                              attrs)
                       .output(0);
  AddIterator(root, batched, {DT_INT64}, PartialShape({-1}));
  Start(root);
  ASSERT_OK(Run({"make"}));
  EXPECT_THAT(Drain(), ElementsAre(ElementsAre(0, 1, 2), ElementsAre(3, 4, 5)));
}

TEST_F(DatasetTest, ReadFileAndWriteFileUseTheStepsEnv) {
  Scope root = Scope::NewRootScope();
  auto name = root.WithOpName("name")
                  .AddOp("Placeholder", {}, {{"dtype", MakeAttrValue(DT_STRING)}})
                  .output(0);
  root.WithOpName("write").AddOp("WriteFile",
                                 {{name}, {ops::Const(root, std::string("some bytes"))}});
  root.WithOpName("read").AddOp("ReadFile", {{name}});
  Tensor lines(DT_STRING, TensorShape({2}));
  root.WithOpName("write_lines").AddOp("WriteFile", {{name}, {ops::Const(root, lines)}});
  Start(root);
  std::vector<Tensor> out;
  const Tensor path = Tensor::Scalar<std::string>("/out/new/dir/f.bin");
  EXPECT_THAT(runner_->Run({{"name:0", path}}, {}, {"write_lines"}, &out),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("Contents tensor must be scalar, but had shape: [2]")));
  EXPECT_FALSE(env_.FileExists("/out/new/dir/f.bin").ok()) << "nothing written";
  ASSERT_OK(runner_->Run({{"name:0", path}}, {}, {"write"}, &out));
  ASSERT_OK(runner_->Run({{"name:0", path}}, {"read:0"}, {}, &out));
  EXPECT_EQ(*out[0].data<std::string>(), "some bytes");
  EXPECT_THAT(runner_->Run({{"name:0", Tensor::Scalar<std::string>("/out/none")}}, {"read:0"},
                            {}, &out),
              StatusIs(absl::StatusCode::kNotFound, HasSubstr("/out/none")));
  Tensor two(DT_STRING, TensorShape({2}));
  EXPECT_THAT(runner_->Run({{"name:0", two}}, {"read:0"}, {}, &out),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("Input filename tensor must be scalar, but had shape: [2]")));
}

TEST_F(DatasetTest, CacheToAFileWritesTensorFlowsLayoutOnceAndReadsItAfter) {
  ASSERT_OK(WriteStringToFile(&env_, "/data/source.txt", "10\n20\n30\n"));
  Scope root = Scope::NewRootScope();
  auto spec = Spec({DT_STRING}, PartialShape::Scalar());
  Output lines = root.AddOp("TextLineDataset", {{ops::Const(root, std::string("/data/source.txt"))},
                                                {ops::Const(root, std::string())},
                                                {Int64(root, 64)}})
                     .output(0);
  std::map<std::string, Output> cached;
  for (const char* cache : {"full", "part"}) {
    cached[cache] =
        root.WithOpName(absl::StrCat("cache_", cache))
            .AddOp("CacheDataset",
                   {{lines}, {ops::Const(root, absl::StrCat("/cache/", cache))}}, spec)
            .output(0);
    AddIterator(root.NewSubScope(cache), cached[cache], {DT_STRING}, PartialShape::Scalar());
  }
  // A second iterator over the "full" cache, to meet the first one writing.
  auto iterator_spec = spec;
  iterator_spec["shared_name"] = MakeAttrValue(std::string("other"));
  iterator_spec["container"] = MakeAttrValue(std::string());
  Operation other = root.WithOpName("other").AddOp("Iterator", {}, iterator_spec);
  root.WithOpName("other_make")
      .AddOp("MakeIterator", {{cached["full"]}, {other.output(0)}});
  root.WithOpName("other_next").AddOp("IteratorGetNext", {{other.output(0)}}, spec);
  Start(root);

  std::vector<Tensor> out;
  ASSERT_OK(Run({"full/make"}));
  ASSERT_OK(runner_->Run({}, {"full/next:0"}, {}, &out));
  EXPECT_EQ(*out[0].data<std::string>(), "10");
  EXPECT_TRUE(env_.FileExists("/cache/full_0.lockfile").ok());
  ASSERT_OK(Run({"other_make"}));
  for (int i = 0; i < 2; ++i) {  // and again: never a silent end
    EXPECT_THAT(runner_->Run({}, {"other_next:0"}, {}, &out),
                StatusIs(absl::StatusCode::kAlreadyExists,
                         AllOf(HasSubstr("cache_full"), HasSubstr("/cache/full_0.lockfile"),
                               HasSubstr("concurrent caching iterator"))));
  }
  std::vector<std::string> got = {"10"};
  for (;;) {
    absl::Status s = runner_->Run({}, {"full/next:0"}, {}, &out);
    if (absl::IsOutOfRange(s)) break;
    ASSERT_OK(s);
    got.push_back(*out[0].data<std::string>());
  }
  EXPECT_THAT(got, ElementsAre("10", "20", "30"));
  EXPECT_TRUE(env_.FileExists("/cache/full.index").ok());
  EXPECT_TRUE(env_.FileExists("/cache/full.data-00000-of-00001").ok());
  EXPECT_FALSE(env_.FileExists("/cache/full_0.lockfile").ok());

  // From now on the file is read, not the source.
  ASSERT_OK(WriteStringToFile(&env_, "/data/source.txt", "changed\n"));
  ASSERT_OK(Run({"full/make"}));
  got.clear();
  for (;;) {
    absl::Status s = runner_->Run({}, {"full/next:0"}, {}, &out);
    if (absl::IsOutOfRange(s)) break;
    ASSERT_OK(s);
    got.push_back(*out[0].data<std::string>());
  }
  EXPECT_THAT(got, ElementsAre("10", "20", "30"));

  // A pass that stops early leaves nothing behind: neither a cache nor
  // the lockfile.
  ASSERT_OK(Run({"part/make"}));
  ASSERT_OK(runner_->Run({}, {"part/next:0"}, {}, &out));
  ASSERT_OK(Run({"part/make"}));  // the writing iterator goes
  ASSERT_OK_AND_ASSIGN(std::vector<std::string> left, env_.GetChildren("/cache"));
  for (const std::string& f : left) EXPECT_FALSE(absl::StartsWith(f, "part")) << f;
}

// A cache file another pipeline wrote, of another dtype, is an error naming
// the file, the key and both dtypes, not a wrong element.
TEST_F(DatasetTest, ACacheFileOfAnotherDtypeIsAnErrorNamingIt) {
  ASSERT_OK(WriteStringToFile(&env_, "/data/source.txt", "10\n20\n"));
  Scope root = Scope::NewRootScope();
  Output lines = root.AddOp("TextLineDataset", {{ops::Const(root, std::string("/data/source.txt"))},
                                                {ops::Const(root, std::string())},
                                                {Int64(root, 64)}})
                     .output(0);
  Output as_strings = root.WithOpName("strings")
                          .AddOp("CacheDataset", {{lines}, {ops::Const(root, std::string("/c/x"))}},
                                 Spec({DT_STRING}, PartialShape::Scalar()))
                          .output(0);
  AddIterator(root.NewSubScope("s"), as_strings, {DT_STRING}, PartialShape::Scalar());
  Output as_ints = root.WithOpName("ints")
                       .AddOp("CacheDataset",
                              {{Range(root, 0, 2)}, {ops::Const(root, std::string("/c/x"))}},
                              Spec({DT_INT64}, PartialShape::Scalar()))
                       .output(0);
  AddIterator(root.NewSubScope("i"), as_ints, {DT_INT64}, PartialShape::Scalar());
  Start(root);
  std::vector<Tensor> out;
  ASSERT_OK(Run({"s/make"}));
  while (runner_->Run({}, {"s/next:0"}, {}, &out).ok()) {
  }
  ASSERT_TRUE(env_.FileExists("/c/x.index").ok());
  ASSERT_OK(Run({"i/make"}));
  EXPECT_THAT(runner_->Run({}, {"i/next:0"}, {}, &out),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       AllOf(HasSubstr("the cache '/c/x' holds string under key"),
                             HasSubstr("component 0 is int64"))));
}

}  // namespace
}  // namespace minigraph
