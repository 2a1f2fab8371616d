// Lookup tables (HashTableV2, MutableHashTableV2, MutableDenseHashTableV2
// and the ops on them)
// through a session: TensorFlow's semantics and error texts.
#include "core/status_matchers.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "runtime/cc/ops.h"
#include "runtime/graph/node_def_util.h"
#include "session/session.h"

namespace minigraph {
namespace {

using ::testing::HasSubstr;

Tensor Strings(std::initializer_list<const char*> v) {
  Tensor t(DT_STRING, TensorShape({static_cast<int64_t>(v.size())}));
  int i = 0;
  for (const char* s : v) t.data<std::string>()[i++] = s;
  return t;
}

class LookupTest : public ::testing::Test {
 protected:
  Output Table(const std::string& op, const std::string& name, DataType k, DataType v) {
    return root_.WithOpName(name)
        .AddOp(op, {}, {{"key_dtype", MakeAttrValue(k)}, {"value_dtype", MakeAttrValue(v)}})
        .output(0);
  }
  Operation Fill(const std::string& op, const std::string& name, Output table, Tensor keys,
                 Tensor values) {
    return root_.WithOpName(name).AddOp(
        op, {{table}, {ops::Const(root_, keys)}, {ops::Const(root_, values)}});
  }
  Output Find(const std::string& name, Output table, Tensor keys, Tensor dflt) {
    return root_.WithOpName(name)
        .AddOp("LookupTableFindV2", {{table}, {ops::Const(root_, keys)}, {ops::Const(root_, dflt)}})
        .output(0);
  }
  void Start() {
    ASSERT_OK_AND_ASSIGN(GraphDef def, root_.ToGraphDef());
    ASSERT_OK_AND_ASSIGN(session_, NewSession(SessionOptions()));
    ASSERT_OK(session_->Create(def));
  }
  absl::StatusOr<Tensor> Fetch(const std::string& name) {
    std::vector<Tensor> out;
    MG_RETURN_IF_ERROR(session_->Run({}, {name}, {}, &out));
    return out[0];
  }
  absl::Status Run(const std::string& target) {
    std::vector<Tensor> out;
    return session_->Run({}, {}, {target}, &out);
  }

