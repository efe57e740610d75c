// Builds the `tune export` document from the store's own reads (studies, best, trials): field names are the
// structs' (StudyKey, BestConfig, StopReasons), enums as the names the store keeps, nothing derived.
#include "store/export.h"

namespace tune {
namespace {

nlohmann::json hardware_json(const InstanceHardware& h) {
  return {{"device", h.device}, {"device_name", h.device_name}, {"memory_bytes", h.memory_bytes},
          {"threads", h.threads}, {"device_count", h.device_count}, {"fingerprint", h.fingerprint()}};
}

nlohmann::json stop_json(const StopReasons& s) {
  return {{"batch_limit", to_string(s.batch_limit)}, {"limit_batch_size", s.limit_batch_size},
          {"limit_status", to_string(s.limit_status)}, {"batch_stop", s.batch_stop},
          {"lr_cause", to_string(s.lr_cause)}, {"lr_stop", s.lr_stop}, {"lr_edge", to_string(s.lr_edge)},
          {"lr_horizon_steps", s.lr_horizon_steps}, {"lr_horizon_wanted", s.lr_horizon_wanted}};
}

nlohmann::json best_json(const std::optional<BestConfig>& best) {
  if (!best) return nullptr;
  const BestConfig& b = *best;
  return {{"batch_size", b.batch_size}, {"learning_rate", b.learning_rate},
          {"samples_per_second", b.samples_per_second}, {"step_time", b.step_time},
          {"compile_overhead_seconds", b.compile_overhead_seconds}, {"peak_memory_bytes", b.peak_memory_bytes},
          {"lr_score_loss", b.lr_score_loss}, {"trials_run", b.trials_run},
          {"step_time_ci_low", b.step_time_ci_low}, {"step_time_ci_high", b.step_time_ci_high},
          {"flops_per_step", b.flops_per_step}, {"mfu", b.mfu},
          {"batch_capped_by_range", b.batch_capped_by_range()}, {"stop", stop_json(b.stop)},
          {"search_budget_seconds", b.search_budget_seconds}};
}

nlohmann::json screen_json(const std::optional<ScreenVerdict>& verdict) {
  if (!verdict) return nullptr;
  return {{"batch_size", verdict->batch_size}, {"kept", verdict->kept}, {"reason", verdict->reason},
          {"search_budget_seconds", verdict->search_budget_seconds}};
}

nlohmann::json trials_json(const std::vector<StoredTrial>& trials) {
  nlohmann::json list = nlohmann::json::array();
  for (const auto& t : trials)
    list.push_back({{"id", t.id}, {"spec", t.spec}, {"result", t.result}, {"trial_dir", t.trial_dir},
                    {"finished_at", t.finished_at}});
  return list;
}

nlohmann::json study_json(const Database& db, int64_t id, const StudyKey& k) {
  return {{"id", id}, {"model", k.model}, {"model_config_hash", k.model_config_hash}, {"instance", k.instance},
          {"hardware", hardware_json(k.hardware)}, {"libtorch_version", k.libtorch_version},
          {"tune_version", k.tune_version}, {"backend", k.backend}, {"precision", k.precision},
          {"seq_len", k.seq_len}, {"step_options", k.step_options}, {"best", best_json(db.best(id))},
          {"screen", screen_json(db.screen_verdict(id))}, {"trials", trials_json(db.trials(id))}};
}

nlohmann::json peaks_json(const std::vector<StoredPeak>& peaks) {
  nlohmann::json list = nlohmann::json::array();
  for (const auto& p : peaks)
    list.push_back({{"fingerprint", p.fingerprint}, {"libtorch_version", p.libtorch_version},
                    {"precision", p.precision}, {"flops_per_second", p.measured.flops}, {"method", p.measured.method},
                    {"measured_at", p.measured.measured_at}});
  return list;
}

}  // namespace

nlohmann::json export_database(const Database& db, const std::string& path) {
  nlohmann::json studies = nlohmann::json::array();
  for (const auto& [id, key] : db.studies()) studies.push_back(study_json(db, id, key));
  return {{"schema", "tune-export"}, {"schema_version", kExportSchemaVersion}, {"database", path},
          {"studies", studies}, {"instance_peaks", peaks_json(db.peaks())}};
}

}  // namespace tune
