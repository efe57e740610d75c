// state.json of a sweep through nlohmann::json, with its schema version, written atomically (temporary file,
// fsync, rename) so that a kill -9 of the coordinator never leaves half a state.
#include "sweep/sweep_state.h"

#include <fcntl.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <stdexcept>

#include "util/check.h"

namespace tune {
namespace {

const char* const kPhaseNames[] = {"pending", "queued", "running", "done", "failed", "cancelled"};

nlohmann::json to_json(const StudyRecord& r) {
  return {{"id", r.id}, {"phase", to_string(r.phase)}, {"attempts", r.attempts}, {"job", r.job},
          {"reason", r.reason}, {"history", r.history}, {"merged", r.merged}, {"started_at", r.started_at}};
}

StudyRecord record_from(const nlohmann::json& j) {
  StudyRecord r;
  r.id = j.at("id").get<std::string>();
  r.phase = parse_study_phase(j.at("phase").get<std::string>());
  r.attempts = j.at("attempts").get<int>();
  r.job = j.at("job").get<std::string>();
  r.reason = j.at("reason").get<std::string>();
  r.history = j.at("history").get<std::vector<std::string>>();
  r.merged = j.at("merged").get<bool>();
  r.started_at = j.at("started_at").get<double>();
  return r;
}

SweepState state_from(const nlohmann::json& j, const std::string& path) {
  SweepState s;
  s.schema_version = j.at("schema_version").get<int>();
  if (s.schema_version > kSweepStateSchema)
    throw std::runtime_error("sweep state '" + path + "' has schema " + std::to_string(s.schema_version) +
                             ", newer than this tune's " + std::to_string(kSweepStateSchema) + ": use a newer tune");
  s.sweep_file = j.at("sweep_file").get<std::string>();
  s.executor = j.at("executor").get<std::string>();
  s.cancelled = j.at("cancelled").get<bool>();
  for (const auto& study : j.at("studies")) s.studies.push_back(record_from(study));
  return s;
}

}  // namespace

std::string to_string(StudyPhase phase) { return kPhaseNames[static_cast<int>(phase)]; }

StudyPhase parse_study_phase(const std::string& text) {
  for (int i = 0; i < 6; ++i)
    if (text == kPhaseNames[i]) return static_cast<StudyPhase>(i);
  throw std::invalid_argument("unknown study phase '" + text + "'");
}

bool is_active(StudyPhase phase) { return phase == StudyPhase::queued || phase == StudyPhase::running; }

StudyRecord& SweepState::record(const std::string& id) {
  for (auto& r : studies)
    if (r.id == id) return r;
  TUNE_CHECK(false, ("study " + id + " has no record in the sweep state").c_str());
  return studies.front();
}

std::string sweep_state_path(const std::string& state_dir) { return state_dir + "/state.json"; }

SweepState load_sweep_state(const std::string& path) {
  std::ifstream in(path);
  if (!in) return SweepState{};
  try {
    return state_from(nlohmann::json::parse(in), path);
  } catch (const nlohmann::json::exception& e) {
    throw std::runtime_error("sweep state '" + path + "' is corrupt (" + e.what() +
                             "); move it away to start the sweep afresh (finished trials stay in the study databases)");
  }
}

void save_sweep_state(const std::string& path, const SweepState& state) {
  nlohmann::json studies = nlohmann::json::array();
  for (const auto& r : state.studies) studies.push_back(to_json(r));
  const nlohmann::json j = {{"schema_version", state.schema_version}, {"sweep_file", state.sweep_file},
                            {"executor", state.executor}, {"cancelled", state.cancelled}, {"studies", studies}};
  std::filesystem::create_directories(std::filesystem::path(path).parent_path());
  const std::string temporary = path + ".tmp";
  {
    std::ofstream out(temporary, std::ios::trunc);
    out << j.dump(2) << "\n";
    if (!out) throw std::runtime_error("cannot write the sweep state '" + temporary + "'");
  }
  const int fd = open(temporary.c_str(), O_RDONLY);
  if (fd >= 0) fsync(fd), close(fd);
  if (std::rename(temporary.c_str(), path.c_str()) != 0)
    throw std::runtime_error("cannot replace the sweep state '" + path + "'");
}

void sync_with_plan(SweepState& state, const std::vector<PlannedStudy>& plan) {
  for (const auto& study : plan) {
    bool known = false;
    for (const auto& r : state.studies) known = known || r.id == study.id;
    if (!known) state.studies.push_back(StudyRecord{study.id});
  }
}

}  // namespace tune
