#include "util/source_text.hpp"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <limits>
#include <memory>
#include <new>

#include <sys/stat.h>

#ifdef GSR_HAVE_ZLIB
#include <zlib.h>
#endif

namespace gsr {

namespace {

struct FileCloser {
    void operator()(std::FILE* f) const { std::fclose(f); }
};

std::string read_all(const std::string& path)
{
    std::unique_ptr<std::FILE, FileCloser> f(std::fopen(path.c_str(), "rb"));
    if (!f) throw Error(SourceLocation{path}, std::string("cannot open file: ") + std::strerror(errno));
    // A folder opens too, and its "size" is no byte count (ftell can say LONG_MAX).
    struct stat st {};
    if (fstat(fileno(f.get()), &st) == 0 && S_ISDIR(st.st_mode))
        throw Error(SourceLocation{path}, "is a folder, not a file");
    // /dev/zero or /dev/urandom never end: read, they took every byte of memory. A pipe
    // (/dev/stdin behind `<` or `|`) ends, and is read.
    if (S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode))
        throw Error(SourceLocation{path}, "is a device, not a file");
    std::string data;
    if (S_ISREG(st.st_mode) && st.st_size > 0) data.reserve(static_cast<std::size_t>(st.st_size));
    char buf[1 << 16];
    std::size_t n;
    while ((n = std::fread(buf, 1, sizeof buf, f.get())) > 0) data.append(buf, n);
    if (std::ferror(f.get())) throw Error(SourceLocation{path}, "read error");
    return data;
}

bool is_gzip(std::string_view data)
{
    return data.size() >= 2 && static_cast<unsigned char>(data[0]) == 0x1f &&
           static_cast<unsigned char>(data[1]) == 0x8b;
}

/// Binary AIGER is the one input format that is not text: its header is.
bool looks_like_input(std::string_view head)
{
    return looks_like_text(head) || head.substr(0, 4) == "aig ";
}

std::string inflate_gzip(const std::string& path, const std::string& packed,
                         std::uint64_t max_inflated)
{
#ifdef GSR_HAVE_ZLIB
    z_stream zs{};
    if (inflateInit2(&zs, 16 + MAX_WBITS) != Z_OK) throw Error(SourceLocation{path}, "zlib init failed");
    struct End { // inflateEnd on every way out, std::bad_alloc's too
        z_stream& zs;
        ~End() { inflateEnd(&zs); }
    } const closer{zs};
    std::string out;
    out.reserve(static_cast<std::size_t>(
        std::min<std::uint64_t>(static_cast<std::uint64_t>(packed.size()) * 4, max_inflated)));
    bool head_checked = false; // the first 8 KB looked at: binary data stop the inflation
    // zlib takes at most 4 GiB at a time (uInt): a bigger file is fed in pieces, or all but
    // its size modulo 4 GiB was never read.
    std::size_t left = packed.size(); // not yet handed to zlib
    zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(packed.data()));
    const auto feed = [&] {
        if (zs.avail_in != 0 || left == 0) return;
        const std::size_t n = std::min<std::size_t>(left, std::numeric_limits<uInt>::max());
        zs.avail_in = static_cast<uInt>(n);
        left -= n;
    };
    char buf[1 << 16];
    int rc = Z_OK;
    for (;;) {
        feed();
        zs.next_out = reinterpret_cast<Bytef*>(buf);
        zs.avail_out = sizeof buf;
        rc = inflate(&zs, Z_NO_FLUSH);
        if (rc != Z_OK && rc != Z_STREAM_END) {
            throw Error(SourceLocation{path}, "corrupt or truncated gzip data");
        }
        const std::size_t got = sizeof buf - zs.avail_out;
        if (got > max_inflated - std::min<std::uint64_t>(out.size(), max_inflated)) {
            throw Error(SourceLocation{path},
                        "the gzip data inflate to more than " + std::to_string(max_inflated) +
                            " bytes, the limit for a file of " + std::to_string(packed.size()) +
                            " bytes: a gzip bomb or a corrupt file");
        }
        out.append(buf, got);
        if (!head_checked && out.size() >= 8192) {
            head_checked = true;
            if (!looks_like_input(out))
                throw Error(SourceLocation{path},
                            "found binary data in the first 8 KB of the gzip data: expected a "
                            "text file inside the gzip file");
        }
        if (rc == Z_STREAM_END) {
            // Members joined end to end (`cat a.gz b.gz`, bgzip) are one file, as gzip reads
            // them; trailing zero bytes (padding) are ignored as gzip ignores them; anything
            // else after the data is no gzip.
            std::string_view rest(reinterpret_cast<const char*>(zs.next_in),
                                  zs.avail_in + left);
            if (is_gzip(rest)) {
                inflateReset(&zs);
                continue;
            }
            if (rest.find_first_not_of('\0') != std::string_view::npos) {
                throw Error(SourceLocation{path},
                            "unexpected bytes after the gzip data (expected the end of the file "
                            "or another gzip member)");
            }
            break;
        }
        if (zs.avail_in == 0 && left == 0 && zs.avail_out != 0) {
            throw Error(SourceLocation{path}, "truncated gzip data");
        }
    }
    return out;
#else
    (void)packed;
    (void)max_inflated;
    throw Error(SourceLocation{path}, "gzip input needs zlib, which this build lacks");
#endif
}

} // namespace

