#pragma once
// What the graph canvas shows, computed off the UI thread and then read only: the circuit and
// its graph, the undirected edges drawn, the communities (Leiden, seed 1), the signal
// probability of each node (core/labels), the DEF placement when the file has one, and the
// community super-graph drawn at low detail. No Qt and no GL here, so it is testable alone.
//
//   CanvasScene            the data            build_canvas_scene   file -> scene
//                                              with_communities     scene + another partition
//   SuperGraph             one node per community, edges merged with summed weights
//   community_centroids    where each community's node goes, from the current positions
#include "community/community_detection.hpp"
#include "community/weighted_graph.hpp"
#include "graph/circuit_graph.hpp"
#include "layout/barnes_hut_tree.hpp"
#include "netlist/circuit.hpp"

#include <atomic>
#include <memory>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace gsr::views::canvas {

/// The graph of the communities of one partition.
struct SuperGraph {
    std::vector<std::uint32_t> sizes; ///< nodes per community
    struct Edge {
        std::uint32_t a = 0, b = 0; ///< a < b
        double weight = 0;          ///< total weight of the edges between them
    };
    std::vector<Edge> edges;            ///< sorted by (a, b)
    std::vector<double> internal;       ///< per community: weight of its inner edges
    double max_edge_weight = 0;

    std::size_t community_count() const { return sizes.size(); }
};

/// Merges the edges of `g` between communities of `membership` (ids < count).
SuperGraph build_super_graph(const community::WeightedGraph& g,
                             std::span<const std::uint32_t> membership, std::uint32_t count);

/// Mean position of each community's nodes (communities without nodes stay at the origin).
std::vector<layout::Point2> community_centroids(std::span<const layout::Point2> positions,
                                                std::span<const std::uint32_t> membership,
                                                std::uint32_t count);

struct CanvasScene {
    std::string path;
    /// The circuit and its graph, shared with whoever else read them (the window's load).
    std::shared_ptr<const graph::LoadedCircuit> loaded;
    const netlist::Circuit& circuit() const { return loaded->circuit; }
    const graph::CircuitGraph& graph() const { return loaded->graph; }
    community::WeightedGraph undirected;   ///< what communities and the layout work on
    std::vector<std::uint32_t> edge_nodes; ///< each undirected edge once: u, v, u, v, ...
    community::CommunityResult communities;
    community::Method community_method = community::Method::Leiden; ///< how they were found
    SuperGraph super_graph; ///< of communities.membership
    /// Of each level of communities.levels (finest first, the last is super_graph's), for
    /// the canvas's finer levels of detail; empty when the scene was not built with them.
    std::vector<SuperGraph> level_graphs;

    std::vector<float> signal_probability; ///< per node; empty when it could not be simulated
    std::string signal_probability_note;   ///< why it is missing, else how it was made
    std::vector<layout::Point2> placement; ///< per node from DEF; empty without placement

    std::size_t node_count() const { return graph().node_count(); }
    std::size_t edge_count() const { return edge_nodes.size() / 2; }
    /// The instance name of a cell, the port name of a primary input.
    std::string node_name(std::size_t v) const;
    /// The cell type ("PI" for primary inputs).
    const std::string& node_type(std::size_t v) const
    {
        return graph().type_names[graph().type[v]];
    }
};

struct SceneOptions {
    std::uint64_t community_seed = 1;
    double resolution = 1.0;
    std::uint64_t layout_seed = 1; ///< jitter of the placement positions
    bool simulate = true;          ///< signal probability (random or sequential simulation)
    unsigned threads = 0;          ///< 0: one per hardware thread
    const std::atomic<bool>* cancel = nullptr;
};

/// Reads `path` and computes everything the canvas shows. Throws gsr::Error for a file that
/// cannot be read or a graph without edges; returns null when `options.cancel` was set.
std::shared_ptr<const CanvasScene> build_canvas_scene(const std::string& path,
                                                      const SceneOptions& options = {});
/// The same from a circuit read already (the window's load): the file is not read again.
std::shared_ptr<const CanvasScene>
build_canvas_scene(std::shared_ptr<const graph::LoadedCircuit> loaded,
                   const SceneOptions& options = {});

/// A copy of `scene` whose communities are `communities` (a partition of its nodes found by
/// `method`), their super-graphs built again: the canvas shows it in place of the scene without
/// moving a node. Throws std::invalid_argument when the partition is not of the scene's nodes.
std::shared_ptr<const CanvasScene> with_communities(const CanvasScene& scene,
                                                    community::CommunityResult communities,
                                                    community::Method method);

} // namespace gsr::views::canvas
