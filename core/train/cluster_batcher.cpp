#include "train/cluster_batcher.hpp"

#include "util/diagnostics.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>

#ifdef GSR_HAVE_METIS
#include <metis.h>
#endif

namespace gsr::train {

bool cluster_batching_available()
{
#ifdef GSR_HAVE_METIS
    return true;
#else
    return false;
#endif
}

std::vector<std::uint32_t> metis_partition(const nn::GraphInput& g, std::uint32_t parts,
                                           std::uint64_t seed)
{
    const std::size_t n = g.node_count;
    std::vector<std::uint32_t> part(n, 0);
    if (parts <= 1 || n == 0) return part;
    if (n <= parts) {
        for (std::size_t v = 0; v < n; ++v) part[v] = static_cast<std::uint32_t>(v);
        return part;
    }
#ifdef GSR_HAVE_METIS
    // METIS counts in idx_t (32 bits in Debian's): each edge is two entries of its arrays.
    if (2 * g.edge_count() > std::uint64_t(std::numeric_limits<idx_t>::max()) ||
        n > std::uint64_t(std::numeric_limits<idx_t>::max()))
        throw Error("--batching cluster: METIS takes at most " +
                    std::to_string(std::numeric_limits<idx_t>::max() / 2) + " edges, this "
                    "circuit has " + std::to_string(g.edge_count()) +
                    "; use --batching commrand or random");
    // Symmetric adjacency without self loops, parallel and opposite edges merged into weights.
    std::vector<idx_t> xadj(n + 1, 0);
    for (std::size_t v = 0; v < n; ++v)
        for (std::uint64_t i = g.fanin_offsets[v]; i < g.fanin_offsets[v + 1]; ++i)
            if (g.fanin_targets[i] != v) {
                ++xadj[v + 1];
                ++xadj[g.fanin_targets[i] + 1];
            }
    for (std::size_t v = 0; v < n; ++v) xadj[v + 1] += xadj[v];
    std::vector<idx_t> all(static_cast<std::size_t>(xadj[n]));
    std::vector<idx_t> fill(xadj.begin(), xadj.end() - 1);
    for (std::size_t v = 0; v < n; ++v)
        for (std::uint64_t i = g.fanin_offsets[v]; i < g.fanin_offsets[v + 1]; ++i) {
            const std::uint32_t u = g.fanin_targets[i];
            if (u == v) continue;
            all[static_cast<std::size_t>(fill[v]++)] = static_cast<idx_t>(u);
            all[static_cast<std::size_t>(fill[u]++)] = static_cast<idx_t>(v);
        }
    std::vector<idx_t> offsets(n + 1, 0), adjncy, adjwgt;
    adjncy.reserve(all.size());
    adjwgt.reserve(all.size());
    for (std::size_t v = 0; v < n; ++v) {
        const auto b = all.begin() + xadj[v], e = all.begin() + xadj[v + 1];
        std::sort(b, e);
        for (auto it = b; it != e; ++it) {
            if (it != b && *it == *(it - 1)) {
                ++adjwgt.back();
                continue;
            }
            adjncy.push_back(*it);
            adjwgt.push_back(1);
        }
        offsets[v + 1] = static_cast<idx_t>(adjncy.size());
    }
    idx_t nv = static_cast<idx_t>(n), ncon = 1, np = static_cast<idx_t>(parts), cut = 0;
    idx_t options[METIS_NOPTIONS];
    METIS_SetDefaultOptions(options);
    options[METIS_OPTION_SEED] = static_cast<idx_t>(seed & 0x7fffffff);
    options[METIS_OPTION_NUMBERING] = 0;
    std::vector<idx_t> result(n, 0);
    // An empty adjacency array must still be a valid pointer.
    if (adjncy.empty()) {
        adjncy.push_back(0);
        adjwgt.push_back(1);
    }
    const int status = METIS_PartGraphKway(&nv, &ncon, offsets.data(), adjncy.data(), nullptr,
                                           nullptr, adjwgt.data(), &np, nullptr, nullptr,
                                           options, &cut, result.data());
    if (status != METIS_OK)
        throw Error("METIS could not partition the graph into " + std::to_string(parts) +
                    " parts (status " + std::to_string(status) + ")");
    for (std::size_t v = 0; v < n; ++v) part[v] = static_cast<std::uint32_t>(result[v]);
    return part;
#else
    (void)seed;
    throw Error("--batching cluster needs METIS, and this build has none: install Debian's "
                "libmetis-dev (installer/bootstrap.sh lists it) and configure again");
#endif
}

ClusterBatcher::ClusterBatcher(ClusterOptions options) : options_(options)
{
    if (options_.batch_size == 0) throw Error("--batch-size must be at least 1");
    if (options_.clusters_per_batch == 0)
        throw std::invalid_argument("ClusterBatcher: clusters_per_batch must be at least 1");
}

nlohmann::json ClusterBatcher::settings() const
{
    return {{"batch_size", options_.batch_size},
            {"clusters_per_batch", options_.clusters_per_batch},
            {"partition_seed", options_.seed}};
}

void ClusterBatcher::prepare(const Dataset& data)
{
    if (prepared_for_ == &data) return;
    if (!cluster_batching_available())
        throw Error("--batching cluster needs METIS, and this build has none: install "
                    "Debian's libmetis-dev (installer/bootstrap.sh lists it) and configure "
                    "again");
    clusters_.clear();
    sampler_.prepare(data);
    for (std::size_t c = 0; c < data.circuits.size(); ++c) {
        const CircuitData& circuit = data.circuits[c];
        const std::vector<std::uint32_t> train = circuit.nodes(Split::Train);
        if (train.empty()) continue;
        const double want = std::ceil(static_cast<double>(options_.clusters_per_batch) *
                                      static_cast<double>(train.size()) /
                                      static_cast<double>(options_.batch_size));
        const auto parts = static_cast<std::uint32_t>(
            std::min<double>(want, static_cast<double>(circuit.input.node_count)));
        std::vector<std::uint32_t> part;
        try {
            part = metis_partition(circuit.input, std::max(parts, 1u), options_.seed);
        } catch (const Error& e) { // name the circuit, and the flag that chose the parts
            if (!e.where().file.empty()) throw;
            throw Error(SourceLocation{circuit.name},
                        "--batching cluster: " + e.message() + ", the count --batch-size " +
                            std::to_string(options_.batch_size) +
                            " asks for: try another --batch-size");
        }
        const std::size_t first = clusters_.size();
        std::uint32_t top = 0;
        for (std::uint32_t p : part) top = std::max(top, p + 1);
        clusters_.resize(first + top);
        for (std::uint32_t k = 0; k < top; ++k)
            clusters_[first + k].circuit = static_cast<std::uint32_t>(c);
        for (std::size_t v = 0; v < part.size(); ++v) {
            Cluster& cl = clusters_[first + part[v]];
            cl.nodes.push_back(static_cast<std::uint32_t>(v));
            if (circuit.split[v] == Split::Train) cl.train.push_back(static_cast<std::uint32_t>(v));
        }
        // METIS may leave a part empty; an empty cluster is no batch.
        clusters_.erase(std::remove_if(clusters_.begin() + static_cast<std::ptrdiff_t>(first),
                                       clusters_.end(),
                                       [](const Cluster& cl) { return cl.nodes.empty(); }),
                        clusters_.end());
    }
    prepared_for_ = &data;
}

std::vector<Batch> ClusterBatcher::epoch_batches(const Dataset& data, SeededStream& random)
{
    prepare(data);
    std::vector<std::uint32_t> order(clusters_.size());
    for (std::size_t k = 0; k < order.size(); ++k) order[k] = static_cast<std::uint32_t>(k);
    random.shuffle(order);
    std::vector<Batch> batches;
    const std::size_t q = options_.clusters_per_batch;
    for (std::size_t start = 0; start < order.size(); start += q) {
        const std::size_t end = std::min(order.size(), start + q);
        std::map<std::uint32_t, BatchPart> by_circuit;
        for (std::size_t i = start; i < end; ++i) {
            const Cluster& cl = clusters_[order[i]];
            BatchPart& part = by_circuit[cl.circuit];
            part.circuit = cl.circuit;
            part.nodes.insert(part.nodes.end(), cl.train.begin(), cl.train.end());
            part.graph_nodes.insert(part.graph_nodes.end(), cl.nodes.begin(), cl.nodes.end());
        }
        Batch b;
        for (auto& [c, part] : by_circuit) {
            if (part.nodes.empty()) continue; // nothing to learn from in this circuit
            std::sort(part.nodes.begin(), part.nodes.end());
            std::sort(part.graph_nodes.begin(), part.graph_nodes.end());
            b.parts.push_back(std::move(part));
        }
        if (!b.parts.empty()) batches.push_back(std::move(b));
    }
    return batches;
}

bool ClusterBatcher::step_graph(const Dataset& data, const BatchPart& part, SeededStream&,
                                Subgraph& out)
{
    prepare(data);
    if (part.graph_nodes.empty()) return false;
    sampler_.induce(part.circuit, part.graph_nodes, part.nodes, out);
    return true;
}

} // namespace gsr::train
