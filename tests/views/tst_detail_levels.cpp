// The canvas's automatic level of detail (views/canvas/detail_levels.*), without GL: on a
// 12-node layout with a three-level community hierarchy whose answers are worked out by hand
// (centroids, disc radii, which level each view gets, which disc a point picks, the culled
// super-graph with its weights as alpha), and the grid's cell count against brute force.
#include "canvas/colour_map.hpp"
#include "canvas/detail_levels.hpp"

#include "community/weighted_graph.hpp"

#include <QTest>

#include <cmath>
#include <random>

using namespace gsr::views::canvas;

namespace {

// Level 0: six pairs c0..c5; level 1: d0 = {c0, c1}, d1 = {c2, c3}, d2 = {c4, c5}; final:
// A = {d0, d1} (8 nodes), B = {d2} (4 nodes). Pairs lie 0.2 apart:
//   c0 (0, 0) (0.2, 0)   c1 (1, 0) (1.2, 0)   c2 (0, 1) (0.2, 1)   c3 (1, 1) (1.2, 1)
//   c4 (10, 0) (10.2, 0) c5 (10, 10) (10.2, 10)
const std::vector<Vec2> kPositions = {{0, 0},  {0.2f, 0},  {1, 0},   {1.2f, 0},
                                      {0, 1},  {0.2f, 1},  {1, 1},   {1.2f, 1},
                                      {10, 0}, {10.2f, 0}, {10, 10}, {10.2f, 10}};
const std::vector<std::uint32_t> kLevel0 = {0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5};
const std::vector<std::uint32_t> kLevel1 = {0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2};
const std::vector<std::uint32_t> kFinal = {0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1};

/// The scene's pieces AggregateLevels reads: the hierarchy and each level's super-graph.
struct Hierarchy {
    gsr::community::CommunityResult result;
    std::vector<SuperGraph> graphs;
    AggregateLevels levels;

    Hierarchy()
    {
        // Inside each pair, then c0-c1 (1-2), c2-c3 (5-6), c1-c3 (3-7), c0-c2 (0-4),
        // c4-c5 (9-10), c3-c4 (7-8): level 1 has d0-d1 of weight 2 and d1-d2 of weight 1.
        const std::vector<gsr::community::WeightedEdge> edges = {
            {0, 1, 1}, {2, 3, 1}, {4, 5, 1}, {6, 7, 1}, {8, 9, 1},  {10, 11, 1},
            {1, 2, 1}, {5, 6, 1}, {3, 7, 1}, {0, 4, 1}, {9, 10, 1}, {7, 8, 1}};
        const auto g = gsr::community::weighted_graph_from_edges(12, edges);
        result.membership = kFinal;
        result.community_count = 2;
        result.levels = {{kLevel0, 6, 0}, {kLevel1, 3, 0}, {kFinal, 2, 0}};
        for (const auto& l : result.levels)
            graphs.push_back(build_super_graph(g, l.membership, l.community_count));
        levels.reset(result, graphs.back(), graphs);
        levels.set_positions(kPositions, 1);
    }
};

bool near(double a, double b) { return std::abs(a - b) < 1e-5; }

} // namespace

