// The reproducibility comparison (reproducibility_report.h): each row's decisions in two sittings' tables, and
// whether they agree, tie or differ.
#include "tools/reproducibility_report.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <utility>
#include <set>

#include "util/table_format.h"

namespace tune {
namespace {

using Json = nlohmann::json;

std::string row_name(const Json& row) {
  return row.value("model", "?") + " " + row.value("precision", "?") + " seq " + std::to_string(row.value("seq_len", 0));
}

std::map<std::string, const Json*> rows_by_name(const Json& table) {
  std::map<std::string, const Json*> rows;
  for (const auto& row : table.at("rows")) rows[row_name(row)] = &row;
  return rows;
}

double number_or(const Json& j, const char* key, double otherwise) {
  return j.contains(key) && j.at(key).is_number() ? j.at(key).get<double>() : otherwise;
}

// The object `which` of a row ("native", "paired", "backends"), or an empty one where the row has null or none.
const Json& side(const Json& row, const char* which) {
  static const Json none = Json::object();
  return row.contains(which) && row.at(which).is_object() ? row.at(which) : none;
}

// The compile answer: the paired verdict where the confirmation ran, else the single-trial figures' (marked).
struct CompileAnswer {
  std::string word;  // "compile", "don't compile", "no difference"
  double speedup = 0, ci_low = 0, ci_high = 0;
  bool confirmed = false;
  std::string text() const {
    if (word.empty()) return "-";
    if (!confirmed) return word + strf(" (unconfirmed, %.2fx)", speedup);
    return word + strf(" %.2fx (CI %.2f-%.2f)", speedup, ci_low, ci_high);
  }
};

CompileAnswer compile_answer(const Json& row) {
  CompileAnswer a;
  if (row.value("compiled_backend", "").empty()) return a;
  const Json& paired = side(row, "paired");
  const std::string verdict = paired.value("verdict", "unconfirmed");
  if (verdict != "unconfirmed") {
    a.confirmed = true;
    a.word = verdict == "faster" ? "compile" : verdict == "slower" ? "don't compile" : "no difference";
    a.speedup = number_or(paired, "speedup", 0);
    a.ci_low = number_or(paired, "ci_low", 0);
    a.ci_high = number_or(paired, "ci_high", 0);
    return a;
  }
  a.word = row.value("worth_compiling", false) ? "compile" : "don't compile";
  a.speedup = number_or(row, "speedup_best_vs_best", 0);
  return a;
}

// A confirmed "no difference" covers the other sitting's speed-up when its interval holds it.
bool covers(const CompileAnswer& tie, const CompileAnswer& other) {
  return tie.confirmed && tie.word == "no difference" && other.speedup >= tie.ci_low && other.speedup <= tie.ci_high;
}

Decision compile_decision(const std::string& name, const Json& a, const Json& b) {
  const CompileAnswer first = compile_answer(a), second = compile_answer(b);
  Decision d{name, "compile", first.text(), second.text(), Agreement::same};
  if (first.word != second.word) d.agreement = covers(first, second) || covers(second, first) ? Agreement::tie
                                                                                            : Agreement::differs;
  return d;
}

// A batch size the budget or the trial cap ended the ramp at: the table marks it, and a larger size may be faster.
bool batch_is_bound(const Json& backend) {
  const std::string limit = backend.value("batch_limit", "");
  return limit == "budget" || limit == "trials";
}

std::string batch_text(const Json& backend, bool with_name) {
  if (!backend.contains("batch_size")) return "-";
  return (with_name ? backend.value("backend", "?") + " " : "") + std::to_string(backend.value("batch_size", 0)) +
         (batch_is_bound(backend) ? " (" + backend.value("batch_limit", "") + ")" : "");
}

// A sitting's sizes within its noise (the table's batch_sizes_within_noise) hold the other's size, same backend.
bool batch_covers(const Json& tie, const Json& other) {
  if (!tie.contains("batch_sizes_within_noise") || !other.contains("batch_size") ||
      tie.value("backend", "") != other.value("backend", ""))
    return false;
  const int size = other.value("batch_size", 0);
  for (const auto& within : tie.at("batch_sizes_within_noise"))
    if (within.get<int>() == size) return true;
  return false;
}

// A sitting's cut ramp (at least its size) holds the other's size, same backend.
bool batch_bound_covers(const Json& bound, const Json& other) {
  return batch_is_bound(bound) && other.contains("batch_size") &&
         bound.value("backend", "") == other.value("backend", "") &&
         other.value("batch_size", 0) >= bound.value("batch_size", 0);
}

Decision batch_decision(const std::string& name, const Json& a, const Json& b, const char* which) {
  const bool compiled = std::string(which) == "compiled";
  const Json &x = side(a, which), &y = side(b, which);
  Decision d{name, std::string("batch ") + which, batch_text(x, compiled), batch_text(y, compiled)};
  const bool same = x.value("batch_size", 0) == y.value("batch_size", 0) &&
                    (!compiled || x.value("backend", "") == y.value("backend", ""));
  d.agreement = same                                                  ? Agreement::same
                : batch_covers(x, y) || batch_covers(y, x)             ? Agreement::tie
                : batch_bound_covers(x, y) || batch_bound_covers(y, x) ? Agreement::bound
                                                                      : Agreement::differs;
  return d;
}

bool same_rate(double x, double y) { return x > 0 && y > 0 && std::fabs(x / y - 1) < 1e-6; }

// Whether the table calls the rate the search's pick, not an answer: the model had not learned enough to rank
// rates ("not separated yet"; tables before schema 9 lack the field and are taken as separated).
bool rates_not_separated(const Json& backend) {
  const auto it = backend.find("learning_rates_separated");
  return it != backend.end() && it->is_boolean() && !it->get<bool>();
}

std::string rate_text(const Json& backend) {
  if (!backend.contains("learning_rate") || !backend.at("screened_out").is_null()) return "-";
  const double rate = number_or(backend, "learning_rate", 0);
  const double tie = number_or(backend, "learning_rate_tie_with", 0);
  const std::string edge = backend.value("learning_rate_edge", "");
  const std::string mark = edge == "above" ? "≥" : edge == "below" ? "≤" : "";
  const std::string text = tie > 0 ? strf("%.1e or %.1e", rate, tie) : mark + strf("%.1e", rate);
  return rates_not_separated(backend) ? text + " (not separated)" : text;
}

// The rates a sitting's answer allows: [rate, rate], open on the side its edge mark says, or any rate where the
// rates were not separated.
std::pair<double, double> rate_range(const Json& backend) {
  if (rates_not_separated(backend)) return {0.0, HUGE_VAL};
  const double rate = number_or(backend, "learning_rate", 0);
  const std::string edge = backend.value("learning_rate_edge", "");
  return {edge == "below" ? 0.0 : rate * (1 - 1e-6), edge == "above" ? HUGE_VAL : rate * (1 + 1e-6)};
}

// Equal rates, a tie in one sitting that names the other's rate, or ranges (an edge's bound) that overlap.
Agreement rate_agreement(const Json& x, const Json& y) {
  const double rx = number_or(x, "learning_rate", 0), ry = number_or(y, "learning_rate", 0);
  if (same_rate(rx, ry)) return Agreement::same;
  const double tx = number_or(x, "learning_rate_tie_with", 0), ty = number_or(y, "learning_rate_tie_with", 0);
  if (same_rate(tx, ry) || same_rate(ty, rx)) return Agreement::tie;
  const auto [x_low, x_high] = rate_range(x);
  const auto [y_low, y_high] = rate_range(y);
  return std::max(x_low, y_low) <= std::min(x_high, y_high) ? Agreement::bound : Agreement::differs;
}

Decision rate_decision(const std::string& name, const Json& a, const Json& b, const char* which) {
  const Json &x = side(a, which), &y = side(b, which);
  Decision d{name, std::string("rate ") + which, rate_text(x), rate_text(y)};
  d.agreement = d.first == "-" || d.second == "-" ? (d.first == d.second ? Agreement::same : Agreement::differs)
                                                  : rate_agreement(x, y);
  return d;
}

std::string screen_text(const Json& row, const std::string& backend) {
  const Json& backends = side(row, "backends");
  if (!backends.contains(backend)) return "absent";
  return backends.at(backend).at("screened_out").is_null() ? "searched" : "dropped";
}

// Each backend either sitting has for the row: searched, dropped by the screen, or absent.
std::vector<Decision> screen_decisions(const std::string& name, const Json& a, const Json& b) {
  std::set<std::string> backends;
  for (const Json* row : {&a, &b})
    for (const auto& [backend, result] : side(*row, "backends").items()) backends.insert(backend);
  std::vector<Decision> out;
  for (const auto& backend : backends) {
    Decision d{name, "screen: " + backend, screen_text(a, backend), screen_text(b, backend)};
    d.agreement = d.first == d.second ? Agreement::same : Agreement::differs;
    out.push_back(d);
  }
  return out;
}

std::vector<Decision> row_decisions(const std::string& name, const Json& a, const Json& b) {
  std::vector<Decision> out{compile_decision(name, a, b)};
  for (const char* which : {"native", "compiled"}) {
    out.push_back(batch_decision(name, a, b, which));
    out.push_back(rate_decision(name, a, b, which));
  }
  for (auto& d : screen_decisions(name, a, b)) out.push_back(std::move(d));
  return out;
}

// "2026-12-05 07:25 to 07:47": the span of a sitting's trials, from its rows' first and last trial times.
std::string sitting_label(const Json& table) {
  std::string first, last;
  for (const auto& row : table.at("rows")) {
    const std::string f = row.value("first_trial_at", ""), l = row.value("last_trial_at", "");
    if (!f.empty() && (first.empty() || f < first)) first = f;
    last = std::max(last, l);
  }
  const auto minute = [](const std::string& iso) { return iso.size() >= 16 ? iso.substr(0, 10) + " " + iso.substr(11, 5) : iso; };
  return first.empty() ? "no trials" : minute(first) + " to " + minute(last) + " UTC";
}

const char* agreement_word(Agreement a) {
  switch (a) {
    case Agreement::same: return "yes";
    case Agreement::tie: return "tie";
    case Agreement::bound: return "bound";
    case Agreement::differs: break;
  }
  return "**no**";
}

class ReproducibilityMarkdownReporter : public Reporter<ReproducibilityComparison> {
 public:
  std::string format() const override { return "md"; }
  void write(std::ostream& out, const ReproducibilityComparison& c) const override {
    const int n = static_cast<int>(c.decisions.size());
    const int same = c.count(Agreement::same), ties = c.count(Agreement::tie), bounds = c.count(Agreement::bound);
    const int agree = same + ties + bounds;
    const auto percent = [n](int k) { return n ? 100.0 * k / n : 0.0; };
    out << "Sitting 1: " << c.first_label << ". Sitting 2: " << c.second_label << ".\n\n"
        << strf("**%d of %d decisions agree (%.0f%%)**: %d the same, %d through a tie (one sitting's interval or "
                "rate tie covers the other's answer), %d through a bound (one sitting's answer is a bound its table "
                "marks, a rate at the edge of those tried or a batch whose ramp was cut, and the other's lies within "
                "it, or a rate the table calls not separated yet, no answer); without the bounds %d (%.0f%%). "
                "%d differ.\n\n",
                agree, n, percent(agree), same, ties, bounds, same + ties, percent(same + ties), n - agree);
    out << "| row | decision | sitting 1 | sitting 2 | agree |\n| --- | --- | --- | --- | --- |\n";
    for (const auto& d : c.decisions)
      out << "| " << d.row << " | " << d.what << " | " << d.first << " | " << d.second << " | "
          << agreement_word(d.agreement) << " |\n";
    out << "\nDisagreements:\n\n";
    bool any = false;
    for (const auto& d : c.decisions)
      if (d.agreement == Agreement::differs) {
        out << "- " << d.row << ", " << d.what << ": " << d.first << " / " << d.second << "\n";
        any = true;
      }
    if (!any) out << "- none\n";
  }
};

}  // namespace

int ReproducibilityComparison::count(Agreement a) const {
  return static_cast<int>(std::count_if(decisions.begin(), decisions.end(), [&](const Decision& d) {
    return d.agreement == a;
  }));
}

ReproducibilityComparison compare_sittings(const nlohmann::json& first_table, const nlohmann::json& second_table) {
  ReproducibilityComparison c;
  c.first_label = sitting_label(first_table);
  c.second_label = sitting_label(second_table);
  const auto first = rows_by_name(first_table), second = rows_by_name(second_table);
  std::set<std::string> names;
  for (const auto* rows : {&first, &second})
    for (const auto& [name, row] : *rows) names.insert(name);
  for (const auto& name : names) {
    const auto a = first.find(name), b = second.find(name);
    if (a == first.end() || b == second.end()) {
      c.decisions.push_back({name, "row", a == first.end() ? "missing" : "present",
                             b == second.end() ? "missing" : "present", Agreement::differs});
      continue;
    }
    for (auto& d : row_decisions(name, *a->second, *b->second)) c.decisions.push_back(std::move(d));
  }
  return c;
}

ReporterList<ReproducibilityComparison> reproducibility_reporters() {
  return reporter_list<ReproducibilityComparison, ReproducibilityMarkdownReporter>();
}

}  // namespace tune
