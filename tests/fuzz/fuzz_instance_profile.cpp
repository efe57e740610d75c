// libFuzzer target: an instance profile (configs/instances/NAME.yaml, tune --instance NAME) from arbitrary bytes,
// applied to a fixed detected instance. TUNE_HOME points tune at this process's folder holding the profile.
#include <cstdlib>
#include <filesystem>

#include "fuzz_input.h"
#include "instance/instance.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const std::filesystem::path home = [] {
    const auto dir = std::filesystem::temp_directory_path() / ("tune-fuzz-home-" + std::to_string(getpid()));
    std::filesystem::create_directories(dir / "configs" / "instances");
    setenv("TUNE_HOME", dir.c_str(), 1);
    return dir;
  }();
  std::ofstream(home / "configs" / "instances" / "fuzz.yaml", std::ios::binary | std::ios::trunc)
      .write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
  tune::Instance detected;
  detected.threads = 2;
  detected.memory_bytes = int64_t{8} << 30;
  tune::fuzz::expect_user_error_at_most([&] { tune::apply_instance_profile(detected, "fuzz"); });
  return 0;
}
