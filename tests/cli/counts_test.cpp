// `gsr info --json` on every row of the data's COUNTS.csv, compared on every count the row
// gives. The CSV is read at test time: no number is copied into this file.
#include "run_gsr.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <fstream>
#include <map>
#include <regex>

namespace {

struct CountsRow {
    std::string file, format, bytes, pi, po, ff, cells, nets, extra;
};

std::vector<CountsRow> read_counts()
{
    std::ifstream in(std::string(GSR_DATA_DIR) + "/netlists/COUNTS.csv");
    std::vector<CountsRow> rows;
    std::string line;
    std::getline(in, line); // header
    while (std::getline(in, line)) {
        if (!line.empty() && line.back() == '\r') line.pop_back();
        if (line.empty()) continue;
        auto f = gsr::test::split_csv(line, 9);
        f.resize(9);
        rows.push_back({f[0], f[1], f[2], f[3], f[4], f[5], f[6], f[7], f[8]});
    }
    return rows;
}

/// "key=value" pairs of the extra column, for keys whose value is a number.
std::map<std::string, long long> extra_numbers(const std::string& extra)
{
    std::map<std::string, long long> m;
    static const std::regex kv(R"(([a-z_]+)=(\d+))");
    for (auto it = std::sregex_iterator(extra.begin(), extra.end(), kv); it != std::sregex_iterator(); ++it)
        m[(*it)[1]] = std::stoll((*it)[2]);
    static const std::regex pc(R"(pin connections (\d+))");
    std::smatch sm;
    if (std::regex_search(extra, sm, pc)) m["pin_connections"] = std::stoll(sm[1]);
    return m;
}

void PrintTo(const CountsRow& r, std::ostream* os) { *os << r.file; }

class CountsTest : public ::testing::TestWithParam<CountsRow> {};

void expect_count(const nlohmann::json& j, const char* key, const std::string& want, const std::string& file)
{
    if (want.empty()) return;
    ASSERT_TRUE(j.contains(key) && j[key].is_number_integer()) << file << ": no integer '" << key << "'";
    EXPECT_EQ(j[key].get<long long>(), std::stoll(want)) << file << ": " << key;
}

TEST_P(CountsTest, InfoJsonMatchesManifestCounts)
{
    const CountsRow& row = GetParam();
    const std::string path = std::string(GSR_DATA_DIR) + "/netlists/" + row.file;
    const auto r = gsr::test::run_gsr("info --json --quiet " + gsr::test::shell_quote(path));
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const auto j = nlohmann::json::parse(r.out);
    EXPECT_EQ(j["format"], row.format == "aiger" ? "aiger" : row.format);
    // For DEF the PI column counts PINS entries of every direction (MANIFEST).
    expect_count(j, row.format == "def" ? "ports" : "inputs", row.pi, row.file);
    expect_count(j, "outputs", row.po, row.file);
    expect_count(j, "flip_flops", row.ff, row.file);
    expect_count(j, "cells", row.cells, row.file);
    expect_count(j, "nets", row.nets, row.file);

    const auto extra = extra_numbers(row.extra);
    for (const auto& [key, value] : extra) {
        if (key == "aig_depth") {
            EXPECT_EQ(j["max_level"].get<long long>(), value) << row.file << ": AIG depth";
        } else if (key == "fanin_edges") {
            EXPECT_EQ(j["extra"]["fanin_edges"].get<long long>(), value) << row.file;
            if (!j["extra"].contains("undriven_nets"))
                EXPECT_EQ(j["graph_edges"].get<long long>(), value) << row.file << ": graph edges";
        } else if (key == "const_nodes" || key == "cover_lines" || key == "subckts" || key == "pin_connections") {
            ASSERT_TRUE(j["extra"].contains(key)) << row.file << ": no extra." << key;
            EXPECT_EQ(j["extra"][key].get<long long>(), value) << row.file << ": " << key;
        }
    }
}

std::string row_name(const ::testing::TestParamInfo<CountsRow>& info)
{
    std::string n = info.param.file;
    for (char& c : n)
        if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
    return n;
}

INSTANTIATE_TEST_SUITE_P(Manifest, CountsTest, ::testing::ValuesIn(read_counts()), row_name);

TEST(CountsCsv, HasRowsForEveryFormat)
{
    std::map<std::string, int> per_format;
    for (const auto& r : read_counts()) ++per_format[r.format];
    for (const char* f : {"bench", "blif", "aiger", "verilog", "liberty", "lef", "def", "spice"})
        EXPECT_GT(per_format[f], 0) << f;
}

} // namespace
