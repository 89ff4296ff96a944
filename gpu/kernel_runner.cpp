#include "kernel_runner.hpp"

#include "cublas_library.hpp"
#include "cusparse_library.hpp"
#include "runtime_compiler.hpp"

#include "sol/sol_analysis.hpp"
#include "tune/codegen.hpp"
#include "tune/problem.hpp"
#include "util/json_text.hpp"

#include <cuda_runtime.h>

#include <algorithm>
#include <bit>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <map>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace gsr::gpu {

namespace {

using json = nlohmann::json;
using tune::Verdict;
using Clock = std::chrono::steady_clock;

/// Every element of a fresh output holds this pattern (a NaN no float arithmetic produces:
/// hardware NaNs are 0x7fc00000 or carry an operand's payload).
constexpr std::uint32_t kPoison = 0xffffffffu;

/// A failed CUDA call, with its code so the verdict can tell an illegal address from a bad
/// launch configuration.
struct Fault {
    cudaError_t code;
    std::string where;
};

/// A candidate that does not compile or has no such entry point.
struct CompileFailure {
    std::string log;
};

void check(cudaError_t e, const char* where)
{
    if (e != cudaSuccess) throw Fault{e, where};
}

/// Waits for the copies and fills on the legacy default stream (cudaMemcpy from pageable
/// memory may return before its DMA lands, cudaMemset returns at once): the timing stream is
/// non-blocking, so nothing else orders them before its launches.
void settle()
{
    check(cudaDeviceSynchronize(), "waiting for the inputs' copies");
}

/// Errors after which the context is unusable: the worker reports and exits.
bool is_sticky(cudaError_t e)
{
    switch (e) {
    case cudaErrorIllegalAddress:
    case cudaErrorMisalignedAddress:
    case cudaErrorInvalidAddressSpace:
    case cudaErrorInvalidPc:
    case cudaErrorIllegalInstruction:
    case cudaErrorHardwareStackError:
    case cudaErrorAssert:
    case cudaErrorLaunchFailure:
    case cudaErrorLaunchTimeout:
    case cudaErrorECCUncorrectable:
    case cudaErrorUnknown: return true;
    default: return false;
    }
}

Verdict fault_verdict(cudaError_t e)
{
    switch (e) {
    case cudaErrorIllegalAddress:
    case cudaErrorMisalignedAddress:
    case cudaErrorInvalidAddressSpace: return Verdict::IllegalAddress;
    case cudaErrorInvalidConfiguration:
    case cudaErrorLaunchOutOfResources:
    case cudaErrorInvalidValue: return Verdict::InvalidConfig;
    default: return Verdict::Crash;
    }
}

json reply(Verdict v, std::string detail = {}, double seconds = 0)
{
    json r = {{"verdict", tune::verdict_name(v)}, {"seconds", seconds}};
    if (!detail.empty()) r["detail"] = std::move(detail);
    return r;
}

json fault_reply(const Fault& f)
{
    json r = reply(fault_verdict(f.code),
                   std::string(f.where) + ": " + cudaGetErrorName(f.code) + " (" +
                       cudaGetErrorString(f.code) + ")");
    if (is_sticky(f.code)) r["fatal"] = true;
    return r;
}

template <class T> class DeviceArray {
public:
    DeviceArray() = default;
    explicit DeviceArray(std::size_t n) { resize(n); }
    ~DeviceArray() { release(); }
    DeviceArray(const DeviceArray&) = delete;
    DeviceArray& operator=(const DeviceArray&) = delete;

    void resize(std::size_t n)
    {
        if (n == n_) return;
        release();
        if (n) check(cudaMalloc(reinterpret_cast<void**>(&p_), n * sizeof(T)), "cudaMalloc");
        n_ = n;
    }
    void upload(const std::vector<T>& v)
    {
        resize(v.size());
        if (!v.empty())
            check(cudaMemcpy(p_, v.data(), v.size() * sizeof(T), cudaMemcpyHostToDevice),
                  "copy to the device");
    }
    std::vector<T> download() const
    {
        std::vector<T> v(n_);
        if (n_)
            check(cudaMemcpy(v.data(), p_, n_ * sizeof(T), cudaMemcpyDeviceToHost),
                  "copy from the device");
        return v;
    }
    /// nullptr when empty: the entry points take null for inputs a problem lacks.
    T* get() const { return n_ ? p_ : nullptr; }
    std::size_t size() const { return n_; }

private:
    void release()
    {
        if (p_) cudaFree(p_);
        p_ = nullptr;
        n_ = 0;
    }
    T* p_ = nullptr;
    std::size_t n_ = 0;
};

class Stream {
public:
    Stream() { check(cudaStreamCreateWithFlags(&s_, cudaStreamNonBlocking), "stream"); }
    ~Stream() { cudaStreamDestroy(s_); }
    cudaStream_t get() const { return s_; }

private:
    cudaStream_t s_ = nullptr;
};

class Event {
public:
    Event() { check(cudaEventCreate(&e_), "event"); }
    ~Event() { cudaEventDestroy(e_); }
    Event(Event&& o) noexcept : e_(std::exchange(o.e_, nullptr)) {}
    cudaEvent_t get() const { return e_; }

private:
    cudaEvent_t e_ = nullptr;
};

struct DeviceFacts {
    std::string name;
    int major = 0, minor = 0, sms = 0;
    std::size_t memory = 0, l2 = 0;
};

const DeviceFacts& device_facts()
{
    static const DeviceFacts facts = [] {
        DeviceFacts f;
        int device = 0;
        check(cudaGetDevice(&device), "cudaGetDevice");
        cudaDeviceProp prop{};
        check(cudaGetDeviceProperties(&prop, device), "cudaGetDeviceProperties");
        f.name = prop.name;
        f.major = prop.major;
        f.minor = prop.minor;
        f.sms = prop.multiProcessorCount;
        f.memory = prop.totalGlobalMem;
        f.l2 = std::size_t(prop.l2CacheSize);
        return f;
    }();
    return facts;
}

// ---- compiling -------------------------------------------------------------------------

using Compiled = RuntimeKernel;

std::unique_ptr<Compiled> compile(const std::string& source, const std::string& entry)
{
    try {
        return compile_runtime_kernel(source, entry, "candidate.cu");
    } catch (const RuntimeCompileError& e) {
        throw CompileFailure{e.log};
    } catch (const RuntimeLoadError& e) {
        throw Fault{e.code, e.where};
    }
}

// ---- inputs, references and checks ------------------------------------------------------

struct DeviceInputs {
    DeviceArray<float> x, b, bias, residual, gamma, beta, values, y;
    DeviceArray<std::int32_t> row_ptr, col_idx;

