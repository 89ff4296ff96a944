// `gsr train --model symgraph`: learns SymGraph rules (core/symgraph) on the data sets, splits
// and metrics of the GNN trainer and stores the run, its metrics and its rules in the project.
// `gsr rules RUN`: a stored symgraph run's rules as text or JSON.
#include "cli_commands.hpp"

#include "netlist/readers.hpp"
#include "symgraph/symgraph_model.hpp"
#include "train/dataset.hpp"
#include "train/report_json.hpp"
#include "util/atomic_file.hpp"
#include "util/diagnostics.hpp"
#include "util/number_text.hpp"

#ifdef GSR_HAVE_STORE
#include "report/run_table.hpp"
#include "store/run_claim.hpp"
#include "store/run_store.hpp"
#include "util/json_text.hpp"
#endif

#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <iostream>

namespace gsr::cli {

#ifdef GSR_HAVE_STORE

namespace {

constexpr const char* kUsage =
    "gsr train FILE... [--test FILE...] [--val FILE...] [--liberty LIB]... --db PROJECT "
    "--model symgraph "
    "[--target sp|toggle|level|arrival] [--task value|bins] [--bins N] [--hops auto|1|2] "
    "[--max-rules N] [--max-conditions N] [--min-support N] [--penalty X] [--seed S] "
    "[--json] [--quiet]";

/// `--test a b` -> `--test=a --test=b` (as train_commands.cpp does for the GNNs).
nlohmann::ordered_json split_json(const symgraph::SplitScore& s)
{
    nlohmann::ordered_json j;
    j["count"] = s.metrics.count;
    j["mae"] = train::json_number(s.metrics.mae);
    j["rmse"] = train::json_number(s.metrics.rmse);
    j["pearson"] = train::json_number(s.metrics.pearson.value);
    j["spearman"] = train::json_number(s.metrics.spearman.value);
    j["kendall"] = train::json_number(s.metrics.kendall.value);
    j["bin_accuracy"] = train::json_number(s.bin_accuracy);
    if (!s.metrics.pearson.defined()) j["undefined"] = s.metrics.pearson.undefined;
    return j;
}

nlohmann::ordered_json granularity_json(const symgraph::Granularity& g)
{
    return {{"fine_fan", g.fine_fan},
            {"depth_bins", g.depth_bins},
            {"hops", g.hops},
            {"polarity", g.polarity}};
}

std::string fixed(double v, int digits) { return fixed_text(v, digits, "-"); }

} // namespace

int cmd_train_symgraph(const std::vector<std::string>& argv)
{
    Args a(expand_list_flags(argv),
           {"--target", "--model", "--task", "--bins", "--hops", "--max-rules", "--max-conditions",
            "--min-support", "--penalty", "--seed", "--test", "--val", "--db", "--liberty"},
           {"--json", "--quiet"});
    if (a.value("--model") != "symgraph") throw UsageError("usage: " + std::string(kUsage));
    if (!a.has("--db"))
        throw UsageError("train needs --db PROJECT (runs are kept there)\nusage: " +
                         std::string(kUsage));
    if (a.positionals().empty()) throw UsageError("train needs at least one training FILE");
    // Without --test the rules are learnt and scored on the validation nodes only, as the
    // Rules panel does for the circuit it shows (the test row is then empty).

    const std::vector<std::string> train_files = absolute(a.positionals());
    const std::vector<std::string> val_files = absolute(a.values("--val"));
    const std::vector<std::string> test_files = absolute(a.values("--test"));
    const std::vector<std::string> liberty = absolute(a.values("--liberty"));
    train::Target target;
    symgraph::SymGraphOptions options;
    std::uint64_t seed = 1;
    try {
        target = train::parse_target(a.value("--target", "sp"));
    } catch (const Error& e) {
        throw UsageError(e.message());
    }
    const std::string task = a.value("--task", "value");
    if (task != "value" && task != "bins")
        throw UsageError("--task must be value (regression by rules) or bins (classification "
                         "into --bins bins), not '" +
                         task + "'");
    options.task = task == "bins" ? symgraph::Task::Classification : symgraph::Task::Regression;
    options.bins = static_cast<std::uint32_t>(a.integer("--bins", 10, 2, 1000));
    const std::string hops = a.value("--hops", "auto");
    if (hops != "auto" && hops != "1" && hops != "2")
        throw UsageError("--hops must be auto, 1 or 2, not '" + hops + "'");
    if (hops != "auto") {
        std::vector<symgraph::Granularity> kept;
        for (const symgraph::Granularity& g : options.candidates)
            if (g.hops == static_cast<std::uint32_t>(std::stoul(hops))) kept.push_back(g);
        options.candidates = kept;
    }
    options.max_rules = static_cast<std::uint32_t>(a.integer("--max-rules", 64, 1, 100000));
    options.max_conditions = static_cast<std::uint32_t>(a.integer("--max-conditions", 3, 1, 16));
    options.min_support = a.integer("--min-support", 0, 0, std::uint64_t{1} << 40);
    options.rule_penalty = a.number("--penalty", 0.001, 0.0);
    seed = a.integer("--seed", 1, 0, ~std::uint64_t{0});

    train::HoldOut hold_out;
    // Without validation circuits, the penalised search watches 10 % of the training nodes,
    // as early stopping does for the GNNs.
    hold_out.validation = val_files.empty() ? 0.1 : 0.0;
    hold_out.seed = seed;
    // Standard-cell circuits with their libraries, as `gsr train --liberty` reads them.
    const train::RunLibraries libraries(liberty);
    if (libraries.library() && !a.has("--quiet")) print_warnings(libraries.library()->diagnostics);
    const train::Dataset data = train::load_dataset(target, train_files, val_files, test_files,
                                                    hold_out, libraries.label_options());
    if (!a.has("--quiet"))
        for (const std::string& n : data.notes) std::cerr << "note: " << n << '\n';
    // Opened (or created) once the circuits have been read: a missing or bad one leaves no
    // new project behind.
    auto store = store::RunStore::open(a.value("--db"), store::OpenMode::CreateOrOpen);

    nlohmann::ordered_json config;
    config["train"] = train_files;
    config["val"] = val_files;
    config["test"] = test_files;
    config["liberty"] = liberty;
    config["target"] = std::string(train::target_name(target));
    config["model"] = "symgraph";
    config["task"] = task;
    config["bins"] = options.bins;
    config["hops"] = hops;
    config["max_rules"] = options.max_rules;
    config["max_conditions"] = options.max_conditions;
    config["min_support"] = options.min_support;
    config["penalty"] = options.rule_penalty;
    config["seed"] = seed;
    config["holdout_validation"] = hold_out.validation;
    store::RunRecord record;
    record.config_json = json_text(config);
    record.device = "cpu";
    record.target = std::string(train::target_name(target));
    record.model = "symgraph";
    record.status = "running";
    // Ctrl-C from here on cancels the run between the search's candidates.
    InterruptGuard guard;
    options.cancel = InterruptGuard::flag();
    const std::int64_t run_id = store.create_run(record);
    // Held while the search runs: `gsr runs list` tells it from a run whose process died.
    const store::RunClaim claim = store::RunClaim::take(a.value("--db"), run_id);

    std::vector<symgraph::CandidateReport> search;
    const auto t0 = std::chrono::steady_clock::now();
    symgraph::SymGraphModel model;
    symgraph::SplitScore train_s, val_s, test_s;
    double seconds = 0;
    nlohmann::ordered_json result;
    // Everything after create_run ends the run: finished, cancelled (Ctrl-C, between the
    // candidates of the search) or failed, never left "running".
    try {
        model = symgraph::SymGraphModel::fit(data, options, &search);
        seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        if (!a.has("--quiet"))
            for (const std::string& n : model.notes()) std::cerr << "note: " << n << '\n';

        std::vector<std::vector<double>> predictions;
        for (const train::CircuitData& c : data.circuits)
            predictions.push_back(model.predict(c.graph));
        train_s = symgraph::evaluate_split(data, predictions, train::Split::Train, model.binning());
        val_s = symgraph::evaluate_split(data, predictions, train::Split::Validation,
                                         model.binning());
        test_s = symgraph::evaluate_split(data, predictions, train::Split::Test, model.binning());

        result["status"] = "finished";
        result["seconds"] = seconds;
        result["task"] = task;
        result["granularity"] = granularity_json(model.granularity());
        nlohmann::ordered_json s = nlohmann::ordered_json::array();
        for (const symgraph::CandidateReport& c : search)
            s.push_back({{"granularity", granularity_json(c.granularity)},
                         {"min_support", c.min_support},
                         {"vocabulary", c.vocabulary},
                         {"rules_learned", c.rules_learned},
                         {"rules_kept", c.rules_kept},
                         {"validation_score", train::json_number(c.validation_score)},
                         {"objective", train::json_number(c.objective)},
                         {"seconds", c.seconds}});
        result["search"] = s;
        result["train"] = split_json(train_s);
        result["val"] = split_json(val_s);
        result["test"] = split_json(test_s);
        result["rules"] = model.to_json();
        result["notes"] = model.notes();
    } catch (const symgraph::FitCancelled&) {
        store.finish_run(run_id, "cancelled",
                         json_text({{"status", "cancelled"},
                                    {"candidates_searched", search.size()}}),
                         0);
        std::cerr << "interrupted: run " << run_id
                  << " is cancelled (a symgraph search does not resume; start it again)\n";
        return 130;
    } catch (const std::exception& e) {
        store.finish_run(run_id, "failed",
                         json_text({{"error", error_words(e, a.value("--db"))}}), 0);
        throw;
    }
    store.finish_run(run_id, "finished", json_text(result), 0);

    if (a.has("--json")) {
        nlohmann::ordered_json j;
        j["run"] = run_id;
        j["status"] = "finished";
        j["device"] = "cpu";
        j["target"] = std::string(train::target_name(target));
        j["model"] = "symgraph";
        j["task"] = task;
        j["seconds"] = seconds;
        j["granularity"] = result["granularity"];
        j["rule_count"] = model.rules().rules.size();
        j["train"] = result["train"];
        j["val"] = result["val"];
        j["test"] = result["test"];
        j["search"] = result["search"];
        nlohmann::ordered_json texts = nlohmann::ordered_json::array();
        for (std::size_t i = 0; i <= model.rules().rules.size(); ++i)
            texts.push_back(model.rule_text(i));
        j["rules"] = texts;
        std::vector<std::string> notes = data.notes;
        notes.insert(notes.end(), model.notes().begin(), model.notes().end());
        j["notes"] = notes;
        std::cout << json_text(j, 2) << '\n';
    } else if (!a.has("--quiet")) {
        std::cout << "run " << run_id << " finished: symgraph searched " << search.size()
                  << " vocabularies in " << fixed(seconds, 3) << " s, kept "
                  << model.granularity().str() << " with " << model.rules().rules.size()
                  << " rules\n";
        std::cout << "split  nodes   Pearson  Spearman  Kendall  MAE     RMSE    bin acc\n";
        for (const auto& [name, sc] : {std::pair{"train", &train_s}, std::pair{"val", &val_s},
                                       std::pair{"test", &test_s}}) {
            char line[160];
            std::snprintf(line, sizeof line, "%-6s %-7zu %-8s %-9s %-8s %-7s %-7s %s\n", name,
                          sc->metrics.count, fixed(sc->metrics.pearson.value, 3).c_str(),
                          fixed(sc->metrics.spearman.value, 3).c_str(),
                          fixed(sc->metrics.kendall.value, 3).c_str(),
                          fixed(sc->metrics.mae, 4).c_str(), fixed(sc->metrics.rmse, 4).c_str(),
                          fixed(sc->bin_accuracy, 3).c_str());
            std::cout << line;
        }
        std::cout << model.text();
    }
    return 0;
}

int cmd_rules(const std::vector<std::string>& argv)
{
    Args a(argv, {"--db", "--format", "--out"}, {});
    constexpr const char* usage =
        "usage: gsr rules RUN --db PROJECT [--format text|json] [--out FILE]";
    if (a.positionals().size() != 1) throw UsageError(usage);
    if (!a.has("--db"))
        throw UsageError(std::string("rules needs --db PROJECT\n") + usage);
    refuse_out_over_inputs(a, {a.value("--db")});
    const std::string format = a.value("--format", "text");
    if (format != "text" && format != "json")
        throw UsageError("--format must be text or json, not '" + format + "'");
    std::int64_t id = 0;
    try {
        std::size_t used = 0;
        const std::string& text = a.positionals()[0];
        // Digits only, as every integer flag reads them: stoll took "+8" and " 8" too.
        if (text.empty() || text.find_first_not_of("0123456789") != std::string::npos)
            throw std::invalid_argument("run");
        id = std::stoll(text, &used);
        if (used != text.size() || id < 1) throw std::invalid_argument("run");
    } catch (const std::exception&) {
        throw UsageError("RUN must be a run number (gsr runs list --db ... lists them), not '" +
                         a.positionals()[0] + "'");
    }
    auto store = store::RunStore::open(a.value("--db"), store::OpenMode::ReadOnly);
    const std::optional<store::RunRecord> run = store.find_run(id);
    if (!run) // what the project holds, not the command line: exit 2, as report run:N
        throw Error(SourceLocation{a.value("--db")},
                    "no run " + std::to_string(id) + " in the project (gsr runs list lists them)");
    if (run->model != "symgraph") // what the project holds: exit 2, as a missing run
        throw Error(SourceLocation{a.value("--db")},
                    "run " + std::to_string(id) + " is a " + run->model +
                        " run; only symgraph runs have rules");
    const nlohmann::json result = nlohmann::json::parse(run->result_json, nullptr, false);
    if (result.is_discarded() || !result.is_object() || !result.contains("rules"))
        throw Error(SourceLocation{a.value("--db")},
                    "run " + std::to_string(id) + " has no stored rules (status: " +
                        report::run_status(*run, store::RunClaim::held(a.value("--db"), id)) +
                        ")");
    symgraph::SymGraphModel model;
    try {
        model = symgraph::SymGraphModel::from_json(result.at("rules"));
    } catch (const Error& e) {
        throw Error(SourceLocation{a.value("--db")},
                    "the rules of run " + std::to_string(id) + " cannot be read: " + e.message());
    }
    const std::string text = format == "json" ? json_text(model.to_json(), 2) + "\n" : model.text();
    write_output(a.value("--out", "-"), text);
    return 0;
}

#else

int cmd_train_symgraph(const std::vector<std::string>&)
{
    throw Error("this build has no project store (SQLite was not found when it was built); "
                "gsr train keeps its runs there");
}
int cmd_rules(const std::vector<std::string>& args)
{
    return cmd_train_symgraph(args);
}

#endif

} // namespace gsr::cli
