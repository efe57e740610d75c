// `tune --model NAME`: resolve model and instance, run the search within the budget, print its rows of the
// table and what each search concluded through its reporters (report/search_reporters.h: markdown, or JSON with --json).
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>

#include "cli/answer_files.h"
#include "cli/commands.h"
#include "cli/options.h"
#include "data/text_corpus.h"
#include "data/training_data.h"
#include "engine/search_engine.h"
#include "instance/torch_instance.h"
#include "models/model_factory.h"
#include "report/config_emitters.h"
#include "trial/observer_registry.h"
#include "report/search_reporters.h"
#include "store/instance_peaks.h"
#include "trial/data_parallel_figures.h"
#include "trial/backend_registry.h"
#include "trial/trial_process.h"
#include "tuners/tuner_registry.h"
#include "util/duration.h"
#include "util/file_identity.h"
#include "util/hash.h"
#include "util/join.h"
#include "util/paths.h"
#include "util/process.h"
#include "util/stop_signals.h"
#include "util/table_format.h"

namespace tune::cli {
namespace {

// --tuner picks the strategy of every stage it serves; its options go to that strategy.
SearchSettings with_tuner_flags(const po::variables_map& vm, SearchSettings settings) {
  if (vm.count("max-trials")) settings.max_trials = vm["max-trials"].as<int>();
  if (settings.max_trials < 1) throw std::invalid_argument(strf("--max-trials %d: expected at least 1", settings.max_trials));
  if (vm.count("objective")) settings.objective = parse_search_objective(vm["objective"].as<std::string>());
  if (vm.count("observers")) settings.observers = parse_observer_list(vm["observers"].as<std::string>());
  if (vm.count("observers") && vm.count("ranks") && vm["ranks"].as<int>() > 1)
    throw std::invalid_argument("--observers with --ranks " + std::to_string(vm["ranks"].as<int>()) + ": observer "
                                "trials of a data-parallel step are not built yet (time the tools on one process)");
  if (vm.count("target-loss")) {
    const double target = vm["target-loss"].as<double>();
    if (!(target > 0)) throw std::invalid_argument(strf("--target-loss %g: expected a loss > 0", target));
    if (settings.objective != "time-to-loss") throw std::invalid_argument("--target-loss needs --objective time-to-loss");
    settings.target_loss = target;
  }
  if (!vm.count("tuner")) {
    if (vm.count("tuner-option")) throw std::invalid_argument("--tuner-option needs --tuner NAME");
    return settings;
  }
  const std::string name = vm["tuner"].as<std::string>();
  // tuner_supports rejects an unknown name, quoting it and listing the known strategies.
  if (tuner_supports(name, StageObjective::throughput)) settings.batch_tuner = name;
  if (tuner_supports(name, StageObjective::loss)) settings.lr_tuner = name;
  if (vm.count("tuner-option"))
    for (const auto& text : vm["tuner-option"].as<std::vector<std::string>>()) {
      const auto [option, value] = name_value("--tuner-option", text, "eta=3");
      settings.tuner_options[name][option] = value;  // over the settings file's
    }
  return settings;
}

po::options_description tune_options() {
  po::options_description desc("tune --model options");
  desc.add_options()
      ("model", po::value<std::string>()->required(), "tested model name (see `tune models`) or a model YAML path")
      ("instance", po::value<std::string>()->default_value("auto"), "instance profile (configs/instances) or auto")
      ("db", po::value<std::string>()->default_value(default_database_path()), "SQLite database")
      ("budget", po::value<std::string>(), "wall-clock budget, e.g. 20m (default: configs/search.yaml)")
      ("backends", po::value<std::string>()->default_value("auto"), ("comma-separated: " + backend_label_forms() + "; auto: the instance's compilers, screened first").c_str())
      ("precisions", po::value<std::string>()->default_value("auto"), "comma-separated: fp32, bf16, fp16; auto: those the hardware runs fast, screened first")
      ("settings", po::value<std::string>()->default_value(default_search_settings_path()), "search settings YAML")
      ("job-steps", po::value<double>(), "planned job length in steps: rates are ranked after a tenth of it (at least lr_train_steps); recommend compiling or not")
      ("job-hours", po::value<double>(), "planned job length in hours (steps at each backend's measured step time): as --job-steps")
      ("tuner", po::value<std::string>(), "search strategy for the stage(s) it serves (see `tune tuners`)")
      ("tuner-option", po::value<std::vector<std::string>>()->composing(), "NAME=VALUE option of --tuner (repeatable)")
      ("max-trials", po::value<int>(), "at most this many trials per stage and backend")
      ("objective", po::value<std::string>(), "two-stage (throughput, then loss at that batch) or time-to-loss")
      ("target-loss", po::value<double>(), "time-to-loss target (default: the reference config's score)")
      ("ranks", po::value<int>(), "data-parallel: every trial runs N ranks (processes sharing the instance's threads, "
                                  "gradients all-reduced as DDP does); batch sizes are per rank")
      ("observers", po::value<std::string>(), ("after the search, time the row's native and compiled steps without and "
                                               "with each tool: comma-separated " + observer_names() +
                                               ", or all (see `tune observers`)").c_str())
      ("json", po::bool_switch(), "print the result as JSON")
      ("dry-run", po::bool_switch(), "check every flag and value (model, data, weights, settings, budget) and print "
                                     "what the search would cover; open no database, run no trial");
  desc.add(training_flags());
  desc.add(emit_flags());
  return desc;
}

// --job-steps N or --job-hours H (one of them, > 0); neither: no job, the default horizon.
JobLength job_length(const po::variables_map& vm) {
  JobLength job;
  if (vm.count("job-steps") && vm.count("job-hours")) throw std::invalid_argument("give --job-steps or --job-hours, not both");
  if (vm.count("job-steps")) job.steps = vm["job-steps"].as<double>();
  if (vm.count("job-hours")) job.hours = vm["job-hours"].as<double>();
  if (vm.count("job-steps") && !(job.steps >= 1))
    throw std::invalid_argument(strf("--job-steps %g: expected a number of steps >= 1", job.steps));
  if (vm.count("job-hours") && !(job.hours > 0))
    throw std::invalid_argument(strf("--job-hours %g: expected a number of hours > 0", job.hours));
  return job;
}

// A sequence the model cannot hold is the user's mistake, found before any trial (not an invalid trial per
// backend): at least 1 token, at most the model's positions (T5's relative positions have no limit).
void check_seq_len(const po::variables_map& vm, const ModelConfig& model, int seq_len) {
  if (vm.count("seq-len") && vm["seq-len"].as<int>() < 1)
    throw std::invalid_argument(strf("--seq-len %d: expected at least 1 token", vm["seq-len"].as<int>()));
  if (model.family != "t5" && seq_len > model.max_sequence_length())
    throw std::invalid_argument(strf("--seq-len %d: model %s holds at most %d positions", seq_len, model.name.c_str(),
                                     model.max_sequence_length()));
}

// The files the trials read (weights, corpus, tokenizer, dataset), hashed by `hash` (util/file_identity.h).
std::string hash_inputs(const SearchRequest& r, uint64_t (*hash)(uint64_t, const std::string&)) {
  uint64_t h = kStableHashSeed;
  const std::string corpus = r.data.corpus_path.empty() ? default_corpus_path() : r.data.corpus_path;
  for (const std::string& path : {r.weights_dir, corpus, r.data.tokenizer_dir, r.data.dataset_path})
    h = corpus == "synthetic" && path == corpus ? stable_hash_update(h, path) : hash(h, path);
  return stable_hash_hex(h);
}

// What the trials read, by content: a file replaced with other content is a different input, and the trials
// stored on the old one run again; the same files at another path, in a clone or rewritten alike (scripts/setup
// writes the corpus anew on a new machine) are the same input, and a store's trials carry over.
std::string inputs_identity(const SearchRequest& r) { return "content:" + hash_inputs(r, hash_path_content); }

// Checked before each trial: the files' metadata (cheap), and their content again only when that changed.
std::function<std::string()> inputs_identity_now(const SearchRequest& r) {
  return [r] {
    return hash_inputs(r, hash_path_identity) == r.inputs_metadata_identity ? r.inputs_identity : inputs_identity(r);
  };
}

// --ranks N: every trial data-parallel (libtorch's ranks for eager and jit, HF's module under DDP for the Python
// worker's backends; cuda-graph has no point between backward and update for the all-reduce: its trials say so).
void set_ranks(const po::variables_map& vm, SearchRequest& request) {
  if (!vm.count("ranks")) return;
  request.ranks = vm["ranks"].as<int>();
  if (request.ranks < 1 || request.ranks > 64) throw std::invalid_argument(strf("--ranks %d: expected 1 to 64", request.ranks));
  if (request.ranks > 1)
    check_rank_gpus(request.instance.device, request.ranks, request.instance.device_count);
}

SearchRequest request_from(const po::variables_map& vm) {
  SearchRequest request;
  const ModelSource source = model_source(vm);
  request.model = source.config;
  request.instance = resolve_instance(vm["instance"].as<std::string>());
  request.libtorch_version = libtorch_version();
  const std::string backends = vm["backends"].as<std::string>(), precisions = vm["precisions"].as<std::string>();
  request.backends = backends == "auto" ? default_backends(request.instance)
                                        : checked_list("--backends", backends, backend_labels());
  request.precisions = precisions == "auto" ? default_precisions(request.instance)
                                            : checked_list("--precisions", precisions, kPrecisions);
  // The default answers the whole question, screened to what can win; a list the user names is searched as named.
  request.screen = backends == "auto" || precisions == "auto";
  const TrainingChoice training = training_choice(vm, source);
  request.attention = training.attention;
  request.optimizer = training.optimizer == "auto" ? default_optimizer(request.instance) : training.optimizer;
  set_ranks(vm, request);
  request.seq_len = training.seq_len > 0 ? training.seq_len : request.model.default_seq_len;
  check_seq_len(vm, request.model, request.seq_len);
  request.seed = training.seed;
  request.data = training.data;
  request.weights_dir = training.weights;
  request.inputs_identity = inputs_identity(request);
  request.inputs_metadata_identity = hash_inputs(request, hash_path_identity);
  request.inputs_identity_now = inputs_identity_now(request);
  request.job = job_length(vm);
  request.runs_dir = runs_dir_for_database(vm["db"].as<std::string>());
  return request;
}

// Loads and tokenizes the data once, as every trial will: a wrong folder or file fails now, not in every
// trial, and the user sees which corpus and tokenizer (or fallback) the trials train on.
std::string describe_training_data(const SearchRequest& request) {
  std::string description;
  load_training_data(request.model, request.data, &description);
  return description;
}

// Loads the weights once into the model, as every trial will: a corrupt, truncated or mismatched checkpoint fails
// now with its file named, before the database is opened, not as a failed trial per backend.
void check_weights(const SearchRequest& request) {
  if (request.weights_dir.empty()) return;
  build_model_with_weights(request.model, request.seed, request.weights_dir, request.attention);
}

// The command that continues a search the budget cut: this one with twice the budget.
std::string continue_command(int argc, char** argv, double budget) {
  std::string command = "tune";
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--budget" && i + 1 < argc) ++i;
    else if (arg.rfind("--budget=", 0) != 0) command += " " + (arg.find(' ') == std::string::npos ? arg : "'" + arg + "'");
  }
  const double doubled = std::ceil(2 * budget);
  const long long whole_minutes = std::llround(doubled / 60);
  return command + " --budget " +
         (std::fabs(doubled - 60.0 * whole_minutes) < 0.5 ? std::to_string(whole_minutes) + "m"
                                                          : std::to_string(std::llround(doubled)) + "s");
}

// The full markdown report beside the database (the terminal scrolls; the file stays), named in the answer.
std::string write_report_file(const SearchRequest& request, const SearchReport& report) {
  std::filesystem::create_directories(request.runs_dir);
  const std::string path = request.runs_dir + "/" +
                           file_name_part(request.model.name + "-" + request.instance.name + "-seq" +
                                          std::to_string(request.seq_len) + ".md");
  std::ofstream file(path);
  make_search_reporter("md")->write(file, report);
  if (!file) throw std::runtime_error("cannot write the search's report to '" + path + "'");
  return path;
}

// The search's report (report/search_reporters.h): markdown, or JSON with --json; then the answer in a few lines
// (report/answer.h), with --emit's files for the user's training script.
void print_result(const po::variables_map& vm, const SearchRequest& request, const SearchSettings& settings,
                  const SearchSummary& summary, const TestedModelsTable& table, const std::string& again) {
  const SearchReport report{request.model.name, request.instance.name, settings.batch_tuner, settings.lr_tuner,
                            summary, table, request.job};
  const bool json = vm["json"].as<bool>();
  make_search_reporter(json ? "json" : "md")->write(std::cout, report);
  const std::optional<RunAnswer> answer = answer_from(table, answer_options(vm, request.job, settings.lr_warmup_share));
  if (!answer) return;
  std::vector<std::string> files = write_emitted_files(vm, *answer);
  if (json) return;
  files.insert(files.begin(), "the full table and notes: " + write_report_file(request, report));
  if (emit_formats(vm).empty()) files.push_back("for your script: the same command with --emit " +
                                         join(reporter_formats(config_emitters()), ",") + " (or `tune export --emit`)");
  write_answer(std::cout, *answer, files, again);
}

// The studies of the rows this search answers: its own, and every other backend's study of the same model,
// instance, sequence length, step options, tune version and precisions (an earlier run's eager beside this
// run's jit, so the speed-up and break-even are there).
std::vector<int64_t> row_studies(const Database& db, const SearchRequest& r) {
  std::vector<int64_t> ids;
  const std::string options = step_options_key(r.attention, r.optimizer, r.ranks);
  for (const auto& [id, k] : db.studies())
    if (k.model == r.model.name && k.hardware.fingerprint() == r.instance.fingerprint() && k.seq_len == r.seq_len &&
        k.tune_version == TUNE_VERSION && k.step_options == options &&
        std::find(r.precisions.begin(), r.precisions.end(), k.precision) != r.precisions.end())
      ids.push_back(id);
  return ids;
}

// The backends and precisions searched, and whether they are the instance's default coverage (screened first).
std::string describe_coverage(const po::variables_map& vm, const SearchRequest& request) {
  const auto said = [&](const char* flag) {
    return vm[flag].as<std::string>() == "auto" ? std::string(" (auto: this instance's)") : " (--" + std::string(flag) + ")";
  };
  return "backends " + join(request.backends) + said("backends") + ", precisions " + join(request.precisions) +
         said("precisions") + (request.screen ? "; each pair screened at one batch before any search" : "");
}

// Which rates the search starts from, and why: a random start trains from scratch, weights fine-tune.
std::string describe_rate_start(const SearchRequest& request, const SearchSettings& settings) {
  const bool pretrained = !request.weights_dir.empty();
  std::string rates;
  for (double r : settings.start_learning_rates(pretrained))
    rates += (rates.empty() ? "" : ", ") + strf("%.0e", r);
  return (pretrained ? "pretrained start (weights " + request.weights_dir + "): the fine-tuning list "
                     : std::string("random start (no weights): the from-scratch list ")) +
         "[" + rates + "], searched past either end (x" + strf("%g", settings.learning_rate_edge_factor) +
         "; below it only where the model learned) within " +
         strf("[%.0e, %.0e]", settings.learning_rate_bounds.front(), settings.learning_rate_bounds.back()) +
         (settings.lr_transfer ? "; once per precision, then scaled to each backend's batch" : "");
}

// A search none of whose backends found a best config (every trial failed, or the budget ended before one ran)
// answered nothing: its exit code says so (1 is an error; 3: it ran, but there is no answer to act on).
constexpr int kNoAnswerExit = 3;

// A search writes every trial to its database and trial folders beside it: a file or folder that cannot be
// written (a read-only file system, no permission) is a user error found before any trial runs.
void check_store_writable(const std::string& db_path) {
  namespace fs = std::filesystem;
  const fs::path folder = fs::path(db_path).has_parent_path() ? fs::path(db_path).parent_path() : fs::path(".");
  const bool exists = fs::exists(db_path);
  if (exists && access(db_path.c_str(), W_OK) != 0)
    throw std::invalid_argument("database '" + db_path + "' cannot be written (" + std::strerror(errno) +
                                "): a search stores every trial there; give --db a writable file");
  if (fs::is_directory(folder) && access(folder.c_str(), W_OK) != 0)
    throw std::invalid_argument("database '" + db_path + "': its folder '" + folder.string() + "' cannot be written (" +
                                std::strerror(errno) + "), where the database's journal and the trial folders go; "
                                "give --db a path in a writable folder");
}

// The search's store; a file that is no usable tune database is bad input (exit 2), left as it was.
std::unique_ptr<Database> open_store_for_search(const std::string& db_path) {
  check_store_writable(db_path);
  try {
    return std::make_unique<Database>(db_path);
  } catch (const std::runtime_error& e) {
    throw std::invalid_argument(e.what());
  }
}

// The child measuring the missing peaks runs a few seconds a precision; far past that it hangs.
constexpr double kPeakMeasureTimeout = 300;

// The measured matmul peaks of the precisions this search covers (store/instance_peaks.h): the store's when it has
// them, else measured now by `tune instance --measure-peak` in a child process, so that this process starts no
// libtorch thread pool and holds no GPU memory the trials would lack. One line per measurement.
PeakFlops measured_peaks(Database& db, const po::variables_map& vm, const SearchRequest& request) {
  const auto measure = [&](const std::vector<std::string>& precisions) {
    std::filesystem::create_directories(request.runs_dir);
    const std::string log = request.runs_dir + "/matmul-peak.log";
    const std::vector<std::string> argv{self_executable(), "instance", "--instance", vm["instance"].as<std::string>(),
                                        "--db", db.path(), "--measure-peak", "--precisions", join(precisions, ",")};
    const ChildOutcome outcome = run_child(argv, log, kPeakMeasureTimeout);
    if (outcome.timed_out || outcome.signaled || outcome.exit_code != 0)
      std::cerr << "tune: the matmul peak measurement ended with " << describe_outcome(outcome) << " (" << log
                << "): a precision it did not store has its MFU against the estimate\n";
  };
  const InstancePeaks peaks =
      stored_or_measured_peaks(db, request.instance, request.libtorch_version, request.precisions, measure);
  for (const auto& peak : peaks.stored)
    if (std::find(peaks.measured_now.begin(), peaks.measured_now.end(), peak.precision) != peaks.measured_now.end())
      std::cerr << "tune: measured matmul peak: " << describe_peak(peak) << "\n";
  return peaks.flops();
}

// "0.31 TFLOP/s fp32, 0.62 bf16 (measured: ...); where none, 0.17 TFLOP/s fp32, 0.33 bf16 (estimated: ...)": what
// MFU is taken against.
std::string describe_mfu_peaks(const Instance& instance) {
  const auto figures = [](const PeakFlops& p) {
    return strf("%.2f TFLOP/s fp32, %.2f bf16", p.fp32 / 1e12, p.bf16 / 1e12) + " (" + p.source + ")";
  };
  const bool measured = instance.measured.fp32 > 0 || instance.measured.bf16 > 0 || instance.measured.fp16 > 0;
  return (measured ? figures(instance.measured) + "; where none, " : std::string()) + figures(instance.peak);
}

bool answered(const SearchSummary& summary) {
  for (const auto& outcome : summary.backends)
    if (outcome.best || (outcome.time_to_loss && outcome.time_to_loss->best)) return true;
  std::cerr << "tune: no backend found a best config (see each one's outcome above): nothing to act on\n";
  return false;
}

}  // namespace

