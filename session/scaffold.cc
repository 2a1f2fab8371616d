#include "session/scaffold.h"

#include "absl/strings/str_cat.h"
#include "core/path.h"
#include "core/status_macros.h"
#include "runtime/cc/ops.h"
#include "runtime/cc/optimizers.h"
#include "runtime/cc/summary.h"
#include "runtime/cc/variables.h"

namespace minigraph {
namespace {

// The collection's single element, nullopt when it is empty.
absl::StatusOr<std::optional<std::string>> FromCollection(const Scope& scope,
                                                          const std::string& key,
                                                          absl::string_view option) {
  const std::vector<std::string> items = scope.GetCollection(key);
  if (items.size() > 1) {
    return absl::FailedPreconditionError(absl::StrCat(
        "More than one item in the collection \"", key, "\" (", items.size(),
        "). Say which one to use through ScaffoldOptions::", option, "."));
  }
  if (items.empty()) return std::nullopt;
  return items[0];
}

// Fills `op` from the collection `key`, else with `make()`'s name, which is
// recorded in the collection.
absl::Status GetOrDefault(const Scope& scope, const std::string& key, absl::string_view option,
                          const std::function<std::string()>& make,
                          std::vector<std::string>* op) {
  if (!op->empty()) return absl::OkStatus();
  MG_ASSIGN_OR_RETURN(std::optional<std::string> item, FromCollection(scope, key, option));
  if (!item) {
    item = make();
    MG_RETURN_IF_ERROR(scope.status());
    scope.AddToCollection(key, *item);
  }
  *op = {*item};
  return absl::OkStatus();
}

// concat([report_uninitialized_variables(vars), report_uninitialized_resources()], 0);
// with no resources the second is an empty string constant.
Output ReadyReport(const Scope& scope, const std::vector<Variable>* vars) {
  Output variables = vars != nullptr ? ReportUninitializedVariables(scope, *vars)
                                     : ReportUninitializedVariables(scope);
  Output resources = ops::Const(scope.NewSubScope("report_uninitialized_resources"),
                                Tensor(DT_STRING, TensorShape({0})));
  // "concat/axis", then "concat" itself (uniquified as a whole: "concat_1").
  const Scope concat = scope.NewSubScope("concat");
  Output axis = ops::Const<int32_t>(concat.WithOpName("axis"), 0);
  return ops::ConcatV2(scope.WithOpName(absl::StrCat(Basename(concat.prefix()), "/")),
                       {variables, resources}, axis);
}

}  // namespace

absl::StatusOr<Scaffold> Scaffold::Finalize(const Scope& scope, ScaffoldOptions options) {
  MG_RETURN_IF_ERROR(scope.status());
  Scaffold s;
  MG_RETURN_IF_ERROR(GetOrDefault(scope, kInitOpCollection, "init_op", [&] {
    return ops::Group(scope.WithOpName("group_deps"), {GlobalVariablesInitializer(scope)}).name();
  }, &options.init_op));
  MG_RETURN_IF_ERROR(GetOrDefault(scope, kReadyOpCollection, "ready_op", [&] {
    return ReadyReport(scope, nullptr).tensor_name();
  }, &options.ready_op));
  MG_RETURN_IF_ERROR(GetOrDefault(
      scope, kReadyForLocalInitOpCollection, "ready_for_local_init_op", [&] {
        const std::vector<Variable> globals = GlobalVariables(scope);
        return ReadyReport(scope, &globals).tensor_name();
      }, &options.ready_for_local_init_op));
  MG_RETURN_IF_ERROR(GetOrDefault(scope, kLocalInitOpCollection, "local_init_op", [&] {
    return ops::Group(scope.WithOpName("group_deps"), {LocalVariablesInitializer(scope)}).name();
  }, &options.local_init_op));
  if (options.saver == nullptr) {
    MG_ASSIGN_OR_RETURN(std::optional<std::string> def,
                        FromCollection(scope, kSaversCollection, "saver"));
    if (def) {
      SaverDef saver_def;
      if (!saver_def.ParseFromString(*def)) {
        return absl::InvalidArgumentError(
            absl::StrCat("the \"", kSaversCollection, "\" collection holds a malformed SaverDef"));
      }
      s.owned_saver_ = Saver::FromSaverDef(saver_def, options.env);
    } else {
      SaverOptions saver_options;
      saver_options.num_shards = 1;  // TensorFlow's sharded=True on one device
      saver_options.allow_empty = true;
      MG_ASSIGN_OR_RETURN(std::unique_ptr<Saver> saver,
                          Saver::Create(scope, saver_options, options.env));
      scope.AddBytesToCollection(kSaversCollection, saver->saver_def().SerializeAsString());
      s.owned_saver_ = std::move(saver);
    }
    options.saver = s.owned_saver_.get();
  }
  if (options.summary_op.empty()) {
    MG_ASSIGN_OR_RETURN(std::optional<std::string> op,
                        FromCollection(scope, summary::kSummaryOpCollection, "summary_op"));
    if (!op) {
      std::optional<Output> merged = summary::MergeAll(scope);
      MG_RETURN_IF_ERROR(scope.status());
      if (merged) {
        op = merged->tensor_name();
        scope.AddToCollection(summary::kSummaryOpCollection, *op);
      }
    }
    if (op) options.summary_op = {*op};
  }
  // The collection holds the variable's name (minigraph's) or its
  // VariableDef (TensorFlow's, in an imported meta graph).
  for (const std::string& entry : scope.GetCollection(kGlobalStepCollection)) {
    for (const Variable& v : GlobalVariables(scope)) {
      if (v.name() == entry) s.global_step_ = v.value().tensor_name();
    }
    VariableDef def;
    if (s.global_step_.empty() && def.ParseFromString(entry) && !def.variable_name().empty()) {
      if (absl::StatusOr<Variable> v = Variable::FromDef(scope, def); v.ok()) {
        s.global_step_ = v->value().tensor_name();
      }
    }
  }
  MG_ASSIGN_OR_RETURN(s.meta_graph_, scope.ToMetaGraphDef());
  s.options_ = std::move(options);
  return s;
}

namespace {

absl::StatusOr<std::unique_ptr<SessionManager>> ManagerFor(const Scaffold& scaffold,
                                                           absl::Duration recovery_wait) {
  SessionManager::Options o;
  o.local_init_op = scaffold.local_init_op();
  o.ready_op = scaffold.ready_op();
  o.ready_for_local_init_op = scaffold.ready_for_local_init_op();
  o.local_init_feed_dict = scaffold.options().local_init_feed_dict;
  o.recovery_wait = recovery_wait;
  o.env = scaffold.options().env;
  return SessionManager::Create(scaffold.graph(), std::move(o));
}

}  // namespace

absl::StatusOr<std::unique_ptr<Session>> CreateChiefSession(const Scaffold& scaffold,
                                                            const std::string& master,
                                                            const std::string& checkpoint_dir,
                                                            SessionOptions config,
                                                            absl::Duration recovery_wait) {
  MG_ASSIGN_OR_RETURN(std::unique_ptr<SessionManager> sm, ManagerFor(scaffold, recovery_wait));
  SessionManager::PrepareOptions p;
  p.init_op = scaffold.init_op();
  p.init_feed_dict = scaffold.options().init_feed_dict;
  p.init_fn = scaffold.options().init_fn;
  p.saver = scaffold.saver();
  p.checkpoint_dir = checkpoint_dir;
  config.env = scaffold.options().env;
  p.config = std::move(config);
  return sm->PrepareSession(master, p);
}

absl::StatusOr<std::unique_ptr<Session>> CreateWorkerSession(const Scaffold& scaffold,
                                                             const std::string& master,
                                                             SessionOptions config,
                                                             absl::Duration max_wait,
                                                             absl::Duration recovery_wait) {
  MG_ASSIGN_OR_RETURN(std::unique_ptr<SessionManager> sm, ManagerFor(scaffold, recovery_wait));
  config.env = scaffold.options().env;
  return sm->WaitForSession(master, std::move(config), max_wait);
}

}  // namespace minigraph
