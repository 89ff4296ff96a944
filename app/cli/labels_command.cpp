// `gsr labels`: per-net learning targets of a netlist (signal probability, toggle rate, logic
// levels, arrival time), written as one CSV in the layout of shared/data/labels.
#include "cli_commands.hpp"

#include "labels/arrival_time.hpp"
#include "labels/label_set.hpp"
#include "labels/logic_simulator.hpp"
#include "labels/net_levels.hpp"
#include "labels/net_structure.hpp"
#include "netlist/readers.hpp"

#include <charconv>
#include <chrono>
#include <cstdio>
#include <iostream>
#include <optional>

namespace gsr::cli {

namespace {

struct Targets {
    bool probability = false; ///< sp: sim_ones, sim_total, sim_prob
    bool toggles = false;     ///< toggle: toggles, toggle_total, toggle_rate
    bool arrival = false;
    bool toggles_named = false; ///< "toggle" itself, not through "all"
    // level: the structural columns, which every target writes
};

Targets parse_targets(const std::string& text)
{
    Targets t;
    std::size_t s = 0;
    for (;;) {
        const std::size_t e = text.find(',', s);
        const std::size_t length = e == std::string::npos ? std::string::npos : e - s;
        const std::string item = text.substr(s, length);
        if (item == "sp") t.probability = true;
        else if (item == "toggle") t.toggles = t.toggles_named = true;
        else if (item == "arrival") t.arrival = true;
        else if (item == "all") t.probability = t.toggles = t.arrival = true;
        else if (item != "level")
            throw UsageError("--target: unknown target '" + item +
                             "' (allowed: sp, toggle, level, arrival, all, or a comma list)");
        if (e == std::string::npos) break;
        s = e + 1;
    }
    return t;
}

std::optional<labels::SimulationMode> parse_mode(const std::string& text)
{
    if (text.empty()) return std::nullopt;
    if (text == "random") return labels::SimulationMode::Random;
    if (text == "exhaustive") return labels::SimulationMode::Exhaustive;
    if (text == "seq") return labels::SimulationMode::Sequential;
    throw UsageError("--mode: unknown mode '" + text + "' (allowed: random, exhaustive, seq)");
}

const char* mode_name(labels::SimulationMode m)
{
    switch (m) {
    case labels::SimulationMode::Random: return "random";
    case labels::SimulationMode::Exhaustive: return "exhaustive";
    case labels::SimulationMode::Sequential: return "seq";
    }
    return "?";
}

} // namespace

int cmd_labels(const std::vector<std::string>& argv)
{
    Args a(argv,
           {"--target", "--mode", "--vectors", "--seed", "--runs", "--cycles", "--warmup",
            "--threads", "--liberty", "--out", "--load-factor", "--input-transition"},
           {"--quiet"});
    if (a.positionals().size() != 1)
        throw UsageError("labels takes one FILE: gsr labels FILE --out CSV [--target "
                         "sp|toggle|level|arrival|all] [--mode random|exhaustive|seq] ...");
    if (!a.has("--out")) throw UsageError("labels needs --out CSV");
    std::vector<std::string> inputs = a.values("--liberty");
    inputs.push_back(a.positionals()[0]);
    refuse_out_over_inputs(a, inputs);
    const Targets targets = parse_targets(a.value("--target", "all"));
    const bool simulate = targets.probability || targets.toggles;
    if (!simulate) // the structural and arrival targets draw no vectors
        for (const char* f : {"--mode", "--vectors", "--seed", "--runs", "--cycles", "--warmup",
                              "--threads"})
            if (a.has(f))
                throw UsageError(std::string(f) + " applies to the simulated targets (sp, toggle, "
                                 "all); --target " + a.value("--target") + " simulates nothing");
    const std::optional<labels::SimulationMode> asked_mode = parse_mode(a.value("--mode"));

    labels::SimulationOptions sim;
    sim.vectors = a.integer("--vectors", sim.vectors, 1, std::uint64_t{1} << 40);
    sim.seed = a.integer("--seed", sim.seed, 0, ~std::uint64_t{0});
    sim.runs = a.integer("--runs", sim.runs, 1, std::uint64_t{1} << 32);
    sim.cycles = static_cast<std::uint32_t>(a.integer("--cycles", sim.cycles, 1, 1u << 24));
    sim.warmup = static_cast<std::uint32_t>(a.integer("--warmup", sim.warmup, 0, 1u << 24));
    sim.threads = thread_flag(a);
    const double load_factor = a.number("--load-factor", labels::DelayModel{}.load_factor, 0.0);
    const double input_transition =
        a.number("--input-transition", labels::DelayModel{}.input_transition, 0.0);
    // Past these, arrival times overflow to infinity at some net, which was then blamed on the
    // netlist's line (exit 2) for a command line's value.
    for (const auto& [flag, value] : {std::pair{"--load-factor", load_factor},
                                      std::pair{"--input-transition", input_transition}})
        if (value > 1e6)
            throw UsageError(std::string(flag) + " " + a.value(flag) +
                             " is out of range: at most 1e6");

    const std::vector<std::string> libs = a.values("--liberty");
    const std::string transition_needs = "--input-transition applies to --target arrival with a "
                                         "--liberty library that has delay tables";
    if (a.has("--input-transition") && !(targets.arrival && !libs.empty()))
        throw UsageError(transition_needs);
    if (a.has("--load-factor") && !targets.arrival)
        throw UsageError("--load-factor applies to --target arrival in the unit-delay model");
    netlist::Library library;
    if (!libs.empty()) library = netlist::load_libraries(libs);
    netlist::LoadOptions load;
    if (!libs.empty()) load.library = &library;
    const netlist::Circuit circuit = netlist::load_netlist(a.positionals()[0], load);
    if (!a.has("--quiet")) { // a table left out, a cell missing from the libraries, ...
        print_warnings(library.diagnostics);
        print_warnings(circuit.diagnostics);
    }
    const labels::NetStructure structure = labels::build_net_structure(circuit);
    // Every target: level and arrival would keep the first driver without a word.
    labels::refuse_multiple_drivers(structure, circuit, "the labels need one driver per net");
    const labels::NetLevels levels = labels::compute_net_levels(structure);

    // Random for combinational circuits, seq for sequential ones, unless asked otherwise.
    sim.mode = asked_mode.value_or(structure.flip_flops > 0 ? labels::SimulationMode::Sequential
                                                            : labels::SimulationMode::Random);
    const bool seq = sim.mode == labels::SimulationMode::Sequential;
    if (simulate) {
        if (a.has("--vectors") && sim.mode != labels::SimulationMode::Random)
            throw UsageError("--vectors applies to --mode random only (this run is --mode " +
                             std::string(mode_name(sim.mode)) + ")");
        for (const char* f : {"--runs", "--cycles", "--warmup"})
            if (a.has(f) && !seq)
                throw UsageError(std::string(f) + " applies to --mode seq only (this run is " +
                                 "--mode " + mode_name(sim.mode) + ")");
        if (a.has("--seed") && sim.mode == labels::SimulationMode::Exhaustive)
            throw UsageError("--seed does not apply to --mode exhaustive (it draws no random "
                             "bits)");
        if (seq && sim.cycles <= sim.warmup)
            throw UsageError("--cycles (" + std::to_string(sim.cycles) +
                             ") must exceed --warmup (" + std::to_string(sim.warmup) + ")");
        const bool exhaustive = sim.mode == labels::SimulationMode::Exhaustive;
        if (targets.toggles_named && exhaustive) // "all" leaves them out instead
            throw UsageError("--target toggle needs --mode random or seq: exhaustive vectors have "
                             "no meaningful order");
        if (targets.toggles_named && !exhaustive &&
            (seq ? sim.cycles - sim.warmup < 2 : sim.vectors < 2))
            throw UsageError(seq ? "--target toggle needs two sampled cycles in a row: --cycles "
                                   "must exceed --warmup by 2 or more"
                                 : "--target toggle needs two vectors in a row: --vectors must be "
                                   "2 or more");
    }

    // Arrival first: it is quick, and a delay flag it cannot use is refused before a long
    // simulation rather than after it.
    std::optional<labels::ArrivalTimes> arrival;
    if (targets.arrival) {
        labels::DelayModel model;
        model.load_factor = load_factor;
        model.input_transition = input_transition;
        if (!libs.empty()) model.library = &library;
        arrival = labels::compute_arrival_times(circuit, structure, model);
        if (arrival->nldm && arrival->cells_without_timing > 0 && !a.has("--quiet"))
            std::cerr << circuit.source << ": warning: " << arrival->cells_without_timing
                      << " combinational cells have no timing arc in the library; they were "
                         "given zero delay\n";
    }
    if (a.has("--input-transition") && !(arrival && arrival->nldm))
        throw UsageError(transition_needs);
    if (a.has("--load-factor") && !(arrival && !arrival->nldm))
        throw UsageError("--load-factor applies to --target arrival in the unit-delay model; "
                         "with a library's delay tables a net's load is its sinks' pin "
                         "capacitances");

    const auto start = std::chrono::steady_clock::now();
    std::optional<labels::SimulationResult> result;
    if (simulate) {
        // Library cells by their Liberty functions (a LEF has none: its cells are named).
        const labels::LogicSimulator simulator(circuit, structure, libs.empty() ? nullptr : &library);
        result = simulator.run(sim);
        if (!targets.toggles) result->has_toggles = false;
    }
    const std::chrono::duration<double> elapsed = std::chrono::steady_clock::now() - start;
    const double seconds = elapsed.count();
    labels::LabelSet set = labels::make_label_set(circuit, structure, levels,
                                                  result ? &*result : nullptr,
                                                  arrival ? &*arrival : nullptr);
    if (simulate && !targets.probability) set.has_simulation = false;
    const std::string out = a.value("--out");
    write_output(out, labels::label_csv(set));
    std::ostream& summary = is_standard_output(out) ? std::cerr : std::cout; // not in the CSV

    if (simulate && structure.undriven_nets > 0 && !a.has("--quiet"))
        std::cerr << circuit.source << ": warning: " << structure.undriven_nets
                  << " nets are read but never driven; they were simulated as 0\n";
    if (!a.has("--quiet")) {
        summary << out << ": " << set.size() << " nets, max level " << levels.max_level;
        if (result) {
            summary << ", " << mode_name(sim.mode) << " simulation of " << result->total
                    << " samples per net";
            char buf[64];
            std::snprintf(buf, sizeof buf, " in %.3f s", seconds);
            summary << buf;
        }
        if (arrival)
            summary << ", max arrival " << arrival->max_arrival
                    << (arrival->nldm ? " ns (NLDM)"
                                      : " (unit-delay model: no Liberty delay tables)");
        summary << '\n';
    }
    return 0;
}

} // namespace gsr::cli