class TestDetailLevels : public QObject {
    Q_OBJECT

private slots:
    void levelsHoldCentroidsRadiiAndParents()
    {
        Hierarchy h;
        QCOMPARE(h.levels.size(), 3);
        QCOMPARE(h.levels.final_level(), 2);
        const auto c0 = h.levels.centroids(0);
        QCOMPARE(c0.size(), std::size_t(6));
        QVERIFY(near(c0[0].x, 0.1) && near(c0[0].y, 0));
        QVERIFY(near(c0[3].x, 1.1) && near(c0[3].y, 1));
        QVERIFY(near(c0[5].x, 10.1) && near(c0[5].y, 10));
        const auto c1 = h.levels.centroids(1);
        QVERIFY(near(c1[0].x, 0.6) && near(c1[0].y, 0));
        QVERIFY(near(c1[2].x, 10.1) && near(c1[2].y, 5));
        const auto c2 = h.levels.centroids(2);
        QVERIFY(near(c2[0].x, 0.6) && near(c2[0].y, 0.5));
        // Radii 4 + 22 sqrt(size / largest): equal sizes give 26 px; B (4 of A's 8) less.
        for (const float r : h.levels.radius(0)) QCOMPARE(r, 26.0f);
        QCOMPARE(h.levels.radius(2)[0], 26.0f);
        QVERIFY(near(h.levels.radius(2)[1], 4 + 22 * std::sqrt(0.5)));
        QCOMPARE(h.levels.largest_radius(2), 26.0f);
        // The final community each lies in (their colour).
        const auto t0 = h.levels.top(0);
        QCOMPARE(std::vector<std::uint32_t>(t0.begin(), t0.end()),
                 (std::vector<std::uint32_t>{0, 0, 0, 0, 1, 1}));
        // Edge shades: level 1's heaviest (d0-d1, 2) is 1, d1-d2 (1) 0.12 + 0.88 sqrt(1/2).
        const auto a1 = h.levels.edge_alpha(1);
        QCOMPARE(a1.size(), std::size_t(2));
        QVERIFY(near(a1[0], 1.0));
        QVERIFY(near(a1[1], 0.12 + 0.88 * std::sqrt(0.5)));
        // New positions (a new version) move the centroids.
        std::vector<Vec2> moved = kPositions;
        for (Vec2& p : moved) p.x += 1;
        h.levels.set_positions(moved, 2);
        QVERIFY(near(h.levels.centroids(0)[0].x, 1.1));
    }

    void choosesTheLevelFromWhatIsInView()
    {
        Hierarchy h;
        const DetailBudget budget{4, 100}; // 4 nodes, 100 discs
        // Fitted: all 12 nodes in view (> 4): communities, as many as the final partition's
        // 2; level 1 has 3 in view, too many: the final partition.
        const WorldRect all{-1, -1, 11, 11};
        DetailChoice c = choose_detail(12, h.levels, all, 1.0, budget);
        QCOMPARE(c.level, 2);
        QCOMPARE(c.communities_in_view, std::size_t(2));
        QCOMPARE(c.community_budget, std::size_t(2));
        // Zoomed out further: the same (the magnification counts from 1).
        QCOMPARE(choose_detail(12, h.levels, all, 0.5, budget).level, 2);
        // 2x onto the left cluster: its 8 nodes (> 4) in view, 2 * 2^2 = 8 discs allowed.
        // Final: A alone (1); level 1: d0, d1 (2); level 0: c0..c3 (4): the finest fits.
        const WorldRect left{-0.5, -0.5, 1.5, 1.5};
        c = choose_detail(8, h.levels, left, 2.0, budget);
        QCOMPARE(c.level, 0);
        QCOMPARE(c.communities_in_view, std::size_t(4));
        QCOMPARE(c.community_budget, std::size_t(8));
        QCOMPARE(c.nodes_in_view, std::size_t(8));
        // A disc budget of 3: level 0's 4 no longer fit, level 1's 2 do.
        c = choose_detail(8, h.levels, left, 2.0, DetailBudget{4, 3});
        QCOMPARE(c.level, 1);
        QCOMPARE(c.communities_in_view, std::size_t(2));
        // The same view at 1x allows only 2 discs: level 1 (2 in view), not level 0.
        QCOMPARE(choose_detail(8, h.levels, left, 1.0, budget).level, 1);
        // Few nodes in view: the nodes themselves, whatever the zoom.
        c = choose_detail(4, h.levels, left, 2.0, budget);
        QCOMPARE(c.level, -1);
        QCOMPARE(choose_detail(2, h.levels, WorldRect{-0.1, -0.1, 0.4, 0.4}, 8.0, budget).level,
                 -1);
    }

    void picksTheTopmostDiscOfTheLevel()
    {
        Hierarchy h;
        // 100 px per unit: level 0's discs are 0.26 units wide in radius.
        QCOMPARE(h.levels.pick(0, 0.1, 0.0, 100), std::int64_t(0));
        QCOMPARE(h.levels.pick(0, 1.1, 0.2, 100), std::int64_t(1));
        QCOMPARE(h.levels.pick(0, 10.1, 9.8, 100), std::int64_t(5));
        QCOMPARE(h.levels.pick(0, 0.6, 0.0, 100), std::int64_t(-1)); // 0.5 from c0 and c1
        QCOMPARE(h.levels.pick(1, 0.6, 0.1, 100), std::int64_t(0));
        // 10 px per unit: radius 2.6 units. (0.6, 0.5) is 0.5 from d0 and d1: d1 is on top.
        QCOMPARE(h.levels.pick(1, 0.6, 0.5, 10), std::int64_t(1));
        // Final level: B's disc is 19.56 px, A's 26: at 10 px per unit, (10.1, 6.9) is 1.9
        // from B (inside 1.956), (10.1, 7.0) is 2.0 from it (outside).
        QCOMPARE(h.levels.pick(2, 10.1, 6.9, 10), std::int64_t(1));
        QCOMPARE(h.levels.pick(2, 10.1, 7.0, 10), std::int64_t(-1));
        QCOMPARE(h.levels.pick(2, 0.6, 0.5, 10), std::int64_t(0));
    }

