#include "layout/barnes_hut_tree.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <limits>

namespace gsr::layout {
namespace {

/// Squared distances below this are coincident points, which push nothing: closer ones gave
/// a repulsion m / d2 past the float range (two points 1e-20 apart made every position NaN).
constexpr float kCoincidentSquared = 1e-30f;

/// Spreads the 16 low bits of v to the even bit positions.
std::uint32_t spread_bits(std::uint32_t v)
{
    v &= 0xffff;
    v = (v | (v << 8)) & 0x00ff00ff;
    v = (v | (v << 4)) & 0x0f0f0f0f;
    v = (v | (v << 2)) & 0x33333333;
    v = (v | (v << 1)) & 0x55555555;
    return v;
}

/// Stable LSD radix sort of keys by their upper 32 bits.
void sort_by_code(std::vector<std::uint64_t>& keys, std::vector<std::uint64_t>& buffer)
{
    buffer.resize(keys.size());
    for (int shift = 32; shift < 64; shift += 8) {
        std::array<std::size_t, 257> count{};
        for (std::uint64_t k : keys) ++count[((k >> shift) & 0xff) + 1];
        if (*std::max_element(count.begin(), count.end()) == keys.size())
            continue; // one byte value
        for (int b = 0; b < 256; ++b) count[b + 1] += count[b];
        for (std::uint64_t k : keys) buffer[count[(k >> shift) & 0xff]++] = k;
        keys.swap(buffer);
    }
}

} // namespace

void BarnesHutTree::build(std::span<const Point2> points, std::span<const double> masses)
{
    const std::size_t n = points.size();
    cells_.clear();
    walk_.clear();
    leaves_.clear();
    rank_.resize(n);
    index_.resize(n);
    sx_.resize(n);
    sy_.resize(n);
    sm_.resize(n);
    if (n == 0) return;
    double x0 = points[0].x, x1 = x0, y0 = points[0].y, y1 = y0;
    for (const Point2& p : points) {
        x0 = std::min(x0, p.x);
        x1 = std::max(x1, p.x);
        y0 = std::min(y0, p.y);
        y1 = std::max(y1, p.y);
    }
    double side = std::max(x1 - x0, y1 - y0);
    if (!(side > 0)) side = 1;
    side *= 1 + 1e-9; // the largest coordinate falls inside the last cell
    const double scale = 65536.0 / side;
    keys_.resize(n);
    for (std::size_t i = 0; i < n; ++i) {
        const auto qx = static_cast<std::uint32_t>(std::min(65535.0, (points[i].x - x0) * scale));
        const auto qy = static_cast<std::uint32_t>(std::min(65535.0, (points[i].y - y0) * scale));
        const std::uint64_t code = spread_bits(qx) | (spread_bits(qy) << 1);
        keys_[i] = code << 32 | i;
    }
    sort_by_code(keys_, swap_);
    for (std::size_t r = 0; r < n; ++r) {
        const auto i = static_cast<std::uint32_t>(keys_[r]);
        rank_[i] = static_cast<std::uint32_t>(r);
        index_[r] = i;
        sx_[r] = points[i].x;
        sy_[r] = points[i].y;
        sm_[r] = masses[i];
    }
    auto code_at = [&](std::uint32_t r) { return static_cast<std::uint32_t>(keys_[r] >> 32); };

    // Split top-down. A cell's points share the code bits above its level, so the children are
    // consecutive ranges, found by binary search on the next two bits.
    Cell root;
    root.end = static_cast<std::uint32_t>(n);
    root.side = side;
    cells_.push_back(root);
    struct Pending {
        std::uint32_t cell;
        int level;
    };
    std::vector<Pending> stack{{0, 0}};
    while (!stack.empty()) {
        const Pending p = stack.back();
        stack.pop_back();
        const std::uint32_t b = cells_[p.cell].begin, e = cells_[p.cell].end;
        if (e - b <= kLeafSize || p.level >= kMaxDepth) continue;
        const int shift = 2 * (kMaxDepth - 1 - p.level);
        const double child_side = cells_[p.cell].side / 2;
        const auto first = static_cast<std::uint32_t>(cells_.size());
        std::uint32_t lo = b;
        for (std::uint32_t digit = 0; digit < 4 && lo < e; ++digit) {
            std::uint32_t len = e - lo, hi = lo;
            while (len > 0) { // first position whose digit exceeds `digit`
                const std::uint32_t half = len / 2;
                if (((code_at(hi + half) >> shift) & 3u) <= digit) {
                    hi += half + 1;
                    len -= half + 1;
                } else {
                    len = half;
                }
            }
            if (hi == lo) continue;
            Cell child;
            child.begin = lo;
            child.end = hi;
            child.side = child_side;
            cells_.push_back(child);
            lo = hi;
        }
        cells_[p.cell].first_child = first;
        cells_[p.cell].children = static_cast<std::uint32_t>(cells_.size()) - first;
        for (std::uint32_t c = first; c < cells_.size(); ++c) stack.push_back({c, p.level + 1});
    }
    // Masses bottom-up: children always come after their parent.
    for (std::size_t c = cells_.size(); c-- > 0;) {
        Cell& cell = cells_[c];
        double m = 0, mx = 0, my = 0;
        cell.bx0 = cell.by0 = std::numeric_limits<double>::max();
        cell.bx1 = cell.by1 = -std::numeric_limits<double>::max();
        if (cell.children == 0) {
            for (std::uint32_t r = cell.begin; r < cell.end; ++r) {
                m += sm_[r];
                mx += sm_[r] * sx_[r];
                my += sm_[r] * sy_[r];
                cell.bx0 = std::min(cell.bx0, sx_[r]);
                cell.bx1 = std::max(cell.bx1, sx_[r]);
                cell.by0 = std::min(cell.by0, sy_[r]);
                cell.by1 = std::max(cell.by1, sy_[r]);
            }
        } else {
            for (std::uint32_t k = 0; k < cell.children; ++k) {
                const Cell& child = cells_[cell.first_child + k];
                m += child.mass;
                mx += child.mass * child.cx;
                my += child.mass * child.cy;
                cell.bx0 = std::min(cell.bx0, child.bx0);
                cell.bx1 = std::max(cell.bx1, child.bx1);
                cell.by0 = std::min(cell.by0, child.by0);
                cell.by1 = std::max(cell.by1, child.by1);
            }
        }
        cell.extent = std::max(cell.bx1 - cell.bx0, cell.by1 - cell.by0);
        cell.mass = m;
        cell.cx = m > 0 ? mx / m : 0;
        cell.cy = m > 0 ? my / m : 0;
    }
    walk_.resize(cells_.size());
    for (std::uint32_t c = 0; c < cells_.size(); ++c) {
        const Cell& cell = cells_[c];
        walk_[c] = {cell.cx,    cell.cy,  cell.mass,        cell.extent,
                    cell.begin, cell.end, cell.first_child, cell.children};
        if (cell.children == 0) leaves_.push_back(c);
    }
    std::sort(leaves_.begin(), leaves_.end(),
              [&](std::uint32_t a, std::uint32_t b) { return cells_[a].begin < cells_[b].begin; });
}

void BarnesHutTree::InteractionList::clear()
{
    x.clear();
    y.clear();
    mass.clear();
}

void BarnesHutTree::leaf_fields(std::size_t leaf, double theta, std::span<Point2> field,
                                InteractionList& list) const
{
    const Cell& target = cells_[leaves_[leaf]];
    const double lx0 = target.bx0, ly0 = target.by0, lx1 = target.bx1, ly1 = target.by1;
    // Coordinates relative to this origin keep single precision exact enough near the leaf.
    const double ox = sx_[target.begin], oy = sy_[target.begin];
    list.clear();
    auto add = [&](double x, double y, double m) {
        list.x.push_back(static_cast<float>(x - ox));
        list.y.push_back(static_cast<float>(y - oy));
        list.mass.push_back(static_cast<float>(m));
    };
    std::array<std::uint32_t, 4 * (kMaxDepth + 2)> stack;
    std::size_t top = 0;
    stack[top++] = 0;
    while (top > 0) {
        const WalkCell& cell = walk_[stack[--top]];
        const bool holds_target = cell.begin <= target.begin && target.end <= cell.end;
        if (!holds_target) {
            // Distance from the centre of mass to the box of the leaf's points.
            const double dx = std::max({lx0 - cell.cx, 0.0, cell.cx - lx1});
            const double dy = std::max({ly0 - cell.cy, 0.0, cell.cy - ly1});
            if (cell.extent * cell.extent < theta * theta * (dx * dx + dy * dy)) {
                add(cell.cx, cell.cy, cell.mass);
                continue;
            }
        }
        if (cell.children == 0) {
            for (std::uint32_t j = cell.begin; j < cell.end; ++j) add(sx_[j], sy_[j], sm_[j]);
            continue;
        }
        for (std::uint32_t k = 0; k < cell.children; ++k) stack[top++] = cell.first_child + k;
    }
    // Eight partial sums per axis in a fixed order: independent lanes for vector registers. A
    // body at distance 0 (the point itself) adds dx * s = 0; padding bodies weigh nothing.
    constexpr std::size_t kLanes = 8;
    const std::size_t padded = (list.x.size() + kLanes - 1) / kLanes * kLanes;
    list.x.resize(padded, 0.0f);
    list.y.resize(padded, 0.0f);
    list.mass.resize(padded, 0.0f);
    const float* bx = list.x.data();
    const float* by = list.y.data();
    const float* bm = list.mass.data();
    for (std::uint32_t r = target.begin; r < target.end; ++r) {
        const auto px = static_cast<float>(sx_[r] - ox), py = static_cast<float>(sy_[r] - oy);
        float fx[kLanes] = {}, fy[kLanes] = {};
#if defined(__GNUC__)
        using Float8 = float __attribute__((vector_size(32)));
        Float8 vfx = {}, vfy = {};
        const Float8 vpx = px - Float8{}, vpy = py - Float8{};
        for (std::size_t k = 0; k < padded; k += kLanes) {
            Float8 x, y, m;
            std::memcpy(&x, bx + k, sizeof x);
            std::memcpy(&y, by + k, sizeof y);
            std::memcpy(&m, bm + k, sizeof m);
            const Float8 dx = vpx - x, dy = vpy - y;
            const Float8 d2 = dx * dx + dy * dy;
            const Float8 s = d2 > kCoincidentSquared ? m / d2 : Float8{};
            vfx += dx * s;
            vfy += dy * s;
        }
        for (std::size_t u = 0; u < kLanes; ++u) {
            fx[u] = vfx[u];
            fy[u] = vfy[u];
        }
#else
        for (std::size_t k = 0; k < padded; k += kLanes)
            for (std::size_t u = 0; u < kLanes; ++u) {
                const float dx = px - bx[k + u], dy = py - by[k + u];
                const float d2 = dx * dx + dy * dy;
                const float s = d2 > kCoincidentSquared ? bm[k + u] / d2 : 0.0f;
                fx[u] += dx * s;
                fy[u] += dy * s;
            }
#endif
        double sum_x = 0, sum_y = 0;
        for (std::size_t u = 0; u < kLanes; ++u) {
            sum_x += fx[u];
            sum_y += fy[u];
        }
        field[index_[r]] = {sum_x, sum_y};
    }
}

Point2 BarnesHutTree::repulsion_field(std::size_t i, double theta) const
{
    Point2 f;
    if (cells_.empty()) return f;
    const std::uint32_t r = rank_[i];
    const double px = sx_[r], py = sy_[r];
    const double theta2 = theta * theta;
    // Each visit pushes at most 4 cells and the depth is at most kMaxDepth + 1.
    std::array<std::uint32_t, 4 * (kMaxDepth + 2)> stack;
    std::size_t top = 0;
    stack[top++] = 0;
    while (top > 0) {
        const WalkCell& cell = walk_[stack[--top]];
        if (cell.children == 0) {
            for (std::uint32_t j = cell.begin; j < cell.end; ++j) {
                const double dx = px - sx_[j], dy = py - sy_[j];
                const double d2 = dx * dx + dy * dy;
                if (j == r || !(d2 > kCoincidentSquared)) continue;
                const double s = sm_[j] / d2;
                f.x += dx * s;
                f.y += dy * s;
            }
            continue;
        }
        if (r < cell.begin || r >= cell.end) {
            const double dx = px - cell.cx, dy = py - cell.cy;
            const double d2 = dx * dx + dy * dy;
            if (cell.extent * cell.extent < theta2 * d2 && d2 > kCoincidentSquared) {
                const double s = cell.mass / d2;
                f.x += dx * s;
                f.y += dy * s;
                continue;
            }
        }
        for (std::uint32_t k = 0; k < cell.children; ++k) stack[top++] = cell.first_child + k;
    }
    return f;
}

Point2 BarnesHutTree::exact_repulsion_field(std::size_t i) const
{
    Point2 f;
    const std::uint32_t r = rank_[i];
    for (std::uint32_t j = 0; j < sx_.size(); ++j) {
        const double dx = sx_[r] - sx_[j], dy = sy_[r] - sy_[j];
        const double d2 = dx * dx + dy * dy;
        if (j == r || !(d2 > kCoincidentSquared)) continue;
        f.x += dx * sm_[j] / d2;
        f.y += dy * sm_[j] / d2;
    }
    return f;
}

} // namespace gsr::layout
