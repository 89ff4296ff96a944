// Every op of the CUDA backend against the CPU backend in float64, on fresh random inputs with
// the outputs poisoned first. Shapes cover the vector-load paths (widths 1, 3, 32, 64, 128),
// column slices (ld > cols), several reduction slabs and both index widths.
#include "gpu_test_support.hpp"

using namespace gsr::gpu::testing;

namespace {

constexpr double kElementwise = 1e-6;
constexpr double kReduction = 2e-5;

class CudaOps : public TwinBackends {};

/// The float64 GPU backend (the parity tests' and benchmarks' reference).
class CudaOpsFloat64 : public TwinBackends {
protected:
    Precision gpu_precision() const override { return Precision::Float64; }
};

const Transpose kBoth[] = {Transpose::No, Transpose::Yes};

} // namespace

TEST_F(CudaOps, FillAxpbyRoundAndSumGroups)
{
    const Twin x = matrix(300, 96, 3.0);
    const Twin y = matrix(300, 96);
    gpu_->axpby(0.75, x.gpu, -1.5, y.gpu);
    cpu_->axpby(0.75, x.cpu, -1.5, y.cpu);
    expect_close(y, kElementwise, "axpby");
    const Twin z = poisoned(300, 96);
    gpu_->axpby(2.0, x.gpu, 0.0, z.gpu);
    cpu_->axpby(2.0, x.cpu, 0.0, z.cpu);
    expect_close(z, kElementwise, "axpby beta 0 never reads y");

    const Twin s = poisoned(300, 32);
    gpu_->sum_groups(x.gpu, 32, 1, s.gpu);
    cpu_->sum_groups(x.cpu, 32, 1, s.cpu);
    expect_close(s, kElementwise, "sum_groups 2 of 3");

    // Values already on the grid survive rounding; others move to the nearest multiple.
    gpu_->round_to_grid(x.gpu, 0x1p-10);
    cpu_->round_to_grid(x.cpu, 0x1p-10);
    expect_close(x, kElementwise, "round_to_grid 2^-10");
    const std::vector<double> g = gpu_values(x);
    for (double v : g) ASSERT_EQ(v, std::nearbyint(v * 1024.0) / 1024.0);

    const Twin f = poisoned(7, 5);
    gpu_->fill(f.gpu, -2.5);
    cpu_->fill(f.cpu, -2.5);
    expect_close(f, 0.0, "fill");
}

TEST_F(CudaOps, MaxAbsDifference)
{
    const Twin a = matrix(257, 33), b = matrix(257, 33);
    EXPECT_NEAR(gpu_->max_abs_difference(a.gpu, b.gpu), cpu_->max_abs_difference(a.cpu, b.cpu),
                1e-6);
    EXPECT_NEAR(gpu_->max_abs_difference(a.gpu, DeviceMatrix{}),
                cpu_->max_abs_difference(a.cpu, DeviceMatrix{}), 1e-6);
}

TEST_F(CudaOps, GemmEveryTransposeOnColumnSlices)
{
    const std::uint32_t m = 37, n = 29, k = 300;
    for (Transpose ta : kBoth)
        for (Transpose tb : kBoth)
            for (double beta : {0.0, 0.5}) {
                ArenaScope gs(gpu_->arena()), cs(cpu_->arena());
                const Twin a = ta == Transpose::No ? matrix(m, k) : matrix(k, m);
                const Twin b = tb == Transpose::No ? matrix(k, n) : matrix(n, k);
                const Twin wide = matrix(m, n + 5);
                const Twin c = wide.columns(3, n);
                if (beta == 0.0) poison(c);
                gpu_->gemm(ta, tb, 0.7, a.gpu, b.gpu, beta, c.gpu);
                cpu_->gemm(ta, tb, 0.7, a.cpu, b.cpu, beta, c.cpu);
                expect_close(c, kReduction,
                             std::string("gemm ") + (ta == Transpose::No ? "N" : "T") +
                                 (tb == Transpose::No ? "N" : "T") + " beta " +
                                 std::to_string(beta));
            }
}

TEST_F(CudaOps, WeightGradientGemmOverManyRowsRunsInSlabs)
{
    // A^T B with 50,001 rows: the strided-batch slab path, its last slab ragged.
    const Twin a = matrix(50001, 64), b = matrix(50001, 48);
    const Twin wide = matrix(64, 50);
    const Twin c = wide.columns(1, 48);
    gpu_->gemm(Transpose::Yes, Transpose::No, 0.5, a.gpu, b.gpu, 1.0, c.gpu);
    cpu_->gemm(Transpose::Yes, Transpose::No, 0.5, a.cpu, b.cpu, 1.0, c.cpu);
    expect_close(c, 1e-5, "gemm TN over 50001 rows");
}

TEST_F(CudaOps, RowVectorAndColumnSumsOverManySlabs)
{
    const Twin x = matrix(5000, 70), bias = matrix(1, 70), out = matrix(1, 70);
    gpu_->add_row_vector(bias.gpu, x.gpu);
    cpu_->add_row_vector(bias.cpu, x.cpu);
    expect_close(x, kElementwise, "add_row_vector");
    gpu_->column_sums(x.gpu, 0.5, out.gpu);
    cpu_->column_sums(x.cpu, 0.5, out.cpu);
    expect_close(out, kReduction, "column_sums beta 0.5");
}

TEST_F(CudaOps, SpmmEveryOperatorWidthAndTranspose)
{
    const GraphInput g = random_dag(2000, fresh_seed());
    for (const OperatorCase& c : kOperatorCases) {
        ArenaScope gs(gpu_->arena()), cs(cpu_->arena());
        const AggregationOperators og = upload_aggregation(*gpu_, g, c.norm, c.directed);
        const AggregationOperators oc = upload_aggregation(*cpu_, g, c.norm, c.directed);
        for (std::uint32_t t = 0; t < oc.terms; ++t)
            for (Transpose tr : kBoth)
                for (std::uint32_t width : {1u, 3u, 32u, 64u, 128u}) {
                    ArenaScope gi(gpu_->arena()), ci(cpu_->arena());
                    const Twin x = matrix(2000, width);
                    const Twin wide = matrix(2000, width + 2);
                    const Twin y = wide.columns(1, width); // misaligned slice: scalar loads
                    gpu_->spmm(og.op[t], tr, 0.5, x.gpu, 2.0, y.gpu);
                    cpu_->spmm(oc.op[t], tr, 0.5, x.cpu, 2.0, y.cpu);
                    expect_close(y, kReduction, std::string("spmm ") + c.name + " w" +
                                                    std::to_string(width) +
                                                    (tr == Transpose::No ? " N" : " T"));
                    const Twin z = poisoned(2000, width);
                    gpu_->spmm(og.op[t], tr, 1.0, x.gpu, 0.0, z.gpu);
                    cpu_->spmm(oc.op[t], tr, 1.0, x.cpu, 0.0, z.cpu);
                    expect_close(z, kReduction, "spmm beta 0");
                }
    }
}