    void cullsTheLevelToTheView()
    {
        Hierarchy h;
        // Level 1 near the left cluster at 10 px per unit: d0 and d1 inside; d0-d1 (1 unit,
        // 10 px) whole at alpha 1; d1-d2 from (0.6, 1) to (10.1, 5), 10.31 units, whole under
        // 200 px at alpha 0.742, a stub of 20 px (2 units) under 50 px.
        CullOptions o{10, 200, 20};
        CulledView c = h.levels.cull(1, WorldRect{-0.5, -0.5, 1.5, 1.5}, o);
        QCOMPARE(c.nodes, (std::vector<std::uint32_t>{0, 1}));
        QCOMPARE(c.whole_edges, std::size_t(2));
        QCOMPARE(c.edge_vertices.size(), std::size_t(12));
        const float light = float(0.12 + 0.88 * std::sqrt(0.5));
        QVERIFY(near(c.edge_vertices[2], 1.0) && near(c.edge_vertices[5], 1.0));
        QVERIFY(near(c.edge_vertices[6], 0.6) && near(c.edge_vertices[7], 1.0));
        QVERIFY(near(c.edge_vertices[8], light) && near(c.edge_vertices[11], light));
        QVERIFY(near(c.edge_vertices[9], 10.1) && near(c.edge_vertices[10], 5.0));
        o.long_edge_px = 50;
        c = h.levels.cull(1, WorldRect{-0.5, -0.5, 1.5, 1.5}, o);
        QCOMPARE(c.whole_edges, std::size_t(1));
        QCOMPARE(c.stubs, std::size_t(1));
        const double len = std::sqrt(9.5 * 9.5 + 4.0 * 4.0);
        QVERIFY(near(c.edge_vertices[8], light));  // starts at the edge's shade
        QVERIFY(near(c.edge_vertices[11], 0.0));   // fades out
        QVERIFY(near(c.edge_vertices[9], 0.6 + 9.5 * 2 / len));
        QVERIFY(near(c.edge_vertices[10], 1.0 + 4.0 * 2 / len));
    }

    void withoutLevelsOnlyTheFinalPartition()
    {
        Hierarchy h;
        AggregateLevels only;
        h.result.levels.clear();
        only.reset(h.result, h.graphs.back(), {});
        only.set_positions(kPositions, 1);
        QCOMPARE(only.size(), 1);
        QCOMPARE(only.community_count(0), 2u);
        const WorldRect left{-0.5, -0.5, 1.5, 1.5};
        QCOMPARE(choose_detail(8, only, left, 8.0, DetailBudget{4, 100}).level, 0);
        AggregateLevels none;
        QCOMPARE(choose_detail(8, none, left, 8.0, DetailBudget{4, 100}).level, -1);
    }

