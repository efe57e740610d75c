// Renders a ChartSpec as inline SVG: scales (linear or logarithmic x), "nice" ticks, grid, series with
// point tooltips (<title>), markers, rules and a legend. Pure string building, so tests can read it.
#include "report/svg_chart.h"

#include <algorithm>
#include <cmath>
#include <sstream>

#include "util/table_format.h"

namespace tune {
namespace {

constexpr double kLeft = 58, kRight = 14, kTop = 44, kBottom = 42;  // the legend sits above the plot

struct Range {
  double lo = 0, hi = 1;
};

double transform(AxisScale scale, double x) {
  if (scale == AxisScale::log2) return std::log2(std::max(x, 1e-300));
  if (scale == AxisScale::log10) return std::log10(std::max(x, 1e-300));
  return x;
}

std::string label_number(double v) {
  if (v != 0 && (std::fabs(v) < 1e-3 || std::fabs(v) >= 1e6)) return strf("%.0e", v);
  return strf("%g", std::round(v * 1e6) / 1e6);
}

// 1, 2 or 5 times a power of ten, so ticks read as round numbers.
double nice_step(double span) {
  const double raw = span / 4;
  const double power = std::pow(10, std::floor(std::log10(raw)));
  for (double m : {1.0, 2.0, 5.0})
    if (raw <= m * power) return m * power;
  return 10 * power;
}

Range padded(double lo, double hi) {
  if (hi - lo < 1e-12) return {lo - 1, hi + 1};
  return {lo, hi};
}

Range x_range(const ChartSpec& spec) {
  std::vector<double> xs;
  for (const auto& s : spec.series)
    for (const auto& p : s.points) xs.push_back(transform(spec.x_scale, p.x));
  for (const auto& m : spec.markers) xs.push_back(transform(spec.x_scale, m.x));
  for (const auto& r : spec.rules) xs.push_back(transform(spec.x_scale, r.x));
  if (xs.empty()) return {};
  const auto [lo, hi] = std::minmax_element(xs.begin(), xs.end());
  if (spec.x_scale != AxisScale::linear) return padded(std::floor(*lo), std::ceil(*hi));
  return padded(*lo, *hi);
}

Range y_range(const ChartSpec& spec) {
  std::vector<double> ys;
  for (const auto& s : spec.series)
    for (const auto& p : s.points) ys.push_back(p.y);
  for (const auto& m : spec.markers)
    if (m.y) ys.push_back(*m.y);
  if (ys.empty()) return {};
  auto [lo, hi] = std::minmax_element(ys.begin(), ys.end());
  const Range r = padded(spec.y_from_zero ? std::min(0.0, *lo) : *lo, *hi);
  const double step = nice_step(r.hi - r.lo);
  return {std::floor(r.lo / step) * step, std::ceil(r.hi / step) * step};
}

std::vector<double> linear_ticks(Range r) {
  std::vector<double> ticks;
  const double step = nice_step(r.hi - r.lo);
  for (double v = std::ceil(r.lo / step) * step; v <= r.hi + step * 1e-9; v += step) ticks.push_back(v);
  return ticks;
}

// Ticks in transformed units; log axes tick at whole powers, thinned to at most 8.
std::vector<double> x_ticks(AxisScale scale, Range r) {
  if (scale == AxisScale::linear) return linear_ticks(r);
  std::vector<double> ticks;
  const int every = std::max(1, static_cast<int>(std::ceil((r.hi - r.lo + 1) / 8)));
  for (double v = r.lo; v <= r.hi + 1e-9; v += every) ticks.push_back(v);
  return ticks;
}

std::string x_tick_label(AxisScale scale, double t) {
  if (scale == AxisScale::log2) return label_number(std::exp2(t));
  if (scale == AxisScale::log10) return strf("1e%d", static_cast<int>(std::lround(t)));
  return label_number(t);
}

class Plot {
 public:
  explicit Plot(const ChartSpec& spec) : spec_(spec), x_(x_range(spec)), y_(y_range(spec)) {}

  double px(double x) const {
    const double t = transform(spec_.x_scale, x);
    return kLeft + (t - x_.lo) / (x_.hi - x_.lo) * (kChartWidth - kLeft - kRight);
  }
  double py(double y) const { return kChartHeight - kBottom - (y - y_.lo) / (y_.hi - y_.lo) * plot_height(); }
  double plot_height() const { return kChartHeight - kTop - kBottom; }
  double bottom() const { return kChartHeight - kBottom; }

