#pragma once
// The kernel lab's GPU side, run inside the worker process (gpu/worker/): one JSON job in,
// one JSON reply out. The application never runs a candidate in its own process: a crash, a
// hang or an illegal address ends the worker, not the caller (core/tune/worker_evaluator.hpp).
//
// Jobs ({"type": ...}):
//   device     the GPU in hand: name, compute capability, SMs, memory, L2
//   evaluate   compile CUDA C++ with NVRTC for this GPU, then for each seed: fresh inputs,
//              the output poisoned (all bits set), one launch, every element checked to be
//              written and within tolerance of the float64 reference (core/tune/problem.hpp),
//              and the outputs of different seeds checked to differ. Then timing: warm-up
//              launches, the L2 flushed (a read of twice its size, which leaves no
//              dirty lines) before each timed launch, CUDA events, the median of `runs`.
//              A median below T_SOL by more than 5% is "gaming". The output is checked
//              again after timing.
//              {"problem", "source", "entry", "launch": {"grid", "block", "shared"},
//               "seeds": [...], "runs", "warmup", "check_rows", "t_sol"}
//   profile    the candidate of an evaluate job launched once, unchecked and untimed: the
//              worker runs it in one-shot mode (`gsr-kernel-worker --job FILE`) under ncu
//   baseline   the vendor baseline of a problem: cuBLAS SGEMM plus a generated epilogue
//              kernel, or cuSPARSE SpMM with every CSR algorithm (the fastest is the
//              baseline); verified like a candidate
//   calibrate  device-to-device copy bandwidth, cuBLAS SGEMM rate and FP32 FMA rate
// Replies carry "verdict" (tune::verdict_name), "seconds", "detail", and "fatal": true when
// the CUDA context is lost (an illegal address, a trap): the worker must then exit.
#include <nlohmann/json.hpp>

namespace gsr::gpu {

nlohmann::json run_kernel_job(const nlohmann::json& job);

} // namespace gsr::gpu
