#include "community/community_detection.hpp"

#include "community/random.hpp"
#include "community/worker_pool.hpp"
#include "util/diagnostics.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>
#include <memory>
#include <numeric>
#include <string>

namespace gsr::community {
namespace {

/// Whether an accumulator is still +0.0 (accumulators only ever hold sums of positive weights,
/// or 0): one integer compare, where a floating compare takes several instructions.
inline bool is_zero(double x)
{
    return std::bit_cast<std::uint64_t>(x) == 0;
}

/// Thrown inside detection when the cancel flag is seen; never leaves this file.
struct Cancelled {};

constexpr std::uint32_t kToEmpty = std::numeric_limits<std::uint32_t>::max();

/// A community that is empty now, from a list that may hold stale ids (ids that were empty when
/// pushed and have gained members since): those are dropped on the way. kToEmpty when the list
/// runs out (the callers give every part enough ids; the node then stays where it is).
std::uint32_t pop_empty(std::vector<std::uint32_t>& empty, const std::uint32_t* size)
{
    while (!empty.empty()) {
        const std::uint32_t c = empty.back();
        empty.pop_back();
        if (size[c] == 0) return c;
    }
    return kToEmpty;
}
constexpr std::size_t kDecideGrain = 256;   ///< nodes per parallel chunk of a batch
constexpr std::size_t kMaxBatch = 4096;     ///< nodes decided against one snapshot
constexpr std::size_t kBatchFraction = 64;  ///< ... and at most 1/64 of the graph
constexpr std::size_t kCommunityGrain = 32; ///< communities per refinement chunk
constexpr std::size_t kSmallDegree = 24;    ///< rows up to this long accumulate on the stack
/// Up to this many nodes the n-long accumulators stay in cache: rows are merged through them
/// (no searching, no mispredicted branches) rather than by a linear search on the stack.
constexpr std::size_t kCachedNodes = std::size_t{1} << 15;
/// Leiden levels up to this many nodes move their nodes one by one (in two parts at once, see
/// move_in_order) rather than in batches: on the public circuits, up to hyp's 214,591 nodes,
/// the batch machinery (overlay, re-checks, a separate apply) cost more than it saved, on one
/// thread and on two (session 6: hyp 1.11x faster on 1 and 2 threads with every level here).
constexpr std::size_t kSequentialNodes = std::size_t{1} << 18;
/// Levels from this many nodes on move in two parts at once (see move_in_order).
constexpr std::size_t kPartNodes = 4096;
/// Refinement and aggregation of levels below this many nodes run on the calling thread: their
/// work (well under a millisecond) is less than waking the other threads costs.
constexpr std::size_t kInlineNodes = 2048;
constexpr int kMaxLouvainSweeps = 100;
constexpr double kLouvainMinGainShare = 0.01; ///< a sweep gaining less than this share of the
                                              ///< first sweep's gain ends the level

/// Scratch space of one thread, on cache lines of its own (push_back writes the headers).
/// `acc` is all zeros between uses.
struct alignas(64) WorkerScratch {
    std::vector<double> acc;
    // The n-long arrays below are left uninitialised (unique_ptr<T[]>), sparing a clear of
    // megabytes per run: `slots` is written before it is read, moved_to and the deltas are
    // read only where the bit sets say that the current chunk wrote them.
    std::unique_ptr<std::uint32_t[]> slots; ///< touched communities of a row
    // Local moving: the moves decided earlier in the current chunk (all n long).
    std::unique_ptr<std::uint32_t[]> moved_to; ///< new community of a node
    std::unique_ptr<double[]> tot_delta;       ///< change of a community's strength
    std::unique_ptr<std::int64_t[]> size_delta;
    // Bit sets over moved_to and the deltas (n bits: they stay in cache): most lookups find
    // nothing there, and then skip the n-long arrays.
    std::vector<std::uint64_t> moved_bits;
    std::vector<std::uint64_t> delta_bits;
    std::vector<NodeId> moved_nodes;
    std::vector<std::uint32_t> delta_communities;
    // The refinement's candidates (n long: a row's length at most).
    std::vector<std::uint32_t> candidates;
    std::vector<double> gains; ///< of the candidates, then their weights
    std::vector<NodeId> order;
    std::size_t capacity = 0; ///< nodes that the n-long arrays have room for
};

/// The first n elements of a buffer kept from call to call (grown, never shrunk): the levels
/// and passes would otherwise allocate, and the kernel clear, the same arrays again and again.
/// The contents are left from the last use.
template <class T>
std::span<T> first_n(std::vector<T>& buffer, std::size_t n)
{
    if (buffer.size() < n) buffer.resize(n);
    return {buffer.data(), n};
}

/// The memory of one detection, kept by the calling thread for its next call on a graph of up
/// to kKeepNodes nodes (see detect_communities): fresh memory costs a page fault per 4 KiB and
/// the kernel's clearing, about a tenth of a run on circuits of 10,000 nodes. Every vector is
/// resized (within its capacity) before use; `acc` and the bit sets of each scratch stay all
/// zeros between uses.
struct Workspace {
    /// The worker threads, kept too: starting a thread per call costs tens of microseconds,
    /// and the first job waits for it. Idle workers sleep (after a short spin).
    WorkerPool& pool_for(unsigned threads)
    {
        if (threads == 0) threads = default_thread_count();
        if (!pool || pool->size() != threads) {
            pool.reset(); // its threads end before the new ones start
            pool = std::make_unique<WorkerPool>(threads);
        }
        return *pool;
    }

