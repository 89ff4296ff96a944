#include "netlist/format.hpp"

#include "util/ascii.hpp"
#include "util/source_text.hpp"

#include <algorithm>
#include <cctype>
#include <sstream>
#include <string>

namespace gsr::netlist {

std::string_view format_name(Format f)
{
    switch (f) {
    case Format::Bench: return "bench";
    case Format::Blif: return "blif";
    case Format::Aiger: return "aiger";
    case Format::Verilog: return "verilog";
    case Format::Liberty: return "liberty";
    case Format::Lef: return "lef";
    case Format::Def: return "def";
    case Format::Spice: return "spice";
    case Format::Unknown: break;
    }
    return "unknown";
}

namespace {

bool ends_with(std::string_view s, std::string_view suffix)
{
    if (s.size() < suffix.size()) return false;
    for (std::size_t i = 0; i < suffix.size(); ++i)
        if (ascii_lower(s[s.size() - suffix.size() + i]) != suffix[i])
            return false;
    return true;
}

/// Lower-cased copy of the first `n` bytes, comments kept: detection looks at keywords only.
std::string head_lower(std::string_view content, std::size_t n)
{
    return ascii_lower(content.substr(0, std::min(n, content.size())));
}

/// Evidence for each format in the head of the file: a score per format, keyword based.
struct Evidence {
    int score[9] = {};
    void add(Format f, int s) { score[static_cast<int>(f)] += s; }
};

bool line_starts_with(const std::string& h, std::string_view word)
{
    std::size_t pos = 0;
    while ((pos = h.find(word, pos)) != std::string::npos) {
        std::size_t b = pos;
        while (b > 0 && (h[b - 1] == ' ' || h[b - 1] == '\t')) --b;
        if (b == 0 || h[b - 1] == '\n') return true;
        pos += word.size();
    }
    return false;
}

/// Whether some line is a SPICE model card, ".model NAME TYPE" with a device type after the
/// name (BLIF's ".model NAME" has none): a flat SPICE deck with model cards and no .subckt
/// was taken for BLIF.
bool has_spice_model_card(const std::string& h)
{
    static constexpr std::string_view kTypes[] = {"nmos", "pmos", "npn", "pnp", "d",   "r",
                                                  "c",    "l",    "njf", "pjf", "nmf", "pmf",
                                                  "sw",   "csw",  "ltra", "urc"};
    std::size_t pos = 0;
    while ((pos = h.find(".model", pos)) != std::string::npos) {
        const std::size_t start = pos;
        pos += 6;
        std::size_t b = start;
        while (b > 0 && (h[b - 1] == ' ' || h[b - 1] == '\t')) --b;
        if (b != 0 && h[b - 1] != '\n') continue;
        const std::size_t end = std::min(h.find('\n', pos), h.size());
        std::istringstream words(h.substr(pos, end - pos));
        std::string name, type;
        if (!(words >> name >> type)) continue;
        type = type.substr(0, type.find('('));
        for (std::string_view t : kTypes)
            if (type == t) return true;
    }
    return false;
}

} // namespace

Format from_extension(std::string_view path)
{
    if (ends_with(path, ".gz")) path.remove_suffix(3);
    if (ends_with(path, ".bench")) return Format::Bench;
    if (ends_with(path, ".blif")) return Format::Blif;
    if (ends_with(path, ".aig") || ends_with(path, ".aag")) return Format::Aiger;
    if (ends_with(path, ".v") || ends_with(path, ".vg") || ends_with(path, ".sv")) return Format::Verilog;
    if (ends_with(path, ".lib")) return Format::Liberty;
    if (ends_with(path, ".lef") || ends_with(path, ".tlef")) return Format::Lef; // tech LEF too
    if (ends_with(path, ".def")) return Format::Def;
    if (ends_with(path, ".cir") || ends_with(path, ".sp") || ends_with(path, ".spi") ||
        ends_with(path, ".spice") || ends_with(path, ".cdl"))
        return Format::Spice;
    return Format::Unknown;
}

Format detect_format(std::string_view path, std::string_view content, std::string* why)
{
    if (content.size() >= 4 && (content.substr(0, 4) == "aig " || content.substr(0, 4) == "aag " ||
                                content.substr(bom_length(content), 4) == "aag "))
        return Format::Aiger;
    if (!looks_like_text(content)) {
        if (why) *why = "binary data, not a netlist";
        return Format::Unknown;
    }
    const std::string h = head_lower(content, 64 * 1024);
    std::size_t first = h.find_first_not_of(" \t\r\n");
    if (first != std::string::npos &&
        (h.compare(first, 9, "<!doctype") == 0 || h.compare(first, 5, "<html") == 0 ||
         h.compare(first, 5, "<?xml") == 0)) {
        if (why) *why = "an HTML or XML page, not a netlist";
        return Format::Unknown;
    }

    Evidence ev;
    const bool model_cards = has_spice_model_card(h);
    if (model_cards) ev.add(Format::Spice, 3);
    else if (line_starts_with(h, ".model")) ev.add(Format::Blif, 3);
    if (line_starts_with(h, ".inputs")) ev.add(Format::Blif, 3);
    if (line_starts_with(h, ".outputs")) ev.add(Format::Blif, 3);
    if (line_starts_with(h, ".names")) ev.add(Format::Blif, 3);
    if (line_starts_with(h, ".latch")) ev.add(Format::Blif, 2);
    if (line_starts_with(h, "input(")) ev.add(Format::Bench, 4);
    if (line_starts_with(h, "output(")) ev.add(Format::Bench, 4);
    if (h.find("= nand(") != std::string::npos || h.find("= dff(") != std::string::npos ||
        h.find("= and(") != std::string::npos || h.find("= not(") != std::string::npos)
        ev.add(Format::Bench, 2);
    if (line_starts_with(h, "module")) ev.add(Format::Verilog, 4);
    if (h.find("endmodule") != std::string::npos) ev.add(Format::Verilog, 2);
    if (line_starts_with(h, "library") && h.find('{') != std::string::npos) ev.add(Format::Liberty, 4);
    if (h.find("cell (") != std::string::npos || h.find("cell(") != std::string::npos)
        ev.add(Format::Liberty, 1);
    if (line_starts_with(h, "macro")) ev.add(Format::Lef, 3);
    if (line_starts_with(h, "layer")) ev.add(Format::Lef, 1);
    if (line_starts_with(h, "site")) ev.add(Format::Lef, 1);
    if (line_starts_with(h, "design")) ev.add(Format::Def, 3);
    if (line_starts_with(h, "diearea")) ev.add(Format::Def, 3);
    if (line_starts_with(h, "components")) ev.add(Format::Def, 2);
    if (line_starts_with(h, ".subckt")) ev.add(Format::Spice, 3);
    if (line_starts_with(h, ".ends")) ev.add(Format::Spice, 2);
    if (line_starts_with(h, ".control") || line_starts_with(h, ".tran") ||
        line_starts_with(h, ".model ") || line_starts_with(h, ".include"))
        ev.add(Format::Spice, 1);

    const Format by_ext = from_extension(path);
    if (by_ext != Format::Unknown) ev.add(by_ext, 1); // the name breaks ties only

    int best = 0;
    Format f = Format::Unknown;
    for (int i = 1; i < 9; ++i) {
        if (ev.score[i] > best) {
            best = ev.score[i];
            f = static_cast<Format>(i);
        }
    }
    if (best <= 1) {
        // Only the extension (or nothing) speaks for a format: the content has none of its
        // keywords. Trust the extension so that its reader reports the precise problem.
        if (by_ext != Format::Unknown) return by_ext;
        if (why)
            *why = content.find_first_not_of(" \t\r\n") == std::string_view::npos
                       ? "an empty file"
                       : "text without the keywords of any of them";
        return Format::Unknown;
    }
    return f;
}

} // namespace gsr::netlist
