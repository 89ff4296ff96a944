#include "nn/blocks.hpp"

#include <cmath>
#include <stdexcept>

namespace gsr::nn {

namespace {

std::uint64_t mix64(std::uint64_t z)
{
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

DeviceMatrix flat_view(DeviceMatrix flat, const ParameterLayout::Entry& e)
{
    DeviceMatrix m;
    m.offset = flat.offset + e.offset * flat.elem;
    m.rows = e.rows;
    m.cols = e.cols;
    m.ld = e.cols;
    m.elem = flat.elem;
    return m;
}

} // namespace

// ---- ParameterLayout ------------------------------------------------------------------------

std::size_t ParameterLayout::add(std::string name, std::uint32_t rows, std::uint32_t cols,
                                 ParameterInit init, double bound)
{
    entries_.push_back({std::move(name), rows, cols, count_, init, bound});
    count_ += std::size_t(rows) * cols;
    return entries_.size() - 1;
}

void ParameterLayout::bind(DeviceMatrix values, DeviceMatrix grads)
{
    values_ = values;
    grads_ = grads;
}

Parameter ParameterLayout::operator[](std::size_t index) const
{
    const Entry& e = entries_[index];
    return {flat_view(values_, e), flat_view(grads_, e)};
}

std::vector<double> ParameterLayout::initial_values(std::uint64_t seed) const
{
    std::vector<double> v(count_, 0.0);
    for (std::size_t t = 0; t < entries_.size(); ++t) {
        const Entry& e = entries_[t];
        const std::size_t n = std::size_t(e.rows) * e.cols;
        for (std::size_t i = 0; i < n; ++i) {
            double x = 0.0;
            if (e.init == ParameterInit::One) {
                x = 1.0;
            } else if (e.init == ParameterInit::Uniform) {
                const std::uint64_t h = mix64(mix64(seed ^ 0x5EEDull) + mix64(t + 1) + i);
                const double u = double(h >> 11) * 0x1.0p-53; // [0, 1)
                x = (2.0 * u - 1.0) * e.bound;
            }
            v[e.offset + i] = x;
        }
    }
    return v;
}

// ---- LinearLayer ----------------------------------------------------------------------------

LinearLayer::LinearLayer(ParameterLayout& layout, const std::string& name, std::uint32_t in,
                         std::uint32_t out)
{
    weight_ = layout.add(name + ".weight", in, out, ParameterInit::Uniform, 1.0 / std::sqrt(in));
    bias_ = layout.add(name + ".bias", 1, out, ParameterInit::Zero);
}

void LinearLayer::forward(const ParameterLayout& p, Backend& be, DeviceMatrix x,
                          DeviceMatrix y) const
{
    be.gemm(Transpose::No, Transpose::No, 1.0, x, p[weight_].value, 0.0, y);
    be.add_row_vector(p[bias_].value, y);
}

void LinearLayer::backward(const ParameterLayout& p, Backend& be, DeviceMatrix x,
                           DeviceMatrix dy, DeviceMatrix dx) const
{
    be.gemm(Transpose::Yes, Transpose::No, 1.0, x, dy, 1.0, p[weight_].grad);
    be.column_sums(dy, 1.0, p[bias_].grad);
    if (!dx.empty()) be.gemm(Transpose::No, Transpose::Yes, 1.0, dy, p[weight_].value, 0.0, dx);
}

// ---- GroupFunction --------------------------------------------------------------------------

GroupFunction::GroupFunction(ParameterLayout& layout, const std::string& name,
                             std::uint32_t width, std::uint32_t terms, Activation act,
                             std::uint32_t k, double branch_scale)
    : width_(width), terms_(terms), k_(k), act_(act)
{
    const double bound = branch_scale / std::sqrt(double(width));
    gamma_ = layout.add(name + ".norm.gamma", 1, width, ParameterInit::One);
    beta_ = layout.add(name + ".norm.beta", 1, width, ParameterInit::Zero);
    for (std::uint32_t t = 0; t < terms; ++t)
        neighbour_[t] = layout.add(name + ".conv.neighbour" + std::to_string(t), width, width,
                                   ParameterInit::Uniform, bound);
    root_ = layout.add(name + ".conv.root", width, width, ParameterInit::Uniform, bound);
    bias_ = layout.add(name + ".conv.bias", 1, width, ParameterInit::Zero);
}

GroupFunction::Scratch GroupFunction::allocate(Backend& be, std::uint32_t rows,
                                               std::uint32_t width, std::uint32_t terms,
                                               Activation act, std::uint32_t k,
                                               bool with_gradient)
{
    Scratch sc;
    sc.stats = be.alloc_matrix(rows, 2);
    if (act == Activation::Relu) {
        // [aggregated | z] in the same rows: the convolution's GEMMs can take every term and
        // the root as one operand (see joined_conv_input), and its backward writes dz there.
        const DeviceMatrix in = be.alloc_matrix(rows, (terms + 1) * width);
        sc.aggregated = in.columns(0, terms * width);
        sc.z = in.columns(terms * width, width);
    } else {
        sc.kept.width = width;
        sc.kept.index_bytes = CompressedRows::index_bytes_for(width);
        sc.kept.values = be.alloc_matrix(rows, k);
        sc.kept.indices = be.alloc_bytes(std::size_t(rows) * k * sc.kept.index_bytes);
        sc.aggregated = be.alloc_matrix(rows, terms * width);
    }
    if (with_gradient && act == Activation::TopK) sc.dz = be.alloc_matrix(rows, k);
    return sc;
}

SageConvWeights GroupFunction::weights(const ParameterLayout& p, const StepContext& s) const
{
    SageConvWeights w;
    w.terms = terms_;
    for (std::uint32_t t = 0; t < terms_; ++t) {
        w.graph[t] = s.graph[t];
        w.neighbour[t] = p[neighbour_[t]].value;
    }
    w.root = p[root_].value;
    w.bias = p[bias_].value;
    return w;
}

SageConvWeights GroupFunction::gradients(const ParameterLayout& p) const
{
    SageConvWeights g;
    g.terms = terms_;
    for (std::uint32_t t = 0; t < terms_; ++t) g.neighbour[t] = p[neighbour_[t]].grad;
    g.root = p[root_].grad;
    g.bias = p[bias_].grad;
    return g;
}

void GroupFunction::forward(const ParameterLayout& p, const StepContext& s, DeviceMatrix x,
                            DeviceMatrix residual, double sign, DeviceMatrix y, Scratch& sc,
                            std::uint32_t mask_column, Intermediates keep) const
{
    Backend& be = *s.backend;
    const DropoutMask mask = s.mask.shifted(mask_column);
    const SageConvWeights w = weights(p, s);
    const ResidualAdd add{residual, sign, s.quantum};
    if (act_ == Activation::Relu) {
        be.layernorm_relu_forward(x, p[gamma_].value, p[beta_].value, mask, sc.z, sc.stats);
        be.sage_conv_forward(w, sc.z, add, y, sc.aggregated);
    } else {
        if (keep == Intermediates::Keep) {
            be.normalize_topk_pack(x, p[gamma_].value, p[beta_].value, mask, sc.stats, sc.kept);
            be.sage_conv_forward(w, sc.kept, add, y, sc.aggregated);
        } else {
            be.normalize_topk_conv_transient(x, p[gamma_].value, p[beta_].value, mask, sc.stats,
                                             sc.kept, w, add, y, sc.aggregated);
        }
    }
}

GroupFunction::Intermediates GroupFunction::kept_for_backward(const ParameterLayout& p,
                                                              const StepContext& s,
                                                              const Scratch& sc,
                                                              DeviceMatrix dy) const
{
    if (act_ == Activation::TopK &&
        !s.backend->compressed_backward_reads_aggregated(weights(p, s), sc.kept, dy))
        return Intermediates::Drop;
    return Intermediates::Keep;
}

void GroupFunction::backward(const ParameterLayout& p, const StepContext& s, DeviceMatrix x,
                             Scratch& sc, DeviceMatrix dy, double dx_beta, DeviceMatrix dx,
                             std::uint32_t mask_column) const
{
    Backend& be = *s.backend;
    const DropoutMask mask = s.mask.shifted(mask_column);
    const SageConvWeights w = weights(p, s);
    const SageConvWeights g = gradients(p);
    if (act_ == Activation::Relu && sc.dz.empty()) {
        // No dz buffer: the convolution's backward leaves dz in z's columns (its gate is
        // recomputed from x), using the aggregated columns as scratch.
        const DeviceMatrix joined = joined_conv_input(sc.aggregated, sc.z);
        if (joined.empty()) throw std::logic_error("GroupFunction: [S z | z] expected");
        be.sage_conv_backward_joined(w, g, joined, dy);
        be.relu_layernorm_backward_from_input(x, p[gamma_].value, p[beta_].value, sc.stats, mask,
                                              sc.z, dx_beta, dx, p[gamma_].grad,
                                              p[beta_].grad);
    } else if (act_ == Activation::Relu) {
        be.sage_conv_backward(w, g, sc.z, sc.aggregated, dy, 0.0, sc.dz);
        be.relu_layernorm_backward(x, p[gamma_].value, sc.stats, sc.z,
                                   mask.active() ? mask.scale : 1.0, sc.dz, dx_beta, dx,
                                   p[gamma_].grad, p[beta_].grad);
    } else {
        be.sage_conv_backward(w, g, sc.kept, sc.aggregated, dy, sc.dz);
        be.normalize_topk_backward(x, p[gamma_].value, sc.stats, sc.kept, sc.dz, mask, dx_beta,
                                   dx, p[gamma_].grad, p[beta_].grad);
    }
}

// ---- ReversibleGroupBlock -------------------------------------------------------------------

ReversibleGroupBlock::ReversibleGroupBlock(ParameterLayout& layout, const std::string& name,
                                           std::uint32_t groups, std::uint32_t width,
                                           std::uint32_t terms, Activation act, std::uint32_t k,
                                           double branch_scale)
    : width_(width)
{
    for (std::uint32_t i = 0; i < groups; ++i)
        groups_.emplace_back(layout, name + ".group" + std::to_string(i), width, terms, act, k,
                             branch_scale);
}

ReversibleGroupBlock::Scratch ReversibleGroupBlock::allocate(Backend& be, std::uint32_t rows,
                                                             std::uint32_t groups,
                                                             std::uint32_t width,
                                                             std::uint32_t terms, Activation act,
                                                             std::uint32_t k)
{
    Scratch sc;
    if (groups > 2) {
        sc.y0 = be.alloc_matrix(rows, width);
        sc.dy0 = be.alloc_matrix(rows, width);
    }
    sc.f = GroupFunction::allocate(be, rows, width, terms, act, k);
    return sc;
}

DeviceMatrix ReversibleGroupBlock::y0_of(Backend& be, DeviceMatrix x, Scratch& sc) const
{
    if (groups_.size() == 2) return x.columns(width_, width_);
    be.sum_groups(x, width_, 1, sc.y0);
    return sc.y0;
}

void ReversibleGroupBlock::forward(const ParameterLayout& p, const StepContext& s,
                                   DeviceMatrix h, Scratch& sc) const
{
    const std::uint32_t d = width_;
    // Y_0 before any X_i changes; with two groups the view of X_2 is read by f_1 before
    // group 2 updates X_2 in place.
    const DeviceMatrix y0 = y0_of(*s.backend, h, sc);
    for (std::uint32_t i = 0; i < groups_.size(); ++i) {
        const DeviceMatrix prev = i == 0 ? y0 : h.columns((i - 1) * d, d);
        const DeviceMatrix hi = h.columns(i * d, d);
        groups_[i].forward(p, s, prev, hi, +1.0, hi, sc.f, i * d,
                           GroupFunction::Intermediates::Drop);
    }
}

void ReversibleGroupBlock::inverse(const ParameterLayout& p, const StepContext& s,
                                   DeviceMatrix h, Scratch& sc) const
{
    const std::uint32_t d = width_;
    for (std::uint32_t i = std::uint32_t(groups_.size()) - 1; i >= 1; --i) {
        const DeviceMatrix hi = h.columns(i * d, d);
        groups_[i].forward(p, s, h.columns((i - 1) * d, d), hi, -1.0, hi, sc.f, i * d,
                           GroupFunction::Intermediates::Drop);
    }
    const DeviceMatrix y0 = y0_of(*s.backend, h, sc);
    const DeviceMatrix h0 = h.columns(0, d);
    groups_[0].forward(p, s, y0, h0, -1.0, h0, sc.f, 0, GroupFunction::Intermediates::Drop);
}

void ReversibleGroupBlock::backward(const ParameterLayout& p, const StepContext& s,
                                    DeviceMatrix h, DeviceMatrix dh,
                                    const DeviceMatrix* stored_input, Scratch& sc) const
{
    Backend& be = *s.backend;
    const std::uint32_t d = width_;
    const std::uint32_t groups = std::uint32_t(groups_.size());
    // Groups C..1: the gradient of Y_i is complete once f_{i+1} is done, so go downwards.
    for (std::uint32_t i = groups; i-- > 0;) {
        const DeviceMatrix hi = h.columns(i * d, d);
        const DeviceMatrix prev = i > 0 ? h.columns((i - 1) * d, d) // Y_{i-1}: not restored yet
                                        : y0_of(be, stored_input ? *stored_input : h, sc);
        // Recompute f_i(Y_{i-1}) with the intermediates its backward reads; X_i = Y_i - f_i.
        const DeviceMatrix dyi = dh.columns(i * d, d);
        groups_[i].forward(p, s, prev, hi, -1.0, hi, sc.f, i * d,
                           groups_[i].kept_for_backward(p, s, sc.f, dyi));
        // dY_{i-1} += df_i/dY_{i-1}^T dY_i. dY_0 feeds every X_j, j >= 2: with two groups it
        // is added into dX_2 directly (its own gradient is complete by now).
        DeviceMatrix target = sc.dy0;
        double beta = 0.0;
        if (i > 0 || groups == 2) {
            target = dh.columns((i > 0 ? i - 1 : 1) * d, d);
            beta = 1.0;
        }
        groups_[i].backward(p, s, prev, sc.f, dyi, beta, target, i * d);
    }
    if (groups > 2)
        for (std::uint32_t j = 1; j < groups; ++j)
            be.axpby(1.0, sc.dy0, 1.0, dh.columns(j * d, d));
    if (stored_input) be.axpby(1.0, *stored_input, 0.0, h);
}

// ---- ResidualBlock --------------------------------------------------------------------------

ResidualBlock::ResidualBlock(ParameterLayout& layout, const std::string& name,
                             std::uint32_t width, std::uint32_t terms, double branch_scale)
    : f_(layout, name, width, terms, Activation::Relu, 0, branch_scale)
{
}

void ResidualBlock::forward(const ParameterLayout& p, const StepContext& s, DeviceMatrix x,
                            DeviceMatrix y, GroupFunction::Scratch& kept) const
{
    f_.forward(p, s, x, x, +1.0, y, kept, 0);
}

void ResidualBlock::backward(const ParameterLayout& p, const StepContext& s, DeviceMatrix x,
                             DeviceMatrix dh, GroupFunction::Scratch& kept) const
{
    f_.backward(p, s, x, kept, dh, 1.0, dh, 0);
}

// ---- GraphConvLayer -------------------------------------------------------------------------

GraphConvLayer::GraphConvLayer(ParameterLayout& layout, const std::string& name,
                               std::uint32_t width, std::uint32_t terms, bool root)
    : terms_(terms), root_(root)
{
    const double bound = 1.0 / std::sqrt(double(width));
    for (std::uint32_t t = 0; t < terms; ++t)
        neighbour_[t] = layout.add(name + ".conv.neighbour" + std::to_string(t), width, width,
                                   ParameterInit::Uniform, bound);
    if (root)
        root_weight_ = layout.add(name + ".conv.root", width, width, ParameterInit::Uniform,
                                  bound);
    bias_ = layout.add(name + ".conv.bias", 1, width, ParameterInit::Zero);
}

SageConvWeights GraphConvLayer::weights(const ParameterLayout& p, const StepContext& s,
                                        bool grads) const
{
    SageConvWeights w;
    w.terms = terms_;
    for (std::uint32_t t = 0; t < terms_; ++t) {
        w.graph[t] = s.graph[t];
        w.neighbour[t] = grads ? p[neighbour_[t]].grad : p[neighbour_[t]].value;
    }
    if (root_) w.root = grads ? p[root_weight_].grad : p[root_weight_].value;
    w.bias = grads ? p[bias_].grad : p[bias_].value;
    return w;
}

void GraphConvLayer::forward(const ParameterLayout& p, const StepContext& s, DeviceMatrix x,
                             DeviceMatrix y, DeviceMatrix aggregated) const
{
    s.backend->sage_conv_forward(weights(p, s, false), x, ResidualAdd{}, y, aggregated);
    s.backend->relu_forward(y, s.mask, y);
}

void GraphConvLayer::backward(const ParameterLayout& p, const StepContext& s, DeviceMatrix x,
                              DeviceMatrix y, DeviceMatrix aggregated, DeviceMatrix dy,
                              DeviceMatrix dx) const
{
    Backend& be = *s.backend;
    be.relu_backward(y, s.mask.active() ? s.mask.scale : 1.0, dy, 0.0, dy);
    be.sage_conv_backward(weights(p, s, false), weights(p, s, true), x, aggregated, dy, 0.0, dx);
}

} // namespace gsr::nn
