#include "community/community_detection.hpp"

#include "community/csr_assembly.hpp"
#include "community/random.hpp"
#include "community/worker_pool.hpp"
#include "util/diagnostics.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <string>
#include <cstdio>
#include <chrono>
#include <cstdlib>

namespace gsr::community {
namespace {

/// Thrown inside detection when the cancel flag is seen; never leaves this file.
struct Cancelled {};

constexpr std::uint32_t kToEmpty = std::numeric_limits<std::uint32_t>::max();
constexpr std::size_t kDecideGrain = 256;     ///< nodes per parallel chunk of a batch
constexpr std::size_t kMaxBatch = 4096;       ///< nodes decided against one snapshot
constexpr std::size_t kBatchFraction = 64;    ///< ... and at most 1/64 of the graph
constexpr std::size_t kCommunityGrain = 32;   ///< communities per refinement chunk
constexpr int kMaxLouvainSweeps = 100;
constexpr double kLouvainMinGain = 1e-7;      ///< a sweep that gains less ends the level

/// Scratch space of one thread. `acc` is all zeros between uses.
struct WorkerScratch {
    std::vector<double> acc;
    std::vector<std::uint32_t> touched;
    std::vector<std::uint32_t> candidates;
    std::vector<NodeId> order;
};

/// Renumbers ids by first appearance; returns how many there are.
std::uint32_t compact(std::vector<std::uint32_t>& ids)
{
    std::uint32_t top = 0;
    for (std::uint32_t c : ids) top = std::max(top, c + 1);
    std::vector<std::uint32_t> map(top, kToEmpty);
    std::uint32_t next = 0;
    for (std::uint32_t& c : ids) {
        if (map[c] == kToEmpty) map[c] = next++;
        c = map[c];
    }
    return next;
}

/// A random order of [0, n) that keeps some locality: blocks of consecutive ids in random
/// order, each block shuffled. Nodes near in id tend to share neighbours, and so cache lines.
std::vector<NodeId> local_shuffle(std::size_t n, SeededRandom& rng)
{
    constexpr std::size_t kBlock = 256;
    const std::size_t blocks = (n + kBlock - 1) / kBlock;
    std::vector<std::uint32_t> block_order(blocks);
    std::iota(block_order.begin(), block_order.end(), 0u);
    rng.shuffle(std::span<std::uint32_t>(block_order));
    std::vector<NodeId> order;
    order.reserve(n);
    for (std::uint32_t b : block_order) {
        const std::size_t first = order.size();
        for (std::size_t v = b * kBlock; v < std::min(n, (b + 1) * kBlock); ++v) order.push_back(static_cast<NodeId>(v));
        rng.shuffle(std::span<NodeId>(order.data() + first, order.size() - first));
    }
    return order;
}

class Detector {
public:
    Detector(const WeightedGraph& g, const CommunityOptions& options)
        : g0_(g), options_(options), pool_(options.threads)
    {
    }

    CommunityResult run();

private:
    struct Pass {
        std::vector<std::uint32_t> membership;
        std::vector<std::vector<std::uint32_t>> levels;
    };

    void check_cancel() const
    {
        if (options_.cancel && options_.cancel->load(std::memory_order_relaxed)) throw Cancelled{};
    }

    Pass one_pass(std::vector<std::uint32_t> start, std::uint64_t seed);
    void move_nodes(const WeightedGraph& g, const std::vector<double>& k,
                    std::vector<std::uint32_t>& member, std::uint64_t seed, bool queue_mode);
    std::vector<std::uint32_t> refine(const WeightedGraph& g, const std::vector<double>& k,
                                      const std::vector<std::uint32_t>& member,
                                      std::uint32_t communities, std::uint64_t seed);
    WeightedGraph aggregate(const WeightedGraph& g, const std::vector<std::uint32_t>& agg_of,
                            std::uint32_t aggregate_count);
    std::size_t split_disconnected(std::vector<std::uint32_t>& membership) const;

