#include "util/progress_ticker.h"

#include <chrono>

namespace tune {

ProgressTicker::ProgressTicker(std::ostream& out, double interval_seconds, std::function<std::string(double)> describe)
    : out_(out), interval_(interval_seconds), describe_(std::move(describe)), thread_([this] { run(); }) {}

ProgressTicker::~ProgressTicker() { stop(); }

int ProgressTicker::stop() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stop_ = true;
  }
  stopped_.notify_all();
  if (thread_.joinable()) thread_.join();
  return ticks_;
}

void ProgressTicker::run() {
  const auto start = std::chrono::steady_clock::now();
  std::unique_lock<std::mutex> lock(mutex_);
  for (int tick = 1;; ++tick) {
    const auto due = start + std::chrono::duration<double>(tick * interval_);
    if (stopped_.wait_until(lock, due, [this] { return stop_; })) return;
    const double running = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    out_ << "\n" << describe_(running) << std::flush;
    ++ticks_;
  }
}

}  // namespace tune
