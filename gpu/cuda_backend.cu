#include "cuda_backend.hpp"

#include "cublas_library.hpp"
#include "cuda_check.hpp"
#include "kernels/compressed.cuh"
#include "kernels/elementwise.cuh"
#include "kernels/gemm.cuh"
#include "kernels/graph.cuh"
#include "kernels/optimizer.cuh"
#include "kernels/rows.cuh"
#include "nn/backend_checks.hpp"
#include "runtime_compiler.hpp"
#include "util/diagnostics.hpp"

#include <algorithm>
#include <cmath>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <string>
#include <memory>
#include <sstream>
#include <type_traits>
#include <vector>

namespace gsr::gpu {

[[noreturn]] void throw_cuda_error(const char* what, const char* call, const char* file,
                                   int line)
{
    std::ostringstream s;
    s << file << ':' << line << ": " << call << " failed: " << what;
    throw CudaError(s.str());
}

namespace {

using nn::CompressedRows;
using nn::DeviceBytes;
using nn::DeviceGraph;
using nn::DeviceMatrix;
using nn::DropoutMask;
using nn::Transpose;
namespace k = kernels;

// Internal misuse of the backend (shapes that do not fit): a bug, not a user error.
#define GSR_GPU_REQUIRE(cond, what)                                                            \
    do {                                                                                       \
        if (!(cond))                                                                           \
            throw std::logic_error(std::string("cuda backend: ") + (what) + " (" #cond ")");   \
    } while (0)

std::size_t ceil_div(std::size_t a, std::size_t b) { return (a + b - 1) / b; }

/// A^T B with at least this many rows runs in row slabs (see gemm_ref).
constexpr std::size_t kSlabGemmMinInner = 16384;
/// Row slabs per SM of a slab-reduced GEMM: a small output tile per slab, so a few per SM
/// keep every SM busy (96 slabs in all left a third of an H100's SMs idle).
constexpr std::size_t kGemmSlabsPerSm = 4;
/// Dynamic shared memory every kernel may take without opting in (cudaFuncSetAttribute).
constexpr std::size_t kDefaultShared = 48 * 1024;

std::string gib(std::size_t bytes)
{
    std::ostringstream s;
    s.precision(2);
    s << std::fixed << double(bytes) / double(1ull << 30) << " GiB";
    return s.str();
}

/// x with Phi(x) = p for the standard normal CDF Phi (0 < p < 1), by bisection: where the
/// top-k select expects the k-th largest of a normalised row (p = 1 - k / d).
double normal_quantile(double p)
{
    double lo = -40, hi = 40;
    for (int i = 0; i < 100; ++i) {
        const double mid = 0.5 * (lo + hi);
        (0.5 * std::erfc(-mid / std::sqrt(2.0)) < p ? lo : hi) = mid;
    }
    return 0.5 * (lo + hi);
}

/// Threads per row for a gather over `width` columns loaded `vec` at a time.
int threads_per_row(std::uint32_t width, int vec)
{
    const std::uint32_t lanes = std::max<std::uint32_t>(1, (width + vec - 1) / vec);
    int t = 1;
    while (t < 32 && std::uint32_t(t) < lanes) t <<= 1;
    return t;
}

template <class T> class CudaBackend final : public nn::Backend {
public:
    CudaBackend()
    {
        try {
            acquire();
        } catch (...) {
            release(); // no destructor runs for a constructor that throws
            throw;
        }
    }
    ~CudaBackend() override { release(); }

    /// The constructor's work: the device, the stream, cuBLAS, the pinned scalars and the
    /// benchmark switches.
    void acquire()
    {
        GSR_CUDA(cudaSetDevice(0));
        cudaDeviceProp p{};
        GSR_CUDA(cudaGetDeviceProperties(&p, 0));
        device_name_ = p.name;
        sms_ = p.multiProcessorCount;
        compute_major_ = p.major;
        compute_minor_ = p.minor;
        shared_optin_ = p.sharedMemPerBlockOptin;
        // GSR_GPU_SHARED_OPTIN=B lowers the shared memory a block may be allowed to B bytes:
        // the tests run an H100/H200 as a 99 KB GPU (sm_86, sm_89, sm_120) would.
        if (const char* cap = std::getenv("GSR_GPU_SHARED_OPTIN"))
            shared_optin_ = std::min<std::size_t>(shared_optin_, std::strtoull(cap, nullptr, 10));
        GSR_CUDA(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
        blas_lib_ = cublas_library();
        if (!blas_lib_) throw std::logic_error("cuda backend: cuBLAS missing after the probe");
        GSR_CUDA(blas_lib_->create(&blas_));
        GSR_CUDA(blas_lib_->set_stream(blas_, stream_));
        GSR_CUDA(blas_lib_->set_math_mode(blas_, CUBLAS_DEFAULT_MATH));
        GSR_CUDA(cudaMallocHost(&host_scalars_, 64));
        // A benchmark switch: GSR_GPU_TOPK=rank keeps the rank-counting top-k at every width,
        // the baseline the radix select is measured against side by side.
        const char* topk = std::getenv("GSR_GPU_TOPK");
        rank_topk_ = topk && std::string(topk) == "rank";
        // GSR_GPU_TOPK=warp: every top-k kernel one warp per row (the select, the backward)
        // and the unpack as a fill then a scatter, the baselines of the kernels that give a
        // row a few threads.
        warp_topk_ = topk && std::string(topk) == "warp";
        // GSR_GPU_GEMM=cublas: every GEMM through cuBLAS and the convolution's epilogue as a
        // second pass, the baseline gemm_rows is measured against.
        const char* gemm = std::getenv("GSR_GPU_GEMM");
        cublas_only_ = gemm && std::string(gemm) == "cublas";
        // GSR_GPU_GEMM=scalar-root: gemm_rows loads the compressed root term's kept entries
        // one at a time, the baseline of its 16-byte loads.
        scalar_root_ = gemm && std::string(gemm) == "scalar-root";
        // GSR_GPU_CONV=aggregate-first: the compressed forward as (S Z) W, the baseline of
        // S (Z W).
        const char* conv = std::getenv("GSR_GPU_CONV");
        aggregate_first_ = conv && std::string(conv) == "aggregate-first";
        // GSR_GPU_CONV=kept-gather: the compressed backward from the kept S z, gathering
        // S^T (dy W^T) at the kept columns, the baseline of transposed_conv_backward.
        kept_gather_ = conv && std::string(conv) == "kept-gather";
        // GSR_GPU_FUSE=off: a reversible block's select and transient convolution as separate
        // kernels (the product Z W in compressed_product), the baseline of topk_product.
        const char* fuse = std::getenv("GSR_GPU_FUSE");
        unfused_ = fuse && std::string(fuse) == "off";
        // GSR_GPU_MMA=off: the compressed backward's products on the FMA pipe, the baseline of
        // their 3xTF32 tensor-core kernels, and what GPUs before sm_80 (no TF32 mma) run.
        const char* mma = std::getenv("GSR_GPU_MMA");
        fma_only_ = (mma && std::string(mma) == "off") || compute_major_ < 8;
        // The compressed backward's products on Hopper's warpgroup MMA where the sm_90a code
        // is built and the GPU is compute capability 9.0; GSR_GPU_MMA=sync keeps mma.sync (its
        // baseline).
#ifdef GSR_CUDA_SM90A
        wgmma_ = !fma_only_ && compute_major_ == 9 && compute_minor_ == 0 &&
                 !(mma && std::string(mma) == "sync");
#endif
    }
    /// Frees whatever acquire() and the run took. Never throws: a failing release at exit
    /// has nobody left to tell.
    void release() noexcept
    {
        if (stream_) cudaStreamSynchronize(stream_);
        if (blas_) blas_lib_->destroy(blas_);
        if (block_) cudaFree(block_);
        if (host_) cudaFreeHost(host_);
        if (host_scalars_) cudaFreeHost(host_scalars_);
        if (stream_) cudaStreamDestroy(stream_);
        blas_ = nullptr;
        block_ = nullptr;
        host_ = nullptr;
        host_scalars_ = nullptr;
        stream_ = nullptr;
    }

    std::string name() const override
    {
        return std::string("cuda-") + (sizeof(T) == 8 ? "f64" : "f32") + " (" + device_name_ +
               ")";
    }
    nn::Precision precision() const override
    {
        return sizeof(T) == 8 ? nn::Precision::Float64 : nn::Precision::Float32;
    }
    void synchronize() const { GSR_CUDA(cudaStreamSynchronize(stream_)); }
    std::size_t bytes_held() const
    {
        return block_ ? arena_.capacity() + kWorkspaceBytes + kCublasWorkspaceBytes + kCounterBytes
                      : 0;
    }

    void reserve(std::size_t bytes) override
    {
        bytes = nn::Arena::align_up(bytes);
        if (block_ && bytes <= arena_.capacity()) return;
        void* fresh = nullptr;
        cudaError_t e = cudaMalloc(&fresh, with_workspace(bytes));
        if (e == cudaSuccess) {
            try {
                if (block_) {
                    if (arena_.used() > 0)
                        GSR_CUDA(cudaMemcpyAsync(fresh, block_, arena_.used(),
                                                 cudaMemcpyDeviceToDevice, stream_));
                    GSR_CUDA(cudaStreamSynchronize(stream_));
                    GSR_CUDA(cudaFree(block_));
                    block_ = nullptr;
                }
            } catch (...) {
                cudaFree(fresh);
                throw;
            }
            adopt(fresh, bytes);
            return;
        }
        if (e != cudaErrorMemoryAllocation) GSR_CUDA(e);
        cudaGetLastError(); // not sticky: clear it
        if (!block_) throw out_of_memory(bytes);
        // The old and the new block do not fit side by side: the used bytes wait in host
        // memory while the old block is freed and the new one taken (failing that, the old
        // size again, so that the backend stays usable after the error).
        const std::size_t old = arena_.capacity();
        std::vector<std::byte> staged(arena_.used());
        if (!staged.empty())
            GSR_CUDA(cudaMemcpyAsync(staged.data(), block_, staged.size(),
                                     cudaMemcpyDeviceToHost, stream_));
        GSR_CUDA(cudaStreamSynchronize(stream_));
        GSR_CUDA(cudaFree(block_));
        block_ = nullptr;
        e = cudaMalloc(&fresh, with_workspace(bytes));
        const bool grown = e == cudaSuccess;
        if (!grown) {
            cudaGetLastError();
            GSR_CUDA(cudaMalloc(&fresh, with_workspace(old)));
        }
        adopt(fresh, grown ? bytes : old);
        if (!staged.empty())
            GSR_CUDA(cudaMemcpyAsync(block_, staged.data(), staged.size(),
                                     cudaMemcpyHostToDevice, stream_));
        GSR_CUDA(cudaStreamSynchronize(stream_)); // `staged` is freed on return
        if (!grown) throw out_of_memory(bytes);
    }
    /// An arena of `bytes` with the workspace, cuBLAS's workspace and the counters after it.
    static std::size_t with_workspace(std::size_t bytes)
    {
        return bytes + kWorkspaceBytes + kCublasWorkspaceBytes + kCounterBytes;
    }
    /// Takes `fresh` (with_workspace(bytes) long) as the arena's block.
    void adopt(void* fresh, std::size_t bytes)
    {
        block_ = static_cast<std::byte*>(fresh);
        arena_.set_capacity(bytes);
        workspace_ = block_ + bytes;
        GSR_CUDA(blas_lib_->set_workspace(blas_, workspace_ + kWorkspaceBytes,
                                          kCublasWorkspaceBytes));
        counters_ =
            reinterpret_cast<unsigned*>(workspace_ + kWorkspaceBytes + kCublasWorkspaceBytes);
        GSR_CUDA(cudaMemsetAsync(counters_, 0, kCounterBytes, stream_));
    }
    /// The plain message for an arena of `bytes` that does not fit.
    Error out_of_memory(std::size_t bytes) const
    {
        const std::size_t total = with_workspace(bytes);
        std::size_t free_bytes = 0, device_bytes = 0;
        cudaMemGetInfo(&free_bytes, &device_bytes);
        cudaGetLastError();
        return Error("out of GPU memory on " + device_name_ + ": this model needs " +
                     gib(total) + " on the device (the estimate of `gsr memory` for this graph "
                     "and configuration, plus " + gib(total - bytes) + " of workspace), and the "
                     "GPU has " + gib(free_bytes) + " free of " + gib(device_bytes) +
                     ". Try --model gsr (compressed activations, flat in depth), fewer "
                     "--layers, a smaller --hidden, --offload-optimizer (gradients and Adam "
                     "moments in host memory), or sampled mini-batches (--batching cluster, or "
                     "--batch-size N with --fanout F1,F2,...)");
    }

    void reserve_host(std::size_t bytes) override
    {
        // Mapped pinned memory: kernels reach it through its device address over the bus.
        bytes = nn::Arena::align_up(bytes);
        if (host_ && bytes <= host_arena_.capacity()) return;
        void* fresh = nullptr;
        const cudaError_t e = cudaHostAlloc(&fresh, bytes, cudaHostAllocMapped);
        if (e == cudaErrorMemoryAllocation) {
            cudaGetLastError();
            throw Error("out of pinned host memory: the offloaded optimizer state needs " +
                        gib(bytes) + "; train without --offload-optimizer");
        }
        GSR_CUDA(e);
        void* device = nullptr;
        GSR_CUDA(cudaHostGetDevicePointer(&device, fresh, 0));
        if (host_) {
            GSR_CUDA(cudaStreamSynchronize(stream_));
            std::memcpy(fresh, host_, host_arena_.used());
            GSR_CUDA(cudaFreeHost(host_));
        }
        host_ = static_cast<std::byte*>(fresh);
        host_device_ = static_cast<std::byte*>(device);
        host_arena_.set_capacity(bytes);
    }

    // ---- transfers ------------------------------------------------------------------------

    void upload_bytes(DeviceBytes dst, const void* src, std::size_t bytes) override
    {
        GSR_GPU_REQUIRE(bytes <= dst.bytes && limits().fits(dst.offset, dst.bytes),
                        "upload past the end of a buffer");
        if (bytes)
            GSR_CUDA(cudaMemcpyAsync(at(dst.offset), src, bytes, cudaMemcpyDefault, stream_));
    }
    void download_bytes(DeviceBytes src, void* dst, std::size_t bytes) const override
    {
        GSR_GPU_REQUIRE(bytes <= src.bytes && limits().fits(src.offset, src.bytes),
                        "download past the end of a buffer");
        if (!bytes) return;
        GSR_CUDA(cudaMemcpyAsync(dst, at(src.offset), bytes, cudaMemcpyDefault, stream_));
        GSR_CUDA(cudaStreamSynchronize(stream_));
    }
    void upload(DeviceMatrix dst, std::span<const float> src) override { upload_as(dst, src); }
    void upload(DeviceMatrix dst, std::span<const double> src) override { upload_as(dst, src); }
    void download(DeviceMatrix src, std::span<float> dst) const override
    {
        download_as(src, dst);
    }
    void download(DeviceMatrix src, std::span<double> dst) const override
    {
        download_as(src, dst);
    }

    // ---- elementwise ----------------------------------------------------------------------

    void fill(DeviceMatrix x, double value) override
    {
        fill_ref(mat(x), T(value));
    }
    void axpby(double alpha, DeviceMatrix x, double beta, DeviceMatrix y) override
    {
        same_shape(x, y);
        if (x.empty()) return;
        k::axpby<<<grid(x.size()), k::kThreads, 0, stream_>>>(T(alpha), mat(x), T(beta), mat(y));
        GSR_CUDA_LAUNCH();
    }
    void sum_groups(DeviceMatrix x, std::uint32_t width, std::uint32_t first_group,
                    DeviceMatrix y) override
    {
        check(x);
        check(y);
        GSR_GPU_REQUIRE(width > 0 && x.cols % width == 0 && y.cols == width && y.rows == x.rows,
                        "sum_groups shapes");
        if (y.empty()) return;
        k::sum_groups<<<grid(y.size()), k::kThreads, 0, stream_>>>(mat(x), width, first_group,
                                                                    mat(y));
        GSR_CUDA_LAUNCH();
    }
    void round_to_grid(DeviceMatrix x, double quantum) override
    {
        check(x);
        check_quantum(quantum);
        if (quantum == 0.0 || x.empty()) return;
        k::round_to_grid<<<grid(x.size()), k::kThreads, 0, stream_>>>(mat(x), T(quantum),
                                                                       T(1 / quantum));
        GSR_CUDA_LAUNCH();
    }
    double max_abs_difference(DeviceMatrix a, DeviceMatrix b) const override
    {
        check(a);
        if (!b.empty()) same_shape(a, b);
        auto* out = reinterpret_cast<unsigned long long*>(workspace_);
        GSR_CUDA(cudaMemsetAsync(out, 0, sizeof(*out), stream_));
        if (!a.empty()) {
            k::max_abs_difference<<<grid(a.size()), k::kThreads, 0, stream_>>>(
                mat(a), b.empty() ? mat(a) : mat(b), !b.empty(), out);
            GSR_CUDA_LAUNCH();
        }
        unsigned long long bits = 0;
        GSR_CUDA(cudaMemcpyAsync(&bits, out, sizeof bits, cudaMemcpyDeviceToHost, stream_));
        GSR_CUDA(cudaStreamSynchronize(stream_));
        double m;
        std::memcpy(&m, &bits, sizeof m);
        return m;
    }

    // ---- dense ----------------------------------------------------------------------------

    void gemm(Transpose ta, Transpose tb, double alpha, DeviceMatrix a, DeviceMatrix b,
              double beta, DeviceMatrix c) override
    {
        const std::size_t inner = limits().gemm(ta, tb, a, b, c);
        gemm_ref(ta, tb, T(alpha), mat(a), mat(b), T(beta), mat(c), inner);
    }
    void add_row_vector(DeviceMatrix bias, DeviceMatrix x) override
    {
        check(bias);
        check(x);
        GSR_GPU_REQUIRE(bias.rows == 1 && bias.cols == x.cols, "add_row_vector shapes");
        if (x.empty()) return;
        k::add_row_vector<<<grid(x.size()), k::kThreads, 0, stream_>>>(ptr(bias), mat(x));
        GSR_CUDA_LAUNCH();
    }
    void column_sums(DeviceMatrix x, double beta, DeviceMatrix out) override
    {
        check(x);
        check(out);
        GSR_GPU_REQUIRE(out.rows == 1 && out.cols == x.cols, "column_sums shapes");
        column_sums_ref(mat(x), T(1), T(beta), mat(out));
    }

    // ---- tuned kernels (the kernel lab's Apply) ---------------------------------------------

    std::vector<std::string> use_tuned_kernels(const std::vector<nn::TunedKernel>& kernels) override
    {
        std::vector<std::string> notes;
        for (const nn::TunedKernel& t : kernels) {
            const std::string head = t.origin + ": ";
            if constexpr (!std::is_same_v<T, float>) {
                notes.push_back(head + "not used: generated kernels are float32, this backend "
                                       "is float64");
                continue;
            }
            if (t.op != "spmm") {
                notes.push_back(head + "not used: the backend has no operation '" + t.op + "'");
                continue;
            }
            if (t.width == 0 || t.block == 0 || t.block > 1024 || t.rows_per_block == 0 ||
                t.block % t.rows_per_block || (t.vec != 1 && t.vec != 2 && t.vec != 4) ||
                t.width % t.vec) {
                notes.push_back(head + "not used: its launch shape is invalid");
                continue;
            }
            try {
                std::unique_ptr<RuntimeKernel> compiled =
                    compile_runtime_kernel(t.source, t.entry, "tuned_" + t.op + ".cu");
                std::erase_if(tuned_spmm_, [&](const Tuned& u) { return u.spec.width == t.width; });
                tuned_spmm_.push_back({t, std::move(compiled)});
                notes.push_back(head + "used for the SpMM at width " + std::to_string(t.width) +
                                " (compiled in " +
                                std::to_string(int(tuned_spmm_.back().kernel->seconds * 1000)) +
                                " ms)");
            } catch (const RuntimeCompileError& e) {
                notes.push_back(head + "not used: it does not compile: " + e.log);
            } catch (const RuntimeLoadError& e) {
                cudaGetLastError();
                notes.push_back(head + "not used: " + e.where + " failed: " +
                                cudaGetErrorString(e.code));
            }
        }
        return notes;
    }
    std::uint64_t tuned_launches() const override { return tuned_launches_; }

    // ---- graph ----------------------------------------------------------------------------

    void spmm(const DeviceGraph& s, Transpose t, double alpha, DeviceMatrix x, double beta,
              DeviceMatrix y) override
    {
        check(x);
        check(y);
        GSR_GPU_REQUIRE(x.rows == s.pattern.rows && y.rows == s.pattern.rows && x.cols == y.cols,
                        "spmm shapes");
        spmm_ref(csr(s, t), T(alpha), mat(x), T(beta), mat(y));
    }

    // ---- normalisation, activation, top-k -------------------------------------------------

    void layernorm_forward(DeviceMatrix x, DeviceMatrix gamma, DeviceMatrix beta, DeviceMatrix y,
                           DeviceMatrix stats) override
    {
        check_norm(x, gamma, beta, stats);
        same_shape(x, y);
        if (x.empty()) return;
        if constexpr (std::is_same_v<T, float>) {
            if (layernorm_rows4<false>(x, gamma, beta, DropoutMask{}, y, stats)) return;
        }
        k::layernorm_forward<T, false><<<row_grid(x.rows), 32 * k::kRowWarps, 0, stream_>>>(
            mat(x), ptr(gamma), ptr(beta), nullptr, 0, 0, T(1), mat(y), mat(stats));
        GSR_CUDA_LAUNCH();
    }
    void layernorm_relu_forward(DeviceMatrix x, DeviceMatrix gamma, DeviceMatrix beta,
                                const DropoutMask& mask, DeviceMatrix y,
                                DeviceMatrix stats) override
    {
        check_norm(x, gamma, beta, stats);
        same_shape(x, y);
        if (x.empty()) return;
        if constexpr (std::is_same_v<T, float>) {
            if (layernorm_rows4<true>(x, gamma, beta, mask, y, stats)) return;
        }
        k::layernorm_forward<T, true><<<row_grid(x.rows), 32 * k::kRowWarps, 0, stream_>>>(
            mat(x), ptr(gamma), ptr(beta), keep_of(mask), mask.stride, mask.column,
            T(mask.scale), mat(y), mat(stats));
        GSR_CUDA_LAUNCH();
    }
    void relu_layernorm_backward(DeviceMatrix x, DeviceMatrix gamma, DeviceMatrix stats,
                                 DeviceMatrix y, double scale, DeviceMatrix dy, double dx_beta,
                                 DeviceMatrix dx, DeviceMatrix dgamma, DeviceMatrix dbeta) override
    {
        check_norm(x, gamma, gamma, stats);
        same_shape(x, y);
        same_shape(x, dy);
        same_shape(x, dx);
        same_shape(gamma, dgamma);
        same_shape(gamma, dbeta);
        norm_backward<std::uint8_t>(x, gamma, stats, mat(dy), nullptr, DropoutMask{}, dx_beta,
                                    dx, dgamma, dbeta, mat(y), T(scale));
    }
    void layernorm_relu_gate(DeviceMatrix x, DeviceMatrix gamma, DeviceMatrix beta,
                             DeviceMatrix stats, const DropoutMask& mask, DeviceMatrix dy) override
    {
        check_norm(x, gamma, beta, stats);
        same_shape(x, dy);
        if (x.empty()) return;
        const std::uint8_t* keep = keep_of(mask);
        k::layernorm_relu_gate<T><<<grid(dy.size()), k::kThreads, 0, stream_>>>(
            mat(x), ptr(gamma), ptr(beta), mat(stats), keep, mask.stride, mask.column,
            T(keep ? mask.scale : 1.0), mat(dy));
        GSR_CUDA_LAUNCH();
    }
    void relu_layernorm_backward_from_input(DeviceMatrix x, DeviceMatrix gamma, DeviceMatrix beta,
                                            DeviceMatrix stats, const DropoutMask& mask,
                                            DeviceMatrix dy, double dx_beta, DeviceMatrix dx,
                                            DeviceMatrix dgamma, DeviceMatrix dbeta) override
    {
        // The four-column kernel recomputes the gate as it reads dy; other widths and float64
        // gate dy in place first (Backend's default: two passes).
        if constexpr (std::is_same_v<T, float>) {
            check_norm(x, gamma, beta, stats);
            same_shape(x, dy);
            same_shape(x, dx);
            same_shape(gamma, dgamma);
            same_shape(gamma, dbeta);
            const std::uint8_t* keep = keep_of(mask);
            const std::uint32_t slabs =
                x.rows == 0 ? 0
                            : norm_backward_rows4(x, gamma, stats, mat(dy), float(dx_beta), dx,
                                                  {}, keep ? float(mask.scale) : 1.f,
                                                  {ptr(beta), keep, mask.stride, mask.column});
            if (slabs > 0) {
                combine_norm_partials(slabs, dgamma, dbeta);
                return;
            }
        }
        Backend::relu_layernorm_backward_from_input(x, gamma, beta, stats, mask, dy, dx_beta, dx,
                                                    dgamma, dbeta);
    }
    void layernorm_backward(DeviceMatrix x, DeviceMatrix gamma, DeviceMatrix stats,
                            DeviceMatrix dy, double dx_beta, DeviceMatrix dx, DeviceMatrix dgamma,
                            DeviceMatrix dbeta) override
    {
        check_norm(x, gamma, gamma, stats);
        same_shape(x, dy);
        same_shape(x, dx);
        same_shape(gamma, dgamma);
        same_shape(gamma, dbeta);
        norm_backward<std::uint8_t>(x, gamma, stats, mat(dy), nullptr, DropoutMask{}, dx_beta,
                                    dx, dgamma, dbeta);
    }
    void relu_forward(DeviceMatrix x, const DropoutMask& mask, DeviceMatrix y) override
    {
        same_shape(x, y);
        if (x.empty()) return;
        k::relu_forward<<<grid(x.size()), k::kThreads, 0, stream_>>>(
            mat(x), keep_of(mask), mask.stride, mask.column, T(mask.scale), mat(y));
        GSR_CUDA_LAUNCH();
    }
    void relu_backward(DeviceMatrix y, double scale, DeviceMatrix dy, double dx_beta,
                       DeviceMatrix dx) override
    {
        same_shape(y, dy);
        same_shape(y, dx);
        if (y.empty()) return;
        k::relu_backward<<<grid(y.size()), k::kThreads, 0, stream_>>>(mat(y), T(scale), mat(dy),
                                                                       T(dx_beta), mat(dx));
        GSR_CUDA_LAUNCH();
    }
    void make_dropout_mask(std::uint64_t seed, std::uint64_t step, double p, DeviceBytes keep,
                           std::uint32_t rows, std::uint32_t cols) override
    {
        const std::size_t n = std::size_t(rows) * cols;
        GSR_GPU_REQUIRE(keep.bytes >= n && keep.offset + keep.bytes <= arena_.capacity(),
                        "dropout mask size");
        if (n == 0) return;
        k::dropout_mask<<<grid(n), k::kThreads, 0, stream_>>>(
            seed, step, p, reinterpret_cast<std::uint8_t*>(at(keep.offset)), n);
        GSR_CUDA_LAUNCH();
    }
    void normalize_topk_pack(DeviceMatrix x, DeviceMatrix gamma, DeviceMatrix beta,
                             const DropoutMask& mask, DeviceMatrix stats,
                             const CompressedRows& out) override
    {
        check_norm(x, gamma, beta, stats);
        check_compressed(out, x.rows, x.cols);
        if (x.rows == 0) return;
        const std::size_t shared = std::size_t(k::kRowWarps) * x.cols * sizeof(T);
        with_index_type(out, [&](auto* idx) {
            using I = std::remove_pointer_t<decltype(idx)>;
            if (topk_pack_lanes(x, gamma, beta, mask, stats, out, idx)) return;
            const unsigned grid = row_grid(x.rows), block = 32 * k::kRowWarps;
            const k::MatRef<T> xm = mat(x), sm = mat(stats), vm = mat(out.values);
            const std::uint8_t* keep = keep_of(mask);
            // Rows of up to 64 columns fit in registers: the radix select; wider rows count
            // ranks in shared memory.
            if (!rank_topk_ && x.cols <= 32)
                k::normalize_topk_pack_select<T, I, 1><<<grid, block, 0, stream_>>>(
                    xm, ptr(gamma), ptr(beta), keep, mask.stride, mask.column, T(mask.scale),
                    sm, vm, idx);
            else if (!rank_topk_ && x.cols <= 64)
                k::normalize_topk_pack_select<T, I, 2><<<grid, block, 0, stream_>>>(
                    xm, ptr(gamma), ptr(beta), keep, mask.stride, mask.column, T(mask.scale),
                    sm, vm, idx);
            else
                k::normalize_topk_pack<T, I><<<grid, block, shared, stream_>>>(
                    xm, ptr(gamma), ptr(beta), keep, mask.stride, mask.column, T(mask.scale),
                    sm, vm, idx);
            GSR_CUDA_LAUNCH();
        });
    }
    void normalize_topk_conv_transient(DeviceMatrix x, DeviceMatrix gamma, DeviceMatrix beta,
                                       const DropoutMask& mask, DeviceMatrix stats,
                                       const CompressedRows& kept, const nn::SageConvWeights& w,
                                       const nn::ResidualAdd& add, DeviceMatrix y,
                                       DeviceMatrix scratch) override
    {
        if (!topk_product(x, gamma, beta, mask, stats, kept, w, add, y, scratch))
            Backend::normalize_topk_conv_transient(x, gamma, beta, mask, stats, kept, w, add, y,
                                                   scratch);
    }
    void normalize_topk_backward(DeviceMatrix x, DeviceMatrix gamma, DeviceMatrix stats,
                                 const CompressedRows& kept, DeviceMatrix d_values,
                                 const DropoutMask& mask, double dx_beta, DeviceMatrix dx,
                                 DeviceMatrix dgamma, DeviceMatrix dbeta) override
    {
        check_norm(x, gamma, gamma, stats);
        check_compressed(kept, x.rows, x.cols);
        same_shape(kept.values, d_values);
        same_shape(x, dx);
        same_shape(gamma, dgamma);
        same_shape(gamma, dbeta);
        with_index_type(kept, [&](auto* idx) {
            using I = std::remove_pointer_t<decltype(idx)>;
            norm_backward<I>(x, gamma, stats, mat(d_values), idx, mask, dx_beta, dx, dgamma,
                             dbeta);
        });
    }
    void unpack(const CompressedRows& z, DeviceMatrix dense) override
    {
        check_compressed(z, dense.rows, dense.cols);
        if constexpr (std::is_same_v<T, float>) {
            // Rows of 4 x a power of two columns: one pass, four columns a thread.
            const std::uint32_t lanes = rows4_lanes(dense.cols, {mat(dense)});
            if (lanes > 0 && dense.rows > 0 && !warp_topk_) {
                with_index_type(z, [&](auto* idx) {
                    using I = std::remove_pointer_t<decltype(idx)>;
                    const std::size_t rows_per_block = std::size_t(k::kNormWarps) * 32 * 4 /
                                                       dense.cols;
                    const unsigned blocks = unsigned(std::min<std::size_t>(
                        ceil_div(dense.rows, rows_per_block), std::size_t(sms_) * 8));
                    with_lanes<1, 2, 4, 8, 16, 32>(lanes, [&](auto l) {
                        k::unpack_rows4<decltype(l)::value, I>
                            <<<blocks, 32 * k::kNormWarps, 0, stream_>>>(mat(z.values), idx,
                                                                       mat(dense));
                    });
                    GSR_CUDA_LAUNCH();
                });
                return;
            }
        }
        fill_ref(mat(dense), T(0));
        if (z.values.empty()) return;
        with_index_type(z, [&](auto* idx) {
            using I = std::remove_pointer_t<decltype(idx)>;
            k::scatter_compressed<T, I><<<grid(z.values.size()), k::kThreads, 0, stream_>>>(
                mat(z.values), idx, mat(dense));
            GSR_CUDA_LAUNCH();
        });
    }

    // ---- graph convolution ----------------------------------------------------------------

    void sage_conv_forward(const nn::SageConvWeights& w, DeviceMatrix z,
                           const nn::ResidualAdd& add, DeviceMatrix y,
                           DeviceMatrix aggregated) override
    {
        check(z);
        check_conv(w, z.rows, z.cols, add, y, aggregated);
        for (std::uint32_t t = 0; t < w.terms; ++t)
            spmm_ref(csr(*w.graph[t], Transpose::No), T(1), mat(z), T(0),
                     mat(aggregated.columns(t * z.cols, z.cols)));
        conv_chunks(w, z.cols, add, y, aggregated, &z, nullptr);
    }
    void sage_conv_forward(const nn::SageConvWeights& w, const CompressedRows& z,
                           const nn::ResidualAdd& add, DeviceMatrix y,
                           DeviceMatrix aggregated) override
    {
        compressed_forward(w, z, add, y, aggregated, true);
    }
    void sage_conv_forward_transient(const nn::SageConvWeights& w, const CompressedRows& z,
                                     const nn::ResidualAdd& add, DeviceMatrix y,
                                     DeviceMatrix scratch) override
    {
        compressed_forward(w, z, add, y, scratch, false);
    }
    /// The compressed forward: f through S (Z W) where conv_products takes the shapes, so a
    /// forward that keeps S z (`keep`, for the backward) aggregates it afterwards, into the
    /// scratch the products used; both orders of the forward give y the same bits. Else
    /// (S Z) W: S z, then gemm_rows (or cuBLAS) with the epilogue.
    void compressed_forward(const nn::SageConvWeights& w, const CompressedRows& z,
                            const nn::ResidualAdd& add, DeviceMatrix y, DeviceMatrix aggregated,
                            bool keep)
    {
        check_compressed(z, z.rows(), z.width);
        check_conv(w, z.rows(), z.width, add, y, aggregated);
        const std::uint32_t d = z.width;
        const bool products = conv_products(w, z, add, y, aggregated);
        if (products && !keep) return;
        if (z.rows() > 0) {
            with_index_type(z, [&](auto* idx) {
                using I = std::remove_pointer_t<decltype(idx)>;
                // A row's accumulator in shared memory: as many rows a block as fit in the
                // 48 KB every kernel may take unasked (fewer than kThreads / tpr for wide d).
                const int tpr = threads_per_row(z.k(), 1);
                const std::size_t row_bytes = std::size_t(d) * sizeof(T);
                const int rows = int(std::clamp<std::size_t>(kDefaultShared / row_bytes, 1,
                                                             std::size_t(k::kThreads / tpr)));
                const std::size_t shared = std::size_t(rows) * row_bytes;
                for (std::uint32_t t = 0; t < w.terms; ++t) {
                    k::aggregate_compressed<T, I><<<grid(z.rows(), rows), rows * tpr, shared,
                                                    stream_>>>(
                        csr(*w.graph[t], Transpose::No), mat(z.values), idx, d,
                        mat(aggregated.columns(t * d, d)), tpr);
                    GSR_CUDA_LAUNCH();
                }
            });
        }
        if (!products) conv_chunks(w, d, add, y, aggregated, nullptr, &z);
    }
    void sage_conv_backward(const nn::SageConvWeights& w, const nn::SageConvWeights& grads,
                            DeviceMatrix z, DeviceMatrix aggregated, DeviceMatrix dy,
                            double dz_beta, DeviceMatrix dz) override
    {
        const DeviceMatrix joined = nn::joined_conv_input(aggregated, z);
        const DeviceMatrix stacked = nn::stacked_conv_weights(grads);
        if (joined.empty() || stacked.empty() || joined.cols != stacked.rows) {
            dense_conv_backward(w, grads, z, aggregated, dy, dz_beta, dz);
            return;
        }
        // [dW_0; ..; dW_root] += [S_0 z | .. | z]^T dy: one slab-reduced GEMM for all terms.
        gemm(Transpose::Yes, Transpose::No, 1.0, joined, dy, 1.0, stacked);
        column_sums(dy, 1.0, grads.bias);
        conv_input_gradient(w, z, dy, dz_beta, dz);
    }
    void sage_conv_backward_joined(const nn::SageConvWeights& w, const nn::SageConvWeights& grads,
                                   DeviceMatrix joined, DeviceMatrix dy) override
    {
        const DeviceMatrix ws = nn::stacked_conv_weights(w), gs = nn::stacked_conv_weights(grads);
        if (ws.empty() || gs.empty() || ws.rows != joined.cols || joined.rows != dy.rows ||
            ws.cols != dy.cols) {
            Backend::sage_conv_backward_joined(w, grads, joined, dy);
            return;
        }
        const std::uint32_t d = joined.cols / (w.terms + 1);
        // [dW_0; ..; dW_root] += [S_0 z | .. | z]^T dy, then [S_0 z | .. | z] is free:
        // [dy W_0^T | .. | dy W_root^T] in one GEMM, and dz = the last columns + sum_t S_t^T
        // of the others.
        gemm(Transpose::Yes, Transpose::No, 1.0, joined, dy, 1.0, gs);
        column_sums(dy, 1.0, grads.bias);
        gemm(Transpose::No, Transpose::Yes, 1.0, dy, ws, 0.0, joined);
        const DeviceMatrix z = joined.columns(w.terms * d, d);
        for (std::uint32_t t = 0; t < w.terms; ++t)
            spmm(*w.graph[t], Transpose::Yes, 1.0, joined.columns(t * d, d), 1.0, z);
    }
    void sage_conv_backward(const nn::SageConvWeights& w, const nn::SageConvWeights& grads,
                            const CompressedRows& z, DeviceMatrix aggregated, DeviceMatrix dy,
                            DeviceMatrix d_values) override
    {
        check_compressed(z, z.rows(), z.width);
        same_shape(z.values, d_values);
        if (transposed_conv_backward(w, grads, z, aggregated, dy, d_values)) return;
        const std::uint32_t d = z.width, n = z.rows();
        conv_weight_gradients(w, grads, d, aggregated, dy);
        with_index_type(z, [&](auto* idx) {
            using I = std::remove_pointer_t<decltype(idx)>;
            // The aggregated rows are read by now: they are the gather's scratch.
            nn::ArenaScope scope(arena_);
            const DeviceMatrix g = w.terms > 0 ? aggregated.columns(0, d) : alloc_matrix(n, d);
            if (!w.root.empty()) {
                // grads.root += Z^T dy: Z unpacked into the scratch the gather needs anyway,
                // then one slab-reduced GEMM (faster than a scatter, and no atomics).
                unpack(z, g);
                gemm(Transpose::Yes, Transpose::No, 1.0, g, dy, 1.0, grads.root);
            }
            for (std::uint32_t t = 0; t <= w.terms; ++t) {
                const bool root_term = t == w.terms;
                if (root_term && w.root.empty()) {
                    if (w.terms == 0) fill(d_values, 0.0);
                    break;
                }
                if (n == 0) continue;
                if (!root_term) {
                    gemm(Transpose::No, Transpose::Yes, 1.0, dy, w.neighbour[t], 0.0, g);
                    const int tpr = threads_per_row(z.k(), 1);
                    k::gather_transpose<T, I><<<grid(n, k::kThreads / tpr), k::kThreads, 0,
                                                stream_>>>(csr(*w.graph[t], Transpose::Yes),
                                                           mat(g), idx, mat(d_values), t > 0,
                                                           tpr);
                } else {
                    gemm(Transpose::No, Transpose::Yes, 1.0, dy, w.root, 0.0, g);
                    k::gather_columns<T, I><<<grid(d_values.size()), k::kThreads, 0, stream_>>>(
                        mat(g), idx, mat(d_values), t > 0);
                }
                GSR_CUDA_LAUNCH();
            }
        });
    }

    bool compressed_backward_reads_aggregated(const nn::SageConvWeights& w,
                                              const CompressedRows& z,
                                              DeviceMatrix dy) const override
    {
        return !transposed_backward_shapes(w, z, dy);
    }

    // ---- loss and optimiser ---------------------------------------------------------------

    double loss(nn::LossKind kind, DeviceMatrix pred, DeviceMatrix target, DeviceBytes nodes,
                std::uint32_t node_count, double weight, DeviceMatrix grad) override
    {
        same_shape(pred, target);
        same_shape(pred, grad);
        GSR_GPU_REQUIRE(pred.cols == 1 && nodes.bytes >= node_count * sizeof(std::uint32_t),
                        "loss shapes");
        fill(grad, 0.0);
        if (node_count == 0) return 0.0;
        // Blocks of at least 2048 listed nodes, a few per SM; partials after the total.
        auto* total = reinterpret_cast<double*>(workspace_);
        const std::uint32_t blocks = std::uint32_t(
            std::clamp<std::size_t>(ceil_div(node_count, 2048), 1, std::size_t(sms_) * 4));
        const std::uint32_t per_block = std::uint32_t(ceil_div(node_count, blocks));
        k::loss<T><<<blocks, k::kLossThreads, 0, stream_>>>(
            kind == nn::LossKind::MeanSquaredError ? 0 : 1, mat(pred), mat(target),
            reinterpret_cast<const std::uint32_t*>(at(nodes.offset)), node_count, per_block,
            weight / node_count, mat(grad), total + 1);
        GSR_CUDA_LAUNCH();
        k::loss_total<<<1, 1, 0, stream_>>>(total + 1, blocks, total);
        GSR_CUDA_LAUNCH();
        GSR_CUDA(cudaMemcpyAsync(host_scalars_, total, sizeof(double), cudaMemcpyDeviceToHost,
                                 stream_));
        GSR_CUDA(cudaStreamSynchronize(stream_));
        return host_scalars_[0] / node_count;
    }
    void adam_step(DeviceMatrix params, DeviceMatrix grads, DeviceMatrix m, DeviceMatrix v,
                   const nn::AdamStep& step) override
    {
        same_shape(params, grads);
        same_shape(params, m);
        same_shape(params, v);
        GSR_GPU_REQUIRE(params.cols == 1, "adam expects flat n x 1 vectors");
        const double c1 = 1.0 - std::pow(step.beta1, double(step.step));
        const double c2 = 1.0 - std::pow(step.beta2, double(step.step));
        if (params.rows == 0) return;
        GSR_GPU_REQUIRE(params.ld == 1 && grads.ld == 1 && m.ld == 1 && v.ld == 1,
                        "adam expects contiguous vectors");
        k::adam<T><<<grid(params.rows), k::kThreads, 0, stream_>>>(
            ptr(params), ptr(grads), ptr(m), ptr(v), params.rows, T(step.beta1), T(step.beta2),
            T(step.learning_rate), T(step.epsilon), T(step.weight_decay), T(1.0 / c1),
            T(1.0 / c2));
        GSR_CUDA_LAUNCH();
    }

private:
    // ---- access ---------------------------------------------------------------------------

    /// The device address of an offset: in the arena, or in the mapped host block.
    std::byte* at(std::size_t offset) const
    {
        return offset & nn::kHostSpace ? host_device_ + (offset & ~nn::kHostSpace)
                                       : block_ + offset;
    }
    T* ptr(DeviceMatrix m) const { return reinterpret_cast<T*>(at(m.offset)); }
    k::MatRef<T> mat(DeviceMatrix m) const
    {
        check(m);
        return {ptr(m), m.rows, m.cols, m.ld};
    }
    const std::uint8_t* keep_of(const DropoutMask& mask) const
    {
        return mask.active() ? reinterpret_cast<const std::uint8_t*>(at(mask.keep.offset))
                             : nullptr;
    }
    k::CsrRef<T> csr(const DeviceGraph& s, Transpose t) const
    {
        const nn::DeviceCsr& c = t == Transpose::No ? s.pattern : s.transposed;
        k::CsrRef<T> r;
        r.offsets = reinterpret_cast<const std::uint64_t*>(at(c.offsets.offset));
        r.targets = reinterpret_cast<const std::uint32_t*>(at(c.targets.offset));
        r.rs = ptr(t == Transpose::No ? s.row_scale : s.col_scale);
        r.cs = ptr(t == Transpose::No ? s.col_scale : s.row_scale);
        r.rows = c.rows;
        r.self_loop = s.self_loop;
        return r;
    }
    unsigned grid(std::size_t work, int per_block = k::kThreads) const
    {
        return k::blocks_for(work, per_block, unsigned(sms_) * 32);
    }
    unsigned row_grid(std::size_t rows) const
    {
        return k::blocks_for(rows, k::kRowWarps, unsigned(sms_) * 64);
    }

    nn::BackendLimits limits() const
    {
        return {"cuda backend", sizeof(T), arena_.capacity(), kMaxWidth,
                host_arena_.capacity()};
    }
    void check(DeviceMatrix m) const { limits().matrix(m); }
    void same_shape(DeviceMatrix a, DeviceMatrix b) const { limits().same_shape(a, b); }
    void check_norm(DeviceMatrix x, DeviceMatrix gamma, DeviceMatrix beta,
                    DeviceMatrix stats) const
    {
        limits().norm(x, gamma, beta, stats);
    }
    void check_compressed(const CompressedRows& z, std::uint32_t rows, std::uint32_t width) const
    {
        limits().compressed(z, rows, width);
    }
    void check_conv(const nn::SageConvWeights& w, std::uint32_t rows, std::uint32_t d_in,
                    const nn::ResidualAdd& add, DeviceMatrix y, DeviceMatrix aggregated) const
    {
        limits().conv(w, rows, d_in, add, y, aggregated);
    }
    void check_quantum(double q) const { limits().quantum(q); }

    template <class F> void with_index_type(const CompressedRows& z, F&& f) const
    {
        if (z.index_bytes == 1)
            f(reinterpret_cast<std::uint8_t*>(at(z.indices.offset)));
        else
            f(reinterpret_cast<std::uint16_t*>(at(z.indices.offset)));
    }

    template <class F> void upload_as(DeviceMatrix dst, std::span<const F> src)
    {
        check(dst);
        GSR_GPU_REQUIRE(src.size() == dst.size(), "upload size");
        if (dst.empty()) return;
        const T* data;
        std::vector<T> converted;
        if constexpr (std::is_same_v<F, T>) {
            data = src.data();
        } else {
            converted.assign(src.begin(), src.end());
            data = converted.data();
        }
        GSR_CUDA(cudaMemcpy2DAsync(ptr(dst), std::size_t(dst.ld) * sizeof(T), data,
                                   std::size_t(dst.cols) * sizeof(T),
                                   std::size_t(dst.cols) * sizeof(T), dst.rows,
                                   cudaMemcpyHostToDevice, stream_));
        // Pageable sources are staged before the call returns; a converted copy must live
        // until then too, which holds because the call is synchronous for pageable memory.
        if (!converted.empty()) GSR_CUDA(cudaStreamSynchronize(stream_));
    }
    template <class F> void download_as(DeviceMatrix src, std::span<F> dst) const
    {
        check(src);
        GSR_GPU_REQUIRE(dst.size() == src.size(), "download size");
        if (src.empty()) return;
        std::vector<T> staged;
        T* out;
        if constexpr (std::is_same_v<F, T>) {
            out = dst.data();
        } else {
            staged.resize(dst.size());
            out = staged.data();
        }
        GSR_CUDA(cudaMemcpy2DAsync(out, std::size_t(src.cols) * sizeof(T), ptr(src),
                                   std::size_t(src.ld) * sizeof(T),
                                   std::size_t(src.cols) * sizeof(T), src.rows,
                                   cudaMemcpyDeviceToHost, stream_));
        GSR_CUDA(cudaStreamSynchronize(stream_));
        if constexpr (!std::is_same_v<F, T>)
            for (std::size_t i = 0; i < staged.size(); ++i) dst[i] = F(staged[i]);
    }

    // ---- composed operations --------------------------------------------------------------

    void fill_ref(k::MatRef<T> x, T value)
    {
        if (std::size_t(x.rows) * x.cols == 0) return;
        k::fill<<<grid(std::size_t(x.rows) * x.cols), k::kThreads, 0, stream_>>>(x, value);
        GSR_CUDA_LAUNCH();
    }

    /// Row-major c = alpha op(a) op(b) + beta c through column-major cuBLAS: c^T = op(b)^T
    /// op(a)^T, so the operands swap and each keeps its own transpose flag.
    void gemm_ref(Transpose ta, Transpose tb, T alpha, k::MatRef<T> a, k::MatRef<T> b, T beta,
                  k::MatRef<T> c, std::size_t inner)
    {
        if (c.rows == 0 || c.cols == 0) return;
        if (inner == 0) {
            if (beta == T(0))
                fill_ref(c, T(0));
            else if (beta != T(1))
                axpby_ref(T(0), c, beta, c);
            return;
        }
        const cublasOperation_t op_b = tb == Transpose::No ? CUBLAS_OP_N : CUBLAS_OP_T;
        const cublasOperation_t op_a = ta == Transpose::No ? CUBLAS_OP_N : CUBLAS_OP_T;
        const int m = int(c.cols), n = int(c.rows), kk = int(inner);
        const std::size_t out = std::size_t(c.rows) * c.cols;
        if (ta == Transpose::Yes && tb == Transpose::No && inner >= kSlabGemmMinInner &&
            out * sizeof(T) * 2 <= kWorkspaceBytes / 16) {
            // A^T B over many rows into a small output: one GEMM leaves most SMs idle. Slabs
            // of rows run as one strided batch into partials, added in a fixed order.
            const std::size_t slabs = std::min<std::size_t>(
                {std::size_t(sms_) * kGemmSlabsPerSm, inner / 256,
                 kWorkspaceBytes / (out * sizeof(T))});
            const std::size_t rows = inner / slabs; // the last slab takes the remainder
            T* partial = reinterpret_cast<T*>(workspace_);
            const T one = T(1), zero = T(0);
            const long long sa = (long long)(rows * a.ld), sb = (long long)(rows * b.ld);
            if constexpr (std::is_same_v<T, float>)
                GSR_CUDA(blas_lib_->sgemm_strided_batched(
                    blas_, op_b, op_a, m, n, int(rows), &one, b.p, int(b.ld), sb, a.p,
                    int(a.ld), sa, &zero, partial, m, (long long)out, int(slabs - 1)));
            else
                GSR_CUDA(blas_lib_->dgemm_strided_batched(
                    blas_, op_b, op_a, m, n, int(rows), &one, b.p, int(b.ld), sb, a.p,
                    int(a.ld), sa, &zero, partial, m, (long long)out, int(slabs - 1)));
            const std::size_t first = (slabs - 1) * rows;
            const k::MatRef<T> last{partial + (slabs - 1) * out, c.rows, c.cols, c.cols};
            const k::MatRef<T> a_last{a.p + first * a.ld, std::uint32_t(inner - first), a.cols,
                                      a.ld};
            const k::MatRef<T> b_last{b.p + first * b.ld, std::uint32_t(inner - first), b.cols,
                                      b.ld};
            gemm_plain(op_b, op_a, one, a_last, b_last, zero, last, int(inner - first));
            combine(partial, std::uint32_t(slabs), out, alpha, beta, c);
            return;
        }
        gemm_plain(op_b, op_a, alpha, a, b, beta, c, kk);
    }
    void gemm_plain(cublasOperation_t op_b, cublasOperation_t op_a, T alpha, k::MatRef<T> a,
                    k::MatRef<T> b, T beta, k::MatRef<T> c, int kk)
    {
        const int m = int(c.cols), n = int(c.rows);
        if constexpr (std::is_same_v<T, float>)
            GSR_CUDA(blas_lib_->sgemm(blas_, op_b, op_a, m, n, kk, &alpha, b.p, int(b.ld), a.p,
                                 int(a.ld), &beta, c.p, int(c.ld)));
        else
            GSR_CUDA(blas_lib_->dgemm(blas_, op_b, op_a, m, n, kk, &alpha, b.p, int(b.ld), a.p,
                                 int(a.ld), &beta, c.p, int(c.ld)));
    }
    void axpby_ref(T alpha, k::MatRef<T> x, T beta, k::MatRef<T> y)
    {
        k::axpby<<<grid(std::size_t(x.rows) * x.cols), k::kThreads, 0, stream_>>>(alpha, x, beta,
                                                                                  y);
        GSR_CUDA_LAUNCH();
    }

    void spmm_ref(k::CsrRef<T> s, T alpha, k::MatRef<T> x, T beta, k::MatRef<T> y)
    {
        if (s.rows == 0 || x.cols == 0) return;
        if (spmm_tuned(s, alpha, x, beta, y)) return;
        const auto aligned = [&](int v) {
            const std::size_t bytes = std::size_t(v) * sizeof(T);
            return x.cols % v == 0 && x.ld % v == 0 && y.ld % v == 0 &&
                   reinterpret_cast<std::uintptr_t>(x.p) % bytes == 0;
        };
        const int vec = sizeof(T) == 4 && aligned(4) ? 4 : aligned(2) ? 2 : 1;
        const int tpr = threads_per_row(x.cols, vec);
        const unsigned blocks = grid(s.rows, k::kThreads / tpr);
        if (vec == 4)
            k::spmm<T, 4><<<blocks, k::kThreads, 0, stream_>>>(s, alpha, x, beta, y, tpr);
        else if (vec == 2)
            k::spmm<T, 2><<<blocks, k::kThreads, 0, stream_>>>(s, alpha, x, beta, y, tpr);
        else
            k::spmm<T, 1><<<blocks, k::kThreads, 0, stream_>>>(s, alpha, x, beta, y, tpr);
        GSR_CUDA_LAUNCH();
    }

    /// Runs the applied SpMM kernel of x's width when there is one and the operands suit it
    /// (vector-aligned rows); false leaves the work to the backend's own kernel.
    bool spmm_tuned(k::CsrRef<T> s, T alpha, k::MatRef<T> x, T beta, k::MatRef<T> y)
    {
        if constexpr (!std::is_same_v<T, float>) {
            return false;
        } else {
            const auto it = std::find_if(tuned_spmm_.begin(), tuned_spmm_.end(),
                                         [&](const Tuned& t) { return t.spec.width == x.cols; });
            if (it == tuned_spmm_.end() || s.rows > std::uint32_t(INT_MAX)) return false;
            const std::uint32_t vec = it->spec.vec;
            const auto aligned = [&](const float* p, std::uint32_t ld) {
                return ld % vec == 0 &&
                       reinterpret_cast<std::uintptr_t>(p) % (std::size_t(vec) * 4) == 0;
            };
            if (!aligned(x.p, x.ld) || !aligned(y.p, y.ld)) return false;
            const unsigned long long* offsets =
                reinterpret_cast<const unsigned long long*>(s.offsets);
            const unsigned* targets = s.targets;
            const float *rs = s.rs, *cs = s.cs, *xp = x.p;
            float* yp = y.p;
            int self_loop = s.self_loop ? 1 : 0, rows = int(s.rows), width = int(x.cols);
            long long ldx = x.ld, ldy = y.ld;
            float a = alpha, b = beta;
            void* args[] = {&offsets, &targets, &rs, &cs, &self_loop, &xp, &ldx,
                            &yp,      &ldy,     &a,  &b,  &rows,      &width};
            const unsigned blocks =
                unsigned(ceil_div(s.rows, std::size_t(it->spec.rows_per_block)));
            GSR_CUDA(cudaLaunchKernel(reinterpret_cast<const void*>(it->kernel->kernel),
                                      dim3(blocks), dim3(it->spec.block), args, 0, stream_));
            ++tuned_launches_;
            return true;
        }
    }

    /// Slabs of a reduction over `rows` rows whose partials take `per_slab` bytes each.
    static std::uint32_t slab_count(std::size_t rows, std::size_t per_slab)
    {
        return std::uint32_t(std::clamp<std::size_t>(
            std::min(ceil_div(rows, 256), kWorkspaceBytes / std::max<std::size_t>(per_slab, 1)),
            1, 1024));
    }

    void combine(const T* partial, std::uint32_t slabs, std::size_t stride, T alpha, T beta,
                 k::MatRef<T> out)
    {
        combine(partial, slabs, stride, alpha, beta, {{0, out}});
    }
    /// The slabs' parts at each offset combined into their outputs, in one launch.
    void combine(const T* partial, std::uint32_t slabs, std::size_t stride, T alpha, T beta,
                 std::initializer_list<std::pair<std::size_t, k::MatRef<T>>> outputs)
    {
        k::CombineOutputs<T> o;
        GSR_GPU_REQUIRE(outputs.size() <= std::size_t(o.kMax), "too many outputs to combine");
        for (const auto& [offset, out] : outputs) {
            const std::size_t n = std::size_t(out.rows) * out.cols;
            if (n == 0) continue;
            o.offset[o.count] = offset;
            o.out[o.count] = out;
            o.first_block[o.count + 1] = o.first_block[o.count] + unsigned(ceil_div(n, 32));
            ++o.count;
        }
        if (o.count == 0) return;
        k::combine_slabs<<<o.first_block[o.count], dim3(32, k::kCombineRows), 0, stream_>>>(
            partial, slabs, stride, alpha, beta, o);
        GSR_CUDA_LAUNCH();
    }

    void column_sums_ref(k::MatRef<T> x, T alpha, T beta, k::MatRef<T> out)
    {
        if (x.cols == 0) return;
        if (x.rows == 0) {
            axpby_ref(T(0), out, beta, out);
            return;
        }
        const std::uint32_t slabs = slab_count(x.rows, std::size_t(x.cols) * sizeof(T));
        T* partial = reinterpret_cast<T*>(workspace_);
        const dim3 g(unsigned(ceil_div(x.cols, 32)), slabs);
        k::column_sum_slabs<<<g, dim3(32, k::kColumnSumRows), 0, stream_>>>(
            x, ceil_div(x.rows, slabs), partial);
        GSR_CUDA_LAUNCH();
        combine(partial, slabs, x.cols, alpha, beta, out);
    }

    template <class I>
    void norm_backward(DeviceMatrix x, DeviceMatrix gamma, DeviceMatrix stats, k::MatRef<T> dy,
                       const I* idx, const DropoutMask& mask, double dx_beta, DeviceMatrix dx,
                       DeviceMatrix dgamma, DeviceMatrix dbeta, k::MatRef<T> gate = {},
                       T gate_scale = T(1))
    {
        if (x.rows == 0) return;
        const std::uint32_t d = x.cols;
        T* partial = reinterpret_cast<T*>(workspace_);
        std::uint32_t slabs = 0;
        if constexpr (std::is_same_v<T, float>) {
            // Dense dy, or dy at the kept columns (unless GSR_GPU_TOPK=warp asks for the
            // one-warp-per-row baseline below).
            k::KeptGradient<I> kept;
            if (idx) {
                const std::uint8_t* keep = keep_of(mask);
                kept = {dy, idx, keep, mask.stride, mask.column, keep ? float(mask.scale) : 1.f};
            }
            if (!idx || !warp_topk_)
                slabs = norm_backward_rows4(x, gamma, stats, idx ? k::MatRef<float>{} : dy,
                                            T(dx_beta), dx, gate, gate_scale, {}, kept);
        }
        if (slabs == 0) {
            slabs = slab_count(x.rows, 2 * std::size_t(d) * sizeof(T));
            // Above 48 KB for float64 rows wider than 768 (limits() takes 1024).
            const std::size_t shared = std::size_t(k::kRowWarps) * 2 * d * sizeof(T);
            allow_shared(k::norm_backward_slabs<T, I>, shared);
            k::norm_backward_slabs<T, I><<<slabs, 32 * k::kRowWarps, shared, stream_>>>(
                mat(x), ptr(gamma), mat(stats), dy, idx, keep_of(mask), mask.stride,
                mask.column, T(mask.scale), T(dx_beta), mat(dx), ceil_div(x.rows, slabs),
                partial, gate, gate_scale);
            GSR_CUDA_LAUNCH();
        }
        combine_norm_partials(slabs, dgamma, dbeta);
    }
    /// dgamma and dbeta += the slabs' partials in the workspace, [dgamma | dbeta] per slab.
    void combine_norm_partials(std::uint32_t slabs, DeviceMatrix dgamma, DeviceMatrix dbeta)
    {
        const T* partial = reinterpret_cast<const T*>(workspace_);
        const std::size_t d = dgamma.cols;
        combine(partial, slabs, 2 * d, T(1), T(1), {{0, mat(dgamma)}, {d, mat(dbeta)}});
    }

    /// Lanes for the four-column row kernels: d / 4 when that is a power of two up to 32 and
    /// the rows are 16-byte aligned (all given with their ld); 0 otherwise.
    static std::uint32_t rows4_lanes(std::uint32_t d,
                                     std::initializer_list<k::MatRef<float>> rows)
    {
        const std::uint32_t lanes = d / 4;
        if (d % 4 != 0 || lanes == 0 || lanes > 32 || (lanes & (lanes - 1)) != 0) return 0;
        for (const k::MatRef<float>& m : rows)
            if (m.p && !rows_aligned16(m)) return 0;
        return lanes;
    }
    /// Every row of m starts on a 16-byte boundary (float4 loads and stores).
    static bool rows_aligned16(const k::MatRef<float>& m)
    {
        return m.ld % 4 == 0 && reinterpret_cast<std::uintptr_t>(m.p) % 16 == 0;
    }
    template <int... L, class Launch> static void with_lanes(std::uint32_t lanes, Launch&& f)
    {
        ((lanes == std::uint32_t(L) ? f(std::integral_constant<int, L>{}) : void()), ...);
    }

    /// layernorm_forward / layernorm_relu_forward through layernorm_forward_rows4; false when
    /// it does not apply.
    template <bool Relu>
    bool layernorm_rows4(DeviceMatrix x, DeviceMatrix gamma, DeviceMatrix beta,
                         const DropoutMask& mask, DeviceMatrix y, DeviceMatrix stats)
    {
        const k::MatRef<float> xm = mat(x), ym = mat(y);
        const std::uint32_t lanes = rows4_lanes(
            x.cols, {xm, ym, {ptr(gamma), 1, x.cols, 0}, {ptr(beta), 1, x.cols, 0}});
        if (lanes == 0) return false;
        const unsigned blocks = k::blocks_for(x.rows, k::kNormWarps * (32 / int(lanes)),
                                              unsigned(sms_) * 8);
        with_lanes<1, 2, 4, 8, 16, 32>(lanes, [&](auto l) {
            k::layernorm_forward_rows4<decltype(l)::value, Relu>
                <<<blocks, 32 * k::kNormWarps, 0, stream_>>>(
                    xm, ptr(gamma), ptr(beta), keep_of(mask), mask.stride, mask.column,
                    float(mask.scale), ym, mat(stats));
        });
        GSR_CUDA_LAUNCH();
        return true;
    }

    /// The threads a row of normalize_topk_pack_lanes: d / 16 for float rows of d = 16 x a
    /// power of two up to 128, rows, gamma and beta 16-byte aligned; 0 where it does not apply
    /// (and under GSR_GPU_TOPK, the baselines).
    std::uint32_t topk_lanes(DeviceMatrix x, DeviceMatrix gamma, DeviceMatrix beta) const
    {
        if constexpr (!std::is_same_v<T, float>) {
            return 0;
        } else {
            const std::uint32_t lanes = x.cols / 16;
            const bool width =
                x.cols % 16 == 0 && lanes > 0 && lanes <= 8 && (lanes & (lanes - 1)) == 0;
            if (rank_topk_ || warp_topk_ || !width ||
                rows4_lanes(x.cols, {mat(x), {ptr(gamma), 1, x.cols, 0},
                                     {ptr(beta), 1, x.cols, 0}}) == 0)
                return 0;
            return lanes;
        }
    }

    /// normalize_topk_pack through normalize_topk_pack_lanes: float rows of 16, 32, 64 or 128
    /// columns, 16-byte aligned (not under GSR_GPU_TOPK=rank or warp, its baselines); false
    /// when it does not apply.
    template <class I>
    bool topk_pack_lanes(DeviceMatrix x, DeviceMatrix gamma, DeviceMatrix beta,
                         const DropoutMask& mask, DeviceMatrix stats, const CompressedRows& out,
                         I* idx)
    {
        if constexpr (std::is_same_v<T, float>) {
            const std::uint32_t lanes = topk_lanes(x, gamma, beta);
            if (lanes == 0) return false;
            const k::MatRef<float> xm = mat(x);
            const unsigned blocks = k::blocks_for(x.rows, k::kNormWarps * (32 / int(lanes)),
                                                  unsigned(sms_) * 8);
            const float quantile =
                float(normal_quantile(1.0 - double(out.values.cols) / double(x.cols)));
            with_lanes<1, 2, 4, 8>(lanes, [&](auto l) {
                k::normalize_topk_pack_lanes<decltype(l)::value, I>
                    <<<blocks, 32 * k::kNormWarps, 0, stream_>>>(
                        xm, ptr(gamma), ptr(beta), keep_of(mask), mask.stride, mask.column,
                        float(mask.scale), quantile, mat(stats), mat(out.values), idx);
            });
            GSR_CUDA_LAUNCH();
            return true;
        }
        return false;
    }

    /// normalize_topk_conv_transient with the product Z W in the select's kernel
    /// (normalize_topk_pack_lanes with Product), then aggregate_products: for one term and a
    /// square W of d = 16, 32 or 64 where the select's lanes kernel and conv_products would
    /// run. y, the kept entries and the statistics get the bits of the two calls. False
    /// otherwise (and under GSR_GPU_FUSE=off, its baseline), with nothing launched.
    bool topk_product(DeviceMatrix x, DeviceMatrix gamma, DeviceMatrix beta,
                      const DropoutMask& mask, DeviceMatrix stats, const CompressedRows& kept,
                      const nn::SageConvWeights& w, const nn::ResidualAdd& add, DeviceMatrix y,
                      DeviceMatrix scratch)
    {
        if constexpr (!std::is_same_v<T, float>) {
            return false;
        } else {
            check_norm(x, gamma, beta, stats);
            check_compressed(kept, x.rows, x.cols);
            check_conv(w, kept.rows(), kept.width, add, y, scratch);
            const std::uint32_t d = x.cols, lanes = topk_lanes(x, gamma, beta);
            if (unfused_ || lanes == 0 || lanes > 4 || w.terms != 1 || y.cols != d ||
                !products_apply(w, kept, add, y, scratch))
                return false;
            const std::size_t shared = k::topk_product_shared_bytes(d, kept.k(), int(lanes));
            if (shared > shared_optin_) return false;
            const float quantile =
                float(normal_quantile(1.0 - double(kept.values.cols) / double(d)));
            with_index_type(kept, [&](auto* idx) {
                using I = std::remove_pointer_t<decltype(idx)>;
                // The select walks its rows from the last down, aggregate_products takes its
                // strips from row 0 up: it first reads the rows of u and the kept entries that
                // were written last, while L2 still holds them.
                with_lanes<1, 2, 4>(lanes, [&](auto l) {
                    const auto kernel =
                        k::normalize_topk_pack_lanes<decltype(l)::value, I, true, true>;
                    allow_shared(kernel, shared);
                    kernel<<<wave_blocks(kernel, 32 * k::kNormWarps, shared, x.rows,
                                         std::size_t(k::kNormWarps) * (32 / lanes)),
                             32 * k::kNormWarps, shared, stream_>>>(
                        mat(x), ptr(gamma), ptr(beta), keep_of(mask), mask.stride, mask.column,
                        float(mask.scale), quantile, mat(stats), mat(kept.values), idx,
                        mat(w.neighbour[0]), mat(scratch));
                });
                GSR_CUDA_LAUNCH();
                aggregate_products(w, kept, idx, add, y, scratch);
            });
            return true;
        }
    }

    /// The float layernorm backward through norm_backward_rows4 when d = 4 Lanes (Lanes a
    /// power of two up to 32) and every row is 16-byte aligned; dy dense, or given at kept
    /// columns (`kept`, the top-k backward; dy empty then). Returns the slab count of the
    /// partials it wrote, or 0 when it does not apply.
    template <class I = std::uint8_t>
    std::uint32_t norm_backward_rows4(DeviceMatrix x, DeviceMatrix gamma, DeviceMatrix stats,
                                      k::MatRef<float> dy, float dx_beta, DeviceMatrix dx,
                                      k::MatRef<float> gate, float gate_scale,
                                      k::ReluGateFromInput relu, k::KeptGradient<I> kept = {})
    {
        const std::uint32_t d = x.cols;
        const k::MatRef<float> xm = mat(x), dxm = mat(dx);
        const k::MatRef<float> gamma_row{ptr(gamma), 1, d, 0};
        const k::MatRef<float> beta_row{const_cast<float*>(relu.beta), 1, d, 0};
        const std::uint32_t lanes = rows4_lanes(d, {xm, dy, dxm, gate, gamma_row, beta_row});
        if (lanes == 0) return 0;
        // Enough blocks to fill the GPU in one wave (a block: kNormWarps warps), at least 32
        // rows each; the partials must fit the workspace.
        const std::size_t per_slab = 2 * std::size_t(d) * sizeof(float);
        const std::uint32_t slabs = std::uint32_t(std::clamp<std::size_t>(
            std::min({ceil_div(x.rows, 32), std::size_t(sms_) * 4, kWorkspaceBytes / per_slab}),
            1, 4096));
        const std::size_t rows = ceil_div(x.rows, slabs);
        with_lanes<1, 2, 4, 8, 16, 32>(lanes, [&](auto l) {
            k::norm_backward_rows4<decltype(l)::value, I>
                <<<slabs, 32 * k::kNormWarps, 0, stream_>>>(xm, ptr(gamma), mat(stats), dy,
                                                            dx_beta, dxm, rows, partial_f(),
                                                            gate, gate_scale, relu, kept);
        });
        GSR_CUDA_LAUNCH();
        return slabs;
    }
    float* partial_f() const { return reinterpret_cast<float*>(workspace_); }

    /// f = sum_t A_t W_t (+ z W_root) by cuBLAS into workspace chunks of rows, then the epilogue
    /// adds the compressed root term and the bias, rounds to the grid and adds the residual.
    void conv_chunks(const nn::SageConvWeights& w, std::uint32_t d_in, const nn::ResidualAdd& add,
                     DeviceMatrix y, DeviceMatrix aggregated, const DeviceMatrix* dense_z,
                     const CompressedRows* z)
    {
        const std::uint32_t rows = y.rows, d_out = y.cols;
        if (rows == 0 || d_out == 0) return;
        if constexpr (std::is_same_v<T, float>)
            if (conv_fused(w, d_in, add, y, aggregated, dense_z, z)) return;
        const std::size_t chunk =
            std::max<std::size_t>(1, kWorkspaceBytes / (std::size_t(d_out) * sizeof(T)));
        const T quantum = T(add.quantum), inverse = add.quantum > 0 ? T(1 / add.quantum) : T(0);
        // [S_0 z | .. | z] [W_0; ..; W_root] as one GEMM when the operands are laid out so.
        const DeviceMatrix joined =
            dense_z ? nn::joined_conv_input(aggregated, *dense_z) : DeviceMatrix{};
        const DeviceMatrix stacked = nn::stacked_conv_weights(w);
        const bool one_gemm = !joined.empty() && !stacked.empty() && joined.cols == stacked.rows;
        for (std::size_t r0 = 0; r0 < rows; r0 += chunk) {
            const std::uint32_t n = std::uint32_t(std::min<std::size_t>(chunk, rows - r0));
            const k::MatRef<T> f{reinterpret_cast<T*>(workspace_), n, d_out, d_out};
            T beta = T(0);
            if (one_gemm) {
                gemm_ref(Transpose::No, Transpose::No, T(1),
                         mat(joined.row_block(std::uint32_t(r0), n)), mat(stacked), beta, f,
                         joined.cols);
                beta = T(1);
            }
            for (std::uint32_t t = 0; t < w.terms && !one_gemm; ++t) {
                gemm_ref(Transpose::No, Transpose::No, T(1),
                         mat(aggregated.row_block(std::uint32_t(r0), n).columns(t * d_in, d_in)),
                         mat(w.neighbour[t]), beta, f, d_in);
                beta = T(1);
            }
            if (dense_z && !w.root.empty() && !one_gemm) {
                gemm_ref(Transpose::No, Transpose::No, T(1),
                         mat(dense_z->row_block(std::uint32_t(r0), n)), mat(w.root), beta, f,
                         d_in);
                beta = T(1);
            }
            if (beta == T(0)) fill_ref(f, T(0));
            const k::MatRef<T> residual =
                add.residual.empty() ? k::MatRef<T>{} : mat(add.residual);
            const auto launch = [&](auto* idx) {
                using I = std::remove_pointer_t<decltype(idx)>;
                const bool root = z && !w.root.empty();
                k::conv_epilogue<T, I><<<grid(std::size_t(n) * d_out), k::kThreads, 0,
                                         stream_>>>(
                    f, r0, ptr(w.bias), root ? mat(z->values) : k::MatRef<T>{}, idx,
                    root ? mat(w.root) : k::MatRef<T>{}, residual, T(add.sign), quantum, inverse,
                    mat(y));
                GSR_CUDA_LAUNCH();
            };
            if (z)
                with_index_type(*z, launch);
            else
                launch(static_cast<std::uint8_t*>(nullptr));
        }
    }

    /// The convolution as one gemm_rows launch: [S z | z] [W; W_root], or S z W with the
    /// compressed root term in its epilogue. False when the layout or the shapes do not suit.
    bool conv_fused(const nn::SageConvWeights& w, std::uint32_t d_in,
                    const nn::ResidualAdd& add, DeviceMatrix y, DeviceMatrix aggregated,
                    const DeviceMatrix* dense_z, const CompressedRows* z)
    {
        DeviceMatrix a, b;
        if (dense_z && !w.root.empty()) {
            a = nn::joined_conv_input(aggregated, *dense_z);
            b = nn::stacked_conv_weights(w);
        } else if (w.terms > 0) {
            a = aggregated;
            b = w.terms == 1 ? w.neighbour[0] : nn::stacked_conv_weights(w);
            if (!b.empty()) b.rows = w.terms * d_in; // the neighbour rows of [W_0; ..; W_root]
        }
        if (a.empty() || b.empty() || a.cols != b.rows || b.cols != y.cols) return false;
        const bool root = z && !w.root.empty();
        const auto run = [&](auto* idx) {
            return gemm_rows(mat(a), mat(b), mat(y), conv_epilogue(w, add, z, idx));
        };
        if (root) {
            bool done = false;
            with_index_type(*z, [&](auto* idx) { done = run(idx); });
            return done;
        }
        return run(static_cast<std::uint8_t*>(nullptr));
    }

    /// The convolution epilogue's operands: the bias, the residual add and its grid, and the
    /// compressed root term when z is given and the weights have one.
    template <class I>
    k::GemmEpilogue<I> conv_epilogue(const nn::SageConvWeights& w, const nn::ResidualAdd& add,
                                     const CompressedRows* z, const I* idx) const
    {
        k::GemmEpilogue<I> ep;
        ep.bias = w.bias.empty() ? nullptr : ptr(w.bias);
        if (z && !w.root.empty()) {
            ep.values = mat(z->values);
            ep.idx = idx;
            ep.wroot = mat(w.root);
            ep.vector_root = !scalar_root_ && kept_in_fours(ep.values, idx);
        }
        if (!add.residual.empty()) ep.residual = mat(add.residual);
        ep.sign = float(add.sign);
        ep.quantum = float(add.quantum);
        ep.inverse = add.quantum > 0 ? float(1 / add.quantum) : 0.0f;
        return ep;
    }

    /// Lets `kernel` take `bytes` of dynamic shared memory (above the default 48 KB): the
    /// runtime is asked once per kernel, and again only for a larger size than before.
    template <class Kernel> void allow_shared(Kernel kernel, std::size_t bytes)
    {
        if (bytes <= kDefaultShared) return;
        // Callers check shared_optin_ and take another kernel when it is short.
        if (bytes > shared_optin_)
            throw std::logic_error("cuda backend: a kernel asked for " + std::to_string(bytes) +
                                   " bytes of shared memory, the GPU allows " +
                                   std::to_string(shared_optin_));
        const void* key = reinterpret_cast<const void*>(kernel);
        auto it = std::find_if(shared_allowed_.begin(), shared_allowed_.end(),
                               [&](const SharedAllowed& a) { return a.kernel == key; });
        if (it != shared_allowed_.end() && it->bytes >= bytes) return;
        GSR_CUDA(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                      int(bytes)));
        if (it == shared_allowed_.end())
            shared_allowed_.push_back({key, bytes});
        else
            it->bytes = bytes;
    }
    /// Blocks of `kernel` the whole GPU holds at once (at least one per SM), asked of the
    /// runtime once per kernel and launch shape.
    template <class Kernel>
    std::size_t resident_blocks(Kernel kernel, int threads, std::size_t shared) const
    {
        const void* key = reinterpret_cast<const void*>(kernel);
        auto it = std::find_if(occupancy_.begin(), occupancy_.end(), [&](const Occupancy& o) {
            return o.kernel == key && o.threads == threads && o.shared == shared;
        });
        if (it == occupancy_.end()) {
            int per_sm = 0;
            GSR_CUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, threads,
                                                                   shared));
            it = occupancy_.insert(occupancy_.end(), {key, threads, shared, std::max(per_sm, 1)});
        }
        return std::size_t(sms_) * std::size_t(it->per_sm);
    }
    /// A grid of one wave: blocks of `kernel` for `items` at `per_block` a block, at most as
    /// many as the GPU holds at once (each then walks its share).
    template <class Kernel>
    unsigned wave_blocks(Kernel kernel, int threads, std::size_t shared, std::size_t items,
                         std::size_t per_block) const
    {
        return unsigned(std::min(ceil_div(items, per_block),
                                 resident_blocks(kernel, threads, shared)));
    }
    /// A compressed row's kept entries can be read four at a time in one 16-byte load of
    /// values and one of indices: k a multiple of 4 and every row aligned for it.
    template <class I> static bool kept_in_fours(const k::MatRef<float>& values, const I* idx)
    {
        const auto address = [](const void* p) { return std::uintptr_t(p); };
        return values.cols % 4 == 0 && values.ld % 4 == 0 && address(values.p) % 16 == 0 &&
               address(idx) % (4 * sizeof(I)) == 0;
    }
    /// Whether the compressed forward can take S (Z W) through compressed_product and
    /// aggregate_products: float rows, one or two terms, d_out = 16, 32 or 64 (terms x d_out
    /// <= 128), the weights within 48 KB of shared memory, every row 16-byte aligned; not under
    /// GSR_GPU_CONV=aggregate-first (its baseline).
    bool products_apply(const nn::SageConvWeights& w, const CompressedRows& z,
                        const nn::ResidualAdd& add, DeviceMatrix y, DeviceMatrix scratch) const
    {
        if constexpr (!std::is_same_v<T, float>) {
            return false;
        } else {
            const std::uint32_t d_in = z.width, d_out = y.cols, terms = w.terms;
            const std::uint32_t cols = terms * d_out, lanes = d_out / 4;
            if (aggregate_first_ || terms == 0 || terms > 2 || z.rows() == 0 ||
                scratch.cols != cols || d_out % 4 != 0 || (lanes & (lanes - 1)) != 0 ||
                lanes < 4 || lanes > 16 ||
                k::compressed_product_shared_bytes(d_in, cols) > kDefaultShared)
                return false;
            if (!rows_aligned16(mat(scratch)) || !rows_aligned16(mat(y)) ||
                (!add.residual.empty() && !rows_aligned16(mat(add.residual))))
                return false;
            for (std::uint32_t t = 0; t < terms; ++t)
                if (w.neighbour[t].cols != d_out || w.neighbour[t].rows != d_in) return false;
            return true;
        }
    }
    /// y = residual + sign * grid(sum_t S_t (Z W_t) + Z W_root + bias) through
    /// compressed_product (u = Z [W_0 | W_1] into `scratch`) and aggregate_products where
    /// products_apply; false otherwise, with nothing launched.
    bool conv_products(const nn::SageConvWeights& w, const CompressedRows& z,
                       const nn::ResidualAdd& add, DeviceMatrix y, DeviceMatrix scratch)
    {
        if constexpr (!std::is_same_v<T, float>) {
            return false;
        } else {
            if (!products_apply(w, z, add, y, scratch)) return false;
            const std::uint32_t cols = w.terms * y.cols;
            with_index_type(z, [&](auto* idx) {
                using I = std::remove_pointer_t<decltype(idx)>;
                const k::MatRef<float> values = mat(z.values), u = mat(scratch);
                const bool vector = kept_in_fours(values, idx);
                const k::MatRef<float> w1 =
                    w.terms > 1 ? mat(w.neighbour[1]) : k::MatRef<float>{};
                const std::size_t shared = k::compressed_product_shared_bytes(z.width, cols);
                with_lanes<4, 8, 16, 32>(cols / 4, [&](auto l) {
                    const auto kernel = k::compressed_product<decltype(l)::value, I>;
                    kernel<<<wave_blocks(kernel, k::kThreads, shared, z.rows(),
                                         k::kThreads / (cols / 4)),
                             k::kThreads, shared, stream_>>>(values, idx, vector,
                                                             mat(w.neighbour[0]), w1, u);
                });
                GSR_CUDA_LAUNCH();
                aggregate_products(w, z, idx, add, y, scratch);
            });
            return true;
        }
    }
    /// The aggregation of conv_products: y from u = Z [W_0 | W_1] in `scratch` and, for the
    /// root term, the kept entries z.
    template <class I>
    void aggregate_products(const nn::SageConvWeights& w, const CompressedRows& z, const I* idx,
                            const nn::ResidualAdd& add, DeviceMatrix y, DeviceMatrix scratch)
    {
        const std::uint32_t lanes = y.cols / 4;
        // The residual and y pass through once: evict-first hints leave L2 to the gathered
        // rows of u.
        k::GemmEpilogue<I> ep = conv_epilogue(w, add, &z, idx);
        ep.streaming = true;
        const std::size_t shared =
            w.root.empty() ? 0 : std::size_t(z.width) * y.cols * sizeof(float);
        const k::CsrRef<float> s0 = csr(*w.graph[0], Transpose::No);
        const k::CsrRef<float> s1 = w.terms > 1 ? csr(*w.graph[1], Transpose::No) : s0;
        with_lanes<4, 8, 16>(lanes, [&](auto l) {
            const auto kernel = w.terms > 1 ? k::aggregate_products<decltype(l)::value, 2, I>
                                            : k::aggregate_products<decltype(l)::value, 1, I>;
            // A grid of one wave: every block resident, its warps taking rows from a counter.
            kernel<<<wave_blocks(kernel, k::kThreads, shared, z.rows(), k::kThreads / lanes),
                     k::kThreads, shared, stream_>>>(s0, s1, mat(scratch), ep, mat(y),
                                                     counters_);
        });
        GSR_CUDA_LAUNCH();
    }