    const WeightedGraph& g0_;
    CommunityOptions options_;
    WorkerPool pool_;
    std::vector<double> strength0_;
    double gamma_scaled_ = 0; ///< gamma / 2m: the weight of the null-model term
    std::vector<WorkerScratch> scratch_;
};

void Detector::move_nodes(const WeightedGraph& g, const std::vector<double>& k,
                          std::vector<std::uint32_t>& member, std::uint64_t seed, bool queue_mode)
{
    const std::size_t n = g.node_count();
    std::vector<double> tot(n, 0.0);
    std::vector<std::uint32_t> size(n, 0);
    for (NodeId v = 0; v < n; ++v) {
        tot[member[v]] += k[v];
        ++size[member[v]];
    }
    std::vector<std::uint32_t> empty; // may hold stale ids: a popped id is used only if empty
    for (std::size_t c = n; c-- > 0;)
        if (size[c] == 0) empty.push_back(static_cast<std::uint32_t>(c));

    const double gs = gamma_scaled_;
    const std::size_t batch = getenv("GSR_BATCH") ? std::clamp<std::size_t>(n / atoi(getenv("GSR_BATCH")), 1, kMaxBatch) : std::clamp<std::size_t>(n / kBatchFraction, 1, kMaxBatch);
    std::vector<std::uint32_t> decision(batch);
    std::vector<double> gain(batch);
    std::vector<NodeId> batch_nodes(batch);

    // The best community for v given the state at the batch start; its gain over staying.
    auto decide = [&](NodeId v, WorkerScratch& s, double& best_gain_out) {
        const std::uint32_t from = member[v];
        std::vector<double>& acc = s.acc;
        s.touched.clear();
        for (std::uint64_t e = g.offsets[v]; e < g.offsets[v + 1]; ++e) {
            const NodeId u = g.targets[e];
            if (u == v) continue;
            const std::uint32_t c = member[u];
            if (acc[c] == 0) s.touched.push_back(c);
            acc[c] += g.weights[e];
        }
        const double kv = k[v];
        const double eps = 1e-12 * std::max(kv, 1.0);
        const double stay = acc[from] - gs * kv * (tot[from] - kv);
        double best = stay;
        std::uint32_t target = from;
        for (std::uint32_t c : s.touched) {
            if (c == from) continue;
            const double q = acc[c] - gs * kv * tot[c];
            if (q > best + eps) {
                best = q;
                target = c;
            }
        }
        if (size[from] > 1 && 0 > best + eps) {
            best = 0;
            target = kToEmpty;
        }
        for (std::uint32_t c : s.touched) acc[c] = 0;
        best_gain_out = best - stay;
        return target;
    };
    auto decide_batch = [&](std::size_t count) {
        check_cancel();
        pool_.parallel_for(count, kDecideGrain, [&](std::size_t b, std::size_t e, unsigned w) {
            for (std::size_t i = b; i < e; ++i) decision[i] = decide(batch_nodes[i], scratch_[w], gain[i]);
        });
    };
    // Decisions within a batch ignore each other. A move whose own or target community changed
    // earlier in the same batch is checked again against the current state, so that every move
    // applied improves the quality: no two neighbours swap places forever.
    std::vector<std::uint32_t> changed_in_batch(n, 0);
    std::uint32_t batch_stamp = 0;
    auto gain_now = [&](NodeId v, std::uint32_t from, std::uint32_t to) {
        double w_from = 0, w_to = 0;
        for (std::uint64_t e = g.offsets[v]; e < g.offsets[v + 1]; ++e) {
            const NodeId u = g.targets[e];
            if (u == v) continue;
            const std::uint32_t c = member[u];
            if (c == from) w_from += g.weights[e];
            else if (c == to) w_to += g.weights[e];
        }
        const double kv = k[v];
        const double go = to == kToEmpty ? 0.0 : w_to - gs * kv * tot[to];
        return go - (w_from - gs * kv * (tot[from] - kv));
    };
    auto apply = [&](NodeId v, std::uint32_t target, double& gain_out) {
        const std::uint32_t from = member[v];
        if (target == from) return false;
        if (changed_in_batch[from] == batch_stamp ||
            (target != kToEmpty && changed_in_batch[target] == batch_stamp)) {
            gain_out = gain_now(v, from, target);
            if (!(gain_out > 1e-12 * std::max(k[v], 1.0))) return false;
        }
        if (target == kToEmpty) {
            if (size[from] == 1) return false; // the others left in this batch: it is alone now
            do {
                target = empty.back();
                empty.pop_back();
            } while (size[target] != 0);
        }
        tot[from] -= k[v];
        tot[target] += k[v];
        --size[from];
        ++size[target];
        member[v] = target;
        changed_in_batch[from] = changed_in_batch[target] = batch_stamp;
        if (size[from] == 0) empty.push_back(from);
        return true;
    };

    SeededRandom rng(seed);
    std::vector<NodeId> order = getenv("GSR_FULLSHUF") ? [&]{ std::vector<NodeId> o(n); std::iota(o.begin(), o.end(), 0u); rng.shuffle(std::span<NodeId>(o)); return o; }() : local_shuffle(n, rng);

    if (queue_mode) {
        // Leiden's fast local moving: a node that moves puts its neighbours outside its new
        // community back in the queue. `order` is the ring buffer holding the queue.
        std::vector<std::uint8_t> queued(n, 1);
        std::size_t head = 0, count = n;
        std::size_t visits = 0, dbg_scan = 0, dbg_maxdeg = 0;
        for (NodeId v = 0; v < n; ++v) dbg_maxdeg = std::max(dbg_maxdeg, g.degree(v));
        const std::size_t max_visits = 64 * n + 1024;
        while (count > 0 && visits < max_visits) {
            const std::size_t b = std::min(batch, count);
            for (std::size_t i = 0; i < b; ++i) {
                batch_nodes[i] = order[head];
                queued[batch_nodes[i]] = 0;
                head = head + 1 == n ? 0 : head + 1;
            }
            count -= b;
            visits += b;
            decide_batch(b);
            ++batch_stamp;
            for (std::size_t i = 0; i < b; ++i) dbg_scan += g.degree(batch_nodes[i]);
            for (std::size_t i = 0; i < b; ++i) {
                const NodeId v = batch_nodes[i];
                if (!apply(v, decision[i], gain[i])) continue;
                const std::uint32_t to = member[v];
                for (std::uint64_t e = g.offsets[v]; e < g.offsets[v + 1]; ++e) {
                    const NodeId u = g.targets[e];
                    if (queued[u] || member[u] == to) continue;
                    queued[u] = 1;
                    std::size_t tail = head + count;
                    if (tail >= n) tail -= n;
                    order[tail] = u;
                    ++count;
                }
            }
        }
        if (getenv("GSR_COMM_DEBUG")) fprintf(stderr, "level n=%zu entries=%zu visits=%zu scanned=%zu maxdeg=%zu\n", n, g.entry_count(), visits, dbg_scan, dbg_maxdeg);
        return;
    }

    // Louvain: sweeps over all nodes until one gains (almost) nothing.
    const double min_gain = kLouvainMinGain * g0_.total_weight();
    for (int sweep = 0; sweep < kMaxLouvainSweeps; ++sweep) {
        std::size_t moves = 0;
        double gained = 0;
        for (std::size_t start = 0; start < n; start += batch) {
            const std::size_t b = std::min(batch, n - start);
            std::copy_n(order.begin() + static_cast<std::ptrdiff_t>(start), b, batch_nodes.begin());
            decide_batch(b);
            ++batch_stamp;
            for (std::size_t i = 0; i < b; ++i)
                if (apply(batch_nodes[i], decision[i], gain[i])) {
                    ++moves;
                    gained += gain[i];
                }
        }
        if (moves == 0 || gained < min_gain) break;
        order = local_shuffle(n, rng);
    }
}

std::vector<std::uint32_t> Detector::refine(const WeightedGraph& g, const std::vector<double>& k,
                                            const std::vector<std::uint32_t>& member,
                                            std::uint32_t communities, std::uint64_t seed)
{
    const std::size_t n = g.node_count();
    std::vector<std::uint64_t> start(communities + 1, 0);
    for (NodeId v = 0; v < n; ++v) ++start[member[v] + 1];
    for (std::uint32_t c = 0; c < communities; ++c) start[c + 1] += start[c];
    std::vector<NodeId> nodes(n);
    {
        std::vector<std::uint64_t> fill(start.begin(), start.end() - 1);
        for (NodeId v = 0; v < n; ++v) nodes[fill[member[v]]++] = v;
    }
    // Refined communities are named by node ids; only nodes of community c touch c's entries.
    std::vector<std::uint32_t> refined(n);
    std::vector<double> inside(n), outside(n), rtot(n);
    std::vector<std::uint32_t> rsize(n);
    const double gs = gamma_scaled_;
    const double theta = options_.randomness;

    auto refine_one = [&](std::uint32_t c, WorkerScratch& s) {
        const NodeId* first = nodes.data() + start[c];
        const std::size_t count = start[c + 1] - start[c];
        if (count == 1) {
            refined[first[0]] = first[0];
            return;
        }
        double total = 0;
        for (std::size_t i = 0; i < count; ++i) {
            const NodeId v = first[i];
            double w_in = 0;
            for (std::uint64_t e = g.offsets[v]; e < g.offsets[v + 1]; ++e)
                if (g.targets[e] != v && member[g.targets[e]] == c) w_in += g.weights[e];
            inside[v] = outside[v] = w_in;
            refined[v] = v;
            rtot[v] = k[v];
            rsize[v] = 1;
            total += k[v];
        }
        s.order.assign(first, first + count);
        SeededRandom rng(derive_seed(seed, c));
        rng.shuffle(std::span<NodeId>(s.order));
        std::vector<double>& acc = s.acc;
        for (const NodeId v : s.order) {
            if (refined[v] != v || rsize[v] != 1) continue; // only singletons move
            if (inside[v] < gs * k[v] * (total - k[v])) continue; // v is not well connected
            s.touched.clear();
            for (std::uint64_t e = g.offsets[v]; e < g.offsets[v + 1]; ++e) {
                const NodeId u = g.targets[e];
                if (u == v || member[u] != c) continue;
                const std::uint32_t r = refined[u];
                if (acc[r] == 0) s.touched.push_back(r);
                acc[r] += g.weights[e];
            }
            // Candidates: well-connected subcommunities that v does not make worse; staying
            // (gain 0) is one of them. Chosen with probability ~ exp(gain / theta).
            double best = 0;
            std::uint32_t chosen = v;
            s.candidates.clear();
            for (std::uint32_t r : s.touched) {
                const double gain = acc[r] - gs * k[v] * rtot[r];
                if (gain < 0 || outside[r] < gs * rtot[r] * (total - rtot[r])) continue;
                s.candidates.push_back(r);
                if (gain > best) {
                    best = gain;
                    chosen = r;
                }
            }
            if (theta > 0 && !s.candidates.empty()) {
                auto weight = [&](double gain) { return std::exp((gain - best) / theta); };
                double sum = weight(0);
                for (std::uint32_t r : s.candidates) sum += weight(acc[r] - gs * k[v] * rtot[r]);
                double pick = rng.uniform() * sum - weight(0);
                chosen = v;
                for (std::size_t i = 0; i < s.candidates.size() && pick >= 0; ++i) {
                    chosen = s.candidates[i];
                    pick -= weight(acc[chosen] - gs * k[v] * rtot[chosen]);
                }
            }
            if (chosen != v) {
                refined[v] = chosen;
                rtot[chosen] += k[v];
                ++rsize[chosen];
                outside[chosen] += inside[v] - 2 * acc[chosen];
                rsize[v] = 0;
                rtot[v] = 0;
            }
            for (std::uint32_t r : s.touched) acc[r] = 0;
        }
    };
    pool_.parallel_for(communities, kCommunityGrain, [&](std::size_t b, std::size_t e, unsigned w) {
        check_cancel();
        for (std::size_t c = b; c < e; ++c) refine_one(static_cast<std::uint32_t>(c), scratch_[w]);
    });
    return refined;
}

WeightedGraph Detector::aggregate(const WeightedGraph& g, const std::vector<std::uint32_t>& agg_of,
                                  std::uint32_t aggregate_count)
{
    const std::size_t n = g.node_count();
    std::vector<std::uint64_t> start(aggregate_count + 1, 0);
    for (NodeId v = 0; v < n; ++v) ++start[agg_of[v] + 1];
    for (std::uint32_t a = 0; a < aggregate_count; ++a) start[a + 1] += start[a];
    std::vector<NodeId> nodes(n);
    {
        std::vector<std::uint64_t> fill(start.begin(), start.end() - 1);
        for (NodeId v = 0; v < n; ++v) nodes[fill[agg_of[v]]++] = v;
    }
    return detail::assemble_rows(aggregate_count, &pool_, [&](NodeId a, detail::RowSink& sink, unsigned w) {
        if ((a & 1023) == 0) check_cancel();
        WorkerScratch& s = scratch_[w];
        s.touched.clear();
        for (std::uint64_t i = start[a]; i < start[a + 1]; ++i) {
            const NodeId v = nodes[i];
            for (std::uint64_t e = g.offsets[v]; e < g.offsets[v + 1]; ++e) {
                const std::uint32_t b = agg_of[g.targets[e]];
                if (s.acc[b] == 0) s.touched.push_back(b);
                s.acc[b] += g.weights[e];
            }
        }
        for (std::uint32_t b : s.touched) {
            sink.add(b, s.acc[b]);
            s.acc[b] = 0;
        }
    });
}

Detector::Pass Detector::one_pass(std::vector<std::uint32_t> start, std::uint64_t seed)
{
    const bool leiden = options_.method == Method::Leiden;
    const std::size_t n0 = g0_.node_count();
    const WeightedGraph* g = &g0_;
    WeightedGraph owned;
    std::vector<double> k = strength0_;
    std::vector<std::uint32_t> member = std::move(start);
    compact(member);
    std::vector<std::uint32_t> node_to_agg(n0);
    std::iota(node_to_agg.begin(), node_to_agg.end(), 0u);
    Pass pass;
    for (std::uint64_t level = 0;; ++level) {
        auto dt0 = std::chrono::steady_clock::now();
        move_nodes(*g, k, member, derive_seed(seed, level, 1), leiden);
        auto dt1 = std::chrono::steady_clock::now();
        const std::uint32_t communities = compact(member);
        if (communities == g->node_count()) break;
        std::vector<std::uint32_t> agg_of;
        std::uint32_t aggregates = communities;
        if (leiden) {
            agg_of = refine(*g, k, member, communities, derive_seed(seed, level, 2));
            aggregates = compact(agg_of);
            if (aggregates == g->node_count()) { // the refinement merged nothing
                agg_of = member;
                aggregates = communities;
            }
        } else {
            agg_of = member;
        }
        auto dt2 = std::chrono::steady_clock::now();
        WeightedGraph next = aggregate(*g, agg_of, aggregates);
        auto dt3 = std::chrono::steady_clock::now();
        if (getenv("GSR_COMM_DEBUG")) fprintf(stderr, "  move %.4f refine %.4f agg %.4f\n", std::chrono::duration<double>(dt1-dt0).count(), std::chrono::duration<double>(dt2-dt1).count(), std::chrono::duration<double>(dt3-dt2).count());
        std::vector<double> next_k(aggregates, 0.0);
        std::vector<std::uint32_t> next_member(aggregates);
        for (NodeId v = 0; v < g->node_count(); ++v) {
            next_k[agg_of[v]] += k[v];
            next_member[agg_of[v]] = member[v];
        }
        pool_.parallel_for(n0, 1 << 14, [&](std::size_t b, std::size_t e, unsigned) {
            for (std::size_t v = b; v < e; ++v) node_to_agg[v] = agg_of[node_to_agg[v]];
        });
        pass.levels.push_back(node_to_agg);
        owned = std::move(next);
        g = &owned;
        k = std::move(next_k);
        member = std::move(next_member);
    }
    pass.membership.resize(n0);
    for (std::size_t v = 0; v < n0; ++v) pass.membership[v] = member[node_to_agg[v]];
    compact(pass.membership);
    return pass;
}

std::size_t Detector::split_disconnected(std::vector<std::uint32_t>& membership) const
{
    const std::size_t n = g0_.node_count();
    constexpr std::uint32_t kUnseen = kToEmpty;
    std::vector<std::uint32_t> component(n, kUnseen);
    std::vector<std::uint32_t> first_component_of(n, kUnseen); // per community
    std::vector<NodeId> queue;
    std::uint32_t next = 0;
    std::size_t splits = 0;
    for (NodeId s = 0; s < n; ++s) {
        if (component[s] != kUnseen) continue;
        const std::uint32_t c = membership[s];
        if (first_component_of[c] == kUnseen) first_component_of[c] = next;
        else ++splits;
        component[s] = next;
        queue.assign(1, s);
        for (std::size_t head = 0; head < queue.size(); ++head) {
            const NodeId v = queue[head];
            for (std::uint64_t e = g0_.offsets[v]; e < g0_.offsets[v + 1]; ++e) {
                const NodeId u = g0_.targets[e];
                if (component[u] == kUnseen && membership[u] == c) {
                    component[u] = next;
                    queue.push_back(u);
                }
            }
        }
        ++next;
    }
    if (splits) membership = std::move(component);
    return splits;
}

CommunityResult Detector::run()
{
    const std::size_t n = g0_.node_count();
    if (!(options_.resolution > 0) || !std::isfinite(options_.resolution))
        throw Error("the resolution must be finite and positive, got " + std::to_string(options_.resolution));
    if (!(options_.randomness >= 0) || !std::isfinite(options_.randomness))
        throw Error("the refinement randomness must be finite and not negative");
    if (n == 0) throw Error("community detection needs a graph with at least one node");
    if (n >= kToEmpty) throw Error("the graph has too many nodes for 32-bit community ids");
    for (double w : g0_.weights)
        if (!(w > 0) || !std::isfinite(w))
            throw Error("edge weights must be finite and positive, got " + std::to_string(w));
    strength0_.resize(n);
    double two_m = 0;
    for (NodeId v = 0; v < n; ++v) {
        strength0_[v] = g0_.strength(v);
        two_m += strength0_[v];
    }
    if (!(two_m > 0))
        throw Error("community detection needs edges: the graph's " + std::to_string(n) +
                    " nodes have none between them");
    gamma_scaled_ = options_.resolution / two_m;
    scratch_.resize(pool_.size());
    for (WorkerScratch& s : scratch_) s.acc.assign(n, 0.0);

    CommunityResult result;
    std::vector<std::uint32_t> start(n);
    std::iota(start.begin(), start.end(), 0u);
    const bool leiden = options_.method == Method::Leiden;
    const int max_passes = !leiden ? 1 : options_.iterations > 0 ? options_.iterations : kMaxLeidenIterations;
    Pass pass;
    for (int i = 0; i < max_passes; ++i) {
        pass = one_pass(start, derive_seed(options_.seed, static_cast<std::uint64_t>(i)));
        ++result.iterations;
        if (pass.membership == start) break;
        start = pass.membership;
    }
    // Leiden's communities are connected by construction; this only guards that promise.
    if (leiden) split_disconnected(pass.membership);

    result.membership = std::move(pass.membership);
    result.sizes = number_by_size(result.membership);
    result.community_count = static_cast<std::uint32_t>(result.sizes.size());
    for (auto& level : pass.levels) {
        CommunityLevel l;
        l.membership = std::move(level);
        l.community_count = static_cast<std::uint32_t>(number_by_size(l.membership).size());
        if (l.community_count <= result.community_count) continue; // as coarse as the final one
        result.levels.push_back(std::move(l));
    }
    result.levels.push_back({result.membership, result.community_count, 0});
    check_cancel();
    std::vector<double> q(result.levels.size());
    pool_.parallel_for(q.size(), 1, [&](std::size_t b, std::size_t e, unsigned) {
        for (std::size_t i = b; i < e; ++i)
            q[i] = modularity(g0_, result.levels[i].membership, options_.resolution);
    });
    for (std::size_t i = 0; i < q.size(); ++i) result.levels[i].modularity = q[i];
    result.modularity = q.back();
    return result;
}

} // namespace

std::vector<std::uint32_t> number_by_size(std::vector<std::uint32_t>& membership)
{
    std::uint32_t top = 0;
    for (std::uint32_t c : membership) top = std::max(top, c + 1);
    std::vector<std::uint32_t> size(top, 0), first(top, kToEmpty);
    for (std::size_t v = 0; v < membership.size(); ++v) {
        const std::uint32_t c = membership[v];
        if (size[c]++ == 0) first[c] = static_cast<std::uint32_t>(v);
    }
    std::vector<std::uint32_t> ids;
    for (std::uint32_t c = 0; c < top; ++c)
        if (size[c]) ids.push_back(c);
    std::sort(ids.begin(), ids.end(), [&](std::uint32_t a, std::uint32_t b) {
        return size[a] != size[b] ? size[a] > size[b] : first[a] < first[b];
    });
    std::vector<std::uint32_t> map(top, 0), sizes(ids.size());
    for (std::uint32_t i = 0; i < ids.size(); ++i) {
        map[ids[i]] = i;
        sizes[i] = size[ids[i]];
    }
    for (std::uint32_t& c : membership) c = map[c];
    return sizes;
}

std::size_t nodes_in_disconnected_communities(const WeightedGraph& g,
                                              const std::vector<std::uint32_t>& membership)
{
    const std::size_t n = g.node_count();
    std::uint32_t top = 0;
    for (std::uint32_t c : membership) top = std::max(top, c + 1);
    std::vector<std::uint32_t> components(top, 0), size(top, 0);
    std::vector<std::uint8_t> seen(n, 0);
    std::vector<NodeId> queue;
    for (NodeId s = 0; s < n; ++s) {
        ++size[membership[s]];
        if (seen[s]) continue;
        const std::uint32_t c = membership[s];
        ++components[c];
        seen[s] = 1;
        queue.assign(1, s);
        for (std::size_t head = 0; head < queue.size(); ++head) {
            const NodeId v = queue[head];
            for (std::uint64_t e = g.offsets[v]; e < g.offsets[v + 1]; ++e) {
                const NodeId u = g.targets[e];
                if (!seen[u] && membership[u] == c) {
                    seen[u] = 1;
                    queue.push_back(u);
                }
            }
        }
    }
    std::size_t nodes = 0;
    for (std::uint32_t c = 0; c < top; ++c)
        if (components[c] > 1) nodes += size[c];
    return nodes;
}

std::optional<CommunityResult> detect_communities(const WeightedGraph& g, const CommunityOptions& options)
{
    try {
        Detector detector(g, options);
        return detector.run();
    } catch (const Cancelled&) {
        return std::nullopt;
    }
}

} // namespace gsr::community
