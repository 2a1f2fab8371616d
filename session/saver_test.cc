#include "session/saver.h"

#include <atomic>
#include <cstring>
#include <thread>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "checkpoint/bundle_reader.h"
#include "checkpoint/checkpoint_state.h"
#include "checkpoint/naming.h"
#include "checkpoint/proto/tensor_bundle.pb.h"
#include "checkpoint/saved_slices.h"
#include "checkpoint/temp_files.h"
#include "checkpoint/v1_writer.h"
#include "core/fault_injection_env.h"
#include "core/logging.h"
#include "core/mem_env.h"
#include "core/path.h"
#include "core/status_macros.h"
#include "core/status_matchers.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "runtime/cc/ops.h"
#include "runtime/cc/variables.h"
#include "runtime/graph/node_def_util.h"
#include "session/session_manager.h"
#include "tests/testing/shared_testdata.h"
#include "tests/testing/temp_path.h"

namespace minigraph {
namespace {

using ::testing::AllOf;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::UnorderedElementsAre;

// Passes everything to MemEnv; while closed, a writer of a checkpoint data
// file waits at the gate, so a test can hold a save in the middle without
// sleeping. Counts the data files being written at once.
class GatedEnv : public EnvWrapper {
 public:
  using EnvWrapper::EnvWrapper;
  void Close() ABSL_LOCKS_EXCLUDED(mu_) {
    absl::MutexLock l(&mu_);
    closed_ = true;
  }
  void Open() ABSL_LOCKS_EXCLUDED(mu_) {
    absl::MutexLock l(&mu_);
    closed_ = false;
  }
  // Returns once a writer waits at the closed gate.
  void AwaitWriter() ABSL_LOCKS_EXCLUDED(mu_) {
    absl::MutexLock l(&mu_);
    mu_.Await(absl::Condition(
        +[](int* waiting) { return *waiting > 0; }, &waiting_));
  }
  // The most data files under `counted` (all when empty) open at once.
  int max_writing() ABSL_LOCKS_EXCLUDED(mu_) {
    absl::MutexLock l(&mu_);
    return max_writing_;
  }
  void CountOnly(const std::string& counted) ABSL_LOCKS_EXCLUDED(mu_) {
    absl::MutexLock l(&mu_);
    counted_ = counted;
  }

  absl::StatusOr<std::unique_ptr<WritableFile>> NewWritableFile(const std::string& path) override {
    if (!absl::StrContains(path, ".data-")) return EnvWrapper::NewWritableFile(path);
    bool counted = false;
    {
      absl::MutexLock l(&mu_);
      ++waiting_;
      mu_.Await(absl::Condition(
          +[](bool* closed) { return !*closed; }, &closed_));
      --waiting_;
      counted = absl::StartsWith(path, counted_);
      if (counted) max_writing_ = std::max(max_writing_, ++writing_);
    }
    MG_ASSIGN_OR_RETURN(std::unique_ptr<WritableFile> file, EnvWrapper::NewWritableFile(path));
    if (!counted) return file;
    return std::unique_ptr<WritableFile>(new Counted(std::move(file), this));
  }

 private:
  class Counted : public WritableFile {
   public:
    Counted(std::unique_ptr<WritableFile> base, GatedEnv* env)
        : base_(std::move(base)), env_(env) {}
    ~Counted() override {
      absl::MutexLock l(&env_->mu_);
      --env_->writing_;
    }
    absl::Status Append(absl::string_view data) override { return base_->Append(data); }
    absl::Status Flush() override { return base_->Flush(); }
    absl::Status Sync() override { return base_->Sync(); }
    absl::Status Close() override { return base_->Close(); }

   private:
    std::unique_ptr<WritableFile> base_;
    GatedEnv* env_;
  };

  absl::Mutex mu_;
  bool closed_ ABSL_GUARDED_BY(mu_) = false;
  int waiting_ ABSL_GUARDED_BY(mu_) = 0;
  int writing_ ABSL_GUARDED_BY(mu_) = 0;
  int max_writing_ ABSL_GUARDED_BY(mu_) = 0;
  std::string counted_ ABSL_GUARDED_BY(mu_);
};

class SaverTest : public ::testing::Test {
 protected:
  SaverTest() { SetMinLogLevel(LogLevel::kWarning); }

  // A graph with v (float [3]), w (int64 scalar) and a Saver.
  void Build(SaverOptions options = {}) {
    root_ = Scope::NewRootScope();
    v_ = Variable::Create(root_, "v", Tensor::Vector<float>({1, 2, 3}));
    w_ = Variable::Create(root_, "w", Tensor::Scalar<int64_t>(7));
    ops::Assign(root_.WithOpName("set_v"), v_.ref(), ops::Const<float>(root_, {4, 5, 6}));
    init_ = GlobalVariablesInitializer(root_);
    auto saver = Saver::Create(root_, options, &clock_);
    ASSERT_OK(saver.status());
    saver_ = *std::move(saver);
  }
  std::unique_ptr<Session> NewSess() {
    SessionOptions opts;
    opts.env = &clock_;
    auto s = NewSession(opts);
    EXPECT_OK(s.status());
    EXPECT_OK((*s)->Create(*root_.ToGraphDef()));
    return *std::move(s);
  }
  std::string Value(Session* s, const std::string& name) {
    std::vector<Tensor> out;
    absl::Status st = s->Run({}, {name}, {}, &out);
    return st.ok() ? out[0].SummarizeValue(10) : std::string(st.message());
  }
  // A session with the variables initialized, then v set to [4, 5, 6] (two
  // steps: one step would not order the initializer and the assignment).
  std::unique_ptr<Session> InitializedAndSet() {
    auto s = NewSess();
    RunTargets(s.get(), {init_.name()});
    RunTargets(s.get(), {"set_v"});
    return s;
  }
  void RunTargets(Session* s, const std::vector<std::string>& t) {
    std::vector<Tensor> out;
    ASSERT_OK(s->Run({}, {}, t, &out));
  }

