#include "train/dataset.hpp"

#include "labels/arrival_time.hpp"
#include "labels/logic_simulator.hpp"
#include "labels/net_levels.hpp"
#include "labels/net_structure.hpp"
#include "netlist/readers.hpp"
#include "util/diagnostics.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <map>

namespace gsr::train {

using netlist::Circuit;
using netlist::Direction;
using netlist::kNoNet;
using netlist::NetId;

RunLibraries::RunLibraries(const std::vector<std::string>& paths)
{
    if (!paths.empty())
        library_ = std::make_unique<netlist::Library>(netlist::load_libraries(paths));
}

RunLibraries::~RunLibraries() = default;
RunLibraries::RunLibraries(RunLibraries&&) noexcept = default;
RunLibraries& RunLibraries::operator=(RunLibraries&&) noexcept = default;

LabelOptions RunLibraries::label_options() const
{
    LabelOptions options;
    options.library = library_.get();
    return options;
}

std::string_view target_name(Target target)
{
    switch (target) {
    case Target::SignalProbability: return "sp";
    case Target::Toggle: return "toggle";
    case Target::Level: return "level";
    case Target::Arrival: return "arrival";
    }
    return "?";
}

Target parse_target(std::string_view name)
{
    for (Target t : {Target::SignalProbability, Target::Toggle, Target::Level, Target::Arrival})
        if (name == target_name(t)) return t;
    throw Error("--target: unknown target '" + std::string(name) +
                "' (allowed: sp, toggle, level, arrival)");
}

std::string_view split_name(Split split)
{
    switch (split) {
    case Split::None: return "none";
    case Split::Train: return "train";
    case Split::Validation: return "val";
    case Split::Test: return "test";
    }
    return "?";
}

NetId net_driven_by(const Circuit& circuit, const graph::CircuitGraph& graph, graph::NodeId node)
{
    const std::int64_t of = graph.cell_of.at(node);
    if (of < 0) return circuit.ports.at(static_cast<std::size_t>(-of - 1)).net;
    const netlist::Cell& cell = circuit.cells.at(static_cast<std::size_t>(of));
    const netlist::Pin* pins = circuit.pins_of(cell);
    // Only Output pins: the labels define a net's driver the same way (labels/net_structure).
    for (std::uint32_t k = 0; k < cell.pin_count; ++k)
        if (pins[k].dir == Direction::Output && pins[k].net != kNoNet) return pins[k].net;
    return kNoNet;
}

namespace {

/// The label of every net, by net id, in the target's units.
std::vector<double> net_labels(const Circuit& circuit, Target target, const LabelOptions& o)
{
    const labels::NetStructure structure = labels::build_net_structure(circuit);
    labels::refuse_multiple_drivers(structure, circuit, "the labels need one driver per net");
    std::vector<double> value(structure.net_count(), 0.0);
    switch (target) {
    case Target::SignalProbability:
    case Target::Toggle: {
        labels::SimulationOptions sim;
        sim.mode = structure.flip_flops > 0 ? labels::SimulationMode::Sequential
                                            : labels::SimulationMode::Random;
        sim.vectors = o.vectors;
        sim.seed = o.seed;
        sim.runs = o.runs;
        sim.cycles = o.cycles;
        sim.warmup = o.warmup;
        sim.threads = o.threads;
        const labels::SimulationResult r =
            labels::LogicSimulator(circuit, structure, o.library).run(sim);
        const bool sp = target == Target::SignalProbability;
        const double total = static_cast<double>(sp ? r.total : r.toggle_total);
        if (total <= 0)
            throw Error(SourceLocation{circuit.source},
                        sp ? "the simulation gave no samples"
                           : "the simulation gave no two samples in a row to count toggles over "
                             "(more vectors, or more cycles past the warm-up)");
        for (std::size_t n = 0; n < value.size(); ++n)
            value[n] = static_cast<double>(sp ? r.ones[n] : r.toggles[n]) / total;
        break;
    }
    case Target::Level: {
        const labels::NetLevels levels = labels::compute_net_levels(structure);
        for (std::size_t n = 0; n < value.size(); ++n) value[n] = levels.level[n];
        break;
    }
    case Target::Arrival: {
        labels::DelayModel model;
        model.load_factor = o.load_factor;
        model.library = o.library; // NLDM where its cells have tables
        // A library of other cells is refused there (every arrival would be 0).
        value = labels::compute_arrival_times(circuit, structure, model).arrival;
        break;
    }
    }
    return value;
}

TargetSummary summarize(const std::vector<double>& target, const std::vector<std::uint8_t>& use)
{
    TargetSummary s;
    double sum = 0.0;
    for (std::size_t v = 0; v < target.size(); ++v) {
        if (!use[v]) continue;
        const double y = target[v];
        s.min = s.count == 0 ? y : std::min(s.min, y);
        s.max = s.count == 0 ? y : std::max(s.max, y);
        sum += y;
        ++s.count;
    }
    if (s.count == 0) return s;
    s.mean = sum / static_cast<double>(s.count);
    double squares = 0.0;
    for (std::size_t v = 0; v < target.size(); ++v)
        if (use[v]) squares += (target[v] - s.mean) * (target[v] - s.mean);
    s.stddev = std::sqrt(squares / static_cast<double>(s.count));
    return s;
}

std::string number(double v)
{
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.6g", v);
    return buf;
}

/// The graph's features with the type one-hot moved to the data set's columns and the degree
/// columns as log(1 + count).
nn::GraphInput graph_input(const graph::CircuitGraph& g, const std::vector<std::string>& types)
{
    std::map<std::string_view, std::size_t> column;
    for (std::size_t i = 0; i < types.size(); ++i) column.emplace(types[i], i);
    std::vector<std::size_t> remap(g.type_names.size());
    for (std::size_t t = 0; t < g.type_names.size(); ++t) remap[t] = column.at(g.type_names[t]);

    nn::GraphInput in;
    in.node_count = g.node_count();
    in.fanin_offsets = g.fanin.offsets;
    in.fanin_targets = g.fanin.targets;
    const std::size_t t_in = g.type_names.size(), f_in = g.feature_count();
    const std::size_t t_out = types.size();
    in.feature_count = t_out + 5;
    const std::vector<float> x = g.features();
    in.features.assign(in.node_count * in.feature_count, 0.0f);
    for (std::size_t v = 0; v < in.node_count; ++v) {
        const float* src = x.data() + v * f_in;
        float* dst = in.features.data() + v * in.feature_count;
        for (std::size_t t = 0; t < t_in; ++t) dst[remap[t]] = src[t];
        dst[t_out + 0] = std::log1p(src[t_in + 0]); // fan-in
        dst[t_out + 1] = std::log1p(src[t_in + 1]); // fan-out
        for (std::size_t k = 2; k < 5; ++k) dst[t_out + k] = src[t_in + k]; // PI, PO, FF
    }
    return in;
}

std::size_t share(std::size_t n, double fraction)
{
    return static_cast<std::size_t>(std::llround(static_cast<double>(n) * fraction));
}

} // namespace

LabelledCircuit label_circuit(const Circuit& circuit, Target target, const LabelOptions& options)
{
    LabelledCircuit out;
    out.name = circuit.source;
    out.graph = graph::build_graph(circuit);
    const std::vector<double> per_net = net_labels(circuit, target, options);
    const std::size_t n = out.graph.node_count();
    out.target.assign(n, 0.0);
    out.has_target.assign(n, 0);
    out.net_of.assign(n, kNoNet);
    out.net_name.assign(n, std::string());
    for (graph::NodeId v = 0; v < n; ++v) {
        const NetId net = net_driven_by(circuit, out.graph, v);
        if (net == kNoNet || net >= per_net.size()) continue;
        out.net_of[v] = net;
        out.net_name[v] = circuit.net_name(net);
        out.target[v] = per_net[net];
        out.has_target[v] = 1;
    }
    return out;
}

std::vector<std::uint32_t> CircuitData::nodes(Split which) const
{
    std::vector<std::uint32_t> out;
    for (std::size_t v = 0; v < split.size(); ++v)
        if (split[v] == which) out.push_back(static_cast<std::uint32_t>(v));
    return out;
}

std::vector<double> CircuitData::in_file_order(const std::vector<double>& values) const
{
    if (file_node.empty()) return values;
    if (values.size() != file_node.size())
        throw std::logic_error("CircuitData::in_file_order: another node count");
    std::vector<double> out(values.size());
    for (std::size_t v = 0; v < values.size(); ++v) out[file_node[v]] = values[v];
    return out;
}

std::vector<std::string> Dataset::feature_names() const
{
    std::vector<std::string> names;
    for (const std::string& t : type_names) names.push_back("type=" + t);
    for (const char* f : {"log1p_fanin", "log1p_fanout", "is_pi", "is_po", "is_flip_flop"})
        names.emplace_back(f);
    return names;
}

std::size_t Dataset::node_count(Split which) const
{
    std::size_t n = 0;
    for (const CircuitData& c : circuits)
        n += static_cast<std::size_t>(std::count(c.split.begin(), c.split.end(), which));
    return n;
}

Dataset make_dataset(Target target, std::vector<LabelledCircuit> circuits,
                     const std::vector<Role>& roles, const HoldOut& hold_out)
{
    if (roles.size() != circuits.size()) {
        throw std::invalid_argument("make_dataset: one role per circuit");
    }
    auto bad_share = [](double f) { return !(f >= 0.0 && f < 1.0); };
    if (bad_share(hold_out.validation) || bad_share(hold_out.test) ||
        hold_out.validation + hold_out.test >= 1.0) {
        throw Error("the held-out shares of the training nodes (validation " +
                    number(hold_out.validation) + ", test " + number(hold_out.test) +
                    ") must each be in [0, 1) and leave some nodes to train on");
    }

    Dataset d;
    d.target = target;
    std::vector<std::string> others;
    for (const LabelledCircuit& c : circuits)
        for (const std::string& t : c.graph.type_names)
            if (t != "PI") others.push_back(t);
    std::sort(others.begin(), others.end());
    others.erase(std::unique(others.begin(), others.end()), others.end());
    d.type_names.push_back("PI");
    d.type_names.insert(d.type_names.end(), others.begin(), others.end());
    d.feature_count = d.type_names.size() + 5;

    const std::string what = "the " + std::string(target_name(target)) + " target";
    for (std::size_t i = 0; i < circuits.size(); ++i) {
        LabelledCircuit& lc = circuits[i];
        CircuitData c;
        c.name = lc.name;
        c.input = graph_input(lc.graph, d.type_names);
        c.graph = std::move(lc.graph);
        c.target = std::move(lc.target);
        c.has_target = std::move(lc.has_target);
        c.net_name = std::move(lc.net_name);
        c.summary = summarize(c.target, c.has_target);
        c.split.assign(c.target.size(), Split::None);

        std::vector<std::uint32_t> labelled;
        for (std::size_t v = 0; v < c.has_target.size(); ++v)
            if (c.has_target[v]) labelled.push_back(static_cast<std::uint32_t>(v));
        if (roles[i] == Role::Train) {
            // Each circuit its own stream: adding a circuit does not reshuffle the others.
            SeededStream random(hold_out.seed ^ (0x9e3779b97f4a7c15ull * (i + 1)));
            random.shuffle(labelled);
            const std::size_t n_val = share(labelled.size(), hold_out.validation);
            const std::size_t n_test = share(labelled.size(), hold_out.test);
            for (std::size_t k = 0; k < labelled.size(); ++k) {
                c.split[labelled[k]] = k < n_val            ? Split::Validation
                                       : k < n_val + n_test ? Split::Test
                                                            : Split::Train;
            }
        } else {
            const Split s = roles[i] == Role::Validation ? Split::Validation : Split::Test;
            for (std::uint32_t v : labelled) c.split[v] = s;
        }

        if (c.summary.count == 0) {
            d.notes.push_back(c.name + ": no node carries " + what);
        } else if (c.summary.constant()) {
            d.notes.push_back(c.name + ": " + what + " has no variance (every node is " +
                              number(c.summary.min) + "); correlations on it alone are "
                              "undefined");
        }
        d.circuits.push_back(std::move(c));
    }

    // The scaling the trainer learns in: mean and spread of the training nodes.
    std::vector<double> train_values;
    for (const CircuitData& c : d.circuits)
        for (std::size_t v = 0; v < c.split.size(); ++v)
            if (c.split[v] == Split::Train) train_values.push_back(c.target[v]);
    if (train_values.empty()) {
        // Name the training circuits with nothing to label: the notes that say so are lost
        // with the throw.
        std::string unlabelled;
        for (std::size_t i = 0; i < d.circuits.size(); ++i)
            if (roles[i] == Role::Train && d.circuits[i].summary.count == 0)
                unlabelled += (unlabelled.empty() ? "" : ", ") + d.circuits[i].name;
        std::string why = "no training node carries " + what;
        if (!unlabelled.empty())
            why += ": `gsr labels` finds no net to label in " + unlabelled +
                   " (a netlist of transistors, or of no gates, has none)";
        throw Error(why);
    }
    const TargetSummary train =
        summarize(train_values, std::vector<std::uint8_t>(train_values.size(), 1));
    d.target_mean = train.mean;
    d.target_scale = train.stddev > 0 ? train.stddev : 1.0;
    if (train.constant()) {
        d.notes.push_back(what + " has no variance on the training nodes (every one is " +
                          number(train.min) + "): nothing can be learnt");
    }
    if (const std::size_t v = d.node_count(Split::Validation); v == 0) {
        d.notes.push_back("no validation nodes: the training nodes stand in for them (a GNN's "
                          "early stopping, symgraph's choice of rules)");
    } else if (v < kFewValidationNodes) {
        d.notes.push_back("only " + std::to_string(v) + " validation node" + (v == 1 ? "" : "s") +
                          ": the best epoch and early stopping follow " +
                          (v == 1 ? "its" : "their") +
                          " loss alone (give --val circuits for a steadier choice)");
    }
    return d;
}

Dataset load_dataset(Target target, const std::vector<std::string>& train,
                     const std::vector<std::string>& validation,
                     const std::vector<std::string>& test, const HoldOut& hold_out,
                     const LabelOptions& options)
{
    namespace fs = std::filesystem;
    std::vector<std::pair<std::string, Role>> files;
    for (const std::string& f : train) files.emplace_back(f, Role::Train);
    for (const std::string& f : validation) files.emplace_back(f, Role::Validation);
    for (const std::string& f : test) files.emplace_back(f, Role::Test);

    // A circuit evaluated on must not be trained on: compare the files, not the spellings.
    std::map<std::string, std::size_t> seen;
    for (std::size_t i = 0; i < files.size(); ++i) {
        std::error_code ec;
        fs::path canonical = fs::weakly_canonical(files[i].first, ec);
        const std::string key = ec ? files[i].first : canonical.string();
        auto [it, fresh] = seen.emplace(key, i);
        if (!fresh) {
            const char* names[] = {"training", "validation", "test"};
            throw Error(SourceLocation{files[i].first},
                        "is given twice (as a " +
                            std::string(names[static_cast<int>(files[it->second].second)]) +
                            " and as a " + names[static_cast<int>(files[i].second)] +
                            " circuit): each circuit may have one role");
        }
    }

    std::vector<LabelledCircuit> circuits;
    std::vector<Role> roles;
    for (const auto& [path, role] : files) {
        netlist::LoadOptions load;
        load.library = options.library;
        const Circuit circuit = netlist::load_netlist(path, load);
        circuits.push_back(label_circuit(circuit, target, options));
        circuits.back().name = path;
        roles.push_back(role);
    }
    return make_dataset(target, std::move(circuits), roles, hold_out);
}

} // namespace gsr::train
