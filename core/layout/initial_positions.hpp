#pragma once
// Starting positions for a layout from the DEF placement of the circuit, when it has one.
#include "graph/circuit_graph.hpp"
#include "layout/barnes_hut_tree.hpp"
#include "netlist/circuit.hpp"

#include <cstdint>
#include <vector>

namespace gsr::layout {

/// One position per graph node, or an empty vector when no cell of the circuit is placed.
/// Placed cells keep their placement, centred on the origin and scaled so that the die (or
/// the placed cells' bounding box) spans `extent`; primary inputs and unplaced cells go to the
/// mean of their placed neighbours, else to a random spot of the die. A small seeded jitter
/// keeps cells at the same spot apart.
std::vector<Point2> placement_positions(const netlist::Circuit& circuit,
                                        const graph::CircuitGraph& g, double extent,
                                        std::uint64_t seed);

} // namespace gsr::layout
