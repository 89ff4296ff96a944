// `gsr labels --target arrival --liberty LIB`: NLDM arrival times in ns on an IWLS 2005 netlist.
#include "run_gsr.hpp"
#include "test_files.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

namespace fs = std::filesystem;
using gsr::test::run_gsr;
using gsr::test::shell_quote;

namespace {

const std::string kIwls = std::string(GSR_DATA_DIR) + "/netlists/iwls05_gsclib180/";

struct Row {
    std::string net, driver;
    double arrival = 0.0;
};

std::vector<Row> arrival_rows(const fs::path& csv)
{
    std::ifstream in(csv);
    std::string line;
    std::getline(in, line);
    const std::vector<std::string> header = gsr::test::split_csv(line, 64);
    EXPECT_EQ(header.back(), "arrival");
    std::vector<Row> rows;
    while (std::getline(in, line)) {
        const auto cells = gsr::test::split_csv(line, 64);
        rows.push_back({cells[0], cells[1], std::stod(cells.back())});
    }
    return rows;
}

} // namespace

TEST(LabelsArrival, NldmWithGscLibGivesNanoseconds)
{
    const fs::path out = gsr::test::scratch_file("s1196_arrival.csv");
    const auto r = run_gsr("labels " + shell_quote(kIwls + "netlist/s1196.v") + " --liberty " +
                           shell_quote(kIwls + "lib/GSCLib_3.0.lib") +
                           " --target arrival --out " + shell_quote(out.string()));
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(r.out.find(" ns (NLDM)"), std::string::npos) << r.out;
    EXPECT_EQ(r.err.find("no timing arc"), std::string::npos) << r.err; // every cell is mapped
    const std::vector<Row> rows = arrival_rows(out);
    // COUNTS.csv's 499 nets, and the constant 1'b1 that the flip-flops' SN pins are tied to
    // (the 18 fan-outs of its row): a net of its own in the model, not in the counts.
    ASSERT_EQ(rows.size(), 500u);
    EXPECT_EQ(std::count_if(rows.begin(), rows.end(),
                            [](const Row& row) { return row.net == "1'b1"; }),
              1);
    double latest = 0.0;
    for (const Row& row : rows) {
        if (row.driver == "PI" || row.driver == "CONST1")
            EXPECT_EQ(row.arrival, 0.0) << row.net;
        else
            EXPECT_GT(row.arrival, 0.0) << row.net;
        latest = std::max(latest, row.arrival);
    }
    // A 180 nm path of some twenty levels. The value every net's arrival is checked for against
    // an independent propagation in core/labels/arrival_nldm_test.cpp (IwlsNetlistsOnGscLib):
    // here the command's wiring (library, load factor, transition) must give the same.
    EXPECT_NEAR(latest, 0.841196, 1e-6);

    const auto slow = run_gsr("labels " + shell_quote(kIwls + "netlist/s1196.v") +
                              " --liberty " + shell_quote(kIwls + "lib/GSCLib_3.0.lib") +
                              " --target arrival --input-transition 1.0 --out " +
                              shell_quote(gsr::test::scratch_file("slow.csv").string()));
    ASSERT_EQ(slow.exit_code, 0) << slow.err;
    double slow_latest = 0.0;
    for (const Row& row : arrival_rows(gsr::test::scratch_file("slow.csv")))
        slow_latest = std::max(slow_latest, row.arrival);
    EXPECT_NE(slow_latest, latest); // slower input edges change the first stages' delays
}

