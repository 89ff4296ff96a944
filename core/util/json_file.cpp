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
        // e.byte is 1-based: the character the parser stopped at. The location is ours; the
        // parser's reason ("syntax error while parsing object key - invalid literal; ...")
        // follows its own "parse error at line L, column C: ".
        std::string reason = json_error_text(e);
        if (const std::size_t at = reason.find(": "); reason.rfind("parse error", 0) == 0 &&
                                                      at != std::string::npos)
            reason = reason.substr(at + 2);
        throw Error(src.location(e.byte > 0 ? e.byte - 1 : 0),
                    "not valid JSON (" + std::string(expected) + "): " + reason);
    } catch (const nlohmann::json::exception& e) {
        // A number past a double's range, "number overflow parsing '1e400'": no position
        // comes with it, so the number's first place in the text is found.
        const std::string reason = json_error_text(e);
        SourceLocation where{path};
        const std::size_t open = reason.find("parsing '");
        const std::size_t close =
            open == std::string::npos ? std::string::npos : reason.find('\'', open + 9);
        if (close != std::string::npos && close > open + 9) {
            // Where it stands as a value (after ':', '[' or ','), not inside a string.
            const std::string number = reason.substr(open + 9, close - open - 9);
            const std::string_view text = src.text();
            for (std::size_t at = text.find(number); at != std::string_view::npos;
                 at = text.find(number, at + 1)) {
                const std::size_t before = text.find_last_not_of(" \t\r\n", at - (at > 0));
                if (at > 0 && before != std::string_view::npos &&
                    (text[before] == ':' || text[before] == '[' || text[before] == ',')) {
                    where = src.location(at);
                    break;
                }
            }
        }
        throw Error(where, "not valid JSON: " + reason + " (" + std::string(expected) + ")");
    }
}

} // namespace gsr
