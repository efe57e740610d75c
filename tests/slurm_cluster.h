// A real Slurm cluster for the sweep tests (scripts/slurm-local: Debian's slurmctld and slurmd, auth/none), one
// node or several in network namespaces, started by the test fixture and stopped after it; SLURM_CONF points this
// process and its children at it.
#pragma once
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <string>

#include "cli_run.h"

namespace tune::testing {

class SlurmCluster {
 public:
  explicit SlurmCluster(const std::filesystem::path& dir, int nodes = 1) : dir_(dir) {
    const CliRun start =
        run_command(script() + " start '" + dir_.string() + "' --nodes " + std::to_string(nodes) + " 2>&1");
    started_ = start.exit_code == 0;
    unavailable_ = start.exit_code == 3;  // the script's word for "network namespaces cannot be made here"
    if (!started_ && !unavailable_) ADD_FAILURE() << "scripts/slurm-local start failed:\n" << start.output;
    setenv("SLURM_CONF", (dir_ / "slurm.conf").c_str(), 1);
  }
  ~SlurmCluster() { run_command(script() + " stop '" + dir_.string() + "' 2>&1"); }
  SlurmCluster(const SlurmCluster&) = delete;
  SlurmCluster& operator=(const SlurmCluster&) = delete;

  bool started() const { return started_; }
  // Several nodes were asked for and this machine cannot make them (no root, no iproute2).
  bool unavailable() const { return unavailable_; }
  std::string logs() const {
    return run_command("tail -n 30 '" + dir_.string() + "'/slurm*.log").output;
  }

 private:
  static std::string script() { return std::string(TUNE_SOURCE_DIR) + "/scripts/slurm-local"; }
  std::filesystem::path dir_;
  bool started_ = false;
  bool unavailable_ = false;
};

}  // namespace tune::testing
