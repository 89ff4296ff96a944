#pragma once
// Which format a file is in, decided from its content first and its name second.
#include <string>
#include <string_view>

namespace gsr::netlist {

enum class Format { Unknown, Bench, Blif, Aiger, Verilog, Liberty, Lef, Def, Spice };

std::string_view format_name(Format f);
/// The format a file's name gives (".bench", ".v", ... and their ".gz"), or Unknown.
Format from_extension(std::string_view path);
/// Decides from the first bytes of the (inflated) content, using the file name as a tie-break.
/// Returns Unknown when nothing matches; `why` then says what the content looks like.
Format detect_format(std::string_view path, std::string_view content, std::string* why = nullptr);
/// True for formats that describe libraries of cells rather than a circuit.
inline bool is_library_format(Format f) { return f == Format::Liberty || f == Format::Lef; }

} // namespace gsr::netlist
