#include "netlist/format.hpp"
#include "util/atomic_file.hpp"
#include "util/diagnostics.hpp"
#include "util/json_file.hpp"
#include "util/json_text.hpp"
#include "util/machine.hpp"
#include "util/name_pool.hpp"
#include "util/source_text.hpp"
#include "util/utf8_text.hpp"

#include "test_files.hpp"

#include <gtest/gtest.h>

#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <thread>

using namespace gsr;

TEST(NamePool, InternReturnsTheSameIdForTheSameName)
{
    NamePool p;
    const NameId a = p.intern("net_a");
    EXPECT_EQ(p.intern("net_a"), a);
    EXPECT_NE(p.intern("net_b"), a);
    EXPECT_EQ(p.view(a), "net_a");
    EXPECT_EQ(p.find("missing"), kNoName);
}

TEST(NamePool, SurvivesGrowthWithAMillionNames)
{
    NamePool p;
    for (int i = 0; i < 1000000; ++i) p.intern("n" + std::to_string(i));
    EXPECT_EQ(p.size(), 1000000u);
    EXPECT_EQ(p.find("n777777"), 777777u);
    EXPECT_EQ(p.view(123456), "n123456");
    // Interned again, through the recent-name cache (grown with the table, emptied each time)
    // and the table: the same ids, and no new names.
    for (int i = 0; i < 1000000; i += 997)
        ASSERT_EQ(p.intern("n" + std::to_string(i)), static_cast<NameId>(i)) << i;
    EXPECT_EQ(p.size(), 1000000u);
}

TEST(NamePool, UnindexedNamesAreStoredButNotFound)
{
    NamePool p;
    const NameId id = p.add_unindexed("u1");
    EXPECT_EQ(p.view(id), "u1");
    EXPECT_EQ(p.find("u1"), kNoName);
}

TEST(SourceText, LocationIsOneBasedLineAndColumn)
{
    const auto s = SourceText::from_string("f.v", "ab\ncd\n\nx");
    EXPECT_EQ(s.location(0).str(), "f.v:1:1");
    EXPECT_EQ(s.location(4).str(), "f.v:2:2");
    EXPECT_EQ(s.location(7).str(), "f.v:4:1");
}

TEST(Error, WhatIsFileLineColumnErrorMessage)
{
    const Error e(SourceLocation{"a.bench", 3, 7}, "expected ')'");
    EXPECT_STREQ(e.what(), "a.bench:3:7: error: expected ')'");
}

TEST(SourceText, GzipIsInflated)
{
    const auto s = SourceText::read_file(std::string(GSR_DATA_DIR) + "/netlists/openroad_nangate45/nangate45_typ.lib.gz");
    EXPECT_NE(s.text().find("library (NangateOpenCellLibrary)"), std::string_view::npos);
}

