#pragma once
// Memory of a model on a graph, layer by layer: the analytic model. A Model lays its arena out
// with these same numbers, so analytic_peak_bytes is what the arena reserves and the measured
// high-water mark (Model::measured_peak_bytes) can be held against it. After a training step a
// Model also reports measured rows (MemoryReport::measured_layers, Model::measured_layers):
// what the arena actually handed out per layer, on CPU and CUDA backends alike (both use
// nn::Arena).
#include "nn/graph_input.hpp"
#include "nn/model_config.hpp"

#include <nlohmann/json_fwd.hpp>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace gsr::nn {

/// One row of the report. Bytes include the arena's 64-byte alignment of every allocation.
struct LayerMemory {
    std::string name;                  ///< "encoder", "layer 0" .. "layer L-1", "head"
    std::size_t parameter_bytes = 0;
    std::size_t gradient_bytes = 0;
    std::size_t optimizer_bytes = 0;   ///< Adam's two moments
    std::size_t activation_bytes = 0;  ///< kept from the forward pass to the backward pass
    std::size_t workspace_bytes = 0;   ///< transient, while this layer runs (reused by the next)
    /// gsr: the compressed top-k activation of one group, N * k * (value + 1 index byte)
    std::size_t compressed_bytes = 0;
};

struct MemoryReport {
    std::vector<LayerMemory> layers;
    std::size_t graph_bytes = 0;       ///< CSR operators, degree scales, features, targets
    std::size_t buffer_bytes = 0;      ///< activation/gradient buffers shared by all layers
    std::size_t parameter_bytes = 0;   ///< totals over the layers
    std::size_t gradient_bytes = 0;
    std::size_t optimizer_bytes = 0;
    std::size_t activation_bytes = 0;
    std::size_t max_workspace_bytes = 0;
    std::size_t persistent_bytes = 0;  ///< everything but the workspace (in the arena)
    /// Gradients and Adam moments kept in the backend's host block (offload_optimizer); not
    /// part of persistent_bytes or the peak.
    std::size_t host_bytes = 0;
    std::size_t analytic_peak_bytes = 0;
    std::size_t measured_peak_bytes = 0; ///< the arena's high-water mark; 0 when not measured
    std::size_t parameter_count = 0;
    /// Measured in the arena during a training step, one row per row of `layers` (same names);
    /// empty when not measured. compressed_bytes is not measured (0): the top-k rows live in
    /// the shared block scratch and count as workspace.
    std::vector<LayerMemory> measured_layers;
};

/// Raises `into` to the row-wise maximum with `from` (a high-water mark over several graphs,
/// as a trainer keeps the peak over every binding). An empty `into` becomes `from`; rows of a
/// different count replace it (another model).
void merge_measured_layers(std::vector<LayerMemory>& into, const std::vector<LayerMemory>& from);

/// Rows per chunk of a deep model's head: its LayerNorm and ReLU outputs are recomputed in
/// the backward pass a quarter of the graph at a time instead of being kept.
inline std::uint32_t head_chunk_rows(std::uint32_t nodes)
{
    // In 64 bits: nodes + 3 wrapped to a small count from 2^32 - 3 on.
    return nodes < 4 ? 1 : static_cast<std::uint32_t>((std::uint64_t(nodes) + 3) / 4);
}

/// The analytic model of a training step (forward, backward, Adam) of `config` on a graph of
/// `shape`, with the CPU backend's reduction scratch. Throws gsr::Error on a bad config, or
/// when the step would need more than 2^58 bytes (the sums would overflow 64 bits).
MemoryReport estimate_memory(const ModelConfig& config, const GraphShape& shape);

/// JSON text of a report: one object, the per-layer rows in "rows" and, when measured, the
/// measured rows in "measured_rows" (older readers ignore the key).
std::string memory_report_json(const ModelConfig& config, const GraphShape& shape,
                               const MemoryReport& report);
/// The measured rows as a JSON array (name and the five byte counts per row), and back;
/// reading skips what is not a row object and takes missing counts as 0.
nlohmann::ordered_json measured_rows_json(const std::vector<LayerMemory>& rows);
std::vector<LayerMemory> measured_rows_from_json(const nlohmann::json& rows);

} // namespace gsr::nn
