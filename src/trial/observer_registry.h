// The observer registry: the tools people attach to a training step (a profiler, anomaly detection, a debugger's
// tensor collection, a per-step loss log), by name, as `--observers` and TrialSpec's step.observer name them. An
// observer trial (engine's observe stage) times a step with one of them against the same step without it, paired.
// Torch-free: the CLI's checks and the report ask it; trial/step_observers.h (libtorch backends) and
// src/trial/step_observers.py (the Python worker's) implement each entry.
//
// Adding an observer: its entry here, its class in trial/step_observers.cpp and in step_observers.py (the tests
// ObserverRegistry.ThePythonWorkersObserversAreTheRegistrys and StepObservers.EveryRegisteredObserverHasALibtorchClass
// hold the three to one list).
#pragma once
#include <string>
#include <vector>

namespace tune {

struct ObserverInfo {
  std::string name;
  std::string summary;  // one line: what it does each step, as a user would attach it
  bool takes_interval;  // "NAME:N": it acts every N steps (default kDefaultObserverInterval)
};

// Every registered observer, in the order `--observers all` measures them.
const std::vector<ObserverInfo>& registered_observers();

// A debugger collects every N steps; 1 is the cost of collecting every step, the worst case.
constexpr int kDefaultObserverInterval = 1;

// An observer label: the name and, for one that takes it, the interval ("tensor-stats:10").
struct ObserverLabel {
  std::string name;
  int interval = kDefaultObserverInterval;
  std::string text() const;  // the canonical label: "tensor-stats:10", "anomaly"; ":1" is left out
};

// Throws std::invalid_argument quoting a label with no registered name, an interval on an observer that takes
// none, or an interval that is not a whole number of at least 1; the message lists the accepted names.
ObserverLabel parse_observer(const std::string& label);

// `--observers`: a comma-separated list of labels, or "all" (every registered one at its default interval). The
// labels in their canonical form, in the order given, without repeats. Throws as parse_observer.
std::vector<std::string> parse_observer_list(const std::string& text);

// "profiler, profiler-detail, ...": for help texts and errors.
std::string observer_names();

}  // namespace tune
