// Instance detection that needs libtorch: a CUDA device when one is visible, else the CPU.
// Also reports the libtorch version results are keyed by.
#pragma once
#include <string>

#include "instance/instance.h"

namespace tune {

// "auto" (or empty): the detected GPU if CUDA is available, else the CPU; otherwise a profile name.
Instance resolve_instance(const std::string& name);
std::string libtorch_version();

}  // namespace tune
