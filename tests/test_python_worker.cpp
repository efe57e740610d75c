// The Python worker's protocol, both sides at once and without torch: the trial's C++ side (the worker process,
// the measurement protocol, the result's fields) against the worker's real serve() loop with a scripted session,
// and every way a worker can fail; also the backend labels, the trial keys their knobs keep, and the worker's list
// of backends against the registry.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "cli_run.h"
#include "test_helpers.h"
#include "trial/backend_registry.h"
#include "trial/lr_schedule.h"
#include "trial/python_trial.h"
#include "util/join.h"
#include "util/paths.h"

using namespace tune;
using tune::testing::temp_dir;
using tune::testing::write_file;

namespace {

// A session standing in for HF's module: each step takes `step` seconds, the first `compile` of them compiling
// inside (torch.compile's way), losses from `losses` (Python expressions, e.g. float('nan')); `fail` names the
// step (1-based) whose request raises, with the status given; `die` the step where the worker exits, `kill` where
// it is killed as the kernel's out-of-memory killer kills.
std::string session_script(const std::string& options) {
  return R"py(
import os, sys
sys.path.insert(0, sys.argv[1])
import python_worker as w

OPTIONS = dict()py" + options + R"py()

class ScriptedSession:
    def __init__(self, spec):
        self.spec, self.done = spec, 0
    def start(self, batches, work_dir):
        if OPTIONS.get("start_failure"):
            raise w.TrialFailure("invalid", "setup", OPTIONS["start_failure"] + " " + batches)
        return {"parameter_count": 1234, "block_steps": OPTIONS.get("block_steps", 1)}
    def run_steps(self, n, learning_rates=None, member="parallel"):
        times, compiles, losses = [], [], []
        for i in range(n):
            self.done += 1
            if self.done == OPTIONS.get("die"):
                os._exit(3)
            if self.done == OPTIONS.get("kill"):
                os.kill(os.getpid(), 9)
            if self.done == OPTIONS.get("fail"):
                raise w.TrialFailure(OPTIONS.get("fail_status", "oom"), "step", "scripted failure at step %d" % self.done)
            times.append(OPTIONS.get("first", 0.01) if self.done == 1 else 0.01)
            compiles.append(OPTIONS.get("compile", 0.0) if self.done == 1 else 0.0)
            loss = OPTIONS.get("losses", {}).get(self.done, 10.0 - 0.1 * self.done)
            if OPTIONS.get("echo_rates"):
                loss = learning_rates[i] if learning_rates else -1.0
            losses.append(w.finite_or_text(loss))
        return {"times": times, "compile_seconds": compiles, "losses": losses}
    def evaluate(self, batches):
        if OPTIONS.get("evaluate_failure"):
            raise w.TrialFailure("oom", "held_out", OPTIONS["evaluate_failure"])
        return {"rows": 40, "loss_sum": 20.0, "correct": 30}
    def finish(self):
        return {"compile_info": "scripted", "compile_parts": {"phase": 0.5}, "warnings": ["a warning (x2)"],
                "peak_memory_bytes": 4096}

w.serve(sys.stdin, sys.stdout, ScriptedSession)
)py";
}

TrialSpec scripted_spec(TrialPurpose purpose) {
  TrialSpec s;
  s.step.backend = "hf-eager";
  s.purpose = purpose;
  s.batch_size = 4;
  s.seq_len = 8;
  s.train_steps = purpose == TrialPurpose::learning_rate ? 8 : 0;
  s.measure.warmup_steps = 2;
  s.measure.min_measure_steps = 6;
  s.measure.max_measure_steps = 20;
  return s;
}

// The trial of `spec` on a worker running the scripted session with these options (scored on held-out batches
// where `held_out` names them).
TrialResult scripted_trial(const TrialSpec& spec, const std::string& options, const WorkerHeldOut& held_out = {}) {
  const auto dir = temp_dir("worker");
  const std::string script = write_file(dir / "session.py", session_script(options));
  return run_python_worker_trial(spec, (dir / "batches.pt").string(), dir.string(),
                                 {python_executable(), script, (std::filesystem::path(tune_home()) / "src/trial").string()},
                                 held_out);
}

}  // namespace

