#pragma once
// The circuit seen net by net, as the labels need it: who drives each net, which pins read it,
// and the combinational cells in levelized order. Flip-flops and sequential library cells cut
// the graph: their outputs are pseudo primary inputs and their data pins are endpoints.
//
// Pins: an Output pin drives its net; an Input pin reads it. InOut and Unknown pins (library
// instances only) are left out of both. A flip-flop reads only its data pin (named D, or its one
// input pin): clock and control pins are not fan-out, as in the label data set.
#include "netlist/circuit.hpp"

#include <cstdint>
#include <span>
#include <vector>

namespace gsr::labels {

using netlist::CellId;
using netlist::NetId;
inline constexpr CellId kNoCell = 0xffffffffu;

class NetStructure {
public:
    std::size_t net_count() const { return driver.size(); }
    std::size_t cell_count() const { return input_offsets.size() - 1; }

    /// Pin indices (into Circuit::pins) of the inputs that cell c reads.
    std::span<const std::uint32_t> inputs(CellId c) const
    {
        return {input_pins.data() + input_offsets[c], input_offsets[c + 1] - input_offsets[c]};
    }
    /// Nets that cell c drives, in pin order.
    std::span<const NetId> outputs(CellId c) const
    {
        return {output_nets.data() + output_offsets[c], output_offsets[c + 1] - output_offsets[c]};
    }
    /// Cells that read net n, once per pin (a cell that reads n twice is listed twice).
    std::span<const CellId> sinks(NetId n) const
    {
        return {sink_cells.data() + sink_offsets[n], sink_offsets[n + 1] - sink_offsets[n]};
    }

    std::vector<CellId> driver;              ///< per net: the cell that drives it, or kNoCell
    std::vector<std::uint8_t> is_pi;         ///< per net: a primary input (input port)
    std::vector<std::uint8_t> is_po;         ///< per net: read by an output port
    std::vector<std::uint8_t> is_state;      ///< per net: driven by a flip-flop / sequential cell
    std::vector<std::uint8_t> combinational; ///< per cell: 1 unless it stores state

    std::vector<NetId> primary_inputs; ///< input ports in file order, each net once
    /// The label rows: primary inputs, then the nets driven by each cell in cell (file) order.
    std::vector<NetId> rows;

    std::vector<std::uint32_t> input_offsets; ///< cell -> range in input_pins (cells + 1 entries)
    std::vector<std::uint32_t> input_pins;
    std::vector<std::uint32_t> output_offsets; ///< cell -> range in output_nets
    std::vector<NetId> output_nets;
    std::vector<std::uint32_t> sink_offsets; ///< net -> range in sink_cells (nets + 1 entries)
    std::vector<CellId> sink_cells;

    /// Combinational cells sorted by level (1 + the deepest input; 0 without inputs), so every
    /// cell comes after the drivers of its inputs. Ties keep the cell order.
    std::vector<CellId> order;
    std::vector<std::uint32_t> cell_level; ///< per cell; 0 for sequential cells

    std::size_t flip_flops = 0;       ///< sequential cells
    std::size_t undriven_nets = 0;    ///< nets read by some pin but driven by nothing
    std::size_t multiply_driven = 0;  ///< nets with more than one driver (the first one is kept)
    NetId first_multiply_driven = netlist::kNoNet;
    /// The cell that drives first_multiply_driven a second time (kNoCell: a second input port).
    CellId extra_driver = kNoCell;
};

/// Index of the data pin of a flip-flop cell among all its pins, or -1 when it has none that
/// can be told apart (several inputs, none named D).
int flip_flop_data_pin(const netlist::Circuit& circuit, const netlist::Cell& cell);

/// Builds the structure. Throws gsr::Error on a combinational loop, naming a net on it.
NetStructure build_net_structure(const netlist::Circuit& circuit);

/// Throws gsr::Error when a net has more than one driver, at the second driver's line, naming
/// the net, both drivers and the count, ending "; `needs`": the labels would silently take
/// the first driver.
void refuse_multiple_drivers(const NetStructure& s, const netlist::Circuit& circuit,
                             std::string_view needs);

} // namespace gsr::labels
