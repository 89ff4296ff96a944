#pragma once
// core/tune's headers as the profiling panel uses them, and the two places the views touch
// a candidate's profiler figures.
#include "sol/device_table.hpp"
#include "sol/sol_analysis.hpp"
#include "tune/applied_kernels.hpp"
#include "tune/engine_problems.hpp"
#include "tune/problem.hpp"
#include "tune/search.hpp"
#include "tune/tune_session.hpp"

namespace gsr::views {

/// DRAM bytes a profiler measured for the candidate (0: none measured).
inline double measured_dram_bytes(const tune::CandidateRecord& c)
{
    return c.profile ? c.profile->dram_bytes : 0.0;
}

inline void copy_profile_signals(const tune::Evaluation& from, tune::CandidateRecord& to)
{
    to.profile = from.profile;
}

} // namespace gsr::views
