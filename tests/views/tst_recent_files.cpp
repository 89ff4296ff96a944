// RecentFiles: most recent first, absolute paths, no duplicates, bounded, kept in QSettings.
#include "mainwindow/recent_files.hpp"
#include "view_test_support.hpp"

#include <QDir>
#include <QTest>

using gsr::views::RecentFiles;

class TestRecentFiles : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() { gsr::views::test::init_test_application(); }
    void init() { RecentFiles(key_).clear(); }

    void newestComesFirstWithoutDuplicates()
    {
        RecentFiles recent(key_);
        recent.add(QStringLiteral("/data/a.bench"));
        recent.add(QStringLiteral("/data/b.blif"));
        recent.add(QStringLiteral("/data/a.bench"));
        QCOMPARE(recent.files(),
                 QStringList({QStringLiteral("/data/a.bench"), QStringLiteral("/data/b.blif")}));
    }

    void relativePathsAreStoredAbsolute()
    {
        RecentFiles recent(key_);
        recent.add(QStringLiteral("c17.bench"));
        QCOMPARE(recent.files().value(0), QDir::current().absoluteFilePath(
                                              QStringLiteral("c17.bench")));
    }

    void listIsBounded()
    {
        RecentFiles recent(key_);
        for (int i = 0; i < RecentFiles::kMaxEntries + 5; ++i)
            recent.add(QStringLiteral("/data/f%1.bench").arg(i));
        const QStringList files = recent.files();
        QCOMPARE(files.size(), RecentFiles::kMaxEntries);
        const QString newest = QStringLiteral("/data/f%1.bench").arg(RecentFiles::kMaxEntries + 4);
        QCOMPARE(files.first(), newest);
    }

    void survivesInSettingsAndCanBeEdited()
    {
        RecentFiles(key_).add(QStringLiteral("/data/a.bench"));
        RecentFiles(key_).add(QStringLiteral("/data/b.bench"));
        RecentFiles again(key_); // a new object reads what the others stored
        QCOMPARE(again.files().size(), 2);
        again.remove(QStringLiteral("/data/b.bench"));
        QCOMPARE(again.files(), QStringList{QStringLiteral("/data/a.bench")});
        again.clear();
        QVERIFY(again.files().isEmpty());
    }

private:
    const QString key_ = QStringLiteral("test/recentFiles");
};

QTEST_MAIN(TestRecentFiles)
#include "tst_recent_files.moc"
