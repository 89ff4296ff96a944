// Training-run reports from a real run: c432 trained on (20 % of its nodes held out for
// validation), c17 tested on, through the trainer and its in-memory run log.
#include "report/pdf_report.hpp"
#include "report/report_export.hpp"
#include "report/run_report.hpp"
#include "symgraph/symgraph_model.hpp"
#include "train/report_json.hpp"
#include "train/run_settings.hpp"
#include "util/diagnostics.hpp"

#include "core/report/report_support.hpp"

#include <gtest/gtest.h>

#include <functional>
#include <limits>
#include <sstream>

#include <algorithm>

using namespace gsr::report;
using gsr::write_file_atomically;
namespace train = gsr::train;

namespace {

constexpr std::uint32_t kEpochs = 4;

std::string netlist(const std::string& rel)
{
    return std::string(GSR_DATA_DIR) + "/netlists/" + rel;
}

/// One real training run, as the store would keep it (built once for every test).
const RunReport& trained_run()
{
    static const RunReport report = [] {
        train::RunSettings settings;
        settings.train = {netlist("iscas85/bench/c432.bench")};
        settings.test = {netlist("iscas85/bench/c17.bench")};
        settings.target = train::Target::Level;
        settings.holdout_validation = 0.2;
        settings.split_seed = 3;
        train::TrainConfig& c = settings.config;
        c.model.kind = gsr::nn::ModelKind::Gcn;
        c.model.layers = 2;
        c.model.hidden = 16;
        c.model.threads = 1;
        c.model.seed = 11;
        c.adam.learning_rate = 1e-2;
        c.epochs = kEpochs;
        c.patience = 0;
        c.seed = 5;
        train::HoldOut h;
        h.validation = settings.holdout_validation;
        h.seed = settings.split_seed;
        const train::Dataset data =
            train::load_dataset(settings.target, settings.train, {}, settings.test, h);
        train::MemoryRunLog log;
        train::Trainer trainer(data, c);
        const train::TrainResult result = trainer.run(log);

        RunReport r;
        r.id = 7;
        r.created_at = "2026-11-22T09:00:00Z";
        r.updated_at = "2026-11-22T09:00:05Z";
        r.status = log.status();
        r.device = "cpu";
        r.target = "level";
        r.model = "gcn";
        r.epochs_done = result.epochs_done;
        r.best_epoch = result.best ? result.best->epoch : 0;
        if (result.best) r.best_val_loss = result.best->validation.loss;
        r.peak_bytes_analytic = static_cast<std::int64_t>(result.memory.analytic_peak_bytes);
        r.peak_bytes_measured = static_cast<std::int64_t>(result.memory.measured_peak_bytes);
        r.settings = train::settings_to_json(settings);
        r.result = log.result();
        r.epochs = log.epochs();
        for (std::size_t i = 0; i < log.memory().layers.size(); ++i) {
            const gsr::nn::LayerMemory& l = log.memory().layers[i];
            r.layers.push_back({static_cast<std::int64_t>(i), l.name,
                                static_cast<std::int64_t>(l.parameter_bytes),
                                static_cast<std::int64_t>(l.gradient_bytes),
                                static_cast<std::int64_t>(l.optimizer_bytes),
                                static_cast<std::int64_t>(l.activation_bytes),
                                static_cast<std::int64_t>(l.workspace_bytes), false});
        }
        return r;
    }();
    return report;
}

std::size_t count(const std::string& text, const std::string& what)
{
    std::size_t n = 0;
    for (std::size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1))
        ++n;
    return n;
}

} // namespace


namespace {

/// The message run_report_from_json refuses `j` with once `edit` changed its "run", or "".
std::string refusal(const nlohmann::json& j, const std::function<void(nlohmann::json&)>& edit)
{
    nlohmann::json e = j;
    edit(e["run"]);
    try {
        (void)run_report_from_json(e);
        return std::string();
    } catch (const gsr::Error& err) {
        return err.message();
    }
}

} // namespace