std::uint64_t gzip_inflate_limit(std::uint64_t packed)
{
    constexpr std::uint64_t kMiB = std::uint64_t{1} << 20, kGiB = std::uint64_t{1} << 30;
    return std::clamp(packed < kGiB ? 100 * packed : 16 * kGiB, 256 * kMiB, 16 * kGiB);
}

namespace {

/// The file's text; a gzip file inflated to at most *max_inflated bytes, or by default
/// gzip_inflate_limit(its size).
std::string read_text(const std::string& path, const std::uint64_t* max_inflated)
{
    try {
        std::string data = read_all(path);
        if (is_gzip(data))
            data = inflate_gzip(path, data,
                                max_inflated ? *max_inflated : gzip_inflate_limit(data.size()));
        return data;
    } catch (const std::bad_alloc&) {
        throw Error(SourceLocation{path}, "out of memory reading the file");
    }
}

} // namespace

SourceText SourceText::read_file(const std::string& path)
{
    return from_string(path, read_text(path, nullptr));
}

SourceText SourceText::read_file(const std::string& path, std::uint64_t max_inflated)
{
    return from_string(path, read_text(path, &max_inflated));
}

SourceText SourceText::from_string(std::string name, std::string text)
{
    SourceText s;
    s.name_ = std::move(name);
    s.text_ = std::move(text);
    return s;
}

SourceLocation SourceText::location(std::size_t offset) const
{
    if (offset > text_.size()) offset = text_.size();
    int line = 1;
    // Line 1's columns count from past a byte order mark, as an editor shows them.
    std::size_t line_start = std::min(bom_length(text_), offset);
    for (std::size_t i = 0; i < offset; ++i) {
        if (text_[i] == '\n') {
            ++line;
            line_start = i + 1;
        }
    }
    return {name_, line, static_cast<int>(offset - line_start) + 1};
}

void SourceText::fail(std::size_t offset, const std::string& message) const
{
    throw Error(location(offset), message);
}

bool looks_like_text(std::string_view head)
{
    std::size_t n = head.size() < 8192 ? head.size() : 8192;
    std::size_t odd = 0;
    for (std::size_t i = 0; i < n; ++i) {
        unsigned char c = static_cast<unsigned char>(head[i]);
        if (c == 0) return false;
        if (c < 0x20 && c != '\n' && c != '\r' && c != '\t' && c != '\f' && c != '\v') ++odd;
    }
    return odd * 100 <= n; // at most 1% control bytes
}

namespace {

bool is_blank(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

bool is_control(unsigned char c)
{
    return (c < 0x20 && !is_blank(static_cast<char>(c))) || c == 0x7f;
}

} // namespace

std::string hex_byte(unsigned char c)
{
    static const char digits[] = "0123456789abcdef";
    return std::string("0x") + digits[c >> 4] + digits[c & 15];
}

SourceLocation OffsetLocator::locate(std::size_t offset)
{
    const int at = line(offset);
    return {src_.name(), at, static_cast<int>(offset_ - std::min(line_start_, offset_)) + 1};
}

int OffsetLocator::line(std::size_t offset)
{
    const std::string_view text = src_.text();
    if (offset > text.size()) offset = text.size();
    if (offset < offset_) { // asked backwards: start over
        offset_ = 0;
        line_start_ = bom_length(text);
        line_ = 1;
    }
    // One counting pass (vectorised), then the last newline for the column: readers ask once
    // a statement, with few bytes and newlines between asks.
    const char* p = text.data() + offset_;
    const char* end = text.data() + offset;
    const auto newlines = std::count(p, end, '\n');
    if (newlines > 0) {
        line_ += static_cast<int>(newlines);
        const char* last = end - 1;
        while (*last != '\n') --last;
        line_start_ = static_cast<std::size_t>(last + 1 - text.data());
    }
    offset_ = offset;
    return line_;
}

void check_text_input(const SourceText& src, std::string_view format)
{
    const std::string_view text = src.text();
    if (!looks_like_text(text)) {
        std::size_t bad = 0;
        const std::size_t n = text.size() < 8192 ? text.size() : 8192;
        for (std::size_t i = 0; i < n; ++i) {
            if (is_control(static_cast<unsigned char>(text[i]))) {
                bad = i;
                break;
            }
        }
        src.fail(bad, "found binary data (byte " +
                          hex_byte(static_cast<unsigned char>(text[bad])) + "): expected a " +
                          std::string(format) + " text file");
    }
    std::size_t first = bom_length(text);
    while (first < text.size() && is_blank(text[first])) ++first;
    if (first < text.size() && text[first] == '<')
        src.fail(first, "found an HTML or XML page: expected a " + std::string(format) + " file");
}

} // namespace gsr
