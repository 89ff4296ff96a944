#pragma once
// JSON as text, for files, the terminal, the project store and the worker protocols. A string
// that is not valid UTF-8 (a Latin-1 file name, a netlist written in a legacy encoding, a
// damaged project) gets U+FFFD in place of each bad byte, where nlohmann's default would throw
// and lose the whole document. And nlohmann's exceptions as words for a user's message.
#include <nlohmann/json.hpp>

#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <type_traits>

namespace gsr {

inline std::string json_text(const nlohmann::json& j, int indent = -1)
{
    return j.dump(indent, ' ', false, nlohmann::json::error_handler_t::replace);
}

/// An ordered_json keeps its keys in insertion order (converted to a json, they were sorted).
/// A template, so that a braced list (`json_text({{"type", "hello"}})`) still means a json.
template <class J>
    requires std::is_same_v<J, nlohmann::ordered_json>
std::string json_text(const J& j, int indent = -1)
{
    return j.dump(indent, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
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

/// `v` as a T when it is one exactly: a whole number in T's range for an integer type (no
/// wrapping of -1 or 2^32, no truncation of 1.9), a boolean for bool, a number for a floating
/// type; other types as nlohmann reads them. Nullopt otherwise.
template <class T> std::optional<T> json_exact(const nlohmann::json& v)
{
    if constexpr (std::is_same_v<T, bool>) {
        if (!v.is_boolean()) return std::nullopt;
        return v.get<bool>();
    } else if constexpr (std::is_integral_v<T> && std::is_unsigned_v<T>) {
        const std::optional<std::uint64_t> n = json_whole(v, std::numeric_limits<T>::max());
        if (!n) return std::nullopt;
        return static_cast<T>(*n);
    } else if constexpr (std::is_integral_v<T>) {
        if (!v.is_number_integer()) return std::nullopt;
        if (v.is_number_unsigned())
            return v.get<std::uint64_t>() <= std::uint64_t(std::numeric_limits<T>::max())
                       ? std::optional<T>(static_cast<T>(v.get<std::uint64_t>()))
                       : std::nullopt;
        const std::int64_t x = v.get<std::int64_t>();
        if (x < std::int64_t(std::numeric_limits<T>::min()) ||
            x > std::int64_t(std::numeric_limits<T>::max()))
            return std::nullopt;
        return static_cast<T>(x);
    } else if constexpr (std::is_floating_point_v<T>) {
        if (!v.is_number()) return std::nullopt;
        return v.get<T>();
    } else {
        try {
            return v.get<T>();
        } catch (const nlohmann::json::exception&) {
            return std::nullopt;
        }
    }
}

} // namespace gsr