TEST(RunReport, CsvHasOneParsableRowPerEpoch)
{
    const RunReport& r = trained_run();
    ASSERT_EQ(r.epochs.size(), kEpochs);
    const auto rows = gsr::test::parse_csv(export_run(r, ReportFormat::Csv));
    ASSERT_EQ(rows.size(), 1 + kEpochs);
    const auto& header = rows[0];
    for (const char* c : {"epoch", "train_loss", "val_loss", "val_pearson", "test_loss",
                          "test_pearson", "test_spearman", "test_kendall", "test_mae", "seconds"})
        EXPECT_NE(std::find(header.begin(), header.end(), c), header.end()) << c;
    for (std::size_t i = 1; i < rows.size(); ++i) {
        ASSERT_EQ(rows[i].size(), header.size());
        EXPECT_EQ(rows[i][0], std::to_string(i)); // epochs 1..4 in order
        for (std::size_t c = 0; c < header.size(); ++c)
            EXPECT_TRUE(gsr::test::parses_as_number(rows[i][c]))
                << header[c] << " of epoch " << i << ": '" << rows[i][c] << "'";
        // The values are the trainer's, not rounded away: train loss to 9 digits.
        EXPECT_NEAR(std::stod(rows[i][1]), r.epochs[i - 1].train_loss,
                    1e-8 * std::abs(r.epochs[i - 1].train_loss));
    }
}

TEST(RunReport, JsonRoundTrips)
{
    const RunReport& r = trained_run();
    const nlohmann::json j = nlohmann::json::parse(export_run(r, ReportFormat::Json));
    EXPECT_EQ(j["kind"], "run");
    EXPECT_EQ(j["run"]["epochs"].size(), kEpochs);
    EXPECT_EQ(j["run"]["settings"]["model"], "gcn");
    const RunReport back = run_report_from_json(j);
    EXPECT_EQ(to_json(back), j);
    EXPECT_EQ(back.layers, r.layers);
    EXPECT_EQ(back.epochs.back().test.metrics.count, 11u); // every c17 node
    EXPECT_THROW(run_report_from_json(nlohmann::json{{"run", {{"id", 1}}}}), gsr::Error);

    // Edited numbers were taken as they came: id 1.5 became run 1, epoch -1 epoch 4294967295,
    // 1e300 bytes "-8388608 TiB", and two byte counts of INT64_MAX summed to "-2 B".
    const auto refused = [&](const std::function<void(nlohmann::json&)>& edit) {
        return refusal(j, edit);
    };
    EXPECT_NE(refused([](nlohmann::json& run) { run["id"] = 1.5; }).find("'id'"),
              std::string::npos);
    EXPECT_NE(refused([](nlohmann::json& run) { run["epochs"][0]["epoch"] = -1; }).find("'epoch'"),
              std::string::npos);
    EXPECT_NE(refused([](nlohmann::json& run) { run["layer_memory"][0]["params"] = 1e300; })
                  .find("'params'"),
              std::string::npos);
    EXPECT_NE(refused([](nlohmann::json& run) {
                  run["layer_memory"][0]["grads"] = std::numeric_limits<std::int64_t>::max();
              }).find("not a byte count"),
              std::string::npos);
    EXPECT_EQ(refused([](nlohmann::json&) {}), ""); // unedited, it reads
}

TEST(RunReport, HtmlIsSelfContainedWithTheCharts)
{
    const RunReport& r = trained_run();
    const std::string html = export_run(r, ReportFormat::Html);
    EXPECT_EQ(gsr::test::external_references(html), std::vector<std::string>{});
    // Loss, correlations and per-layer memory.
    EXPECT_EQ(count(html, "<svg"), 3u);
    EXPECT_NE(html.find("Loss per epoch"), std::string::npos);
    EXPECT_NE(html.find("Pearson (test)"), std::string::npos);
    EXPECT_NE(html.find("Memory per layer"), std::string::npos);
    // The epochs table: one row per epoch plus the final metrics and settings.
    EXPECT_NE(html.find("<th>test Kendall</th>"), std::string::npos);
    EXPECT_NE(html.find("c432.bench"), std::string::npos); // the settings name the circuits
}

