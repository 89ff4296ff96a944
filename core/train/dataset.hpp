#pragma once
// Learning targets on graph nodes, and data sets of several circuits.
//
// A node's target is a label of the net it drives: a primary input's own net, a cell's first
// output net (core/labels computes the labels per net). Nodes that drive no net (a cell without
// a connected output) have no target and take part in no loss or metric.
//
// A data set trains on some circuits and validates and tests on others; within a training
// circuit, seeded shares of its nodes can be held out as well (Split per node). Features are
// CircuitGraph::features() with the type one-hot widened to the union of the cell types of all
// its circuits ("PI" first, then sorted), so every circuit has the same feature width, and fan-in
// and fan-out as log(1 + count).
//
// Contents: Target, Split, LabelOptions, RunLibraries, LabelledCircuit, TargetSummary,
// CircuitData, Dataset, label_circuit, make_dataset, load_dataset, SeededStream.
#include "graph/circuit_graph.hpp"
#include "netlist/circuit.hpp"
#include "nn/graph_input.hpp"

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace gsr::netlist {
class Library;
}

namespace gsr::train {

enum class Target : std::uint8_t {
    SignalProbability, ///< "sp": P(net = 1) under random (or sequential) stimulus
    Toggle,            ///< "toggle": toggles per consecutive sample pair
    Level,             ///< "level": logic level of the net (labels/net_levels.hpp)
    Arrival,           ///< "arrival": static arrival time (labels/arrival_time.hpp)
};

std::string_view target_name(Target target); ///< "sp", "toggle", "level", "arrival"
/// Throws gsr::Error naming --target and the allowed values.
Target parse_target(std::string_view name);

enum class Split : std::uint8_t { None, Train, Validation, Test };
std::string_view split_name(Split split); ///< "none", "train", "val", "test"

/// How the labels are computed. The simulation mode is chosen per circuit: random for
/// combinational circuits, sequential for circuits with flip-flops (as `gsr labels` does).
struct LabelOptions {
    std::uint64_t vectors = 65536; ///< random mode
    std::uint64_t seed = 2024;     ///< the stimulus seed of shared/data/labels
    std::uint64_t runs = 4096;     ///< sequential mode
    std::uint32_t cycles = 80;
    std::uint32_t warmup = 16;
    unsigned threads = 0;
    double load_factor = 0.1; ///< arrival: delay per unit of load
    /// The cell libraries (netlist::load_libraries): pin directions when circuits are read,
    /// library cells simulated by their functions, arrival from NLDM tables. Null: none.
    const netlist::Library* library = nullptr;
};

/// The cell libraries a run names (`gsr train --liberty`, the window's cell libraries), read
/// once: label_options() points at them. No paths: no library, and nothing is read.
class RunLibraries {
public:
    /// Reads `paths` (netlist::load_libraries); throws gsr::Error naming a file at fault.
    explicit RunLibraries(const std::vector<std::string>& paths);
    ~RunLibraries();
    RunLibraries(RunLibraries&&) noexcept;
    RunLibraries& operator=(RunLibraries&&) noexcept;

    /// The libraries, merged; null when the run names none.
    const netlist::Library* library() const { return library_.get(); }
    /// The default label options with `library` set to library().
    LabelOptions label_options() const;

private:
    // On the heap: label options made before a move (construction) still point at it; an
    // assignment replaces it, and options made from the old one must not be used after.
    std::unique_ptr<netlist::Library> library_;
};

/// One circuit's graph and per-node targets, in the units of the label.
struct LabelledCircuit {
    std::string name; ///< the file it came from, as given
    graph::CircuitGraph graph;
    std::vector<double> target;            ///< per node; 0 where has_target is 0
    std::vector<std::uint8_t> has_target;  ///< per node
    std::vector<netlist::NetId> net_of;    ///< per node: the net whose label it carries, or kNoNet
    std::vector<std::string> net_name;     ///< per node: net_of's name, "" where kNoNet
};

/// Node n's net (the one whose label it takes), or kNoNet when it drives none.
netlist::NetId net_driven_by(const netlist::Circuit& circuit, const graph::CircuitGraph& graph,
                             graph::NodeId node);

/// Builds the graph and computes the target of every node. Throws gsr::Error when the target
/// cannot be computed for this circuit (a cell the simulator does not know, a combinational loop).
LabelledCircuit label_circuit(const netlist::Circuit& circuit, Target target,
                              const LabelOptions& options = {});

/// Range of the target over some nodes.
struct TargetSummary {
    std::size_t count = 0;
    double min = 0, max = 0, mean = 0, stddev = 0;

