// `gsr memory --measure`: one CPU training step on a synthetic graph of the given shape; the
// JSON's measured rows are held against its analytic rows.
#include "run_gsr.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

using gsr::test::run_gsr;

namespace {

nlohmann::json measure(const std::string& model)
{
    const auto r = run_gsr("memory --model " + model + " --layers 3 --hidden 16" +
                           (model == "gsr" ? " --groups 2 --topk 3" : "") +
                           " --nodes 300 --edges 700 --features 4 --measure --json");
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return nlohmann::json::parse(r.out);
}

} // namespace

TEST(MemoryCommand, MeasureReportsTheArenaPerLayer)
{
    for (const std::string model : {"res", "gsr"}) {
        const nlohmann::json j = measure(model);
        ASSERT_TRUE(j.contains("measured_rows")) << model;
        const auto& rows = j["rows"];
        const auto& measured = j["measured_rows"];
        ASSERT_EQ(measured.size(), rows.size()) << model;
        ASSERT_EQ(rows.size(), 3u + 2u);
        for (std::size_t i = 0; i < rows.size(); ++i) {
            EXPECT_EQ(measured[i]["name"], rows[i]["name"]);
            EXPECT_EQ(measured[i]["activation_bytes"], rows[i]["activation_bytes"]) << model << i;
            EXPECT_EQ(measured[i]["parameter_bytes"], rows[i]["parameter_bytes"]) << model << i;
            EXPECT_GT(measured[i]["workspace_bytes"].get<std::size_t>(), 0u) << model << i;
            EXPECT_LE(measured[i]["workspace_bytes"].get<std::size_t>(),
                      j["max_workspace_bytes"].get<std::size_t>())
                << model << i;
        }
        EXPECT_EQ(j["edges"], 700);
        EXPECT_GT(j["measured_peak_bytes"].get<std::size_t>(), 0u);
        EXPECT_LE(j["measured_peak_bytes"].get<std::size_t>(),
                  j["analytic_peak_bytes"].get<std::size_t>());
    }
    // Without --measure: analytic only, as before.
    const auto r =
        run_gsr("memory --model res --layers 3 --hidden 16 --nodes 300 --edges 700 --json");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_FALSE(nlohmann::json::parse(r.out).contains("measured_rows"));
}