  // Files in memory (mem_), time from a fake clock that mem_ reads.
  FakeClockEnv fake_time_{Env::Default()};
  MemEnv mem_{&fake_time_};
  GatedEnv gate_{&mem_};
  Env& clock_ = gate_;
  Scope root_ = Scope::NewRootScope();
  Variable v_, w_;
  Operation init_;
  std::unique_ptr<Saver> saver_;
};

TEST_F(SaverTest, GraphUsesTensorFlowsNames) {
  Build();
  EXPECT_EQ(saver_->saver_def().filename_tensor_name(), "save/Const:0");
  EXPECT_EQ(saver_->saver_def().save_tensor_name(), "save/control_dependency:0");
  EXPECT_EQ(saver_->saver_def().restore_op_name(), "save/restore_all");
  EXPECT_EQ(saver_->saver_def().version(), SaverDef::V2);
  ASSERT_OK_AND_ASSIGN(MetaGraphDef meta, root_.ToMetaGraphDef());
  EXPECT_EQ(meta.saver_def().restore_op_name(), "save/restore_all");
  std::set<std::string> names;
  for (const NodeDef& n : meta.graph_def().node()) names.insert(n.name());
  for (const char* n : {"save/SaveV2", "save/SaveV2/tensor_names", "save/RestoreV2", "save/Assign",
                        "save/Assign_1"}) {
    EXPECT_TRUE(names.count(n)) << n;
  }
}

TEST_F(SaverTest, SaveAndRestoreRoundTrip) {
  Build();
  ASSERT_OK(mem_.CreateDir("/logs"));
  auto a = InitializedAndSet();
  ASSERT_OK_AND_ASSIGN(std::string path, saver_->Save(a.get(), "/logs/model", {.global_step = 12}));
  EXPECT_EQ(path, "/logs/model-12");
  EXPECT_THAT(mem_.GetChildren("/logs"),
              IsOkAndHolds(UnorderedElementsAre("model-12.index", "model-12.data-00000-of-00001",
                                                "checkpoint")));
  auto b = NewSess();
  EXPECT_THAT(Value(b.get(), "v/read"), HasSubstr("uninitialized"));
  ASSERT_OK(saver_->Restore(b.get(), path));
  EXPECT_EQ(Value(b.get(), "v/read"), "4 5 6");
  EXPECT_EQ(Value(b.get(), "w/read"), "7");
  ASSERT_OK_AND_ASSIGN(auto latest, LatestCheckpoint(&mem_, "/logs"));
  EXPECT_EQ(latest, std::optional<std::string>("/logs/model-12"));
}

// align_tensors: the SaveV2 ops carry the internal alignment attr (a default
// Saver's do not), every tensor of the checkpoint starts at a multiple of
// 64 bytes, and it restores; sharded too.
TEST_F(SaverTest, AlignTensorsPlacesEveryTensorAtAMultipleOf64) {
  for (int shards : {0, 2}) {
    for (bool align : {false, true}) {
      Build({.num_shards = shards, .align_tensors = align});
      ASSERT_OK_AND_ASSIGN(GraphDef graph, root_.ToGraphDef());
      int saves = 0;
      for (const NodeDef& n : graph.node()) {
        if (n.op() != "SaveV2") continue;
        ++saves;
        EXPECT_EQ(n.attr().count("_tensor_alignment"), align ? 1u : 0u) << n.name();
        if (align) EXPECT_EQ(n.attr().at("_tensor_alignment").i(), 64);
      }
      EXPECT_EQ(saves, std::max(shards, 1));
      const std::string dir = absl::StrCat("/aligned", shards, align);
      ASSERT_OK(mem_.CreateDir(dir));
      auto a = InitializedAndSet();
      ASSERT_OK_AND_ASSIGN(std::string path, saver_->Save(a.get(), dir + "/model"));
      ASSERT_OK_AND_ASSIGN(auto reader, BundleReader::Open(&mem_, path));
      for (const std::string& key : {std::string("v"), std::string("w")}) {
        ASSERT_OK_AND_ASSIGN(const BundleEntryProto* e, reader->GetEntry(key));
        if (align) EXPECT_EQ(e->offset() % 64, 0) << key;
      }
      if (!align) {
        ASSERT_OK_AND_ASSIGN(const BundleEntryProto* e, reader->GetEntry("w"));
        EXPECT_EQ(e->offset() % 64, shards == 0 ? 12 : 0) << "v's 12 bytes first";
      }
      auto b = NewSess();
      ASSERT_OK(saver_->Restore(b.get(), path));
      EXPECT_EQ(Value(b.get(), "v/read"), "4 5 6");
      EXPECT_EQ(Value(b.get(), "w/read"), "7");
    }
  }
}

// A graph whose SaveV2 has a _tensor_alignment that is not a power of two
// is refused when the session is created, naming the node and the value.
TEST_F(SaverTest, ABadTensorAlignmentAttrIsAnErrorNamingTheNode) {
  root_ = Scope::NewRootScope();
  Output names = ops::Const(root_, Tensor::Vector<std::string>({"x"}));
  Output spec = ops::Const(root_, Tensor::Vector<std::string>({""}));
  AttrValue alignment;
  alignment.set_i(48);
  root_.WithOpName("save").AddOp(
      "SaveV2",
      {{ops::Const(root_, Tensor::Scalar<std::string>("/bad/x"))}, {names}, {spec},
       {ops::Const(root_, Tensor::Vector<float>({1, 2, 3}))}},
      {{"_tensor_alignment", alignment}});
  SessionOptions opts;
  opts.env = &clock_;
  ASSERT_OK_AND_ASSIGN(auto s, NewSession(opts));
  ASSERT_OK(s->Create(*root_.ToGraphDef()));
  std::vector<Tensor> out;
  EXPECT_THAT(s->Run({}, {}, {"save"}, &out),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       AllOf(HasSubstr("node 'save'"), HasSubstr("_tensor_alignment = 48"),
                             HasSubstr("not a power of two"))));
}

// On disk an aligned checkpoint restores in place: training then updates
// the restored variables without touching the file, two sessions restoring
// it train apart, and retention deleting it changes nothing for them.
TEST(SaverOnDiskTest, AnAlignedCheckpointRestoresInPlaceAndTrainingNeverWritesIt) {
  Env* env = Env::Default();
  const std::string dir = TestTempPath("aligned_restore");
  ASSERT_OK(DeleteRecursively(env, dir));
  Scope root = Scope::NewRootScope();
  Variable v = Variable::Create(root, "v", Tensor::Vector<float>({1, 2, 3}));
  Variable w = Variable::Create(root, "w", Tensor::Scalar<int64_t>(7));
  ops::AssignAdd(root.WithOpName("step"), v.ref(), ops::Const<float>(root, {1, 1, 1}));
  Operation init = GlobalVariablesInitializer(root);
  ASSERT_OK_AND_ASSIGN(auto saver,
                       Saver::Create(root, {.max_to_keep = 1, .align_tensors = true}, env));
  SessionOptions opts;
  auto session = [&] {
    auto s = NewSession(opts);
    EXPECT_OK(s.status());
    EXPECT_OK((*s)->Create(*root.ToGraphDef()));
    return *std::move(s);
  };
  auto value = [](Session* s, const std::string& name) {
    std::vector<Tensor> out;
    absl::Status st = s->Run({}, {name}, {}, &out);
    return st.ok() ? out[0].SummarizeValue(3) : std::string(st.message());
  };
  std::vector<Tensor> out;
  auto trainer = session();
  ASSERT_OK(trainer->Run({}, {}, {init.name()}, &out));
  ASSERT_OK(env->CreateDir(dir));
  ASSERT_OK_AND_ASSIGN(std::string first,
                       saver->Save(trainer.get(), dir + "/model", {.global_step = 1}));

  auto a = session(), b = session();
  ASSERT_OK(saver->Restore(a.get(), first));
  ASSERT_OK(saver->Restore(b.get(), first));
  ASSERT_OK(a->Run({}, {}, {"step"}, &out));
  ASSERT_OK(a->Run({}, {}, {"step"}, &out));
  EXPECT_EQ(value(a.get(), "v"), "3 4 5");
  EXPECT_EQ(value(b.get(), "v"), "1 2 3") << "b shares a's memory";
  // Retention deletes the first checkpoint: a and b go on.
  ASSERT_OK(trainer->Run({}, {}, {"step"}, &out));
  ASSERT_OK(saver->Save(trainer.get(), dir + "/model", {.global_step = 2}).status());
  EXPECT_THAT(env->FileExists(first + ".index"), StatusIs(absl::StatusCode::kNotFound));
  ASSERT_OK(b->Run({}, {}, {"step"}, &out));
  EXPECT_EQ(value(b.get(), "v"), "2 3 4");
  EXPECT_EQ(value(a.get(), "w"), "7");
  // The second checkpoint holds the trainer's values: nothing a or b did.
  auto c = session();
  ASSERT_OK(saver->Restore(c.get(), dir + "/model-2"));
  EXPECT_EQ(value(c.get(), "v"), "2 3 4");
}

// Mutable lookup tables are saved as TensorFlow's Saver saves them (keys
// and values under "<table>-keys" and "<table>-values") and restored into
// the table, replacing what it held; sharded too.
TEST_F(SaverTest, MutableTablesAreSavedAndRestored) {
  for (int shards : {0, 2}) {
    SCOPED_TRACE(shards);
    root_ = Scope::NewRootScope();
    Variable v = Variable::Create(root_, "v", Tensor::Scalar<float>(1.5f));
    Output words = root_.WithOpName("words").AddOp(
        "MutableHashTableV2", {},
        {{"key_dtype", MakeAttrValue(DT_STRING)}, {"value_dtype", MakeAttrValue(DT_INT64)}})
        .output(0);
    Output rows = root_.WithOpName("rows")
                      .AddOp("MutableHashTableOfTensorsV2", {},
                             {{"key_dtype", MakeAttrValue(DT_INT64)},
                              {"value_dtype", MakeAttrValue(DT_FLOAT)},
                              {"value_shape", MakeAttrValue(PartialShape({2}))}})
                      .output(0);
    root_.WithOpName("insert_words")
        .AddOp("LookupTableInsertV2",
               {{words}, {ops::Const(root_, Tensor::Vector<std::string>({"a", "b"}))},
                {ops::Const(root_, Tensor::Vector<int64_t>({1, 2}))}});
    root_.WithOpName("insert_rows")
        .AddOp("LookupTableInsertV2",
               {{rows}, {ops::Const(root_, Tensor::Vector<int64_t>({7}))},
                {ops::Const<float>(root_, {0.5f, -0.5f}, TensorShape({1, 2}))}});
    root_.WithOpName("found").AddOp(
        "LookupTableFindV2",
        {{words}, {ops::Const(root_, Tensor::Vector<std::string>({"a", "b", "z"}))},
         {ops::Const(root_, int64_t{-1})}});
    root_.WithOpName("found_rows")
        .AddOp("LookupTableFindV2",
               {{rows}, {ops::Const(root_, Tensor::Vector<int64_t>({7, 8}))},
                {ops::Const<float>(root_, {0.0f, 0.0f}, TensorShape({2}))}});
    init_ = GlobalVariablesInitializer(root_);
    SaverOptions options;
    options.num_shards = shards;
    ASSERT_OK_AND_ASSIGN(auto saver, Saver::Create(root_, options, &clock_));
    auto s = NewSess();
    RunTargets(s.get(), {init_.name(), "insert_words", "insert_rows"});
    ASSERT_OK(mem_.CreateDir("/tables"));
    ASSERT_OK_AND_ASSIGN(std::string path, saver->Save(s.get(), "/tables/model"));
    ASSERT_OK_AND_ASSIGN(auto reader, BundleReader::Open(&mem_, path));
    EXPECT_THAT(reader->keys(), ::testing::ElementsAre("rows-keys", "rows-values", "v",
                                                       "words-keys", "words-values"));
    auto fresh = NewSess();
    EXPECT_EQ(Value(fresh.get(), "found:0"), "-1 -1 -1");
    ASSERT_OK(saver->Restore(fresh.get(), path));
    EXPECT_EQ(Value(fresh.get(), "found:0"), "1 2 -1");
    EXPECT_EQ(Value(fresh.get(), "found_rows:0"), "0.5 -0.5 0 0");
    EXPECT_EQ(Value(fresh.get(), "v:0"), "1.5");
  }
}

// Counts the opens of checkpoint index files.
class IndexOpenCountingEnv : public EnvWrapper {
 public:
  using EnvWrapper::EnvWrapper;
  absl::StatusOr<std::unique_ptr<RandomAccessFile>> NewRandomAccessFile(
      const std::string& path) override {
    if (absl::EndsWith(path, ".index")) ++index_opens;
    return EnvWrapper::NewRandomAccessFile(path);
  }
  std::atomic<int> index_opens{0};
};

// TensorFlow 1.0's Saver restored each variable with a RestoreV2 of its
// own: one step of them opens (reads and checks) the checkpoint's index
// once, not once per variable.
TEST_F(SaverTest, RestoreOpsOfOneStepOpenTheCheckpointOnce) {
  Build();
  auto s = InitializedAndSet();
  ASSERT_OK(mem_.CreateDir("/ckpt"));
  ASSERT_OK_AND_ASSIGN(std::string path, saver_->Save(s.get(), "/ckpt/model"));
  root_ = Scope::NewRootScope();
  Variable v = Variable::Create(root_, "v", Tensor::Vector<float>({0, 0, 0}));
  Variable w = Variable::Create(root_, "w", Tensor::Scalar<int64_t>(0));
  Output prefix = ops::Placeholder(root_.WithOpName("prefix"), DT_STRING);
  std::vector<Operation> assigns;
  for (const auto& [var, dtype] : {std::pair<Variable, DataType>{v, DT_FLOAT}, {w, DT_INT64}}) {
    AttrValue dtypes;
    dtypes.mutable_list()->add_type(dtype);
    Operation restore = root_.WithOpName("restore_" + var.name())
                            .AddOp("RestoreV2",
                                   {{prefix},
                                    {ops::Const(root_, Tensor::Vector<std::string>({var.name()}))},
                                    {ops::Const(root_, Tensor::Vector<std::string>({""}))}},
                                   {{"dtypes", dtypes}});
    assigns.push_back(ops::Assign(root_, var.ref(), restore.output(0)).op());
  }
  ops::Group(root_.WithOpName("restore_all"), assigns);
  IndexOpenCountingEnv counting(&mem_);
  SessionOptions opts;
  opts.env = &counting;
  ASSERT_OK_AND_ASSIGN(auto restored, NewSession(opts));
  ASSERT_OK(restored->Create(*root_.ToGraphDef()));
  std::vector<Tensor> out;
  ASSERT_OK(restored->Run({{"prefix:0", Tensor::Scalar<std::string>(path)}}, {},
                          {"restore_all"}, &out));
  EXPECT_EQ(counting.index_opens, 1);
  EXPECT_EQ(Value(restored.get(), "v:0"), "4 5 6");
  EXPECT_EQ(Value(restored.get(), "w:0"), "7");
  // The next step opens it again (the readers are the step's).
  ASSERT_OK(restored->Run({{"prefix:0", Tensor::Scalar<std::string>(path)}}, {},
                          {"restore_all"}, &out));
  EXPECT_EQ(counting.index_opens, 2);
}

// A partitioned variable of one part (an Estimator's ".../part_0") saves
// and restores with a shape_and_slices spec that covers the whole tensor
// ("3 0,3"); TensorFlow stores it as a whole tensor, and so do we. A spec
// for part of a tensor is Unimplemented; a spec whose shape is not the
// tensor's, or that does not parse, is an error naming the tensor.
TEST_F(SaverTest, WholeTensorSliceSpecsSaveAndRestoreAsWholeTensors) {
  root_ = Scope::NewRootScope();
  Output prefix = ops::Placeholder(root_.WithOpName("prefix"), DT_STRING);
  Output spec = ops::Placeholder(root_.WithOpName("spec"), DT_STRING, PartialShape({1}));
  Output names = ops::Const(root_, Tensor::Vector<std::string>({"x"}));
  root_.WithOpName("save").AddOp(
      "SaveV2", {{prefix}, {names}, {spec}, {ops::Const(root_, Tensor::Vector<float>({1, 2, 3}))}});
  AttrValue dtypes;
  dtypes.mutable_list()->add_type(DT_FLOAT);
  root_.WithOpName("restore").AddOp("RestoreV2", {{prefix}, {names}, {spec}}, {{"dtypes", dtypes}});
  ASSERT_OK(mem_.CreateDir("/ckpt"));
  auto s = NewSess();
  auto run = [&](const char* slice, const char* target) {
    std::vector<Tensor> out;
    absl::Status st =
        s->Run({{"prefix:0", Tensor::Scalar<std::string>("/ckpt/x")},
                {"spec:0", Tensor::Vector<std::string>({slice})}},
               std::string(target) == "restore" ? std::vector<std::string>{"restore:0"}
                                                : std::vector<std::string>{},
               std::string(target) == "save" ? std::vector<std::string>{"save"}
                                             : std::vector<std::string>{},
               &out);
    return st.ok() && !out.empty() ? absl::StatusOr<std::string>(out[0].SummarizeValue(10))
                                   : absl::StatusOr<std::string>(st.ok() ? "" : st.ToString());
  };
  EXPECT_THAT(run("3 0,3", "save"), IsOkAndHolds(""));
  ASSERT_OK_AND_ASSIGN(auto reader, BundleReader::Open(&mem_, "/ckpt/x"));
  ASSERT_OK_AND_ASSIGN(Tensor stored, reader->Lookup("x"));
  EXPECT_EQ(stored.SummarizeValue(10), "1 2 3") << "stored as the whole tensor";
  EXPECT_THAT(run("3 -", "restore"), IsOkAndHolds("1 2 3"));
  EXPECT_THAT(run("", "restore"), IsOkAndHolds("1 2 3"));
  EXPECT_THAT(run("4 0,4", "restore"),
              IsOkAndHolds(HasSubstr("tensor_name = x; shape in shape_and_slice spec [4] does "
                                     "not match the shape stored in checkpoint: [3]")));
  EXPECT_THAT(run("4 0,4", "save"),
              IsOkAndHolds(HasSubstr("tensor \"x\" has shape [3] but its shape_and_slices "
                                     "\"4 0,4\" says [4]")));
  EXPECT_THAT(run("3 0,3:-", "restore"),
              IsOkAndHolds(HasSubstr("slice \"0,3:-\" has 2 dimensions but the shape [3] has 1")));
  EXPECT_THAT(run("3 2,2", "restore"),
              IsOkAndHolds(HasSubstr("slice \"2,2\" reaches past the shape [3] in dimension 0")));
  // A part of a tensor of 6: the first 3, saved as a slice.
  EXPECT_THAT(run("6 0,3", "save"), IsOkAndHolds(""));
  EXPECT_THAT(run("6 0,3", "restore"), IsOkAndHolds("1 2 3"));
  EXPECT_THAT(run("6 1,2", "restore"), IsOkAndHolds("2 3"));
  EXPECT_THAT(run("", "restore"),
              IsOkAndHolds(HasSubstr("Does not have sufficient slices for partitioned tensor x to "
                                     "restore in slice_spec: -")));
}

// A partitioned variable of three parts (TensorFlow 1's
// tf.get_variable(partitioner=...)): each part saves its rows under the
// variable's name, and a restore takes any rows, across parts, or the whole.
TEST_F(SaverTest, PartitionedVariablesSaveTheirPartsAndRestoreAnyRows) {
  root_ = Scope::NewRootScope();
  Output prefix = ops::Const(root_, Tensor::Scalar<std::string>("/ckpt/parts"));
  Tensor part0(DT_FLOAT, TensorShape({2, 2})), part1(DT_FLOAT, TensorShape({1, 2})),
      part2(DT_FLOAT, TensorShape({2, 2}));
  for (int i = 0; i < 4; ++i) part0.data<float>()[i] = i;
  for (int i = 0; i < 2; ++i) part1.data<float>()[i] = 4 + i;
  for (int i = 0; i < 4; ++i) part2.data<float>()[i] = 6 + i;
  root_.WithOpName("save").AddOp(
      "SaveV2",
      {{prefix},
       {ops::Const(root_, Tensor::Vector<std::string>({"emb", "emb", "emb"}))},
       {ops::Const(root_, Tensor::Vector<std::string>({"5 2 0,2:-", "5 2 2,1:-", "5 2 3,2:-"}))},
       {ops::Const(root_, part0), ops::Const(root_, part1), ops::Const(root_, part2)}});
  AttrValue dtypes;
  for (int i = 0; i < 3; ++i) dtypes.mutable_list()->add_type(DT_FLOAT);
  root_.WithOpName("restore").AddOp(
      "RestoreV2",
      {{prefix},
       {ops::Const(root_, Tensor::Vector<std::string>({"emb", "emb", "emb"}))},
       {ops::Const(root_, Tensor::Vector<std::string>({"", "5 2 1,3:-", "5 2 -:1,1"}))}},
      {{"dtypes", dtypes}});
  ASSERT_OK(mem_.CreateDir("/ckpt"));
  auto s = NewSess();
  std::vector<Tensor> out;
  ASSERT_OK(s->Run({}, {}, {"save"}, &out));
  ASSERT_OK(s->Run({}, {"restore:0", "restore:1", "restore:2"}, {}, &out));
  EXPECT_EQ(out[0].shape().DebugString(), "[5,2]");
  EXPECT_EQ(out[0].SummarizeValue(10), "0 1 2 3 4 5 6 7 8 9") << "the whole, from 3 parts";
  EXPECT_EQ(out[1].SummarizeValue(10), "2 3 4 5 6 7") << "rows 1 to 3, across all 3 parts";
  EXPECT_EQ(out[2].shape().DebugString(), "[5,1]");
  EXPECT_EQ(out[2].SummarizeValue(10), "1 3 5 7 9") << "column 1";
  ASSERT_OK_AND_ASSIGN(auto reader, BundleReader::Open(&mem_, "/ckpt/parts"));
  EXPECT_EQ(reader->keys().size(), 4u) << "the full entry and one per part";
  EXPECT_THAT(reader->tensor_names(), ElementsAre("emb"));
}

// A graph of tf.train.Saver(write_version=V1), as TensorFlow 0.x exported
// it: one RestoreSlice per variable under save/restore_all, SaveSlices for
// saving. It restores a sharded V1 checkpoint (recorded as the pattern of
// its files), with a partitioned variable's part assembled across the
// shards; RestoreV2 and Restore read the same files; saving says that
// minigraph writes V2 only.
TEST_F(SaverTest, VOneSaverGraphRestoresAVOneCheckpoint) {
  Tensor emb(DT_FLOAT, TensorShape({4, 2}));
  for (int i = 0; i < 8; ++i) emb.data<float>()[i] = i;
  auto rows = [&](int from) {
    Tensor t(DT_FLOAT, TensorShape({2, 2}));
    for (int i = 0; i < 4; ++i) t.data<float>()[i] = from * 2 + i;
    return t;
  };
  ASSERT_OK(WriteV1Checkpoint(&mem_, "/old/model.ckpt-7-00000-of-00002",
                              {{"emb", TensorShape({4, 2}), *TensorSlice::Parse("0,2:-"), rows(0)},
                               {"w", {}, TensorSlice::Full(0), Tensor::Scalar<int64_t>(70)}}));
  ASSERT_OK(
      WriteV1Checkpoint(&mem_, "/old/model.ckpt-7-00001-of-00002",
                        {{"emb", TensorShape({4, 2}), *TensorSlice::Parse("2,2:-"), rows(2)}}));
  const std::string pattern = "/old/model.ckpt-7-????\?-of-00002";

  root_ = Scope::NewRootScope();
  Variable part = Variable::Create(root_, "emb/part_1", Tensor(DT_FLOAT, TensorShape({3, 2})));
  Variable w = Variable::Create(root_, "w", Tensor::Scalar<int64_t>(0));
  const Scope save = root_.NewSubScope("save");
  Output filename = ops::Const(save.WithOpName("Const"), Tensor::Scalar<std::string>("model"));
  auto restore_slice = [&](const std::string& op, const std::string& name, const std::string& spec,
                           DataType dt) {
    AttrValue dtype;
    dtype.set_type(dt);
    return save.WithOpName(op).AddOp("RestoreSlice",
                                     {{filename},
                                      {ops::Const(save, Tensor::Scalar<std::string>(name))},
                                      {ops::Const(save, Tensor::Scalar<std::string>(spec))}},
                                     {{"dt", dtype}});
  };
  // The part holds rows 1 to 3 of emb: one row from each shard file.
  Operation a1 =
      ops::Assign(save.WithOpName("Assign"), part.ref(),
                  Output(restore_slice("restore_slice", "emb", "4 2 1,3:-", DT_FLOAT), 0))
          .op();
  Operation a2 = ops::Assign(save.WithOpName("Assign_1"), w.ref(),
                             Output(restore_slice("restore_slice_1", "w", "", DT_INT64), 0))
                     .op();
  Operation restore_all = ops::Group(save.WithOpName("restore_all"), {a1, a2});
  AttrValue types;
  types.mutable_list()->add_type(DT_FLOAT);
  types.mutable_list()->add_type(DT_INT64);
  Operation saved = save.WithOpName("SaveSlices")
                        .AddOp("SaveSlices",
                               {{filename},
                                {ops::Const(save, Tensor::Vector<std::string>({"emb", "w"}))},
                                {ops::Const(save, Tensor::Vector<std::string>({"4 2 1,3:-", ""}))},
                                {part.value(), w.value()}},
                               {{"T", types}});
  AttrValue dt;
  dt.set_type(DT_FLOAT);
  root_.WithOpName("restore_v1")
      .AddOp("Restore", {{filename}, {ops::Const(root_, Tensor::Scalar<std::string>("emb"))}},
             {{"dt", dt}});
  AttrValue dtypes;
  dtypes.mutable_list()->add_type(DT_FLOAT);
  root_.WithOpName("restore_v2")
      .AddOp("RestoreV2",
             {{filename},
              {ops::Const(root_, Tensor::Vector<std::string>({"emb"}))},
              {ops::Const(root_, Tensor::Vector<std::string>({"4 2 3,1:-"}))}},
             {{"dtypes", dtypes}});
  SaverDef def;
  def.set_filename_tensor_name("save/Const:0");
  // As TensorFlow's: the filename, once SaveSlices has run.
  Output save_done = ops::Identity(
      save.WithOpName("control_dependency").WithControlDependencies({saved}), filename);
  def.set_save_tensor_name(save_done.name() + ":0");
  def.set_restore_op_name(restore_all.name());
  def.set_version(SaverDef::V1);
  def.set_sharded(true);
  auto s = NewSess();
  ASSERT_OK(Saver::FromSaverDef(def, &clock_)->Restore(s.get(), pattern));
  EXPECT_EQ(Value(s.get(), part.name()), "2 3 4 5 6 7");
  EXPECT_EQ(Value(s.get(), w.name()), "70");

  std::vector<Tensor> out;
  ASSERT_OK(s->Run({{"save/Const:0", Tensor::Scalar<std::string>(pattern)}},
                   {"restore_v1:0", "restore_v2:0"}, {}, &out));
  EXPECT_EQ(out[0].SummarizeValue(10), "0 1 2 3 4 5 6 7") << "Restore: the whole tensor";
  EXPECT_EQ(out[1].SummarizeValue(10), "6 7") << "RestoreV2: the last row";

  EXPECT_THAT(Saver::FromSaverDef(def, &clock_)->Restore(s.get(), "/old/none-????\?-of-00002"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("not a valid checkpoint: /old/none-????\?-of-00002")));
  // Saving runs SaveSlices, which writes one V1 file; it restores as the
  // shard files did.
  ASSERT_OK_AND_ASSIGN(std::string path,
                       Saver::FromSaverDef(def, &clock_)->Save(s.get(), "/old/resaved.ckpt"));
  EXPECT_EQ(path, "/old/resaved.ckpt");
  auto fresh = NewSess();
  ASSERT_OK(Saver::FromSaverDef(def, &clock_)->Restore(fresh.get(), "/old/resaved.ckpt"));
  EXPECT_EQ(Value(fresh.get(), part.name()), "2 3 4 5 6 7");
  EXPECT_EQ(Value(fresh.get(), w.name()), "70");
}

TEST_F(SaverTest, RestoreSliceErrorsAreTensorFlows) {
  ASSERT_OK(WriteV1Checkpoint(&mem_, "/old/model.ckpt",
                              {{"w", {}, TensorSlice::Full(0), Tensor::Scalar<int64_t>(70)}}));
  root_ = Scope::NewRootScope();
  auto restore = [&](const std::string& op, const std::string& name, const std::string& spec,
                     DataType dt) {
    AttrValue dtype;
    dtype.set_type(dt);
    root_.WithOpName(op).AddOp("RestoreSlice",
                               {{ops::Const(root_, Tensor::Scalar<std::string>("/old/model.ckpt"))},
                                {ops::Const(root_, Tensor::Scalar<std::string>(name))},
                                {ops::Const(root_, Tensor::Scalar<std::string>(spec))}},
                               {{"dt", dtype}});
  };
  restore("missing", "v", "", DT_FLOAT);
  restore("wrong_dtype", "w", "", DT_FLOAT);
  restore("wrong_shape", "w", "3 -", DT_INT64);
  auto s = NewSess();
  std::vector<Tensor> out;
  EXPECT_THAT(s->Run({}, {"missing:0"}, {}, &out),
              StatusIs(absl::StatusCode::kNotFound,
                       HasSubstr("Tensor name \"v\" not found in checkpoint files "
                                 "/old/model.ckpt")));
  EXPECT_THAT(s->Run({}, {"wrong_dtype:0"}, {}, &out),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("Expected to restore a tensor of type float, got a tensor of "
                                 "type int64 instead: tensor_name = w")));
  EXPECT_THAT(s->Run({}, {"wrong_shape:0"}, {}, &out),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("Shape in shape_and_slice spec [3] does not match the shape "
                                 "stored in checkpoint: []")));
}

