#pragma once
// The canvas's automatic level of detail, without GL: what a view of a large graph draws,
// decided from what is actually in the view rather than from the zoom alone (a force layout
// piles most nodes in its centre, so zooming 4x into it can still show a third of them).
//
//   AggregateLevels   the community hierarchy as drawable levels (finest first, the last the
//                     final partition): per level the centroid of each community, its disc
//                     radius (by size), the final community it lies in (its colour), its
//                     super-graph culled to a view, and picking of the topmost disc
//   choose_detail     nodes when the nodes in view (counted on the picking grid's cells) fit
//                     the node budget, else the finest community level whose communities in
//                     view fit the community budget: the final partition's count times the
//                     magnification squared (as many discs on screen as the overview shows,
//                     more as one zooms in), at most a fixed disc budget
#include "canvas/canvas_geometry.hpp"
#include "canvas/canvas_scene.hpp"
#include "canvas/view_cull.hpp"

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace gsr::views::canvas {

class AggregateLevels {
public:
    /// `result.levels` finest first, its last the final partition; `graphs` the super-graph
    /// of each level. Without levels (or graphs of another count) only the final partition
    /// (`result.membership`, `final_graph`) is offered. The spans must outlive this.
    void reset(const community::CommunityResult& result, const SuperGraph& final_graph,
               std::span<const SuperGraph> graphs);

    int size() const { return int(levels_.size()); }
    int final_level() const { return size() - 1; }
    std::uint32_t community_count(int level) const { return levels_[level].count; }
    std::span<const std::uint32_t> membership(int level) const
    {
        return levels_[level].membership;
    }
    const SuperGraph& graph(int level) const { return *levels_[level].graph; }
    /// Disc radius in pixels: 4 + 22 sqrt(size / largest of its level).
    std::span<const float> radius(int level) const { return levels_[level].radius; }
    float largest_radius(int level) const { return levels_[level].largest_radius; }
    /// The final community each community of `level` lies in (its colour).
    std::span<const std::uint32_t> top(int level) const { return levels_[level].top; }
    /// Per edge of graph(level): 0.12 + 0.88 sqrt(weight / heaviest) (light edges stay seen).
    std::span<const float> edge_alpha(int level) const { return levels_[level].edge_alpha; }

    /// Positions to aggregate from, and their version (centroids are recomputed, per level on
    /// first use, when it changes).
    void set_positions(std::span<const Vec2> positions, std::uint64_t version);
    /// The mean position of each community of `level` (computed if needed).
    std::span<const Vec2> centroids(int level);
    /// Communities of `level` whose centroid lies in `rect`.
    std::size_t communities_inside(int level, const WorldRect& rect);
    /// The communities of `level` with a centroid in `rect` (ascending: the draw order) and
    /// the super-graph edges that touch them, long ones as stubs (cull_to_view).
    CulledView cull(int level, const WorldRect& rect, CullOptions options);
    /// The topmost disc of `level` holding the world point (x, y) at `zoom` pixels per unit,
    /// among the communities drawn in id order (the highest id is on top); -1 for none.
    std::int64_t pick(int level, double x, double y, double zoom);

private:
    struct Level {
        std::span<const std::uint32_t> membership;
        std::uint32_t count = 0;
        const SuperGraph* graph = nullptr;
        std::vector<float> radius, edge_alpha;
        float largest_radius = 0;
        std::vector<std::uint32_t> top;
        std::vector<std::uint32_t> edge_nodes; ///< the super-graph's edges: a, b, a, b, ...
        EdgeIncidence incidence;
        std::vector<Vec2> centroids;
        NodeGrid grid;                      ///< over the centroids
        std::uint64_t version = ~0ull;      ///< of the positions the centroids are of
    };
    Level& ready(int level);

    std::vector<Level> levels_;
    std::span<const Vec2> positions_;
    Bounds bounds_;
    bool bounds_ready_ = false;
    std::uint64_t version_ = 0;
};

/// Defaults from llvmpipe at hyp size (docs/BENCHMARKS.md, "Level of detail from the nodes
/// in view"): about 2-3 us a node disc with its lines, so 3,000 of them and the frame's fixed
/// cost stay within 33 ms; community discs are larger.
struct DetailBudget {
    std::size_t nodes = 3000;       ///< nodes in view drawn as discs at most
    std::size_t communities = 1000; ///< community discs in view at most
};

struct DetailChoice {
    int level = -1;                      ///< -1: the nodes, else the community level drawn
    std::size_t nodes_in_view = 0;       ///< counted on the grid's cells that the view meets
    std::size_t communities_in_view = 0; ///< of `level`, centroids in view
    std::size_t community_budget = 0;    ///< what the level had to fit
};

/// The automatic level of detail of `view` (the world rectangle on screen), given the nodes
/// in it (NodeGrid::count_in_cells, or all when the view holds them all); `magnification` is
/// the zoom over the fitted zoom. Cost: one pass over the nodes for each level tried (coarse
/// to fine) whose centroids are out of date, plus its centroids; nothing when the view holds
/// every node's bounds (all communities are then in view).
DetailChoice choose_detail(std::size_t nodes_in_view, AggregateLevels& levels,
                           const WorldRect& view, double magnification,
                           const DetailBudget& budget);

} // namespace gsr::views::canvas
