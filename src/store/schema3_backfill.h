// What schema 3 stores that schema 2 did not, derived once for rows stored before it (the migration's
// backfill, and nothing else): the instance's hardware from its fingerprint text, and the batch limit
// from a study's trials, as the tables of schema 2 derived them on every read.
#pragma once
#include <string>
#include <vector>

#include "instance/instance.h"
#include "common/stop_reasons.h"

namespace tune {

// "cpu:NAME|7.8 GiB|2 threads|x4" -> its parts (memory to the byte the text rounds to); missing parts keep defaults.
InstanceHardware hardware_from_fingerprint(const std::string& fingerprint);

// What a schema-2 best config says of its batch, and a throughput trial of its study (read from the trials
// table's own columns, so a row whose JSON this version cannot read does not stop the migration).
struct LegacyBest {
  int batch_size = 0;
  double samples_per_second = 0;
  bool capped_by_range = false;
};
struct LegacyTrial {
  int batch_size = 0;
  TrialStatus status = TrialStatus::ok;
  double samples_per_second = 0;
};

// The batch limit by the one rule (batch_limit_of), what ended the search told by its trials: a best size that
// gained less than batch_ramp's 5% (what every schema-2 search ran with) over the fastest smaller one ended by
// throughput; one still gaining was cut short (budget). The stages' stop texts were never stored: they stay empty.
StopReasons legacy_stop_reasons(const LegacyBest& best, const std::vector<LegacyTrial>& trials);

}  // namespace tune
