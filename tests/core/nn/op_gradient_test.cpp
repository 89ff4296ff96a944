// Finite-difference checks, in float64, of every backend op that has a backward: the forward op
// defines J = <R, out> for a random R, the backward ops give dJ/dinput, central differences
// must agree to a relative error of 1e-6 (norm-wise over the input).
#include "nn/cpu_backend.hpp"
#include "nn/graph_operators.hpp"
#include "nn_test_support.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <functional>
#include <string>

using namespace gsr::nn;
using namespace gsr::nn::testing;

namespace {

constexpr double kTolerance = 1e-6;

class OpGradient : public ::testing::Test {
protected:
    void SetUp() override { be_->reserve(64u << 20); }

    DeviceMatrix matrix(std::uint32_t rows, std::uint32_t cols, std::uint64_t seed,
                        double scale = 1.0)
    {
        const DeviceMatrix m = be_->alloc_matrix(rows, cols);
        write(m, random_values(m.size(), seed, scale));
        return m;
    }
    void write(DeviceMatrix m, const std::vector<double>& v)
    {
        be_->upload(m, std::span<const double>(v));
    }
    std::vector<double> read(DeviceMatrix m)
    {
        std::vector<double> v(m.size());
        be_->download(m, std::span<double>(v));
        return v;
    }

    /// Compares the analytic gradient of J with respect to `input` with central differences;
    /// `run` recomputes the output from the current inputs.
    void check(const std::string& what, DeviceMatrix input, DeviceMatrix output,
               const std::vector<double>& r, const std::function<void()>& run,
               const std::vector<double>& analytic)
    {
        const std::vector<double> x0 = read(input);
        const auto numeric = central_differences(x0, [&](const std::vector<double>& x) {
            write(input, x);
            run();
            return dot(r, read(output));
        });
        write(input, x0);
        run();
        const double err = relative_error(analytic, numeric);
        std::printf("[gradcheck] %-44s rel err %.2e (max-elem %.2e)\n", what.c_str(), err,
                    max_relative_error(analytic, numeric));
        EXPECT_LE(err, kTolerance) << what;
    }

    std::unique_ptr<Backend> be_ = make_cpu_backend(Precision::Float64, 2);
};

const char* tname(Transpose t) { return t == Transpose::No ? "N" : "T"; }

} // namespace

TEST_F(OpGradient, GemmAllTransposesWithSlabReduction)
{
    // inner = 300 rows: two slabs in the transposed-A reductions.
    const std::uint32_t m = 5, n = 4, k = 300;
    const double alpha = 0.7, beta = 0.3;
    for (Transpose ta : {Transpose::No, Transpose::Yes})
        for (Transpose tb : {Transpose::No, Transpose::Yes}) {
            ArenaScope scope(be_->arena());
            const DeviceMatrix a = ta == Transpose::No ? matrix(m, k, 1) : matrix(k, m, 1);
            const DeviceMatrix b = tb == Transpose::No ? matrix(k, n, 2) : matrix(n, k, 2);
            // c is a column slice of a wider matrix, as a group of an N x D buffer is.
            const DeviceMatrix wide = matrix(m, n + 3, 3);
            const DeviceMatrix c = wide.columns(2, n);
            const std::vector<double> c0 = read(c);
            const std::vector<double> r = random_values(m * n, 4);
            const DeviceMatrix rm = be_->alloc_matrix(m, n);
            write(rm, r);
            auto run = [&] {
                write(c, c0);
                be_->gemm(ta, tb, alpha, a, b, beta, c);
            };
            const DeviceMatrix da = be_->alloc_matrix(a.rows, a.cols);
            const DeviceMatrix db = be_->alloc_matrix(b.rows, b.cols);
            const Transpose not_tb = tb == Transpose::No ? Transpose::Yes : Transpose::No;
            if (ta == Transpose::No)
                be_->gemm(Transpose::No, not_tb, alpha, rm, b, 0.0, da); // R op(B)^T
            else
                be_->gemm(tb, Transpose::Yes, alpha, b, rm, 0.0, da);    // op(B) R^T
            if (tb == Transpose::No)
                be_->gemm(ta == Transpose::No ? Transpose::Yes : Transpose::No, Transpose::No,
                          alpha, a, rm, 0.0, db);                        // op(A)^T R
            else
                be_->gemm(Transpose::Yes, ta, alpha, rm, a, 0.0, db);    // R^T op(A)
            const std::string name = std::string("gemm ") + tname(ta) + tname(tb);
            check(name + " dA", a, c, r, run, read(da));
            check(name + " dB", b, c, r, run, read(db));
            std::vector<double> dc(r);
            for (double& x : dc) x *= beta;
            ArenaScope inner(be_->arena());
            const DeviceMatrix c_in = be_->alloc_matrix(m, n);
            write(c_in, c0);
            check(name + " dC", c_in, c, r, [&] {
                be_->axpby(1.0, c_in, 0.0, c);
                be_->gemm(ta, tb, alpha, a, b, beta, c);
            }, dc);
        }
}