// RestoreV2 reads small tensors in runs, carves the mid-size ones (under
// the huge-page threshold) from one shared buffer and allocates the large
// ones alone: every kind comes back exact, and stays writable after the
// restore (and, under ASan, the shared buffer goes with the session).
TEST_F(SaverTest, RestoresSmallMidSizeAndLargeTensorsExactly) {
  root_ = Scope::NewRootScope();
  std::vector<int64_t> sizes;
  for (int i = 0; i < 30; ++i) sizes.push_back(1000 + i);   // 4 KiB: runs
  for (int i = 0; i < 12; ++i) sizes.push_back(50000 + i);  // 200 KiB: shared buffer
  sizes.push_back(400000);                                  // 1.6 MiB: alone
  std::vector<Variable> vars;
  std::vector<Tensor> values;
  for (size_t i = 0; i < sizes.size(); ++i) {
    Tensor t(DT_FLOAT, TensorShape({sizes[i]}));
    for (int64_t j = 0; j < sizes[i]; ++j) t.data<float>()[j] = static_cast<float>(i * 7919 + j);
    values.push_back(t);
    vars.push_back(Variable::Create(root_, absl::StrCat("v", i), t));
  }
  Output one = ops::Const<float>(root_, 1.0f);
  ops::AssignAdd(root_.WithOpName("bump"), vars[35].ref(),
                 ops::Fill(root_, ops::Const<int64_t>(root_, {sizes[35]}), one));
  init_ = GlobalVariablesInitializer(root_);
  ASSERT_OK_AND_ASSIGN(saver_, Saver::Create(root_, {}, &clock_));
  ASSERT_OK(mem_.CreateDir("/logs"));
  auto a = NewSess();
  RunTargets(a.get(), {init_.name()});
  ASSERT_OK_AND_ASSIGN(std::string path, saver_->Save(a.get(), "/logs/model"));
  a.reset();

  auto b = NewSess();
  ASSERT_OK(saver_->Restore(b.get(), path));
  for (size_t i = 0; i < sizes.size(); ++i) {
    std::vector<Tensor> out;
    ASSERT_OK(b->Run({}, {absl::StrCat("v", i, "/read")}, {}, &out));
    ASSERT_EQ(out[0].NumElements(), sizes[i]) << i;
    EXPECT_EQ(std::memcmp(out[0].data<float>(), values[i].data<float>(), sizes[i] * sizeof(float)),
              0)
        << "variable v" << i;
  }
  RunTargets(b.get(), {"bump"});
  std::vector<Tensor> out;
  ASSERT_OK(b->Run({}, {"v35/read"}, {}, &out));
  EXPECT_EQ(out[0].data<float>()[49999], values[35].data<float>()[49999] + 1);
}

