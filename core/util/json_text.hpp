#pragma once
// JSON as text, for files, the terminal, the project store and the worker protocols. A string
// that is not valid UTF-8 (a Latin-1 file name, a netlist written in a legacy encoding, a
// damaged project) gets U+FFFD in place of each bad byte, where nlohmann's default would throw
// and lose the whole document. And nlohmann's exceptions as words for a user's message.
#include <nlohmann/json.hpp>

#include <string>

namespace gsr {

inline std::string json_text(const nlohmann::json& j, int indent = -1)
{
    return j.dump(indent, ' ', false, nlohmann::json::error_handler_t::replace);
}

/// What went wrong, without nlohmann's "[json.exception.type_error.302] " tag: "type must be
/// number, but is string".
inline std::string json_error_text(const nlohmann::json::exception& e)
{
    const std::string what = e.what();
    const std::size_t tag_end = what.find("] ");
    return what.rfind("[json.exception.", 0) == 0 && tag_end != std::string::npos
               ? what.substr(tag_end + 2)
               : what;
}

} // namespace gsr