TEST_F(OpGradient, GemmMatchesNaiveProduct)
{
    const std::uint32_t m = 3, n = 2, k = 600;
    const DeviceMatrix a = matrix(k, m, 5), b = matrix(k, n, 6), c = be_->alloc_matrix(m, n);
    be_->gemm(Transpose::Yes, Transpose::No, 1.0, a, b, 0.0, c);
    const auto av = read(a), bv = read(b), cv = read(c);
    for (std::uint32_t i = 0; i < m; ++i)
        for (std::uint32_t j = 0; j < n; ++j) {
            double s = 0.0;
            for (std::uint32_t p = 0; p < k; ++p) s += av[p * m + i] * bv[p * n + j];
            EXPECT_NEAR(cv[i * n + j], s, 1e-12);
        }
}

TEST_F(OpGradient, SpmmAndItsTransposeForEveryOperator)
{
    const GraphInput g = random_graph(40, 3, 11);
    struct Case {
        const char* name;
        Normalisation norm;
        bool directed;
    } cases[] = {{"mean union", Normalisation::Mean, false},
                 {"mean directed", Normalisation::Mean, true},
                 {"gcn union", Normalisation::Symmetric, false},
                 {"gcn directed", Normalisation::Symmetric, true}};
    for (const Case& c : cases) {
        ArenaScope scope(be_->arena());
        const AggregationOperators ops = upload_aggregation(*be_, g, c.norm, c.directed);
        for (std::uint32_t t = 0; t < ops.terms; ++t)
            for (Transpose tr : {Transpose::No, Transpose::Yes}) {
                const DeviceMatrix x = matrix(40, 5, 20 + t);
                const DeviceMatrix y = matrix(40, 5, 30);
                const std::vector<double> y0 = read(y);
                const std::vector<double> r = random_values(y.size(), 40);
                const DeviceMatrix rm = be_->alloc_matrix(40, 5);
                write(rm, r);
                const DeviceMatrix dx = be_->alloc_matrix(40, 5);
                const Transpose back = tr == Transpose::No ? Transpose::Yes : Transpose::No;
                be_->spmm(ops.op[t], back, 0.5, rm, 0.0, dx);
                check(std::string("spmm ") + c.name + " op" + std::to_string(t) + " " +
                          tname(tr) + " dX",
                      x, y, r, [&] {
                          write(y, y0);
                          be_->spmm(ops.op[t], tr, 0.5, x, 2.0, y);
                      },
                      read(dx));
            }
    }
}

TEST_F(OpGradient, RowVectorAndColumnSums)
{
    const std::uint32_t n = 700, d = 6; // three slabs
    const DeviceMatrix x = matrix(n, d, 1), bias = matrix(1, d, 2), y = be_->alloc_matrix(n, d);
    const std::vector<double> r = random_values(n * d, 3);
    const DeviceMatrix rm = be_->alloc_matrix(n, d);
    write(rm, r);
    const DeviceMatrix db = be_->alloc_matrix(1, d);
    be_->column_sums(rm, 0.0, db);
    check("add_row_vector / column_sums dbias", bias, y, r, [&] {
        be_->axpby(1.0, x, 0.0, y);
        be_->add_row_vector(bias, y);
    }, read(db));
}

