#pragma once
// Mini-batch subgraphs: the graph a training step runs the model on when it does not run the
// whole circuit, either sampled around the batch's nodes (GraphSAGE neighbour sampling with
// COMM-RAND's intra-community bias) or induced by a set of nodes (ClusterGCN).
//
// Sampling. Hop h (0-based) takes up to fanouts[h] neighbours of every node first reached at
// hop h (the roots at hop 0), without replacement, in the undirected sense: a node's drivers
// and its sinks. Neighbour v of u weighs beta when v is in u's community, 1 otherwise (beta = 1:
// uniform). Every sampled edge is kept in its own direction, so the model's fan-in and fan-out
// operators see it as the circuit has it; the subgraph's nodes are every node reached.
//
// Exactness: with unlimited fan-outs and as many hops as the model passes messages
// (message_passing_hops), a root's output on the subgraph equals its output on the whole
// circuit for the mean-aggregating models (sage, res, rev, gsr): every node fewer than H hops
// out keeps all its edges, and a node H hops out contributes only its features. gcn's
// symmetric normalisation also reads the degree of the outermost nodes, which is then the
// sampled one.
//
// Fewer hops than the model has: the remaining layers pass messages inside the sampled
// subgraph, as ClusterGCN and GraphSAINT train deep models; the receptive field is what was
// sampled. (Repeating the last fan-out for every layer of a 16-block model would reach almost
// the whole circuit from any batch, which is the full-graph step at a higher price.)
//
// Numbering: subgraph nodes ascend with their circuit ids, so a community-contiguous circuit
// order stays contiguous in the subgraph and its feature gather reads neighbouring rows.
//
// Contents: kAllNeighbours, message_passing_hops, parse_fanouts, fanouts_text, Subgraph,
// SubgraphSampler.
#include "nn/model_config.hpp"
#include "train/dataset.hpp"

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace gsr::train {

/// A fan-out that takes every neighbour ("all" in --fanout).
inline constexpr std::uint32_t kAllNeighbours = 0xffffffffu;

/// Hops a model's output depends on: its layers for gcn, sage and res; layers x groups for rev
/// and gsr, whose groups aggregate one after another within a block (Y_i = X_i + f_i(Y_{i-1})).
std::uint32_t message_passing_hops(const nn::ModelConfig& model);

/// "10,5" or "25,all": one value per hop, each >= 1 or "all". gsr::Error naming --fanout.
std::vector<std::uint32_t> parse_fanouts(std::string_view text);
/// The inverse of parse_fanouts ("" for none).
std::string fanouts_text(std::span<const std::uint32_t> fanouts);

/// What a step runs on: a graph of its own, and which of its nodes enter the loss.
struct Subgraph {
    nn::GraphInput input;                  ///< compact ids, the data set's features
    std::vector<std::uint32_t> nodes;      ///< circuit node of each subgraph node, ascending
    std::vector<std::uint32_t> loss_nodes; ///< subgraph ids of the batch's nodes, in its order
};

/// Builds subgraphs of a data set's circuits. Keeps, per circuit used, its undirected
/// incidence and one scratch id per node (4 + 12 bytes per node and edge). Not thread-safe.
class SubgraphSampler {
public:
    /// Data set whose circuits the following calls name; clears what belonged to another one.
    void prepare(const Dataset& data);

    /// Samples around `roots` (distinct nodes of circuit `circuit`) with one fan-out per hop.
    /// `membership`: the community of each node of the circuit (may be empty when beta is 1).
    /// All randomness comes from `random`.
    void sample(std::size_t circuit, std::span<const std::uint32_t> roots,
                std::span<const std::uint32_t> fanouts, double beta,
                std::span<const std::uint32_t> membership, SeededStream& random, Subgraph& out);

    /// The subgraph `nodes` induce (every edge between two of them); `loss` must be among them.
    void induce(std::size_t circuit, std::span<const std::uint32_t> nodes,
                std::span<const std::uint32_t> loss, Subgraph& out);

private:
    struct Incidence {
        bool built = false;
        std::vector<std::uint64_t> offsets;   ///< per node: its incident edges (in, then out)
        std::vector<std::uint32_t> edge;      ///< fan-in CSR position of each incident edge
        std::vector<std::uint32_t> other;     ///< the node at the edge's other end
        std::vector<std::uint32_t> sink;      ///< per fan-in CSR position: its row
        std::vector<std::uint32_t> local;     ///< scratch: subgraph id, kNone outside
    };
    Incidence& incidence(std::size_t circuit);
    /// Numbers the reached nodes, builds the CSR of `edges_` and gathers features.
    void assemble(std::size_t circuit, std::span<const std::uint32_t> loss, Subgraph& out);

    const Dataset* data_ = nullptr;
    std::vector<Incidence> circuits_;
    // Scratch reused by every call.
    std::vector<std::uint32_t> reached_, frontier_, next_, edges_, pick_, intra_, inter_;
};

} // namespace gsr::train
