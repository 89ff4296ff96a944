// Culling the zoomed-in canvas to the view (views/canvas/view_cull.*), without GL: on a small
// layout whose answer is worked out by hand (which nodes, which edges whole, which as stubs and
// where the stubs end), and on a random layout against brute force.
#include "canvas/view_cull.hpp"

#include <QTest>

#include <cmath>
#include <random>
#include <set>
#include <utility>

using namespace gsr::views::canvas;

namespace {

// Inside the rectangle [-1, 2.5] x [-1, 2.5]: nodes 0, 1, 2 and 6.
const std::vector<Vec2> kPositions = {
    {0, 0}, {1, 0}, {2, 2}, {5, 0}, {-5, 1}, {100, 0}, {0.5f, 1}, {-3, -3}, {3, -0.5f}};
const WorldRect kRect{-1, -1, 2.5, 2.5};
// e0 0-1 in/in 1 long; e1 1-3 in/out 4; e2 0-5 in/out 100; e3 4-3 out/out, crosses the rect;
// e4 2-6 in/in 1.80; e5 7-8 out/out, box meets the rect; e6 6-6 a self-loop; e7 2-0 in/in
// 2.83; e8 5-7 out/out, box meets the rect; e9 4-7 out/out, box misses the rect.
const std::vector<std::uint32_t> kEdges = {0, 1, 1, 3, 0, 5, 4, 3, 2, 6,
                                           7, 8, 6, 6, 2, 0, 5, 7, 4, 7};

struct Line {
    float ax, ay, aa, bx, by, ba;
};

std::vector<Line> lines_of(const CulledView& c)
{
    std::vector<Line> out;
    for (std::size_t i = 0; i + 5 < c.edge_vertices.size(); i += 6) {
        const float* v = c.edge_vertices.data() + i;
        out.push_back({v[0], v[1], v[2], v[3], v[4], v[5]});
    }
    return out;
}

void compare_line(const Line& got, const Line& want)
{
    constexpr float eps = 1e-5f;
    QVERIFY2(std::abs(got.ax - want.ax) < eps && std::abs(got.ay - want.ay) < eps &&
                 std::abs(got.bx - want.bx) < eps && std::abs(got.by - want.by) < eps &&
                 got.aa == want.aa && got.ba == want.ba,
             qPrintable(QStringLiteral("got (%1,%2,%3)-(%4,%5,%6) want (%7,%8,%9)-(%10,%11,%12)")
                            .arg(got.ax).arg(got.ay).arg(got.aa).arg(got.bx).arg(got.by)
                            .arg(got.ba).arg(want.ax).arg(want.ay).arg(want.aa).arg(want.bx)
                            .arg(want.by).arg(want.ba)));
}

} // namespace

class TestViewCull : public QObject {
    Q_OBJECT

private slots:
    void incidenceListsEachEdgeAtBothEnds()
    {
        EdgeIncidence inc;
        inc.build(kPositions.size(), kEdges);
        QCOMPARE(inc.node_count(), kPositions.size());
        auto ids = [&](std::uint32_t v) {
            const auto s = inc.edges_of(v);
            return std::vector<std::uint32_t>(s.begin(), s.end());
        };
        QCOMPARE(ids(0), (std::vector<std::uint32_t>{0, 2, 7}));
        QCOMPARE(ids(3), (std::vector<std::uint32_t>{1, 3}));
        QCOMPARE(ids(6), (std::vector<std::uint32_t>{4})); // the self-loop is nowhere
        QCOMPARE(ids(7), (std::vector<std::uint32_t>{5, 8, 9}));
    }

    void keepsNodesInViewAndTheirEdges()
    {
        NodeGrid grid;
        grid.build(kPositions);
        EdgeIncidence inc;
        inc.build(kPositions.size(), kEdges);
        // 10 px per unit; edges up to 50 px (5 units) whole, stubs 20 px (2 units).
        const CullOptions o{10, 50, 20};
        const CulledView c = cull_to_view(grid, kPositions, kEdges, inc, kRect, o);
        QCOMPARE(c.nodes, (std::vector<std::uint32_t>{0, 1, 2, 6}));
        QCOMPARE(c.whole_edges, std::size_t(4)); // e0, e7, e1, e4
        QCOMPARE(c.stubs, std::size_t(1));       // e2 (100 units)
        const auto l = lines_of(c);
        QCOMPARE(l.size(), std::size_t(5));
        // By node, then by edge id: node 0 gives e0, e2 (stub toward node 5), e7; node 1
        // gives e1 (e0 was taken at node 0); node 2 gives e4; node 6 nothing new.
        compare_line(l[0], {0, 0, 1, 1, 0, 1});
        compare_line(l[1], {0, 0, 1, 2, 0, 0});
        compare_line(l[2], {0, 0, 1, 2, 2, 1});
        compare_line(l[3], {1, 0, 1, 5, 0, 1});
        compare_line(l[4], {2, 2, 1, 0.5f, 1, 1});
    }