    /// No variance: correlations are undefined on these nodes.
    bool constant() const { return count == 0 || min == max; }
};

/// A circuit ready for a model.
struct CircuitData {
    std::string name;
    graph::CircuitGraph graph;
    nn::GraphInput input;                 ///< fan-in CSR and the data set's features
    std::vector<double> target;           ///< per node, in the label's units
    std::vector<std::uint8_t> has_target; ///< per node
    std::vector<Split> split;             ///< per node; None where there is no target
    TargetSummary summary;                ///< over the nodes with a target
    /// Per node: its id in the file's graph, once the circuit is renumbered (commrand, an
    /// --order); empty while the numbering is the file's.
    std::vector<std::uint32_t> file_node;
    /// Per node of the file's graph (file_node's values index it, not this numbering): the
    /// net it drives, "" where none. Empty when the data set was made without names.
    std::vector<std::string> net_name;

    /// The nodes of one split, ascending.
    std::vector<std::uint32_t> nodes(Split which) const;
    /// Per-node values (predictions) in this numbering put back in the file's, where a view
    /// of the file's graph (the canvas) expects them.
    std::vector<double> in_file_order(const std::vector<double>& values) const;
};

/// Below this many validation nodes, load_dataset notes that they alone choose the best epoch.
inline constexpr std::size_t kFewValidationNodes = 10;

/// What a circuit is for.
enum class Role : std::uint8_t { Train, Validation, Test };

/// Node hold-outs within the training circuits. The shares are taken from each training
/// circuit's nodes with a target, shuffled by `seed`; what remains is trained on.
struct HoldOut {
    double validation = 0.0;
    double test = 0.0;
    std::uint64_t seed = 1;
};

struct Dataset {
    Target target = Target::SignalProbability;
    std::vector<std::string> type_names; ///< the one-hot columns, "PI" first
    std::size_t feature_count = 0;       ///< type_names.size() + 5
    std::vector<CircuitData> circuits;
    /// Findings a user should see: circuits whose target has no variance, empty splits.
    std::vector<std::string> notes;
    /// The trainer's scaling of the target: (y - mean) / scale, from the training nodes.
    double target_mean = 0.0;
    double target_scale = 1.0;

    std::vector<std::string> feature_names() const;
    /// Nodes with a target in `which`, over all circuits.
    std::size_t node_count(Split which) const;
};

/// Assembles a data set. Throws gsr::Error when there are no training nodes, or a hold-out
/// share is out of [0, 1) or the shares add up to 1 or more.
Dataset make_dataset(Target target, std::vector<LabelledCircuit> circuits,
                     const std::vector<Role>& roles, const HoldOut& hold_out = {});

/// Loads, labels and assembles: `train` circuits are trained on, `validation` and `test`
/// circuits only evaluated. A file may have one role only (gsr::Error otherwise).
Dataset load_dataset(Target target, const std::vector<std::string>& train,
                     const std::vector<std::string>& validation,
                     const std::vector<std::string>& test, const HoldOut& hold_out = {},
                     const LabelOptions& options = {});

/// SplitMix64 whose state can be saved and restored (checkpoints), with the same sequence on
/// every platform and standard library.
class SeededStream {
public:
    explicit SeededStream(std::uint64_t seed = 0) : state_(seed) {}

    std::uint64_t next()
    {
        std::uint64_t z = (state_ += 0x9e3779b97f4a7c15ull);
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
        return z ^ (z >> 31);
    }
    /// Uniform in [0, n), 0 < n < 2^32 (multiply-shift; the bias is below 2^-32).
    std::uint64_t below(std::uint64_t n) { return ((next() >> 32) * n) >> 32; }
    /// Fisher-Yates.
    template <class T>
    void shuffle(std::vector<T>& items)
    {
        for (std::size_t i = items.size(); i > 1; --i) std::swap(items[i - 1], items[below(i)]);
    }

    std::uint64_t state() const { return state_; }
    void set_state(std::uint64_t state) { state_ = state; }

private:
    std::uint64_t state_;
};

} // namespace gsr::train
