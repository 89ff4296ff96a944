#pragma once
// The one circuit model every netlist format is read into: a flattened top module of cells with
// typed pins, nets and ports. Names are interned; ids are dense 32-bit indices.
#include "util/diagnostics.hpp"
#include "util/name_pool.hpp"

#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace gsr::netlist {

using NetId = std::uint32_t;
using CellId = std::uint32_t;
inline constexpr NetId kNoNet = 0xffffffffu;

enum class Direction : std::uint8_t { Input, Output, InOut, Unknown };

enum class CellKind : std::uint8_t {
    Logic,    ///< combinational gate: bench gate, BLIF .names, Verilog primitive or assign, AIG AND
    Constant, ///< a driver of a constant: BLIF .names with no inputs, assign-style `x = 1'b1`
    FlipFlop, ///< a storage element of the netlist itself: bench DFF, .latch, AIGER latch, ISCAS dff
    Instance, ///< an instance of a library cell or of an undefined module (black box)
};

/// Flags on a cell.
enum CellFlag : std::uint8_t {
    kCellSequential = 1, ///< an Instance that stores state (Liberty ff/latch group, or its name)
    kCellBlackBox = 2,   ///< an instance of a module that no input defines
};

/// A cell's connection to a net. `name` is the pin name (kNoName for positional pins of gates).
struct Pin {
    NetId net = kNoNet; ///< kNoNet: unconnected
    NameId name = kNoName;
    Direction dir = Direction::Unknown;
    bool inverted = false; ///< the cell sees the complement of the net (AIGER edge attribute)
};

/// The value a flip-flop holds before the first clock edge. The numbers are BLIF's .latch init
/// values; AIGER 1.9 resets map to Zero, One, or Unknown (the latch literal: uninitialised).
/// Formats without an init value (bench DFF, Verilog) give Zero.
enum class InitValue : std::uint8_t { Zero = 0, One = 1, DontCare = 2, Unknown = 3 };

/// Twenty bytes: kind, flags, init and line share one word, so that keeping each cell's line
/// costs no memory (big netlists hold tens of millions of cells).
struct Cell {
    NameId name = kNoName; ///< instance name (hierarchical, '/'-separated, after flattening)
    NameId type = kNoName; ///< gate or cell type: "NAND", "AND", "NAND2_X1", "$names", ...
    std::uint32_t first_pin = 0;
    std::uint32_t pin_count = 0;
    CellKind kind : 2 = CellKind::Logic;
    std::uint8_t flags : 2 = 0;           ///< CellFlag bits
    InitValue init : 2 = InitValue::Zero; ///< FlipFlop: its initial state
    /// The line of the statement that made the cell, in the file of `Circuit::source` (the
    /// line inside its module's definition after flattening); 0 where it is not known: the
    /// format has no lines (binary AIGER), the reader made the cell itself, or the line is past
    /// kMaxLine.
    std::uint32_t line : 24 = 0;

    static constexpr std::uint32_t kMaxLine = (1u << 24) - 1;
    /// Sets `line`, or 0 where the line does not fit.
    void set_line(std::int64_t at)
    {
        line = at > 0 && at <= kMaxLine ? static_cast<std::uint32_t>(at) : 0;
    }
};
static_assert(sizeof(Cell) == 20);
static_assert(kCellSequential < 4 && kCellBlackBox < 4, "Cell::flags holds two bits");

struct Port {
    NameId name = kNoName; ///< bit name: "a", "data[3]"
    NetId net = kNoNet;
    Direction dir = Direction::Input;
    bool inverted = false; ///< an output port that carries the complement of its net (AIGER)
};

/// A module seen in the input: defined (and flattened into the top) or a black box.
struct ModuleInfo {
    std::string name;
    bool defined = false;
    std::uint64_t instances = 0;
};

/// DEF placement of a cell, in database units.
struct Placement {
    std::int64_t x = 0;
    std::int64_t y = 0;
    std::string orient;
    bool placed = false; ///< PLACED or FIXED; false: UNPLACED or absent
};

