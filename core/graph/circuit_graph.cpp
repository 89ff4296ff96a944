#include "graph/circuit_graph.hpp"

#include "netlist/readers.hpp"

#include <algorithm>
#include <unordered_map>
#include <utility>

namespace gsr::graph {

using netlist::Cell;
using netlist::CellKind;
using netlist::Circuit;
using netlist::Direction;
using netlist::kNoNet;
using netlist::NetId;

namespace {

constexpr NodeId kNoNode = 0xffffffffu;

// An output drives its net. A bidirectional pin (a transistor's source or drain, a pad, a
// feedthrough) drives it only where nothing else does, the first such pin in node order,
// and reads it otherwise: a transistor-level net of several channels is a star around one of
// them, not several drivers with nothing reading them.
bool reads(Direction d) { return d != Direction::Output; }

/// Longest-path levels over the edges u->v (edge e of `forward`) that `keep(u, v, e)` allows.
/// Combinational loops are collapsed first: Tarjan's strongly connected components
/// (iterative, no recursion) give the condensation, a DAG whose components each take one
/// level, so every node on one loop shares a level and nodes downstream of a loop are levelled
/// past it. Returns the nodes on loops (in a component of two or more nodes, or with a kept
/// edge to themselves).
template <class Keep>
std::size_t longest_paths(const Csr& forward, std::size_t n, Keep keep, std::vector<std::uint32_t>& level)
{
    constexpr std::uint32_t kUnseen = 0xffffffffu;
    std::vector<std::uint32_t> index(n, kUnseen), low(n, 0), component(n, kUnseen);
    std::vector<NodeId> stack;   // Tarjan's stack of nodes not yet in a component
    std::vector<NodeId> members; // nodes by component, in order of completion
    // The depth-first path, each node with its next edge to follow.
    std::vector<std::pair<NodeId, std::uint64_t>> walk;
    std::vector<std::uint32_t> component_start;
    std::uint32_t next_index = 0;
    for (NodeId root = 0; root < n; ++root) {
        if (index[root] != kUnseen) continue;
        walk.emplace_back(root, forward.offsets[root]);
        index[root] = low[root] = next_index++;
        stack.push_back(root);
        while (!walk.empty()) {
            auto& [u, e] = walk.back();
            if (e < forward.offsets[u + 1]) {
                const std::uint64_t edge = e++;
                const NodeId v = forward.targets[edge];
                if (!keep(u, v, edge)) continue;
                if (index[v] == kUnseen) {
                    index[v] = low[v] = next_index++;
                    stack.push_back(v);
                    walk.emplace_back(v, forward.offsets[v]); // invalidates u, e: loop again
                } else if (component[v] == kUnseen) {
                    low[u] = std::min(low[u], index[v]);
                }
                continue;
            }
            const NodeId done = u;
            walk.pop_back();
            if (!walk.empty()) low[walk.back().first] = std::min(low[walk.back().first], low[done]);
            if (low[done] != index[done]) continue;
            const auto id = static_cast<std::uint32_t>(component_start.size());
            component_start.push_back(static_cast<std::uint32_t>(members.size()));
            NodeId m;
            do {
                m = stack.back();
                stack.pop_back();
                component[m] = id;
                members.push_back(m);
            } while (m != done);
        }
    }
    component_start.push_back(static_cast<std::uint32_t>(members.size()));

    // Tarjan completes a component after every component it reaches, so the reverse of the
    // completion order is a topological order of the condensation.
    const std::size_t components = component_start.size() - 1;
    std::vector<std::uint32_t> component_level(components, 0);
    std::size_t on_loops = 0;
    for (std::size_t k = components; k-- > 0;) {
        const std::uint32_t first = component_start[k], last = component_start[k + 1];
        const std::uint32_t from = component_level[k];
        for (std::uint32_t i = first; i < last; ++i) {
            const NodeId u = members[i];
            bool self_loop = false;
            for (std::uint64_t e = forward.offsets[u]; e < forward.offsets[u + 1]; ++e) {
                const NodeId v = forward.targets[e];
                if (!keep(u, v, e)) continue;
                if (component[v] == k) {
                    self_loop |= v == u;
                    continue;
                }
                component_level[component[v]] = std::max(component_level[component[v]], from + 1);
            }
            if (last - first > 1 || self_loop) ++on_loops;
        }
    }
    level.resize(n);
    for (NodeId v = 0; v < n; ++v) level[v] = component_level[component[v]];
    return on_loops;
}

Csr reverse(const Csr& fwd, std::size_t n)
{
    Csr r;
    r.offsets.assign(n + 1, 0);
    for (NodeId t : fwd.targets) ++r.offsets[t + 1];
    for (std::size_t v = 0; v < n; ++v) r.offsets[v + 1] += r.offsets[v];
    r.targets.resize(fwd.targets.size());
    r.inverted.resize(fwd.targets.size());
    std::vector<std::uint64_t> fill(r.offsets.begin(), r.offsets.end() - 1);
    for (NodeId u = 0; u < n; ++u) {
        for (std::uint64_t e = fwd.offsets[u]; e < fwd.offsets[u + 1]; ++e) {
            const std::uint64_t at = fill[fwd.targets[e]]++;
            r.targets[at] = u;
            r.inverted[at] = fwd.inverted[e];
        }
    }
    return r;
}

} // namespace

std::vector<std::size_t> CircuitGraph::level_histogram() const
{
    std::vector<std::size_t> h(static_cast<std::size_t>(max_level) + 1, 0);
    if (level.empty()) return {};
    for (std::uint32_t l : level) ++h[l];
    return h;
}

std::vector<float> CircuitGraph::features() const
{
    const std::size_t n = node_count();
    const std::size_t f = feature_count();
    const std::size_t t = type_names.size();
    std::vector<float> x(n * f, 0.0f);
    for (NodeId v = 0; v < n; ++v) {
        float* row = x.data() + v * f;
        row[type[v]] = 1.0f;
        row[t + 0] = static_cast<float>(fanin.degree(v));
        row[t + 1] = static_cast<float>(fanout.degree(v));
        row[t + 2] = (flags[v] & kNodePrimaryInput) ? 1.0f : 0.0f;
        row[t + 3] = (flags[v] & kNodePrimaryOutput) ? 1.0f : 0.0f;
        row[t + 4] = (flags[v] & kNodeFlipFlop) ? 1.0f : 0.0f;
    }
    return x;
}

CircuitGraph build_graph(const Circuit& c, Diagnostics* diag)
{
    CircuitGraph g;
    const std::size_t nets = c.net_count();
    std::vector<NodeId> driver(nets, kNoNode);

    // Nodes: primary inputs first, then one per cell.
    std::size_t pis = 0;
    for (const auto& p : c.ports)
        if (p.dir == Direction::Input || p.dir == Direction::InOut) ++pis;
    const std::size_t n = pis + c.cells.size();
    g.flags.assign(n, 0);
    g.type.assign(n, 0);
    g.cell_of.resize(n);
    g.type_names.push_back("PI");
    std::unordered_map<NameId, std::uint32_t> type_index;

    std::size_t multi_driven = 0;        // nets with more than one driver, each once
    std::vector<std::uint8_t> counted;   // per net, once one is: four drivers are one net
    NetId multi_net = kNoNet;            // the first net driven twice
    std::int64_t multi_cell = -1;        // the cell driving it again, or -1: an input port
    auto drive = [&](NetId net, NodeId node, std::int64_t cell) {
        if (driver[net] == kNoNode) {
            driver[net] = node;
            return;
        }
        if (counted.empty()) counted.assign(driver.size(), 0);
        if (counted[net]) return;
        counted[net] = 1;
        if (multi_driven++ == 0) {
            multi_net = net;
            multi_cell = cell;
        }
    };
    NodeId v = 0;
    for (std::size_t i = 0; i < c.ports.size(); ++i) {
        const auto& p = c.ports[i];
        if (p.dir != Direction::Input && p.dir != Direction::InOut) continue;
        g.flags[v] = kNodePrimaryInput;
        g.cell_of[v] = -static_cast<std::int64_t>(i) - 1;
        if (p.net != kNoNet && p.dir == Direction::Input) drive(p.net, v, -1);
        ++v;
    }
    for (std::size_t ci = 0; ci < c.cells.size(); ++ci, ++v) {
        const Cell& cell = c.cells[ci];
        g.cell_of[v] = static_cast<std::int64_t>(ci);
        auto [it, fresh] = type_index.emplace(cell.type, static_cast<std::uint32_t>(g.type_names.size()));
        if (fresh) g.type_names.emplace_back(c.cell_type(cell));
        g.type[v] = it->second;
        if (cell.kind == CellKind::FlipFlop || (cell.flags & netlist::kCellSequential)) g.flags[v] |= kNodeFlipFlop;
        if (cell.kind == CellKind::Constant) g.flags[v] |= kNodeConstant;
        const netlist::Pin* pins = c.pins_of(cell);
        for (std::uint32_t k = 0; k < cell.pin_count; ++k) {
            if (pins[k].net == kNoNet || pins[k].dir != Direction::Output) continue;
            drive(pins[k].net, v, static_cast<std::int64_t>(ci));
        }
    }
    // Bidirectional ports and pins, in node order, where no output drives the net.
    v = 0;
    for (const auto& p : c.ports) {
        if (p.dir != Direction::Input && p.dir != Direction::InOut) continue;
        if (p.dir == Direction::InOut && p.net != kNoNet && driver[p.net] == kNoNode)
            driver[p.net] = v;
        ++v;
    }
    for (const Cell& cell : c.cells) {
        const netlist::Pin* pins = c.pins_of(cell);
        for (std::uint32_t k = 0; k < cell.pin_count; ++k) {
            const NetId net = pins[k].net;
            if (pins[k].dir == Direction::InOut && net != kNoNet && driver[net] == kNoNode)
                driver[net] = v;
        }
        ++v;
    }

    // Edges into each cell, in cell order: this is the fan-in CSR, with sources by driver.
    Csr& in = g.fanin;
    in.offsets.assign(n + 1, 0);
    in.targets.reserve(c.pins.size());
    in.inverted.reserve(c.pins.size());
    std::size_t undriven = 0;
    std::vector<std::uint8_t> read_both_ways; // per fan-in edge: read by a bidirectional pin
    read_both_ways.reserve(c.pins.size());
    for (std::size_t ci = 0; ci < c.cells.size(); ++ci) {
        const Cell& cell = c.cells[ci];
        const netlist::Pin* pins = c.pins_of(cell);
        for (std::uint32_t k = 0; k < cell.pin_count; ++k) {
            const netlist::Pin& p = pins[k];
            if (p.net == kNoNet || !reads(p.dir)) continue;
            const NodeId d = driver[p.net];
            if (p.dir == Direction::InOut && d == static_cast<NodeId>(pis + ci)) continue;
            if (d == kNoNode) { ++undriven; continue; }
            in.targets.push_back(d);
            in.inverted.push_back(p.inverted ? 1 : 0);
            read_both_ways.push_back(p.dir == Direction::InOut ? 1 : 0);
        }
        in.offsets[pis + ci + 1] = in.targets.size();
    }
    g.fanout = reverse(in, n);

    std::size_t undriven_outputs = 0;
    for (const auto& p : c.ports) {
        if (p.dir != Direction::Output && p.dir != Direction::InOut) continue;
        if (p.net == kNoNet || driver[p.net] == kNoNode) { ++undriven_outputs; continue; }
        g.flags[driver[p.net]] |= kNodePrimaryOutput;
    }

    // Levels over the combinational part: edges into flip-flops are cut.
    const auto& flags = g.flags;
    auto comb = [&flags](NodeId, NodeId to, std::uint64_t) {
        return !(flags[to] & kNodeFlipFlop);
    };
    g.loop_nodes = longest_paths(g.fanout, n, comb, g.level);
    // In the fan-in CSR an edge u -> w is the original w -> u, cut when u is a flip-flop.
    auto comb_rev = [&flags](NodeId u, NodeId, std::uint64_t) {
        return !(flags[u] & kNodeFlipFlop);
    };
    longest_paths(g.fanin, n, comb_rev, g.reverse_level);
    if (g.loop_nodes > 0 && std::find(read_both_ways.begin(), read_both_ways.end(), 1) !=
                                read_both_ways.end()) {
        // A transistor's channels conduct both ways: a loop through one (a supply rail back to
        // a source) is no combinational loop. Those count only over edges into inputs.
        std::vector<std::uint32_t> unused;
        g.loop_nodes = longest_paths(
            g.fanin, n,
            [&](NodeId u, NodeId, std::uint64_t e) {
                return !read_both_ways[e] && !(flags[u] & kNodeFlipFlop);
            },
            unused);
    }
    g.max_level = g.level.empty() ? 0 : *std::max_element(g.level.begin(), g.level.end());

    if (diag) {
        if (multi_driven) {
            // Said at the second driver's line, naming the first.
            const std::int64_t first = g.cell_of[driver[multi_net]];
            const auto name = [&](std::int64_t cell, bool with_line) {
                const auto id = static_cast<netlist::CellId>(cell);
                return cell < 0 ? std::string("an input port")
                                : netlist::describe_cell(c, id, with_line);
            };
            diag->warn(multi_cell < 0 ? SourceLocation{c.source}
                                      : c.cell_location(static_cast<netlist::CellId>(multi_cell)),
                       std::to_string(multi_driven) +
                           " net(s) have more than one driver; the first one is used (net '" +
                           std::string(c.net_name(multi_net)) + "': " + name(multi_cell, false) +
                           " after " + name(first, true) + ")");
        }
        if (undriven)
            diag->warn({c.source}, std::to_string(undriven) + " cell input(s) read a net that nothing drives");
        if (undriven_outputs)
            diag->warn({c.source}, std::to_string(undriven_outputs) + " primary output(s) are not driven");
        if (g.loop_nodes)
            diag->warn({c.source}, std::to_string(g.loop_nodes) + " node(s) lie on combinational loops; each loop is levelled as one node");
    }
    return g;
}

std::shared_ptr<const LoadedCircuit> load_circuit(const std::string& path)
{
    auto loaded = std::make_shared<LoadedCircuit>();
    loaded->path = path;
    loaded->circuit = netlist::load_netlist(path);
    loaded->graph = build_graph(loaded->circuit);
    return loaded;
}

} // namespace gsr::graph
