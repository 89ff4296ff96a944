#pragma once
// Shared by the reader tests: the data MANIFEST's numbers, read at test time, never copied.
#include "netlist/circuit.hpp"

#include <cstdint>
#include <fstream>
#include <map>
#include <regex>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

namespace gsr::netlist::testdata {

inline const std::string kNetlists = std::string(GSR_DATA_DIR) + "/netlists/";

/// The COUNTS.csv row of `file` (relative to the netlists folder), column name -> value.
inline std::map<std::string, std::string> counts_row(const std::string& file)
{
    std::ifstream in(kNetlists + "COUNTS.csv");
    std::string line;
    std::vector<std::string> header;
    auto split = [](const std::string& s) {
        std::vector<std::string> out(1);
        bool quoted = false;
        for (char c : s) {
            if (c == '\r') continue; // the file has CRLF line ends
            if (c == '"')
                quoted = !quoted;
            else if (c == ',' && !quoted)
                out.emplace_back();
            else
                out.back() += c;
        }
        return out;
    };
    while (std::getline(in, line)) {
        const std::vector<std::string> cols = split(line);
        if (header.empty()) {
            header = cols;
            continue;
        }
        if (cols[0] != file) continue;
        std::map<std::string, std::string> row;
        for (std::size_t i = 0; i < header.size() && i < cols.size(); ++i) row[header[i]] = cols[i];
        return row;
    }
    return {};
}

/// A number that MANIFEST.md states for `file`, matched by `pattern` with one group; -1 if none.
inline std::int64_t manifest_number(const std::string& file, const std::string& pattern)
{
    std::ifstream in(kNetlists + "MANIFEST.md");
    std::stringstream ss;
    ss << in.rdbuf();
    const std::string text = ss.str();
    const std::size_t at = text.find("### `" + file + "`");
    if (at == std::string::npos) return -1;
    const std::size_t end = text.find("\n### ", at + 1);
    const std::string entry = text.substr(at, end == std::string::npos ? std::string::npos : end - at);
    std::smatch m;
    if (!std::regex_search(entry, m, std::regex(pattern))) return -1;
    return std::stoll(m[1].str());
}

/// A number in the `extra` column of a COUNTS row, matched by `pattern` with one group; -1 if none.
inline std::int64_t extra_number(const std::map<std::string, std::string>& row, const std::string& pattern)
{
    std::smatch m;
    const std::string extra = row.at("extra");
    if (!std::regex_search(extra, m, std::regex(pattern))) return -1;
    return std::stoll(m[1].str());
}

/// The cell of a circuit with this instance name, or nullptr.
inline const Cell* find_cell(const Circuit& c, std::string_view name)
{
    for (const Cell& cell : c.cells)
        if (c.cell_name(cell) == name) return &cell;
    return nullptr;
}

} // namespace gsr::netlist::testdata