TEST(BackendLabel, InductorSuffixesSetTheCompileKnobs) {
  StepSettings s;
  apply_backend_label(s, "inductor:max-autotune-no-cudagraphs:dynamic");
  EXPECT_EQ(s.backend, "inductor");
  EXPECT_EQ(s.compile_mode, "max-autotune-no-cudagraphs");
  EXPECT_TRUE(s.dynamic_shapes);
  apply_backend_label(s, "inductor:dynamic");
  EXPECT_EQ(s.compile_mode, "default");
  EXPECT_TRUE(s.dynamic_shapes);
  apply_backend_label(s, "hf-eager");
  EXPECT_EQ(s.backend, "hf-eager");
  EXPECT_FALSE(s.dynamic_shapes);
  EXPECT_TRUE(runs_in_python("inductor") && runs_in_python("hf-eager") && !runs_in_python("jit"));
  const std::string error = tune::testing::error_of([] { check_backend_label("inductor:fastest"); });
  EXPECT_NE(error.find("'inductor:fastest'"), std::string::npos) << error;
  EXPECT_NE(error.find("inductor:reduce-overhead"), std::string::npos) << error;
}

// The worker's own list of what it runs (BACKENDS in python_worker.py) is the registry's Python-worker entries.
TEST(PythonWorkerBackends, TheWorkersBackendsAreTheRegistrysPythonWorkerEntries) {
  const std::string command = python_executable() + " -c 'import sys; sys.path.insert(0, sys.argv[1]); "
                              "import python_worker as w; print(\" \".join(w.BACKENDS))' " + tune_home() +
                              "/src/trial 2>&1";
  const auto [exit_code, output] = tune::testing::run_command(command);
  ASSERT_EQ(exit_code, 0) << output;
  EXPECT_EQ(output, join(backend_names(BackendRoute::python_worker), " ") + "\n") << "BACKENDS in src/trial/python_worker.py and the registry's entries with "
                                          "the Python-worker route (src/trial/backend_registry.cpp) must agree";
}

TEST(BackendLabel, DefaultCompileKnobsKeepOldTrialKeys) {
  TrialSpec s;
  s.model = resolve_model("bert-tiny");
  nlohmann::json stored = s;  // a spec as stored before compile_mode and dynamic_shapes existed
  stored.erase("compile_mode");
  stored.erase("dynamic_shapes");
  EXPECT_EQ(stored.get<TrialSpec>().config_key(), s.config_key());
  TrialSpec dynamic = s;
  dynamic.step.dynamic_shapes = true;
  TrialSpec tuned = s;
  tuned.step.compile_mode = "max-autotune-no-cudagraphs";
  EXPECT_NE(dynamic.config_key(), s.config_key());
  EXPECT_NE(tuned.config_key(), s.config_key());
  EXPECT_NE(tuned.config_key(), dynamic.config_key());
}