TEST_F(CudaOps, LayernormForwardAndBackward)
{
    // Widths 16, 64, 128: four columns per thread, 8, 2 and 1 rows per warp, 2999 rows leave
    // a last slab that ends inside a warp's rows; 200: one warp per row.
    for (std::uint32_t d : {16u, 64u, 128u, 200u}) {
        ArenaScope gs(gpu_->arena()), cs(cpu_->arena());
        const std::uint32_t n = 2999;
        const Twin x = matrix(n, d, 2.0), gamma = matrix(1, d), beta = matrix(1, d);
        const Twin y = poisoned(n, d), stats = poisoned(n, 2);
        gpu_->layernorm_forward(x.gpu, gamma.gpu, beta.gpu, y.gpu, stats.gpu);
        cpu_->layernorm_forward(x.cpu, gamma.cpu, beta.cpu, y.cpu, stats.cpu);
        expect_close(y, 1e-5, "layernorm y d" + std::to_string(d));
        expect_close(stats, 1e-5, "layernorm stats");
        const Twin dy = matrix(n, d), dx = matrix(n, d), dg = matrix(1, d), db = matrix(1, d);
        gpu_->layernorm_backward(x.gpu, gamma.gpu, stats.gpu, dy.gpu, 0.5, dx.gpu, dg.gpu, db.gpu);
        cpu_->layernorm_backward(x.cpu, gamma.cpu, stats.cpu, dy.cpu, 0.5, dx.cpu, dg.cpu, db.cpu);
        expect_close(dx, 1e-5, "layernorm dx");
        expect_close(dg, kReduction, "layernorm dgamma");
        expect_close(db, kReduction, "layernorm dbeta");
    }
}

TEST_F(CudaOpsFloat64, LayernormBackwardOfTheWidestRows)
{
    // The slab kernel keeps 2 d scalars a warp in shared memory: 64 KB for float64 rows 1024
    // wide, past the 48 KB a launch gets without asking (it failed with "invalid argument").
    for (std::uint32_t d : {200u, 769u, 1024u}) {
        ArenaScope gs(gpu_->arena()), cs(cpu_->arena());
        const std::uint32_t n = 333;
        const Twin x = matrix(n, d, 2.0), gamma = matrix(1, d), beta = matrix(1, d);
        const Twin y = poisoned(n, d), stats = poisoned(n, 2);
        gpu_->layernorm_forward(x.gpu, gamma.gpu, beta.gpu, y.gpu, stats.gpu);
        cpu_->layernorm_forward(x.cpu, gamma.cpu, beta.cpu, y.cpu, stats.cpu);
        expect_close(y, 1e-12, "float64 layernorm y d" + std::to_string(d));
        const Twin dy = matrix(n, d), dx = matrix(n, d), dg = matrix(1, d), db = matrix(1, d);
        gpu_->layernorm_backward(x.gpu, gamma.gpu, stats.gpu, dy.gpu, 0.5, dx.gpu, dg.gpu, db.gpu);
        cpu_->layernorm_backward(x.cpu, gamma.cpu, stats.cpu, dy.cpu, 0.5, dx.cpu, dg.cpu, db.cpu);
        expect_close(dx, 1e-12, "float64 layernorm dx d" + std::to_string(d));
        expect_close(dg, 1e-11, "float64 layernorm dgamma");
        expect_close(db, 1e-11, "float64 layernorm dbeta");
    }
}

TEST_F(CudaOps, FusedLayernormReluForwardAndBackward)
{
    // The fused kernels against the float64 CPU reference (layernorm, ReLU with the dropout
    // mask, then back), and bit for bit against the GPU's own unfused pair, on column slices.
    for (std::uint32_t d : {32u, 64u, 100u})
        for (bool dropout : {false, true}) {
            ArenaScope gs(gpu_->arena()), cs(cpu_->arena());
            const std::uint32_t n = 2500, wide = 2 * d;
            const Twin xw = matrix(n, wide, 2.0), gamma = matrix(1, d), beta = matrix(1, d);
            const Twin x = xw.columns(d, d);
            const TwinBytes keep{gpu_->alloc_bytes(n * wide), cpu_->alloc_bytes(n * wide)};
            gpu_->make_dropout_mask(5, 2, 0.25, keep.gpu, n, wide);
            cpu_->make_dropout_mask(5, 2, 0.25, keep.cpu, n, wide);
            const DropoutMask mg = dropout ? DropoutMask{keep.gpu, wide, d, 1 / 0.75}
                                           : DropoutMask{};
            const DropoutMask mc = dropout ? DropoutMask{keep.cpu, wide, d, 1 / 0.75}
                                           : DropoutMask{};
            const Twin y = poisoned(n, d), stats = poisoned(n, 2);
            gpu_->layernorm_relu_forward(x.gpu, gamma.gpu, beta.gpu, mg, y.gpu, stats.gpu);
            cpu_->layernorm_relu_forward(x.cpu, gamma.cpu, beta.cpu, mc, y.cpu, stats.cpu);
            const std::string what = "d" + std::to_string(d) + (dropout ? " dropout" : "");
            expect_close(y, 1e-5, "fused layernorm+relu y " + what);
            expect_close(stats, 1e-5, "fused layernorm+relu stats " + what);
            const Twin y2 = poisoned(n, d), stats2 = poisoned(n, 2);
            gpu_->layernorm_forward(x.gpu, gamma.gpu, beta.gpu, y2.gpu, stats2.gpu);
            gpu_->relu_forward(y2.gpu, mg, y2.gpu);
            EXPECT_EQ(gpu_values(y), gpu_values(y2)) << what;

            const double scale = dropout ? 1 / 0.75 : 1.0;
            // dy is zero where the pre-activation lies within 1e-4 of the ReLU's kink: there
            // float32 and float64 may take opposite sides, and the gate then differs by design.
            std::vector<double> dyv = random(std::size_t(n) * d);
            {
                const std::vector<double> xs = cpu_values(x), st = cpu_values(stats),
                                          gs = cpu_values(gamma), bs = cpu_values(beta);
                std::size_t near = 0;
                for (std::size_t r = 0; r < n; ++r)
                    for (std::size_t c = 0; c < d; ++c) {
                        const double t = gs[c] * ((xs[r * d + c] - st[2 * r]) * st[2 * r + 1]) +
                                         bs[c];
                        if (std::abs(t) < 1e-4) dyv[r * d + c] = 0.0, ++near;
                    }
                EXPECT_LT(near, std::size_t(n) * d / 100) << what; // the gate is still tested
            }
            const Twin dy = alloc(n, d), dx = matrix(n, d), dg = matrix(1, d), db = matrix(1, d);
            const Twin dy2 = alloc(n, d), dx2 = alloc(n, d), dg2 = alloc(1, d), db2 = alloc(1, d);
            write(dy, dyv);
            write(dy2, dyv);
            write(dx2, gpu_values(dx));
            write(dg2, gpu_values(dg));
            write(db2, gpu_values(db));
            // The same backward with the gate recomputed from x (no y).
            const Twin dy3 = alloc(n, d), dx3 = alloc(n, d), dg3 = alloc(1, d), db3 = alloc(1, d);
            write(dy3, dyv);
            write(dx3, gpu_values(dx));
            write(dg3, gpu_values(dg));
            write(db3, gpu_values(db));
            gpu_->relu_layernorm_backward(x.gpu, gamma.gpu, stats.gpu, y.gpu, scale, dy.gpu, 0.5,
                                          dx.gpu, dg.gpu, db.gpu);
            cpu_->relu_layernorm_backward(x.cpu, gamma.cpu, stats.cpu, y.cpu, scale, dy.cpu, 0.5,
                                          dx.cpu, dg.cpu, db.cpu);
            expect_close(dx, 1e-5, "fused relu+layernorm dx " + what);
            expect_close(dg, kReduction, "fused relu+layernorm dgamma " + what);
            expect_close(db, kReduction, "fused relu+layernorm dbeta " + what);
            gpu_->relu_backward(y.gpu, scale, dy2.gpu, 0.0, dy2.gpu);
            gpu_->layernorm_backward(x.gpu, gamma.gpu, stats.gpu, dy2.gpu, 0.5, dx2.gpu, dg2.gpu,
                                     db2.gpu);
            EXPECT_EQ(gpu_values(dx), gpu_values(dx2)) << what;
            EXPECT_EQ(gpu_values(dg), gpu_values(dg2)) << what;
            EXPECT_EQ(gpu_values(db), gpu_values(db2)) << what;

            gpu_->relu_layernorm_backward_from_input(x.gpu, gamma.gpu, beta.gpu, stats.gpu, mg,
                                                     dy3.gpu, 0.5, dx3.gpu, dg3.gpu, db3.gpu);
            cpu_->relu_layernorm_backward_from_input(x.cpu, gamma.cpu, beta.cpu, stats.cpu, mc,
                                                     dy3.cpu, 0.5, dx3.cpu, dg3.cpu, db3.cpu);
            expect_close(dx3, 1e-5, "relu+layernorm from input dx " + what);
            expect_close(dg3, kReduction, "relu+layernorm from input dgamma " + what);
            expect_close(db3, kReduction, "relu+layernorm from input dbeta " + what);
            EXPECT_EQ(gpu_values(dx3), gpu_values(dx)) << "gate from x " << what;
            EXPECT_EQ(gpu_values(dg3), gpu_values(dg)) << "gate from x " << what;
            EXPECT_EQ(gpu_values(db3), gpu_values(db)) << "gate from x " << what;
        }
}

