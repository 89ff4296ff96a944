// SymGraph against the CPU GNNs, side by side in one process on one data set (the circuits of
// tests/bench/quality_bench.sh): training time of symgraph (its whole search) against the CPU
// `gsr` model's time to reach its best validation loss, and test metrics of every model.
//
//   gsr_bench_symgraph [--quick] [--all] [--epochs E] [--layers L] [--patience P]
//
// --all adds gcn, res and rev to the quality table (gsr always runs: it is the speed baseline).
// The GNN settings are quality_bench.sh's: hidden 64, Adam lr 0.003, seed 7, full graph.
#include "bench_support.hpp"

#include "symgraph/symgraph_model.hpp"
#include "train/trainer.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

using namespace gsr;

namespace {

struct Row {
    std::string model, layers;
    symgraph::SplitScore test;
    std::string epochs;
    double train_seconds = 0; ///< the whole run
    double to_best_seconds =
        0; ///< until the epoch of best validation loss (GNN); = train (symgraph)
};

std::string f3(double v)
{
    if (!std::isfinite(v)) return "-";
    char b[32];
    std::snprintf(b, sizeof b, "%.3f", v);
    return b;
}

Row run_gnn(const train::Dataset& data, nn::ModelKind kind, std::uint32_t layers,
            std::uint32_t epochs, std::uint32_t patience, std::uint32_t hidden,
            const symgraph::Binning& binning)
{
    train::TrainConfig c;
    c.model.kind = kind;
    c.model.layers = layers;
    c.model.hidden = hidden;
    c.model.groups = kind == nn::ModelKind::Rev || kind == nn::ModelKind::Gsr ? 2 : 1;
    c.model.topk = 8;
    c.model.seed = 7;
    c.seed = 7;
    c.epochs = epochs;
    c.patience = patience;
    c.adam.learning_rate = 0.003;
    train::Trainer trainer(data, c);
    train::MemoryRunLog log;
    train::TrainCallbacks cb;
    double elapsed = 0, at_best = 0;
    std::vector<std::vector<double>> best_predictions;
    cb.epoch = [&](const train::EpochReport& r) {
        elapsed += r.seconds; // the epoch's own time: the predictions below are not counted
        if (!r.improved) return;
        at_best = elapsed;
        best_predictions.clear();
        for (std::size_t i = 0; i < data.circuits.size(); ++i)
            best_predictions.push_back(trainer.predict(i));
    };
    const train::TrainResult result = trainer.run(log, cb);
    Row row;
    row.model = std::string(nn::model_kind_name(kind));
    if (kind == nn::ModelKind::Rev) row.model += " (C=2)";
    if (kind == nn::ModelKind::Gsr) row.model += " (C=2, k=8)";
    row.layers = std::to_string(layers);
    row.test = symgraph::evaluate_split(data, best_predictions, train::Split::Test, binning);
    row.epochs = std::to_string(result.best ? result.best->epoch : 0) + "/" +
                 std::to_string(result.epochs_done);
    row.train_seconds = elapsed;
    row.to_best_seconds = at_best;
    return row;
}

} // namespace

