#include "sol/device_table.hpp"

#include "util/ascii.hpp"
#include "util/diagnostics.hpp"
#include "util/json_file.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>

namespace gsr::sol {

std::string_view math_unit_name(MathUnit unit)
{
    switch (unit) {
    case MathUnit::Fp32Fma: return "fp32";
    case MathUnit::Tf32Tensor: return "tf32";
    case MathUnit::Fp16Tensor: return "fp16";
    case MathUnit::Bf16Tensor: return "bf16";
    }
    return "fp32";
}

double DeviceSpec::rate(MathUnit unit) const
{
    switch (unit) {
    case MathUnit::Fp32Fma: return fp32_fma_rate;
    case MathUnit::Tf32Tensor: return tf32_tensor_rate;
    case MathUnit::Fp16Tensor: return fp16_tensor_rate;
    case MathUnit::Bf16Tensor: return bf16_tensor_rate;
    }
    return 0;
}

namespace {

constexpr double T = 1e12;
constexpr std::size_t KiB = 1024, MiB = 1024 * 1024;

DeviceSpec row(std::string name, std::string arch, int cc, int sms, double bw, double fp32,
               double tf32, double fp16, double bf16, std::size_t l2, std::size_t smem_sm,
               std::size_t smem_block, int threads_sm, int blocks_sm, std::string source,
               std::vector<std::string> rules)
{
    DeviceSpec d;
    d.name = std::move(name);
    d.architecture = std::move(arch);
    d.compute_capability = cc;
    d.sm_count = sms;
    d.dram_bandwidth = bw;
    d.fp32_fma_rate = fp32;
    d.tf32_tensor_rate = tf32;
    d.fp16_tensor_rate = fp16;
    d.bf16_tensor_rate = bf16;
    d.l2_bytes = l2;
    d.shared_per_sm = smem_sm;
    d.shared_per_block = smem_block;
    d.max_threads_per_sm = threads_sm;
    d.max_blocks_per_sm = blocks_sm;
    d.source = std::move(source);
    d.match_rules = std::move(rules);
    return d;
}

// Datasheets give tensor rates "with sparsity" (marked *); the dense rate is half of that.
// SM counts, L2 and shared-memory limits are from the architecture whitepapers and the CUDA C
// Programming Guide's table of compute-capability limits.
std::vector<DeviceSpec> build_table()
{
    std::vector<DeviceSpec> t;
    // NVIDIA H100 Tensor Core GPU datasheet (2023): SXM FP32 67 TF, TF32 989* TF, BF16/FP16
    // 1,979* TF, 3.35 TB/s; PCIe FP32 51 TF, TF32 756* TF, BF16/FP16 1,513* TF, 2 TB/s.
    // Hopper whitepaper: 132 SMs (SXM5), 114 (PCIe), 50 MB L2, 228 KB shared per SM.
    t.push_back(row("H100 SXM", "Hopper", 90, 132, 3.35 * T, 67 * T, 494.5 * T, 989.5 * T,
                    989.5 * T, 50 * MiB, 228 * KiB, 227 * KiB, 2048, 32,
                    "NVIDIA H100 Tensor Core GPU datasheet; Hopper architecture whitepaper",
                    {"h100 sxm", "h100 hbm3", "h100"}));
    t.push_back(row("H100 PCIe", "Hopper", 90, 114, 2.0 * T, 51 * T, 378 * T, 756.5 * T, 756.5 * T,
                    50 * MiB, 228 * KiB, 227 * KiB, 2048, 32,
                    "NVIDIA H100 Tensor Core GPU datasheet; Hopper architecture whitepaper",
                    {"h100 pcie"}));
    // NVIDIA H200 Tensor Core GPU datasheet (2024), SXM: FP32 67 TF, TF32 989* TF, BF16/FP16
    // 1,979* TF, 141 GB HBM3e at 4.8 TB/s. Same GH100 SM array as the H100 SXM.
    t.push_back(row("H200", "Hopper", 90, 132, 4.8 * T, 67 * T, 494.5 * T, 989.5 * T, 989.5 * T,
                    50 * MiB, 228 * KiB, 227 * KiB, 2048, 32,
                    "NVIDIA H200 Tensor Core GPU datasheet", {"h200"}));
    // NVIDIA A100 Tensor Core GPU datasheet (2021): FP32 19.5 TF, TF32 156 TF, BF16/FP16
    // 312 TF; 40GB 1,555 GB/s, 80GB SXM 2,039 GB/s, 80GB PCIe 1,935 GB/s. Ampere whitepaper:
    // 108 SMs, 40 MB L2, 164 KB shared per SM (163 KB per block).
    const std::string a100 = "NVIDIA A100 Tensor Core GPU datasheet; Ampere GA100 whitepaper";
    t.push_back(row("A100 SXM 80GB", "Ampere", 80, 108, 2.039 * T, 19.5 * T, 156 * T, 312 * T,
                    312 * T, 40 * MiB, 164 * KiB, 163 * KiB, 2048, 32, a100,
                    {"a100 sxm 80", "a100 80", "a100"}));
    t.push_back(row("A100 SXM 40GB", "Ampere", 80, 108, 1.555 * T, 19.5 * T, 156 * T, 312 * T,
                    312 * T, 40 * MiB, 164 * KiB, 163 * KiB, 2048, 32, a100,
                    {"a100 sxm 40", "a100 40"}));
    t.push_back(row("A100 PCIe 80GB", "Ampere", 80, 108, 1.935 * T, 19.5 * T, 156 * T, 312 * T,
                    312 * T, 40 * MiB, 164 * KiB, 163 * KiB, 2048, 32, a100, {"a100 pcie 80"}));
    t.push_back(row("A100 PCIe 40GB", "Ampere", 80, 108, 1.555 * T, 19.5 * T, 156 * T, 312 * T,
                    312 * T, 40 * MiB, 164 * KiB, 163 * KiB, 2048, 32, a100,
                    {"a100 pcie 40", "a100 pcie"}));
    // NVIDIA L40S datasheet (2023): FP32 91.6 TF, TF32 183 TF (366*), BF16/FP16 362.05 TF
    // (733*), 864 GB/s GDDR6. Ada whitepaper: 142 SMs, 96 MB L2, 100 KB shared per SM.
    t.push_back(row("L40S", "Ada", 89, 142, 0.864 * T, 91.6 * T, 183 * T, 362.05 * T, 362.05 * T,
                    96 * MiB, 100 * KiB, 99 * KiB, 1536, 24,
                    "NVIDIA L40S GPU datasheet; Ada Lovelace architecture whitepaper", {"l40s"}));
    // NVIDIA Ada Lovelace whitepaper, appendix: RTX 4090 FP32 82.6 TF, TF32 tensor 82.6 TF,
    // FP16/BF16 tensor with FP32 accumulate 165.2 TF, 1,008 GB/s, 128 SMs, 72 MB L2.
    t.push_back(row("RTX 4090", "Ada", 89, 128, 1.008 * T, 82.6 * T, 82.6 * T, 165.2 * T,
                    165.2 * T, 72 * MiB, 100 * KiB, 99 * KiB, 1536, 24,
                    "NVIDIA Ada Lovelace GPU architecture whitepaper (GeForce RTX 4090)",
                    {"rtx 4090", "4090"}));
    // NVIDIA Ampere GA102 whitepaper: RTX 3090 FP32 35.6 TF, TF32 tensor 35.6 TF, FP16/BF16
    // tensor with FP32 accumulate 71 TF, 936 GB/s, 82 SMs, 6 MB L2.
    t.push_back(row("RTX 3090", "Ampere", 86, 82, 0.936 * T, 35.6 * T, 35.6 * T, 71 * T, 71 * T,
                    6 * MiB, 100 * KiB, 99 * KiB, 1536, 16,
                    "NVIDIA Ampere GA102 GPU architecture whitepaper (GeForce RTX 3090)",
                    {"rtx 3090", "3090"}));
    // NVIDIA A10 Tensor Core GPU datasheet: FP32 31.2 TF, TF32 62.5 TF (125*), BF16/FP16
    // 125 TF (250*), 600 GB/s GDDR6; GA102 with 72 SMs, 6 MB L2.
    t.push_back(row("A10", "Ampere", 86, 72, 0.600 * T, 31.2 * T, 62.5 * T, 125 * T, 125 * T,
                    6 * MiB, 100 * KiB, 99 * KiB, 1536, 16, "NVIDIA A10 Tensor Core GPU datasheet",
                    {"a10"}));
    // NVIDIA T4 Tensor Core GPU datasheet: FP32 8.1 TF, mixed FP16/FP32 65 TF, 320 GB/s;
    // Turing whitepaper: 40 SMs, 4 MB L2, 64 KB shared per SM. No TF32 or BF16 tensor path.
    t.push_back(row("T4", "Turing", 75, 40, 0.320 * T, 8.1 * T, 0, 65 * T, 0, 4 * MiB, 64 * KiB,
                    64 * KiB, 1024, 16, "NVIDIA T4 Tensor Core GPU datasheet; Turing whitepaper",
                    {"t4"}));
    // NVIDIA V100 Tensor Core GPU datasheet: SXM2 FP32 15.7 TF, tensor 125 TF; PCIe FP32
    // 14 TF, tensor 112 TF; 900 GB/s HBM2. Volta whitepaper: 80 SMs, 6 MB L2, 96 KB shared.
    t.push_back(row("V100 SXM2", "Volta", 70, 80, 0.900 * T, 15.7 * T, 0, 125 * T, 0, 6 * MiB,
                    96 * KiB, 96 * KiB, 2048, 32,
                    "NVIDIA V100 Tensor Core GPU datasheet; Volta whitepaper",
                    {"v100 sxm", "v100"}));
    t.push_back(row("V100 PCIe", "Volta", 70, 80, 0.900 * T, 14 * T, 0, 112 * T, 0, 6 * MiB,
                    96 * KiB, 96 * KiB, 2048, 32,
                    "NVIDIA V100 Tensor Core GPU datasheet; Volta whitepaper", {"v100 pcie"}));
    return t;
}

/// Lower-case alphanumeric tokens, split at every non-alphanumeric character and at each
/// letter/digit boundary. Vendor words carry no information and are dropped.
std::vector<std::string> tokens(std::string_view s)
{
    std::vector<std::string> out;
    std::string cur;
    auto flush = [&] {
        if (!cur.empty() && cur != "nvidia" && cur != "geforce" && cur != "tesla")
            out.push_back(cur);
        cur.clear();
    };
    for (char ch : s) {
        const unsigned char c = static_cast<unsigned char>(ch);
        if (!std::isalnum(c)) {
            flush();
            continue;
        }
        if (!cur.empty() &&
            bool(std::isdigit(c)) != bool(std::isdigit(static_cast<unsigned char>(cur.back()))))
            flush();
        cur += ascii_lower(ch);
    }
    flush();
    return out;
}

bool is_number(const std::string& t)
{
    return !t.empty() && std::isdigit(static_cast<unsigned char>(t[0])) != 0;
}

/// The tokens of a name that tell one part from another: without a memory size ("80 gb"), the
/// memory kind ("hbm 3", "hbm 2 e"), the form factor ("sxm 4", "pcie") and the words "rtx",
/// "gpu", "tensor" and "core". What remains of a CUDA name must be explained by the row it
/// matches: "NVIDIA H100 NVL", "Tesla V100S-PCIE-32GB" or "RTX 3090 Ti" are faster parts than
/// the H100 SXM, V100 PCIe and RTX 3090 rows, and "T400 4GB" is not a T4.
std::vector<std::string> distinguishing(const std::vector<std::string>& t)
{
    std::vector<std::string> out;
    for (std::size_t i = 0; i < t.size(); ++i) {
        const std::string& x = t[i];
        const bool next_number = i + 1 < t.size() && is_number(t[i + 1]);
        if (is_number(x) && i + 1 < t.size() && t[i + 1] == "gb") {
            ++i; // a memory size
        } else if (x == "hbm" || x == "sxm") {
            if (next_number) ++i;
            if (x == "hbm" && i + 1 < t.size() && t[i + 1] == "e") ++i; // HBM2e, HBM3e
        } else if (x != "pcie" && x != "rtx" && x != "gpu" && x != "tensor" && x != "core") {
            out.push_back(x);
        }
    }
    return out;
}

std::string joined(const std::vector<std::string>& t)
{
    std::string s;
    for (const auto& x : t) s += x + ' ';
    return s;
}

} // namespace

const std::vector<DeviceSpec>& device_table()
{
    static const std::vector<DeviceSpec> table = build_table();
    return table;
}

const DeviceSpec* find_device(std::string_view name)
{
    const std::vector<std::string> have = tokens(name);
    if (have.empty()) return nullptr;
    const std::string key = joined(have);
    for (const DeviceSpec& d : device_table())
        if (joined(tokens(d.name)) == key) return &d;
    const DeviceSpec* best = nullptr;
    std::vector<std::string> best_need;
    for (const DeviceSpec& d : device_table()) {
        for (const std::string& rule : d.match_rules) {
            const std::vector<std::string> need = tokens(rule);
            const bool all = std::all_of(need.begin(), need.end(), [&](const std::string& t) {
                return std::find(have.begin(), have.end(), t) != have.end();
            });
            if (all && need.size() > best_need.size()) {
                best = &d;
                best_need = need;
            }
        }
    }
    if (best == nullptr) return nullptr;
    // A token the rule and the row's name leave unexplained names another part: no row then,
    // rather than peaks lower than the part's (its honest kernels would look like gaming).
    std::vector<std::string> known = tokens(best->name);
    known.insert(known.end(), best_need.begin(), best_need.end());
    for (const std::string& t : distinguishing(have))
        if (std::find(known.begin(), known.end(), t) == known.end()) return nullptr;
    return best;
}

const DeviceSpec& device_or_throw(std::string_view name)
{
    if (const DeviceSpec* d = find_device(name)) return *d;
    std::string known;
    for (const DeviceSpec& d : device_table()) known += (known.empty() ? "" : ", ") + d.name;
    throw Error("unknown GPU '" + std::string(name) + "'; known: " + known);
}

nlohmann::json calibration_json(const Calibration& c)
{
    return {{"device_name", c.device_name},
            {"date", c.date},
            {"copy_bandwidth", c.copy_bandwidth},
            {"gemm_rate", c.gemm_rate},
            {"gemm_unit", math_unit_name(c.gemm_unit)},
            {"fp32_fma_rate", c.fp32_fma_rate},
            {"notes", c.notes}};
}

Calibration calibration_from_json(const nlohmann::json& j)
{
    if (!j.is_object()) throw Error("calibration: expected a JSON object");
    Calibration c;
    auto text = [&](const char* key, std::string& out) {
        if (!j.contains(key))
            throw Error(std::string("calibration: \"") + key + "\" (a string) is missing");
        if (!j[key].is_string())
            throw Error(std::string("calibration: \"") + key + "\" must be a string");
        out = j[key].get<std::string>();
    };
    // A peak is 0 (not measured) or a rate of at least one a second: a denormal one would
    // make every bound infinite.
    auto number = [&](const char* key, double& out) {
        if (!j.contains(key))
            throw Error(std::string("calibration: \"") + key +
                        "\" is missing (0 where it was not measured)");
        const double v = j[key].is_number() ? j[key].get<double>() : -1.0;
        if (!(v == 0 || (v >= 1 && std::isfinite(v))))
            throw Error(std::string("calibration: \"") + key +
                        "\" must be 0 (not measured) or a rate of at least 1 a second");
        out = v;
    };
    text("device_name", c.device_name);
    text("date", c.date);
    number("copy_bandwidth", c.copy_bandwidth);
    number("gemm_rate", c.gemm_rate);
    number("fp32_fma_rate", c.fp32_fma_rate);
    std::string unit = "fp32";
    if (j.contains("gemm_unit")) text("gemm_unit", unit);
    bool found = false;
    for (MathUnit u :
         {MathUnit::Fp32Fma, MathUnit::Tf32Tensor, MathUnit::Fp16Tensor, MathUnit::Bf16Tensor})
        if (math_unit_name(u) == unit) {
            c.gemm_unit = u;
            found = true;
        }
    if (!found) throw Error("calibration: \"gemm_unit\" must be fp32, tf32, fp16 or bf16");
    if (j.contains("notes") && j["notes"].is_string()) c.notes = j["notes"].get<std::string>();
    return c;
}

Calibration read_calibration_file(const std::string& path)
{
    const nlohmann::json j =
        read_json_file(path, "expected a calibration as `gsr kernels calibrate --json` writes it");
    try {
        Calibration c = calibration_from_json(j);
        c.source = path;
        return c;
    } catch (const Error& e) {
        throw Error(SourceLocation{path}, e.message());
    }
}

void refuse_calibration_of_another_gpu(const Calibration& c, const std::string& path,
                                       const std::string& here)
{
    // The same CUDA name, or names of the same row of the table ("H100 SXM" and the CUDA
    // name of an H100 SXM).
    const DeviceSpec* row = find_device(c.device_name);
    if (c.device_name == here || (row && row == find_device(here))) return;
    throw Error(SourceLocation{path}, "the calibration was measured on " + c.device_name +
                                          ", not on " + here +
                                          ": its peaks say nothing about this GPU (measure "
                                          "this one with `gsr kernels calibrate --json`)");
}

bool calibration_is_of(const Calibration& c, const DeviceSpec& device, const std::string& gpu)
{
    if (!gpu.empty() && c.device_name == gpu) return true;
    const DeviceSpec* row = find_device(c.device_name);
    return row && row->name == device.name;
}

double Peaks::rate(MathUnit unit) const
{
    switch (unit) {
    case MathUnit::Fp32Fma: return fp32;
    case MathUnit::Tf32Tensor: return tf32;
    case MathUnit::Fp16Tensor: return fp16;
    case MathUnit::Bf16Tensor: return bf16;
    }
    return fp32;
}

Peaks datasheet_peaks(const DeviceSpec& d)
{
    return {d.dram_bandwidth,   d.fp32_fma_rate,    d.tf32_tensor_rate,
            d.fp16_tensor_rate, d.bf16_tensor_rate, false};
}

namespace {

/// A rate or ratio in three significant digits ("3.35e+12", "896").
std::string rate_text(double v)
{
    char buf[32];
    const auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::general, 3);
    return ec == std::errc{} ? std::string(buf, end) : std::string("?");
}

} // namespace