// saver.py: `save_relative_paths` stores the state file's paths relative to
// its directory (TensorFlow writes model_checkpoint_path: "model-2"), so a
// copied directory refers to its own files, not the original's.
TEST_F(SaverTest, SaveRelativePathsWritesPathsRelativeToTheDirectory) {
  Build({.max_to_keep = 2, .save_relative_paths = true});
  ASSERT_OK(mem_.CreateDir("/logs"));
  auto s = InitializedAndSet();
  for (int step = 1; step <= 2; ++step) {
    ASSERT_OK(saver_->Save(s.get(), "/logs/model", {.global_step = step}).status());
  }
  ASSERT_OK_AND_ASSIGN(std::string text, ReadFileToString(&mem_, "/logs/checkpoint"));
  EXPECT_EQ(text,
            "model_checkpoint_path: \"model-2\"\n"
            "all_model_checkpoint_paths: \"model-1\"\n"
            "all_model_checkpoint_paths: \"model-2\"\n");
  // The saver itself still tracks the paths it was given.
  EXPECT_THAT(saver_->last_checkpoints(), ElementsAre("/logs/model-1", "/logs/model-2"));

  // A copy of the directory restores from its own files.
  ASSERT_OK(mem_.CreateDir("/copy"));
  ASSERT_OK_AND_ASSIGN(std::vector<std::string> files, mem_.GetChildren("/logs"));
  for (const std::string& f : files) {
    ASSERT_OK_AND_ASSIGN(std::string bytes, ReadFileToString(&mem_, JoinPath("/logs", f)));
    ASSERT_OK(WriteStringToFile(&mem_, JoinPath("/copy", f), bytes));
  }
  ASSERT_OK(DeleteRecursively(&mem_, "/logs"));
  ASSERT_OK_AND_ASSIGN(auto latest, LatestCheckpoint(&mem_, "/copy"));
  ASSERT_EQ(latest, std::optional<std::string>("/copy/model-2"));
  auto b = NewSess();
  ASSERT_OK(saver_->Restore(b.get(), *latest));
  EXPECT_EQ(Value(b.get(), "v/read"), "4 5 6");
}

TEST_F(SaverTest, AbsolutePathsByDefault) {
  Build();
  ASSERT_OK(mem_.CreateDir("/logs"));
  auto s = InitializedAndSet();
  ASSERT_OK(saver_->Save(s.get(), "/logs/model", {.global_step = 2}).status());
  ASSERT_OK_AND_ASSIGN(std::string text, ReadFileToString(&mem_, "/logs/checkpoint"));
  EXPECT_EQ(text,
            "model_checkpoint_path: \"/logs/model-2\"\n"
            "all_model_checkpoint_paths: \"/logs/model-2\"\n");
}

// A directory where the state file goes would take the state only after
// the checkpoint was written, leaving one that no state file names: the
// save is refused first, and writes nothing.
TEST_F(SaverTest, AStateFileThatIsADirectoryRefusesTheSaveBeforeWriting) {
  Build();
  ASSERT_OK(mem_.CreateDir("/logs/checkpoint"));
  auto s = InitializedAndSet();
  EXPECT_THAT(saver_->Save(s.get(), "/logs/model", {.global_step = 30}),
              StatusIs(absl::StatusCode::kFailedPrecondition,
                       HasSubstr("the checkpoint state file /logs/checkpoint is a directory")));
  EXPECT_THAT(mem_.GetChildren("/logs"), IsOkAndHolds(ElementsAre("checkpoint")));
  // Without the state file, the save goes ahead.
  EXPECT_OK(saver_->Save(s.get(), "/logs/model", {.global_step = 30, .write_state = false})
                .status());
}

// saver.py: `pad_step_number` names the checkpoint "%s-%08d".
TEST_F(SaverTest, PadStepNumberUsesEightDigits) {
  Build({.pad_step_number = true});
  ASSERT_OK(mem_.CreateDir("/logs"));
  auto s = InitializedAndSet();
  ASSERT_OK_AND_ASSIGN(std::string path, saver_->Save(s.get(), "/logs/model", {.global_step = 3}));
  EXPECT_EQ(path, "/logs/model-00000003");
  EXPECT_TRUE(CheckpointExists(&mem_, "/logs/model-00000003"));
  // A step wider than 8 digits is written whole.
  ASSERT_OK_AND_ASSIGN(path, saver_->Save(s.get(), "/logs/model", {.global_step = 123456789}));
  EXPECT_EQ(path, "/logs/model-123456789");
  // A saver rebuilt from the SaverDef keeps the option, as TensorFlow's
  // Saver(saver_def=..., pad_step_number=True) does.
  auto again = Saver::FromSaverDef(saver_->saver_def(), &clock_, {.pad_step_number = true});
  ASSERT_OK_AND_ASSIGN(path, again->Save(s.get(), "/logs/model", {.global_step = 42}));
  EXPECT_EQ(path, "/logs/model-00000042");
}

TEST_F(SaverTest, MaxToKeepEvictsAfterWritingTheState) {
  Build({.max_to_keep = 2});
  ASSERT_OK(mem_.CreateDir("/logs"));
  auto s = NewSess();
  RunTargets(s.get(), {init_.name()});
  for (int step = 1; step <= 4; ++step) {
    ASSERT_OK(saver_->Save(s.get(), "/logs/model", {.global_step = step}).status());
  }
  EXPECT_THAT(saver_->last_checkpoints(), ElementsAre("/logs/model-3", "/logs/model-4"));
  ASSERT_OK_AND_ASSIGN(auto state, GetCheckpointState(&mem_, "/logs"));
  EXPECT_THAT(state->all_model_checkpoint_paths(), ElementsAre("/logs/model-3", "/logs/model-4"));
  EXPECT_FALSE(CheckpointExists(&mem_, "/logs/model-1"));
  EXPECT_FALSE(CheckpointExists(&mem_, "/logs/model-2"));
  EXPECT_TRUE(CheckpointExists(&mem_, "/logs/model-3"));
  // A restarted trainer recovers the list and keeps evicting in order.
  auto again = Saver::FromSaverDef(saver_->saver_def(), &clock_);
  again->RecoverLastCheckpoints(
      {state->all_model_checkpoint_paths().begin(), state->all_model_checkpoint_paths().end()});
  EXPECT_THAT(again->last_checkpoints(), ElementsAre("/logs/model-3", "/logs/model-4"));
  ASSERT_OK(again->Save(s.get(), "/logs/model", {.global_step = 5}).status());
  EXPECT_FALSE(CheckpointExists(&mem_, "/logs/model-3"));
  EXPECT_THAT(again->last_checkpoints(), ElementsAre("/logs/model-4", "/logs/model-5"));
}

TEST_F(SaverTest, RetentionDeletesWhatAKilledSaveNeverRecorded) {
  Build({.max_to_keep = 2});
  ASSERT_OK(mem_.CreateDir("/logs"));
  auto s = NewSess();
  RunTargets(s.get(), {init_.name()});
  // model-0 and model-9: checkpoints nothing tracks that are the user's
  // (kept for good, copied in, or left out of an edited state file).
  for (int step : {0, 9}) {
    ASSERT_OK(
        saver_->Save(s.get(), "/logs/model", {.global_step = step, .write_state = false}).status());
  }
  for (int step = 1; step <= 2; ++step) {
    ASSERT_OK(saver_->Save(s.get(), "/logs/model", {.global_step = step}).status());
  }
  EXPECT_FALSE(mem_.FileExists("/logs/model-2.unrecorded").ok());  // recorded
  // model-3 complete, but the trainer was killed before the state file
  // named it; model-4's save was killed before its checkpoint was complete.
  ASSERT_OK(
      saver_->Save(s.get(), "/logs/model", {.global_step = 3, .write_state = false}).status());
  ASSERT_OK(WriteStringToFile(&mem_, "/logs/model-3.unrecorded", ""));
  ASSERT_OK(WriteStringToFile(&mem_, "/logs/model-4.unrecorded", ""));
  ASSERT_OK_AND_ASSIGN(auto state, GetCheckpointState(&mem_, "/logs"));
  ASSERT_THAT(state->all_model_checkpoint_paths(), ElementsAre("/logs/model-1", "/logs/model-2"));
  // The restarted trainer tracks it, after the recorded ones...
  auto again = Saver::FromSaverDef(saver_->saver_def(), &clock_);
  again->RecoverLastCheckpoints(
      {state->all_model_checkpoint_paths().begin(), state->all_model_checkpoint_paths().end()});
  EXPECT_THAT(again->last_checkpoints(),
              ElementsAre("/logs/model-1", "/logs/model-2", "/logs/model-3"));
  EXPECT_FALSE(mem_.FileExists("/logs/model-4.unrecorded").ok());
  // ...and retention deletes it in turn (TensorFlow would keep it forever).
  ASSERT_OK(again->Save(s.get(), "/logs/model", {.global_step = 5}).status());
  EXPECT_THAT(again->last_checkpoints(), ElementsAre("/logs/model-3", "/logs/model-5"));
  EXPECT_FALSE(mem_.FileExists("/logs/model-3.unrecorded").ok());
  EXPECT_FALSE(CheckpointExists(&mem_, "/logs/model-1"));
  EXPECT_FALSE(CheckpointExists(&mem_, "/logs/model-2"));
  ASSERT_OK(again->Save(s.get(), "/logs/model", {.global_step = 6}).status());
  EXPECT_FALSE(CheckpointExists(&mem_, "/logs/model-3"));
  EXPECT_TRUE(CheckpointExists(&mem_, "/logs/model-0"));
  EXPECT_TRUE(CheckpointExists(&mem_, "/logs/model-9"));
}