    void upload(const tune::ProblemInputs& in)
    {
        x.upload(in.x);
        b.upload(in.b);
        bias.upload(in.bias);
        residual.upload(in.residual);
        gamma.upload(in.gamma);
        beta.upload(in.beta);
        values.upload(in.values);
        row_ptr.upload(in.row_ptr);
        col_idx.upload(in.col_idx);
        settle();
    }
};

/// The argument list of a family's entry point (codegen.hpp), with storage for the scalars.
class Arguments {
public:
    Arguments(const tune::Problem& p, DeviceInputs& d)
        : alpha_(p.alpha), eps_(p.eps), n_(static_cast<long long>(p.output_size())),
          rows_(int(p.rows)), cols_(int(p.cols)), inner_(int(p.inner))
    {
        if (p.family != tune::OpFamily::Spmm) ptr(d.x.get());
        switch (p.family) {
        case tune::OpFamily::Elementwise:
            ptr(d.bias.get()), ptr(d.residual.get()), ptr(d.y.get());
            add(&alpha_), add(&n_), add(&cols_);
            break;
        case tune::OpFamily::Reduction:
            ptr(d.y.get()), add(&alpha_), add(&rows_), add(&cols_);
            break;
        case tune::OpFamily::Softmax:
            ptr(d.bias.get()), ptr(d.residual.get()), ptr(d.y.get());
            add(&alpha_), add(&rows_), add(&cols_);
            break;
        case tune::OpFamily::LayerNorm:
            ptr(d.gamma.get()), ptr(d.beta.get()), ptr(d.bias.get()), ptr(d.residual.get());
            ptr(d.y.get()), add(&alpha_), add(&eps_), add(&rows_), add(&cols_);
            break;
        case tune::OpFamily::Gemm:
            ptr(d.b.get()), ptr(d.bias.get()), ptr(d.residual.get()), ptr(d.y.get());
            add(&alpha_), add(&rows_), add(&cols_), add(&inner_);
            break;
        case tune::OpFamily::Spmm:
            ptr(d.row_ptr.get()), ptr(d.col_idx.get()), ptr(d.values.get()), ptr(d.x.get());
            ptr(d.bias.get()), ptr(d.residual.get()), ptr(d.y.get());
            add(&alpha_), add(&rows_), add(&cols_);
            break;
        }
        // The pointers' storage is final now: take their addresses.
        for (std::size_t i = 0; i < pointers_.size(); ++i) args_[pointer_slots_[i]] = &pointers_[i];
    }
    void** get() { return args_.data(); }

private:
    void ptr(const void* p)
    {
        pointers_.push_back(const_cast<void*>(p));
        pointer_slots_.push_back(args_.size());
        args_.push_back(nullptr);
    }
    void add(void* scalar) { args_.push_back(scalar); }