    /// Whether transposed_conv_backward takes these operands: float rows, one or two terms
    /// and a root term, d_in = d_out = 64 (the shape compressed_weight_gradient tiles), dy's
    /// rows 16-byte aligned; not under GSR_GPU_CONV=kept-gather (its baseline).
    bool transposed_backward_shapes(const nn::SageConvWeights& w, const CompressedRows& z,
                                    DeviceMatrix dy) const
    {
        if constexpr (!std::is_same_v<T, float>) {
            return false;
        } else {
            const std::uint32_t d = z.width, terms = w.terms;
            if (kept_gather_ || terms == 0 || terms > 2 || w.root.empty() || z.rows() == 0 ||
                d != 64 || dy.cols != d || dy.rows != z.rows() || !rows_aligned16(mat(dy)))
                return false;
            for (std::uint32_t t = 0; t <= terms; ++t) {
                const DeviceMatrix wt = t < terms ? w.neighbour[t] : w.root;
                if (wt.rows != d || wt.cols != d) return false;
            }
            return true;
        }
    }
    /// The compressed backward from the transposed aggregates, where
    /// transposed_backward_shapes holds (false otherwise, nothing launched): g_t = S_t^T dy
    /// into `scratch` (its S_t z are not read), then compressed_weight_gradient_mma (dW_t +=
    /// Z^T g_t, dW_root += Z^T dy, the bias's column sums of dy, Z left compressed, partials
    /// per block in the workspace) and compressed_input_gradient_mma for the kept entries; on
    /// compute capability 9.0 with one term, their _wgmma kernels (Hopper's warpgroup MMA,
    /// where the shapes suit them); under fma_only_, the kernels without _mma. The gather moves
    /// whole rows of dy where S_t^T (dy W_t^T) at the kept columns moved k of d, but no S z is
    /// needed, so the recomputation before it takes the cheaper transient forward.
    bool transposed_conv_backward(const nn::SageConvWeights& w, const nn::SageConvWeights& grads,
                                  const CompressedRows& z, DeviceMatrix scratch, DeviceMatrix dy,
                                  DeviceMatrix d_values)
    {
        if constexpr (!std::is_same_v<T, float>) {
            return false;
        } else {
            if (!transposed_backward_shapes(w, z, dy)) return false;
            const std::uint32_t d = z.width, n = z.rows(), terms = w.terms;
            nn::ArenaScope scope(arena_);
            const DeviceMatrix g = scratch.cols == terms * d && rows_aligned16(mat(scratch))
                                       ? scratch
                                       : alloc_matrix(n, terms * d);
            for (std::uint32_t t = 0; t < terms; ++t)
                spmm(*w.graph[t], Transpose::Yes, 1.0, dy, 0.0, g.columns(t * d, d));
            with_index_type(z, [&](auto* idx) {
                using I = std::remove_pointer_t<decltype(idx)>;
                // The weight gradients: a wave of resident blocks, each a slab of rows, their
                // partials in the workspace, added in block order. The warpgroup kernel holds
                // a row's kept entries in registers, up to kWgmmaKept of them.
                const bool wgmma = wgmma_ && terms == 1;
                const bool wgmma_weights =
                    wgmma && z.values.cols <= k::kWgmmaKept &&
                    k::compressed_weight_gradient_wgmma_shared_bytes() <= shared_optin_;
                const std::size_t mma_weights_shared =
                    terms > 1 ? k::compressed_weight_gradient_mma_shared_bytes<3>()
                              : k::compressed_weight_gradient_mma_shared_bytes<2>();
                const bool fma_weights =
                    fma_only_ || (!wgmma_weights && mma_weights_shared > shared_optin_);
                const auto weights =
                    wgmma_weights ? k::compressed_weight_gradient_wgmma<I>
                    : fma_weights ? (terms > 1 ? k::compressed_weight_gradient<3, I>
                                               : k::compressed_weight_gradient<2, I>)
                                  : (terms > 1 ? k::compressed_weight_gradient_mma<3, I>
                                               : k::compressed_weight_gradient_mma<2, I>);
                const std::size_t weights_shared =
                    wgmma_weights ? k::compressed_weight_gradient_wgmma_shared_bytes()
                    : fma_weights ? 0
                                  : mma_weights_shared;
                const int weights_threads = wgmma_weights ? k::kWgmmaThreads : k::kWeightThreads;
                allow_shared(weights, weights_shared);
                const std::size_t stride = (std::size_t(d) + 1) * (terms + 1) * d;
                const std::size_t most =
                    std::min({ceil_div(n, wgmma_weights ? k::kWgmmaRows : k::kWeightRows),
                              kWorkspaceBytes / (stride * sizeof(float)),
                              resident_blocks(weights, weights_threads, weights_shared)});
                const std::size_t per_block = ceil_div(n, most);
                const unsigned blocks = unsigned(ceil_div(n, per_block));
                float* partial = partial_f();
                weights<<<blocks, weights_threads, weights_shared, stream_>>>(
                    mat(g), mat(dy), mat(z.values), idx, per_block, partial);
                GSR_CUDA_LAUNCH();
                // The slabs' parts, d x d a term then the root's, then the bias's column sums,
                // added in one launch (empty outputs are left out).
                const std::size_t dd = std::size_t(d) * d;
                const auto part = [&](std::uint32_t t) {
                    return t < terms    ? mat(grads.neighbour[t])
                           : t == terms ? mat(grads.root)
                                        : k::MatRef<float>{};
                };
                combine(partial, blocks, stride, 1.0f, 1.0f,
                        {{0, part(0)},
                         {dd, part(1)},
                         {2 * dd, part(2)},
                         {(terms + 1) * dd + terms * d,
                          grads.bias.empty() ? k::MatRef<float>{} : mat(grads.bias)}});
                // The gradient at the kept entries: 64 rows a warpgroup on the warpgroup MMA,
                // 16 rows a warp on mma.sync, or (the baseline) a row per 16 threads; the
                // weights in shared memory.
                const k::MatRef<float> w1 = terms > 1 ? mat(w.neighbour[1]) : k::MatRef<float>{};
                // The warpgroup kernel copies the kept indices 16 bytes at a time.
                const std::size_t wgmma_shared =
                    k::compressed_input_gradient_wgmma_shared_bytes(d_values.cols, sizeof(I));
                const std::size_t mma_shared =
                    k::compressed_input_gradient_mma_shared_bytes(int(terms) + 1);
                const bool use_wgmma = wgmma && wgmma_shared <= shared_optin_ &&
                                       std::uintptr_t(idx) % 16 == 0;
                // The FMA kernel also where the mma.sync one's 100 KB (one term) exceed what
                // the GPU allows a block (99 KB on sm_86, sm_89, sm_120).
                if (fma_only_ || (!use_wgmma && mma_shared > shared_optin_)) {
                    const auto input = k::compressed_input_gradient<16, I>;
                    const std::size_t shared =
                        k::compressed_product_shared_bytes(d, (terms + 1) * d);
                    input<<<wave_blocks(input, k::kThreads, shared, n, k::kThreads / 16),
                            k::kThreads, shared, stream_>>>(mat(g), terms, mat(dy),
                                                            mat(w.neighbour[0]), w1,
                                                            mat(w.root), idx, mat(d_values));
                } else if (use_wgmma) {
                    const auto input = d_values.cols == 16
                                           ? k::compressed_input_gradient_wgmma<I, 16>
                                           : k::compressed_input_gradient_wgmma<I, 0>;
                    allow_shared(input, wgmma_shared);
                    const int threads = k::kInputGroups * k::kWgmmaThreads;
                    input<<<wave_blocks(input, threads, wgmma_shared, n, 64 * k::kInputGroups),
                            threads, wgmma_shared, stream_>>>(mat(g), mat(dy), mat(w.neighbour[0]),
                                                        mat(w.root), idx, mat(d_values));
                } else {
                    const auto input = terms > 1 ? k::compressed_input_gradient_mma<3, I>
                                                 : k::compressed_input_gradient_mma<2, I>;
                    allow_shared(input, mma_shared);
                    input<<<wave_blocks(input, k::kThreads, mma_shared, n, k::kThreads / 2),
                            k::kThreads, mma_shared, stream_>>>(mat(g), mat(dy),
                                                            mat(w.neighbour[0]), w1,
                                                            mat(w.root), idx, mat(d_values));
                }
                GSR_CUDA_LAUNCH();
            });
            return true;
        }
    }

