#include "report/session_report.hpp"

#include "util/utf8_text.hpp"

#include <algorithm>
#include <cmath>
#include <map>

namespace gsr::report {
namespace {

constexpr double kEps = 1e-9;
/// The lineage tree's deepest nesting (see session_document).
constexpr std::size_t kMaxLineageDepth = 16;
const Rgb kInk{40, 40, 40};
const Rgb kRoof{60, 60, 60};
const Rgb kOk{0, 114, 178};
const Rgb kGaming{213, 94, 0};
const Rgb kBest{0, 158, 115};
const Rgb kBaseline{120, 120, 120};

/// The decade strictly below `v` and the one strictly above: points never sit on the frame.
double decade_below(double v) { return std::pow(10.0, std::ceil(std::log10(v) - kEps) - 1); }
double decade_above(double v) { return std::pow(10.0, std::floor(std::log10(v) + kEps) + 1); }

std::string si(double value, const char* unit)
{
    static const char* prefixes[] = {"", "K", "M", "G", "T", "P", "E"};
    int p = 0;
    while (std::abs(value) >= 1000 && p < 6) {
        value /= 1000;
        ++p;
    }
    return format_number(value, 4) + " " + prefixes[p] + unit;
}

std::string percent(double v)
{
    return std::isfinite(v) && v > 0 ? format_number(v, 4) + " %" : "";
}

PlotFrame empty_frame()
{
    return PlotFrame(0, 0, 1, 1, Axis{}, Axis{});
}

std::string candidate_line(const tune::TuneSession& s, const tune::CandidateRecord& c)
{
    std::string line = "#" + std::to_string(c.id) + " " + c.origin + ": " + c.label;
    if (tune::is_timed(c))
        line += " (" + format_seconds(c.seconds) + ", " + percent(tune::percent_of_sol(s, c)) +
                " SOL)";
    line += " " + std::string(tune::verdict_name(c.verdict));
    if (c.best) line += " [best]";
    if (!c.detail.empty()) line += ": " + shortened_utf8(c.detail, 100);
    return line;
}

} // namespace

double candidate_intensity(const tune::TuneSession& s, const tune::CandidateRecord& c)
{
    if (c.profile && c.profile->dram_bytes > 0) return s.flops / c.profile->dram_bytes;
    return s.intensity();
}

std::string candidate_bound(const tune::TuneSession& s, const tune::CandidateRecord& c)
{
    if (!(s.peak_rate > 0) || !(s.bandwidth > 0)) return s.bound;
    return candidate_intensity(s, c) < s.peak_rate / s.bandwidth ? "memory" : "compute";
}

Roofline roofline(const tune::TuneSession& s, double width, double height)
{
    // What a log axis can hold: an edited session's 1e308 FLOP/s over 1e-308 B/s made the
    // ridge infinite, the axis end at inf, and the chart's coordinates NaN.
    const auto plottable = [](double v) { return std::isfinite(v) && v >= 1e-30 && v <= 1e30; };
    Roofline r{{}, 0, empty_frame(), {}};
    for (const tune::CandidateRecord& c : s.candidates) {
        if (!tune::is_timed(c)) continue;
        const double x = candidate_intensity(s, c), y = tune::achieved_flops(s, c);
        if (!plottable(x) || !plottable(y)) continue;
        r.points.push_back({c.id, x, y, c.verdict == tune::Verdict::Gaming, c.best});
    }
    const bool roofs = plottable(s.peak_rate) && plottable(s.bandwidth) &&
                       plottable(s.peak_rate / s.bandwidth);
    if (roofs) r.ridge = s.peak_rate / s.bandwidth;

    const bool baseline = s.baseline_seconds > 0 && s.flops > 0 && plottable(s.intensity()) &&
                          plottable(s.flops / s.baseline_seconds);
    std::vector<double> xs, ys;
    for (const RooflinePoint& p : r.points) {
        xs.push_back(p.intensity);
        ys.push_back(p.flops_per_second);
    }
    if (roofs) {
        xs.push_back(r.ridge);
        ys.push_back(s.peak_rate);
    }
    if (baseline) {
        xs.push_back(s.intensity());
        ys.push_back(s.flops / s.baseline_seconds);
    }
    if (xs.empty()) xs.push_back(1);
    if (ys.empty()) ys.push_back(1);

    Axis x{Scale::Log10, decade_below(*std::min_element(xs.begin(), xs.end())),
           decade_above(*std::max_element(xs.begin(), xs.end())),
           "arithmetic intensity (FLOP/byte)"};
    Axis y{Scale::Log10, decade_below(*std::min_element(ys.begin(), ys.end())),
           decade_above(*std::max_element(ys.begin(), ys.end())), "achieved FLOP/s"};

    Scene& sc = r.scene;
    sc.width = width;
    sc.height = height;
    sc.add(Rect{{0, 0}, width, height, Rgb{255, 255, 255}, std::nullopt});
    sc.add(Text{{width / 2, 20}, "Roofline: " + s.problem + " on " + s.device, 13,
                Anchor::Middle, true, 0, kInk});
    const double left = 84, top = 36, right = width - 20, bottom = height - 76;
    r.frame = PlotFrame(left, top, right - left, bottom - top, x, y);
    r.frame.draw_axes(sc);

    if (roofs) {
        const Stroke roof{kRoof, 2.2, false};
        r.frame.add_clipped(sc, {{x.lo, s.bandwidth * x.lo}, {r.ridge, s.peak_rate}}, roof);
        r.frame.add_clipped(sc, {{r.ridge, s.peak_rate}, {x.hi, s.peak_rate}}, roof);
        const Point peak_at = r.frame.to_pixel(x.hi, s.peak_rate);
        sc.add(Text{{peak_at.x - 6, peak_at.y - 6}, "peak " + si(s.peak_rate, "FLOP/s"), 10,
                    Anchor::End, false, 0, kRoof});
        // The bandwidth label sits on the visible part of the slope, turned along it.
        const double lx = std::max(x.lo, y.lo / s.bandwidth);
        const double mid = std::sqrt(lx * r.ridge);
        if (mid > x.lo && mid < r.ridge) {
            const Point a = r.frame.to_pixel(lx, s.bandwidth * lx);
            const Point b = r.frame.to_pixel(r.ridge, s.peak_rate);
            const Point at = r.frame.to_pixel(mid, s.bandwidth * mid);
            const double angle = std::atan2(b.y - a.y, b.x - a.x) * 180 / M_PI;
            sc.add(Text{{at.x - 4, at.y - 6}, si(s.bandwidth, "B/s"), 10, Anchor::Middle, false,
                        angle, kRoof});
        }
        const Point ridge_at = r.frame.to_pixel(r.ridge, s.peak_rate);
        sc.add(Line{{ridge_at.x, ridge_at.y}, {ridge_at.x, top + (bottom - top)},
                    {Rgb{170, 170, 170}, 1, true}});
    }
    if (baseline) {
        const Point at = r.frame.to_pixel(s.intensity(), s.flops / s.baseline_seconds);
        sc.add(Marker{at, MarkerKind::Square, 9, kBaseline, kInk, 1});
        sc.add(Text{{at.x + 8, at.y + 14}, s.baseline.empty() ? "baseline" : s.baseline, 10,
                    Anchor::Start, false, 0, kBaseline});
    }
    // Ok first, gaming over them, the best on top of all.
    for (int pass = 0; pass < 3; ++pass)
        for (const RooflinePoint& p : r.points) {
            const Point at = r.frame.to_pixel(p.intensity, p.flops_per_second);
            if (pass == 0 && !p.gaming && !p.best)
                sc.add(Marker{at, MarkerKind::Circle, 7, kOk, Rgb{255, 255, 255}, 0.8});
            else if (pass == 1 && p.gaming)
                sc.add(Marker{at, MarkerKind::Cross, 9, kGaming, kGaming, 2});
            else if (pass == 2 && p.best) {
                sc.add(Marker{at, MarkerKind::Diamond, 14, kBest, kInk, 1.5});
                sc.add(Text{{at.x + 10, at.y - 8}, "best #" + std::to_string(p.id), 10,
                            Anchor::Start, true, 0, kBest});
            }
        }

    // Legend, one row under the axis label.
    const double ly = height - 14;
    double lx = left;
    auto legend = [&](Marker m, const std::string& text) {
        m.at = {lx + 6, ly - 4};
        sc.add(m);
        sc.add(Text{{lx + 16, ly}, text, 10, Anchor::Start, false, 0, kInk});
        lx += 30 + 5.6 * static_cast<double>(text.size());
    };
    legend(Marker{{}, MarkerKind::Circle, 7, kOk, Rgb{255, 255, 255}, 0.8}, "verified");
    legend(Marker{{}, MarkerKind::Cross, 9, kGaming, kGaming, 2}, "gaming (faster than SOL)");
    legend(Marker{{}, MarkerKind::Diamond, 12, kBest, kInk, 1.5}, "best");
    if (baseline) legend(Marker{{}, MarkerKind::Square, 9, kBaseline, kInk, 1}, "baseline");
    if (roofs) {
        sc.add(Line{{lx, ly - 4}, {lx + 22, ly - 4}, {kRoof, 2.2, false}});
        sc.add(Text{{lx + 28, ly}, "roofs (bandwidth, compute peak)", 10, Anchor::Start, false,
                    0, kInk});
    }
    return r;
}

Document session_document(const tune::TuneSession& s)
{
    Document doc;
    doc.title = "Tuning session: " + s.problem;
    doc.subtitle = s.device + (s.strategy.empty() ? "" : ", " + s.strategy + " search") +
                   (s.created.empty() ? "" : ", " + s.created);

    doc.add(Heading{"Problem and bounds"});
    KeyValues kv;
    kv.rows = {{"problem", s.problem},
               {"family", s.family},
               {"device", s.device},
               {"strategy", s.strategy},
               {"created", s.created},
               {"T_SOL", format_seconds(s.t_sol)},
               {"FLOPs", si(s.flops, "FLOP")},
               {"minimal bytes", si(s.bytes, "B")},
               {"arithmetic intensity", format_number(s.intensity(), 4) + " FLOP/byte"},
               {"peak rate", si(s.peak_rate, "FLOP/s")},
               {"bandwidth", si(s.bandwidth, "B/s")},
               {"ridge point", s.bandwidth > 0
                                   ? format_number(s.peak_rate / s.bandwidth, 4) + " FLOP/byte"
                                   : std::string()},
               {"bound", s.bound}};
    if (!s.baseline.empty() || s.baseline_seconds > 0) {
        std::string b = s.baseline;
        if (s.baseline_seconds > 0)
            b += (b.empty() ? "" : ": ") + format_seconds(s.baseline_seconds) + ", " +
                 percent(100 * s.t_sol / s.baseline_seconds) + " of SOL";
        else b += " (not measured)";
        kv.rows.push_back({"baseline", b});
    }
    std::map<std::string, int> verdicts;
    for (const tune::CandidateRecord& c : s.candidates)
        ++verdicts[std::string(tune::verdict_name(c.verdict))];
    std::string counts = std::to_string(s.candidates.size());
    if (!verdicts.empty()) {
        counts += " (";
        bool first = true;
        for (const auto& [v, n] : verdicts) {
            counts += (first ? "" : ", ") + std::to_string(n) + " " + v;
            first = false;
        }
        counts += ")";
    }
    kv.rows.push_back({"candidates", counts});
    if (s.space_size) kv.rows.push_back({"search space", std::to_string(s.space_size)});
    if (!s.stop_reason.empty()) kv.rows.push_back({"stopped because", s.stop_reason});
    if (const tune::CandidateRecord* best = s.best_candidate()) {
        std::string b = "#" + std::to_string(best->id) + " " + best->label + ": " +
                        format_seconds(best->seconds) + ", " +
                        percent(tune::percent_of_sol(s, *best)) + " of SOL";
        if (s.baseline_seconds > 0)
            b += ", " + format_number(s.baseline_seconds / best->seconds, 3) + "x the baseline";
        kv.rows.push_back({"best", b});
    } else {
        kv.rows.push_back({"best", "none verified"});
    }
    doc.add(std::move(kv));

    doc.add(Heading{"Roofline"});
    Roofline r = roofline(s);
    if (r.points.empty() && !(s.peak_rate > 0))
        doc.add(Paragraph{"No timed candidate and no device peaks: nothing to plot."});
    doc.add(Figure{std::move(r.scene),
                   "Each timed candidate at the problem's FLOPs over its median time. Circles "
                   "are verified, crosses gaming (faster than the speed of light, never "
                   "ranked), the diamond the best."});

    doc.add(Heading{"Candidates"});
    Table t;
    t.columns = {"#", "label", "origin", "time", "T_SOL", "% SOL", "bound", "verdict"};
    t.numeric = {true, false, false, true, true, true, false, false};
    for (const tune::CandidateRecord& c : s.candidates) {
        t.rows.push_back({std::to_string(c.id), c.label, c.origin,
                          tune::is_timed(c) ? format_seconds(c.seconds) : std::string(),
                          format_seconds(s.t_sol), percent(tune::percent_of_sol(s, c)),
                          candidate_bound(s, c), std::string(tune::verdict_name(c.verdict))});
        t.highlight.push_back(c.best);
    }
    doc.add(std::move(t));

    const bool lineage = std::any_of(s.candidates.begin(), s.candidates.end(),
                                     [](const tune::CandidateRecord& c) { return c.parent; });
    if (lineage) {
        doc.add(Heading{"Lineage"});
        doc.add(Paragraph{"Refine steps, each under the candidate it was derived from."});
        std::map<std::size_t, const tune::CandidateRecord*> by_id;
        std::map<std::size_t, std::vector<std::size_t>> children; // by id, in session order
        for (const tune::CandidateRecord& c : s.candidates) by_id[c.id] = &c;
        for (std::size_t i = 0; i < s.candidates.size(); ++i) {
            const tune::CandidateRecord& c = s.candidates[i];
            if (c.parent && by_id.count(*c.parent)) children[*c.parent].push_back(i);
        }
        // Walked without recursion, children in session order; `seen` guards against a
        // malformed cycle. Nesting stops at kMaxLineageDepth: a longer refine chain goes on as
        // siblings under its deepest shown step (each line names its parent there), so a
        // chain of any length neither overflows the stack nor runs off the page.
        const std::size_t n = s.candidates.size();
        constexpr std::size_t kNone = static_cast<std::size_t>(-1);
        std::vector<bool> seen(n, false);
        std::vector<std::size_t> order; // pre-order of the shown tree
        std::vector<std::size_t> shown_parent(n, kNone);
        std::vector<std::size_t> depth(n, 0);
        for (std::size_t r = 0; r < n; ++r) {
            const tune::CandidateRecord& root = s.candidates[r];
            const bool has_parent = root.parent && by_id.count(*root.parent);
            if (has_parent || !children.count(root.id)) continue;
            seen[r] = true;
            std::vector<std::size_t> stack{r};
            while (!stack.empty()) {
                const std::size_t i = stack.back();
                stack.pop_back();
                order.push_back(i);
                auto it = children.find(s.candidates[i].id);
                if (it == children.end()) continue;
                const bool flat = depth[i] >= kMaxLineageDepth;
                for (auto k = it->second.rbegin(); k != it->second.rend(); ++k) {
                    if (seen[*k]) continue;
                    seen[*k] = true;
                    shown_parent[*k] = flat ? shown_parent[i] : i;
                    depth[*k] = flat ? depth[i] : depth[i] + 1;
                    stack.push_back(*k);
                }
            }
        }
        // Built from the leaves up: in reverse pre-order every child is done before its parent.
        std::vector<TreeNode> built(n);
        std::vector<std::vector<std::size_t>> shown_children(n);
        for (std::size_t i : order)
            if (shown_parent[i] != kNone) shown_children[shown_parent[i]].push_back(i);
        Tree tree;
        for (auto it = order.rbegin(); it != order.rend(); ++it) {
            const tune::CandidateRecord& c = s.candidates[*it];
            built[*it].text = candidate_line(s, c);
            if (depth[*it] == kMaxLineageDepth && shown_parent[*it] != kNone &&
                by_id.at(*c.parent) != &s.candidates[shown_parent[*it]])
                built[*it].text += " (refined from #" + std::to_string(*c.parent) + ")";
            for (std::size_t k : shown_children[*it])
                built[*it].children.push_back(std::move(built[k]));
        }
        for (std::size_t i : order)
            if (shown_parent[i] == kNone) tree.roots.push_back(std::move(built[i]));
        doc.add(std::move(tree));
    }
    return doc;
}

Table session_csv(const tune::TuneSession& s)
{
    Table t;
    t.columns = {"id",     "parent",        "label",          "origin",       "verdict",
                 "seconds", "t_sol_seconds", "percent_of_sol", "bound",        "intensity",
                 "achieved_flops", "best",   "detail"};
    for (const tune::CandidateRecord& c : s.candidates) {
        const bool timed = tune::is_timed(c);
        t.rows.push_back({std::to_string(c.id),
                          c.parent ? std::to_string(*c.parent) : std::string(),
                          c.label,
                          c.origin,
                          std::string(tune::verdict_name(c.verdict)),
                          timed ? format_number(c.seconds, 9) : std::string(),
                          format_number(s.t_sol, 9),
                          timed ? format_number(tune::percent_of_sol(s, c), 9) : std::string(),
                          candidate_bound(s, c),
                          format_number(candidate_intensity(s, c), 9),
                          timed ? format_number(tune::achieved_flops(s, c), 9) : std::string(),
                          c.best ? "1" : "0",
                          c.detail});
    }
    return t;
}

nlohmann::json session_report_json(const tune::TuneSession& s)
{
    const Roofline r = roofline(s);
    nlohmann::json points = nlohmann::json::array();
    for (const RooflinePoint& p : r.points)
        points.push_back({{"id", p.id},
                          {"intensity", p.intensity},
                          {"flops_per_second", p.flops_per_second},
                          {"gaming", p.gaming},
                          {"best", p.best}});
    return {{"kind", "tune_session"},
            {"title", "Tuning session: " + s.problem},
            {"session", tune::to_json(s)},
            {"roofline",
             {{"ridge_intensity", r.ridge},
              {"peak_rate", s.peak_rate},
              {"bandwidth", s.bandwidth},
              {"points", points}}}};
}

} // namespace gsr::report
