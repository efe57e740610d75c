// `tune instance`: what tune detected (or a profile made of it): device, threads, memory, libtorch.
// The fingerprint printed here is what keys every stored result.
#include <iostream>

#include "cli/commands.h"
#include "cli/options.h"
#include "instance/torch_instance.h"

namespace tune::cli {

int run_instance(int argc, char** argv) {
  po::options_description desc("tune instance options");
  desc.add_options()("instance", po::value<std::string>()->default_value("auto"), "instance profile or auto");
  po::variables_map vm;
  if (!parse_or_help(argc, argv, desc, vm, "tune instance [--instance NAME]")) return 0;
  const Instance inst = resolve_instance(vm["instance"].as<std::string>());
  std::cout << "instance:    " << inst.name << "\n"
            << "device:      " << inst.device << " x" << inst.device_count << "\n"
            << "name:        " << inst.device_name << "\n"
            << "threads:     " << inst.threads << "\n"
            << "memory:      " << format_bytes(inst.memory_bytes) << "\n"
            << "libtorch:    " << libtorch_version() << "\n"
            << "fingerprint: " << inst.fingerprint() << "\n";
  std::cout << "profiles:   ";
  for (const auto& p : list_instance_profiles()) std::cout << " " << p;
  std::cout << "\n";
  return 0;
}

}  // namespace tune::cli
