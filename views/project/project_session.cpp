#include "project/project_session.hpp"

#include "util/diagnostics.hpp"

#ifdef GSR_HAVE_STORE
#include "store/project_store.hpp"
#endif

#include <QFile>
#include <QFileInfo>
#include <QObject>

#include <filesystem>
#include <optional>

namespace gsr::views {

namespace {

std::string native(const QString& path) { return QFile::encodeName(path).toStdString(); }

#ifdef GSR_HAVE_STORE
// The one place the views turn a summary into a store row (the CLI's `gsr import` does the
// same mapping): unknown figures are stored as 0, which the store reads as "not known".
store::NetlistRecord to_netlist_record(const report::NetlistSummary& s)
{
    store::NetlistRecord r;
    std::error_code ec;
    r.path = std::filesystem::weakly_canonical(s.path, ec).string();
    if (ec) r.path = s.path;
    r.content_hash = store::content_hash_of_file(s.path);
    r.format = s.format;
    r.top = s.top;
    r.inputs = s.counts.inputs.value_or(0);
    r.outputs = s.counts.outputs.value_or(0);
    r.flip_flops = s.counts.flip_flops.value_or(0);
    r.cells = s.counts.cells.value_or(0);
    r.nets = s.counts.nets.value_or(0);
    r.graph_nodes = s.graph_nodes.value_or(0);
    r.graph_edges = s.graph_edges.value_or(0);
    r.max_level = s.max_level.value_or(0);
    r.warnings = static_cast<std::int64_t>(s.warnings.size() + s.warnings_suppressed);
    return r;
}
#endif

} // namespace

struct ProjectSession::Impl {
#ifdef GSR_HAVE_STORE
    std::optional<store::ProjectStore> store;
#endif
    QString path;
};

ProjectSession::ProjectSession() : impl_(std::make_unique<Impl>()) {}
ProjectSession::~ProjectSession() = default;

bool ProjectSession::available()
{
#ifdef GSR_HAVE_STORE
    return true;
#else
    return false;
#endif
}

QString ProjectSession::unavailableReason()
{
    if (available()) return {};
    return QObject::tr("This build has no project store: SQLite was not found when it was built.");
}

void ProjectSession::create(const QString& path)
{
#ifdef GSR_HAVE_STORE
    // CreateOrOpen alone would silently open a file that is there; "New" must not.
    if (QFileInfo::exists(path))
        throw Error(SourceLocation{native(path)},
                    "a file of this name exists already; open it with File > Open Project");
    auto opened = store::ProjectStore::open(native(path), store::OpenMode::CreateOrOpen);
    impl_->store.emplace(std::move(opened));
    impl_->path = path;
#else
    throw Error(SourceLocation{native(path)}, unavailableReason().toStdString());
#endif
}

void ProjectSession::open(const QString& path)
{
#ifdef GSR_HAVE_STORE
    auto opened = store::ProjectStore::open(native(path), store::OpenMode::OpenExisting);
    impl_->store.emplace(std::move(opened));
    impl_->path = path;
#else
    throw Error(SourceLocation{native(path)}, unavailableReason().toStdString());
#endif
}

void ProjectSession::close()
{
#ifdef GSR_HAVE_STORE
    impl_->store.reset();
#endif
    impl_->path.clear();
}

bool ProjectSession::isOpen() const { return !impl_->path.isEmpty(); }

QString ProjectSession::path() const { return impl_->path; }

int ProjectSession::netlistCount() const
{
#ifdef GSR_HAVE_STORE
    if (impl_->store) return static_cast<int>(impl_->store->netlists().size());
#endif
    return 0;
}

std::int64_t ProjectSession::importSummary(const report::NetlistSummary& summary)
{
#ifdef GSR_HAVE_STORE
    if (!impl_->store) throw Error("no project is open: create or open one first");
    return impl_->store->add_netlist(to_netlist_record(summary));
#else
    (void)summary;
    throw Error(unavailableReason().toStdString());
#endif
}

} // namespace gsr::views
