#pragma once
// The aggregation operators of a graph, built on the host and copied into a backend's arena:
// mean over neighbours (sage, res, rev, gsr) or D^-1/2 (A+I) D^-1/2 (gcn), over fan-in and
// fan-out separately (directed: two operators) or over their union (one operator).
#include "nn/backend.hpp"
#include "nn/graph_input.hpp"

namespace gsr::nn {

struct AggregationOperators {
    DeviceGraph op[2];
    std::uint32_t terms = 0;
};

enum class Normalisation : std::uint8_t {
    Mean,      ///< row_scale 1/deg (0 for isolated rows), col_scale 1
    Symmetric, ///< GCN: self loops, (deg + 1)^-1/2 on both sides
};

/// Allocation order (see memory_model.cpp): directed: fan-in CSR, fan-out CSR, then per
/// operator row_scale, col_scale; undirected: the union CSR, then its two scales.
AggregationOperators upload_aggregation(Backend& backend, const GraphInput& graph,
                                        Normalisation normalisation, bool directed);

} // namespace gsr::nn