    void longEdgesBecomeStubsFromEachEndInside()
    {
        NodeGrid grid;
        grid.build(kPositions);
        EdgeIncidence inc;
        inc.build(kPositions.size(), kEdges);
        // Whole up to 15 px (1.5 units): only e0 (1 unit). e1 (4) one stub from node 1;
        // e2 one stub from node 0; e4 (1.80) and e7 (2.83) have both ends inside: two each.
        const CullOptions o{10, 15, 20};
        const CulledView c = cull_to_view(grid, kPositions, kEdges, inc, kRect, o);
        QCOMPARE(c.whole_edges, std::size_t(1));
        QCOMPARE(c.stubs, std::size_t(6));
        const auto l = lines_of(c);
        QCOMPARE(l.size(), std::size_t(7));
        // Node 0: e0 whole, e2 stub to (2, 0), e7 from (0, 0) toward (2, 2) and from (2, 2)
        // toward (0, 0), 2 units each: the diagonal's unit vector times 2 is sqrt(2).
        const float h = float(std::sqrt(2.0));
        compare_line(l[0], {0, 0, 1, 1, 0, 1});
        compare_line(l[1], {0, 0, 1, 2, 0, 0});
        compare_line(l[2], {0, 0, 1, h, h, 0});
        compare_line(l[3], {2, 2, 1, 2 - h, 2 - h, 0});
        compare_line(l[4], {1, 0, 1, 3, 0, 0}); // node 1: e1 toward node 3
        // Node 2: e4 toward node 6, (-1.5, -1) / sqrt(3.25) * 2, and back from node 6.
        const float ux = float(-1.5 / std::sqrt(3.25) * 2), uy = float(-1 / std::sqrt(3.25) * 2);
        compare_line(l[5], {2, 2, 1, 2 + ux, 2 + uy, 0});
        compare_line(l[6], {0.5f, 1, 1, 0.5f - ux, 1 - uy, 0});
    }

    void aPixelBudgetStubsTheLongestWholeEdges()
    {
        NodeGrid grid;
        grid.build(kPositions);
        EdgeIncidence inc;
        inc.build(kPositions.size(), kEdges);
        // Whole candidates on the screen: e0 10 px, e4 18.03, e7 28.28, e1 40 (e2 is 1000,
        // past 50 px). 50 px of budget: 10 + 18.03 fit, + 28.28 does not: e7 and e1 become
        // stubs (two ends of e7 inside, one of e1), with e2: 4 stub ends share what is left,
        // (50 - 28.03) / 4 = 5.49 px each, 0.549 units at 10 px per unit.
        CullOptions o{10, 50, 20};
        o.line_pixel_budget = 50;
        const CulledView c = cull_to_view(grid, kPositions, kEdges, inc, kRect, o);
        QCOMPARE(c.whole_edges, std::size_t(2));
        QCOMPARE(c.stubs, std::size_t(4));
        QVERIFY(c.long_edge_px < 10 * std::sqrt(8.0) && c.long_edge_px > 28.28);
        const double whole = 10 + 10 * std::sqrt(3.25);
        const float s = float((50 - whole) / 4 / 10), d = s / float(std::sqrt(2.0));
        QVERIFY(std::abs(c.stub_px - 10 * s) < 1e-4);
        const auto l = lines_of(c);
        QCOMPARE(l.size(), std::size_t(6));
        compare_line(l[0], {0, 0, 1, 1, 0, 1});         // e0 whole
        compare_line(l[1], {0, 0, 1, s, 0, 0});         // e2 stub
        compare_line(l[2], {0, 0, 1, d, d, 0});         // e7 stub from node 0
        compare_line(l[3], {2, 2, 1, 2 - d, 2 - d, 0}); // and from node 2
        compare_line(l[4], {1, 0, 1, 1 + s, 0, 0});     // e1 stub
        compare_line(l[5], {2, 2, 1, 0.5f, 1, 1});      // e4 whole
        // 30 px: e0 and e4 still fit; 1.97 px a stub end is too short to see: no stubs.
        o.line_pixel_budget = 30;
        const CulledView tight = cull_to_view(grid, kPositions, kEdges, inc, kRect, o);
        QCOMPARE(tight.whole_edges, std::size_t(2));
        QCOMPARE(tight.stubs, std::size_t(0));
        QCOMPARE(tight.line_count(), std::size_t(2));
        // A budget all of them fit in changes nothing.
        o.line_pixel_budget = 1000;
        const CulledView all = cull_to_view(grid, kPositions, kEdges, inc, kRect, o);
        QCOMPARE(all.whole_edges, std::size_t(4));
        QCOMPARE(all.stubs, std::size_t(1));
        QCOMPARE(all.stub_px, 20.0);
    }