TEST_F(CudaOps, DropoutMaskIsTheSameBitsAsOnTheCpu)
{
    const std::uint32_t n = 1000, d = 64;
    const TwinBytes keep{gpu_->alloc_bytes(n * d), cpu_->alloc_bytes(n * d)};
    gpu_->make_dropout_mask(42, 7, 0.3, keep.gpu, n, d);
    cpu_->make_dropout_mask(42, 7, 0.3, keep.cpu, n, d);
    std::vector<std::uint8_t> a(n * d), b(n * d);
    gpu_->download_bytes(keep.gpu, a.data(), a.size());
    cpu_->download_bytes(keep.cpu, b.data(), b.size());
    EXPECT_EQ(a, b);

    const Twin x = matrix(n, 32);
    const Twin y = poisoned(n, 32);
    const DropoutMask mg{keep.gpu, d, 16, 1 / 0.7}, mc{keep.cpu, d, 16, 1 / 0.7};
    gpu_->relu_forward(x.gpu, mg, y.gpu);
    cpu_->relu_forward(x.cpu, mc, y.cpu);
    expect_close(y, kElementwise, "relu with dropout, column 16 of the mask");
    const Twin dy = matrix(n, 32), dx = matrix(n, 32);
    gpu_->relu_backward(y.gpu, 1 / 0.7, dy.gpu, 0.25, dx.gpu);
    cpu_->relu_backward(y.cpu, 1 / 0.7, dy.cpu, 0.25, dx.cpu);
    expect_close(dx, kElementwise, "relu backward");
}

TEST_F(CudaOps, NormalizeTopkKeepsAValidTopkOfTheReference)
{
    // d 16, 32, 64 and 128 take the select of a few threads a row (1, 2, 4 and 8), 256 and 300
    // the rank counting.
    for (std::uint32_t d : {16u, 32u, 64u, 128u, 256u, 300u})
        for (bool dropout : {false, true}) {
            ArenaScope gs(gpu_->arena()), cs(cpu_->arena());
            const std::uint32_t n = 1500, k = d / 4;
            const Twin x = matrix(n, d, 2.0), gamma = matrix(1, d), beta = matrix(1, d);
            const TwinBytes keep{gpu_->alloc_bytes(n * d), cpu_->alloc_bytes(n * d)};
            gpu_->make_dropout_mask(3, 1, 0.2, keep.gpu, n, d);
            cpu_->make_dropout_mask(3, 1, 0.2, keep.cpu, n, d);
            const DropoutMask mg = dropout ? DropoutMask{keep.gpu, d, 0, 1.25} : DropoutMask{};
            const std::uint32_t ib = CompressedRows::index_bytes_for(d);
            const Twin values = poisoned(n, k), stats = poisoned(n, 2);
            CompressedRows out{values.gpu, gpu_->alloc_bytes(std::size_t(n) * k * ib), d, ib};
            gpu_->normalize_topk_pack(x.gpu, gamma.gpu, beta.gpu, mg, stats.gpu, out);
            // Reference z in float64 on the CPU.
            const Twin z = poisoned(n, d), cstats = poisoned(n, 2);
            cpu_->layernorm_forward(x.cpu, gamma.cpu, beta.cpu, z.cpu, cstats.cpu);
            const std::vector<double> zr = cpu_values(z), v = gpu_values(values);
            std::vector<std::uint8_t> raw(std::size_t(n) * k * ib), mask(n * d);
            gpu_->download_bytes(out.indices, raw.data(), raw.size());
            cpu_->download_bytes(keep.cpu, mask.data(), mask.size());
            std::size_t bad = 0;
            for (std::uint32_t r = 0; r < n; ++r) {
                std::vector<bool> kept(d, false);
                std::uint32_t previous = 0;
                for (std::uint32_t q = 0; q < k; ++q) {
                    const std::size_t at = (std::size_t(r) * k + q) * ib;
                    const std::uint32_t c = ib == 1 ? raw[at] : raw[at] | raw[at + 1] << 8;
                    ASSERT_LT(c, d);
                    if (q > 0) ASSERT_GT(c, previous) << "indices ascending";
                    previous = c;
                    kept[c] = true;
                    double want = zr[std::size_t(r) * d + c];
                    if (dropout) want = mask[std::size_t(r) * d + c] ? want * 1.25 : 0.0;
                    bad += std::abs(v[std::size_t(r) * k + q] - want) > 1e-5 * (1 + std::abs(want));
                }
                double lowest_kept = 1e300, highest_dropped = -1e300;
                for (std::uint32_t c = 0; c < d; ++c) {
                    const double zc = zr[std::size_t(r) * d + c];
                    if (kept[c]) lowest_kept = std::min(lowest_kept, zc);
                    else highest_dropped = std::max(highest_dropped, zc);
                }
                bad += lowest_kept < highest_dropped - 1e-5;
            }
            EXPECT_EQ(bad, 0u) << "d " << d << " dropout " << dropout;
            // The GPU's per-row mean and 1/std against the float64 layer norm's (this compared
            // with the untouched CPU half of `stats`, which only NaN hid, until the comparison
            // counted the reference's NaNs too).
            expect_close(Twin{stats.gpu, cstats.cpu}, 1e-5, "topk stats d" + std::to_string(d));
        }
}

