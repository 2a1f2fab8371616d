// The README's example, compiled by the tests so it cannot drift.
#include <cstdio>

#include "core/env.h"
#include "runtime/cc/ops.h"
#include "runtime/cc/optimizers.h"
#include "runtime/cc/variables.h"
#include "session/saver.h"
#include "session/session_manager.h"
using namespace minigraph;

int main() {
  Scope root = Scope::NewRootScope();
  Output x = ops::Placeholder(root.WithOpName("x"), DT_FLOAT, PartialShape({8, 4}));
  Output y = ops::Placeholder(root.WithOpName("y"), DT_FLOAT, PartialShape({8, 1}));
  Variable w = Variable::Create(root, "w", ops::Const<float>(root, {0.f}, TensorShape({4, 1})));
  Output err = ops::Sub(root, ops::MatMul(root, x, w.value()), y);
  Output loss =
      ops::Mean(root.WithOpName("loss"), ops::Square(root, err), ops::Const<int32_t>(root, {0, 1}));
  Variable step = GetOrCreateGlobalStep(root);
  AdamOptimizer adam(0.05);
  Operation train = *adam.Minimize(root, loss, {}, &step);
  Operation init = GlobalVariablesInitializer(root);
  auto saver = *Saver::Create(root);
  auto sm = *SessionManager::Create(*root.ToGraphDef(), {});
  (void)Env::Default()->CreateDir("/tmp/my_run");
  SessionManager::PrepareOptions p;
  p.init_op = {init.name()};
  p.saver = saver.get();
  p.checkpoint_dir = "/tmp/my_run";  // restores the newest checkpoint if there is one
  auto session = *sm->PrepareSession("", p);
  Tensor xs(DT_FLOAT, TensorShape({8, 4})), ys(DT_FLOAT, TensorShape({8, 1}));
  float* x_data = xs.data<float>();
  float* y_data = ys.data<float>();
  for (int i = 0; i < 8; ++i) {  // y is the sum of x's row
    y_data[i] = 0;
    for (int j = 0; j < 4; ++j) y_data[i] += x_data[i * 4 + j] = (i * 4 + j) % 7 * 0.1f;
  }
  std::vector<Tensor> out;
  for (int i = 0; i < 200; ++i)
    (void)session->Run({{"x", xs}, {"y", ys}}, {"loss"}, {train.name()}, &out);
  std::printf("loss %g, saved %s\n", *out[0].data<float>(),
              saver->Save(session.get(), "/tmp/my_run/model.ckpt", {.global_step = 200})->c_str());
}