    float alpha_, eps_;
    long long n_;
    int rows_, cols_, inner_;
    std::vector<void*> pointers_;
    std::vector<std::size_t> pointer_slots_;
    std::vector<void*> args_;
};

/// The rows whose float64 reference is computed: all of them, or `limit` spread over the
/// matrix (first and last included) for GEMMs, whose full reference would take minutes.
std::vector<std::uint64_t> checked_rows(const tune::Problem& p, std::size_t limit)
{
    if (p.family != tune::OpFamily::Gemm || limit == 0 || limit >= p.rows) return {};
    if (limit == 1) return {0};
    std::vector<std::uint64_t> rows;
    for (std::size_t i = 0; i < limit; ++i) rows.push_back(i * (p.rows - 1) / (limit - 1));
    rows.erase(std::unique(rows.begin(), rows.end()), rows.end());
    return rows;
}

/// Inputs and float64 references are the same for every candidate of a session (the
/// sessions' seeds are shared): keep the last few.
struct Prepared {
    tune::ProblemInputs inputs;
    std::vector<double> reference;
    std::vector<std::uint64_t> rows; ///< empty: all
};

const Prepared& prepared(const tune::Problem& p, std::uint64_t seed, std::size_t check_rows)
{
    static std::map<std::string, std::shared_ptr<Prepared>> cache;
    const std::string key =
        json_text(tune::problem_json(p)) + "#" + std::to_string(seed) + "#" +
        std::to_string(check_rows);
    if (auto it = cache.find(key); it != cache.end()) return *it->second;
    if (cache.size() >= 8) cache.clear();
    auto entry = std::make_shared<Prepared>();
    entry->inputs = tune::make_inputs(p, seed);
    entry->rows = checked_rows(p, check_rows);
    entry->reference = tune::reference(p, entry->inputs, entry->rows);
    return *cache.emplace(key, entry).first->second;
}

std::uint64_t fnv1a(const std::vector<float>& v)
{
    std::uint64_t h = 0xcbf29ce484222325ull;
    for (float f : v) {
        h ^= std::bit_cast<std::uint32_t>(f);
        h *= 0x100000001b3ull;
    }
    return h;
}

/// Nullopt when every element is written and within tolerance, else the verdict and why.
std::optional<std::pair<Verdict, std::string>> check_output(const tune::Problem& p,
                                                            const Prepared& want,
                                                            const std::vector<float>& got)
{
    for (std::size_t i = 0; i < got.size(); ++i)
        if (std::bit_cast<std::uint32_t>(got[i]) == kPoison)
            return std::pair{Verdict::UnwrittenOutput,
                             "element " + std::to_string(i) + " of " + std::to_string(got.size()) +
                                 " was never written"};
    const std::uint64_t cols = p.output_cols();
    std::vector<float> rows_got;
    const std::vector<float>* compared = &got;
    if (!want.rows.empty()) {
        for (std::uint64_t r : want.rows)
            rows_got.insert(rows_got.end(), got.begin() + std::ptrdiff_t(r * cols),
                            got.begin() + std::ptrdiff_t((r + 1) * cols));
        compared = &rows_got;
    }
    const tune::Tolerance tol = tune::tolerance_for(p);
    const std::int64_t bad = tune::first_mismatch(*compared, want.reference, tol);
    if (bad < 0) return std::nullopt;
    const std::uint64_t row = want.rows.empty() ? std::uint64_t(bad) / cols
                                                : want.rows[std::size_t(bad) / cols];
    return std::pair{Verdict::WrongResult,
                     "row " + std::to_string(row) + " col " + std::to_string(bad % cols) +
                         ": got " + std::to_string((*compared)[std::size_t(bad)]) +
                         ", expected " + std::to_string(want.reference[std::size_t(bad)])};
}

double median(std::vector<double> v)
{
    std::sort(v.begin(), v.end());
    const std::size_t n = v.size();
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

constexpr const char* kFlushKernel = R"(
extern "C" __global__ void gsr_l2_flush(const float4* p, long long n, float* sink)
{
    float acc = 0.0f;
    for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += (long long)gridDim.x * blockDim.x) {
        const float4 v = p[i];
        acc += v.x + v.y + v.z + v.w;
    }
    if (acc == 123456.0f) *sink = acc; // never true for the zeroed buffer; keeps the loads
}
)";

