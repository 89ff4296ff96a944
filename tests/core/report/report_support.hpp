#pragma once
// Helpers of the report tests: an RFC 4180 parser written from the RFC (not the exporter's
// code), checks that a page is self-contained, and rendering a PDF with poppler's pdftoppm.
#include "test_files.hpp"

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>
#include <stdexcept>
#include <cstring>
#include <sstream>
#include <string>
#include <vector>

#ifdef GSR_HAVE_CAIRO
#include <cairo.h>
#endif

namespace gsr::test {

/// Records of RFC 4180 text: fields split at commas, records at CRLF (a bare LF is accepted
/// too), quoted fields may hold commas, quotes (doubled) and line breaks. Throws on a quote
/// inside an unquoted field or an unterminated quoted field.
inline std::vector<std::vector<std::string>> parse_csv(const std::string& text)
{
    std::vector<std::vector<std::string>> records;
    std::vector<std::string> record;
    std::string field;
    bool quoted = false, was_quoted = false;
    std::size_t i = 0;
    auto end_field = [&] {
        record.push_back(field);
        field.clear();
        was_quoted = false;
    };
    while (i < text.size()) {
        const char c = text[i];
        if (quoted) {
            if (c == '"') {
                if (i + 1 < text.size() && text[i + 1] == '"') {
                    field += '"';
                    i += 2;
                    continue;
                }
                quoted = false;
                ++i;
                continue;
            }
            field += c;
            ++i;
            continue;
        }
        if (c == '"') {
            if (!field.empty() || was_quoted) throw std::runtime_error("quote inside a field");
            quoted = was_quoted = true;
            ++i;
        } else if (c == ',') {
            end_field();
            ++i;
        } else if (c == '\r' || c == '\n') {
            end_field();
            records.push_back(record);
            record.clear();
            i += (c == '\r' && i + 1 < text.size() && text[i + 1] == '\n') ? 2 : 1;
        } else {
            if (was_quoted) throw std::runtime_error("text after a closing quote");
            field += c;
            ++i;
        }
    }
    if (quoted) throw std::runtime_error("unterminated quoted field");
    if (!field.empty() || !record.empty() || was_quoted) {
        end_field();
        records.push_back(record);
    }
    return records;
}

/// Whether the text parses completely as a finite number.
inline bool parses_as_number(const std::string& s)
{
    if (s.empty()) return false;
    char* end = nullptr;
    const double v = std::strtod(s.c_str(), &end);
    return end == s.c_str() + s.size() && std::isfinite(v);
}

/// What in a page could load something from elsewhere: src=, href=, url(, @import, a URL
/// with a scheme, and "http" anywhere (the pages have no reason to contain it at all).
inline std::vector<std::string> external_references(const std::string& html)
{
    static const std::regex pattern(
        R"((\bsrc\s*=)|(\bhref\s*=)|(url\s*\()|(@import)|(\b(https?|ftp|file)://)|(\bhttp))",
        std::regex::icase);
    std::vector<std::string> hits;
    for (auto it = std::sregex_iterator(html.begin(), html.end(), pattern);
         it != std::sregex_iterator(); ++it)
        hits.push_back(it->str());
    return hits;
}

inline bool on_path(const std::string& tool)
{
    return std::system(("command -v " + tool + " >/dev/null 2>&1").c_str()) == 0;
}

/// Pages of a PDF by pdfinfo, or -1 when pdfinfo is missing or fails.
inline int pdf_pages(const std::filesystem::path& pdf)
{
    if (!on_path("pdfinfo")) return -1;
    const std::string cmd = "pdfinfo '" + pdf.string() + "' 2>/dev/null";
    FILE* p = ::popen(cmd.c_str(), "r");
    if (!p) return -1;
    char line[512];
    int pages = -1;
    while (std::fgets(line, sizeof line, p))
        if (std::string(line).rfind("Pages:", 0) == 0) pages = std::atoi(line + 6);
    ::pclose(p);
    return pages;
}

/// Whether `s` is well-formed UTF-8 (RFC 3629: no overlong form, no surrogate, at most
/// U+10FFFF), checked by decoding each code point.
inline bool valid_utf8(const std::string& s)
{
    for (std::size_t i = 0; i < s.size();) {
        const auto c = static_cast<unsigned char>(s[i]);
        const int n = c < 0x80 ? 1
                      : (c >> 5) == 6 ? 2
                      : (c >> 4) == 14 ? 3
                      : (c >> 3) == 30 ? 4
                                       : 0;
        if (n == 0 || i + n > s.size()) return false;
        std::uint32_t cp = n == 1 ? c : c & (0x7F >> n);
        for (int k = 1; k < n; ++k) {
            const auto d = static_cast<unsigned char>(s[i + k]);
            if ((d >> 6) != 2) return false;
            cp = (cp << 6) | (d & 0x3F);
        }
        static constexpr std::uint32_t kLeast[] = {0, 0, 0x80, 0x800, 0x10000};
        if (cp < kLeast[n] || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return false;
        i += n;
    }
    return true;
}

/// The text of a PDF by poppler's pdftotext (UTF-8, layout order), or "" when it fails.
inline std::string pdf_text(const std::filesystem::path& pdf)
{
    const std::string cmd = "pdftotext -enc UTF-8 '" + pdf.string() + "' - 2>/dev/null";
    FILE* p = ::popen(cmd.c_str(), "r");
    if (!p) return "";
    std::string text;
    char buffer[4096];
    for (std::size_t n; (n = std::fread(buffer, 1, sizeof buffer, p)) > 0;) text.append(buffer, n);
    return ::pclose(p) == 0 ? text : "";
}

#ifdef GSR_HAVE_CAIRO
/// Renders page `page` with pdftoppm to a PNG and returns the fraction of its pixels that are
/// not white (-1 when the PNG cannot be made or read).
inline double rendered_ink(const std::filesystem::path& pdf, int page,
                           const std::filesystem::path& dir)
{
    const std::filesystem::path prefix = dir / ("page" + std::to_string(page));
    const std::string cmd = "pdftoppm -png -r 40 -singlefile -f " + std::to_string(page) +
                            " -l " + std::to_string(page) + " '" + pdf.string() + "' '" +
                            prefix.string() + "' 2>/dev/null";
    if (std::system(cmd.c_str()) != 0) return -1;
    const std::string png = prefix.string() + ".png";
    cairo_surface_t* img = cairo_image_surface_create_from_png(png.c_str());
    if (cairo_surface_status(img) != CAIRO_STATUS_SUCCESS) {
        cairo_surface_destroy(img);
        return -1;
    }
    cairo_surface_flush(img);
    const int w = cairo_image_surface_get_width(img), h = cairo_image_surface_get_height(img);
    const int stride = cairo_image_surface_get_stride(img);
    const unsigned char* data = cairo_image_surface_get_data(img);
    const cairo_format_t format = cairo_image_surface_get_format(img);
    std::size_t ink = 0;
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) {
            bool white = true;
            if (format == CAIRO_FORMAT_ARGB32 || format == CAIRO_FORMAT_RGB24) {
                std::uint32_t px;
                std::memcpy(&px, data + y * stride + 4 * x, 4);
                white = (px & 0xffffff) == 0xffffff;
            } else if (format == CAIRO_FORMAT_A8) {
                white = data[y * stride + x] == 0;
            }
            ink += white ? 0 : 1;
        }
    cairo_surface_destroy(img);
    return w * h > 0 ? static_cast<double>(ink) / (static_cast<double>(w) * h) : -1;
}
#endif

} // namespace gsr::test
