#include "nn/model.hpp"

#include "nn/backend.hpp"
#include "nn/blocks.hpp"
#include "nn/cpu_backend.hpp"
#include "nn/graph_operators.hpp"
#include "util/diagnostics.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <utility>

namespace gsr::nn {

namespace {

bool is_reversible(ModelKind k) { return k == ModelKind::Rev || k == ModelKind::Gsr; }
bool is_deep(ModelKind k) { return is_reversible(k) || k == ModelKind::Res; }

// State file: magic, version, architecture, counters, then parameters, m, v as float64.
constexpr char kStateMagic[8] = {'G', 'S', 'R', 'N', 'N', 'S', 'T', '1'};

struct StateHeader {
    char magic[8];
    std::uint32_t kind, layers, hidden, groups, topk, directed, feature_count, reserved;
    std::uint64_t parameter_count, step, dropout_draws, seed;
};

} // namespace

class ModelImpl {
public:
    ModelImpl(const ModelConfig& config, std::size_t feature_count, const AdamConfig& adam,
              std::unique_ptr<Backend> backend);

    void bind_graph(const GraphInput& g);
    double accumulate(std::span<const std::uint32_t> nodes, std::span<const float> targets,
                      LossKind loss, double weight, bool train);
    void adam_step();
    std::vector<float> predict();
    double reconstruction_error();

    ModelConfig config_;
    AdamConfig adam_;
    std::size_t features_ = 0;
    std::unique_ptr<Backend> be_;
    ParameterLayout layout_;
    DeviceMatrix params_, grads_, m_, v_;
    std::size_t persistent_mark_ = 0;
    std::uint64_t step_ = 0;
    std::uint64_t dropout_draws_ = 0;

    // Architecture.
    LinearLayer encoder_;
    std::vector<GraphConvLayer> conv_layers_;     ///< gcn, sage
    std::vector<ResidualBlock> residual_blocks_;  ///< res
    std::vector<ReversibleGroupBlock> rev_blocks_;///< rev, gsr
    std::size_t final_gamma_ = 0, final_beta_ = 0;///< deep models: LayerNorm before the head
    LinearLayer head_;

    // The bound graph and its buffers.
    bool bound_ = false;
    std::uint32_t n_ = 0;
    std::size_t edges_ = 0;
    AggregationOperators operators_;
    DeviceMatrix features_m_, targets_, pred_, dpred_;
    DeviceBytes nodes_, mask_bytes_;
    DeviceMatrix h_, dh_;                     ///< rev/gsr: the stream and its gradient
    DeviceMatrix grad_a_, grad_b_;            ///< gcn/sage: gradient ping-pong
    DeviceMatrix shared_dz_;                  ///< res
    std::vector<DeviceMatrix> acts_;          ///< gcn/sage/res: H_0..H_L; rev stored: X_0..
    std::vector<DeviceMatrix> aggs_;          ///< gcn/sage: per-layer aggregate
    std::vector<GroupFunction::Scratch> kept_;///< res: per-layer intermediates

    // Measured memory, rows as estimate_memory's (encoder, layer 0..L-1, head). Parameter,
    // gradient and Adam slices are fixed at construction, kept activations at bind_graph,
    // workspace by arena windows during a training step (step_workspace_, committed to
    // measured_ when the backward pass is done, so eval passes never overwrite it).
    std::vector<LayerMemory> measured_;
    std::vector<std::size_t> step_workspace_;
    bool measured_valid_ = false;

private:
    StepContext context(bool train);
    double residual_quantum() const
    {
        return std::ldexp(1.0, config_.precision == Precision::Float64 ? -40 : -16);
    }
    void forward(const StepContext& s);
    void backward(const StepContext& s);
    void head_forward(const StepContext& s, DeviceMatrix top);
    void head_backward(const StepContext& s, DeviceMatrix top, DeviceMatrix dtop);
    /// Deep models: ReLU(LayerNorm(top)) of a chunk of rows, in fresh arena memory.
    struct HeadActivation {
        DeviceMatrix stats, z;
    };
    HeadActivation head_activation(DeviceMatrix top);
    /// rev/gsr: the scratch every block uses in turn.
    ReversibleGroupBlock::Scratch block_scratch(std::uint32_t terms)
    {
        return ReversibleGroupBlock::allocate(
            *be_, n_, group_count(config_), group_width(config_), terms,
            config_.kind == ModelKind::Gsr ? Activation::TopK : Activation::Relu, config_.topk);
    }

