#include "layout/force_atlas2.hpp"
#include "layout/initial_positions.hpp"
#include "community/weighted_graph.hpp"
#include "netlist/readers.hpp"
#include "util/diagnostics.hpp"
#include "test_files.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cmath>
#include <set>
#include <sstream>
#include <thread>

using namespace gsr;
using namespace gsr::layout;

namespace {

std::string data(const std::string& rel)
{
    return std::string(GSR_DATA_DIR) + "/netlists/" + rel;
}

struct Loaded {
    netlist::Circuit circuit;
    graph::CircuitGraph graph;
    community::WeightedGraph weighted;
};

Loaded load(const std::string& rel)
{
    Loaded l;
    l.circuit = netlist::load_netlist(data(rel));
    l.graph = graph::build_graph(l.circuit);
    l.weighted = community::project_undirected(l.graph);
    return l;
}

bool all_finite(const std::vector<Point2>& p)
{
    for (const Point2& q : p)
        if (!std::isfinite(q.x) || !std::isfinite(q.y)) return false;
    return true;
}

bool same(const std::vector<Point2>& a, const std::vector<Point2>& b)
{
    if (a.size() != b.size()) return false;
    for (std::size_t i = 0; i < a.size(); ++i)
        if (a[i].x != b[i].x || a[i].y != b[i].y) return false;
    return true;
}

} // namespace

TEST(ForceAtlas2, ConvergesOnASmallCircuitBeforeTheLimit)
{
    const Loaded c = load("iscas85/bench/c432.bench");
    ForceAtlas2Options o;
    o.max_iterations = 5000;
    ForceAtlas2Layout layout(c.weighted, o);
    const auto s = layout.run();
    ASSERT_TRUE(s);
    EXPECT_TRUE(s->converged);
    EXPECT_LT(s->iteration, o.max_iterations);
    EXPECT_LT(s->window_movement, o.tolerance);
    EXPECT_TRUE(layout.finished());
    EXPECT_TRUE(all_finite(s->positions));
    EXPECT_GT(s->speed, 0);
    EXPECT_GT(s->traction, 0);
}

TEST(ForceAtlas2, DeterministicForASeedWhateverTheThreads)
{
    const Loaded c = load("iscas89/bench/s1196.bench");
    ForceAtlas2Options o;
    o.seed = 9;
    o.threads = 1;
    ForceAtlas2Layout one(c.weighted, o);
    o.threads = 2;
    ForceAtlas2Layout two(c.weighted, o), again(c.weighted, o);
    const auto a = one.step(60), b = two.step(60), d = again.step(60);
    ASSERT_TRUE(a && b && d);
    EXPECT_TRUE(same(a->positions, b->positions));
    EXPECT_TRUE(same(b->positions, d->positions));
    o.seed = 10;
    ForceAtlas2Layout other(c.weighted, o);
    EXPECT_FALSE(same(other.step(60)->positions, a->positions));
}

TEST(ForceAtlas2, StepsInPiecesEqualOneRun)
{
    const Loaded c = load("iscas85/bench/c880.bench");
    ForceAtlas2Options o;
    ForceAtlas2Layout pieces(c.weighted, o), whole(c.weighted, o);
    for (int i = 0; i < 10; ++i) {
        const auto s = pieces.step(7);
        ASSERT_TRUE(s);
        EXPECT_EQ(s->iteration, 7 * (i + 1));
    }
    EXPECT_TRUE(same(pieces.snapshot().positions, whole.step(70)->positions));
}

TEST(ForceAtlas2, CancelLeavesThePreviousSnapshot)
{
    const Loaded c = load("itc99/b14.bench");
    ForceAtlas2Options o;
    o.max_iterations = 100000;
    o.tolerance = 0; // never converges: only the cancel ends the run
    ForceAtlas2Layout layout(c.weighted, o);
    const LayoutSnapshot before = *layout.step(3);

    std::atomic<bool> cancel{false};
    std::thread canceller([&] {
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
        cancel = true;
    });
    EXPECT_FALSE(layout.step(100000, &cancel).has_value());
    canceller.join();
    EXPECT_EQ(layout.snapshot().iteration, 3);
    EXPECT_TRUE(same(layout.snapshot().positions, before.positions));

    // Stepping on continues from the snapshot as if nothing had happened.
    ForceAtlas2Layout fresh(c.weighted, o);
    EXPECT_TRUE(same(layout.step(4)->positions, fresh.step(7)->positions));
    cancel = true;
    EXPECT_FALSE(layout.step(1, &cancel).has_value());
    EXPECT_EQ(layout.snapshot().iteration, 7);
}