// The trial keeps the measurement: steady steps of 10 ms meet the +-2% stopping rule at its fewest steps, and
// the compile inside the first warm-up step is the compile time, not the first step's.
TEST(PythonWorkerProtocol, TheTrialMeasuresTheWorkersStepsByItsOwnRules) {
  const TrialSpec spec = scripted_spec(TrialPurpose::throughput);
  const TrialResult r = scripted_trial(spec, "first=2.0, compile=1.5");
  ASSERT_EQ(r.status, TrialStatus::ok) << r.error_stage << ": " << r.error_message;
  EXPECT_EQ(r.step_times.size(), 6u);
  EXPECT_NE(r.steady_state_stop.find("CI within"), std::string::npos) << r.steady_state_stop;
  EXPECT_DOUBLE_EQ(r.compile_seconds, 1.5);
  EXPECT_DOUBLE_EQ(r.first_step_seconds, 0.5);
  EXPECT_NEAR(r.later_warmup_seconds, 0.01, 1e-12);
  EXPECT_DOUBLE_EQ(r.step_time_median, 0.01);
  EXPECT_DOUBLE_EQ(r.samples_per_second, 400);
  EXPECT_NEAR(r.compile_overhead_seconds, 1.5 + 0.51 - 2 * 0.01, 1e-12);
  EXPECT_EQ(r.losses.size(), 8u);
  EXPECT_EQ(r.parameter_count, 1234);
  EXPECT_EQ(r.peak_memory_bytes, 4096);
  EXPECT_EQ(r.compile_info, "scripted");
  EXPECT_EQ(r.compile_parts.at("phase"), 0.5);
  EXPECT_EQ(r.warnings, std::vector<std::string>{"a warning (x2)"});
}

TEST(PythonWorkerProtocol, ALearningRateTrialRunsItsStepsAndIsScored) {
  const TrialResult r = scripted_trial(scripted_spec(TrialPurpose::learning_rate), "block_steps=5");
  ASSERT_EQ(r.status, TrialStatus::ok) << r.error_message;
  ASSERT_EQ(r.losses.size(), 8u);
  EXPECT_DOUBLE_EQ(r.score_loss, tail_mean_loss(r.losses));
  EXPECT_EQ(r.steady_state_stop, "step cap: 6 steps");
}

// After its last step the worker scores the trained module on the held-out batches; the trial's score is their
// mean loss, and a failing score fails the trial with its status and stage.
TEST(PythonWorkerProtocol, AClassifiersTrialIsScoredByTheWorkerOnItsHeldOutRows) {
  const TrialSpec spec = scripted_spec(TrialPurpose::learning_rate);
  const TrialResult r = scripted_trial(spec, "block_steps=5", {"held_out.pt", 0.6});
  ASSERT_EQ(r.status, TrialStatus::ok) << r.error_message;
  EXPECT_EQ(r.held_out_rows, 40);
  EXPECT_DOUBLE_EQ(r.held_out_loss, 0.5);
  EXPECT_DOUBLE_EQ(r.held_out_accuracy, 0.75);
  EXPECT_DOUBLE_EQ(r.score_loss, 0.5);
  EXPECT_DOUBLE_EQ(r.label_prior_loss, 0.6);
  EXPECT_EQ(r.losses.size(), 8u);

  const TrialResult failed = scripted_trial(spec, "evaluate_failure='no memory left'", {"held_out.pt", 0.6});
  EXPECT_EQ(failed.status, TrialStatus::oom);
  EXPECT_EQ(failed.error_stage, "held_out");
  EXPECT_NE(failed.error_message.find("no memory left"), std::string::npos) << failed.error_message;
  EXPECT_EQ(scripted_trial(spec, "").held_out_rows, 0) << "no held-out batches named: no score asked for";
}

// The schedule's rate of each step travels with the steps request (the worker sets it before each step).
TEST(PythonWorkerProtocol, TheScheduledRateOfEachStepReachesTheWorker) {
  TrialSpec spec = scripted_spec(TrialPurpose::learning_rate);
  spec.learning_rate = 1e-3;
  spec.lr_schedule = "cosine";
  spec.lr_warmup_steps = 2;
  const TrialResult r = scripted_trial(spec, "block_steps=5, echo_rates=True");
  ASSERT_EQ(r.status, TrialStatus::ok) << r.error_message;
  const std::vector<double> expected = scheduled_learning_rates(spec, 0, 8);
  ASSERT_EQ(r.losses.size(), expected.size());
  for (size_t i = 0; i < expected.size(); ++i) EXPECT_DOUBLE_EQ(r.losses[i], expected[i]) << i;
}

