#include "train/batcher.hpp"

#include "util/diagnostics.hpp"

#include <algorithm>

namespace gsr::train {

std::size_t Batch::node_count() const
{
    std::size_t n = 0;
    for (const BatchPart& p : parts) n += p.nodes.size();
    return n;
}

std::vector<Batch> FullGraphBatcher::epoch_batches(const Dataset& data, SeededStream&)
{
    Batch b;
    for (std::size_t c = 0; c < data.circuits.size(); ++c) {
        std::vector<std::uint32_t> nodes = data.circuits[c].nodes(Split::Train);
        if (!nodes.empty()) b.parts.push_back({c, std::move(nodes)});
    }
    return {std::move(b)};
}

RandomNodeBatcher::RandomNodeBatcher(std::size_t batch_size) : batch_size_(batch_size)
{
    if (batch_size == 0) throw Error("--batch: a random node batch needs at least one node");
}

std::vector<Batch> RandomNodeBatcher::epoch_batches(const Dataset& data, SeededStream& random)
{
    struct Node {
        std::uint32_t circuit, node;
    };
    std::vector<Node> all;
    for (std::size_t c = 0; c < data.circuits.size(); ++c)
        for (std::uint32_t v : data.circuits[c].nodes(Split::Train))
            all.push_back({static_cast<std::uint32_t>(c), v});
    random.shuffle(all);

    std::vector<Batch> batches;
    for (std::size_t start = 0; start < all.size(); start += batch_size_) {
        const std::size_t end = std::min(all.size(), start + batch_size_);
        // Group by circuit, nodes ascending: the order within a batch does not change the
        // gradient, and a fixed one keeps sums bit-identical.
        std::sort(all.begin() + static_cast<std::ptrdiff_t>(start),
                  all.begin() + static_cast<std::ptrdiff_t>(end), [](Node a, Node b) {
                      return a.circuit < b.circuit || (a.circuit == b.circuit && a.node < b.node);
                  });
        Batch b;
        for (std::size_t i = start; i < end; ++i) {
            if (b.parts.empty() || b.parts.back().circuit != all[i].circuit)
                b.parts.push_back({all[i].circuit, {}});
            b.parts.back().nodes.push_back(all[i].node);
        }
        batches.push_back(std::move(b));
    }
    return batches;
}

std::unique_ptr<Batcher> make_batcher(std::size_t batch_size)
{
    if (batch_size == 0) return std::make_unique<FullGraphBatcher>();
    return std::make_unique<RandomNodeBatcher>(batch_size);
}

} // namespace gsr::train
