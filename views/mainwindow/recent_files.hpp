#pragma once
// The "Open Recent" list, kept in QSettings (the application's organisation and name) so it
// survives restarts. Most recent first, no duplicates, at most kMaxEntries.
#include <QString>
#include <QStringList>

namespace gsr::views {

class RecentFiles {
public:
    static constexpr int kMaxEntries = 10;

    /// @param settings_key the QSettings key holding the list
    explicit RecentFiles(QString settings_key = QStringLiteral("recentFiles"));

    QStringList files() const;
    /// @brief Puts `path` (made absolute) first.
    void add(const QString& path);
    void remove(const QString& path);
    void clear();

private:
    void store(const QStringList& files);

    QString key_;
};

} // namespace gsr::views
