#include "canvas/canvas_scene.hpp"

#include "community/worker_pool.hpp"
#include "loading/shared_detection.hpp"
#include "labels/logic_simulator.hpp"
#include "labels/net_structure.hpp"
#include "layout/force_atlas2.hpp"
#include "layout/initial_positions.hpp"
#include "util/diagnostics.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>
#include <unordered_map>

namespace gsr::views::canvas {

SuperGraph build_super_graph(const community::WeightedGraph& g,
                             std::span<const std::uint32_t> membership, std::uint32_t count)
{
    if (membership.size() != g.node_count())
        throw Error("super-graph: " + std::to_string(membership.size()) +
                    " memberships for a graph of " + std::to_string(g.node_count()) + " nodes");
    SuperGraph s;
    s.sizes.assign(count, 0);
    s.internal.assign(count, 0.0);
    for (std::uint32_t c : membership) {
        if (c >= count) throw Error("super-graph: community id " + std::to_string(c) +
                                    " is not below the count " + std::to_string(count));
        ++s.sizes[c];
    }
    // Key (a << 32 | b): a hash map keeps this linear in the edges whatever the community count.
    std::unordered_map<std::uint64_t, double> between;
    for (std::size_t u = 0; u < g.node_count(); ++u) {
        for (std::uint64_t e = g.offsets[u]; e < g.offsets[u + 1]; ++e) {
            const std::size_t v = g.targets[e];
            if (v < u) continue; // each undirected edge once
            const std::uint32_t a = membership[u], b = membership[v];
            if (a == b) {
                s.internal[a] += v == u ? g.weights[e] / 2 : g.weights[e];
                continue;
            }
            between[std::uint64_t(std::min(a, b)) << 32 | std::max(a, b)] += g.weights[e];
        }
    }
    s.edges.reserve(between.size());
    for (const auto& [key, w] : between) {
        s.edges.push_back({std::uint32_t(key >> 32), std::uint32_t(key & 0xffffffffu), w});
        s.max_edge_weight = std::max(s.max_edge_weight, w);
    }
    std::sort(s.edges.begin(), s.edges.end(), [](const SuperGraph::Edge& x, const SuperGraph::Edge& y) {
        return x.a != y.a ? x.a < y.a : x.b < y.b;
    });
    return s;
}

std::vector<layout::Point2> community_centroids(std::span<const layout::Point2> positions,
                                                std::span<const std::uint32_t> membership,
                                                std::uint32_t count)
{
    std::vector<layout::Point2> sum(count);
    std::vector<std::uint32_t> n(count, 0);
    const std::size_t nodes = std::min(positions.size(), membership.size());
    for (std::size_t v = 0; v < nodes; ++v) {
        const std::uint32_t c = membership[v];
        if (c >= count) continue;
        sum[c].x += positions[v].x;
        sum[c].y += positions[v].y;
        ++n[c];
    }
    for (std::uint32_t c = 0; c < count; ++c)
        if (n[c]) sum[c] = {sum[c].x / n[c], sum[c].y / n[c]};
    return sum;
}

std::string CanvasScene::node_name(std::size_t v) const
{
    const netlist::Circuit& c = circuit();
    const std::int64_t id = graph().cell_of[v];
    if (id >= 0) return std::string(c.cell_name(c.cells[std::size_t(id)]));
    const netlist::Port& port = c.ports[std::size_t(-id - 1)];
    return std::string(c.names.view(port.name));
}

namespace {

/// The probability that each node's output net is 1, by the simulation `gsr labels` runs
/// (random vectors, or sequential runs for circuits with flip-flops), fewer samples for speed.
void simulate_signal_probability(CanvasScene& s, unsigned threads)
{
    try {
        const labels::NetStructure structure = labels::build_net_structure(s.circuit());
        labels::SimulationOptions o;
        o.threads = threads;
        if (structure.flip_flops > 0) {
            o.mode = labels::SimulationMode::Sequential;
            o.runs = 1024;
            o.cycles = 48;
            o.warmup = 8;
        } else {
            o.mode = labels::SimulationMode::Random;
            o.vectors = 8192;
        }
        const labels::LogicSimulator simulator(s.circuit(), structure);
        const labels::SimulationResult r = simulator.run(o);
        if (r.total == 0) throw Error("the simulation drew no samples");
        std::vector<float> p(s.node_count(), 0.0f);
        for (std::size_t v = 0; v < s.node_count(); ++v) {
            const std::int64_t id = s.graph().cell_of[v];
            netlist::NetId net = netlist::kNoNet;
            if (id >= 0) {
                const auto outs = structure.outputs(netlist::CellId(id));
                if (!outs.empty()) net = outs.front();
            } else {
                net = s.circuit().ports[std::size_t(-id - 1)].net;
            }
            if (net != netlist::kNoNet && net < r.ones.size())
                p[v] = float(double(r.ones[net]) / double(r.total));
        }
        s.signal_probability = std::move(p);
        s.signal_probability_note =
            (o.mode == labels::SimulationMode::Random ? std::to_string(o.vectors) +
                                                            " random vectors"
                                                      : std::to_string(o.runs) +
                                                            " sequential runs") +
            ", seed " + std::to_string(o.seed);
    } catch (const Error& e) {
        s.signal_probability.clear();
        s.signal_probability_note = e.what();
    }
}

/// Puts `communities` into the scene with the super-graph of the final partition and of each
/// level; false (the scene half made) once `cancelled()` says so.
template <class Cancelled>
bool set_communities(CanvasScene& s, community::CommunityResult communities,
                     const Cancelled& cancelled)
{
    s.communities = std::move(communities);
    s.super_graph = build_super_graph(s.undirected, s.communities.membership,
                                      s.communities.community_count);
    s.level_graphs.clear();
    for (std::size_t l = 0; l < s.communities.levels.size() && !cancelled(); ++l) {
        const community::CommunityLevel& level = s.communities.levels[l];
        s.level_graphs.push_back(l + 1 == s.communities.levels.size()
                                     ? s.super_graph
                                     : build_super_graph(s.undirected, level.membership,
                                                         level.community_count));
    }
    return !cancelled();
}

} // namespace

std::shared_ptr<const CanvasScene> build_canvas_scene(const std::string& path,
                                                      const SceneOptions& options)
{
    return build_canvas_scene(graph::load_circuit(path), options);
}

std::shared_ptr<const CanvasScene>
build_canvas_scene(std::shared_ptr<const graph::LoadedCircuit> loaded, const SceneOptions& options)
{
    auto cancelled = [&] { return options.cancel && options.cancel->load(); };
    auto s = std::make_shared<CanvasScene>();
    s->path = loaded->path;
    s->loaded = std::move(loaded);
    if (cancelled()) return nullptr;

    {
        // Ends before the detection, which keeps a pool of its own.
        community::WorkerPool pool(options.threads);
        s->undirected = community::project_undirected(s->graph(), &pool);
    }
    s->edge_nodes.reserve(s->undirected.entry_count());
    for (std::size_t u = 0; u < s->undirected.node_count(); ++u)
        for (std::uint64_t e = s->undirected.offsets[u]; e < s->undirected.offsets[u + 1]; ++e)
            if (s->undirected.targets[e] > u) {
                s->edge_nodes.push_back(std::uint32_t(u));
                s->edge_nodes.push_back(s->undirected.targets[e]);
            }

    community::CommunityOptions co;
    co.method = community::Method::Leiden;
    co.seed = options.community_seed;
    co.resolution = options.resolution;
    co.threads = options.threads;
    co.cancel = options.cancel;
    // Shared: the Communities panel asks the same of this circuit at its default settings.
    auto communities = detect_shared(s->loaded, &s->undirected, co);
    community::release_detection_memory(); // one detection per scene: keep no memory for more
    if (!communities) return nullptr;
    if (!set_communities(*s, std::move(*communities), cancelled)) return nullptr;

    if (options.simulate) simulate_signal_probability(*s, options.threads);
    s->placement = layout::placement_positions(
        s->circuit(), s->graph(), layout::default_extent(s->node_count()), options.layout_seed);
    if (cancelled()) return nullptr;
    return s;
}

std::shared_ptr<const CanvasScene> with_communities(const CanvasScene& scene,
                                                    community::CommunityResult communities,
                                                    community::Method method)
{
    if (communities.membership.size() != scene.node_count())
        throw std::invalid_argument("with_communities: a partition of " +
                                    std::to_string(communities.membership.size()) +
                                    " nodes for a scene of " + std::to_string(scene.node_count()));
    for (const community::CommunityLevel& level : communities.levels)
        if (level.membership.size() != scene.node_count())
            throw std::invalid_argument("with_communities: a level of another graph");
    auto s = std::make_shared<CanvasScene>(scene);
    s->community_method = method;
    set_communities(*s, std::move(communities), [] { return false; });
    return s;
}

} // namespace gsr::views::canvas
