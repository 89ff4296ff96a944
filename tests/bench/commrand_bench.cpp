// COMM-RAND against random and ClusterGCN batching on one large circuit (or several): epoch
// time, time to a target validation Pearson, and what explains the difference (how many nodes
// each step's subgraph holds per root, and how scattered the rows its feature gather reads).
//
//   gsr_bench_commrand [--quick] [--device auto|cpu|gpu] [--file F]... [--target sp]
//                      [--model sage] [--layers L] [--hidden D] [--batch-size N]
//                      [--fanout F1,F2] [--epochs E] [--lr X] [--threads T] [--seed S]
//                      [--target-pearson R] [--only NAME,...] [--json OUT]
//
// Runs, side by side in one process on the same data set (10 % of the nodes held out for
// validation, 10 % for test):
//   random       RandomNodeBatcher with uniform sampling, nodes in the netlist's order
//   cluster      ClusterGCN: METIS partitions, 4 per batch, induced subgraphs (same order)
//   a=.. b=..    CommRandBatcher for alpha in {0, 0.5, 1} x beta in {1, 4}, nodes renumbered
//                community-contiguous (Leiden, seed --seed)
// Epoch time: the median over the epochs of the steps' CPU time (drawing batches, sampling,
// binding, forward, backward, Adam; evaluation excluded), from the process CPU clock, which
// a shared machine's other jobs do not inflate as they do wall time (both are printed). Time
// to target: the steps' CPU time summed until the validation Pearson first reaches the target; the target is --target-pearson, or
// by default the random baseline's best validation Pearson minus 0.01 (the accuracy the
// issue allows COMM-RAND to give up).
//
// Locality (one epoch of batches replayed outside the trainer, same seed): subgraph nodes per
// root, 64-byte lines of the feature matrix touched per subgraph node, and the mean id gap
// between consecutive subgraph nodes. Community batches whose neighbours stay in the
// community reach fewer distinct nodes (less work) that lie in a short id range (fewer cache
// lines and pages per gathered row, and reuse across the layers' SpMM).
//
// --only runs just the named configurations (random, cluster, "a=1.0 b=4", ...); random is
// always run, since the target and the speed-ups are relative to it.
// --device is handed to the trainer's device choice: this program runs unchanged on a GPU
// machine once core/train trains there.
#include "bench_support.hpp"

#include "train/cluster_batcher.hpp"
#include "train/commrand_batcher.hpp"
#include "train/trainer.hpp"
#include "util/diagnostics.hpp"

#include <nlohmann/json.hpp>

#include <time.h>

#include <algorithm>
#include <sstream>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#ifdef GSR_HAVE_CUDA
#include "cuda_backend.hpp"
#endif

using namespace gsr;
using bench::Clock;

