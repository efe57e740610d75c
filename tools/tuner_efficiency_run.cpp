// The tuner efficiency per-run report: made from one model and seed's work folder (every strategy's search JSON,
// log and store, the judge's clock reruns, the load average), and rendered as markdown or JSON. Every number keeps
// the type and order the benchmark's Python report wrote, so the JSON reads the same.
#include "tools/tuner_efficiency_run.h"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <limits>
#include <sstream>
#include <stdexcept>
#include <thread>

#include "store/export.h"
#include "tools/report_text.h"
#include "util/process.h"
#include "util/table_format.h"

namespace tune {
namespace fs = std::filesystem;
namespace {


std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

std::vector<std::string> words_of(const std::string& line) {
  std::vector<std::string> words;
  std::istringstream in(line);
  for (std::string word; in >> word;) words.push_back(word);
  return words;
}

// One strategy's run, key NAME@REPEAT (its files KEY.json, KEY.log, KEY.db).
struct StrategyRun {
  std::string key, name;
  int repeat = 1;
  int64_t start = 0, end = 0;
  OrderedJson doc, search, ttl;
};

// A run whose JSON is missing or unreadable failed: its log's last line says why.
OrderedJson failed_search(const fs::path& work, const std::string& key) {
  const auto lines = lines_of(trimmed(read_text_file((work / (key + ".log")).string())));
  return {{"trial_seconds", 0}, {"trials_run", 0}, {"trials_reused", 0},
          {"lr_stop", "failed: " + (lines.empty() ? std::string("?") : lines.back())}};
}

StrategyRun load_run(const fs::path& work, const std::string& key, int64_t start, int64_t end) {
  StrategyRun run{key, key.substr(0, key.find('@')), 1, start, end, {}, {}, {}};
  if (const size_t at = key.find('@'); at != std::string::npos && at + 1 < key.size()) run.repeat = std::stoi(key.substr(at + 1));
  std::ifstream in(work / (key + ".json"));
  try {
    if (!in) throw std::invalid_argument("no file");
    run.doc = OrderedJson::parse(in);
  } catch (const std::exception&) {
    run.doc = {{"searches", OrderedJson::array({failed_search(work, key)})}};
  }
  run.search = run.doc.at("searches").at(0);
  run.ttl = get_or(run.search, "time_to_loss");
  if (run.ttl.is_null()) run.ttl = OrderedJson::object();
  return run;
}

std::vector<StrategyRun> load_runs(const fs::path& work) {
  std::vector<StrategyRun> runs;
  for (const auto& line : lines_of(read_text_file((work / "times.txt").string()))) {
    const auto words = words_of(line);
    if (words.size() != 3) throw std::invalid_argument("'" + (work / "times.txt").string() + "': line '" + line +
                                                       "': expected NAME@REPEAT START END");
    runs.push_back(load_run(work, words[0], std::stoll(words[1]), std::stoll(words[2])));
  }
  return runs;
}

// The mean and largest 1-minute load average while a run ran (NaN when load.txt has no sample then).
std::pair<double, double> load_during(const std::vector<std::vector<std::string>>& samples, const StrategyRun& run) {
  double sum = 0, most = -std::numeric_limits<double>::infinity();
  int count = 0;
  for (const auto& s : samples)
    if (const int64_t at = std::stoll(s[0]); run.start <= at && at <= run.end) {
      const double load = std::stod(s[1]);
      sum += load, most = std::max(most, load), ++count;
    }
  return count ? std::make_pair(sum / count, most) : std::make_pair(kNan, kNan);
}

std::vector<std::vector<std::string>> load_samples(const fs::path& work) {
  std::vector<std::vector<std::string>> samples;
  for (const auto& line : lines_of(read_text_file((work / "load.txt").string())))
    if (auto words = words_of(line); words.size() >= 2) samples.push_back(std::move(words));  // time, 1-min load, ...
  return samples;
}

// A grid key: batch and the rate's log10 rounded to 6 places, so 1e-3 written two ways is one key.
std::pair<int64_t, double> grid_key(const OrderedJson& batch, const OrderedJson& rate) {
  return {batch.get<int64_t>(), std::round(std::log10(rate.get<double>()) * 1e6) / 1e6};
}

// (batch, rate) -> the ground truth's seconds to the target (null: never reached).
std::map<std::pair<int64_t, double>, OrderedJson> grid_lookup(const StrategyRun& grid) {
  std::map<std::pair<int64_t, double>, OrderedJson> table;
  for (const auto& t : get_or(grid.ttl, "trials", OrderedJson::array()))
    table[grid_key(t.at("batch_size"), t.at("learning_rate"))] = t.at("reaches_target").get<bool>() ? t.at("seconds_to_target") : nullptr;
  return table;
}

// The judge's clock's samples: batch -> step times of the grid runs' throughput trials (read from their stores)
// and their reruns (clock.txt), batches in the order first met.
std::vector<std::pair<int, std::vector<double>>> clock_samples(const fs::path& work, const std::vector<StrategyRun>& grids) {
  std::vector<std::pair<int, std::vector<double>>> samples;
  const auto add = [&](int batch, double seconds) {
    auto at = std::find_if(samples.begin(), samples.end(), [&](const auto& s) { return s.first == batch; });
    if (at == samples.end()) at = samples.insert(samples.end(), {batch, {}});
    at->second.push_back(seconds);
  };
  for (const auto& g : grids) {
    const std::string path = (work / (g.key + ".db")).string();
    if (!fs::is_regular_file(path)) throw std::invalid_argument("store '" + path + "': no such file");
    const Database db(path);
    const nlohmann::json store = export_database(db, path);
    for (const auto& study : store.at("studies"))
      for (const auto& t : study.at("trials"))
        if (t.at("spec").at("purpose") == "throughput" && t.at("result").at("status") == "ok")
          add(t.at("spec").at("batch_size").get<int>(), t.at("result").at("step_time_median").get<double>());
  }
  if (fs::exists(work / "clock.txt"))
    for (const auto& line : lines_of(read_text_file((work / "clock.txt").string())))
      if (const auto words = words_of(line); words.size() == 2) add(std::stoi(words[0]), std::stod(words[1]));
  return samples;
}

}  // namespace

double number(const OrderedJson& value) { return value.is_null() ? kNan : value.get<double>(); }

std::string percent(const OrderedJson& value) {
  return value.is_null() ? "–" : strf("%+.1f%%", unsigned_nan(100 * value.get<double>()));
}

OrderedJson median_of(std::vector<OrderedJson> values) {
  if (values.empty()) throw std::invalid_argument("median of no values");
  std::stable_sort(values.begin(), values.end(), [](const auto& a, const auto& b) { return number(a) < number(b); });
  const size_t n = values.size();
  if (n % 2 == 1) return values[n / 2];
  return (number(values[n / 2 - 1]) + number(values[n / 2])) / 2;
}

std::vector<OrderedJson> on_clock(const OrderedJson& trials, const std::map<int, double>& clock) {
  std::vector<OrderedJson> out;
  for (const auto& t : trials) {
    const auto tick = clock.find(t.at("batch_size").get<int>());
    if (!t.at("reaches_target").get<bool>() || tick == clock.end()) continue;
    OrderedJson timed = t;
    timed["seconds_on_clock"] = t.at("steps_to_target").get<double>() * tick->second;
    out.push_back(timed);
  }
  return out;
}

std::map<int, double> clock_of(const OrderedJson& report) {
  std::map<int, double> clock;
  for (const auto& [batch, seconds] : report.at("clock_step_seconds").items()) clock[std::stoi(batch)] = seconds.get<double>();
  return clock;
}

std::string python_json_text(const OrderedJson& doc) { return doc.dump(2, ' ', true); }

OrderedJson get_or(const OrderedJson& object, const char* key, OrderedJson fallback) {
  return object.is_object() && object.contains(key) ? object[key] : fallback;
}

std::string choices_cell(const OrderedJson& choices) {
  std::string text;
  for (const auto& c : choices)
    text += (text.empty() ? "" : ", ") +
            (c[0].is_null() || c[0] == 0 ? std::string("none") : plain(c[0]) + " @ " + strf("%.2e", number(c[1])));
  return text;
}

std::string plain(const OrderedJson& value) {
  if (value.is_string()) return value.get<std::string>();
  if (value.is_null()) return "None";
  return value.dump();
}

namespace {

double regret(double seconds, double best_seconds) { return seconds / best_seconds - 1; }

// The grid's figures every strategy's run is judged against.
struct GroundTruth {
  double truth = 0;                                      // the grid's best seconds to the target, own clock
  OrderedJson grid_cost;                                 // the grid runs' median cost
  std::map<std::pair<int64_t, double>, OrderedJson> lookup;
  std::map<int, double> clock;                           // the judge's clock: batch -> median step time
  OrderedJson judge;                                     // the grid's best on the judge's clock
};

// The choice's figures: its time, regret on its own clock and, where the grid has it, on the grid's figures and
// the judge's clock.
void add_choice(OrderedJson& entry, const OrderedJson& b, const GroundTruth& g) {
  const auto on_grid = g.lookup.find(grid_key(b.at("batch_size"), b.at("learning_rate")));
  entry["batch_size"] = b.at("batch_size");
  entry["learning_rate"] = b.at("learning_rate");
  entry["seconds_to_target"] = b.at("seconds_to_target");
  entry["steps_to_target"] = b.at("steps_to_target");
  entry["regret"] = regret(b.at("seconds_to_target").get<double>(), g.truth);
  entry["grid_seconds_of_choice"] = on_grid == g.lookup.end() ? OrderedJson(nullptr) : on_grid->second;
  entry["choice_on_grid"] = on_grid != g.lookup.end();
  if (on_grid != g.lookup.end() && !on_grid->second.is_null())
    entry["regret_on_grid_figures"] = regret(on_grid->second.get<double>(), g.truth);
  // Loss curves replay exactly (same seed, same data); only step times are noisy. The steps the strategy's own
  // trial needed x the grid's step time at that batch puts every choice on one clock.
  if (const auto tick = g.clock.find(b.at("batch_size").get<int>()); tick != g.clock.end())
    entry["regret_at_grid_step_times"] = regret(b.at("steps_to_target").get<double>() * tick->second,
                                                g.judge.at("seconds_on_clock").get<double>());
}

OrderedJson run_entry(const StrategyRun& r, const GroundTruth& g, std::pair<double, double> load) {
  const OrderedJson& s = r.search;
  const OrderedJson trials = s.at("trials_run").is_number_integer() && s.at("trials_reused").is_number_integer()
                                 ? OrderedJson(s.at("trials_run").get<int64_t>() + s.at("trials_reused").get<int64_t>())
                                 : OrderedJson(s.at("trials_run").get<double>() + s.at("trials_reused").get<double>());
  OrderedJson entry{{"strategy", r.name}, {"repeat", r.repeat}, {"batch_tuner", get_or(s, "batch_tuner", "?")},
                    {"lr_tuner", get_or(s, "lr_tuner", "?")}, {"target_loss", get_or(r.ttl, "target_loss")},
                    {"trials", trials}, {"cost_seconds", s.at("trial_seconds")},
                    {"cost_share", s.at("trial_seconds").get<double>() / number(g.grid_cost)},
                    {"wall_seconds", r.end - r.start}, {"load_mean", load.first}, {"load_max", load.second},
                    {"stop", s.at("lr_stop")}};
  const OrderedJson best = get_or(r.ttl, "best");
  const bool chose = best.is_object() && !best.empty();
  if (chose) add_choice(entry, best, g);
  // Judged at the grid's step times: the strategy's own step times carry its own share of the machine's noise.
  const OrderedJson judged = get_or(entry, "regret_at_grid_step_times", get_or(entry, "regret"));
  entry["judged_regret"] = judged;
  entry["meets_goal"] = r.name == "grid" ? OrderedJson(nullptr)
                                         : OrderedJson(chose && !judged.is_null() && judged.get<double>() <= kGoalRegret &&
                                                       entry["cost_share"].get<double>() <= kGoalCostShare);
  return entry;
}

// Per strategy over its repeats: medians (and ranges) of judged regret and cost share, the goal on the medians,
// and in how many runs it was met.
OrderedJson strategy_summary(const std::string& name, const std::vector<OrderedJson>& mine) {
  std::vector<OrderedJson> regrets, shares, trials, costs;
  OrderedJson choices = OrderedJson::array(), known = mine.front();
  int meeting = 0;
  for (const auto& r : mine) {
    if (!get_or(r, "judged_regret").is_null()) regrets.push_back(r["judged_regret"]);
    shares.push_back(r["cost_share"]), trials.push_back(r["trials"]), costs.push_back(r["cost_seconds"]);
    choices.push_back({get_or(r, "batch_size"), get_or(r, "learning_rate")});
    meeting += r["meets_goal"].is_boolean() && r["meets_goal"].get<bool>();
  }
  for (auto it = mine.rbegin(); it != mine.rend(); ++it)  // a failed run did not say which tuners ran
    if ((*it)["batch_tuner"] != "?") known = *it;
  const auto by_number = [](const OrderedJson& a, const OrderedJson& b) { return number(a) < number(b); };
  const OrderedJson median_regret = regrets.size() == mine.size() ? median_of(regrets) : OrderedJson(nullptr);
  const OrderedJson share = median_of(shares);
  const bool grid = name == "grid";
  return {{"strategy", name}, {"batch_tuner", known["batch_tuner"]}, {"lr_tuner", known["lr_tuner"]},
          {"runs", mine.size()}, {"choices", choices}, {"judged_regret_median", median_regret},
          {"judged_regret_max", regrets.empty() ? OrderedJson(nullptr) : *std::max_element(regrets.begin(), regrets.end(), by_number)},
          {"trials_median", median_of(trials)}, {"cost_seconds_median", median_of(costs)},
          {"cost_share_median", share}, {"cost_share_min", *std::min_element(shares.begin(), shares.end(), by_number)},
          {"cost_share_max", *std::max_element(shares.begin(), shares.end(), by_number)},
          {"meets_goal", grid ? OrderedJson(nullptr)
                              : OrderedJson(!median_regret.is_null() && number(median_regret) <= kGoalRegret &&
                                            number(share) <= kGoalCostShare)},
          {"runs_meeting_goal", grid ? OrderedJson(nullptr) : OrderedJson(meeting)}};
}

OrderedJson summarise(const OrderedJson& results) {
  std::vector<std::string> names;
  for (const auto& r : results)
    if (std::find(names.begin(), names.end(), r["strategy"]) == names.end()) names.push_back(r["strategy"]);
  OrderedJson out = OrderedJson::array();
  for (const auto& name : names) {
    std::vector<OrderedJson> mine;
    for (const auto& r : results)
      if (r["strategy"] == name) mine.push_back(r);
    out.push_back(strategy_summary(name, mine));
  }
  return out;
}

// The judge's clock from its samples: per batch the median step time and the number of samples, both in the order
// the batches were first met (as the report's JSON lists them).
void set_clock(GroundTruth& g, OrderedJson& report, const std::vector<std::pair<int, std::vector<double>>>& samples) {
  OrderedJson seconds = OrderedJson::object(), counts = OrderedJson::object();
  for (const auto& [batch, times] : samples) {
    const OrderedJson median = median_of(std::vector<OrderedJson>(times.begin(), times.end()));
    g.clock[batch] = median.get<double>();
    seconds[std::to_string(batch)] = median;
    counts[std::to_string(batch)] = times.size();
  }
  report["clock_step_seconds"] = seconds;
  report["clock_samples"] = counts;
}

GroundTruth ground_truth(const fs::path& work, const std::vector<StrategyRun>& grids, OrderedJson& report) {
  const StrategyRun& grid = grids.front();  // the loss curves replay exactly: any grid run is the ground truth's
  GroundTruth g;
  g.truth = grid.ttl.at("best").at("seconds_to_target").get<double>();
  std::vector<OrderedJson> costs;
  for (const auto& run : grids) costs.push_back(run.search.at("trial_seconds"));
  g.grid_cost = median_of(costs);
  g.lookup = grid_lookup(grid);
  set_clock(g, report, clock_samples(work, grids));
  const auto timed = on_clock(get_or(grid.ttl, "trials", OrderedJson::array()), g.clock);
  if (timed.empty()) throw std::invalid_argument("'" + work.string() + "': no grid trial reached the target at a batch the clock has");
  g.judge = *std::min_element(timed.begin(), timed.end(), [](const auto& a, const auto& b) {
    return a.at("seconds_on_clock").template get<double>() < b.at("seconds_on_clock").template get<double>();
  });
  return g;
}

}  // namespace

TunerEfficiencyRun tuner_efficiency_run(const TunerEfficiencyRunSource& source) {
  const fs::path work = source.work;
  const std::vector<StrategyRun> runs = load_runs(work);
  std::vector<StrategyRun> grids;
  for (const auto& r : runs)
    if (r.name == "grid") grids.push_back(r);
  if (grids.empty()) throw std::invalid_argument("'" + (work / "times.txt").string() + "': no grid run");
  const StrategyRun& grid = grids.front();
  OrderedJson clock;  // clock_step_seconds and clock_samples, placed below in the report's order
  const GroundTruth g = ground_truth(work, grids, clock);
  const auto samples = load_samples(work);
  OrderedJson results = OrderedJson::array();
  for (const auto& r : runs) results.push_back(run_entry(r, g, load_during(samples, r)));
  OrderedJson report{{"model", source.model}, {"seed", source.seed}, {"command", source.command},
                     {"settings", source.settings}, {"date", source.date}, {"machine", source.machine},
                     {"objective", get_or(grid.doc, "objective")}, {"target_source", get_or(grid.ttl, "target_source")},
                     {"target_loss", get_or(grid.ttl, "target_loss")}, {"target_samples", get_or(grid.ttl, "target_samples")},
                     {"grid_best", grid.ttl.at("best")}, {"judged_best", g.judge},
                     {"clock_step_seconds", clock["clock_step_seconds"]}, {"clock_samples", clock["clock_samples"]},
                     {"grid_trials", grid.ttl.at("trials")}, {"grid_cost_seconds", g.grid_cost}, {"schema_version", 2},
                     {"strategies", summarise(results)}, {"runs", results}};
  return {report};
}

OrderedJson this_machine() {
  std::string cpu = "?";
  std::ifstream cpuinfo("/proc/cpuinfo");
  for (std::string line; cpu == "?" && std::getline(cpuinfo, line);)
    if (line.rfind("model name", 0) == 0 && line.find(':') != std::string::npos) cpu = trimmed(line.substr(line.find(':') + 1));
  char host[256] = {};
  gethostname(host, sizeof host - 1);
  std::string commit = trimmed(run_capturing({"git", "rev-parse", "--short", "HEAD"}, 30).out);
  // Measured with changes not yet committed: the report says so (they land in the commit after it).
  if (!trimmed(run_capturing({"git", "status", "--porcelain", "--untracked-files=no"}, 30).out).empty())
    commit += " with the next commit's changes in its working tree";
  return {{"cpu", cpu}, {"cores", std::thread::hardware_concurrency()}, {"host", std::string(host)}, {"commit", commit}};
}

TunerEfficiencyRun read_tuner_efficiency_run(const std::string& path) {
  try {
    return {OrderedJson::parse(read_text_file(path))};
  } catch (const OrderedJson::exception& e) {
    throw std::invalid_argument("'" + path + "': " + e.what());
  }
}

namespace {

std::string goal_cell(const OrderedJson& meets_goal) {
  return meets_goal.is_null() ? "–" : (meets_goal.get<bool>() ? "yes" : "no");
}

// A figure or "–" when absent (Python's fmt).
std::string figure(const OrderedJson& run, const char* key, const char* format) {
  const OrderedJson value = get_or(run, key);
  return value.is_null() ? "–" : strf(format, unsigned_nan(number(value)));
}

void write_heading(std::ostream& out, const OrderedJson& r, const fs::path& settings_base) {
  const OrderedJson& m = r.at("machine");
  const std::string settings = fs::absolute(r.at("settings").get<std::string>()).lexically_normal().lexically_relative(settings_base).string();
  const OrderedJson& best = r.at("grid_best");
  const OrderedJson& judged = r.at("judged_best");
  std::vector<int> samples;
  for (const auto& [batch, count] : r.at("clock_samples").items()) samples.push_back(count.get<int>());
  out << "# Tuner efficiency: " << plain(r.at("model")) << ", objective " << plain(r.at("objective")) << "\n\n"
      << "Reproduce: `" << trimmed(r.at("command").get<std::string>()) << "` (seed " << plain(r.at("seed"))
      << ", settings `" << settings << "`); " << plain(r.at("date")) << ", commit " << plain(m.at("commit")) << ", "
      << plain(m.at("cpu")) << " (" << plain(m.at("cores")) << " cores).\n\n"
      << strf("Objective: seconds to reach the target loss %.4f", number(r.at("target_loss")))
      << " = steps until the mean loss over the last quarter of the samples (a window of " << plain(r.at("target_samples"))
      << "/4 samples) is at or below it x the strategy's own clock at that batch: the median step time over every "
         "process that ran it (the throughput trial and each learning-rate trial). Target: "
      << plain(r.at("target_source")) << "; every trial trains on " << plain(r.at("target_samples"))
      << " samples (capped at the best time before its ladder rung + 10%, or the best so far for grid and random; "
         "the ground truth runs uncapped). Lower is better.\n\n"
      << "Ground truth: the exhaustive grid (all batch sizes x all listed rates, full length) reaches the target "
         "fastest at batch " << plain(best.at("batch_size")) << strf(", lr %.2e: %.3f s (", number(best.at("learning_rate")),
                                                                   number(best.at("seconds_to_target")))
      << plain(best.at("steps_to_target")) << " steps) on its own clock. On the judge's clock (each batch size's "
      << "median step time over " << *std::min_element(samples.begin(), samples.end()) << "-"
      << *std::max_element(samples.begin(), samples.end()) << " throughput trials: the grid's and its reruns, "
      << "round-robin over the sizes) the best is batch " << plain(judged.at("batch_size"))
      << strf(", lr %.2e: %.3f s (", number(judged.at("learning_rate")), number(judged.at("seconds_on_clock")))
      << plain(judged.at("steps_to_target")) << " steps).\n\n";
}

void write_clock_and_load(std::ostream& out, const OrderedJson& r, const std::vector<OrderedJson>& grid_runs) {
  std::map<int, double> clock = clock_of(r);
  std::string ticks;
  for (const auto& [batch, seconds] : clock) ticks += (ticks.empty() ? "" : ", ") + strf("%d: %.2f ms", batch, 1e3 * seconds);
  long double load_sum = 0;
  double load_max = -std::numeric_limits<double>::infinity();
  for (const auto& g : grid_runs)
    load_sum += number(g.at("load_mean")), load_max = std::max(load_max, number(g.at("load_max")));
  out << "Judge's clock, median step time per batch: " << ticks << ".\n\n"
      << "Machine load (1-min load average on " << plain(r.at("machine").at("cores")) << " cores; the trials' own 2 "
      << "threads make about 1-2) during the grid runs: "
      << strf("mean %.1f, max %.1f", unsigned_nan(static_cast<double>(load_sum / grid_runs.size())), unsigned_nan(load_max))
      << "; per run below. Any other process on the machine slows 2-thread trials by 2x or more in bursts, and the "
         "objective multiplies by step times: run it on an otherwise idle machine.\n\n"
      << "Every strategy and the grid ran " << grid_runs.size() << " times, round-robin (grid, then each strategy, "
      << "then again); cost / grid is against the grid runs' median cost, "
      << strf("%.1f", number(r.at("grid_cost_seconds"))) << " s. The goal (regret <= 3%, cost <= 25%) is judged on "
         "the medians.\n\n";
}

void write_strategies(std::ostream& out, const OrderedJson& r) {
  out << "| strategy | batch tuner | lr tuner | choice per run (batch, lr) | regret, judge's clock: median (max) "
         "| trials (median) | cost s (median) | cost / grid: median (range) | goal on the medians | runs meeting it |\n"
         "|---|---|---|---|---|---|---|---|---|---|\n";
  for (const auto& s : r.at("strategies")) {
    const OrderedJson& met = s.at("runs_meeting_goal");
    out << "| " << plain(s.at("strategy")) << " | " << plain(s.at("batch_tuner")) << " | " << plain(s.at("lr_tuner"))
        << " | " << choices_cell(s.at("choices")) << " | " << percent(s.at("judged_regret_median")) << " ("
        << percent(s.at("judged_regret_max")) << ") | " << strf("%g", number(s.at("trials_median"))) << " | "
        << strf("%.1f | %.0f%% (%.0f-%.0f%%)", number(s.at("cost_seconds_median")), 100 * number(s.at("cost_share_median")),
                100 * number(s.at("cost_share_min")), 100 * number(s.at("cost_share_max")))
        << " | " << goal_cell(s.at("meets_goal")) << " | "
        << (met.is_null() ? "–" : plain(met) + " of " + plain(s.at("runs"))) << " |\n";
  }
}

void write_every_run(std::ostream& out, const OrderedJson& r) {
  out << "\n## Every run\n\n"
         "| strategy | run | batch | lr | s to target (own clock) | regret (own clock) | regret (judge's clock) | trials "
         "| cost s | cost / grid | goal (<=3%, <=25%) | load avg (mean/max) |\n"
         "|---|---|---|---|---|---|---|---|---|---|---|---|\n";
  for (const auto& s : r.at("runs")) {
    const OrderedJson batch = get_or(s, "batch_size");
    out << "| " << plain(s.at("strategy")) << " | " << plain(s.at("repeat")) << " | "
        << (s.contains("batch_size") ? plain(batch) : "–") << " | " << figure(s, "learning_rate", "%.2e") << " | "
        << figure(s, "seconds_to_target", "%.3f") << " | " << percent(get_or(s, "regret")) << " | "
        << percent(get_or(s, "regret_at_grid_step_times")) << " | " << plain(s.at("trials")) << " | "
        << strf("%.1f | %.0f%%", number(s.at("cost_seconds")), 100 * number(s.at("cost_share"))) << " | "
        << goal_cell(s.at("meets_goal")) << " | "
        << strf("%.1f / %.1f", unsigned_nan(number(s.at("load_mean"))), unsigned_nan(number(s.at("load_max")))) << " |\n";
  }
  out << "\nRegret (own clock): the strategy's own measured time to the target of its choice / the grid's best - 1. "
         "Regret (judge's clock): the steps its own trial needed to reach the target x the judge's step time at that "
         "batch / the grid's best on the same clock - 1; loss curves are reproducible (same seed, same data), so this "
         "removes every run's own timing noise; the goal is judged on it. "
         "Cost: wall seconds of every trial the strategy ran (throughput and loss trials, process start included), "
         "each run in its own database; its share of the grid runs' median.\n\n";
}

// Seconds to the target per batch (rows) and rate (columns); "–" where the trial never reached it.
void write_grid(std::ostream& out, const OrderedJson& r) {
  out << "## Ground truth: seconds to the target per batch and learning rate (– never reached in the trial)\n\n";
  std::vector<double> rates;
  std::vector<int64_t> batches;
  std::map<std::pair<int64_t, double>, OrderedJson> cell;
  for (const auto& t : r.at("grid_trials")) {
    rates.push_back(number(t.at("learning_rate")));
    batches.push_back(t.at("batch_size").get<int64_t>());
    cell[{batches.back(), rates.back()}] = t;
  }
  std::sort(rates.begin(), rates.end());
  rates.erase(std::unique(rates.begin(), rates.end()), rates.end());
  std::sort(batches.begin(), batches.end());
  batches.erase(std::unique(batches.begin(), batches.end()), batches.end());
  out << "| batch |";
  for (double x : rates) out << strf(" %.1e |", x);
  out << "\n";
  for (size_t i = 0; i <= rates.size(); ++i) out << "|---";
  out << "|\n";
  for (int64_t b : batches) {
    std::vector<std::string> row;
    for (double x : rates) {
      const auto t = cell.find({b, x});
      row.push_back(t == cell.end() ? "" : t->second.at("reaches_target").get<bool>()
                                               ? strf("%.2f", number(t->second.at("seconds_to_target"))) : "–");
    }
    out << "| " << b << " | ";
    for (size_t i = 0; i < row.size(); ++i) out << (i ? " | " : "") << row[i];
    out << " |\n";
  }
}

class RunMarkdownReporter : public Reporter<TunerEfficiencyRun> {
 public:
  explicit RunMarkdownReporter(std::optional<fs::path> settings_base = std::nullopt) : settings_base_(std::move(settings_base)) {}
  std::string format() const override { return "md"; }
  void write(std::ostream& out, const TunerEfficiencyRun& report) const override {
    const OrderedJson& r = report.doc;
    std::vector<OrderedJson> grid_runs;
    for (const auto& s : r.at("runs"))
      if (s.at("strategy") == "grid") grid_runs.push_back(s);
    write_heading(out, r, settings_base_ ? *settings_base_ : fs::current_path());
    write_clock_and_load(out, r, grid_runs);
    write_strategies(out, r);
    write_every_run(out, r);
    write_grid(out, r);
  }

 private:
  std::optional<fs::path> settings_base_;  // unset: the current folder when it writes
};

class RunJsonReporter : public Reporter<TunerEfficiencyRun> {
 public:
  std::string format() const override { return "json"; }
  void write(std::ostream& out, const TunerEfficiencyRun& report) const override { out << python_json_text(report.doc); }
};

}  // namespace

ReporterList<TunerEfficiencyRun> tuner_efficiency_run_reporters() {
  return reporter_list<TunerEfficiencyRun, RunMarkdownReporter, RunJsonReporter>();
}

std::unique_ptr<Reporter<TunerEfficiencyRun>> make_tuner_efficiency_run_markdown(std::filesystem::path settings_base) {
  return std::make_unique<RunMarkdownReporter>(std::move(settings_base));
}

}  // namespace tune
