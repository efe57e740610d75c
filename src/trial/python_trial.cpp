// The trial side of the Python worker: finding python and the script, the worker process on a socket pair
// (JSON lines both ways), and the trial that runs the measurement protocol on its steps. Torch-free: the batches
// are written by the caller (trial/batch_dump.h).
#include "trial/python_trial.h"

#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <sstream>
#include <stdexcept>
#include <thread>

#include "trial/lr_schedule.h"
#include "trial/worker_data_parallel.h"
#include "util/paths.h"
#include "util/process.h"

namespace fs = std::filesystem;

namespace tune {
namespace {

// The first executable `name` in the PATH folders, or empty.
std::string find_on_path(const std::string& name) {
  const char* path = std::getenv("PATH");
  std::stringstream folders(path ? path : "/usr/local/bin:/usr/bin:/bin");
  for (std::string folder; std::getline(folders, folder, ':');) {
    const fs::path candidate = fs::path(folder.empty() ? "." : folder) / name;
    if (access(candidate.c_str(), X_OK) == 0) return candidate.string();
  }
  return "";
}

// The worker's stdin and stdout are its end of the socket pair; its stderr stays the trial's (the log).
[[noreturn]] void exec_worker(const std::vector<std::string>& argv, int socket, pid_t parent) {
  dup2(socket, STDIN_FILENO);
  dup2(socket, STDOUT_FILENO);
  close(socket);
  exec_tied_to(parent, argv);
}

double number_or_text(const nlohmann::json& value) {
  return value.is_string() ? std::stod(value.get<std::string>()) : value.get<double>();
}

}  // namespace

std::string python_executable() {
  if (const char* python = std::getenv("TUNE_PYTHON"); python && *python) {
    const std::string found = std::string(python).find('/') == std::string::npos ? find_on_path(python) : python;
    if (found.empty() || access(found.c_str(), X_OK) != 0)
      throw std::runtime_error("TUNE_PYTHON '" + std::string(python) + "' is not an executable python");
    return found;
  }
  const std::string found = find_on_path("python3");
  if (found.empty())
    throw std::runtime_error("no python3 on PATH for the Python trial worker (set TUNE_PYTHON, or run scripts/setup)");
  return found;
}

std::string python_worker_script() {
  const fs::path script = fs::path(tune_home()) / "src" / "trial" / "python_worker.py";
  if (!fs::exists(script))
    throw std::runtime_error("Python trial worker '" + script.string() + "' not found (TUNE_HOME: " + tune_home() + ")");
  return script.string();
}

void from_json(const nlohmann::json& j, WorkerSteps& steps) {
  steps.times = j.at("times").get<std::vector<double>>();
  steps.compile_seconds = j.value("compile_seconds", std::vector<double>{});
  for (const auto& loss : j.at("losses")) steps.losses.push_back(number_or_text(loss));
}

PythonWorker::PythonWorker(const std::vector<std::string>& argv) {
  int sockets[2];
  if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sockets) != 0)
    throw std::runtime_error(std::string("cannot open a socket pair for the Python worker: ") + std::strerror(errno));
  const pid_t parent = getpid();
  const pid_t pid = fork();
  if (pid < 0) {
    const int error = errno;
    close(sockets[0]);
    close(sockets[1]);
    throw std::runtime_error(std::string("cannot fork the Python worker: ") + std::strerror(error));
  }
  if (pid == 0) exec_worker(argv, sockets[1], parent);
  pid_ = pid;
  close(sockets[1]);
  socket_ = sockets[0];
}

