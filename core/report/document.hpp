#pragma once
// A report as a flat list of blocks (headings, paragraphs, key/value lists, tables, charts,
// trees), written out as one self-contained HTML page (inline CSS and SVG, no external
// reference of any kind) or, by pdf_report.hpp, as a paged PDF. CSV and JSON exports do not go
// through the document: they come from the report models (run_report.hpp, session_report.hpp).
//
//   Document          title, subtitle, blocks
//   Table             the one tabular type: HTML/PDF tables and CSV alike
//   to_html           the page
//   to_csv            RFC 4180: CRLF line ends, fields with , " CR or LF quoted, " doubled
#include "report/chart.hpp"

#include <string>
#include <utility>
#include <variant>
#include <vector>

namespace gsr::report {

struct Heading {
    std::string text;
    int level = 2; ///< 2 or 3 (the title is level 1)
};

struct Paragraph {
    std::string text;
};

struct KeyValues {
    std::vector<std::pair<std::string, std::string>> rows;
};

struct Table {
    std::vector<std::string> columns;
    std::vector<bool> numeric; ///< per column: right-aligned in HTML and PDF
    std::vector<std::vector<std::string>> rows;
    std::vector<bool> highlight; ///< per row (may be shorter): drawn emphasised (the best)
};

struct Figure {
    Scene scene;
    std::string caption;
};

struct TreeNode {
    std::string text;
    std::vector<TreeNode> children;
};

struct Tree {
    std::vector<TreeNode> roots;
};

using Block = std::variant<Heading, Paragraph, KeyValues, Table, Figure, Tree>;

struct Document {
    std::string title;
    std::string subtitle; ///< what and when, under the title
    std::vector<Block> blocks;

    template <typename T>
    void add(T block) { blocks.emplace_back(std::move(block)); }
};

/// The page: <!DOCTYPE html>, inline <style>, inline <svg> charts; nothing is loaded from
/// anywhere else, so the file can be mailed or archived alone.
std::string to_html(const Document& doc);

/// The table with a header row, as RFC 4180 CSV.
std::string to_csv(const Table& table);
/// One CSV field, quoted when RFC 4180 requires it.
std::string csv_field(const std::string& text);

/// A number for tables and CSV: up to `digits` significant digits, "" when not finite (an
/// undefined metric is an empty cell, not "nan").
std::string format_number(double value, int digits = 6);
/// Seconds with a unit chosen for reading: "1.23 ms", "45.6 us", "2.5 s", "1234 s", "3e+07 s".
std::string format_seconds(double seconds);
/// Bytes as "1.5 MiB".
std::string format_bytes(double bytes);

} // namespace gsr::report