  void axes(std::ostream& out) const {
    out << strf("<rect class=\"frame\" x=\"%.0f\" y=\"%.0f\" width=\"%.0f\" height=\"%.0f\"/>", kLeft, kTop,
                kChartWidth - kLeft - kRight, plot_height());
    for (double v : linear_ticks(y_))
      out << strf("<line class=\"grid\" x1=\"%.0f\" x2=\"%.0f\" y1=\"%.1f\" y2=\"%.1f\"/>", kLeft,
                  kChartWidth - kRight, py(v), py(v))
          << strf("<text class=\"tick\" x=\"%.0f\" y=\"%.1f\" text-anchor=\"end\">", kLeft - 4, py(v) + 3)
          << label_number(v) << "</text>";
    for (double t : x_ticks(spec_.x_scale, x_)) {
      const double x = kLeft + (t - x_.lo) / (x_.hi - x_.lo) * (kChartWidth - kLeft - kRight);
      out << strf("<text class=\"tick\" x=\"%.1f\" y=\"%.0f\" text-anchor=\"middle\">", x, bottom() + 13)
          << x_tick_label(spec_.x_scale, t) << "</text>";
    }
    out << strf("<text class=\"axis-label\" x=\"%.0f\" y=\"%d\" text-anchor=\"middle\">", (kLeft + kChartWidth) / 2,
                kChartHeight - 6)
        << escape_xml(spec_.x_label) << "</text>"
        << strf("<text class=\"axis-label\" transform=\"translate(13 %.0f) rotate(-90)\" text-anchor=\"middle\">",
                kTop + plot_height() / 2)
        << escape_xml(spec_.y_label) << "</text>";
  }

  void series(std::ostream& out, const ChartSeries& s) const {
    out << "<polyline class=\"series\" fill=\"none\" stroke-width=\"2\" stroke=\"" << escape_xml(s.color) << "\""
        << (s.dashed ? " stroke-dasharray=\"5 3\"" : "") << " points=\"";
    for (const auto& p : s.points) out << strf("%.1f,%.1f ", px(p.x), py(p.y));
    out << "\"/>";
    if (!s.dots) return;
    for (const auto& p : s.points)
      out << strf("<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3\" fill=\"", px(p.x), py(p.y)) << escape_xml(s.color)
          << "\"><title>" << escape_xml(s.name) << ": " << label_number(p.x) << ", " << label_number(p.y)
          << "</title></circle>";
  }

  void marker(std::ostream& out, const ChartMarker& m) const {
    const double x = px(m.x), y = m.y ? py(*m.y) : bottom();
    const bool left_half = x < (kLeft + kChartWidth - kRight) / 2;
    out << "<g class=\"marker\" stroke=\"" << escape_xml(m.color) << "\" stroke-width=\"2.5\">"
        << strf("<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>", x - 5, y - 5, x + 5, y + 5)
        << strf("<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>", x - 5, y + 5, x + 5, y - 5)
        << "<title>" << escape_xml(m.label) << "</title></g>"
        << strf("<text class=\"marker-label\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"%s\" fill=\"",
                left_half ? x + 4 : x - 4, y - 8, left_half ? "start" : "end")
        << escape_xml(m.color) << "\">" << escape_xml(m.label) << "</text>";
  }

  void rule(std::ostream& out, const ChartRule& r) const {
    const double x = px(r.x);
    const bool left_half = x < (kLeft + kChartWidth - kRight) / 2;
    out << strf("<line class=\"rule\" x1=\"%.1f\" x2=\"%.1f\" y1=\"%.0f\" y2=\"%.0f\"/>", x, x, kTop, bottom())
        // Labelled on the side with more room, so the text stays inside the plot.
        << strf("<text class=\"rule-label\" x=\"%.1f\" y=\"%.0f\" text-anchor=\"%s\">", left_half ? x + 3 : x - 3,
                kTop + 11, left_half ? "start" : "end")
        << escape_xml(r.label) << "</text>";
  }

  // One line of entries between the title and the plot, so it never covers data.
  void legend(std::ostream& out) const {
    double x = kLeft;
    for (const auto& s : spec_.series) {
      out << strf("<line x1=\"%.0f\" x2=\"%.0f\" y1=\"31\" y2=\"31\" stroke-width=\"2\" stroke=\"", x, x + 14)
          << escape_xml(s.color) << "\"" << (s.dashed ? " stroke-dasharray=\"5 3\"" : "") << "/>"
          << strf("<text class=\"legend\" x=\"%.0f\" y=\"34\">", x + 18) << escape_xml(s.name) << "</text>";
      x += 30 + 5.5 * static_cast<double>(s.name.size());
    }
  }

 private:
  const ChartSpec& spec_;
  Range x_, y_;
};

}  // namespace

std::string escape_xml(const std::string& text) {
  std::string out;
  for (char ch : text) {
    switch (ch) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      default: out += ch;
    }
  }
  return out;
}

std::string render_svg_chart(const ChartSpec& spec) {
  const Plot plot(spec);
  std::ostringstream out;
  out << "<svg class=\"chart\" data-chart=\"" << escape_xml(spec.kind) << "\" xmlns=\"http://www.w3.org/2000/svg\""
      << strf(" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\"", kChartWidth, kChartHeight, kChartWidth,
              kChartHeight)
      << " role=\"img\" aria-label=\"" << escape_xml(spec.title) << "\"><title>" << escape_xml(spec.title)
      << "</title>" << strf("<text class=\"chart-title\" x=\"%.0f\" y=\"18\">", kLeft) << escape_xml(spec.title)
      << "</text>";
  plot.axes(out);
  for (const auto& r : spec.rules) plot.rule(out, r);
  for (const auto& s : spec.series) plot.series(out, s);
  for (const auto& m : spec.markers) plot.marker(out, m);
  plot.legend(out);
  out << "</svg>";
  return out.str();
}

}  // namespace tune
