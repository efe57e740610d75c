// `tune instance`: what tune detected (or a profile made of it): device, threads, memory, libtorch, the estimated
// peak, and the matmul peaks the store holds for it. The fingerprint printed here is what keys every stored result
// and every measured peak. --measure-peak measures them now (instance/matmul_peak.h) and stores them.
#include <filesystem>
#include <iostream>

#include "cli/commands.h"
#include "cli/options.h"
#include "engine/screening.h"
#include "instance/matmul_peak.h"
#include "instance/torch_instance.h"
#include "store/instance_peaks.h"
#include "util/join.h"
#include "util/paths.h"
#include "util/table_format.h"

namespace tune::cli {
namespace {

void print_instance(const Instance& inst) {
  std::cout << "instance:    " << inst.name << "\n"
            << "device:      " << inst.device << " x" << inst.device_count << "\n"
            << "name:        " << inst.device_name << "\n"
            << "threads:     " << inst.threads << "\n"
            << "memory:      " << format_bytes(inst.memory_bytes) << "\n"
            << "libtorch:    " << libtorch_version() << "\n"
            << "fingerprint: " << inst.fingerprint() << "\n"
            << "peak:        " << strf("%.1f GFLOP/s fp32, %.1f bf16, %.1f fp16", inst.peak.fp32 / 1e9,
                                       inst.peak.bf16 / 1e9, inst.peak.fp16 / 1e9)
            << " (" << inst.peak.source << ")\n";
}

// Measures each precision now and stores it, replacing what the store held. A precision the device cannot run is
// said and skipped; returns whether every one was measured.
bool measure_and_store(Database& db, const Instance& inst, const std::vector<std::string>& precisions) {
  bool all = true;
  for (const auto& precision : precisions) {
    try {
      const StoredPeak peak{inst.fingerprint(), libtorch_version(), precision, measure_matmul_peak(inst, precision)};
      db.save_peak(peak);
      std::cout << "measured:    " << describe_peak(peak) << "\n";
    } catch (const std::runtime_error& e) {
      std::cerr << "tune instance: " << precision << " not measured: " << e.what() << "\n";
      all = false;
    }
  }
  return all;
}

// The store's measured peaks: this instance's (fingerprint and libtorch) first, then the others it holds.
void print_stored_peaks(const Database& db, const Instance& inst) {
  const std::vector<StoredPeak> peaks = db.peaks();
  if (peaks.empty()) std::cout << "measured peaks: none in " << db.path() << " (--measure-peak measures them)\n";
  for (const bool mine : {true, false})
    for (const auto& p : peaks)
      if ((p.fingerprint == inst.fingerprint() && p.libtorch_version == libtorch_version()) == mine)
        std::cout << (mine ? "stored peak: " : "other:       ") << describe_peak(p)
                  << (mine ? "" : " [" + p.fingerprint + ", libtorch " + p.libtorch_version + "]") << "\n";
}

}  // namespace

int run_instance(int argc, char** argv) {
  po::options_description desc("tune instance options");
  desc.add_options()
      ("instance", po::value<std::string>()->default_value("auto"), "instance profile or auto")
      ("db", po::value<std::string>()->default_value(default_database_path()), "SQLite database of measured peaks")
      ("measure-peak", po::bool_switch(), "measure the matmul peak now and store it (replacing the stored one)")
      ("precisions", po::value<std::string>()->default_value("auto"),
       "with --measure-peak, comma-separated: fp32, bf16, fp16; auto: those the hardware runs fast");
  po::variables_map vm;
  if (!parse_or_help(argc, argv, desc, vm, "tune instance [--instance NAME] [--db PATH] [--measure-peak]")) return 0;
  const Instance inst = resolve_instance(vm["instance"].as<std::string>());
  const std::string precisions = vm["precisions"].as<std::string>();
  const std::vector<std::string> wanted =
      precisions == "auto" ? default_precisions(inst) : checked_list("--precisions", precisions, kPrecisions);
  print_instance(inst);
  std::cout << "profiles:   ";
  for (const auto& p : list_instance_profiles()) std::cout << " " << p;
  std::cout << "\n";
  const std::string db_path = vm["db"].as<std::string>();
  const bool measure = vm["measure-peak"].as<bool>();
  // Showing never creates a store behind a mistyped path; measuring writes one.
  if (!measure && !std::filesystem::exists(db_path)) {
    std::cout << "measured peaks: no database at " << db_path << " (--measure-peak measures and stores them)\n";
    return 0;
  }
  Database db(db_path);
  const bool all = !measure || measure_and_store(db, inst, wanted);
  print_stored_peaks(db, inst);
  return all ? 0 : 1;
}

}  // namespace tune::cli
