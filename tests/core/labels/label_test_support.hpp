#pragma once
// Helpers shared by the label tests: circuits from text, a simulation with the circuit's own net
// structure, the reference data set, a CSV reader, and an independent scalar evaluator that
// computes one vector at a time straight from the circuit model.
#include "labels/logic_simulator.hpp"
#include "labels/net_structure.hpp"
#include "netlist/circuit.hpp"
#include "netlist/readers.hpp"
#include "test_files.hpp"

#include <cstdint>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

namespace gsr::labels::testing {

/// A circuit from netlist text in memory (the format is detected from the content).
inline netlist::Circuit circuit_of(const std::string& name, const std::string& text)
{
    return netlist::load_netlist(SourceText::from_string(name, text));
}

/// A simulation of a circuit over its own net structure.
inline SimulationResult simulate(const netlist::Circuit& c, const SimulationOptions& o)
{
    return LogicSimulator(c, build_net_structure(c)).run(o);
}

/// Random mode: `n` vectors from `seed`.
inline SimulationOptions random_vectors(std::uint64_t n, std::uint64_t seed, unsigned threads = 0)
{
    SimulationOptions o;
    o.mode = SimulationMode::Random;
    o.vectors = n;
    o.seed = seed;
    o.threads = threads;
    return o;
}

/// Sequential mode: `runs` side by side, `cycles` each, the first `warmup` not counted.
inline SimulationOptions sequential_runs(std::uint64_t runs, std::uint32_t cycles = 80,
                                         std::uint32_t warmup = 16, unsigned threads = 0)
{
    SimulationOptions o;
    o.mode = SimulationMode::Sequential;
    o.runs = runs;
    o.cycles = cycles;
    o.warmup = warmup;
    o.threads = threads;
    return o;
}

inline std::string labels_dir() { return std::string(GSR_DATA_DIR) + "/labels"; }
inline std::string netlists_dir() { return std::string(GSR_DATA_DIR) + "/netlists"; }

using gsr::test::read_text;

/// One command line of the README: the netlist and its stimulus settings.
struct ReferenceRun {
    std::string netlist; ///< relative to netlists_dir()
    std::string csv;
    std::string mode;
    std::uint64_t vectors = 65536, seed = 1, runs = 4096; // labelsim.py defaults
    std::uint32_t cycles = 80, warmup = 16;
};

/// The `python3 $L $N/... CSV --mode ...` lines of shared/data/labels/README.md.
inline std::vector<ReferenceRun> reference_runs()
{
    std::vector<ReferenceRun> runs;
    std::istringstream in(read_text(labels_dir() + "/README.md"));
    std::string line;
    while (std::getline(in, line)) {
        std::istringstream words(line);
        std::vector<std::string> t;
        for (std::string w; words >> w;) t.push_back(w);
        if (t.size() < 6 || t[0] != "python3" || t[1] != "$L" || t[2].rfind("$N/", 0) != 0)
            continue;
        ReferenceRun r;
        r.netlist = t[2].substr(3);
        r.csv = t[3];
        for (std::size_t i = 4; i + 1 < t.size(); i += 2) {
            const std::string& flag = t[i];
            const std::string& v = t[i + 1];
            if (flag == "--mode") r.mode = v;
            else if (flag == "--vectors") r.vectors = std::stoull(v);
            else if (flag == "--seed") r.seed = std::stoull(v);
            else if (flag == "--runs") r.runs = std::stoull(v);
            else if (flag == "--cycles") r.cycles = static_cast<std::uint32_t>(std::stoul(v));
            else if (flag == "--warmup") r.warmup = static_cast<std::uint32_t>(std::stoul(v));
        }
        runs.push_back(r);
    }
    return runs;
}

/// A CSV file with a header row; fields split at commas (the reference files quote nothing).
struct CsvTable {
    std::vector<std::string> header;
    std::vector<std::vector<std::string>> rows;

    std::optional<std::size_t> column(const std::string& name) const
    {
        for (std::size_t i = 0; i < header.size(); ++i)
            if (header[i] == name) return i;
        return std::nullopt;
    }
};

inline CsvTable parse_csv(const std::string& text)
{
    CsvTable t;
    std::istringstream in(text);
    std::string line;
    bool first = true;
    while (std::getline(in, line)) {
        if (line.empty()) continue;
        std::vector<std::string> f;
        std::size_t s = 0;
        for (;;) {
            const std::size_t e = line.find(',', s);
            f.push_back(line.substr(s, e == std::string::npos ? std::string::npos : e - s));
            if (e == std::string::npos) break;
            s = e + 1;
        }
        if (first) t.header = std::move(f);
        else t.rows.push_back(std::move(f));
        first = false;
    }
    return t;
}

/// Evaluates the combinational logic for one assignment of the primary inputs and flip-flop
/// outputs (`known` holds them), cell by cell until nothing changes: no levelization, no
/// words, nothing shared with the simulator.
class ScalarEvaluator {
public:
    explicit ScalarEvaluator(const netlist::Circuit& c) : c_(c) {}

    /// values: per net, -1 unknown, else 0/1. Fills every net a combinational cell drives.
    void evaluate(std::vector<int>& values) const
    {
        bool progress = true;
        while (progress) {
            progress = false;
            for (netlist::CellId id = 0; id < c_.cells.size(); ++id) {
                const netlist::Cell& cell = c_.cells[id];
                if (cell.kind == netlist::CellKind::FlipFlop) continue;
                std::vector<int> in;
                netlist::NetId out = netlist::kNoNet;
                bool ready = true;
                const netlist::Pin* pins = c_.pins_of(cell);
                for (std::uint32_t k = 0; k < cell.pin_count; ++k) {
                    const netlist::Pin& p = pins[k];
                    if (p.dir == netlist::Direction::Output) {
                        out = p.net;
                    } else if (p.dir == netlist::Direction::Input) {
                        if (values[p.net] < 0) ready = false;
                        else in.push_back(values[p.net] ^ (p.inverted ? 1 : 0));
                    }
                }
                if (!ready || out == netlist::kNoNet || values[out] >= 0) continue;
                values[out] = gate(id, std::string(c_.cell_type(cell)), in);
                progress = true;
            }
        }
    }

private:
    int gate(netlist::CellId id, const std::string& t, const std::vector<int>& in) const
    {
        int a = 1, o = 0, x = 0;
        for (int v : in) {
            a &= v;
            o |= v;
            x ^= v;
        }
        if (t == "AND") return a;
        if (t == "NAND") return !a;
        if (t == "OR") return o;
        if (t == "NOR") return !o;
        if (t == "XOR") return x;
        if (t == "XNOR") return !x;
        if (t == "BUF") return in.at(0);
        if (t == "NOT") return !in.at(0);
        if (t == "MUX") return in.at(0) ? in.at(1) : in.at(2);
        if (t == "CONST0" || t == "GND") return 0;
        if (t == "CONST1" || t == "VDD") return 1;
        // A BLIF cover: does any cube match?
        const std::string cover(c_.cover(id));
        std::istringstream lines(cover);
        std::string l;
        int out_value = 1;
        bool hit = false;
        while (std::getline(lines, l)) {
            if (l.empty()) continue;
            out_value = l.back() - '0';
            bool match = true;
            for (std::size_t i = 0; i < in.size(); ++i)
                if (l[i] != '-' && (l[i] - '0') != in[i]) match = false;
            hit = hit || match;
        }
        return hit ? out_value : !out_value;
    }

    const netlist::Circuit& c_;
};

} // namespace gsr::labels::testing