// What the search will cover, on the progress stream before it starts (and all a --dry-run prints).
void print_plan(const po::variables_map& vm, const SearchRequest& request, double budget, const std::string& data) {
  std::cerr << "tune: model " << request.model.name << " (" << request.model.hf_class << "), seq " << request.seq_len
            << ", instance " << request.instance.name << " [" << request.instance.fingerprint() << "], libtorch "
            << request.libtorch_version << "\n"
            << "tune: budget " << format_duration(budget)
            << (vm.count("budget") ? " (--budget)" : " (default, configs/search.yaml)") << ", database "
            << vm["db"].as<std::string>() << "\n"
            << "tune: covers " << describe_coverage(vm, request) << "\n"
            << "tune: data: " << data << "\n";
}

// --dry-run: what the flags ask for, every value checked as a search checks it (the database only for being
// writable), and nothing run: a prepared run on a machine lent for minutes fails here, not there.
int dry_run(const po::variables_map& vm, const SearchRequest& request, const SearchSettings& settings, double budget,
            const std::string& data) {
  check_store_writable(vm["db"].as<std::string>());
  print_plan(vm, request, budget, data);
  std::cerr << "tune: learning rates: " << describe_rate_start(request, settings) << "\n"
            << "tune: dry run: every flag and value checked; no database opened, no trial run\n";
  return 0;
}

