#include "netlist/library.hpp"

namespace gsr::netlist {

void Library::index()
{
    by_name_.clear();
    for (std::size_t i = 0; i < cells.size(); ++i) by_name_.emplace(cells[i].name, i);
}

const LibraryCell* Library::find(std::string_view cell) const
{
    auto it = by_name_.find(std::string(cell));
    return it == by_name_.end() ? nullptr : &cells[it->second];
}

const LibraryPin* Library::find_pin(std::string_view cell, std::string_view pin) const
{
    const LibraryCell* c = find(cell);
    if (!c) return nullptr;
    for (const LibraryPin& p : c->pins)
        if (p.name == pin) return &p;
    return nullptr;
}

void Library::merge(const Library& other)
{
    for (const LibraryCell& oc : other.cells) {
        auto it = by_name_.find(oc.name);
        if (it == by_name_.end()) {
            by_name_.emplace(oc.name, cells.size());
            cells.push_back(oc);
            continue;
        }
        LibraryCell& mine = cells[it->second];
        for (const LibraryPin& op : oc.pins) {
            bool have = false;
            for (LibraryPin& p : mine.pins) {
                if (p.name != op.name) continue;
                have = true;
                if (p.dir == Direction::Unknown) p.dir = op.dir;
            }
            if (!have) mine.pins.push_back(op);
        }
        if (mine.width == 0.0) { mine.width = oc.width; mine.height = oc.height; }
    }
}

} // namespace gsr::netlist
