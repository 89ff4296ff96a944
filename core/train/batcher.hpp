#pragma once
// Which training nodes each optimiser step of an epoch uses. The trainer asks a Batcher for an
// epoch's batches and runs one Adam step per batch; a batch may span several circuits (their
// gradients are summed, weighted by their share of the batch's nodes).
//
// FullGraphBatcher: one step per epoch over every training node. RandomNodeBatcher: the
// training nodes of all circuits shuffled and cut into batches of B. The community-aware
// batcher (COMM-RAND, train/commrand_batcher.hpp) and the ClusterGCN baseline
// (train/cluster_batcher.hpp) implement the same interface.
//
// What a step runs on: by default the whole circuit of each part, with the loss restricted to
// the part's nodes (exactly the batch's full neighbourhood). A batcher with fan-outs returns a
// sampled subgraph from step_graph instead (train/subgraph_sampler.hpp), the cluster batcher
// the subgraph its partitions induce; the trainer then runs forward and backward on that only.
#include "train/dataset.hpp"
#include "train/subgraph_sampler.hpp"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace gsr::train {

/// Training nodes of one circuit within a batch, ascending.
struct BatchPart {
    std::size_t circuit = 0;
    std::vector<std::uint32_t> nodes;
    /// Induced-subgraph batchers (cluster): every node of the step's graph, ascending, the
    /// loss nodes among them. Empty otherwise.
    std::vector<std::uint32_t> graph_nodes;
};

/// One optimiser step: parts in ascending circuit order, each circuit at most once.
struct Batch {
    std::vector<BatchPart> parts;

    std::size_t node_count() const;
};

class Batcher {
public:
    virtual ~Batcher() = default;
    /// The batches of the next epoch. All randomness must come from `random`: its state is
    /// checkpointed, which makes a resumed run draw the same batches as an uninterrupted one.
    virtual std::vector<Batch> epoch_batches(const Dataset& data, SeededStream& random) = 0;
    /// "full", "random", ...: recorded with the run.
    virtual std::string name() const = 0;

    /// Knobs beyond name() that change what an epoch computes (alpha, fan-outs, ...): part of
    /// the settings a checkpoint must match. Null when there are none.
    virtual nlohmann::json settings() const { return nullptr; }
    /// Throws gsr::Error naming the flag when the batcher cannot train this model (more
    /// fan-outs than the model has hops, say). Trainer::set_batcher calls it.
    virtual void check(const nn::ModelConfig& /*model*/) const {}
    /// Called by the trainer before the first epoch: per-data-set preparation (partitions,
    /// incidence lists). Batchers also call it themselves when given another data set.
    virtual void prepare(const Dataset& /*data*/) {}
    /// The graph the step runs `part` on. false: the part's whole circuit, with the loss on
    /// part.nodes. true: `out` holds the subgraph and its loss nodes. Randomness from `random`.
    virtual bool step_graph(const Dataset& /*data*/, const BatchPart& /*part*/,
                            SeededStream& /*random*/, Subgraph& /*out*/)
    {
        return false;
    }
};

class FullGraphBatcher final : public Batcher {
public:
    std::vector<Batch> epoch_batches(const Dataset& data, SeededStream& random) override;
    std::string name() const override { return "full"; }
};

class RandomNodeBatcher final : public Batcher {
public:
    /// `batch_size` > 0: training nodes per step (the last batch of an epoch may be smaller).
    /// `fanouts`: one per hop for uniform neighbour sampling; none: each step runs the whole
    /// circuit (the batch's complete neighbourhood).
    explicit RandomNodeBatcher(std::size_t batch_size, std::vector<std::uint32_t> fanouts = {});
    std::vector<Batch> epoch_batches(const Dataset& data, SeededStream& random) override;
    std::string name() const override { return "random"; }
    nlohmann::json settings() const override;
    void check(const nn::ModelConfig& model) const override;
    void prepare(const Dataset& data) override;
    bool step_graph(const Dataset& data, const BatchPart& part, SeededStream& random,
                    Subgraph& out) override;

private:
    std::size_t batch_size_;
    std::vector<std::uint32_t> fanouts_;
    SubgraphSampler sampler_;
};

/// Shared by the batchers: training nodes of all circuits as (circuit, node), shuffled, cut
/// into batches of `batch_size` grouped by circuit with nodes ascending.
struct NodeRef {
    std::uint32_t circuit, node;
};
std::vector<Batch> cut_into_batches(std::vector<NodeRef>& sequence, std::size_t batch_size);

/// gsr::Error naming --fanout when there are more fan-outs than `model` has hops.
void check_fanouts(std::span<const std::uint32_t> fanouts, const nn::ModelConfig& model);

/// batch_size 0: full graph; otherwise random node batches.
std::unique_ptr<Batcher> make_batcher(std::size_t batch_size);

} // namespace gsr::train
