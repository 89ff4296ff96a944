// summarize_file's kept circuit: the GUI's summary, canvas and panels share what one read of
// the file made, so it must be the circuit and graph that reading the file alone makes.
#include "graph/circuit_graph.hpp"
#include "netlist/readers.hpp"
#include "report/netlist_summary.hpp"
#include "util/diagnostics.hpp"

#include <gtest/gtest.h>

#include <memory>
#include <string>

using namespace gsr;

namespace {

const std::string kData = std::string(GSR_DATA_DIR) + "/netlists/";

} // namespace

TEST(NetlistSummary, KeepsTheCircuitAndGraphItSummarised)
{
    const std::string path = kData + "iscas85/bench/c17.bench";
    std::shared_ptr<const graph::LoadedCircuit> loaded;
    const report::NetlistSummary s = report::summarize_file(path, {}, &loaded);
    ASSERT_TRUE(loaded);
    EXPECT_EQ(loaded->path, path);
    // c17: 5 primary inputs and 6 NAND cells, each cell's two inputs an edge.
    EXPECT_EQ(loaded->graph.node_count(), 11u);
    EXPECT_EQ(loaded->graph.edge_count(), 12u);
    EXPECT_EQ(static_cast<std::int64_t>(loaded->graph.node_count()), s.graph_nodes.value());
    EXPECT_EQ(static_cast<std::int64_t>(loaded->graph.edge_count()), s.graph_edges.value());
    EXPECT_EQ(loaded->circuit.counts.cells, s.counts.cells);

    // The same as reading the file alone.
    const netlist::Circuit alone = netlist::load_netlist(path);
    const graph::CircuitGraph g = graph::build_graph(alone);
    EXPECT_EQ(loaded->graph.fanout.offsets, g.fanout.offsets);
    EXPECT_EQ(loaded->graph.fanout.targets, g.fanout.targets);
    EXPECT_EQ(loaded->graph.type, g.type);
    EXPECT_EQ(loaded->graph.type_names, g.type_names);
    EXPECT_EQ(loaded->graph.level, g.level);
    EXPECT_EQ(loaded->circuit.cells.size(), alone.cells.size());
    EXPECT_EQ(loaded->circuit.ports.size(), alone.ports.size());
}

TEST(NetlistSummary, ALibraryKeepsNoCircuit)
{
    std::shared_ptr<const graph::LoadedCircuit> loaded;
    report::summarize_file(kData + "iscas85/bench/c17.bench", {}, &loaded);
    ASSERT_TRUE(loaded);
    // A library has no circuit: what the pointer held before goes.
    const report::NetlistSummary s =
        report::summarize_file(kData + "iwls05_gsclib180/lib/GSCLib_3.0.lib", {}, &loaded);
    EXPECT_FALSE(loaded);
    EXPECT_EQ(s.counts.cells.value_or(0), 38);     // COUNTS.csv: 38 Liberty cell groups,
    EXPECT_EQ(s.counts.flip_flops.value_or(0), 5); // 5 of them flip-flops
}

TEST(NetlistSummary, ABadFileKeepsNothing)
{
    std::shared_ptr<const graph::LoadedCircuit> loaded;
    report::summarize_file(kData + "iscas85/bench/c17.bench", {}, &loaded);
    ASSERT_TRUE(loaded);
    EXPECT_THROW(report::summarize_file(kData + "no/such/file.bench", {}, &loaded), Error);
    EXPECT_FALSE(loaded);
}