  Scope root_ = Scope::NewRootScope();
  std::unique_ptr<Session> session_;
};

TEST_F(LookupTest, HashTableIsFilledOnceThenLooksUpWithADefault) {
  Output t = Table("HashTableV2", "vocab", DT_STRING, DT_INT64);
  Fill("InitializeTableV2", "init", t, Strings({"us", "de", "fr"}),
       Tensor::Vector<int64_t>({0, 1, 2}));
  Fill("InitializeTableV2", "init_same", t, Strings({"fr", "us", "de"}),
       Tensor::Vector<int64_t>({2, 0, 1}));
  Fill("InitializeTableV2", "init_other", t, Strings({"us"}), Tensor::Vector<int64_t>({5}));
  Fill("LookupTableInsertV2", "insert", t, Strings({"it"}), Tensor::Vector<int64_t>({3}));
  Find("find", t, Strings({"de", "xx", "us"}), Tensor::Scalar<int64_t>(-1));
  Find("find_ints", t, Tensor::Vector<int64_t>({1}), Tensor::Scalar<int64_t>(-1));
  root_.WithOpName("size").AddOp("LookupTableSizeV2", {{t}});
  root_.WithOpName("remove").AddOp("LookupTableRemoveV2",
                                   {{t}, {ops::Const(root_, Strings({"us"}))}});
  Start();
  EXPECT_THAT(Fetch("find").status(),
              StatusIs(absl::StatusCode::kFailedPrecondition, HasSubstr("Table not initialized.")));
  EXPECT_THAT(Run("remove"),
              StatusIs(absl::StatusCode::kUnimplemented,
                       HasSubstr("Remove not supported by InitializableLookupTable")));
  ASSERT_OK(Run("init"));
  ASSERT_OK_AND_ASSIGN(Tensor found, Fetch("find"));
  EXPECT_EQ(found.SummarizeValue(3), "1 -1 0");
  EXPECT_OK(Run("init_same"));
  EXPECT_THAT(Run("init_other"),
              StatusIs(absl::StatusCode::kFailedPrecondition,
                       HasSubstr("Table was already initialized with different data.")));
  EXPECT_THAT(Run("insert"),
              StatusIs(absl::StatusCode::kUnimplemented, HasSubstr("Insert not supported")));
  EXPECT_THAT(Fetch("find_ints").status(),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("Key must be type string but got int64")));
  ASSERT_OK_AND_ASSIGN(Tensor size, Fetch("size"));
  EXPECT_EQ(size.SummarizeValue(1), "3");
}

TEST_F(LookupTest, HashTableRefusesTwoValuesForOneKey) {
  Output t = Table("HashTableV2", "t", DT_INT64, DT_STRING);
  Fill("InitializeTableV2", "init", t, Tensor::Vector<int64_t>({7, 7}), Strings({"a", "b"}));
  Start();
  EXPECT_THAT(Run("init"), StatusIs(absl::StatusCode::kFailedPrecondition,
                                    HasSubstr("HashTable has different value for same key. Key 7 "
                                              "has a and trying to add value b")));
}

TEST_F(LookupTest, MutableHashTableInsertsImportsAndExports) {
  Output t = Table("MutableHashTableV2", "m", DT_INT64, DT_FLOAT);
  Fill("LookupTableInsertV2", "insert", t, Tensor::Vector<int64_t>({3, 1}),
       Tensor::Vector<float>({0.5f, 1.5f}));
  Fill("LookupTableInsertV2", "overwrite", t, Tensor::Vector<int64_t>({3}),
       Tensor::Vector<float>({9}));
  Fill("LookupTableImportV2", "import", t, Tensor::Vector<int64_t>({4}),
       Tensor::Vector<float>({4}));
  Find("find", t, Tensor::Vector<int64_t>({1, 3, 4}), Tensor::Scalar<float>(0));
  Operation exported = root_.WithOpName("export").AddOp(
      "LookupTableExportV2", {{t}},
      {{"Tkeys", MakeAttrValue(DT_INT64)}, {"Tvalues", MakeAttrValue(DT_FLOAT)}});
  root_.WithOpName("bad_export")
      .AddOp("LookupTableExportV2", {{t}},
             {{"Tkeys", MakeAttrValue(DT_STRING)}, {"Tvalues", MakeAttrValue(DT_FLOAT)}});
  Start();
  EXPECT_THAT(Fetch("bad_export").status(),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("exports string -> float from a table of int64 -> float")));
  ASSERT_OK_AND_ASSIGN(Tensor empty, Fetch("find"));
  EXPECT_EQ(empty.SummarizeValue(3), "0 0 0");  // a mutable table needs no initializer
  ASSERT_OK(Run("insert"));
  ASSERT_OK(Run("overwrite"));
  ASSERT_OK_AND_ASSIGN(Tensor found, Fetch("find"));
  EXPECT_EQ(found.SummarizeValue(3), "1.5 9 0");
  std::vector<Tensor> out;
  ASSERT_OK(session_->Run({}, {exported.output(0).name(), exported.output(1).name()}, {}, &out));
  ASSERT_EQ(out[0].NumElements(), 2);
  for (int i = 0; i < 2; ++i) {
    EXPECT_EQ(out[1].data<float>()[i], out[0].data<int64_t>()[i] == 3 ? 9.0f : 1.5f);
  }
  ASSERT_OK(Run("import"));  // replaces every entry
  ASSERT_OK_AND_ASSIGN(found, Fetch("find"));
  EXPECT_EQ(found.SummarizeValue(3), "0 0 4");
}

TEST_F(LookupTest, UnsupportedDtypesAreErrors) {
  Table("HashTableV2", "bad", DT_FLOAT, DT_INT64);
  ASSERT_OK_AND_ASSIGN(GraphDef def, root_.ToGraphDef());
  ASSERT_OK_AND_ASSIGN(session_, NewSession(SessionOptions()));
  absl::Status s = session_->Create(def);
  if (s.ok()) s = Run("bad");
  EXPECT_THAT(s, StatusIs(absl::StatusCode::kUnimplemented,
                          HasSubstr("HashTableV2 'bad': no table from float to int64")));
}

