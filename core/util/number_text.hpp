#pragma once
// Numbers as text with a point, whatever C's locale: the window runs under the user's, and the
// files and the terminal must read alike everywhere.
#include <charconv>
#include <cmath>
#include <string>

namespace gsr {

/// `v` with `digits` decimals ("0.750"). Not finite: `undefined` when one is given, else
/// "inf", "-inf" or "nan" as printf writes them.
inline std::string fixed_text(double v, int digits, const char* undefined = nullptr)
{
    if (!std::isfinite(v) && undefined) return undefined;
    char text[400]; // 1e308 in full
    const auto [end, ec] =
        std::to_chars(text, text + sizeof text, v, std::chars_format::fixed, digits);
    return ec == std::errc{} ? std::string(text, end) : std::string();
}

} // namespace gsr
