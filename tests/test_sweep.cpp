// tune sweep without a cluster: the sweep file's checks, the plan and study scripts, the state file, and the
// reading of Slurm's own output (recorded from Debian's Slurm 22.05) into study phases and reasons.
#include <gtest/gtest.h>

#include <filesystem>

#include "sweep/slurm_executor.h"
#include "sweep/slurm_jobs.h"
#include "sweep/sweep_coordinator.h"
#include "sweep/sweep_plan.h"
#include "sweep/sweep_state.h"
#include "test_helpers.h"

using namespace tune;
using tune::testing::error_of;
using tune::testing::read_file;
using tune::testing::temp_dir;
using tune::testing::write_file;
namespace fs = std::filesystem;

namespace {

const char* kSweep = R"(models: [bert-tiny, gpt2-tiny]
seq_lens: [32, 64]
budget: 2m
budgets: {gpt2-tiny: 3m}
backends: eager,jit
executor: slurm
slurm:
  partitions:
    - name: a100
      sbatch: ["--gres=gpu:1", "--time=01:00:00"]
    - name: h100
      exclusive: false
      cpus_per_task: 8
)";

}  // namespace

TEST(SweepSpec, ReadsStudiesBudgetsAndPartitions) {
  const auto dir = temp_dir("sweep");
  const SweepSpec spec = read_sweep_spec(write_file(dir / "gpus.yaml", kSweep));
  EXPECT_EQ(spec.name, "gpus");
  EXPECT_EQ(spec.state_dir, (dir / "sweeps" / "gpus").string());
  EXPECT_EQ(spec.store, (dir / "sweeps" / "gpus" / "sweep.db").string());
  EXPECT_DOUBLE_EQ(spec.budget_of("bert-tiny"), 120);
  EXPECT_DOUBLE_EQ(spec.budget_of("gpt2-tiny"), 180);
  ASSERT_EQ(spec.partitions.size(), 2u);
  EXPECT_TRUE(spec.partitions[0].exclusive);
  EXPECT_EQ(spec.partitions[0].sbatch, (std::vector<std::string>{"--gres=gpu:1", "--time=01:00:00"}));
  EXPECT_EQ(spec.partitions[1].cpus_per_task, 8);
}

TEST(SweepSpec, MistakesAreNamedWithFileLineAndKey) {
  const auto dir = temp_dir("sweep");
  const auto error_for = [&](const std::string& text) {
    return error_of([&] { read_sweep_spec(write_file(dir / "s.yaml", text)); });
  };
  EXPECT_NE(error_for("models: [bert-tiny]\nbudgt: 2m\n").find("s.yaml:2: unknown key 'budgt' (did you mean 'budget'?)"),
            std::string::npos) << error_for("models: [bert-tiny]\nbudgt: 2m\n");
  EXPECT_NE(error_for("budget: 2m\n").find("missing key 'models'"), std::string::npos);
  EXPECT_NE(error_for("models: [a]\nbudget: soon\n").find("'soon'"), std::string::npos);
  EXPECT_NE(error_for("models: [a]\nexecutor: slurm\n").find("at least one partition"), std::string::npos);
  EXPECT_NE(error_for("models: [a]\nexecutor: k8s\n").find("expected local or slurm, got 'k8s'"), std::string::npos);
  EXPECT_NE(error_for("models: [a]\nslurm:\n  partitions:\n    - {name: p, exclusive: false}\n").find("cpus_per_task"),
            std::string::npos);
  EXPECT_NE(error_for("models: [a]\nseq_lens: [0]\n").find("seq_lens"), std::string::npos);
  EXPECT_NE(error_for("models: [a]\nslurm: 3\n").find("'slurm': expected a mapping of keys, got a single value"),
            std::string::npos) << error_for("models: [a]\nslurm: 3\n");
  EXPECT_NE(error_for("models: [a]\nbudgets: {[x]: 2m}\n").find("a key that is not a name"), std::string::npos);
  EXPECT_NE(error_for("models: [a]\nranks: 0\n").find("key 'ranks': expected at least 1"), std::string::npos);
}

