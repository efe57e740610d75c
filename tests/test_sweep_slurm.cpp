// tune sweep through a real Slurm (tests/slurm_cluster.h): the same best configs as the local executor, a task
// cancelled mid-run resubmitted, a killed coordinator re-attaching, a failing task reported with Slurm's reason.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <map>
#include <regex>
#include <set>
#include <nlohmann/json.hpp>
#include <thread>
#include <vector>

#include "cli_run.h"
#include "slurm_cluster.h"
#include "store/database.h"
#include "test_helpers.h"

using namespace tune;
using tune::testing::CliRun;
using tune::testing::read_file;
using tune::testing::run_command;
using tune::testing::temp_dir;
using tune::testing::write_file;
namespace fs = std::filesystem;

namespace {

// A sweep file in `dir`: `models` at seq 32, fp32, searched to their end (a budget they do not reach); `tune_args`
// a YAML list of further flags for each study's `tune`.
std::string sweep_file(const fs::path& dir, const std::string& executor, const std::string& models,
                       const std::string& backends, const std::string& extra = "",
                       const std::string& tune_args = "[]") {
  return write_file(dir / (executor + ".yaml"),
                    "name: t-" + executor + "\nmodels: [" + models + "]\nseq_lens: [32]\nbudget: 10m\nbackends: " +
                        backends + "\nprecisions: fp32\nseed: 0\nexecutor: " + executor + "\ntune_args: " + tune_args +
                        "\npoll_seconds: 1\nstate_dir: state-" + executor + "\nslurm:\n  partitions:\n"
                        "    - name: debug\n" + extra);
}

CliRun sweep(const std::string& file, const std::string& flags = "") {
  return run_command(std::string(TUNE_EXECUTABLE) + " sweep " + file + " " + flags + " 2>&1");
}

// The coordinator as a child of this test, so that it can be killed and reaped.
pid_t start_coordinator(const std::string& file, const fs::path& log) {
  const pid_t pid = fork();
  if (pid == 0) {
    const std::string cmd = std::string("exec ") + TUNE_EXECUTABLE + " sweep " + file + " > '" + log.string() + "' 2>&1";
    execl("/bin/sh", "sh", "-c", cmd.c_str(), static_cast<char*>(nullptr));
    _exit(127);
  }
  return pid;
}

int wait_exit(pid_t pid) {
  int status = 0;
  waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

nlohmann::json study_state(const fs::path& state_dir, const std::string& id) {
  const std::string text = read_file(state_dir / "state.json");
  if (text.empty()) return {};
  const auto state = nlohmann::json::parse(text);  // kept: a range-for over a temporary's member would dangle
  for (const auto& s : state["studies"])
    if (s["id"] == id) return s;
  return {};
}

// Waits until the study's record reaches `phase` (false after `seconds`).
bool wait_for_phase(const fs::path& state_dir, const std::string& id, const std::string& phase, double seconds) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  while (std::chrono::steady_clock::now() < deadline) {
    const auto s = study_state(state_dir, id);
    if (!s.is_null() && s["phase"] == phase) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
  return false;
}

// model/backend/precision -> best config, from a sweep's merged store.
std::map<std::string, BestConfig> bests(const fs::path& store) {
  std::map<std::string, BestConfig> out;
  for (const auto& row : Database(store.string()).best_rows())
    out[row.key.model + "/" + row.key.backend + "/" + row.key.precision] = row.best;
  return out;
}

// Each learning-rate trial's loss curve by its rate, for one study of a sweep's merged store.
std::map<double, std::vector<double>> losses_by_rate(const fs::path& store, const std::string& study) {
  const Database db(store.string());
  std::map<double, std::vector<double>> out;
  for (const auto& row : db.best_rows())
    if (row.key.model + "/" + row.key.backend + "/" + row.key.precision == study)
      for (const auto& t : db.trials(row.study_id))
        if (t.spec.purpose == TrialPurpose::learning_rate && t.result.status == TrialStatus::ok)
          out[t.spec.learning_rate] = t.result.losses;
  return out;
}

// The same trials by either executor: same rates, and per step the same loss within 1e-3. Same seeds, threads and
// machine, yet not always bit-equal: on the Intel Xeon VM gpt2-tiny eager at 2.7e-2 (a rate where training is
// chaotic) moved by 1e-5 from its third step on, 5e-5 by its twelfth (2026-12-06). Another seed's curve differs by
// 1e-2 or more from the first step, so the tolerance still tells a wrong trial.
void expect_same_curves(const std::map<double, std::vector<double>>& local,
                        const std::map<double, std::vector<double>>& slurm, const std::string& study) {
  ASSERT_EQ(local.size(), slurm.size()) << study;
  for (const auto& [rate, losses] : local) {
    ASSERT_TRUE(slurm.count(rate)) << study << " " << rate;
    const std::vector<double>& other = slurm.at(rate);
    ASSERT_EQ(losses.size(), other.size()) << study << " " << rate;
    for (size_t i = 0; i < losses.size(); ++i)
      EXPECT_NEAR(losses[i], other[i], 1e-3) << study << " " << rate << " step " << i;
  }
}

class SlurmSweep : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = temp_dir("sweep");
    cluster_ = std::make_unique<tune::testing::SlurmCluster>(dir_ / "slurm");
    ASSERT_TRUE(cluster_->started());
  }
  void TearDown() override {
    if (HasFailure()) std::cout << cluster_->logs();
    cluster_.reset();
  }
  fs::path dir_;
  std::unique_ptr<tune::testing::SlurmCluster> cluster_;
};

}  // namespace

