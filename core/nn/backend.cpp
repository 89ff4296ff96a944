#include "nn/backend.hpp"

#include <stdexcept>

namespace gsr::nn {

DeviceMatrix joined_conv_input(DeviceMatrix aggregated, DeviceMatrix z)
{
    const bool joined = !z.empty() && z.rows == aggregated.rows && z.ld == aggregated.ld &&
                        z.elem == aggregated.elem &&
                        z.offset == aggregated.offset + std::size_t(aggregated.cols) * z.elem &&
                        aggregated.cols + z.cols <= z.ld;
    if (!joined) return {};
    DeviceMatrix in = aggregated;
    in.cols += z.cols;
    return in;
}

DeviceMatrix stacked_conv_weights(const SageConvWeights& w)
{
    if (w.terms == 0 || w.root.empty()) return {};
    const DeviceMatrix first = w.neighbour[0];
    const std::size_t bytes = first.size() * first.elem;
    const auto follows = [&](DeviceMatrix m, std::uint32_t i) {
        return m.rows == first.rows && m.cols == first.cols && m.ld == first.cols &&
               first.ld == first.cols && m.elem == first.elem &&
               m.offset == first.offset + i * bytes;
    };
    for (std::uint32_t t = 1; t < w.terms; ++t)
        if (!follows(w.neighbour[t], t)) return {};
    if (!follows(w.root, w.terms)) return {};
    DeviceMatrix stacked = first;
    stacked.rows = (w.terms + 1) * first.rows;
    return stacked;
}

void Backend::conv_weight_gradients(const SageConvWeights& w, const SageConvWeights& grads,
                                    std::uint32_t d_in, DeviceMatrix aggregated, DeviceMatrix dy)
{
    for (std::uint32_t t = 0; t < w.terms; ++t)
        gemm(Transpose::Yes, Transpose::No, 1.0, aggregated.columns(t * d_in, d_in), dy, 1.0,
             grads.neighbour[t]);
    column_sums(dy, 1.0, grads.bias);
}

void Backend::layernorm_relu_forward(DeviceMatrix x, DeviceMatrix gamma, DeviceMatrix beta,
                                     const DropoutMask& mask, DeviceMatrix y, DeviceMatrix stats)
{
    layernorm_forward(x, gamma, beta, y, stats);
    relu_forward(y, mask, y);
}

void Backend::relu_layernorm_backward(DeviceMatrix x, DeviceMatrix gamma, DeviceMatrix stats,
                                      DeviceMatrix y, double scale, DeviceMatrix dy,
                                      double dx_beta, DeviceMatrix dx, DeviceMatrix dgamma,
                                      DeviceMatrix dbeta)
{
    relu_backward(y, scale, dy, 0.0, dy);
    layernorm_backward(x, gamma, stats, dy, dx_beta, dx, dgamma, dbeta);
}

void Backend::relu_layernorm_backward_from_input(DeviceMatrix x, DeviceMatrix gamma,
                                                 DeviceMatrix beta, DeviceMatrix stats,
                                                 const DropoutMask& mask, DeviceMatrix dy,
                                                 double dx_beta, DeviceMatrix dx,
                                                 DeviceMatrix dgamma, DeviceMatrix dbeta)
{
    layernorm_relu_gate(x, gamma, beta, stats, mask, dy);
    layernorm_backward(x, gamma, stats, dy, dx_beta, dx, dgamma, dbeta);
}

void Backend::sage_conv_backward_joined(const SageConvWeights& w, const SageConvWeights& grads,
                                        DeviceMatrix joined, DeviceMatrix dy)
{
    const std::uint32_t d = joined.cols / (w.terms + 1);
    if (w.root.empty() || joined.cols != (w.terms + 1) * d || joined.rows != dy.rows)
        throw std::logic_error(name() + ": joined convolution backward: expected [S z | z] and "
                                        "a root weight");
    const DeviceMatrix z = joined.columns(w.terms * d, d);
    conv_weight_gradients(w, grads, d, joined.columns(0, w.terms * d), dy);
    gemm(Transpose::Yes, Transpose::No, 1.0, z, dy, 1.0, grads.root);
    // Every input of the weight gradients is read: the joined matrix is free to overwrite.
    for (std::uint32_t t = 0; t < w.terms; ++t)
        gemm(Transpose::No, Transpose::Yes, 1.0, dy, w.neighbour[t], 0.0,
             joined.columns(t * d, d));
    gemm(Transpose::No, Transpose::Yes, 1.0, dy, w.root, 0.0, z);
    for (std::uint32_t t = 0; t < w.terms; ++t)
        spmm(*w.graph[t], Transpose::Yes, 1.0, joined.columns(t * d, d), 1.0, z);
}

void Backend::dense_conv_backward(const SageConvWeights& w, const SageConvWeights& grads,
                                  DeviceMatrix z, DeviceMatrix aggregated, DeviceMatrix dy,
                                  double dz_beta, DeviceMatrix dz)
{
    conv_weight_gradients(w, grads, z.cols, aggregated, dy);
    if (!w.root.empty()) gemm(Transpose::Yes, Transpose::No, 1.0, z, dy, 1.0, grads.root);
    conv_input_gradient(w, z, dy, dz_beta, dz);
}

void Backend::conv_input_gradient(const SageConvWeights& w, DeviceMatrix z, DeviceMatrix dy,
                                  double dz_beta, DeviceMatrix dz)
{
    const std::uint32_t d = z.cols;
    if (dz.empty()) return;
    if (dz.rows != z.rows || dz.cols != z.cols)
        throw std::logic_error(name() + ": convolution backward: dz and z differ in shape");
    ArenaScope scope(arena_);
    const DeviceMatrix g = alloc_matrix(z.rows, d);
    double beta = dz_beta;
    for (std::uint32_t t = 0; t < w.terms; ++t) {
        gemm(Transpose::No, Transpose::Yes, 1.0, dy, w.neighbour[t], 0.0, g);
        spmm(*w.graph[t], Transpose::Yes, 1.0, g, beta, dz);
        beta = 1.0;
    }
    if (!w.root.empty())
        gemm(Transpose::No, Transpose::Yes, 1.0, dy, w.root, beta, dz);
    else if (w.terms == 0 && beta == 0.0)
        fill(dz, 0.0);
}

} // namespace gsr::nn
