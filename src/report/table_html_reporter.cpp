// HTML reporter of the tested-models table: one self-contained page (inline CSS, inline SVG charts, a few
// lines of inline script, a CSP that forbids any fetch) with the table and three charts per row.
#include <algorithm>
#include <cmath>
#include <sstream>

#include "instance/instance.h"
#include "report/svg_chart.h"
#include "trial/backend_registry.h"
#include "report/table_cells.h"
#include "report/table_reporters.h"
#include "util/duration.h"
#include "util/table_format.h"

namespace tune {
namespace {

const char* const kStyle = R"css(
body{font-family:system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;margin:24px;color:#222;background:#fff}
h1{font-size:22px;margin:0 0 6px}h2{font-size:16px;margin:28px 0 4px}
p{margin:4px 0 10px;max-width:1100px}.note{color:#555;font-size:13px}
table{border-collapse:collapse;font-size:12px}th,td{border:1px solid #ddd;padding:4px 6px;text-align:left}
th{background:#f3f3f3}tr:nth-child(even) td{background:#fafafa}
.charts{display:flex;flex-wrap:wrap;gap:12px}.chart{border:1px solid #e2e2e2;background:#fff}
.frame{fill:none;stroke:#bbb}.grid{stroke:#eee}.tick,.legend,.rule-label,.marker-label{font-size:10px;fill:#555}
.axis-label{font-size:11px;fill:#333}.chart-title{font-size:12px;font-weight:600;fill:#222}
.rule{stroke:#888;stroke-dasharray:4 3}.missing{width:380px;height:250px;display:flex;align-items:center;
justify-content:center;border:1px dashed #ccc;color:#777;font-size:12px}
.index{position:sticky;top:0;background:#fff;padding:6px 0;font-size:13px;border-bottom:1px solid #ddd;z-index:1}
.index a{margin-right:10px}.scroll{overflow-x:auto;max-width:100%}
)css";

// The page checks its own charts once laid out: a chart with no size or no series is a console error
// (which the headless-browser test catches); each chart's box is recorded for the screenshot test.
const char* const kSelfCheck = R"js(
window.addEventListener('load', function () {
  var charts = document.querySelectorAll('svg.chart'), drawn = 0;
  charts.forEach(function (chart) {
    var box = chart.getBoundingClientRect();
    chart.setAttribute('data-box', [box.left + window.scrollX, box.top + window.scrollY, box.width, box.height]
      .map(Math.round).join(','));
    if (box.width > 0 && box.height > 0 && chart.querySelector('.series')) drawn++;
    else console.error('chart not rendered: ' + chart.getAttribute('aria-label'));
  });
  document.body.setAttribute('data-charts-drawn', String(drawn));
});
)js";

const char* const kPalette[] = {"#ff7f0e", "#2ca02c", "#9467bd", "#8c564b", "#e377c2", "#17becf"};
constexpr const char* kNativeColor = "#1f77b4";
constexpr const char* kFailureColor = "#d62728";

std::string backend_color(const TableRow& row, const std::string& backend) {
  if (backend == kNativeBackend) return kNativeColor;
  size_t compiled_index = 0;
  for (const auto& b : row.backends) {
    if (b.backend == backend) break;
    if (b.backend != kNativeBackend) ++compiled_index;
  }
  return kPalette[compiled_index % (sizeof kPalette / sizeof kPalette[0])];
}

ChartSpec chart_spec(const std::string& kind, const std::string& title, const std::string& x_label,
                     const std::string& y_label, AxisScale x_scale, bool y_from_zero) {
  ChartSpec spec;
  spec.kind = kind;
  spec.title = title;
  spec.x_label = x_label;
  spec.y_label = y_label;
  spec.x_scale = x_scale;
  spec.y_from_zero = y_from_zero;
  return spec;
}

ChartSeries chart_series(const std::string& name, const std::string& color) {
  ChartSeries series;
  series.name = name;
  series.color = color;
  return series;
}

std::string row_title(const TableRow& row) {
  return row.model + " · " + describe_instance(row.instance) + " · " + row.precision + " · seq " +
         std::to_string(row.seq_len);
}

// A chart with nothing to draw becomes a labelled box, so the page never shows an empty plot.
std::string chart_or_note(const ChartSpec& spec, const std::string& why_missing) {
  if (spec.series.empty()) return "<div class=\"missing\" data-missing=\"" + escape_xml(spec.kind) + "\">" +
                                  escape_xml(why_missing) + "</div>";
  return render_svg_chart(spec);
}

std::string throughput_chart(const TableRow& row) {
  ChartSpec spec =
      chart_spec("throughput", "Throughput vs batch size", "batch size", "samples/s", AxisScale::log2, true);
  for (const auto& b : row.backends) {
    ChartSeries s = chart_series(b.backend, backend_color(row, b.backend));
    for (const auto& p : b.batch_curve) {
      if (p.status == TrialStatus::ok) s.points.push_back({static_cast<double>(p.batch_size), p.samples_per_second});
      else spec.markers.push_back({static_cast<double>(p.batch_size), std::nullopt,
                                   (p.status == TrialStatus::oom ? "OOM " : to_string(p.status) + " ") + b.backend,
                                   kFailureColor});
    }
    if (b.best.batch_capped_by_range())
      spec.rules.push_back({static_cast<double>(b.best.batch_size), "largest tested"});
    if (!s.points.empty()) spec.series.push_back(s);
  }
  return chart_or_note(spec, "no batch size ran");
}

std::string loss_chart(const TableRow& row) {
  ChartSpec spec =
      chart_spec("loss", "Loss vs learning rate (each at its best batch)", "learning rate", "loss (last steps)",
                 AxisScale::log10, false);
  for (const auto& b : row.backends) {
    ChartSeries s = chart_series(b.backend, backend_color(row, b.backend));
    for (const auto& p : b.lr_curve) {
      if (p.status == TrialStatus::ok) s.points.push_back({p.learning_rate, p.score_loss});
      else spec.markers.push_back({p.learning_rate, std::nullopt, to_string(p.status), kFailureColor});
    }
    if (!s.points.empty()) spec.series.push_back(s);
  }
  return chart_or_note(spec, "no learning-rate trials");
}

// Up to twice the break-even point, so the crossing sits mid-chart; a fixed horizon when it never pays off.
double amortization_horizon(const TableRow& row) {
  if (!row.amortization.worth_compiling) return 100;
  return std::max(10.0, std::ceil(2 * row.amortization.break_even_steps));
}

std::string amortization_chart(const TableRow& row) {
  ChartSpec spec = chart_spec("amortization", "Cumulative time: native vs compiled (the search's single trials)",
                              strf("steps of batch %d (both ran it)", row.amortization.batch_size), "seconds",
                              AxisScale::linear, true);
  const BackendResult* c = row.compiled_result();
  if (!row.native || !c) return chart_or_note(spec, "needs a native and a compiled result");
  if (row.amortization.batch_size == 0) return chart_or_note(spec, "native and compiled ran no batch size in common");
  ChartSeries native = chart_series("native (eager)", kNativeColor);
  ChartSeries compiled = chart_series(c->backend + " + compile", backend_color(row, c->backend));
  const double horizon = amortization_horizon(row);
  for (int i = 0; i <= 24; ++i) {
    const double steps = horizon * i / 24;
    native.points.push_back({steps, native_seconds_at(row, steps)});
    compiled.points.push_back({steps, compiled_seconds_at(row, steps)});
  }
  native.dots = compiled.dots = false;
  spec.series = {native, compiled};
  if (row.amortization.worth_compiling)
    spec.rules.push_back({row.amortization.break_even_steps,
                          strf("break-even %.0f steps", row.amortization.break_even_steps)});
  return render_svg_chart(spec);
}

// What the stages' trials say: the speed-up at a common batch and best vs best, and the break-even. Single trials,
// possibly from different sittings: in a row with a paired verdict they are context, not the answer.
std::string speed_verdict(const TableRow& row, const BackendResult* c) {
  const Amortization& a = row.amortization;
  const bool paired = row.is_confirmed();
  const std::string intro = paired ? "The search's single trials read " : "The search's single trials: ";
  if (a.batch_size == 0)
    return intro + strf("%s at %.2fx eager's samples/s, each at its own batch; they ran no batch size in common.",
                        c->backend.c_str(), row.best_vs_best_speedup);
  const std::string speed = intro + strf("%s at %.2fx eager's samples/s at batch %d (%.2fx best vs best)",
                                         c->backend.c_str(), a.speedup, a.batch_size, row.best_vs_best_speedup);
  if (paired) return speed + ".";
  if (!a.worth_compiling) return speed + ": not worth compiling.";
  return speed + "; compiling pays for itself after " + describe_break_even(a) + ".";
}

std::string verdict(const TableRow& row) {
  const BackendResult* c = row.compiled_result();
  if (!row.native || !c) return "Only one side measured: no comparison.";
  const std::string paired = "Paired verdict, each at its best: " + paired_verdict_cell(row) + ". ";
  if (!row.is_confirmed()) return paired + speed_verdict(row, c);
  return paired + "Break-even: " + break_even_cell(row) + ". " + speed_verdict(row, c);
}

void write_table(std::ostream& out, const TestedModelsTable& table) {
  const std::vector<TableSection> sections = table_sections(table);
  for (const TableSection& section : sections) {
    if (sections.size() > 1) out << "<h2 class=\"section\">" << escape_xml(section.title) << "</h2>";
    out << "<div class=\"scroll\"><table class=\"summary\"><thead><tr>";
    for (const auto& h : table_header()) out << "<th>" << escape_xml(h) << "</th>";
    out << "</tr></thead><tbody>";
    for (const TableRow* row : section.rows) {
      out << "<tr>";
      for (const auto& cell : table_cells(*row)) out << "<td>" << escape_xml(cell) << "</td>";
      out << "</tr>";
    }
    out << "</tbody></table></div>\n";
  }
  for (const std::string& note : table_notes(table)) {
    out << "<p class=\"note\">" << escape_xml(note) << "</p>\n";
    const std::vector<std::string> lines = note_lines(table, note);
    if (lines.empty()) continue;
    out << "<ul class=\"note\">";
    for (const auto& line : lines) out << "<li>" << escape_xml(line) << "</li>";
    out << "</ul>\n";
  }
}

// The model names in the table's order, each once: the page's index links to each model's first row section.
std::vector<std::string> models_in_order(const std::vector<const TableRow*>& rows) {
  std::vector<std::string> models;
  for (const TableRow* row : rows)
    if (std::find(models.begin(), models.end(), row->model) == models.end()) models.push_back(row->model);
  return models;
}

// One line per section: "Tested models: bert-base-cased ...", "Tiny variants (tests and CI): bert-tiny ...".
void write_index(std::ostream& out, const TestedModelsTable& table) {
  out << "<nav class=\"index\" aria-label=\"models\">";
  for (const TableSection& section : table_sections(table)) {
    out << "<div><b>" << escape_xml(section.title) << ":</b>";
    for (const auto& model : models_in_order(section.rows))
      out << " <a href=\"#model-" << escape_xml(model) << "\">" << escape_xml(model) << "</a>";
    out << "</div>";
  }
  out << "</nav>\n";
}

// The first section of each model carries the id the index links to.
void write_row_section(std::ostream& out, const TableRow& row, size_t index, bool first_of_model) {
  const BackendResult* n = row.native_result();
  const int64_t cap = n ? n->memory_limit_bytes : row.backends.front().memory_limit_bytes;
  if (first_of_model) out << "<span id=\"model-" << escape_xml(row.model) << "\"></span>";
  out << "<section class=\"row\" id=\"row-" << index << "\"><h2>" << escape_xml(row_title(row)) << "</h2><p>"
      << escape_xml(verdict(row)) << " Memory cap per trial: " << (cap > 0 ? format_bytes(cap) : "none") << "; trials: "
      << escape_xml(trials_cell(row)) << ", " << escape_xml(measured_when(row)) << "; budget "
      << escape_xml(budget_cell(row)) << "; " << escape_xml(row.start + ", " + row.data)
      << ".</p><div class=\"charts\">\n"
      << throughput_chart(row) << "\n" << loss_chart(row) << "\n" << amortization_chart(row) << "\n</div></section>\n";
}

class HtmlTableReporter : public TableReporter {
 public:
  std::string format() const override { return "html"; }
  void write(std::ostream& out, const TestedModelsTable& table) const override {
    out << "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
        << "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'; "
           "script-src 'unsafe-inline'\">\n<title>Tested models</title><style>"
        << kStyle << "</style></head>\n<body>\n<h1>Tested models</h1>\n"
        << "<p>Generated by <code>tune table</code> from <code>"
        << escape_xml(table.source) << "</code>: native (eager) beside the fastest compiled backend, each searched on "
        << "its own. Hover a point for its value.</p>\n";
    write_index(out, table);
    write_table(out, table);
    for (size_t i = 0; i < table.rows.size(); ++i)
      write_row_section(out, table.rows[i], i, i == 0 || table.rows[i - 1].model != table.rows[i].model);
    out << "<script>" << kSelfCheck << "</script>\n</body></html>\n";
  }
};

}  // namespace

std::unique_ptr<TableReporter> make_table_html_reporter() { return std::make_unique<HtmlTableReporter>(); }

}  // namespace tune
