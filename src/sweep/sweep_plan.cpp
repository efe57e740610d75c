// Expands a sweep file into studies and writes each one's shell script; the scripts are what the local executor
// runs and what a Slurm array task execs, so both executors run exactly the same command.
#include "sweep/sweep_plan.h"

#include <filesystem>
#include <fstream>
#include <iomanip>
#include <sstream>
#include <stdexcept>

#include "util/duration.h"

namespace tune {
namespace {

namespace fs = std::filesystem;

// A model folder's last component; names and hub ids with '/' made file-safe.
std::string file_safe(std::string name) {
  if (std::error_code error; fs::is_directory(name, error)) name = fs::path(name).filename().string();
  for (char& c : name)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '-' && c != '_' && c != '.') c = '_';
  return name;
}

std::vector<std::string> tune_args_of(const SweepSpec& spec, const std::string& model, int seq_len) {
  std::vector<std::string> args = {"--model", model, "--seq-len", std::to_string(seq_len), "--budget",
                                   std::to_string(static_cast<long>(spec.budget_of(model))) + "s",
                                   "--seed", std::to_string(spec.seed)};
  if (!spec.backends.empty()) args.insert(args.end(), {"--backends", spec.backends});
  if (!spec.precisions.empty()) args.insert(args.end(), {"--precisions", spec.precisions});
  if (spec.ranks > 1) args.insert(args.end(), {"--ranks", std::to_string(spec.ranks)});
  args.insert(args.end(), spec.tune_args.begin(), spec.tune_args.end());
  return args;
}

std::string shell_quoted(const std::string& word) {
  std::string out = "'";
  for (char c : word) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

std::string command_line(const std::string& tune, const std::vector<std::string>& args, const std::string& db) {
  std::string line = shell_quoted(tune);
  for (const auto& a : args) line += " " + shell_quoted(a);
  return line + " --db " + db;
}

}  // namespace

std::vector<PlannedStudy> plan_sweep(const SweepSpec& spec) {
  std::vector<PlannedStudy> plan;
  std::vector<std::string> partitions;
  for (const auto& p : spec.partitions) partitions.push_back(p.name);
  if (spec.executor != "slurm") partitions = {""};
  for (const auto& model : spec.models)
    for (int seq : spec.seq_lens)
      for (const auto& partition : partitions) {
        PlannedStudy s;
        s.model = model, s.partition = partition, s.seq_len = seq;
        s.id = file_safe(model) + ".seq" + std::to_string(seq) + (partition.empty() ? "" : "." + file_safe(partition));
        s.budget_seconds = spec.budget_of(model);
        s.tune_args = tune_args_of(spec, model, seq);
        plan.push_back(std::move(s));
      }
  return plan;
}

std::string study_db_path(const SweepSpec& spec, const PlannedStudy& s) {
  return spec.state_dir + "/studies/" + s.id + ".db";
}
std::string study_script_path(const SweepSpec& spec, const PlannedStudy& s) {
  return spec.state_dir + "/tasks/" + s.id + ".sh";
}
std::string study_log_path(const SweepSpec& spec, const PlannedStudy& s) {
  return spec.state_dir + "/logs/" + s.id + ".log";
}

std::string write_study_script(const SweepSpec& spec, const PlannedStudy& study, const std::string& tune_executable) {
  const std::string db = study_db_path(spec, study), path = study_script_path(spec, study);
  fs::create_directories(fs::path(db).parent_path());
  fs::create_directories(fs::path(path).parent_path());
  std::ostringstream script;
  script << "#!/bin/bash\n# tune sweep " << spec.name << ": study " << study.id << " (written by tune sweep from "
         << spec.file << ")\n";
  if (!spec.node_local_db) {
    script << "exec " << command_line(tune_executable, study.tune_args, shell_quoted(db)) << "\n";
  } else {
    // The rerun of a failed task starts from the trials its last run copied back.
    script << "db=" << shell_quoted(db) << "\nlocal_db=\"${TMPDIR:-/tmp}/tune-sweep-" << study.id << "-$$.db\"\n"
           << "[ -f \"$db\" ] && cp \"$db\" \"$local_db\"\n"
           << command_line(tune_executable, study.tune_args, "\"$local_db\"") << "\nrc=$?\n"
           << "cp \"$local_db\" \"$db.part\" && mv \"$db.part\" \"$db\"\nrm -f \"$local_db\"\nexit $rc\n";
  }
  std::ofstream out(path);
  out << script.str();
  if (!out) throw std::runtime_error("cannot write the study script '" + path + "'");
  out.close();
  fs::permissions(path, fs::perms::owner_all | fs::perms::group_read | fs::perms::others_read);
  return path;
}

}  // namespace tune
