// Collects libtorch warnings raised during a trial (tracer warnings that break a graph, CUDA sync
// warnings from the sync debug mode) so the trial logs each once and stores them with its result.
#pragma once
#include <c10/util/Exception.h>

#include <set>
#include <string>
#include <vector>

namespace tune {

class WarningCapture : public c10::WarningHandler {
 public:
  WarningCapture();
  ~WarningCapture() override;
  void process(const c10::Warning& warning) override;
  // Distinct messages in order of first appearance, each with how often it was raised.
  std::vector<std::string> messages() const;

 private:
  c10::WarningHandler* previous_;
  std::vector<std::string> order_;
  std::vector<int> counts_;
};

// On CUDA, makes every synchronizing call (e.g. .item() on a device tensor) raise a warning that a
// WarningCapture sees; restores the previous mode when destroyed. No-op on CPU.
class SyncWarnings {
 public:
  explicit SyncWarnings(const std::string& device);
  ~SyncWarnings();

 private:
  bool active_ = false;
  int previous_ = 0;
};

}  // namespace tune
