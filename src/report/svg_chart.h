// A small inline-SVG line chart for the HTML report: series of points, markers (e.g. out of memory)
// and vertical rules (e.g. break-even), with axes and a legend. No script and nothing fetched to draw it.
#pragma once
#include <optional>
#include <string>
#include <vector>

namespace tune {

enum class AxisScale { linear, log2, log10 };

struct ChartPoint {
  double x = 0;
  double y = 0;
};

struct ChartSeries {
  std::string name;
  std::string color;
  std::vector<ChartPoint> points;
  bool dashed = false;
  bool dots = true;  // a dot (with its value as tooltip) per point; off for dense computed curves
};

// A point drawn as a cross with a label; without y it sits on the x axis (a trial that gave no value).
struct ChartMarker {
  double x = 0;
  std::optional<double> y;
  std::string label;
  std::string color;
};

// A vertical dashed line across the plot, labelled at its top.
struct ChartRule {
  double x = 0;
  std::string label;
};

struct ChartSpec {
  std::string kind;  // the svg's data-chart attribute: what the chart shows, for tests and styling
  std::string title;
  std::string x_label;
  std::string y_label;
  AxisScale x_scale = AxisScale::linear;
  bool y_from_zero = true;
  std::vector<ChartSeries> series;
  std::vector<ChartMarker> markers;
  std::vector<ChartRule> rules;
};

constexpr int kChartWidth = 380;
constexpr int kChartHeight = 250;

// The chart as an <svg class="chart"> element; each series is a polyline of class "series".
std::string render_svg_chart(const ChartSpec& spec);

// Escapes &, <, >, " and ' for text and attribute values.
std::string escape_xml(const std::string& text);

}  // namespace tune
