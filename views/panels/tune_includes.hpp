#pragma once
// core/tune's headers as the profiling panel uses them, and the place the views copy a
// candidate's profiler figures (the roofline reads them through report::candidate_intensity).
#include "sol/device_table.hpp"
#include "sol/sol_analysis.hpp"
#include "tune/applied_kernels.hpp"
#include "tune/engine_problems.hpp"
#include "tune/problem.hpp"
#include "tune/search.hpp"
#include "tune/tune_session.hpp"

namespace gsr::views {

inline void copy_profile_signals(const tune::Evaluation& from, tune::CandidateRecord& to)
{
    to.profile = from.profile;
}

} // namespace gsr::views