/// Evicts the L2 between timed launches by reading a buffer of twice its size. Reading,
/// not a memset: a memset leaves the L2 full of dirty lines whose write-back would then be
/// charged to the timed kernel.
class L2Flush {
public:
    L2Flush()
        : bytes_(std::max<std::size_t>(2 * device_facts().l2, 8u << 20) / 16 * 16),
          buffer_(bytes_), sink_(1), kernel_(compile(kFlushKernel, "gsr_l2_flush"))
    {
        check(cudaMemset(buffer_.get(), 0, bytes_), "cudaMemset");
        settle();
    }
    void enqueue(cudaStream_t stream)
    {
        const void* p = buffer_.get();
        long long n = static_cast<long long>(bytes_ / 16);
        float* sink = sink_.get();
        void* args[] = {&p, &n, &sink};
        check(cudaLaunchKernel(reinterpret_cast<const void*>(kernel_->kernel),
                               dim3(unsigned(device_facts().sms) * 4), dim3(512), args, 0,
                               stream),
              "launch the L2 flush");
    }

private:
    std::size_t bytes_;
    DeviceArray<unsigned char> buffer_;
    DeviceArray<float> sink_;
    std::unique_ptr<Compiled> kernel_;
};

/// One flush buffer for the worker's life (not one per kind of launch timed).
L2Flush& l2_flush()
{
    static L2Flush flush;
    return flush;
}

/// Times `launch` (which enqueues on `stream`): warm-up, then each run after an L2 flush,
/// bracketed by events. The median and every time, in seconds.
template <class Launch>
std::pair<double, std::vector<double>> time_launches(cudaStream_t stream, Launch&& launch,
                                                     std::size_t warmup, std::size_t runs)
{
    L2Flush& flush = l2_flush();
    for (std::size_t i = 0; i < warmup; ++i) launch();
    std::vector<Event> start(runs), stop(runs);
    for (std::size_t i = 0; i < runs; ++i) {
        flush.enqueue(stream);
        check(cudaEventRecord(start[i].get(), stream), "cudaEventRecord");
        launch();
        check(cudaEventRecord(stop[i].get(), stream), "cudaEventRecord");
    }
    check(cudaStreamSynchronize(stream), "synchronize after timing");
    std::vector<double> times(runs);
    for (std::size_t i = 0; i < runs; ++i) {
        float ms = 0;
        check(cudaEventElapsedTime(&ms, start[i].get(), stop[i].get()), "cudaEventElapsedTime");
        times[i] = ms * 1e-3;
    }
    return {median(times), times};
}

struct JobOptions {
    std::vector<std::uint64_t> seeds;
    std::size_t runs = 20, warmup = 3, check_rows = 16;
    double t_sol = 0;
};

JobOptions job_options(const json& job)
{
    JobOptions o;
    o.seeds = job.value("seeds", std::vector<std::uint64_t>{});
    if (o.seeds.empty()) throw std::runtime_error("the job has no seeds");
    o.runs = std::max<std::size_t>(job.value("runs", std::size_t(20)), 1);
    o.warmup = job.value("warmup", std::size_t(3));
    o.check_rows = job.value("check_rows", std::size_t(16));
    // Each run is a launch: a job that asks for millions would hold the GPU for hours.
    if (o.runs > 100000 || o.warmup > 100000)
        throw std::runtime_error("runs and warmup must be at most 100000");
    o.t_sol = job.value("t_sol", 0.0);
    return o;
}

/// Verifies and times a launcher that computes problem `p` into d.y on `stream`: the shared
/// path of candidates and vendor baselines.
template <class Launch>
json verify_and_time(const tune::Problem& p, const JobOptions& o, DeviceInputs& d,
                     cudaStream_t stream, Launch&& launch)
{
    d.y.resize(p.output_size());
    const std::size_t y_bytes = d.y.size() * sizeof(float);
    std::vector<std::uint64_t> hashes;
    const Prepared* last = nullptr;
    for (std::uint64_t seed : o.seeds) {
        const Prepared& want = prepared(p, seed, o.check_rows);
        d.upload(want.inputs);
        check(cudaMemsetAsync(d.y.get(), 0xff, y_bytes, stream), "poison the output");
        launch();
        check(cudaStreamSynchronize(stream), "the kernel");
        const std::vector<float> got = d.y.download();
        if (auto bad = check_output(p, want, got))
            return reply(bad->first, "seed " + std::to_string(seed) + ": " + bad->second);
        const std::uint64_t h = fnv1a(got);
        if (std::find(hashes.begin(), hashes.end(), h) != hashes.end())
            return reply(Verdict::InputInsensitive,
                         "seed " + std::to_string(seed) +
                             " gave the same output as an earlier seed's different inputs");
        hashes.push_back(h);
        last = &want;
    }
    check(cudaMemsetAsync(d.y.get(), 0xff, y_bytes, stream), "poison the output");
    auto [seconds, times] = time_launches(stream, launch, o.warmup, o.runs);
    json r = reply(Verdict::Ok, {}, seconds);
    r["times"] = times;
    if (o.t_sol > 0 && sol::is_gaming(seconds, o.t_sol)) {
        r["verdict"] = tune::verdict_name(Verdict::Gaming);
        r["detail"] = "median " + std::to_string(seconds * 1e6) +
                      " us is more than 5% below T_SOL " +
                      std::to_string(o.t_sol * 1e6) + " us: the kernel cannot have done the work";
        return r;
    }
    if (auto bad = check_output(p, *last, d.y.download())) {
        r["verdict"] = tune::verdict_name(bad->first);
        r["detail"] = "after timing: " + bad->second;
    }
    return r;
}