namespace {

struct Options {
    bool quick = false;
    std::string device = "auto";
    std::vector<std::string> files;
    std::string target = "sp";
    std::string model = "sage";
    std::uint32_t layers = 2, hidden = 32, threads = 1, epochs = 12;
    std::size_t batch_size = 1024;
    std::string fanout = "4,4";
    double lr = 3e-3;
    std::uint64_t seed = 1;
    double target_pearson = std::numeric_limits<double>::quiet_NaN();
    std::string json;
    std::vector<std::string> only; ///< empty: every configuration
};

struct Config {
    std::string name, batching; // batching: random, cluster, commrand
    double alpha = 0, beta = 1;
};

struct Outcome {
    Config config;
    std::vector<train::EpochReport> epochs;
    std::vector<double> cpu;            ///< per epoch: the steps' CPU seconds
    double epoch_seconds = 0;           ///< median over epochs of the steps' CPU time
    double epoch_wall = 0;              ///< the same in wall time
    double best_pearson = -2;
    double time_to_target = -1;         ///< -1: not reached
    std::uint32_t epoch_to_target = 0;
    double nodes_per_root = 0, lines_per_node = 0, mean_gap = 0;
};

double cpu_seconds()
{
    timespec t{};
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return static_cast<double>(t.tv_sec) + 1e-9 * static_cast<double>(t.tv_nsec);
}

/// Delegates to a batcher and notes the CPU clock when an epoch starts drawing its batches.
class TimedBatcher final : public train::Batcher {
public:
    explicit TimedBatcher(std::unique_ptr<train::Batcher> inner) : inner_(std::move(inner)) {}
    std::vector<train::Batch> epoch_batches(const train::Dataset& d,
                                            train::SeededStream& r) override
    {
        epoch_start = cpu_seconds();
        return inner_->epoch_batches(d, r);
    }
    std::string name() const override { return inner_->name(); }
    nlohmann::json settings() const override { return inner_->settings(); }
    void check(const nn::ModelConfig& m) const override { inner_->check(m); }
    void prepare(const train::Dataset& d) override { inner_->prepare(d); }
    bool step_graph(const train::Dataset& d, const train::BatchPart& p, train::SeededStream& r,
                    train::Subgraph& out) override
    {
        return inner_->step_graph(d, p, r, out);
    }
    double epoch_start = 0;

private:
    std::unique_ptr<train::Batcher> inner_;
};

double median(std::vector<double> v)
{
    std::sort(v.begin(), v.end());
    const std::size_t n = v.size();
    return n == 0 ? 0.0 : n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

std::unique_ptr<train::Batcher> make_batcher(const Config& c, const Options& o,
                                             const std::vector<std::uint32_t>& fanouts,
                                             const train::PreparedCommunities& communities)
{
    if (c.batching == "random")
        return std::make_unique<train::RandomNodeBatcher>(o.batch_size, fanouts);
    if (c.batching == "cluster") {
        train::ClusterOptions co;
        co.batch_size = o.batch_size;
        co.seed = o.seed;
        return std::make_unique<train::ClusterBatcher>(co);
    }
    train::CommRandOptions co;
    co.batch_size = o.batch_size;
    co.alpha = c.alpha;
    co.beta = c.beta;
    co.fanouts = fanouts;
    return std::make_unique<train::CommRandBatcher>(co, communities.membership);
}

/// One epoch of batches and step graphs, replayed: work and locality per root.
void measure_locality(train::Batcher& b, const train::Dataset& d, std::uint64_t seed,
                      Outcome& out)
{
    b.prepare(d);
    train::SeededStream s(seed);
    train::Subgraph sub;
    double nodes = 0, roots = 0, lines = 0, gaps = 0, gap_count = 0;
    for (const train::Batch& batch : b.epoch_batches(d, s))
        for (const train::BatchPart& part : batch.parts) {
            if (!b.step_graph(d, part, s, sub)) continue;
            roots += static_cast<double>(part.nodes.size());
            nodes += static_cast<double>(sub.nodes.size());
            const std::size_t row = d.circuits[part.circuit].input.feature_count * sizeof(float);
            std::uint64_t last_line = ~std::uint64_t{0};
            for (std::size_t i = 0; i < sub.nodes.size(); ++i) {
                const std::uint64_t first = sub.nodes[i] * row / 64;
                const std::uint64_t end = (sub.nodes[i] * row + row - 1) / 64;
                // Rows ascend, so a line shared with the previous row is counted once.
                lines += static_cast<double>(end - first + 1) - (first == last_line ? 1 : 0);
                last_line = end;
                if (i > 0) {
                    gaps += static_cast<double>(sub.nodes[i] - sub.nodes[i - 1]);
                    gap_count += 1;
                }
            }
        }
    out.nodes_per_root = roots > 0 ? nodes / roots : 0;
    out.lines_per_node = nodes > 0 ? lines / nodes : 0;
    out.mean_gap = gap_count > 0 ? gaps / gap_count : 0;
}

Outcome run_config(const Config& c, const Options& o, const train::Dataset& d,
                   const std::vector<std::uint32_t>& fanouts,
                   const train::PreparedCommunities& communities)
{
    train::TrainConfig tc;
    tc.model.kind = nn::parse_model_kind(o.model);
    tc.model.layers = o.layers;
    tc.model.hidden = o.hidden;
    tc.model.groups = 2;
    tc.model.topk = std::max(1u, o.hidden / 8);
    tc.model.threads = o.threads;
    tc.model.seed = o.seed;
    tc.adam.learning_rate = o.lr;
    tc.epochs = o.epochs;
    tc.patience = 0;
    tc.seed = o.seed;
    tc.batch_size = o.batch_size;
    Outcome out;
    out.config = c;
    train::Trainer trainer(d, tc);
    auto timed = std::make_unique<TimedBatcher>(make_batcher(c, o, fanouts, communities));
    TimedBatcher& clock = *timed;
    trainer.set_batcher(std::move(timed));
    train::TrainCallbacks cb;
    double steps_end = 0;
    cb.progress = [&](const train::Progress& p) {
        if (p.phase == train::Progress::Phase::Training && p.step == p.steps)
            steps_end = cpu_seconds();
    };
    cb.epoch = [&](const train::EpochReport& r) {
        out.epochs.push_back(r);
        out.cpu.push_back(steps_end - clock.epoch_start);
        std::fprintf(stderr, "  %-14s epoch %2u  steps %.2f s cpu, %.2f s wall  val r %.4f\n",
                     c.name.c_str(), r.epoch, out.cpu.back(), r.train_seconds,
                     r.validation.metrics.pearson.value);
    };
    train::MemoryRunLog log;
    trainer.run(log, cb);
    std::vector<double> wall;
    for (const train::EpochReport& r : out.epochs) {
        wall.push_back(r.train_seconds);
        if (r.validation.metrics.pearson.defined())
            out.best_pearson = std::max(out.best_pearson, r.validation.metrics.pearson.value);
    }
    out.epoch_seconds = median(out.cpu);
    out.epoch_wall = median(wall);
    auto batcher = make_batcher(c, o, fanouts, communities);
    measure_locality(*batcher, d, o.seed, out);
    return out;
}

void time_to_target(Outcome& out, double target)
{
    double t = 0;
    out.time_to_target = -1;
    for (std::size_t e = 0; e < out.epochs.size(); ++e) {
        const train::EpochReport& r = out.epochs[e];
        t += out.cpu[e];
        if (r.validation.metrics.pearson.defined() && r.validation.metrics.pearson.value >= target) {
            out.time_to_target = t;
            out.epoch_to_target = r.epoch;
            return;
        }
    }
}

} // namespace

int main(int argc, char** argv)
{
#ifdef GSR_HAVE_CUDA
    gsr::gpu::install_runtime(); // --device auto|gpu can then train on the GPU
#endif
    Options o;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        auto next = [&]() -> std::string {
            if (i + 1 >= argc) {
                std::fprintf(stderr, "%s needs a value\n", a.c_str());
                std::exit(1);
            }
            return argv[++i];
        };
        if (a == "--quick") o.quick = true;
        else if (a == "--device") o.device = next();
        else if (a == "--file") o.files.push_back(next());
        else if (a == "--target") o.target = next();
        else if (a == "--model") o.model = next();
        else if (a == "--layers") o.layers = static_cast<std::uint32_t>(std::stoul(next()));
        else if (a == "--hidden") o.hidden = static_cast<std::uint32_t>(std::stoul(next()));
        else if (a == "--threads") o.threads = static_cast<std::uint32_t>(std::stoul(next()));
        else if (a == "--epochs") o.epochs = static_cast<std::uint32_t>(std::stoul(next()));
        else if (a == "--batch-size") o.batch_size = std::stoul(next());
        else if (a == "--fanout") o.fanout = next();
        else if (a == "--lr") o.lr = std::stod(next());
        else if (a == "--seed") o.seed = std::stoull(next());
        else if (a == "--target-pearson") o.target_pearson = std::stod(next());
        else if (a == "--json") o.json = next();
        else if (a == "--only") {
            std::stringstream in(next());
            for (std::string name; std::getline(in, name, ',');) o.only.push_back(name);
        }
        else {
            std::fprintf(stderr, "unknown argument %s (see the header of commrand_bench.cpp)\n",
                         a.c_str());
            return 1;
        }
    }
    const std::string data = GSR_DATA_DIR;
    if (o.files.empty())
        o.files.push_back(data + (o.quick ? "/netlists/iscas85/bench/c6288.bench"
                                          : "/netlists/epfl/arithmetic/hyp_from_aig.blif"));
    if (o.quick) {
        o.epochs = 2;
        o.batch_size = 256;
    }
    try {
        const train::DeviceChoice device = train::choose_device(o.device);
        std::printf("COMM-RAND benchmark: device %s%s%s, load %s\n", device.device.c_str(),
                    device.note.empty() ? "" : " - ", device.note.c_str(),
                    bench::load_average().c_str());
        const std::vector<std::uint32_t> fanouts = train::parse_fanouts(o.fanout);

        auto t0 = Clock::now();
        train::HoldOut h;
        h.validation = 0.1;
        h.test = 0.1;
        h.seed = o.seed;
        const train::Dataset original =
            train::load_dataset(train::parse_target(o.target), o.files, {}, {}, h);
        const double load_s = bench::seconds_since(t0);
        t0 = Clock::now();
        train::Dataset renumbered = original;
        train::CommunityPlan plan;
        plan.seed = o.seed;
        const train::PreparedCommunities communities =
            train::prepare_communities(renumbered, plan);
        const double prep_s = bench::seconds_since(t0);
        std::size_t nodes = 0, edges = 0, count = 0;
        for (const train::CircuitData& c : original.circuits) {
            nodes += c.input.node_count;
            edges += c.input.edge_count();
        }
        for (std::uint32_t k : communities.community_count) count += k;
        std::printf("data: %zu circuit(s), %zu nodes, %zu edges, %zu training nodes; target %s; "
                    "labels %.1f s; Leiden + renumbering %.2f s, %zu communities\n",
                    original.circuits.size(), nodes, edges,
                    original.node_count(train::Split::Train), o.target.c_str(), load_s, prep_s,
                    count);
        std::printf("model %s L=%u D=%u, %u thread(s); batch %zu, fan-out %s, %u epochs, "
                    "lr %g, seed %llu\n\n",
                    o.model.c_str(), o.layers, o.hidden, o.threads, o.batch_size,
                    o.fanout.c_str(), o.epochs, o.lr, static_cast<unsigned long long>(o.seed));

        std::vector<Config> configs = {{"random", "random"}};
        if (train::cluster_batching_available()) configs.push_back({"cluster", "cluster"});
        for (double alpha : {0.0, 0.5, 1.0})
            for (double beta : {1.0, 4.0}) {
                char name[32];
                std::snprintf(name, sizeof name, "a=%.1f b=%.0f", alpha, beta);
                configs.push_back({name, "commrand", alpha, beta});
            }
        if (!o.only.empty())
            std::erase_if(configs, [&](const Config& c) {
                return c.name != "random" &&
                       std::find(o.only.begin(), o.only.end(), c.name) == o.only.end();
            });
        std::vector<Outcome> outcomes;
        for (const Config& c : configs) {
            const train::Dataset& d = c.batching == "commrand" ? renumbered : original;
            outcomes.push_back(run_config(c, o, d, fanouts, communities));
        }

        const Outcome& base = outcomes.front();
        const double target = std::isfinite(o.target_pearson) ? o.target_pearson
                                                              : base.best_pearson - 0.01;
        for (Outcome& out : outcomes) time_to_target(out, target);
        std::printf("target validation Pearson %.4f%s\n\n", target,
                    std::isfinite(o.target_pearson) ? "" : " (random's best - 0.01)");
        std::printf("| batching | epoch cpu s | speed-up | wall s | to target cpu s | speed-up | "
                    "best val r | vs random | nodes/root | lines/node | mean id gap |\n");
        std::printf("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
        nlohmann::json rows = nlohmann::json::array();
        for (const Outcome& out : outcomes) {
            char to[32] = "not reached", up[32] = "-";
            if (out.time_to_target >= 0) {
                std::snprintf(to, sizeof to, "%.2f (ep %u)", out.time_to_target,
                              out.epoch_to_target);
                if (base.time_to_target > 0)
                    std::snprintf(up, sizeof up, "%.2fx", base.time_to_target / out.time_to_target);
            }
            std::printf("| %s | %.3f | %.2fx | %.2f | %s | %s | %.4f | %+.4f | %.2f | %.3f | %.1f |\n",
                        out.config.name.c_str(), out.epoch_seconds,
                        base.epoch_seconds / out.epoch_seconds, out.epoch_wall, to, up,
                        out.best_pearson,
                        out.best_pearson - base.best_pearson, out.nodes_per_root,
                        out.lines_per_node, out.mean_gap);
            nlohmann::json epochs = nlohmann::json::array();
            for (std::size_t e = 0; e < out.epochs.size(); ++e) {
                const train::EpochReport& r = out.epochs[e];
                epochs.push_back({{"epoch", r.epoch},
                                  {"train_seconds", r.train_seconds},
                                  {"train_cpu_seconds", out.cpu[e]},
                                  {"val_pearson", r.validation.metrics.pearson.value},
                                  {"step_nodes", r.step_nodes}});
            }
            rows.push_back({{"batching", out.config.name},
                            {"epoch_cpu_seconds", out.epoch_seconds},
                            {"epoch_wall_seconds", out.epoch_wall},
                            {"time_to_target", out.time_to_target},
                            {"best_val_pearson", out.best_pearson},
                            {"nodes_per_root", out.nodes_per_root},
                            {"lines_per_node", out.lines_per_node},
                            {"mean_id_gap", out.mean_gap},
                            {"epochs", epochs}});
        }
        if (!o.json.empty()) {
            std::ofstream f(o.json);
            f << nlohmann::json{{"device", device.device},
                                {"target_pearson", target},
                                {"runs", rows}}
                     .dump(2)
              << '\n';
        }
        std::printf("\nload at the end: %s\n", bench::load_average().c_str());
    } catch (const Error& e) {
        std::fprintf(stderr, "error: %s\n", e.message().c_str());
        return 1;
    }
    return 0;
}
