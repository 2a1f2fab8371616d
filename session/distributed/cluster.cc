#include "session/distributed/cluster.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <map>
#include <set>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "core/status_macros.h"
#include "core/text_proto.h"
#include "google/protobuf/struct.pb.h"
#include "google/protobuf/util/json_util.h"

namespace minigraph {
namespace {

// HOST:PORT, HOST may be a bracketed IPv6 literal ("[::1]:2222").
absl::Status ValidateAddress(absl::string_view address) {
  const size_t colon = address.rfind(':');
  uint32_t port = 0;
  if (colon == absl::string_view::npos || colon == 0 ||
      !absl::SimpleAtoi(address.substr(colon + 1), &port) || port > 65535) {
    return absl::InvalidArgumentError(
        absl::StrCat("'", address, "' is not HOST:PORT with a port in 0..65535"));
  }
  return absl::OkStatus();
}

const tensorflow::JobDef* FindJob(const tensorflow::ClusterDef& cluster, absl::string_view job) {
  for (const tensorflow::JobDef& j : cluster.job()) {
    if (j.name() == job) return &j;
  }
  return nullptr;
}

std::vector<std::string> JobNames(const tensorflow::ClusterDef& cluster) {
  std::vector<std::string> names;
  for (const tensorflow::JobDef& j : cluster.job()) names.push_back(j.name());
  return names;
}

}  // namespace

absl::Status ValidateCluster(const tensorflow::ClusterDef& cluster) {
  std::set<std::string> seen;
  // Each task listens on its own address; two tasks given one would fight
  // over the port, and the loser's calls reach the winner. Port 0 ("any
  // free port") is the exception.
  std::map<std::string, std::string> task_at;
  for (const tensorflow::JobDef& job : cluster.job()) {
    if (job.name().empty()) return absl::InvalidArgumentError("cluster: a job has no name");
    for (char c : job.name()) {
      if (!absl::ascii_isalnum(c) && c != '_' && c != '-') {
        return absl::InvalidArgumentError(absl::StrCat(
            "cluster: job name '", job.name(), "' may use only letters, digits, '_' and '-'"));
      }
    }
    if (!seen.insert(job.name()).second) {
      return absl::InvalidArgumentError(
          absl::StrCat("cluster: job '", job.name(), "' appears twice"));
    }
    if (job.tasks().empty()) {
      return absl::InvalidArgumentError(
          absl::StrCat("cluster: job '", job.name(), "' has no tasks"));
    }
    for (int i = 0; i < job.tasks_size(); ++i) {
      auto it = job.tasks().find(i);
      if (it == job.tasks().end()) {
        return absl::InvalidArgumentError(absl::StrCat(
            "cluster: job '", job.name(), "' has ", job.tasks_size(), " tasks but no task ", i,
            " (task indices must be 0..", job.tasks_size() - 1, ")"));
      }
      absl::Status s = ValidateAddress(it->second);
      if (!s.ok()) {
        return absl::InvalidArgumentError(
            absl::StrCat("cluster: /job:", job.name(), "/task:", i, ": ", s.message()));
      }
      const std::string task = absl::StrCat("/job:", job.name(), "/task:", i);
      if (!absl::EndsWith(it->second, ":0")) {
        auto [other, inserted] = task_at.emplace(it->second, task);
        if (!inserted) {
          return absl::InvalidArgumentError(absl::StrCat("cluster: ", other->second, " and ", task,
                                                         " have the same address ", it->second));
        }
      }
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<tensorflow::ClusterDef> ParseClusterSpec(absl::string_view spec) {
  tensorflow::ClusterDef cluster;
  for (absl::string_view part : absl::StrSplit(spec, ';', absl::SkipWhitespace())) {
    part = absl::StripAsciiWhitespace(part);
    const size_t eq = part.find('=');
    if (eq == absl::string_view::npos) {
      return absl::InvalidArgumentError(
          absl::StrCat("cluster spec: '", part, "' is not JOB=HOST:PORT[,HOST:PORT...]"));
    }
    tensorflow::JobDef* job = cluster.add_job();
    job->set_name(std::string(absl::StripAsciiWhitespace(part.substr(0, eq))));
    int index = 0;
    for (absl::string_view addr : absl::StrSplit(part.substr(eq + 1), ',')) {
      (*job->mutable_tasks())[index++] = std::string(absl::StripAsciiWhitespace(addr));
    }
  }
  if (cluster.job().empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat("cluster spec '", spec, "' names no job (expected JOB=HOST:PORT;...)"));
  }
  MG_RETURN_IF_ERROR(ValidateCluster(cluster));
  return cluster;
}

absl::StatusOr<tensorflow::ClusterDef> ReadClusterFile(Env* env, const std::string& path) {
  MG_ASSIGN_OR_RETURN(std::string text, ReadFileToString(env, path));
  tensorflow::ClusterDef cluster;
  if (absl::Status parsed = ParseTextProto(text, &cluster); !parsed.ok()) {
    return absl::InvalidArgumentError(absl::StrCat(
        path, ": not a ClusterDef in protobuf text format (", parsed.message(), ")"));
  }
  absl::Status s = ValidateCluster(cluster);
  if (!s.ok()) return absl::InvalidArgumentError(absl::StrCat(path, ": ", s.message()));
  return cluster;
}

absl::StatusOr<std::string> TaskAddress(const tensorflow::ClusterDef& cluster,
                                        absl::string_view job, int task_index) {
  const tensorflow::JobDef* j = FindJob(cluster, job);
  if (j == nullptr) {
    return absl::NotFoundError(absl::StrCat(
        "cluster has no job '", job, "' (jobs: ", absl::StrJoin(JobNames(cluster), ", "), ")"));
  }
  auto it = j->tasks().find(task_index);
  if (it == j->tasks().end()) {
    return absl::NotFoundError(absl::StrCat("cluster has no task ", task_index, " in job '", job,
                                            "' (it has ", j->tasks_size(), ")"));
  }
  return it->second;
}

std::string TaskName(absl::string_view job, int task_index) {
  return absl::StrCat("/job:", job, "/replica:0/task:", task_index);
}

std::string TaskDeviceName(absl::string_view job, int task_index) {
  return absl::StrCat(TaskName(job, task_index), "/device:CPU:0");
}

absl::StatusOr<DeviceSpec> ParseDeviceSpec(absl::string_view device) {
  DeviceSpec spec;
  auto bad = [&](absl::string_view part) {
    return absl::InvalidArgumentError(
        absl::StrCat("device '", device, "': cannot read '", part,
                     "' (expected /job:NAME/replica:N/task:N/device:CPU:N)"));
  };
  for (absl::string_view part : absl::StrSplit(device, '/', absl::SkipEmpty())) {
    std::vector<absl::string_view> kv = absl::StrSplit(part, ':');
    if (kv.size() == 2 && kv[0] == "job") {
      if (kv[1].empty()) return bad(part);
      spec.job = std::string(kv[1]);
    } else if (kv.size() == 2 && kv[0] == "replica") {
      if (!absl::SimpleAtoi(kv[1], &spec.replica)) return bad(part);
    } else if (kv.size() == 2 && kv[0] == "task") {
      if (!absl::SimpleAtoi(kv[1], &spec.task)) return bad(part);
    } else if (kv.size() == 3 && kv[0] == "device") {
      // device:CPU:0, or device:CPU:* for any.
      spec.type = absl::AsciiStrToUpper(kv[1]);
      if (kv[2] != "*" && !absl::SimpleAtoi(kv[2], &spec.id)) return bad(part);
    } else if (kv.size() == 2 &&
               (absl::EqualsIgnoreCase(kv[0], "cpu") || absl::EqualsIgnoreCase(kv[0], "gpu"))) {
      // The legacy short form "/cpu:0".
      spec.type = absl::AsciiStrToUpper(kv[0]);
      if (kv[1] != "*" && !absl::SimpleAtoi(kv[1], &spec.id)) return bad(part);
    } else {
      return bad(part);
    }
  }
  return spec;
}

std::string ClusterSpecString(const tensorflow::ClusterDef& cluster) {
  std::vector<std::string> jobs;
  for (const tensorflow::JobDef& job : cluster.job()) {
    std::map<int, std::string> sorted(job.tasks().begin(), job.tasks().end());
    std::vector<std::string> addrs;
    for (const auto& [i, a] : sorted) addrs.push_back(a);
    jobs.push_back(absl::StrCat(job.name(), "=", absl::StrJoin(addrs, ",")));
  }
  return absl::StrJoin(jobs, ";");
}

namespace {

// `what` with its control characters (a NUL in a task type, a newline in
// a key) written as \xNN: a message printed with %s or to a terminal keeps
// all of it, and shows what the variable holds.
std::string EscapeControl(absl::string_view what) {
  std::string out;
  for (unsigned char c : what) {
    if (c < 0x20 || c == 0x7f) {
      absl::StrAppend(&out, "\\x", absl::Hex(c, absl::kZeroPad2));
    } else {
      out.push_back(static_cast<char>(c));
    }
  }
  return out;
}

absl::Status TfConfigError(absl::string_view what) {
  return absl::InvalidArgumentError(absl::StrCat("TF_CONFIG: ", EscapeControl(what)));
}

// A JSON number that is a whole number in [0, 2^31).
absl::StatusOr<int> IndexOf(const google::protobuf::Value& v, absl::string_view what) {
  double d = -1;
  if (v.kind_case() == google::protobuf::Value::kNumberValue) {
    d = v.number_value();
  } else if (v.kind_case() == google::protobuf::Value::kStringValue) {
    if (!absl::SimpleAtod(v.string_value(), &d)) d = -1;
  }
  if (!(d >= 0 && d < 2147483648.0) || d != static_cast<int>(d)) {
    return TfConfigError(absl::StrCat(what, " must be a task index (0, 1, ...)"));
  }
  return static_cast<int>(d);
}

}  // namespace

absl::StatusOr<TfConfig> ParseTfConfig(absl::string_view json) {
  google::protobuf::Struct root;
  if (auto s = google::protobuf::util::JsonStringToMessage(std::string(json), &root); !s.ok()) {
    return TfConfigError(absl::StrCat("not a JSON object: ", s.ToString()));
  }
  TfConfig config;
  const auto& fields = root.fields();
  if (auto it = fields.find("cluster"); it != fields.end()) {
    if (it->second.kind_case() != google::protobuf::Value::kStructValue) {
      return TfConfigError("\"cluster\" must be an object of job name -> task addresses");
    }
    std::map<std::string, const google::protobuf::Value*> jobs;  // sorted, as TensorFlow's
    for (const auto& [name, tasks] : it->second.struct_value().fields()) jobs[name] = &tasks;
    for (const auto& [name, tasks] : jobs) {
      tensorflow::JobDef* job = config.cluster.add_job();
      job->set_name(name);
      const std::string where = absl::StrCat("cluster.", name);
      if (tasks->kind_case() == google::protobuf::Value::kListValue) {
        int i = 0;
        for (const google::protobuf::Value& a : tasks->list_value().values()) {
          if (a.kind_case() != google::protobuf::Value::kStringValue) {
            return TfConfigError(absl::StrCat(where, "[", i, "] must be a \"host:port\" string"));
          }
          (*job->mutable_tasks())[i++] = a.string_value();
        }
      } else if (tasks->kind_case() == google::protobuf::Value::kStructValue) {
        for (const auto& [key, a] : tasks->struct_value().fields()) {
          int index = 0;
          if (!absl::SimpleAtoi(key, &index) || index < 0) {
            return TfConfigError(absl::StrCat(where, ": '", key, "' is not a task index"));
          }
          if (a.kind_case() != google::protobuf::Value::kStringValue) {
            return TfConfigError(
                absl::StrCat(where, ".", key, " must be a \"host:port\" string"));
          }
          (*job->mutable_tasks())[index] = a.string_value();
        }
      } else {
        return TfConfigError(absl::StrCat(where, " must be a list of \"host:port\" strings"));
      }
    }
    if (absl::Status s = ValidateCluster(config.cluster); !s.ok()) {
      return TfConfigError(s.message());
    }
  }
  if (auto it = fields.find("task"); it != fields.end()) {
    if (it->second.kind_case() != google::protobuf::Value::kStructValue) {
      return TfConfigError("\"task\" must be an object with \"type\" and \"index\"");
    }
    const auto& task = it->second.struct_value().fields();
    auto type = task.find("type");
    if (type == task.end() || type->second.kind_case() != google::protobuf::Value::kStringValue ||
        type->second.string_value().empty()) {
      return TfConfigError("task.type must be a job name (\"chief\", \"worker\", \"ps\", ...)");
    }
    config.task_type = type->second.string_value();
    if (auto index = task.find("index"); index != task.end()) {
      MG_ASSIGN_OR_RETURN(config.task_index, IndexOf(index->second, "task.index"));
    }
    if (!config.cluster.job().empty()) {
      if (absl::Status s =
              TaskAddress(config.cluster, config.task_type, config.task_index).status();
          !s.ok()) {
        return TfConfigError(absl::StrCat("task ", config.task_type, ":", config.task_index,
                                          ": ", s.message()));
      }
    }
  }
  if (auto it = fields.find("rpc_layer"); it != fields.end()) {
    if (it->second.kind_case() != google::protobuf::Value::kStringValue) {
      return TfConfigError("\"rpc_layer\" must be a string");
    }
    config.rpc_layer = it->second.string_value();
    if (!config.rpc_layer.empty() && config.rpc_layer != "grpc") {
      return TfConfigError(absl::StrCat("rpc_layer \"", config.rpc_layer,
                                        "\" is not supported (only \"grpc\")"));
    }
  }
  return config;
}

absl::StatusOr<std::vector<int>> FreeLoopbackPorts(int n) {
  // Every socket stays bound until all n are: the kernel may give a port it
  // just got back to the next bind to port 0.
  std::vector<int> fds;
  std::vector<int> ports;
  absl::Status status;
  for (int i = 0; i < n && status.ok(); ++i) {
    const int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) {
      status = absl::InternalError(absl::StrCat("socket: ", std::strerror(errno)));
      break;
    }
    fds.push_back(fd);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof(a);
    if (bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof(a)) != 0 ||
        getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len) != 0) {
      status = absl::InternalError(absl::StrCat("bind 127.0.0.1:0: ", std::strerror(errno)));
      break;
    }
    ports.push_back(ntohs(a.sin_port));
  }
  for (int fd : fds) close(fd);
  if (!status.ok()) return status;
  return ports;
}

}  // namespace minigraph
