// --emit's files: one per format, named after the model, into --emit-dir.
#include "cli/answer_files.h"

#include <filesystem>
#include <fstream>

#include "instance/instance.h"
#include "report/config_emitters.h"

namespace tune::cli {

po::options_description emit_flags() {
  po::options_description desc("the answer for your training script");
  desc.add_options()
      ("emit", po::value<std::string>(), ("write the config to run for a library, comma-separated: " +
                                          join(reporter_formats(config_emitters()), ", ")).c_str())
      ("emit-dir", po::value<std::string>()->default_value("."), "folder for --emit's files")
      ("devices", po::value<int>(), "data-parallel devices you train on (default: as many as the search's --ranks): "
                                    "the answer's batch is split over them (per-device batch, accumulation, rate if it "
                                    "must change)")
      ("max-memory", po::value<std::string>(), "what one of your devices may hold, e.g. 16GiB: a batch whose measured "
                                               "peak exceeds it is reached by gradient accumulation");
  return desc;
}

AnswerOptions answer_options(const po::variables_map& vm, const JobLength& job, double warmup_share) {
  const bool devices_given = vm.count("devices") > 0;  // else 0: as many as the row's ranks (answer.h)
  AnswerOptions options{job, warmup_share, devices_given ? vm["devices"].as<int>() : 0, 0};
  if (devices_given && options.devices < 1)
    throw std::invalid_argument("--devices " + std::to_string(options.devices) + ": expected at least 1");
  if (vm.count("max-memory")) options.max_memory_bytes = parse_bytes(vm["max-memory"].as<std::string>());
  return options;
}

std::vector<std::string> emit_formats(const po::variables_map& vm) {
  if (!vm.count("emit")) return {};
  return checked_list("--emit", vm["emit"].as<std::string>(), reporter_formats(config_emitters()));
}

std::vector<std::string> write_emitted_files(const po::variables_map& vm, const RunAnswer& answer) {
  namespace fs = std::filesystem;
  std::vector<std::string> written;
  const fs::path dir = vm["emit-dir"].as<std::string>();
  const std::vector<std::string> formats = emit_formats(vm);
  std::error_code error;  // a folder that cannot be made is reported by the write below, naming the file
  if (!formats.empty()) fs::create_directories(dir, error);
  for (const std::string& format : formats) {
    const fs::path path = dir / emitted_file_name(format, answer.model);
    std::ofstream file(path);
    if (!file) throw std::invalid_argument("--emit-dir '" + dir.string() + "': cannot write " + path.string());
    pick_reporter("emitted config", format, config_emitters())->write(file, answer);
    written.push_back("for your script (" + format + "): " + path.string());
  }
  return written;
}

}  // namespace tune::cli
