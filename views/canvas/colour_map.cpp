#include "canvas/colour_map.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <numeric>

namespace gsr::views::canvas {

namespace {

constexpr Rgba kPalette[] = {
    {31, 119, 180, 255}, {255, 127, 14, 255}, {44, 160, 44, 255},   {214, 39, 40, 255},
    {148, 103, 189, 255}, {140, 86, 75, 255}, {227, 119, 194, 255}, {188, 189, 34, 255},
    {23, 190, 207, 255},  {127, 127, 127, 255},
};
constexpr Rgba kGrey{128, 128, 128, 255};

Rgba from_hsv(double h, double s, double v)
{
    const double c = v * s, hp = std::fmod(h, 360.0) / 60.0;
    const double x = c * (1 - std::fabs(std::fmod(hp, 2.0) - 1));
    double r = 0, g = 0, b = 0;
    if (hp < 1) r = c, g = x;
    else if (hp < 2) r = x, g = c;
    else if (hp < 3) g = c, b = x;
    else if (hp < 4) g = x, b = c;
    else if (hp < 5) r = x, b = c;
    else r = c, b = x;
    const double m = v - c;
    auto byte = [m](double t) { return std::uint8_t(std::lround(std::clamp(t + m, 0.0, 1.0) * 255)); };
    return {byte(r), byte(g), byte(b), 255};
}

std::string format_number(double v, int decimals)
{
    char text[32];
    std::snprintf(text, sizeof text, "%.*f", decimals, v);
    return text;
}

std::vector<float> prediction_error(const CanvasScene& scene, std::span<const float> predictions)
{
    std::vector<float> e(scene.node_count());
    for (std::size_t v = 0; v < e.size(); ++v)
        e[v] = std::fabs(predictions[v] - scene.signal_probability[v]);
    return e;
}

/// Categorical legend: classes by decreasing count (ties by id).
Legend categorical_legend(std::string title, const std::vector<std::size_t>& counts,
                          const std::vector<std::string>& names, std::size_t max_entries)
{
    Legend l;
    l.title = std::move(title);
    std::vector<std::uint32_t> order(counts.size());
    std::iota(order.begin(), order.end(), 0u);
    std::stable_sort(order.begin(), order.end(),
                     [&](std::uint32_t a, std::uint32_t b) { return counts[a] > counts[b]; });
    for (std::uint32_t c : order) {
        if (counts[c] == 0) continue;
        if (l.entries.size() == max_entries) {
            ++l.hidden;
            continue;
        }
        l.entries.push_back({names[c], categorical_colour(c), counts[c]});
    }
    return l;
}

} // namespace

const char* colour_mode_name(ColourMode mode)
{
    switch (mode) {
    case ColourMode::Community: return "community";
    case ColourMode::CellType: return "cell type";
    case ColourMode::Level: return "level";
    case ColourMode::SignalProbability: return "signal probability";
    case ColourMode::PredictionError: return "prediction error";
    }
    return "?";
}

Rgba categorical_colour(std::uint32_t i)
{
    constexpr std::uint32_t n = sizeof kPalette / sizeof kPalette[0];
    if (i < n) return kPalette[i];
    // Golden-angle hues, in three bands of saturation and value so that neighbours differ.
    const std::uint32_t k = i - n;
    const double hue = std::fmod(k * 137.50776405, 360.0);
    const double sat[] = {0.65, 0.85, 0.45}, val[] = {0.90, 0.70, 0.95};
    return from_hsv(hue, sat[k % 3], val[(k / 3) % 3]);
}

Rgba ramp_colour(double t)
{
    // Five stops of a viridis-like ramp: monotone in lightness, readable on dark and light.
    static constexpr double stops[5][3] = {
        {68, 1, 84}, {59, 82, 139}, {33, 145, 140}, {94, 201, 98}, {253, 231, 37}};
    if (!std::isfinite(t)) t = 0;
    t = std::clamp(t, 0.0, 1.0) * 4;
    const int i = std::min(3, int(t));
    const double f = t - i;
    auto mix = [&](int c) { return std::uint8_t(std::lround(stops[i][c] + f * (stops[i + 1][c] - stops[i][c]))); };
    return {mix(0), mix(1), mix(2), 255};
}

std::span<const std::uint32_t> community_membership(const CanvasScene& scene, int level)
{
    const auto& levels = scene.communities.levels;
    if (level >= 0 && std::size_t(level) < levels.size()) return levels[std::size_t(level)].membership;
    return scene.communities.membership;
}

std::string unavailable_reason(const CanvasScene& scene, const ColourInputs& in)
{
    switch (in.mode) {
    case ColourMode::SignalProbability:
        if (scene.signal_probability.empty())
            return "no signal probability: " + scene.signal_probability_note;
        return {};
    case ColourMode::PredictionError:
        if (scene.signal_probability.empty())
            return "no signal probability to compare with: " + scene.signal_probability_note;
        if (in.predictions.size() != scene.node_count())
            return "no predictions for this circuit";
        return {};
    default: return {};
    }
}

std::vector<Rgba> node_colours(const CanvasScene& scene, const ColourInputs& in)
{
    const std::size_t n = scene.node_count();
    std::vector<Rgba> out(n, kGrey);
    if (!unavailable_reason(scene, in).empty()) return out;
    switch (in.mode) {
    case ColourMode::Community: {
        const auto m = community_membership(scene, in.community_level);
        for (std::size_t v = 0; v < n && v < m.size(); ++v) out[v] = categorical_colour(m[v]);
        break;
    }
    case ColourMode::CellType:
        for (std::size_t v = 0; v < n; ++v) out[v] = categorical_colour(scene.graph().type[v]);
        break;
    case ColourMode::Level: {
        const double top = std::max<std::uint32_t>(1, scene.graph().max_level);
        for (std::size_t v = 0; v < n; ++v) out[v] = ramp_colour(scene.graph().level[v] / top);
        break;
    }
    case ColourMode::SignalProbability:
        for (std::size_t v = 0; v < n; ++v) out[v] = ramp_colour(scene.signal_probability[v]);
        break;
    case ColourMode::PredictionError: {
        const std::vector<float> e = prediction_error(scene, in.predictions);
        const float top = std::max(1e-6f, *std::max_element(e.begin(), e.end()));
        for (std::size_t v = 0; v < n; ++v) out[v] = ramp_colour(e[v] / top);
        break;
    }
    }
    return out;
}

Legend legend(const CanvasScene& scene, const ColourInputs& in, std::size_t max_entries)
{
    if (const std::string why = unavailable_reason(scene, in); !why.empty()) {
        Legend l;
        l.title = colour_mode_name(in.mode);
        l.entries.push_back({why, kGrey, scene.node_count()});
        return l;
    }
    switch (in.mode) {
    case ColourMode::Community: {
        const auto m = community_membership(scene, in.community_level);
        std::uint32_t count = 0;
        for (std::uint32_t c : m) count = std::max(count, c + 1);
        std::vector<std::size_t> counts(count, 0);
        std::vector<std::string> names(count);
        for (std::uint32_t c : m) ++counts[c];
        for (std::uint32_t c = 0; c < count; ++c) names[c] = "community " + std::to_string(c);
        return categorical_legend(std::to_string(count) + " communities (" +
                                      std::string(community::method_name(scene.community_method)) +
                                      ")",
                                  counts, names, max_entries);
    }
    case ColourMode::CellType: {
        std::vector<std::size_t> counts(scene.graph().type_names.size(), 0);
        for (std::uint32_t t : scene.graph().type) ++counts[t];
        return categorical_legend("cell type", counts, scene.graph().type_names, max_entries);
    }
    case ColourMode::Level: {
        Legend l;
        l.title = "logic level";
        l.continuous = true;
        l.low = "0";
        l.high = std::to_string(std::max<std::uint32_t>(1, scene.graph().max_level));
        return l;
    }
    case ColourMode::SignalProbability: {
        Legend l;
        l.title = "signal probability (" + scene.signal_probability_note + ")";
        l.continuous = true;
        l.low = "0";
        l.high = "1";
        return l;
    }
    case ColourMode::PredictionError: {
        Legend l;
        l.title = "|predicted - simulated| signal probability";
        l.continuous = true;
        const std::vector<float> e = prediction_error(scene, in.predictions);
        l.low = "0";
        l.high = format_number(*std::max_element(e.begin(), e.end()), 3);
        return l;
    }
    }
    return {};
}

std::vector<Rgba> community_colours(std::span<const std::uint32_t> membership,
                                    std::uint32_t count, std::span<const std::uint32_t> top,
                                    std::span<const Rgba> node_colours, const ColourInputs& in)
{
    std::vector<Rgba> out(count);
    const bool final_communities = in.mode == ColourMode::Community && in.community_level < 0;
    if (final_communities || node_colours.size() != membership.size()) {
        for (std::uint32_t c = 0; c < count; ++c)
            out[c] = categorical_colour(c < top.size() ? top[c] : c);
        return out;
    }
    std::vector<std::array<std::uint64_t, 4>> sum(count, {0, 0, 0, 0});
    for (std::size_t v = 0; v < membership.size(); ++v) {
        const std::uint32_t c = membership[v];
        if (c >= count) continue;
        const Rgba& x = node_colours[v];
        sum[c][0] += x.r, sum[c][1] += x.g, sum[c][2] += x.b, ++sum[c][3];
    }
    for (std::uint32_t c = 0; c < count; ++c) {
        const std::uint64_t n = std::max<std::uint64_t>(sum[c][3], 1);
        // Rounded to the nearest: the mean of equal colours is that colour.
        out[c] = {std::uint8_t((sum[c][0] + n / 2) / n), std::uint8_t((sum[c][1] + n / 2) / n),
                  std::uint8_t((sum[c][2] + n / 2) / n), 255};
    }
    return out;
}

} // namespace gsr::views::canvas
