#pragma once
// Standard-cell libraries (Liberty, LEF): the pin directions and storage kind of each cell type.
#include "netlist/circuit.hpp"

#include <string>
#include <unordered_map>
#include <vector>

namespace gsr::netlist {

struct LibraryPin {
    std::string name;
    Direction dir = Direction::Unknown;
    std::string function; ///< Liberty `function` of an output pin, when given
};

struct LibraryCell {
    std::string name;
    std::vector<LibraryPin> pins;
    bool is_ff = false;    ///< has a Liberty ff group
    bool is_latch = false; ///< has a Liberty latch group
    double area = 0.0;
    double width = 0.0, height = 0.0; ///< LEF SIZE, microns
};

class Library {
public:
    std::string source;
    std::string format; ///< "liberty" or "lef"
    std::string name;   ///< Liberty library name
    std::vector<LibraryCell> cells;
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