TEST_F(SlurmSweep, TwoModelsTwoBackendsGiveTheLocalExecutorsBestConfigs) {
  // The batch is pinned (16): where a tiny model's throughput is flat over batch sizes, timing noise picks the
  // batch (CI saw 1253 against 1586 samples/s for two sizes within one run), and that says nothing about the
  // executor. The rate is then chosen by loss, which the same seeds make equal: the comparison is exact.
  const std::string settings = write_file(dir_ / "settings.yaml", "min_batch_size: 16\nmax_batch_size: 16\n");
  const std::string args = "[--settings, '" + settings + "']";
  const CliRun local = sweep(sweep_file(dir_, "local", "bert-tiny, gpt2-tiny", "eager,jit", "", args));
  ASSERT_EQ(local.exit_code, 0) << local.output;
  const CliRun slurm = sweep(sweep_file(dir_, "slurm", "bert-tiny, gpt2-tiny", "eager,jit", "", args));
  ASSERT_EQ(slurm.exit_code, 0) << slurm.output;
  EXPECT_NE(slurm.output.find("2 done, 0 failed"), std::string::npos) << slurm.output;
  const fs::path local_store = dir_ / "state-local" / "sweep.db", slurm_store = dir_ / "state-slurm" / "sweep.db";
  const auto by_local = bests(local_store), by_slurm = bests(slurm_store);
  ASSERT_EQ(by_local.size(), 4u);
  ASSERT_EQ(by_slurm.size(), 4u);
  for (const auto& [study, best] : by_local) {
    ASSERT_TRUE(by_slurm.count(study)) << study;
    const BestConfig& other = by_slurm.at(study);
    std::cout << study << ": local batch " << best.batch_size << " lr " << best.learning_rate << "; slurm batch "
              << other.batch_size << " lr " << other.learning_rate << "\n";
    EXPECT_EQ(best.batch_size, 16) << study;
    EXPECT_EQ(other.batch_size, 16) << study;
    EXPECT_DOUBLE_EQ(best.learning_rate, other.learning_rate) << study;
    EXPECT_GT(other.samples_per_second, 0) << study;
    const auto local_losses = losses_by_rate(local_store, study), slurm_losses = losses_by_rate(slurm_store, study);
    EXPECT_GE(local_losses.size(), 2u) << study;
    expect_same_curves(local_losses, slurm_losses, study);
  }
  EXPECT_TRUE(fs::exists(dir_ / "state-slurm" / "table.md"));
}

TEST_F(SlurmSweep, ATaskCancelledMidRunIsResubmittedAndTheSweepCompletes) {
  const std::string file = sweep_file(dir_, "slurm", "bert-tiny", "eager,jit");
  const fs::path state = dir_ / "state-slurm";
  const pid_t coordinator = start_coordinator(file, dir_ / "coordinator.log");
  ASSERT_TRUE(wait_for_phase(state, "bert-tiny.seq32.debug", "running", 60)) << read_file(dir_ / "coordinator.log");
  std::this_thread::sleep_for(std::chrono::seconds(2));  // some trials committed
  const std::string job = study_state(state, "bert-tiny.seq32.debug")["job"];
  ASSERT_EQ(run_command("scancel " + job).exit_code, 0);
  EXPECT_EQ(wait_exit(coordinator), 0) << read_file(dir_ / "coordinator.log");
  const auto record = study_state(state, "bert-tiny.seq32.debug");
  EXPECT_EQ(record["phase"], "done");
  EXPECT_EQ(record["attempts"], 2);
  ASSERT_EQ(record["history"].size(), 1u);
  EXPECT_NE(record["history"][0].get<std::string>().find("CANCELLED"), std::string::npos) << record.dump();
  EXPECT_NE(read_file(dir_ / "coordinator.log").find("resubmitting"), std::string::npos);
  EXPECT_EQ(bests(state / "sweep.db").size(), 2u);  // eager and jit
}

