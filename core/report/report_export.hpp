#pragma once
// The four exports of a report, as `gsr report` and the GUI write them: HTML (self-contained
// page), PDF (cairo; optional at build time), CSV (one row per epoch or candidate) and JSON
// (the full model). Files are written with gsr::write_file_atomically (util/atomic_file.hpp),
// so a reader never sees half a report.
//
//   ReportFormat, parse_report_format, report_format_of_path
//   export_run, export_session      the bytes of one export
#include "report/run_report.hpp"
#include "tune/tune_session.hpp"
#include "util/atomic_file.hpp"

#include <optional>
#include <string>
#include <string_view>

namespace gsr::report {

enum class ReportFormat : std::uint8_t { Html, Pdf, Csv, Json };

std::string_view report_format_name(ReportFormat f);
/// "html", "pdf", "csv" or "json"; std::nullopt otherwise.
std::optional<ReportFormat> parse_report_format(std::string_view name);
/// The format an output path's extension names (.html/.htm, .pdf, .csv, .json), if any.
std::optional<ReportFormat> report_format_of_path(const std::string& path);

std::string export_run(const RunReport& r, ReportFormat f);
std::string export_session(const tune::TuneSession& s, ReportFormat f);

} // namespace gsr::report