TEST_F(CudaOps, NormalizeTopkKeepsExactlyKOfRowsThatHoldNanOrInf)
{
    // A diverging training feeds NaN and Inf rows to the select until its epoch ends. The rank
    // counting (d 96 and 300 here) compared numbers, which a NaN never beats: such a row kept
    // all d columns and wrote past its k slots, the last row's past the buffers. Every d keeps
    // exactly k ascending columns, leaves a guard row after the outputs as it was, and keeps
    // the CPU's columns in the finite rows.
    for (std::uint32_t d : {16u, 48u, 96u, 300u}) {
        ArenaScope gs(gpu_->arena()), cs(cpu_->arena());
        const std::uint32_t n = 64, k = d / 4;
        std::vector<double> xv = random(std::size_t(n) * d, 2.0);
        const double nan = std::numeric_limits<double>::quiet_NaN();
        const double inf = std::numeric_limits<double>::infinity();
        xv[std::size_t(3) * d + 5] = nan;
        xv[std::size_t(7) * d] = inf;
        xv[std::size_t(n - 1) * d + 1] = nan;
        const std::vector<std::uint32_t> bad_rows{3, 7, n - 1};
        const Twin x = alloc(n, d), gamma = matrix(1, d), beta = matrix(1, d);
        write(x, xv);
        const std::uint32_t ib = CompressedRows::index_bytes_for(d);
        constexpr double kGuard = 12345.0;
        constexpr std::uint8_t kGuardByte = 0xAB;
        const Twin values = alloc(n + 1, k), stats = poisoned(n, 2);
        std::vector<double> initial(std::size_t(n + 1) * k, nan);
        std::fill(initial.end() - k, initial.end(), kGuard);
        write(values, initial);
        const std::size_t index_bytes = std::size_t(n) * k * ib;
        const std::vector<std::uint8_t> guarded(index_bytes + std::size_t(k) * ib, kGuardByte);
        const TwinBytes idx = bytes(guarded.data(), guarded.size());
        const CompressedRows og{values.gpu.row_block(0, n), {idx.gpu.offset, index_bytes}, d, ib};
        const CompressedRows oc{values.cpu.row_block(0, n), {idx.cpu.offset, index_bytes}, d, ib};
        gpu_->normalize_topk_pack(x.gpu, gamma.gpu, beta.gpu, DropoutMask{}, stats.gpu, og);
        cpu_->normalize_topk_pack(x.cpu, gamma.cpu, beta.cpu, DropoutMask{}, stats.cpu, oc);
        std::vector<std::uint8_t> ig(guarded.size()), ic(guarded.size());
        gpu_->download_bytes(idx.gpu, ig.data(), ig.size());
        cpu_->download_bytes(idx.cpu, ic.data(), ic.size());
        const std::vector<double> v = gpu_values(values);
        for (std::uint32_t q = 0; q < k; ++q)
            EXPECT_EQ(v[std::size_t(n) * k + q], kGuard) << "d " << d << ": values written past";
        for (std::size_t b = index_bytes; b < ig.size(); ++b)
            ASSERT_EQ(ig[b], kGuardByte) << "d " << d << ": indices written past";
        auto column = [&](const std::vector<std::uint8_t>& raw, std::uint32_t r, std::uint32_t q) {
            const std::size_t at = (std::size_t(r) * k + q) * ib;
            return ib == 1 ? std::uint32_t(raw[at]) : std::uint32_t(raw[at] | raw[at + 1] << 8);
        };
        for (std::uint32_t r = 0; r < n; ++r) {
            const bool finite = std::find(bad_rows.begin(), bad_rows.end(), r) == bad_rows.end();
            for (std::uint32_t q = 0; q < k; ++q) {
                ASSERT_LT(column(ig, r, q), d) << "d " << d << " row " << r;
                if (q > 0) ASSERT_GT(column(ig, r, q), column(ig, r, q - 1)) << "ascending";
                if (finite) ASSERT_EQ(column(ig, r, q), column(ic, r, q)) << "d " << d << " row " << r;
            }
        }
    }
}

TEST_F(CudaOps, NormalizeTopkBreaksTiesByTheLowerColumnLikeTheCpu)
{
    // Rows of few distinct values and unit gain: many exact ties at the k-th value, so the
    // radix selects run to the last bit and must keep the lower columns, the rule of the CPU
    // backend; the index lists agree exactly. d 16, 32, 64 and 128: a few threads a row; 7 and
    // 48: one warp a row; 96: rank counting.
    for (std::uint32_t d : {7u, 16u, 32u, 48u, 64u, 96u, 128u})
        for (std::uint32_t k : {1u, d / 3 + 1, d / 2, d}) {
            ArenaScope gs(gpu_->arena()), cs(cpu_->arena());
            const std::uint32_t n = 700;
            std::vector<double> xv(std::size_t(n) * d);
            std::uniform_int_distribution<int> level(0, 2);
            for (double& v : xv) v = level(rng_);
            for (std::uint32_t r = 0; r < 4; ++r) // rows of one value: all tied
                for (std::uint32_t c = 0; c < d; ++c) xv[std::size_t(r) * d + c] = 1.0;
            const Twin x = alloc(n, d), gamma = alloc(1, d), beta = alloc(1, d);
            write(x, xv);
            write(gamma, std::vector<double>(d, 1.0));
            write(beta, std::vector<double>(d, 0.0));
            const std::uint32_t ib = CompressedRows::index_bytes_for(d);
            const Twin values = poisoned(n, k), stats = poisoned(n, 2);
            const TwinBytes idx{gpu_->alloc_bytes(std::size_t(n) * k * ib),
                                cpu_->alloc_bytes(std::size_t(n) * k * ib)};
            const CompressedRows og{values.gpu, idx.gpu, d, ib}, oc{values.cpu, idx.cpu, d, ib};
            gpu_->normalize_topk_pack(x.gpu, gamma.gpu, beta.gpu, DropoutMask{}, stats.gpu, og);
            cpu_->normalize_topk_pack(x.cpu, gamma.cpu, beta.cpu, DropoutMask{}, stats.cpu, oc);
            std::vector<std::uint8_t> ig(std::size_t(n) * k * ib), ic(ig.size());
            gpu_->download_bytes(idx.gpu, ig.data(), ig.size());
            cpu_->download_bytes(idx.cpu, ic.data(), ic.size());
            EXPECT_EQ(ig, ic) << "d " << d << " k " << k;
            expect_close(values, 1e-5, "tied topk values d" + std::to_string(d));
        }
}