    std::unique_ptr<WorkerPool> pool;
    std::vector<WorkerScratch> scratch;
    std::vector<double> strength0;
    // Local moving.
    std::vector<double> tot;
    std::vector<std::uint32_t> size;
    std::vector<std::uint64_t> changed; ///< batch stamps: never cleared, stamps only grow
    std::uint64_t stamp = 0;
    std::vector<NodeId> order;
    std::vector<std::uint8_t> queued, side;
    std::vector<std::uint32_t> empty;
    std::vector<NodeId> part_ring[2];
    /// Each part's own queue marks: the two parts' nodes interleave in id order, and run_queue
    /// stores a mark for every neighbour of a moved node, so one shared array would bounce its
    /// cache lines between the two cores.
    std::vector<std::uint8_t> part_queued[2];
    std::vector<std::uint32_t> part_empty[2];
    std::vector<std::uint32_t> lent; ///< part 1's empty ids lent to part 0 (move_in_order)
    std::vector<std::uint32_t> decision;
    std::vector<double> gain;
    std::vector<NodeId> batch_nodes, moved;
    // Refinement and aggregation.
    std::vector<std::uint64_t> start, bound, fill;
    std::vector<NodeId> nodes;
    std::vector<std::uint32_t> position, root, rsize;
    std::vector<std::uint64_t> in_first;  ///< refinement: where a position's row starts
    std::vector<std::uint32_t> in_count;  ///< ... and how many neighbours share its community
    std::vector<std::uint32_t> in_target; ///< those neighbours' positions (rows of g's layout)
    std::vector<double> in_weight;
    std::vector<double> inside, outside, rtot;
    std::vector<NodeId> wide_targets;
    std::vector<double> wide_weights;
    // The levels of a pass: two of each, current and next, swapped from level to level.
    WeightedGraph graphs[2];
    std::vector<double> k, next_k, self_weight;
    std::vector<std::uint32_t> member, next_member, refined, node_to_agg, map;
};

/// Workspaces are kept for graphs up to this many nodes. A kept workspace holds about 0.5 KB
/// per node of the largest graph since (hyp: about 100 MB); release_detection_memory() frees
/// it. Beyond this size the batched moving runs, and fresh memory matters less.
constexpr std::size_t kKeepNodes = kSequentialNodes;

/// The calling thread's workspace from its last complete run.
thread_local std::unique_ptr<Workspace> kept_workspace;

/// Renumbers ids by first appearance; returns how many there are. Every id is below
/// ids.size() here (communities and refined communities are named by nodes).
std::uint32_t compact(std::vector<std::uint32_t>& ids, std::vector<std::uint32_t>& map)
{
    map.assign(ids.size(), kToEmpty);
    std::uint32_t next = 0;
    for (std::uint32_t& c : ids) {
        if (map[c] == kToEmpty) map[c] = next++;
        c = map[c];
    }
    return next;
}

/// A random order of [first, first + n) that keeps some locality: blocks of consecutive ids in
/// random order, each block shuffled. Nodes near in id tend to share neighbours, and so cache
/// lines. Up to one block long, it is a plain shuffle.
void local_shuffle(std::uint32_t first, std::size_t n, SeededRandom& rng,
                   std::vector<NodeId>& order)
{
    constexpr std::size_t kBlock = 256;
    const std::size_t blocks = (n + kBlock - 1) / kBlock;
    order.clear();
    order.reserve(n);
    std::uint32_t block_order_stack[64];
    std::vector<std::uint32_t> block_order_heap;
    std::span<std::uint32_t> block_order(block_order_stack, std::min<std::size_t>(blocks, 64));
    if (blocks > 64) {
        block_order_heap.resize(blocks);
        block_order = block_order_heap;
    }
    std::iota(block_order.begin(), block_order.end(), 0u);
    rng.shuffle(block_order);
    for (std::uint32_t b : block_order) {
        const std::size_t begin = order.size();
        for (std::size_t i = b * kBlock; i < std::min(n, (b + 1) * kBlock); ++i)
            order.push_back(static_cast<NodeId>(first + i));
        rng.shuffle(std::span<NodeId>(order.data() + begin, order.size() - begin));
    }
}

/// The best community for v: among its neighbours' communities, or a new one of its own
/// (kToEmpty) where that gains and `from_shared()` says that v is not alone. The state is read
/// through community_of(u) and strength_of(c), so that a batch's decisions can see an overlay.
/// Sets `gain_out` to the gain over staying. kStackRows: short rows gather on the stack (large
/// graphs); otherwise every row goes through `acc`, which a small graph keeps in cache.
template <bool kStackRows, class CommunityOf, class StrengthOf, class FromShared>
std::uint32_t best_community(const WeightedGraph& g, NodeId v, std::uint32_t from, double kv,
                             double gs, WorkerScratch& s, CommunityOf community_of,
                             StrengthOf strength_of, FromShared from_shared, double& gain_out)
{
    const std::uint64_t e0 = g.offsets[v], e1 = g.offsets[v + 1];
    const NodeId* const targets = g.targets.data();
    const double* const weights = g.weights.data();
    // The neighbour communities with their weights, in order of first appearance. A low
    // degree (most circuit nodes) uses a small array on the stack, searched linearly: it
    // stays in L1, where the n-long `acc` costs a cache miss per community.
    std::uint32_t cs[kSmallDegree];
    double ws[kSmallDegree];
    std::uint32_t* touched = cs;
    std::size_t touched_count = 0;
    double w_from = 0;
    double* const acc = s.acc.data();
    if (kStackRows && e1 - e0 <= kSmallDegree) {
        for (std::uint64_t e = e0; e < e1; ++e) {
            const NodeId u = targets[e];
            const std::uint32_t c = community_of(u);
            if (u == v || c == kToEmpty) continue; // a new community: not a candidate
            std::size_t j = 0;
            while (j < touched_count && cs[j] != c) ++j;
            if (j == touched_count) {
                cs[j] = c;
                ws[j] = 0;
                ++touched_count;
            }
            ws[j] += weights[e];
        }
        for (std::size_t j = 0; j < touched_count; ++j)
            if (cs[j] == from) w_from = ws[j];
    } else {
        touched = s.slots.get();
        for (std::uint64_t e = e0; e < e1; ++e) {
            const NodeId u = targets[e];
            const std::uint32_t c = community_of(u);
            if (u == v || c == kToEmpty) continue;
            touched[touched_count] = c;
            touched_count += is_zero(acc[c]);
            acc[c] += weights[e];
        }
        w_from = acc[from];
    }
    const bool large = touched != cs;
    const double eps = 1e-12 * std::max(kv, 1.0);
    const double stay = w_from - gs * kv * (strength_of(from) - kv);
    double best = stay;
    std::uint32_t target = from;
    for (std::size_t i = 0; i < touched_count; ++i) {
        const std::uint32_t c = touched[i];
        double w_c;
        if (large) {
            w_c = acc[c];
            acc[c] = 0;
        } else {
            w_c = ws[i];
        }
        if (c == from) continue;
        const double q = w_c - gs * kv * strength_of(c);
        if (q > best + eps) {
            best = q;
            target = c;
        }
    }
    // Leaving for a new community of its own: tested last, as it is rare and looks up the size.
    if (0 > best + eps && from_shared()) {
        best = 0;
        target = kToEmpty;
    }
    gain_out = best - stay;
    return target;
}

class Detector {
public:
    Detector(const WeightedGraph& g, const CommunityOptions& options, Workspace& workspace)
        : g0_(g), options_(options), pool_(workspace.pool_for(options.threads)), ws_(workspace)
    {
    }

    CommunityResult run();

private:
    struct Pass {
        std::vector<std::uint32_t> membership;
        double modularity = 0;
        std::vector<std::vector<std::uint32_t>> levels; ///< when asked to keep them
        std::vector<double> level_modularity;
        bool unrefined = false; ///< a level was aggregated by its unrefined partition
    };

    /// Nodes per chunk of a pass over rows whose nodes are independent (the result does not
    /// depend on the chunks): a few chunks per thread, so that an uneven chunk or a late
    /// thread costs little (chunks of 4096 split b14's 10,044 nodes 4096 + 4096 + 1852, and
    /// left its second level of 3,977 to one thread); small levels stay on the calling
    /// thread, where waking the others costs more than the pass.
    std::size_t node_grain(std::size_t n) const
    {
        return n < kInlineNodes ? n : std::max<std::size_t>(512, n / (4 * pool_.size()));
    }

    void check_cancel() const
    {
        if (options_.cancel && options_.cancel->load(std::memory_order_relaxed)) throw Cancelled{};
    }