TEST_F(SaverTest, ACopiedLogDirectoryNeverTouchesTheOriginal) {
  Build({.max_to_keep = 2});
  ASSERT_OK(mem_.CreateDir("/src"));
  auto s = NewSess();
  RunTargets(s.get(), {init_.name()});
  for (int step = 1; step <= 2; ++step) {
    ASSERT_OK(saver_->Save(s.get(), "/src/model", {.global_step = step}).status());
  }
  // `cp -r /src /dst`: the state file's absolute paths still name /src.
  ASSERT_OK(mem_.CreateDir("/dst"));
  ASSERT_OK_AND_ASSIGN(std::vector<std::string> files, mem_.GetChildren("/src"));
  for (const std::string& f : files) {
    ASSERT_OK_AND_ASSIGN(std::string bytes, ReadFileToString(&mem_, "/src/" + f));
    ASSERT_OK(WriteStringToFile(&mem_, "/dst/" + f, bytes));
  }
  // The checkpoints beside the copied state file win.
  ASSERT_OK_AND_ASSIGN(auto state, GetCheckpointState(&mem_, "/dst"));
  EXPECT_EQ(state->model_checkpoint_path(), "/dst/model-2");
  EXPECT_THAT(state->all_model_checkpoint_paths(), ElementsAre("/dst/model-1", "/dst/model-2"));
  EXPECT_THAT(LatestCheckpoint(&mem_, "/dst"),
              IsOkAndHolds(std::optional<std::string>("/dst/model-2")));
  // Training on in the copy evicts the copy's checkpoints, not the original's.
  auto copy = Saver::FromSaverDef(saver_->saver_def(), &clock_);
  copy->RecoverLastCheckpoints(
      {state->all_model_checkpoint_paths().begin(), state->all_model_checkpoint_paths().end()});
  ASSERT_OK(copy->Save(s.get(), "/dst/model", {.global_step = 3}).status());
  EXPECT_FALSE(CheckpointExists(&mem_, "/dst/model-1"));
  EXPECT_TRUE(CheckpointExists(&mem_, "/src/model-1"));
  // Even a Saver told to track the original's paths does not delete them.
  auto stale = Saver::FromSaverDef(saver_->saver_def(), &clock_);
  stale->RecoverLastCheckpoints({"/src/model-1", "/src/model-2"});
  ASSERT_OK(stale->Save(s.get(), "/dst/model", {.global_step = 4}).status());
  EXPECT_TRUE(CheckpointExists(&mem_, "/src/model-1"));
  EXPECT_TRUE(CheckpointExists(&mem_, "/src/model-2"));
}

TEST_F(SaverTest, RetentionWaitsForReadersOfLeasedCheckpoints) {
  Build({.max_to_keep = 1, .lease_checkpoints = true});
  ASSERT_OK(mem_.CreateDir("/logs"));
  auto s = NewSess();
  RunTargets(s.get(), {init_.name()});
  ASSERT_OK(saver_->Save(s.get(), "/logs/model", {.global_step = 1}).status());
  EXPECT_TRUE(mem_.FileExists("/logs/model-1.lease").ok());
  {
    // An evaluator reads model-1 while the trainer saves model-2.
    ASSERT_OK_AND_ASSIGN(auto reader, BundleReader::Open(&mem_, "/logs/model-1"));
    ASSERT_OK(saver_->Save(s.get(), "/logs/model", {.global_step = 2}).status());
    EXPECT_TRUE(CheckpointExists(&mem_, "/logs/model-1"));
    ASSERT_OK(reader->Lookup("v").status());
  }
  // Its lease gone, model-1 goes at the next save, with model-2.
  ASSERT_OK(saver_->Save(s.get(), "/logs/model", {.global_step = 3}).status());
  EXPECT_FALSE(CheckpointExists(&mem_, "/logs/model-1"));
  EXPECT_FALSE(mem_.FileExists("/logs/model-1.lease").ok());
  EXPECT_FALSE(CheckpointExists(&mem_, "/logs/model-2"));
  EXPECT_TRUE(CheckpointExists(&mem_, "/logs/model-3"));
}

TEST_F(SaverTest, AnEvaluatorRestoringWhileTheTrainerSavesNeverFails) {
  Build({.max_to_keep = 1, .lease_checkpoints = true});
  ASSERT_OK(mem_.CreateDir("/logs"));
  auto trainer = NewSess();
  RunTargets(trainer.get(), {init_.name()});
  ASSERT_OK(saver_->Save(trainer.get(), "/logs/model", {.global_step = 0}).status());
  SessionManager::Options o;
  o.env = &mem_;
  ASSERT_OK_AND_ASSIGN(auto sm, SessionManager::Create(*root_.ToGraphDef(), o));
  auto evaluator_saver = Saver::FromSaverDef(saver_->saver_def(), &mem_);
  std::atomic<bool> done{false};
  std::thread saving([&] {
    for (int step = 1; step <= 200; ++step) {
      EXPECT_OK(saver_->Save(trainer.get(), "/logs/model", {.global_step = step}).status());
    }
    done = true;
  });
  int restores = 0;
  absl::Status failed;
  while (!done.load() && failed.ok()) {
    SessionManager::PrepareOptions p;
    p.saver = evaluator_saver.get();
    p.checkpoint_dir = "/logs";
    p.config.env = &mem_;
    absl::StatusOr<SessionManager::RecoverResult> r = sm->RecoverSession("", p);
    if (!r.ok()) {
      failed = r.status();
    } else {
      EXPECT_TRUE(r->initialized);
      ++restores;
    }
  }
  saving.join();
  EXPECT_OK(failed) << "after " << restores << " restores";
  EXPECT_GT(restores, 0);
}

TEST_F(SaverTest, KeepCheckpointEveryNHoursPreservesOnFakeClock) {
  Build({.max_to_keep = 1, .keep_checkpoint_every_n_hours = 1.0f});
  ASSERT_OK(mem_.CreateDir("/logs"));
  auto s = NewSess();
  RunTargets(s.get(), {init_.name()});
  ASSERT_OK(saver_->Save(s.get(), "/logs/model", {.global_step = 1}).status());
  ASSERT_OK(saver_->Save(s.get(), "/logs/model", {.global_step = 2}).status());
  EXPECT_FALSE(CheckpointExists(&mem_, "/logs/model-1"));  // younger than an hour: deleted
  fake_time_.AdvanceMicros(2ull * 3600 * 1000000);
  ASSERT_OK(saver_->Save(s.get(), "/logs/model", {.global_step = 3}).status());
  ASSERT_OK(saver_->Save(s.get(), "/logs/model", {.global_step = 4}).status());
  EXPECT_FALSE(CheckpointExists(&mem_, "/logs/model-2"));
  EXPECT_TRUE(CheckpointExists(&mem_, "/logs/model-3"));  // past the hour: preserved
  EXPECT_THAT(saver_->last_checkpoints(), ElementsAre("/logs/model-4"));
}

TEST_F(SaverTest, RestoreErrorsNameTheCheckpointKeyAndShapes) {
  Build();
  ASSERT_OK(mem_.CreateDir("/logs"));
  auto s = NewSess();
  EXPECT_THAT(saver_->Restore(s.get(), "/logs/nothing"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("The passed save_path is not a valid checkpoint: /logs/nothing")));
  // A checkpoint that lacks w, and one whose v has another shape.
  Scope other = Scope::NewRootScope();
  Variable v2 = Variable::Create(other, "v", Tensor::Vector<float>({1, 2}));
  Operation init2 = GlobalVariablesInitializer(other);
  ASSERT_OK_AND_ASSIGN(auto saver2, Saver::Create(other, {}, &clock_));
  SessionOptions opts;
  opts.env = &clock_;
  ASSERT_OK_AND_ASSIGN(auto s2, NewSession(opts));
  ASSERT_OK(s2->Create(*other.ToGraphDef()));
  RunTargets(s2.get(), {init2.name()});
  ASSERT_OK_AND_ASSIGN(std::string path, saver2->Save(s2.get(), "/logs/other"));
  EXPECT_THAT(saver_->Restore(s.get(), path),
              StatusIs(absl::StatusCode::kNotFound,
                       AllOf(HasSubstr("Key w not found in checkpoint /logs/other"),
                             HasSubstr("a Variable name or other graph key that is missing"))));
  // TensorFlow stops at the first problem; the rest of the error lists all.
  EXPECT_THAT(saver_->Restore(s.get(), path),
              StatusIs(absl::StatusCode::kNotFound,
                       AllOf(HasSubstr("Every difference between this Saver's variables and "
                                       "/logs/other:"),
                             HasSubstr("missing\tw"), HasSubstr("mismatch\tv"))));
  // Restore only v into the [3] variable from the [2] checkpoint.
  ASSERT_OK_AND_ASSIGN(auto v_only,
                       Saver::Create(root_, {.var_list = {v_}, .name = "save_v"}, &clock_));
  auto s3 = NewSess();
  EXPECT_THAT(v_only->Restore(s3.get(), path),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       AllOf(HasSubstr("lhs shape= [3] rhs shape= [2]"), HasSubstr("'v'"))));
}

TEST_F(SaverTest, DtypeMismatchNamesBothDtypes) {
  Build();
  ASSERT_OK(mem_.CreateDir("/logs"));
  Scope other = Scope::NewRootScope();
  Variable::Create(other, "v", Tensor::Vector<double>({1, 2, 3}));
  Variable::Create(other, "w", Tensor::Scalar<int64_t>(1));
  Operation init2 = GlobalVariablesInitializer(other);
  ASSERT_OK_AND_ASSIGN(auto saver2, Saver::Create(other, {}, &clock_));
  SessionOptions opts;
  opts.env = &clock_;
  ASSERT_OK_AND_ASSIGN(auto s2, NewSession(opts));
  ASSERT_OK(s2->Create(*other.ToGraphDef()));
  RunTargets(s2.get(), {init2.name()});
  ASSERT_OK_AND_ASSIGN(std::string path, saver2->Save(s2.get(), "/logs/doubles"));
  auto s = NewSess();
  EXPECT_THAT(saver_->Restore(s.get(), path),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("tensor_name = v; expected dtype float does not equal original "
                                 "dtype double")));
}

TEST_F(SaverTest, SaveErrors) {
  Build();
  auto s = NewSess();
  RunTargets(s.get(), {init_.name()});
  EXPECT_THAT(saver_->Save(s.get(), "/missing_dir/model"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("Parent directory of /missing_dir/model doesn't exist")));
  ASSERT_OK(mem_.CreateDir("/logs"));
  EXPECT_THAT(saver_->Save(s.get(), "/logs/checkpoint"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("collides")));
  EXPECT_THAT(saver_->Save(s.get(), "/logs/m", {.latest_filename = "a/b"}),
              StatusIs(absl::StatusCode::kInvalidArgument));
  Scope empty = Scope::NewRootScope();
  EXPECT_THAT(Saver::Create(empty),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("No variables to save")));
  // The state file cannot be replaced (the disk filled up after the bundle
  // was written): the error says the checkpoint itself was written.
  ASSERT_OK(mem_.CreateDir("/full"));
  FaultInjectionEnv faults(&mem_);
  auto saver = Saver::FromSaverDef(saver_->saver_def(), &faults);
  faults.FailOnce(FaultInjectionEnv::Op::kRename, 0);  // the state file's rename
  absl::Status full = saver->Save(s.get(), "/full/m", {.global_step = 3}).status();
  EXPECT_FALSE(full.ok());
  EXPECT_THAT(std::string(full.message()),
              HasSubstr("checkpoint /full/m-3 was written, but the state file /full/checkpoint "
                        "could not be updated, so a restart will not find it"));
  EXPECT_TRUE(CheckpointExists(&mem_, "/full/m-3"));
  // Its marker stays, so that a restarted trainer's retention deletes it.
  EXPECT_TRUE(mem_.FileExists("/full/m-3.unrecorded").ok());
}

