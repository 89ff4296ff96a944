#include "netlist/circuit.hpp"

#include <algorithm>

namespace gsr::netlist {

CellId Circuit::add_cell(std::string_view name, std::string_view type, CellKind kind, int line)
{
    Cell c;
    if (!name.empty()) c.name = names.add_unindexed(name);
    c.type = names.intern(type);
    c.first_pin = static_cast<std::uint32_t>(pins.size());
    c.kind = kind;
    c.set_line(line);
    cells.push_back(c);
    return static_cast<CellId>(cells.size() - 1);
}

void Circuit::add_pin(NetId net, Direction dir, std::string_view pin_name, bool inverted)
{
    Pin p;
    p.net = net;
    p.dir = dir;
    p.inverted = inverted;
    if (!pin_name.empty()) p.name = names.intern(pin_name);
    pins.push_back(p);
    ++cells.back().pin_count;
}

void Circuit::add_port(std::string_view name, NetId net, Direction dir, bool inverted)
{
    ports.push_back({names.intern(name), net, dir, inverted});
}

std::string_view Circuit::cover(CellId c) const
{
    auto it = std::lower_bound(covers.begin(), covers.end(), c,
                               [](const Cover& a, CellId b) { return a.cell < b; });
    if (it == covers.end() || it->cell != c) return {};
    return std::string_view(cover_text).substr(it->offset, it->length);
}

std::span<const std::uint64_t> Circuit::lut(CellId c) const
{
    auto it = std::lower_bound(luts.begin(), luts.end(), c,
                               [](const Lut& a, CellId b) { return a.cell < b; });
    if (it == luts.end() || it->cell != c) return {};
    const std::size_t words = it->inputs <= 6 ? 1 : std::size_t{1} << (it->inputs - 6);
    return {lut_words.data() + it->offset, words};
}

std::string_view Circuit::cell_name(const Cell& c) const
{
    if (c.name != kNoName) return names.view(c.name);
    const Pin* p = pins_of(c);
    for (std::uint32_t i = 0; i < c.pin_count; ++i)
        if (p[i].dir == Direction::Output && p[i].net != kNoNet) return net_names.view(p[i].net);
    return {};
}

void Circuit::finalize_counts()
{
    std::int64_t in = 0, out = 0;
    for (const Port& p : ports) {
        if (p.dir == Direction::Input) ++in;
        else if (p.dir == Direction::Output) ++out;
        else if (p.dir == Direction::InOut) { ++in; ++out; }
    }
    std::int64_t ff = 0;
    for (const Cell& c : cells)
        if (c.kind == CellKind::FlipFlop || (c.flags & kCellSequential)) ++ff;
    const std::int64_t logic = counted_cells();
    if (!counts.inputs) counts.inputs = in;
    if (!counts.outputs) counts.outputs = out;
    if (!counts.ports) counts.ports = static_cast<std::int64_t>(ports.size());
    if (!counts.flip_flops) counts.flip_flops = ff;
    if (!counts.cells) counts.cells = logic;
    if (!counts.nets) counts.nets = static_cast<std::int64_t>(net_count());
}

std::int64_t Circuit::counted_cells() const
{
    std::int64_t n = 0;
    for (const Cell& c : cells) n += c.kind != CellKind::FlipFlop;
    return n;
}

std::string describe_cell(const Circuit& c, CellId id, bool with_line)
{
    const Cell& cell = c.cells[id];
    std::string s = "cell '" + std::string(c.cell_name(cell)) + "' of type '" +
                    std::string(c.cell_type(cell)) + "'";
    if (with_line && cell.line) s += " on line " + std::to_string(cell.line);
    return s;
}

} // namespace gsr::netlist