/// evaluate: compile, verify and time a candidate. profile: compile it and launch it once on
/// the first seed's inputs, for a profiler that wraps the worker (ncu).
json evaluate_or_profile(const json& job, bool profile_only)
{
    const tune::Problem p = tune::problem_from_json(job.at("problem"));
    const JobOptions o = job_options(job);
    std::unique_ptr<Compiled> kernel;
    try {
        kernel = compile(job.at("source").get<std::string>(), job.at("entry").get<std::string>());
    } catch (const CompileFailure& f) {
        return reply(Verdict::CompileError, f.log);
    }
    const json& launch_json = job.at("launch");
    const auto g = launch_json.at("grid").get<std::vector<unsigned>>();
    const auto b = launch_json.at("block").get<std::vector<unsigned>>();
    if (g.size() != 3 || b.size() != 3)
        return reply(Verdict::InvalidConfig, "launch grid and block need 3 dimensions");
    const dim3 grid(g[0], g[1], g[2]), block(b[0], b[1], b[2]);
    const std::size_t shared = launch_json.value("shared", std::size_t(0));
    const void* fn = reinterpret_cast<const void*>(kernel->kernel);
    if (shared > 48 * 1024)
        check(cudaFuncSetAttribute(fn, cudaFuncAttributeMaxDynamicSharedMemorySize, int(shared)),
              "raise the dynamic shared memory limit");
    Stream stream;
    DeviceInputs d;
    // Every seed's inputs have the same sizes: the pointers taken here stay valid.
    d.upload(prepared(p, o.seeds.front(), o.check_rows).inputs);
    d.y.resize(p.output_size());
    Arguments args(p, d);
    auto launch = [&] {
        check(cudaLaunchKernel(fn, grid, block, args.get(), shared, stream.get()), "launch");
    };
    if (profile_only) {
        // One launch for a profiler (ncu) to measure; the verdict came from evaluate.
        launch();
        check(cudaStreamSynchronize(stream.get()), "the kernel");
        return reply(Verdict::Ok);
    }
    json r = verify_and_time(p, o, d, stream.get(), launch);
    r["registers"] = kernel->registers;
    r["compile_seconds"] = kernel->seconds;
    return r;
}

// ---- vendor baselines -------------------------------------------------------------------

void check_cusparse(cusparseStatus_t s, const char* where)
{
    if (s != CUSPARSE_STATUS_SUCCESS)
        throw std::runtime_error(std::string(where) + ": cuSPARSE status " +
                                 std::to_string(int(s)));
}

