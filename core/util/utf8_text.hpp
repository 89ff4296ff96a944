#pragma once
// Text from users and tools (a compiler's message, an edited report, a netlist's names) on
// its way into a document: cut between characters, never inside one, and with every byte
// that is not valid UTF-8, and every control character, shown as U+FFFD. cairo refuses a
// whole PDF over one bad byte, and a NUL would end its string early.
#include <string>
#include <string_view>

namespace gsr {

/// The largest n' <= n that does not fall inside a UTF-8 sequence of `s`.
std::size_t utf8_cut(std::string_view s, std::size_t n);

/// `s` with each byte of an invalid UTF-8 sequence (overlong, a surrogate, past U+10FFFF,
/// cut short) and each control character except tab, LF and CR replaced by U+FFFD.
std::string printable_utf8(std::string_view s);

/// At most `limit` bytes of `s` (limit >= 3): longer text is cut between characters and
/// ends with "...".
std::string shortened_utf8(std::string_view s, std::size_t limit);

} // namespace gsr
