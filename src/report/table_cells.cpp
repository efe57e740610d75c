// Formats one tested-models row as text cells: native beside the fastest compiled backend, with
// speed-up, compile overhead, break-even, peak memory, trial count and dates.
#include "report/table_cells.h"

#include "instance/instance.h"
#include "util/table_format.h"

namespace tune {
namespace {

// The cell f makes of a backend's result, or "-" when the row has no such backend.
template <typename Format>
std::string cell(const BackendResult* r, Format f) {
  return r ? f(*r) : "-";
}

std::string learning_rate(const BackendResult& r) { return strf("%.1e", r.best.learning_rate); }
std::string peak_memory(const BackendResult& r) { return format_bytes(r.best.peak_memory_bytes); }
std::string compile_overhead(const BackendResult& r) { return strf("%.1f s", r.best.compile_overhead_seconds); }
std::string native_batch(const BackendResult& r) { return batch_size_cell(r, ""); }
std::string compiled_batch(const BackendResult& r) { return batch_size_cell(r, r.backend); }

std::string throughput_cell(const BackendResult* r) {
  if (!r) return "-";
  return strf("%.2f", r->best.samples_per_second) + (r->best.mfu > 0 ? strf(" (MFU %.1f%%)", 100 * r->best.mfu) : "");
}

std::string precision_cell(const TableRow& row) {
  return row.step_options == kDefaultStepOptions ? row.precision : row.precision + " (" + row.step_options + ")";
}

std::string day(const std::string& iso_time) { return iso_time.substr(0, 10); }

}  // namespace

const char* const kRangeCapFootnote =
    "* largest batch size tested: the largest size of the search range fit and was still the fastest, "
    "so the real limit is higher (raise `max_batch_size`).";
const char* const kTrialCapNote =
    "\"max trials\": the batch search's trial cap (max_trials) ended it first, so a larger size may be faster.";
const char* const kBatchLimitNote =
    "Batch sizes are per device. \"OOM at N\": size N ran out of memory, so the size shown is the largest that "
    "fit. \"timeout at N\" (or another status): size N failed otherwise. \"budget\": the time budget ended the "
    "search first. No mark: a larger size ran but was not faster.";

std::vector<std::string> table_header() {
  return {"model", "libtorch", "instance", "precision", "seq", "batch native", "batch compiled", "lr native",
          "lr compiled", "samples/s native", "samples/s compiled", "speedup", "compile overhead", "break-even",
          "peak mem native", "peak mem compiled", "trials", "measured"};
}

std::string batch_limit_note(const BackendResult& r) {
  const StopReasons& stop = r.best.stop;
  switch (stop.batch_limit) {
    case BatchLimit::memory: return "OOM at " + std::to_string(stop.limit_batch_size);
    case BatchLimit::failure: return to_string(stop.limit_status) + " at " + std::to_string(stop.limit_batch_size);
    case BatchLimit::budget: return "budget";
    case BatchLimit::trials: return "max trials";
    case BatchLimit::range:
    case BatchLimit::throughput: break;
  }
  return "";
}

std::string batch_size_cell(const BackendResult& r, const std::string& backend) {
  std::string notes = backend;
  const std::string limit = batch_limit_note(r);
  if (!limit.empty()) notes += (notes.empty() ? "" : "; ") + limit;
  return std::to_string(r.best.batch_size) + (r.best.batch_capped_by_range() ? "*" : "") +
         (notes.empty() ? "" : " (" + notes + ")");
}

std::string measured_when(const TableRow& row) {
  const std::string first = day(row.first_trial_at), last = day(row.last_trial_at);
  return first == last ? last : first + " to " + last;
}

bool any_batch_limit(const TestedModelsTable& table, BatchLimit limit) {
  for (const auto& row : table.rows)
    for (const auto& b : row.backends)
      if (b.best.stop.batch_limit == limit) return true;
  return false;
}

std::vector<std::string> table_cells(const TableRow& row) {
  const BackendResult* n = row.native_result();
  const BackendResult* c = row.compiled_result();
  const bool both = n && c;
  return {row.model, row.libtorch_version, describe_instance(row.instance), precision_cell(row),
          std::to_string(row.seq_len), cell(n, native_batch), cell(c, compiled_batch), cell(n, learning_rate),
          cell(c, learning_rate), throughput_cell(n), throughput_cell(c),
          both ? strf("%.2fx", row.amortization.speedup) : "-", cell(c, compile_overhead),
          both ? describe_break_even(row.amortization) : "-", cell(n, peak_memory), cell(c, peak_memory),
          std::to_string(row.trials_run), measured_when(row)};
}

}  // namespace tune
