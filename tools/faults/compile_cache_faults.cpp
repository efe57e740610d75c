// The compile cache's faults (issue 34): one Inductor trial (bert-tiny, batch 8) fills a shared cache
// (TUNE_INDUCTOR_CACHE_DIR) and seals it; each row copies that cache, damages the copy as a user's disk, another
// torch or another machine would, and runs the same trial on it. Surviving means the damage is detected before the
// compile, the cache emptied and the trial compiled cold (said in its result), never a silent warm reuse; a folder
// the user named that holds files tune never recorded is refused and its files kept.
#include "tools/faults/compile_cache_faults.h"

#include <nlohmann/json.hpp>

#include <fstream>
#include <functional>
#include <ostream>

#include "tools/faults/fault_harness.h"

namespace tune::faults {
namespace fs = std::filesystem;
namespace {

const char* const kManifest = "tune-cache.json";

struct CacheTrial {
  int exit_code = -1;
  std::string status, compile_cache, compile_info, error_message, warnings;
};

// `tune trial` with the Inductor backend on the shared cache `cache` (with `extra` flags); its result read back.
CacheTrial run_cache_trial(const MatrixContext& c, const fs::path& dir, const fs::path& cache,
                           const std::vector<std::string>& extra = {}) {
  fs::create_directories(dir);
  const std::string out = (dir / "result.json").string();
  std::vector<std::string> args{"trial", "--model", "bert-tiny", "--backend", "inductor", "--batch-size", "8",
                                "--seq-len", "32", "--out", out, "--dir", dir.string()};
  args.insert(args.end(), extra.begin(), extra.end());
  const Finished f = run_tune(c.tune, args, (dir / "log.txt").string(), {"TUNE_INDUCTOR_CACHE_DIR=" + cache.string()});
  CacheTrial t;
  t.exit_code = f.exit_code;
  try {
    const auto j = nlohmann::json::parse(read_file(out));
    t.status = j.value("status", "");
    t.compile_cache = j.value("compile_cache", "");
    t.compile_info = j.value("compile_info", "");
    t.error_message = j.value("error_message", "");
    for (const auto& w : j.value("warnings", nlohmann::json::array())) t.warnings += w.get<std::string>() + "\n";
  } catch (const std::exception& e) {
    t.error_message = std::string("no readable result: ") + e.what();
  }
  return t;
}

std::vector<fs::path> cached_files(const fs::path& cache) {
  std::vector<fs::path> files;
  for (const auto& entry : fs::recursive_directory_iterator(cache)) {
    const std::string name = entry.path().filename().string();
    if (entry.is_regular_file() && name != kManifest && name != ".tune-cache.lock") files.push_back(entry.path());
  }
  return files;
}

// The manifest with one identity field replaced, as a cache made elsewhere would carry it.
void rewrite_identity(const fs::path& cache, const std::string& key, const std::string& value) {
  auto manifest = nlohmann::json::parse(read_file((cache / kManifest).string()));
  manifest["identity"][key] = value;
  write_file(cache / kManifest, manifest.dump(1));
}

// The manifest's identity (torch, Python, machine, device), or null where it is missing or unreadable: after a
// rebuild the trial must have sealed the cache anew with this machine's.
nlohmann::json identity_of(const fs::path& cache) {
  const auto manifest = nlohmann::json::parse(read_file((cache / kManifest).string()), nullptr, false);
  return manifest.is_object() && manifest.contains("identity") ? manifest["identity"] : nlohmann::json();
}

struct Damage {
  std::string fault, why;  // the row's fault; the reason the worker must give for rebuilding
  void (*apply)(const fs::path& cache);
};

const std::vector<Damage>& damages() {
  static const std::vector<Damage> list = {
      {"compile cache: a cached file's bytes changed (same size)", "changed since tune recorded it",
       [](const fs::path& cache) {
         const fs::path file = cached_files(cache).front();
         std::fstream f(file, std::ios::in | std::ios::out | std::ios::binary);
         f.seekp(static_cast<std::streamoff>(fs::file_size(file) / 2));
         f.put('\x7f');
       }},
      {"compile cache: a cached file deleted", "is missing",
       [](const fs::path& cache) { fs::remove(cached_files(cache).front()); }},
      {"compile cache: made by another torch version (manifest says torch 2.14.0)", "made with torch",
       [](const fs::path& cache) { rewrite_identity(cache, "torch", "2.14.0"); }},
      {"compile cache: made on another machine (manifest names another CPU and ISA)", "made with machine",
       [](const fs::path& cache) { rewrite_identity(cache, "machine", "x86_64, AMD EPYC 7B13, ISA 0123456789abcdef"); }},
      {"compile cache: its manifest overwritten with garbage", "manifest tune-cache.json is damaged",
       [](const fs::path& cache) { write_file(cache / kManifest, "\x01 garbage"); }},
  };
  return list;
}

FaultRow damaged_cache(const MatrixContext& c, const fs::path& sealed, const Damage& damage, int index,
                       std::ostream& progress) {
  FaultRow row{damage.fault, "detected before the compile: the cache emptied and the trial compiled cold, said in its "
                             "result (compile_cache \"cold\", a \"rebuilt\" warning naming why); never reused warm"};
  const fs::path dir = c.work / ("compile-cache-" + std::to_string(index)), cache = dir / "cache";
  fs::remove_all(dir);
  fs::create_directories(dir);
  fs::copy(sealed, cache, fs::copy_options::recursive);
  damage.apply(cache);
  const CacheTrial t = run_cache_trial(c, dir / "trial", cache);
  const bool resealed = identity_of(cache) == identity_of(sealed);
  row.runs = 1;
  row.survived = t.exit_code == 0 && t.status == "ok" && t.compile_cache == "cold" &&
                 t.warnings.find("rebuilt") != std::string::npos &&
                 t.compile_info.find(damage.why) != std::string::npos && resealed;
  const size_t from = t.compile_info.find("rebuilt"), to = t.compile_info.find(" (cold:", from);
  row.observed = "exit " + std::to_string(t.exit_code) + ", trial " + t.status + ", compile_cache \"" + t.compile_cache +
                 "\"; said: \"" + (from == std::string::npos ? t.error_message : t.compile_info.substr(from, to - from)) +
                 "\"; cache " + (resealed ? "sealed anew" : "NOT sealed anew");
  progress << row.fault << ": " << row.observed << "\n";
  return row;
}

// The control: an undamaged copy of the sealed cache is reused warm (a copy alone breaks nothing).
FaultRow undamaged_copy(const MatrixContext& c, const fs::path& sealed, std::ostream& progress) {
  FaultRow row{"compile cache: an undamaged copy (the control for the rows below)",
               "reused: the trial compiles warm and says whose cache it used"};
  const fs::path dir = c.work / "compile-cache-copy", cache = dir / "cache";
  fs::remove_all(dir);
  fs::create_directories(dir);
  fs::copy(sealed, cache, fs::copy_options::recursive);
  const CacheTrial t = run_cache_trial(c, dir / "trial", cache);
  row.runs = 1;
  row.survived = t.exit_code == 0 && t.status == "ok" && t.compile_cache == "warm" &&
                 t.compile_info.find("made ") != std::string::npos;
  const size_t from = t.compile_info.find("shared cache"), to = t.compile_info.find(" (warm:", from);
  row.observed = "exit " + std::to_string(t.exit_code) + ", trial " + t.status + ", compile_cache \"" +
                 t.compile_cache + "\"; said: \"" +
                 (from == std::string::npos ? t.error_message : t.compile_info.substr(from, to - from)) + "\"";
  progress << row.fault << ": " << row.observed << "\n";
  return row;
}

// A folder the user named holding files tune never recorded (no manifest): refused, nothing deleted.
FaultRow foreign_folder(const MatrixContext& c, std::ostream& progress) {
  FaultRow row{"compile cache: TUNE_INDUCTOR_CACHE_DIR names a folder of files tune never recorded",
               "the trial refused (invalid, the folder named), no compile into it; every file in it kept"};
  const fs::path dir = c.work / "compile-cache-foreign", cache = dir / "cache";
  fs::remove_all(dir);
  write_file(cache / "notes.txt", "the user's own file\n");
  write_file(cache / "fxgraph" / "entry", "not tune's\n");
  const CacheTrial t = run_cache_trial(c, dir / "trial", cache);
  const bool kept = read_file((cache / "notes.txt").string()) == "the user's own file\n" &&
                    read_file((cache / "fxgraph" / "entry").string()) == "not tune's\n" &&
                    cached_files(cache).size() == 2 && !fs::exists(cache / kManifest);
  row.runs = 1;
  row.survived = t.status == "invalid" && t.error_message.find(cache.string()) != std::string::npos && kept;
  row.observed = "exit " + std::to_string(t.exit_code) + ", trial " + t.status + ": \"" + t.error_message + "\"; " +
                 (kept ? "both files kept, no manifest written" : "the folder CHANGED");
  progress << row.fault << ": " << row.observed << "\n";
  return row;
}

// Carried artifacts (--compile-artifacts, a copy of what the first trial saved) damaged as `damage` does: the trial
// must not load them, compile cold and say why; undamaged (`damage` null), they load and the compile is warm.
FaultRow carried_artifacts(const MatrixContext& c, const fs::path& saved_in, const std::string& fault,
                           const std::string& why, void (*damage)(const fs::path& dir), std::ostream& progress) {
  const bool control = damage == nullptr;
  FaultRow row{fault, control ? "loaded: the trial compiles warm from them and names the file"
                              : "not loaded: the trial compiles cold and says why (a warning), never warm from them"};
  const fs::path dir = c.work / ("carried-" + std::to_string(std::hash<std::string>{}(fault) % 10000));
  fs::remove_all(dir);
  fs::create_directories(dir);
  for (const char* name : {"compile-artifacts.bin", "compile-artifacts.json"}) fs::copy(saved_in / name, dir / name);
  if (damage) damage(dir);
  const CacheTrial t = run_cache_trial(c, dir / "trial", dir / "unused-shared-cache",
                                       {"--compile-artifacts", (dir / "compile-artifacts.bin").string()});
  row.runs = 1;
  const std::string said = control ? t.compile_info : t.warnings;
  row.survived = t.exit_code == 0 && t.status == "ok" && t.compile_cache == (control ? "warm" : "cold") &&
                 said.find(why) != std::string::npos;
  const size_t from = said.find(control ? "carried artifacts" : "not loaded");
  const std::string excerpt =
      from == std::string::npos ? t.error_message : said.substr(from, said.find_first_of("(\n", from + 20) - from);
  row.observed = "exit " + std::to_string(t.exit_code) + ", trial " + t.status + ", compile_cache \"" +
                 t.compile_cache + "\"; said: \"" + excerpt + "\"";
  progress << row.fault << ": " << row.observed << "\n";
  return row;
}

std::vector<FaultRow> carried_artifacts_rows(const MatrixContext& c, const fs::path& saved_in, std::ostream& progress) {
  return {
      carried_artifacts(c, saved_in, "carried compile artifacts: an undamaged copy (the control)", "made ", nullptr,
                        progress),
      carried_artifacts(c, saved_in, "carried compile artifacts: their bytes changed", "its bytes changed",
                        [](const fs::path& dir) { std::ofstream(dir / "compile-artifacts.bin", std::ios::app) << "x"; },
                        progress),
      carried_artifacts(c, saved_in, "carried compile artifacts: made by another torch version (sidecar: 2.14.0)",
                        "made with torch", [](const fs::path& dir) {
                          auto sidecar = nlohmann::json::parse(read_file((dir / "compile-artifacts.json").string()));
                          sidecar["identity"]["torch"] = "2.14.0";
                          write_file(dir / "compile-artifacts.json", sidecar.dump(1));
                        }, progress),
  };
}

}  // namespace

std::vector<FaultRow> compile_cache_faults(const MatrixContext& c, std::ostream& progress) {
  const fs::path sealed = c.work / "compile-cache-sealed";
  fs::remove_all(sealed);
  const CacheTrial first = run_cache_trial(c, c.work / "compile-cache-first", sealed, {"--save-compile-artifacts"});
  if (first.status != "ok" || first.compile_cache != "cold" || !fs::exists(sealed / kManifest))
    throw std::runtime_error("the compile cache rows' first Inductor trial did not fill and seal a cache: " +
                             first.status + " " + first.error_message);
  progress << "compile cache: sealed after a cold trial (" << cached_files(sealed).size() << " files)\n";
  std::vector<FaultRow> rows{undamaged_copy(c, sealed, progress)};
  for (size_t i = 0; i < damages().size(); ++i)
    rows.push_back(damaged_cache(c, sealed, damages()[i], static_cast<int>(i), progress));
  rows.push_back(foreign_folder(c, progress));
  for (FaultRow& row : carried_artifacts_rows(c, c.work / "compile-cache-first", progress)) rows.push_back(row);
  return rows;
}

}  // namespace tune::faults
