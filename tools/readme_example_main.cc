// my_train.cc: y = x·w learned with Adam; a second run resumes from the first's checkpoint.
#include <cstdio>
#include <string>

#include "core/env.h"
#include "core/status_macros.h"
#include "runtime/cc/ops.h"
#include "runtime/cc/optimizers.h"
#include "runtime/cc/variables.h"
#include "session/saver.h"
#include "session/session_manager.h"
using namespace minigraph;

absl::Status Train(const std::string& dir) {
  Scope root = Scope::NewRootScope();
  Output x = ops::Placeholder(root.WithOpName("x"), DT_FLOAT, PartialShape({8, 4}));
  Output y = ops::Placeholder(root.WithOpName("y"), DT_FLOAT, PartialShape({8, 1}));
  Variable w = Variable::Create(root, "w", ops::Const<float>(root, {0.f}, TensorShape({4, 1})));
  Output err = ops::Sub(root, ops::MatMul(root, x, w.value()), y);
  Output loss =
      ops::Mean(root.WithOpName("loss"), ops::Square(root, err), ops::Const<int32_t>(root, {0, 1}));
  Variable step = GetOrCreateGlobalStep(root);
  MG_ASSIGN_OR_RETURN(Operation train, AdamOptimizer(0.05).Minimize(root, loss, {}, &step));
  Operation init = GlobalVariablesInitializer(root);
  MG_ASSIGN_OR_RETURN(std::unique_ptr<Saver> saver, Saver::Create(root));
  MG_ASSIGN_OR_RETURN(GraphDef graph, root.ToGraphDef());  // any error while building
  MG_ASSIGN_OR_RETURN(std::unique_ptr<SessionManager> manager, SessionManager::Create(graph, {}));
  MG_RETURN_IF_ERROR(Env::Default()->CreateDir(dir));  // and its parents
  SessionManager::PrepareOptions prepare;
  prepare.init_op = {init.name()};
  prepare.saver = saver.get();
  prepare.checkpoint_dir = dir;  // restores the newest checkpoint there, if any
  MG_ASSIGN_OR_RETURN(std::unique_ptr<Session> session, manager->PrepareSession("", prepare));

  Tensor xs(DT_FLOAT, TensorShape({8, 4})), ys(DT_FLOAT, TensorShape({8, 1}));
  for (int i = 0; i < 8; ++i) {  // y is the sum of x's row
    ys.data<float>()[i] = 0;
    for (int j = 0; j < 4; ++j) {
      ys.data<float>()[i] += xs.data<float>()[i * 4 + j] = (i * 4 + j) % 7 * 0.1f;
    }
  }
  std::vector<Tensor> loss_value, step_value;
  for (int i = 0; i < 100; ++i) {
    MG_RETURN_IF_ERROR(session->Run({{"x", xs}, {"y", ys}}, {"loss"}, {train.name()}, &loss_value));
  }
  MG_RETURN_IF_ERROR(session->Run({}, {step.name()}, {}, &step_value));
  const int64_t global_step = *step_value[0].data<int64_t>();
  MG_ASSIGN_OR_RETURN(std::string path, saver->Save(session.get(), dir + "/model.ckpt",
                                                    {.global_step = global_step}));
  std::printf("step %lld, loss %g, saved %s\n", static_cast<long long>(global_step),
              *loss_value[0].data<float>(), path.c_str());
  return absl::OkStatus();
}

int main(int argc, char** argv) {
  absl::Status s = Train(argc > 1 ? argv[1] : "/tmp/my_run");
  if (!s.ok()) std::fprintf(stderr, "my_train: %s\n", s.ToString().c_str());
  return s.ok() ? 0 : 1;
}
