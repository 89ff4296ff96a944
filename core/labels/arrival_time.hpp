#pragma once
// Static arrival times, a timing-style label: in levelized order,
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
//
// load(net) is the number of pins that read it. With a Liberty library, a pin of a library cell
// counts as the cell's area per input pin over the library's median of that figure: the Liberty
// reader keeps neither NLDM delay tables nor pin capacitances, so area stands in for input
// capacitance (a larger cell has larger input transistors).
#include "labels/net_structure.hpp"
#include "netlist/library.hpp"

#include <string_view>
#include <vector>

namespace gsr::labels {

struct DelayModel {
    double load_factor = 0.1;                 ///< k: delay per unit of load
    const netlist::Library* library = nullptr; ///< optional: pin loads of library cells
};

struct ArrivalTimes {
    std::vector<double> arrival; ///< per net id
    double max_arrival = 0.0;
};

/// The default delay of a gate or library cell type with `inputs` inputs.
double gate_delay(std::string_view type, std::size_t inputs);

ArrivalTimes compute_arrival_times(const netlist::Circuit& circuit, const NetStructure& structure,
                                   const DelayModel& model = {});

} // namespace gsr::labels
