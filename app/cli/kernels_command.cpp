// `gsr kernels suite|emit|verify|tune|calibrate|apply`: the built-in kernel problems with their
// speed-of-light bounds, the CUDA the kernel DSL generates, and, on a GPU, the verifier and the
// search, which run every candidate in the worker process (core/tune/worker_evaluator.hpp).
#include "cli_commands.hpp"

#include "nn/gpu_runtime.hpp"
#include "nn/model_config.hpp"
#include "sol/sol_analysis.hpp"
#include "tune/codegen.hpp"
#include "tune/engine_problems.hpp"
#include "tune/search.hpp"
#include "tune/tune_session.hpp"
#include "tune/worker_evaluator.hpp"
#include "util/atomic_file.hpp"
#include "util/diagnostics.hpp"
#include "util/json_text.hpp"

#ifdef GSR_HAVE_STORE
#include "store/project_store.hpp"
#include "store/tune_store.hpp"
#endif

#include <chrono>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

namespace gsr::cli {

namespace {

void usage(std::ostream& out)
{
    out << "usage: gsr kernels suite [--device NAME] [--json]\n"
           "       gsr kernels emit PROBLEM --config JSON|TEXT [--device NAME]\n"
           "       gsr kernels verify FILE.cu --problem P [--entry NAME]\n"
           "                          [--grid EXPR [--block N]] [--timeout S] [--profile]\n"
           "                          [--json]\n"
           "       gsr kernels tune PROBLEM [--strategy grid|random|sol] [--budget N]\n"
           "                        [--seed S] [--timeout S] [--out SESSION.json] [--json]\n"
           "                        [--calibration CAL.json] [--project P.gsr]\n"
           "                        [--stop-headroom H (1.1)] [--patience N (12)]\n"
           "                        [--profile]\n"
           "       (an engine_* PROBLEM also takes --nodes N --edges E [--model M]\n"
           "        [--hidden D] [--groups C] [--topk K], as the Profiling panel logs)\n"
           "       gsr kernels calibrate [--project P.gsr] [--json]\n"
           "       gsr kernels apply --project P.gsr [--session ID[,ID...]] [--list]\n"
           "                         [--clear] [--json]\n"
           "suite: the built-in problems with T_SOL on the device (default H100 SXM).\n"
           "emit:  the CUDA C++ of a DSL config for a problem, e.g.\n"
           "       --config '{\"family\":\"softmax\",\"block\":256,\"tpr\":32,\"vec\":4}'\n"
           "       --config 'family=gemm tile=128x128x16 thread=8x8 stages=3 vec=4'\n"
           "verify: compile, check (3 fresh input sets, poisoned output) and time a\n"
           "       hand-written kernel in the worker process; --grid is an expression\n"
           "       over rows, cols, n, inner, nnz, e.g. 'ceil(n / 256)'. Exit 0 when ok,\n"
           "       3 when the verdict is anything else.\n"
           "tune:  the vendor or plain baseline, then the search; the session (every\n"
           "       trial) goes to --out, for `gsr report`.\n"
           "verify, tune and calibrate need a CUDA GPU; --device NAME overrides the\n"
           "       GPU's row of the SOL device table; --calibration takes the measured\n"
           "       peaks (`gsr kernels calibrate --json > CAL.json`) for T_SOL;\n"
           "       --project keeps the calibration and the sessions in the project;\n"
           "       --profile adds ncu's SM %, memory %, DRAM bytes (when ncu is found).\n"
           "apply: for each engine_* problem tuned in the project (every session, or\n"
           "       --session), its fastest verified DSL config is kept; `gsr train\n"
           "       --device gpu --db P.gsr` then runs those the backend can take over\n"
           "       (the SpMM) instead of its own. --list shows them, --clear forgets them.\n";
}

const sol::DeviceSpec& device_of(const Args& a)
{
    try {
        return sol::device_or_throw(a.value("--device", "H100 SXM"));
    } catch (const Error& e) {
        throw UsageError("--device: " + e.message());
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
        std::cout << json_text({{"device", device.name}, {"problems", rows}}, 2) << '\n';
    else
        std::printf("device %s (%s)\n", device.name.c_str(), device.source.c_str());
    return 0;
}

tune::Problem problem_arg(const Args& a, const std::string& name);

int emit(const Args& a)
{
    if (a.positionals().size() != 2) throw UsageError("kernels emit takes one PROBLEM");
    if (!a.has("--config")) throw UsageError("kernels emit needs --config");
    const sol::DeviceSpec& device = device_of(a);
    const std::string text = a.value("--config");
    try {
        const tune::Problem p = problem_arg(a, a.positionals()[1]); // engine problems too
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

std::string read_text_file(const std::string& path)
{
    // An ifstream opens a folder and reads nothing: it would compile as an empty kernel.
    if (std::error_code ec; std::filesystem::is_directory(path, ec))
        throw Error(SourceLocation{path}, "is a folder, not a CUDA source file");
    std::ifstream in(path, std::ios::binary);
    if (!in) throw Error(SourceLocation{path}, "cannot read the file");
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}

tune::WorkerOptions worker_options(const Args& a)
{
    tune::WorkerOptions o;
    // A day at most: past 2^64 ms the conversion would be undefined (it gave 0 ms).
    constexpr double kMaxTimeout = 86400.0;
    const double timeout = a.number("--timeout", 20.0, 0.1);
    if (timeout > kMaxTimeout)
        throw UsageError("--timeout: at most " + std::to_string(int(kMaxTimeout)) +
                         " seconds, got " + a.value("--timeout"));
    o.timeout = std::chrono::milliseconds(std::uint64_t(1000 * timeout));
    o.seed = a.integer("--seed", 0, 0, ~std::uint64_t(0));
    o.profile = a.has("--profile");
    return o;
}

/// The CUDA name of the GPU in hand, asked of the worker; a plain error without a GPU.
std::string gpu_in_hand(const Args& a, tune::WorkerEvaluator& worker)
{
    if (const nn::GpuStatus gpu = nn::gpu_status(); !gpu.available)
        throw Error("gsr kernels " + a.positionals()[0] +
                    " runs candidates on a CUDA GPU, and there is none usable: " + gpu.reason);
    return worker.device_info().value("name", std::string());
}

/// The GPU in hand as a row of the device table (--device overrides), asked of the worker.
sol::DeviceSpec lab_device(const Args& a, tune::WorkerEvaluator& worker, std::string* gpu_name)
{
    *gpu_name = gpu_in_hand(a, worker);
    if (a.has("--device")) return device_of(a);
    if (const sol::DeviceSpec* d = sol::find_device(*gpu_name)) return *d;
    throw Error("the SOL device table has no row for '" + *gpu_name +
                "'; name the closest one with --device (gsr sol --devices lists them)");
}

/// The SOL analysis of `p` on `device`, with the measured peaks of --calibration FILE (as
/// `gsr kernels calibrate --json` writes it) when given, else those --project keeps where they
/// apply to `device` with the GPU in hand `gpu` (sol::calibration_is_of). A kept calibration
/// not used is noted on stderr.
sol::SolAnalysis lab_analysis(const Args& a, const tune::Problem& p,
                              const sol::DeviceSpec& device, const std::string& gpu)
{
    if (a.has("--calibration")) {
        const sol::Calibration c = sol::read_calibration_file(a.value("--calibration"));
        sol::refuse_calibration_of_another_gpu(c, a.value("--calibration"), gpu);
        return sol::analyze(p.op_spec(), device, &c);
    }
#ifdef GSR_HAVE_STORE
    // A project not made yet keeps no calibration (the session's save makes it).
    std::error_code ec;
    if (a.has("--project") && std::filesystem::exists(a.value("--project"), ec)) {
        const auto project =
            store::ProjectStore::open(a.value("--project"), store::OpenMode::OpenExisting);
        // The bounds divide by its peaks where it applies, as the Profiling panel's do;
        // another GPU's say nothing about this one.
        const auto c = store::stored_calibration(project);
        std::string why;
        if (c && sol::calibration_is_of(*c, device, gpu)) {
            try {
                return sol::analyze(p.op_spec(), device, &*c);
            } catch (const Error& e) { // peaks past what `device`'s row allows
                why = e.message();
            }
        } else if (c) {
            why = "it was measured on " + c->device_name + ", not on this GPU (" + gpu +
                  ") or a GPU of the " + device.name + " row";
        }
        if (!why.empty())
            std::fprintf(stderr,
                         "note: the calibration kept in %s is not used (%s); T_SOL uses the "
                         "datasheet peaks of %s\n",
                         a.value("--project").c_str(), why.c_str(), device.name.c_str());
    }
#endif
    return sol::analyze(p.op_spec(), device);
}

/// Checks --project (when given) before a search: a file that is not a project, one of a
/// newer build or a store-less build fails now, not after minutes of GPU work.
void check_session_project(const Args& a)
{
    if (!a.has("--project")) return;
#ifdef GSR_HAVE_STORE
    // One that is not there yet is made by the save; a search that fails must not leave it.
    if (std::error_code ec; std::filesystem::exists(a.value("--project"), ec))
        store::TuneStore::open(a.value("--project"), store::OpenMode::OpenExisting);
#else
    throw Error("this build of gsr has no project store (SQLite): use --out FILE.json");
#endif
}

/// Saves a session in --project (when given and the build has the store). When that fails
/// (the project locked past the timeout, the disk full), the session is not lost: it goes to
/// PROJECT.unsaved-session.json, which the error names (unless --out has it already).
void save_session(const Args& a, const tune::TuneSession& s)
{
    if (!a.has("--project")) return;
#ifdef GSR_HAVE_STORE
    const std::string project = a.value("--project");
    std::int64_t id = 0;
    try {
        auto sessions = store::TuneStore::open(project, store::OpenMode::CreateOrOpen);
        id = sessions.save(s);
    } catch (const Error& e) {
        std::string kept = a.value("--out");
        if (kept.empty()) {
            kept = project + ".unsaved-session.json";
            write_file_atomically(kept, json_text(tune::to_json(s), 2) + "\n");
        }
        throw Error(e.where(), e.message() + "; the session is kept in " + kept +
                                   " (gsr report " + kept + " --format html)");
    }
    std::fprintf(stderr, "saved as session:%lld in %s (gsr report session:%lld --project %s)\n",
                 (long long)id, project.c_str(), (long long)id, project.c_str());
#else
    throw Error("this build of gsr has no project store (SQLite): use --out FILE.json");
#endif
}

/// A suite problem, or an engine problem (engine_*) at the model and graph of --model,
/// --hidden, --groups, --topk, --nodes and --edges (as the Profiling panel logs them).
tune::Problem problem_arg(const Args& a, const std::string& name)
{
    try {
        if (name.rfind("engine_", 0) != 0) return tune::suite_problem(name);
        if (!a.has("--nodes") || !a.has("--edges"))
            throw Error("the engine problem " + name +
                        " needs the graph: --nodes N --edges E (and the model's --model, "
                        "--hidden, --groups, --topk)");
        tune::EngineShape s;
        s.model = nn::parse_model_kind(a.value("--model", "gsr"));
        s.hidden = std::uint32_t(a.integer("--hidden", s.hidden, 1, 1u << 16));
        s.groups = std::uint32_t(a.integer("--groups", s.groups, 1, 1u << 10));
        s.topk = std::uint32_t(
            a.integer("--topk", nn::default_topk(s.hidden, s.groups), 1, 1u << 16));
        s.nodes = a.integer("--nodes", 0, 1, std::uint64_t(1) << 40);
        s.edges = a.integer("--edges", 0, 1, std::uint64_t(1) << 40);
        // A graph holds at most N^2 edges; more took minutes to generate a pattern that
        // could not have them.
        if (s.edges / s.nodes > s.nodes || (s.edges / s.nodes == s.nodes && s.edges % s.nodes))
            throw Error("--edges " + std::to_string(s.edges) + ": a graph of " +
                        std::to_string(s.nodes) + " nodes has at most N^2 edges");
        std::string names;
        for (tune::Problem& p : tune::engine_problems(s)) {
            if (p.name == name) return p;
            names += (names.empty() ? "" : ", ") + p.name;
        }
        throw Error("no engine problem " + name + " at this shape; it has " + names);
    } catch (const Error& e) {
        throw UsageError(e.message());
    }
}

void print_evaluation(const char* what, const tune::Evaluation& e, double t_sol)
{
    std::printf("%-10s %-17s", what, std::string(tune::verdict_name(e.verdict)).c_str());
    if (e.seconds > 0)
        std::printf(" %10.2f us  %6.1f%% of SOL", e.seconds * 1e6, 100.0 * t_sol / e.seconds);
    std::printf("\n");
    if (!e.detail.empty()) std::printf("           %s\n", e.detail.c_str());
    if (e.profile)
        std::printf("           ncu: SM %.1f%%, memory %.1f%%, DRAM %.1f MB, %d registers, "
                    "occupancy %.1f%%\n",
                    e.profile->sm_percent, e.profile->memory_percent, e.profile->dram_bytes / 1e6,
                    e.profile->registers, e.profile->occupancy_percent);
}

int verify(const Args& a)
{
    if (a.positionals().size() != 2) throw UsageError("kernels verify takes one FILE.cu");
    if (!a.has("--problem")) throw UsageError("kernels verify needs --problem");
    const std::string file = a.positionals()[1];
    const tune::Problem p = problem_arg(a, a.value("--problem"));
    const tune::WorkerOptions options = worker_options(a); // the command line before the file
    const std::string source = read_text_file(file);
    const std::string entry = a.value("--entry", std::string(tune::entry_point(p.family)));
    tune::LaunchShape launch = tune::default_launch(p);
    if (a.has("--block") && !a.has("--grid"))
        throw UsageError("--block needs --grid EXPR (without either, the launch is the "
                         "problem's default: " + std::to_string(launch.block[0]) + " threads)");
    if (a.has("--grid")) {
        try {
            launch = tune::launch_from_expression(p, a.value("--grid"),
                                                  unsigned(a.integer("--block", 256, 1, 1024)));
        } catch (const Error& e) {
            throw UsageError("--grid: " + e.message()); // the command line's, not a file's
        }
    }
    tune::WorkerEvaluator worker(p, sol::device_table().front(), 0, options);
    std::string gpu;
    const sol::DeviceSpec device = lab_device(a, worker, &gpu);
    const sol::SolAnalysis an = lab_analysis(a, p, device, gpu);
    worker.retarget(device, sol::gaming_bound(an));
    const tune::Evaluation e = worker.evaluate_launch(source, entry, launch);
    if (a.has("--json")) {
        tune::TuneSession s = tune::make_session(p, an, "verify");
        tune::CandidateRecord c;
        c.label = std::filesystem::path(file).filename().string();
        c.origin = "file";
        c.verdict = e.verdict;
        c.seconds = e.seconds;
        c.detail = e.detail;
        c.profile = e.profile;
        c.best = e.ok();
        s.candidates.push_back(c);
        nlohmann::json j = tune::to_json(s);
        j["gpu"] = gpu;
        j["seeds"] = worker.seeds();
        j["workers_started"] = worker.workers_started();
        std::cout << json_text(j, 2) << '\n';
    } else {
        std::printf("%s on %s (%s), T_SOL %.2f us, seeds", p.name.c_str(), gpu.c_str(),
                    device.name.c_str(), an.t_sol * 1e6);
        for (auto seed : worker.seeds()) std::printf(" %llu", (unsigned long long)seed);
        std::printf("\n");
        print_evaluation(file.c_str(), e, an.t_sol);
    }
    return e.ok() ? 0 : 3;
}

int tune_problem(const Args& a)
{
    if (a.positionals().size() != 2) throw UsageError("kernels tune takes one PROBLEM");
    if (is_standard_output(a.value("--out")))
        throw UsageError("--out -: the search's report is on standard output (--json prints the "
                         "session); name a file for --out");
    refuse_out_over_inputs(a, {a.value("--project"), a.value("--calibration")});
    const tune::Problem p = problem_arg(a, a.positionals()[1]);
    check_session_project(a);
    tune::SearchOptions options;
    try {
        options.strategy = tune::parse_strategy(a.value("--strategy", "sol"));
    } catch (const Error& e) {
        throw UsageError("--strategy: " + e.message());
    }
    options.budget = a.integer("--budget", 32, 1, 100000);
    options.seed = a.integer("--seed", 1, 0, ~std::uint64_t(0));
    options.stop_headroom = a.number("--stop-headroom", tune::kInteractiveStopHeadroom, 1.0);
    options.patience = a.integer("--patience", options.patience, 1, 100000);
    tune::WorkerEvaluator worker(p, sol::device_table().front(), 0, worker_options(a));
    std::string gpu;
    const sol::DeviceSpec device = lab_device(a, worker, &gpu);
    const sol::SolAnalysis an = lab_analysis(a, p, device, gpu);
    worker.retarget(device, sol::gaming_bound(an));
    const bool json = a.has("--json");
    if (!json)
        std::printf("%s on %s (%s): T_SOL %.2f us (%s-bound), strategy %s, budget %zu\n",
                    p.name.c_str(), gpu.c_str(), device.name.c_str(), an.t_sol * 1e6,
                    std::string(sol::bound_name(an.bound)).c_str(),
                    std::string(tune::strategy_name(options.strategy)).c_str(), options.budget);
    const tune::Evaluation base = worker.baseline();
    if (!json) print_evaluation("baseline", base, an.t_sol);
    const std::vector<tune::KernelConfig> space = tune::config_space(p, device);
    // Steered by the calibrated T_SOL that the session reports against; the more permissive
    // bound judges gaming.
    const tune::SearchResult r =
        tune::search(p, device, space, worker, options, an.t_sol, sol::gaming_bound(an));
    tune::TuneSession s =
        tune::make_session(p, an, std::string(tune::strategy_name(options.strategy)));
    tune::set_baseline(s, base);
    tune::add_search(s, r);
    const tune::CandidateRecord* best = s.best_candidate();
    if (a.has("--out"))
        write_file_atomically(a.value("--out"), json_text(tune::to_json(s), 2) + "\n");
    if (json) { // before the save: its failure must not take the printed session with it
        nlohmann::json j = tune::to_json(s);
        j["gpu"] = gpu;
        std::cout << json_text(j, 2) << std::endl;
        save_session(a, s);
        return best ? 0 : 3;
    }
    save_session(a, s);
    for (const tune::CandidateRecord& c : s.candidates)
        std::printf("%4zu %-9s %-17s %10.2f us %6.1f%%  %s\n", c.id, c.origin.c_str(),
                    std::string(tune::verdict_name(c.verdict)).c_str(), c.seconds * 1e6,
                    tune::percent_of_sol(s, c), c.label.c_str());
    std::printf("stop: %s after %zu of %zu configs; workers started %zu\n", r.stop_reason.c_str(),
                r.trials.size(), r.space_size, worker.workers_started());
    if (best) {
        std::printf("best %.2f us, %.1f%% of SOL", best->seconds * 1e6,
                    tune::percent_of_sol(s, *best));
        if (s.baseline_seconds > 0)
            std::printf(", %.2fx the baseline (%.2f us)", s.baseline_seconds / best->seconds,
                        s.baseline_seconds * 1e6);
        std::printf(": %s\n", best->label.c_str());
    } else {
        std::printf("no candidate verified\n");
    }
    return best ? 0 : 3;
}

/// `gsr kernels apply`: the best verified config of each engine problem of the project's
/// sessions becomes what the GPU backend runs (store::TuneStore::apply).
int apply(const Args& a)
{
    if (a.positionals().size() != 1) throw UsageError("kernels apply takes no argument");
    if (!a.has("--project")) throw UsageError("kernels apply needs --project P.gsr");
#ifdef GSR_HAVE_STORE
    const std::string path = a.value("--project");
    for (const char* f : {"--list", "--session"})
        if (a.has("--clear") && a.has(f))
            throw UsageError(std::string("--clear removes every applied kernel: it takes no ") +
                             f);
    // --list only reads: a write-protected project (archived, a colleague's) lists too, and a
    // writable one of an older schema is brought up to date as before.
    const bool read_only = a.has("--list") && store::ProjectStore::is_read_only_file(path);
    auto store = store::TuneStore::open(
        path, read_only ? store::OpenMode::ReadOnly : store::OpenMode::OpenExisting);
    tune::ApplyChoice choice;
    if (a.has("--clear")) {
        store.clear_applied();
    } else if (!a.has("--list")) {
        std::vector<std::int64_t> ids;
        if (a.has("--session")) {
            std::stringstream in(a.value("--session"));
            for (std::string part; std::getline(in, part, ',');) {
                try {
                    std::size_t used = 0;
                    const long long id = std::stoll(part, &used);
                    if (used != part.size() || id < 1) throw std::invalid_argument(part);
                    ids.push_back(id);
                } catch (const std::exception&) {
                    throw UsageError("--session takes session ids such as 3 or 3,7, not '" +
                                     a.value("--session") + "'");
                }
            }
        }
        choice = store.apply(ids);
    }
    const std::vector<tune::AppliedKernel> applied = store.applied();
    std::vector<std::string> notes = choice.skipped;
    tune::tuned_kernels(applied, &notes);
    if (a.has("--json")) {
        const nlohmann::json j{{"project", path},
                               {"applied", tune::applied_json(applied)},
                               {"chosen", choice.kernels.size()},
                               {"notes", notes}};
        std::cout << json_text(j, 2) << '\n';
        return 0;
    }
    for (const std::string& n : notes) std::cerr << "note: " << n << '\n';
    if (applied.empty()) {
        std::printf("%s: no applied kernels; training uses the backend's own\n", path.c_str());
        return 0;
    }
    std::printf("%-34s %-10s %8s %10s %10s %7s  %s\n", "problem", "backend", "session",
                "tuned us", "base us", "%SOL", "config");
    for (const tune::AppliedKernel& k : applied)
        std::printf("%-34s %-10s %8lld %10.2f %10.2f %6.1f%%  %s\n", k.problem.c_str(),
                    tune::backend_support(k.operation).empty() ? "used" : "not used",
                    (long long)k.session, k.seconds * 1e6, k.baseline_seconds * 1e6,
                    k.seconds > 0 ? 100.0 * k.t_sol / k.seconds : 0.0,
                    tune::to_text(k.config).c_str());
    return 0;
#else
    throw Error("this build of gsr has no project store (SQLite): kernels apply needs one");
#endif
}

int calibrate(const Args& a)
{
    if (a.positionals().size() != 1) throw UsageError("kernels calibrate takes no argument");
    tune::WorkerEvaluator worker(tune::builtin_suite().front(), sol::device_table().front(), 0,
                                 worker_options(a));
    // The measurement names the GPU itself and needs no row of the device table: a GPU
    // without one is calibrated too (tune then takes its calibration with any --device).
    if (a.has("--device")) (void)device_of(a); // unused, but a wrong name is still refused
    (void)gpu_in_hand(a, worker); // a plain error without a GPU
    nlohmann::json measured = worker.calibrate();
    measured["date"] = tune::utc_now_iso8601();
    for (const char* key : {"copy_bandwidth", "gemm_rate", "fp32_fma_rate"})
        if (!measured.contains(key)) measured[key] = 0.0;
    const sol::Calibration c = sol::calibration_from_json(measured);
    const nlohmann::json j = sol::calibration_json(c);
    if (a.has("--project")) {
#ifdef GSR_HAVE_STORE
        auto project =
            store::ProjectStore::open(a.value("--project"), store::OpenMode::CreateOrOpen);
        store::store_calibration(project, c);
#else
        throw Error("this build of gsr has no project store (SQLite): use --json > CAL.json");
#endif
    }
    if (a.has("--json")) {
        std::cout << json_text(j, 2) << '\n';
        return 0;
    }
    std::printf("%s: copy %.0f GB/s, SGEMM %.1f TFLOP/s, FP32 FMA %.1f TFLOP/s%s\n",
                c.device_name.c_str(), c.copy_bandwidth / 1e9, c.gemm_rate / 1e12,
                c.fp32_fma_rate / 1e12, a.has("--project") ? " (saved in the project)" : "");
    return 0;
}

} // namespace

int cmd_kernels(const std::vector<std::string>& args)
{
    const Args a(args,
                 {"--device", "--config", "--problem", "--entry", "--grid", "--block",
                  "--timeout", "--strategy", "--budget", "--seed", "--out", "--calibration",
                  "--project", "--stop-headroom", "--patience", "--model", "--hidden",
                  "--groups", "--topk", "--nodes", "--edges", "--session"},
                 {"--json", "--help", "--profile", "--clear", "--list"});
    if (a.has("--help") || a.positionals().empty()) {
        usage(a.has("--help") ? std::cout : std::cerr); // a mistake's text on stderr
        return a.has("--help") ? 0 : 1;
    }
    const std::string& sub = a.positionals()[0];
    // The subcommands share one flag list; a flag one of them does not read was ignored.
    const std::vector<std::string> engine = {"--nodes", "--edges", "--model", "--hidden",
                                             "--groups", "--topk"};
    const std::vector<std::string> lab = {"--timeout", "--seed", "--profile", "--device",
                                          "--calibration", "--project", "--json"};
    const auto allow = [&](std::vector<std::string> own, bool engine_problem, bool in_lab) {
        if (engine_problem) own.insert(own.end(), engine.begin(), engine.end());
        if (in_lab) own.insert(own.end(), lab.begin(), lab.end());
        a.refuse_flags_except(own, "gsr kernels " + sub);
    };
    if (sub == "suite") allow({"--device", "--json"}, false, false);
    else if (sub == "emit") allow({"--config", "--device"}, true, false);
    else if (sub == "verify")
        allow({"--problem", "--entry", "--grid", "--block"}, true, true);
    else if (sub == "tune")
        allow({"--strategy", "--budget", "--stop-headroom", "--patience", "--out"}, true, true);
    else if (sub == "calibrate")
        allow({"--timeout", "--seed", "--profile", "--device", "--project", "--json"}, false, false);
    else if (sub == "apply")
        allow({"--project", "--session", "--list", "--clear", "--json"}, false, false);
    if (sub == "suite") {
        if (a.positionals().size() != 1) throw UsageError("kernels suite takes no argument");
        return suite(a);
    }
    if (sub == "emit") return emit(a);
    if (sub == "verify") return verify(a);
    if (sub == "tune") return tune_problem(a);
    if (sub == "calibrate") return calibrate(a);
    if (sub == "apply") return apply(a);
    throw UsageError("unknown kernels subcommand '" + sub +
                     "'; expected suite, emit, verify, tune, calibrate or apply");
}

} // namespace gsr::cli
