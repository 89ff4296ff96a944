#include "netlist_generator.hpp"

#include <cstdio>
#include <memory>
#include <stdexcept>
#include <string>

namespace gsr::bench {

namespace {

struct Rng {
    std::uint64_t s;
    std::uint64_t next()
    {
        s += 0x9e3779b97f4a7c15ull;
        std::uint64_t z = s;
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
        return z ^ (z >> 31);
    }
    std::uint64_t below(std::uint64_t n) { return next() % n; }
};

struct FileCloser {
    void operator()(std::FILE* f) const { std::fclose(f); }
};
using File = std::unique_ptr<std::FILE, FileCloser>;

File open_out(const std::string& path)
{
    File f(std::fopen(path.c_str(), "wb"));
    if (!f) throw std::runtime_error("cannot write " + path);
    return f;
}

constexpr int kInputs = 256;
constexpr int kOutputs = 128;

/// A net name for a driver index: primary inputs first, then cell outputs.
std::string net(std::uint64_t i)
{
    return i < kInputs ? "pi[" + std::to_string(i) + "]" : "n" + std::to_string(i - kInputs);
}

} // namespace

std::uint64_t write_verilog_netlist(const std::string& path, std::uint64_t bytes, std::uint64_t seed)
{
    static const char* gates2[] = {"NAND2_X1", "NOR2_X1", "AND2_X1", "OR2_X1", "XOR2_X1"};
    static const char* gates3[] = {"AOI21_X1", "OAI21_X1", "NAND3_X1"};
    File f = open_out(path);
    Rng rng{seed};
    std::fprintf(f.get(), "// generated standard-cell netlist for parser benchmarks\n");
    std::fprintf(f.get(), "module bench_top (clk, pi, po);\n  input clk;\n  input [%d:0] pi;\n  output [%d:0] po;\n",
                 kInputs - 1, kOutputs - 1);
    std::uint64_t written = 120, cells = 0;
    std::string line;
    // Wires are declared in blocks as cells are written; a locality window keeps fan-in near.
    while (written < bytes) {
        const std::uint64_t out = kInputs + cells;
        auto pick = [&] {
            const std::uint64_t avail = out;
            const std::uint64_t window = avail < 4096 ? avail : 4096;
            return avail - 1 - rng.below(window);
        };
        line = "  wire " + net(out) + ";\n";
        const std::uint64_t kind = rng.below(10);
        const std::string inst = "U" + std::to_string(cells);
        if (kind < 6) {
            line += std::string("  ") + gates2[rng.below(5)] + " " + inst + " ( .A1(" + net(pick()) + "), .A2(" +
                    net(pick()) + "), .ZN(" + net(out) + ") );\n";
        } else if (kind < 8) {
            line += std::string("  ") + gates3[rng.below(3)] + " " + inst + " ( .A(" + net(pick()) + "), .B1(" +
                    net(pick()) + "), .B2(" + net(pick()) + "), .ZN(" + net(out) + ") );\n";
        } else if (kind < 9) {
            line += "  INV_X1 " + inst + " ( .A(" + net(pick()) + "), .ZN(" + net(out) + ") );\n";
        } else {
            line += "  DFF_X1 " + inst + " ( .D(" + net(pick()) + "), .CK(clk), .Q(" + net(out) + "), .QN() );\n";
        }
        std::fwrite(line.data(), 1, line.size(), f.get());
        written += line.size();
        ++cells;
    }
    for (int o = 0; o < kOutputs; ++o) {
        line = "  BUF_X1 O" + std::to_string(o) + " ( .A(" + net(kInputs + cells - 1 - (o % cells)) + "), .Z(po[" +
               std::to_string(o) + "]) );\n";
        std::fwrite(line.data(), 1, line.size(), f.get());
    }
    std::fprintf(f.get(), "endmodule\n");
    return cells + kOutputs;
}

std::uint64_t write_blif_netlist(const std::string& path, std::uint64_t bytes, std::uint64_t seed)
{
    File f = open_out(path);
    Rng rng{seed};
    auto bnet = [](std::uint64_t i) { return i < kInputs ? "pi" + std::to_string(i) : "n" + std::to_string(i - kInputs); };
    std::string line = ".model bench_top\n.inputs";
    for (int i = 0; i < kInputs; ++i) line += " " + bnet(i) + (i % 16 == 15 ? " \\\n" : "");
    line += "\n.outputs";
    for (int o = 0; o < kOutputs; ++o) line += " po" + std::to_string(o);
    line += "\n";
    std::fwrite(line.data(), 1, line.size(), f.get());
    std::uint64_t written = line.size(), cells = 0;
    static const char* covers[] = {"11 1\n", "00 0\n", "1- 1\n-1 1\n", "10 1\n01 1\n", "0- 1\n-0 1\n"};
    while (written < bytes) {
        const std::uint64_t out = kInputs + cells;
        const std::uint64_t window = out < 4096 ? out : 4096;
        const std::uint64_t a = out - 1 - rng.below(window), b = out - 1 - rng.below(window);
        line = ".names " + bnet(a) + " " + bnet(b) + " " + bnet(out) + "\n" + covers[rng.below(5)];
        std::fwrite(line.data(), 1, line.size(), f.get());
        written += line.size();
        ++cells;
    }
    for (int o = 0; o < kOutputs; ++o) {
        line = ".names " + bnet(kInputs + cells - 1 - (o % cells)) + " po" + std::to_string(o) + "\n1 1\n";
        std::fwrite(line.data(), 1, line.size(), f.get());
    }
    std::fprintf(f.get(), ".end\n");
    return cells + kOutputs;
}

} // namespace gsr::bench
