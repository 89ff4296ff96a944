// The canvas's data without GL: the scene a file gives (graph, Leiden communities, signal
// probability, DEF placement), the community super-graph, colours and legends, the camera,
// and the grid that picking and box selection use (checked against brute force).
#include "canvas/canvas_geometry.hpp"
#include "canvas/canvas_scene.hpp"
#include "canvas/colour_map.hpp"
#include "view_test_support.hpp"

#include "community/community_detection.hpp"
#include "layout/force_atlas2.hpp"
#include "layout/initial_positions.hpp"
#include "report/netlist_summary.hpp"
#include "util/resources.hpp"

#include <QTest>

#include <cmath>
#include <random>
#include <set>

using namespace gsr::views::canvas;

namespace {

std::string sample() { return gsr::bundled_sample_path(); }

/// Whether a super-graph of the scene holds every node, and all the weight in its communities
/// and between them.
bool keeps_every_node_and_weight(const CanvasScene& scene, const SuperGraph& s)
{
    std::uint64_t nodes = 0;
    double weight = 0;
    for (std::uint32_t n : s.sizes) nodes += n;
    for (double w : s.internal) weight += w;
    for (const auto& e : s.edges) weight += e.weight;
    return nodes == scene.node_count() && weight == scene.undirected.total_weight();
}

} // namespace

class TestCanvasScene : public QObject {
    Q_OBJECT

private slots:
    // As the program is set up: under a decimal-comma locale the colour legend's numbers
    // were "0,000" here (QApplication takes the user's locale; the program puts C back).
    void initTestCase() { gsr::views::test::init_test_application(); }

    void superGraphMergesEdgesBetweenCommunities()
    {
        // Two triangles {0,1,2} and {3,4,5}, joined by 2-3 (weight 2) and 1-4 (weight 1).
        const std::vector<gsr::community::WeightedEdge> edges = {
            {0, 1, 1}, {1, 2, 1}, {0, 2, 1}, {3, 4, 1}, {4, 5, 1}, {3, 5, 1}, {2, 3, 2}, {1, 4, 1}};
        const auto g = gsr::community::weighted_graph_from_edges(6, edges);
        const std::vector<std::uint32_t> m = {0, 0, 0, 1, 1, 1};
        const SuperGraph s = build_super_graph(g, m, 2);
        QCOMPARE(s.sizes, (std::vector<std::uint32_t>{3, 3}));
        QCOMPARE(s.edges.size(), std::size_t(1));
        QCOMPARE(s.edges[0].a, 0u);
        QCOMPARE(s.edges[0].b, 1u);
        QCOMPARE(s.edges[0].weight, 3.0);
        QCOMPARE(s.internal, (std::vector<double>{3.0, 3.0}));
        QCOMPARE(s.max_edge_weight, 3.0);
        QVERIFY_THROWS_EXCEPTION(gsr::Error, build_super_graph(g, m, 1)); // id 1 >= count
    }

    void centroidsAreMeansOfMembers()
    {
        const std::vector<gsr::layout::Point2> p = {{0, 0}, {2, 0}, {10, 10}, {4, 6}};
        const std::vector<std::uint32_t> m = {0, 0, 1, 0};
        const auto c = community_centroids(p, m, 3);
        QCOMPARE(c[0].x, 2.0);
        QCOMPARE(c[0].y, 2.0);
        QCOMPARE(c[1].x, 10.0);
        QCOMPARE(c[2].x, 0.0); // empty community stays at the origin
    }

    void sampleSceneMatchesCore()
    {
        const auto scene = build_canvas_scene(sample());
        QVERIFY(scene);
        const auto summary = gsr::report::summarize_file(sample());
        QCOMPARE(std::int64_t(scene->node_count()), summary.graph_nodes.value());
        QCOMPARE(scene->edge_count() * 2, scene->undirected.entry_count());

        // Leiden with seed 1 on the same graph, called directly.
        gsr::community::CommunityOptions o;
        o.seed = 1;
        const auto direct = gsr::community::detect_communities(scene->undirected, o);
        QVERIFY(direct);
        QCOMPARE(scene->communities.membership, direct->membership);
        QVERIFY(scene->communities.community_count > 1);

        // The super-graph keeps every node and all the weight.
        QVERIFY(keeps_every_node_and_weight(*scene, scene->super_graph));

        // The sample has flip-flops: sequential simulation, probabilities in [0, 1].
        QCOMPARE(scene->signal_probability.size(), scene->node_count());
        for (float p : scene->signal_probability) QVERIFY(p >= 0.0f && p <= 1.0f);
        QVERIFY(scene->placement.empty()); // Verilog: no placement
    }

