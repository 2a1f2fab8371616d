// Optimizers: the first steps against TensorFlow's update equations worked by
// hand, slot names, and an MLP whose loss falls under gradient descent.
#include "runtime/cc/optimizers.h"

#include <cmath>
#include <functional>
#include <memory>
#include <random>

#include "absl/strings/str_cat.h"
#include "core/status_macros.h"
#include "core/status_matchers.h"
#include "core/tensor_types.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "runtime/cc/ops.h"
#include "runtime/cc/variables.h"
#include "session/session.h"

namespace minigraph {
namespace {

using ::testing::HasSubstr;

struct Fixture {
  // loss = sum(w^2), so the gradient is 2w.
  explicit Fixture(bool use_resource = false) {
    w = Variable::Create(root, "w", Tensor::Vector<double>({1.0, -2.0}),
                         {.use_resource = use_resource});
    loss = ops::Sum(root.WithOpName("loss"), ops::Square(root, w.value()),
                    ops::Const<int32_t>(root, 0));
    step = GetOrCreateGlobalStep(root);
  }
  void Start(const Operation& train_op) {
    train = train_op;
    init = GlobalVariablesInitializer(root);
    auto s = NewSession(SessionOptions());
    ASSERT_OK(s.status());
    session = *std::move(s);
    ASSERT_OK(session->Create(*root.ToGraphDef()));
    std::vector<Tensor> out;
    ASSERT_OK(session->Run({}, {}, {init.name()}, &out));
  }
  std::vector<double> Step() {
    std::vector<Tensor> out;
    EXPECT_OK(session->Run({}, {}, {train.name()}, &out));
    EXPECT_OK(session->Run({}, {w.value().name()}, {}, &out));
    return {out[0].data<double>()[0], out[0].data<double>()[1]};
  }
  std::string Value(const std::string& name) {
    std::vector<Tensor> out;
    absl::Status s = session->Run({}, {name}, {}, &out);
    return s.ok() ? out[0].SummarizeValue(4) : std::string(s.message());
  }
  Scope root = Scope::NewRootScope();
  Variable w, step;
  Output loss;
  Operation train, init;
  std::unique_ptr<Session> session;
};

TEST(OptimizersTest, GradientDescentFirstThreeSteps) {
  Fixture f;
  GradientDescentOptimizer sgd(0.1);
  ASSERT_OK_AND_ASSIGN(Operation train, sgd.Minimize(f.root, f.loss, {}, &f.step));
  EXPECT_EQ(train.name(), "GradientDescent");
  f.Start(train);
  double w[2] = {1.0, -2.0};
  for (int step = 1; step <= 3; ++step) {
    for (double& x : w) x -= 0.1 * 2 * x;
    auto got = f.Step();
    EXPECT_NEAR(got[0], w[0], 1e-12);
    EXPECT_NEAR(got[1], w[1], 1e-12);
    EXPECT_EQ(f.Value("global_step/read"), std::to_string(step));
  }
}

TEST(OptimizersTest, MomentumFirstThreeStepsWithAndWithoutNesterov) {
  for (bool nesterov : {false, true}) {
    Fixture f;
    MomentumOptimizer opt(0.1, 0.9, nesterov);
    ASSERT_OK_AND_ASSIGN(Operation train, opt.Minimize(f.root, f.loss, {}, &f.step));
    f.Start(train);
    EXPECT_EQ(f.Value("w/Momentum/read"), "0 0");
    double w[2] = {1.0, -2.0}, accum[2] = {0, 0};
    for (int step = 1; step <= 3; ++step) {
      for (int i = 0; i < 2; ++i) {
        const double g = 2 * w[i];
        accum[i] = accum[i] * 0.9 + g;
        w[i] -= nesterov ? (g * 0.1 + accum[i] * 0.9 * 0.1) : 0.1 * accum[i];
      }
      auto got = f.Step();
      EXPECT_NEAR(got[0], w[0], 1e-12) << "nesterov=" << nesterov << " step " << step;
      EXPECT_NEAR(got[1], w[1], 1e-12);
    }
  }
}

TEST(OptimizersTest, AdamFirstThreeStepsAndSlotNames) {
  Fixture f;
  AdamOptimizer adam(0.01, 0.9, 0.999, 1e-8);
  ASSERT_OK_AND_ASSIGN(Operation train, adam.Minimize(f.root, f.loss, {}, &f.step));
  f.Start(train);
  std::set<std::string> names;
  for (const Variable& v : GlobalVariables(f.root)) names.insert(v.name());
  for (const char* n : {"w", "w/Adam", "w/Adam_1", "beta1_power", "beta2_power", "global_step"}) {
    EXPECT_TRUE(names.count(n)) << n;
  }
  EXPECT_EQ(TrainableVariables(f.root).size(), 1u);
  double w[2] = {1.0, -2.0}, m[2] = {0, 0}, v[2] = {0, 0}, b1p = 0.9, b2p = 0.999;
  for (int step = 1; step <= 3; ++step) {
    const double alpha = 0.01 * std::sqrt(1 - b2p) / (1 - b1p);
    for (int i = 0; i < 2; ++i) {
      const double g = 2 * w[i];
      m[i] += (g - m[i]) * (1 - 0.9);
      v[i] += (g * g - v[i]) * (1 - 0.999);
      w[i] -= alpha * m[i] / (std::sqrt(v[i]) + 1e-8);
    }
    b1p *= 0.9;
    b2p *= 0.999;
    auto got = f.Step();
    EXPECT_NEAR(got[0], w[0], 1e-12) << "step " << step;
    EXPECT_NEAR(got[1], w[1], 1e-12);
    EXPECT_EQ(f.Value("beta1_power/read"), absl::StrCat(b1p));
    EXPECT_EQ(f.Value("global_step/read"), std::to_string(step));
  }
}

TEST(OptimizersTest, RMSPropFirstThreeStepsAndSlotNames) {
  Fixture f;
  RMSPropOptimizer opt(0.01, 0.9, 0.5, 1e-10);
  ASSERT_OK_AND_ASSIGN(Operation train, opt.Minimize(f.root, f.loss, {}, &f.step));
  f.Start(train);
  EXPECT_EQ(f.Value("w/RMSProp/read"), "1 1");  // TensorFlow 1.x starts the mean square at 1
  EXPECT_EQ(f.Value("w/RMSProp_1/read"), "0 0");
  double w[2] = {1.0, -2.0}, ms[2] = {1, 1}, mom[2] = {0, 0};
  for (int step = 1; step <= 3; ++step) {
    for (int i = 0; i < 2; ++i) {
      const double g = 2 * w[i];
      ms[i] += (g * g - ms[i]) * (1 - 0.9);
      mom[i] = mom[i] * 0.5 + g * 0.01 / std::sqrt(ms[i] + 1e-10);
      w[i] -= mom[i];
    }
    auto got = f.Step();
    EXPECT_NEAR(got[0], w[0], 1e-12) << "step " << step;
    EXPECT_NEAR(got[1], w[1], 1e-12);
  }
}

TEST(OptimizersTest, AdagradFirstThreeStepsAndSlotNames) {
  Fixture f;
  AdagradOptimizer opt(0.1, 0.1);
  ASSERT_OK_AND_ASSIGN(Operation train, opt.Minimize(f.root, f.loss, {}, &f.step));
  f.Start(train);
  EXPECT_EQ(f.Value("w/Adagrad/read"), "0.1 0.1");
  double w[2] = {1.0, -2.0}, accum[2] = {0.1, 0.1};
  for (int step = 1; step <= 3; ++step) {
    for (int i = 0; i < 2; ++i) {
      const double g = 2 * w[i];
      accum[i] += g * g;
      w[i] -= g * 0.1 / std::sqrt(accum[i]);
    }
    auto got = f.Step();
    EXPECT_NEAR(got[0], w[0], 1e-12) << "step " << step;
    EXPECT_NEAR(got[1], w[1], 1e-12);
  }
}

// Every optimizer updates a resource variable (ResourceApply*, resource
// slots) exactly as it updates a ref variable.
TEST(OptimizersTest, ResourceVariablesTrainExactlyAsRefVariables) {
  using Make = std::function<std::unique_ptr<Optimizer>()>;
  const std::vector<std::pair<std::string, Make>> optimizers = {
      {"ResourceApplyGradientDescent",
       [] { return std::make_unique<GradientDescentOptimizer>(0.1); }},
      {"ResourceApplyMomentum", [] { return std::make_unique<MomentumOptimizer>(0.1, 0.9, true); }},
      {"ResourceApplyAdam", [] { return std::make_unique<AdamOptimizer>(0.1); }},
      {"ResourceApplyRMSProp", [] { return std::make_unique<RMSPropOptimizer>(0.1); }},
      {"ResourceApplyAdagrad", [] { return std::make_unique<AdagradOptimizer>(0.1); }},
      {"ResourceApplyAdadelta", [] { return std::make_unique<AdadeltaOptimizer>(0.5); }},
      {"ResourceApplyFtrl",
       [] { return std::make_unique<FtrlOptimizer>(0.1, -0.5, 0.1, 0.01, 0.02); }},
  };
  for (const auto& [op, make] : optimizers) {
    Fixture ref(false), res(true);
    std::unique_ptr<Optimizer> a = make(), b = make();
    ASSERT_OK_AND_ASSIGN(Operation ta, a->Minimize(ref.root, ref.loss, {}, &ref.step));
    ASSERT_OK_AND_ASSIGN(Operation tb, b->Minimize(res.root, res.loss, {}, &res.step));
    ref.Start(ta);
    res.Start(tb);
    ASSERT_OK_AND_ASSIGN(GraphDef def, res.root.ToGraphDef());
    int updates = 0, slots = 0;
    for (const NodeDef& n : def.node()) {
      updates += n.op() == op;
      slots += n.op() == "VarHandleOp" && n.name() != "w";
    }
    EXPECT_EQ(updates, 1) << op;
    if (op != "ResourceApplyGradientDescent") {
      EXPECT_GT(slots, 0) << op << ": slots are resource variables too";
    }
    for (int step = 1; step <= 5; ++step) {
      EXPECT_EQ(ref.Step(), res.Step()) << op << " step " << step;
    }
    EXPECT_EQ(res.Value("global_step/read"), "5");
  }
}

TEST(OptimizersTest, AdadeltaFirstThreeStepsAndSlotNames) {
  Fixture f;
  AdadeltaOptimizer opt(0.5, 0.9, 1e-6);
  ASSERT_OK_AND_ASSIGN(Operation train, opt.Minimize(f.root, f.loss, {}, &f.step));
  f.Start(train);
  EXPECT_EQ(f.Value("w/Adadelta/read"), "0 0");
  EXPECT_EQ(f.Value("w/Adadelta_1/read"), "0 0");
  double w[2] = {1.0, -2.0}, accum[2] = {0, 0}, update_sq[2] = {0, 0};
  for (int step = 1; step <= 3; ++step) {
    for (int i = 0; i < 2; ++i) {
      const double g = 2 * w[i];
      accum[i] = accum[i] * 0.9 + g * g * 0.1;
      const double update = std::sqrt(update_sq[i] + 1e-6) / std::sqrt(accum[i] + 1e-6) * g;
      update_sq[i] = update_sq[i] * 0.9 + update * update * 0.1;
      w[i] -= 0.5 * update;
    }
    auto got = f.Step();
    EXPECT_NEAR(got[0], w[0], 1e-12);
    EXPECT_NEAR(got[1], w[1], 1e-12);
  }
}

TEST(OptimizersTest, FtrlFirstThreeStepsWithAndWithoutPowerHalf) {
  for (double power : {-0.5, -0.25}) {
    Fixture f;
    FtrlOptimizer opt(0.3, power, 0.1, 0.05, 0.1);
    ASSERT_OK_AND_ASSIGN(Operation train, opt.Minimize(f.root, f.loss, {}, &f.step));
    f.Start(train);
    EXPECT_EQ(f.Value("w/Ftrl/read"), "0.1 0.1");
    EXPECT_EQ(f.Value("w/Ftrl_1/read"), "0 0");
    double w[2] = {1.0, -2.0}, accum[2] = {0.1, 0.1}, linear[2] = {0, 0};
    for (int step = 1; step <= 3; ++step) {
      for (int i = 0; i < 2; ++i) {
        const double g = 2 * w[i];
        const double next = accum[i] + g * g;
        linear[i] += g - (std::pow(next, -power) - std::pow(accum[i], -power)) / 0.3 * w[i];
        const double quadratic = std::pow(next, -power) / 0.3 + 2 * 0.1;
        w[i] = std::abs(linear[i]) > 0.05
                   ? ((linear[i] > 0 ? 1 : -1) * 0.05 - linear[i]) / quadratic
                   : 0.0;
        accum[i] = next;
      }
      auto got = f.Step();
      EXPECT_NEAR(got[0], w[0], 1e-12) << power;
      EXPECT_NEAR(got[1], w[1], 1e-12) << power;
    }
  }
  Fixture f;
  FtrlOptimizer bad(0.1, 0.5);
  EXPECT_THAT(bad.Minimize(f.root, f.loss).status(),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("learning_rate_power")));
}

// SparseApplyFtrl (what Estimators' linear models train with) updates only
// the rows `indices` names, a repeated one once per occurrence, in order, by
// ApplyFtrl's equations; a ref variable and a resource variable the same.
TEST(OptimizersTest, SparseApplyFtrlUpdatesTheIndexedRowsInOrder) {
  const double lr = 0.3, l1 = 0.05, l2 = 0.1, power = -0.5;
  const std::vector<int64_t> indices = {2, 0, 2};
  const std::vector<double> grads = {1.0, -0.5, 2.0, 0.25, -1.5, 0.75};
  std::vector<double> w = {1.0, -2.0, 0.5, 0.5, 3.0, -1.0}, accum(6, 0.1), linear(6, 0.0);
  for (size_t i = 0; i < indices.size(); ++i) {
    for (int j = 0; j < 2; ++j) {
      const int64_t k = indices[i] * 2 + j;
      const double g = grads[i * 2 + j];
      const double next = accum[k] + g * g;
      linear[k] += g - (std::pow(next, -power) - std::pow(accum[k], -power)) / lr * w[k];
      const double quadratic = std::pow(next, -power) / lr + 2 * l2;
      w[k] =
          std::abs(linear[k]) > l1 ? ((linear[k] > 0 ? 1 : -1) * l1 - linear[k]) / quadratic : 0.0;
      accum[k] = next;
    }
  }
  for (bool resource : {false, true}) {
    Scope root = Scope::NewRootScope();
    auto matrix = [](std::vector<double> v) {
      Tensor t(DT_DOUBLE, TensorShape({3, 2}));
      std::copy(v.begin(), v.end(), t.data<double>());
      return t;
    };
    const VariableOptions opts{.use_resource = resource};
    Variable var = Variable::Create(root, "var", matrix({1.0, -2.0, 0.5, 0.5, 3.0, -1.0}), opts);
    Variable acc = Variable::Create(root, "accum", matrix(std::vector<double>(6, 0.1)), opts);
    Variable lin = Variable::Create(root, "linear", matrix(std::vector<double>(6, 0.0)), opts);
    Tensor g(DT_DOUBLE, TensorShape({3, 2}));
    std::copy(grads.begin(), grads.end(), g.data<double>());
    auto sparse_ftrl = [&](const Tensor& rows) {
      return root.AddOp(resource ? "ResourceSparseApplyFtrl" : "SparseApplyFtrl",
                        {{var.ref()},
                         {acc.ref()},
                         {lin.ref()},
                         {ops::Const(root, g)},
                         {ops::Const(root, rows)},
                         {ops::Const(root, lr)},
                         {ops::Const(root, l1)},
                         {ops::Const(root, l2)},
                         {ops::Const(root, power)}},
                        {});
    };
    Operation update = sparse_ftrl(Tensor::Vector<int64_t>({2, 0, 2}));
    // An index past the rows, and a gradient whose rows are not the
    // variable's, are errors that name them (run below).
    Operation bad_index = sparse_ftrl(Tensor::Vector<int32_t>({0, 3, 1}));
    Operation bad_grad = sparse_ftrl(Tensor::Vector<int32_t>({0, 1}));
    Operation init = GlobalVariablesInitializer(root);
    ASSERT_OK_AND_ASSIGN(std::unique_ptr<Session> session, NewSession(SessionOptions()));
    ASSERT_OK(session->Create(*root.ToGraphDef()));
    std::vector<Tensor> out;
    ASSERT_OK(session->Run({}, {}, {init.name()}, &out));
    ASSERT_OK(session->Run({}, {}, {update.name()}, &out));
    ASSERT_OK(session->Run({}, {var.value().name(), acc.value().name()}, {}, &out));
    for (int k = 0; k < 6; ++k) {
      EXPECT_NEAR(out[0].data<double>()[k], w[k], 1e-12) << "var element " << k << " " << resource;
      EXPECT_NEAR(out[1].data<double>()[k], accum[k], 1e-12) << "accum element " << k;
    }
    EXPECT_EQ(out[0].data<double>()[2], 0.5) << "row 1 is not in indices";

    EXPECT_THAT(session->Run({}, {}, {bad_index.name()}, &out),
                StatusIs(absl::StatusCode::kInvalidArgument,
                         HasSubstr("Index 3 at offset 1 in indices is out of range [0, 3)")));
    EXPECT_THAT(session->Run({}, {}, {bad_grad.name()}, &out),
                StatusIs(absl::StatusCode::kInvalidArgument,
                         HasSubstr("has shape [3,2] but the gradient of 2 rows has shape [3,2]")));
  }
}

// The updates tf.compat.v1.train's proximal, centered RMSProp, AdagradDA and
// sparse Adagrad optimizers use, one step on ref and on resource variables,
// against TensorFlow 2.21's results for the same inputs (float32).
TEST(OptimizersTest, ProximalCenteredAndDualAveragingUpdatesMatchTensorFlow) {
  const std::vector<float> start = {1.0f, -2.0f, 0.01f, 3.0f};
  const Tensor grad = Tensor::Vector<float>({0.5f, -1.0f, 0.25f, 2.0f});
  struct Case {
    std::string op;
    std::vector<std::vector<float>> slots;  // initial values, after var
    std::vector<Tensor> scalars;            // the inputs after the variables
    bool grad_first;                        // grad before the scalars
    std::vector<float> want;                // var after one step
  };
  auto f = [](float v) { return Tensor::Scalar<float>(v); };
  const std::vector<Case> cases = {
      {"ApplyProximalGradientDescent", {}, {f(0.1f), f(0.05f), f(0.2f)}, false,
       {0.9264705777168274f, -1.8578431606292725f, -0.009803921915590763f, 2.7401959896087646f}},
      {"ApplyProximalAdagrad", {{0.1f, 0.1f, 0.1f, 0.1f}}, {f(0.1f), f(0.05f), f(0.2f)}, false,
       {0.8773723840713501f, -1.864335060119629f, -0.03774139657616615f, 2.870405673980713f}},
      {"ApplyCenteredRMSProp",
       {{0, 0, 0, 0}, {1, 1, 1, 1}, {0, 0, 0, 0}},
       {f(0.01f), f(0.9f), f(0.5f), f(1e-7f)}, false,
       {0.9947941899299622f, -1.9899495840072632f, 0.007372965104877949f, 2.982182502746582f}},
      {"ApplyAdagradDA",
       {{0.3f, -0.2f, 0.0f, 1.0f}, {0.1f, 0.1f, 0.1f, 0.1f}},
       {f(0.1f), f(0.05f), f(0.2f), Tensor::Scalar<int64_t>(3)}, true,
       {-0.09975322335958481f, 0.09469623118638992f, -0.0215930063277483f,
        -0.13670077919960022f}},
  };
  for (bool resource : {false, true}) {
    for (const Case& c : cases) {
      SCOPED_TRACE(absl::StrCat(c.op, resource ? " (resource)" : ""));
      Scope root = Scope::NewRootScope();
      std::vector<std::vector<Output>> in;
      Variable var = Variable::Create(root, "var", Tensor::Vector<float>({1, -2, 0.01f, 3}),
                                      {.use_resource = resource});
      in.push_back({var.ref()});
      for (size_t i = 0; i < c.slots.size(); ++i) {
        Tensor t(DT_FLOAT, TensorShape({4}));
        std::copy(c.slots[i].begin(), c.slots[i].end(), t.data<float>());
        in.push_back({Variable::Create(root, absl::StrCat("slot", i), t,
                                       {.use_resource = resource}).ref()});
      }
      if (c.grad_first) in.push_back({ops::Const(root, grad)});
      for (const Tensor& t : c.scalars) in.push_back({ops::Const(root, t)});
      if (!c.grad_first) in.push_back({ops::Const(root, grad)});
      const std::string type = resource ? "Resource" + c.op : c.op;
      root.WithOpName("update").AddOp(type, in);
      Operation init = GlobalVariablesInitializer(root);
      ASSERT_OK_AND_ASSIGN(auto session, NewSession(SessionOptions()));
      ASSERT_OK(session->Create(*root.ToGraphDef()));
      std::vector<Tensor> out;
      ASSERT_OK(session->Run({}, {}, {init.name()}, &out));
      ASSERT_OK(session->Run({}, {}, {"update"}, &out));
      ASSERT_OK(session->Run({}, {var.value().name()}, {}, &out));
      for (int i = 0; i < 4; ++i) EXPECT_FLOAT_EQ(out[0].data<float>()[i], c.want[i]) << i;
    }
  }
  // Sparse Adagrad: one step on a 3x2 variable (0..5, accumulators 0.1)
  // with gradient rows [1 2] and [3 4] at `indices`; `out` gets var and accum.
  auto sparse_step = [](std::initializer_list<int32_t> indices, std::vector<Tensor>* out) {
    Scope root = Scope::NewRootScope();
    Tensor rows(DT_FLOAT, TensorShape({3, 2}));
    for (int i = 0; i < 6; ++i) rows.data<float>()[i] = static_cast<float>(i);
    Tensor tenths(DT_FLOAT, TensorShape({3, 2}));
    std::fill_n(tenths.data<float>(), 6, 0.1f);
    Tensor g(DT_FLOAT, TensorShape({2, 2}));
    const float gv[] = {1, 2, 3, 4};
    std::copy(gv, gv + 4, g.data<float>());
    Variable var = Variable::Create(root, "var", rows);
    Variable accum = Variable::Create(root, "accum", tenths);
    root.WithOpName("update").AddOp(
        "SparseApplyAdagrad", {{var.ref()}, {accum.ref()}, {ops::Const<float>(root, 0.1f)},
                               {ops::Const(root, g)}, {ops::Const<int32_t>(root, indices)}});
    Operation init = GlobalVariablesInitializer(root);
    MG_ASSIGN_OR_RETURN(auto session, NewSession(SessionOptions()));
    MG_RETURN_IF_ERROR(session->Create(*root.ToGraphDef()));
    MG_RETURN_IF_ERROR(session->Run({}, {}, {init.name()}, out));
    MG_RETURN_IF_ERROR(session->Run({}, {}, {"update"}, out));
    return session->Run({}, {var.value().name(), accum.value().name()}, {}, out);
  };
  // Row 2 updated twice, in order; the others untouched.
  std::vector<Tensor> out;
  ASSERT_OK(sparse_step({2, 2}, &out));
  const float want_var[] = {0, 1, 2, 3, 3.810256242752075f, 4.812006950378418f};
  const float want_accum[] = {0.1f, 0.1f, 0.1f, 0.1f, 10.100000381469727f, 20.100000381469727f};
  for (int i = 0; i < 6; ++i) {
    EXPECT_FLOAT_EQ(out[0].data<float>()[i], want_var[i]) << i;
    EXPECT_FLOAT_EQ(out[1].data<float>()[i], want_accum[i]) << i;
  }
  // An index out of range is InvalidArgument naming it.
  EXPECT_THAT(sparse_step({0, 3}, &out),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("Index 3 at offset 1")));
}

