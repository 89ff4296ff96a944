#include "report/chart.hpp"

#include "util/utf8_text.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>

namespace gsr::report {
namespace {

constexpr double kEps = 1e-9;
const Rgb kInk{40, 40, 40};
const Rgb kGrid{225, 225, 225};

/// 1, 2 or 5 times a power of ten, at least `raw`.
double nice_step(double raw)
{
    if (!(raw > 0) || !std::isfinite(raw)) return 1;
    const double p = std::pow(10.0, std::floor(std::log10(raw)));
    const double f = raw / p;
    const double nice = f <= 1 + kEps ? 1 : f <= 2 + kEps ? 2 : f <= 5 + kEps ? 5 : 10;
    return nice * p;
}

std::string number(double v)
{
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.2f", v);
    std::string s = buf;
    // Trim "12.50" to "12.5" and "12.00" to "12": SVG files stay short and diffable.
    s.erase(s.find_last_not_of('0') + 1);
    if (!s.empty() && s.back() == '.') s.pop_back();
    return s == "-0" ? "0" : s;
}

std::string hex(Rgb c)
{
    char buf[8];
    std::snprintf(buf, sizeof buf, "#%02x%02x%02x", c.r, c.g, c.b);
    return buf;
}

std::string stroke_attrs(const Stroke& s)
{
    std::string a = " stroke=\"" + hex(s.color) + "\" stroke-width=\"" + number(s.width) + "\"";
    if (s.dashed) a += " stroke-dasharray=\"6,4\"";
    return a;
}

/// Liang-Barsky: clips the segment a-b to the box; false when nothing is left.
bool clip_segment(Point& a, Point& b, double x0, double y0, double x1, double y1)
{
    double t0 = 0, t1 = 1;
    const double dx = b.x - a.x, dy = b.y - a.y;
    const double p[4] = {-dx, dx, -dy, dy};
    const double q[4] = {a.x - x0, x1 - a.x, a.y - y0, y1 - a.y};
    for (int i = 0; i < 4; ++i) {
        if (p[i] == 0) {
            if (q[i] < 0) return false;
            continue;
        }
        const double t = q[i] / p[i];
        if (p[i] < 0) t0 = std::max(t0, t);
        else t1 = std::min(t1, t);
        if (t0 > t1) return false;
    }
    const Point start{a.x + t0 * dx, a.y + t0 * dy};
    const Point end{a.x + t1 * dx, a.y + t1 * dy};
    a = start;
    b = end;
    return true;
}

double approx_text_width(const std::string& text, double size)
{
    return 0.56 * size * static_cast<double>(text.size()); // sans-serif average advance
}

} // namespace

std::vector<Point> marker_polygon(const Marker& m)
{
    const double h = m.size / 2;
    const Point c = m.at;
    switch (m.kind) {
    case MarkerKind::Square:
        return {{c.x - h, c.y - h}, {c.x + h, c.y - h}, {c.x + h, c.y + h}, {c.x - h, c.y + h}};
    case MarkerKind::Triangle:
        return {{c.x, c.y - h}, {c.x + h, c.y + h}, {c.x - h, c.y + h}};
    case MarkerKind::Diamond:
        return {{c.x, c.y - h * 1.3}, {c.x + h, c.y}, {c.x, c.y + h * 1.3}, {c.x - h, c.y}};
    case MarkerKind::Circle:
    case MarkerKind::Cross: break;
    }
    return {};
}

// --- axes ------------------------------------------------------------------------------------

Axis fit_linear(const std::vector<double>& values, std::string label, bool include_zero)
{
    double lo = std::numeric_limits<double>::infinity(), hi = -lo;
    for (double v : values) {
        if (!std::isfinite(v)) continue;
        lo = std::min(lo, v);
        hi = std::max(hi, v);
    }
    if (!std::isfinite(lo)) lo = 0, hi = 1;
    if (include_zero) lo = std::min(lo, 0.0), hi = std::max(hi, 0.0);
    // Values near +-1e308 (an edited report) would make hi - lo infinite, and every tick the
    // same: within +-DBL_MAX/4 the padded, rounded-out axis keeps a finite length.
    const double limit = std::numeric_limits<double>::max() / 4;
    lo = std::clamp(lo, -limit, limit);
    hi = std::clamp(hi, -limit, limit);
    if (hi - lo <= std::abs(hi) * kEps) {
        // A flat series still needs an axis with a length around its value.
        const double pad = lo == 0 ? 1 : std::abs(lo) * 0.5;
        lo -= pad;
        hi += pad;
    }
    const double step = nice_step((hi - lo) / 5);
    Axis a;
    a.scale = Scale::Linear;
    a.lo = std::floor(lo / step + kEps) * step;
    a.hi = std::ceil(hi / step - kEps) * step;
    a.label = std::move(label);
    return a;
}

Axis fit_log(const std::vector<double>& values, std::string label)
{
    double lo = std::numeric_limits<double>::infinity(), hi = 0;
    for (double v : values) {
        if (!(v > 0) || !std::isfinite(v)) continue;
        lo = std::min(lo, v);
        hi = std::max(hi, v);
    }
    Axis a;
    a.scale = Scale::Log10;
    a.label = std::move(label);
    if (!std::isfinite(lo)) {
        a.lo = 1;
        a.hi = 10;
        return a;
    }
    a.lo = std::pow(10.0, std::floor(std::log10(lo) + kEps));
    a.hi = std::pow(10.0, std::ceil(std::log10(hi) - kEps));
    if (a.hi <= a.lo) a.hi = a.lo * 10;
    return a;
}

std::string tick_text(double value, Scale scale)
{
    char buf[32];
    if (scale == Scale::Log10) {
        const int e = static_cast<int>(std::lround(std::log10(value)));
        if (e >= -3 && e <= 4) std::snprintf(buf, sizeof buf, "%g", std::pow(10.0, e));
        else std::snprintf(buf, sizeof buf, "1e%d", e);
        return buf;
    }
    if (std::abs(value) < 1e-12) return "0";
    std::snprintf(buf, sizeof buf, "%.6g", value);
    return buf;
}

std::vector<Tick> ticks(const Axis& axis, int count)
{
    std::vector<Tick> out;
    if (axis.scale == Scale::Log10) {
        if (!(axis.lo > 0) || !(axis.hi > axis.lo)) return out;
        const int d0 = static_cast<int>(std::ceil(std::log10(axis.lo) - kEps));
        const int d1 = static_cast<int>(std::floor(std::log10(axis.hi) + kEps));
        const int stride = std::max(1, (d1 - d0 + 8) / 9);
        for (int d = d0; d <= d1; d += stride) {
            const double v = std::pow(10.0, d);
            out.push_back({v, tick_text(v, Scale::Log10)});
        }
        return out;
    }
    if (!(axis.hi > axis.lo)) return out;
    double step = nice_step((axis.hi - axis.lo) / std::max(count, 1));
    if (axis.integer) step = std::max(step, 1.0);
    const double first = std::ceil(axis.lo / step - kEps) * step;
    for (double v = first; v <= axis.hi + step * kEps; v += step) {
        const double clean = std::abs(v) < step * kEps ? 0.0 : v;
        out.push_back({clean, tick_text(clean, Scale::Linear)});
        if (out.size() > 100) break; // a guard against degenerate ranges, never reached in use
    }
    return out;
}

PlotFrame::PlotFrame(double left, double top, double width, double height, Axis x, Axis y)
    : left_(left), top_(top), width_(width), height_(height), x_(std::move(x)), y_(std::move(y))
{
}

double PlotFrame::fraction(const Axis& a, double v) const
{
    if (a.scale == Scale::Log10) {
        if (!(v > 0)) return 0;
        return (std::log10(v) - std::log10(a.lo)) / (std::log10(a.hi) - std::log10(a.lo));
    }
    return (v - a.lo) / (a.hi - a.lo);
}

Point PlotFrame::to_pixel(double x, double y) const
{
    return {left_ + fraction(x_, x) * width_, top_ + height_ - fraction(y_, y) * height_};
}

bool PlotFrame::contains(double x, double y) const
{
    const double fx = fraction(x_, x), fy = fraction(y_, y);
    return fx >= -kEps && fx <= 1 + kEps && fy >= -kEps && fy <= 1 + kEps;
}

void PlotFrame::draw_axes(Scene& scene) const
{
    const double bottom = top_ + height_, right = left_ + width_;
    const std::vector<Tick> xt = ticks(x_), yt = ticks(y_);
    for (const Tick& t : xt) {
        const double px = to_pixel(t.value, y_.lo).x;
        scene.add(Line{{px, top_}, {px, bottom}, {kGrid, 1, false}});
    }
    for (const Tick& t : yt) {
        const double py = to_pixel(x_.lo, t.value).y;
        scene.add(Line{{left_, py}, {right, py}, {kGrid, 1, false}});
    }
    scene.add(Rect{{left_, top_}, width_, height_, std::nullopt, Stroke{kInk, 1, false}});
    for (const Tick& t : xt) {
        const double px = to_pixel(t.value, y_.lo).x;
        scene.add(Line{{px, bottom}, {px, bottom + 4}, {kInk, 1, false}});
        scene.add(Text{{px, bottom + 16}, t.text, 10, Anchor::Middle, false, 0, kInk});
    }
    for (const Tick& t : yt) {
        const double py = to_pixel(x_.lo, t.value).y;
        scene.add(Line{{left_ - 4, py}, {left_, py}, {kInk, 1, false}});
        scene.add(Text{{left_ - 7, py + 3.5}, t.text, 10, Anchor::End, false, 0, kInk});
    }
    if (!x_.label.empty())
        scene.add(Text{{left_ + width_ / 2, bottom + 34}, x_.label, 11, Anchor::Middle, false, 0,
                       kInk});
    if (!y_.label.empty())
        scene.add(Text{{left_ - 52, top_ + height_ / 2}, y_.label, 11, Anchor::Middle, false, -90,
                       kInk});
}

void PlotFrame::add_clipped(Scene& scene, const std::vector<Point>& data,
                            const Stroke& stroke) const
{
    // Straight in pixel space is what is drawn, so clipping there is exact for both scales.
    Polyline current{{}, stroke};
    auto flush = [&] {
        if (current.points.size() >= 2) scene.add(current);
        current.points.clear();
    };
    for (std::size_t i = 0; i + 1 < data.size(); ++i) {
        const Point& d0 = data[i];
        const Point& d1 = data[i + 1];
        if (!std::isfinite(d0.y) || !std::isfinite(d1.y) || !std::isfinite(d0.x) ||
            !std::isfinite(d1.x)) {
            flush();
            continue;
        }
        Point a = to_pixel(d0.x, d0.y), b = to_pixel(d1.x, d1.y);
        const Point a_raw = a;
        if (!clip_segment(a, b, left_, top_, left_ + width_, top_ + height_)) {
            flush();
            continue;
        }
        const bool continues = !current.points.empty() && a.x == a_raw.x && a.y == a_raw.y &&
                               current.points.back().x == a.x && current.points.back().y == a.y;
        if (!continues) {
            flush();
            current.points.push_back(a);
        }
        current.points.push_back(b);
    }
    flush();
}

// --- line charts -----------------------------------------------------------------------------

Rgb palette(std::size_t index)
{
    static const Rgb colours[] = {{0, 114, 178},  {213, 94, 0},  {0, 158, 115},
                                  {204, 121, 167}, {230, 159, 0}, {86, 180, 233},
                                  {120, 120, 120}, {240, 228, 66}};
    return colours[index % (sizeof colours / sizeof colours[0])];
}

Scene line_chart(const std::string& title, const std::string& x_label, const std::string& y_label,
                 const std::vector<LineSeries>& series, double width, double height)
{
    Scene scene;
    scene.width = width;
    scene.height = height;
    scene.add(Rect{{0, 0}, width, height, Rgb{255, 255, 255}, std::nullopt});
    scene.add(Text{{width / 2, 20}, title, 13, Anchor::Middle, true, 0, kInk});

    // The legend wraps under the plot; its rows decide where the plot box ends.
    const double left = 70, right = width - 18, legend_row = 16;
    std::vector<std::pair<Point, std::size_t>> entries;
    double lx = left, rows = 1;
    for (std::size_t i = 0; i < series.size(); ++i) {
        const double w = 30 + approx_text_width(series[i].name, 10) + 16;
        if (lx + w > right && lx > left) {
            lx = left;
            ++rows;
        }
        entries.push_back({{lx, rows}, i});
        lx += w;
    }
    const double top = 34;
    const double box_bottom = height - 46 - rows * legend_row;

    std::vector<double> xs, ys;
    bool integer_x = true;
    for (const LineSeries& s : series)
        for (const Point& p : s.points) {
            if (!std::isfinite(p.x) || !std::isfinite(p.y)) continue;
            xs.push_back(p.x);
            ys.push_back(p.y);
            integer_x = integer_x && p.x == std::floor(p.x);
        }
    Axis x = fit_linear(xs, x_label);
    x.integer = integer_x;
    if (integer_x && !xs.empty()) {
        // Epochs: start the axis at the first one rather than at a rounded-down zero.
        x.lo = *std::min_element(xs.begin(), xs.end());
        x.hi = std::max(*std::max_element(xs.begin(), xs.end()), x.lo + 1);
    }
    const PlotFrame frame(left, top, right - left, box_bottom - top, x, fit_linear(ys, y_label));
    frame.draw_axes(scene);

    for (const LineSeries& s : series) {
        const Stroke stroke{s.color, 1.8, s.dashed};
        frame.add_clipped(scene, s.points, stroke);
        // Markers too while they stay readable: a one-epoch run still shows its point.
        if (s.points.size() <= 40)
            for (const Point& p : s.points)
                if (std::isfinite(p.x) && std::isfinite(p.y) && frame.contains(p.x, p.y))
                    scene.add(Marker{frame.to_pixel(p.x, p.y), MarkerKind::Circle, 4.5, s.color,
                                     s.color, 1});
    }

    const double legend_top = height - 12 - rows * legend_row;
    for (const auto& [at, i] : entries) {
        const LineSeries& s = series[i];
        const double y = legend_top + at.y * legend_row;
        scene.add(Line{{at.x, y - 4}, {at.x + 24, y - 4}, {s.color, 2, s.dashed}});
        scene.add(Text{{at.x + 30, y}, s.name, 10, Anchor::Start, false, 0, kInk});
    }
    return scene;
}

// --- SVG -------------------------------------------------------------------------------------

std::string xml_escape(const std::string& raw)
{
    const std::string text = printable_utf8(raw); // XML allows no NUL and no bad UTF-8
    std::string out;
    out.reserve(text.size());
    for (char c : text) {
        switch (c) {
        case '&': out += "&amp;"; break;
        case '<': out += "&lt;"; break;
        case '>': out += "&gt;"; break;
        case '"': out += "&quot;"; break;
        case '\'': out += "&#39;"; break;
        default: out += c;
        }
    }
    return out;
}

std::string to_svg(const Scene& scene, bool standalone)
{
    std::string out = "<svg";
    if (standalone) out += " xmlns=\"http://www.w3.org/2000/svg\"";
    out += " width=\"" + number(scene.width) + "\" height=\"" + number(scene.height) +
           "\" viewBox=\"0 0 " + number(scene.width) + " " + number(scene.height) +
           "\" role=\"img\" font-family=\"DejaVu Sans, Helvetica, Arial, sans-serif\">\n";
    auto points_attr = [](const std::vector<Point>& pts) {
        std::string s;
        for (const Point& p : pts) {
            if (!s.empty()) s += ' ';
            s += number(p.x);
            s += ',';
            s += number(p.y);
        }
        return s;
    };
    for (const Shape& shape : scene.shapes) {
        if (const auto* l = std::get_if<Line>(&shape)) {
            out += "<line x1=\"" + number(l->a.x) + "\" y1=\"" + number(l->a.y) + "\" x2=\"" +
                   number(l->b.x) + "\" y2=\"" + number(l->b.y) + "\"" + stroke_attrs(l->stroke) +
                   "/>\n";
        } else if (const auto* p = std::get_if<Polyline>(&shape)) {
            out += "<polyline points=\"" + points_attr(p->points) + "\" fill=\"none\"" +
                   stroke_attrs(p->stroke) + " stroke-linejoin=\"round\"/>\n";
        } else if (const auto* m = std::get_if<Marker>(&shape)) {
            const std::string paint = " fill=\"" + hex(m->fill) + "\"" +
                                      stroke_attrs({m->outline, m->outline_width, false});
            const double h = m->size / 2;
            if (m->kind == MarkerKind::Circle) {
                out += "<circle cx=\"" + number(m->at.x) + "\" cy=\"" + number(m->at.y) +
                       "\" r=\"" + number(h) + "\"" + paint + "/>\n";
            } else if (m->kind == MarkerKind::Cross) {
                const Point c = m->at;
                out += "<path d=\"M" + number(c.x - h) + "," + number(c.y - h) + "L" +
                       number(c.x + h) + "," + number(c.y + h) + "M" + number(c.x - h) + "," +
                       number(c.y + h) + "L" + number(c.x + h) + "," + number(c.y - h) + "\"" +
                       stroke_attrs({m->fill, std::max(2.0, m->outline_width), false}) + "/>\n";
            } else {
                out += "<polygon points=\"" + points_attr(marker_polygon(*m)) + "\"" + paint +
                       "/>\n";
            }
        } else if (const auto* r = std::get_if<Rect>(&shape)) {
            out += "<rect x=\"" + number(r->origin.x) + "\" y=\"" + number(r->origin.y) +
                   "\" width=\"" + number(r->width) + "\" height=\"" + number(r->height) + "\"";
            out += r->fill ? " fill=\"" + hex(*r->fill) + "\"" : std::string(" fill=\"none\"");
            if (r->stroke) out += stroke_attrs(*r->stroke);
            out += "/>\n";
        } else if (const auto* t = std::get_if<Text>(&shape)) {
            static const char* anchors[] = {"start", "middle", "end"};
            out += "<text x=\"" + number(t->at.x) + "\" y=\"" + number(t->at.y) +
                   "\" font-size=\"" + number(t->size) + "\" text-anchor=\"" +
                   anchors[static_cast<int>(t->anchor)] + "\" fill=\"" + hex(t->color) + "\"";
            if (t->bold) out += " font-weight=\"bold\"";
            if (t->rotate != 0)
                out += " transform=\"rotate(" + number(t->rotate) + " " + number(t->at.x) + " " +
                       number(t->at.y) + ")\"";
            out += '>';
            out += xml_escape(t->text);
            out += "</text>\n";
        }
    }
    out += "</svg>";
    return out;
}

} // namespace gsr::report
