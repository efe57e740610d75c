// The progress ticker (util/progress_ticker.h): while its owner's work runs, a line every interval with what the
// describer says; nothing after stop().
#include <gtest/gtest.h>

#include <sstream>
#include <thread>

#include "util/progress_ticker.h"

using tune::ProgressTicker;

TEST(ProgressTicker, WritesALineEachIntervalUntilStopped) {
  std::ostringstream out;
  ProgressTicker ticker(out, 0.02, [](double running) { return "running " + std::to_string(running > 0.015); });
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  const int ticks = ticker.stop();
  const std::string written = out.str();
  EXPECT_GE(ticks, 1);
  int lines = 0;
  for (size_t at = written.find("\nrunning 1"); at != std::string::npos; at = written.find("\nrunning 1", at + 1)) ++lines;
  EXPECT_EQ(lines, ticks) << written;  // each tick one line, each after at least one interval
  std::this_thread::sleep_for(std::chrono::milliseconds(60));
  EXPECT_EQ(out.str(), written) << "no line after stop()";
  EXPECT_EQ(ticker.stop(), ticks);
}

TEST(ProgressTicker, WorkShorterThanAnIntervalWritesNothing) {
  std::ostringstream out;
  {
    ProgressTicker ticker(out, 10, [](double) { return std::string("never"); });
  }
  EXPECT_EQ(out.str(), "");
}
