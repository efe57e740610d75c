// Gathers the tested-models table from the store: groups best configs into rows, reads each study's
// trials for its curves, and works out what stopped each batch search (memory, range, throughput).
#include "report/tested_models_table.h"

#include <algorithm>
#include <map>
#include <sstream>
#include <tuple>

#include "util/table_format.h"

namespace tune {
namespace {

// Everything that identifies a row except the backend: results of different versions never mix.
using RowKey = std::tuple<std::string, std::string, std::string, std::string, std::string, std::string, int,
                          std::string>;

RowKey row_key(const StudyKey& k) {
  return {k.model, k.libtorch_version, k.tune_version, k.instance, k.instance_fingerprint, k.precision, k.seq_len,
          k.step_options};
}

std::vector<std::string> split(const std::string& text, char separator) {
  std::vector<std::string> parts;
  std::stringstream in(text);
  for (std::string part; std::getline(in, part, separator);) parts.push_back(part);
  return parts;
}

int leading_int(const std::string& text, int fallback) {
  try {
    return std::stoi(text);
  } catch (const std::exception&) {
    return fallback;
  }
}

std::vector<LearningRatePoint> lr_curve(const std::vector<StoredTrial>& trials, int batch_size) {
  // Successive halving stores short and long trials of one rate: the longest run of each rate speaks for it.
  std::map<double, std::pair<int, LearningRatePoint>> by_rate;
  for (const auto& t : trials) {
    if (t.spec.purpose != TrialPurpose::learning_rate || t.spec.batch_size != batch_size) continue;
    auto& slot = by_rate[t.spec.learning_rate];
    if (slot.first > t.spec.train_steps) continue;
    slot = {t.spec.train_steps, {t.spec.learning_rate, t.result.status, t.result.score_loss}};
  }
  std::vector<LearningRatePoint> curve;
  for (const auto& [rate, slot] : by_rate) curve.push_back(slot.second);
  return curve;
}

std::vector<BatchPoint> batch_curve(const std::vector<StoredTrial>& trials) {
  std::map<int, BatchPoint> by_batch;
  for (const auto& t : trials) {
    if (t.spec.purpose != TrialPurpose::throughput) continue;
    const bool ok = t.result.ok();
    by_batch[t.spec.batch_size] = {t.spec.batch_size, t.result.status, ok ? t.result.samples_per_second : 0.0,
                                   t.result.peak_memory_bytes};
  }
  std::vector<BatchPoint> curve;
  for (const auto& [batch, point] : by_batch) curve.push_back(point);
  return curve;
}

BackendResult backend_result(const Database& db, const BestRow& row, double min_throughput_gain, TableRow& table_row) {
  BackendResult result;
  result.backend = row.key.backend;
  result.best = row.best;
  const auto trials = db.trials(row.study_id);
  result.batch_curve = batch_curve(trials);
  result.lr_curve = lr_curve(trials, row.best.batch_size);
  classify_batch_limit(result, trials, min_throughput_gain);
  for (const auto& t : trials) {
    result.memory_limit_bytes = std::max(result.memory_limit_bytes, t.spec.memory_limit_bytes);
    if (table_row.first_trial_at.empty() || t.finished_at < table_row.first_trial_at)
      table_row.first_trial_at = t.finished_at;
    table_row.last_trial_at = std::max(table_row.last_trial_at, t.finished_at);
  }
  table_row.trials_run += static_cast<int>(trials.size());
  return result;
}

TableRow start_row(const StudyKey& k) {
  TableRow row;
  row.model = k.model;
  row.libtorch_version = k.libtorch_version;
  row.tune_version = k.tune_version;
  row.instance = parse_instance(k.instance, k.instance_fingerprint);
  row.precision = k.precision;
  row.step_options = k.step_options;
  row.seq_len = k.seq_len;
  return row;
}

// hf-eager (Hugging Face's module run eagerly in Python) is a reference row: neither native nor compiled.
bool is_compiled(const std::string& backend) { return backend != "eager" && backend != "hf-eager"; }

// Eager first, then by name; then points native and compiled at their results and amortizes.
void finish_row(TableRow& row) {
  std::sort(row.backends.begin(), row.backends.end(), [](const BackendResult& a, const BackendResult& b) {
    return std::make_pair(a.backend != "eager", a.backend) < std::make_pair(b.backend != "eager", b.backend);
  });
  for (size_t i = 0; i < row.backends.size(); ++i) {
    const BackendResult& b = row.backends[i];
    if (b.backend == "eager") row.native = i;
    else if (is_compiled(b.backend) &&
             (!row.compiled || b.best.samples_per_second > row.backends[*row.compiled].best.samples_per_second))
      row.compiled = i;
  }
  if (row.native && row.compiled) {
    const BestConfig& n = row.backends[*row.native].best;
    const BestConfig& c = row.backends[*row.compiled].best;
    row.amortization = amortize(n.samples_per_second, c.samples_per_second, c.batch_size, c.compile_overhead_seconds);
  }
}

}  // namespace

std::string to_string(BatchLimit limit) {
  switch (limit) {
    case BatchLimit::memory: return "memory";
    case BatchLimit::range: return "range";
    case BatchLimit::throughput: return "throughput";
    case BatchLimit::failure: return "failure";
    case BatchLimit::budget: return "budget";
  }
  return "unknown";
}

void classify_batch_limit(BackendResult& result, const std::vector<StoredTrial>& trials, double min_throughput_gain) {
  const int best = result.best.batch_size;
  const StoredTrial* oom = nullptr;
  const StoredTrial* failed = nullptr;
  bool larger_ran = false;
  double smaller_best_rate = 0;  // the fastest smaller size, to tell a plateau from a ramp cut short
  for (const auto& t : trials) {
    if (t.spec.purpose != TrialPurpose::throughput) continue;
    const TrialStatus s = t.result.status;
    if (t.spec.batch_size < best && s == TrialStatus::ok)
      smaller_best_rate = std::max(smaller_best_rate, t.result.samples_per_second);
    if (t.spec.batch_size <= best) continue;
    if (s == TrialStatus::oom && (!oom || t.spec.batch_size < oom->spec.batch_size)) oom = &t;
    else if (s == TrialStatus::ok) larger_ran = true;
    else if (!failed || t.spec.batch_size < failed->spec.batch_size) failed = &t;
  }
  const bool plateau =
      smaller_best_rate > 0 && result.best.samples_per_second < smaller_best_rate * (1 + min_throughput_gain);
  // Memory outranks the rest: a bisecting search may also have run larger sizes that were slower.
  const StoredTrial* limit = oom ? oom : failed;
  result.batch_limit = oom ? BatchLimit::memory
                     : result.best.batch_capped_by_range ? BatchLimit::range
                     : larger_ran ? BatchLimit::throughput
                     : failed ? BatchLimit::failure
                     : plateau ? BatchLimit::throughput
                     : BatchLimit::budget;
  const bool names_a_batch = result.batch_limit == BatchLimit::memory || result.batch_limit == BatchLimit::failure;
  result.limit_batch_size = names_a_batch ? limit->spec.batch_size : 0;
  result.limit_status = names_a_batch ? limit->result.status : TrialStatus::ok;
}

InstanceParts parse_instance(const std::string& name, const std::string& fingerprint) {
  InstanceParts parts;
  parts.name = name;
  parts.fingerprint = fingerprint;
  const auto fields = split(fingerprint, '|');
  if (!fields.empty()) {
    const auto colon = fields[0].find(':');
    parts.device = fields[0].substr(0, colon);
    parts.device_name = colon == std::string::npos ? "" : fields[0].substr(colon + 1);
  }
  if (fields.size() > 1) parts.memory = fields[1];
  if (fields.size() > 2) parts.threads = leading_int(fields[2], 0);
  if (fields.size() > 3) parts.count = leading_int(fields[3].substr(fields[3].find_first_not_of('x')), 1);
  return parts;
}

std::string describe_instance(const InstanceParts& i) {
  std::string inside = std::to_string(i.count) + "x " + (i.device_name.empty() ? i.device : i.device_name);
  if (i.threads > 0) inside += ", " + std::to_string(i.threads) + " threads";
  if (!i.memory.empty()) inside += ", " + i.memory;
  return i.name + " (" + inside + ")";
}

TestedModelsTable gather_tested_models(const Database& db, const std::string& source, double min_throughput_gain) {
  std::map<RowKey, TableRow> rows;
  for (const auto& best : db.best_rows()) {
    const RowKey key = row_key(best.key);
    auto found = rows.find(key);
    if (found == rows.end()) found = rows.emplace(key, start_row(best.key)).first;
    found->second.backends.push_back(backend_result(db, best, min_throughput_gain, found->second));
  }
  TestedModelsTable table;
  table.source = source;
  for (auto& [key, row] : rows) {
    finish_row(row);
    table.rows.push_back(std::move(row));
  }
  return table;
}

double native_seconds_at(const TableRow& row, double steps) {
  const auto* n = row.native_result();
  const auto* c = row.compiled_result();
  if (!n || !c || n->best.samples_per_second <= 0) return 0;
  return steps * c->best.batch_size / n->best.samples_per_second;
}

double compiled_seconds_at(const TableRow& row, double steps) {
  const auto* c = row.compiled_result();
  if (!c || c->best.samples_per_second <= 0) return 0;
  return std::max(0.0, c->best.compile_overhead_seconds) + steps * c->best.batch_size / c->best.samples_per_second;
}

}  // namespace tune
