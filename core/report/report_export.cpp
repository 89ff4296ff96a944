#include "report/report_export.hpp"

#include "report/pdf_report.hpp"
#include "report/session_report.hpp"
#include "util/ascii.hpp"
#include "util/diagnostics.hpp"
#include "util/json_text.hpp"

#include <cctype>
#include <cstdio>
#include <filesystem>

namespace gsr::report {

std::string_view report_format_name(ReportFormat f)
{
    switch (f) {
    case ReportFormat::Html: return "html";
    case ReportFormat::Pdf: return "pdf";
    case ReportFormat::Csv: return "csv";
    case ReportFormat::Json: return "json";
    }
    return "?";
}

std::optional<ReportFormat> parse_report_format(std::string_view name)
{
    for (ReportFormat f : {ReportFormat::Html, ReportFormat::Pdf, ReportFormat::Csv,
                           ReportFormat::Json})
        if (name == report_format_name(f)) return f;
    return std::nullopt;
}

std::optional<ReportFormat> report_format_of_path(const std::string& path)
{
    const std::string ext = ascii_lower(std::filesystem::path(path).extension().string());
    if (ext == ".htm") return ReportFormat::Html;
    if (ext.size() > 1) return parse_report_format(std::string_view(ext).substr(1));
    return std::nullopt;
}

std::string export_run(const RunReport& r, ReportFormat f)
{
    switch (f) {
    case ReportFormat::Html: return to_html(run_document(r));
    case ReportFormat::Pdf: return to_pdf(run_document(r));
    case ReportFormat::Csv: return to_csv(run_csv(r));
    case ReportFormat::Json: return json_text(to_json(r), 2) + "\n";
    }
    return {};
}

std::string export_session(const tune::TuneSession& s, ReportFormat f)
{
    switch (f) {
    case ReportFormat::Html: return to_html(session_document(s));
    case ReportFormat::Pdf: return to_pdf(session_document(s));
    case ReportFormat::Csv: return to_csv(session_csv(s));
    case ReportFormat::Json: return json_text(session_report_json(s), 2) + "\n";
    }
    return {};
}


} // namespace gsr::report
