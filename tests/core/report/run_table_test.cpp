// The runs table: one row per run, as the window shows it and `gsr runs list --csv` writes it.
#include "report/run_table.hpp"
#include "train/run_settings.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

using namespace gsr;

namespace {

store::RunRecord gsr_run()
{
    train::RunSettings s;
    s.train = {"/a.bench"};
    s.test = {"/b.bench"};
    s.config.model.kind = nn::ModelKind::Gsr;
    s.config.model.layers = 4;
    s.config.model.hidden = 16;
    s.config.model.groups = 2;
    s.config.model.topk = 4;
    s.config.epochs = 5;
    store::RunRecord r;
    r.id = 7;
    r.created_at = "2026-11-21T10:00:00Z";
    r.config_json = train::settings_to_json(s).dump();
    r.status = "finished";
    r.model = "gsr";
    r.target = "sp";
    r.device = "cpu";
    r.epochs_done = 5;
    r.best_epoch = 4;
    r.best_val_loss = 0.5;
    r.peak_bytes_analytic = 122048;
    r.result_json = R"({"best":{"test":{"mae":0.25,"pearson":0.75,"spearman":0.5,"kendall":0.375}}})";
    return r;
}

std::vector<std::string> cells(const report::RunTableRow& row)
{
    std::vector<std::string> out;
    for (int c = 0; c < report::RunColumnCount; ++c) out.push_back(report::run_cell_text(row, c));
    return out;
}

} // namespace

TEST(RunTable, ARowHasTheSettingsAndTheBestEpochsTestMetrics)
{
    const report::RunTableRow row = report::run_table_row(gsr_run(), true, false);
    EXPECT_EQ(cells(row),
              (std::vector<std::string>{"7", "2026-11-21T10:00:00Z", "finished", "gsr",
                                        "4 \u00d7 16, 2 groups, top-4", "sp", "5/5", "4",
                                        "0.5000", "0.2500", "0.750", "0.500", "0.375",
                                        "122048", ""}));
    EXPECT_FALSE(row.resumable); // finished
}

TEST(RunTable, ARuleModelsRowHasItsTestMetricsAndNoMemory)
{
    // `gsr train --model symgraph` keeps its splits' figures at the top of its result.
    store::RunRecord r = gsr_run();
    r.model = "symgraph";
    r.config_json = "{}"; // the rule model's own settings: no layers
    r.best_epoch = 0;
    r.best_val_loss.reset();
    r.peak_bytes_analytic = 0;
    r.epochs_done = 0;
    r.result_json =
        R"({"status":"finished","test":{"count":11,"mae":0.125,"pearson":0.5,"spearman":0.25,)"
        R"("kendall":-0.25},"train":{"mae":9}})";
    EXPECT_EQ(cells(report::run_table_row(r, false, false)),
              (std::vector<std::string>{"7", "2026-11-21T10:00:00Z", "finished", "symgraph", "",
                                        "sp", "0", "", "", "0.1250", "0.500", "0.250",
                                        "-0.250", "", ""}));
}

TEST(RunTable, AStoppedRunWithACheckpointIsResumableUnlessATrainingHoldsIt)
{
    store::RunRecord r = gsr_run();
    r.status = "cancelled";
    r.epochs_done = 2;
    EXPECT_TRUE(report::run_table_row(r, true, false).resumable);
    EXPECT_EQ(report::run_cell_text(report::run_table_row(r, true, false), report::RunStatusColumn),
              "cancelled (resumable)");
    EXPECT_FALSE(report::run_table_row(r, false, false).resumable); // no checkpoint
    EXPECT_FALSE(report::run_table_row(r, true, true).resumable);   // being trained elsewhere
    r.status = "running"; // that none holds: killed, or the machine went down
    EXPECT_EQ(report::run_table_row(r, true, false).status, "interrupted");
    EXPECT_EQ(report::run_table_row(r, true, true).status, "running");
}

TEST(RunTable, DamagedSettingsAndResultsLeaveTheirCellsEmpty)
{
    store::RunRecord r = gsr_run();
    r.config_json = "{\"layers\": ";
    r.result_json = "[1]";
    r.best_epoch = 0;
    r.best_val_loss.reset();
    const std::vector<std::string> c = cells(report::run_table_row(r, false, false));
    EXPECT_EQ(c[report::RunShapeColumn], "");
    EXPECT_EQ(c[report::RunEpochsColumn], "5"); // the count done, the total unknown
    EXPECT_EQ(c[report::RunBestEpochColumn], "");
    EXPECT_EQ(c[report::RunBestValLossColumn], "");
    EXPECT_EQ(c[report::RunTestPearsonColumn], "");
}

TEST(RunTable, CsvQuotesFieldsAndKeepsRawNumbers)
{
    store::RunRecord r = gsr_run();
    r.model = "res, \"deep\"";
    const std::string csv = report::runs_csv({report::run_table_row(r, false, false)});
    EXPECT_EQ(csv,
              "Run,Created (UTC),Status,Model,Layers \u00d7 width,Target,Epochs,Best epoch,"
              "Best val loss,Test MAE,Test r,Test \u03c1,Test \u03c4,Peak bytes (analytic),"
              "Peak bytes (measured)\r\n"
              "7,2026-11-21T10:00:00Z,finished,\"res, \"\"deep\"\"\",\"4 \u00d7 16, 2 groups, "
              "top-4\",sp,5/5,4,0.5000,0.2500,0.750,0.500,0.375,122048,\r\n");
}