    Pass one_pass(const std::vector<std::uint32_t>& start, std::uint64_t seed,
                  bool keep_levels);
    void move_nodes(const WeightedGraph& g, const std::vector<double>& k,
                    std::vector<std::uint32_t>& member, std::uint64_t seed, bool queue_mode);
    void move_in_order(const WeightedGraph& g, const std::vector<double>& k,
                       std::vector<std::uint32_t>& member);
    template <class MayJoin>
    std::size_t run_queue(const WeightedGraph& g, const std::vector<double>& k,
                          std::uint32_t* community, std::span<NodeId> ring, std::size_t count,
                          std::uint8_t* queued, std::vector<std::uint32_t>& empty,
                          WorkerScratch& s, MayJoin may_join);
    /// The refined partition, into ws_.refined.
    void refine(const WeightedGraph& g, const std::vector<double>& k,
                const std::vector<std::uint32_t>& member, std::uint32_t communities,
                std::uint64_t seed);
    void aggregate(const WeightedGraph& g, const std::vector<std::uint32_t>& agg_of,
                   std::uint32_t aggregate_count, std::vector<double>& self_weight,
                   WeightedGraph& out);
    std::size_t split_disconnected(std::vector<std::uint32_t>& membership) const;

    const WeightedGraph& g0_;
    CommunityOptions options_;
    WorkerPool& pool_;
    double gamma_scaled_ = 0; ///< gamma / 2m: the weight of the null-model term
    double two_m_inverse_ = 0;
    Workspace& ws_;
    // The phases' buffers, reused by every level and pass (see first_n and Workspace).
    std::vector<double>& strength0_ = ws_.strength0;
    std::vector<WorkerScratch>& scratch_ = ws_.scratch;
    std::vector<double>& tot_ = ws_.tot;
    std::vector<std::uint32_t>& size_ = ws_.size;
    std::vector<std::uint64_t>& changed_ = ws_.changed;
    std::uint64_t& stamp_ = ws_.stamp;
    std::vector<NodeId>& order_ = ws_.order;
    std::vector<std::uint8_t>& queued_ = ws_.queued;
    std::vector<std::uint64_t>&start_ = ws_.start, &bound_ = ws_.bound;
    std::vector<NodeId>& nodes_ = ws_.nodes;
    std::vector<std::uint32_t>&position_ = ws_.position, &root_ = ws_.root, &rsize_ = ws_.rsize;
    std::vector<double>&inside_ = ws_.inside, &outside_ = ws_.outside, &rtot_ = ws_.rtot;
    std::vector<NodeId>& wide_targets_ = ws_.wide_targets;
    std::vector<double>& wide_weights_ = ws_.wide_weights;
};

void Detector::move_nodes(const WeightedGraph& g, const std::vector<double>& k,
                          std::vector<std::uint32_t>& member, std::uint64_t seed, bool queue_mode)
{
    const std::size_t n = g.node_count();
    const std::span<double> tot = first_n(tot_, n);
    const std::span<std::uint32_t> size = first_n(size_, n);
    std::fill(tot.begin(), tot.end(), 0.0);
    std::fill(size.begin(), size.end(), 0u);
    for (NodeId v = 0; v < n; ++v) {
        tot[member[v]] += k[v];
        ++size[member[v]];
    }
    SeededRandom rng(seed);
    std::vector<NodeId>& order = order_;
    local_shuffle(0, n, rng, order);
    if (queue_mode && n <= kSequentialNodes) {
        move_in_order(g, k, member);
        return;
    }
    // May hold stale ids: a popped id is used only if empty.
    std::vector<std::uint32_t>& empty = ws_.empty;
    empty.clear();
    for (std::size_t c = n; c-- > 0;)
        if (size[c] == 0) empty.push_back(static_cast<std::uint32_t>(c));

    const double gs = gamma_scaled_;
    const std::size_t batch = std::clamp<std::size_t>(n / kBatchFraction, 1, kMaxBatch);
    const std::span<std::uint32_t> decision = first_n(ws_.decision, batch);
    const std::span<double> gain = first_n(ws_.gain, batch);
    const std::span<NodeId> batch_nodes = first_n(ws_.batch_nodes, batch);

    // Decisions. The nodes of one chunk (kDecideGrain consecutive batch entries, a fixed split)
    // are decided one after another, each seeing the moves decided before it in its chunk
    // through an overlay on the state at the batch start; chunks run in parallel.
    const std::uint64_t* const offsets = g.offsets.data();
    const NodeId* const targets = g.targets.data();
    const double* const weights = g.weights.data();
    const std::uint32_t* const community = member.data();
    auto decide = [&](NodeId v, WorkerScratch& s, double& best_gain_out) {
        const std::uint32_t from = community[v];
        const std::uint64_t* const moved_bits = s.moved_bits.data();
        const std::uint64_t* const delta_bits = s.delta_bits.data();
        const std::uint32_t* const moved_to = s.moved_to.get();
        const double* const tot_delta = s.tot_delta.get();
        return best_community<true>(
            g, v, from, k[v], gs, s,
            [&](NodeId u) {
                return (moved_bits[u >> 6] >> (u & 63) & 1) ? moved_to[u] : community[u];
            },
            [&](std::uint32_t c) {
                return (delta_bits[c >> 6] >> (c & 63) & 1) ? tot[c] + tot_delta[c] : tot[c];
            },
            [&] {
                // The overlay's size only where the chunk changed `from`.
                return static_cast<std::int64_t>(size[from]) +
                           ((delta_bits[from >> 6] >> (from & 63) & 1) ? s.size_delta[from]
                                                                          : 0) >
                       1;
            },
            best_gain_out);
    };
    auto decide_batch = [&](std::size_t count) {
        check_cancel();
        pool_.parallel_for(count, kDecideGrain, [&](std::size_t b, std::size_t e, unsigned w) {
            WorkerScratch& s = scratch_[w];
            constexpr std::size_t kAhead = 8;
            for (std::size_t i = b; i < e; ++i) {
                if (i + 2 * kAhead < e) __builtin_prefetch(offsets + batch_nodes[i + 2 * kAhead]);
                if (i + kAhead < e) {
                    const std::uint64_t first = offsets[batch_nodes[i + kAhead]];
                    __builtin_prefetch(targets + first);
                    __builtin_prefetch(weights + first);
                }
                const NodeId v = batch_nodes[i];
                const std::uint32_t to = decision[i] = decide(v, s, gain[i]);
                const std::uint32_t from = community[v];
                if (to == from) continue;
                s.moved_to[v] = to;
                s.moved_bits[v >> 6] |= std::uint64_t{1} << (v & 63);
                s.moved_nodes.push_back(v);
                // A community's deltas start at its first change in the chunk.
                auto delta_of = [&](std::uint32_t c) {
                    std::uint64_t& word = s.delta_bits[c >> 6];
                    const std::uint64_t bit = std::uint64_t{1} << (c & 63);
                    if (!(word & bit)) {
                        word |= bit;
                        s.tot_delta[c] = 0;
                        s.size_delta[c] = 0;
                        s.delta_communities.push_back(c);
                    }
                    return c;
                };
                s.tot_delta[delta_of(from)] -= k[v];
                --s.size_delta[from];
                if (to != kToEmpty) {
                    s.tot_delta[delta_of(to)] += k[v];
                    ++s.size_delta[to];
                }
            }
            for (NodeId v : s.moved_nodes) s.moved_bits[v >> 6] = 0;
            for (std::uint32_t c : s.delta_communities) s.delta_bits[c >> 6] = 0;
            s.moved_nodes.clear();
            s.delta_communities.clear();
        });
    };

    // Applying, in batch order. A decision assumed the batch-start state plus its own chunk's
    // earlier moves; where another chunk changed its own or its target community, or a move it
    // counted on was refused, it is checked again against the current state. So every move
    // applied improves the quality, and no two neighbours swap places forever.
    // changed[c]: batch stamp << 32 | (chunk + 1) of the one chunk that changed c, or 0 for
    // "several chunks, or a refused move".
    // Stamps only grow (across levels, passes and calls), one a batch, so the array is never
    // cleared: what earlier batches left carries a smaller stamp and never matches.
    const std::span<std::uint64_t> changed = first_n(changed_, n);
    std::uint64_t& batch_stamp = stamp_;
    auto changed_elsewhere = [&](std::uint32_t c, std::uint64_t chunk) {
        return (changed[c] >> 32) == batch_stamp && (changed[c] & 0xffffffffu) != chunk + 1;
    };
    auto note_change = [&](std::uint32_t c, std::uint64_t chunk) {
        const bool other =
            (changed[c] >> 32) == batch_stamp && (changed[c] & 0xffffffffu) != chunk + 1;
        changed[c] = batch_stamp << 32 | (other ? 0 : chunk + 1);
    };
    auto gain_now = [&](NodeId v, std::uint32_t from, std::uint32_t to) {
        double w_from = 0, w_to = 0;
        for (std::uint64_t e = g.offsets[v]; e < g.offsets[v + 1]; ++e) {
            const NodeId u = g.targets[e];
            if (u == v) continue;
            const std::uint32_t c = member[u];
            if (c == from)
                w_from += g.weights[e];
            else if (c == to)
                w_to += g.weights[e];
        }
        const double kv = k[v];
        const double go = to == kToEmpty ? 0.0 : w_to - gs * kv * tot[to];
        return go - (w_from - gs * kv * (tot[from] - kv));
    };
    auto apply = [&](std::size_t i) {
        const NodeId v = batch_nodes[i];
        const std::uint64_t chunk = i / kDecideGrain;
        std::uint32_t target = decision[i];
        const std::uint32_t from = member[v];
        if (target == from) return false;
        auto refuse = [&] {
            changed[from] = batch_stamp << 32;
            if (target != kToEmpty) changed[target] = batch_stamp << 32;
            return false;
        };
        if (changed_elsewhere(from, chunk) ||
            (target != kToEmpty && changed_elsewhere(target, chunk))) {
            gain[i] = gain_now(v, from, target);
            if (!(gain[i] > 1e-12 * std::max(k[v], 1.0))) return refuse();
        }
        if (target == kToEmpty) {
            if (size[from] == 1) return refuse(); // the others left: it is alone already
            target = pop_empty(empty, size.data());
            if (target == kToEmpty) return refuse(); // never: n ids serve n nodes
        }
        tot[from] -= k[v];
        tot[target] += k[v];
        --size[from];
        ++size[target];
        member[v] = target;
        note_change(from, chunk);
        note_change(target, chunk);
        if (size[from] == 0) empty.push_back(from);
        return true;
    };

    if (queue_mode) {
        // Leiden's fast local moving: a node that moves puts its neighbours outside its new
        // community back in the queue. `order` is the ring buffer holding the queue.
        const std::span<std::uint8_t> queued = first_n(queued_, n);
        std::fill(queued.begin(), queued.end(), std::uint8_t{1});
        std::vector<NodeId>& moved = ws_.moved;
        struct alignas(64) NodeList {
            std::vector<NodeId> nodes;
        };
        std::vector<NodeList> requeue((batch + kDecideGrain - 1) / kDecideGrain);
        std::size_t head = 0, count = n;
        std::size_t visits = 0;
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
            moved.clear();
            for (std::size_t i = 0; i < b; ++i)
                if (apply(i)) moved.push_back(batch_nodes[i]);
            // Neighbours of moved nodes outside their new community, found in parallel (fixed
            // chunks), queued in order.
            const std::size_t parts = (moved.size() + kDecideGrain - 1) / kDecideGrain;
            pool_.parallel_for(parts, 1, [&](std::size_t p0, std::size_t p1, unsigned) {
                for (std::size_t p = p0; p < p1; ++p) {
                    std::vector<NodeId>& out = requeue[p].nodes;
                    out.clear();
                    for (std::size_t j = p * kDecideGrain;
                         j < std::min(moved.size(), (p + 1) * kDecideGrain); ++j) {
                        const NodeId v = moved[j];
                        const std::uint32_t to = member[v];
                        for (std::uint64_t e = offsets[v]; e < offsets[v + 1]; ++e) {
                            const NodeId u = targets[e];
                            if (!queued[u] && member[u] != to) out.push_back(u);
                        }
                    }
                }
            });
            for (std::size_t p = 0; p < parts; ++p)
                for (NodeId u : requeue[p].nodes) {
                    if (queued[u]) continue;
                    queued[u] = 1;
                    std::size_t tail = head + count;
                    if (tail >= n) tail -= n;
                    order[tail] = u;
                    ++count;
                }
        }
        return;
    }