json cusparse_baseline(const tune::Problem& p, const JobOptions& o)
{
    std::string why;
    const CusparseLibrary* sp = cusparse_library(&why);
    if (!sp) return reply(Verdict::Unsupported, why);
    Stream stream;
    cusparseHandle_t handle = nullptr;
    check_cusparse(sp->create(&handle), "cusparseCreate");
    std::unique_ptr<cusparseContext, decltype(sp->destroy)> owner(handle, sp->destroy);
    check_cusparse(sp->set_stream(handle, stream.get()), "cusparseSetStream");
    DeviceInputs d;
    d.upload(prepared(p, o.seeds.front(), o.check_rows).inputs);
    d.y.resize(p.output_size());
    const auto m = std::int64_t(p.rows), f = std::int64_t(p.cols);
    const auto nnz = std::int64_t(d.col_idx.size());
    // Freed on every way out: a fault the worker survives (out of memory in one algorithm's
    // buffer, say) left them behind, job after job.
    struct Descriptors {
        const CusparseLibrary* sp;
        cusparseSpMatDescr_t a = nullptr;
        cusparseDnMatDescr_t x = nullptr, y = nullptr;
        ~Descriptors()
        {
            if (y) sp->destroy_dn_mat(y);
            if (x) sp->destroy_dn_mat(x);
            if (a) sp->destroy_sp_mat(a);
        }
    } descriptors{sp};
    cusparseSpMatDescr_t& a = descriptors.a;
    cusparseDnMatDescr_t &x = descriptors.x, &y = descriptors.y;
    check_cusparse(sp->create_csr(&a, m, m, nnz, d.row_ptr.get(), d.col_idx.get(),
                                  d.values.get(), CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I,
                                  CUSPARSE_INDEX_BASE_ZERO, CUDA_R_32F),
                   "cusparseCreateCsr");
    check_cusparse(sp->create_dn_mat(&x, m, f, f, d.x.get(), CUDA_R_32F, CUSPARSE_ORDER_ROW),
                   "cusparseCreateDnMat");
    check_cusparse(sp->create_dn_mat(&y, m, f, f, d.y.get(), CUDA_R_32F, CUSPARSE_ORDER_ROW),
                   "cusparseCreateDnMat");
    const float alpha = p.alpha, beta = 0.0f;
    const std::pair<cusparseSpMMAlg_t, const char*> algorithms[] = {
        {CUSPARSE_SPMM_ALG_DEFAULT, "default"},
        {CUSPARSE_SPMM_CSR_ALG1, "csr_alg1"},
        {CUSPARSE_SPMM_CSR_ALG2, "csr_alg2"},
        {CUSPARSE_SPMM_CSR_ALG3, "csr_alg3"}};
    json all = json::array();
    json best;
    for (const auto& [alg, name] : algorithms) {
        std::size_t bytes = 0;
        const auto op = CUSPARSE_OPERATION_NON_TRANSPOSE;
        if (sp->spmm_buffer_size(handle, op, op, &alpha, a, x, &beta, y, CUDA_R_32F, alg,
                                 &bytes) != CUSPARSE_STATUS_SUCCESS) {
            all.push_back({{"algorithm", name}, {"verdict", "unsupported"}});
            continue;
        }
        DeviceArray<unsigned char> buffer(std::max<std::size_t>(bytes, 1));
        if (sp->spmm_preprocess(handle, op, op, &alpha, a, x, &beta, y, CUDA_R_32F, alg,
                                buffer.get()) != CUSPARSE_STATUS_SUCCESS) {
            all.push_back({{"algorithm", name}, {"verdict", "unsupported"}});
            continue;
        }
        json r = verify_and_time(p, o, d, stream.get(), [&] {
            check_cusparse(sp->spmm(handle, op, op, &alpha, a, x, &beta, y, CUDA_R_32F, alg,
                                    buffer.get()),
                           "cusparseSpMM");
        });
        r["algorithm"] = name;
        r.erase("times");
        all.push_back(r);
        if (r["verdict"] == "ok" && (best.is_null() || r["seconds"] < best["seconds"])) best = r;
    }
    json out = best.is_null() ? reply(Verdict::WrongResult, "no cuSPARSE algorithm verified")
                              : best;
    out["algorithms"] = all;
    out["baseline"] = "cusparse";
    return out;
}

json cublas_baseline(const tune::Problem& p, const JobOptions& o)
{
    std::string why;
    const CublasLibrary* blas = cublas_library(&why);
    if (!blas) return reply(Verdict::Unsupported, why);
    // The epilogue runs as a generated elementwise kernel over C (plain fp32 SGEMM first).
    tune::Problem epilogue = p;
    epilogue.family = tune::OpFamily::Elementwise;
    epilogue.inner = 0;
    const sol::DeviceSpec* spec = sol::find_device(device_facts().name);
    const tune::GeneratedKernel ew = tune::generate_kernel(
        epilogue, tune::default_config(epilogue),
        spec ? *spec : sol::device_table().front());
    std::unique_ptr<Compiled> kernel;
    try {
        kernel = compile(ew.source, ew.entry);
    } catch (const CompileFailure& f) {
        return reply(Verdict::CompileError, "the epilogue kernel: " + f.log);
    }
    Stream stream;
    cublasHandle_t handle = nullptr;
    if (blas->create(&handle) != CUBLAS_STATUS_SUCCESS)
        return reply(Verdict::Unsupported, "cublasCreate failed");
    std::unique_ptr<cublasContext, decltype(blas->destroy)> owner(handle, blas->destroy);
    if (blas->set_stream(handle, stream.get()) != CUBLAS_STATUS_SUCCESS ||
        blas->set_math_mode(handle, CUBLAS_DEFAULT_MATH) != CUBLAS_STATUS_SUCCESS)
        return reply(Verdict::Unsupported, "cuBLAS could not be set to the timing stream");
    DeviceInputs d;
    d.y.resize(p.output_size());
    DeviceArray<float> c(p.output_size());
    const int m = int(p.rows), n = int(p.cols), k = int(p.inner);
    float alpha_e = p.alpha;
    long long count = static_cast<long long>(p.output_size());
    int cols = n;
    const float one = 1.0f, zero = 0.0f;
    json r = verify_and_time(p, o, d, stream.get(), [&] {
        // Row-major C = A B is column-major C^T = B^T A^T.
        if (blas->sgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, n, m, k, &one, d.b.get(), n,
                        d.x.get(), k, &zero, c.get(), n) != CUBLAS_STATUS_SUCCESS)
            throw std::runtime_error("cublasSgemm failed");
        void* cp = c.get();
        void* bias = d.bias.get();
        void* residual = d.residual.get();
        void* y = d.y.get();
        void* args[] = {&cp, &bias, &residual, &y, &alpha_e, &count, &cols};
        check(cudaLaunchKernel(reinterpret_cast<const void*>(kernel->kernel),
                               dim3(ew.launch.grid[0], ew.launch.grid[1], ew.launch.grid[2]),
                               dim3(ew.launch.block[0], ew.launch.block[1], ew.launch.block[2]),
                               args, ew.launch.dynamic_shared_bytes, stream.get()),
              "launch the epilogue");
    });
    r.erase("times");
    r["baseline"] = "cublas";
    return r;
}

