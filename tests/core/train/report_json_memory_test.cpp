// The memory part of a run's JSON: the old keys as before, the measured per-layer rows added
// only when the run measured them (so stored runs without them read the same).
#include "train/report_json.hpp"

#include <gtest/gtest.h>

using namespace gsr;

TEST(ReportJsonMemory, MeasuredRowsAreWrittenOnlyWhenPresent)
{
    train::TrainResult r;
    r.memory.analytic_peak_bytes = 9000;
    r.memory.measured_peak_bytes = 8192;
    r.memory.persistent_bytes = 6000;
    r.memory.activation_bytes = 1280;
    r.memory.graph_bytes = 640;
    const nlohmann::json plain = train::train_result_json(r);
    EXPECT_EQ(plain["memory"]["measured_peak_bytes"], 8192);
    EXPECT_EQ(plain["memory"]["analytic_peak_bytes"], 9000);
    EXPECT_EQ(plain["memory"].size(), 5u);
    EXPECT_FALSE(plain["memory"].contains("measured_rows"));

    for (int i = 0; i < 3; ++i) {
        nn::LayerMemory m;
        m.name = i == 0 ? "encoder" : i == 2 ? "head" : "layer 0";
        m.parameter_bytes = 100u * std::size_t(i + 1);
        m.gradient_bytes = m.parameter_bytes;
        m.optimizer_bytes = 2 * m.parameter_bytes;
        m.activation_bytes = 64u * std::size_t(i);
        m.workspace_bytes = 4096u + std::size_t(i);
        r.memory.measured_layers.push_back(m);
    }
    const nlohmann::json j = train::train_result_json(r);
    EXPECT_EQ(j["memory"]["measured_peak_bytes"], 8192); // old keys unchanged
    EXPECT_EQ(j["memory"]["graph_bytes"], 640);
    const auto& rows = j["memory"]["measured_rows"];
    ASSERT_EQ(rows.size(), 3u);
    EXPECT_EQ(rows[1]["name"], "layer 0");
    EXPECT_EQ(rows[2]["parameter_bytes"], 300);
    EXPECT_EQ(rows[2]["optimizer_bytes"], 600);
    EXPECT_EQ(rows[2]["activation_bytes"], 128);
    EXPECT_EQ(rows[0]["workspace_bytes"], 4096);
    // And back, as a run store would read them.
    const auto back = nn::measured_rows_from_json(rows);
    ASSERT_EQ(back.size(), 3u);
    EXPECT_EQ(back[2].workspace_bytes, 4098u);
    EXPECT_EQ(back[1].activation_bytes, 64u);
    EXPECT_TRUE(nn::measured_rows_from_json(nlohmann::json(nullptr)).empty());
}