    void boxRuleKeepsEdgesWhoseBoxMeetsTheView()
    {
        const CulledView c = cull_to_box(kPositions, kEdges, kRect);
        QCOMPARE(c.nodes, (std::vector<std::uint32_t>{0, 1, 2, 6}));
        // All but e9; e3, e5 and e8 pass by with both ends outside, the self-loop e6 is in.
        QCOMPARE(c.whole_edges, std::size_t(9));
        QCOMPARE(c.stubs, std::size_t(0));
        QCOMPARE(c.line_count(), std::size_t(9));
    }

    void matchesBruteForceOnARandomLayout()
    {
        std::mt19937 rng(7);
        std::uniform_real_distribution<float> coord(0, 1000);
        const std::size_t n = 3000, m = 9000;
        std::vector<Vec2> pos(n);
        for (auto& p : pos) p = {coord(rng), coord(rng)};
        std::vector<std::uint32_t> edges;
        std::uniform_int_distribution<std::uint32_t> node(0, n - 1);
        for (std::size_t e = 0; e < m; ++e) edges.push_back(node(rng)), edges.push_back(node(rng));
        NodeGrid grid;
        grid.build(pos);
        EdgeIncidence inc;
        inc.build(n, edges);
        const WorldRect r{300, 420, 520, 610};
        const CullOptions o{2, 400, 10}; // whole up to 200 units
        const CulledView c = cull_to_view(grid, pos, edges, inc, r, o);

        std::vector<std::uint32_t> nodes;
        for (std::uint32_t v = 0; v < n; ++v)
            if (r.contains(pos[v])) nodes.push_back(v);
        QCOMPARE(c.nodes, nodes);
        std::size_t whole = 0, stubs = 0;
        std::multiset<std::pair<std::uint32_t, std::uint32_t>> expected_whole;
        for (std::size_t e = 0; e < m; ++e) {
            const std::uint32_t a = edges[2 * e], b = edges[2 * e + 1];
            if (a == b) continue;
            const bool ia = r.contains(pos[a]), ib = r.contains(pos[b]);
            if (!ia && !ib) continue;
            const double len =
                std::hypot(double(pos[a].x) - pos[b].x, double(pos[a].y) - pos[b].y);
            if (len <= 200) {
                ++whole;
                expected_whole.insert(std::minmax(a, b));
            } else {
                stubs += std::size_t(ia) + std::size_t(ib);
            }
        }
        QVERIFY2(whole > 30 && stubs > 300, // the case tests both kinds
                 qPrintable(QStringLiteral("%1 whole, %2 stubs").arg(whole).arg(stubs)));
        QCOMPARE(c.whole_edges, whole);
        QCOMPARE(c.stubs, stubs);
        // Every whole line joins the two nodes of one such edge; a stub is 5 units long.
        std::multiset<std::pair<std::uint32_t, std::uint32_t>> got_whole;
        for (const Line& l : lines_of(c)) {
            if (l.ba == 0) {
                QVERIFY(std::abs(std::hypot(l.bx - l.ax, l.by - l.ay) - 5.0) < 1e-3);
                continue;
            }
            std::int64_t ia = -1, ib = -1;
            for (std::uint32_t v = 0; v < n; ++v) {
                if (pos[v].x == l.ax && pos[v].y == l.ay) ia = v;
                if (pos[v].x == l.bx && pos[v].y == l.by) ib = v;
            }
            QVERIFY(ia >= 0 && ib >= 0);
            got_whole.insert(std::minmax(std::uint32_t(ia), std::uint32_t(ib)));
        }
        QVERIFY(got_whole == expected_whole);
    }
};

QTEST_GUILESS_MAIN(TestViewCull)
#include "tst_view_cull.moc"
