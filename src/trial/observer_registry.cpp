// The observer registry's table and its labels (trial/observer_registry.h).
#include "trial/observer_registry.h"

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <stdexcept>

#include "util/join.h"

namespace tune {

const std::vector<ObserverInfo>& registered_observers() {
  static const std::vector<ObserverInfo> observers{
      {"profiler", "the PyTorch profiler (CPU activities, CUDA too on a GPU) on every step; the trace is written "
                   "at the end", false},
      {"profiler-detail", "the PyTorch profiler on every step, recording input shapes and stacks", false},
      {"profiler-schedule", "the PyTorch profiler on a schedule: wait 1, warm-up 1, active 3 steps, repeated; each "
                            "active window's trace written when it ends (tensorboard_trace_handler's way)", false},
      {"anomaly", "autograd anomaly detection (torch.autograd.detect_anomaly) around every step", false},
      {"tensor-stats", "a training debugger's tensor collection: norm, min, max, mean, NaN and inf counts of every "
                       "layer's output and every gradient, every N steps, written to disk", true},
      {"loss-log", "the loss logged every step: a host sync and a line in a log file", false},
  };
  return observers;
}

std::string ObserverLabel::text() const {
  return interval == kDefaultObserverInterval ? name : name + ":" + std::to_string(interval);
}

std::string observer_names() {
  std::vector<std::string> names;
  for (const auto& o : registered_observers()) names.push_back(o.takes_interval ? o.name + "[:N]" : o.name);
  return join(names);
}

namespace {

const ObserverInfo* find_observer(const std::string& name) {
  for (const auto& o : registered_observers())
    if (o.name == name) return &o;
  return nullptr;
}

int parse_interval(const std::string& label, const std::string& text) {
  char* end = nullptr;
  errno = 0;
  const long n = std::strtol(text.c_str(), &end, 10);
  if (text.empty() || *end != '\0' || errno == ERANGE || n < 1 || n > 1000000)
    throw std::invalid_argument("observer '" + label + "': the interval '" + text +
                                "' is not a whole number of steps from 1 to 1000000");
  return static_cast<int>(n);
}

}  // namespace

ObserverLabel parse_observer(const std::string& label) {
  const size_t colon = label.find(':');
  ObserverLabel parsed{label.substr(0, colon)};
  const ObserverInfo* info = find_observer(parsed.name);
  if (!info) throw std::invalid_argument("observer '" + label + "': expected one of " + observer_names());
  if (colon == std::string::npos) return parsed;
  if (!info->takes_interval)
    throw std::invalid_argument("observer '" + label + "': " + parsed.name + " takes no interval (expected '" +
                                parsed.name + "')");
  parsed.interval = parse_interval(label, label.substr(colon + 1));
  return parsed;
}

std::vector<std::string> parse_observer_list(const std::string& text) {
  std::vector<std::string> labels;
  if (text == "all") {
    for (const auto& o : registered_observers()) labels.push_back(o.name);
    return labels;
  }
  size_t start = 0;
  while (start <= text.size()) {
    const size_t comma = std::min(text.find(',', start), text.size());
    const std::string canonical = parse_observer(text.substr(start, comma - start)).text();
    if (std::find(labels.begin(), labels.end(), canonical) == labels.end()) labels.push_back(canonical);
    start = comma + 1;
  }
  return labels;
}

}  // namespace tune
