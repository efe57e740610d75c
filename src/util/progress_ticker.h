// A line on a stream every few seconds while something long runs (issue 35: a search's trial can compile for
// minutes with nothing printed): each tick writes "\n" + what `describe(seconds running)` says, from a thread of its
// own, until it is stopped. The owner writes nothing to the stream until then.
#pragma once
#include <condition_variable>
#include <functional>
#include <mutex>
#include <ostream>
#include <string>
#include <thread>

namespace tune {

class ProgressTicker {
 public:
  // The first line after `interval_seconds`, then one per interval.
  ProgressTicker(std::ostream& out, double interval_seconds, std::function<std::string(double)> describe);
  ~ProgressTicker();  // stop()
  ProgressTicker(const ProgressTicker&) = delete;
  ProgressTicker& operator=(const ProgressTicker&) = delete;
  // Ends the ticking (no line follows) and returns the lines written; again: the same count.
  int stop();

 private:
  void run();

  std::ostream& out_;
  const double interval_;
  const std::function<std::string(double)> describe_;
  mutable std::mutex mutex_;
  std::condition_variable stopped_;
  bool stop_ = false;
  int ticks_ = 0;
  std::thread thread_;
};

}  // namespace tune
