#pragma once
// JSON as text, for files, the terminal, the project store and the worker protocols. A string
// that is not valid UTF-8 (a Latin-1 file name, a netlist written in a legacy encoding, a
// damaged project) gets U+FFFD in place of each bad byte, where nlohmann's default would throw
// and lose the whole document.
#include <nlohmann/json.hpp>

#include <string>

namespace gsr {

inline std::string json_text(const nlohmann::json& j, int indent = -1)
{
    return j.dump(indent, ' ', false, nlohmann::json::error_handler_t::replace);
}

} // namespace gsr
