#include "layout/force_atlas2.hpp"

#include "community/random.hpp"
#include "community/worker_pool.hpp"
#include "util/diagnostics.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <string>

namespace gsr::layout {
namespace {

/// Thrown inside an iteration when the cancel flag is seen; never leaves this file.
struct Cancelled {};

constexpr std::size_t kChunk = 2048; ///< nodes per parallel chunk; sums are made per chunk
constexpr std::size_t kLeavesPerChunk = 64;
constexpr double kNodeSpeed = 0.1; ///< k_s of the paper
constexpr double kMaxRise = 1.5;   ///< the global speed grows at most 50% per iteration
constexpr double kMaxStep = 0.1;   ///< a node moves at most this share of the layout radius

} // namespace

struct ForceAtlas2Layout::State {
    std::vector<Point2> pos;
    std::vector<Point2> previous_force;
    double speed = 1.0;
    int iteration = 0;
    std::vector<Point2> window_start; ///< positions when the current window began
    double window_movement = 0;
    double swing = 0, traction = 0, displacement = 0;
    bool converged = false;
};

double default_extent(std::size_t count)
{
    return 10.0 * std::sqrt(static_cast<double>(std::max<std::size_t>(count, 1)));
}

std::vector<Point2> random_positions(std::size_t count, double extent, std::uint64_t seed)
{
    community::SeededRandom rng(seed);
    std::vector<Point2> p(count);
    for (Point2& q : p) {
        q.x = (rng.uniform() - 0.5) * extent;
        q.y = (rng.uniform() - 0.5) * extent;
    }
    return p;
}

ForceAtlas2Layout::ForceAtlas2Layout(const community::WeightedGraph& graph,
                                     const ForceAtlas2Options& options,
                                     std::vector<Point2> initial)
    : graph_(graph), options_(options), state_(std::make_unique<State>())
{
    const std::size_t n = graph.node_count();
    auto positive = [](double v) { return v > 0 && std::isfinite(v); };
    if (!positive(options.repulsion) || !(options.gravity >= 0) ||
        !std::isfinite(options.gravity) || !positive(options.jitter_tolerance) ||
        !(options.theta >= 0) || !std::isfinite(options.theta) ||
        !std::isfinite(options.edge_weight_influence) || !(options.tolerance >= 0) ||
        options.max_iterations < 0 || options.window < 1)
        throw Error("ForceAtlas2 options out of range: repulsion and jitter tolerance must be "
                    "positive, gravity, theta, tolerance and max iterations not negative, "
                    "the window at least 1");
    if (initial.empty()) {
        initial = random_positions(n, default_extent(n), options.seed);
    } else if (initial.size() != n) {
        throw Error("initial positions for " + std::to_string(initial.size()) +
                    " nodes, the graph has " + std::to_string(n));
    }
    for (const Point2& p : initial)
        if (!std::isfinite(p.x) || !std::isfinite(p.y))
            throw Error("initial positions must be finite");
    pool_ = std::make_unique<community::WorkerPool>(options.threads);
    mass_.resize(n);
    for (community::NodeId v = 0; v < n; ++v) {
        mass_[v] = static_cast<double>(graph.degree(v)) + 1;
        total_mass_ += mass_[v];
    }
    edge_attraction_.resize(graph.entry_count());
    for (std::size_t e = 0; e < graph.entry_count(); ++e)
        edge_attraction_[e] = options.edge_weight_influence == 1 ? graph.weights[e]
                              : options.edge_weight_influence == 0
                                  ? 1.0
                                  : std::pow(graph.weights[e], options.edge_weight_influence);
    state_->pos = std::move(initial);
    state_->previous_force.assign(n, Point2{});
    state_->window_start = state_->pos;
    snapshot_.positions = state_->pos;
    // No node or one: nothing to settle (one node's radius is zero, so any drift towards the
    // gravity centre would read as unbounded movement and the layout would never stop).
    state_->converged = snapshot_.converged = n <= 1;
}

ForceAtlas2Layout::~ForceAtlas2Layout() = default;

bool ForceAtlas2Layout::finished() const
{
    return state_->converged || state_->iteration >= options_.max_iterations;
}

void ForceAtlas2Layout::iterate(State& s, const std::atomic<bool>* cancel)
{
    const std::size_t n = s.pos.size();
    const auto& g = graph_;
    const ForceAtlas2Options& o = options_;
    const bool first = s.iteration == 0;
    auto check_cancel = [&] {
        if (cancel && cancel->load(std::memory_order_relaxed)) throw Cancelled{};
    };
    tree_.build(s.pos, mass_);
    field_.resize(n);
    force_.resize(n);
    node_swing_.resize(n);
    lists_.resize(pool_->size());
    const std::size_t chunks = (n + kChunk - 1) / kChunk;
    // Per chunk: swinging, traction, mass-weighted x, y and x^2 + y^2. Summed in chunk order.
    std::vector<std::array<double, 5>> sums(chunks);

    // Repulsion fields, leaf by leaf of the quadtree.
    pool_->parallel_for(tree_.leaf_count(), kLeavesPerChunk,
                        [&](std::size_t l0, std::size_t l1, unsigned w) {
                            check_cancel();
                            for (std::size_t l = l0; l < l1; ++l)
                                tree_.leaf_fields(l, o.theta, field_, lists_[w]);
                        });

    // Forces, and each node's swinging and traction.
    pool_->parallel_for(chunks, 1, [&](std::size_t c0, std::size_t c1, unsigned) {
        check_cancel();
        for (std::size_t c = c0; c < c1; ++c) {
            std::array<double, 5> acc{};
            for (std::size_t i = c * kChunk; i < std::min(n, (c + 1) * kChunk); ++i) {
                const Point2 p = s.pos[i];
                const double m = mass_[i];
                double fx = o.repulsion * m * field_[i].x, fy = o.repulsion * m * field_[i].y;
                double ax = 0, ay = 0;
                for (std::uint64_t e = g.offsets[i]; e < g.offsets[i + 1]; ++e) {
                    const Point2 q = s.pos[g.targets[e]];
                    const double dx = q.x - p.x, dy = q.y - p.y;
                    double a = edge_attraction_[e];
                    if (o.lin_log) {
                        const double d = std::sqrt(dx * dx + dy * dy);
                        a = d > 0 ? a * std::log1p(d) / d : 0;
                    }
                    ax += a * dx;
                    ay += a * dy;
                }
                if (o.dissuade_hubs) {
                    ax /= m;
                    ay /= m;
                }
                fx += ax;
                fy += ay;
                if (o.strong_gravity) {
                    fx -= o.gravity * m * p.x;
                    fy -= o.gravity * m * p.y;
                } else if (const double r = std::sqrt(p.x * p.x + p.y * p.y); r > 0) {
                    fx -= o.gravity * m * p.x / r;
                    fy -= o.gravity * m * p.y / r;
                }
                force_[i] = {fx, fy};
                const Point2 prev = first ? force_[i] : s.previous_force[i];
                const double sx = fx - prev.x, sy = fy - prev.y, tx = fx + prev.x,
                             ty = fy + prev.y;
                const double sw = std::sqrt(sx * sx + sy * sy);
                node_swing_[i] = sw;
                acc[0] += m * sw;
                acc[1] += m * std::sqrt(tx * tx + ty * ty) / 2;
                acc[2] += m * p.x;
                acc[3] += m * p.y;
                acc[4] += m * (p.x * p.x + p.y * p.y);
            }
            sums[c] = acc;
        }
    });
    std::array<double, 5> total{};
    for (const auto& a : sums)
        for (int k = 0; k < 5; ++k) total[k] += a[k];
    const double swing = total[0], traction = total[1];

    // Global speed: as much as the swinging allows, rising at most 50% per iteration.
    if (swing > 0) s.speed = std::min(o.jitter_tolerance * traction / swing, kMaxRise * s.speed);

    // Layout radius around the mass centre, for the step limit and the convergence measure.
    const double cx = total[2] / total_mass_, cy = total[3] / total_mass_;
    const double spread = std::max(total[4] / total_mass_ - cx * cx - cy * cy, 0.0);
    const double radius = std::max(std::sqrt(spread), 1e-9);
    const double max_step = kMaxStep * radius;

    // Move: each node by its own speed, lower where it swings.
    std::vector<double> moved_per_chunk(chunks);
    pool_->parallel_for(chunks, 1, [&](std::size_t c0, std::size_t c1, unsigned) {
        check_cancel();
        for (std::size_t c = c0; c < c1; ++c) {
            double moved = 0;
            for (std::size_t i = c * kChunk; i < std::min(n, (c + 1) * kChunk); ++i) {
                const Point2 f = force_[i];
                const double magnitude = std::sqrt(f.x * f.x + f.y * f.y);
                double node_speed =
                    kNodeSpeed * s.speed / (1 + s.speed * std::sqrt(node_swing_[i]));
                if (node_speed * magnitude > max_step) node_speed = max_step / magnitude;
                s.pos[i].x += node_speed * f.x;
                s.pos[i].y += node_speed * f.y;
                moved += mass_[i] * node_speed * magnitude;
                s.previous_force[i] = f;
            }
            moved_per_chunk[c] = moved;
        }
    });
    double moved = 0;
    for (double v : moved_per_chunk) moved += v;

    s.swing = swing;
    s.traction = traction;
    s.displacement = moved / total_mass_ / radius;
    ++s.iteration;

    // Convergence: FA2 keeps every node jittering a little, so a single iteration says little.
    // Every `window` iterations, the net movement since the window began (mass-weighted mean,
    // relative to the radius) tells a layout that still unfolds from one that only shivers.
    if (s.iteration % o.window == 0) {
        std::vector<double> net_per_chunk(chunks);
        pool_->parallel_for(chunks, 1, [&](std::size_t c0, std::size_t c1, unsigned) {
            for (std::size_t c = c0; c < c1; ++c) {
                double net = 0;
                for (std::size_t i = c * kChunk; i < std::min(n, (c + 1) * kChunk); ++i) {
                    const double dx = s.pos[i].x - s.window_start[i].x,
                                 dy = s.pos[i].y - s.window_start[i].y;
                    net += mass_[i] * std::sqrt(dx * dx + dy * dy);
                }
                net_per_chunk[c] = net;
            }
        });
        double net = 0;
        for (double v : net_per_chunk) net += v;
        s.window_movement = net / total_mass_ / radius;
        s.converged = s.window_movement < o.tolerance;
        s.window_start = s.pos;
    }
}

std::optional<LayoutSnapshot> ForceAtlas2Layout::step(int iterations,
                                                      const std::atomic<bool>* cancel)
{
    if (finished() || iterations <= 0) return snapshot_; // no node or one: finished at once
    State work = *state_;
    try {
        for (int i = 0; i < iterations; ++i) {
            if (work.converged || work.iteration >= options_.max_iterations) break;
            if (cancel && cancel->load(std::memory_order_relaxed)) return std::nullopt;
            iterate(work, cancel);
        }
    } catch (const Cancelled&) {
        return std::nullopt;
    }
    *state_ = std::move(work);
    snapshot_.positions = state_->pos;
    snapshot_.iteration = state_->iteration;
    snapshot_.swing = state_->swing;
    snapshot_.traction = state_->traction;
    snapshot_.speed = state_->speed;
    snapshot_.displacement = state_->displacement;
    snapshot_.window_movement = state_->window_movement;
    snapshot_.converged = state_->converged;
    return snapshot_;
}

std::optional<LayoutSnapshot> ForceAtlas2Layout::run(const std::atomic<bool>* cancel)
{
    return step(options_.max_iterations, cancel);
}

} // namespace gsr::layout
