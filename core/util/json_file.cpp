#include "util/json_file.hpp"

#include "util/diagnostics.hpp"
#include "util/json_text.hpp"
#include "util/source_text.hpp"

namespace gsr {

nlohmann::json read_json_file(const std::string& path, std::string_view expected)
{
    const SourceText src = SourceText::read_file(path);
    try {
        return nlohmann::json::parse(src.text());
    } catch (const nlohmann::json::parse_error& e) {
        // e.byte is 1-based: the character the parser stopped at.
        throw Error(src.location(e.byte > 0 ? e.byte - 1 : 0),
                    "not valid JSON (" + std::string(expected) + ")");
    } catch (const nlohmann::json::exception& e) { // a number past a double's range
        throw Error(SourceLocation{path}, "not valid JSON: " + json_error_text(e) + " (" +
                                              std::string(expected) + ")");
    }
}

} // namespace gsr