TEST(RunReport, PdfRenders)
{
    const RunReport& r = trained_run();
    if (!pdf_available()) {
        EXPECT_THROW(export_run(r, ReportFormat::Pdf), gsr::Error);
        GTEST_SKIP() << "this build has no cairo";
    }
    const std::string pdf = export_run(r, ReportFormat::Pdf);
    EXPECT_EQ(pdf.rfind("%PDF-", 0), 0u);
    gsr::test::ScratchDir dir("gsr_run_pdf");
    const auto file = dir.path / "run.pdf";
    write_file_atomically(file.string(), pdf);
    if (!gsr::test::on_path("pdftoppm")) GTEST_SKIP() << "pdftoppm (poppler-utils) not on PATH";
    EXPECT_GE(gsr::test::pdf_pages(file), 2); // three charts do not fit one A4 page
#ifdef GSR_HAVE_CAIRO
    EXPECT_GT(gsr::test::rendered_ink(file, 1, dir.path), 0.01);
#endif
    // The words are this run's: its title, its sections and its best epoch's number.
    if (!gsr::test::on_path("pdftotext")) GTEST_SKIP() << "pdftotext (poppler-utils) not on PATH";
    const std::string text = gsr::test::pdf_text(file);
    for (const std::string& want : {std::string("Training run 7: gcn on level"),
                                    std::string("Final metrics"), std::string("Epochs"),
                                    std::string("Charts")})
        EXPECT_NE(text.find(want), std::string::npos) << want << " in:\n" << text;
    EXPECT_EQ(count(export_run(r, ReportFormat::Html), "<svg"), 3u); // the charts the PDF draws
}

TEST(RunReport, ARunWithoutEpochsStillReports)
{
    RunReport r;
    r.id = 1;
    r.status = "created";
    r.model = "gsr";
    r.target = "sp";
    const auto rows = gsr::test::parse_csv(export_run(r, ReportFormat::Csv));
    EXPECT_EQ(rows.size(), 1u); // the header only
    const std::string html = export_run(r, ReportFormat::Html);
    EXPECT_NE(html.find("No epoch has finished yet."), std::string::npos);
    EXPECT_EQ(count(html, "<svg"), 0u);
}

namespace {

/// A finished symgraph run's splits, as `gsr train --model symgraph` stores them (no epochs).
RunReport symgraph_splits_run()
{
    RunReport r;
    r.id = 3;
    r.status = "finished";
    r.model = "symgraph";
    r.target = "sp";
    r.result = nlohmann::json::parse(R"({
        "status": "finished",
        "train": {"count": 400, "mae": 0.125, "rmse": 0.25, "pearson": 0.5, "spearman": 0.4,
                  "kendall": 0.3, "bin_accuracy": 0.625},
        "val": {"count": 100, "mae": 0.15, "rmse": 0.3, "pearson": null, "spearman": null,
                "kendall": null, "bin_accuracy": 0.5},
        "test": {"count": 1234, "mae": 0.175, "rmse": 0.35, "pearson": 0.375,
                 "spearman": 0.25, "kendall": 0.1875, "bin_accuracy": 0.4375}})");
    return r;
}

