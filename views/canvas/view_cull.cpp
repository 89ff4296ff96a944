#include "canvas/view_cull.hpp"

#include <algorithm>
#include <cmath>

namespace gsr::views::canvas {

void EdgeIncidence::build(std::size_t nodes, std::span<const std::uint32_t> edge_nodes)
{
    offsets_.assign(nodes + 1, 0);
    const std::size_t m = edge_nodes.size() / 2;
    auto valid = [&](std::size_t e) {
        const std::uint32_t a = edge_nodes[2 * e], b = edge_nodes[2 * e + 1];
        return a != b && a < nodes && b < nodes; // a self-loop draws nothing
    };
    for (std::size_t e = 0; e < m; ++e)
        if (valid(e)) ++offsets_[edge_nodes[2 * e] + 1], ++offsets_[edge_nodes[2 * e + 1] + 1];
    for (std::size_t v = 1; v <= nodes; ++v) offsets_[v] += offsets_[v - 1];
    edges_.assign(offsets_.back(), 0);
    std::vector<std::uint32_t> fill(offsets_.begin(), offsets_.end() - 1);
    for (std::size_t e = 0; e < m; ++e)
        if (valid(e)) {
            edges_[fill[edge_nodes[2 * e]]++] = std::uint32_t(e);
            edges_[fill[edge_nodes[2 * e + 1]]++] = std::uint32_t(e);
        }
}

namespace {

void push(std::vector<float>& out, double x, double y, float alpha)
{
    out.push_back(float(x));
    out.push_back(float(y));
    out.push_back(alpha);
}

} // namespace

CulledView cull_to_view(const NodeGrid& grid, std::span<const Vec2> positions,
                        std::span<const std::uint32_t> edge_nodes,
                        const EdgeIncidence& incidence, const WorldRect& rect,
                        const CullOptions& options)
{
    CulledView out;
    out.nodes = grid.inside(rect.x0, rect.y0, rect.x1, rect.y1);
    const double zoom = std::max(options.zoom, 1e-300);
    struct Candidate {
        std::uint32_t u, w, e;
        double length; ///< world units
        bool both;     ///< both endpoints inside
    };
    std::vector<Candidate> candidates;
    for (const std::uint32_t u : out.nodes) {
        if (u >= incidence.node_count()) continue;
        const Vec2 p = positions[u];
        for (const std::uint32_t e : incidence.edges_of(u)) {
            const std::uint32_t a = edge_nodes[2 * std::size_t(e)];
            const std::uint32_t w = a == u ? edge_nodes[2 * std::size_t(e) + 1] : a;
            const Vec2 q = positions[w];
            const bool both = rect.contains(q);
            // An edge inside at both ends is met twice: take it from its lower endpoint.
            if (both && w < u) continue;
            const double dx = double(q.x) - p.x, dy = double(q.y) - p.y;
            const double length = std::sqrt(dx * dx + dy * dy);
            if (std::isfinite(length)) candidates.push_back({u, w, e, length, both});
        }
    }
    // Whole up to the longest length that keeps the whole edges' pixels within the budget
    // (the shortest first: a dense view keeps its local structure and stubs the rest).
    double long_world = options.long_edge_px / zoom;
    if (options.line_pixel_budget > 0) {
        std::vector<double> lengths;
        for (const Candidate& c : candidates)
            if (c.length <= long_world) lengths.push_back(c.length);
        std::sort(lengths.begin(), lengths.end());
        double pixels = 0;
        for (std::size_t i = 0; i < lengths.size(); ++i) {
            pixels += lengths[i] * zoom;
            if (pixels > options.line_pixel_budget) {
                // Equal lengths all go the same way: below the first that does not fit.
                long_world = std::nextafter(lengths[i], -1.0);
                break;
            }
        }
    }
    out.long_edge_px = long_world * zoom;
    // Stubs share what the whole edges left of the budget: shorter in a dense view, none
    // below a few pixels (they would not be seen).
    double stub_px = options.stub_px;
    if (options.line_pixel_budget > 0) {
        double whole_px = 0;
        std::size_t ends = 0;
        for (const Candidate& c : candidates) {
            if (c.length <= long_world) whole_px += c.length * zoom;
            else ends += c.both ? 2 : 1;
        }
        if (ends > 0)
            stub_px = std::min(stub_px, (options.line_pixel_budget - whole_px) / double(ends));
    }
    const bool stubs = stub_px >= kMinStubPixels;
    const double stub_world = stub_px / zoom;
    out.stub_px = stubs ? stub_px : 0;
    const auto& alphas = options.edge_alpha;
    for (const Candidate& c : candidates) {
        const Vec2 p = positions[c.u], q = positions[c.w];
        const float a = c.e < alphas.size() ? alphas[c.e] : 1.0f;
        if (c.length <= long_world) {
            push(out.edge_vertices, p.x, p.y, a);
            push(out.edge_vertices, q.x, q.y, a);
            ++out.whole_edges;
            continue;
        }
        // Longer than the view (or than the budget allows): its far part crosses the screen,
        // says nothing readable and costs a software rasteriser a screen of pixels. Keep a
        // short stub that fades out, pointing at the neighbour.
        if (!stubs) continue;
        const double dx = double(q.x) - p.x, dy = double(q.y) - p.y;
        const double s = stub_world / c.length;
        push(out.edge_vertices, p.x, p.y, a);
        push(out.edge_vertices, p.x + dx * s, p.y + dy * s, 0.0f);
        ++out.stubs;
        if (c.both) {
            push(out.edge_vertices, q.x, q.y, a);
            push(out.edge_vertices, q.x - dx * s, q.y - dy * s, 0.0f);
            ++out.stubs;
        }
    }
    return out;
}

CulledView cull_to_box(std::span<const Vec2> positions, std::span<const std::uint32_t> edge_nodes,
                       const WorldRect& rect)
{
    CulledView out;
    for (std::size_t v = 0; v < positions.size(); ++v)
        if (rect.contains(positions[v])) out.nodes.push_back(std::uint32_t(v));
    for (std::size_t i = 0; i + 1 < edge_nodes.size(); i += 2) {
        const Vec2 a = positions[edge_nodes[i]], b = positions[edge_nodes[i + 1]];
        if (std::max(a.x, b.x) < rect.x0 || std::min(a.x, b.x) > rect.x1 ||
            std::max(a.y, b.y) < rect.y0 || std::min(a.y, b.y) > rect.y1)
            continue;
        push(out.edge_vertices, a.x, a.y, 1.0f);
        push(out.edge_vertices, b.x, b.y, 1.0f);
        ++out.whole_edges;
    }
    return out;
}

} // namespace gsr::views::canvas
