#pragma once
// A report Document as a paged PDF (A4), drawn through cairo's PDF surface: the same blocks and
// chart scenes as the HTML page, laid out top to bottom, tables split across pages with their
// header repeated, charts scaled to the text width. Cairo is optional at build time
// (GSR_HAVE_CAIRO, found by pkg-config): without it to_pdf says the build lacks it.
#include "report/document.hpp"

#include <string>
#include <vector>

namespace gsr::report {

/// Whether this build can write PDF (cairo was found when it was built).
bool pdf_available();

/// The document as the bytes of a PDF file. Throws gsr::Error when the build has no cairo or
/// cairo fails.
std::string to_pdf(const Document& doc);

// How to_pdf sets text in its regular font at `size` pt, for the tests (each throws as to_pdf
// does when the build has no cairo).

/// The width of `text` in pt.
double pdf_text_width(const std::string& text, double size);
/// The lines a paragraph of `text` is set in within `width` pt: broken at spaces and line
/// ends, and a word wider than a line cut between characters (each line keeps at least one).
std::vector<std::string> pdf_wrap(const std::string& text, double size, double width);
/// `text` as a table cell `width` pt wide shows it: whole when it fits, else its longest start
/// that fits with "..." after it.
std::string pdf_fit(const std::string& text, double size, double width);

} // namespace gsr::report
