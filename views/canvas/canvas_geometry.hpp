#pragma once
// The canvas's geometry without GL: the camera (world <-> screen), and a uniform grid over the
// drawn node positions for picking and box selection. Picking is exact for what is drawn: a
// node is a disc of a fixed pixel radius, drawn in id order, so the node under a point is the
// highest id whose disc holds the point.
#include <cstdint>
#include <span>
#include <vector>

namespace gsr::views::canvas {

struct Vec2 {
    float x = 0, y = 0;
};

struct Bounds {
    double x0 = 0, y0 = 0, x1 = 0, y1 = 0;
    bool empty = true;
    void add(double x, double y);
};

Bounds bounds_of(std::span<const Vec2> points);

/// World coordinates have y up; screen coordinates are logical pixels, y down, origin at the
/// top-left corner, pixel (i, j) covering [i, i+1) x [j, j+1).
struct Camera {
    static constexpr double kMinZoom = 1e-9, kMaxZoom = 1e9; ///< what fit and zoom_at keep to

    double cx = 0, cy = 0; ///< the world point at the centre of the viewport
    double zoom = 1;       ///< logical pixels per world unit
    int width = 1, height = 1;

    double screen_x(double wx) const { return (wx - cx) * zoom + width * 0.5; }
    double screen_y(double wy) const { return height * 0.5 - (wy - cy) * zoom; }
    double world_x(double sx) const { return (sx - width * 0.5) / zoom + cx; }
    double world_y(double sy) const { return (height * 0.5 - sy) / zoom + cy; }

    /// Centres `b` with `margin` pixels free on every side.
    void fit(const Bounds& b, double margin);
    /// Zooms by `factor` keeping the world point under screen point (sx, sy) in place.
    void zoom_at(double sx, double sy, double factor);
    /// Moves the view by a drag of (dx, dy) pixels: the world follows the mouse.
    void pan_pixels(double dx, double dy);
};

class NodeGrid {
public:
    /// Indexes `points` (copied). O(n).
    void build(std::span<const Vec2> points);
    bool built() const { return !cells_.empty(); }

    /// The highest index i with |points[i] - (x, y)| <= radius, or -1.
    std::int64_t topmost_within(double x, double y, double radius) const;
    /// Indices of the points inside [x0, x1] x [y0, y1], ascending.
    std::vector<std::uint32_t> inside(double x0, double y0, double x1, double y1) const;
    /// The points in the cells that [x0, x1] x [y0, y1] meets: at least the points inside,
    /// at most a ring of cells more. O(rows of cells), whatever the points: what the level
    /// of detail asks each frame.
    std::size_t count_in_cells(double x0, double y0, double x1, double y1) const;
    std::size_t size() const { return points_.size(); }

private:
    void cell_range(double x0, double y0, double x1, double y1, int& i0, int& j0, int& i1,
                    int& j1) const;

    std::vector<Vec2> points_;
    std::vector<std::uint32_t> cells_; ///< per cell: start in items_ (cells + 1 entries)
    std::vector<std::uint32_t> items_; ///< point ids grouped by cell, ascending inside a cell
    double ox_ = 0, oy_ = 0, side_ = 1;
    int nx_ = 0, ny_ = 0;
};

} // namespace gsr::views::canvas