json baseline(const json& job)
{
    const tune::Problem p = tune::problem_from_json(job.at("problem"));
    const JobOptions o = job_options(job);
    switch (p.baseline) {
    case tune::BaselineKind::Cusparse: return cusparse_baseline(p, o);
    case tune::BaselineKind::Cublas: return cublas_baseline(p, o);
    case tune::BaselineKind::Straightforward: break;
    }
    return reply(Verdict::Unsupported,
                 "the straightforward baseline is the default config: evaluate it as a candidate");
}

// ---- calibration ------------------------------------------------------------------------

constexpr const char* kFmaKernel = R"(
extern "C" __global__ void gsr_fma_peak(float* out, int iterations)
{
    float a0 = threadIdx.x, a1 = a0 + 1, a2 = a0 + 2, a3 = a0 + 3;
    float a4 = a0 + 4, a5 = a0 + 5, a6 = a0 + 6, a7 = a0 + 7;
    const float m = 0.999f, c = 0.001f;
    for (int i = 0; i < iterations; ++i) {
#pragma unroll
        for (int j = 0; j < 16; ++j) {
            a0 = fmaf(a0, m, c); a1 = fmaf(a1, m, c); a2 = fmaf(a2, m, c); a3 = fmaf(a3, m, c);
            a4 = fmaf(a4, m, c); a5 = fmaf(a5, m, c); a6 = fmaf(a6, m, c); a7 = fmaf(a7, m, c);
        }
    }
    out[blockIdx.x * blockDim.x + threadIdx.x] = a0 + a1 + a2 + a3 + a4 + a5 + a6 + a7;
}
)";

/// A streaming copy: four float4 loads in flight per thread, grid-stride. cudaMemcpy is not
/// always the fastest way to move memory (on an H100 a kernel like this one beats it by ~3%),
/// and SOL must be a bound that an honest kernel cannot pass.
constexpr const char* kCopyKernel = R"(
extern "C" __global__ void gsr_copy_peak(const float4* __restrict__ in, float4* __restrict__ out,
                                         long long n)
{
    const long long stride = (long long)gridDim.x * blockDim.x;
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    for (; i + 3 * stride < n; i += 4 * stride) {
        const float4 a = in[i], b = in[i + stride], c = in[i + 2 * stride], d = in[i + 3 * stride];
        out[i] = a;
        out[i + stride] = b;
        out[i + 2 * stride] = c;
        out[i + 3 * stride] = d;
    }
    for (; i < n; i += stride) out[i] = in[i];
}
)";

