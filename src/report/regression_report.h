// Basic regression check: each best config of the current store against the reference store's,
// flagging a throughput drop beyond a threshold. (Noise-aware statistics come with issue 6.)
#pragma once
#include <ostream>
#include <string>
#include <vector>

#include "store/database.h"

namespace tune {

struct RegressionLine {
  std::string what;       // model / instance / backend / precision / seq
  double reference = 0;   // samples/s
  double current = 0;
  double change = 0;      // relative, current vs reference
  std::string verdict;    // "ok", "regression", "missing"
};

struct RegressionReport {
  std::vector<RegressionLine> lines;
  bool regression() const;
};

// Compares rows with equal model, instance fingerprint, backend, precision and seq length.
RegressionReport compare_best(const std::vector<BestRow>& reference, const std::vector<BestRow>& current,
                              double max_throughput_drop);
void write_regression_markdown(std::ostream& out, const RegressionReport& report, double max_throughput_drop);

}  // namespace tune
