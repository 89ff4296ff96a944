#include "train/commrand_batcher.hpp"

#include "util/diagnostics.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>

namespace gsr::train {

namespace {

template <class T>
void permute(std::vector<T>& values, const community::NodeOrder& order)
{
    values = community::apply_order(std::span<const T>(values), order);
}

bool has_training_nodes(const CircuitData& c)
{
    return std::find(c.split.begin(), c.split.end(), Split::Train) != c.split.end();
}

} // namespace

std::string_view node_order_name(NodeOrderKind kind)
{
    switch (kind) {
    case NodeOrderKind::Original: return "original";
    case NodeOrderKind::Community: return "community";
    case NodeOrderKind::Rcm: return "rcm";
    }
    return "?";
}

NodeOrderKind parse_node_order(std::string_view name)
{
    if (name == "original") return NodeOrderKind::Original;
    if (name == "community") return NodeOrderKind::Community;
    if (name == "rcm") return NodeOrderKind::Rcm;
    throw Error("--order: unknown node order '" + std::string(name) +
                "' (allowed: community, rcm, original)");
}

void reorder_input(nn::GraphInput& input, const community::NodeOrder& order)
{
    const std::size_t n = input.node_count;
    if (order.size() != n)
        throw std::logic_error("reorder_input: the order has another node count");
    graph::Csr fanin{std::move(input.fanin_offsets), std::move(input.fanin_targets), {}};
    fanin = community::apply_order(fanin, order);
    input.fanin_offsets = std::move(fanin.offsets);
    input.fanin_targets = std::move(fanin.targets);
    const std::size_t f = input.feature_count;
    std::vector<float> features(input.features.size());
    for (std::size_t v = 0; v < n; ++v)
        std::copy_n(input.features.begin() + static_cast<std::ptrdiff_t>(order.old_of_new[v] * f),
                    f, features.begin() + static_cast<std::ptrdiff_t>(v * f));
    input.features = std::move(features);
}

void reorder_circuit(CircuitData& c, const community::NodeOrder& order)
{
    const std::size_t n = c.input.node_count;
    if (order.size() != n || c.graph.node_count() != n)
        throw std::logic_error("reorder_circuit: the order has another node count");
    graph::CircuitGraph& g = c.graph;
    g.fanout = community::apply_order(g.fanout, order);
    g.fanin = community::apply_order(g.fanin, order);
    permute(g.flags, order);
    permute(g.type, order);
    permute(g.cell_of, order);
    if (g.level.size() == n) permute(g.level, order);
    if (g.reverse_level.size() == n) permute(g.reverse_level, order);

    reorder_input(c.input, order);
    permute(c.target, order);
    permute(c.has_target, order);
    permute(c.split, order);
    // Node new was node old_of_new[new] of this numbering, itself file_node[old] of the file.
    std::vector<std::uint32_t> file(n);
    for (std::size_t v = 0; v < n; ++v)
        file[v] = c.file_node.empty() ? order.old_of_new[v] : c.file_node[order.old_of_new[v]];
    c.file_node = std::move(file);
}

PreparedCommunities prepare_communities(Dataset& data, const CommunityPlan& plan)
{
    const auto start = std::chrono::steady_clock::now();
    PreparedCommunities out;
    const std::size_t circuits = data.circuits.size();
    out.membership.resize(circuits);
    out.community_count.assign(circuits, 0);
    out.modularity.assign(circuits, 0.0);
    out.orders.resize(circuits);
    for (std::size_t c = 0; c < circuits; ++c)
        out.orders[c] = community::original_order(data.circuits[c].input.node_count);
    const bool detect = plan.detect || plan.order == NodeOrderKind::Community;
    for (std::size_t c = 0; c < circuits; ++c) {
        CircuitData& circuit = data.circuits[c];
        if (!has_training_nodes(circuit)) continue;
        const community::WeightedGraph g = community::project_undirected(circuit.graph);
        const std::size_t n = g.node_count();
        std::vector<std::uint32_t> membership;
        std::optional<community::CommunityResult> found;
        if (detect) {
            if (g.entry_count() == 0) {
                // Detection needs an edge; without one every node is its own community.
                membership.resize(n);
                for (std::size_t v = 0; v < n; ++v) membership[v] = std::uint32_t(v);
                out.community_count[c] = static_cast<std::uint32_t>(n);
            } else {
                community::CommunityOptions o;
                o.method = plan.method;
                o.resolution = plan.resolution;
                o.seed = plan.seed;
                o.threads = plan.threads;
                found = community::detect_communities(g, o);
                community::release_detection_memory(); // once per data set: keep nothing
                membership = found->membership;
                out.community_count[c] = found->community_count;
                out.modularity[c] = found->modularity;
            }
        }
        community::NodeOrder order;
        switch (plan.order) {
        case NodeOrderKind::Original: order = community::original_order(n); break;
        case NodeOrderKind::Community:
            order = found ? community::community_order(*found)
                          : community::community_order(membership);
            break;
        case NodeOrderKind::Rcm: order = community::rcm_order(g); break;
        }
        if (plan.order != NodeOrderKind::Original) reorder_circuit(circuit, order);
        if (detect)
            out.membership[c] =
                community::apply_order(std::span<const std::uint32_t>(membership), order);
        out.orders[c] = std::move(order);
    }
    out.seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return out;
}

std::size_t community_nodes_per_batch(double alpha, std::size_t batch_size)
{
    // A product meant whole (0.07 x 100 is 7.000000000000001) is not rounded up past it.
    const double share = alpha * static_cast<double>(batch_size);
    return std::min(batch_size, static_cast<std::size_t>(std::ceil(share - 1e-9 * share)));
}

void validate(const CommRandOptions& o)
{
    if (o.batch_size == 0) throw Error("--batch-size must be at least 1");
    if (!(o.alpha >= 0.0 && o.alpha <= 1.0))
        throw Error("--alpha must be in [0, 1] (the community share of each batch)");
    // At most 1e6: already "always the same community" for any degree, where beta x degree
    // near the top of the doubles overflowed and reversed the bias.
    if (!(o.beta >= 1.0 && o.beta <= kMaxBeta))
        throw Error("--beta must be a number from 1 to 1e6 (1: uniform neighbour sampling)");
}

CommRandBatcher::CommRandBatcher(CommRandOptions options,
                                 std::vector<std::vector<std::uint32_t>> membership)
    : options_(std::move(options)), membership_(std::move(membership))
{
    validate(options_);
}

nlohmann::json CommRandBatcher::settings() const
{
    return {{"batch_size", options_.batch_size},
            {"alpha", options_.alpha},
            {"beta", options_.beta},
            {"fanout", fanouts_text(options_.fanouts)}};
}

void CommRandBatcher::check(const nn::ModelConfig& model) const
{
    check_fanouts(options_.fanouts, model);
}

void CommRandBatcher::prepare(const Dataset& data)
{
    for (std::size_t c = 0; c < data.circuits.size(); ++c) {
        if (!has_training_nodes(data.circuits[c])) continue;
        if (c >= membership_.size() ||
            membership_[c].size() != data.circuits[c].input.node_count)
            throw Error("COMM-RAND batching: no communities for training circuit " +
                        data.circuits[c].name + " (prepare_communities first)");
    }
    if (!options_.fanouts.empty()) sampler_.prepare(data);
}

std::vector<Batch> CommRandBatcher::epoch_batches(const Dataset& data, SeededStream& random)
{
    prepare(data);
    const double alpha = options_.alpha;
    std::vector<NodeRef> random_pool, community_nodes;
    for (std::size_t c = 0; c < data.circuits.size(); ++c)
        for (std::uint32_t v : data.circuits[c].nodes(Split::Train)) {
            const NodeRef r{static_cast<std::uint32_t>(c), v};
            // No draw at either end: alpha = 0 then consumes the stream as random batching.
            const bool to_community =
                alpha >= 1.0 ||
                (alpha > 0.0 && static_cast<double>(random.next() >> 11) * 0x1.0p-53 < alpha);
            (to_community ? community_nodes : random_pool).push_back(r);
        }

    // The community pool: communities in a shuffled order, nodes shuffled inside each.
    std::vector<NodeRef> community_pool;
    if (!community_nodes.empty()) {
        // Communities are numbered per circuit; (circuit, community) names one globally.
        std::vector<std::uint64_t> keys;
        keys.reserve(community_nodes.size());
        for (const NodeRef& r : community_nodes)
            keys.push_back(std::uint64_t{r.circuit} << 32 | membership_[r.circuit][r.node]);
        std::vector<std::uint64_t> ids = keys;
        std::sort(ids.begin(), ids.end());
        ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
        // Group the nodes by community (stable: training nodes ascend within each).
        std::vector<std::size_t> start(ids.size() + 1, 0);
        std::vector<std::uint32_t> slot(keys.size());
        for (std::size_t i = 0; i < keys.size(); ++i) {
            slot[i] = static_cast<std::uint32_t>(
                std::lower_bound(ids.begin(), ids.end(), keys[i]) - ids.begin());
            ++start[slot[i] + 1];
        }
        for (std::size_t k = 0; k < ids.size(); ++k) start[k + 1] += start[k];
        std::vector<NodeRef> grouped(community_nodes.size());
        std::vector<std::size_t> fill(start.begin(), start.end() - 1);
        for (std::size_t i = 0; i < keys.size(); ++i) grouped[fill[slot[i]]++] = community_nodes[i];

        std::vector<std::uint32_t> order(ids.size());
        for (std::size_t k = 0; k < order.size(); ++k) order[k] = static_cast<std::uint32_t>(k);
        random.shuffle(order);
        community_pool.reserve(grouped.size());
        std::vector<NodeRef> members;
        for (std::uint32_t k : order) {
            members.assign(grouped.begin() + static_cast<std::ptrdiff_t>(start[k]),
                           grouped.begin() + static_cast<std::ptrdiff_t>(start[k + 1]));
            random.shuffle(members);
            community_pool.insert(community_pool.end(), members.begin(), members.end());
        }
    }
    random.shuffle(random_pool);

    // Interleave: each batch ceil(alpha B) from the community pool, the rest at random.
    const std::size_t b = options_.batch_size;
    const std::size_t from_community = community_nodes_per_batch(alpha, b);
    std::vector<NodeRef> sequence;
    sequence.reserve(community_pool.size() + random_pool.size());
    std::size_t ci = 0, ri = 0;
    while (ci < community_pool.size() || ri < random_pool.size()) {
        std::size_t take_c = std::min(from_community, community_pool.size() - ci);
        const std::size_t take_r = std::min(b - take_c, random_pool.size() - ri);
        take_c = std::min(b - take_r, community_pool.size() - ci);
        sequence.insert(sequence.end(),
                        community_pool.begin() + static_cast<std::ptrdiff_t>(ci),
                        community_pool.begin() + static_cast<std::ptrdiff_t>(ci + take_c));
        sequence.insert(sequence.end(), random_pool.begin() + static_cast<std::ptrdiff_t>(ri),
                        random_pool.begin() + static_cast<std::ptrdiff_t>(ri + take_r));
        ci += take_c;
        ri += take_r;
    }
    return cut_into_batches(sequence, b);
}

bool CommRandBatcher::step_graph(const Dataset& data, const BatchPart& part,
                                 SeededStream& random, Subgraph& out)
{
    if (options_.fanouts.empty()) return false;
    sampler_.prepare(data);
    const std::vector<std::uint32_t>& m = membership_[part.circuit];
    sampler_.sample(part.circuit, part.nodes, options_.fanouts, options_.beta, m, random, out);
    return true;
}

} // namespace gsr::train
