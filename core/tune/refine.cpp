#include "tune/refine.hpp"

#include "sol/sol_analysis.hpp"
#include "tune/codegen.hpp"

#include <algorithm>

namespace gsr::tune {

std::string_view bottleneck_name(Bottleneck b)
{
    switch (b) {
    case Bottleneck::MemoryBound: return "memory-bound";
    case Bottleneck::ComputeBound: return "compute-bound";
    case Bottleneck::LatencyBound: return "latency-bound";
    case Bottleneck::RegisterPressure: return "register pressure";
    }
    return "?";
}

std::vector<Bottleneck> classify(const ProfileSignals& s)
{
    std::vector<Bottleneck> out;
    if (s.memory_percent >= 70 && s.sm_percent <= 50) out.push_back(Bottleneck::MemoryBound);
    if (s.sm_percent >= 70 && s.memory_percent <= 50) out.push_back(Bottleneck::ComputeBound);
    if (s.sm_percent <= 40 && s.memory_percent <= 40) out.push_back(Bottleneck::LatencyBound);
    if (s.registers >= 96 && s.occupancy_percent <= 40)
        out.push_back(Bottleneck::RegisterPressure);
    return out;
}

namespace {

/// One axis move: the field, doubled (up) or halved (down).
struct Move {
    int KernelConfig::*field;
    bool up;
    const char* name;
    int lowest, highest;
};

std::vector<Move> moves_for(OpFamily f)
{
    if (f == OpFamily::Gemm)
        return {{&KernelConfig::thread_m, true, "thread_m", 2, 8},
                {&KernelConfig::thread_n, true, "thread_n", 2, 8},
                {&KernelConfig::tile_m, true, "tile_m", 32, 256},
                {&KernelConfig::tile_n, true, "tile_n", 32, 256},
                {&KernelConfig::tile_k, true, "tile_k", 8, 32},
                {&KernelConfig::stages, true, "stages", 1, 4},
                {&KernelConfig::vec, true, "vec", 1, 4},
                {&KernelConfig::thread_m, false, "thread_m", 2, 8},
                {&KernelConfig::thread_n, false, "thread_n", 2, 8},
                {&KernelConfig::tile_m, false, "tile_m", 32, 256},
                {&KernelConfig::tile_n, false, "tile_n", 32, 256},
                {&KernelConfig::tile_k, false, "tile_k", 8, 32},
                {&KernelConfig::stages, false, "stages", 1, 4}};
    std::vector<Move> m = {{&KernelConfig::vec, true, "vec", 1, 4},
                           {&KernelConfig::unroll, true, "unroll", 1, 8},
                           {&KernelConfig::block, true, "block", 64, 1024},
                           {&KernelConfig::vec, false, "vec", 1, 4},
                           {&KernelConfig::unroll, false, "unroll", 1, 8},
                           {&KernelConfig::block, false, "block", 64, 1024}};
    if (f != OpFamily::Elementwise) {
        m.push_back({&KernelConfig::tpr, true, "tpr", 1, 1024});
        m.push_back({&KernelConfig::tpr, false, "tpr", 1, 1024});
    }
    return m;
}

/// The moves a bottleneck asks for first, by axis name and direction.
std::vector<std::pair<std::string, bool>> priorities(Bottleneck b)
{
    switch (b) {
    case Bottleneck::MemoryBound: return {{"vec", true}, {"unroll", true}, {"block", true}};
    case Bottleneck::ComputeBound:
        return {{"thread_m", true}, {"thread_n", true}, {"tile_k", true}, {"vec", true}};
    case Bottleneck::LatencyBound:
        return {{"stages", true}, {"unroll", true}, {"block", true}, {"tpr", true}};
    case Bottleneck::RegisterPressure:
        return {{"thread_m", false}, {"thread_n", false}, {"unroll", false}, {"stages", false}};
    }
    return {};
}

std::optional<KernelConfig> apply(const KernelConfig& c, const Move& m)
{
    KernelConfig n = c;
    int& v = n.*m.field;
    const bool stages = m.field == &KernelConfig::stages;
    const bool vec = m.field == &KernelConfig::vec;
    if (m.up)
        v = stages ? v + 1 : (vec && c.family == OpFamily::Gemm ? 4 : v * 2);
    else
        v = stages ? v - 1 : (vec && c.family == OpFamily::Gemm ? 1 : v / 2);
    if (v < m.lowest || v > m.highest || v == c.*m.field) return std::nullopt;
    return n;
}

} // namespace

std::optional<Proposal> HeuristicProposer::propose(const RefineContext& ctx)
{
    const std::vector<Move> all = moves_for(ctx.current.family);
    std::vector<Move> ordered;
    if (ctx.profile) {
        for (Bottleneck b : classify(*ctx.profile))
            for (const auto& [name, up] : priorities(b))
                for (const Move& m : all)
                    if (m.name == name && m.up == up) ordered.push_back(m);
    }
    // Then every move, rotated by the step so successive steps explore different axes.
    for (std::size_t k = 0; k < all.size(); ++k)
        ordered.push_back(all[(k + ctx.step + ctx.history.size()) % all.size()]);
    auto tried = [&](const KernelConfig& c) {
        return std::any_of(ctx.history.begin(), ctx.history.end(),
                           [&](const RefineStep& s) { return s.config == c; });
    };
    for (const Move& m : ordered) {
        const std::optional<KernelConfig> next = apply(ctx.current, m);
        if (!next || tried(*next) || !validate(ctx.problem, *next, ctx.device).ok()) continue;
        std::string why = std::string(m.name) + (m.up ? " up" : " down");
        if (ctx.profile) {
            const auto b = classify(*ctx.profile);
            if (!b.empty()) why += " (" + std::string(bottleneck_name(b.front())) + ")";
        }
        return Proposal{*next, why};
    }
    return std::nullopt;
}

RefineResult refine(const Problem& p, const sol::DeviceSpec& device, const KernelConfig& start,
                    Evaluator& evaluator, RefineProposer& proposer, const RefineOptions& o,
                    double t_sol)
{
    RefineResult r;
    auto evaluate = [&](const KernelConfig& c) {
        const Validation v = validate(p, c, device);
        if (!v.ok()) return Evaluation{Verdict::InvalidConfig, 0, v.text(), std::nullopt};
        Evaluation e = evaluator.evaluate(c);
        if (e.ok() && t_sol > 0 && sol::is_gaming(e.seconds, t_sol)) {
            e.verdict = Verdict::Gaming;
            e.detail = "faster than T_SOL by more than 5%";
        }
        return e;
    };
    RefineStep first;
    first.config = start;
    first.result = evaluate(start);
    first.change = "start";
    first.accepted = first.result.ok();
    r.steps.push_back(first);
    if (!first.result.ok()) {
        r.stop_reason = "start failed";
        return r;
    }
    std::size_t current = 0;
    r.best_seconds = first.result.seconds;
    r.stop_reason = "steps";
    for (std::size_t step = 1; step <= o.max_steps; ++step) {
        std::string repair_reason;
        bool proposed = false;
        for (std::size_t attempt = 0; attempt <= o.max_repairs; ++attempt) {
            const RefineStep& cur = r.steps[current];
            // Delayed profiling: the first round sees the timing only.
            const ProfileSignals* profile =
                step >= 2 && cur.result.profile ? &*cur.result.profile : nullptr;
            const RefineContext ctx{p,    device,  cur.config,    cur.result,
                                    step, profile, repair_reason, r.steps};
            const std::optional<Proposal> next = proposer.propose(ctx);
            if (!next) break;
            proposed = true;
            RefineStep s;
            s.step = step;
            s.node = r.steps.size();
            s.parent = current;
            s.config = next->config;
            s.change = next->change;
            s.repair = attempt;
            s.signals_shown = profile != nullptr;
            s.result = evaluate(next->config);
            if (s.result.ok()) {
                s.accepted = s.result.seconds < r.steps[current].result.seconds;
                r.steps.push_back(s);
                if (s.accepted) {
                    current = s.node;
                    r.best_node = s.node;
                    r.best_seconds = s.result.seconds;
                }
                break;
            }
            repair_reason = std::string(verdict_name(s.result.verdict)) + ": " + s.result.detail;
            r.steps.push_back(s);
        }
        if (!proposed) {
            r.stop_reason = "no proposal";
            break;
        }
    }
    return r;
}

nlohmann::json refine_result_json(const RefineResult& r)
{
    nlohmann::json steps = nlohmann::json::array();
    for (const RefineStep& s : r.steps) {
        steps.push_back(
            {{"step", s.step},
             {"node", s.node},
             {"parent", s.parent ? nlohmann::json(*s.parent) : nlohmann::json(nullptr)},
             {"config", to_json(s.config)},
             {"verdict", verdict_name(s.result.verdict)},
             {"seconds", s.result.seconds},
             {"change", s.change},
             {"repair", s.repair},
             {"signals_shown", s.signals_shown},
             {"accepted", s.accepted}});
    }
    return {{"steps", steps},
            {"best_node", r.best_node},
            {"best_seconds", r.best_seconds},
            {"stop_reason", r.stop_reason}};
}

} // namespace gsr::tune
