// tuner_efficiency: the tuner efficiency benchmark's reports (scripts/tuner-efficiency), through their reporters.
//   tuner_efficiency run --work DIR --settings YAML --model NAME --seed N --command TEXT --out PREFIX
//       one model and seed's report from its work folder (tools/tuner_efficiency_run.h): PREFIX.md, PREFIX.json
//   tuner_efficiency summary --reports DIR --out PREFIX
//       the summary over every MODEL-sSEED.json in DIR (tools/tuner_efficiency_summary.h): PREFIX.md, PREFIX.json
// Each also prints its markdown. Exit 2 on bad input, naming it.
#include <boost/program_options.hpp>

#include <iostream>

#include "tools/report_text.h"
#include "tools/tuner_efficiency_summary.h"

using namespace tune;
namespace po = boost::program_options;

namespace {

po::variables_map parse(int argc, char** argv, const po::options_description& desc) {
  po::variables_map vm;
  po::store(po::parse_command_line(argc, argv, desc), vm);
  po::notify(vm);
  return vm;
}

// Writes PREFIX.FORMAT for each reporter and prints the markdown.
template <typename Report>
void write_all(const std::string& prefix, const ReporterList<Report>& reporters, const Report& report) {
  for (const auto& reporter : reporters) {
    write_report_file(prefix + "." + reporter->format(), *reporter, report);
    if (reporter->format() == "md") reporter->write(std::cout, report);
  }
}

int run_report(int argc, char** argv) {
  TunerEfficiencyRunSource source;
  std::string out;
  po::options_description desc("tuner_efficiency run");
  desc.add_options()("work", po::value(&source.work)->required(), "the run's work folder")
      ("settings", po::value(&source.settings)->required(), "the settings YAML the strategies ran with")
      ("model", po::value(&source.model)->required(), "the model")("seed", po::value(&source.seed)->required(), "the seed")
      ("command", po::value(&source.command)->required(), "the command that reproduces it")
      ("out", po::value(&out)->required(), "path without extension: writes .md and .json");
  parse(argc, argv, desc);
  source.date = utc_minute_now();
  source.machine = this_machine();
  write_all(out, tuner_efficiency_run_reporters(), tuner_efficiency_run(source));
  return 0;
}

int summary(int argc, char** argv) {
  std::string reports, out;
  po::options_description desc("tuner_efficiency summary");
  desc.add_options()("reports", po::value(&reports)->required(), "folder of the per-run MODEL-sSEED.json and -replay.md")
      ("out", po::value(&out)->required(), "path without extension: writes .md and .json");
  parse(argc, argv, desc);
  write_all(out, tuner_efficiency_summary_reporters(), tuner_efficiency_summary(reports));
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  const std::string command = argc > 1 ? argv[1] : "";
  try {
    if (command == "run") return run_report(argc - 1, argv + 1);
    if (command == "summary") return summary(argc - 1, argv + 1);
    std::cerr << "usage: tuner_efficiency run --work DIR --settings YAML --model NAME --seed N --command TEXT --out PREFIX\n"
                 "       tuner_efficiency summary --reports DIR --out PREFIX\n";
  } catch (const std::exception& e) {  // bad flags, unreadable inputs
    std::cerr << "tuner_efficiency " << command << ": " << e.what() << "\n";
  }
  return 2;
}
