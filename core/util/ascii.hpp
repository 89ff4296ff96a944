#pragma once
// Case folding of ASCII letters only. The formats' keywords, Liberty names and file
// extensions are ASCII; std::tolower/std::toupper follow the process's LC_CTYPE, and in a
// Turkish locale (which a GUI program takes from its user) 'I' and 'i' are not each other's
// case, so "input(1)" stopped being a bench INPUT in gsr-studio while gsr read it.
#include <string>
#include <string_view>

namespace gsr {

constexpr char ascii_lower(char c) { return c >= 'A' && c <= 'Z' ? char(c - 'A' + 'a') : c; }
constexpr char ascii_upper(char c) { return c >= 'a' && c <= 'z' ? char(c - 'a' + 'A') : c; }

inline std::string ascii_lower(std::string_view s)
{
    std::string out(s);
    for (char& c : out) c = ascii_lower(c);
    return out;
}

inline std::string ascii_upper(std::string_view s)
{
    std::string out(s);
    for (char& c : out) c = ascii_upper(c);
    return out;
}

/// Equal when ASCII letters are folded; other bytes as they are.
constexpr bool ascii_iequal(std::string_view a, std::string_view b)
{
    if (a.size() != b.size()) return false;
    for (std::size_t i = 0; i < a.size(); ++i)
        if (ascii_lower(a[i]) != ascii_lower(b[i])) return false;
    return true;
}

} // namespace gsr