TEST_F(CudaOps, NormalizeTopkBackwardAndUnpack)
{
    // d 16, 64 and 128 take the four-column kernel (dy laid out from the kept columns in
    // shared memory; 4, 16 and 32 lanes a row), d 300 the one-warp-per-row kernel with 2-byte
    // indices; with and without dropout, dx overwritten or accumulated.
    for (std::uint32_t d : {16u, 64u, 128u, 300u})
        for (bool masked : {true, false}) {
            ArenaScope gs(gpu_->arena()), cs(cpu_->arena());
            const std::uint32_t n = 2500, k = d / 4;
            const double dx_beta = masked ? 0.5 : 0.0;
            const std::string name = " d" + std::to_string(d) + (masked ? " masked" : "");
            const Twin x = matrix(n, d, 2.0), gamma = matrix(1, d), beta = matrix(1, d);
            const Twin y = poisoned(n, d), stats = poisoned(n, 2);
            gpu_->layernorm_forward(x.gpu, gamma.gpu, beta.gpu, y.gpu, stats.gpu);
            cpu_->layernorm_forward(x.cpu, gamma.cpu, beta.cpu, y.cpu, stats.cpu);
            const TwinCompressed kept = compressed(n, d, k);
            const Twin dv = matrix(n, k), dg = matrix(1, d), db = matrix(1, d);
            const Twin dx = masked ? matrix(n, d) : poisoned(n, d);
            const TwinBytes keep{gpu_->alloc_bytes(n * d), cpu_->alloc_bytes(n * d)};
            gpu_->make_dropout_mask(9, 2, 0.1, keep.gpu, n, d);
            cpu_->make_dropout_mask(9, 2, 0.1, keep.cpu, n, d);
            const DropoutMask mg = masked ? DropoutMask{keep.gpu, d, 0, 1 / 0.9} : DropoutMask{};
            const DropoutMask mc = masked ? DropoutMask{keep.cpu, d, 0, 1 / 0.9} : DropoutMask{};
            gpu_->normalize_topk_backward(x.gpu, gamma.gpu, stats.gpu, kept.gpu, dv.gpu, mg,
                                          dx_beta, dx.gpu, dg.gpu, db.gpu);
            cpu_->normalize_topk_backward(x.cpu, gamma.cpu, stats.cpu, kept.cpu, dv.cpu, mc,
                                          dx_beta, dx.cpu, dg.cpu, db.cpu);
            expect_close(dx, 1e-5, "topk backward dx" + name);
            expect_close(dg, kReduction, "topk backward dgamma" + name);
            expect_close(db, kReduction, "topk backward dbeta" + name);
            const Twin dense = poisoned(n, d);
            gpu_->unpack(kept.gpu, dense.gpu);
            cpu_->unpack(kept.cpu, dense.cpu);
            expect_close(dense, 0.0, "unpack" + name);
        }
}

namespace {

struct ConvTwin {
    SageConvWeights gpu, cpu;
};

} // namespace

class CudaConv : public TwinBackends {
protected:
    ConvTwin weights(const AggregationOperators& og, const AggregationOperators& oc,
                     std::uint32_t d_in, std::uint32_t d_out, bool root)
    {
        ConvTwin w;
        w.gpu.terms = w.cpu.terms = oc.terms;
        for (std::uint32_t t = 0; t < oc.terms; ++t) {
            const Twin m = matrix(d_in, d_out, 0.3);
            w.gpu.graph[t] = &og.op[t];
            w.cpu.graph[t] = &oc.op[t];
            w.gpu.neighbour[t] = m.gpu;
            w.cpu.neighbour[t] = m.cpu;
        }
        if (root) {
            const Twin m = matrix(d_in, d_out, 0.3);
            w.gpu.root = m.gpu;
            w.cpu.root = m.cpu;
        }
        const Twin b = matrix(1, d_out);
        w.gpu.bias = b.gpu;
        w.cpu.bias = b.cpu;
        return w;
    }
    ConvTwin gradients(const ConvTwin& w)
    {
        ConvTwin g = w;
        for (std::uint32_t t = 0; t < w.cpu.terms; ++t) {
            const Twin m = matrix(w.cpu.neighbour[t].rows, w.cpu.neighbour[t].cols);
            g.gpu.neighbour[t] = m.gpu;
            g.cpu.neighbour[t] = m.cpu;
        }
        if (!w.cpu.root.empty()) {
            const Twin m = matrix(w.cpu.root.rows, w.cpu.root.cols);
            g.gpu.root = m.gpu;
            g.cpu.root = m.cpu;
        }
        const Twin b = matrix(1, w.cpu.bias.cols);
        g.gpu.bias = b.gpu;
        g.cpu.bias = b.cpu;
        return g;
    }
    /// The compressed forward and backward against the float64 CPU: one term (union) or two
    /// (directed); k 5 leaves threads of a row group without a kept entry; d 300 has 2-byte
    /// indices.
    void check_compressed_conv()
    {
        struct Case {
            std::uint32_t d, k, n;
        };
        const std::uint64_t seed = fresh_seed();
        for (bool directed : {false, true})
            // d 128 k 2 and d 512 k 4: the aggregation's accumulators (rows a block x d)
            // passed the 48 KB a launch may take unasked; d 128 also takes gemm_rows. 700
            // rows still make 30 blocks of the widest (24 rows each); more would only slow
            // the sanitizers.
            for (const Case c : {Case{32, 8, 3000}, Case{64, 16, 3000}, Case{64, 5, 3000},
                                 Case{300, 75, 3000}, Case{128, 2, 700}, Case{512, 4, 700}}) {
                ArenaScope gs(gpu_->arena()), cs(cpu_->arena());
                const std::uint32_t d = c.d, k = c.k, n = c.n;
                const GraphInput g = random_dag(n, seed + 2 + n);
                const AggregationOperators og = upload_aggregation(*gpu_, g, Normalisation::Mean,
                                                                   directed);
                const AggregationOperators oc = upload_aggregation(*cpu_, g, Normalisation::Mean,
                                                                   directed);
                const ConvTwin w = weights(og, oc, d, d, true);
                const TwinCompressed z = compressed(n, d, k);
                const Twin residual = matrix(n, d);
                const Twin y = poisoned(n, d), agg = poisoned(n, oc.terms * d);
                const std::string name = std::string(directed ? "directed" : "union") + " d" +
                                         std::to_string(d) + " k" + std::to_string(k);
                gpu_->sage_conv_forward(w.gpu, z.gpu, {residual.gpu, -1.0, 0.0}, y.gpu, agg.gpu);
                cpu_->sage_conv_forward(w.cpu, z.cpu, {residual.cpu, -1.0, 0.0}, y.cpu, agg.cpu);
                expect_close(y, 1e-5, "compressed forward " + name);
                expect_close(agg, 1e-5, "compressed aggregated " + name);
                // Without S z kept (d 32 and 64 take S (Z W) either way, d 300 (S Z) W): the same
                // bits of y.
                const Twin y2 = poisoned(n, d), scratch = poisoned(n, oc.terms * d);
                gpu_->sage_conv_forward_transient(w.gpu, z.gpu, {residual.gpu, -1.0, 0.0}, y2.gpu,
                                                  scratch.gpu);
                EXPECT_EQ(gpu_->max_abs_difference(y.gpu, y2.gpu), 0.0) << name;
                const ConvTwin grads = gradients(w);
                const Twin dy = matrix(n, d), dv = poisoned(n, k);
                // d 64 takes the backward from S^T dy, which must not read S z: the GPU's poisoned
                // then (the forward before it may drop S z); d 32 and 300 read S z.
                const bool reads = gpu_->compressed_backward_reads_aggregated(w.gpu, z.gpu, dy.gpu);
                EXPECT_EQ(reads, d != 64) << name;
                if (!reads) gpu_->fill(agg.gpu, std::numeric_limits<double>::quiet_NaN());
                gpu_->sage_conv_backward(w.gpu, grads.gpu, z.gpu, agg.gpu, dy.gpu, dv.gpu);
                cpu_->sage_conv_backward(w.cpu, grads.cpu, z.cpu, agg.cpu, dy.cpu, dv.cpu);
                expect_close(dv, 1e-5, "compressed backward d_values " + name);
                expect_gradients(grads, "compressed backward " + name);
            }
    }

