#include "nn/graph_input.hpp"

#include "graph/circuit_graph.hpp"
#include "util/diagnostics.hpp"

#include <cmath>
#include <string>

namespace gsr::nn {

GraphInput GraphInput::from_circuit(const graph::CircuitGraph& graph)
{
    GraphInput g;
    g.node_count = graph.node_count();
    g.fanin_offsets = graph.fanin.offsets;
    g.fanin_targets = graph.fanin.targets;
    g.features = graph.features();
    g.feature_count = graph.feature_count();
    // Columns: type one-hot, fan-in, fan-out, PI, PO, flip-flop.
    const std::size_t fanin_column = graph.type_names.size();
    for (std::size_t v = 0; v < g.node_count; ++v)
        for (std::size_t c = fanin_column; c < fanin_column + 2; ++c) {
            float& x = g.features[v * g.feature_count + c];
            x = std::log1p(std::max(x, 0.0f));
        }
    return g;
}

void GraphInput::check() const
{
    if (node_count > 0xFFFFFFFFull) throw Error("graph: more than 2^32 - 1 nodes");
    if (fanin_offsets.size() != node_count + 1)
        throw Error("graph: fan-in offsets have " + std::to_string(fanin_offsets.size()) +
                    " entries for " + std::to_string(node_count) + " nodes");
    if (fanin_offsets.front() != 0 || fanin_offsets.back() != fanin_targets.size())
        throw Error("graph: fan-in offsets do not span the targets");
    for (std::size_t v = 0; v < node_count; ++v)
        if (fanin_offsets[v] > fanin_offsets[v + 1])
            throw Error("graph: fan-in offsets decrease at node " + std::to_string(v));
    for (std::uint32_t t : fanin_targets)
        if (t >= node_count) throw Error("graph: edge to node " + std::to_string(t) + " of " +
                                         std::to_string(node_count));
    if (features.size() != node_count * feature_count)
        throw Error("graph: " + std::to_string(features.size()) + " feature values for " +
                    std::to_string(node_count) + " nodes x " + std::to_string(feature_count));
}

std::vector<std::uint32_t> nodes_from_mask(const std::vector<std::uint8_t>& mask)
{
    std::vector<std::uint32_t> nodes;
    for (std::size_t i = 0; i < mask.size(); ++i)
        if (mask[i]) nodes.push_back(std::uint32_t(i));
    return nodes;
}

} // namespace gsr::nn