TEST_F(OpGradient, SumGroups)
{
    const std::uint32_t n = 9, d = 3, groups = 4;
    const DeviceMatrix x = matrix(n, d * groups, 1), y = be_->alloc_matrix(n, d);
    const std::vector<double> r = random_values(n * d, 2);
    std::vector<double> dx(n * d * groups, 0.0);
    for (std::uint32_t i = 0; i < n; ++i)
        for (std::uint32_t g = 1; g < groups; ++g)
            for (std::uint32_t c = 0; c < d; ++c) dx[i * d * groups + g * d + c] = r[i * d + c];
    check("sum_groups dX", x, y, r, [&] { be_->sum_groups(x, d, 1, y); }, dx);
}

TEST_F(OpGradient, LayerNorm)
{
    const std::uint32_t n = 300, d = 7;
    const DeviceMatrix x = matrix(n, d, 1, 2.0), gamma = matrix(1, d, 2), beta = matrix(1, d, 3);
    const DeviceMatrix y = be_->alloc_matrix(n, d), stats = be_->alloc_matrix(n, 2);
    const std::vector<double> r = random_values(n * d, 4);
    const DeviceMatrix rm = be_->alloc_matrix(n, d);
    write(rm, r);
    auto run = [&] { be_->layernorm_forward(x, gamma, beta, y, stats); };
    run();
    const DeviceMatrix dx = be_->alloc_matrix(n, d), dg = be_->alloc_matrix(1, d),
                       dbt = be_->alloc_matrix(1, d);
    be_->fill(dg, 0.0);
    be_->fill(dbt, 0.0);
    be_->layernorm_backward(x, gamma, stats, rm, 0.0, dx, dg, dbt);
    check("layernorm dX", x, y, r, run, read(dx));
    check("layernorm dgamma", gamma, y, r, run, read(dg));
    check("layernorm dbeta", beta, y, r, run, read(dbt));
}

TEST_F(OpGradient, ReluWithDropout)
{
    const std::uint32_t n = 50, d = 8;
    std::vector<double> xv = random_values(n * d, 1);
    for (double& v : xv) v += v >= 0 ? 0.01 : -0.01; // away from the kink
    const DeviceMatrix x = be_->alloc_matrix(n, d), y = be_->alloc_matrix(n, d);
    write(x, xv);
    DropoutMask mask;
    mask.keep = be_->alloc_bytes(n * d);
    mask.stride = d;
    mask.scale = 1.0 / (1.0 - 0.3);
    be_->make_dropout_mask(7, 0, 0.3, mask.keep, n, d);
    const std::vector<double> r = random_values(n * d, 2);
    const DeviceMatrix rm = be_->alloc_matrix(n, d), dx = be_->alloc_matrix(n, d);
    write(rm, r);
    auto run = [&] { be_->relu_forward(x, mask, y); };
    run();
    be_->relu_backward(y, mask.scale, rm, 0.0, dx);
    check("relu+dropout dX", x, y, r, run, read(dx));
    be_->relu_forward(x, DropoutMask{}, y);
    be_->relu_backward(y, 1.0, rm, 0.0, dx);
    check("relu dX", x, y, r, [&] { be_->relu_forward(x, DropoutMask{}, y); }, read(dx));
}

