#pragma once
// Culling the full-detail canvas to the view, without GL: which nodes and which pieces of
// edges a zoomed-in frame draws, so that the frame's GL work follows what is on the screen and
// not the size of the graph (a software rasteriser spends its time on the pixels of long lines).
//
//   EdgeIncidence   per node, the undirected edges that touch it (built once per scene)
//   cull_to_view    the nodes inside a world rectangle (the view widened by a margin) and the
//                   edges with an endpoint there: whole when short on the screen, else a stub
//                   that fades out from each endpoint inside, pointing at the other; an edge
//                   with both endpoints outside is not drawn; within a budget of line pixels
//                   (shortest edges whole first, stubs shortened or dropped). Work: the grid
//                   cells in view plus the edges of the nodes in view.
//   cull_to_box     the earlier rule, kept as the benchmark's baseline: every node inside and
//                   every edge whose bounding box meets the rectangle, whole (scans all edges)
#include "canvas/canvas_geometry.hpp"

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace gsr::views::canvas {

/// A rectangle in world coordinates, borders included (as NodeGrid::inside).
struct WorldRect {
    double x0 = 0, y0 = 0, x1 = 0, y1 = 0;
    bool contains(Vec2 p) const { return p.x >= x0 && p.x <= x1 && p.y >= y0 && p.y <= y1; }
    bool contains(const WorldRect& r) const
    {
        return r.x0 >= x0 && r.x1 <= x1 && r.y0 >= y0 && r.y1 <= y1;
    }
};

/// Compressed incidence lists of the edges `u, v, u, v, ...` (edge i = nodes 2i and 2i+1).
class EdgeIncidence {
public:
    void build(std::size_t nodes, std::span<const std::uint32_t> edge_nodes);
    std::span<const std::uint32_t> edges_of(std::uint32_t v) const
    {
        return {edges_.data() + offsets_[v], edges_.data() + offsets_[v + 1]};
    }
    std::size_t node_count() const { return offsets_.empty() ? 0 : offsets_.size() - 1; }

private:
    std::vector<std::uint32_t> offsets_; ///< nodes + 1
    std::vector<std::uint32_t> edges_;   ///< edge ids; a self-loop is listed nowhere
};

struct CullOptions {
    double zoom = 1;             ///< pixels per world unit
    double long_edge_px = 1280;  ///< edges longer on the screen are drawn as stubs
    double stub_px = 40;         ///< the length of a stub on the screen
    /// Line pixels a view may draw (0: no limit), so that a dense view costs a bounded number:
    /// the shortest edges whole first, the longest whole edges past it become stubs, and the
    /// stubs share what is left (shorter, or none below kMinStubPixels).
    double line_pixel_budget = 0;
    /// Per edge, the alpha its line starts with (empty: 1), e.g. a super-graph's weights.
    std::span<const float> edge_alpha = {};
};

constexpr double kMinStubPixels = 4;

/// What one view draws: line vertices are x, y, alpha (alpha fades a stub out to 0).
struct CulledView {
    std::vector<std::uint32_t> nodes; ///< ascending: the draw order picking assumes
    std::vector<float> edge_vertices; ///< 3 floats per vertex, 2 vertices per line
    std::size_t whole_edges = 0, stubs = 0;
    double long_edge_px = 0; ///< the screen length beyond which edges were stubbed
    double stub_px = 0;      ///< the stubs' screen length (0: none drawn)
    std::size_t line_count() const { return edge_vertices.size() / 6; }
};

/// `grid` must index `positions`; `incidence` must be of `edge_nodes`.
CulledView cull_to_view(const NodeGrid& grid, std::span<const Vec2> positions,
                        std::span<const std::uint32_t> edge_nodes,
                        const EdgeIncidence& incidence, const WorldRect& rect,
                        const CullOptions& options);

CulledView cull_to_box(std::span<const Vec2> positions, std::span<const std::uint32_t> edge_nodes,
                       const WorldRect& rect);

} // namespace gsr::views::canvas
