// The Rules panel: learning off the UI thread gives the rules core learns itself on the same
// data set, the table passes QAbstractItemModelTester, and selecting a row emits exactly the
// nodes core's assign() gives that rule.
#include "loading/netlist_loader.hpp"
#include "panels/circuit_graph_source.hpp"
#include "panels/rules_panel.hpp"
#include "view_test_support.hpp"

#include "train/dataset.hpp"

#include <QAbstractItemModelTester>
#include <QItemSelectionModel>
#include <QPushButton>
#include <QSignalSpy>
#include <QTableView>
#include <QTest>
#include <QThreadPool>

using gsr::views::RulesPanel;
using gsr::views::RuleTableModel;

namespace {

QString sample_path() { return QStringLiteral(GSR_SOURCE_DIR "/resources/samples/alu8.v"); }

/// What the panel promises to learn on: one circuit (alu8 unless named), 10 % of its nodes held
/// out, seed 1, read with `libraries`.
gsr::symgraph::SymGraphModel core_model(gsr::graph::CircuitGraph* graph,
                                        const QString& path = sample_path(),
                                        const std::vector<std::string>& libraries = {})
{
    gsr::train::HoldOut h;
    h.validation = 0.1;
    h.seed = 1;
    const gsr::train::RunLibraries libs(libraries);
    const gsr::train::Dataset data =
        gsr::train::load_dataset(gsr::train::Target::SignalProbability, {path.toStdString()}, {},
                                 {}, h, libs.label_options());
    *graph = data.circuits.front().graph;
    return gsr::symgraph::SymGraphModel::fit(data, gsr::symgraph::SymGraphOptions{});
}

} // namespace