    /// y = epilogue(a b) through gemm_rows when the shapes suit it: K a multiple of 32 up to
    /// 128, y's columns a multiple of 64, rows of a and y 16-byte aligned. False otherwise (and
    /// under GSR_GPU_GEMM=cublas), with nothing launched. Only the convolution takes it: on a
    /// plain N x 64 x 64 product cuBLAS is faster (0.069 against 0.074 ms on hyp, H100); the
    /// fused epilogue is what gains. Narrower outputs (d = 32) keep cuBLAS: unmeasured.
    template <class I>
    bool gemm_rows(k::MatRef<float> a, k::MatRef<float> b, k::MatRef<float> y,
                   const k::GemmEpilogue<I>& ep)
    {
        if (cublas_only_ || a.rows == 0 || a.rows != y.rows || a.cols == 0 ||
            b.rows != a.cols || b.cols != y.cols || a.cols % k::kGemmDepth != 0 ||
            a.cols > std::uint32_t(k::kGemmMaxDepth) || y.cols == 0 ||
            y.cols % k::kGemmCols != 0 || !rows_aligned16(a) || !rows_aligned16(y))
            return false;
        const std::size_t shared =
            k::gemm_shared_bytes(a.cols, ep.values.p ? ep.wroot.rows : 0);
        if (shared > shared_optin_) return false; // 99 KB GPUs (sm_86, sm_89, sm_120)
        const auto kernel = k::gemm_rows<I>;
        allow_shared(kernel, shared);
        // One wave of blocks, each keeping its columns of B while it walks row tiles.
        const unsigned across = y.cols / unsigned(k::kGemmCols);
        const std::size_t wave =
            std::max<std::size_t>(1, resident_blocks(kernel, k::kGemmThreads, shared) / across);
        const dim3 blocks(unsigned(std::min(ceil_div(a.rows, k::kGemmRows), wave)), across);
        kernel<<<blocks, k::kGemmThreads, shared, stream_>>>(a, b, y, ep);
        GSR_CUDA_LAUNCH();
        return true;
    }