    void gridCountsThePointsOfTheCellsInView()
    {
        // 12 points over 10.2 x 10: cells of sqrt(102 / 6) = 4.12 units, 3 x 3. The left
        // cluster's rectangle meets cell (0, 0) alone: its 8 points; a rectangle round c0
        // alone meets the same cell and counts the same 8 (an upper bound).
        NodeGrid grid;
        grid.build(kPositions);
        QCOMPARE(grid.count_in_cells(-0.5, -0.5, 1.5, 1.5), std::size_t(8));
        QCOMPARE(grid.count_in_cells(-0.1, -0.1, 0.4, 0.4), std::size_t(8));
        QCOMPARE(grid.count_in_cells(-1, -1, 11, 11), std::size_t(12));
        QCOMPARE(grid.count_in_cells(20, 20, 30, 30), std::size_t(0)); // off the grid
        QCOMPARE(grid.count_in_cells(9, -1, 11, 1), std::size_t(2));   // c4 in cell (2, 0)

        // Random points: at least the points inside, at most those within one cell of it.
        std::mt19937 rng(7);
        std::normal_distribution<float> centre(0, 1);
        std::uniform_real_distribution<float> wide(-8, 8);
        std::vector<Vec2> p;
        for (int i = 0; i < 3000; ++i) p.push_back({centre(rng), centre(rng)});
        for (int i = 0; i < 1000; ++i) p.push_back({wide(rng), wide(rng)});
        grid.build(p);
        const double side = std::sqrt(16.0 * 16.0 / 2000); // about the grid's cell side
        std::uniform_real_distribution<double> at(-6, 6), size(0.05, 4);
        for (int t = 0; t < 200; ++t) {
            const double x0 = at(rng), y0 = at(rng), x1 = x0 + size(rng), y1 = y0 + size(rng);
            std::size_t inside = 0, ring = 0;
            for (const Vec2& q : p) {
                inside += q.x >= x0 && q.x <= x1 && q.y >= y0 && q.y <= y1;
                ring += q.x >= x0 - 2 * side && q.x <= x1 + 2 * side && q.y >= y0 - 2 * side &&
                        q.y <= y1 + 2 * side;
            }
            const std::size_t n = grid.count_in_cells(x0, y0, x1, y1);
            QVERIFY2(n >= inside && n <= ring,
                     qPrintable(QStringLiteral("%1 not in [%2, %3]")
                                    .arg(n).arg(inside).arg(ring)));
        }
    }

    void communityDiscsFollowTheColourMode()
    {
        Hierarchy h;
        // Node colours as a continuous mode would give them: node v has grey level 10 v.
        std::vector<Rgba> nodes(12);
        for (std::uint8_t v = 0; v < 12; ++v)
            nodes[v] = {std::uint8_t(10 * v), std::uint8_t(10 * v), 200, 255};
        // Level 1: d0 = nodes 0-3 (mean 15), d1 = 4-7 (55), d2 = 8-11 (95).
        const auto level = h.levels.membership(1);
        const auto mean = community_colours(level, 3, h.levels.top(1), nodes,
                                            ColourInputs{ColourMode::Level});
        QCOMPARE(mean.size(), std::size_t(3));
        QCOMPARE(mean[0], (Rgba{15, 15, 200, 255}));
        QCOMPARE(mean[1], (Rgba{55, 55, 200, 255}));
        QCOMPARE(mean[2], (Rgba{95, 95, 200, 255}));
        // Community mode: the final community's colour, whatever the nodes' colours are.
        const auto by_top = community_colours(level, 3, h.levels.top(1), nodes,
                                              ColourInputs{ColourMode::Community});
        QCOMPARE(by_top[0], categorical_colour(0));
        QCOMPARE(by_top[1], categorical_colour(0)); // d1 lies in A
        QCOMPARE(by_top[2], categorical_colour(1)); // d2 is B
        // Equal members keep their colour exactly (rounded mean).
        std::vector<Rgba> same(12, Rgba{7, 130, 251, 255});
        for (const Rgba& c :
             community_colours(h.levels.membership(0), 6, h.levels.top(0), same,
                               ColourInputs{ColourMode::PredictionError}))
            QCOMPARE(c, (Rgba{7, 130, 251, 255}));
        // A hierarchy level chosen in the legend (1): the pairs' discs of level 0 take their
        // members' colours, which are level 1's communities' (they were the final one's).
        const auto pairs = h.levels.membership(0);
        std::vector<Rgba> by_level1(12);
        for (std::size_t v = 0; v < 12; ++v) by_level1[v] = categorical_colour(kLevel1[v]);
        const auto chosen = community_colours(pairs, 6, h.levels.top(0), by_level1,
                                              ColourInputs{ColourMode::Community, 1});
        const auto final_colours = community_colours(pairs, 6, h.levels.top(0), by_level1,
                                                     ColourInputs{ColourMode::Community});
        std::size_t differ = 0;
        for (std::size_t v = 0; v < 12; ++v) {
            QCOMPARE(chosen[pairs[v]], categorical_colour(kLevel1[v]));
            differ += chosen[pairs[v]] != final_colours[pairs[v]];
        }
        QVERIFY(differ > 0); // level 1's d2 is the final B: another colour than level 1's 2
    }
};

QTEST_GUILESS_MAIN(TestDetailLevels)
#include "tst_detail_levels.moc"
