// The fault matrix's rows: each fault injected into a real tiny search (bert-tiny, seq 32, fp32) as many times
// as its row says, and what tune made of it: survived, committed trials lost, duplicate trials.
#pragma once
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace tune::faults {

struct FaultRow {
  std::string fault;        // what was done
  std::string expected;     // what surviving it means
  int runs = 0;
  int survived = 0;
  int lost = 0;             // committed trials gone afterwards
  int duplicated = 0;       // duplicate rows, plus committed trials measured again
  std::string observed;     // what happened, in figures
};

struct MatrixContext {
  std::string tune;                // the tune binary the matrix drives
  std::filesystem::path work;      // scratch folder, one subfolder per run
  uint64_t seed = 20;              // draws the kill moments
  int kills = 20;
  int signal_runs = 3;             // per signal (SIGINT, SIGTERM)
};

std::vector<FaultRow> run_fault_matrix(const MatrixContext& context, std::ostream& progress);

}  // namespace tune::faults
