// Commands that use the project store. Without SQLite at build time they say so.
#include "cli_commands.hpp"

#include "report/netlist_summary.hpp"
#include "util/diagnostics.hpp"

#ifdef GSR_HAVE_STORE
#include "store/netlist_record.hpp"
#include "store/project_store.hpp"
#include "util/json_text.hpp"
#endif

#include <filesystem>
#include <iostream>

namespace gsr::cli {

#ifdef GSR_HAVE_STORE

int cmd_new(const std::vector<std::string>& argv)
{
    Args a(argv, {"--db"}, {});
    if (!a.has("--db")) throw UsageError("new needs --db PROJECT");
    if (!a.positionals().empty())
        throw UsageError("new takes no FILE: add netlists with 'gsr import FILE... --db PROJECT'");
    const std::string path = a.value("--db");
    // As the window's File > New Project: an existing file is never taken over, unless it is
    // blank (below).
    std::error_code ec;
    const auto status = std::filesystem::symlink_status(path, ec);
    if (status.type() == std::filesystem::file_type::directory)
        throw Error(SourceLocation{path}, "is a folder: a project is a file (name one in it)");
    // A blank one (0 bytes, or a database with no tables: a creation killed before its first
    // commit) holds nothing to lose, and becomes the project.
    if (!ec && status.type() != std::filesystem::file_type::not_found &&
        !store::ProjectStore::is_blank(path)) {
        std::string advice = "list it with 'gsr netlists --db " + path + "'";
        try {
            store::ProjectStore::open(path, store::OpenMode::ReadOnly);
        } catch (const Error& e) { // listing it would fail the same way
            advice = "it cannot be listed (" + e.message() + "): choose another name";
        }
        throw Error(SourceLocation{path}, "a file of this name exists already; " + advice);
    }
    // Any other error ("x/" where x is a file, a folder that cannot be searched): the open
    // below says what it is.
    store::ProjectStore::open(path, store::OpenMode::CreateOrOpen);
    std::cout << "created the project " << path << '\n';
    return 0;
}

int cmd_import(const std::vector<std::string>& argv)
{
    Args a(argv, {"--db", "--liberty"}, {"--quiet"});
    if (!a.has("--db")) throw UsageError("import needs --db PROJECT");
    if (a.positionals().empty()) throw UsageError("import needs at least one FILE");
    // Read every file first: a bad one leaves the project untouched.
    std::vector<store::NetlistRecord> records;
    for (const std::string& f : a.positionals()) {
        const report::NetlistSummary s = report::summarize_file(f, a.values("--liberty"));
        records.push_back(store::netlist_record_of(s));
    }
    auto db = store::ProjectStore::open(a.value("--db"), store::OpenMode::CreateOrOpen);
    std::vector<std::int64_t> ids;
    db.write_transaction([&] {
        for (const auto& r : records) ids.push_back(db.add_netlist(r));
    });
    for (std::size_t i = 0; i < records.size(); ++i)
        std::cout << "imported " << records[i].path << " as netlist " << ids[i] << '\n';
    return 0;
}

int cmd_netlists(const std::vector<std::string>& argv)
{
    Args a(argv, {"--db"}, {"--json"});
    if (!a.has("--db")) throw UsageError("netlists needs --db PROJECT");
    if (!a.positionals().empty())
        throw UsageError("netlists takes no FILE: 'gsr netlists --db PROJECT' lists its netlists");
    auto db = store::ProjectStore::open(a.value("--db"), store::OpenMode::ReadOnly);
    const auto rows = db.netlists();
    if (a.has("--json")) {
        nlohmann::ordered_json j = nlohmann::ordered_json::array();
        for (const auto& r : rows) {
            j.push_back({{"id", r.id}, {"path", r.path}, {"content_hash", r.content_hash},
                         {"format", r.format}, {"top", r.top}, {"inputs", r.inputs},
                         {"outputs", r.outputs}, {"flip_flops", r.flip_flops}, {"cells", r.cells},
                         {"nets", r.nets}, {"graph_nodes", r.graph_nodes},
                         {"graph_edges", r.graph_edges}, {"max_level", r.max_level},
                         {"warnings", r.warnings}, {"imported_at", r.imported_at}});
        }
        std::cout << json_text(j, 2) << '\n';
        return 0;
    }
    for (const auto& r : rows)
        std::cout << r.id << '\t' << r.format << '\t' << r.cells << " cells\t" << r.path << '\n';
    return 0;
}

#else

int cmd_import(const std::vector<std::string>&)
{
    throw Error("this build has no project store (SQLite was not found when it was built)");
}
int cmd_netlists(const std::vector<std::string>& args) { return cmd_import(args); }
int cmd_new(const std::vector<std::string>& args) { return cmd_import(args); }

#endif

} // namespace gsr::cli