int run_tune(int argc, char** argv) {
  po::options_description desc = tune_options();
  po::variables_map vm;
  if (!parse_or_help(argc, argv, desc, vm, "tune --model NAME [options]")) return 0;
  emit_formats(vm);  // an unknown --emit format or a bad --devices/--max-memory is refused before the search
  answer_options(vm, JobLength{}, 0);
  SearchRequest request = request_from(vm);
  const SearchSettings settings = settings_for_device(
      with_tuner_flags(vm, load_search_settings(vm["settings"].as<std::string>())), request.instance.device);
  // parse_duration_seconds refuses zero and negative durations, quoting the text
  const double budget =
      vm.count("budget") ? parse_duration_seconds(vm["budget"].as<std::string>()) : settings.budget_seconds;
  const std::string db_path = vm["db"].as<std::string>();
  const std::string data = describe_training_data(request);
  check_weights(request);
  if (vm["dry-run"].as<bool>()) return dry_run(vm, request, settings, budget, data);
  const std::unique_ptr<Database> store = open_store_for_search(db_path);
  Database& db = *store;
  print_plan(vm, request, budget, data);
  request.instance.measured = measured_peaks(db, vm, request);
  std::cerr << "tune: peak for MFU: " << describe_mfu_peaks(request.instance) << "\n"
            << "tune: learning rates: " << describe_rate_start(request, settings) << "\n";
  const std::string exe = self_executable();
  SearchEngine engine(db, [&exe](const TrialSpec& s, const std::string& dir) { return run_trial_isolated(s, exe, dir); },
                      settings, std::cerr);
  catch_stop_signals();  // from here Ctrl-C or SIGTERM ends the search gracefully: the best so far, then exit
  const SearchSummary summary = engine.run(request, budget);
  print_result(vm, request, settings, summary, gather_tested_models(db, db_path, row_studies(db, request)),
               continue_command(argc, argv, budget));
  if (stop_signal() != 0) {
    std::cerr << "tune: stopped by " << stop_signal_name() << ": the best configs above are the best so far; the "
              << "trial in flight was discarded (not stored); every finished trial is stored, and the same command "
              << "resumes the search, reusing them (exit " << stopped_exit_code() << ")\n";
    return stopped_exit_code();
  }
  return answered(summary) ? 0 : kNoAnswerExit;
}

}  // namespace tune::cli