TEST_F(OpGradient, NormalizeTopkPack)
{
    struct Case {
        std::uint32_t n, d, k;
        bool dropout;
    } cases[] = {{300, 8, 3, false}, {40, 16, 4, true}, {4, 300, 5, false}};
    for (const Case& c : cases) {
        ArenaScope scope(be_->arena());
        const DeviceMatrix x = matrix(c.n, c.d, 1, 2.0), gamma = matrix(1, c.d, 2),
                           beta = matrix(1, c.d, 3), stats = be_->alloc_matrix(c.n, 2);
        CompressedRows kept;
        kept.width = c.d;
        kept.index_bytes = CompressedRows::index_bytes_for(c.d);
        kept.values = be_->alloc_matrix(c.n, c.k);
        kept.indices = be_->alloc_bytes(std::size_t(c.n) * c.k * kept.index_bytes);
        DropoutMask mask;
        if (c.dropout) {
            mask.keep = be_->alloc_bytes(std::size_t(c.n) * c.d * 2);
            mask.stride = 2 * c.d;
            mask.column = c.d; // the second group of a two-group mask
            mask.scale = 1.0 / 0.75;
            be_->make_dropout_mask(3, 1, 0.25, mask.keep, c.n, 2 * c.d);
        }
        const std::vector<double> r = random_values(std::size_t(c.n) * c.k, 4);
        const DeviceMatrix rm = be_->alloc_matrix(c.n, c.k);
        write(rm, r);
        auto run = [&] { be_->normalize_topk_pack(x, gamma, beta, mask, stats, kept); };
        run();
        const DeviceMatrix dx = be_->alloc_matrix(c.n, c.d), dg = be_->alloc_matrix(1, c.d),
                           dbt = be_->alloc_matrix(1, c.d);
        be_->fill(dg, 0.0);
        be_->fill(dbt, 0.0);
        be_->normalize_topk_backward(x, gamma, stats, kept, rm, mask, 0.0, dx, dg, dbt);
        const std::string name = "norm+top" + std::to_string(c.k) + " of " +
                                 std::to_string(c.d) + (c.dropout ? "+dropout" : "");
        check(name + " dX", x, kept.values, r, run, read(dx));
        check(name + " dgamma", gamma, kept.values, r, run, read(dg));
        check(name + " dbeta", beta, kept.values, r, run, read(dbt));
    }
}

namespace {

struct ConvCase {
    const char* name;
    bool directed;
    bool root;
    bool residual;
    double sign;
};

const ConvCase kConvCases[] = {{"sage undirected +res", false, true, true, 1.0},
                               {"sage directed -res", true, true, true, -1.0},
                               {"gcn-style no root", false, false, false, 1.0}};

} // namespace

TEST_F(OpGradient, SageConvDense)
{
    const std::uint32_t n = 300, d_in = 4, d_out = 3;
    const GraphInput g = random_graph(n, 2, 5);
    for (const ConvCase& c : kConvCases) {
        ArenaScope scope(be_->arena());
        const AggregationOperators ops = upload_aggregation(*be_, g, Normalisation::Mean,
                                                            c.directed);
        SageConvWeights w, gw;
        w.terms = gw.terms = ops.terms;
        for (std::uint32_t t = 0; t < ops.terms; ++t) {
            w.graph[t] = &ops.op[t];
            w.neighbour[t] = matrix(d_in, d_out, 10 + t);
            gw.neighbour[t] = be_->alloc_matrix(d_in, d_out);
            be_->fill(gw.neighbour[t], 0.0);
        }
        if (c.root) {
            w.root = matrix(d_in, d_out, 20);
            gw.root = be_->alloc_matrix(d_in, d_out);
            be_->fill(gw.root, 0.0);
        }
        w.bias = matrix(1, d_out, 21);
        gw.bias = be_->alloc_matrix(1, d_out);
        be_->fill(gw.bias, 0.0);
        const DeviceMatrix z = matrix(n, d_in, 22);
        const DeviceMatrix res = c.residual ? matrix(n, d_out, 23) : DeviceMatrix{};
        const DeviceMatrix y = be_->alloc_matrix(n, d_out);
        const DeviceMatrix agg = be_->alloc_matrix(n, ops.terms * d_in);
        const std::vector<double> r = random_values(std::size_t(n) * d_out, 24);
        const DeviceMatrix rm = be_->alloc_matrix(n, d_out), dy = be_->alloc_matrix(n, d_out);
        write(rm, r);
        be_->axpby(c.sign, rm, 0.0, dy); // dJ/df = sign R
        auto run = [&] { be_->sage_conv_forward(w, z, {res, c.sign, 0.0}, y, agg); };
        run();
        const DeviceMatrix dz = be_->alloc_matrix(n, d_in);
        be_->sage_conv_backward(w, gw, z, agg, dy, 0.0, dz);
        const std::string name = std::string("sage_conv ") + c.name;
        check(name + " dz", z, y, r, run, read(dz));
        for (std::uint32_t t = 0; t < ops.terms; ++t)
            check(name + " dW" + std::to_string(t), w.neighbour[t], y, r, run,
                  read(gw.neighbour[t]));
        if (c.root) check(name + " dWroot", w.root, y, r, run, read(gw.root));
        check(name + " dbias", w.bias, y, r, run, read(gw.bias));
        if (c.residual) check(name + " dresidual", res, y, r, run, r);
    }
}

