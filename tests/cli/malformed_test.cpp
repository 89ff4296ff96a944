// Every file of tests/malformed/<format>/ gets `FILE:LINE:COL: error: ...` on stderr and exit
// code 2 from `gsr info`, never a crash. EXPECT.tsv in each folder gives the line and a piece
// of the message for each file.
#include "core/netlist/malformed_corpus.hpp"
#include "run_gsr.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <set>

namespace fs = std::filesystem;

namespace {

using gsr::netlist::testdata::malformed_cases;
using gsr::netlist::testdata::MalformedCase;

class MalformedTest : public ::testing::TestWithParam<MalformedCase> {};

TEST_P(MalformedTest, ReportsFileLineColumnAndExitsWithTwo)
{
    const MalformedCase& c = GetParam();
    const auto r = gsr::test::run_gsr("info --quiet " + gsr::test::shell_quote(c.file));
    EXPECT_EQ(r.exit_code, 2) << c.file << "\nstderr: " << r.err;
    const std::string prefix = c.file + ":" + std::to_string(c.line) + ":";
    EXPECT_EQ(r.err.rfind(prefix, 0), 0u)
        << "stderr should start with " << prefix << "\nstderr: " << r.err;
    EXPECT_NE(r.err.find(": error: "), std::string::npos) << r.err;
    EXPECT_NE(r.err.find(c.message), std::string::npos)
        << "expected message piece '" << c.message << "'\nstderr: " << r.err;
}

std::string case_name(const ::testing::TestParamInfo<MalformedCase>& info)
{
    std::string n = fs::path(info.param.file).parent_path().filename().string() + "_" +
                    fs::path(info.param.file).filename().string();
    for (char& ch : n)
        if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
    return n;
}

INSTANTIATE_TEST_SUITE_P(Corpus, MalformedTest, ::testing::ValuesIn(malformed_cases()),
                         case_name);

TEST(MalformedCorpus, EveryFileHasAnExpectation)
{
    std::set<std::string> listed;
    for (const auto& c : malformed_cases())
        listed.insert(fs::path(c.file).lexically_normal().string());
    const fs::path root = fs::path(GSR_SOURCE_DIR) / "tests/malformed";
    std::size_t files = 0;
    for (const auto& e : fs::recursive_directory_iterator(root)) {
        if (!e.is_regular_file() || e.path().filename() == "EXPECT.tsv") continue;
        ++files;
        EXPECT_TRUE(listed.count(e.path().lexically_normal().string()))
            << e.path() << " has no EXPECT.tsv row";
    }
    EXPECT_GE(files, 20u);
}

} // namespace