TEST_F(SaverTest, ShardedSaveWritesShardsAndMerges) {
  Build({.num_shards = 2});
  EXPECT_EQ(saver_->saver_def().save_tensor_name(), "save/Identity:0");
  ASSERT_OK(mem_.CreateDir("/logs"));
  auto a = InitializedAndSet();
  ASSERT_OK_AND_ASSIGN(std::string path, saver_->Save(a.get(), "/logs/model", {.global_step = 3}));
  EXPECT_EQ(path, "/logs/model-3");
  EXPECT_THAT(mem_.GetChildren("/logs"),
              IsOkAndHolds(UnorderedElementsAre("model-3.index", "model-3.data-00000-of-00002",
                                                "model-3.data-00001-of-00002", "checkpoint")));
  ASSERT_OK_AND_ASSIGN(auto reader, BundleReader::Open(&mem_, path));
  EXPECT_EQ(reader->num_shards(), 2);
  auto b = NewSess();
  ASSERT_OK(saver_->Restore(b.get(), path));
  EXPECT_EQ(Value(b.get(), "v/read"), "4 5 6");
  EXPECT_EQ(Value(b.get(), "w/read"), "7");
}

TEST_F(SaverTest, SavesCleanUpWhatKilledSavesLeftBehind) {
  // A process killed mid-save leaves its temporary files and, between the
  // renames of a commit, a data file without an index. The first save
  // deletes what no live writer holds, of its own name only, whatever its
  // age; a sharded save's parts wait an hour.
  for (bool keep : {false, true}) {
    SaverOptions options;
    if (keep) options.delete_stale_temp_files_after = absl::InfiniteDuration();
    Build(options);
    const std::string dir = keep ? "/keep" : "/clean";
    ASSERT_OK(mem_.CreateDir(dir));
    const std::vector<std::string> dead = {
        dir + "/model-3.data-00000-of-00001.tempstate4242", dir + "/model-3.index.tempstate1",
        dir + "/checkpoint.tmp77", dir + "/model-2.data-00000-of-00001",
        dir + "/model-2.unrecorded"};
    for (const std::string& p : dead) ASSERT_OK(WriteStringToFile(&mem_, p, std::string(100, 'x')));
    const std::string parts = dir + "/model-3_temp_ab12/part-00000-of-00002.index";
    const std::string other = dir + "/best-1.index.tempstate9";
    ASSERT_OK(WriteStringToFile(&mem_, parts, "x"));
    ASSERT_OK(WriteStringToFile(&mem_, other, "x"));
    ASSERT_OK_AND_ASSIGN(LockedTempFile live,
                         CreateLockedTempFile(&mem_, dir + "/model-9.index", ".tempstate"));
    auto s = InitializedAndSet();
    ASSERT_OK(saver_->Save(s.get(), dir + "/model", {.global_step = 4}).status());
    for (const std::string& p : dead) {
      EXPECT_EQ(mem_.FileExists(p).ok(), keep) << p;
    }
    EXPECT_OK(mem_.FileExists(live.path)) << "a live writer's";
    EXPECT_OK(mem_.FileExists(other)) << "another name's";
    EXPECT_OK(mem_.FileExists(parts)) << "too fresh to delete";
    fake_time_.AdvanceMicros(2 * 3600'000'000ull);
    ASSERT_OK(saver_->Save(s.get(), dir + "/model", {.global_step = 5}).status());
    EXPECT_EQ(mem_.FileExists(parts).ok(), keep);
    EXPECT_OK(mem_.FileExists(live.path));
    // The checkpoints themselves are untouched.
    EXPECT_THAT(saver_->last_checkpoints(), ElementsAre(dir + "/model-4", dir + "/model-5"));
    EXPECT_OK(mem_.FileExists(dir + "/model-4.index"));
  }
}

TEST_F(SaverTest, ARestoreCleansUpAndTheFirstSaveTakesOldIncompleteCheckpoints) {
  Build({.max_to_keep = 2});
  ASSERT_OK(mem_.CreateDir("/logs"));
  auto s = InitializedAndSet();
  ASSERT_OK(saver_->Save(s.get(), "/logs/model", {.global_step = 1}).status());
  fake_time_.AdvanceMicros(1000);
  ASSERT_OK(saver_->Save(s.get(), "/logs/model", {.global_step = 2}).status());
  // Left by an older minigraph killed while retention deleted model-0 (its
  // index gone, no mark), and by a save killed mid-write.
  ASSERT_OK(mem_.RenameFile("/logs/model-1.data-00000-of-00001",
                            "/logs/model-0.data-00000-of-00001"));
  ASSERT_OK(mem_.DeleteFile("/logs/model-1.index"));
  ASSERT_OK(WriteStringToFile(&mem_, "/logs/model-7.index.tempstate3", "abc"));
  auto again = Saver::FromSaverDef(saver_->saver_def(), &clock_);
  auto b = NewSess();
  ASSERT_OK(again->Restore(b.get(), "/logs/model-2"));
  EXPECT_FALSE(mem_.FileExists("/logs/model-7.index.tempstate3").ok());
  EXPECT_OK(mem_.FileExists("/logs/model-0.data-00000-of-00001")) << "not marked";
  again->RecoverLastCheckpoints({"/logs/model-2"});
  ASSERT_OK(again->Save(b.get(), "/logs/model", {.global_step = 3}).status());
  EXPECT_THAT(mem_.GetChildren("/logs"),
              IsOkAndHolds(UnorderedElementsAre("checkpoint", "model-2.index",
                                                "model-2.data-00000-of-00001", "model-3.index",
                                                "model-3.data-00000-of-00001")));
}

// Fails every file operation once the state file has been renamed into
// place: the process "dies" between the state file and retention.
class DieAfterStateFileEnv : public EnvWrapper {
 public:
  using EnvWrapper::EnvWrapper;
  absl::Status RenameFile(const std::string& src, const std::string& target) override {
    MG_RETURN_IF_ERROR(Dead());
    MG_RETURN_IF_ERROR(EnvWrapper::RenameFile(src, target));
    dead_ = Basename(target) == "checkpoint";
    return absl::OkStatus();
  }
  absl::Status DeleteFile(const std::string& path) override {
    MG_RETURN_IF_ERROR(Dead());
    return EnvWrapper::DeleteFile(path);
  }
  absl::StatusOr<std::unique_ptr<WritableFile>> NewWritableFile(const std::string& path) override {
    MG_RETURN_IF_ERROR(Dead());
    return EnvWrapper::NewWritableFile(path);
  }

 private:
  absl::Status Dead() const {
    return dead_ ? absl::UnavailableError("killed") : absl::OkStatus();
  }
  bool dead_ = false;
};

TEST_F(SaverTest, AKillBetweenTheStateFileAndRetentionLeavesNothingBehindForGood) {
  Build({.max_to_keep = 2});
  ASSERT_OK(mem_.CreateDir("/logs"));
  auto s = InitializedAndSet();
  for (int step = 1; step <= 2; ++step) {
    fake_time_.AdvanceMicros(1000);
    ASSERT_OK(saver_->Save(s.get(), "/logs/model", {.global_step = step}).status());
  }
  DieAfterStateFileEnv dying(&clock_);
  auto doomed = Saver::FromSaverDef(saver_->saver_def(), &dying);
  doomed->RecoverLastCheckpoints({"/logs/model-1", "/logs/model-2"});
  fake_time_.AdvanceMicros(1000);
  ASSERT_OK(doomed->Save(s.get(), "/logs/model", {.global_step = 3}).status());
  // The state file dropped model-1, which is still there, marked.
  ASSERT_OK_AND_ASSIGN(auto state, GetCheckpointState(&mem_, "/logs"));
  EXPECT_THAT(state->all_model_checkpoint_paths(), ElementsAre("/logs/model-2", "/logs/model-3"));
  EXPECT_TRUE(CheckpointExists(&mem_, "/logs/model-1"));
  EXPECT_OK(mem_.FileExists("/logs/model-1.unrecorded"));
  // The restart tracks it as the oldest, and its first save deletes it.
  auto again = Saver::FromSaverDef(saver_->saver_def(), &clock_);
  again->RecoverLastCheckpoints(
      {state->all_model_checkpoint_paths().begin(), state->all_model_checkpoint_paths().end()});
  EXPECT_THAT(again->last_checkpoints(),
              ElementsAre("/logs/model-1", "/logs/model-2", "/logs/model-3"));
  fake_time_.AdvanceMicros(1000);
  ASSERT_OK(again->Save(s.get(), "/logs/model", {.global_step = 4}).status());
  EXPECT_THAT(again->last_checkpoints(), ElementsAre("/logs/model-3", "/logs/model-4"));
  EXPECT_THAT(mem_.GetChildren("/logs"),
              IsOkAndHolds(UnorderedElementsAre("checkpoint", "model-3.index",
                                                "model-3.data-00000-of-00001", "model-4.index",
                                                "model-4.data-00000-of-00001")));
}

// SaveAsync returns once it has the snapshot; steps that run while the
// snapshot is written do not change what is written, and the state file
// names the checkpoint only once it is complete.
TEST_F(SaverTest, SaveAsyncWritesTheSnapshotWhileStepsGoOn) {
  Build();
  ops::AssignAdd(root_.WithOpName("add_v"), v_.ref(), ops::Const<float>(root_, {10, 10, 10}));
  ASSERT_OK(mem_.CreateDir("/logs"));
  auto a = InitializedAndSet();
  ASSERT_OK(saver_->Save(a.get(), "/logs/model", {.global_step = 1}).status());
  gate_.Close();
  ASSERT_OK_AND_ASSIGN(std::string path,
                       saver_->SaveAsync(a.get(), "/logs/model", {.global_step = 2}));
  EXPECT_EQ(path, "/logs/model-2");
  gate_.AwaitWriter();  // the background save is now in the middle
  for (int i = 0; i < 3; ++i) RunTargets(a.get(), {"add_v"});
  EXPECT_EQ(Value(a.get(), "v/read"), "34 35 36");
  ASSERT_OK_AND_ASSIGN(auto latest, LatestCheckpoint(&mem_, "/logs"));
  EXPECT_EQ(latest, std::optional<std::string>("/logs/model-1"));
  EXPECT_THAT(saver_->last_checkpoints(), ElementsAre("/logs/model-1"));
  gate_.Open();
  EXPECT_THAT(saver_->Wait(), IsOkAndHolds("/logs/model-2"));
  EXPECT_THAT(saver_->Wait(), IsOkAndHolds(""));  // reported once
  ASSERT_OK_AND_ASSIGN(latest, LatestCheckpoint(&mem_, "/logs"));
  EXPECT_EQ(latest, std::optional<std::string>("/logs/model-2"));
  EXPECT_THAT(saver_->last_checkpoints(), ElementsAre("/logs/model-1", "/logs/model-2"));
  EXPECT_FALSE(mem_.FileExists("/logs/model-2.unrecorded").ok());
  auto b = NewSess();
  ASSERT_OK(saver_->Restore(b.get(), path));
  EXPECT_EQ(Value(b.get(), "v/read"), "4 5 6");
  EXPECT_EQ(Value(b.get(), "w/read"), "7");
  // The variable the step updated kept its own copy.
  EXPECT_EQ(Value(a.get(), "v/read"), "34 35 36");
}

