// Lookup tables (HashTableV2, MutableHashTableV2 and the ops on them)
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
  Start();
  EXPECT_THAT(Fetch("find").status(),
              StatusIs(absl::StatusCode::kFailedPrecondition, HasSubstr("Table not initialized.")));
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

}  // namespace
}  // namespace minigraph
