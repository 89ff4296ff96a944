#pragma once
// Standard-cell libraries (Liberty, LEF): the pin directions and storage kind of each cell type,
// and, from Liberty, the NLDM timing model: input-pin capacitances and per-arc delay and
// output-transition tables, in ns and pF whatever the library's time_unit and
// capacitive_load_unit are.
//
// Contents: TimingTable (bilinear lookup), TimingArc, WireLoad, LibraryPin, LibraryCell, Library.
#include "netlist/circuit.hpp"

#include <string>
#include <unordered_map>
#include <vector>

namespace gsr::netlist {

/// An NLDM lookup table, stored as (input transition, output load) whatever the order of the
/// template's variable_1/variable_2 in the file. An axis the table does not vary along has one
/// point. values[t * load.size() + l] is the value at transition[t] and load[l].
struct TimingTable {
    std::vector<double> transition; ///< ns, ascending
    std::vector<double> load;       ///< pF, ascending
    std::vector<double> values;     ///< ns (delays and transitions alike)

    bool empty() const { return values.empty(); }
    /// Bilinear interpolation inside the table, linear extrapolation from the two outermost
    /// points of an axis outside it.
    double lookup(double input_transition, double output_load) const;
};

/// A Liberty `timing ()` group of an output pin: from related_pin to this pin.
struct TimingArc {
    enum class Type : std::uint8_t {
        Combinational, ///< no timing_type, combinational*, three_state_enable/disable
        ClockEdge,     ///< rising_edge / falling_edge: clock-to-output of a flip-flop or latch
        Other,         ///< setup, hold, recovery, removal, preset, clear...: not a delay arc
    };
    std::vector<std::string> related_pins; ///< `related_pin : "A B"` names two arcs' inputs
    Type type = Type::Combinational;
    TimingTable cell_rise, cell_fall, rise_transition, fall_transition;
};

/// A Liberty `wire_load` group: the wire of a net with n fan-outs has length fanout_length(n)
/// (the table's value at n, or its last point plus `slope` per fan-out past it) and
/// capacitance `capacitance` per unit length.
struct WireLoad {
    std::string name;
    double capacitance = 0.0; ///< pF per unit length
    double slope = 0.0;       ///< length per fan-out past the table
    std::vector<std::pair<double, double>> fanout_length; ///< (fan-out, length), ascending

    double wire_capacitance(std::size_t fanout) const;
};

struct LibraryPin {
    std::string name;
    Direction dir = Direction::Unknown;
    std::string function;     ///< Liberty `function` of an output pin, when given
    std::string three_state;  ///< Liberty `three_state`: when the output floats (tri-state)
    double capacitance = 0.0; ///< pF; an input pin's load (Liberty capacitance)
    std::vector<TimingArc> timing; ///< the arcs into this (output) pin
};

/// A Liberty `ff (IQ, IQN)` group: the state variables its output pins' functions read, and
/// the expressions (over the cell's input pins) it loads at a clock edge, and clears/presets by.
struct FlipFlopGroup {
    std::string state, state_inverse; ///< IQ, IQN
    std::string next_state, clear, preset;
    std::string clear_preset_var1; ///< IQ where clear and preset both hold: L, H, N, T or X
    std::string clear_preset_var2; ///< IQN there likewise ("": IQ's complement)
};

struct LibraryCell {
    std::string name;
    std::vector<LibraryPin> pins;
    bool is_ff = false;    ///< has a Liberty ff group
    bool is_latch = false; ///< has a Liberty latch group
    FlipFlopGroup ff;      ///< its (first) ff group, when is_ff
    /// Read from Liberty, which says whether a cell stores (is_ff, is_latch); a LEF macro does
    /// not, so the loader judges such a cell by its name.
    bool storage_known = false;
    double area = 0.0;
    double width = 0.0, height = 0.0; ///< LEF SIZE, microns
};

class Library {
public:
    std::string source;
    std::string format; ///< "liberty" or "lef"
    std::string name;   ///< Liberty library name
    std::vector<LibraryCell> cells;
    double time_unit_ns = 1.0;   ///< Liberty time_unit, in ns (values above are converted)
    double cap_unit_pf = 1.0;    ///< Liberty capacitive_load_unit, in pF (converted too)
    std::vector<WireLoad> wire_loads;
    std::string default_wire_load; ///< Liberty default_wire_load; empty: none
    std::size_t timing_arcs = 0;   ///< delay arcs with at least one table, over all cells

    /// The default wire load model, or nullptr when the library names none.
    const WireLoad* default_wire() const;
    /// True when some cell has NLDM delay tables.
    bool has_timing() const { return timing_arcs > 0; }
    CircuitCounts counts; ///< cells, flip_flops (ff + latch groups), extra
    Diagnostics diagnostics;

    /// nullptr when the cell is unknown.
    const LibraryCell* find(std::string_view cell) const;
    const LibraryPin* find_pin(std::string_view cell, std::string_view pin) const;
    /// Adds the cells of `other` that this library lacks, and pins a cell lacks (LEF after Liberty).
    void merge(const Library& other);
    void index();

private:
    std::unordered_map<std::string, std::size_t> by_name_;
};

} // namespace gsr::netlist
