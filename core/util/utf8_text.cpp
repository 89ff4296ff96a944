#include "util/utf8_text.hpp"

namespace gsr {

namespace {

constexpr std::string_view kReplacement = "\xEF\xBF\xBD"; // U+FFFD

bool continuation(unsigned char c)
{
    return (c & 0xC0) == 0x80;
}

/// The length of the valid UTF-8 sequence at s[i], or 0 when there is none.
std::size_t sequence_length(std::string_view s, std::size_t i)
{
    const auto b = [&](std::size_t k) { return static_cast<unsigned char>(s[i + k]); };
    const unsigned char c = b(0);
    if (c < 0x80) return 1;
    std::size_t n = 0;
    unsigned char lo = 0x80, hi = 0xBF; // the allowed range of the second byte
    if (c >= 0xC2 && c <= 0xDF) {
        n = 2;
    } else if (c >= 0xE0 && c <= 0xEF) {
        n = 3;
        if (c == 0xE0) lo = 0xA0; // overlong
        if (c == 0xED) hi = 0x9F; // surrogates
    } else if (c >= 0xF0 && c <= 0xF4) {
        n = 4;
        if (c == 0xF0) lo = 0x90; // overlong
        if (c == 0xF4) hi = 0x8F; // past U+10FFFF
    } else {
        return 0;
    }
    if (i + n > s.size()) return 0;
    if (b(1) < lo || b(1) > hi) return 0;
    for (std::size_t k = 2; k < n; ++k)
        if (!continuation(b(k))) return 0;
    return n;
}

} // namespace

std::size_t utf8_cut(std::string_view s, std::size_t n)
{
    if (n >= s.size()) return s.size();
    while (n > 0 && continuation(static_cast<unsigned char>(s[n]))) --n;
    return n;
}

std::string printable_utf8(std::string_view s)
{
    std::string out;
    out.reserve(s.size());
    for (std::size_t i = 0; i < s.size();) {
        const auto c = static_cast<unsigned char>(s[i]);
        const std::size_t n = sequence_length(s, i);
        const bool control = n == 1 && ((c < 0x20 && c != '\t' && c != '\n' && c != '\r') ||
                                        c == 0x7F);
        if (n == 0 || control) {
            out += kReplacement;
            ++i;
        } else {
            out.append(s, i, n);
            i += n;
        }
    }
    return out;
}

std::string shortened_utf8(std::string_view s, std::size_t limit)
{
    if (s.size() <= limit) return std::string(s);
    return std::string(s.substr(0, utf8_cut(s, limit - 3))) + "...";
}

} // namespace gsr
