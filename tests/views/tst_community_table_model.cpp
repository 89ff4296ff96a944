// The communities table and panel: edge counts by hand on a small graph, the model checked by
// QAbstractItemModelTester, sorting, and detection off the UI thread matching core's own.
#include "panels/circuit_graph_source.hpp"
#include "panels/communities_panel.hpp"
#include "panels/community_table_model.hpp"
#include "view_test_support.hpp"

#include "community/weighted_graph.hpp"

#include <QAbstractItemModelTester>
#include <QSignalSpy>
#include <QSortFilterProxyModel>
#include <QTableView>
#include <QTest>

using gsr::views::CommunityTableModel;

namespace {

/// 0->1 (twice), 0->2, 1->2, 2->3, 3->0: four nodes, six directed edges.
gsr::graph::CircuitGraph small_graph()
{
    gsr::graph::CircuitGraph g;
    g.flags.assign(4, 0);
    g.type.assign(4, 0);
    g.type_names = {"PI"};
    g.fanout.offsets = {0, 3, 4, 5, 6};
    g.fanout.targets = {1, 1, 2, 2, 3, 0};
    return g;
}

QString sample_path() { return QStringLiteral(GSR_SOURCE_DIR "/resources/samples/alu8.v"); }

} // namespace

class TestCommunityTableModel : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() { gsr::views::test::init_test_application(); }

    void countsEdgesByHand()
    {
        const auto stats = gsr::views::community_stats(small_graph(), {0, 0, 0, 1});
        QCOMPARE(stats.size(), std::size_t(2));
        QCOMPARE(stats[0].size, 3u);
        QCOMPARE(stats[0].internal_edges, 4u); // 0->1 twice, 0->2, 1->2
        QCOMPARE(stats[0].external_edges, 2u); // 2->3, 3->0
        QCOMPARE(stats[1].size, 1u);
        QCOMPARE(stats[1].internal_edges, 0u);
        QCOMPARE(stats[1].external_edges, 2u);
    }

    void refusesAMembershipOfTheWrongSize()
    {
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument,
                                 gsr::views::community_stats(small_graph(), {0, 1}));
    }

    void modelPassesTheTesterAndSorts()
    {
        CommunityTableModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        QSortFilterProxyModel sorted;
        sorted.setSourceModel(&model);
        sorted.setSortRole(CommunityTableModel::SortRole);
        QAbstractItemModelTester proxy_tester(&sorted, QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setCommunities(small_graph(), {1, 0, 1, 2});
        QCOMPARE(model.rowCount(), 3);
        QCOMPARE(model.nodesOf(1), (QVector<quint32>{0, 2}));
        QCOMPARE(model.nodesOf(0), (QVector<quint32>{1}));
        sorted.sort(CommunityTableModel::ExternalColumn, Qt::DescendingOrder);
        // External: c0 {1}: 0->1 x2, 1->2 = 3; c1 {0,2}: 0->1 x2, 1->2, 2->3, 3->0 = 5; c2: 2.
        QCOMPARE(sorted.data(sorted.index(0, CommunityTableModel::IdColumn),
                             CommunityTableModel::SortRole).toInt(), 1);
        QCOMPARE(sorted.data(sorted.index(0, CommunityTableModel::ExternalColumn),
                             CommunityTableModel::SortRole).toInt(), 5);
        QCOMPARE(sorted.data(sorted.index(2, CommunityTableModel::IdColumn),
                             CommunityTableModel::SortRole).toInt(), 2);
        model.clear();
        QCOMPARE(sorted.rowCount(), 0);
    }

    void detectsOffTheUiThreadAsCoreDoes()
    {
        const auto graph = gsr::views::load_circuit_graph(sample_path());
        gsr::views::CommunitiesPanel panel;
        QAbstractItemModelTester tester(panel.model(), QAbstractItemModelTester::FailureReportingMode::QtTest);
        QSignalSpy commands(&panel, &gsr::views::CommunitiesPanel::commandIssued);
        QSignalSpy done(&panel, &gsr::views::CommunitiesPanel::detectionFinished);
        panel.setGraph(graph);
        panel.setOptions(gsr::community::Method::Louvain, 0.5, 7);
        panel.detect();
        QVERIFY(panel.isDetecting());
        QVERIFY(done.wait(10000));

        gsr::community::CommunityOptions o;
        o.method = gsr::community::Method::Louvain;
        o.resolution = 0.5;
        o.seed = 7;
        const auto expected = gsr::community::detect_communities(
            gsr::community::project_undirected(graph->graph()), o);
        QVERIFY(expected.has_value());
        QCOMPARE(panel.result()->membership, expected->membership);
        QCOMPARE(panel.model()->rowCount(), int(expected->community_count));
        QCOMPARE(done.first().at(0).toInt(), int(expected->community_count));
        QCOMPARE(commands.size(), 1);
        QCOMPARE(commands.first().at(0).toString(),
                 QStringLiteral("gsr communities %1 --method louvain --resolution 0.5 --seed 7")
                     .arg(sample_path()));

        // Every node in exactly one row; edges add up to the graph's.
        std::uint64_t nodes = 0, internal = 0, external = 0;
        for (int r = 0; r < panel.model()->rowCount(); ++r) {
            nodes += panel.model()->statsOf(r).size;
            internal += panel.model()->statsOf(r).internal_edges;
            external += panel.model()->statsOf(r).external_edges;
        }
        QCOMPARE(nodes, std::uint64_t(graph->graph().node_count()));
        QCOMPARE(internal + external / 2, std::uint64_t(graph->graph().edge_count()));
    }

    void selectingARowEmitsItsNodes()
    {
        gsr::views::CommunitiesPanel panel;
        panel.setGraph(gsr::views::load_circuit_graph(sample_path()));
        QVERIFY(panel.detectNow());
        QSignalSpy selected(&panel, &gsr::views::CommunitiesPanel::communitySelected);
        panel.table()->selectRow(2);
        QCOMPARE(selected.size(), 1);
        const int community = selected.first().at(0).toInt();
        const auto nodes = selected.first().at(1).value<QVector<quint32>>();
        QVERIFY(!nodes.isEmpty());
        const auto& membership = panel.result()->membership;
        std::size_t members = 0;
        for (const std::uint32_t c : membership) members += c == std::uint32_t(community);
        QCOMPARE(std::size_t(nodes.size()), members);
        for (const quint32 v : nodes) QCOMPARE(int(membership[v]), community);
    }

    void cancelledDetectionLeavesNoResult()
    {
        gsr::views::CommunitiesPanel panel;
        panel.setGraph(gsr::views::load_circuit_graph(
            gsr::views::test::data_file("netlists/iscas85/bench/c6288.bench")));
        QSignalSpy cancelled(&panel, &gsr::views::CommunitiesPanel::detectionCancelled);
        QSignalSpy done(&panel, &gsr::views::CommunitiesPanel::detectionFinished);
        panel.detect();
        panel.cancel();
        QCOMPARE(cancelled.size(), 1);
        QVERIFY(!panel.isDetecting());
        QTest::qWait(500); // the abandoned worker finishes; its result must be dropped
        QCOMPARE(done.size(), 0);
        QVERIFY(!panel.result());
        QCOMPARE(panel.model()->rowCount(), 0);
    }
};

QTEST_MAIN(TestCommunityTableModel)
#include "tst_community_table_model.moc"