    // Louvain: sweeps over all nodes until one gains little. On deep circuits the gains keep a
    // long thin tail (boundaries creep one node per sweep), so "little" is relative to the
    // first sweep's gain; the levels above move whole groups and take over.
    double first_gain = 0;
    for (int sweep = 0; sweep < kMaxLouvainSweeps; ++sweep) {
        std::size_t moves = 0;
        double gained = 0;
        for (std::size_t start = 0; start < n; start += batch) {
            const std::size_t b = std::min(batch, n - start);
            std::copy_n(order.begin() + static_cast<std::ptrdiff_t>(start), b,
                        batch_nodes.begin());
            decide_batch(b);
            ++batch_stamp;
            for (std::size_t i = 0; i < b; ++i)
                if (apply(i)) {
                    ++moves;
                    gained += gain[i];
                }
        }
        if (sweep == 0) first_gain = gained;
        if (moves == 0 || gained <= kLouvainMinGainShare * first_gain) break;
        local_shuffle(0, n, rng, order);
    }
}

/// Runs one queue of Leiden's fast local moving to its end (or to 64 visits per slot), one node
/// at a time, each move applied at once. `ring` holds the queue, `count` entries from its
/// start; a node that moves puts its neighbours outside its new community at the tail, where
/// `may_join` allows. `empty` lists empty communities that moves may open (stale ids allowed).
/// Returns the visits made.
template <class MayJoin>
std::size_t Detector::run_queue(const WeightedGraph& g, const std::vector<double>& k,
                                std::uint32_t* community, std::span<NodeId> ring,
                                std::size_t count, std::uint8_t* queued,
                                std::vector<std::uint32_t>& empty, WorkerScratch& s,
                                MayJoin may_join)
{
    const std::size_t ring_size = ring.size();
    double* const tot = tot_.data();
    std::uint32_t* const size = size_.data();
    const double gs = gamma_scaled_;
    const std::uint64_t* const offsets = g.offsets.data();
    const NodeId* const targets = g.targets.data();
    const double* const weights = g.weights.data();
    double* const acc = s.acc.data();
    std::uint32_t* const touched = s.slots.get();
    std::size_t head = 0, visits = 0;
    const std::size_t max_visits = 64 * ring_size + 1024;
    while (count > 0 && visits < max_visits) {
        if ((visits & 4095) == 0) check_cancel();
        const NodeId v = ring[head];
        head = head + 1 == ring_size ? 0 : head + 1;
        --count;
        ++visits;
        queued[v] = 0;
        const std::uint32_t from = community[v];
        // The best community, as best_community() chooses it, with branches only where they
        // are predictable: the row merges through `acc` (the graph is small: it stays in
        // cache); a self loop adds nothing (weight 0 rather than a skip: at most it lists its
        // community twice, and the copy reads 0); no test for `from` among the candidates, as
        // its own score is below staying's by gs * kv^2.
        const double kv = k[v];
        const std::uint64_t e0 = offsets[v], e1 = offsets[v + 1];
        std::size_t touched_count = 0;
        for (std::uint64_t e = e0; e < e1; ++e) {
            const NodeId u = targets[e];
            const std::uint32_t c = community[u];
            const double w = weights[e] * static_cast<double>(u != v);
            touched[touched_count] = c;
            touched_count += is_zero(acc[c]);
            acc[c] += w;
        }
        const double eps = 1e-12 * std::max(kv, 1.0);
        const double scale = gs * kv;
        double best = acc[from] - scale * (tot[from] - kv); // staying
        std::uint32_t to = from;
        for (std::size_t i = 0; i < touched_count; ++i) {
            const std::uint32_t c = touched[i];
            const double q = acc[c] - scale * tot[c];
            acc[c] = 0;
            const bool better = q > best + eps;
            best = better ? q : best;
            to = better ? c : to;
        }
        // Leaving for a new community of its own: tested last, as it is rare.
        if (0 > best + eps && size[from] > 1) to = kToEmpty;
        if (to == kToEmpty) to = pop_empty(empty, size);
        if (to == from || to == kToEmpty) continue;
        tot[from] -= kv;
        tot[to] += kv;
        --size[from];
        ++size[to];
        community[v] = to;
        if (size[from] == 0) empty.push_back(from);
        // Neighbours outside the new community join the queue's tail, which is always free
        // (v has just left the queue), so it is written whether or not u joins.
        for (std::uint64_t e = e0; e < e1; ++e) {
            const NodeId u = targets[e];
            const bool join = may_join(u) & !queued[u] & (community[u] != to);
            std::size_t tail = head + count;
            tail = tail >= ring_size ? tail - ring_size : tail;
            ring[tail] = u;
            queued[u] |= static_cast<std::uint8_t>(join);
            count += join;
        }
    }
    return visits;
}

/// Leiden's fast local moving one node at a time, each move applied at once: for graphs of up
/// to kSequentialNodes, where the batch machinery (overlay, re-checks, a separate pass to queue
/// the neighbours) costs more than the moves. `order_` holds every node in random order;
/// tot_, size_ hold the state of `member`.
///
/// From kPartNodes nodes on, the communities are split in two parts by id, about half the
/// nodes each. A node whose community and whose neighbours' communities all lie in one part
/// is interior to it: it can only join that part's communities (or an empty one of that
/// part's ids), and no node of the other part reads what it writes. So the two parts' interior
/// nodes move at the same time, each part with its own queue (in `order_`'s order) that only
/// its interior nodes join. Then one queue of the remaining (boundary) nodes runs over the
/// whole graph, as above, its moves queueing any neighbour. Every choice depends on the graph
/// and the seed only, so the thread count still cannot change a partition.
void Detector::move_in_order(const WeightedGraph& g, const std::vector<double>& k,
                             std::vector<std::uint32_t>& member)
{
    const std::size_t n = g.node_count();
    std::uint32_t* const community = member.data();
    std::uint8_t* const queued = first_n(queued_, n).data();
    const std::uint32_t* const size = size_.data();
    const std::span<NodeId> order = first_n(order_, n);
    auto any = [](NodeId) { return true; };
    // Empty communities with ids in [c0, c1), the lowest popped first.
    auto empty_in = [&](std::vector<std::uint32_t>& empty, std::size_t c0, std::size_t c1) {
        empty.clear();
        for (std::size_t c = c1; c-- > c0;)
            if (size[c] == 0) empty.push_back(static_cast<std::uint32_t>(c));
    };
    if (n < kPartNodes) {
        std::fill(queued, queued + n, std::uint8_t{1});
        empty_in(ws_.empty, 0, n);
        run_queue(g, k, community, order, n, queued, ws_.empty, scratch_[0], any);
        return;
    }
    std::size_t below = 0;
    std::uint32_t split = 0;
    while (split < n && 2 * below < n) below += size[split++];
    // Part 0's nodes (`below` of them) may need as many communities, but it owns only `split`
    // ids, all of them in use when the ids are dense (every level after the first): it also
    // gets the highest below - split empty ids of part 1's range, which part 1 (n - below
    // nodes, n - split ids) can spare. No part-1 node reads or joins them: a part-0 interior
    // node has no neighbour in part 1.
    std::vector<std::uint32_t>& lent = ws_.lent;
    lent.clear();
    for (std::size_t c = n; c-- > split && lent.size() + split < below;)
        if (size[c] == 0) lent.push_back(static_cast<std::uint32_t>(c));
    const std::size_t lent_from = lent.empty() ? n : lent.back(); // part 1 keeps [split, this)
    constexpr std::uint8_t kBoundary = 2;
    std::uint8_t* const side = first_n(ws_.side, n).data();
    const std::uint64_t* const offsets = g.offsets.data();
    const NodeId* const targets = g.targets.data();
    pool_.parallel_for(n, node_grain(n), [&](std::size_t b, std::size_t e, unsigned) {
        for (std::size_t v = b; v < e; ++v) {
            const bool own = community[v] >= split;
            bool mixed = false;
            for (std::uint64_t i = offsets[v]; i < offsets[v + 1]; ++i)
                mixed |= (community[targets[i]] >= split) != own;
            side[v] = mixed ? kBoundary : static_cast<std::uint8_t>(own);
        }
    });
    pool_.parallel_for(2, 1, [&](std::size_t p0, std::size_t p1, unsigned w) {
        for (std::size_t p = p0; p < p1; ++p) {
            std::vector<NodeId>& ring = ws_.part_ring[p];
            // Only this part's nodes' marks are read (may_join), so the others are left as
            // they are.
            std::uint8_t* const part_queued = first_n(ws_.part_queued[p], n).data();
            ring.clear();
            for (const NodeId v : order)
                if (side[v] == p) {
                    ring.push_back(v);
                    part_queued[v] = 1;
                }
            if (ring.empty()) continue;
            std::vector<std::uint32_t>& empty = ws_.part_empty[p];
            empty_in(empty, p == 0 ? 0 : split, p == 0 ? split : lent_from);
            if (p == 0) // its own ids are popped first (the lowest first), the lent ones after
                empty.insert(empty.begin(), lent.begin(), lent.end());
            run_queue(g, k, community, std::span<NodeId>(ring), ring.size(), part_queued,
                      empty, scratch_[w], [&](NodeId u) { return side[u] == p; });
        }
    });
    std::size_t count = 0;
    for (std::size_t i = 0; i < n; ++i) {
        const NodeId v = order[i];
        const bool boundary = side[v] == kBoundary;
        queued[v] = boundary;
        order[count] = v;
        count += boundary;
    }
    empty_in(ws_.empty, 0, n);
    run_queue(g, k, community, order, count, queued, ws_.empty, scratch_[0], any);
}

void Detector::refine(const WeightedGraph& g, const std::vector<double>& k,
                      const std::vector<std::uint32_t>& member, std::uint32_t communities,
                      std::uint64_t seed)
{
    const std::size_t n = g.node_count();
    const std::span<std::uint64_t> start = first_n(start_, communities + 1);
    std::fill(start.begin(), start.end(), 0u);
    for (NodeId v = 0; v < n; ++v) ++start[member[v] + 1];
    for (std::uint32_t c = 0; c < communities; ++c) start[c + 1] += start[c];
    const std::span<NodeId> nodes = first_n(nodes_, n);
    const std::span<std::uint32_t> position = first_n(position_, n); ///< of each node in `nodes`
    {
        std::vector<std::uint64_t>& fill = ws_.fill;
        fill.assign(start.begin(), start.end() - 1);
        for (NodeId v = 0; v < n; ++v) {
            position[v] = static_cast<std::uint32_t>(fill[member[v]]);
            nodes[fill[member[v]]++] = v;
        }
    }
    // The refinement state is kept by position, so that each community owns one run of every
    // array (no two threads write the same cache line), and refined communities are named by
    // the position of their first node.
    const std::span<std::uint32_t> root = first_n(root_, n), rsize = first_n(rsize_, n);
    const std::span<double> inside = first_n(inside_, n), outside = first_n(outside_, n),
                            rtot = first_n(rtot_, n);
    // Every node starts as a refined community of its own. Here, in node order (rows read one
    // after another), each node's neighbours in its own community are listed by position,
    // where its row of g lies, and their weights summed: the refinement then reads only its
    // community's lines, in place of a random lookup per neighbour.
    const std::span<std::uint64_t> in_first = first_n(ws_.in_first, n);
    const std::span<std::uint32_t> in_count = first_n(ws_.in_count, n);
    const std::span<std::uint32_t> in_target = first_n(ws_.in_target, g.entry_count());
    const std::span<double> in_weight = first_n(ws_.in_weight, g.entry_count());
    pool_.parallel_for(n, node_grain(n), [&](std::size_t b, std::size_t e, unsigned) {
        for (std::size_t v = b; v < e; ++v) {
            const std::uint32_t c = member[v], p = position[v];
            const std::uint64_t first = g.offsets[v];
            std::uint32_t count = 0;
            double w_in = 0;
            for (std::uint64_t i = first; i < g.offsets[v + 1]; ++i) {
                const NodeId u = g.targets[i];
                const bool in = (member[u] == c) & (u != v);
                in_target[first + count] = position[u]; // kept only if in: no branch
                in_weight[first + count] = g.weights[i];
                count += in;
                w_in += g.weights[i] * static_cast<double>(in);
            }
            in_first[p] = first;
            in_count[p] = count;
            inside[p] = outside[p] = w_in;
            root[p] = p;
            rtot[p] = k[v];
            rsize[p] = 1;
        }
    });
    const double gs = gamma_scaled_;
    const double theta = options_.randomness;

    auto refine_one = [&](std::uint32_t c, WorkerScratch& s) {
        const std::uint32_t p0 = static_cast<std::uint32_t>(start[c]);
        const std::uint32_t p1 = static_cast<std::uint32_t>(start[c + 1]);
        if (p1 - p0 == 1) return;
        double total = 0;
        for (std::uint32_t p = p0; p < p1; ++p) total += rtot[p];
        // Positions follow node ids inside a community: a large community (pass 2 merges
        // thousands of nodes) is visited block by block, whose rows and states share lines.
        SeededRandom rng(derive_seed(seed, c));
        local_shuffle(p0, p1 - p0, rng, s.order);
        double* const acc = s.acc.data();
        for (const std::uint32_t p : s.order) {
            if (root[p] != p || rsize[p] != 1) continue; // only singletons move
            const double kv = rtot[p];                   // a singleton's: its node's strength
            if (inside[p] < gs * kv * (total - kv)) continue; // v is not well connected
            std::uint32_t* const touched = s.slots.get();
            std::size_t touched_count = 0;
            const std::uint64_t first = in_first[p];
            for (std::uint64_t i = first; i < first + in_count[p]; ++i) {
                const std::uint32_t r = root[in_target[i]];
                touched[touched_count] = r;
                touched_count += is_zero(acc[r]);
                acc[r] += in_weight[i];
            }
            // Candidates: well-connected subcommunities that v does not make worse; staying
            // (gain 0) is one of them. Chosen with probability ~ exp(gain / theta); exp(-40)
            // is below the rounding of the sum, so choices further than 40 theta below the
            // best are left out, and where only one is left, it is taken without a draw.
            // Written whether or not they qualify (the count advances only if they do): the
            // test is a coin toss for the branch predictor.
            std::uint32_t* const candidates = s.candidates.data();
            double* const gains = s.gains.data();
            std::size_t candidate_count = 0;
            double best = 0;
            std::uint32_t chosen = p;
            for (std::size_t i = 0; i < touched_count; ++i) {
                const std::uint32_t r = touched[i];
                const double gain = acc[r] - gs * kv * rtot[r];
                const bool ok =
                    (gain >= 0) & (outside[r] >= gs * rtot[r] * (total - rtot[r]));
                candidates[candidate_count] = r;
                gains[candidate_count] = gain;
                candidate_count += ok;
                const bool better = ok & (gain > best);
                best = better ? gain : best;
                chosen = better ? r : chosen;
            }
            const double cut = best - 40 * theta;
            std::size_t near = 0 >= cut;
            for (std::size_t i = 0; i < candidate_count; ++i) near += gains[i] >= cut;
            if (theta > 0 && near > 1) {
                auto weight = [&](double gain) {
                    const double x = (gain - best) / theta;
                    return x < -40 ? 0.0 : std::exp(x);
                };
                const double stay = weight(0);
                double sum = stay;
                for (std::size_t i = 0; i < candidate_count; ++i)
                    sum += (gains[i] = weight(gains[i]));
                double pick = rng.uniform() * sum - stay;
                chosen = p;
                for (std::size_t i = 0; i < candidate_count && pick >= 0; ++i) {
                    if (gains[i] == 0) continue;
                    chosen = candidates[i];
                    pick -= gains[i];
                }
            }
            if (chosen != p) {
                root[p] = chosen;
                rtot[chosen] += kv;
                ++rsize[chosen];
                outside[chosen] += inside[p] - 2 * acc[chosen];
                rsize[p] = 0;
                rtot[p] = 0;
            }
            for (std::size_t i = 0; i < touched_count; ++i) acc[touched[i]] = 0;
        }
    };
    // Communities are independent: small chunks keep both threads busy when a few are large.
    const std::size_t grain =
        n < kInlineNodes
            ? communities
            : std::clamp<std::size_t>(communities / (8 * pool_.size()), 1, kCommunityGrain);
    pool_.parallel_for(communities, grain, [&](std::size_t b, std::size_t e, unsigned w) {
        check_cancel();
        for (std::size_t c = b; c < e; ++c) refine_one(static_cast<std::uint32_t>(c), scratch_[w]);
    });
    std::vector<std::uint32_t>& refined = ws_.refined;
    refined.resize(n);
    pool_.parallel_for(n, 1 << 14, [&](std::size_t b, std::size_t e, unsigned) {
        for (std::size_t v = b; v < e; ++v) refined[v] = nodes[root[position[v]]];
    });
}

void Detector::aggregate(const WeightedGraph& g, const std::vector<std::uint32_t>& agg_of,
                         std::uint32_t aggregate_count, std::vector<double>& self_weight,
                         WeightedGraph& out)
{
    self_weight.assign(aggregate_count, 0.0);
    const std::size_t n = g.node_count();
    const std::span<std::uint64_t> start = first_n(start_, aggregate_count + 1),
                                   bound = first_n(bound_, aggregate_count + 1);
    std::fill(start.begin(), start.end(), 0u);
    std::fill(bound.begin(), bound.end(), 0u);
    for (NodeId v = 0; v < n; ++v) {
        ++start[agg_of[v] + 1];
        bound[agg_of[v] + 1] += g.degree(v);
    }
    for (std::uint32_t a = 0; a < aggregate_count; ++a) {
        start[a + 1] += start[a];
        bound[a + 1] += bound[a];
    }
    const std::span<NodeId> nodes = first_n(nodes_, n);
    {
        std::vector<std::uint64_t>& fill = ws_.fill;
        fill.assign(start.begin(), start.end() - 1);
        for (NodeId v = 0; v < n; ++v) nodes[fill[agg_of[v]]++] = v;
    }
    // Each row is written at its upper bound (the sum of its members' degrees), then packed.
    const std::span<NodeId> wide_targets = first_n(wide_targets_, g.entry_count());
    const std::span<double> wide_weights = first_n(wide_weights_, g.entry_count());
    out.offsets.assign(aggregate_count + 1, 0);
    const std::size_t rows_per_chunk = n < kInlineNodes ? aggregate_count : 512;
    const bool cached = n <= kCachedNodes;
    pool_.parallel_for(
        aggregate_count, rows_per_chunk, [&](std::size_t a0, std::size_t a1, unsigned w) {
            check_cancel();
            WorkerScratch& s = scratch_[w];
            double* const acc = s.acc.data();
            std::uint32_t* const touched = s.slots.get();
            for (std::size_t a = a0; a < a1; ++a) {
                std::size_t count = 0;
                NodeId* row_targets = wide_targets.data() + bound[a];
                double* row_weights = wide_weights.data() + bound[a];
                if (!cached && bound[a + 1] - bound[a] <= kSmallDegree) {
                    // Short rows (most of them on the first levels): merged by a linear search
                    // in place, in the same order as below.
                    double self = 0;
                    for (std::uint64_t i = start[a]; i < start[a + 1]; ++i) {
                        const NodeId v = nodes[i];
                        for (std::uint64_t e = g.offsets[v]; e < g.offsets[v + 1]; ++e) {
                            const std::uint32_t b = agg_of[g.targets[e]];
                            std::size_t j = 0;
                            while (j < count && row_targets[j] != b) ++j;
                            if (j == count) {
                                row_targets[j] = b;
                                row_weights[j] = 0;
                                ++count;
                            }
                            row_weights[j] += g.weights[e];
                        }
                    }
                    for (std::size_t j = 0; j < count; ++j)
                        if (row_targets[j] == a) self = row_weights[j];
                    self_weight[a] = self;
                    out.offsets[a + 1] = count;
                    continue;
                }
                for (std::uint64_t i = start[a]; i < start[a + 1]; ++i) {
                    const NodeId v = nodes[i];
                    for (std::uint64_t e = g.offsets[v]; e < g.offsets[v + 1]; ++e) {
                        const std::uint32_t b = agg_of[g.targets[e]];
                        touched[count] = b;
                        count += is_zero(acc[b]);
                        acc[b] += g.weights[e];
                    }
                }
                self_weight[a] = acc[a];
                for (std::size_t i = 0; i < count; ++i) {
                    row_targets[i] = touched[i];
                    row_weights[i] = acc[touched[i]];
                    acc[touched[i]] = 0;
                }
                out.offsets[a + 1] = count;
            }
        });
    for (std::uint32_t a = 0; a < aggregate_count; ++a) out.offsets[a + 1] += out.offsets[a];
    out.targets.resize(out.offsets[aggregate_count]);
    out.weights.resize(out.offsets[aggregate_count]);
    pool_.parallel_for(
        aggregate_count, rows_per_chunk * 4, [&](std::size_t a0, std::size_t a1, unsigned) {
            for (std::size_t a = a0; a < a1; ++a) {
                const std::size_t len = out.offsets[a + 1] - out.offsets[a];
                std::copy_n(wide_targets.begin() + static_cast<std::ptrdiff_t>(bound[a]), len,
                            out.targets.begin() + static_cast<std::ptrdiff_t>(out.offsets[a]));
                std::copy_n(wide_weights.begin() + static_cast<std::ptrdiff_t>(bound[a]), len,
                            out.weights.begin() + static_cast<std::ptrdiff_t>(out.offsets[a]));
            }
        });
}

Detector::Pass Detector::one_pass(const std::vector<std::uint32_t>& start, std::uint64_t seed,
                                  bool keep_levels)
{
    const bool leiden = options_.method == Method::Leiden;
    const std::size_t n0 = g0_.node_count();
    const WeightedGraph* g = &g0_;
    std::vector<double>&k = ws_.k, &next_k = ws_.next_k;
    k.assign(strength0_.begin(), strength0_.end());
    std::vector<std::uint32_t>&member = ws_.member, &next_member = ws_.next_member;
    member.assign(start.begin(), start.end());
    compact(member, ws_.map);
    std::vector<std::uint32_t>& node_to_agg = ws_.node_to_agg;
    node_to_agg.resize(n0);
    std::iota(node_to_agg.begin(), node_to_agg.end(), 0u);
    Pass pass;
    for (std::uint64_t level = 0;; ++level) {
        move_nodes(*g, k, member, derive_seed(seed, level, 1), leiden);
        const std::uint32_t communities = compact(member, ws_.map);
        if (communities == g->node_count()) break;
        const std::vector<std::uint32_t>* agg_of = &member;
        std::uint32_t aggregates = communities;
        if (leiden) {
            refine(*g, k, member, communities, derive_seed(seed, level, 2));
            aggregates = compact(ws_.refined, ws_.map);
            if (aggregates == g->node_count()) { // the refinement merged nothing
                aggregates = communities;
                pass.unrefined = true;
            } else {
                agg_of = &ws_.refined;
            }
        }
        // Levels alternate between the two graphs of the workspace.
        WeightedGraph& next = ws_.graphs[level & 1];
        std::vector<double>& self_weight = ws_.self_weight;
        aggregate(*g, *agg_of, aggregates, self_weight, next);
        next_k.assign(aggregates, 0.0);
        next_member.resize(aggregates);
        for (NodeId v = 0; v < g->node_count(); ++v) {
            next_k[(*agg_of)[v]] += k[v];
            next_member[(*agg_of)[v]] = member[v];
        }
        pool_.parallel_for(n0, 1 << 14, [&](std::size_t b, std::size_t e, unsigned) {
            for (std::size_t v = b; v < e; ++v) node_to_agg[v] = (*agg_of)[node_to_agg[v]];
        });
        if (keep_levels) {
            // The level's partition puts each aggregate node alone: its modularity comes from
            // the aggregated graph, whose self loops hold the weight inside.
            pass.levels.push_back(node_to_agg);
            double inside = 0, null_model = 0;
            for (std::uint32_t a = 0; a < aggregates; ++a) {
                inside += self_weight[a];
                null_model += next_k[a] * next_k[a];
            }
            pass.level_modularity.push_back(inside * two_m_inverse_ -
                                            gamma_scaled_ * two_m_inverse_ * null_model);
        }
        g = &next;
        k.swap(next_k);
        member.swap(next_member);
    }
    pass.modularity = modularity(*g, member, options_.resolution);
    pass.membership.resize(n0);
    for (std::size_t v = 0; v < n0; ++v) pass.membership[v] = member[node_to_agg[v]];
    compact(pass.membership, ws_.map);
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
        if (first_component_of[c] == kUnseen)
            first_component_of[c] = next;
        else
            ++splits;
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
    // The phases' jobs alternate with sequential stretches (small levels move one node at a
    // time) longer than a worker's spin: held, a worker woken by the first job polls for the
    // rest of the detection instead of being put to sleep and woken again for every job.
    const WorkerPool::Hold hold(pool_);
    const std::size_t n = g0_.node_count();
    if (!(options_.resolution > 0) || !std::isfinite(options_.resolution))
        throw Error("the resolution must be finite and positive, got " +
                    std::to_string(options_.resolution));
    if (!(options_.randomness >= 0) || !std::isfinite(options_.randomness))
        throw Error("the refinement randomness must be finite and not negative");
    if (n == 0) throw Error("community detection needs a graph with at least one node");
    if (n >= kToEmpty) throw Error("the graph has too many nodes for 32-bit community ids");
    for (double w : g0_.weights)
        if (!(w > 0) || !std::isfinite(w))
            throw Error("edge weights must be finite and positive, got " + std::to_string(w));
    strength0_.resize(n);
    pool_.parallel_for(n, 1 << 14, [&](std::size_t b, std::size_t e, unsigned) {
        for (std::size_t v = b; v < e; ++v) strength0_[v] = g0_.strength(static_cast<NodeId>(v));
    });
    double two_m = 0;
    for (double k : strength0_) two_m += k;
    if (!(two_m > 0))
        throw Error(n == 1 ? std::string("community detection needs edges between two nodes: "
                                         "the graph's one node has none (a self loop does not "
                                         "count)")
                           : "community detection needs edges: the graph's " + std::to_string(n) +
                                 " nodes have none between them");
    gamma_scaled_ = options_.resolution / two_m;
    two_m_inverse_ = 1 / two_m;
    // A kept workspace's scratch only grows; acc and the bit sets are all zeros already.
    if (scratch_.size() < pool_.size()) scratch_.resize(pool_.size());
    for (WorkerScratch& s : scratch_) {
        if (s.capacity >= n) continue;
        s.acc.resize(n, 0.0);
        s.slots.reset(new std::uint32_t[n]);
        s.moved_to.reset(new std::uint32_t[n]);
        s.moved_bits.resize(n / 64 + 1, 0);
        s.delta_bits.resize(n / 64 + 1, 0);
        s.tot_delta.reset(new double[n]);
        s.size_delta.reset(new std::int64_t[n]);
        s.candidates.resize(n);
        s.gains.resize(n);
        s.capacity = n;
    }

    CommunityResult result;
    std::vector<std::uint32_t> start(n);
    std::iota(start.begin(), start.end(), 0u);
    const bool leiden = options_.method == Method::Leiden;
    if (leiden && options_.iterations == 0) throw Error("Leiden needs at least one iteration");
    const int max_passes = !leiden                   ? 1
                           : options_.iterations > 0 ? options_.iterations
                                                     : kMaxLeidenIterations;
    const bool until_stable = leiden && options_.iterations < 0;
    Pass pass;
    for (int i = 0; i < max_passes; ++i) {
        // The levels of the pass that ends the loop: the last one, or any that may find the
        // partition stable before it (more than two passes: one after the first can).
        const bool keep_levels = until_stable || max_passes > 2 || i + 1 == max_passes;
        pass = one_pass(start, derive_seed(options_.seed, static_cast<std::uint64_t>(i)),
                        keep_levels);
        ++result.iterations;
        if (pass.membership == start) break;
        start = pass.membership;
    }
    // Leiden's communities are connected by construction (refined communities grow along
    // edges); only a level aggregated by its unrefined partition could break that.
    std::vector<std::uint32_t> membership = std::move(pass.membership);
    if (leiden && pass.unrefined && split_disconnected(membership) > 0)
        pass.modularity = modularity(g0_, membership, options_.resolution);
    check_cancel();

    result.membership = std::move(membership);
    const bool unit = options_.resolution == 1.0;
    result.objective = pass.modularity;
    result.modularity = unit ? pass.modularity : modularity(g0_, result.membership, 1.0);
    result.sizes = number_by_size(result.membership);
    result.community_count = static_cast<std::uint32_t>(result.sizes.size());
    std::vector<CommunityLevel> levels(pass.levels.size());
    pool_.parallel_for(levels.size(), 1, [&](std::size_t b, std::size_t e, unsigned) {
        for (std::size_t i = b; i < e; ++i) {
            CommunityLevel& l = levels[i];
            l.membership = std::move(pass.levels[i]);
            l.community_count = static_cast<std::uint32_t>(number_by_size(l.membership).size());
            l.modularity = unit ? pass.level_modularity[i] : modularity(g0_, l.membership, 1.0);
        }
    });
    for (CommunityLevel& l : levels)
        if (l.community_count > result.community_count) // finer than the final partition
            result.levels.push_back(std::move(l));
    result.levels.push_back({result.membership, result.community_count, result.modularity});
    return result;
}

} // namespace

