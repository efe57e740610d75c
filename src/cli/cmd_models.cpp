// `tune models`: the tested models (and tiny variants) with family, task and parameter count.
// Counts come from each YAML's expected_parameters (Hugging Face's num_parameters()).
#include <iostream>

#include "cli/commands.h"
#include "cli/options.h"
#include "models/model_config.h"
#include "util/table_format.h"

namespace tune::cli {

int run_models(int argc, char** argv) {
  po::options_description desc("tune models options");
  po::variables_map vm;
  if (!parse_or_help(argc, argv, desc, vm, "tune models")) return 0;
  std::vector<std::vector<std::string>> rows;
  for (const auto& m : list_tested_models())
    rows.push_back({m.name, m.family, m.hf_class, m.task, strf("%lld", static_cast<long long>(m.expected_parameters)),
                    std::to_string(m.default_seq_len), m.tiny ? "tiny (tests)" : "tested"});
  write_markdown_table(std::cout, {"model", "family", "HF class", "task", "parameters", "seq", "kind"}, rows);
  return 0;
}

}  // namespace tune::cli
