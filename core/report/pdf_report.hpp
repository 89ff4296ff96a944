#pragma once
// A report Document as a paged PDF (A4), drawn through cairo's PDF surface: the same blocks and
// chart scenes as the HTML page, laid out top to bottom, tables split across pages with their
// header repeated, charts scaled to the text width. Cairo is optional at build time
// (GSR_HAVE_CAIRO, found by pkg-config): without it to_pdf says the build lacks it.
#include "report/document.hpp"

#include <string>

namespace gsr::report {

/// Whether this build can write PDF (cairo was found when it was built).
bool pdf_available();

/// The document as the bytes of a PDF file. Throws gsr::Error when the build has no cairo or
/// cairo fails.
std::string to_pdf(const Document& doc);

} // namespace gsr::report