    std::size_t head_row() const { return measured_.size() - 1; }
    /// Runs `pass` in an arena window and raises row `row`'s workspace to the window's
    /// high-water mark above `base` (the arena mark where this layer's transient memory
    /// starts). A few integer operations: no synchronisation, any backend.
    template <class Pass> void measure(std::size_t row, std::size_t base, Pass&& pass)
    {
        Arena& arena = be_->arena();
        const Arena::Window window = arena.begin_window();
        pass();
        const std::size_t top = arena.end_window(window);
        step_workspace_[row] = std::max(step_workspace_[row], top - base);
    }
    template <class Pass> void measure(std::size_t row, Pass&& pass)
    {
        measure(row, be_->arena().mark(), std::forward<Pass>(pass));
    }
};

ModelImpl::ModelImpl(const ModelConfig& config, std::size_t feature_count,
                     const AdamConfig& adam, std::unique_ptr<Backend> backend)
    : config_(config), adam_(adam), features_(feature_count), be_(std::move(backend))
{
    validate(config_);
    validate(adam_);
    if (feature_count == 0) throw Error("model: graphs need at least one feature per node");
    if (!be_) be_ = make_cpu_backend(config_.precision, config_.threads);
    if (be_->precision() != config_.precision)
        throw Error("model: the backend's precision differs from the configuration's");

    const std::uint32_t D = config_.hidden, L = config_.layers;
    const std::uint32_t terms = config_.directed ? 2 : 1;
    // Residual branches start at 1/sqrt(L) of the usual scale: the stream stays O(1) at any
    // depth, which keeps it on the exact grid and the inverse well conditioned.
    const double branch_scale = 1.0 / std::sqrt(double(L));
    // Entry index where each memory row's parameters begin (the head row ends the layout).
    std::vector<std::size_t> row_first;
    row_first.push_back(layout_.entries().size());
    encoder_ = LinearLayer(layout_, "encoder", std::uint32_t(feature_count), D);
    for (std::uint32_t l = 0; l < L; ++l) {
        row_first.push_back(layout_.entries().size());
        const std::string name = "layer" + std::to_string(l);
        switch (config_.kind) {
        case ModelKind::Gcn: conv_layers_.emplace_back(layout_, name, D, terms, false); break;
        case ModelKind::Sage: conv_layers_.emplace_back(layout_, name, D, terms, true); break;
        case ModelKind::Res: residual_blocks_.emplace_back(layout_, name, D, terms, branch_scale);
            break;
        case ModelKind::Rev:
        case ModelKind::Gsr:
            rev_blocks_.emplace_back(layout_, name, config_.groups, group_width(config_), terms,
                                     config_.kind == ModelKind::Gsr ? Activation::TopK
                                                                    : Activation::Relu,
                                     config_.topk, branch_scale);
            break;
        }
    }
    row_first.push_back(layout_.entries().size());
    if (is_deep(config_.kind)) {
        final_gamma_ = layout_.add("final_norm.gamma", 1, D, ParameterInit::One);
        final_beta_ = layout_.add("final_norm.beta", 1, D, ParameterInit::Zero);
    }
    head_ = LinearLayer(layout_, "head", D, 1);

    const std::size_t count = layout_.count();
    if (count > std::numeric_limits<std::uint32_t>::max()) // the flat buffers' row count
        throw Error("--layers/--hidden: this model has " + std::to_string(count) +
                    " parameters, more than the " +
                    std::to_string(std::numeric_limits<std::uint32_t>::max()) +
                    " one model holds; use fewer --layers or a smaller --hidden");
    const std::size_t flat = Arena::align_up(count * be_->scalar_bytes());
    const std::uint32_t flat_rows = std::uint32_t(count);
    if (config_.offload_optimizer) {
        be_->reserve(flat);
        be_->reserve_host(3 * flat);
        params_ = be_->alloc_matrix(flat_rows, 1);
        grads_ = be_->alloc_host_matrix(flat_rows, 1);
        m_ = be_->alloc_host_matrix(flat_rows, 1);
        v_ = be_->alloc_host_matrix(flat_rows, 1);
    } else {
        be_->reserve(4 * flat);
        params_ = be_->alloc_matrix(flat_rows, 1);
        grads_ = be_->alloc_matrix(flat_rows, 1);
        m_ = be_->alloc_matrix(flat_rows, 1);
        v_ = be_->alloc_matrix(flat_rows, 1);
    }
    layout_.bind(params_, grads_);
    const std::vector<double> init = layout_.initial_values(config_.seed);
    be_->upload(params_, std::span<const double>(init));
    be_->fill(grads_, 0.0);
    be_->fill(m_, 0.0);
    be_->fill(v_, 0.0);
    persistent_mark_ = be_->arena().mark();

    // Each row's slice of the flat buffers: from its first entry's offset to the next row's.
    const auto& entries = layout_.entries();
    row_first.push_back(entries.size());
    const std::size_t rows = row_first.size() - 1;
    measured_.resize(rows);
    step_workspace_.assign(rows, 0);
    for (std::size_t i = 0; i < rows; ++i) {
        LayerMemory& m = measured_[i];
        m.name = i == 0 ? "encoder" : i + 1 == rows ? "head" : "layer " + std::to_string(i - 1);
        const std::size_t first = row_first[i], end = row_first[i + 1];
        const std::size_t from = first < entries.size() ? entries[first].offset : count;
        const std::size_t to = end < entries.size() ? entries[end].offset : count;
        m.parameter_bytes = (to - from) * be_->scalar_bytes();
        m.gradient_bytes = m.parameter_bytes;      // the same slice of grads_
        m.optimizer_bytes = 2 * m.parameter_bytes; // and of m_ and v_
    }
}

void ModelImpl::bind_graph(const GraphInput& g)
{
    g.check();
    if (g.feature_count != features_)
        throw Error("model: the graph has " + std::to_string(g.feature_count) +
                    " features per node, the model was built for " +
                    std::to_string(features_));
    Arena& arena = be_->arena();
    arena.release(persistent_mark_);
    bound_ = false;
    n_ = std::uint32_t(g.node_count);
    edges_ = g.edge_count();
    const MemoryReport plan = estimate_memory(config_, shape_of(g));
    be_->reserve(plan.analytic_peak_bytes);

    operators_ = upload_aggregation(*be_, g,
                                    config_.kind == ModelKind::Gcn ? Normalisation::Symmetric
                                                                   : Normalisation::Mean,
                                    config_.directed);
    const std::size_t n = n_;
    features_m_ = be_->alloc_matrix(n_, std::uint32_t(features_));
    be_->upload(features_m_, std::span<const float>(g.features));
    targets_ = be_->alloc_matrix(n_, 1);
    nodes_ = be_->alloc_bytes(n * sizeof(std::uint32_t));
    pred_ = be_->alloc_matrix(n_, 1);
    dpred_ = be_->alloc_matrix(n_, 1);
    mask_bytes_ = {};
    if (config_.dropout > 0.0) mask_bytes_ = be_->alloc_bytes(n * config_.hidden);

    // Buffers shared by the layers, then what each layer keeps (memory_model.cpp, same order).
    // The measured kept activations of a row: what the arena handed out while allocating them.
    const std::uint32_t D = config_.hidden, terms = config_.directed ? 2 : 1;
    measured_valid_ = false;
    for (LayerMemory& m : measured_) m.activation_bytes = m.workspace_bytes = 0;
    std::size_t at = 0;
    auto kept_by = [&](std::size_t row) { measured_[row].activation_bytes += arena.used() - at; };
    acts_.clear();
    aggs_.clear();
    kept_.clear();
    switch (config_.kind) {
    case ModelKind::Gcn:
    case ModelKind::Sage:
        grad_a_ = be_->alloc_matrix(n_, D);
        grad_b_ = be_->alloc_matrix(n_, D);
        at = arena.used();
        acts_.push_back(be_->alloc_matrix(n_, D));
        kept_by(0);
        for (std::uint32_t l = 0; l < config_.layers; ++l) {
            at = arena.used();
            acts_.push_back(be_->alloc_matrix(n_, D));
            aggs_.push_back(be_->alloc_matrix(n_, terms * D));
            kept_by(l + 1);
        }
        break;
    case ModelKind::Res:
        dh_ = be_->alloc_matrix(n_, D);
        shared_dz_ = be_->alloc_matrix(n_, D);
        at = arena.used();
        acts_.push_back(be_->alloc_matrix(n_, D));
        kept_by(0);
        for (std::uint32_t l = 0; l < config_.layers; ++l) {
            at = arena.used();
            acts_.push_back(be_->alloc_matrix(n_, D));
            kept_.push_back(GroupFunction::allocate(*be_, n_, D, terms, Activation::Relu, 0,
                                                    false));
            kept_.back().dz = shared_dz_;
            kept_by(l + 1);
        }
        break;
    case ModelKind::Rev:
    case ModelKind::Gsr:
        h_ = be_->alloc_matrix(n_, D);
        dh_ = be_->alloc_matrix(n_, D);
        if (config_.store_activations)
            for (std::uint32_t l = 0; l < config_.layers; ++l) {
                at = arena.used();
                acts_.push_back(be_->alloc_matrix(n_, D));
                kept_by(l + 1);
            }
        break;
    }
    arena.reset_peak();
    bound_ = true;
}

StepContext ModelImpl::context(bool train)
{
    StepContext s;
    s.backend = be_.get();
    s.terms = config_.directed ? 2 : 1;
    s.graph[0] = &operators_.op[0];
    s.graph[1] = config_.directed ? &operators_.op[1] : nullptr;
    if (is_reversible(config_.kind) && config_.exact_reversal) s.quantum = residual_quantum();
    if (train && config_.dropout > 0.0) {
        be_->make_dropout_mask(config_.seed, dropout_draws_++, config_.dropout, mask_bytes_, n_,
                               config_.hidden);
        s.mask.keep = mask_bytes_;
        s.mask.stride = config_.hidden;
        s.mask.scale = 1.0 / (1.0 - config_.dropout);
    }
    return s;
}

void ModelImpl::head_forward(const StepContext& s, DeviceMatrix top)
{
    if (!is_deep(config_.kind)) {
        head_.forward(layout_, *s.backend, top, pred_);
        return;
    }
    const std::uint64_t chunk = head_chunk_rows(n_); // 64 bits: four chunks can pass 2^32
    for (std::uint64_t first = 0; first < n_; first += chunk) {
        const auto r = static_cast<std::uint32_t>(first);
        const auto rows = static_cast<std::uint32_t>(std::min<std::uint64_t>(chunk, n_ - first));
        ArenaScope scope(be_->arena());
        const HeadActivation a = head_activation(top.row_block(r, rows));
        head_.forward(layout_, *s.backend, a.z, pred_.row_block(r, rows));
    }
}

ModelImpl::HeadActivation ModelImpl::head_activation(DeviceMatrix top)
{
    HeadActivation a;
    a.stats = be_->alloc_matrix(top.rows, 2);
    a.z = be_->alloc_matrix(top.rows, config_.hidden);
    be_->layernorm_relu_forward(top, layout_[final_gamma_].value, layout_[final_beta_].value,
                                DropoutMask{}, a.z, a.stats);
    return a;
}

void ModelImpl::head_backward(const StepContext& s, DeviceMatrix top, DeviceMatrix dtop)
{
    if (!is_deep(config_.kind)) {
        head_.backward(layout_, *s.backend, top, dpred_, dtop);
        return;
    }
    // The head's activations are recomputed from `top` chunk by chunk instead of kept: N x D
    // of memory traded for one more LayerNorm and ReLU.
    const std::uint64_t chunk = head_chunk_rows(n_); // 64 bits: four chunks can pass 2^32
    for (std::uint64_t first = 0; first < n_; first += chunk) {
        const auto r = static_cast<std::uint32_t>(first);
        const auto rows = static_cast<std::uint32_t>(std::min<std::uint64_t>(chunk, n_ - first));
        ArenaScope scope(be_->arena());
        const DeviceMatrix x = top.row_block(r, rows), dp = dpred_.row_block(r, rows);
        const HeadActivation a = head_activation(x);
        head_.backward(layout_, *s.backend, a.z, dp, DeviceMatrix{});
        const DeviceMatrix dz = be_->alloc_matrix(rows, config_.hidden);
        be_->gemm(Transpose::No, Transpose::Yes, 1.0, dp, layout_[head_.weight_index()].value,
                  0.0, dz);
        be_->relu_layernorm_backward(x, layout_[final_gamma_].value, a.stats, a.z, 1.0, dz, 0.0,
                                     dtop.row_block(r, rows), layout_[final_gamma_].grad,
                                     layout_[final_beta_].grad);
    }
}

void ModelImpl::forward(const StepContext& s)
{
    const std::uint32_t L = config_.layers;
    switch (config_.kind) {
    case ModelKind::Gcn:
    case ModelKind::Sage:
        measure(0, [&] { encoder_.forward(layout_, *be_, features_m_, acts_[0]); });
        for (std::uint32_t l = 0; l < L; ++l)
            measure(l + 1, [&] {
                conv_layers_[l].forward(layout_, s, acts_[l], acts_[l + 1], aggs_[l]);
            });
        measure(head_row(), [&] { head_forward(s, acts_[L]); });
        break;
    case ModelKind::Res:
        measure(0, [&] { encoder_.forward(layout_, *be_, features_m_, acts_[0]); });
        for (std::uint32_t l = 0; l < L; ++l)
            measure(l + 1, [&] {
                residual_blocks_[l].forward(layout_, s, acts_[l], acts_[l + 1], kept_[l]);
            });
        measure(head_row(), [&] { head_forward(s, acts_[L]); });
        break;
    case ModelKind::Rev:
    case ModelKind::Gsr: {
        measure(0, [&] {
            encoder_.forward(layout_, *be_, features_m_, h_);
            be_->round_to_grid(h_, s.quantum);
        });
        {
            ArenaScope scope(be_->arena());
            // The block scratch is every layer's workspace in turn: measured from below it.
            const std::size_t base = be_->arena().mark();
            auto sc = block_scratch(s.terms);
            for (std::uint32_t l = 0; l < L; ++l)
                measure(l + 1, base, [&] {
                    if (config_.store_activations) be_->axpby(1.0, h_, 0.0, acts_[l]);
                    rev_blocks_[l].forward(layout_, s, h_, sc);
                });
        }
        measure(head_row(), [&] { head_forward(s, h_); });
        break;
    }
    }
}

void ModelImpl::backward(const StepContext& s)
{
    const std::uint32_t L = config_.layers;
    switch (config_.kind) {
    case ModelKind::Gcn:
    case ModelKind::Sage: {
        DeviceMatrix dy = grad_a_, dx = grad_b_;
        measure(head_row(), [&] { head_backward(s, acts_[L], dy); });
        for (std::uint32_t l = L; l-- > 0;) {
            measure(l + 1, [&] {
                conv_layers_[l].backward(layout_, s, acts_[l], acts_[l + 1], aggs_[l], dy, dx);
            });
            std::swap(dy, dx);
        }
        measure(0, [&] { encoder_.backward(layout_, *be_, features_m_, dy, DeviceMatrix{}); });
        break;
    }
    case ModelKind::Res:
        measure(head_row(), [&] { head_backward(s, acts_[L], dh_); });
        for (std::uint32_t l = L; l-- > 0;)
            measure(l + 1, [&] {
                residual_blocks_[l].backward(layout_, s, acts_[l], dh_, kept_[l]);
            });
        measure(0, [&] { encoder_.backward(layout_, *be_, features_m_, dh_, DeviceMatrix{}); });
        break;
    case ModelKind::Rev:
    case ModelKind::Gsr: {
        measure(head_row(), [&] { head_backward(s, h_, dh_); });
        {
            ArenaScope scope(be_->arena());
            const std::size_t base = be_->arena().mark();
            auto sc = block_scratch(s.terms);
            for (std::uint32_t l = L; l-- > 0;)
                measure(l + 1, base, [&] {
                    rev_blocks_[l].backward(layout_, s, h_, dh_,
                                            config_.store_activations ? &acts_[l] : nullptr,
                                            sc);
                });
        }
        // After the block scratch is freed: the encoder's workspace is its own row's.
        measure(0, [&] { encoder_.backward(layout_, *be_, features_m_, dh_, DeviceMatrix{}); });
        break;
    }
    }
}

double ModelImpl::accumulate(std::span<const std::uint32_t> nodes,
                             std::span<const float> targets, LossKind loss, double weight,
                             bool train)
{
    if (!bound_) throw Error("model: no graph bound (call bind_graph first)");
    if (targets.size() != n_)
        throw Error("model: " + std::to_string(targets.size()) + " targets for a graph of " +
                    std::to_string(n_) + " nodes (one per node expected)");
    if (nodes.size() > n_) throw Error("model: more listed nodes than the graph has");
    for (std::uint32_t v : nodes)
        if (v >= n_) throw Error("model: node " + std::to_string(v) + " is not in the graph");
    be_->upload(targets_, targets);
    be_->upload_bytes(nodes_, nodes.data(), nodes.size() * sizeof(std::uint32_t));
    const StepContext s = context(train);
    std::fill(step_workspace_.begin(), step_workspace_.end(), std::size_t{0});
    forward(s);
    const double value = be_->loss(loss, pred_, targets_, nodes_, std::uint32_t(nodes.size()),
                                   weight, dpred_);
    if (train) {
        backward(s);
        for (std::size_t i = 0; i < measured_.size(); ++i)
            measured_[i].workspace_bytes = step_workspace_[i];
        measured_valid_ = true;
    }
    return value;
}

void ModelImpl::adam_step()
{
    AdamStep a;
    a.learning_rate = adam_.learning_rate;
    a.beta1 = adam_.beta1;
    a.beta2 = adam_.beta2;
    a.epsilon = adam_.epsilon;
    a.weight_decay = adam_.weight_decay;
    a.step = ++step_;
    be_->adam_step(params_, grads_, m_, v_, a);
}

std::vector<float> ModelImpl::predict()
{
    if (!bound_) throw Error("model: no graph bound (call bind_graph first)");
    forward(context(false));
    std::vector<float> out(n_);
    be_->download(pred_, std::span<float>(out));
    return out;
}

double ModelImpl::reconstruction_error()
{
    if (!is_reversible(config_.kind))
        throw Error("model: reconstruction applies to rev and gsr only");
    if (!bound_) throw Error("model: no graph bound (call bind_graph first)");
    const StepContext s = context(false);
    Arena& arena = be_->arena();
    // A debug probe: room for a copy of the input on top of the plan.
    be_->reserve(arena.capacity() + Arena::align_up(std::size_t(n_) * config_.hidden *
                                                    be_->scalar_bytes()));
    ArenaScope scope(arena);
    const DeviceMatrix input = be_->alloc_matrix(n_, config_.hidden);
    auto sc = block_scratch(s.terms);
    encoder_.forward(layout_, *be_, features_m_, h_);
    be_->round_to_grid(h_, s.quantum);
    be_->axpby(1.0, h_, 0.0, input);
    for (std::uint32_t l = 0; l < config_.layers; ++l) rev_blocks_[l].forward(layout_, s, h_, sc);
    for (std::uint32_t l = config_.layers; l-- > 0;) rev_blocks_[l].inverse(layout_, s, h_, sc);
    const double scale = be_->max_abs_difference(input, DeviceMatrix{});
    const double err = be_->max_abs_difference(h_, input);
    return scale > 0.0 ? err / scale : err;
}

// ---- Model ----------------------------------------------------------------------------------

Model::Model(const ModelConfig& config, std::size_t feature_count, const AdamConfig& adam,
             std::unique_ptr<Backend> backend)
    : impl_(std::make_unique<ModelImpl>(config, feature_count, adam, std::move(backend)))
{
}

Model::~Model() = default;
Model::Model(Model&&) noexcept = default;
Model& Model::operator=(Model&&) noexcept = default;

const ModelConfig& Model::config() const { return impl_->config_; }
const AdamConfig& Model::adam_config() const { return impl_->adam_; }

void Model::set_learning_rate(double learning_rate)
{
    AdamConfig a = impl_->adam_;
    a.learning_rate = learning_rate;
    validate(a);
    impl_->adam_ = a;
}

std::size_t Model::feature_count() const { return impl_->features_; }
std::size_t Model::parameter_count() const { return impl_->layout_.count(); }
std::uint64_t Model::step_count() const { return impl_->step_; }
void Model::bind_graph(const GraphInput& graph) { impl_->bind_graph(graph); }
std::size_t Model::node_count() const { return impl_->bound_ ? impl_->n_ : 0; }

double Model::train_step(std::span<const std::uint32_t> nodes, std::span<const float> targets,
                         LossKind loss)
{
    zero_gradients();
    const double value = accumulate_gradients(nodes, targets, loss);
    adam_step();
    return value;
}

void Model::zero_gradients() { impl_->be_->fill(impl_->grads_, 0.0); }

double Model::accumulate_gradients(std::span<const std::uint32_t> nodes,
                                   std::span<const float> targets, LossKind loss, double weight)
{
    return impl_->accumulate(nodes, targets, loss, weight, true);
}

void Model::adam_step() { impl_->adam_step(); }
std::vector<float> Model::predict() { return impl_->predict(); }

double Model::evaluate(std::span<const std::uint32_t> nodes, std::span<const float> targets,
                       LossKind loss)
{
    return impl_->accumulate(nodes, targets, loss, 0.0, false);
}

std::vector<std::uint8_t> Model::save_state() const
{
    const ModelImpl& m = *impl_;
    StateHeader h{};
    std::memcpy(h.magic, kStateMagic, sizeof(h.magic));
    h.kind = std::uint32_t(m.config_.kind);
    h.layers = m.config_.layers;
    h.hidden = m.config_.hidden;
    h.groups = group_count(m.config_);
    h.topk = m.config_.kind == ModelKind::Gsr ? m.config_.topk : 0;
    h.directed = m.config_.directed;
    h.feature_count = std::uint32_t(m.features_);
    h.parameter_count = m.layout_.count();
    h.step = m.step_;
    h.dropout_draws = m.dropout_draws_;
    h.seed = m.config_.seed;
    const std::size_t count = m.layout_.count();
    std::vector<std::uint8_t> out(sizeof(h) + 3 * count * sizeof(double));
    std::memcpy(out.data(), &h, sizeof(h));
    std::vector<double> values(count);
    std::size_t at = sizeof(h);
    for (DeviceMatrix buf : {m.params_, m.m_, m.v_}) {
        m.be_->download(buf, std::span<double>(values));
        std::memcpy(out.data() + at, values.data(), count * sizeof(double));
        at += count * sizeof(double);
    }
    return out;
}

void Model::load_state(std::span<const std::uint8_t> bytes)
{
    ModelImpl& m = *impl_;
    StateHeader h{};
    if (bytes.size() < sizeof(h)) throw Error("model state: too short to be a state");
    std::memcpy(&h, bytes.data(), sizeof(h));
    if (std::memcmp(h.magic, kStateMagic, sizeof(h.magic)) != 0)
        throw Error("model state: not a GSR model state (bad magic)");
    const bool same = h.kind == std::uint32_t(m.config_.kind) &&
                      h.layers == m.config_.layers && h.hidden == m.config_.hidden &&
                      h.groups == group_count(m.config_) &&
                      h.topk == (m.config_.kind == ModelKind::Gsr ? m.config_.topk : 0) &&
                      h.directed == std::uint32_t(m.config_.directed) &&
                      h.feature_count == m.features_ && h.parameter_count == m.layout_.count();
    if (!same)
        throw Error("model state: saved for " +
                    std::string(model_kind_name(ModelKind(h.kind))) + " layers " +
                    std::to_string(h.layers) + " hidden " + std::to_string(h.hidden) +
                    " groups " + std::to_string(h.groups) + " topk " + std::to_string(h.topk) +
                    " features " + std::to_string(h.feature_count) +
                    (h.directed ? " directed" : "") + ", which is not this model");
    const std::size_t count = m.layout_.count();
    if (bytes.size() != sizeof(h) + 3 * count * sizeof(double))
        throw Error("model state: truncated or padded (" + std::to_string(bytes.size()) +
                    " bytes)");
    // Checked whole before any of it is loaded: a NaN parameter trained on as a dead model
    // that "finished", a negative second moment as a run that "diverged".
    std::vector<double> values(3 * count);
    std::memcpy(values.data(), bytes.data() + sizeof(h), values.size() * sizeof(double));
    static constexpr const char* kParts[] = {"parameter", "Adam first moment",
                                             "Adam second moment"};
    for (std::size_t i = 0; i < values.size(); ++i)
        if (!std::isfinite(values[i]) || (i >= 2 * count && values[i] < 0))
            throw Error("model state: damaged: " + std::string(kParts[i / count]) + " " +
                        std::to_string(i % count) + " is " + std::to_string(values[i]));
    std::size_t at = 0;
    for (DeviceMatrix buf : {m.params_, m.m_, m.v_}) {
        m.be_->upload(buf, std::span<const double>(values).subspan(at, count));
        at += count;
    }
    m.step_ = h.step;
    m.dropout_draws_ = h.dropout_draws;
    m.config_.seed = h.seed; // the dropout masks continue the saved run's sequence
}

MemoryReport Model::memory_report() const
{
    GraphShape shape{impl_->bound_ ? impl_->n_ : 0, impl_->edges_, impl_->features_};
    MemoryReport r = estimate_memory(impl_->config_, shape);
    r.measured_peak_bytes = measured_peak_bytes();
    r.measured_layers = measured_layers();
    return r;
}

std::size_t Model::measured_peak_bytes() const { return impl_->be_->arena().peak(); }

const std::vector<LayerMemory>& Model::measured_layers() const
{
    static const std::vector<LayerMemory> none;
    return impl_->bound_ && impl_->measured_valid_ ? impl_->measured_ : none;
}

const Backend& Model::backend() const { return *impl_->be_; }

std::vector<double> Model::parameters() const
{
    std::vector<double> v(impl_->layout_.count());
    impl_->be_->download(impl_->params_, std::span<double>(v));
    return v;
}

void Model::set_parameters(std::span<const double> values)
{
    if (values.size() != impl_->layout_.count())
        throw Error("model: " + std::to_string(values.size()) + " parameter values for " +
                    std::to_string(impl_->layout_.count()) + " parameters");
    impl_->be_->upload(impl_->params_, values);
}

std::vector<double> Model::gradients() const
{
    std::vector<double> v(impl_->layout_.count());
    impl_->be_->download(impl_->grads_, std::span<double>(v));
    return v;
}

double Model::reconstruction_error() { return impl_->reconstruction_error(); }

} // namespace gsr::nn
