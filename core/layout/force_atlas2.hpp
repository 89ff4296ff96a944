#pragma once
// ForceAtlas2 (Jacomy, Venturini, Heymann, Bastian 2014) on the undirected weighted circuit
// graph: degree-weighted repulsion through a Barnes-Hut quadtree, linear attraction along edges,
// gravity towards the origin, and the adaptive speed of the paper (global swinging and traction).
// It measures its own convergence and stops by itself, or at its iteration limit (the CLI's
// --iterations, 2000 by default, which circuits of a few thousand nodes can reach first: the
// run says which); it runs incrementally (step) for
// animation, in parallel, and gives the same positions for a seed whatever the thread count.
#include "community/weighted_graph.hpp"
#include "layout/barnes_hut_tree.hpp"

#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

namespace gsr::community {
class WorkerPool;
}

namespace gsr::layout {

struct ForceAtlas2Options {
    double repulsion = 2.0;             ///< k_r (FA2's "scaling")
    double gravity = 1.0;               ///< k_g
    bool strong_gravity = false;        ///< gravity grows with the distance to the origin
    double edge_weight_influence = 1.0; ///< delta: attraction along an edge ~ weight^delta
    bool lin_log = false;               ///< attraction ~ log(1 + d) instead of d
    bool dissuade_hubs = false;         ///< attraction of a node divided by its mass
    double jitter_tolerance = 1.0;      ///< tau: swinging allowed before the speed drops
    double theta = 1.2;                 ///< Barnes-Hut: a cell counts as one body below side/d
    int max_iterations = 2000;
    /// Converged when the nodes' net movement over the last `window` iterations (mass-weighted
    /// mean, relative to the layout's radius) is below this.
    double tolerance = 0.01;
    int window = 50;
    unsigned threads = 0;   ///< 0: one per hardware thread
    std::uint64_t seed = 1; ///< initial positions when none are given
};

/// The layout after some iteration.
struct LayoutSnapshot {
    std::vector<Point2> positions;
    int iteration = 0;          ///< iterations done
    double swing = 0;           ///< global swinging: sum of mass * |F(t) - F(t-1)|
    double traction = 0;        ///< global traction: sum of mass * |F(t) + F(t-1)| / 2
    double speed = 0;           ///< the global speed chosen from them
    double displacement = 0;    ///< mean displacement of the last iteration / layout radius
    double window_movement = 0; ///< net movement over the last full window / layout radius
    bool converged = false;
};

class ForceAtlas2Layout {
public:
    /// `graph` must outlive the layout. `initial` gives one position per node (e.g.
    /// placement_positions); empty: random ones from the seed. Throws gsr::Error for a wrong
    /// count of positions or non-finite ones, and for options out of range.
    ForceAtlas2Layout(const community::WeightedGraph& graph, const ForceAtlas2Options& options,
                      std::vector<Point2> initial = {});
    ~ForceAtlas2Layout();
    ForceAtlas2Layout(const ForceAtlas2Layout&) = delete;
    ForceAtlas2Layout& operator=(const ForceAtlas2Layout&) = delete;

    /// Runs up to `iterations` more (fewer once converged or at max_iterations) and returns the
    /// snapshot after them. Returns std::nullopt when `cancel` was set: the layout is then
    /// still at the previous snapshot, and stepping again continues from there.
    std::optional<LayoutSnapshot> step(int iterations, const std::atomic<bool>* cancel = nullptr);

    /// Steps until converged or at max_iterations.
    std::optional<LayoutSnapshot> run(const std::atomic<bool>* cancel = nullptr);

    const LayoutSnapshot& snapshot() const { return snapshot_; }
    /// Converged, or max_iterations reached.
    bool finished() const;

private:
    struct State;
    void iterate(State& s, const std::atomic<bool>* cancel);

    const community::WeightedGraph& graph_;
    ForceAtlas2Options options_;
    std::unique_ptr<community::WorkerPool> pool_;
    std::vector<double> mass_; ///< degree + 1
    double total_mass_ = 0;
    std::vector<double> edge_attraction_; ///< weight^delta per CSR entry
    std::unique_ptr<State> state_;        ///< as of snapshot_
    LayoutSnapshot snapshot_;
    BarnesHutTree tree_;
    std::vector<BarnesHutTree::InteractionList> lists_; ///< per thread
    std::vector<Point2> field_, force_; ///< per iteration, kept to spare allocations
    std::vector<double> node_swing_;
};

/// Random positions in a square of side `extent` centred on the origin.
std::vector<Point2> random_positions(std::size_t count, double extent, std::uint64_t seed);

/// The side of the square FA2 starts from for `count` nodes.
double default_extent(std::size_t count);

} // namespace gsr::layout