/// The same with its rules (a class W3 named at a node and at its fan-ins, a role R1).
RunReport symgraph_run()
{
    RunReport r = symgraph_splits_run();
    gsr::symgraph::Vocabulary v;
    v.add({gsr::symgraph::Scope::Self, gsr::symgraph::Kind::State, 1, "NAND2 fo1", "", 40, 2, 1});
    v.add({gsr::symgraph::Scope::Self, gsr::symgraph::Kind::WlClass, 2, "W3",
           "AND2 fo1; fan-ins: !PI fo2, PI fo2; fan-outs: OR2 fo1; e.g. c432.bench node 9", 30});
    v.add({gsr::symgraph::Scope::Fanin, gsr::symgraph::Kind::WlClass, 2, "W3",
           "AND2 fo1; fan-ins: !PI fo2, PI fo2; fan-outs: OR2 fo1; e.g. c432.bench node 9", 20});
    v.add({gsr::symgraph::Scope::Fanout, gsr::symgraph::Kind::Role, 3, "R1",
           "OR2 fo1; fan-ins: 2x AND2 fo1; fan-outs: none; 1-hop ego network of 4 nodes in 3 "
           "roles; e.g. c432.bench node 12", 10});
    nlohmann::json rules = {
        {"format", "gsr-symgraph-rules"},
        {"version", 2},
        {"target", "sp"},
        {"task", "regression"},
        {"granularity", {{"fine_fan", true}, {"depth_bins", 0}, {"hops", 1}, {"polarity", true}}},
        {"max_ego", 256},
        {"binning", {{"lo", 0.0}, {"hi", 1.0}, {"bins", 10}}},
        {"predicates", v.to_json()}};
    const auto rule = [](std::vector<std::pair<int, int>> conditions, double value) {
        nlohmann::json c = nlohmann::json::array();
        for (auto [p, n] : conditions) c.push_back({{"predicate", p}, {"at_least", n}});
        return nlohmann::json{{"conditions", c}, {"value", value}, {"low", 0.1},
                              {"high", 0.9}, {"support", 10}};
    };
    rules["rules"] = {rule({{0, 1}, {2, 2}}, 0.75), rule({{1, 1}}, 0.25), rule({{3, 1}}, 0.5)};
    rules["fallback"] = rule({}, 0.5);
    // The texts, as the model writes them.
    const gsr::symgraph::SymGraphModel m = gsr::symgraph::SymGraphModel::from_json(rules);
    for (std::size_t i = 0; i < 3; ++i) rules["rules"][i]["text"] = m.rule_text(i);
    rules["fallback"]["text"] = m.rule_text(3);
    r.result["rules"] = rules;
    return r;
}

} // namespace

TEST(RunReport, ASymgraphRunShowsItsSplitsAndRules)
{
    // A symgraph run has no epochs: its metrics and rules are in the result (it said "No
    // epoch has finished yet." and showed neither).
    RunReport r = symgraph_splits_run();
    r.result["rules"] = nlohmann::json::parse(R"({
        "rules": [{"text": "a node with a fan-in XOR2 -> signal probability 0.860"}],
        "fallback": {"text": "otherwise -> signal probability 0.500"}})");
    const std::string html = export_run(r, ReportFormat::Html);
    EXPECT_EQ(html.find("No epoch has finished yet."), std::string::npos);
    EXPECT_NE(html.find(">final</td><td>test</td><td class=\"num\"></td><td class=\"num\">0.175<"),
              std::string::npos)
        << html;
    EXPECT_NE(html.find("0.375"), std::string::npos);
    EXPECT_NE(html.find("1234"), std::string::npos);
    EXPECT_NE(html.find("1. a node with a fan-in XOR2 -&gt; signal probability 0.860"),
              std::string::npos);
    EXPECT_NE(html.find("otherwise -&gt; signal probability 0.500"), std::string::npos);
}

TEST(RunReport, ASymgraphRunsCsvHasOneRowPerSplit)
{
    // It had the epoch header and no row: a symgraph run has no epochs.
    const auto rows = gsr::test::parse_csv(export_run(symgraph_run(), ReportFormat::Csv));
    ASSERT_EQ(rows.size(), 4u);
    EXPECT_EQ(rows[0], (std::vector<std::string>{"split", "count", "mae", "rmse", "pearson",
                                                 "spearman", "kendall", "bin_accuracy"}));
    EXPECT_EQ(rows[1], (std::vector<std::string>{"train", "400", "0.125", "0.25", "0.5", "0.4",
                                                 "0.3", "0.625"}));
    EXPECT_EQ(rows[2], (std::vector<std::string>{"val", "100", "0.15", "0.3", "", "", "",
                                                 "0.5"}));
    EXPECT_EQ(rows[3], (std::vector<std::string>{"test", "1234", "0.175", "0.35", "0.375",
                                                 "0.25", "0.1875", "0.4375"}));
}

