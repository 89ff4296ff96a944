#pragma once
// GPUs by their datasheet peaks, and the calibration measured on the GPU in hand.
//
//   DeviceSpec        one GPU model: DRAM bandwidth, FP32 and tensor rates, L2, SMs, limits
//   device_table()    every known GPU (H100 SXM/PCIe, H200, A100, L40S, RTX 4090, ...)
//   find_device()     the row for a CUDA device name ("NVIDIA H100 80GB HBM3") or a short
//                     name ("H100 SXM", "a100-sxm-40")
//   Calibration       measured copy bandwidth, cuBLAS GEMM rate and FP32 FMA rate (+ JSON, so
//                     the project store keeps it beside the datasheet values)
//   Peaks             the rates the SOL model divides by: datasheet, or calibrated
//
// Units: bytes per second and FLOP per second (an FMA counts 2 FLOP), decimal prefixes as the
// datasheets use them (1 TB/s = 1e12 B/s). Tensor rates are dense (no structured sparsity),
// with FP32 accumulation.
#include <nlohmann/json.hpp>

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace gsr::sol {

/// The arithmetic unit an operation runs on.
enum class MathUnit { Fp32Fma, Tf32Tensor, Fp16Tensor, Bf16Tensor };

std::string_view math_unit_name(MathUnit unit);

struct DeviceSpec {
    std::string name; ///< canonical short name, "H100 SXM"
    std::string architecture; ///< "Hopper"
    int compute_capability = 0; ///< 90 for sm_90
    int sm_count = 0;
    double dram_bandwidth = 0; ///< B/s
    double fp32_fma_rate = 0; ///< FLOP/s on the CUDA cores
    double tf32_tensor_rate = 0; ///< FLOP/s, 0 when the GPU has no such tensor path
    double fp16_tensor_rate = 0;
    double bf16_tensor_rate = 0;
    std::size_t l2_bytes = 0;
    std::size_t shared_per_sm = 0; ///< bytes of shared memory an SM can give to blocks
    std::size_t shared_per_block = 0; ///< the most one block may use (dynamic, opted in)
    int registers_per_sm = 65536; ///< 32-bit registers
    int max_registers_per_thread = 255;
    int max_threads_per_sm = 2048;
    int max_threads_per_block = 1024;
    int max_blocks_per_sm = 32;
    std::string source; ///< the datasheet or whitepaper the figures come from
    /// Token sets a device name must contain to mean this GPU (see find_device).
    std::vector<std::string> match_rules;

    /// The datasheet rate of `unit`; 0 when the GPU lacks it.
    double rate(MathUnit unit) const;
};

/// Every GPU the SOL model knows, in a fixed order.
const std::vector<DeviceSpec>& device_table();

/// The GPU a name means: the canonical name (case and punctuation ignored), or the row whose
/// longest matching rule wins (tokens split at letter/digit boundaries, so "A100-SXM4-40GB"
/// holds a,100,sxm,4,40,gb). Nullptr when nothing matches, or when the name holds a token that
/// neither the rule nor the row's name explains, memory size, memory kind and form factor aside
/// ("H100 NVL", "V100S", "RTX 3090 Ti": other parts, faster than the row).
const DeviceSpec* find_device(std::string_view name);

/// find_device, or gsr::Error listing the known names.
const DeviceSpec& device_or_throw(std::string_view name);

/// What a calibration run measured on one GPU. Zero means "not measured".
struct Calibration {
    std::string device_name; ///< as cudaGetDeviceProperties reports it
    std::string date; ///< ISO 8601, when it was measured
    double copy_bandwidth = 0; ///< B/s: a large device-to-device copy, read + write bytes
    double gemm_rate = 0; ///< FLOP/s of a large cuBLAS GEMM
    MathUnit gemm_unit = MathUnit::Fp32Fma; ///< the unit that GEMM ran on
    double fp32_fma_rate = 0; ///< FLOP/s of an FMA-bound kernel
    std::string notes;
    /// Where it was read from (a file, a project), for errors about it; not in its JSON.
    std::string source;
};

nlohmann::json calibration_json(const Calibration& c);
/// The inverse of calibration_json. gsr::Error naming the key when one is missing or wrong.
Calibration calibration_from_json(const nlohmann::json& j);

/// A calibration file (`gsr kernels calibrate --json`). gsr::Error naming the file (and the
/// line and column of bad JSON, or the key).
Calibration read_calibration_file(const std::string& path);

/// gsr::Error naming the calibration file unless the calibration was measured on the GPU
/// `here` (a CUDA device name, or a row's name): the peaks of another GPU say nothing about
/// this one.
void refuse_calibration_of_another_gpu(const Calibration& c, const std::string& path,
                                       const std::string& here);

/// Whether `c` applies to the bounds on `device`'s row: measured on a GPU of that row (its
/// CUDA name or the row's name maps to it), or on the GPU in hand, `gpu` (a CUDA name; a GPU
/// with no row is tuned with a row standing in for it). The one rule of `gsr kernels tune
/// --project` and the Profiling panel.
bool calibration_is_of(const Calibration& c, const DeviceSpec& device,
                       const std::string& gpu = {});

/// The divisors of the SOL model.
struct Peaks {
    double bandwidth = 0;
    double fp32 = 0, tf32 = 0, fp16 = 0, bf16 = 0;
    bool calibrated = false;

    double rate(MathUnit unit) const;
};

Peaks datasheet_peaks(const DeviceSpec& device);
/// Datasheet peaks with the measured figures put in their place (unmeasured ones stay).
Peaks calibrated_peaks(const DeviceSpec& device, const Calibration& calibration);

nlohmann::json device_json(const DeviceSpec& device);

} // namespace gsr::sol
