// The runs table and the comparison of two runs: QAbstractItemModelTester, numeric sorting
// with undefined metrics last, the CSV text and its atomic write.
#include "panels/runs_table_model.hpp"
#include "view_test_support.hpp"

#include "util/diagnostics.hpp"

#ifdef GSR_HAVE_STORE
#include "store/run_claim.hpp"
#include "store/run_store.hpp"
#endif

#include <QAbstractItemModelTester>
#include <QDir>
#include <QFile>
#include <QSortFilterProxyModel>
#include <QTemporaryDir>
#include <QTest>

using gsr::views::RunComparisonModel;
using gsr::views::RunRow;
using gsr::views::RunsTableModel;

namespace {

std::vector<RunRow> three_runs()
{
    RunRow a;
    a.id = 1;
    a.created = "2026-11-21T10:00:00Z";
    a.status = "finished";
    a.model = "gsr";
    a.shape = "4 \u00d7 16, 2 groups, top-4";
    a.target = "sp";
    a.epochs = 5;
    a.epochs_done = 5;
    a.best_epoch = 4;
    a.best_val_loss = 0.5;
    a.test_mae = 0.25;
    a.test_pearson = 0.75;
    a.test_spearman = 0.5;
    a.test_kendall = 0.375;
    a.peak_analytic = 122048;
    a.peak_measured = 122048;
    RunRow b = a;
    b.id = 2;
    b.status = "cancelled";
    b.resumable = true;
    b.model = "res, \"deep\""; // a field that needs CSV quoting
    b.epochs_done = 2;
    b.test_pearson = -0.5;
    RunRow c = a;
    c.id = 3;
    c.status = "failed";
    c.best_epoch = 0;
    c.best_val_loss = gsr::train::kUndefined;
    c.test_pearson = gsr::train::kUndefined;
    c.peak_measured = 0;
    return {a, b, c};
}

} // namespace

class TestRunsTableModel : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() { gsr::views::test::init_test_application(); }

    void passesTheTesterAndSortsNumerically()
    {
        RunsTableModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        QSortFilterProxyModel sorted;
        sorted.setSourceModel(&model);
        sorted.setSortRole(RunsTableModel::SortRole);
        QAbstractItemModelTester proxy_tester(&sorted, QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setRuns(three_runs());
        QCOMPARE(model.rowCount(), 3);
        QCOMPARE(model.columnCount(), int(RunsTableModel::ColumnCount));

        sorted.sort(RunsTableModel::TestPearsonColumn, Qt::DescendingOrder);
        auto id_at = [&](int row) {
            return sorted.data(sorted.index(row, RunsTableModel::IdColumn)).toInt();
        };
        QCOMPARE(id_at(0), 1); // 0.75
        QCOMPARE(id_at(1), 2); // -0.5
        QCOMPARE(id_at(2), 3); // undefined: last
        sorted.sort(RunsTableModel::IdColumn, Qt::DescendingOrder);
        QCOMPARE(id_at(0), 3);

        const QModelIndex status = model.index(1, RunsTableModel::StatusColumn);
        QCOMPARE(model.data(status).toString(), QStringLiteral("cancelled (resumable)"));
        QCOMPARE(model.data(model.index(0, RunsTableModel::EpochsColumn)).toString(),
                 QStringLiteral("5/5"));
        QCOMPARE(model.data(model.index(2, RunsTableModel::TestPearsonColumn)).toString(),
                 QString());
        QCOMPARE(model.rowOfRun(3), 2);
        QCOMPARE(model.rowOfRun(9), -1);
        model.setRuns({});
        QCOMPARE(sorted.rowCount(), 0);
    }

    void comparisonPassesTheTesterAndShowsBothRuns()
    {
        RunComparisonModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        QCOMPARE(model.rowCount(), 0);
        const auto runs = three_runs();
        model.setRuns(runs[0], runs[1]);
        QCOMPARE(model.columnCount(), 2);
        QCOMPARE(model.rowCount(), int(RunsTableModel::ColumnCount) - 1);
        QCOMPARE(model.headerData(1, Qt::Horizontal).toString(), QStringLiteral("Run 2"));
        const int pearson_row = RunsTableModel::TestPearsonColumn - 1;
        QCOMPARE(model.headerData(pearson_row, Qt::Vertical).toString(),
                 RunsTableModel::columnTitle(RunsTableModel::TestPearsonColumn));
        QCOMPARE(model.data(model.index(pearson_row, 0)).toString(), QStringLiteral("0.750"));
        QCOMPARE(model.data(model.index(pearson_row, 1)).toString(), QStringLiteral("-0.500"));
        model.clear();
        QCOMPARE(model.columnCount(), 0);
    }

#ifdef GSR_HAVE_STORE
    void aRunNoTrainingHoldsIsInterruptedAndOneBeingTrainedIsNotResumable()
    {
        // A run left "running" by a killed training showed "running" for ever; and one being
        // trained in another process offered Resume, which would train it twice at once.
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("p.gsr"));
        const std::string file = QFile::encodeName(path).toStdString();
        {
            auto store = gsr::store::RunStore::open(file, gsr::store::OpenMode::CreateOrOpen);
            gsr::store::RunRecord r;
            r.config_json = "{}";
            r.model = "gcn";
            const std::int64_t id = store.create_run(r);
            gsr::store::RunEpochRecord e;
            e.run_id = id;
            e.epoch = 1;
            e.metrics_json = "{}";
            gsr::store::CheckpointRecord ck;
            ck.run_id = id;
            ck.epoch = 1;
            store.record_epoch(e, ck, true); // and the run is "running"
        }
        std::vector<RunRow> rows = gsr::views::read_runs(path);
        QCOMPARE(rows.size(), std::size_t{1});
        QCOMPARE(QString::fromStdString(rows[0].status), QStringLiteral("interrupted"));
        QVERIFY(rows[0].resumable);
        const gsr::store::RunClaim training = gsr::store::RunClaim::take(file, 1);
        rows = gsr::views::read_runs(path);
        QCOMPARE(QString::fromStdString(rows[0].status), QStringLiteral("running"));
        QVERIFY(!rows[0].resumable);
    }
#endif

    void writesAtomically()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("runs.csv"));
        gsr::views::write_text_atomically(path, QStringLiteral("a,b\n1,2\n"));
        QFile f(path);
        QVERIFY(f.open(QIODevice::ReadOnly));
        QCOMPARE(f.readAll(), QByteArray("a,b\n1,2\n"));
        // Only the file itself: no temporary left behind.
        QCOMPARE(QDir(dir.path()).entryList(QDir::Files), QStringList{QStringLiteral("runs.csv")});
        QVERIFY_THROWS_EXCEPTION(gsr::Error,
                                 gsr::views::write_text_atomically(
                                     dir.filePath(QStringLiteral("no/such/folder/x.csv")),
                                     QStringLiteral("x")));
    }
};

QTEST_MAIN(TestRunsTableModel)
#include "tst_runs_table_model.moc"
