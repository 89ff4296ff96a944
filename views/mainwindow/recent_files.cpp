#include "mainwindow/recent_files.hpp"

#include <QFileInfo>
#include <QSettings>

#include <utility>

namespace gsr::views {

namespace {

QString absolute(const QString& path) { return QFileInfo(path).absoluteFilePath(); }

} // namespace

RecentFiles::RecentFiles(QString settings_key) : key_(std::move(settings_key)) {}

QStringList RecentFiles::files() const
{
    QStringList list = QSettings().value(key_).toStringList();
    list.removeAll(QString());
    return list.mid(0, kMaxEntries);
}

void RecentFiles::add(const QString& path)
{
    const QString p = absolute(path);
    QStringList list = files();
    list.removeAll(p);
    list.prepend(p);
    store(list.mid(0, kMaxEntries));
}

void RecentFiles::remove(const QString& path)
{
    QStringList list = files();
    list.removeAll(absolute(path));
    store(list);
}

void RecentFiles::clear() { store({}); }

void RecentFiles::store(const QStringList& files)
{
    QSettings settings;
    settings.setValue(key_, files);
}

} // namespace gsr::views