TEST(ForceAtlas2, StartsFromDefPlacement)
{
    const Loaded c = load("openroad_nangate45/gcd_nangate45.def");
    ASSERT_FALSE(c.circuit.placement.empty());
    const double extent = default_extent(c.graph.node_count());
    const auto initial = placement_positions(c.circuit, c.graph, extent, 1);
    ASSERT_EQ(initial.size(), c.graph.node_count());
    EXPECT_TRUE(all_finite(initial));
    for (const Point2& p : initial) {
        EXPECT_LE(std::abs(p.x), extent);
        EXPECT_LE(std::abs(p.y), extent);
    }
    // Two placed cells keep their relative placement.
    std::vector<std::size_t> placed;
    for (std::size_t v = 0; v < c.graph.node_count() && placed.size() < 2; ++v)
        if (c.graph.cell_of[v] >= 0 &&
            c.circuit.placement[static_cast<std::size_t>(c.graph.cell_of[v])].placed &&
            (placed.empty() ||
             c.circuit.placement[static_cast<std::size_t>(c.graph.cell_of[v])].x !=
                 c.circuit.placement[static_cast<std::size_t>(c.graph.cell_of[placed[0]])].x))
            placed.push_back(v);
    ASSERT_EQ(placed.size(), 2u);
    const auto& p0 = c.circuit.placement[static_cast<std::size_t>(c.graph.cell_of[placed[0]])];
    const auto& p1 = c.circuit.placement[static_cast<std::size_t>(c.graph.cell_of[placed[1]])];
    EXPECT_EQ(p0.x < p1.x, initial[placed[0]].x < initial[placed[1]].x);

    ForceAtlas2Layout layout(c.weighted, {}, initial);
    EXPECT_TRUE(same(layout.snapshot().positions, initial));
    const auto s = layout.run();
    ASSERT_TRUE(s);
    EXPECT_TRUE(all_finite(s->positions));
    EXPECT_TRUE(s->converged);
}

TEST(ForceAtlas2, AComponentOffTheDieStartsOnItsEdge)
{
    // gcd with one inverter moved to (2^31 - 1, -2^31): it starts at the die's corner, and
    // every other placed cell where it starts in the file as written.
    const std::string path = data("openroad_nangate45/gcd_nangate45.def");
    std::string text = gsr::test::read_text(path);
    const std::string at = "_345_ INV_X2 + PLACED ( 37620 8400 )";
    const std::size_t where = text.find(at);
    ASSERT_NE(where, std::string::npos);
    text.replace(where, at.size(), "_345_ INV_X2 + PLACED ( 2147483647 -2147483648 )");
    Loaded moved;
    moved.circuit = netlist::read_def(SourceText::from_string(path, text));
    moved.graph = graph::build_graph(moved.circuit);
    const Loaded as_written = load("openroad_nangate45/gcd_nangate45.def");
    ASSERT_EQ(moved.graph.node_count(), as_written.graph.node_count());

    const double extent = default_extent(moved.graph.node_count());
    const auto a = placement_positions(moved.circuit, moved.graph, extent, 1);
    const auto b = placement_positions(as_written.circuit, as_written.graph, extent, 1);
    ASSERT_EQ(a.size(), b.size());
    const double scale = extent / 65480; // DIEAREA ( 0 0 ) ( 65480 65480 )
    std::size_t checked = 0;
    for (std::size_t v = 0; v < a.size(); ++v) {
        EXPECT_LE(std::abs(a[v].x), extent);
        EXPECT_LE(std::abs(a[v].y), extent);
        const std::int64_t cell = moved.graph.cell_of[v];
        if (cell < 0 || !moved.circuit.placement[static_cast<std::size_t>(cell)].placed) continue;
        if (moved.circuit.cell_name(moved.circuit.cells[static_cast<std::size_t>(cell)]) ==
            "_345_") {
            EXPECT_NEAR(a[v].x, 32740 * scale, extent * 1e-4); // the die's right edge
            EXPECT_NEAR(a[v].y, -32740 * scale, extent * 1e-4); // and its bottom
        } else {
            EXPECT_EQ(a[v].x, b[v].x);
            EXPECT_EQ(a[v].y, b[v].y);
            ++checked;
        }
    }
    EXPECT_GT(checked, 100u);
}

