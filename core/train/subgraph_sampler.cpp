#include "train/subgraph_sampler.hpp"

#include "util/diagnostics.hpp"

#include <algorithm>
#include <charconv>
#include <limits>

namespace gsr::train {

namespace {

constexpr std::uint32_t kNone = 0xffffffffu;
constexpr std::uint32_t kReached = 0xfffffffeu; ///< in the subgraph, not yet numbered

/// Uniform in [0, 1) from 53 bits.
double unit(SeededStream& random) { return static_cast<double>(random.next() >> 11) * 0x1.0p-53; }

/// Moves `count` uniformly chosen entries of `items` (without replacement) to its front.
void choose_front(std::vector<std::uint32_t>& items, std::size_t count, SeededStream& random)
{
    for (std::size_t j = 0; j < count; ++j)
        std::swap(items[j], items[j + random.below(items.size() - j)]);
}

} // namespace

std::uint32_t message_passing_hops(const nn::ModelConfig& model)
{
    const bool grouped = model.kind == nn::ModelKind::Rev || model.kind == nn::ModelKind::Gsr;
    // Saturated: layers x groups past 32 bits wrapped to a small count (the model's own checks
    // refuse such sizes, with their own message).
    const std::uint64_t hops = std::uint64_t(model.layers) * (grouped ? model.groups : 1u);
    return static_cast<std::uint32_t>(
        std::min<std::uint64_t>(hops, std::numeric_limits<std::uint32_t>::max()));
}

std::vector<std::uint32_t> parse_fanouts(std::string_view text)
{
    std::vector<std::uint32_t> out;
    std::size_t start = 0;
    while (true) {
        const std::size_t comma = std::min(text.find(',', start), text.size());
        const std::string_view item = text.substr(start, comma - start);
        if (item == "all") {
            out.push_back(kAllNeighbours);
        } else {
            std::uint64_t v = 0;
            const auto [end, ec] = std::from_chars(item.data(), item.data() + item.size(), v);
            if (item.empty() || ec != std::errc() || end != item.data() + item.size() || v < 1 ||
                v >= kAllNeighbours)
                throw Error("--fanout: '" + std::string(item) +
                            "' is not a fan-out (a whole number from 1 to " +
                            std::to_string(kAllNeighbours - 1) +
                            ", or 'all'); expected one per hop, as in 10,5");
            out.push_back(static_cast<std::uint32_t>(v));
        }
        if (comma == text.size()) break;
        start = comma + 1;
    }
    return out;
}

std::string fanouts_text(std::span<const std::uint32_t> fanouts)
{
    std::string s;
    for (std::uint32_t f : fanouts) {
        if (!s.empty()) s += ',';
        s += f == kAllNeighbours ? std::string("all") : std::to_string(f);
    }
    return s;
}

void SubgraphSampler::prepare(const Dataset& data)
{
    if (data_ == &data && circuits_.size() == data.circuits.size()) return;
    data_ = &data;
    circuits_.assign(data.circuits.size(), Incidence{});
}

SubgraphSampler::Incidence& SubgraphSampler::incidence(std::size_t circuit)
{
    if (!data_ || circuit >= circuits_.size())
        throw std::logic_error("SubgraphSampler: prepare() with the data set first");
    Incidence& inc = circuits_[circuit];
    if (inc.built) return inc;
    const nn::GraphInput& g = data_->circuits[circuit].input;
    const std::size_t n = g.node_count, e = g.edge_count();
    if (e >= kReached)
        throw Error("mini-batch sampling: circuit " + data_->circuits[circuit].name + " has " +
                    std::to_string(e) + " edges, more than sampling can number (2^32 - 2)");
    inc.sink.resize(e);
    std::vector<std::uint64_t> out_degree(n + 1, 0);
    for (std::size_t v = 0; v < n; ++v)
        for (std::uint64_t i = g.fanin_offsets[v]; i < g.fanin_offsets[v + 1]; ++i) {
            inc.sink[i] = static_cast<std::uint32_t>(v);
            ++out_degree[g.fanin_targets[i]];
        }
    inc.offsets.assign(n + 1, 0);
    for (std::size_t v = 0; v < n; ++v)
        inc.offsets[v + 1] = inc.offsets[v] + (g.fanin_offsets[v + 1] - g.fanin_offsets[v]) +
                             out_degree[v];
    inc.edge.resize(2 * e);
    inc.other.resize(2 * e);
    std::vector<std::uint64_t> fill(inc.offsets.begin(), inc.offsets.end() - 1);
    // Fan-in entries first, in CSR order; then the fan-out entries, by edge position.
    for (std::size_t v = 0; v < n; ++v)
        for (std::uint64_t i = g.fanin_offsets[v]; i < g.fanin_offsets[v + 1]; ++i) {
            inc.edge[fill[v]] = static_cast<std::uint32_t>(i);
            inc.other[fill[v]++] = g.fanin_targets[i];
        }
    for (std::size_t i = 0; i < e; ++i) {
        const std::uint32_t driver = g.fanin_targets[i];
        inc.edge[fill[driver]] = static_cast<std::uint32_t>(i);
        inc.other[fill[driver]++] = inc.sink[i];
    }
    inc.local.assign(n, kNone);
    inc.built = true;
    return inc;
}

void SubgraphSampler::sample(std::size_t circuit, std::span<const std::uint32_t> roots,
                             std::span<const std::uint32_t> fanouts, double beta,
                             std::span<const std::uint32_t> membership, SeededStream& random,
                             Subgraph& out)
{
    Incidence& inc = incidence(circuit);
    const bool biased = beta != 1.0;
    if (biased && membership.size() != inc.local.size())
        throw std::logic_error("SubgraphSampler::sample: beta != 1 needs a membership");
    reached_.clear();
    edges_.clear();
    frontier_.clear();
    for (std::uint32_t r : roots) {
        if (inc.local[r] != kNone) {
            for (std::uint32_t v : reached_) inc.local[v] = kNone; // usable after the throw
            throw std::logic_error("SubgraphSampler: a root twice");
        }
        inc.local[r] = kReached;
        reached_.push_back(r);
        frontier_.push_back(r);
    }
    const auto take = [&](std::uint64_t slot) {
        edges_.push_back(inc.edge[slot]);
        const std::uint32_t v = inc.other[slot];
        if (inc.local[v] != kNone) return;
        inc.local[v] = kReached;
        reached_.push_back(v);
        next_.push_back(v);
    };
    for (const std::uint32_t fanout : fanouts) {
        next_.clear();
        for (const std::uint32_t u : frontier_) {
            const std::uint64_t begin = inc.offsets[u], end = inc.offsets[u + 1];
            const std::uint64_t degree = end - begin;
            if (fanout >= degree) {
                for (std::uint64_t s = begin; s < end; ++s) take(s);
                continue;
            }
            if (!biased) {
                pick_.resize(degree);
                for (std::uint64_t s = 0; s < degree; ++s)
                    pick_[s] = static_cast<std::uint32_t>(s);
                choose_front(pick_, fanout, random);
                for (std::uint32_t j = 0; j < fanout; ++j) take(begin + pick_[j]);
                continue;
            }
            // Weighted draws without replacement, two weights: choose the class of each draw
            // by its remaining weight, then a uniform member of it (successive sampling).
            intra_.clear();
            inter_.clear();
            for (std::uint64_t s = begin; s < end; ++s)
                (membership[inc.other[s]] == membership[u] ? intra_ : inter_)
                    .push_back(static_cast<std::uint32_t>(s - begin));
            std::size_t ki = 0, kx = 0; // drawn so far from each class
            for (std::uint32_t j = 0; j < fanout; ++j) {
                const double wi = beta * static_cast<double>(intra_.size() - ki);
                const double wx = static_cast<double>(inter_.size() - kx);
                std::vector<std::uint32_t>& from =
                    wx == 0 || (wi > 0 && unit(random) * (wi + wx) < wi) ? intra_ : inter_;
                std::size_t& k = &from == &intra_ ? ki : kx;
                std::swap(from[k], from[k + random.below(from.size() - k)]);
                take(begin + from[k++]);
            }
        }
        frontier_.swap(next_);
        if (frontier_.empty()) break;
    }
    std::sort(edges_.begin(), edges_.end());
    // A self loop is incident twice to its node; any other edge can be taken from both ends.
    edges_.erase(std::unique(edges_.begin(), edges_.end()), edges_.end());
    assemble(circuit, roots, out);
}

void SubgraphSampler::induce(std::size_t circuit, std::span<const std::uint32_t> nodes,
                             std::span<const std::uint32_t> loss, Subgraph& out)
{
    Incidence& inc = incidence(circuit);
    const nn::GraphInput& g = data_->circuits[circuit].input;
    reached_.clear();
    edges_.clear();
    for (std::uint32_t v : nodes) {
        if (inc.local[v] != kNone) {
            for (std::uint32_t r : reached_) inc.local[r] = kNone;
            throw std::logic_error("SubgraphSampler: a node twice");
        }
        inc.local[v] = kReached;
        reached_.push_back(v);
    }
    for (std::uint32_t v : nodes)
        for (std::uint64_t i = g.fanin_offsets[v]; i < g.fanin_offsets[v + 1]; ++i)
            if (inc.local[g.fanin_targets[i]] != kNone)
                edges_.push_back(static_cast<std::uint32_t>(i));
    std::sort(edges_.begin(), edges_.end());
    for (std::uint32_t v : loss)
        if (inc.local[v] == kNone) {
            for (std::uint32_t r : reached_) inc.local[r] = kNone;
            throw std::logic_error("SubgraphSampler::induce: a loss node outside the nodes");
        }
    assemble(circuit, loss, out);
}

void SubgraphSampler::assemble(std::size_t circuit, std::span<const std::uint32_t> loss,
                               Subgraph& out)
{
    Incidence& inc = circuits_[circuit];
    const nn::GraphInput& g = data_->circuits[circuit].input;
    std::sort(reached_.begin(), reached_.end());
    for (std::size_t i = 0; i < reached_.size(); ++i)
        inc.local[reached_[i]] = static_cast<std::uint32_t>(i);

    nn::GraphInput& s = out.input;
    const std::size_t n = reached_.size(), f = g.feature_count;
    s.node_count = n;
    s.feature_count = f;
    // Edges ascend by fan-in CSR position, so by sink and, as the ids are monotone, by
    // subgraph row, each row in the circuit's own order.
    s.fanin_offsets.assign(n + 1, 0);
    s.fanin_targets.resize(edges_.size());
    for (std::size_t i = 0; i < edges_.size(); ++i) {
        ++s.fanin_offsets[inc.local[inc.sink[edges_[i]]] + 1];
        s.fanin_targets[i] = inc.local[g.fanin_targets[edges_[i]]];
    }
    for (std::size_t v = 0; v < n; ++v) s.fanin_offsets[v + 1] += s.fanin_offsets[v];
    s.features.resize(n * f);
    for (std::size_t i = 0; i < n; ++i)
        std::copy_n(g.features.begin() + static_cast<std::ptrdiff_t>(reached_[i] * f), f,
                    s.features.begin() + static_cast<std::ptrdiff_t>(i * f));
    out.loss_nodes.resize(loss.size());
    for (std::size_t i = 0; i < loss.size(); ++i) out.loss_nodes[i] = inc.local[loss[i]];
    out.nodes.assign(reached_.begin(), reached_.end());
    for (std::uint32_t v : reached_) inc.local[v] = kNone;
}

} // namespace gsr::train