    struct Tuned {
        nn::TunedKernel spec;
        std::unique_ptr<RuntimeKernel> kernel;
    };
    std::vector<Tuned> tuned_spmm_;
    std::uint64_t tuned_launches_ = 0;
    std::string device_name_;
    int sms_ = 1;
    int compute_major_ = 0; ///< the GPU's compute capability, major part
    int compute_minor_ = 0; ///< and minor part
    std::size_t shared_optin_ = 0; ///< dynamic shared memory a block may be allowed at most
    cudaStream_t stream_ = nullptr;
    const CublasLibrary* blas_lib_ = nullptr;
    cublasHandle_t blas_ = nullptr;
    std::byte* block_ = nullptr;
    bool rank_topk_ = false; ///< GSR_GPU_TOPK=rank: no radix select (benchmark baseline)
    bool warp_topk_ = false; ///< GSR_GPU_TOPK=warp: top-k kernels one warp per row (baseline)
    bool cublas_only_ = false; ///< GSR_GPU_GEMM=cublas: no gemm_rows (benchmark baseline)
    bool scalar_root_ = false; ///< GSR_GPU_GEMM=scalar-root: root term loaded entry by entry
    bool aggregate_first_ = false; ///< GSR_GPU_CONV=aggregate-first: (S Z) W (baseline)
    bool unfused_ = false; ///< GSR_GPU_FUSE=off: select and product apart (baseline)
    bool kept_gather_ = false; ///< GSR_GPU_CONV=kept-gather: backward from S z (baseline)
    bool fma_only_ = false; ///< GSR_GPU_MMA=off: no tensor-core kernels (baseline)
    bool wgmma_ = false;    ///< the compressed backward's _wgmma kernels (sm_90a, one term)
    struct Occupancy {
        const void* kernel;
        int threads;
        std::size_t shared;
        int per_sm;
    };
    mutable std::vector<Occupancy> occupancy_; ///< resident_blocks's answers so far
    struct SharedAllowed {
        const void* kernel;
        std::size_t bytes; ///< the dynamic shared memory it may take now
    };
    std::vector<SharedAllowed> shared_allowed_; ///< allow_shared's settings so far
    std::byte* host_ = nullptr;        ///< mapped pinned host block (host address)
    std::byte* host_device_ = nullptr; ///< its device address
    std::byte* workspace_ = nullptr;
    /// Zero between launches: a kernel that takes rows from them (for_taken_strips) zeroes
    /// them again at its end. Such kernels run on stream_, one at a time.
    unsigned* counters_ = nullptr;
    double* host_scalars_ = nullptr;
};

} // namespace