TEST(PythonWorkerProtocol, ANonFiniteLossIsDivergedAtItsStep) {
  const TrialResult r = scripted_trial(scripted_spec(TrialPurpose::learning_rate), "losses={5: float('nan')}");
  EXPECT_EQ(r.status, TrialStatus::diverged);
  EXPECT_EQ(r.error_message, "loss became nan at step 5");
  EXPECT_EQ(r.losses.size(), 4u);
  EXPECT_EQ(r.peak_memory_bytes, 4096) << "the worker's account is kept with the failure";
}

TEST(PythonWorkerProtocol, TheWorkersFailureIsTheTrialsWithItsStatusAndStage) {
  const TrialResult r = scripted_trial(scripted_spec(TrialPurpose::throughput), "fail=4, fail_status='oom'");
  EXPECT_EQ(r.status, TrialStatus::oom);
  EXPECT_EQ(r.error_stage, "step");
  EXPECT_EQ(r.error_message, "scripted failure at step 4");
  const TrialResult at_start = scripted_trial(scripted_spec(TrialPurpose::throughput), "start_failure='no batches in'");
  EXPECT_EQ(at_start.status, TrialStatus::invalid);
  EXPECT_EQ(at_start.error_stage, "setup");
  EXPECT_NE(at_start.error_message.find("batches.pt"), std::string::npos) << at_start.error_message;
}

TEST(PythonWorkerProtocol, AWorkerThatEndsIsACrashSayingHow) {
  const TrialResult r = scripted_trial(scripted_spec(TrialPurpose::throughput), "die=3");
  EXPECT_EQ(r.status, TrialStatus::crashed);
  EXPECT_EQ(r.error_stage, "worker");
  EXPECT_NE(r.error_message.find("exit code 3"), std::string::npos) << r.error_message;
  const TrialResult killed = scripted_trial(scripted_spec(TrialPurpose::throughput), "kill=3");
  EXPECT_EQ(killed.status, TrialStatus::oom);
  EXPECT_NE(killed.error_message.find("signal 9"), std::string::npos) << killed.error_message;
}

// The worker refuses a start of another protocol version, and a worker that cannot start at all is a crash.
TEST(PythonWorkerProtocol, AnotherProtocolVersionOrNoWorkerIsRefused) {
  const auto dir = temp_dir("worker");
  const std::string request = write_file(dir / "request.json", "{\"op\": \"start\", \"protocol\": 0}\n");
  const std::string command = python_executable() + " -c 'import sys; sys.path.insert(0, sys.argv[1]); "
                              "import python_worker as w; w.serve(sys.stdin, sys.stdout)' " + tune_home() +
                              "/src/trial < " + request;
  const std::string line = tune::testing::run_command(command).output;
  ASSERT_FALSE(line.empty()) << command;
  const auto reply = nlohmann::json::parse(line.substr(0, line.find('\n')));
  EXPECT_EQ(reply.at("failure").at("status"), "crashed") << line;
  EXPECT_NE(reply.at("failure").at("message").get<std::string>().find("protocol 0"), std::string::npos) << line;
  const TrialResult missing = run_python_worker_trial(scripted_spec(TrialPurpose::throughput), "b", dir.string(),
                                                      {(dir / "no-such-python").string()});
  EXPECT_EQ(missing.status, TrialStatus::crashed);
  EXPECT_NE(missing.error_message.find("exit code 127"), std::string::npos) << missing.error_message;
}

namespace {

// Runs `body` (Python, with compile_cache imported as c and the scratch folder as `root`) and returns its output.
std::string run_cache_script(const std::filesystem::path& dir, const std::string& body) {
  const std::string script = write_file(dir / "cache_check.py", "import json, os, sys\nsys.path.insert(0, sys.argv[1])\n"
                                                                 "import compile_cache as c\nroot = sys.argv[2]\n" + body);
  const auto [exit_code, output] = tune::testing::run_command(python_executable() + " " + script + " " + tune_home() +
                                                              "/src/trial " + dir.string() + " 2>&1");
  EXPECT_EQ(exit_code, 0) << output;
  return output;
}

}  // namespace