TEST_F(OpGradient, SageConvCompressed)
{
    const std::uint32_t n = 300, d = 6, k = 2;
    const GraphInput g = random_graph(n, 2, 6);
    for (const ConvCase& c : kConvCases) {
        ArenaScope scope(be_->arena());
        const AggregationOperators ops = upload_aggregation(*be_, g, Normalisation::Mean,
                                                            c.directed);
        // Kept entries from a real top-k of random rows.
        const DeviceMatrix x = matrix(n, d, 30), gamma = matrix(1, d, 31),
                           beta = matrix(1, d, 32), stats = be_->alloc_matrix(n, 2);
        CompressedRows kept;
        kept.width = d;
        kept.index_bytes = 1;
        kept.values = be_->alloc_matrix(n, k);
        kept.indices = be_->alloc_bytes(std::size_t(n) * k);
        be_->normalize_topk_pack(x, gamma, beta, DropoutMask{}, stats, kept);
        SageConvWeights w, gw;
        w.terms = gw.terms = ops.terms;
        for (std::uint32_t t = 0; t < ops.terms; ++t) {
            w.graph[t] = &ops.op[t];
            w.neighbour[t] = matrix(d, d, 40 + t);
            gw.neighbour[t] = be_->alloc_matrix(d, d);
            be_->fill(gw.neighbour[t], 0.0);
        }
        if (c.root) {
            w.root = matrix(d, d, 50);
            gw.root = be_->alloc_matrix(d, d);
            be_->fill(gw.root, 0.0);
        }
        w.bias = matrix(1, d, 51);
        gw.bias = be_->alloc_matrix(1, d);
        be_->fill(gw.bias, 0.0);
        const DeviceMatrix res = c.residual ? matrix(n, d, 52) : DeviceMatrix{};
        const DeviceMatrix y = be_->alloc_matrix(n, d), agg = be_->alloc_matrix(n, ops.terms * d);
        const std::vector<double> r = random_values(std::size_t(n) * d, 53);
        const DeviceMatrix rm = be_->alloc_matrix(n, d), dy = be_->alloc_matrix(n, d);
        write(rm, r);
        be_->axpby(c.sign, rm, 0.0, dy);
        auto run = [&] { be_->sage_conv_forward(w, kept, {res, c.sign, 0.0}, y, agg); };
        run();
        const DeviceMatrix dvalues = be_->alloc_matrix(n, k);
        be_->sage_conv_backward(w, gw, kept, agg, dy, dvalues);
        const std::string name = std::string("sage_conv compressed ") + c.name;
        check(name + " dvalues", kept.values, y, r, run, read(dvalues));
        for (std::uint32_t t = 0; t < ops.terms; ++t)
            check(name + " dW" + std::to_string(t), w.neighbour[t], y, r, run,
                  read(gw.neighbour[t]));
        if (c.root) check(name + " dWroot", w.root, y, r, run, read(gw.root));
        check(name + " dbias", w.bias, y, r, run, read(gw.bias));

        // The compressed op equals the dense op on the unpacked rows.
        const DeviceMatrix dense = be_->alloc_matrix(n, d), y2 = be_->alloc_matrix(n, d);
        be_->unpack(kept, dense);
        be_->sage_conv_forward(w, dense, {res, c.sign, 0.0}, y2, agg);
        run();
        EXPECT_LE(be_->max_abs_difference(y, y2), 1e-12);
    }
}