class TestRulesPanel : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() { gsr::views::test::init_test_application(); }

    void learnsOffTheUiThreadAsCoreDoes()
    {
        RulesPanel panel;
        QVERIFY(!panel.learnButton()->isEnabled()); // no circuit yet
        panel.setGraph(gsr::views::load_circuit_graph(sample_path()));
        QVERIFY(panel.learnButton()->isEnabled());
        new QAbstractItemModelTester(panel.model(),
                                     QAbstractItemModelTester::FailureReportingMode::QtTest,
                                     &panel);
        QSignalSpy commands(&panel, &RulesPanel::commandIssued);
        QSignalSpy done(&panel, &RulesPanel::learningFinished);
        panel.learn();
        QVERIFY(panel.isLearning());
        QVERIFY(!panel.learnButton()->isEnabled());
        QVERIFY(done.wait(10000));
        QVERIFY(!panel.isLearning());

        QCOMPARE(commands.size(), 1);
        const QString line = commands.first().first().toString();
        QVERIFY2(line.startsWith(QStringLiteral("gsr train ") + sample_path()), qPrintable(line));
        QVERIFY(line.contains(QStringLiteral("--model symgraph")));
        QVERIFY(line.contains(QStringLiteral("--target sp")));
        // It once tested on the training file too, which gsr refuses (one role a circuit).
        QVERIFY2(!line.contains(QStringLiteral("--test")), qPrintable(line));

        gsr::graph::CircuitGraph graph;
        const gsr::symgraph::SymGraphModel expected = core_model(&graph);
        const auto learned = panel.symGraph();
        QVERIFY(learned);
        // Deterministic: the same data and seed give the same rules.
        QCOMPARE(learned->text(), expected.text());
        const std::size_t rules = expected.rules().rules.size();
        QVERIFY(rules > 0);
        QCOMPARE(done.first().first().toInt(), static_cast<int>(rules));
        // One row per rule, then the fallback (assign()'s index rules.size()).
        QCOMPARE(panel.model()->rowCount(), static_cast<int>(rules + 1));
        QCOMPARE(panel.model()->columnCount(), int(RuleTableModel::ColumnCount));
        QCOMPARE(panel.model()->index(0, RuleTableModel::IndexColumn).data().toInt(), 1);
        QCOMPARE(panel.model()->index(int(rules), RuleTableModel::RuleColumn).data().toString(),
                 QStringLiteral("otherwise"));
        QCOMPARE(panel.model()
                     ->index(0, RuleTableModel::RuleColumn)
                     .data()
                     .toString()
                     .toStdString(),
                 expected.vocabulary().describe(expected.rules().rules[0].conditions));
        QCOMPARE(panel.model()->index(0, RuleTableModel::SupportColumn).data().toULongLong(),
                 qulonglong(expected.rules().rules[0].support));

        const std::vector<std::uint32_t> assignment = expected.assign(graph);
        QCOMPARE(assignment.size(), panel.graph()->graph().node_count());
        QSignalSpy selected(&panel, &RulesPanel::ruleSelected);
        std::size_t covered = 0;
        for (int row = 0; row < panel.model()->rowCount(); ++row) {
            QVector<quint32> want;
            for (std::size_t v = 0; v < assignment.size(); ++v)
                if (assignment[v] == static_cast<std::uint32_t>(row))
                    want.push_back(static_cast<quint32>(v));
            covered += static_cast<std::size_t>(want.size());
            panel.table()->selectionModel()->select(
                panel.model()->index(row, 0),
                QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
            QCOMPARE(selected.size(), row + 1);
            QCOMPARE(selected.last().at(0).toInt(), row);
            QCOMPARE(selected.last().at(1).value<QVector<quint32>>(), want);
            QCOMPARE(panel.model()->index(row, RuleTableModel::NodesColumn).data().toInt(),
                     int(want.size()));
        }
        QCOMPARE(covered, assignment.size()); // every node has exactly one row
        qInfo("%zu rules over %zu nodes", rules, assignment.size());
    }

    void cancelDropsTheResult()
    {
        RulesPanel panel;
        panel.setGraph(gsr::views::load_circuit_graph(sample_path()));
        QSignalSpy cancelled(&panel, &RulesPanel::learningCancelled);
        QSignalSpy done(&panel, &RulesPanel::learningFinished);
        panel.learn();
        panel.cancel();
        QCOMPARE(cancelled.size(), 1);
        QVERIFY(!panel.isLearning());
        QVERIFY(panel.learnButton()->isEnabled());
        // The worker ends and its outcome is delivered, then dropped.
        QVERIFY(QThreadPool::globalInstance()->waitForDone(10000));
        QTest::qWait(50);
        QCOMPARE(done.size(), 0);
        QCOMPARE(panel.model()->rowCount(), 0);
        QVERIFY(!panel.symGraph());
    }

    void standardCellCircuitsAreLearnedWithTheirLibraries()
    {
        // The window's cell libraries reach the learning through the circuit it read: GSCLib's
        // cells are simulated by their Liberty functions, and the Console's line says --liberty.
        const QString dir = gsr::views::test::data_file("netlists/iwls05_gsclib180/");
        const QString s344 = dir + QStringLiteral("netlist/s344.v");
        const QString lib = dir + QStringLiteral("lib/GSCLib_3.0.lib");

        const gsr::views::LoadOutcome bare = gsr::views::load_netlist(s344);
        QVERIFY2(bare.circuit, qPrintable(bare.error));
        RulesPanel without;
        without.setGraph(gsr::views::loaded_graph(s344, bare.circuit));
        QSignalSpy failed(&without, &RulesPanel::learningFailed);
        QVERIFY(!without.learnNow());
        QCOMPARE(failed.size(), 1);
        const QString why = failed.first().first().toString();
        QVERIFY2(why.contains(QStringLiteral("File > Cell Libraries")), qPrintable(why));

        const gsr::views::LoadOutcome read = gsr::views::load_netlist(s344, {lib});
        QVERIFY2(read.circuit, qPrintable(read.error));
        RulesPanel with;
        with.setGraph(gsr::views::loaded_graph(s344, read.circuit));
        QSignalSpy commands(&with, &RulesPanel::commandIssued);
        QVERIFY(with.learnNow());
        QCOMPARE(commands.size(), 1);
        const QString line = commands.first().first().toString();
        QVERIFY2(line.endsWith(QStringLiteral(" --liberty ") + lib), qPrintable(line));
        gsr::graph::CircuitGraph graph;
        const gsr::symgraph::SymGraphModel expected =
            core_model(&graph, s344, {lib.toStdString()});
        QVERIFY(with.symGraph());
        QCOMPARE(with.symGraph()->text(), expected.text());
        QCOMPARE(with.model()->rowCount(), static_cast<int>(expected.rules().rules.size() + 1));
    }

    void failureIsReported()
    {
        auto graph = std::make_shared<gsr::views::LoadedGraph>();
        graph->path = QStringLiteral(GSR_SOURCE_DIR "/resources/samples/no_such_file.v");
        RulesPanel panel;
        panel.setGraph(graph);
        QSignalSpy failed(&panel, &RulesPanel::learningFailed);
        QVERIFY(!panel.learnNow());
        QCOMPARE(failed.size(), 1);
        QVERIFY2(failed.first().first().toString().contains(QStringLiteral("no_such_file.v")),
                 qPrintable(failed.first().first().toString()));
        QCOMPARE(panel.model()->rowCount(), 0);
    }
};

QTEST_MAIN(TestRulesPanel)
#include "tst_rules_panel.moc"