    void expect_gradients(const ConvTwin& g, const std::string& what)
    {
        for (std::uint32_t t = 0; t < g.cpu.terms; ++t)
            expect_close({g.gpu.neighbour[t], g.cpu.neighbour[t]}, 1e-4, what + " dW" +
                                                                             std::to_string(t));
        if (!g.cpu.root.empty()) expect_close({g.gpu.root, g.cpu.root}, 1e-4, what + " dWroot");
        expect_close({g.gpu.bias, g.cpu.bias}, 1e-4, what + " dbias");
    }
};

TEST_F(CudaConv, DenseForwardWithResidualGridAndBackward)
{
    const std::uint32_t n = 3000;
    const GraphInput g = random_dag(n, fresh_seed() + 1);
    for (bool directed : {false, true})
        for (std::uint32_t d : {32u, 64u, 128u})
            for (bool joined : {false, true}) {
                ArenaScope gs(gpu_->arena()), cs(cpu_->arena());
                const AggregationOperators og = upload_aggregation(*gpu_, g, Normalisation::Mean,
                                                                   directed);
                const AggregationOperators oc = upload_aggregation(*cpu_, g, Normalisation::Mean,
                                                                   directed);
                const ConvTwin w = weights(og, oc, d, d, true);
                // Joined: [aggregated | z] in the same rows, as GroupFunction lays them out, with
                // the weights stored one after another: one GEMM over every term and the root.
                const Twin in = poisoned(n, (oc.terms + 1) * d);
                const Twin z = joined ? in.columns(oc.terms * d, d) : matrix(n, d);
                if (joined) write(z, random(std::size_t(n) * d));
                const Twin residual = matrix(n, d), y = poisoned(n, d);
                const Twin agg = joined ? in.columns(0, oc.terms * d) : poisoned(n, oc.terms * d);
                ASSERT_EQ(joined_conv_input(agg.gpu, z.gpu).empty(), !joined);
                ASSERT_FALSE(stacked_conv_weights(w.gpu).empty());
                const std::string name = std::string(directed ? "directed" : "union") + " d" +
                                         std::to_string(d) + (joined ? " joined" : "");
                gpu_->sage_conv_forward(w.gpu, z.gpu, {residual.gpu, 1.0, 0.0}, y.gpu, agg.gpu);
                cpu_->sage_conv_forward(w.cpu, z.cpu, {residual.cpu, 1.0, 0.0}, y.cpu, agg.cpu);
                expect_close(y, 1e-5, "conv forward " + name);
                expect_close(agg, 1e-5, "conv aggregated " + name);
                const ConvTwin grads = gradients(w);
                ASSERT_FALSE(stacked_conv_weights(grads.gpu).empty());
                const Twin dy = matrix(n, d), dz = matrix(n, d);
                gpu_->sage_conv_backward(w.gpu, grads.gpu, z.gpu, agg.gpu, dy.gpu, 0.5, dz.gpu);
                cpu_->sage_conv_backward(w.cpu, grads.cpu, z.cpu, agg.cpu, dy.cpu, 0.5, dz.cpu);
                expect_close(dz, 1e-5, "conv backward dz " + name);
                expect_gradients(grads, "conv backward " + name);

                // On the grid, sign -1 in place undoes sign +1 bit for bit.
                const Twin x = matrix(n, d, 4.0);
                gpu_->round_to_grid(x.gpu, 0x1p-16);
                const Twin x0 = alloc(n, d);
                gpu_->axpby(1.0, x.gpu, 0.0, x0.gpu);
                gpu_->sage_conv_forward(w.gpu, z.gpu, {x.gpu, 1.0, 0x1p-16}, x.gpu, agg.gpu);
                EXPECT_GT(gpu_->max_abs_difference(x.gpu, x0.gpu), 0.0);
                gpu_->sage_conv_forward(w.gpu, z.gpu, {x.gpu, -1.0, 0x1p-16}, x.gpu, agg.gpu);
                EXPECT_EQ(gpu_->max_abs_difference(x.gpu, x0.gpu), 0.0) << name;

                if (joined) {
                    // The backward that overwrites [S z | z]: dz lands in z's columns.
                    const ConvTwin g2 = gradients(w);
                    gpu_->sage_conv_backward_joined(w.gpu, g2.gpu, in.gpu, dy.gpu);
                    cpu_->sage_conv_backward_joined(w.cpu, g2.cpu, in.cpu, dy.cpu);
                    expect_close(z, 1e-5, "joined backward dz " + name);
                    expect_gradients(g2, "joined backward " + name);
                }
            }
}

TEST_F(CudaConv, CompressedForwardAndBackward) { check_compressed_conv(); }

/// The same on a backend opened with GSR_GPU_MMA set: "off", the FMA-pipe kernels of the
/// compressed backward (a benchmark baseline, and what GPUs before sm_80 run); "sync", its
/// products through mma.sync where the warpgroup MMA would run (a baseline, and what GPUs
/// other than compute capability 9.0 run).
class CudaConvMma : public CudaConv, public ::testing::WithParamInterface<const char*> {
protected:
    void SetUp() override
    {
        ::setenv("GSR_GPU_MMA", GetParam(), 1);
        CudaConv::SetUp();
        ::unsetenv("GSR_GPU_MMA");
    }
};

TEST_P(CudaConvMma, CompressedForwardAndBackward) { check_compressed_conv(); }
INSTANTIATE_TEST_SUITE_P(Baselines, CudaConvMma, ::testing::Values("off", "sync"));

/// The GPU as an sm_86, sm_89 or sm_120 one sees it: mma.sync, no warpgroup MMA, and 99 KB of
/// shared memory a block at most (GSR_GPU_SHARED_OPTIN). The mma.sync backward's 100 KB and
/// gemm_rows' 118 KB asked for more, and the launch failed; they now take the FMA kernel and
/// cuBLAS.
class CudaConvSmallShared : public CudaConv {
protected:
    void SetUp() override
    {
        ::setenv("GSR_GPU_MMA", "sync", 1);
        ::setenv("GSR_GPU_SHARED_OPTIN", "101376", 1);
        CudaConv::SetUp();
        ::unsetenv("GSR_GPU_MMA");
        ::unsetenv("GSR_GPU_SHARED_OPTIN");
    }
};

TEST_F(CudaConvSmallShared, CompressedForwardAndBackward) { check_compressed_conv(); }