TEST_F(OpGradient, Losses)
{
    const std::uint32_t n = 30;
    const DeviceMatrix pred = matrix(n, 1, 1, 3.0), target = be_->alloc_matrix(n, 1),
                       grad = be_->alloc_matrix(n, 1), out = be_->alloc_matrix(1, 1);
    std::vector<double> t = random_values(n, 2);
    for (double& v : t) v = 0.5 + 0.5 * v; // in [0, 1] for BCE
    write(target, t);
    const std::vector<std::uint32_t> nodes = {0, 3, 4, 9, 9, 17, 29}; // a duplicate on purpose
    const DeviceBytes list = be_->alloc_bytes(nodes.size() * 4);
    be_->upload_bytes(list, nodes.data(), list.bytes);
    for (LossKind kind : {LossKind::MeanSquaredError, LossKind::BinaryCrossEntropyWithLogits}) {
        auto run = [&] {
            const double l = be_->loss(kind, pred, target, list, std::uint32_t(nodes.size()),
                                       1.0, grad);
            write(out, {l});
        };
        be_->loss(kind, pred, target, list, std::uint32_t(nodes.size()), 0.5, grad);
        std::vector<double> g = read(grad);
        for (double& v : g) v *= 2.0; // weight 0.5 scales the gradient only
        check(std::string("loss ") + std::string(loss_kind_name(kind)) + " dpred", pred, out,
              {1.0}, run, g);
    }
}

TEST(CpuBackend, GridResidualAddIsUndoneExactly)
{
    auto be = make_cpu_backend(Precision::Float32, 2);
    be->reserve(1 << 20);
    const std::uint32_t n = 200, d = 8;
    const GraphInput g = random_graph(n, 2, 3);
    const AggregationOperators ops = upload_aggregation(*be, g, Normalisation::Mean, true);
    SageConvWeights w;
    w.terms = 2;
    auto upload = [&](DeviceMatrix m, std::uint64_t seed, double scale) {
        const auto v = random_values(m.size(), seed, scale);
        be->upload(m, std::span<const double>(v));
        return m;
    };
    for (std::uint32_t t = 0; t < 2; ++t) {
        w.graph[t] = &ops.op[t];
        w.neighbour[t] = upload(be->alloc_matrix(d, d), 1 + t, 0.4);
    }
    w.root = upload(be->alloc_matrix(d, d), 3, 0.4);
    w.bias = upload(be->alloc_matrix(1, d), 4, 0.1);
    const DeviceMatrix z = upload(be->alloc_matrix(n, d), 5, 1.0);
    const DeviceMatrix x = upload(be->alloc_matrix(n, d), 6, 3.0);
    const DeviceMatrix agg = be->alloc_matrix(n, 2 * d), x0 = be->alloc_matrix(n, d);
    const double quantum = std::ldexp(1.0, -16);
    be->round_to_grid(x, quantum);
    be->axpby(1.0, x, 0.0, x0);
    for (int round = 0; round < 50; ++round)
        be->sage_conv_forward(w, z, {x, +1.0, quantum}, x, agg);
    EXPECT_GT(be->max_abs_difference(x, x0), 0.1);
    for (int round = 0; round < 50; ++round)
        be->sage_conv_forward(w, z, {x, -1.0, quantum}, x, agg);
    EXPECT_EQ(be->max_abs_difference(x, x0), 0.0); // bit for bit
}