nn::GpuStatus probe()
{
    nn::GpuStatus s;
    int count = 0;
    const cudaError_t e = cudaGetDeviceCount(&count);
    if (e == cudaErrorInsufficientDriver) {
        int driver = 0, runtime = 0;
        cudaDriverGetVersion(&driver);
        cudaRuntimeGetVersion(&runtime);
        cudaGetLastError();
        if (driver == 0) {
            s.reason = "no NVIDIA driver is installed (libcuda was not found)";
            return s;
        }
        std::ostringstream m;
        m << "the NVIDIA driver is too old: it supports CUDA " << driver / 1000 << '.'
          << (driver % 1000) / 10 << ", this build needs CUDA " << runtime / 1000 << '.'
          << (runtime % 1000) / 10 << " or newer; update the NVIDIA driver";
        s.reason = m.str();
        return s;
    }
    if (e == cudaErrorNoDevice || (e == cudaSuccess && count == 0)) {
        cudaGetLastError();
        s.reason = "no CUDA GPU was found on this machine";
        return s;
    }
    if (e != cudaSuccess) {
        cudaGetLastError();
        s.reason = std::string("the NVIDIA driver could not be used (") + cudaGetErrorString(e) +
                   "); is the driver installed and loaded?";
        return s;
    }
    cudaDeviceProp p{};
    if (cudaGetDeviceProperties(&p, 0) != cudaSuccess) {
        cudaGetLastError();
        s.reason = "the GPU's properties could not be read";
        return s;
    }
    s.name = p.name;
    s.compute_capability = p.major * 10 + p.minor;
    s.total_bytes = p.totalGlobalMem;
    s.max_hidden = kMaxWidth;
    // cudaSetDevice makes the primary context (CUDA 12 on): it fails for a GPU in
    // exclusive-process mode that another process holds, or in prohibited mode.
    if (const cudaError_t set = cudaSetDevice(0); set != cudaSuccess) {
        cudaGetLastError();
        s.reason = s.name + " cannot be used (" + cudaGetErrorString(set) +
                   "): another process may hold it in exclusive mode";
        return s;
    }
    std::size_t free_bytes = 0, total = 0;
    if (cudaMemGetInfo(&free_bytes, &total) == cudaSuccess) s.free_bytes = free_bytes;
    cudaGetLastError();
    std::string why;
    if (!cublas_library(&why)) {
        s.reason = why;
        return s;
    }
    if (s.compute_capability < 80) {
        s.reason = s.name + " has compute capability " + std::to_string(p.major) + "." +
                   std::to_string(p.minor) + "; this build needs 8.0 or newer";
        return s;
    }
    s.available = true;
    return s;
}

