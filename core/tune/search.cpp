#include "tune/search.hpp"

#include "labels/splitmix64.hpp"
#include "sol/sol_analysis.hpp"
#include "tune/codegen.hpp"
#include "util/diagnostics.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

namespace gsr::tune {

Evaluation Evaluator::evaluate_source(const std::string&, const std::string&)
{
    return {Verdict::Unsupported, 0, "this evaluator runs DSL configs only", std::nullopt};
}

Evaluation Evaluator::baseline()
{
    return {Verdict::Unsupported, 0, "this evaluator has no baseline", std::nullopt};
}

std::string_view strategy_name(Strategy s)
{
    switch (s) {
    case Strategy::Grid: return "grid";
    case Strategy::Random: return "random";
    case Strategy::Sol: return "sol";
    }
    return "?";
}

Strategy parse_strategy(std::string_view name)
{
    if (name == "grid") return Strategy::Grid;
    if (name == "random") return Strategy::Random;
    if (name == "sol") return Strategy::Sol;
    throw Error("unknown search strategy '" + std::string(name) +
                "'; expected grid, random or sol");
}

std::vector<KernelConfig> config_space(const Problem& p, const sol::DeviceSpec& device,
                                       std::size_t* rejected)
{
    std::vector<KernelConfig> all;
    KernelConfig base;
    base.family = p.family;
    if (p.family == OpFamily::Gemm) {
        // A narrow output (the engine's GEMMs at a block width of 16 or 8) needs narrow tiles,
        // which wider problems do without.
        std::vector<int> tns = {32, 64, 128, 256}, rns = {2, 4, 8};
        if (p.cols < 32) {
            tns.insert(tns.begin(), {8, 16});
            rns.insert(rns.begin(), 1);
        }
        for (int tm : {32, 64, 128, 256})
            for (int tn : tns)
                for (int tk : {8, 16, 32})
                    for (int rm : {2, 4, 8})
                        for (int rn : rns)
                            for (int st : {1, 2, 3, 4})
                                for (int v : {1, 4}) {
                                    KernelConfig c = base;
                                    c.tile_m = tm, c.tile_n = tn, c.tile_k = tk;
                                    c.thread_m = rm, c.thread_n = rn, c.stages = st, c.vec = v;
                                    all.push_back(c);
                                }
    } else {
        const bool rows = p.family != OpFamily::Elementwise;
        const std::vector<int> tprs =
            rows ? std::vector<int>{1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024}
                 : std::vector<int>{32};
        const std::vector<int> unrolls =
            rows ? std::vector<int>{1, 2, 4} : std::vector<int>{1, 2, 4, 8};
        for (int b : {64, 128, 256, 512, 1024})
            for (int t : tprs)
                for (int v : {1, 2, 4})
                    for (int u : unrolls) {
                        if (p.family == OpFamily::Spmm && t > 32) continue;
                        KernelConfig c = base;
                        c.block = b, c.tpr = t, c.vec = v, c.unroll = u;
                        all.push_back(c);
                    }
    }
    std::vector<KernelConfig> valid;
    std::size_t bad = 0;
    for (const KernelConfig& c : all) {
        if (validate(p, c, device).ok())
            valid.push_back(c);
        else
            ++bad;
    }
    if (rejected) *rejected = bad;
    return valid;
}

namespace {

struct Occupancy {
    int blocks_per_sm = 0;
    double fraction = 0; ///< active threads / max threads per SM
};

Occupancy occupancy(const Problem& p, const KernelConfig& c, const sol::DeviceSpec& d)
{
    const Validation v = validate(p, c, d);
    const int threads = c.block_threads();
    int blocks = std::min(d.max_blocks_per_sm, d.max_threads_per_sm / std::max(threads, 1));
    if (v.registers > 0)
        blocks = std::min(blocks, d.registers_per_sm / std::max(1, v.registers * threads));
    if (v.shared_bytes > 0) blocks = std::min<int>(blocks, int(d.shared_per_sm / v.shared_bytes));
    blocks = std::max(blocks, 0);
    return {blocks, double(blocks * threads) / d.max_threads_per_sm};
}

double vector_efficiency(int vec) { return vec == 4 ? 1.0 : vec == 2 ? 0.93 : 0.82; }

/// Little's law: the bytes an SM must keep in flight to cover ~700 ns of DRAM latency.
double bytes_in_flight_needed(const sol::DeviceSpec& d)
{
    return d.dram_bandwidth * 700e-9 / d.sm_count;
}

double memory_family_time(const Problem& p, const KernelConfig& c, const sol::DeviceSpec& d,
                          const sol::SolAnalysis& a)
{
    const Occupancy occ = occupancy(p, c, d);
    if (occ.blocks_per_sm == 0) return std::numeric_limits<double>::infinity();
    const double threads_sm = occ.fraction * d.max_threads_per_sm;
    double in_flight = threads_sm * c.vec * 4.0 * c.unroll;
    double util = 1, fill = 1, passes = 1;
    if (p.family != OpFamily::Elementwise) {
        const double chunk = double(c.tpr) * c.vec;
        const double cols = double(p.cols);
        util = cols / (std::ceil(cols / chunk) * chunk);
        // Rows are the parallelism: too few groups leave SMs idle.
        const double groups_needed = double(d.sm_count) * threads_sm / c.tpr;
        fill = std::min(1.0, double(p.rows) / groups_needed);
        // Each thread has at most cols / tpr elements of a row to keep in flight.
        in_flight = threads_sm * 4.0 * std::min(double(c.vec) * c.unroll, cols / c.tpr);
        if (p.family == OpFamily::Softmax) passes = 1.06; // second read mostly from L2
        if (p.family == OpFamily::LayerNorm) passes = 1.10;
        if (c.tpr > 32) passes *= 1.03; // shared-memory combine
    }
    const double mlp = std::min(1.0, in_flight / bytes_in_flight_needed(d));
    return a.t_memory * passes / (vector_efficiency(c.vec) * mlp * util * fill);
}

double gemm_time(const Problem& p, const KernelConfig& c, const sol::DeviceSpec& d,
                 const sol::SolAnalysis& a)
{
    const Occupancy occ = occupancy(p, c, d);
    if (occ.blocks_per_sm == 0) return std::numeric_limits<double>::infinity();
    const double tm = c.thread_m, tn = c.thread_n;
    const double smem = std::min(1.0, (tm * tn / (tm + tn)) / 3.0);
    const double active = occ.fraction * d.max_threads_per_sm;
    const double latency = std::min(1.0, active * tm * tn / 8192.0);
    const double pipe = c.stages == 1 ? 0.75 : c.stages == 2 ? 0.92 : 1.0;
    const double tiles = double(p.rows / c.tile_m) * double(p.cols / c.tile_n);
    const double waves = tiles / (double(d.sm_count) * occ.blocks_per_sm);
    const double wave = waves / std::ceil(waves);
    const double vec = c.vec == 4 ? 1.0 : 0.9;
    const double t_compute = a.cost.flops / (a.peak_rate * smem * latency * pipe * wave * vec);
    // A is re-read N/BN times and B M/BM times, mostly from L2 (~3x DRAM bandwidth).
    const double m = double(p.rows), n = double(p.cols), k = double(p.inner);
    const double bytes = 4.0 * (m * n * k / c.tile_n + m * n * k / c.tile_m) + 4.0 * m * n;
    return std::max(t_compute, bytes / (3.0 * a.bandwidth));
}

double spmm_time(const Problem& p, const KernelConfig& c, const sol::DeviceSpec& d,
                 const sol::SolAnalysis& a)
{
    const Occupancy occ = occupancy(p, c, d);
    if (occ.blocks_per_sm == 0) return std::numeric_limits<double>::infinity();
    const double x_bytes = double(p.rows) * double(p.cols) * 4.0;
    const double miss =
        x_bytes <= double(d.l2_bytes) ? 0.1 : 1.0 - 0.9 * double(d.l2_bytes) / x_bytes;
    const double bytes = a.cost.bytes + (a.cost.gather_bytes - a.cost.bytes) * miss;
    const double segment = double(c.tpr) * c.vec * 4.0;
    const double coalesce = std::min(1.0, segment / 64.0);
    const double chunks = double(p.cols) / (double(c.tpr) * c.vec);
    const double threads_sm = occ.fraction * d.max_threads_per_sm;
    const double mlp =
        std::min(1.0, threads_sm * c.unroll * chunks * c.vec * 4.0 / bytes_in_flight_needed(d));
    const double rows_per_warp = std::max(1.0, 32.0 / c.tpr);
    const double mean_degree = (1.0 + p.max_degree) / 2.0;
    const double divergence =
        mean_degree / (mean_degree + (p.max_degree - mean_degree) * (1.0 - 1.0 / rows_per_warp));
    return std::max(bytes / (a.bandwidth * coalesce * mlp * divergence), a.t_compute);
}

std::size_t differing_fields(const KernelConfig& a, const KernelConfig& b)
{
    return std::size_t(a.block != b.block) + std::size_t(a.vec != b.vec) +
           std::size_t(a.tpr != b.tpr) + std::size_t(a.unroll != b.unroll) +
           std::size_t(a.tile_m != b.tile_m) + std::size_t(a.tile_n != b.tile_n) +
           std::size_t(a.tile_k != b.tile_k) + std::size_t(a.thread_m != b.thread_m) +
           std::size_t(a.thread_n != b.thread_n) + std::size_t(a.stages != b.stages);
}

} // namespace

double predicted_time(const Problem& p, const KernelConfig& c, const sol::DeviceSpec& device)
{
    const sol::SolAnalysis a = sol::analyze(p.op_spec(), device);
    double t = 0;
    switch (p.family) {
    case OpFamily::Gemm: t = gemm_time(p, c, device, a); break;
    case OpFamily::Spmm: t = spmm_time(p, c, device, a); break;
    default: t = memory_family_time(p, c, device, a); break;
    }
    return std::max(t, a.t_sol);
}

bool are_neighbours(const KernelConfig& a, const KernelConfig& b)
{
    return a.family == b.family && differing_fields(a, b) == 1;
}

double SearchResult::best_seconds() const { return best ? trials[*best].result.seconds : 0.0; }

std::size_t budget_for_headroom(double h, std::size_t max_budget, double stop_headroom,
                                double full_headroom)
{
    if (!(h > stop_headroom)) return 0;
    if (!std::isfinite(h) || h >= full_headroom) return max_budget;
    const double share = std::log(h / stop_headroom) / std::log(full_headroom / stop_headroom);
    return std::size_t(std::ceil(share * double(max_budget)));
}

std::vector<std::size_t> allocate_budget(const std::vector<double>& headrooms, std::size_t total,
                                         double stop_headroom)
{
    std::vector<double> w(headrooms.size(), 0.0);
    for (std::size_t i = 0; i < w.size(); ++i)
        if (headrooms[i] > stop_headroom) w[i] = std::log(headrooms[i]);
    const double sum = std::accumulate(w.begin(), w.end(), 0.0);
    std::vector<std::size_t> share(w.size(), 0);
    if (sum <= 0) return share;
    std::size_t given = 0;
    std::vector<std::pair<double, std::size_t>> rest;
    for (std::size_t i = 0; i < w.size(); ++i) {
        const double exact = double(total) * w[i] / sum;
        share[i] = std::size_t(std::floor(exact));
        given += share[i];
        if (w[i] > 0) rest.push_back({exact - double(share[i]), i});
    }
    // Largest remainders first; ties to the earlier problem.
    std::stable_sort(rest.begin(), rest.end(),
                     [](const auto& a, const auto& b) { return a.first > b.first; });
    for (std::size_t k = 0; given < total && k < rest.size(); ++k, ++given)
        ++share[rest[k].second];
    return share;
}

SearchResult search(const Problem& p, const sol::DeviceSpec& device,
                    const std::vector<KernelConfig>& space, Evaluator& evaluator,
                    const SearchOptions& o, double t_sol, double gaming_t_sol)
{
    SearchResult r;
    r.space_size = space.size();
    r.t_sol = t_sol;
    std::vector<bool> visited(space.size(), false);
    std::size_t stagnant = 0;

    auto run = [&](std::size_t i, const char* origin) {
        visited[i] = true;
        Trial t;
        t.index = r.trials.size();
        t.config = space[i];
        t.origin = origin;
        t.result = evaluator.evaluate(space[i]);
        if (t.result.ok() && gaming_t_sol > 0 &&
            sol::is_gaming(t.result.seconds, gaming_t_sol)) {
            t.result.verdict = Verdict::Gaming;
            t.result.detail = "faster than T_SOL by more than 5%: it cannot have done the work";
        }
        if (t.result.verdict == Verdict::Ok || t.result.verdict == Verdict::Gaming)
            t.headroom = t_sol > 0 ? t.result.seconds / t_sol : 0.0;
        const double best = r.best_seconds();
        if (t.result.ok() && (best == 0 || t.result.seconds < best * (1.0 - o.min_improvement))) {
            t.improved = true;
            stagnant = 0;
        } else {
            ++stagnant;
        }
        const bool new_best = t.result.ok() && (best == 0 || t.result.seconds < best);
        t.best_seconds = new_best ? t.result.seconds : best;
        r.trials.push_back(std::move(t));
        if (new_best) r.best = r.trials.size() - 1;
    };

    const std::size_t budget = std::min(o.budget, space.size());
    if (o.strategy == Strategy::Grid || o.strategy == Strategy::Random) {
        std::vector<std::size_t> order(space.size());
        std::iota(order.begin(), order.end(), 0);
        if (o.strategy == Strategy::Random) {
            labels::SplitMix64 rng(o.seed);
            for (std::size_t i = order.size(); i > 1; --i)
                std::swap(order[i - 1], order[rng.next() % i]);
        }
        for (std::size_t k = 0; k < budget; ++k)
            run(order[k], o.strategy == Strategy::Grid ? "grid" : "random");
        r.stop_reason = budget == space.size() ? "exhausted" : "budget";
        return r;
    }

    // SOL-guided: the configs by predicted time; alternate the next unvisited prediction with
    // the best unvisited neighbour of the best measured config, and keep climbing while the
    // neighbours improve.
    std::vector<double> predicted(space.size());
    for (std::size_t i = 0; i < space.size(); ++i)
        predicted[i] = predicted_time(p, space[i], device);
    std::vector<std::size_t> order(space.size());
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(),
                     [&](std::size_t a, std::size_t b) { return predicted[a] < predicted[b]; });
    std::size_t cursor = 0;
    r.stop_reason = "exhausted";
    while (r.trials.size() < space.size()) {
        const double best = r.best_seconds();
        const double h =
            best > 0 && t_sol > 0 ? best / t_sol : std::numeric_limits<double>::infinity();
        if (best > 0 && h <= o.stop_headroom) {
            r.stop_reason = "near SOL";
            break;
        }
        const std::size_t allowed =
            std::max(std::min(o.min_trials, budget),
                     budget_for_headroom(h, budget, o.stop_headroom, o.full_headroom));
        if (r.trials.size() >= std::min(budget, allowed)) {
            r.stop_reason = "budget";
            break;
        }
        // The best unvisited neighbour of the best measured config, in predicted order.
        std::size_t pick = space.size();
        if (r.best) {
            const KernelConfig& b = r.trials[*r.best].config;
            for (std::size_t i : order)
                if (!visited[i] && are_neighbours(space[i], b)) {
                    pick = i;
                    break;
                }
        }
        // Stagnation ends the search only at a confirmed local optimum: the predictions can
        // rank the best config's neighbours badly, and the measured landscape decides.
        if (stagnant >= o.patience && pick == space.size()) {
            r.stop_reason = "stagnant";
            break;
        }
        // Climb while climbing pays (the last trial improved), else alternate with the
        // predicted order; past the patience, only the neighbours are left to try.
        const bool climbing = !r.trials.empty() && r.trials.back().improved;
        if (pick != space.size() &&
            (climbing || r.trials.size() % 2 == 1 || stagnant >= o.patience)) {
            run(pick, "neighbour");
            continue;
        }
        while (cursor < order.size() && visited[order[cursor]]) ++cursor;
        if (cursor == order.size()) break;
        run(order[cursor], "predicted");
    }
    return r;
}

nlohmann::json trial_json(const Trial& t)
{
    nlohmann::json j = {{"index", t.index},
                        {"config", to_json(t.config)},
                        {"verdict", verdict_name(t.result.verdict)},
                        {"seconds", t.result.seconds},
                        {"headroom", t.headroom},
                        {"improved", t.improved},
                        {"best_seconds", t.best_seconds},
                        {"origin", t.origin}};
    if (!t.result.detail.empty()) j["detail"] = t.result.detail;
    return j;
}

nlohmann::json search_result_json(const SearchResult& r)
{
    nlohmann::json trials = nlohmann::json::array();
    for (const Trial& t : r.trials) trials.push_back(trial_json(t));
    return {{"trials", trials},
            {"best", r.best ? nlohmann::json(*r.best) : nlohmann::json(nullptr)},
            {"best_seconds", r.best_seconds()},
            {"stop_reason", r.stop_reason},
            {"space_size", r.space_size},
            {"t_sol", r.t_sol}};
}

} // namespace gsr::tune
