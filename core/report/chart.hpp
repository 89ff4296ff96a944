#pragma once
// A small vector chart scene for reports: shapes in pixel coordinates (origin top left, y
// down), drawn the same way to SVG (HTML reports) and to PDF (pdf_report.cpp, through cairo).
// Charts are built from data with a PlotFrame, which maps data to pixels on linear or log10
// axes and draws the frame, grid, ticks and axis labels.
//
//   Scene                 width, height and the shapes, drawn in order
//   Line, Polyline, Marker, Rect, Text   the shapes (Shape is their variant)
//   Axis, PlotFrame       data -> pixel mapping; nice ticks; draw_axes
//   LineSeries, line_chart   a multi-series chart with a legend (loss and metrics per epoch)
//   to_svg                the scene as an <svg> element
#include <cstdint>
#include <optional>
#include <string>
#include <variant>
#include <vector>

namespace gsr::report {

struct Rgb {
    std::uint8_t r = 0, g = 0, b = 0;
    bool operator==(const Rgb&) const = default;
};

struct Point {
    double x = 0, y = 0;
};

struct Stroke {
    Rgb color;
    double width = 1;
    bool dashed = false;
};

struct Line {
    Point a, b;
    Stroke stroke;
};

struct Polyline {
    std::vector<Point> points;
    Stroke stroke;
};

enum class MarkerKind : std::uint8_t { Circle, Square, Triangle, Diamond, Cross };

/// A symbol centred on `at`; `size` is its width in pixels.
struct Marker {
    Point at;
    MarkerKind kind = MarkerKind::Circle;
    double size = 6;
    Rgb fill;
    Rgb outline;
    double outline_width = 1;
};

struct Rect {
    Point origin; ///< top left
    double width = 0, height = 0;
    std::optional<Rgb> fill;
    std::optional<Stroke> stroke;
};

enum class Anchor : std::uint8_t { Start, Middle, End };

/// Text whose baseline starts, centres or ends at `at`, turned `rotate` degrees clockwise about
/// `at` (SVG's and cairo's sense with y down): -90 reads upwards, as a y axis label.
struct Text {
    Point at;
    std::string text;
    double size = 11;
    Anchor anchor = Anchor::Start;
    bool bold = false;
    double rotate = 0;
    Rgb color;
};

using Shape = std::variant<Line, Polyline, Marker, Rect, Text>;

/// The corners of a square, triangle or diamond marker; empty for circles and crosses, which
/// the renderers draw as an arc and two strokes.
std::vector<Point> marker_polygon(const Marker& m);

struct Scene {
    double width = 640, height = 400;
    std::vector<Shape> shapes;

    template <typename T>
    void add(T shape) { shapes.emplace_back(std::move(shape)); }
};

// --- axes ------------------------------------------------------------------------------------

enum class Scale : std::uint8_t { Linear, Log10 };

struct Tick {
    double value = 0;
    std::string text;
};

struct Axis {
    Scale scale = Scale::Linear;
    double lo = 0, hi = 1; ///< Log10: both > 0
    std::string label;
    bool integer = false; ///< linear ticks at whole numbers only (epochs, layers)
};

/// A linear axis over the values with "nice" bounds (1, 2, 5 times a power of ten); a flat or
/// empty range is widened so the axis has a length.
Axis fit_linear(const std::vector<double>& values, std::string label, bool include_zero = false);
/// A log axis from the decade at or below the smallest positive value to the decade at or
/// above the largest. Non-positive and non-finite values are ignored.
Axis fit_log(const std::vector<double>& values, std::string label);

/// Ticks inside [lo, hi]: about `count` nice linear steps, or every decade on a log axis
/// (every second or third decade when there are many).
std::vector<Tick> ticks(const Axis& axis, int count = 6);
/// A short label: 0.25, 1.5e+09, 10^3 style exponents for log axes ("1e3").
std::string tick_text(double value, Scale scale);

/// The plotting area of a chart (in pixels of its scene) and its two axes.
class PlotFrame {
public:
    /// `left, top, width, height`: the inner plotting box in scene pixels.
    PlotFrame(double left, double top, double width, double height, Axis x, Axis y);

    /// Data to scene pixels; y grows downwards. Values outside the axes map outside the box;
    /// non-positive values on a log axis map to the box's low edge.
    Point to_pixel(double x, double y) const;
    bool contains(double x, double y) const;
    const Axis& x_axis() const { return x_; }
    const Axis& y_axis() const { return y_; }
    double left() const { return left_; }
    double top() const { return top_; }
    double width() const { return width_; }
    double height() const { return height_; }

    /// Grid, box, ticks with their labels, and the axis labels.
    void draw_axes(Scene& scene) const;
    /// The polyline clipped to the box (segments are cut where they leave it).
    void add_clipped(Scene& scene, const std::vector<Point>& data, const Stroke& stroke) const;

private:
    double fraction(const Axis& a, double v) const;

    double left_, top_, width_, height_;
    Axis x_, y_;
};

// --- line charts -----------------------------------------------------------------------------

struct LineSeries {
    std::string name;
    std::vector<Point> points; ///< data; non-finite y values break the line
    Rgb color;
    bool dashed = false;
};

/// A chart of series over a shared x axis, with a title and a legend under the plot.
Scene line_chart(const std::string& title, const std::string& x_label, const std::string& y_label,
                 const std::vector<LineSeries>& series, double width = 640, double height = 360);

/// A fixed, colour-blind-friendly palette (Okabe-Ito); index wraps.
Rgb palette(std::size_t index);

/// The scene as an <svg> element. `standalone` adds the XML namespace (needed for .svg files,
/// not for SVG inlined in HTML, where it is implied).
std::string to_svg(const Scene& scene, bool standalone = false);

/// &, <, >, " and ' as XML entities.
std::string xml_escape(const std::string& text);

} // namespace gsr::report
