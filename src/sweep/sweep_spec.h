// A sweep file (YAML): which studies to run (models x sequence lengths x partitions), with what tune flags and
// budgets, where their state and results go, and for Slurm each partition's sbatch options.
#pragma once
#include <map>
#include <string>
#include <vector>

namespace tune {

// One Slurm partition = one instance type to measure (each task detects and keys its own instance).
struct SlurmPartition {
  std::string name;                 // sbatch --partition
  std::vector<std::string> sbatch;  // further sbatch options: --gres=gpu:1, --time=02:00:00, --account=X, ...
  bool exclusive = true;            // a whole node per study; false: cpus_per_task CPUs (one study per GPU)
  int cpus_per_task = 0;            // required when not exclusive
};

struct SweepSpec {
  std::string file;                 // the sweep file, for messages
  std::string name;                 // the file's stem unless given: names the Slurm jobs
  std::vector<std::string> models;  // tested model names or model folders
  std::vector<int> seq_lens{128};
  double budget_seconds = 30 * 60;               // each study's tune --budget
  std::map<std::string, double> model_budgets;   // per model, over budget_seconds
  std::string backends, precisions;              // tune's --backends / --precisions; empty: tune's default coverage
  int seed = 0;
  int ranks = 1;                                 // tune's --ranks: data-parallel studies (the batch is per rank)
  std::vector<std::string> tune_args;            // further flags for every study's tune
  std::string executor = "local";                // local | slurm
  std::string state_dir;                         // the sweep's state, logs and per-study databases
  std::string store;                             // the database every study is merged into
  bool node_local_db = false;                    // a task writes its database on the node, copied back at its end
  int max_attempts = 3;                          // runs per study before it is reported failed
  double poll_seconds = 10;
  std::vector<SlurmPartition> partitions;        // slurm: at least one

  double budget_of(const std::string& model) const;
};

// Reads and checks a sweep file. Relative paths in it are relative to the file's folder; state_dir defaults to
// sweeps/NAME beside it, store to STATE_DIR/sweep.db. Throws std::invalid_argument naming the file, line and
// key for a missing or mistyped value, an unknown key (with the nearest known one) or an unknown executor.
SweepSpec read_sweep_spec(const std::string& path);

}  // namespace tune