/// Counts by the definitions of the data MANIFEST ("How the counts were measured"). A parser
/// sets what its format defines; the rest is derived from the model by `finalize_counts`.
struct CircuitCounts {
    std::optional<std::int64_t> inputs, outputs, ports, flip_flops, cells, nets;
    /// Format-specific figures, e.g. "fanin_edges", "const_nodes", "pin_connections".
    std::map<std::string, std::int64_t> extra;
};

class Circuit {
public:
    std::string source; ///< file it was read from
    std::string format; ///< "bench", "blif", "aiger", "verilog", "def", "spice"
    std::string top;    ///< top module / model / design name

    NamePool names;     ///< cell, type, pin and port names
    NamePool net_names; ///< net id == its id in this pool
    std::vector<Cell> cells;
    std::vector<Pin> pins;
    std::vector<Port> ports;
    std::vector<ModuleInfo> modules;
    std::vector<Placement> placement; ///< empty, or one per cell (DEF)
    std::optional<std::array<std::int64_t, 4>> die_area; ///< DEF DIEAREA x0 y0 x1 y1
    CircuitCounts counts;
    Diagnostics diagnostics;

    /// Sum-of-products covers of BLIF .names cells whose function is not already said by their
    /// type and pin inversions ("SOP" cells), as in the file: cubes separated by '\n', each
    /// "<input columns> <output value>". `covers` is sorted by cell.
    struct Cover {
        CellId cell = 0;
        std::uint32_t length = 0;
        std::uint64_t offset = 0;
    };
    std::string cover_text;
    std::vector<Cover> covers;
    /// The cover of a cell, or "" when it has none.
    std::string_view cover(CellId c) const;

    /// Truth tables of bench `LUT` cells: bit i of the table is the output for the input
    /// assignment i, the cell's first input being the least significant bit of i (ABC's
    /// convention). A k-input table has max(1, 2^k / 64) words in `lut_words` from `offset`;
    /// `luts` is sorted by cell.
    struct Lut {
        CellId cell = 0;
        std::uint32_t inputs = 0;
        std::uint64_t offset = 0;
    };
    std::vector<std::uint64_t> lut_words;
    std::vector<Lut> luts;
    static constexpr std::uint32_t kMaxLutInputs = 16;
    /// The truth table words of a LUT cell (empty when it has none).
    std::span<const std::uint64_t> lut(CellId c) const;

    NetId net(std::string_view name) { return net_names.intern(name); }
    std::size_t net_count() const { return net_names.size(); }
    std::string_view net_name(NetId n) const { return net_names.view(n); }

    /// Starts a cell made by the statement on `line` (0: none); add its pins with add_pin right
    /// after.
    CellId add_cell(std::string_view name, std::string_view type, CellKind kind, int line);
    void add_pin(NetId net, Direction dir, std::string_view pin_name = {}, bool inverted = false);
    void add_port(std::string_view name, NetId net, Direction dir, bool inverted = false);

    const Pin* pins_of(const Cell& c) const { return pins.data() + c.first_pin; }
    /// The instance name; a gate of a format that names gates by their output (bench, BLIF,
    /// AIGER) is stored without one and named by its output net.
    std::string_view cell_name(const Cell& c) const;
    std::string_view cell_type(const Cell& c) const { return names.view(c.type); }
    std::string_view pin_name(const Pin& p) const { return p.name == kNoName ? std::string_view{} : names.view(p.name); }
    /// Where a cell was made: the file and, when known, the line.
    SourceLocation cell_location(CellId c) const
    {
        return {source, static_cast<int>(cells[c].line)};
    }

    /// Fills the counts a parser left unset, from the model.
    void finalize_counts();
    /// The cells `counts.cells` counts: every cell that is not a FlipFlop (library flip-flops
    /// are instances, counted as cells, as yosys counts them).
    std::int64_t counted_cells() const;
};

/// "cell 'U1' of type 'NAND2_X1'", for messages; with_line adds " on line 12" where the line
/// is known.
std::string describe_cell(const Circuit& c, CellId id, bool with_line = false);

} // namespace gsr::netlist