TEST(RunReport, ASymgraphRunExplainsTheClassesItsRulesName)
{
    // The rules name W3 and R1; the page said nowhere what they are. The legend is the one
    // `gsr rules` prints: each class or role once, no state.
    const RunReport r = symgraph_run();
    const std::string text =
        gsr::symgraph::SymGraphModel::from_json(r.result.at("rules")).text();
    ASSERT_NE(text.find("where\n  W3: AND2 fo1; "), std::string::npos) << text;
    const std::string html = export_run(r, ReportFormat::Html);
    EXPECT_NE(html.find("in class W3"), std::string::npos) << html;
    EXPECT_NE(html.find("<p>where</p>"), std::string::npos) << html;
    std::istringstream lines(text.substr(text.find("where\n") + 6));
    std::size_t entries = 0;
    for (std::string line; std::getline(lines, line); ++entries) {
        const std::size_t colon = line.find(": ");
        ASSERT_NE(colon, std::string::npos) << line;
        const std::string row = "<tr><th>" + line.substr(2, colon - 2) + "</th><td>" +
                                line.substr(colon + 2) + "</td></tr>";
        EXPECT_EQ(count(html, row), 1u) << row;
    }
    EXPECT_EQ(entries, 2u);
    EXPECT_EQ(html.find("<th>NAND2 fo1</th>"), std::string::npos);
    if (pdf_available()) EXPECT_EQ(export_run(r, ReportFormat::Pdf).rfind("%PDF-", 0), 0u);

    // Predicates that cannot be read leave the rules and say so.
    RunReport damaged = r;
    damaged.result["rules"]["predicates"][1]["kind"] = "colour";
    const std::string page = export_run(damaged, ReportFormat::Html);
    EXPECT_NE(page.find("in class W3"), std::string::npos);
    EXPECT_NE(page.find("cannot be explained: symgraph rules: unknown predicate kind"),
              std::string::npos)
        << page;
}

TEST(RunReport, JsonErrorsNameTheEpochAndTheLayerRow)
{
    // "'epoch' is not a whole number" named no epoch of the list.
    const RunReport& r = trained_run();
    const nlohmann::json j = to_json(r);
    const auto message = [&](const std::function<void(nlohmann::json&)>& edit) {
        return refusal(j, edit);
    };
    const std::string epochs = std::to_string(r.epochs.size());
    EXPECT_EQ(message([](nlohmann::json& run) { run["epochs"][2]["epoch"] = -3; })
                  .rfind("run report: epoch 3 of " + epochs + ": ", 0),
              0u);
    ASSERT_GE(r.layers.size(), 2u);
    const std::string layers = std::to_string(r.layers.size());
    EXPECT_EQ(message([](nlohmann::json& run) { run["layer_memory"][1]["params"] = -1; }),
              "run report: layer_memory row 2 of " + layers +
                  ": key 'params' is -1, not a byte count from 0 to 2^50");
    EXPECT_EQ(message([](nlohmann::json& run) { run["layer_memory"][0].erase("name"); }),
              "run report: layer_memory row 1 of " + layers + ": no key 'name'");
    EXPECT_EQ(message([](nlohmann::json& run) { run.erase("status"); }),
              "run report: no key 'status'");
}

