#pragma once
// The ClusterGCN baseline (Chiang et al., KDD 2019): every circuit with training nodes is cut
// once into METIS k-way partitions of its undirected graph; each epoch the partitions of all
// circuits are shuffled and taken `clusters_per_batch` at a time, and a step runs on the
// subgraph those partitions induce (edges between the chosen partitions kept), with the loss
// on their training nodes. Every training node is in exactly one batch of the epoch.
//
// Partition count per circuit: ceil(clusters_per_batch x training nodes / batch_size), so a
// batch holds about batch_size training nodes. The partition is computed once (prepare), from
// its own seed: it is part of the pre-processing, not of the epoch's randomness.
//
// METIS (Debian libmetis-dev) is optional at build time: without it cluster_batching_available()
// is false and prepare() throws gsr::Error saying so.
#include "train/batcher.hpp"

namespace gsr::train {

/// Whether this build links METIS.
bool cluster_batching_available();

struct ClusterOptions {
    std::size_t batch_size = 1024;          ///< training nodes per step, on average
    std::uint32_t clusters_per_batch = 4;   ///< ClusterGCN's q
    std::uint64_t seed = 1;                 ///< METIS's seed
};

/// METIS k-way partition of the undirected graph of `input` (edge weights: the number of
/// edges between two nodes in either direction) into `parts` parts, each node's part id.
/// parts = 1, or a graph of no more nodes than parts, needs no METIS.
std::vector<std::uint32_t> metis_partition(const nn::GraphInput& input, std::uint32_t parts,
                                           std::uint64_t seed);

class ClusterBatcher final : public Batcher {
public:
    explicit ClusterBatcher(ClusterOptions options);

    std::vector<Batch> epoch_batches(const Dataset& data, SeededStream& random) override;
    std::string name() const override { return "cluster"; }
    nlohmann::json settings() const override;
    void prepare(const Dataset& data) override;
    bool step_graph(const Dataset& data, const BatchPart& part, SeededStream& random,
                    Subgraph& out) override;

    /// Partitions over all circuits (after prepare).
    std::size_t partition_count() const { return clusters_.size(); }

private:
    struct Cluster {
        std::uint32_t circuit = 0;
        std::vector<std::uint32_t> nodes; ///< ascending
        std::vector<std::uint32_t> train; ///< its training nodes, ascending
    };
    ClusterOptions options_;
    const Dataset* prepared_for_ = nullptr;
    std::vector<Cluster> clusters_;
    SubgraphSampler sampler_;
};

} // namespace gsr::train