// A shared compile cache (src/trial/compile_cache.py) is reused only as tune recorded it: sealed after a trial, it
// opens as that trial's; a changed or missing file, a manifest from another torch or machine, or a damaged manifest
// empties it (the next compile is cold) and says why; a folder the user named that holds files tune never recorded is
// refused, and one of tune's own is emptied.
TEST(CompileCache, ACacheIsReusedOnlyAsTuneRecordedIt) {
  const auto dir = temp_dir("compile-cache");
  const std::string out = run_cache_script(dir, R"py(
cache = os.path.join(root, "cache")
def show(label, tune_owned=True):
    account, rebuilt = c.open_cache(cache, "cpu", tune_owned)
    print(label, "|", account, "|", rebuilt, "|", sorted(c.cached_files(cache)))
def write(path, text):
    os.makedirs(os.path.dirname(os.path.join(cache, path)), exist_ok=True)
    open(os.path.join(cache, path), "w").write(text)
def edit_manifest(change):
    m = json.load(open(os.path.join(cache, c.MANIFEST)))
    change(m)
    json.dump(m, open(os.path.join(cache, c.MANIFEST), "w"))
show("new")
write("fxgraph/ab/graph", "compiled graph"); write("aotautograd/x", "entry")
c.seal(cache, "cpu", "trial-1")
show("sealed")
write("fxgraph/ab/graph", "compiled grapH")
show("changed")
write("fxgraph/ab/graph", "compiled graph"); write("aotautograd/x", "entry"); c.seal(cache, "cpu", "trial-2")
os.remove(os.path.join(cache, "aotautograd/x"))
show("missing")
write("a", "1"); c.seal(cache, "cpu", "trial-3"); edit_manifest(lambda m: m["identity"].update(torch="0.0.1"))
show("torch")
write("a", "1"); c.seal(cache, "cpu", "trial-4"); edit_manifest(lambda m: m["identity"].update(machine="another CPU"))
show("machine")
write("a", "1"); c.seal(cache, "cpu", "trial-5"); open(os.path.join(cache, c.MANIFEST), "w").write("{not json")
show("manifest")
write("a", "1")
try:
    show("user", tune_owned=False)
except ValueError as e:
    print("user | refused:", e, "| kept:", c.cached_files(cache))
show("owned")
)py");
  const auto line = [&](const std::string& label) {
    const size_t at = out.find(label + " |");
    return at == std::string::npos ? std::string() : out.substr(at, out.find('\n', at) - at);
  };
  EXPECT_EQ(line("new"), "new | empty | None | []") << out;
  EXPECT_NE(line("sealed").find("| None | ['aotautograd/x', 'fxgraph/ab/graph']"), std::string::npos) << out;
  EXPECT_NE(line("sealed").find("by trial-1, torch "), std::string::npos) << out;
  EXPECT_EQ(line("changed"), "changed | empty | damaged: its file fxgraph/ab/graph changed since tune recorded it | []")
      << out;
  EXPECT_EQ(line("missing"), "missing | empty | damaged: its file aotautograd/x is missing | []") << out;
  EXPECT_NE(line("torch").find("| empty | it was made with torch '0.0.1', this trial runs torch "), std::string::npos)
      << out;
  EXPECT_NE(line("machine").find("| empty | it was made with machine 'another CPU'"), std::string::npos) << out;
  EXPECT_NE(line("manifest").find("| empty | its manifest tune-cache.json is damaged"), std::string::npos) << out;
  EXPECT_NE(line("user").find("refused: compile cache folder '"), std::string::npos) << out;
  EXPECT_NE(line("user").find("holds 1 files tune did not record"), std::string::npos) << out;
  EXPECT_NE(line("user").find("| kept: ['a']"), std::string::npos) << "a refused folder keeps its files: " << out;
  EXPECT_EQ(line("owned"), "owned | empty | it holds 1 files without tune's manifest (a trial that ended before "
                           "recording them) | []") << out;
}