TEST(SweepPlan, OneStudyPerModelSeqAndPartitionEachAPlainTuneCommand) {
  const auto dir = temp_dir("sweep");
  const SweepSpec spec = read_sweep_spec(write_file(dir / "gpus.yaml", kSweep));
  const auto plan = plan_sweep(spec);
  ASSERT_EQ(plan.size(), 8u);
  EXPECT_EQ(plan[0].id, "bert-tiny.seq32.a100");
  EXPECT_EQ(plan[7].id, "gpt2-tiny.seq64.h100");
  EXPECT_EQ(plan[7].budget_seconds, 180);
  const std::string script = read_file(write_study_script(spec, plan[7], "/opt/tune"));
  EXPECT_NE(script.find("exec '/opt/tune' '--model' 'gpt2-tiny' '--seq-len' '64' '--budget' '180s' '--seed' '0'"
                        " '--backends' 'eager,jit' --db '" + spec.state_dir + "/studies/gpt2-tiny.seq64.h100.db'"),
            std::string::npos) << script;
  // ranks: data-parallel studies, each a tune --ranks N search.
  const SweepSpec parallel = read_sweep_spec(write_file(dir / "dp.yaml", std::string(kSweep) + "ranks: 2\n"));
  const std::string dp_script = read_file(write_study_script(parallel, plan_sweep(parallel)[0], "/opt/tune"));
  EXPECT_NE(dp_script.find("'--backends' 'eager,jit' '--ranks' '2' --db"), std::string::npos) << dp_script;
}

TEST(SweepState, SavedAndLoadedWithItsSchemaVersionAndRefusedWhenCorrupt) {
  const auto dir = temp_dir("sweep");
  const std::string path = (dir / "state.json").string();
  SweepState state;
  state.executor = "slurm";
  sync_with_plan(state, {PlannedStudy{"a"}, PlannedStudy{"b"}});
  state.record("b").phase = StudyPhase::failed;
  state.record("b").history = {"attempt 1 (job 7_1): TIMEOUT (exit 0:0)"};
  save_sweep_state(path, state);
  const SweepState loaded = load_sweep_state(path);
  ASSERT_EQ(loaded.studies.size(), 2u);
  EXPECT_EQ(loaded.studies[1].phase, StudyPhase::failed);
  EXPECT_EQ(loaded.studies[1].history, state.studies[1].history);
  EXPECT_NE(read_file(path).find("\"schema_version\": 1"), std::string::npos);
  write_file(path, "{\"schema_version\": 1, \"studies\": [");
  EXPECT_THROW(load_sweep_state(path), std::runtime_error);
  write_file(path, R"({"schema_version": 99, "sweep_file": "", "executor": "", "cancelled": false, "studies": []})");
  EXPECT_THROW(load_sweep_state(path), std::runtime_error);
}

TEST(SweepProgress, CountsPhasesAndEstimatesTheTimeLeftFromBudgets) {
  std::vector<PlannedStudy> plan(4);
  SweepState state;
  for (int i = 0; i < 4; ++i) plan[i].id = "s" + std::to_string(i), plan[i].budget_seconds = 600;
  sync_with_plan(state, plan);
  state.record("s0").phase = StudyPhase::done;
  state.record("s1").phase = StudyPhase::running, state.record("s1").started_at = 1000;
  state.record("s2").phase = StudyPhase::running, state.record("s2").started_at = 1000;
  const SweepCounts c = count_studies(state, plan, 1200);  // 200 s into two 600 s budgets, one pending
  EXPECT_EQ(c.done, 1);
  EXPECT_EQ(c.running, 2);
  EXPECT_EQ(c.pending, 1);
  EXPECT_DOUBLE_EQ(c.eta_seconds, (400 + 400 + 600) / 2.0);
  EXPECT_NE(progress_line(c).find("1 pending, 0 queued, 2 running, 1 done, 0 failed; ETA ~"), std::string::npos);
}

TEST(SlurmStates, ArrayRangesExpand) {
  EXPECT_EQ(expand_task_range("[3-5%2]"), (std::vector<int>{3, 4, 5}));
  EXPECT_EQ(expand_task_range("1,4-5"), (std::vector<int>{1, 4, 5}));
  EXPECT_EQ(expand_task_range("7"), (std::vector<int>{7}));
}

