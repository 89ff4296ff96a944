#include "tune/engine_problems.hpp"

#include "train/trainer.hpp"
#include "util/diagnostics.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <mutex>
#include <tuple>

namespace gsr::tune {

namespace {

bool reversible(nn::ModelKind k) { return k == nn::ModelKind::Rev || k == nn::ModelKind::Gsr; }
bool shallow(nn::ModelKind k) { return k == nn::ModelKind::Gcn || k == nn::ModelKind::Sage; }

std::string tag(const EngineShape& s, std::uint32_t d)
{
    return "_N" + std::to_string(s.nodes) + "_F" + std::to_string(d);
}

std::string block_text(const EngineShape& s)
{
    const std::string model(nn::model_kind_name(s.model));
    if (reversible(s.model))
        return model + ", " + std::to_string(s.layers) + " blocks x " +
               std::to_string(s.groups) + " groups";
    return model + ", " + std::to_string(s.layers) + " layers";
}

/// nnz of the generated pattern: generating it is the only exact way (duplicates merge), and
/// the panel asks again whenever a setting changes, so the answers are kept.
std::uint64_t pattern_nnz(std::uint64_t nodes, std::uint32_t max_degree, std::uint64_t seed)
{
    static std::mutex mutex;
    static std::map<std::tuple<std::uint64_t, std::uint32_t, std::uint64_t>, std::uint64_t> memo;
    const auto key = std::make_tuple(nodes, max_degree, seed);
    {
        const std::lock_guard<std::mutex> lock(mutex);
        if (auto it = memo.find(key); it != memo.end()) return it->second;
    }
    const std::uint64_t nnz = spmm_pattern(nodes, max_degree, seed).col_idx.size();
    const std::lock_guard<std::mutex> lock(mutex);
    if (memo.size() > 64) memo.clear(); // a bound, not a policy: shapes rarely repeat beyond it
    memo[key] = nnz;
    return nnz;
}

} // namespace

EngineShape engine_shape(const train::TrainConfig& config, std::uint64_t nodes,
                         std::uint64_t edges)
{
    EngineShape s;
    s.model = config.model.kind;
    s.layers = config.model.layers;
    s.hidden = config.model.hidden;
    s.groups = config.model.groups;
    s.topk = config.model.topk;
    s.nodes = nodes;
    s.edges = edges;
    return s;
}

std::uint32_t engine_width(const EngineShape& s)
{
    return reversible(s.model) && s.groups > 0 ? s.hidden / s.groups : s.hidden;
}

std::uint64_t engine_calls_per_forward(const EngineShape& s, const Problem& p)
{
    if (p.family == OpFamily::Reduction) return 1;
    return std::uint64_t(s.layers) * (reversible(s.model) ? s.groups : 1);
}

std::uint64_t engine_gemm_rows(std::uint64_t nodes) { return (nodes + 255) / 256 * 256; }

std::uint32_t engine_spmm_max_degree(std::uint64_t nodes, std::uint64_t edges,
                                     std::uint64_t seed, std::uint64_t* nnz)
{
    if (nodes == 0) throw Error("engine problems: the graph has no nodes");
    // Degrees 1..m uniformly: mean (1 + m) / 2 before duplicate columns merge.
    const double mean = double(edges) / double(nodes);
    const long guess = std::max(1L, std::lround(2.0 * mean - 1.0));
    std::uint32_t best = 0;
    std::uint64_t best_nnz = 0;
    for (long m = std::max(1L, guess - 1); m <= guess + 1; ++m) {
        const std::uint64_t n = pattern_nnz(nodes, std::uint32_t(m), seed);
        const auto distance = [&](std::uint64_t v) {
            return v > edges ? v - edges : edges - v;
        };
        if (best == 0 || distance(n) < distance(best_nnz)) {
            best = std::uint32_t(m);
            best_nnz = n;
        }
    }
    if (nnz) *nnz = best_nnz;
    return best;
}

std::vector<Problem> engine_problems(const EngineShape& s)
{
    constexpr std::uint64_t kInt32 = 0x7fffffffull;
    if (s.nodes == 0) throw Error("engine problems: the graph has no nodes");
    if (s.nodes > kInt32 || s.edges > kInt32)
        throw Error("engine problems: " + std::to_string(s.nodes) + " nodes and " +
                    std::to_string(s.edges) + " edges exceed the 32-bit indices of the kernels");
    if (s.layers == 0) throw Error("engine problems: --layers must be at least 1");
    if (s.hidden == 0) throw Error("engine problems: --hidden must be at least 1");
    if (reversible(s.model) && (s.groups < 2 || s.hidden % s.groups))
        throw Error("engine problems: --hidden " + std::to_string(s.hidden) +
                    " must split into --groups " + std::to_string(s.groups) + " (at least 2)");
    const std::uint32_t d = engine_width(s);
    // The top-k keeps k of each group's d columns (as nn::validate and `gsr sol topk` say).
    if (s.model == nn::ModelKind::Gsr && (s.topk == 0 || s.topk > d))
        throw Error("engine problems: --topk " + std::to_string(s.topk) +
                    " must be from 1 to the group width --hidden/--groups = " +
                    std::to_string(d));
    const std::string t = tag(s, d);
    const std::string n = std::to_string(s.nodes);
    const std::string w = std::to_string(d);
    const std::string where = " (" + block_text(s) + ")";
    std::vector<Problem> out;

    if (!shallow(s.model))
        out.push_back(rows_problem("engine_layernorm" + t,
                                   "LayerNorm of the block input, [" + n + " x " + w + "]" + where,
                                   OpFamily::LayerNorm, s.nodes, d));
    if (!shallow(s.model)) {
        const bool gsr = s.model == nn::ModelKind::Gsr;
        Problem a = rows_problem(
            gsr ? "engine_topk_dense" + t : "engine_relu" + t,
            gsr ? "dense fallback of the group top-" + std::to_string(s.topk) + " (ReLU over [" +
                      n + " x " + w + "]); the compressed top-k writes " + n + " x " +
                      std::to_string(s.topk) + " values + uint8 indices" + where
                : "ReLU after the LayerNorm, [" + n + " x " + w + "]" + where,
            OpFamily::Elementwise, s.nodes, d);
        a.epilogue = epilogue_chain({"relu"});
        out.push_back(std::move(a));
    }

    Problem m = rows_problem("engine_spmm" + t, "", OpFamily::Spmm, s.nodes, d);
    m.graph_seed = kEngineGraphSeed;
    m.max_degree = engine_spmm_max_degree(s.nodes, s.edges, m.graph_seed, &m.nnz);
    m.baseline = BaselineKind::Cusparse;
    m.description = "neighbour aggregation Y = A X, CSR A " + n + "^2 with " +
                    std::to_string(m.nnz) + " nonzeros (degrees 1.." +
                    std::to_string(m.max_degree) + ", standing in for the graph's " +
                    std::to_string(s.edges) + " edges), X " + n + " x " + w + where;
    out.push_back(std::move(m));

    const std::uint64_t rows = engine_gemm_rows(s.nodes);
    Problem g = rows_problem("engine_gemm" + t, "", OpFamily::Gemm, rows, d);
    g.inner = d;
    g.baseline = BaselineKind::Cublas;
    if (shallow(s.model)) {
        g.epilogue = epilogue_chain({"bias", "relu"});
        g.description = "the layer's linear map, relu(X W + b), [" + std::to_string(rows) +
                        " x " + w + "] x [" + w + " x " + w + "] (" + n +
                        " rows padded to a multiple of 256)" + where;
    } else {
        g.epilogue = epilogue_chain({"bias", "residual"});
        g.description = "the block's linear map with the residual add, X W + b + R, [" +
                        std::to_string(rows) + " x " + w + "] x [" + w + " x " + w + "] (" + n +
                        " rows padded to a multiple of 256)" + where;
    }
    out.push_back(std::move(g));

    Problem loss = rows_problem("engine_loss_N" + n,
                                "the mean of the " + n + " per-node loss terms, [1 x " + n + "]",
                                OpFamily::Reduction, 1, s.nodes);
    loss.epilogue = epilogue_chain({"scale"});
    loss.alpha = float(1.0 / double(s.nodes));
    out.push_back(std::move(loss));
    return out;
}

} // namespace gsr::tune
