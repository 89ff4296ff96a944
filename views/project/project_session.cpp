#include "project/project_session.hpp"

#include "util/diagnostics.hpp"

#ifdef GSR_HAVE_STORE
#include "store/netlist_record.hpp"
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
    // CreateOrOpen alone would silently open a file that is there; "New" must not, unless it
    // is blank (0 bytes, or a database with no tables): nothing in it to lose.
    if (QFileInfo::exists(path) && !store::ProjectStore::is_blank(native(path)))
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
    // The first read of a table: a damaged file fails here, before it replaces the project.
    opened.netlists();
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
    return impl_->store->add_netlist(store::netlist_record_of(summary));
#else
    (void)summary;
    throw Error(unavailableReason().toStdString());
#endif
}

} // namespace gsr::views