    void withCommunitiesKeepsTheGraphAndRebuildsTheSuperGraphs()
    {
        const auto scene = build_canvas_scene(sample());
        QVERIFY(scene);
        gsr::community::CommunityOptions o;
        o.method = gsr::community::Method::Louvain;
        o.resolution = 0.5;
        o.seed = 7;
        const auto louvain = gsr::community::detect_communities(scene->undirected, o);
        QVERIFY(louvain);
        QVERIFY(louvain->membership != scene->communities.membership);

        const auto other = with_communities(*scene, *louvain, gsr::community::Method::Louvain);
        QVERIFY(other);
        QCOMPARE(other->node_count(), scene->node_count());
        QCOMPARE(other->edge_nodes, scene->edge_nodes);
        QCOMPARE(other->signal_probability, scene->signal_probability);
        QCOMPARE(other->communities.membership, louvain->membership);
        QVERIFY(other->community_method == gsr::community::Method::Louvain);
        // Every node and all the weight in the new super-graph, one per level.
        QCOMPARE(other->super_graph.community_count(), std::size_t(louvain->community_count));
        QVERIFY(keeps_every_node_and_weight(*other, other->super_graph));
        QCOMPARE(other->level_graphs.size(), louvain->levels.size());
        for (std::size_t l = 0; l < louvain->levels.size(); ++l)
            QCOMPARE(other->level_graphs[l].community_count(),
                     std::size_t(louvain->levels[l].community_count));
        // The legend names the method; the original scene is unchanged.
        ColourInputs in;
        in.mode = ColourMode::Community;
        QCOMPARE(legend(*other, in).title,
                 std::to_string(louvain->community_count) + " communities (Louvain)");
        QCOMPARE(legend(*scene, in).title,
                 std::to_string(scene->communities.community_count) + " communities (Leiden)");

        auto wrong = *louvain;
        wrong.membership.pop_back();
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument,
                                 with_communities(*scene, wrong, gsr::community::Method::Louvain));
    }

    void signalProbabilityOfC17()
    {
        // Random vectors: a primary input is 1 half the time, NAND(a, b) of two inputs 3/4.
        const auto scene = build_canvas_scene(gsr::views::test::c17_path().toStdString());
        QVERIFY(scene);
        QCOMPARE(scene->signal_probability.size(), scene->node_count());
        bool saw_pi = false, saw_10 = false;
        for (std::size_t v = 0; v < scene->node_count(); ++v) {
            const std::string name = scene->node_name(v);
            if (name == "1") {
                saw_pi = true;
                QVERIFY(std::fabs(scene->signal_probability[v] - 0.5f) < 0.03f);
                QCOMPARE(scene->node_type(v), std::string("PI"));
            }
            if (name == "10") {
                saw_10 = true;
                QVERIFY(std::fabs(scene->signal_probability[v] - 0.75f) < 0.03f);
            }
        }
        QVERIFY(saw_pi && saw_10);
    }

    void placementComesFromDef()
    {
        const QString def = gsr::views::test::data_file(
            "netlists/openroad_nangate45/gcd_nangate45.def");
        const auto scene = build_canvas_scene(def.toStdString());
        QVERIFY(scene);
        QCOMPARE(scene->placement.size(), scene->node_count());
        const auto expected = gsr::layout::placement_positions(
            scene->circuit(), scene->graph(), gsr::layout::default_extent(scene->node_count()), 1);
        QCOMPARE(scene->placement.size(), expected.size());
        for (std::size_t v = 0; v < expected.size(); ++v) {
            QCOMPARE(scene->placement[v].x, expected[v].x);
            QCOMPARE(scene->placement[v].y, expected[v].y);
        }
    }

    void coloursFollowTheMode()
    {
        const auto scene = build_canvas_scene(sample());
        QVERIFY(scene);
        ColourInputs in;
        const auto community = node_colours(*scene, in);
        for (std::size_t v = 0; v < scene->node_count(); ++v)
            QCOMPARE(community[v], categorical_colour(scene->communities.membership[v]));
        std::set<std::tuple<int, int, int>> distinct;
        for (std::uint32_t c = 0; c < 64; ++c) {
            const Rgba k = categorical_colour(c);
            distinct.insert({k.r, k.g, k.b});
        }
        QCOMPARE(distinct.size(), std::size_t(64));

        in.mode = ColourMode::Level;
        const auto level = node_colours(*scene, in);
        for (std::size_t v = 0; v < scene->node_count(); ++v)
            if (scene->graph().level[v] == 0) QCOMPARE(level[v], ramp_colour(0));
            else if (scene->graph().level[v] == scene->graph().max_level)
                QCOMPARE(level[v], ramp_colour(1));

        in.mode = ColourMode::PredictionError;
        QVERIFY(!unavailable_reason(*scene, in).empty()); // no predictions yet
        const std::vector<float> perfect = scene->signal_probability;
        in.predictions = perfect;
        QVERIFY(unavailable_reason(*scene, in).empty());
        const Legend l = legend(*scene, in);
        QVERIFY(l.continuous);
        QCOMPARE(l.high, std::string("0.000"));

        in.mode = ColourMode::CellType;
        const Legend types = legend(*scene, in, 100);
        std::size_t counted = 0;
        for (const auto& e : types.entries) counted += e.count;
        QCOMPARE(counted, scene->node_count());
        QCOMPARE(types.entries.size(), scene->graph().type_names.size());
    }

    void cameraRoundTripsAndZoomsAboutThePoint()
    {
        Camera c;
        c.width = 640, c.height = 480;
        Bounds b;
        b.add(-10, -5);
        b.add(30, 15);
        c.fit(b, 20);
        QVERIFY(c.screen_x(-10) >= 19.999 && c.screen_x(30) <= 620.001);
        QVERIFY(c.screen_y(15) >= 19.999 && c.screen_y(-5) <= 460.001);
        QCOMPARE(c.world_x(c.screen_x(3.25)), 3.25);
        const double wx = c.world_x(100), wy = c.world_y(50);
        c.zoom_at(100, 50, 2.5);
        QVERIFY(std::fabs(c.world_x(100) - wx) < 1e-9 && std::fabs(c.world_y(50) - wy) < 1e-9);
        c.pan_pixels(10, -4);
        QVERIFY(std::fabs(c.world_x(110) - wx) < 1e-9 && std::fabs(c.world_y(46) - wy) < 1e-9);
    }

    void fittingOnePointZoomsInWhenAskedToZoomIn()
    {
        // Every node at the origin (before the first layout snapshot): the fit's zoom was
        // 7.5e11, past zoom_at's clamp, so one wheel step "in" zoomed out 750 times.
        Camera c;
        c.width = 800, c.height = 600;
        Bounds b;
        b.add(0, 0);
        c.fit(b, 24);
        QVERIFY(c.zoom <= Camera::kMaxZoom);
        QCOMPARE(c.zoom, 552.0); // a unit square in the 752 x 552 pixels inside the margin
        const double before = c.zoom;
        c.zoom_at(400, 300, 1.25);
        QCOMPARE(c.zoom, before * 1.25);
    }

    void gridAgreesWithBruteForce()
    {
        std::mt19937 rng(7);
        std::uniform_real_distribution<float> u(-100, 100);
        std::vector<Vec2> pts(5000);
        for (auto& p : pts) p = {u(rng), u(rng)};
        pts[17] = pts[4000]; // two points at one place: the higher id is on top
        NodeGrid grid;
        grid.build(pts);
        for (int q = 0; q < 2000; ++q) {
            const double x = u(rng), y = u(rng), r = q % 3 == 0 ? 4.0 : 1.5;
            std::int64_t expected = -1;
            for (std::size_t i = 0; i < pts.size(); ++i) {
                const double dx = pts[i].x - x, dy = pts[i].y - y;
                if (dx * dx + dy * dy <= r * r) expected = std::int64_t(i);
            }
            QCOMPARE(grid.topmost_within(x, y, r), expected);
        }
        QCOMPARE(grid.topmost_within(pts[17].x, pts[17].y, 1e-3), std::int64_t(4000));
        const auto boxed = grid.inside(-20, 5, 35, 60);
        std::vector<std::uint32_t> expected;
        for (std::uint32_t i = 0; i < pts.size(); ++i)
            if (pts[i].x >= -20 && pts[i].x <= 35 && pts[i].y >= 5 && pts[i].y <= 60)
                expected.push_back(i);
        QCOMPARE(boxed, expected);
    }
};

QTEST_MAIN(TestCanvasScene)
#include "tst_canvas_scene.moc"
