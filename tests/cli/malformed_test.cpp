// Every file of tests/malformed/<format>/ gets `FILE:LINE:COL: error: ...` on stderr and exit
// code 2 from `gsr info`, never a crash. EXPECT.tsv in each folder gives the line and a piece
// of the message for each file.
#include "run_gsr.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <set>

namespace fs = std::filesystem;

namespace {

struct MalformedCase {
    std::string file; ///< path
    int line = 0;
    std::string message;
};

std::vector<MalformedCase> read_cases()
{
    std::vector<MalformedCase> cases;
    const fs::path root = fs::path(GSR_SOURCE_DIR) / "tests/malformed";
    if (!fs::exists(root)) return cases;
    for (const auto& dir : fs::directory_iterator(root)) {
        if (!dir.is_directory()) continue;
        std::ifstream in(dir.path() / "EXPECT.tsv");
        std::string row;
        while (std::getline(in, row)) {
            if (row.empty() || row[0] == '#') continue;
            std::size_t t1 = row.find('\t'), t2 = row.find('\t', t1 + 1);
            if (t1 == std::string::npos || t2 == std::string::npos) continue;
            cases.push_back({(dir.path() / row.substr(0, t1)).string(), std::stoi(row.substr(t1 + 1, t2 - t1 - 1)),
                             row.substr(t2 + 1)});
        }
    }
    return cases;
}

void PrintTo(const MalformedCase& c, std::ostream* os) { *os << c.file; }

class MalformedTest : public ::testing::TestWithParam<MalformedCase> {};

TEST_P(MalformedTest, ReportsFileLineColumnAndExitsWithTwo)
{
    const MalformedCase& c = GetParam();
    const auto r = gsr::test::run_gsr("info --quiet " + gsr::test::shell_quote(c.file));
    EXPECT_EQ(r.exit_code, 2) << c.file << "\nstderr: " << r.err;
    const std::string prefix = c.file + ":" + std::to_string(c.line) + ":";
    EXPECT_EQ(r.err.rfind(prefix, 0), 0u) << "stderr should start with " << prefix << "\nstderr: " << r.err;
    EXPECT_NE(r.err.find(": error: "), std::string::npos) << r.err;
    EXPECT_NE(r.err.find(c.message), std::string::npos) << "expected message piece '" << c.message << "'\nstderr: " << r.err;
}

std::string case_name(const ::testing::TestParamInfo<MalformedCase>& info)
{
    std::string n = fs::path(info.param.file).parent_path().filename().string() + "_" +
                    fs::path(info.param.file).filename().string();
    for (char& ch : n)
        if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
    return n;
}

INSTANTIATE_TEST_SUITE_P(Corpus, MalformedTest, ::testing::ValuesIn(read_cases()), case_name);

TEST(MalformedCorpus, EveryFileHasAnExpectation)
{
    std::set<std::string> listed;
    for (const auto& c : read_cases()) listed.insert(fs::path(c.file).lexically_normal().string());
    const fs::path root = fs::path(GSR_SOURCE_DIR) / "tests/malformed";
    std::size_t files = 0;
    for (const auto& e : fs::recursive_directory_iterator(root)) {
        if (!e.is_regular_file() || e.path().filename() == "EXPECT.tsv") continue;
        ++files;
        EXPECT_TRUE(listed.count(e.path().lexically_normal().string())) << e.path() << " has no EXPECT.tsv row";
    }
    EXPECT_GE(files, 20u);
}

} // namespace