TEST(SourceText, GzipMembersJoinedAreOneFileAndTrailingBytesAreNamed)
{
    // `cat a.gz b.gz` (bgzip writes such files too): only the first member was read, without
    // a word; bytes after the data were ignored.
    const std::string lib =
        std::string(GSR_DATA_DIR) + "/netlists/openroad_nangate45/nangate45_typ.lib.gz";
    const std::string one = std::string(SourceText::read_file(lib).text());
    std::ifstream in(lib, std::ios::binary);
    const std::string packed((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    const gsr::test::ScratchDir dir("gsr_gzip_members");
    const auto write = [&](const char* name, const std::string& bytes) {
        const std::string path = (dir.path / name).string();
        std::ofstream(path, std::ios::binary) << bytes;
        return path;
    };
    EXPECT_EQ(SourceText::read_file(write("two.lib.gz", packed + packed)).text(), one + one);
    EXPECT_EQ(SourceText::read_file(write("padded.lib.gz", packed + std::string(512, '\0'))).text(),
              one);
    const std::string junk = write("junk.lib.gz", packed + "junk");
    try {
        (void)SourceText::read_file(junk);
        FAIL() << "bytes after the gzip data were ignored";
    } catch (const Error& e) {
        EXPECT_EQ(e.where().file, junk);
        EXPECT_NE(e.message().find("unexpected bytes after the gzip data"), std::string::npos)
            << e.message();
    }
}

namespace {

/// `text` as a gzip file of stored (uncompressed) deflate blocks, made without zlib.
std::string stored_gzip(const std::string& text)
{
    std::uint32_t table[256];
    for (std::uint32_t n = 0; n < 256; ++n) {
        std::uint32_t c = n;
        for (int k = 0; k < 8; ++k) c = (c & 1) ? 0xedb88320u ^ (c >> 1) : c >> 1;
        table[n] = c;
    }
    std::uint32_t crc = 0xffffffffu;
    for (const char ch : text)
        crc = table[(crc ^ static_cast<unsigned char>(ch)) & 0xff] ^ (crc >> 8);
    crc ^= 0xffffffffu;
    const auto le32 = [](std::uint32_t v) {
        std::string s;
        for (int i = 0; i < 4; ++i) s += static_cast<char>((v >> (8 * i)) & 0xff);
        return s;
    };
    std::string out("\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\xff", 10);
    std::size_t at = 0;
    do {
        const std::size_t n = std::min<std::size_t>(text.size() - at, 65535);
        out += static_cast<char>(at + n == text.size() ? 1 : 0); // BFINAL, BTYPE 00 (stored)
        out += static_cast<char>(n & 0xff);
        out += static_cast<char>(n >> 8);
        out += static_cast<char>(~n & 0xff);
        out += static_cast<char>((~n >> 8) & 0xff);
        out.append(text, at, n);
        at += n;
    } while (at < text.size());
    return out + le32(crc) + le32(static_cast<std::uint32_t>(text.size()));
}

} // namespace

TEST(SourceText, GzipInflatingPastItsLimitFailsNamingTheFile)
{
    // Inflation had no bound: 5 MB of gzip took 1.4 GB before a reader saw a byte.
    std::string text;
    while (text.size() < 20000) text += "module m (a); input a; endmodule\n";
    text.resize(20000);
    const gsr::test::ScratchDir dir("gsr_gzip_limit");
    const std::string path = (dir.path / "m.v.gz").string();
    std::ofstream(path, std::ios::binary) << stored_gzip(text);
    EXPECT_EQ(SourceText::read_file(path).text(), text);
    EXPECT_EQ(SourceText::read_file(path, 20000).text(), text);
    try {
        (void)SourceText::read_file(path, 19999);
        FAIL() << "inflated past the limit";
    } catch (const Error& e) {
        EXPECT_EQ(e.where().file, path);
        EXPECT_NE(e.message().find("gzip data inflate to more than 19999 bytes, the limit for a file of"),
                  std::string::npos)
            << e.message();
    }
}

TEST(SourceText, GzipOfBinaryDataFailsInItsFirst8KB)
{
    // A gzip of zeros was inflated whole before "found binary data"; binary AIGER, whose
    // header is text, is the one binary input read.
    const gsr::test::ScratchDir dir("gsr_gzip_binary");
    const std::string zeros = (dir.path / "zeros.v.gz").string();
    std::ofstream(zeros, std::ios::binary) << stored_gzip(std::string(1 << 20, '\0'));
    try {
        (void)SourceText::read_file(zeros);
        FAIL() << "binary data inflated";
    } catch (const Error& e) {
        EXPECT_EQ(e.where().file, zeros);
        EXPECT_EQ(e.message(), "found binary data in the first 8 KB of the gzip data: expected a "
                               "text file inside the gzip file");
    }
    const std::string aig = (dir.path / "c.aig.gz").string();
    const std::string binary_aiger = "aig 3 2 0 1 1\n6\n" + std::string(20000, '\0');
    std::ofstream(aig, std::ios::binary) << stored_gzip(binary_aiger);
    EXPECT_EQ(SourceText::read_file(aig).text(), binary_aiger);
}

TEST(SourceText, GzipInflateLimitIs100TimesTheFileBetween256MiBAnd16GiB)
{
    constexpr std::uint64_t kGiB = std::uint64_t{1} << 30;
    EXPECT_EQ(gzip_inflate_limit(0), kGiB / 4);
    EXPECT_EQ(gzip_inflate_limit(1'000'000), kGiB / 4);
    EXPECT_EQ(gzip_inflate_limit(5'000'000), 500'000'000u);
    EXPECT_EQ(gzip_inflate_limit(100'000'000), 10'000'000'000u);
    EXPECT_EQ(gzip_inflate_limit(kGiB), 16 * kGiB);
    EXPECT_EQ(gzip_inflate_limit(std::uint64_t{1} << 62), 16 * kGiB);
}

TEST(SourceText, MissingFileIsAnError)
{
    EXPECT_THROW(SourceText::read_file("/nonexistent/file.v"), Error);
}

TEST(SourceText, AFolderIsAnErrorNamingIt)
{
    // fopen takes a folder, whose ftell can say LONG_MAX: once an allocation of that size.
    const std::string folder = ::testing::TempDir();
    try {
        (void)SourceText::read_file(folder);
        FAIL() << "read a folder";
    } catch (const Error& e) {
        const std::string what = e.what();
        EXPECT_NE(what.find(folder), std::string::npos) << what;
        EXPECT_NE(what.find("is a folder, not a file"), std::string::npos) << what;
    }
}

TEST(SourceText, ADeviceIsAnErrorNamingItAndAPipeIsRead)
{
    // /dev/zero never ends: `gsr info /dev/zero` read until memory ran out ("error: out of
    // memory", no file named). A pipe ends, and is read.
    for (const std::string device : {"/dev/zero", "/dev/null"}) {
        try {
            (void)SourceText::read_file(device);
            FAIL() << "read " << device;
        } catch (const Error& e) {
            EXPECT_EQ(std::string(e.what()), device + ": error: is a device, not a file");
        }
    }
    int fds[2];
    ASSERT_EQ(::pipe(fds), 0);
    ASSERT_EQ(::write(fds[1], "INPUT(a)\n", 9), 9);
    ::close(fds[1]);
    const std::string path = "/dev/fd/" + std::to_string(fds[0]);
    EXPECT_EQ(SourceText::read_file(path).text(), "INPUT(a)\n");
    ::close(fds[0]);
}

TEST(Diagnostics, AMessagePastTwoThousandBytesSaysHowMuchItLeftOut)
{
    // A 2 MB identifier quoted in an error made a 2 MB line on stderr. The start and the end
    // stay (what the message quotes, and what it expected after it).
    const std::string token(2'000'000, 'x');
    const Error e(SourceLocation{"big.v", 1, 2}, "found '" + token + "': expected a name");
    EXPECT_EQ(e.message(), "found '" + std::string(1500 - 7, 'x') + " ... (" +
                               std::to_string(7 + 2'000'000 + 18 - 2000) +
                               " bytes not shown) ... " + std::string(500 - 18, 'x') +
                               "': expected a name");
    EXPECT_EQ(std::string(e.what()), "big.v:1:2: error: " + e.message());
    // Cut between characters: a 2-byte character across the head's limit is left out whole.
    const Error accented(SourceLocation{}, std::string(1499, 'a') + "\xC3\xA9" + std::string(600, 'z'));
    EXPECT_EQ(accented.message().substr(0, 1504), std::string(1499, 'a') + " ... ");
    // Short ones are as given; warnings are capped alike.
    EXPECT_EQ(Error("short").message(), "short");
    Diagnostics d;
    d.warn({}, std::string(5000, 'w'));
    EXPECT_EQ(d.warnings()[0].message,
              std::string(1500, 'w') + " ... (3000 bytes not shown) ... " + std::string(500, 'w'));
}

TEST(FormatDetection, ContentWinsOverTheExtension)
{
    using netlist::Format;
    EXPECT_EQ(netlist::detect_format("x.v", "INPUT(a)\nOUTPUT(b)\nb = NOT(a)\n"), Format::Bench);
    EXPECT_EQ(netlist::detect_format("x.txt", ".model m\n.inputs a\n.names a b\n1 1\n"), Format::Blif);
    EXPECT_EQ(netlist::detect_format("x.bench", "module m(a); input a; endmodule\n"), Format::Verilog);
    EXPECT_EQ(netlist::detect_format("x", "aig 0 0 0 0 0\n"), Format::Aiger);
    EXPECT_EQ(netlist::detect_format("x.lib", "library (foo) {\n cell (a) {}\n}\n"), Format::Liberty);
    // A flat SPICE deck with model cards and no .subckt was BLIF (".model" scored for BLIF).
    const char* deck = "inverter\nM1 out in vdd vdd pch\nM2 out in 0 0 nch\n"
                       ".model nch nmos level=1\n.MODEL pch PMOS(level=1)\n.end\n";
    EXPECT_EQ(netlist::detect_format("x.sp", deck), Format::Spice);
    EXPECT_EQ(netlist::detect_format("x.cir", deck), Format::Spice);
    EXPECT_EQ(netlist::detect_format("x.blif", ".model top\n.end\n"), Format::Blif);
    // A technology LEF (layers, vias, no MACRO) saved as .tlef: "expected a netlist".
    EXPECT_EQ(netlist::detect_format("tech.tlef", "VERSION 5.8 ;\nUNITS\n DATABASE MICRONS 2000 ;\n"
                                                  "END UNITS\nEND LIBRARY\n"),
              Format::Lef);
    std::string why;
    EXPECT_EQ(netlist::detect_format("x.bench", "<!DOCTYPE html><html>404</html>", &why), Format::Unknown);
    EXPECT_NE(why.find("HTML"), std::string::npos);
    EXPECT_EQ(netlist::detect_format("x.bench", std::string("\x7f" "ELF\0\0\0", 7), &why), Format::Unknown);
    EXPECT_EQ(netlist::detect_format("x", " \n\t\n", &why), Format::Unknown);
    EXPECT_EQ(why, "an empty file");
    EXPECT_EQ(netlist::detect_format("x", "hello world\n", &why), Format::Unknown);
    EXPECT_EQ(why, "text without the keywords of any of them");
}

TEST(JsonText, BytesThatAreNotUtf8BecomeReplacementCharacters)
{
    // "caf\xe9" is Latin-1 for "café": one byte 0xE9, not UTF-8. nlohmann's own dump throws.
    const nlohmann::json j{{"name", std::string("caf\xe9.bench")}, {"ok", "caf\xc3\xa9"}};
    EXPECT_THROW((void)j.dump(), nlohmann::json::type_error);
    const std::string text = json_text(j);
    EXPECT_EQ(text, "{\"name\":\"caf\xef\xbf\xbd.bench\",\"ok\":\"caf\xc3\xa9\"}");
    EXPECT_EQ(nlohmann::json::parse(text)["name"], "caf\xef\xbf\xbd.bench"); // U+FFFD, UTF-8
    EXPECT_EQ(json_text(nlohmann::json{{"a", 1}}, 2), "{\n  \"a\": 1\n}");
}

TEST(JsonText, AnOrderedObjectKeepsItsKeyOrder)
{
    // `gsr runs list --json` and `gsr info --json` came out with their keys sorted.
    const nlohmann::ordered_json j = {{"id", 1}, {"created_at", "x"}, {"b", 2}};
    EXPECT_EQ(json_text(j), R"({"id":1,"created_at":"x","b":2})");
    EXPECT_EQ(json_text(j, 2), "{\n  \"id\": 1,\n  \"created_at\": \"x\",\n  \"b\": 2\n}");
    nlohmann::ordered_json nested = {{"z", nlohmann::ordered_json::array()}, {"a", 0}};
    nested["z"].push_back({{"target", "run:1"}, {"id", 1}});
    EXPECT_EQ(json_text(nested), R"({"z":[{"target":"run:1","id":1}],"a":0})");
    // Bytes that are not UTF-8 are replaced here too, not thrown on.
    EXPECT_EQ(json_text(nlohmann::ordered_json{{"f", "a\xff"}}), "{\"f\":\"a\xEF\xBF\xBD\"}");
    // A braced list is still a (sorted) json, and a json stays one.
    EXPECT_EQ(json_text({{"b", 1}, {"a", 2}}), R"({"a":2,"b":1})");
    EXPECT_EQ(json_text(nlohmann::json{{"b", 1}, {"a", 2}}), R"({"a":2,"b":1})");
}

TEST(AtomicFile, ALinkStaysALinkAndItsFileIsReplaced)
{
    namespace fs = std::filesystem;
    const test::ScratchDir dir("gsr_atomic_link");
    fs::create_directory(dir / "data");
    const fs::path file = dir / "data" / "labels.csv", link = dir / "latest.csv";
    write_file_atomically(file.string(), "old\n");
    fs::permissions(file, fs::perms::owner_read | fs::perms::owner_write);
    fs::create_symlink(fs::path("data") / "labels.csv", link);
    write_file_atomically(link.string(), "new\n");
    EXPECT_TRUE(fs::is_symlink(fs::symlink_status(link))); // it was renamed over before
    EXPECT_EQ(test::read_text(file), "new\n");
    // The permissions of the file replaced are kept.
    EXPECT_EQ(fs::status(file).permissions(), fs::perms::owner_read | fs::perms::owner_write);
    // A dangling link: the file it points to is made.
    const fs::path dangling = dir / "next.csv";
    fs::create_symlink(fs::path("data") / "next-target.csv", dangling);
    write_file_atomically(dangling.string(), "made\n");
    EXPECT_TRUE(fs::is_symlink(fs::symlink_status(dangling)));
    EXPECT_EQ(test::read_text(dir / "data" / "next-target.csv"), "made\n");
}

TEST(AtomicFile, APipeIsWrittenInPlaceNotReplaced)
{
    namespace fs = std::filesystem;
    const test::ScratchDir dir("gsr_atomic_fifo");
    const fs::path fifo = dir / "stream";
    ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
    std::string got;
    std::thread reader([&] { got = test::read_text(fifo); });
    write_file_atomically(fifo.string(), "a,b\n1,2\n");
    reader.join();
    EXPECT_EQ(got, "a,b\n1,2\n");
    EXPECT_TRUE(fs::is_fifo(fs::status(fifo))); // a plain file took its place before
}

TEST(AtomicFile, LongNamesLinkLoopsAndNoTemporaryLeft)
{
    namespace fs = std::filesystem;
    const test::ScratchDir dir("gsr_atomic_names");
    // A legal name of 254 bytes: the temporary's ".NAME.tmp.PID" was past NAME_MAX.
    const fs::path long_name = dir / (std::string(250, 'a') + ".csv");
    write_file_atomically(long_name.string(), "x\n");
    EXPECT_EQ(test::read_text(long_name), "x\n");
    // A loop of links is an error naming the file; the links stay (a plain file took one's
    // place).
    const fs::path loop1 = dir / "loop1", loop2 = dir / "loop2";
    fs::create_symlink("loop2", loop1);
    fs::create_symlink("loop1", loop2);
    try {
        write_file_atomically(loop1.string(), "y\n");
        ADD_FAILURE() << "a link loop was written";
    } catch (const Error& e) {
        EXPECT_EQ(e.where().file, loop1.string());
        EXPECT_NE(std::string(e.what()).find("symbolic links"), std::string::npos) << e.what();
    }
    EXPECT_THROW(check_writable(loop1.string()), Error);
    EXPECT_TRUE(fs::is_symlink(fs::symlink_status(loop1)));
    // An owner-only file stays owner-only, and no temporary is left beside it.
    const fs::path secret = dir / "secret.csv";
    write_file_atomically(secret.string(), "1\n");
    fs::permissions(secret, fs::perms::owner_read | fs::perms::owner_write);
    write_file_atomically(secret.string(), "2\n");
    EXPECT_EQ(fs::status(secret).permissions(), fs::perms::owner_read | fs::perms::owner_write);
    std::size_t entries = 0;
    for ([[maybe_unused]] const auto& e : fs::directory_iterator(dir.path)) ++entries;
    EXPECT_EQ(entries, 4u); // the long name, two links, the secret
}

TEST(AtomicFile, AWriteProtectedFileIsKept)
{
    namespace fs = std::filesystem;
    const test::ScratchDir dir("gsr_atomic_protected");
    const fs::path keep = dir / "keep.html";
    write_file_atomically(keep.string(), "keep\n");
    fs::permissions(keep, fs::perms::owner_read | fs::perms::group_read | fs::perms::others_read);
    for (const auto& attempt : {std::function<void()>([&] { check_writable(keep.string()); }),
                                std::function<void()>([&] {
                                    write_file_atomically(keep.string(), "new\n");
                                })}) {
        try {
            attempt();
            ADD_FAILURE() << "a write-protected file was taken as writable";
        } catch (const Error& e) {
            EXPECT_EQ(e.where().file, keep.string());
            EXPECT_NE(std::string(e.what()).find("is write-protected"), std::string::npos)
                << e.what();
        }
    }
    EXPECT_EQ(test::read_text(keep), "keep\n");
    // Through a link, the file it names decides.
    const fs::path link = dir / "link.html";
    fs::create_symlink("keep.html", link);
    EXPECT_THROW(write_file_atomically(link.string(), "new\n"), Error);
    fs::permissions(keep, fs::perms::owner_write, fs::perm_options::add);
    write_file_atomically(link.string(), "new\n");
    EXPECT_EQ(test::read_text(keep), "new\n");
}

TEST(Utf8Text, CutsBetweenCharacters)
{
    const std::string s = "a\xC3\xA9\xE2\x80\x98\xF0\x9F\x98\x80z"; // a é ‘ 😀 z
    EXPECT_EQ(utf8_cut(s, 0), 0u);
    EXPECT_EQ(utf8_cut(s, 1), 1u);
    EXPECT_EQ(utf8_cut(s, 2), 1u); // inside é
    EXPECT_EQ(utf8_cut(s, 3), 3u);
    EXPECT_EQ(utf8_cut(s, 5), 3u); // inside ‘
    EXPECT_EQ(utf8_cut(s, 9), 6u); // inside the emoji
    EXPECT_EQ(utf8_cut(s, 10), 10u);
    EXPECT_EQ(utf8_cut(s, 99), s.size());
    EXPECT_EQ(shortened_utf8(s, 99), s);
    EXPECT_EQ(shortened_utf8(s, 7), "a\xC3\xA9...");  // 4 bytes would cut ‘
    EXPECT_EQ(shortened_utf8("abcdefgh", 6), "abc...");
}

TEST(Utf8Text, EveryBadByteAndControlBecomesOneReplacement)
{
    const std::string r = "\xEF\xBF\xBD";
    EXPECT_EQ(printable_utf8("plain \xC3\xA9\t\r\n"), "plain \xC3\xA9\t\r\n");
    EXPECT_EQ(printable_utf8(std::string("a\0b", 3)), "a" + r + "b");
    EXPECT_EQ(printable_utf8("\x07\x1B\x7F"), r + r + r);
    EXPECT_EQ(printable_utf8("\xFF"), r);
    EXPECT_EQ(printable_utf8("\xC3"), r);                 // cut short at the end
    EXPECT_EQ(printable_utf8("\xC3z"), r + "z");          // cut short before an ASCII byte
    EXPECT_EQ(printable_utf8("\xC0\xAF"), r + r);        // overlong '/'
    EXPECT_EQ(printable_utf8("\xE0\x80\xAF"), r + r + r); // overlong, 3 bytes
    EXPECT_EQ(printable_utf8("\xED\xA0\x80"), r + r + r); // a surrogate
    EXPECT_EQ(printable_utf8("\xF4\x90\x80\x80"), r + r + r + r); // past U+10FFFF
    EXPECT_EQ(printable_utf8("\xF4\x8F\xBF\xBF"), "\xF4\x8F\xBF\xBF"); // U+10FFFF itself
    EXPECT_EQ(printable_utf8("\xEF\xBF\xBD"), r);
}

TEST(Machine, MemoryIsTheMachinesOrItsControlGroupsLowerLimit)
{
    const long pages = ::sysconf(_SC_PHYS_PAGES), page = ::sysconf(_SC_PAGE_SIZE);
    ASSERT_GT(pages, 0);
    const std::uint64_t machine = std::uint64_t(pages) * std::uint64_t(page);
    const std::uint64_t usable = physical_memory_bytes();
    EXPECT_GT(usable, 0u);
    EXPECT_LE(usable, machine);
    // Where this process's cgroup v2 group has a limit, that limit is what comes back.
    std::ifstream groups("/proc/self/cgroup");
    for (std::string line; std::getline(groups, line);)
        if (line.rfind("0::", 0) == 0) {
            std::ifstream max("/sys/fs/cgroup" + (line.substr(3) == "/" ? "" : line.substr(3)) +
                              "/memory.max");
            std::uint64_t limit = 0;
            if (max >> limit && limit < machine) EXPECT_LE(usable, limit);
        }
}

TEST(JsonFile, ANumberPastADoublesRangeIsPlacedWhereItIsAValue)
{
    // The parser gives no position for it; the first "1e400" of the text was in a string.
    const test::ScratchDir dir("gsr_json_overflow");
    const std::string file = (dir.path / "big.json").string();
    std::ofstream(file) << "{\"note\": \"1e400 is too big\",\n  \"x\": 1e400}\n";
    try {
        (void)read_json_file(file, "expected a test");
        FAIL() << "1e400 was read";
    } catch (const Error& e) {
        EXPECT_EQ(e.where().line, 2);
        EXPECT_EQ(e.where().column, 8);
        EXPECT_NE(std::string(e.what()).find("number overflow parsing '1e400'"),
                  std::string::npos)
            << e.what();
    }
    // Any other mistake: the place and the parser's reason.
    std::ofstream(file) << "{\"a\": [1, 2\n";
    try {
        (void)read_json_file(file, "expected a test");
        FAIL() << "a cut array was read";
    } catch (const Error& e) {
        EXPECT_EQ(e.where().line, 2);
        EXPECT_NE(std::string(e.what()).find("not valid JSON (expected a test): syntax error"),
                  std::string::npos)
            << e.what();
    }
}