int main(int argc, char** argv)
try {
    bool quick = false, all = false;
    std::uint32_t epochs = 150, layers = 32, patience = 30;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        if (a == "--quick")
            quick = true;
        else if (a == "--all")
            all = true;
        else if (a == "--epochs" && i + 1 < argc)
            epochs = static_cast<std::uint32_t>(std::stoul(argv[++i]));
        else if (a == "--layers" && i + 1 < argc)
            layers = static_cast<std::uint32_t>(std::stoul(argv[++i]));
        else if (a == "--patience" && i + 1 < argc)
            patience = static_cast<std::uint32_t>(std::stoul(argv[++i]));
        else {
            std::fprintf(stderr, "usage: gsr_bench_symgraph [--quick] [--all] [--epochs E] "
                                 "[--layers L] [--patience P]\n");
            return 1;
        }
    }
    const std::string d = std::string(GSR_DATA_DIR) + "/netlists/";
    std::vector<std::string> tr, va, te;
    if (quick) {
        tr = {d + "iscas85/bench/c432.bench", d + "iscas85/bench/c880.bench"};
        va = {d + "epfl/random_control/ctrl.blif"};
        te = {d + "iscas85/bench/c1908.bench"};
        epochs = 3;
        layers = 4;
    } else {
        for (const char* f :
             {"iscas85/bench/c432.bench", "iscas85/bench/c880.bench", "iscas85/bench/c1355.bench",
              "iscas85/bench/c1908.bench", "epfl/random_control/cavlc.blif",
              "epfl/random_control/int2float.blif", "epfl/random_control/priority.blif",
              "epfl/random_control/router.blif"})
            tr.push_back(d + f);
        va = {d + "epfl/random_control/ctrl.blif", d + "epfl/random_control/dec.blif"};
        te = {d + "iscas85/bench/c6288.bench", d + "epfl/random_control/i2c.blif",
              d + "epfl/arithmetic/max.blif"};
    }
    const train::Dataset data = train::load_dataset(train::Target::SignalProbability, tr, va, te);
    std::printf("data: %zu train, %zu val, %zu test nodes; load average %s\n",
                data.node_count(train::Split::Train), data.node_count(train::Split::Validation),
                data.node_count(train::Split::Test), bench::load_average().c_str());

    // SymGraph: the whole search (24 vocabularies), median of 3 fits.
    std::vector<double> fit_seconds;
    symgraph::SymGraphModel model;
    std::vector<symgraph::CandidateReport> search;
    for (int rep = 0; rep < 3; ++rep) {
        search.clear();
        const auto t0 = bench::Clock::now();
        model = symgraph::SymGraphModel::fit(data, symgraph::SymGraphOptions{}, &search);
        fit_seconds.push_back(bench::seconds_since(t0));
    }
    std::sort(fit_seconds.begin(), fit_seconds.end());
    const symgraph::Binning binning = model.binning();
    std::vector<std::vector<double>> predictions;
    for (const train::CircuitData& c : data.circuits)
        predictions.push_back(model.predict(c.graph));
    Row sg;
    sg.model = "symgraph (" + std::to_string(model.rules().rules.size()) + " rules)";
    sg.layers = "K=" + std::to_string(model.granularity().hops);
    sg.test = symgraph::evaluate_split(data, predictions, train::Split::Test, binning);
    sg.epochs = "-";
    sg.train_seconds = sg.to_best_seconds = fit_seconds[1];

    // The same rules as classification into 10 bins.
    symgraph::SymGraphOptions bins;
    bins.task = symgraph::Task::Classification;
    const auto tb = bench::Clock::now();
    const symgraph::SymGraphModel cls = symgraph::SymGraphModel::fit(data, bins);
    Row sgc;
    sgc.train_seconds = sgc.to_best_seconds = bench::seconds_since(tb);
    predictions.clear();
    for (const train::CircuitData& c : data.circuits) predictions.push_back(cls.predict(c.graph));
    sgc.model = "symgraph bins (" + std::to_string(cls.rules().rules.size()) + " rules)";
    sgc.layers = "K=" + std::to_string(cls.granularity().hops);
    sgc.test = symgraph::evaluate_split(data, predictions, train::Split::Test, binning);
    sgc.epochs = "-";

    std::vector<Row> rows{sg, sgc};
    const std::uint32_t hidden = quick ? 16 : 64;
    if (all && !quick) {
        rows.push_back(run_gnn(data, nn::ModelKind::Gcn, 3, epochs, patience, hidden, binning));
        rows.push_back(
            run_gnn(data, nn::ModelKind::Res, layers, epochs, patience, hidden, binning));
        rows.push_back(
            run_gnn(data, nn::ModelKind::Rev, layers, epochs, patience, hidden, binning));
    }
    const Row gsr_row =
        run_gnn(data, nn::ModelKind::Gsr, layers, epochs, patience, hidden, binning);
    rows.push_back(gsr_row);

    std::printf("\n| model | layers | test Pearson | Spearman | Kendall | MAE | bin accuracy | "
                "best/last epoch | train s | s to best val |\n");
    std::printf("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|\n");
    for (const Row& r : rows)
        std::printf("| %s | %s | %s | %s | %s | %s | %s | %s | %.2f | %.2f |\n", r.model.c_str(),
                    r.layers.c_str(), f3(r.test.metrics.pearson.value).c_str(),
                    f3(r.test.metrics.spearman.value).c_str(),
                    f3(r.test.metrics.kendall.value).c_str(), f3(r.test.metrics.mae).c_str(),
                    f3(r.test.bin_accuracy).c_str(), r.epochs.c_str(), r.train_seconds,
                    r.to_best_seconds);
    std::printf("\nsymgraph fit (search of %zu vocabularies): median %.3f s of 3 (%.3f .. %.3f); "
                "kept %s, min support %zu\n",
                search.size(), fit_seconds[1], fit_seconds[0], fit_seconds[2],
                model.granularity().str().c_str(),
                std::find_if(search.begin(), search.end(), [&](const auto& c) {
                    return c.granularity == model.granularity() &&
                           c.rules_kept == model.rules().rules.size();
                })->min_support);
    std::printf("gsr reaches its best validation loss after %.2f s: symgraph is %.1fx faster "
                "(target >= 10x)\n",
                gsr_row.to_best_seconds, gsr_row.to_best_seconds / fit_seconds[1]);
    return 0;
} catch (const std::exception& e) {
    return gsr::bench::report_failure(argv[0], e);
}
