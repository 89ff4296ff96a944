// `gsr report TARGET --format html|pdf|csv|json --out F`: the report of a training run or a
// kernel tuning session, headless (the same exports as the GUI). TARGET is run:ID or
// session:ID of a project (--project, or --db as the other commands call it), or a JSON file:
// a tune session as `gsr kernels tune --json` writes it (to_json(TuneSession)), or a report
// JSON this command wrote. `gsr report --list --project P` lists what a project holds.
#include "cli_commands.hpp"

#include "report/pdf_report.hpp"
#include "report/report_export.hpp"
#include "util/diagnostics.hpp"
#include "util/json_file.hpp"
#include "util/json_text.hpp"

#ifdef GSR_HAVE_STORE
#include "report/run_table.hpp"
#include "store/run_claim.hpp"
#include "store/run_report_source.hpp"
#include "store/run_store.hpp"
#include "store/tune_store.hpp"
#endif

#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <cstring>
#include <fstream>
#include <iostream>
#include <optional>
#include <sstream>

namespace gsr::cli {
namespace {

constexpr const char* kUsage =
    "usage: gsr report run:ID|session:ID|FILE.json [--project PROJECT] "
    "[--format html|pdf|csv|json] [--out F]\n"
    "       gsr report --list --project PROJECT [--json]";

struct Target {
    enum class Kind { Run, Session, File } kind = Kind::File;
    std::int64_t id = 0;
    std::string file;
};

Target parse_target(const std::string& text)
{
    for (const auto& [prefix, kind] : {std::pair{"run:", Target::Kind::Run},
                                       std::pair{"session:", Target::Kind::Session}}) {
        const std::size_t n = std::strlen(prefix);
        if (text.rfind(prefix, 0) != 0) continue;
        const std::string digits = text.substr(n);
        std::int64_t id = 0;
        const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), id);
        if (digits.empty() || ec != std::errc{} || end != digits.data() + digits.size() || id < 1)
            throw UsageError("report: '" + text + "' needs a positive id after '" + prefix +
                             "' (gsr report --list shows the ids)");
        return {kind, id, {}};
    }
    return {Target::Kind::File, 0, text};
}

std::string project_of(const Args& a)
{
    std::string p = a.value("--project");
    if (p.empty()) throw UsageError("report needs --project PROJECT for runs and sessions");
    return p;
}

constexpr const char* kExpected =
    "expected a tune session as `gsr kernels tune --json` writes it, or a report JSON of "
    "`gsr report --format json`";

/// The bytes of the export of a JSON file: a tune session, or a report JSON (run or session).
std::string export_file(const std::string& path, report::ReportFormat format)
{
    const nlohmann::json j = read_json_file(path, kExpected);
    // What the file holds is checked here, with what was expected of it; a failure to render
    // it afterwards names the file only.
    const std::string kind = j.is_object() && j.contains("kind") && j.at("kind").is_string()
                                 ? j.at("kind").get<std::string>()
                                 : std::string();
    std::optional<report::RunReport> run;
    std::optional<tune::TuneSession> session;
    try {
        if (kind == "run") {
            run = report::run_report_from_json(j);
        } else {
            const nlohmann::json& s =
                j.is_object() && j.contains("session") && j.at("session").is_object()
                    ? j.at("session")
                    : j;
            session = tune::tune_session_from_json(s);
        }
    } catch (const Error& e) {
        if (!e.where().file.empty()) throw;
        // A file that says what it is needs no word on what was expected of it.
        if (kind == "run" || kind == "tune_session")
            throw Error(SourceLocation{path}, e.message());
        throw Error(SourceLocation{path}, e.message() + " (" + kExpected + ")");
    }
    try {
        return run ? report::export_run(*run, format) : report::export_session(*session, format);
    } catch (const Error& e) { // a result's figures are read as the report is made
        if (!e.where().file.empty()) throw;
        throw Error(SourceLocation{path}, e.message());
    }
}

#ifdef GSR_HAVE_STORE

/// A report only reads the project: a write-protected one (archived, a colleague's) is read
/// read-only; a writable one of an older build is brought up to date (atomically) first.
store::OpenMode reading_mode(const std::string& project)
{
    return ::access(project.c_str(), W_OK) == 0 ? store::OpenMode::OpenExisting
                                                : store::OpenMode::ReadOnly;
}

std::string export_stored(const Target& t, const std::string& project, report::ReportFormat f)
{
    if (t.kind == Target::Kind::Run) {
        const auto runs = store::RunStore::open(project, reading_mode(project));
        return report::export_run(store::load_run_report(runs, t.id), f);
    }
    const auto sessions = store::TuneStore::open(project, reading_mode(project));
    return report::export_session(sessions.load(t.id), f);
}

