// Reading a sweep file: every key typed and checked through util/yaml_fields.h, unknown keys refused, paths made
// absolute so that a Slurm task on another node finds them the same.
#include "sweep/sweep_spec.h"

#include <filesystem>
#include <stdexcept>

#include "util/yaml_fields.h"

namespace tune {
namespace {

namespace fs = std::filesystem;

const std::vector<std::string> kSweepKeys = {"name", "models", "seq_lens", "budget", "budgets", "backends",
                                             "precisions", "seed", "ranks", "tune_args", "executor", "state_dir", "store",
                                             "task_db", "max_attempts", "poll_seconds", "slurm"};
const std::vector<std::string> kPartitionKeys = {"name", "sbatch", "exclusive", "cpus_per_task"};

std::string absolute_from(const fs::path& base, const std::string& path) {
  if (path.empty()) return path;
  try {
    return fs::weakly_canonical(fs::path(path).is_absolute() ? fs::path(path) : base / path).string();
  } catch (const fs::filesystem_error& e) {
    throw std::invalid_argument("path '" + path + "': " + e.code().message());
  }
}

SlurmPartition read_partition(const YAML::Node& node, size_t index, const std::string& file) {
  const std::string prefix = "slurm.partitions[" + std::to_string(index) + "].";
  check_known_keys(node, kPartitionKeys, file, prefix);
  SlurmPartition p;
  read_yaml_key(node, "name", p.name, file, prefix, true);
  read_yaml_key(node, "sbatch", p.sbatch, file, prefix);
  read_yaml_key(node, "exclusive", p.exclusive, file, prefix);
  read_yaml_key(node, "cpus_per_task", p.cpus_per_task, file, prefix);
  if (!p.exclusive && p.cpus_per_task < 1)
    throw std::invalid_argument(file + ": " + prefix + "cpus_per_task: a partition that is not exclusive needs the "
                                "CPUs each study gets (at least 1), so that no two studies share a CPU set");
  return p;
}

void read_slurm(const YAML::Node& root, SweepSpec& spec) {
  const YAML::Node slurm = root["slurm"];
  if (!slurm) return;
  check_known_keys(slurm, {"partitions"}, spec.file, "slurm.");
  const YAML::Node list = slurm["partitions"];
  if (!list || !list.IsSequence())
    throw std::invalid_argument(spec.file + ": key 'slurm.partitions': expected a list of partitions");
  for (size_t i = 0; i < list.size(); ++i) spec.partitions.push_back(read_partition(list[i], i, spec.file));
}

void read_budgets(const YAML::Node& root, SweepSpec& spec) {
  read_yaml_duration(root, "budget", spec.budget_seconds, spec.file);
  const YAML::Node budgets = root["budgets"];
  if (!budgets) return;
  if (!budgets.IsMap()) throw std::invalid_argument(spec.file + ": key 'budgets': expected model: duration pairs");
  for (const auto& entry : budgets) {
    const std::string model = yaml_key_name(entry.first, spec.file);
    read_yaml_duration(budgets, model, spec.model_budgets[model], spec.file, "budgets.");
  }
}

void read_where(const YAML::Node& root, const fs::path& base, SweepSpec& spec) {
  std::string task_db = "shared";
  read_yaml_key(root, "state_dir", spec.state_dir, spec.file);
  read_yaml_key(root, "store", spec.store, spec.file);
  read_yaml_key(root, "task_db", task_db, spec.file);
  if (task_db != "shared" && task_db != "node-local")
    throw std::invalid_argument(spec.file + ": key 'task_db': expected shared or node-local, got '" + task_db + "'");
  spec.node_local_db = task_db == "node-local";
  spec.state_dir = absolute_from(base, spec.state_dir.empty() ? "sweeps/" + spec.name : spec.state_dir);
  for (auto& model : spec.models)  // a model folder named relative to the file; names and hub ids stay as they are
    if (std::error_code error; fs::exists(base / model, error)) model = absolute_from(base, model);
  spec.store = spec.store.empty() ? spec.state_dir + "/sweep.db" : absolute_from(base, spec.store);
}

void check(const SweepSpec& spec) {
  const auto fail = [&](const std::string& what) { throw std::invalid_argument(spec.file + ": " + what); };
  if (spec.models.empty()) fail("key 'models': expected at least one model");
  if (spec.seq_lens.empty()) fail("key 'seq_lens': expected at least one sequence length");
  for (int s : spec.seq_lens)
    if (s < 1) fail("key 'seq_lens': expected positive lengths, got " + std::to_string(s));
  if (spec.budget_seconds <= 0) fail("key 'budget': expected a positive duration");
  for (const auto& [model, seconds] : spec.model_budgets)
    if (seconds <= 0) fail("key 'budgets." + model + "': expected a positive duration");
  if (spec.executor != "local" && spec.executor != "slurm")
    fail("key 'executor': expected local or slurm, got '" + spec.executor + "'");
  if (spec.executor == "slurm" && spec.partitions.empty())
    fail("key 'slurm.partitions': the slurm executor needs at least one partition (the instances to measure)");
  if (spec.max_attempts < 1) fail("key 'max_attempts': expected at least 1");
  if (spec.ranks < 1)
    fail("key 'ranks': expected at least 1 (1: one process per trial), got " + std::to_string(spec.ranks));
  if (spec.poll_seconds <= 0) fail("key 'poll_seconds': expected a positive number");
}

}  // namespace

double SweepSpec::budget_of(const std::string& model) const {
  const auto it = model_budgets.find(model);
  return it == model_budgets.end() ? budget_seconds : it->second;
}

SweepSpec read_sweep_spec(const std::string& path) {
  const YAML::Node root = load_yaml_file(path);
  if (!root.IsMap()) throw std::invalid_argument(path + ": expected a mapping of sweep keys (models, budget, ...)");
  check_known_keys(root, kSweepKeys, path);
  SweepSpec spec;
  spec.file = path;
  spec.name = fs::path(path).stem().string();
  read_yaml_key(root, "name", spec.name, path);
  read_yaml_key(root, "models", spec.models, path, "", true);
  read_yaml_key(root, "seq_lens", spec.seq_lens, path);
  read_yaml_key(root, "backends", spec.backends, path);
  read_yaml_key(root, "precisions", spec.precisions, path);
  read_yaml_key(root, "seed", spec.seed, path);
  read_yaml_key(root, "ranks", spec.ranks, path);
  read_yaml_key(root, "tune_args", spec.tune_args, path);
  read_yaml_key(root, "executor", spec.executor, path);
  read_yaml_key(root, "max_attempts", spec.max_attempts, path);
  read_yaml_key(root, "poll_seconds", spec.poll_seconds, path);
  read_budgets(root, spec);
  read_where(root, fs::absolute(path).parent_path(), spec);
  read_slurm(root, spec);
  check(spec);
  return spec;
}

}  // namespace tune