std::unique_ptr<nn::Backend> make_cuda_backend(nn::Precision precision)
{
    const nn::GpuStatus s = probe();
    if (!s.available) throw Error("cannot use the GPU: " + s.reason);
    try {
        if (precision == nn::Precision::Float64) return std::make_unique<CudaBackend<double>>();
        return std::make_unique<CudaBackend<float>>();
    } catch (const CudaError& e) { // the GPU went away, or its memory ran out, since the probe
        throw Error("cannot use the GPU " + s.name + ": " + e.what());
    }
}

std::size_t device_bytes_held(const nn::Backend& backend)
{
    if (const auto* b = dynamic_cast<const CudaBackend<float>*>(&backend)) return b->bytes_held();
    if (const auto* b = dynamic_cast<const CudaBackend<double>*>(&backend))
        return b->bytes_held();
    return 0;
}

void synchronize(const nn::Backend& backend)
{
    if (const auto* b = dynamic_cast<const CudaBackend<float>*>(&backend)) b->synchronize();
    if (const auto* b = dynamic_cast<const CudaBackend<double>*>(&backend)) b->synchronize();
}

double measure_copy_bandwidth()
{
    const std::size_t bytes = std::size_t(1) << 30;
    void *a = nullptr, *b = nullptr;
    GSR_CUDA(cudaMalloc(&a, bytes));
    GSR_CUDA(cudaMalloc(&b, bytes));
    cudaEvent_t start, stop;
    GSR_CUDA(cudaEventCreate(&start));
    GSR_CUDA(cudaEventCreate(&stop));
    GSR_CUDA(cudaMemcpy(b, a, bytes, cudaMemcpyDeviceToDevice)); // warm-up
    float best = 1e30f;
    for (int i = 0; i < 5; ++i) {
        GSR_CUDA(cudaEventRecord(start));
        GSR_CUDA(cudaMemcpy(b, a, bytes, cudaMemcpyDeviceToDevice));
        GSR_CUDA(cudaEventRecord(stop));
        GSR_CUDA(cudaEventSynchronize(stop));
        float ms = 0;
        GSR_CUDA(cudaEventElapsedTime(&ms, start, stop));
        best = std::min(best, ms);
    }
    GSR_CUDA(cudaEventDestroy(start));
    GSR_CUDA(cudaEventDestroy(stop));
    GSR_CUDA(cudaFree(a));
    GSR_CUDA(cudaFree(b));
    return 2.0 * double(bytes) / (double(best) * 1e-3);
}

void install_runtime()
{
    nn::install_gpu_runtime({&probe, &make_cuda_backend});
}

} // namespace gsr::gpu
