#include "layout/initial_positions.hpp"

#include "community/random.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace gsr::layout {

std::vector<Point2> placement_positions(const netlist::Circuit& circuit,
                                        const graph::CircuitGraph& g, double extent,
                                        std::uint64_t seed)
{
    const std::size_t n = g.node_count();
    if (circuit.placement.size() != circuit.cells.size()) return {};
    std::vector<std::uint8_t> placed(n, 0);
    double x0 = std::numeric_limits<double>::max(), y0 = x0, x1 = -x0, y1 = -x0;
    std::vector<Point2> pos(n);
    std::size_t placed_count = 0;
    for (std::size_t v = 0; v < n; ++v) {
        if (g.cell_of[v] < 0) continue;
        const netlist::Placement& p = circuit.placement[static_cast<std::size_t>(g.cell_of[v])];
        if (!p.placed) continue;
        pos[v] = {static_cast<double>(p.x), static_cast<double>(p.y)};
        placed[v] = 1;
        ++placed_count;
        x0 = std::min(x0, pos[v].x);
        x1 = std::max(x1, pos[v].x);
        y0 = std::min(y0, pos[v].y);
        y1 = std::max(y1, pos[v].y);
    }
    if (placed_count == 0) return {};
    if (circuit.die_area) {
        const auto& d = *circuit.die_area;
        x0 = static_cast<double>(std::min(d[0], d[2]));
        x1 = static_cast<double>(std::max(d[0], d[2]));
        y0 = static_cast<double>(std::min(d[1], d[3]));
        y1 = static_cast<double>(std::max(d[1], d[3]));
        // A component placed off the die (the reader warns) starts on its edge: one far
        // outlier would otherwise set the scale of everything else.
        for (std::size_t v = 0; v < n; ++v) {
            if (!placed[v]) continue;
            pos[v].x = std::clamp(pos[v].x, x0, x1);
            pos[v].y = std::clamp(pos[v].y, y0, y1);
        }
    }
    const double span = std::max({x1 - x0, y1 - y0, 1.0});
    const double scale = extent / span;
    const double mx = (x0 + x1) / 2, my = (y0 + y1) / 2;
    community::SeededRandom rng(seed);
    const double jitter = extent * 1e-4;
    for (std::size_t v = 0; v < n; ++v) {
        if (!placed[v]) continue;
        pos[v].x = (pos[v].x - mx) * scale + (rng.uniform() - 0.5) * jitter;
        pos[v].y = (pos[v].y - my) * scale + (rng.uniform() - 0.5) * jitter;
    }
    for (std::size_t v = 0; v < n; ++v) {
        if (placed[v]) continue;
        double sx = 0, sy = 0;
        std::size_t k = 0;
        for (const graph::Csr* csr : {&g.fanout, &g.fanin})
            for (std::uint64_t e = csr->offsets[v]; e < csr->offsets[v + 1]; ++e)
                if (placed[csr->targets[e]]) {
                    sx += pos[csr->targets[e]].x;
                    sy += pos[csr->targets[e]].y;
                    ++k;
                }
        // Over the placement's box, or over `extent` where it has none (one placed cell and
        // no die): coincident starts never part, as they push each other nowhere.
        const double w = x1 > x0 ? (x1 - x0) * scale : extent;
        const double h = y1 > y0 ? (y1 - y0) * scale : extent;
        if (k > 0) {
            pos[v].x = sx / static_cast<double>(k) + (rng.uniform() - 0.5) * jitter * 10;
            pos[v].y = sy / static_cast<double>(k) + (rng.uniform() - 0.5) * jitter * 10;
        } else {
            pos[v].x = (rng.uniform() - 0.5) * w;
            pos[v].y = (rng.uniform() - 0.5) * h;
        }
    }
    return pos;
}

} // namespace gsr::layout
