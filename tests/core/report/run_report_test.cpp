// Training-run reports from a real run: c432 trained on (20 % of its nodes held out for
// validation), c17 tested on, through the trainer and its in-memory run log.
#include "report/pdf_report.hpp"
#include "report/report_export.hpp"
#include "report/run_report.hpp"
#include "train/report_json.hpp"
#include "train/run_settings.hpp"
#include "util/diagnostics.hpp"

#include "core/report/report_support.hpp"

#include <gtest/gtest.h>

#include <functional>
#include <limits>

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
        nlohmann::json e = j;
        edit(e["run"]);
        try {
            (void)run_report_from_json(e);
            return std::string();
        } catch (const gsr::Error& err) {
            return err.message();
        }
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

TEST(RunReport, ASymgraphRunShowsItsSplitsAndRules)
{
    // A symgraph run has no epochs: its metrics and rules are in the result (it said "No
    // epoch has finished yet." and showed neither).
    RunReport r;
    r.id = 2;
    r.status = "finished";
    r.model = "symgraph";
    r.target = "sp";
    r.result = nlohmann::json::parse(R"({
        "status": "finished",
        "train": {"count": 400, "mae": 0.125, "rmse": 0.25, "pearson": 0.5, "spearman": 0.4,
                  "kendall": 0.3},
        "val": {"count": 100, "mae": 0.15, "rmse": 0.3, "pearson": null, "spearman": null,
                "kendall": null},
        "test": {"count": 1234, "mae": 0.175, "rmse": 0.35, "pearson": 0.375,
                 "spearman": 0.25, "kendall": 0.1875},
        "rules": {"rules": [{"text": "a node with a fan-in XOR2 -> signal probability 0.860"}],
                  "fallback": {"text": "otherwise -> signal probability 0.500"}}})");
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
