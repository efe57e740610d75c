// The trial specification's flat JSON and its identity key: an explicit list of the fields that define a
// result, so a new field changes the key only by a decision written here (a test holds every field to one).
#include "trial/trial_spec.h"

#include <stdexcept>

#include "util/hash.h"
#include "util/table_format.h"

namespace tune {

std::string to_string(TrialPurpose purpose) {
  switch (purpose) {
    case TrialPurpose::throughput: return "throughput";
    case TrialPurpose::learning_rate: return "learning_rate";
    case TrialPurpose::paired: return "paired";
  }
  return "throughput";
}

TrialPurpose parse_trial_purpose(const std::string& text) {
  for (auto purpose : {TrialPurpose::throughput, TrialPurpose::learning_rate, TrialPurpose::paired})
    if (to_string(purpose) == text) return purpose;
  throw std::invalid_argument("trial purpose '" + text + "': expected throughput, learning_rate or paired");
}

void to_json(nlohmann::json& j, TrialPurpose purpose) { j = to_string(purpose); }

void from_json(const nlohmann::json& j, TrialPurpose& purpose) { purpose = parse_trial_purpose(j.get<std::string>()); }

const std::vector<KeyField>& spec_key_fields() {
  static const std::vector<KeyField> fields{
      // What is trained, on what, and how: a different value is a different measurement.
      {"model", KeyRule::always}, {"purpose", KeyRule::always}, {"seq_len", KeyRule::always},
      {"batch_size", KeyRule::always}, {"learning_rate", KeyRule::always}, {"seed", KeyRule::always},
      {"train_steps", KeyRule::always}, {"weights_dir", KeyRule::always}, {"backend", KeyRule::always},
      {"device", KeyRule::always}, {"precision", KeyRule::always}, {"attention", KeyRule::always},
      {"optimizer", KeyRule::always}, {"warmup_steps", KeyRule::always}, {"min_measure_steps", KeyRule::always},
      {"max_measure_steps", KeyRule::always}, {"measure_seconds", KeyRule::always}, {"ci_halfwidth", KeyRule::always},
      {"corpus_path", KeyRule::always}, {"tokenizer_dir", KeyRule::always}, {"dataset_path", KeyRule::always},
      {"threads", KeyRule::always},
      // A share of the machine's memory: MemTotal moved by 68 KiB between two machines of one instance, and a trial
      // under the one cap is the trial under the other. Keyed exactly, it orphaned every stored trial (schema 6).
      {"memory_limit_bytes", KeyRule::rounded},
      // Added after trials were stored: keyed only when not at their default, so those trials keep their keys.
      {"step_clock", KeyRule::unless_default}, {"inject_slowdown", KeyRule::unless_default},
      {"compile_mode", KeyRule::unless_default}, {"dynamic_shapes", KeyRule::unless_default},
      {"lr_schedule", KeyRule::unless_default}, {"lr_warmup_steps", KeyRule::unless_default},
      {"repeat", KeyRule::unless_default}, {"held_out_share", KeyRule::unless_default},
      {"observer", KeyRule::unless_default}, {"paired_observers", KeyRule::unless_default},
      {"observer_fails_at_step", KeyRule::unless_default},
      {"ranks", KeyRule::unless_default}, {"comm_backend", KeyRule::unless_default},
      {"bucket_cap_mb", KeyRule::unless_default}, {"scaling_rounds", KeyRule::unless_default},
      {"block_steps", KeyRule::unless_default}, {"rank_fault", KeyRule::unless_default},
      {"failing_rank", KeyRule::unless_default},
      // Only a paired trial has them.
      {"paired_backends", KeyRule::paired_only}, {"paired_rounds", KeyRule::paired_only},
      {"paired_block_steps", KeyRule::paired_only}, {"slowed_backend", KeyRule::paired_only},
      // A longer patience does not change the measurement; the inputs' identity is checked on reuse instead (a key
      // of it would orphan every trial stored before it).
      {"timeout_seconds", KeyRule::never}, {"inputs_identity", KeyRule::never},
      {"compile_cache_dir", KeyRule::never}, {"collective_timeout_seconds", KeyRule::never},
      {"save_compile_artifacts", KeyRule::never}, {"compile_artifacts", KeyRule::never},
      {"rank", KeyRule::never},
  };
  return fields;
}

std::string TrialSpec::config_key() const {
  const nlohmann::json full = *this, defaults = TrialSpec{};
  nlohmann::json key = nlohmann::json::object();
  for (const auto& [name, rule] : spec_key_fields()) {
    if (rule == KeyRule::rounded) {
      key[name] = strf("%.3g", full.at(name).get<double>());
      continue;
    }
    const bool keyed = rule == KeyRule::always ||
                       (rule == KeyRule::unless_default && full.at(name) != defaults.at(name)) ||
                       (rule == KeyRule::paired_only && purpose == TrialPurpose::paired);
    if (keyed) key[name] = full.at(name);
  }
  key["model"] = model.config_hash();
  return stable_hash(key.dump());
}

void to_json(nlohmann::json& j, const PairedSettings& p) {
  j = {{"paired_backends", p.backends}, {"paired_observers", p.observers}, {"paired_rounds", p.rounds},
       {"paired_block_steps", p.block_steps}};
}

void from_json(const nlohmann::json& j, PairedSettings& p) {
  const PairedSettings defaults;
  p.backends = j.value("paired_backends", defaults.backends);
  p.observers = j.value("paired_observers", defaults.observers);
  p.rounds = j.value("paired_rounds", defaults.rounds);
  p.block_steps = j.value("paired_block_steps", defaults.block_steps);
}

void to_json(nlohmann::json& j, const TrialSpec& s) {
  j = {{"model", s.model}, {"purpose", s.purpose}, {"seq_len", s.seq_len}, {"batch_size", s.batch_size},
       {"learning_rate", s.learning_rate}, {"seed", s.seed}, {"train_steps", s.train_steps},
       {"lr_schedule", s.lr_schedule}, {"lr_warmup_steps", s.lr_warmup_steps},
       {"weights_dir", s.weights_dir}, {"threads", s.threads}, {"memory_limit_bytes", s.memory_limit_bytes},
       {"timeout_seconds", s.timeout_seconds}, {"inputs_identity", s.inputs_identity}, {"repeat", s.repeat},
       {"compile_cache_dir", s.compile_cache_dir}, {"save_compile_artifacts", s.save_compile_artifacts},
       {"compile_artifacts", s.compile_artifacts}};
  for (const nlohmann::json& group : {nlohmann::json(s.step), nlohmann::json(s.measure), nlohmann::json(s.data),
                                      nlohmann::json(s.paired), nlohmann::json(s.distributed), nlohmann::json(s.test)})
    j.update(group);
}

void from_json(const nlohmann::json& j, TrialSpec& s) {
  const TrialSpec d;
  s.model = j.value("model", d.model);
  s.purpose = j.value("purpose", d.purpose);
  s.seq_len = j.value("seq_len", d.seq_len);
  s.batch_size = j.value("batch_size", d.batch_size);
  s.learning_rate = j.value("learning_rate", d.learning_rate);
  s.seed = j.value("seed", d.seed);
  s.train_steps = j.value("train_steps", d.train_steps);
  s.lr_schedule = j.value("lr_schedule", d.lr_schedule);
  s.lr_warmup_steps = j.value("lr_warmup_steps", d.lr_warmup_steps);
  s.weights_dir = j.value("weights_dir", d.weights_dir);
  s.threads = j.value("threads", d.threads);
  s.memory_limit_bytes = j.value("memory_limit_bytes", d.memory_limit_bytes);
  s.timeout_seconds = j.value("timeout_seconds", d.timeout_seconds);
  s.inputs_identity = j.value("inputs_identity", d.inputs_identity);
  s.repeat = j.value("repeat", d.repeat);
  s.compile_cache_dir = j.value("compile_cache_dir", d.compile_cache_dir);
  s.save_compile_artifacts = j.value("save_compile_artifacts", d.save_compile_artifacts);
  s.compile_artifacts = j.value("compile_artifacts", d.compile_artifacts);
  s.step = j.get<StepSettings>();
  s.measure = j.get<MeasureSettings>();
  s.data = j.get<DataSettings>();
  s.paired = j.get<PairedSettings>();
  s.distributed = j.get<DistributedSettings>();
  s.test = j.get<TestHooks>();
}

}  // namespace tune