json calibrate(const json&)
{
    const DeviceFacts& f = device_facts();
    Stream stream;
    json r = {{"device_name", f.name}};
    // Copy: read + write bytes of a 1 GiB device-to-device copy (256 MiB on small GPUs), the
    // faster of cudaMemcpy and the streaming kernel at 4, 8 or 16 blocks per SM.
    const std::size_t bytes = std::min<std::size_t>(1u << 30, f.memory / 8) / 16 * 16;
    std::string copy_note;
    {
        DeviceArray<unsigned char> a(bytes), b(bytes);
        check(cudaMemset(a.get(), 1, bytes), "cudaMemset");
        settle();
        auto [t, times] = time_launches(stream.get(), [&] {
            check(cudaMemcpyAsync(b.get(), a.get(), bytes, cudaMemcpyDeviceToDevice,
                                  stream.get()),
                  "cudaMemcpyAsync");
        }, 2, 10);
        const double memcpy_rate = 2.0 * double(bytes) / t;
        double kernel_rate = 0;
        try {
            const auto k = compile(kCopyKernel, "gsr_copy_peak");
            void* in = a.get();
            void* out = b.get();
            long long n = static_cast<long long>(bytes / 16);
            void* args[] = {&in, &out, &n};
            for (unsigned per_sm : {4u, 8u, 16u}) {
                auto [tk, tk_times] = time_launches(stream.get(), [&] {
                    check(cudaLaunchKernel(reinterpret_cast<const void*>(k->kernel),
                                           dim3(unsigned(f.sms) * per_sm), dim3(256), args, 0,
                                           stream.get()),
                          "launch the copy kernel");
                }, 2, 10);
                kernel_rate = std::max(kernel_rate, 2.0 * double(bytes) / tk);
            }
        } catch (const CompileFailure& c) {
            copy_note = "copy kernel: " + c.log + "; ";
        }
        r["copy_bandwidth"] = std::max(memcpy_rate, kernel_rate);
        char text[160];
        std::snprintf(text, sizeof text, "copy: cudaMemcpy %.0f GB/s, streaming kernel %.0f GB/s",
                      memcpy_rate / 1e9, kernel_rate / 1e9);
        copy_note += text;
    }
    r["notes"] = copy_note;
    // GEMM: fp32 cuBLAS SGEMM at 8192^3.
    std::string why;
    if (const CublasLibrary* blas = cublas_library(&why)) {
        const int n = 8192;
        DeviceArray<float> a(std::size_t(n) * n), b(std::size_t(n) * n), c(std::size_t(n) * n);
        check(cudaMemset(a.get(), 0, a.size() * 4), "cudaMemset");
        check(cudaMemset(b.get(), 0, b.size() * 4), "cudaMemset");
        settle();
        cublasHandle_t handle = nullptr;
        // Every status checked: a failed SGEMM times nothing, and its "rate" would be absurd.
        bool ok = blas->create(&handle) == CUBLAS_STATUS_SUCCESS;
        if (ok) {
            std::unique_ptr<cublasContext, decltype(blas->destroy)> owner(handle, blas->destroy);
            ok = blas->set_stream(handle, stream.get()) == CUBLAS_STATUS_SUCCESS &&
                 blas->set_math_mode(handle, CUBLAS_DEFAULT_MATH) == CUBLAS_STATUS_SUCCESS;
            const float one = 1, zero = 0;
            if (ok) {
                auto [t, times] = time_launches(stream.get(), [&] {
                    ok = ok && blas->sgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one,
                                           a.get(), n, b.get(), n, &zero, c.get(),
                                           n) == CUBLAS_STATUS_SUCCESS;
                }, 2, 10);
                if (ok) {
                    r["gemm_rate"] = 2.0 * double(n) * n * n / t;
                    r["gemm_unit"] = "fp32";
                }
            }
        }
        if (!ok)
            r["notes"] = r["notes"].get<std::string>() + "; cuBLAS SGEMM failed: no GEMM rate";
    } else {
        r["notes"] = r["notes"].get<std::string>() + "; " + why;
    }
    // FMA: 8 independent chains per thread keep every FP32 pipe busy.
    try {
        const auto k = compile(kFmaKernel, "gsr_fma_peak");
        const unsigned blocks = unsigned(f.sms) * 8, threads = 256;
        DeviceArray<float> out(std::size_t(blocks) * threads);
        int iterations = 4096;
        void* out_ptr = out.get();
        void* args[] = {&out_ptr, &iterations};
        auto [t, times] = time_launches(stream.get(), [&] {
            check(cudaLaunchKernel(reinterpret_cast<const void*>(k->kernel), dim3(blocks),
                                   dim3(threads), args, 0, stream.get()),
                  "launch the FMA kernel");
        }, 2, 10);
        r["fp32_fma_rate"] = 2.0 * 8 * 16 * double(iterations) * blocks * threads / t;
    } catch (const CompileFailure& c) {
        r["notes"] = r["notes"].get<std::string>() + "; FMA kernel: " + c.log;
    }
    return r;
}

json device(const json&)
{
    const DeviceFacts& f = device_facts();
    return {{"name", f.name},     {"compute_capability", std::to_string(f.major) + "." +
                                                            std::to_string(f.minor)},
            {"sms", f.sms},       {"memory", f.memory},
            {"l2", f.l2}};
}

} // namespace

json run_kernel_job(const json& job)
{
    try {
        const std::string type = job.value("type", std::string());
        if (type == "evaluate") return evaluate_or_profile(job, false);
        if (type == "profile") return evaluate_or_profile(job, true);
        if (type == "baseline") return baseline(job);
        if (type == "calibrate") return calibrate(job);
        if (type == "device") return device(job);
        return reply(Verdict::Unsupported, "unknown job type '" + type + "'");
    } catch (const Fault& f) {
        return fault_reply(f);
    } catch (const CompileFailure& c) { // a harness kernel (the L2 flush): NVRTC missing, say
        return reply(Verdict::Unsupported, "a harness kernel did not compile: " + c.log);
    } catch (const std::exception& e) {
        // A harness error (bad job, cuSPARSE failure): the context may still be fine, but a
        // fresh worker is cheap and certain.
        json r = reply(Verdict::Crash, e.what());
        r["fatal"] = true;
        return r;
    }
}

} // namespace gsr::gpu
