#include "canvas/detail_levels.hpp"

#include <algorithm>
#include <cmath>

namespace gsr::views::canvas {

void AggregateLevels::reset(const community::CommunityResult& result,
                            const SuperGraph& final_graph, std::span<const SuperGraph> graphs)
{
    levels_.clear();
    positions_ = {};
    bounds_ready_ = false;
    const bool hierarchy = !result.levels.empty() && graphs.size() == result.levels.size();
    const std::size_t count = hierarchy ? result.levels.size() : 1;
    levels_.resize(count);
    for (std::size_t l = 0; l < count; ++l) {
        Level& x = levels_[l];
        if (hierarchy) {
            x.membership = result.levels[l].membership;
            x.count = result.levels[l].community_count;
            x.graph = &graphs[l];
        } else {
            x.membership = result.membership;
            x.count = result.community_count;
            x.graph = &final_graph;
        }
        // A level whose graph does not match its partition draws no edges (never reads past).
        const bool edges = x.graph->community_count() == x.count;
        std::uint32_t largest = 1;
        for (std::uint32_t c = 0; c < x.count && edges; ++c)
            largest = std::max(largest, x.graph->sizes[c]);
        x.radius.assign(x.count, 4.0f);
        for (std::uint32_t c = 0; c < x.count && edges; ++c)
            x.radius[c] = float(4.0 + 22.0 * std::sqrt(double(x.graph->sizes[c]) / largest));
        x.largest_radius = x.radius.empty() ? 4.0f : *std::max_element(x.radius.begin(),
                                                                       x.radius.end());
        // Each level refines the final partition: any node of a community names its parent.
        x.top.assign(x.count, 0);
        const std::size_t n = std::min(x.membership.size(), result.membership.size());
        for (std::size_t v = 0; v < n; ++v)
            if (x.membership[v] < x.count) x.top[x.membership[v]] = result.membership[v];
        if (!edges) continue;
        const double heaviest = std::max(x.graph->max_edge_weight, 1e-12);
        x.edge_nodes.reserve(2 * x.graph->edges.size());
        for (const SuperGraph::Edge& e : x.graph->edges) {
            x.edge_nodes.push_back(e.a);
            x.edge_nodes.push_back(e.b);
            x.edge_alpha.push_back(float(0.12 + 0.88 * std::sqrt(e.weight / heaviest)));
        }
        x.incidence.build(x.count, x.edge_nodes);
    }
}

void AggregateLevels::set_positions(std::span<const Vec2> positions, std::uint64_t version)
{
    if (positions.data() == positions_.data() && positions.size() == positions_.size() &&
        version == version_)
        return;
    positions_ = positions;
    version_ = version;
    bounds_ready_ = false;
}

AggregateLevels::Level& AggregateLevels::ready(int level)
{
    Level& x = levels_[std::size_t(level)];
    if (x.version == version_ && x.centroids.size() == x.count) return x;
    std::vector<double> sx(x.count, 0.0), sy(x.count, 0.0);
    std::vector<std::uint32_t> n(x.count, 0);
    const std::size_t nodes = std::min(positions_.size(), x.membership.size());
    for (std::size_t v = 0; v < nodes; ++v) {
        const std::uint32_t c = x.membership[v];
        if (c >= x.count) continue;
        sx[c] += positions_[v].x;
        sy[c] += positions_[v].y;
        ++n[c];
    }
    x.centroids.assign(x.count, Vec2{});
    for (std::uint32_t c = 0; c < x.count; ++c)
        if (n[c]) x.centroids[c] = {float(sx[c] / n[c]), float(sy[c] / n[c])};
    x.grid.build(x.centroids);
    x.version = version_;
    return x;
}

std::span<const Vec2> AggregateLevels::centroids(int level) { return ready(level).centroids; }

std::size_t AggregateLevels::communities_inside(int level, const WorldRect& rect)
{
    // A view holding every node holds every centroid (a mean lies within the nodes' box):
    // zoomed out, no level needs its centroids to be counted.
    if (!bounds_ready_) {
        bounds_ = bounds_of(positions_);
        bounds_ready_ = true;
    }
    if (!bounds_.empty && rect.contains(WorldRect{bounds_.x0, bounds_.y0, bounds_.x1, bounds_.y1}))
        return community_count(level);
    std::size_t k = 0;
    for (const Vec2& p : ready(level).centroids) k += rect.contains(p);
    return k;
}

CulledView AggregateLevels::cull(int level, const WorldRect& rect, CullOptions options)
{
    Level& x = ready(level);
    options.edge_alpha = x.edge_alpha;
    return cull_to_view(x.grid, x.centroids, x.edge_nodes, x.incidence, rect, options);
}

std::int64_t AggregateLevels::pick(int level, double x, double y, double zoom)
{
    const Level& l = ready(level);
    // Discs differ in radius: search as far as the largest, then test each disc's own.
    const double reach = l.largest_radius / zoom;
    std::int64_t best = -1;
    const auto near = l.grid.inside(x - reach, y - reach, x + reach, y + reach);
    for (auto c = near.rbegin(); c != near.rend(); ++c) {
        const double r = l.radius[*c] / zoom;
        const double dx = l.centroids[*c].x - x, dy = l.centroids[*c].y - y;
        if (dx * dx + dy * dy <= r * r) {
            best = *c;
            break;
        }
    }
    return best;
}

DetailChoice choose_detail(std::size_t nodes_in_view, AggregateLevels& levels,
                           const WorldRect& view, double magnification,
                           const DetailBudget& budget)
{
    DetailChoice c;
    c.nodes_in_view = nodes_in_view;
    if (levels.size() == 0 || nodes_in_view <= budget.nodes) return c;
    const int top = levels.final_level();
    // The overview shows the final partition; each step of zoom lets the screen hold as many
    // more discs as its area shrinks, up to what a software rasteriser draws in a frame.
    const double m = std::max(1.0, magnification);
    const double grown = double(levels.community_count(top)) * m * m;
    c.community_budget = std::size_t(std::min(double(budget.communities), grown));
    c.level = top;
    c.communities_in_view = levels.communities_inside(top, view);
    // Coarse to fine: in-view counts grow as levels get finer, so stop at the first too many.
    for (int l = top - 1; l >= 0; --l) {
        const std::size_t k = levels.communities_inside(l, view);
        if (k > c.community_budget) break;
        c.level = l;
        c.communities_in_view = k;
    }
    return c;
}

} // namespace gsr::views::canvas