TEST(CpuBackend, AdamMatchesTheBiasCorrectedUpdate)
{
    auto be = make_cpu_backend(Precision::Float64, 2);
    be->reserve(1 << 16);
    const std::uint32_t n = 5;
    const DeviceMatrix p = be->alloc_matrix(n, 1), g = be->alloc_matrix(n, 1),
                       m = be->alloc_matrix(n, 1), v = be->alloc_matrix(n, 1);
    std::vector<double> pv = random_values(n, 1), gv = random_values(n, 2);
    be->upload(p, std::span<const double>(pv));
    be->upload(g, std::span<const double>(gv));
    be->fill(m, 0.0);
    be->fill(v, 0.0);
    AdamStep s;
    s.learning_rate = 0.01;
    s.weight_decay = 0.1;
    std::vector<double> mr(n, 0.0), vr(n, 0.0);
    for (std::uint64_t step = 1; step <= 3; ++step) {
        s.step = step;
        be->adam_step(p, g, m, v, s);
        for (std::uint32_t i = 0; i < n; ++i) {
            mr[i] = 0.9 * mr[i] + 0.1 * gv[i];
            vr[i] = 0.999 * vr[i] + 0.001 * gv[i] * gv[i];
            const double mh = mr[i] / (1 - std::pow(0.9, step));
            const double vh = vr[i] / (1 - std::pow(0.999, step));
            pv[i] -= 0.01 * (mh / (std::sqrt(vh) + 1e-8) + 0.1 * pv[i]);
        }
    }
    std::vector<double> out(n);
    be->download(p, std::span<double>(out));
    for (std::uint32_t i = 0; i < n; ++i) EXPECT_NEAR(out[i], pv[i], 1e-14);
}

TEST(CpuBackend, TopkKeepsTheLargestTiesToTheLowerIndexIndicesAscending)
{
    auto be = make_cpu_backend(Precision::Float32, 1);
    be->reserve(1 << 16);
    const std::uint32_t d = 6, k = 3;
    // gamma 0 and beta = the row itself makes the "normalised" row exactly beta.
    const DeviceMatrix x = be->alloc_matrix(1, d), gamma = be->alloc_matrix(1, d),
                       beta = be->alloc_matrix(1, d), stats = be->alloc_matrix(1, 2);
    be->fill(x, 1.0);
    be->fill(gamma, 0.0);
    const std::vector<float> row = {0.5f, 2.0f, 0.5f, 0.5f, 2.0f, -1.0f};
    be->upload(beta, std::span<const float>(row));
    CompressedRows kept;
    kept.width = d;
    kept.values = be->alloc_matrix(1, k);
    kept.indices = be->alloc_bytes(k);
    be->normalize_topk_pack(x, gamma, beta, DropoutMask{}, stats, kept);
    std::uint8_t idx[k];
    be->download_bytes(kept.indices, idx, k);
    std::vector<float> vals(k);
    be->download(kept.values, std::span<float>(vals));
    EXPECT_EQ(idx[0], 0); // 2.0 at 1 and 4, then the first 0.5 (index 0), ascending order
    EXPECT_EQ(idx[1], 1);
    EXPECT_EQ(idx[2], 4);
    EXPECT_EQ(vals[0], 0.5f);
    EXPECT_EQ(vals[1], 2.0f);
    EXPECT_EQ(vals[2], 2.0f);
}

TEST(CpuBackend, DropoutMaskHasTheRightRateAndDependsOnTheStep)
{
    auto be = make_cpu_backend(Precision::Float32, 2);
    be->reserve(1 << 20);
    const std::uint32_t n = 500, d = 64;
    const DeviceBytes a = be->alloc_bytes(n * d), b = be->alloc_bytes(n * d);
    be->make_dropout_mask(1, 0, 0.25, a, n, d);
    be->make_dropout_mask(1, 1, 0.25, b, n, d);
    std::vector<std::uint8_t> av(n * d), bv(n * d);
    be->download_bytes(a, av.data(), av.size());
    be->download_bytes(b, bv.data(), bv.size());
    std::size_t kept = 0, same = 0;
    for (std::size_t i = 0; i < av.size(); ++i) {
        kept += av[i];
        same += av[i] == bv[i];
    }
    EXPECT_NEAR(double(kept) / av.size(), 0.75, 0.01);
    EXPECT_LT(double(same) / av.size(), 0.7);
}