TEST(RunReport, AFailedRunShowsItsErrorAndNoBestEpoch)
{
    RunReport r = trained_run();
    r.status = "failed";
    r.best_epoch = 0;
    r.result = nlohmann::json{{"error", "metrics: NaN at position 0"}};
    const std::string html = export_run(r, ReportFormat::Html);
    // Its last epoch was labelled "(best)" where the run table said "best epoch: none".
    EXPECT_EQ(html.find("(best)"), std::string::npos);
    EXPECT_NE(html.find("(last)"), std::string::npos);
    EXPECT_NE(html.find("metrics: NaN at position 0"), std::string::npos);
}

TEST(RunReport, DamagedFinalFiguresOfTheResultAreAnErrorNamingTheirKey)
{
    // "an epoch's figures cannot be read: key 'test' not found" did not say where they were.
    RunReport r = trained_run();
    r.result["best"] = {{"train", nlohmann::json::object()}, {"val", nlohmann::json::object()}};
    r.result["last"] = nullptr; // no figures: the last recorded epoch stands in
    for (ReportFormat f : {ReportFormat::Html, ReportFormat::Pdf}) {
        if (f == ReportFormat::Pdf && !pdf_available()) continue;
        try {
            (void)export_run(r, f);
            ADD_FAILURE() << "a damaged result['best'] must be refused";
        } catch (const gsr::Error& e) {
            EXPECT_EQ(e.message(),
                      "result \"best\": an epoch's figures cannot be read: key 'test' not found");
        }
    }
    // The CSV reads only the epochs.
    EXPECT_NO_THROW((void)export_run(r, ReportFormat::Csv));
}

TEST(RunReport, APdfCutsLongTextBetweenCharacters)
{
    if (!pdf_available()) GTEST_SKIP() << "this build has no cairo";
    // A path of accented words wider than the page is cut to fit: mid-character, cairo
    // refused the string and the whole PDF with it.
    RunReport r = trained_run();
    std::string path = "/home/ingénieur/";
    for (int i = 0; i < 40; ++i) path += "données_éé_";
    path += "/c432.bench";
    r.settings["train"] = nlohmann::json::array({path});
    r.settings["test"] = std::string(300, 'x') + "é";
    std::vector<std::string> many;
    for (int i = 0; i < 150; ++i) many.push_back("/work/circuits/ééé/c" + std::to_string(i));
    r.settings["val"] = many; // a value taller than a page
    const std::string pdf = export_run(r, ReportFormat::Pdf);
    EXPECT_EQ(pdf.rfind("%PDF-", 0), 0u);
}

TEST(ReportText, NumbersKeepTheirUnitsWithoutExponents)
{
    EXPECT_EQ(format_bytes(1020.0 * 1024), "1020 KiB"); // "1.02e+03 KiB" before
    EXPECT_EQ(format_bytes(1.5 * 1024 * 1024), "1.5 MiB");
    EXPECT_EQ(format_bytes(512), "512 B");
    EXPECT_EQ(format_seconds(0.9999), "1 s"); // "1e+03 ms"
    EXPECT_EQ(format_seconds(0.0009999), "1 ms");
    EXPECT_EQ(format_seconds(1234.4), "1234 s");
    EXPECT_EQ(format_seconds(0.0123), "12.3 ms");
}

TEST(ReportText, HugeValuesKeepTheirUnitWithAnExponent)
{
    // From a million on in three digits with an exponent: 1e300 s was 39 digits cut short and
    // no unit (a session's "t_sol": 1e300 is read as valid).
    EXPECT_EQ(format_seconds(999999), "999999 s");
    EXPECT_EQ(format_seconds(999999.7), "1e+06 s"); // not "1000000 s"
    EXPECT_EQ(format_seconds(1e6), "1e+06 s");
    EXPECT_EQ(format_seconds(2.5e7), "2.5e+07 s");
    EXPECT_EQ(format_seconds(1e300), "1e+300 s");
    EXPECT_EQ(format_seconds(std::numeric_limits<double>::max()), "1.8e+308 s");
    EXPECT_EQ(format_bytes(1e300), "9.09e+287 TiB");
    EXPECT_EQ(format_bytes(999999.0 * 1024 * 1024 * 1024 * 1024), "999999 TiB");
}