// Closing the socket ends a worker that still waits for requests; one that does not end is killed.
PythonWorker::~PythonWorker() {
  if (socket_ >= 0) close(socket_);
  const pid_t pid = pid_;
  if (pid <= 0) return;
  int status = 0;
  for (int waited = 0; waited < 100; ++waited) {
    if (waitpid(pid, &status, WNOHANG) == pid) return;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  kill(pid, SIGKILL);
  waitpid(pid, &status, 0);
}

void PythonWorker::kill_process() {
  if (const pid_t pid = pid_; pid > 0) kill(pid, SIGKILL);
}

WorkerFailure PythonWorker::ended() {
  ChildOutcome outcome;
  int status = 0;
  if (const pid_t pid = pid_; pid > 0 && waitpid(pid, &status, 0) == pid) record_wait_status(outcome, status);
  pid_ = -1;
  // A SIGKILL the trial did not send is, on Linux, the kernel's out-of-memory killer.
  const bool killed = outcome.signaled && outcome.signal == SIGKILL;
  return {killed ? TrialStatus::oom : TrialStatus::crashed, "worker",
          "the Python worker ended (" + describe_outcome(outcome) + "); its output is in the trial's log"};
}

std::optional<std::string> PythonWorker::round_trip(const std::string& line) {
  if (pid_ <= 0 || send(socket_, line.data(), line.size(), MSG_NOSIGNAL) != static_cast<ssize_t>(line.size()))
    return std::nullopt;
  size_t newline;
  while ((newline = buffer_.find('\n')) == std::string::npos) {
    char chunk[65536];
    const ssize_t n = recv(socket_, chunk, sizeof chunk, 0);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return std::nullopt;
    buffer_.append(chunk, static_cast<size_t>(n));
  }
  std::string reply = buffer_.substr(0, newline);
  buffer_.erase(0, newline + 1);
  return reply;
}

template <typename Reply>
std::variant<Reply, WorkerFailure> PythonWorker::request(const nlohmann::json& request, const char* reply_key) {
  const auto line = round_trip(request.dump() + "\n");
  if (!line) return ended();
  try {
    const nlohmann::json reply = nlohmann::json::parse(*line);
    if (reply.contains("failure")) return reply.at("failure").get<WorkerFailure>();
    return reply.at(reply_key).get<Reply>();
  } catch (const std::exception& e) {  // not JSON, a missing field, a bad number, an unknown status name
    return WorkerFailure{TrialStatus::crashed, "worker", "the Python worker's reply is not the protocol's (" +
                                                             std::string(e.what()) + "): " + line->substr(0, 300)};
  }
}

std::variant<WorkerReady, WorkerFailure> PythonWorker::start(const TrialSpec& spec, const std::string& batches,
                                                             const std::string& dir) {
  return request<WorkerReady>({{"op", "start"}, {"protocol", kWorkerProtocol}, {"spec", spec}, {"batches", batches},
                               {"dir", dir}}, "ready");
}

std::variant<WorkerSteps, WorkerFailure> PythonWorker::steps(int n, const std::vector<double>& learning_rates,
                                                             const std::string& member) {
  nlohmann::json message{{"op", "steps"}, {"n", n}};
  if (member != "parallel") message["member"] = member;
  if (!learning_rates.empty()) message["learning_rates"] = learning_rates;  // the rate before each step
  return request<WorkerSteps>(message, "steps");
}

std::variant<HeldOutScore, WorkerFailure> PythonWorker::evaluate(const std::string& batches) {
  return request<HeldOutScore>({{"op", "evaluate"}, {"batches", batches}}, "evaluate");
}

std::optional<WorkerFinish> PythonWorker::finish() {
  auto reply = request<WorkerFinish>({{"op", "finish"}}, "finish");
  if (auto* finish = std::get_if<WorkerFinish>(&reply)) return *finish;
  return std::nullopt;
}

std::optional<StepBlock> WorkerStepRunner::run(int n) {
  auto reply = worker_.steps(n, scheduled_learning_rates(spec_, done_, n));
  if (auto* failure = std::get_if<WorkerFailure>(&reply)) {
    r_.status = failure->status;
    r_.error_stage = failure->stage;
    r_.error_message = failure->message;
    return std::nullopt;
  }
  const WorkerSteps& steps = std::get<WorkerSteps>(reply);
  done_ += n;
  for (double loss : steps.losses)
    if (!record_loss(r_, loss)) return std::nullopt;
  return StepBlock{steps.times, steps.compile_seconds};
}

namespace {

// What a failed trial keeps of the worker's end: its warnings and peak memory.
void keep_worker_account(const std::optional<WorkerFinish>& end, TrialResult& r) {
  if (!end) return;
  r.warnings = end->warnings;
  r.peak_memory_bytes = end->peak_memory_bytes;
}

// The trained module's held-out score, when the trial names held-out batches; a failure ends the trial with it.
std::optional<HeldOutScore> held_out_score(PythonWorker& worker, const WorkerHeldOut& held_out, TrialResult& r) {
  if (held_out.batches_path.empty()) return std::nullopt;
  auto reply = worker.evaluate(held_out.batches_path);
  if (const auto* failure = std::get_if<WorkerFailure>(&reply)) {
    r = failed_result(failure->status, failure->stage, failure->message);
    return std::nullopt;
  }
  const HeldOutScore& score = std::get<HeldOutScore>(reply);
  if (score.rows <= 0) {
    r = failed_result(TrialStatus::crashed, "worker", "the Python worker scored no held-out rows");
    return std::nullopt;
  }
  return score;
}

// The trial over a started worker: ready, the measurement protocol on its steps, the held-out score, its account
// at the end.
TrialResult measure_on_worker(const TrialSpec& spec, PythonWorker& worker, const std::string& batches_path,
                              const std::string& dir, const WorkerHeldOut& held_out) {
  TrialResult r;
  const auto ready = worker.start(spec, batches_path, dir);
  if (const auto* failure = std::get_if<WorkerFailure>(&ready)) {
    r = failed_result(failure->status, failure->stage, failure->message);
    keep_worker_account(worker.finish(), r);
    return r;
  }
  r.parameter_count = std::get<WorkerReady>(ready).parameter_count;
  WorkerStepRunner runner(spec, worker, std::get<WorkerReady>(ready).block_steps, r);
  const bool finished = run_measured_steps(spec, runner, r);
  const std::optional<HeldOutScore> score = finished ? held_out_score(worker, held_out, r) : std::nullopt;
  const auto end = worker.finish();
  keep_worker_account(end, r);
  if (!finished || (!held_out.batches_path.empty() && !score)) return r;
  if (end) keep_worker_finish(*end, r);
  r.status = TrialStatus::ok;
  summarise_steps(spec, r);
  if (score && r.ok()) apply_held_out_score(*score, held_out.label_entropy, r);
  return r;
}

}  // namespace

void keep_worker_finish(const WorkerFinish& end, TrialResult& r) {
  keep_worker_account(end, r);
  r.compile_info = end.compile_info;
  r.compile_parts = end.compile_parts;
  r.compile_cache = end.compile_cache;
  r.observer_summary = end.observer_summary;
}

TrialResult run_python_worker_trial(const TrialSpec& spec, const std::string& batches_path, const std::string& dir,
                                    std::vector<std::string> worker_argv, const WorkerHeldOut& held_out) {
  try {  // no python or no worker script: this backend cannot run here
    if (worker_argv.empty()) worker_argv = {python_executable(), python_worker_script()};
  } catch (const std::runtime_error& e) {
    return failed_result(TrialStatus::compile_error, "python", e.what());
  }
  if (spec.distributed.ranks > 1) return run_worker_data_parallel_trial(spec, batches_path, dir, worker_argv);
  try {
    PythonWorker worker(worker_argv);
    return measure_on_worker(spec, worker, batches_path, dir, held_out);
  } catch (const std::exception& e) {  // the worker could not be started, or this side broke
    return failed_result(TrialStatus::crashed, "worker", e.what());
  }
}

}  // namespace tune