// A MutableDenseHashTableV2 of int64 keys (0 empty, -1 deleted) to floats.
Output DenseTable(const Scope& root, const std::string& name, int64_t buckets) {
  return root.WithOpName(name)
      .AddOp("MutableDenseHashTableV2",
             {{ops::Const(root, Tensor::Scalar<int64_t>(0))},
              {ops::Const(root, Tensor::Scalar<int64_t>(-1))}},
             {{"key_dtype", MakeAttrValue(DT_INT64)},
              {"value_dtype", MakeAttrValue(DT_FLOAT)},
              {"initial_num_buckets", MakeAttrValue(buckets)}})
      .output(0);
}

TEST_F(LookupTest, DenseTableKeepsTensorFlowsBuckets) {
  Output t = DenseTable(root_, "dense", 8);
  Fill("LookupTableInsertV2", "insert", t, Tensor::Vector<int64_t>({5, 13, 3, 21, 7, 9, 100}),
       Tensor::Vector<float>({1, 2, 3, 4, 5, 6, 7}));
  root_.WithOpName("remove").AddOp(
      "LookupTableRemoveV2", {{t}, {ops::Const(root_, Tensor::Vector<int64_t>({13, 8}))}});
  root_.WithOpName("remove_deleted")
      .AddOp("LookupTableRemoveV2", {{t}, {ops::Const(root_, Tensor::Vector<int64_t>({-1}))}});
  Fill("LookupTableInsertV2", "insert_empty", t, Tensor::Vector<int64_t>({0}),
       Tensor::Vector<float>({1}));
  Find("find", t, Tensor::Vector<int64_t>({5, 13, 21, 4}), Tensor::Scalar<float>(-1));
  root_.WithOpName("size").AddOp("LookupTableSizeV2", {{t}});
  Operation exported = root_.WithOpName("export").AddOp(
      "LookupTableExportV2", {{t}},
      {{"Tkeys", MakeAttrValue(DT_INT64)}, {"Tvalues", MakeAttrValue(DT_FLOAT)}});
  Start();
  ASSERT_OK(Run("insert"));
  ASSERT_OK(Run("remove"));
  std::vector<Tensor> out;
  ASSERT_OK(session_->Run({}, {exported.output(0).name(), exported.output(1).name(), "size:0"},
                          {}, &out));
  // Seven keys outgrow 8 buckets at a load of 0.8: 16, each key at its
  // value modulo 16 or the next free bucket on its probes (21 after 5); 13
  // removed leaves the deleted key. What TensorFlow 2.21 exports.
  EXPECT_EQ(out[0].shape().DebugString(), "[16,1]");
  EXPECT_EQ(out[0].SummarizeValue(16), "0 0 0 3 100 5 21 7 0 9 0 0 0 -1 0 0");
  EXPECT_EQ(out[1].SummarizeValue(16), "0 0 0 3 7 1 4 5 0 6 0 0 0 2 0 0");
  EXPECT_EQ(out[2].SummarizeValue(1), "6");
  ASSERT_OK_AND_ASSIGN(Tensor found, Fetch("find"));
  EXPECT_EQ(found.SummarizeValue(4), "1 -1 4 -1");
  EXPECT_THAT(Run("remove_deleted"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("Using the deleted_key as a table key is not allowed")));
  EXPECT_THAT(Run("insert_empty"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("Using the empty_key as a table key is not allowed")));
}

