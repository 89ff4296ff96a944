#pragma once
// Which training nodes each optimiser step of an epoch uses. The trainer asks a Batcher for an
// epoch's batches and runs one Adam step per batch; a batch may span several circuits (their
// gradients are summed, weighted by their share of the batch's nodes).
//
// FullGraphBatcher: one step per epoch over every training node. RandomNodeBatcher: the
// training nodes of all circuits shuffled and cut into batches of B. A community-aware batcher
// (COMM-RAND) implements the same interface.
#include "train/dataset.hpp"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace gsr::train {

/// Training nodes of one circuit within a batch, ascending.
struct BatchPart {
    std::size_t circuit = 0;
    std::vector<std::uint32_t> nodes;
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
};

class FullGraphBatcher final : public Batcher {
public:
    std::vector<Batch> epoch_batches(const Dataset& data, SeededStream& random) override;
    std::string name() const override { return "full"; }
};

class RandomNodeBatcher final : public Batcher {
public:
    /// `batch_size` > 0: training nodes per step (the last batch of an epoch may be smaller).
    explicit RandomNodeBatcher(std::size_t batch_size);
    std::vector<Batch> epoch_batches(const Dataset& data, SeededStream& random) override;
    std::string name() const override { return "random"; }

private:
    std::size_t batch_size_;
};

/// batch_size 0: full graph; otherwise random node batches.
std::unique_ptr<Batcher> make_batcher(std::size_t batch_size);

} // namespace gsr::train
