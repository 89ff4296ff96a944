#include "canvas/canvas_geometry.hpp"

#include <algorithm>
#include <cmath>

namespace gsr::views::canvas {

void Bounds::add(double x, double y)
{
    if (!std::isfinite(x) || !std::isfinite(y)) return;
    if (empty) {
        x0 = x1 = x;
        y0 = y1 = y;
        empty = false;
        return;
    }
    x0 = std::min(x0, x), x1 = std::max(x1, x);
    y0 = std::min(y0, y), y1 = std::max(y1, y);
}

Bounds bounds_of(std::span<const Vec2> points)
{
    Bounds b;
    for (const Vec2& p : points) b.add(p.x, p.y);
    return b;
}

void Camera::fit(const Bounds& b, double margin)
{
    if (b.empty) {
        cx = cy = 0;
        zoom = 1;
        return;
    }
    cx = (b.x0 + b.x1) / 2;
    cy = (b.y0 + b.y1) / 2;
    const double w = std::max(1.0, width - 2 * margin), h = std::max(1.0, height - 2 * margin);
    // All at one point (every node at the origin before a layout's first snapshot): a unit
    // square, not 1e-9 of one, whose zoom was past the clamp of zoom_at, so that the first
    // wheel step "in" zoomed out 750 times.
    const bool point = !(b.x1 - b.x0 > 0) && !(b.y1 - b.y0 > 0);
    const double bw = point ? 1.0 : std::max(b.x1 - b.x0, 1e-9);
    const double bh = point ? 1.0 : std::max(b.y1 - b.y0, 1e-9);
    zoom = std::clamp(std::min(w / bw, h / bh), kMinZoom, kMaxZoom);
}

void Camera::zoom_at(double sx, double sy, double factor)
{
    const double wx = world_x(sx), wy = world_y(sy);
    zoom = std::clamp(zoom * factor, kMinZoom, kMaxZoom);
    // Put (wx, wy) back under (sx, sy).
    cx += wx - world_x(sx);
    cy += wy - world_y(sy);
}

void Camera::pan_pixels(double dx, double dy)
{
    cx -= dx / zoom;
    cy += dy / zoom;
}

void NodeGrid::build(std::span<const Vec2> points)
{
    points_.assign(points.begin(), points.end());
    const Bounds b = bounds_of(points);
    const std::size_t n = points.size();
    const double w = b.empty ? 1 : std::max(b.x1 - b.x0, 1e-9);
    const double h = b.empty ? 1 : std::max(b.y1 - b.y0, 1e-9);
    // About two points per cell, at most 1024 cells a side.
    side_ = std::max(std::sqrt(w * h / std::max<std::size_t>(1, n / 2)), std::max(w, h) / 1024);
    ox_ = b.empty ? 0 : b.x0;
    oy_ = b.empty ? 0 : b.y0;
    nx_ = std::max(1, int(std::floor(w / side_)) + 1);
    ny_ = std::max(1, int(std::floor(h / side_)) + 1);
    cells_.assign(std::size_t(nx_) * ny_ + 1, 0);
    std::vector<std::uint32_t> cell_of(n);
    for (std::size_t i = 0; i < n; ++i) {
        const Vec2 p = points[i];
        if (!std::isfinite(p.x) || !std::isfinite(p.y)) {
            cell_of[i] = ~0u;
            continue;
        }
        const int ci = std::clamp(int((p.x - ox_) / side_), 0, nx_ - 1);
        const int cj = std::clamp(int((p.y - oy_) / side_), 0, ny_ - 1);
        cell_of[i] = std::uint32_t(cj) * nx_ + ci;
        ++cells_[cell_of[i] + 1];
    }
    for (std::size_t c = 1; c < cells_.size(); ++c) cells_[c] += cells_[c - 1];
    items_.assign(cells_.back(), 0);
    std::vector<std::uint32_t> fill(cells_.begin(), cells_.end() - 1);
    for (std::size_t i = 0; i < n; ++i)
        if (cell_of[i] != ~0u) items_[fill[cell_of[i]]++] = std::uint32_t(i);
}

void NodeGrid::cell_range(double x0, double y0, double x1, double y1, int& i0, int& j0, int& i1,
                          int& j1) const
{
    auto clampi = [](double v, int hi) {
        if (!(v > 0)) return 0; // also NaN
        return v >= hi ? hi : int(v);
    };
    i0 = clampi(std::floor((x0 - ox_) / side_), nx_ - 1);
    i1 = clampi(std::floor((x1 - ox_) / side_), nx_ - 1);
    j0 = clampi(std::floor((y0 - oy_) / side_), ny_ - 1);
    j1 = clampi(std::floor((y1 - oy_) / side_), ny_ - 1);
}

std::int64_t NodeGrid::topmost_within(double x, double y, double radius) const
{
    if (!built()) return -1;
    int i0, j0, i1, j1;
    cell_range(x - radius, y - radius, x + radius, y + radius, i0, j0, i1, j1);
    std::int64_t best = -1;
    const double r2 = radius * radius;
    for (int j = j0; j <= j1; ++j)
        for (int i = i0; i <= i1; ++i) {
            const std::size_t c = std::size_t(j) * nx_ + i;
            for (std::uint32_t k = cells_[c]; k < cells_[c + 1]; ++k) {
                const std::uint32_t id = items_[k];
                if (std::int64_t(id) <= best) continue;
                const double dx = points_[id].x - x, dy = points_[id].y - y;
                if (dx * dx + dy * dy <= r2) best = id;
            }
        }
    return best;
}

std::vector<std::uint32_t> NodeGrid::inside(double x0, double y0, double x1, double y1) const
{
    std::vector<std::uint32_t> out;
    if (!built()) return out;
    if (x0 > x1) std::swap(x0, x1);
    if (y0 > y1) std::swap(y0, y1);
    int i0, j0, i1, j1;
    cell_range(x0, y0, x1, y1, i0, j0, i1, j1);
    for (int j = j0; j <= j1; ++j)
        for (int i = i0; i <= i1; ++i) {
            const std::size_t c = std::size_t(j) * nx_ + i;
            for (std::uint32_t k = cells_[c]; k < cells_[c + 1]; ++k) {
                const Vec2 p = points_[items_[k]];
                if (p.x >= x0 && p.x <= x1 && p.y >= y0 && p.y <= y1) out.push_back(items_[k]);
            }
        }
    std::sort(out.begin(), out.end());
    return out;
}

std::size_t NodeGrid::count_in_cells(double x0, double y0, double x1, double y1) const
{
    if (!built()) return 0;
    if (x0 > x1) std::swap(x0, x1);
    if (y0 > y1) std::swap(y0, y1);
    // Entirely outside the grid: none (cell_range would clamp onto the border cells).
    const double gx1 = ox_ + side_ * nx_, gy1 = oy_ + side_ * ny_;
    if (!(x1 >= ox_ && x0 <= gx1 && y1 >= oy_ && y0 <= gy1)) return 0;
    int i0, j0, i1, j1;
    cell_range(x0, y0, x1, y1, i0, j0, i1, j1);
    // Cells are numbered row by row: the cells of a row in [i0, i1] are one run of items_.
    std::size_t n = 0;
    for (int j = j0; j <= j1; ++j) {
        const std::size_t row = std::size_t(j) * nx_;
        n += cells_[row + i1 + 1] - cells_[row + i0];
    }
    return n;
}

} // namespace gsr::views::canvas