TEST(LabelsArrival, InputTransitionNeedsADelayTable)
{
    const auto r = run_gsr("labels " + shell_quote(kIwls + "netlist/s27.v") +
                           " --target arrival --input-transition 0.2 --out " +
                           shell_quote(gsr::test::scratch_file("x.csv").string()));
    EXPECT_EQ(r.exit_code, 1) << r.out; // a usage error
    EXPECT_NE(r.err.find("--input-transition"), std::string::npos) << r.err;
    // Without --liberty or without the arrival target it is refused before anything is read
    // or simulated: the missing netlist is not reached (it was, after the whole simulation).
    const std::string absent = shell_quote(gsr::test::scratch_file("absent.v").string());
    for (const char* flags :
         {" --target all --input-transition 0.2", " --target sp --load-factor 2"}) {
        const auto early = run_gsr("labels " + absent + flags + " --out " +
                                   shell_quote(gsr::test::scratch_file("x.csv").string()));
        EXPECT_EQ(early.exit_code, 1) << flags << ": " << early.err;
        EXPECT_NE(early.err.find(" applies to --target arrival"), std::string::npos) << early.err;
    }
}

TEST(LabelsArrival, LoadFactorNeedsTheUnitDelayModel)
{
    // With delay tables the load is the sinks' pin capacitances: --load-factor changed
    // nothing, and said nothing.
    const auto r = run_gsr("labels " + shell_quote(kIwls + "netlist/s27.v") + " --liberty " +
                           shell_quote(kIwls + "lib/GSCLib_3.0.lib") +
                           " --target arrival --load-factor 5 --out " +
                           shell_quote(gsr::test::scratch_file("lf.csv").string()));
    EXPECT_EQ(r.exit_code, 1) << r.out;
    EXPECT_NE(r.err.find("--load-factor applies to --target arrival in the unit-delay model"),
              std::string::npos)
        << r.err;
    EXPECT_FALSE(fs::exists(gsr::test::scratch_file("lf.csv")));
    // A factor past any sense: a command-line mistake (exit 1), nothing written. It was
    // refused as the netlist's fault (exit 2, at the line of the net whose arrival overflowed).
    const auto huge = run_gsr("labels " + shell_quote(kIwls + "netlist/s27.v") +
                              " --target arrival --load-factor 1e308 --out " +
                              shell_quote(gsr::test::scratch_file("lf.csv").string()));
    EXPECT_EQ(huge.exit_code, 1) << huge.out;
    EXPECT_EQ(huge.err.rfind("gsr: --load-factor 1e308 is out of range: at most 1e6\n", 0), 0u)
        << huge.err;
    EXPECT_FALSE(fs::exists(gsr::test::scratch_file("lf.csv")));
}

TEST(LabelsArrival, WithoutDelayTablesTheSummaryNamesTheUnitDelayModel)
{
    // The summary's maximum has no unit then: it says which model gave it rather than "ns".
    const fs::path out = gsr::test::scratch_file("s27_unit.csv");
    const auto r = run_gsr("labels " + shell_quote(kIwls + "netlist/s27.v") +
                           " --target arrival --out " + shell_quote(out.string()));
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(r.out.find(" (unit-delay model: no Liberty delay tables)"), std::string::npos)
        << r.out;
    EXPECT_EQ(r.out.find(" ns"), std::string::npos) << r.out;
}

TEST(LabelsArrival, ALibraryOfOtherCellsIsRefusedNotAllZero)
{
    // A gsclib180 netlist with the Nangate45 library: no cell matches, and every arrival was 0
    // with a warning and exit 0.
    const fs::path out = gsr::test::scratch_file("s1196_wrong_library.csv");
    fs::remove(out);
    const std::string lib =
        std::string(GSR_DATA_DIR) + "/netlists/openroad_nangate45/nangate45_typ.lib.gz";
    const auto r = run_gsr("labels " + shell_quote(kIwls + "netlist/s1196.v") + " --liberty " +
                           shell_quote(lib) + " --target arrival --out " +
                           shell_quote(out.string()));
    EXPECT_EQ(r.exit_code, 2) << r.err;
    EXPECT_NE(r.err.find(lib + ": error: no combinational cell of "), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("expected the library of the netlist's cells"), std::string::npos)
        << r.err;
    EXPECT_FALSE(fs::exists(out));
}