int list(const Args& a)
{
    const std::string project = project_of(a);
    const auto store = store::RunStore::open(project, reading_mode(project));
    std::vector<store::RunRecord> runs = store.runs();
    for (store::RunRecord& r : runs) // a killed training's "running" is "interrupted"
        r.status = report::run_status(r, store::RunClaim::held(project, r.id));
    const auto sessions = store::TuneStore::open(project, reading_mode(project)).sessions();
    if (a.has("--json")) {
        nlohmann::ordered_json j = {{"runs", nlohmann::ordered_json::array()},
                                    {"sessions", nlohmann::ordered_json::array()}};
        for (const store::RunRecord& r : runs)
            j["runs"].push_back({{"target", "run:" + std::to_string(r.id)},
                                 {"id", r.id},
                                 {"created_at", r.created_at},
                                 {"status", r.status},
                                 {"model", r.model},
                                 {"target_label", r.target},
                                 {"epochs_done", r.epochs_done}});
        for (const store::TuneSessionSummary& s : sessions)
            j["sessions"].push_back({{"target", "session:" + std::to_string(s.id)},
                                     {"id", s.id},
                                     {"created", s.created},
                                     {"problem", s.problem},
                                     {"device", s.device},
                                     {"strategy", s.strategy},
                                     {"candidates", s.candidates},
                                     {"best_percent_of_sol", s.best_percent_of_sol}});
        std::cout << json_text(j, 2) << '\n';
        return 0;
    }
    std::cout << "runs: " << runs.size() << '\n';
    for (const store::RunRecord& r : runs)
        std::cout << "  run:" << r.id << '\t' << r.status << '\t' << r.model << '\t' << r.target
                  << '\t' << r.epochs_done << " epochs\t" << r.created_at << '\n';
    std::cout << "sessions: " << sessions.size() << '\n';
    for (const store::TuneSessionSummary& s : sessions)
        std::cout << "  session:" << s.id << '\t' << s.problem << '\t' << s.device << '\t'
                  << (s.strategy.empty() ? "-" : s.strategy) << '\t' << s.candidates
                  << " candidates\tbest "
                  << (s.best_percent_of_sol > 0 ? report::format_number(s.best_percent_of_sol, 4) +
                                                      " % SOL"
                                                : std::string("none"))
                  << '\t' << s.created << '\n';
    return 0;
}

#else

std::string export_stored(const Target&, const std::string&, report::ReportFormat)
{
    throw Error("this build has no project store (SQLite was not found when it was built); "
                "report a tune-session JSON file instead");
}

int list(const Args&)
{
    throw Error("this build has no project store (SQLite was not found when it was built)");
}

#endif

} // namespace

int cmd_report(const std::vector<std::string>& argv)
{
    Args a(argv, {"--project", "--format", "--out"}, {"--list", "--json"}); // --db: --project
    if (a.has("--list")) {
        if (!a.positionals().empty()) throw UsageError("report --list takes no TARGET");
        for (const char* f : {"--out", "--format"})
            if (a.has(f)) throw UsageError(std::string(f) + " does not apply to report --list");
        return list(a);
    }
    if (a.positionals().size() != 1) throw UsageError(kUsage);
    const Target target = parse_target(a.positionals()[0]);
    if (a.has("--json"))
        throw UsageError("--json applies to report --list; a report as JSON is --format json");
    if (target.kind == Target::Kind::File && a.has("--project"))
        throw UsageError("the report of a JSON file reads only the file: leave out the project");
    const std::string out = a.value("--out");
    refuse_out_over_inputs(a, {a.value("--project"), a.positionals()[0]});

    std::optional<report::ReportFormat> format;
    if (a.has("--format")) {
        format = report::parse_report_format(a.value("--format"));
        if (!format)
            throw UsageError("--format expects html, pdf, csv or json, got '" +
                             a.value("--format") + "'");
    } else if (!out.empty()) {
        format = report::report_format_of_path(out);
    }
    if (!format) throw UsageError("report needs --format html|pdf|csv|json");
    if (*format == report::ReportFormat::Pdf && out.empty())
        throw UsageError("a PDF report needs --out FILE");
    if (*format == report::ReportFormat::Pdf && !report::pdf_available())
        report::to_pdf({}); // the error that says the build lacks cairo, before any work

    const std::string bytes = target.kind == Target::Kind::File
                                  ? export_file(target.file, *format)
                                  : export_stored(target, project_of(a), *format);
    if (out.empty() || is_standard_output(out)) {
        std::cout << bytes;
        return 0;
    }
    write_file_atomically(out, bytes);
    std::cout << "wrote " << out << " (" << report::report_format_name(*format) << ", "
              << bytes.size() << " bytes)\n";
    return 0;
}

} // namespace gsr::cli