// Byte for byte what Save writes, sharded too; at most one save in flight,
// whatever the caller does.
TEST_F(SaverTest, SaveAsyncWritesWhatSaveWritesOneAtATime) {
  // The synchronous saves write beside the asynchronous ones: count only
  // the asynchronous saver's files.
  gate_.CountOnly("/async");
  for (int shards : {0, 2}) {
    Build({.max_to_keep = 3, .num_shards = shards});
    ops::AssignAdd(root_.WithOpName("add_v"), v_.ref(), ops::Const<float>(root_, {1, 1, 1}));
    ASSERT_OK_AND_ASSIGN(
        std::unique_ptr<Saver> async,
        Saver::Create(root_, {.max_to_keep = 3, .num_shards = shards, .name = "async"}, &clock_));
    const std::string sync_dir = absl::StrCat("/sync", shards);
    const std::string async_dir = absl::StrCat("/async", shards);
    ASSERT_OK(mem_.CreateDir(sync_dir));
    ASSERT_OK(mem_.CreateDir(async_dir));
    auto a = InitializedAndSet();
    for (int step = 1; step <= 8; ++step) {
      RunTargets(a.get(), {"add_v"});
      ASSERT_OK(saver_->Save(a.get(), sync_dir + "/model", {.global_step = step}).status());
      ASSERT_OK(async->SaveAsync(a.get(), async_dir + "/model", {.global_step = step}).status());
    }
    EXPECT_THAT(async->Wait(), IsOkAndHolds(async_dir + "/model-8"));
    ASSERT_OK_AND_ASSIGN(std::vector<std::string> files, mem_.GetChildren(sync_dir));
    ASSERT_OK_AND_ASSIGN(std::vector<std::string> async_files, mem_.GetChildren(async_dir));
    EXPECT_THAT(async_files, ::testing::UnorderedElementsAreArray(files));
    for (const std::string& f : files) {
      if (f == "checkpoint") continue;
      ASSERT_OK_AND_ASSIGN(std::string want, ReadFileToString(&mem_, JoinPath(sync_dir, f)));
      ASSERT_OK_AND_ASSIGN(std::string got, ReadFileToString(&mem_, JoinPath(async_dir, f)));
      EXPECT_EQ(got, want) << f;
    }
    ASSERT_OK_AND_ASSIGN(auto state, GetCheckpointState(&mem_, async_dir));
    EXPECT_THAT(
        state->all_model_checkpoint_paths(),
        ElementsAre(async_dir + "/model-6", async_dir + "/model-7", async_dir + "/model-8"));
  }
  // One asynchronous save's data files at a time (a sharded save writes
  // its shards at once: at most 2).
  EXPECT_LE(gate_.max_writing(), 2);
}

TEST_F(SaverTest, SaveAsyncReportsABackgroundErrorOnce) {
  // The background save's state file cannot be written (the session writes
  // the bundle through mem_, the saver its state file through `faults`).
  FaultInjectionEnv faults(&mem_);
  SessionOptions opts;
  opts.env = &mem_;
  Build();
  auto saver = Saver::Create(root_, {.name = "async"}, &faults);
  ASSERT_OK(saver.status());
  auto s = NewSession(opts);
  ASSERT_OK(s.status());
  ASSERT_OK((*s)->Create(*root_.ToGraphDef()));
  RunTargets(s->get(), {init_.name()});
  ASSERT_OK(mem_.CreateDir("/logs"));
  faults.FailOnce(FaultInjectionEnv::Op::kRename, 0);
  ASSERT_OK((*saver)->SaveAsync(s->get(), "/logs/m", {.global_step = 1}).status());
  EXPECT_THAT((*saver)->Wait(), StatusIs(absl::StatusCode::kUnavailable,
                                         HasSubstr("checkpoint /logs/m-1 was written, but the "
                                                   "state file /logs/checkpoint could not be")));
  EXPECT_THAT((*saver)->Wait(), IsOkAndHolds(""));
  // Reported by the next call instead, which then does not save.
  faults.FailOnce(FaultInjectionEnv::Op::kRename, 0);
  ASSERT_OK((*saver)->SaveAsync(s->get(), "/logs/m", {.global_step = 2}).status());
  EXPECT_THAT((*saver)->SaveAsync(s->get(), "/logs/m", {.global_step = 3}),
              StatusIs(absl::StatusCode::kUnavailable, HasSubstr("/logs/m-2 was written")));
  EXPECT_FALSE(CheckpointExists(&mem_, "/logs/m-3"));
  ASSERT_OK((*saver)->SaveAsync(s->get(), "/logs/m", {.global_step = 4}).status());
  EXPECT_THAT((*saver)->Save(s->get(), "/logs/m", {.global_step = 5}), IsOkAndHolds("/logs/m-5"));
  EXPECT_THAT((*saver)->last_checkpoints(),
              ElementsAre("/logs/m-1", "/logs/m-2", "/logs/m-4", "/logs/m-5"));
  // Arguments are checked at once; an uninitialized variable fails the snapshot.
  EXPECT_THAT((*saver)->SaveAsync(s->get(), "/missing/m"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("Parent directory")));
  auto fresh = NewSession(opts);
  ASSERT_OK((*fresh)->Create(*root_.ToGraphDef()));
  EXPECT_THAT((*saver)->SaveAsync(fresh->get(), "/logs/m"),
              StatusIs(absl::StatusCode::kFailedPrecondition, HasSubstr("uninitialized value")));
  // A Saver from a SaverDef does not know its variables.
  auto from_def = Saver::FromSaverDef(saver_->saver_def(), &clock_);
  EXPECT_THAT(from_def->SaveAsync(s->get(), "/logs/m"),
              StatusIs(absl::StatusCode::kFailedPrecondition, HasSubstr("use Save")));
}

// The process dies at every point of an asynchronous save (each mutating
// file operation in turn) while the training step goes on: after the
// crash, the state file names a checkpoint that restores, either the one
// before or the snapshot, never a mixture.
TEST(SaverAsyncCrashTest, AKillDuringAnAsyncSaveLeavesARestorableCheckpoint) {
  bool reached_the_end = false;
  for (int k = 0; !reached_the_end; ++k) {
    ASSERT_LT(k, 200) << "the save never completed";
    MemEnv mem;
    FaultInjectionEnv env(&mem);
    Scope root = Scope::NewRootScope();
    Variable v = Variable::Create(root, "v", Tensor::Vector<float>({1, 2, 3}));
    ops::AssignAdd(root.WithOpName("step"), v.ref(), ops::Const<float>(root, {1, 1, 1}));
    Operation init = GlobalVariablesInitializer(root);
    ASSERT_OK_AND_ASSIGN(auto saver, Saver::Create(root, {}, &env));
    SessionOptions opts;
    opts.env = &env;
    ASSERT_OK_AND_ASSIGN(auto s, NewSession(opts));
    ASSERT_OK(s->Create(*root.ToGraphDef()));
    std::vector<Tensor> out;
    ASSERT_OK(s->Run({}, {}, {init.name()}, &out));
    ASSERT_OK(mem.CreateDir("/logs"));
    ASSERT_OK(saver->Save(s.get(), "/logs/model", {.global_step = 1}).status());  // v = 1 2 3
    ASSERT_OK(s->Run({}, {}, {"step"}, &out));                                    // v = 2 3 4
    env.FailAfter(k);
    ASSERT_OK(saver->SaveAsync(s.get(), "/logs/model", {.global_step = 2}).status());
    ASSERT_OK(s->Run({}, {}, {"step"}, &out));  // v = 3 4 5, not saved
    reached_the_end = saver->Wait().ok();
    env.SimulateCrash();
    env.ClearFaults();
    ASSERT_OK_AND_ASSIGN(std::optional<std::string> latest, LatestCheckpoint(&env, "/logs"));
    ASSERT_TRUE(latest.has_value()) << "after op " << k;
    ASSERT_OK_AND_ASSIGN(auto fresh, NewSession(opts));
    ASSERT_OK(fresh->Create(*root.ToGraphDef()));
    ASSERT_OK(saver->Restore(fresh.get(), *latest)) << "after op " << k;
    ASSERT_OK(fresh->Run({}, {"v"}, {}, &out));
    EXPECT_EQ(out[0].SummarizeValue(3), *latest == "/logs/model-2" ? "2 3 4" : "1 2 3")
        << *latest << " after op " << k;
    if (reached_the_end) EXPECT_EQ(*latest, "/logs/model-2");
  }
}

// The process dies at every point of two saves in turn (each mutating file
// operation), what was not durable is lost, and the trainer restarts: after
// its next two saves the directory holds the kept checkpoints and the state
// file, nothing that a save, a commit or retention left half-done.
TEST(SaverCrashTest, AKillAtAnyPointLeavesOnlyTheKeptCheckpointsAfterARestart) {
  bool reached_the_end = false;
  for (int k = 0; !reached_the_end; ++k) {
    ASSERT_LT(k, 400) << "the saves never completed";
    SCOPED_TRACE(absl::StrCat("killed at op ", k));
    MemEnv mem;
    FaultInjectionEnv env(&mem);
    Scope root = Scope::NewRootScope();
    Variable v = Variable::Create(root, "v", Tensor::Vector<float>({1, 2, 3}));
    Operation init = GlobalVariablesInitializer(root);
    SessionOptions opts;
    opts.env = &env;
    ASSERT_OK(mem.CreateDir("/logs"));
    {
      ASSERT_OK_AND_ASSIGN(auto saver, Saver::Create(root, {.max_to_keep = 2}, &env));
      ASSERT_OK_AND_ASSIGN(auto s, NewSession(opts));
      ASSERT_OK(s->Create(*root.ToGraphDef()));
      std::vector<Tensor> out;
      ASSERT_OK(s->Run({}, {}, {init.name()}, &out));
      for (int step = 1; step <= 3; ++step) {
        ASSERT_OK(saver->Save(s.get(), "/logs/model", {.global_step = step}).status());
      }
      env.FailAfter(k);
      const bool saved4 = saver->Save(s.get(), "/logs/model", {.global_step = 4}).ok();
      reached_the_end = saved4 && saver->Save(s.get(), "/logs/model", {.global_step = 5}).ok();
    }
    env.SimulateCrash();
    env.ClearFaults();
    // The restart: restore what the state file names, track its list, save on.
    ASSERT_OK_AND_ASSIGN(auto saver, Saver::Create(root, {.max_to_keep = 2}, &env));
    ASSERT_OK_AND_ASSIGN(auto s, NewSession(opts));
    ASSERT_OK(s->Create(*root.ToGraphDef()));
    ASSERT_OK_AND_ASSIGN(std::optional<CheckpointState> state, GetCheckpointState(&env, "/logs"));
    ASSERT_TRUE(state.has_value());
    ASSERT_OK(saver->Restore(s.get(), state->model_checkpoint_path()));
    saver->RecoverLastCheckpoints(
        {state->all_model_checkpoint_paths().begin(), state->all_model_checkpoint_paths().end()});
    for (int step = 6; step <= 7; ++step) {
      ASSERT_OK(saver->Save(s.get(), "/logs/model", {.global_step = step}).status());
    }
    EXPECT_THAT(env.GetChildren("/logs"),
                IsOkAndHolds(UnorderedElementsAre("checkpoint", "model-6.index",
                                                  "model-6.data-00000-of-00001", "model-7.index",
                                                  "model-7.data-00000-of-00001")));
  }
}