TEST_F(CudaConv, TopkAndTransientConvolutionInOnePass)
{
    // normalize_topk_conv_transient: at d 16, 32 and 64 with one term the product Z W runs in
    // the select's kernel; d 128 and two terms take the two calls. Either way y, the kept
    // entries and the statistics must be the bits of normalize_topk_pack then
    // sage_conv_forward_transient (a reversible block's inverse undoes its forward only so),
    // and y must match the float64 CPU's convolution of the kept entries. 3,001 rows: a
    // warp's last rows past the end; k 5 leaves threads of a row without a kept entry.
    struct Case {
        std::uint32_t d, k;
        bool directed, dropout;
    };
    const std::uint32_t n = 3001;
    const GraphInput g = random_dag(n, fresh_seed() + 4);
    for (const Case c : {Case{16, 4, false, false}, Case{32, 8, false, true},
                         Case{64, 16, false, false}, Case{64, 16, false, true},
                         Case{64, 5, false, true}, Case{64, 16, true, false},
                         Case{128, 32, false, true}}) {
        ArenaScope gs(gpu_->arena()), cs(cpu_->arena());
        const std::uint32_t d = c.d, k = c.k;
        const AggregationOperators og = upload_aggregation(*gpu_, g, Normalisation::Mean,
                                                           c.directed);
        const AggregationOperators oc = upload_aggregation(*cpu_, g, Normalisation::Mean,
                                                           c.directed);
        const ConvTwin w = weights(og, oc, d, d, true);
        const Twin x = matrix(n, d, 2.0), gamma = matrix(1, d), beta = matrix(1, d);
        const TwinBytes keep{gpu_->alloc_bytes(n * d), cpu_->alloc_bytes(n * d)};
        gpu_->make_dropout_mask(4, 3, 0.2, keep.gpu, n, d);
        const DropoutMask mask = c.dropout ? DropoutMask{keep.gpu, d, 0, 1.25} : DropoutMask{};
        const Twin residual = matrix(n, d, 4.0);
        gpu_->round_to_grid(residual.gpu, 0x1p-16);
        cpu_->round_to_grid(residual.cpu, 0x1p-16);
        const std::uint32_t ib = CompressedRows::index_bytes_for(d);
        const std::string name = "d" + std::to_string(d) + " k" + std::to_string(k) +
                                 (c.directed ? " directed" : " union") +
                                 (c.dropout ? " dropout" : "");
        // One pass, then the two calls, every output poisoned first.
        Twin y[2], stats[2], values[2], scratch[2];
        DeviceBytes indices[2];
        for (int i = 0; i < 2; ++i) {
            y[i] = poisoned(n, d);
            stats[i] = poisoned(n, 2);
            values[i] = poisoned(n, k);
            scratch[i] = poisoned(n, oc.terms * d);
            indices[i] = gpu_->alloc_bytes(std::size_t(n) * k * ib);
        }
        const ResidualAdd add{residual.gpu, 1.0, 0x1p-16};
        const CompressedRows one{values[0].gpu, indices[0], d, ib};
        const CompressedRows two{values[1].gpu, indices[1], d, ib};
        gpu_->normalize_topk_conv_transient(x.gpu, gamma.gpu, beta.gpu, mask, stats[0].gpu, one,
                                            w.gpu, add, y[0].gpu, scratch[0].gpu);
        gpu_->normalize_topk_pack(x.gpu, gamma.gpu, beta.gpu, mask, stats[1].gpu, two);
        gpu_->sage_conv_forward_transient(w.gpu, two, add, y[1].gpu, scratch[1].gpu);
        EXPECT_EQ(gpu_->max_abs_difference(y[0].gpu, y[1].gpu), 0.0) << name;
        EXPECT_EQ(gpu_->max_abs_difference(stats[0].gpu, stats[1].gpu), 0.0) << name;
        EXPECT_EQ(gpu_->max_abs_difference(values[0].gpu, values[1].gpu), 0.0) << name;
        std::vector<std::uint8_t> raw[2];
        for (int i = 0; i < 2; ++i) {
            raw[i].resize(std::size_t(n) * k * ib);
            gpu_->download_bytes(indices[i], raw[i].data(), raw[i].size());
        }
        EXPECT_TRUE(raw[0] == raw[1]) << "kept columns " << name;
        // The float64 reference: the CPU's convolution of the GPU's kept entries.
        const std::vector<double> v = gpu_values(values[0]);
        cpu_->upload(values[0].cpu, std::span<const double>(v));
        const DeviceBytes cpu_indices = cpu_->alloc_bytes(raw[0].size());
        cpu_->upload_bytes(cpu_indices, raw[0].data(), raw[0].size());
        const ResidualAdd cpu_add{residual.cpu, 1.0, 0x1p-16};
        cpu_->sage_conv_forward_transient(w.cpu, {values[0].cpu, cpu_indices, d, ib}, cpu_add,
                                          y[0].cpu, scratch[0].cpu);
        expect_close(y[0], 1e-5, "one pass " + name);
    }
}

TEST_F(CudaConv, TransientConvolutionOverHubRowsLaunchAfterLaunch)
{
    // The compressed forward's aggregation hands strips of rows to warps from a counter that
    // each launch leaves at zero for the next (for_taken_strips). A graph whose first 24 rows
    // have about 1,700 neighbours each (past the 128 edges a strip holds in shared memory) and
    // the rest a few, then a small graph, then the hubs again, on one backend: every launch
    // must cover every row once (outputs poisoned), against the float64 CPU. d 16, 32 and 64
    // (strips of 8, 4 and 4 rows, 8, 4 and 2 of them at once), one term (union) and two
    // (directed).
    const GraphInput hubs = hub_dag(40001, 24, fresh_seed() + 5);
    const GraphInput small = random_dag(3001, fresh_seed() + 6);
    struct Case {
        std::uint32_t d;
        bool directed;
    };
    for (const Case c : {Case{16, false}, Case{32, false}, Case{64, false}, Case{64, true}})
        for (const GraphInput* g : {&hubs, &small, &hubs}) {
            ArenaScope gs(gpu_->arena()), cs(cpu_->arena());
            const std::uint32_t n = std::uint32_t(g->node_count), d = c.d, k = d / 4;
            const AggregationOperators og = upload_aggregation(*gpu_, *g, Normalisation::Mean,
                                                               c.directed);
            const AggregationOperators oc = upload_aggregation(*cpu_, *g, Normalisation::Mean,
                                                               c.directed);
            const ConvTwin w = weights(og, oc, d, d, true);
            const TwinCompressed z = compressed(n, d, k);
            const Twin residual = matrix(n, d), y = poisoned(n, d);
            const Twin scratch = poisoned(n, oc.terms * d);
            gpu_->sage_conv_forward_transient(w.gpu, z.gpu, {residual.gpu, 1.0, 0.0}, y.gpu,
                                              scratch.gpu);
            cpu_->sage_conv_forward_transient(w.cpu, z.cpu, {residual.cpu, 1.0, 0.0}, y.cpu,
                                              scratch.cpu);
            expect_close(y, 1e-5, "transient forward d" + std::to_string(d) +
                                      (c.directed ? " directed" : " union") + " over " +
                                      std::to_string(n) + " rows");
        }
}

