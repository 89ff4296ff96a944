#pragma once
// The malformed-input corpus, tests/malformed/<format>/: each folder's EXPECT.tsv lists its
// files, each with the line its error must name and a piece of the message. Read by the reader
// tests (each format's reader alone) and by the CLI test (`gsr info` on every file).
#include "util/diagnostics.hpp"
#include "util/source_text.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <ostream>
#include <string>
#include <vector>

namespace gsr::netlist::testdata {

struct MalformedCase {
    std::string file; ///< its path
    int line = 0;     ///< the line the error must name; -1 where the EXPECT.tsv row is broken
    std::string message; ///< a piece of the message
};

/// For parameterised tests: a case prints as its file.
inline void PrintTo(const MalformedCase& c, std::ostream* os) { *os << c.file; }

/// The cases of one format's folder, or of every folder where `format` is empty.
inline std::vector<MalformedCase> malformed_cases(const std::string& format = {})
{
    namespace fs = std::filesystem;
    const fs::path root = fs::path(GSR_SOURCE_DIR) / "tests/malformed";
    std::vector<fs::path> dirs;
    if (!format.empty())
        dirs.push_back(root / format);
    else if (fs::exists(root))
        for (const auto& dir : fs::directory_iterator(root))
            if (dir.is_directory()) dirs.push_back(dir.path());
    std::vector<MalformedCase> cases;
    for (const fs::path& dir : dirs) {
        std::ifstream in(dir / "EXPECT.tsv");
        std::string row;
        while (std::getline(in, row)) {
            if (row.empty() || row[0] == '#') continue;
            const std::size_t t1 = row.find('\t');
            const std::size_t t2 = t1 == std::string::npos ? t1 : row.find('\t', t1 + 1);
            if (t2 == std::string::npos) { // a broken row fails the tests that read it
                cases.push_back({(dir / row).string(), -1, "a row FILE<tab>LINE<tab>MESSAGE"});
                continue;
            }
            cases.push_back({(dir / row.substr(0, t1)).string(),
                             std::atoi(row.substr(t1 + 1, t2 - t1 - 1).c_str()),
                             row.substr(t2 + 1)});
        }
    }
    return cases;
}

/// Every file of `format`'s folder fails to read through `read`, with a gsr::Error that names
/// the expected line and holds the expected piece of message.
template <class Read>
void expect_malformed_corpus_fails_where_expected(const std::string& format, Read read)
{
    const std::vector<MalformedCase> cases = malformed_cases(format);
    EXPECT_GE(cases.size(), 3u) << "tests/malformed/" << format << "/EXPECT.tsv";
    for (const MalformedCase& c : cases) {
        try {
            (void)read(SourceText::read_file(c.file));
            ADD_FAILURE() << c.file << " read without error";
        } catch (const gsr::Error& e) {
            EXPECT_EQ(e.where().line, c.line) << c.file << ": " << e.what();
            EXPECT_NE(e.message().find(c.message), std::string::npos) << c.file << ": " << e.what();
        }
    }
}

} // namespace gsr::netlist::testdata
