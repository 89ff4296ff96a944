#pragma once
// Static arrival times, a timing-style label, in one of two models.
//
// Unit-delay model (no library, or a library without NLDM tables), in levelized order:
//   arrival(net) = max(arrival of the driver's inputs) + delay(driver type) + k * load(net)
// Primary inputs, flip-flop outputs, constants and undriven nets arrive at 0 (clock-to-Q is
// not modelled). It is a unit-delay style estimate for learning targets, not sign-off timing.
//
// Default delays (gate_delay), for two inputs; each input past two adds the step:
//   NOT/INV 1.0   BUF 1.0   NAND 1.2 (+0.2)   NOR 1.4 (+0.3)   AND 1.6 (+0.2)   OR 1.8 (+0.3)
//   XOR/XNOR 2.0 (+1.0)   MUX 2.0   AOI/OAI 1.6   AO/OA 2.0   BLIF cover (SOP) 0.6 + 0.3 per input
//   constants, ties, flip-flops 0   Verilog EXPR 2.0   anything else 1.0
// Library cell names are matched on their function part: "NAND2_X1" and
// "sky130_fd_sc_hd__nand2_1" are NAND gates with two inputs.
// load(net) is the number of pins that read it. With a Liberty library that has no delay
// tables (or a LEF), a pin of a library cell counts as the cell's area per input pin over the
// library's median of that figure: area stands in for input capacitance.
//
// NLDM model (a Liberty library with cell_rise/cell_fall tables), in ns: each net carries
// (arrival, transition). Over the combinational cells in levelized order,
//   arrival(out)    = max over the cell's timing arcs in -> out of arrival(in) + delay(arc)
//   transition(out) = max over the same arcs of the output transition
//   delay(arc)      = max(cell_rise, cell_fall)(transition(in), load(out))
//   output trans.   = max(rise_transition, fall_transition)(transition(in), load(out))
// with bilinear interpolation in the tables and linear extrapolation past their edges
// (netlist::TimingTable::lookup); a delay or transition below 0, which extrapolation can give,
// counts as 0. load(net) = the Liberty capacitance of every library-cell input pin on the net
// (clock and control pins of flip-flops included) + the default wire_load's capacitance for
// its fan-out (input pins plus output ports) when the library names one, otherwise no wire.
// Output ports add no load.
//   Unate simplification: rise and fall are not propagated separately; each net keeps the
// later of the two and each arc the larger delay, whatever its timing_sense. The result is an
// upper bound of the arrival a rise/fall-aware STA gives with the same tables.
//   Primary inputs (and undriven nets) arrive at 0 with transition `input_transition`
// (default 0.1 ns). The clock is ideal: a sequential library cell's outputs arrive at its
// clock-to-output delay (its rising_edge/falling_edge arcs at `input_transition` and the
// output's load); flip-flops that are not library cells arrive at 0, and so do constants.
// Combinational cells without an arc (not in the library, Verilog assigns) pass the latest
// input arrival and transition on with zero delay; so do the outputs of a cell that have no
// arc where its other outputs have one. Each such cell counts once in cells_without_timing.
#include "labels/net_structure.hpp"
#include "netlist/library.hpp"

#include <string_view>
#include <vector>

namespace gsr::labels {

struct DelayModel {
    double load_factor = 0.1;                  ///< unit-delay model: k, delay per unit of load
    const netlist::Library* library = nullptr; ///< optional: NLDM tables, or pin loads
    double input_transition = 0.1;             ///< NLDM: ns at primary inputs and clock pins
};

struct ArrivalTimes {
    std::vector<double> arrival;    ///< per net id (ns in the NLDM model)
    std::vector<double> transition; ///< NLDM: per net id, ns; empty in the unit-delay model
    std::vector<double> load;       ///< NLDM: per net id, pF; empty in the unit-delay model
    double max_arrival = 0.0;
    bool nldm = false;                    ///< computed from the library's delay tables
    std::size_t cells_without_timing = 0; ///< NLDM: combinational cells given zero delay
    std::size_t cells_timed = 0;          ///< NLDM: combinational cells timed by their arcs
};

/// The default delay of a gate or library cell type with `inputs` inputs.
double gate_delay(std::string_view type, std::size_t inputs);

/// gsr::Error naming a net whose arrival or transition is not finite (tables, capacitances,
/// --load-factor or --input-transition out of range), or naming the library when it times
/// none of the circuit's combinational cells (every arrival would be 0).
ArrivalTimes compute_arrival_times(const netlist::Circuit& circuit, const NetStructure& structure,
                                   const DelayModel& model = {});

} // namespace gsr::labels