std::string_view method_name(Method method)
{
    return method == Method::Louvain ? "Louvain" : "Leiden";
}

std::vector<std::uint32_t> number_by_size(std::vector<std::uint32_t>& membership)
{
    std::uint32_t top = 0;
    for (std::uint32_t c : membership) top = std::max(top, c + 1);
    // Communities in order of their lowest node, then a stable counting sort by size, largest
    // first: O(n), where the levels of a big graph hold many communities.
    std::vector<std::uint32_t> size(top, 0), by_first;
    for (std::uint32_t c : membership)
        if (size[c]++ == 0) by_first.push_back(c);
    std::uint32_t largest = 0;
    for (std::uint32_t c : by_first) largest = std::max(largest, size[c]);
    std::vector<std::uint32_t> slot(static_cast<std::size_t>(largest) + 2, 0);
    for (std::uint32_t c : by_first) ++slot[largest - size[c] + 1];
    for (std::size_t i = 1; i < slot.size(); ++i) slot[i] += slot[i - 1];
    std::vector<std::uint32_t> map(top, 0), sizes(by_first.size());
    for (std::uint32_t c : by_first) {
        const std::uint32_t id = slot[largest - size[c]]++;
        map[c] = id;
        sizes[id] = size[c];
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

std::optional<CommunityResult> detect_communities(const WeightedGraph& g,
                                                  const CommunityOptions& options)
{
    // The calling thread's workspace from its last run, taken out while in use (so that a
    // nested or failed call cannot see it half way) and put back only after a complete run:
    // a cancelled run may leave its accumulators dirty.
    std::unique_ptr<Workspace> workspace = std::move(kept_workspace);
    if (!workspace) workspace = std::make_unique<Workspace>();
    try {
        Detector detector(g, options, *workspace);
        CommunityResult result = detector.run();
        if (g.node_count() <= kKeepNodes) kept_workspace = std::move(workspace);
        return result;
    } catch (const Cancelled&) {
        return std::nullopt;
    }
}

void release_detection_memory()
{
    kept_workspace.reset();
}

} // namespace gsr::community
