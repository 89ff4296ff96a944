// Format dispatch, and the pass that gives every instance pin a direction.
#include "netlist/readers.hpp"
#include "util/ascii.hpp"

#include <algorithm>
#include <cctype>
#include <set>

namespace gsr::netlist {

namespace {

std::string upper(std::string_view s) { return ascii_upper(s); }

/// The MANIFEST's name heuristic for storage cells of libraries we have no Liberty for.
bool sequential_by_name(std::string_view type)
{
    const std::string u = upper(type);
    for (const char* key : {"DFF", "SDFF", "EDFF", "LATCH", "_DF", "MS00", "TLAT"})
        if (u.find(key) != std::string::npos) return true;
    return false;
}

void check_is_circuit(Format f, const SourceText& src, const std::string& why)
{
    if (f == Format::Unknown)
        throw Error(SourceLocation{src.name(), 1, 1},
                    "expected a netlist (bench, BLIF, AIGER, Verilog, DEF or SPICE), found " + why);
    if (is_library_format(f))
        throw Error(SourceLocation{src.name(), 1, 1},
                    "expected a netlist, found a " + std::string(format_name(f)) +
                        " cell library: pass it with --liberty (in the window: File > Cell "
                        "Libraries)");
}

/// Gives instance pins their directions and marks storage cells. Order of trust: the library,
/// then the pin's name (with one warning per cell type and pin).
void resolve_instances(Circuit& c, const Library* lib)
{
    std::set<std::pair<NameId, NameId>> warned;
    std::set<NameId> warned_type;
    for (CellId id = 0; id < c.cells.size(); ++id) {
        Cell& cell = c.cells[id];
        if (cell.kind != CellKind::Instance) continue;
        const std::string_view type = c.cell_type(cell);
        const LibraryCell* lc = lib ? lib->find(type) : nullptr;
        // Liberty says whether a cell stores; without it (no library, a LEF) its name does.
        if ((lc && lc->storage_known) ? (lc->is_ff || lc->is_latch) : sequential_by_name(type))
            cell.flags |= kCellSequential;
        if (lib && !lc && !(cell.flags & kCellBlackBox) && warned_type.insert(cell.type).second)
            c.diagnostics.warn(c.cell_location(id), "cell type " + std::string(type) +
                                                        " is not in the given libraries");
        for (std::uint32_t i = 0; i < cell.pin_count; ++i) {
            Pin& p = c.pins[cell.first_pin + i];
            if (p.dir != Direction::Unknown) continue;
            const std::string_view pin = c.pin_name(p);
            bool named = false; // the library's cell has the pin (without a direction, here)
            if (lc) {
                for (const LibraryPin& lp : lc->pins)
                    if (lp.name == pin) {
                        p.dir = lp.dir;
                        named = true;
                    }
                if (p.dir != Direction::Unknown) continue;
            }
            p.dir = guess_pin_direction(pin, type);
            if (pin.empty()) { // positional: an instance of a SPICE subcircuit the deck lacks
                if (warned.insert({cell.type, p.name}).second)
                    c.diagnostics.warn(c.cell_location(id),
                                       "the pins of " + std::string(type) +
                                           " have no names (positional, and the subcircuit is "
                                           "not defined): taken as inputs (define it in the "
                                           "deck for their directions)");
                p.dir = Direction::Input;
                continue;
            }
            if (warned.insert({cell.type, p.name}).second) {
                // A library names its cells' pins but gives no order for connections by
                // position (Verilog's "1", "2", ...): no library helps those.
                const bool positional =
                    lc && std::all_of(pin.begin(), pin.end(), [](char ch) {
                        return std::isdigit(static_cast<unsigned char>(ch)) != 0;
                    });
                const char* why = " (give a Liberty or LEF file for exact directions)";
                if (positional)
                    why = " (connected by position, which the library does not order: connect "
                          "it by name, .PIN(net), for its direction)";
                else if (lib && !lc)
                    why = " (the given libraries have no such cell)";
                else if (lib)
                    why = named ? " (the library gives it no direction)"
                                : " (the library's cell has no such pin)";
                c.diagnostics.warn(c.cell_location(id),
                                   "direction of pin " + std::string(pin) + " of " +
                                       std::string(type) + " guessed from its name as " +
                                       (p.dir == Direction::Output ? "output" : "input") + why);
            }
            if (p.dir == Direction::Unknown) p.dir = Direction::Input;
        }
    }
}

} // namespace

Direction guess_pin_direction(std::string_view pin, std::string_view cell_type)
{
    const std::string u = upper(pin);
    // A multiplexer's S selects (MUX2_X1 in Nangate45): guessed an output, it gave gcd 12
    // nets of two drivers and aes 693.
    if (u == "S" && upper(cell_type).find("MUX") != std::string::npos) return Direction::Input;
    static const char* outputs[] = {"Y", "Z", "ZN", "Q", "QN", "Q_N", "CO", "S", "SUM", "COUT",
                                    "OUT", "O", "X", "GCLK", "ECK", "QB", "YB", "ON"};
    for (const char* o : outputs)
        if (u == o) return Direction::Output;
    if (u.rfind("OUT", 0) == 0 || (u.size() >= 2 && u[0] == 'Q' && std::isdigit(u[1])) ||
        (u.size() >= 2 && u[0] == 'Y' && std::isdigit(u[1])) || (u.size() >= 2 && u[0] == 'Z' && std::isdigit(u[1])))
        return Direction::Output;
    return Direction::Unknown;
}

Library load_libraries(const std::vector<std::string>& paths)
{
    Library all;
    for (const std::string& path : paths) {
        const SourceText src = SourceText::read_file(path);
        std::string why;
        const Format f = detect_format(path, src.text(), &why);
        Library lib;
        if (f == Format::Liberty) lib = read_liberty(src);
        else if (f == Format::Lef) lib = read_lef(src);
        else
            throw Error(SourceLocation{path, 1, 1},
                        "expected a Liberty (.lib) or LEF cell library, found " +
                            (f == Format::Unknown ? why : std::string(format_name(f))));
        if (all.cells.empty()) {
            all = std::move(lib);
        } else {
            all.merge(lib);
            all.diagnostics.merge(lib.diagnostics);
        }
        all.index();
    }
    return all;
}

Circuit load_netlist(const SourceText& src, const LoadOptions& options)
{
    std::string why;
    const Format f = detect_format(src.name(), src.text(), &why);
    check_is_circuit(f, src, why);
    Circuit c;
    try {
        switch (f) {
        case Format::Bench: c = read_bench(src); break;
        case Format::Blif: c = read_blif(src); break;
        case Format::Aiger: c = read_aiger(src); break;
        case Format::Verilog: c = read_verilog(src); break;
        case Format::Def: c = read_def(src); break;
        case Format::Spice: c = read_spice(src); break;
        default: break;
        }
        c.source = src.name();
        resolve_instances(c, options.library);
        c.finalize_counts();
    } catch (const Error& e) {
        // A limit of the shared structures ("name longer than 16 MiB") knows no file.
        if (e.where().file.empty()) throw Error(SourceLocation{src.name()}, e.message());
        // A name that gives no format (notes.md holding "q = DFF(d)") was read by a format
        // its content suggested: say so, or "expected '='" reads as a broken netlist.
        if (e.where().file == src.name() && from_extension(src.name()) == Format::Unknown)
            throw Error(e.where(), e.message() + " (read as " + std::string(format_name(f)) +
                                       " from its content: the file's name gives no format)");
        throw;
    }
    return c;
}

Circuit load_netlist(const std::string& path, const LoadOptions& options)
{
    return load_netlist(SourceText::read_file(path), options);
}

} // namespace gsr::netlist
