// `gsr kernels suite|emit`: the built-in kernel problems with their speed-of-light bounds, and
// the CUDA the kernel DSL generates for one of them.
#include "cli_commands.hpp"

#include "sol/sol_analysis.hpp"
#include "tune/codegen.hpp"
#include "tune/search.hpp"
#include "util/diagnostics.hpp"

#include <cstdio>
#include <iostream>

namespace gsr::cli {

namespace {

void usage()
{
    std::cout << "usage: gsr kernels suite [--device NAME] [--json]\n"
                 "       gsr kernels emit PROBLEM --config JSON|TEXT [--device NAME]\n"
                 "suite: the built-in problems with T_SOL on the device (default H100 SXM).\n"
                 "emit:  the CUDA C++ of a DSL config for a problem, e.g.\n"
                 "       --config '{\"family\":\"softmax\",\"block\":256,\"tpr\":32,\"vec\":4}'\n"
                 "       --config 'family=gemm tile=128x128x16 thread=8x8 stages=3 vec=4'\n";
}

const sol::DeviceSpec& device_of(const Args& a)
{
    try {
        return sol::device_or_throw(a.value("--device", "H100 SXM"));
    } catch (const Error& e) {
        throw UsageError(e.message());
    }
}

std::string shape_text(const tune::Problem& p)
{
    const auto op = p.op_spec();
    std::string s;
    for (auto v : op.shape) s += (s.empty() ? "" : "x") + std::to_string(v);
    return s;
}

int suite(const Args& a)
{
    const sol::DeviceSpec& device = device_of(a);
    const bool json = a.has("--json");
    nlohmann::json rows = nlohmann::json::array();
    if (!json)
        std::printf("%-22s %-11s %-24s %-18s %12s %8s %7s %s\n", "problem", "family", "shape",
                    "epilogue", "T_SOL us", "bound", "space", "baseline");
    for (const tune::Problem& p : tune::builtin_suite()) {
        const sol::SolAnalysis an = sol::analyze(p.op_spec(), device);
        const std::size_t space = tune::config_space(p, device).size();
        if (json) {
            rows.push_back({{"name", p.name},
                            {"description", p.description},
                            {"family", tune::family_name(p.family)},
                            {"shape", an.op.shape},
                            {"epilogue", tune::epilogue_chain_text(p.epilogue)},
                            {"baseline", tune::baseline_name(p.baseline)},
                            {"entry", tune::entry_point(p.family)},
                            {"config_space", space},
                            {"sol", sol::analysis_json(an)}});
        } else {
            std::printf("%-22s %-11s %-24s %-18s %12.2f %8s %7zu %s\n", p.name.c_str(),
                        std::string(tune::family_name(p.family)).c_str(), shape_text(p).c_str(),
                        tune::epilogue_chain_text(p.epilogue).c_str(), an.t_sol * 1e6,
                        std::string(sol::bound_name(an.bound)).c_str(), space,
                        std::string(tune::baseline_name(p.baseline)).c_str());
        }
    }
    if (json)
        std::cout << nlohmann::json{{"device", device.name}, {"problems", rows}}.dump(2) << '\n';
    else
        std::printf("device %s (%s)\n", device.name.c_str(), device.source.c_str());
    return 0;
}

int emit(const Args& a)
{
    if (a.positionals().size() != 2) throw UsageError("kernels emit takes one PROBLEM");
    if (!a.has("--config")) throw UsageError("kernels emit needs --config");
    const sol::DeviceSpec& device = device_of(a);
    const std::string text = a.value("--config");
    try {
        const tune::Problem& p = tune::suite_problem(a.positionals()[1]);
        tune::KernelConfig c;
        if (text.find('{') != std::string::npos) {
            const nlohmann::json j = nlohmann::json::parse(text, nullptr, false);
            if (j.is_discarded()) throw Error("--config: not valid JSON: " + text);
            c = tune::config_from_json(j);
        } else {
            c = tune::config_from_text(text);
        }
        const tune::GeneratedKernel k = tune::generate_kernel(p, c, device);
        std::cout << k.source;
        std::fprintf(stderr,
                     "entry %s, grid %ux%ux%u, block %u, dynamic shared %zu bytes, "
                     "about %d registers\n",
                     k.entry.c_str(), k.launch.grid[0], k.launch.grid[1], k.launch.grid[2],
                     k.launch.block[0], k.launch.dynamic_shared_bytes, k.validation.registers);
    } catch (const Error& e) {
        throw UsageError(e.message());
    }
    return 0;
}

} // namespace

int cmd_kernels(const std::vector<std::string>& args)
{
    const Args a(args, {"--device", "--config"}, {"--json", "--help"});
    if (a.has("--help") || a.positionals().empty()) {
        usage();
        return a.has("--help") ? 0 : 1;
    }
    const std::string& sub = a.positionals()[0];
    if (sub == "suite") {
        if (a.positionals().size() != 1) throw UsageError("kernels suite takes no argument");
        return suite(a);
    }
    if (sub == "emit") return emit(a);
    throw UsageError("unknown kernels subcommand '" + sub + "'; expected suite or emit");
}

} // namespace gsr::cli
