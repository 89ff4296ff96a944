// SOL-guided search replayed on measured landscapes: every config of three suite problems was
// verified and timed on an H200 (tests/core/tune/data, from tests/bench/kernel_lab.sh), and
// search() runs again over those times. Acceptance of issue 7: the SOL-guided search reaches
// 95% or more of the exhaustive best with at most 60% of its trials; the SOL order also
// reaches that level in fewer trials than a random order (the trials the seed saves).
#include "tune/search.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <map>

namespace {

using namespace gsr;
using namespace gsr::tune;

struct Landscape {
    const Problem* problem = nullptr;
    sol::DeviceSpec device;
    double t_sol = 0;
    std::vector<KernelConfig> space;
    std::map<std::string, Evaluation> measured;
    double best = 0; ///< the exhaustive best, seconds
};

Landscape load(const std::string& name)
{
    const auto path = std::filesystem::path(__FILE__).parent_path() / "data" /
                      ("h200_grid_" + name + ".json");
    std::ifstream in(path);
    const auto j = nlohmann::json::parse(in);
    Landscape l;
    l.problem = &suite_problem(name);
    l.device = sol::device_or_throw(j.at("device").get<std::string>());
    l.t_sol = j.at("t_sol");
    l.space = config_space(*l.problem, l.device);
    for (const auto& c : j.at("candidates")) {
        Evaluation e;
        e.verdict = parse_verdict(c.at("verdict").get<std::string>());
        e.seconds = c.at("seconds");
        l.measured[c.at("label")] = e;
        if (e.ok() && (l.best == 0 || e.seconds < l.best)) l.best = e.seconds;
    }
    return l;
}

/// Trials until the best is within 95% of the exhaustive best (space size + 1: never).
std::size_t trials_to_95(const SearchResult& r, double exhaustive_best)
{
    for (const Trial& t : r.trials)
        if (t.best_seconds > 0 && exhaustive_best / t.best_seconds >= 0.95) return t.index + 1;
    return r.space_size + 1;
}

SearchResult replay(const Landscape& l, Strategy s, std::uint64_t seed)
{
    FunctionEvaluator eval([&](const KernelConfig& c) {
        const auto it = l.measured.find(to_text(c));
        if (it == l.measured.end()) ADD_FAILURE() << "not measured: " << to_text(c);
        return it == l.measured.end() ? Evaluation{Verdict::Crash, 0, "", std::nullopt}
                                      : it->second;
    });
    SearchOptions o;
    o.strategy = s;
    o.budget = l.space.size(); // the space is the only cap: the search stops by itself
    o.stop_headroom = 1.1; // as gsr kernels tune
    o.seed = seed;
    return search(*l.problem, l.device, l.space, eval, o, l.t_sol);
}

struct Study {
    std::size_t space = 0, trials = 0;
    double quality = 0; ///< exhaustive best time / SOL-guided best time
    double share = 0; ///< SOL-guided trials / space
    double sol_to_95 = 0, random_to_95 = 0; ///< trials to reach 95% of the exhaustive best
    double saving() const { return 1 - sol_to_95 / random_to_95; }
};

Study study(const char* name)
{
    const Landscape l = load(name);
    EXPECT_EQ(l.measured.size(), l.space.size()) << "the landscape covers the whole space";
    const SearchResult sol = replay(l, Strategy::Sol, 1);
    Study s;
    s.space = l.space.size();
    s.trials = sol.trials.size();
    s.quality = l.best / sol.best_seconds();
    s.share = double(s.trials) / double(s.space);
    s.sol_to_95 = double(trials_to_95(sol, l.best));
    const int seeds = 50;
    for (int seed = 1; seed <= seeds; ++seed)
        s.random_to_95 += double(trials_to_95(replay(l, Strategy::Random, seed), l.best)) / seeds;
    std::printf("%-22s space %3zu | SOL-guided: %3zu trials (%4.1f%%), best %5.1f%% of the "
                "exhaustive best, stop '%s' | trials to 95%%: SOL %.0f, random %.1f "
                "(saves %.0f%%)\n",
                name, s.space, s.trials, 100 * s.share, 100 * s.quality, sol.stop_reason.c_str(),
                s.sol_to_95, s.random_to_95, 100 * s.saving());
    return s;
}

class SearchReplay : public ::testing::TestWithParam<const char*> {};

TEST_P(SearchReplay, SolGuidedReaches95PercentOfExhaustiveWithAtMost60PercentOfTrials)
{
    const Study s = study(GetParam());
    EXPECT_GE(s.quality, 0.95);
    EXPECT_LE(s.share, 0.60);
}

TEST(SearchReplayAll, TheSolOrderSavesTrialsOnAverage)
{
    // The SOL order reaches 95% of the exhaustive best in fewer trials than a random order,
    // on average over the three landscapes by at least the 19% the muCUTLASS paper reports
    // for its seed. One landscape may lose (SpMM: many configs lie within 5% of the best, so
    // a random order finds one fast).
    double mean = 0;
    for (const char* name : {"ew_bias_gelu_residual", "softmax_1k", "spmm_w64"})
        mean += study(name).saving() / 3;
    std::printf("mean saving of trials to 95%%: %.0f%%\n", 100 * mean);
    EXPECT_GE(mean, 0.19);
}

INSTANTIATE_TEST_SUITE_P(H200, SearchReplay,
                         ::testing::Values("ew_bias_gelu_residual", "softmax_1k", "spmm_w64"));

} // namespace