TEST_F(CudaConv, FusedConvolutionOverManyRowTiles)
{
    // More row tiles than a wave of gemm_rows blocks, so each block walks several tiles in one
    // stream of stages (the last ragged): joined dense at d 64 (K 128) and compressed at d 64
    // (K 64) on 70,001 rows, and compressed at d 128 (K 128, two blocks across) on 20,001. The
    // compressed root term runs in the epilogue; d 64 compressed takes S (Z W) instead, and
    // its backward (from S^T dy) is checked over the same rows, with k 16 and, on 20,001 rows,
    // k 32 (on Hopper: the kept-entry kernel's entries past the 256 a warp holds in registers,
    // and the weight gradients on mma.sync). On the grid, sign -1 in place undoes sign +1 bit
    // for bit, compressed: +1 without S z kept (a reversible forward), -1 keeping it (the
    // recomputation where the backward reads S z).
    struct Case {
        std::uint32_t n, d;
        bool compressed_z;
        std::uint32_t k;
    };
    for (const Case c : {Case{70001, 64, false, 16}, Case{70001, 64, true, 16},
                         Case{20001, 64, true, 32}, Case{20001, 128, true, 32}}) {
        ArenaScope gs(gpu_->arena()), cs(cpu_->arena());
        const std::uint32_t n = c.n, d = c.d;
        const GraphInput g = random_dag(n, fresh_seed() + 3);
        const AggregationOperators og = upload_aggregation(*gpu_, g, Normalisation::Mean, false);
        const AggregationOperators oc = upload_aggregation(*cpu_, g, Normalisation::Mean, false);
        const ConvTwin w = weights(og, oc, d, d, true);
        const Twin in = poisoned(n, 2 * d);
        const Twin z = in.columns(d, d), agg = in.columns(0, d);
        write(z, random(std::size_t(n) * d));
        const TwinCompressed kept = compressed(n, d, c.k);
        const Twin residual = matrix(n, d), y = poisoned(n, d);
        const std::string name = (c.compressed_z ? "compressed d" : "joined d") +
                                 std::to_string(d) + " k " + std::to_string(c.k) + " over " +
                                 std::to_string(n) + " rows";
        const auto forward = [&](Backend& be, const SageConvWeights& cw, DeviceMatrix zd,
                                 const CompressedRows& zc, const ResidualAdd& add,
                                 DeviceMatrix out, DeviceMatrix ag) {
            if (c.compressed_z)
                be.sage_conv_forward(cw, zc, add, out, ag);
            else
                be.sage_conv_forward(cw, zd, add, out, ag);
        };
        forward(*gpu_, w.gpu, z.gpu, kept.gpu, {residual.gpu, -1.0, 0.0}, y.gpu, agg.gpu);
        forward(*cpu_, w.cpu, z.cpu, kept.cpu, {residual.cpu, -1.0, 0.0}, y.cpu, agg.cpu);
        expect_close(y, 1e-5, "conv forward " + name);
        if (c.compressed_z && d == 64) {
            // The backward from S^T dy with more rows than a wave of its weight-gradient
            // blocks take one tile each, so each block walks several tiles (the last ragged);
            // the GPU's S z poisoned, as it is not read.
            const ConvTwin grads = gradients(w);
            const Twin dy = matrix(n, d), dv = poisoned(n, c.k);
            EXPECT_FALSE(gpu_->compressed_backward_reads_aggregated(w.gpu, kept.gpu, dy.gpu));
            gpu_->fill(agg.gpu, std::numeric_limits<double>::quiet_NaN());
            gpu_->sage_conv_backward(w.gpu, grads.gpu, kept.gpu, agg.gpu, dy.gpu, dv.gpu);
            cpu_->sage_conv_backward(w.cpu, grads.cpu, kept.cpu, agg.cpu, dy.cpu, dv.cpu);
            expect_close(dv, 1e-5, "compressed backward d_values " + name);
            expect_gradients(grads, "compressed backward " + name);
        }

        const Twin x = matrix(n, d, 4.0);
        gpu_->round_to_grid(x.gpu, 0x1p-16);
        const Twin x0 = alloc(n, d);
        gpu_->axpby(1.0, x.gpu, 0.0, x0.gpu);
        if (c.compressed_z)
            gpu_->sage_conv_forward_transient(w.gpu, kept.gpu, {x.gpu, 1.0, 0x1p-16}, x.gpu,
                                              agg.gpu);
        else
            forward(*gpu_, w.gpu, z.gpu, kept.gpu, {x.gpu, 1.0, 0x1p-16}, x.gpu, agg.gpu);
        EXPECT_GT(gpu_->max_abs_difference(x.gpu, x0.gpu), 0.0) << name;
        forward(*gpu_, w.gpu, z.gpu, kept.gpu, {x.gpu, -1.0, 0x1p-16}, x.gpu, agg.gpu);
        EXPECT_EQ(gpu_->max_abs_difference(x.gpu, x0.gpu), 0.0) << name;
    }
}

TEST_F(CudaOps, LossWithRepeatedNodesAndAdam)
{
    const std::uint32_t n = 5000;
    const Twin pred = matrix(n, 1, 3.0), target = matrix(n, 1);
    std::vector<std::uint32_t> nodes;
    for (std::uint32_t i = 0; i < n; i += 3) nodes.push_back(i);
    nodes.push_back(6); // listed twice: counts twice
    const TwinBytes list = bytes(nodes.data(), nodes.size() * sizeof(std::uint32_t));
    for (LossKind kind : {LossKind::MeanSquaredError, LossKind::BinaryCrossEntropyWithLogits}) {
        const Twin grad = poisoned(n, 1);
        const double lg = gpu_->loss(kind, pred.gpu, target.gpu, list.gpu,
                                     std::uint32_t(nodes.size()), 0.5, grad.gpu);
        const double lc = cpu_->loss(kind, pred.cpu, target.cpu, list.cpu,
                                     std::uint32_t(nodes.size()), 0.5, grad.cpu);
        EXPECT_NEAR(lg, lc, 1e-6 * std::abs(lc));
        expect_close(grad, kElementwise, "loss gradient");
    }
    const Twin p = matrix(10000, 1), gr = matrix(10000, 1), m = matrix(10000, 1);
    const Twin v = alloc(10000, 1);
    // Second moments away from 0: where sqrt(v) is near 0 the step lr * m / sqrt(v) magnifies
    // float32's rounding of v past any fixed tolerance (seed 5765279262634105090 drew one,
    // 1.4e-6 against 1e-6), a property of float32 Adam, not of the kernel.
    std::vector<double> vv = random(10000);
    for (double& x : vv) x = double(float(0.05 + std::abs(x)));
    write(v, vv);
    AdamStep step;
    step.learning_rate = 0.01;
    step.weight_decay = 0.1;
    step.step = 3;
    gpu_->adam_step(p.gpu, gr.gpu, m.gpu, v.gpu, step);
    cpu_->adam_step(p.cpu, gr.cpu, m.cpu, v.cpu, step);
    expect_close(p, kElementwise, "adam params");
    expect_close(m, kElementwise, "adam m");
    expect_close(v, kElementwise, "adam v");
}