// `scontrol show job -o 1` on this machine's Slurm 22.05 (scripts/slurm-local), an array of five tasks: exit 0,
// exit 2, scancel'd mid-run, and a pending range; lines cut to the fields around those tune reads.
const char* kScontrol =
    "JobId=1 ArrayJobId=1 ArrayTaskId=3-4 JobName=t.sh UserId=root(0) JobState=PENDING Reason=Resources "
    "Dependency=(null) Requeue=1 Restarts=0 BatchFlag=1 Reboot=0 ExitCode=0:0 RunTime=00:00:00\n"
    "JobId=4 ArrayJobId=1 ArrayTaskId=2 JobName=t.sh UserId=root(0) JobState=CANCELLED Reason=None "
    "Dependency=(null) Requeue=1 Restarts=0 BatchFlag=1 Reboot=0 ExitCode=0:15 RunTime=00:00:03\n"
    "JobId=3 ArrayJobId=1 ArrayTaskId=1 JobName=t.sh UserId=root(0) JobState=FAILED Reason=NonZeroExitCode "
    "Dependency=(null) Requeue=1 Restarts=0 BatchFlag=1 Reboot=0 ExitCode=2:0 RunTime=00:00:00\n"
    "JobId=2 ArrayJobId=1 ArrayTaskId=0 JobName=t.sh UserId=root(0) JobState=COMPLETED Reason=None "
    "Dependency=(null) Requeue=1 Restarts=0 BatchFlag=1 Reboot=0 ExitCode=0:0 RunTime=00:00:00\n";

TEST(SlurmStates, ScontrolLinesGiveEachArrayTask) {
  const auto tasks = parse_scontrol(kScontrol);
  ASSERT_EQ(tasks.size(), 5u);
  EXPECT_EQ(tasks.at("1_4").state, "PENDING");
  EXPECT_EQ(tasks.at("1_2").state, "CANCELLED");
  EXPECT_EQ(tasks.at("1_2").exit_code, "0:15");
  EXPECT_EQ(tasks.at("1_1").reason, "NonZeroExitCode");
  EXPECT_EQ(tasks.at("1_0").state, "COMPLETED");
}

// sacct -n -P -X --format=JobID,State,ExitCode,Reason, in its documented form (accounting is off on this machine's
// cluster, where tune falls back to scontrol).
TEST(SlurmStates, SacctLinesGiveEachArrayTask) {
  const auto tasks = parse_sacct("12_0|COMPLETED|0:0|None\n12_1|CANCELLED by 0|0:15|None\n"
                                 "12_2|OUT_OF_MEMORY|0:125|None\n12_[3-5%2]|PENDING|0:0|Priority\n13|RUNNING|0:0|None\n");
  ASSERT_EQ(tasks.size(), 6u);
  EXPECT_EQ(tasks.at("12_1").state, "CANCELLED");
  EXPECT_EQ(tasks.at("12_2").exit_code, "0:125");
  EXPECT_EQ(tasks.at("12_5").reason, "Priority");
}

TEST(SlurmStates, EachEndingBecomesDoneOrAFailureNamingSlurmsState) {
  std::string reason;
  EXPECT_EQ(phase_of({"PENDING", "0:0", "Resources"}, reason), StudyPhase::queued);
  EXPECT_EQ(phase_of({"RUNNING", "0:0", "None"}, reason), StudyPhase::running);
  EXPECT_EQ(phase_of({"COMPLETED", "0:0", "None"}, reason), StudyPhase::done);
  const std::vector<std::pair<std::string, std::string>> failures = {
      {"FAILED", "2:0"}, {"CANCELLED", "0:15"}, {"TIMEOUT", "0:0"}, {"OUT_OF_MEMORY", "0:125"},
      {"NODE_FAIL", "0:0"}, {"PREEMPTED", "0:0"}, {"BOOT_FAIL", "0:0"}, {"COMPLETED", "1:0"}};
  for (const auto& [state, exit_code] : failures) {
    EXPECT_EQ(phase_of({state, exit_code, "None"}, reason), StudyPhase::failed) << state;
    EXPECT_EQ(reason, state + " (exit " + exit_code + (state == "OUT_OF_MEMORY" ? ", OOM killed" : "") + ")");
  }
  EXPECT_EQ(phase_of({"FAILED", "2:0", "NonZeroExitCode"}, reason), StudyPhase::failed);
  EXPECT_EQ(reason, "FAILED (exit 2:0, NonZeroExitCode)");
  // Seen here when slurmstepd could not start: the task waits, held, for ever unless tune ends it.
  EXPECT_EQ(phase_of({"PENDING", "0:0", "launch_failed_requeued_held"}, reason), StudyPhase::failed);
  EXPECT_EQ(reason, "held by Slurm: PENDING (launch_failed_requeued_held)");
}

TEST(SweepSpec, TheCommittedSweepFilesRead) {
  const fs::path dir = fs::path(TUNE_SOURCE_DIR) / "configs" / "sweeps";
  EXPECT_EQ(plan_sweep(read_sweep_spec((dir / "tested-cpu.yaml").string())).size(), 10u);
  EXPECT_EQ(plan_sweep(read_sweep_spec((dir / "gpu-cluster.yaml").string())).size(), 30u);
}
