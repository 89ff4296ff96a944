#pragma once
// The colours of the canvas: one per node for each colour mode, the community super-graph's
// colours, and the legend the overlay draws. Categorical modes (community, cell type) use a
// fixed palette, then hues spaced by the golden angle; numeric ones (level, signal probability,
// prediction error) a perceptually ordered ramp from dark blue to yellow.
#include "canvas/canvas_scene.hpp"

#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace gsr::views::canvas {

enum class ColourMode : std::uint8_t {
    Community,
    CellType,
    Level,
    SignalProbability,
    PredictionError,
};
inline constexpr int kColourModeCount = 5;

const char* colour_mode_name(ColourMode mode);

struct Rgba {
    std::uint8_t r = 0, g = 0, b = 0, a = 255;
    bool operator==(const Rgba&) const = default;
};

/// Colour i of the categorical palette (distinct for every i below 2^16 in hue or lightness).
Rgba categorical_colour(std::uint32_t i);
/// The ramp at t in [0, 1] (clamped).
Rgba ramp_colour(double t);

/// What the colours of a scene are made from.
struct ColourInputs {
    ColourMode mode = ColourMode::Community;
    int community_level = -1; ///< hierarchy level of the communities; -1: the final partition
    std::span<const float> predictions; ///< per node, for PredictionError
};

/// Empty when the mode can be drawn for this scene, else why not, in words.
std::string unavailable_reason(const CanvasScene& scene, const ColourInputs& in);

/// One colour per node. A mode that is unavailable colours every node grey.
std::vector<Rgba> node_colours(const CanvasScene& scene, const ColourInputs& in);

/// The colour of each of `count` communities when the canvas draws them instead of their
/// nodes. Community mode of the final partition: the categorical colour of the final
/// community each lies in (`top`; zooming in keeps the overview's colours). Any other mode,
/// or another hierarchy level chosen: the mean of its nodes' colours, so a community of
/// late-level or badly predicted nodes reads as such at every zoom, and one inside a
/// community of the chosen level has that community's colour, as the legend says.
std::vector<Rgba> community_colours(std::span<const std::uint32_t> membership,
                                    std::uint32_t count, std::span<const std::uint32_t> top,
                                    std::span<const Rgba> node_colours, const ColourInputs& in);

/// The membership that community colours and the super-graph follow.
std::span<const std::uint32_t> community_membership(const CanvasScene& scene, int level);

struct Legend {
    std::string title;
    struct Entry {
        std::string label;
        Rgba colour;
        std::size_t count = 0;
    };
    std::vector<Entry> entries;   ///< categorical: the largest classes first
    std::size_t hidden = 0;       ///< classes left out of `entries`
    bool continuous = false;      ///< a ramp from `low` to `high`
    std::string low, high;
};

Legend legend(const CanvasScene& scene, const ColourInputs& in, std::size_t max_entries = 8);

} // namespace gsr::views::canvas
