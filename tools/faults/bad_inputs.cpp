// Each bad input run against a fresh database path (or a damaged database whose bytes must not change): the
// flags, settings keys and files a user gets wrong, from a zero sequence length to a corrupt weights file.
#include "tools/faults/bad_inputs.h"

#include <fstream>

#include "tools/faults/fault_harness.h"

namespace tune::faults {
namespace fs = std::filesystem;
namespace {

std::vector<std::string> split(const std::string& flags) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start < flags.size()) {
    const size_t end = flags.find(' ', start);
    out.push_back(flags.substr(start, end - start));
    if (end == std::string::npos) break;
    start = end + 1;
  }
  return out;
}

// tune's error line ("tune: error" for bad input, "tune: failed" otherwise), else its first line.
std::string error_line(const std::string& output) {
  for (const std::string& marker : {"tune: error", "tune: failed"})
    if (const std::string line = line_from(output, marker); !line.empty()) return line;
  return output.substr(0, output.find('\n'));
}

}  // namespace

std::vector<BadInputRow> try_bad_inputs(const std::string& tune, const fs::path& work) {
  const fs::path dir = work / "bad-inputs";
  const auto settings = [&](const std::string& name, const std::string& text) { return write_file(dir / name, text); };
  write_file(dir / "weights" / "model.safetensors",
        std::string("\x10\0\0\0\0\0\0\0{\"a\":", 13));  // a header cut short
  std::vector<BadInputRow> rows = {
      {"sequence length 0", "--seq-len 0", "--seq-len 0"},
      {"sequence length above the model's positions", "--seq-len 100000", "--seq-len 100000"},
      {"budget 0", "--budget 0s", "'0s'"},
      {"negative budget", "--budget -5m", "'-5m'"},
      {"budget that is no duration", "--budget soon", "'soon'"},
      {"trial cap 0", "--max-trials 0", "--max-trials 0"},
      {"unknown precision", "--precisions fp8", "'fp8'"},
      {"unknown backend", "--backends tvm", "'tvm'"},
      {"unknown tuner", "--tuner hyperband", "'hyperband'"},
      {"unknown model", "--model no-such-model", "no-such-model"},
      {"unknown settings key (nearest suggested)", "--settings " + settings("typo.yaml", "max_batchsize: 64\n"), "max_batchsize"},
      {"settings key of the wrong type", "--settings " + settings("type.yaml", "max_batch_size: big\n"), "max_batch_size"},
      {"batch size 0", "--settings " + settings("batch0.yaml", "min_batch_size: 0\n"), "min_batch_size"},
      {"negative learning rate", "--settings " + settings("lr.yaml", "learning_rates: [-1.0e-3]\n"), "learning_rates"},
      {"zero learning rate", "--settings " + settings("lr0.yaml", "ramp_learning_rate: 0\n"), "ramp_learning_rate"},
      {"broken YAML", "--settings " + settings("broken.yaml", "budget: [10m\n"), "broken.yaml"},
      {"settings file missing", "--settings " + (dir / "missing.yaml").string(), "missing.yaml"},
      {"corrupt --weights file", "--weights " + (dir / "weights").string(), "model.safetensors"},
      {"--corpus file missing", "--corpus " + (dir / "no-corpus.txt").string(), "no-corpus.txt"},
      {"model YAML with an unknown key", "--model " + settings("model.yaml", "family: bert\nhiden_size: 64\n"), "hiden_size"},
  };
  for (size_t i = 0; i < rows.size(); ++i) {
    BadInputRow& row = rows[i];
    const fs::path db = dir / ("db-" + std::to_string(i)) / "t.db";
    std::vector<std::string> args;
    for (const std::string& flag : {"--model", "--backends", "--precisions"})
      if (row.flags.find(flag + std::string(" ")) == std::string::npos)
        args.insert(args.end(), {flag, flag == std::string("--model") ? "bert-tiny" : flag == std::string("--backends") ? "eager" : "fp32"});
    if (row.flags.find("--budget") == std::string::npos) args.insert(args.end(), {"--budget", "10m"});
    for (const auto& a : split(row.flags)) args.push_back(a);
    args.insert(args.end(), {"--db", db.string()});
    fs::create_directories(db.parent_path());
    const Finished f = run_tune(tune, args, (dir / ("log-" + std::to_string(i) + ".txt")).string());
    row.exit_code = f.exit_code;
    row.message = error_line(f.output);
    row.store_written = fs::exists(db) || fs::exists(db.parent_path() / "t-runs");
  }
  // A database that is not one: refused, its bytes untouched.
  BadInputRow corrupt{"--db a file that is no tune database", "--db (64 KiB of garbage)", "garbage.db"};
  const std::string garbage_text(64 * 1024, '\x5a');
  const std::string garbage = write_file(dir / "garbage.db", garbage_text);
  const Finished f = run_tune(tune, {"--model", "bert-tiny", "--backends", "eager", "--precisions", "fp32", "--db", garbage},
                              (dir / "log-garbage.txt").string());
  corrupt.exit_code = f.exit_code;
  corrupt.message = error_line(f.output);
  corrupt.store_written = read_file(garbage) != garbage_text || fs::exists(dir / "garbage-runs");
  rows.push_back(corrupt);
  return rows;
}

}  // namespace tune::faults