Peaks calibrated_peaks(const DeviceSpec& d, const Calibration& c)
{
    Peaks p = datasheet_peaks(d);
    // A measurement well past the datasheet is a unit slip or another GPU's, and a bound from
    // it would call every honest kernel slow and no cheat a cheat (gaming_bound takes the
    // smaller bound). Boost clocks and rounding stay far below half again the datasheet.
    constexpr double kMaxOverDatasheet = 1.5;
    const auto plausible = [&](const char* key, double measured, double sheet) {
        if (measured > 0 && sheet > 0 && measured > kMaxOverDatasheet * sheet)
            throw Error(SourceLocation{c.source},
                        "calibration: \"" + std::string(key) + "\" is " +
                        rate_text(measured / sheet) + "x the datasheet's " +
                        rate_text(sheet) + " for " + d.name +
                        ": expected a measurement of this GPU (in bytes or operations a second)");
    };
    plausible("copy_bandwidth", c.copy_bandwidth, p.bandwidth);
    plausible("fp32_fma_rate", c.fp32_fma_rate, p.fp32);
    plausible("gemm_rate", c.gemm_rate, p.rate(c.gemm_unit));
    if (c.copy_bandwidth > 0) p.bandwidth = c.copy_bandwidth;
    if (c.fp32_fma_rate > 0) p.fp32 = c.fp32_fma_rate;
    if (c.gemm_rate > 0) {
        switch (c.gemm_unit) {
        // Both measure the CUDA cores: the faster one is the tighter bound.
        case MathUnit::Fp32Fma:
            p.fp32 = c.fp32_fma_rate > 0 ? std::max(c.fp32_fma_rate, c.gemm_rate) : c.gemm_rate;
            break;
        case MathUnit::Tf32Tensor: p.tf32 = c.gemm_rate; break;
        case MathUnit::Fp16Tensor: p.fp16 = c.gemm_rate; break;
        case MathUnit::Bf16Tensor: p.bf16 = c.gemm_rate; break;
        }
    }
    p.calibrated = true;
    return p;
}

nlohmann::json device_json(const DeviceSpec& d)
{
    return {{"name", d.name},
            {"architecture", d.architecture},
            {"compute_capability", d.compute_capability},
            {"sm_count", d.sm_count},
            {"dram_bandwidth", d.dram_bandwidth},
            {"fp32_fma_rate", d.fp32_fma_rate},
            {"tf32_tensor_rate", d.tf32_tensor_rate},
            {"fp16_tensor_rate", d.fp16_tensor_rate},
            {"bf16_tensor_rate", d.bf16_tensor_rate},
            {"l2_bytes", d.l2_bytes},
            {"shared_per_sm", d.shared_per_sm},
            {"shared_per_block", d.shared_per_block},
            {"registers_per_sm", d.registers_per_sm},
            {"max_threads_per_sm", d.max_threads_per_sm},
            {"source", d.source}};
}

} // namespace gsr::sol