TEST_F(LookupTest, DenseTableRestoresBucketsAndRefusesBadOnes) {
  Output t = DenseTable(root_, "dense", 4);
  auto buckets = [](std::initializer_list<int64_t> keys) {
    Tensor k(DT_INT64, TensorShape({static_cast<int64_t>(keys.size()), 1}));
    Tensor v(DT_FLOAT, TensorShape({static_cast<int64_t>(keys.size()), 1}));
    int i = 0;
    for (int64_t key : keys) {
      k.data<int64_t>()[i] = key;
      v.data<float>()[i++] = static_cast<float>(key) / 2;
    }
    return std::make_pair(k, v);
  };
  auto [keys, values] = buckets({0, 9, 0, -1, 4, 0});  // 6 buckets: TensorFlow takes them
  Fill("LookupTableImportV2", "import", t, keys, values);
  auto [full, full_values] = buckets({1, 2, 3, 4});
  Fill("LookupTableImportV2", "import_full", t, full, full_values);
  Fill("LookupTableImportV2", "import_flat", t, Tensor::Vector<int64_t>({1, 2}),
       Tensor::Vector<float>({1}));
  Fill("LookupTableImportV2", "import_values", t, keys, Tensor::Vector<float>({1, 2}));
  Find("find", t, Tensor::Vector<int64_t>({4, 9, 7}), Tensor::Scalar<float>(-1));
  root_.WithOpName("size").AddOp("LookupTableSizeV2", {{t}});
  Fill("LookupTableInsertV2", "insert", t, Tensor::Vector<int64_t>({11, 12, 13}),
       Tensor::Vector<float>({1, 2, 3}));
  Start();
  ASSERT_OK(Run("import"));
  ASSERT_OK_AND_ASSIGN(Tensor found, Fetch("find"));
  EXPECT_EQ(found.SummarizeValue(3), "2 4.5 -1");
  ASSERT_OK_AND_ASSIGN(Tensor size, Fetch("size"));
  EXPECT_EQ(size.SummarizeValue(1), "2");
  // Five entries outgrow 6 buckets; 12 are what TensorFlow refuses too.
  EXPECT_THAT(Run("insert"), StatusIs(absl::StatusCode::kInvalidArgument,
                                      HasSubstr("at least 4 and a power of 2, got: 12")));
  EXPECT_THAT(Run("import_values"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("Expected shape [6,1] for value, got [2]")));
  EXPECT_THAT(Run("import_flat"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("restores from its buckets: keys of shape [N,1] with N >= 1, "
                                 "got [2]")));
  // Every bucket taken: a missing key's probes find no end.
  ASSERT_OK(Run("import_full"));
  EXPECT_THAT(Fetch("find").status(),
              StatusIs(absl::StatusCode::kInternal,
                       HasSubstr("Internal error in MutableDenseHashTable lookup")));
}

TEST_F(LookupTest, DenseTableRefusesWhatTensorFlowRefuses) {
  auto table = [&](const std::string& name, Tensor empty, Tensor deleted, int64_t buckets,
                   float load) {
    root_.WithOpName(name).AddOp(
        "MutableDenseHashTableV2",
        {{ops::Const(root_, empty)}, {ops::Const(root_, deleted)}},
        {{"key_dtype", MakeAttrValue(DT_INT64)},
         {"value_dtype", MakeAttrValue(DT_FLOAT)},
         {"initial_num_buckets", MakeAttrValue(buckets)},
         {"max_load_factor", MakeAttrValue(load)}});
  };
  const Tensor zero = Tensor::Scalar<int64_t>(0), one = Tensor::Scalar<int64_t>(1);
  table("six_buckets", zero, one, 6, 0.8f);
  table("same_keys", one, one, 8, 0.8f);
  table("full_load", zero, one, 8, 1.0f);
  table("shapes", Tensor::Vector<int64_t>({0, 0}), one, 8, 0.8f);
  Start();
  EXPECT_THAT(Run("six_buckets"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("Number of buckets must be at least 4 and a power of 2, got: 6")));
  EXPECT_THAT(Run("same_keys"), StatusIs(absl::StatusCode::kInvalidArgument,
                                         HasSubstr("Empty and deleted keys cannot be equal")));
  EXPECT_THAT(Run("full_load"), StatusIs(absl::StatusCode::kInvalidArgument,
                                         HasSubstr("max_load_factor must be between 0 and 1, "
                                                   "got: 1")));
  EXPECT_THAT(Run("shapes"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("Empty and deleted keys must have same shape, got shapes: [2] "
                                 "and []")));
}

}  // namespace
}  // namespace minigraph