TEST(OptimizersTest, NothingToOptimizeIsAnError) {
  Scope root = Scope::NewRootScope();
  Output loss = ops::Const(root, 1.0f);
  GradientDescentOptimizer sgd(0.1);
  EXPECT_THAT(sgd.Minimize(root, loss), StatusIs(absl::StatusCode::kInvalidArgument));
}

// The MLP of the issue: 784-128-10, ReLU, softmax cross entropy, batch 32.
TEST(OptimizersTest, MlpLossFallsMonotonicallyUnderGradientDescent) {
  Scope root = Scope::NewRootScope();
  std::mt19937 rng(2024);
  std::normal_distribution<float> normal(0.f, 1.f);
  Tensor x(DT_FLOAT, TensorShape({32, 784}));
  for (int64_t i = 0; i < x.NumElements(); ++i) x.data<float>()[i] = normal(rng);
  Tensor labels(DT_INT64, TensorShape({32}));
  for (int i = 0; i < 32; ++i) labels.data<int64_t>()[i] = rng() % 10;
  auto init = [&](std::initializer_list<int64_t> dims, int seed, float stddev) {
    Tensor shape = Tensor::Vector<int64_t>(dims);
    return ops::Mul(root, ops::TruncatedNormal(root, ops::Const(root, shape), DT_FLOAT, 1, seed),
                    ops::Const(root, stddev));
  };
  Variable w1 = Variable::Create(root, "w1", init({784, 128}, 1, 0.05f));
  Tensor zeros128(DT_FLOAT, TensorShape({128})), zeros10(DT_FLOAT, TensorShape({10}));
  zeros128.flat<float>().setZero();
  zeros10.flat<float>().setZero();
  Variable b1 = Variable::Create(root, "b1", zeros128);
  Variable w2 = Variable::Create(root, "w2", init({128, 10}, 2, 0.05f));
  Variable b2 = Variable::Create(root, "b2", zeros10);
  Output input = ops::Placeholder(root.WithOpName("x"), DT_FLOAT, PartialShape({32, 784}));
  Output label = ops::Placeholder(root.WithOpName("labels"), DT_INT64, PartialShape({32}));
  Output h = ops::Relu(root, ops::BiasAdd(root, ops::MatMul(root, input, w1.value()), b1.value()));
  Output logits = ops::BiasAdd(root, ops::MatMul(root, h, w2.value()), b2.value());
  Output loss = ops::Mean(root.WithOpName("loss"),
                          ops::SparseSoftmaxCrossEntropyWithLogits(root, logits, label).loss,
                          ops::Const<int32_t>(root, 0));
  Variable step = GetOrCreateGlobalStep(root);
  GradientDescentOptimizer sgd(0.05);
  ASSERT_OK_AND_ASSIGN(Operation train, sgd.Minimize(root, loss, {}, &step));
  Operation init_op = GlobalVariablesInitializer(root);
  ASSERT_OK_AND_ASSIGN(auto sess, NewSession(SessionOptions()));
  ASSERT_OK(sess->Create(*root.ToGraphDef()));
  std::vector<Tensor> out;
  ASSERT_OK(sess->Run({}, {}, {init_op.name()}, &out));
  double previous = 1e9;
  for (int i = 0; i < 50; ++i) {
    ASSERT_OK(sess->Run({{"x", x}, {"labels", labels}}, {"loss"}, {train.name()}, &out));
    const double l = *out[0].data<float>();
    EXPECT_LT(l, previous) << "step " << i;
    previous = l;
  }
  ASSERT_OK(sess->Run({}, {"global_step/read"}, {}, &out));
  EXPECT_EQ(*out[0].data<int64_t>(), 50);
}