TEST_F(SlurmSweep, AKilledCoordinatorReattachesToItsJobInsteadOfResubmitting) {
  const std::string file = sweep_file(dir_, "slurm", "bert-tiny", "eager,jit");
  const fs::path state = dir_ / "state-slurm";
  const pid_t first = start_coordinator(file, dir_ / "first.log");
  ASSERT_TRUE(wait_for_phase(state, "bert-tiny.seq32.debug", "running", 60)) << read_file(dir_ / "first.log");
  kill(first, SIGKILL);
  wait_exit(first);
  const std::string job = study_state(state, "bert-tiny.seq32.debug")["job"];
  EXPECT_NE(run_command("squeue -h -o %i").output.find(job), std::string::npos) << "the job died with its coordinator";
  const CliRun second = sweep(file);
  EXPECT_EQ(second.exit_code, 0) << second.output;
  const auto record = study_state(state, "bert-tiny.seq32.debug");
  EXPECT_EQ(record["phase"], "done");
  EXPECT_EQ(record["attempts"], 1) << "resubmitted instead of re-attached";
  EXPECT_EQ(record["job"], job);
  EXPECT_TRUE(record["merged"].get<bool>());
}

TEST_F(SlurmSweep, ATaskThatExitsNonZeroIsReportedWithSlurmsReason) {
  const std::string file = sweep_file(dir_, "slurm", "bert-nonexistent", "eager");
  const std::string with_two_attempts = write_file(file, read_file(file) + "max_attempts: 2\n");
  const CliRun run = sweep(with_two_attempts);
  EXPECT_EQ(run.exit_code, 1) << run.output;
  EXPECT_NE(run.output.find("FAILED (exit 2:0, NonZeroExitCode)"), std::string::npos) << run.output;
  EXPECT_NE(run.output.find("given up after 2 attempt(s)"), std::string::npos) << run.output;
  const CliRun status = sweep(with_two_attempts, "--status");
  EXPECT_EQ(status.exit_code, 0) << status.output;
  EXPECT_NE(status.output.find("bert-nonexistent.seq32.debug: failed, attempt 2"), std::string::npos) << status.output;
}

// Two nodes (scripts/slurm-local --nodes 2: a slurmd in each of two network namespaces): the sweep's array runs its
// two studies on different nodes, as it would spread over a cluster, and completes as on one node. The nodes
// share this machine's CPUs: this shows the spreading, not timing.
TEST(SlurmTwoNodes, TheArraysStudiesRunOnDifferentNodes) {
  const fs::path dir = temp_dir("sweep-two-nodes");
  tune::testing::SlurmCluster cluster(dir / "slurm", 2);
  if (cluster.unavailable()) GTEST_SKIP() << "network namespaces cannot be made on this machine (root and iproute2)";
  ASSERT_TRUE(cluster.started());
  const CliRun run = sweep(sweep_file(dir, "slurm", "bert-tiny, gpt2-tiny", "eager"));
  ASSERT_EQ(run.exit_code, 0) << run.output << cluster.logs();
  EXPECT_NE(run.output.find("2 done, 0 failed"), std::string::npos) << run.output;
  std::set<std::string> nodes;
  for (const std::string id : {"bert-tiny.seq32.debug", "gpt2-tiny.seq32.debug"}) {
    const std::string job = study_state(dir / "state-slurm", id)["job"];
    const std::string shown = run_command("scontrol -o show job " + job).output;
    std::smatch node;
    ASSERT_TRUE(std::regex_search(shown, node, std::regex(R"( NodeList=(\S+))"))) << shown;
    nodes.insert(node[1]);
  }
  EXPECT_EQ(nodes, (std::set<std::string>{"n1", "n2"}));
  EXPECT_TRUE(fs::exists(dir / "state-slurm" / "table.md"));
}
