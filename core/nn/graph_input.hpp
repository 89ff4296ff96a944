#pragma once
// What a model needs of a graph: the fan-in CSR and a feature matrix. Plain host data; the model
// copies it into its backend's arena (bind_graph).
#include <cstddef>
#include <cstdint>
#include <vector>

namespace gsr::graph {
class CircuitGraph;
}

namespace gsr::nn {

struct GraphInput {
    std::size_t node_count = 0;
    /// Fan-in CSR: the drivers of node v are fanin_targets[fanin_offsets[v] .. [v+1]).
    std::vector<std::uint64_t> fanin_offsets;
    std::vector<std::uint32_t> fanin_targets;
    /// Row-major node_count x feature_count.
    std::vector<float> features;
    std::size_t feature_count = 0;

    std::size_t edge_count() const { return fanin_targets.size(); }

    /// The graph of a circuit, with CircuitGraph::features() whose fan-in and fan-out columns
    /// are replaced by log(1 + count), so one scale fits every circuit.
    static GraphInput from_circuit(const graph::CircuitGraph& graph);

    /// Throws gsr::Error when the arrays disagree (sizes, offsets, targets out of range).
    void check() const;
};

/// Sizes that decide memory: nodes N, directed edges E, features F.
struct GraphShape {
    std::size_t nodes = 0;
    std::size_t edges = 0;
    std::size_t features = 0;
};

inline GraphShape shape_of(const GraphInput& g)
{
    return {g.node_count, g.edge_count(), g.feature_count};
}

/// The indices where mask[i] != 0, ascending: a node list for Model::accumulate_gradients.
std::vector<std::uint32_t> nodes_from_mask(const std::vector<std::uint8_t>& mask);

} // namespace gsr::nn