// A small CNN the way TensorFlow's Python builds one, in the C++ API:
// Conv2D, FusedBatchNormV3 (training), ReLU, MaxPool, Dropout, a dense
// layer, Adam, all on resource variables. Its loss on a fixed batch falls.
TEST(OptimizersTest, SmallCnnWithBatchNormAndDropoutTrains) {
  Scope root = Scope::NewRootScope();
  std::mt19937 rng(3);
  std::normal_distribution<float> normal(0, 1);
  auto random = [&](std::vector<int64_t> dims, float scale) {
    Tensor t(DT_FLOAT, TensorShape(dims));
    for (int64_t i = 0; i < t.NumElements(); ++i) t.data<float>()[i] = normal(rng) * scale;
    return t;
  };
  const VariableOptions res = {.use_resource = true};
  Variable filter = Variable::Create(root, "conv/kernel", random({3, 3, 1, 4}, 0.3f), res);
  Variable gamma = Variable::Create(root, "bn/gamma", Tensor::Vector<float>({1, 1, 1, 1}), res);
  Variable beta = Variable::Create(root, "bn/beta", Tensor::Vector<float>({0, 0, 0, 0}), res);
  Variable dense = Variable::Create(root, "dense/kernel", random({64, 3}, 0.1f), res);
  Tensor images = random({8, 8, 8, 1}, 1);
  Tensor labels(DT_INT64, TensorShape({8}));
  for (int i = 0; i < 8; ++i) labels.data<int64_t>()[i] = i % 3;
  Output x = ops::Const(root, images);
  Output conv = ops::Conv2D(root, x, filter.value(), {1, 1, 1, 1}, "SAME");
  Output empty = ops::Const(root, Tensor(DT_FLOAT, TensorShape({0})));
  auto bn = ops::FusedBatchNormV3(root, conv, gamma.value(), beta.value(), empty, empty);
  Output pooled = ops::MaxPool(root, ops::Relu(root, bn.y), {1, 2, 2, 1}, {1, 2, 2, 1}, "VALID");
  Output dropped = ops::Dropout(root, pooled, 0.1f, /*seed=*/7, /*seed2=*/1);
  Output flat = ops::Reshape(root, dropped, ops::Const<int32_t>(root, {8, 64}));
  Output logits = ops::MatMul(root, flat, dense.value());
  Output loss = ops::Mean(
      root.WithOpName("loss"),
      ops::SparseSoftmaxCrossEntropyWithLogits(root, logits, ops::Const(root, labels)).loss,
      ops::Const<int32_t>(root, 0));
  AdamOptimizer adam(0.05);
  ASSERT_OK_AND_ASSIGN(Operation train, adam.Minimize(root, loss));
  Operation init = GlobalVariablesInitializer(root);
  ASSERT_OK_AND_ASSIGN(GraphDef def, root.ToGraphDef());
  int batch_norm_grads = 0;
  for (const NodeDef& n : def.node()) batch_norm_grads += n.op() == "FusedBatchNormGradV3";
  EXPECT_EQ(batch_norm_grads, 1);
  ASSERT_OK_AND_ASSIGN(auto sess, NewSession(SessionOptions()));
  ASSERT_OK(sess->Create(def));
  std::vector<Tensor> out;
  ASSERT_OK(sess->Run({}, {}, {init.name()}, &out));
  ASSERT_OK(sess->Run({}, {"loss"}, {}, &out));
  const float first = *out[0].data<float>();
  for (int step = 0; step < 60; ++step) ASSERT_OK(sess->Run({}, {}, {train.name()}, &out));
  ASSERT_OK(sess->Run({}, {"loss"}, {}, &out));
  EXPECT_LT(*out[0].data<float>(), first * 0.5f) << "from " << first;
}

}  // namespace
}  // namespace minigraph
