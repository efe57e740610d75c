// Detects the CPU instance from /proc and cgroups, and applies instance profiles (YAML).
// A profile can only narrow what was detected: more threads or memory than exist is an error.
#include "instance/instance.h"
#include "util/join.h"

#include <sched.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <stdexcept>

#include "util/paths.h"
#include "util/table_format.h"
#include "util/yaml_fields.h"

namespace fs = std::filesystem;

namespace tune {
namespace {

std::string cpu_model_name() {
  std::ifstream in("/proc/cpuinfo");
  for (std::string line; std::getline(in, line);)
    if (line.rfind("model name", 0) == 0) return line.substr(line.find(':') + 2);
  return "unknown CPU";
}

int64_t meminfo_total_bytes() {
  std::ifstream in("/proc/meminfo");
  std::string key;
  int64_t kb = 0;
  while (in >> key >> kb) {
    if (key == "MemTotal:") return kb * 1024;
    in.ignore(256, '\n');
  }
  return 0;
}

// cgroup v2 memory.max, when the container is limited below the machine's memory.
int64_t cgroup_memory_limit() {
  std::ifstream in("/sys/fs/cgroup/memory.max");
  std::string value;
  if (!(in >> value) || value == "max") return 0;
  return std::stoll(value);
}

// A CPU peak scales with the threads the profile leaves; peak_tflops_* keys replace the estimate.
void apply_peak_overrides(const YAML::Node& root, const std::string& file, const Instance& detected, Instance& inst) {
  if (inst.device == "cpu" && detected.threads > 0 && inst.threads != detected.threads) {
    const double scale = static_cast<double>(inst.threads) / detected.threads;
    inst.peak = PeakFlops{detected.peak.fp32 * scale, detected.peak.bf16 * scale, detected.peak.fp16 * scale,
                          detected.peak.source + ", scaled to the profile's threads"};
  }
  double tflops[3] = {0, 0, 0};
  const char* keys[3] = {"peak_tflops_fp32", "peak_tflops_bf16", "peak_tflops_fp16"};
  double* targets[3] = {&inst.peak.fp32, &inst.peak.bf16, &inst.peak.fp16};
  for (int i = 0; i < 3; ++i) {
    read_yaml_key(root, keys[i], tflops[i], file);
    if (tflops[i] < 0) throw std::invalid_argument(file + ": key '" + keys[i] + "': expected a positive number");
    if (tflops[i] > 0) {
      *targets[i] = tflops[i] * 1e12;
      inst.peak.source = "instance profile " + file;
    }
  }
}

}  // namespace

std::string InstanceHardware::memory_text() const { return strf("%.1f GiB", memory_bytes / 1073741824.0); }

std::string InstanceHardware::fingerprint() const {
  return device + ":" + device_name + "|" + memory_text() + "|" + std::to_string(threads) + " threads|x" +
         std::to_string(device_count);
}

Instance detect_cpu_instance() {
  Instance inst;
  inst.device_name = cpu_model_name();
  cpu_set_t set;
  CPU_ZERO(&set);
  inst.threads = sched_getaffinity(0, sizeof set, &set) == 0 ? CPU_COUNT(&set) : 1;
  inst.memory_bytes = meminfo_total_bytes();
  const int64_t cgroup = cgroup_memory_limit();
  if (cgroup > 0) inst.memory_bytes = std::min(inst.memory_bytes, cgroup);
  inst.peak = detect_cpu_peak_flops(inst.threads);
  return inst;
}

std::vector<std::string> list_instance_profiles() {
  std::vector<std::string> names;
  const fs::path dir = fs::path(configs_dir()) / "instances";
  if (fs::exists(dir))
    for (const auto& e : fs::directory_iterator(dir))
      if (e.path().extension() == ".yaml") names.push_back(e.path().stem().string());
  std::sort(names.begin(), names.end());
  return names;
}

Instance apply_instance_profile(const Instance& detected, const std::string& profile) {
  const fs::path path = fs::path(configs_dir()) / "instances" / (profile + ".yaml");
  if (!fs::exists(path)) {
    const std::string known = join(list_instance_profiles());
    throw std::invalid_argument("unknown instance '" + profile + "': expected 'auto' or one of " + known);
  }
  const std::string file = path.string();
  const YAML::Node root = load_yaml_file(file);
  check_known_keys(root, {"threads", "memory", "peak_tflops_fp32", "peak_tflops_bf16", "peak_tflops_fp16"}, file);
  Instance inst = detected;
  inst.name = profile;
  int threads = detected.threads;
  std::string memory;
  read_yaml_key(root, "threads", threads, file);
  read_yaml_key(root, "memory", memory, file);
  inst.threads = std::min(detected.threads, threads);
  if (!memory.empty()) inst.memory_bytes = std::min(detected.memory_bytes, parse_bytes(memory));
  if (inst.threads < 1) throw std::invalid_argument(file + ": key 'threads': expected at least 1");
  apply_peak_overrides(root, file, detected, inst);
  return inst;
}

int64_t parse_bytes(const std::string& text) {
  size_t used = 0;
  double value = 0;
  try {
    value = std::stod(text, &used);
  } catch (const std::exception&) {
    throw std::invalid_argument("size '" + text + "': expected a number with an optional unit (KiB, MiB, GiB)");
  }
  std::string unit = text.substr(used);
  unit.erase(std::remove(unit.begin(), unit.end(), ' '), unit.end());
  double scale = 1;
  if (unit == "K" || unit == "KiB" || unit == "KB") scale = 1024.0;
  else if (unit == "M" || unit == "MiB" || unit == "MB") scale = 1048576.0;
  else if (unit == "G" || unit == "GiB" || unit == "GB") scale = 1073741824.0;
  else if (!unit.empty() && unit != "B") throw std::invalid_argument("size '" + text + "': unknown unit '" + unit + "' (expected KiB, MiB or GiB)");
  if (value <= 0) throw std::invalid_argument("size '" + text + "': expected more than zero");
  return static_cast<int64_t>(std::llround(value * scale));
}

std::string format_bytes(int64_t bytes) {
  char buf[32];
  if (bytes >= 1073741824) std::snprintf(buf, sizeof buf, "%.2f GiB", bytes / 1073741824.0);
  else std::snprintf(buf, sizeof buf, "%.0f MiB", bytes / 1048576.0);
  return buf;
}

}  // namespace tune
