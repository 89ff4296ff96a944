// `gsr train`: trains a GNN on circuits and tests it on other circuits, recording the run, its
// epochs and checkpoints in a project. `gsr runs list`: the runs of a project.
#include "cli_commands.hpp"

#include "netlist/readers.hpp"
#include "nn/cpu_backend.hpp"
#include "nn/model_config.hpp"
#include "train/cluster_batcher.hpp"
#include "train/commrand_batcher.hpp"
#include "train/dataset.hpp"
#include "train/report_json.hpp"
#include "train/run_settings.hpp"
#include "train/trainer.hpp"
#include "util/diagnostics.hpp"
#include "util/number_text.hpp"

#ifdef GSR_HAVE_STORE
#include "report/predictions.hpp"
#include "report/run_table.hpp"
#include "store/run_claim.hpp"
#include "store/run_report_source.hpp"
#include "store/run_store.hpp"
#include "store/tune_store.hpp"
#include "util/atomic_file.hpp"
#include "util/json_text.hpp"
#endif

#include <charconv>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <limits>
#include <sstream>
#include <system_error>

namespace gsr::cli {

#ifdef GSR_HAVE_STORE

namespace {

constexpr const char* kTrainUsage =
    "gsr train FILE... --test FILE... [--val FILE...] --db PROJECT [--target "
    "sp|toggle|level|arrival] [--model gcn|sage|res|rev|gsr] [--layers L] [--hidden D] "
    "[--groups C] [--topk K] [--epochs E] [--lr X] [--warmup N] "
    "[--batching full|random|commrand|cluster] "
    "[--batch-size N] [--alpha A] [--beta B] [--fanout F1,F2,...] "
    "[--order community|rcm|original] [--seed S] [--patience P] [--device auto|cpu|gpu] "
    "[--resume RUN] [--tuned-kernels on|off] [--offload-optimizer] [--predictions CSV] "
    "[--liberty LIB]... [--json] [--quiet]\n"
    "  --liberty reads the circuits with their cell libraries (Liberty or LEF): pin\n"
    "  directions, library cells simulated by their functions (sp, toggle), NLDM arrival.\n"
    "  --predictions writes every node's prediction by the best epoch's model (the weights\n"
    "  the run ends with): circuit, node, net, split, target, predicted.\n"
    "  On the GPU the kernels applied in the project (gsr kernels apply) replace the "
    "backend's own unless --tuned-kernels off.\n"
    "  --warmup N raises the learning rate linearly over the first N optimiser steps.\n"
    "  --offload-optimizer keeps gradients and Adam moments in pinned host memory (the GPU\n"
    "  reads them over the bus): device memory then hardly grows with depth.\n"
    "  --batch B is --batching random --batch-size B. Without --fanout every step runs the "
    "whole circuit (the batch's complete neighbourhood); with it, a subgraph sampled per hop.";

const char* const kBatchingModes[] = {"full", "random", "commrand", "cluster"};

/// Everything a run needs to be started again: stored as the run's config_json.
using train::RunSettings;

/// --batching, --batch-size (or --batch), --alpha, --beta, --fanout, --order.
void batching_from_flags(const Args& a, RunSettings& s)
{
    const bool old_batch = a.has("--batch"), size = a.has("--batch-size");
    if (old_batch && size)
        throw UsageError("--batch is the older name of --batch-size: give only one of them");
    s.batching = a.value("--batching", old_batch || size ? "random" : "full");
    bool known = false;
    for (const char* m : kBatchingModes) known = known || s.batching == m;
    if (!known)
        throw UsageError("--batching: unknown mode '" + s.batching +
                         "' (allowed: full, random, commrand, cluster)");
    if (old_batch) {
        // --batch B: random batches of B, and --batch 0 the full graph, as it always meant.
        if (a.has("--batching") && s.batching != "random")
            throw UsageError("--batch B means --batching random --batch-size B; with "
                             "--batching " + s.batching + " give --batch-size");
        s.config.batch_size = a.integer("--batch", 0, 0, std::uint64_t{1} << 32);
        if (s.config.batch_size == 0) s.batching = "full";
    } else if (s.batching != "full") {
        s.config.batch_size = a.integer("--batch-size", 1024, 1, std::uint64_t{1} << 32);
    } else if (size) {
        throw UsageError("--batch-size applies to --batching random, commrand or cluster; "
                         "--batching full takes every training node in one step");
    }
    for (const char* f : {"--alpha", "--beta"})
        if (a.has(f) && s.batching != "commrand")
            throw UsageError(std::string(f) + " applies to --batching commrand only (the "
                             "batching is " + s.batching + ")");
    s.alpha = a.number("--alpha", 0.5, 0.0);
    s.beta = a.number("--beta", 1.0, 1.0);
    if (a.has("--fanout")) {
        if (s.batching == "full" || s.batching == "cluster")
            throw UsageError("--fanout applies to --batching random or commrand (" +
                             s.batching + (s.batching == "full"
                                               ? " steps run the whole circuit)"
                                               : " steps run the subgraph of their partitions)"));
        s.fanouts = train::parse_fanouts(a.value("--fanout"));
        train::check_fanouts(s.fanouts, s.config.model);
    }
    s.order = train::parse_node_order(
        a.value("--order", s.batching == "commrand" ? "community" : "original"));
    if (s.batching == "commrand") {
        train::CommRandOptions o;
        o.batch_size = s.config.batch_size;
        o.alpha = s.alpha;
        o.beta = s.beta;
        train::validate(o);
    }
}

RunSettings settings_from_flags(const Args& a)
{
    RunSettings s;
    if (a.positionals().empty()) throw UsageError("train needs at least one training FILE");
    if (!a.has("--test"))
        throw UsageError("train needs --test FILE...: circuits to test on, other than the "
                         "training circuits");
    s.train = absolute(a.positionals());
    s.validation = absolute(a.values("--val"));
    s.test = absolute(a.values("--test"));
    s.liberty = absolute(a.values("--liberty"));
    try {
        s.target = train::parse_target(a.value("--target", "sp"));
        nn::ModelConfig& m = s.config.model;
        m.kind = nn::parse_model_kind(a.value("--model", "gsr"));
        refuse_model_flags(a, m.kind == nn::ModelKind::Rev || m.kind == nn::ModelKind::Gsr,
                           m.kind == nn::ModelKind::Gsr, std::string(nn::model_kind_name(m.kind)));
        m.layers = static_cast<std::uint32_t>(a.integer("--layers", m.layers, 1, 100000));
        // The engine's widest (nn::validate says the same): "1 to 65536" and then "at most
        // 4096" gave two limits for one flag.
        m.hidden = static_cast<std::uint32_t>(a.integer("--hidden", m.hidden, 1, nn::kCpuMaxWidth));
        // Only rev and gsr take it, and they need two groups at least (nn::validate).
        m.groups = static_cast<std::uint32_t>(a.integer("--groups", m.groups, 2, 65536));
        refuse_hidden_for_default_groups(
            a, m.hidden, m.groups, m.kind == nn::ModelKind::Rev || m.kind == nn::ModelKind::Gsr);
        m.topk = static_cast<std::uint32_t>(
            a.integer("--topk", nn::default_topk(m.hidden, m.groups), 1, 65536));
        s.config.epochs =
            static_cast<std::uint32_t>(a.integer("--epochs", 50, 1, train::kMaxEpochs));
        s.config.adam.learning_rate = a.number("--lr", 1e-3, 0.0, true);
        s.config.warmup_steps =
            static_cast<std::uint32_t>(a.integer("--warmup", 0, 0, 1u << 24));
        batching_from_flags(a, s);
        s.config.seed = a.integer("--seed", 1, 0, ~std::uint64_t{0});
        s.config.patience =
            static_cast<std::uint32_t>(a.integer("--patience", 10, 0, train::kMaxEpochs));
        m.seed = s.config.seed;
        s.split_seed = s.config.seed;
        // Without validation circuits, early stopping watches 10 % of the training nodes.
        s.holdout_validation = s.validation.empty() ? 0.1 : 0.0;
        train::validate(s.config, s.target);
    } catch (const Error& e) {
        throw UsageError(e.message()); // a configuration this build cannot run
    }
    return s;
}

std::string fixed(double v, int digits = 4) { return fixed_text(v, digits, "-"); }

nlohmann::json split_summary(const nlohmann::json& epoch, const char* split)
{
    return epoch.is_object() ? epoch.at(split) : nlohmann::json(nullptr);
}

} // namespace

int cmd_train(const std::vector<std::string>& argv)
{
    for (std::size_t i = 0; i < argv.size(); ++i)
        if ((i + 1 < argv.size() && argv[i] == "--model" && argv[i + 1] == "symgraph") ||
            argv[i] == "--model=symgraph")
            return cmd_train_symgraph(argv);
    Args a(expand_list_flags(argv),
           {"--target", "--model", "--layers", "--hidden", "--groups", "--topk", "--epochs",
            "--lr", "--batch", "--seed", "--patience", "--device", "--test", "--val", "--db",
            "--resume", "--batching", "--batch-size", "--alpha", "--beta", "--fanout",
            "--order", "--tuned-kernels", "--warmup", "--predictions", "--liberty"},
           {"--json", "--quiet", "--offload-optimizer"});
    if (!a.has("--db"))
        throw UsageError("train needs --db PROJECT (runs and checkpoints are kept there)\n"
                         "usage: " + std::string(kTrainUsage));
    // The GPU is probed once, when the model's width is known: a new run's before its project
    // is touched (a mistake must not leave an empty project behind), a resumed run's from it.
    train::DeviceChoice device;
    const auto choose_device = [&](std::uint32_t hidden) {
        try {
            device = train::choose_device(a.value("--device", "auto"), hidden);
        } catch (const Error& e) {
            throw UsageError(e.message());
        }
        if (!device.note.empty() && !a.has("--quiet")) std::cerr << "note: " << device.note << '\n';
    };

    // The command line is checked before the project is touched: a mistake must not leave a
    // new, empty project behind (and a resume opens only a project that exists).
    RunSettings settings;
    std::int64_t run_id = 0;
    const bool resume = a.has("--resume");
    if (resume) {
        for (const char* f : {"--target", "--model", "--layers", "--hidden", "--groups",
                              "--topk", "--lr", "--batch", "--seed", "--patience", "--test",
                              "--val", "--batching", "--batch-size", "--alpha", "--beta",
                              "--fanout", "--order", "--warmup", "--liberty"})
            if (a.has(f))
                throw UsageError(std::string("--resume continues a run with its own settings: "
                                             "leave out ") + f + " (only --epochs may change)");
        if (!a.positionals().empty())
            throw UsageError("--resume continues a run on its own circuits: leave out FILE");
        run_id = static_cast<std::int64_t>(a.integer(
            "--resume", 0, 1, std::uint64_t(std::numeric_limits<std::int64_t>::max())));
    } else {
        settings = settings_from_flags(a);
        for (const auto* list : {&settings.train, &settings.validation, &settings.test})
            for (const std::string& f : *list) {
                if (std::error_code ec; !std::filesystem::is_regular_file(f, ec))
                    throw Error(SourceLocation{f}, std::filesystem::exists(f, ec)
                                                       ? "is not a file"
                                                       : "no such file");
                // The project keeps the paths as JSON text: one that is not UTF-8 comes back
                // with U+FFFD in it, so the run trains and reports but cannot be resumed.
                try {
                    (void)nlohmann::json(f).dump();
                } catch (const nlohmann::json::exception&) {
                    if (!a.has("--quiet"))
                        std::cerr << "note: " << f << ": the path is not UTF-8; the project "
                                  << "keeps it with U+FFFD for the bad bytes, so this run "
                                  << "cannot be resumed (rename the file to resume it)\n";
                }
            }
        choose_device(settings.config.model.hidden);
    }
    // A resume reads its run from the project; a new run opens (or creates) it once its
    // circuits are read and its trainer is made.
    std::optional<store::RunStore> store;
    std::optional<store::RunClaim> claim; // this process trains the run: no other may meanwhile
    if (resume) {
        store.emplace(store::RunStore::open(a.value("--db"), store::OpenMode::OpenExisting,
                                            store::RunStore::kTrainingBusyTimeout));
        const std::optional<store::RunRecord> run = store->find_run(run_id);
        // What the project holds, not the command line: exit 2, as report run:N says it.
        if (!run)
            throw Error(SourceLocation{a.value("--db")},
                        "--resume: no run " + std::to_string(run_id) +
                            " in the project (gsr runs list --db ... lists them)");
        // A rule run keeps no checkpoint: its settings are not a GNN's either.
        if (run->model == "symgraph")
            throw Error(SourceLocation{a.value("--db")},
                        "--resume: run " + std::to_string(run_id) +
                            " learnt rules (symgraph), which keep no checkpoint to resume "
                            "from: run 'gsr train ... --model symgraph' again");
        claim = store::RunClaim::take(a.value("--db"), run_id); // before its checkpoint is read
        try {
            settings = train::settings_from_json(
                nlohmann::json::parse(run->config_json, nullptr, false));
        } catch (const Error& e) {
            throw Error(SourceLocation{a.value("--db")},
                        "run " + std::to_string(run_id) + ": " + e.message());
        }
        if (a.has("--epochs")) {
            settings.config.epochs =
                static_cast<std::uint32_t>(a.integer("--epochs", 1, 1, train::kMaxEpochs));
            if (std::int64_t{settings.config.epochs} < run->epochs_done)
                throw UsageError("--epochs " + std::to_string(settings.config.epochs) +
                                 ": run " + std::to_string(run_id) + " has done " +
                                 std::to_string(run->epochs_done) +
                                 " epochs already (--epochs is the run's total)");
        }
    }

    if (resume) choose_device(settings.config.model.hidden);
    // --predictions is checked before the work and written after it.
    if (a.has("--predictions")) {
        std::vector<std::string> inputs{a.value("--db")};
        for (const auto* list :
             {&settings.train, &settings.validation, &settings.test, &settings.liberty})
            inputs.insert(inputs.end(), list->begin(), list->end());
        if (is_standard_output(a.value("--predictions")))
            throw UsageError("--predictions -: the training's report is on standard output; "
                             "name a file for the predictions");
        refuse_out_over_inputs(a, inputs, "--predictions");
    }
    const bool quiet = a.has("--quiet") || a.has("--json");
    const std::string tuned = a.value("--tuned-kernels", "on");
    if (tuned != "on" && tuned != "off")
        throw UsageError("--tuned-kernels takes on or off, not '" + tuned + "'");

    train::HoldOut hold_out;
    hold_out.validation = settings.holdout_validation;
    hold_out.seed = settings.split_seed;
    // The run's libraries (a resumed run's own): pin directions, library cells simulated by
    // their functions, NLDM arrival times.
    const train::RunLibraries libraries(settings.liberty);
    if (libraries.library() && !a.has("--quiet")) print_warnings(libraries.library()->diagnostics);
    train::Dataset data =
        train::load_dataset(settings.target, settings.train, settings.validation, settings.test,
                            hold_out, libraries.label_options());
    if (!a.has("--quiet"))
        for (const std::string& n : data.notes) std::cerr << "note: " << n << '\n';

    // Neither is a setting of the run (the results are the same): resume may change them.
    settings.config.device = device.device;
    settings.config.model.offload_optimizer = a.has("--offload-optimizer");
    // A project not made yet (or an empty file, which the open below makes one) has no
    // kernels applied.
    if (std::error_code ec; device.device == "gpu" && tuned == "on" &&
                            std::filesystem::file_size(a.value("--db"), ec) > 0 && !ec) {
        // The kernels applied in this project (`gsr kernels apply`) replace the backend's own.
        std::vector<std::string> skipped;
        settings.config.tuned_kernels = store::project_tuned_kernels(a.value("--db"), &skipped);
        if (!a.has("--quiet"))
            for (const std::string& n : skipped) std::cerr << "note: " << n << '\n';
    }
    train::Trainer trainer(data, settings.config);
    std::vector<std::string> batcher_notes;
    trainer.set_batcher(train::make_run_batcher(settings, data, &batcher_notes));
    if (!a.has("--quiet")) {
        for (const std::string& n : batcher_notes) std::cerr << "note: " << n << '\n';
    }
    if (!resume) {
        store.emplace(store::RunStore::open(a.value("--db"), store::OpenMode::CreateOrOpen,
                                            store::RunStore::kTrainingBusyTimeout));
        store::RunRecord record;
        record.config_json = json_text(train::settings_to_json(settings));
        record.device = device.device;
        record.target = std::string(train::target_name(settings.target));
        record.model = std::string(nn::model_kind_name(settings.config.model.kind));
        run_id = store->create_run(record);
        claim = store::RunClaim::take(a.value("--db"), run_id);
    }
    if (!quiet) std::cout << "run " << run_id << '\n';

    store::StoreRunLog log(*store, run_id);
    train::TrainCallbacks callbacks;
    callbacks.cancel = InterruptGuard::flag();
    callbacks.epoch = [&](const train::EpochReport& r) {
        if (quiet) return;
        std::cout << "epoch " << r.epoch << '/' << settings.config.epochs << "  train "
                  << fixed(r.train_loss) << "  val " << fixed(r.validation.loss) << "  val r "
                  << fixed(r.validation.metrics.pearson.value, 3) << "  test r "
                  << fixed(r.test.metrics.pearson.value, 3) << "  " << fixed(r.seconds, 2)
                  << " s" << (r.improved ? "  *" : "") << '\n';
    };
    train::TrainResult result;
    {
        // Ctrl-C cancels the run after the step in progress; the last checkpoint stays
        // resumable.
        InterruptGuard guard;
        // Recording the failure writes to the project too: when the project is what failed
        // (locked, the disk full), both errors are said, the first one first.
        const auto words = [&](const std::exception& e) { return error_words(e, a.value("--db")); };
        const auto record_failure = [&](const std::exception& e) {
            try {
                return log.fail(words(e), resume);
            } catch (const std::exception& also) {
                throw Error(SourceLocation{a.value("--db")},
                            words(e) + "; recording the failure in the project failed too: " +
                                words(also));
            }
        };
        try {
            result = trainer.run(log, callbacks, resume);
        } catch (const Error& e) {
            if (record_failure(e) || !e.where().file.empty()) throw;
            // A resume that failed before it kept an epoch: say where, and that the run is
            // kept.
            throw Error(SourceLocation{a.value("--db")},
                        "run " + std::to_string(run_id) + " cannot be resumed (it is left as it "
                        "was): " + e.message());
        } catch (const std::exception& e) {
            record_failure(e);
            throw;
        }
    }

    // The run now aims at the resume's --epochs: its settings say so, for the report and for
    // a later --resume without --epochs.
    if (resume && a.has("--epochs"))
        store->set_config(run_id, json_text(train::settings_to_json(settings)));
    // A resume that trained nothing keeps the run's figures: say those the project keeps.
    if (resume)
        if (const std::optional<store::RunRecord> kept = store->find_run(run_id))
            result.memory.measured_peak_bytes = static_cast<std::size_t>(kept->peak_bytes_measured);
    // The model holds the best epoch's weights now (Trainer::run): its predictions.
    const bool predictions = a.has("--predictions") && result.model_epoch > 0;
    std::string predictions_note;
    if (predictions) {
        std::vector<std::vector<double>> values;
        for (std::size_t c = 0; c < data.circuits.size(); ++c)
            values.push_back(trainer.predict(c));
        write_file_atomically(a.value("--predictions"),
                              report::to_csv(report::predictions_table(data, values)));
        if (result.best && result.model_epoch != result.best->epoch)
            predictions_note = "the best epoch's (" + std::to_string(result.best->epoch) +
                               ") weights could not be read back (a project of an older build "
                               "kept only the newest two checkpoints, or one is damaged): the "
                               "predictions are epoch " + std::to_string(result.model_epoch) +
                               "'s";
    } else if (a.has("--predictions")) {
        predictions_note = "no finished epoch's weights to predict with: --predictions " +
                           a.value("--predictions") + " is not written";
    }
    if (!predictions_note.empty() && !a.has("--quiet") && !a.has("--json"))
        std::cerr << "note: " << predictions_note << '\n';
    const nlohmann::json r = train::train_result_json(result);
    if (a.has("--json")) {
        nlohmann::ordered_json j;
        j["run"] = run_id;
        j["status"] = r["status"];
        j["device"] = device.device;
        if (!device.note.empty()) j["device_note"] = device.note;
        j["target"] = std::string(train::target_name(settings.target));
        j["model"] = std::string(nn::model_kind_name(settings.config.model.kind));
        j["epochs_done"] = result.epochs_done;
        j["best_epoch"] = result.best ? nlohmann::json(result.best->epoch) : nlohmann::json();
        // The metrics of the epoch early stopping keeps: the best validation loss.
        j["train"] = split_summary(r["best"], "train");
        j["val"] = split_summary(r["best"], "val");
        j["test"] = split_summary(r["best"], "test");
        j["last_epoch"] = r["last"];
        j["peak_memory"] = {{"analytic_bytes", result.memory.analytic_peak_bytes},
                            {"measured_bytes", result.memory.measured_peak_bytes}};
        j["parameters"] = result.parameter_count;
        j["batching"] = {{"mode", settings.batching},
                         {"batch_size", settings.config.batch_size},
                         {"alpha", settings.alpha},
                         {"beta", settings.beta},
                         {"fanout", train::fanouts_text(settings.fanouts)},
                         {"order", std::string(train::node_order_name(settings.order))}};
        j["notes"] = data.notes;
        if (!result.kernel_notes.empty())
            j["tuned_kernels"] = {{"notes", result.kernel_notes},
                                  {"launches", result.tuned_launches}};
        if (predictions)
            j["predictions"] = {{"file", a.value("--predictions")},
                                {"epoch", result.model_epoch}};
        if (!predictions_note.empty()) j["predictions_note"] = predictions_note;
        std::cout << json_text(j, 2) << '\n';
    } else if (!a.has("--quiet")) {
        for (const std::string& n : result.kernel_notes) std::cerr << "note: " << n << '\n';
        if (!result.kernel_notes.empty())
            std::cerr << "note: " << result.tuned_launches << " launches of tuned kernels\n";
        std::cout << "run " << run_id << ' ' << r["status"].get<std::string>() << " after epoch "
                  << result.epochs_done;
        if (result.best) {
            const train::EpochReport& b = *result.best;
            std::cout << "; best epoch " << b.epoch << ": test MAE " << fixed(b.test.metrics.mae)
                      << ", r " << fixed(b.test.metrics.pearson.value, 3) << ", rho "
                      << fixed(b.test.metrics.spearman.value, 3) << ", tau "
                      << fixed(b.test.metrics.kendall.value, 3);
        }
        std::cout << "; peak memory " << result.memory.measured_peak_bytes << " bytes measured, "
                  << result.memory.analytic_peak_bytes << " analytic\n";
        if (predictions)
            std::cout << "predictions of epoch " << result.model_epoch << "'s model: "
                      << a.value("--predictions") << '\n';
    }
    if (result.status == train::TrainResult::Status::Cancelled && !a.has("--json"))
        std::cerr << "interrupted: continue with gsr train --db " << a.value("--db")
                  << " --resume " << run_id << '\n';
    return result.status == train::TrainResult::Status::Cancelled ? 130 : 0;
}

int cmd_runs(const std::vector<std::string>& argv)
{
    Args a(argv, {"--db", "--out"}, {"--json", "--csv"});
    constexpr const char* kUsage = "usage: gsr runs list --db PROJECT [--json | --csv] [--out FILE]";
    if (a.positionals().size() != 1 || a.positionals()[0] != "list") throw UsageError(kUsage);
    if (!a.has("--db")) throw UsageError("runs needs --db PROJECT");
    if (a.has("--json") && a.has("--csv"))
        throw UsageError("--json and --csv: choose one\n" + std::string(kUsage));
    const bool to_stdout = is_standard_output(a.value("--out"));
    refuse_out_over_inputs(a, {a.value("--db")}); // and any unwritable --out
    auto store = store::RunStore::open(a.value("--db"), store::OpenMode::ReadOnly);
    const std::vector<store::RunRecord> runs = store.runs();
    std::ostringstream out;
    if (a.has("--csv")) { // the Runs panel's Export CSV: the table's columns
        out << report::runs_csv(store::load_run_table(store));
    } else if (a.has("--json")) {
        nlohmann::ordered_json j = nlohmann::ordered_json::array();
        for (const store::RunRecord& r : runs) {
            // A damaged field is null, and named under "damaged": its discarded value would
            // print as "<discarded>", which is no JSON.
            nlohmann::ordered_json damaged = nlohmann::ordered_json::array();
            auto parsed = [&](const std::string& text, const char* field) {
                if (text.empty()) return nlohmann::ordered_json();
                nlohmann::ordered_json v = nlohmann::ordered_json::parse(text, nullptr, false);
                if (!v.is_discarded()) return v;
                damaged.push_back(field);
                return nlohmann::ordered_json();
            };
            const nlohmann::ordered_json config = parsed(r.config_json, "config");
            const nlohmann::ordered_json result = parsed(r.result_json, "result");
            j.push_back({{"id", r.id},
                         {"created_at", r.created_at},
                         {"updated_at", r.updated_at},
                         {"status", r.status},
                         {"training_now", store::RunClaim::held(a.value("--db"), r.id)},
                         {"device", r.device},
                         {"target", r.target},
                         {"model", r.model},
                         {"epochs_done", r.epochs_done},
                         {"best_epoch", r.best_epoch},
                         {"best_val_loss", r.best_val_loss ? nlohmann::ordered_json(
                                                                 *r.best_val_loss)
                                                           : nlohmann::ordered_json()},
                         {"peak_bytes_analytic", r.peak_bytes_analytic},
                         {"peak_bytes_measured", r.peak_bytes_measured},
                         {"config", config},
                         {"result", result}});
            if (!damaged.empty()) j.back()["damaged"] = damaged;
        }
        out << json_text(j, 2) << '\n';
    } else {
        for (const store::RunRecord& r : runs) {
            // A run left "running" by a training that no longer holds it was interrupted
            // (killed, the machine went down): `gsr train --resume ID` goes on from its last
            // checkpoint.
            out << r.id << '\t'
                << report::run_status(r, store::RunClaim::held(a.value("--db"), r.id)) << '\t'
                << r.model
                << '\t' << r.target << '\t' << r.epochs_done << " epochs\tbest " << r.best_epoch
                << " (val " << (r.best_val_loss ? fixed(*r.best_val_loss) : "-") << ")\t"
                << r.created_at << '\n';
        }
    }
    if (a.has("--out") && !to_stdout) write_file_atomically(a.value("--out"), out.str());
    else std::cout << out.str();
    return 0;
}

#else

int cmd_train(const std::vector<std::string>&)
{
    throw Error("this build has no project store (SQLite was not found when it was built); "
                "gsr train keeps its runs and checkpoints there");
}
int cmd_runs(const std::vector<std::string>& args) { return cmd_train(args); }

#endif

} // namespace gsr::cli
