// The reproducibility benchmark's comparison (scripts/reproducibility, reports/reproducibility.md): the same
// searches run in two sittings at least an hour apart into fresh stores, and each row's decisions compared. A
// decision agrees when both sittings took it alike, or when one sitting shows a tie that covers the other's value
// (a paired verdict of no difference whose interval holds the other's speed-up; a rate tie naming the other's
// rate; a batch size within the noise of the other sitting's, by its confirmation rounds), or when one sitting's
// answer is a bound its table marks and the other's value lies within it (a rate at the edge of the rates tried,
// "≥3e-4"; a batch size whose ramp the budget or the trial cap ended, so a larger size may be faster; a rate the
// table calls "not separated yet", which the model had not learned enough to rank and so allows any). Ties and
// bounds are counted apart: a table where everything ties agrees trivially and answers nothing.
#pragma once
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "report/reporter.h"

namespace tune {

enum class Agreement { same, tie, bound, differs };

struct Decision {
  std::string row;   // "bert-tiny fp32"
  std::string what;  // "compile", "batch native", "rate compiled", "screen: jit"
  std::string first, second;  // each sitting's answer, in words
  Agreement agreement = Agreement::same;
};

struct ReproducibilityComparison {
  std::string first_label, second_label;  // each sitting's time span, from its rows' trial times
  std::vector<Decision> decisions;
  int count(Agreement a) const;
};

// The decisions of every row in either table (`tune table --format json` of each sitting's store, schema 8 or
// later); a row in one sitting only is a decision that differs.
ReproducibilityComparison compare_sittings(const nlohmann::json& first_table, const nlohmann::json& second_table);

// md.
ReporterList<ReproducibilityComparison> reproducibility_reporters();

}  // namespace tune
