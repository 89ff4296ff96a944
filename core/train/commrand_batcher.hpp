#pragma once
// COMM-RAND: community-structure-aware randomised mini-batching (arXiv 2504.18082), as
// reconstructed in shared/reference/ALGORITHMS.md section 3, and the node renumbering it
// relies on.
//
// Pre-processing (prepare_communities): communities by Leiden (or Louvain) on every circuit
// with training nodes, and the circuit renumbered so that each community is one run of
// consecutive ids (graph, model input, targets and splits together). RCM and the original
// order are the alternatives for comparison.
//
// Root batching, alpha in [0, 1]: each epoch every training node goes to the community pool
// with probability alpha, else to the random pool. The community pool is ordered by a shuffled
// order of the communities with the nodes shuffled inside each; the random pool is shuffled.
// Each batch takes ceil(alpha B) nodes from the community pool and the rest from the random
// pool (from the other pool once one runs out), so every training node is in exactly one batch
// of the epoch. alpha = 0 draws exactly what RandomNodeBatcher draws from the same stream;
// alpha = 1 gives community-contiguous batches.
//
// Neighbour sampling, beta >= 1: with fan-outs, neighbour v of u is sampled with weight beta
// when it shares u's community, 1 otherwise (train/subgraph_sampler.hpp). beta = 1 is uniform.
// Without fan-outs each step runs the whole circuit with the loss on the batch (beta unused).
//
// Contents: NodeOrderKind, CommunityPlan, PreparedCommunities, reorder_input,
// reorder_circuit, prepare_communities, CommRandOptions, CommRandBatcher.
#include "community/community_detection.hpp"
#include "community/node_order.hpp"
#include "train/batcher.hpp"

#include <string_view>

namespace gsr::train {

enum class NodeOrderKind : std::uint8_t {
    Original,  ///< as the netlist gave them
    Community, ///< each community contiguous (community::community_order)
    Rcm,       ///< reverse Cuthill-McKee of the undirected graph
};
std::string_view node_order_name(NodeOrderKind kind); ///< "original", "community", "rcm"
/// gsr::Error naming --order and the allowed values.
NodeOrderKind parse_node_order(std::string_view name);

struct CommunityPlan {
    community::Method method = community::Method::Leiden;
    double resolution = 1.0;
    std::uint64_t seed = 1;
    unsigned threads = 0; ///< 0: one per hardware thread
    NodeOrderKind order = NodeOrderKind::Community;
    /// Detect communities even when the order does not need them (COMM-RAND needs them).
    bool detect = true;
};

struct PreparedCommunities {
    /// Per circuit: the community of each node in the new numbering; empty for circuits
    /// without training nodes (they are neither detected nor renumbered).
    std::vector<std::vector<std::uint32_t>> membership;
    /// Per circuit: the renumbering applied (the identity where none was).
    std::vector<community::NodeOrder> orders;
    std::vector<std::uint32_t> community_count; ///< per circuit, 0 where not detected
    std::vector<double> modularity;             ///< per circuit
    double seconds = 0;                         ///< detection and renumbering, wall time
};

/// Renumbers a model input's nodes (fan-in CSR and feature rows). Node new is old node
/// order.old_of_new[new]; edge order within each row is kept.
void reorder_input(nn::GraphInput& input, const community::NodeOrder& order);

/// Renumbers one circuit's nodes: graph, model input, targets, splits, as reorder_input.
void reorder_circuit(CircuitData& circuit, const community::NodeOrder& order);

/// Detects communities of the circuits with training nodes (when plan.detect or the order
/// needs them) and renumbers those circuits in plan.order. Deterministic for a seed.
PreparedCommunities prepare_communities(Dataset& data, const CommunityPlan& plan);

struct CommRandOptions {
    std::size_t batch_size = 1024; ///< training nodes per step (the last may be smaller)
    double alpha = 0.5;            ///< community share of each batch, in [0, 1]
    double beta = 1.0;             ///< intra-community sampling weight, 1 to kMaxBeta
    std::vector<std::uint32_t> fanouts; ///< per hop; empty: whole-circuit steps
};

/// The largest beta: an intra-community neighbour is then all but certain at any degree.
inline constexpr double kMaxBeta = 1e6;

/// ceil(alpha B): the nodes of each batch drawn from the community pool.
std::size_t community_nodes_per_batch(double alpha, std::size_t batch_size);

/// Throws gsr::Error naming --batch-size, --alpha, --beta or --fanout.
void validate(const CommRandOptions& options);

class CommRandBatcher final : public Batcher {
public:
    /// `membership`: per circuit, as prepare_communities returns it (it must cover every
    /// circuit with training nodes).
    CommRandBatcher(CommRandOptions options, std::vector<std::vector<std::uint32_t>> membership);

    std::vector<Batch> epoch_batches(const Dataset& data, SeededStream& random) override;
    std::string name() const override { return "commrand"; }
    nlohmann::json settings() const override;
    void check(const nn::ModelConfig& model) const override;
    void prepare(const Dataset& data) override;
    bool step_graph(const Dataset& data, const BatchPart& part, SeededStream& random,
                    Subgraph& out) override;

    const CommRandOptions& options() const { return options_; }

private:
    CommRandOptions options_;
    std::vector<std::vector<std::uint32_t>> membership_;
    SubgraphSampler sampler_;
};

} // namespace gsr::train