TEST(ForceAtlas2, OnePlacedCellAndNoDieStillSpreadTheOthers)
{
    // gcd without its DIEAREA and with one cell placed: the box of the placement has no
    // extent, and every node with no placed neighbour started at the one point (0, 0), where
    // no force parts them.
    const std::string path = data("openroad_nangate45/gcd_nangate45.def");
    std::istringstream in(gsr::test::read_text(path));
    std::string text, line;
    bool kept = false;
    while (std::getline(in, line)) {
        if (line.find("DIEAREA") != std::string::npos) continue;
        for (const char* how : {"+ PLACED (", "+ FIXED ("}) {
            const std::size_t at = line.find(how);
            if (at == std::string::npos) continue;
            if (!kept && line.find("+ PLACED (") != std::string::npos) {
                kept = true;
                continue;
            }
            line = line.substr(0, at) + "+ UNPLACED ;";
        }
        text += line + '\n';
    }
    ASSERT_TRUE(kept);
    Loaded c;
    c.circuit = netlist::read_def(SourceText::from_string(path, text));
    c.graph = graph::build_graph(c.circuit);
    const double extent = default_extent(c.graph.node_count());
    const auto p = placement_positions(c.circuit, c.graph, extent, 1);
    ASSERT_EQ(p.size(), c.graph.node_count());
    std::set<std::pair<double, double>> distinct;
    for (const auto& q : p) {
        EXPECT_TRUE(std::isfinite(q.x) && std::isfinite(q.y));
        EXPECT_LE(std::abs(q.x), extent);
        EXPECT_LE(std::abs(q.y), extent);
        distinct.insert({q.x, q.y});
    }
    EXPECT_EQ(distinct.size(), p.size());
}

TEST(ForceAtlas2, NoPlacementGivesNoPositions)
{
    const Loaded c = load("iscas85/bench/c17.bench");
    EXPECT_TRUE(placement_positions(c.circuit, c.graph, 10, 1).empty());
}

TEST(ForceAtlas2, RejectsBadInput)
{
    const Loaded c = load("iscas85/bench/c17.bench");
    ForceAtlas2Options o;
    o.repulsion = 0;
    EXPECT_THROW(ForceAtlas2Layout(c.weighted, o), Error);
    o = {};
    o.window = 0;
    EXPECT_THROW(ForceAtlas2Layout(c.weighted, o), Error);
    EXPECT_THROW(ForceAtlas2Layout(c.weighted, {}, std::vector<Point2>(3)), Error);
    std::vector<Point2> bad(c.weighted.node_count());
    bad[0].x = NAN;
    EXPECT_THROW(ForceAtlas2Layout(c.weighted, {}, bad), Error);
}

TEST(ForceAtlas2, NoNodeOrOneIsSettledAtOnce)
{
    // One node has a layout radius of zero: its drift towards the gravity centre once read as
    // unbounded movement, and the layout ran to its iteration limit.
    for (std::size_t n : {0u, 1u}) {
        community::WeightedGraph g;
        g.offsets.assign(n + 1, 0);
        ForceAtlas2Options o;
        o.max_iterations = 100;
        ForceAtlas2Layout layout(g, o, std::vector<Point2>(n, Point2{3, 4}));
        EXPECT_TRUE(layout.finished()) << n;
        const auto s = layout.run();
        ASSERT_TRUE(s) << n;
        EXPECT_TRUE(s->converged) << n;
        EXPECT_EQ(s->iteration, 0) << n;
        ASSERT_EQ(s->positions.size(), n);
        if (n == 1) EXPECT_EQ(s->positions[0].x, 3);
    }
    // Two nodes without an edge still settle (repulsion against gravity) before the limit.
    community::WeightedGraph two;
    two.offsets.assign(3, 0);
    ForceAtlas2Options o;
    o.max_iterations = 5000;
    const auto s = ForceAtlas2Layout(two, o).run();
    ASSERT_TRUE(s);
    EXPECT_TRUE(s->converged);
    EXPECT_GT(s->iteration, 0);
}
