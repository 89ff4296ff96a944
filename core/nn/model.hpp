#pragma once
// GNN models over circuit graphs: gcn, sage (shallow), res (deep residual), rev (grouped
// reversible), gsr (grouped reversible + group-wise top-k stored compressed).
//
// API overview (stable):
//   ModelConfig cfg;            // nn/model_config.hpp: kind, layers, hidden, groups, topk,
//   cfg.kind = ModelKind::Gsr;  //   dropout, seed, directed, threads, precision, ...
//   validate(cfg);              // gsr::Error naming the flag (--groups, --topk, ...)
//   GraphInput g = GraphInput::from_circuit(circuit_graph);   // nn/graph_input.hpp
//   Model model(cfg, g.feature_count);        // parameters + Adam state; CPU backend
//   model.bind_graph(g);                      // copies the graph into the arena (re-bind to
//                                             //   switch circuits; parameters are kept)
//   // one step on training nodes (index list; nodes_from_mask() turns a mask into one):
//   double loss = model.train_step(train_nodes, targets, LossKind::MeanSquaredError);
//   // or, to sum gradients over several graphs/batches before one update:
//   model.zero_gradients();
//   model.bind_graph(g1); model.accumulate_gradients(nodes1, targets1, loss_kind, 0.5);
//   model.bind_graph(g2); model.accumulate_gradients(nodes2, targets2, loss_kind, 0.5);
//   model.adam_step();
//   std::vector<float> pred = model.predict();          // N outputs, no dropout (eval mode)
//   double eval = model.evaluate(val_nodes, targets, LossKind::MeanSquaredError);
//   std::vector<std::uint8_t> ckpt = model.save_state();  // parameters + Adam moments + step
//   model.load_state(ckpt);                    // gsr::Error if the architecture differs
//   MemoryReport mem = model.memory_report();  // per-layer analytic + measured (after a step)
//   MemoryReport plan = estimate_memory(cfg, GraphShape{N, E, F});  // without a model
//
// `targets` always has one entry per node of the bound graph (node id -> target); only the
// listed nodes enter the loss (mean over them; a node listed twice counts twice). Every call
// runs the whole graph (full-batch message passing); the node list only selects the loss.
// Results are bit-identical for a seed whatever the thread count, and a loaded state resumes
// a run bit for bit (dropout stream included). A Model is not thread-safe: one caller at a
// time. Errors the user can cause throw gsr::Error; internal misuse std::logic_error.
#include "nn/backend.hpp"
#include "nn/graph_input.hpp"
#include "nn/memory_model.hpp"
#include "nn/model_config.hpp"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

namespace gsr::nn {

class ModelImpl;

class Model {
public:
    /// A model for graphs with `feature_count` features per node. `backend` defaults to the CPU
    /// backend of config.precision and config.threads.
    Model(const ModelConfig& config, std::size_t feature_count, const AdamConfig& adam = {},
          std::unique_ptr<Backend> backend = nullptr);
    ~Model();
    Model(Model&&) noexcept;
    Model& operator=(Model&&) noexcept;

    const ModelConfig& config() const;
    const AdamConfig& adam_config() const;
    void set_learning_rate(double learning_rate);
    std::size_t feature_count() const;
    std::size_t parameter_count() const;
    std::uint64_t step_count() const; ///< Adam steps taken

    /// Makes `graph` the graph the following calls run on. Grows the arena if this graph needs
    /// more (one reallocation; parameters are kept). gsr::Error if the features do not match.
    void bind_graph(const GraphInput& graph);
    std::size_t node_count() const; ///< of the bound graph

    /// zero_gradients + accumulate_gradients + adam_step; returns the loss before the update.
    double train_step(std::span<const std::uint32_t> nodes, std::span<const float> targets,
                      LossKind loss);
    void zero_gradients();
    /// Forward (training mode: dropout with this step's mask), loss over `nodes`, backward;
    /// adds weight * d(loss)/d(parameters) to the gradients. Returns the loss (unweighted).
    double accumulate_gradients(std::span<const std::uint32_t> nodes,
                                std::span<const float> targets, LossKind loss,
                                double weight = 1.0);
    void adam_step();

    /// Outputs for every node of the bound graph (eval mode: no dropout); logits for BCE.
    std::vector<float> predict();
    /// Loss over `nodes` in eval mode; no gradients.
    double evaluate(std::span<const std::uint32_t> nodes, std::span<const float> targets,
                    LossKind loss);

    /// Parameters, Adam moments, step count and dropout stream (seed and draws), with the
    /// architecture they belong to. Loading resumes the saved run bit for bit.
    std::vector<std::uint8_t> save_state() const;
    void load_state(std::span<const std::uint8_t> bytes);

    /// Analytic per-layer memory for the bound graph plus the arena's measured high-water mark
    /// and, once a training step has run on the bound graph, the measured per-layer rows.
    MemoryReport memory_report() const;
    std::size_t measured_peak_bytes() const;
    /// Per layer, as measured in the backend's arena during the latest training step
    /// (accumulate_gradients) on the bound graph: parameter/gradient/Adam slices of the flat
    /// buffers, kept activations as allocated by bind_graph, and workspace = the arena's
    /// high-water mark while the layer ran (forward and backward) above the mark where its
    /// transient memory starts. Empty before the first step after bind_graph.
    const std::vector<LayerMemory>& measured_layers() const;

    // For checks and tests: every parameter / gradient as one flat vector, in a fixed order.
    std::vector<double> parameters() const;
    void set_parameters(std::span<const double> values);
    std::vector<double> gradients() const;
    /// Largest |X_rec - X| / max|X| over the layers when the stack is run forward and then
    /// inverted (rev, gsr): the drift of reconstruction by subtraction. Eval mode.
    double reconstruction_error();

    /// The backend the model runs on (its name, its tuned-kernel launches).
    const Backend& backend() const;

private:
    std::unique_ptr<ModelImpl> impl_;
};

} // namespace gsr::nn
