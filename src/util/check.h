// Internal invariants: a broken one is a bug in tune, not bad input, so it stops the process loudly
// (message, file and line, then abort) in every build type, unlike assert.
#pragma once
#include <cstdio>
#include <cstdlib>

#define TUNE_CHECK(condition, message)                                                                       \
  do {                                                                                                       \
    if (!(condition)) {                                                                                      \
      std::fprintf(stderr, "tune: internal error at %s:%d: %s (%s)\n", __FILE__, __LINE__, message, #condition); \
      std::abort();                                                                                          \
    }                                                                                                        \
  } while (0)
