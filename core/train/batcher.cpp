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
        if (!nodes.empty()) b.parts.push_back({c, std::move(nodes), {}});
    }
    return {std::move(b)};
}

std::vector<Batch> cut_into_batches(std::vector<NodeRef>& all, std::size_t batch_size)
{
    std::vector<Batch> batches;
    for (std::size_t start = 0; start < all.size(); start += batch_size) {
        const std::size_t end = std::min(all.size(), start + batch_size);
        // Group by circuit, nodes ascending: the order within a batch does not change the
        // gradient, and a fixed one keeps sums bit-identical.
        std::sort(all.begin() + static_cast<std::ptrdiff_t>(start),
                  all.begin() + static_cast<std::ptrdiff_t>(end), [](NodeRef a, NodeRef b) {
                      return a.circuit < b.circuit || (a.circuit == b.circuit && a.node < b.node);
                  });
        Batch b;
        for (std::size_t i = start; i < end; ++i) {
            if (b.parts.empty() || b.parts.back().circuit != all[i].circuit)
                b.parts.push_back({all[i].circuit, {}, {}});
            b.parts.back().nodes.push_back(all[i].node);
        }
        batches.push_back(std::move(b));
    }
    return batches;
}

void check_fanouts(std::span<const std::uint32_t> fanouts, const nn::ModelConfig& model)
{
    const std::uint32_t hops = message_passing_hops(model);
    if (fanouts.size() > hops)
        throw Error("--fanout: " + std::to_string(fanouts.size()) + " hops (" +
                    fanouts_text(fanouts) + "), but the " +
                    std::string(nn::model_kind_name(model.kind)) +
                    " model passes messages over " + std::to_string(hops) +
                    "; give at most " + std::to_string(hops) + " values");
}

RandomNodeBatcher::RandomNodeBatcher(std::size_t batch_size, std::vector<std::uint32_t> fanouts)
    : batch_size_(batch_size), fanouts_(std::move(fanouts))
{
    if (batch_size == 0) throw Error("--batch: a random node batch needs at least one node");
}

std::vector<Batch> RandomNodeBatcher::epoch_batches(const Dataset& data, SeededStream& random)
{
    std::vector<NodeRef> all;
    for (std::size_t c = 0; c < data.circuits.size(); ++c)
        for (std::uint32_t v : data.circuits[c].nodes(Split::Train))
            all.push_back({static_cast<std::uint32_t>(c), v});
    random.shuffle(all);
    return cut_into_batches(all, batch_size_);
}

nlohmann::json RandomNodeBatcher::settings() const
{
    // Without fan-outs the batcher is the one runs recorded before sampling existed.
    if (fanouts_.empty()) return nullptr;
    return {{"fanout", fanouts_text(fanouts_)}};
}

void RandomNodeBatcher::check(const nn::ModelConfig& model) const
{
    check_fanouts(fanouts_, model);
}

void RandomNodeBatcher::prepare(const Dataset& data)
{
    if (!fanouts_.empty()) sampler_.prepare(data);
}

bool RandomNodeBatcher::step_graph(const Dataset& data, const BatchPart& part,
                                   SeededStream& random, Subgraph& out)
{
    if (fanouts_.empty()) return false;
    sampler_.prepare(data);
    sampler_.sample(part.circuit, part.nodes, fanouts_, 1.0, {}, random, out);
    return true;
}

std::unique_ptr<Batcher> make_batcher(std::size_t batch_size)
{
    if (batch_size == 0) return std::make_unique<FullGraphBatcher>();
    return std::make_unique<RandomNodeBatcher>(batch_size);
}

} // namespace gsr::train
