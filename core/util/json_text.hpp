#pragma once
// JSON as text, for files, the terminal, the project store and the worker protocols. A string
// that is not valid UTF-8 (a Latin-1 file name, a netlist written in a legacy encoding, a
// damaged project) gets U+FFFD in place of each bad byte, where nlohmann's default would throw
// and lose the whole document. And nlohmann's exceptions as words for a user's message.
#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
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

/// The whole number `v` if it is one from 0 to `most`, else nullopt: nlohmann's get of an
/// unsigned would wrap -1 into 4294967295 and cast 1e300 without a word.
inline std::optional<std::uint64_t> json_whole(const nlohmann::json& v, std::uint64_t most)
{
    if (!v.is_number_integer()) return std::nullopt;
    if (!v.is_number_unsigned() && v.get<std::int64_t>() < 0) return std::nullopt;
    if (v.get<std::uint64_t>() > most) return std::nullopt;
    return v.get<std::uint64_t>();
}

} // namespace gsr
