// CPU training throughput of the `res` model: one step = forward + backward + Adam on the
// full graph, median over --steps timed steps after 2 warm-up steps. With --export DIR it also
// writes the graph, features, targets and initial parameters for tests/bench/torch_res_cpu.py,
// so that PyTorch runs exactly the same model on exactly the same data (see
// train_speed_vs_torch.sh, which runs both side by side).
//   gsr_bench_train [--quick] [--file F] [--layers L] [--hidden D] [--threads T] [--steps N]
//                   [--export DIR]
// Export (all raw little-endian): offsets.u64 (N+1), targets.u32 (E) — the fan-in CSR of
// GraphInput; features.f32 (N x F row-major); labels.f32 (N); params.f64 (Model::parameters()
// in layout order); meta.json (sizes, config, our loss before the first step).
#include "graph/circuit_graph.hpp"
#include "netlist/readers.hpp"
#include "nn/graph_input.hpp"
#include "nn/dense_product.hpp"
#include "nn/model.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <numeric>
#include <string>
#include <vector>

using Clock = std::chrono::steady_clock;
using namespace gsr;

namespace {

std::string load_average()
{
    double l[3] = {0, 0, 0};
    if (getloadavg(l, 3) != 3) return "unknown";
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.2f %.2f %.2f", l[0], l[1], l[2]);
    return buf;
}

template <class T>
void write_raw(const std::filesystem::path& p, const std::vector<T>& v)
{
    std::ofstream f(p, std::ios::binary);
    f.write(reinterpret_cast<const char*>(v.data()), std::streamsize(v.size() * sizeof(T)));
    if (!f) throw std::runtime_error("cannot write " + p.string());
}

double median(std::vector<double> v)
{
    std::sort(v.begin(), v.end());
    const std::size_t n = v.size();
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

} // namespace

int main(int argc, char** argv)
{
    bool quick = false;
    std::string file = std::string(GSR_DATA_DIR) + "/netlists/epfl/arithmetic/multiplier.blif";
    std::string export_dir;
    unsigned layers = 8, hidden = 64, threads = 1;
    int steps = 7;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        auto next = [&]() -> std::string {
            if (i + 1 >= argc) {
                std::fprintf(stderr, "%s needs a value\n", a.c_str());
                std::exit(1);
            }
            return argv[++i];
        };
        if (a == "--quick")
            quick = true;
        else if (a == "--file")
            file = next();
        else if (a == "--export")
            export_dir = next();
        else if (a == "--layers")
            layers = unsigned(std::atoi(next().c_str()));
        else if (a == "--hidden")
            hidden = unsigned(std::atoi(next().c_str()));
        else if (a == "--threads")
            threads = unsigned(std::atoi(next().c_str()));
        else if (a == "--steps")
            steps = std::max(1, std::atoi(next().c_str()));
        else {
            std::fprintf(stderr, "usage: gsr_bench_train [--quick] [--file F] [--layers L] "
                                 "[--hidden D] [--threads T] [--steps N] [--export DIR]\n");
            return 1;
        }
    }
    if (quick) {
        file = std::string(GSR_DATA_DIR) + "/netlists/itc99/b14.bench";
        layers = std::min(layers, 4u);
        hidden = std::min(hidden, 32u);
        steps = std::min(steps, 3);
    }

    try {
        const graph::CircuitGraph cg = graph::build_graph(netlist::load_netlist(file));
        const nn::GraphInput g = nn::GraphInput::from_circuit(cg);
        g.check();
        const std::size_t n = g.node_count;

        // A smooth deterministic regression target from the features (every node in the loss).
        std::vector<float> labels(n);
        for (std::size_t v = 0; v < n; ++v) {
            double s = 0.0;
            for (std::size_t c = 0; c < g.feature_count; ++c)
                s += (c % 3 == 0 ? 1.0 : -0.5) * g.features[v * g.feature_count + c];
            labels[v] = float(std::tanh(s));
        }
        std::vector<std::uint32_t> nodes(n);
        std::iota(nodes.begin(), nodes.end(), 0u);

        nn::ModelConfig cfg;
        cfg.kind = nn::ModelKind::Res;
        cfg.layers = layers;
        cfg.hidden = hidden;
        cfg.threads = threads;
        cfg.precision = nn::Precision::Float32;
        nn::validate(cfg);
        nn::Model model(cfg, g.feature_count);
        model.bind_graph(g);

        if (!export_dir.empty()) {
            const std::filesystem::path dir(export_dir);
            std::filesystem::create_directories(dir);
            write_raw(dir / "offsets.u64", g.fanin_offsets);
            write_raw(dir / "targets.u32", g.fanin_targets);
            write_raw(dir / "features.f32", g.features);
            write_raw(dir / "labels.f32", labels);
            write_raw(dir / "params.f64", model.parameters());
            const double loss0 = model.evaluate(nodes, labels, nn::LossKind::MeanSquaredError);
            std::ofstream j(dir / "meta.json");
            char buf[512];
            std::snprintf(buf, sizeof buf,
                          "{\n  \"file\": \"%s\",\n  \"nodes\": %zu,\n  \"edges\": %zu,\n"
                          "  \"features\": %zu,\n  \"layers\": %u,\n  \"hidden\": %u,\n"
                          "  \"parameters\": %zu,\n  \"loss0\": %.9g\n}\n",
                          file.c_str(), n, g.edge_count(), g.feature_count, layers, hidden,
                          model.parameter_count(), loss0);
            j << buf;
        }

        const int warmup = 2;
        std::vector<double> ms;
        double first_loss = 0.0, last_loss = 0.0;
        for (int s = 0; s < warmup + steps; ++s) {
            const auto t0 = Clock::now();
            const double loss =
                model.train_step(nodes, labels, nn::LossKind::MeanSquaredError);
            const double t = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
            if (s == 0) first_loss = loss;
            last_loss = loss;
            if (s >= warmup) ms.push_back(t);
        }
        std::printf("res L=%u D=%u T=%u on %s: N=%zu E=%zu F=%zu params=%zu; GEMM %s; load %s\n",
                    layers, hidden, threads, std::filesystem::path(file).filename().c_str(), n,
                    g.edge_count(), g.feature_count, model.parameter_count(),
                    nn::detail::dense_product_isa(), load_average().c_str());
        std::printf("loss %.6g -> %.6g over %d steps\n", first_loss, last_loss, warmup + steps);
        std::printf("ms/step median %.3f (min %.3f, max %.3f, %d steps after %d warm-up)\n",
                    median(ms), *std::min_element(ms.begin(), ms.end()),
                    *std::max_element(ms.begin(), ms.end()), steps, warmup);
    } catch (const std::exception& e) {
        std::fprintf(stderr, "gsr_bench_train: %s\n", e.what());
        return 1;
    }
    return 0;
}