// Resource variables save their reads and restore through
// AssignVariableOp; the checkpoint is keyed by variable name, so a ref
// variable's checkpoint restores into a resource variable and back, as in
// TensorFlow.
TEST(SaverResourceTest, ResourceVariablesSaveRestoreAndMixWithRefVariables) {
  MemEnv mem;
  ASSERT_OK(mem.CreateDir("/logs"));
  SessionOptions opts;
  opts.env = &mem;
  struct Model {
    Scope root = Scope::NewRootScope();
    Variable v, w;
    Operation init;
    std::unique_ptr<Saver> saver;
    std::unique_ptr<Session> session;
  };
  auto build = [&](bool resource) {
    auto m = std::make_unique<Model>();
    m->v = Variable::Create(m->root, "v", Tensor::Vector<float>({1, 2, 3}),
                            {.use_resource = resource});
    m->w = Variable::Create(m->root, "w", Tensor::Scalar<int64_t>(7), {.use_resource = resource});
    Output ten = ops::Const<float>(m->root, {10, 10, 10});
    if (resource) {
      ops::AssignAddVariableOp(m->root.WithOpName("bump"), m->v.ref(), ten);
    } else {
      ops::AssignAdd(m->root.WithOpName("bump"), m->v.ref(), ten);
    }
    m->init = GlobalVariablesInitializer(m->root);
    auto saver = Saver::Create(m->root, {}, &mem);
    EXPECT_OK(saver.status());
    m->saver = *std::move(saver);
    auto s = NewSession(opts);
    EXPECT_OK(s.status());
    m->session = *std::move(s);
    EXPECT_OK(m->session->Create(*m->root.ToGraphDef()));
    return m;
  };
  auto value = [](Model& m, const Variable& v) {
    std::vector<Tensor> out;
    absl::Status s = m.session->Run({}, {v.value().name()}, {}, &out);
    return s.ok() ? out[0].SummarizeValue(3) : std::string(s.message());
  };
  std::vector<Tensor> out;
  auto res = build(true);
  ASSERT_OK(res->session->Run({}, {}, {res->init.name()}, &out));
  ASSERT_OK_AND_ASSIGN(std::string path,
                       res->saver->Save(res->session.get(), "/logs/res", {.global_step = 1}));
  ASSERT_OK_AND_ASSIGN(auto reader, BundleReader::Open(&mem, path));
  EXPECT_THAT(reader->keys(), ElementsAre("v", "w"));
  // An asynchronous save snapshots the reads.
  ASSERT_OK(res->saver->SaveAsync(res->session.get(), "/logs/res", {.global_step = 2}).status());
  ASSERT_OK(res->session->Run({}, {}, {"bump"}, &out));
  ASSERT_OK(res->saver->Wait().status());

  auto fresh = build(true);
  EXPECT_THAT(value(*fresh, fresh->v), HasSubstr("Could not find variable v"));
  ASSERT_OK(fresh->saver->Restore(fresh->session.get(), "/logs/res-2"));
  EXPECT_EQ(value(*fresh, fresh->v), "1 2 3");
  EXPECT_EQ(value(*fresh, fresh->w), "7");

  auto ref = build(false);
  ASSERT_OK(ref->saver->Restore(ref->session.get(), path));
  EXPECT_EQ(value(*ref, ref->v), "1 2 3");
  ASSERT_OK(ref->session->Run({}, {}, {"bump"}, &out));
  ASSERT_OK_AND_ASSIGN(std::string from_ref,
                       ref->saver->Save(ref->session.get(), "/logs/ref", {.global_step = 3}));
  ASSERT_OK(fresh->saver->Restore(fresh->session.get(), from_ref));
  EXPECT_EQ(value(*fresh, fresh->v), "11 12 13");
  EXPECT_EQ(value(*fresh, fresh->w), "7");
}

// Models over one [5,2] variable "emb" (0..9), partitioned or not, with
// their Savers and sessions, in memory.
class SaverPartitionedTest : public ::testing::Test {
 protected:
  struct Model {
    Scope root = Scope::NewRootScope();
    Output value;
    std::vector<Variable> vars;
    Operation init;
    std::unique_ptr<Saver> saver;
    std::unique_ptr<Session> session;
  };

  void SetUp() override {
    ASSERT_OK(mem_.CreateDir("/logs"));
    opts_.env = &mem_;
    for (int i = 0; i < 10; ++i) full_.data<float>()[i] = static_cast<float>(i);
  }

  // `parts` 0: an unpartitioned variable "emb"; otherwise that many parts.
  std::unique_ptr<Model> Build(int parts, bool resource, int num_shards = 0) {
    auto m = std::make_unique<Model>();
    if (parts == 0) {
      Variable v = Variable::Create(m->root, "emb", full_, {.use_resource = resource});
      m->value = v.value();
      m->vars = {v};
    } else {
      auto pv = PartitionedVariable::Create(m->root, "emb", full_,
                                            FixedSizePartitions(full_.shape(), parts),
                                            {.use_resource = resource});
      EXPECT_OK(pv.status());
      m->value = pv->AsTensor(m->root);
      m->vars = pv->parts();
    }
    Variable::Create(m->root, "step", Tensor::Scalar<int64_t>(3));
    m->init = GlobalVariablesInitializer(m->root);
    auto saver = Saver::Create(m->root, {.num_shards = num_shards}, &mem_);
    EXPECT_OK(saver.status());
    m->saver = *std::move(saver);
    auto s = NewSession(opts_);
    EXPECT_OK(s.status());
    m->session = *std::move(s);
    EXPECT_OK(m->session->Create(*m->root.ToGraphDef()));
    return m;
  }

  // `m` initialized and saved under `prefix`, at step 1.
  absl::StatusOr<std::string> InitAndSave(Model& m, const std::string& prefix) {
    std::vector<Tensor> out;
    MG_RETURN_IF_ERROR(m.session->Run({}, {}, {m.init.name()}, &out));
    return m.saver->Save(m.session.get(), prefix, {.global_step = 1});
  }

  static std::string Value(Model& m) {
    std::vector<Tensor> out;
    absl::Status s = m.session->Run({}, {m.value.name()}, {}, &out);
    return s.ok() ? out[0].SummarizeValue(10) : std::string(s.message());
  }

  static constexpr char kExpected[] = "0 1 2 3 4 5 6 7 8 9";
  MemEnv mem_;
  SessionOptions opts_;
  Tensor full_{DT_FLOAT, TensorShape({5, 2})};
};

// A partitioned variable's parts are saved as slices of one tensor, as
// TensorFlow's Saver writes them, restorable into another partitioning and
// into an unpartitioned variable.
TEST_F(SaverPartitionedTest, PartsAreSlicesOfOneTensorInAnyPartitioning) {
  auto three = Build(3, false);
  ASSERT_EQ(three->vars.size(), 3u);
  EXPECT_EQ(three->vars[1].name(), "emb/part_1");
  EXPECT_EQ(three->vars[1].checkpoint_slice_spec(), "5 2 2,2:0,2");
  EXPECT_EQ(three->vars[1].shape().DebugString(), PartialShape({2, 2}).DebugString());
  ASSERT_OK_AND_ASSIGN(std::string path, InitAndSave(*three, "/logs/m"));
  EXPECT_EQ(Value(*three), kExpected);

  // One tensor "emb" of the full shape, in three slices.
  ASSERT_OK_AND_ASSIGN(auto reader, BundleReader::Open(&mem_, path));
  EXPECT_THAT(reader->tensor_names(), ElementsAre("emb", "step"));
  ASSERT_OK_AND_ASSIGN(const BundleEntryProto* entry, reader->GetEntry("emb"));
  EXPECT_EQ(entry->slices_size(), 3);
  ASSERT_OK_AND_ASSIGN(Tensor whole, reader->Lookup("emb"));
  EXPECT_EQ(whole.shape(), full_.shape());
  EXPECT_EQ(whole.SummarizeValue(10), kExpected);

  for (auto [parts, resource] : {std::pair{2, false}, {5, true}, {0, false}, {1, true}}) {
    SCOPED_TRACE(absl::StrCat(parts, " parts, resource ", resource));
    auto other = Build(parts, resource);
    ASSERT_OK(other->saver->Restore(other->session.get(), path));
    EXPECT_EQ(Value(*other), kExpected);
  }
}

TEST_F(SaverPartitionedTest, AnUnpartitionedCheckpointRestoresIntoParts) {
  auto single = Build(0, false);
  ASSERT_OK_AND_ASSIGN(std::string from_single, InitAndSave(*single, "/logs/s"));
  auto two = Build(2, false);
  ASSERT_OK(two->saver->Restore(two->session.get(), from_single));
  EXPECT_EQ(Value(*two), kExpected);
}

// A sharded save spreads the parts over the shards; the merged checkpoint
// holds the one tensor with all its slices.
TEST_F(SaverPartitionedTest, AShardedSaveMergesThePartsIntoOneTensor) {
  auto m = Build(3, false, /*num_shards=*/2);
  ASSERT_OK_AND_ASSIGN(std::string merged, InitAndSave(*m, "/logs/sharded"));
  ASSERT_OK_AND_ASSIGN(auto merged_reader, BundleReader::Open(&mem_, merged));
  ASSERT_OK_AND_ASSIGN(const BundleEntryProto* e, merged_reader->GetEntry("emb"));
  EXPECT_EQ(e->slices_size(), 3);
  auto other = Build(2, true);
  ASSERT_OK(other->saver->Restore(other->session.get(), merged));
  EXPECT_EQ(Value(*other), kExpected);
}

// A checkpoint whose "emb" has another shape: the error names it.
TEST_F(SaverPartitionedTest, ACheckpointOfAnotherShapeIsAnErrorNamingBoth) {
  auto three = Build(3, false);
  ASSERT_OK_AND_ASSIGN(std::string path, InitAndSave(*three, "/logs/m"));
  Model m;
  ASSERT_OK(PartitionedVariable::Create(m.root, "emb", Tensor(DT_FLOAT, TensorShape({4, 2})),
                                        {2, 1})
                .status());
  ASSERT_OK_AND_ASSIGN(auto saver, Saver::Create(m.root, {}, &mem_));
  ASSERT_OK_AND_ASSIGN(auto session, NewSession(opts_));
  ASSERT_OK(session->Create(*m.root.ToGraphDef()));
  absl::Status s = saver->Restore(session.get(), path);
  EXPECT_THAT(s.message(), AllOf(HasSubstr("emb"), HasSubstr("[5,2]"), HasSubstr("[4,2]")));
}

TEST_F(SaverTest, RestoresTensorFlowCheckpointExactly) {
  MG_REQUIRE_SHARED_TESTDATA(dir);
  const std::string prefix = JoinPath(
      dir, "tf_checkpoints/HamBamLam__TD-Checkers-LiamBurke/checkpoints/checkpoint-779049");
  ASSERT_OK_AND_ASSIGN(auto reader, BundleReader::Open(Env::Default(), prefix));
  Scope root = Scope::NewRootScope();
  std::vector<Variable> vars;
  for (const std::string& key : reader->keys()) {
    ASSERT_OK_AND_ASSIGN(const BundleEntryProto* e, reader->GetEntry(key));
    ASSERT_OK_AND_ASSIGN(TensorShape shape, reader->GetShape(key));
    Tensor zeros(e->dtype(), shape);
    std::memset(zeros.raw_data(), 0, zeros.TotalBytes());
    Scope s = root;
    // Keys are variable op names: "layer1/weight" lives in scope "layer1".
    const size_t slash = key.rfind('/');
    if (slash != std::string::npos) {
      vars.push_back(Variable::Create(root.WithOpName(""), key, zeros));
    } else {
      vars.push_back(Variable::Create(root, key, zeros));
    }
    EXPECT_EQ(vars.back().name(), key);
  }
  ASSERT_OK_AND_ASSIGN(auto saver, Saver::Create(root));
  ASSERT_OK_AND_ASSIGN(auto session, NewSession(SessionOptions()));
  ASSERT_OK(session->Create(*root.ToGraphDef()));
  ASSERT_OK(saver->Restore(session.get(), prefix));
  for (const std::string& key : reader->keys()) {
    ASSERT_OK_AND_ASSIGN(Tensor want, reader->Lookup(key));
    std::vector<Tensor> out;
    ASSERT_OK(session->Run({}, {key + "/read"}, {}, &out));
    EXPECT_EQ(out[0].tensor_data(), want.tensor_data()) << key;
  }
}

}  // namespace
}  // namespace minigraph
