#include "report/document.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>

namespace gsr::report {
namespace {

// Inline on purpose: the page must not load anything (no fonts, no stylesheets).
constexpr const char* kStyle = R"(
body { font-family: "DejaVu Sans", Helvetica, Arial, sans-serif; color: #222; margin: 24px auto;
       max-width: 1000px; padding: 0 16px; font-size: 14px; line-height: 1.4; }
h1 { font-size: 22px; margin-bottom: 2px; }
h2 { font-size: 17px; margin-top: 28px; border-bottom: 1px solid #ccc; padding-bottom: 3px; }
h3 { font-size: 15px; margin-top: 18px; }
.subtitle { color: #666; margin-top: 0; }
table { border-collapse: collapse; margin: 8px 0; font-size: 12.5px; }
th, td { border: 1px solid #d6d6d6; padding: 3px 7px; text-align: left; vertical-align: top; }
th { background: #f0f0f0; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
tr:nth-child(even) td { background: #fafafa; }
tr.best td { background: #e3f4e8; font-weight: bold; }
table.kv th { width: 220px; font-weight: normal; color: #444; }
figure { margin: 12px 0; }
figcaption { color: #555; font-size: 12.5px; }
ul.tree, ul.tree ul { list-style: none; padding-left: 18px; margin: 2px 0; }
ul.tree li::before { content: "\2514\2500 "; color: #999; }
code { font-size: 12.5px; }
)";

std::string esc(const std::string& s)
{
    return xml_escape(s);
}

void tree_html(std::string& out, const std::vector<TreeNode>& nodes)
{
    for (const TreeNode& n : nodes) {
        out += "<li>" + esc(n.text);
        if (!n.children.empty()) {
            out += "<ul>";
            tree_html(out, n.children);
            out += "</ul>";
        }
        out += "</li>\n";
    }
}

void table_html(std::string& out, const Table& t)
{
    out += "<table>\n<thead><tr>";
    for (const std::string& c : t.columns) out += "<th>" + esc(c) + "</th>";
    out += "</tr></thead>\n<tbody>\n";
    for (std::size_t r = 0; r < t.rows.size(); ++r) {
        const bool best = r < t.highlight.size() && t.highlight[r];
        out += best ? "<tr class=\"best\">" : "<tr>";
        for (std::size_t c = 0; c < t.rows[r].size(); ++c) {
            const bool num = c < t.numeric.size() && t.numeric[c];
            out += num ? "<td class=\"num\">" : "<td>";
            out += esc(t.rows[r][c]) + "</td>";
        }
        out += "</tr>\n";
    }
    out += "</tbody>\n</table>\n";
}

} // namespace

std::string to_html(const Document& doc)
{
    std::string out = "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
                      "<meta name=\"generator\" content=\"GSR Studio\">\n<title>" +
                      esc(doc.title) + "</title>\n<style>" + kStyle +
                      "</style>\n</head>\n<body>\n";
    out += "<h1>" + esc(doc.title) + "</h1>\n";
    if (!doc.subtitle.empty()) out += "<p class=\"subtitle\">" + esc(doc.subtitle) + "</p>\n";
    for (const Block& block : doc.blocks) {
        if (const auto* h = std::get_if<Heading>(&block)) {
            const std::string tag = h->level >= 3 ? "h3" : "h2";
            out += "<" + tag + ">" + esc(h->text) + "</" + tag + ">\n";
        } else if (const auto* p = std::get_if<Paragraph>(&block)) {
            out += "<p>" + esc(p->text) + "</p>\n";
        } else if (const auto* kv = std::get_if<KeyValues>(&block)) {
            out += "<table class=\"kv\">\n";
            for (const auto& [k, v] : kv->rows)
                out += "<tr><th>" + esc(k) + "</th><td>" + esc(v) + "</td></tr>\n";
            out += "</table>\n";
        } else if (const auto* t = std::get_if<Table>(&block)) {
            table_html(out, *t);
        } else if (const auto* f = std::get_if<Figure>(&block)) {
            out += "<figure>\n" + to_svg(f->scene, false) + "\n";
            if (!f->caption.empty()) out += "<figcaption>" + esc(f->caption) + "</figcaption>\n";
            out += "</figure>\n";
        } else if (const auto* tr = std::get_if<Tree>(&block)) {
            out += "<ul class=\"tree\">\n";
            tree_html(out, tr->roots);
            out += "</ul>\n";
        }
    }
    out += "</body>\n</html>\n";
    return out;
}

std::string csv_field(const std::string& text)
{
    if (text.find_first_of(",\"\r\n") == std::string::npos) return text;
    std::string out = "\"";
    for (char c : text) {
        if (c == '"') out += '"';
        out += c;
    }
    return out + "\"";
}

std::string to_csv(const Table& table)
{
    std::string out;
    auto row = [&](const std::vector<std::string>& cells) {
        for (std::size_t i = 0; i < cells.size(); ++i) {
            if (i) out += ',';
            out += csv_field(cells[i]);
        }
        out += "\r\n";
    };
    row(table.columns);
    for (const auto& r : table.rows) row(r);
    return out;
}

std::string format_number(double value, int digits)
{
    if (!std::isfinite(value)) return "";
    // As printf's %.*g, with a point whatever C's locale (the window runs under the user's).
    char buf[40];
    const auto [end, ec] = std::to_chars(buf, buf + sizeof buf, value,
                                         std::chars_format::general, std::clamp(digits, 1, 17));
    return ec == std::errc{} ? std::string(buf, end) : std::string();
}

std::string format_seconds(double seconds)
{
    if (!std::isfinite(seconds) || seconds <= 0) return "";
    // A value that three digits round up to 1000 takes the next unit ("1 s", not "1e+03 ms"),
    // seconds from 1000 on are whole ("1234 s"), and from a million on have an exponent
    // ("2.5e+07 s"): 1e300 whole did not fit the buffer, and lost its unit.
    const double a = std::abs(seconds);
    constexpr double kUp = 0.9995;
    char buf[40];
    if (a >= 999999.5) std::snprintf(buf, sizeof buf, "%.3g s", seconds);
    else if (a >= 999.5) std::snprintf(buf, sizeof buf, "%.0f s", seconds);
    else if (a >= kUp) std::snprintf(buf, sizeof buf, "%.3g s", seconds);
    else if (a >= kUp * 1e-3) std::snprintf(buf, sizeof buf, "%.3g ms", seconds * 1e3);
    else if (a >= kUp * 1e-6) std::snprintf(buf, sizeof buf, "%.3g us", seconds * 1e6);
    else std::snprintf(buf, sizeof buf, "%.3g ns", seconds * 1e9);
    return buf;
}

std::string format_bytes(double bytes)
{
    if (!std::isfinite(bytes)) return "";
    static const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    int u = 0;
    while (std::abs(bytes) >= 1024 && u < 4) {
        bytes /= 1024;
        ++u;
    }
    char buf[40];
    // 1000 to 1023 of a unit whole ("1020 KiB"): three digits wrote "1.02e+03 KiB". A million
    // TiB and more with an exponent, as format_seconds does.
    const bool whole = (u == 0 || std::abs(bytes) >= 999.5) && std::abs(bytes) < 999999.5;
    std::snprintf(buf, sizeof buf, whole ? "%.0f %s" : "%.3g %s", bytes, units[u]);
    return buf;
}

} // namespace gsr::report
