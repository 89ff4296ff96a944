// One detection for the canvas and the Communities panel: callers asking the same of the same
// loaded circuit share one run, whose partition is core's own; another question, another
// circuit, a cancelled or failed run each detect afresh; the cache keeps the newest four
// results and no circuit alive.
#include "loading/shared_detection.hpp"
#include "view_test_support.hpp"

#include "community/weighted_graph.hpp"
#include "report/netlist_summary.hpp"
#include "util/diagnostics.hpp"

#include <QTest>

#include <atomic>
#include <thread>

using gsr::views::detect_shared;
using gsr::views::shared_detection_runs;

namespace {

/// EPFL multiplier (27,190 graph nodes) read as the window reads it.
std::shared_ptr<const gsr::graph::LoadedCircuit> read_sample()
{
    std::shared_ptr<const gsr::graph::LoadedCircuit> loaded;
    gsr::report::summarize_file(
        gsr::views::test::data_file("netlists/epfl/arithmetic/multiplier.blif").toStdString(), {},
        &loaded);
    return loaded;
}

} // namespace

class TestSharedDetection : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() { gsr::views::test::init_test_application(); }

    void callersAskingTheSameShareOneRun()
    {
        const auto circuit = read_sample();
        QVERIFY(circuit);
        const gsr::community::WeightedGraph g = gsr::community::project_undirected(circuit->graph);
        const gsr::community::CommunityOptions o; // the canvas's: Leiden, resolution 1, seed 1
        const auto expected = gsr::community::detect_communities(g, o);
        QVERIFY(expected && expected->community_count > 1);

        const std::size_t before = shared_detection_runs();
        std::optional<gsr::community::CommunityResult> a, b;
        double seconds_a = -1, seconds_b = -1, seconds_c = -1;
        std::thread first([&] { a = detect_shared(circuit, &g, o, &seconds_a); });
        gsr::community::CommunityOptions other_threads = o;
        other_threads.threads = 1; // cannot change a partition: the same question
        std::thread second([&] { b = detect_shared(circuit, &g, other_threads, &seconds_b); });
        first.join();
        second.join();
        QCOMPARE(shared_detection_runs() - before, std::size_t{1});
        QVERIFY(a && b);
        QCOMPARE(a->membership, expected->membership);
        QCOMPARE(b->membership, expected->membership);
        QCOMPARE(a->modularity, expected->modularity);
        QCOMPARE(b->levels.size(), expected->levels.size());
        // Both are told what the one detection took.
        QVERIFY(seconds_a > 0);
        QCOMPARE(seconds_b, seconds_a);

        // Asked later, while the circuit is loaded: at once, no run.
        // Asked as the panel asks, with no projection: none is made for a shared result.
        const auto c = detect_shared(circuit, nullptr, o, &seconds_c);
        QCOMPARE(shared_detection_runs() - before, std::size_t{1});
        QCOMPARE(seconds_c, seconds_a);
        QCOMPARE(c->membership, expected->membership);
    }

    void anotherQuestionOrCircuitDetectsAgain()
    {
        const auto circuit = read_sample();
        const gsr::community::WeightedGraph g = gsr::community::project_undirected(circuit->graph);
        gsr::community::CommunityOptions o;
        const std::size_t before = shared_detection_runs();
        detect_shared(circuit, &g, o);
        o.seed = 2;
        const auto seed2 = detect_shared(circuit, nullptr, o); // projected here
        QCOMPARE(shared_detection_runs() - before, std::size_t{2});
        QCOMPARE(seed2->membership, gsr::community::detect_communities(g, o)->membership);
        o.method = gsr::community::Method::Louvain;
        detect_shared(circuit, &g, o);
        o.resolution = 0.5;
        detect_shared(circuit, &g, o);
        QCOMPARE(shared_detection_runs() - before, std::size_t{4});
        // The same file read again is another circuit (it may have changed on disk).
        detect_shared(read_sample(), &g, gsr::community::CommunityOptions{});
        QCOMPARE(shared_detection_runs() - before, std::size_t{5});
    }

    void keepsTheNewestFourResults()
    {
        const auto circuit = read_sample();
        const gsr::community::WeightedGraph g = gsr::community::project_undirected(circuit->graph);
        gsr::community::CommunityOptions o;
        const std::size_t before = shared_detection_runs();
        for (std::uint64_t seed = 11; seed <= 16; ++seed) {
            o.seed = seed;
            detect_shared(circuit, &g, o);
        }
        QCOMPARE(shared_detection_runs() - before, std::size_t{6});
        // Seed 11's went when the sixth was asked: 13 to 16 come at once, 11 runs again.
        for (std::uint64_t seed : {13, 14, 15, 16}) {
            o.seed = seed;
            detect_shared(circuit, &g, o);
        }
        QCOMPARE(shared_detection_runs() - before, std::size_t{6});
        o.seed = 11;
        detect_shared(circuit, &g, o);
        QCOMPARE(shared_detection_runs() - before, std::size_t{7});
    }

    void keepsNoCircuitAlive()
    {
        auto circuit = read_sample();
        const gsr::community::WeightedGraph g = gsr::community::project_undirected(circuit->graph);
        detect_shared(circuit, &g, {});
        const std::weak_ptr<const gsr::graph::LoadedCircuit> watch = circuit;
        circuit.reset();
        QVERIFY(watch.expired());
    }

    void aCancelledRunIsNotShared()
    {
        const auto circuit = read_sample();
        const gsr::community::WeightedGraph g = gsr::community::project_undirected(circuit->graph);
        std::atomic<bool> cancel{true};
        gsr::community::CommunityOptions o;
        o.cancel = &cancel;
        const std::size_t before = shared_detection_runs();
        QVERIFY(!detect_shared(circuit, &g, o).has_value());
        o.cancel = nullptr;
        const auto r = detect_shared(circuit, &g, o);
        QCOMPARE(shared_detection_runs() - before, std::size_t{2});
        QVERIFY(r.has_value());
        QCOMPARE(r->membership, gsr::community::detect_communities(g, o)->membership);
    }

    void aFailedRunThrowsAndIsNotKept()
    {
        const auto circuit = read_sample();
        gsr::community::WeightedGraph no_edges;
        no_edges.offsets = {0, 0, 0};
        const std::size_t before = shared_detection_runs();
        for (int i = 0; i < 2; ++i) {
            try {
                detect_shared(circuit, &no_edges, {});
                QFAIL("a graph without edges was accepted");
            } catch (const gsr::Error& e) {
                QVERIFY2(QString::fromUtf8(e.what()).contains(QStringLiteral("needs edges")),
                         e.what());
            }
        }
        QCOMPARE(shared_detection_runs() - before, std::size_t{2});
    }
};

QTEST_MAIN(TestSharedDetection)
#include "tst_shared_detection.moc"
