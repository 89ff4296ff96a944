#pragma once
// A Barnes-Hut quadtree over weighted points, for the repulsion of ForceAtlas2. Built without
// recursion: the points are sorted by Morton code, so each cell is a range of the sorted points,
// and cells are split top-down from an explicit stack. Queries walk the tree with a fixed-size
// stack (the depth is bounded by the 16 bits per axis of the codes).
#include <cstdint>
#include <span>
#include <vector>

namespace gsr::layout {

struct Point2 {
    double x = 0;
    double y = 0;
};

class BarnesHutTree {
public:
    /// Rebuilds the tree. Masses must be positive; points.size() == masses.size() < 2^32.
    void build(std::span<const Point2> points, std::span<const double> masses);

    /// sum over points j != i of m_j (p_i - p_j) / |p_i - p_j|^2: the repulsion field at point i
    /// (the FA2 repulsion force is k_r m_i times it). A cell whose side is below theta times its
    /// distance, and which does not hold i, counts as one body at its centre of mass. Points at
    /// the same place as i (closer than 1e-15) add nothing.
    Point2 repulsion_field(std::size_t i, double theta) const;

    /// The exact field, for tests: O(n) per call.
    Point2 exact_repulsion_field(std::size_t i) const;

    /// Bodies one leaf interacts with: far cells as single bodies, near points one by one.
    /// Single precision, relative to the leaf's first point: twice the arithmetic per
    /// instruction, and a layout needs no more.
    struct InteractionList {
        std::vector<float> x, y, mass;
        void clear();
    };

    /// The fields at all points of leaf `leaf` (< leaf_count()), written to field[point index].
    /// One walk of the tree serves the whole leaf: a cell counts as one body when its side is
    /// below theta times its distance to the leaf's square (so for every point of the leaf).
    /// Leaves are independent: callers run them in parallel, each thread with its own list.
    void leaf_fields(std::size_t leaf, double theta, std::span<Point2> field,
                     InteractionList& list) const;

    std::size_t leaf_count() const { return leaves_.size(); }
    std::size_t cell_count() const { return cells_.size(); }
    std::size_t point_count() const { return rank_.size(); }

    static constexpr int kMaxDepth = 16;           ///< Morton bits per axis
    static constexpr std::uint32_t kLeafSize = 32; ///< a cell with this many points is not split

private:
    struct Cell {
        double cx = 0, cy = 0, mass = 0;           ///< centre of mass and total mass
        double side = 0;                           ///< side length of the square
        double bx0 = 0, by0 = 0, bx1 = 0, by1 = 0; ///< bounding box of its points
        double extent = 0;                ///< the box's larger side: the size in the opening test
        std::uint32_t begin = 0, end = 0; ///< its points: sorted positions [begin, end)
        std::uint32_t first_child =
            0; ///< children are cells [first_child, first_child + children)
        std::uint32_t children = 0;
    };

    /// What a walk reads of a cell, packed: the walks are bound by memory, not arithmetic.
    struct WalkCell {
        double cx, cy, mass, extent;
        std::uint32_t begin, end, first_child, children;
    };

    std::vector<Cell> cells_;
    std::vector<WalkCell> walk_;
    std::vector<std::uint32_t> leaves_;      ///< leaf cells in Morton order
    std::vector<std::uint32_t> index_;       ///< point index at each Morton position
    std::vector<double> sx_, sy_, sm_;       ///< points and masses in Morton order
    std::vector<std::uint32_t> rank_;        ///< Morton position of each point
    std::vector<std::uint64_t> keys_, swap_; ///< (code << 32 | index), sorting buffers
};

} // namespace gsr::layout
