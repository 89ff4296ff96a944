#pragma once
// The report of one kernel tuning session (tune::TuneSession): the problem and its bounds, a
// log-log roofline of the timed candidates, the candidates table and the refine lineage.
//
// Roofline: x is arithmetic intensity (FLOP/byte), y achieved FLOP/s. The roofs are the
// session's bandwidth (y = bandwidth * x) up to the ridge point peak_rate / bandwidth, then
// the compute peak. A candidate sits at the problem's FLOPs over its time; its x is the
// problem's minimal-byte intensity, or FLOPs over the DRAM bytes the profiler measured when
// the candidate has signals (so extra traffic moves it left, under the bandwidth roof).
//
//   RooflinePoint, Roofline, roofline()   the chart's data and its scene
//   session_document                      for HTML and PDF
//   session_csv                           one row per candidate
//   session_report_json                   {"kind": "tune_session", "session": to_json(s), ...}
#include "report/chart.hpp"
#include "report/document.hpp"
#include "tune/tune_session.hpp"

#include <nlohmann/json.hpp>

namespace gsr::report {

struct RooflinePoint {
    std::size_t id = 0; ///< CandidateRecord::id
    double intensity = 0; ///< FLOP/byte
    double flops_per_second = 0;
    bool gaming = false;
    bool best = false;
};

struct Roofline {
    std::vector<RooflinePoint> points; ///< the timed candidates, in session order
    double ridge = 0;                  ///< peak_rate / bandwidth, FLOP/byte (0: no roofs)
    PlotFrame frame;                   ///< the chart's mapping (tests check pixel positions)
    Scene scene;
};

/// The candidate's x on the roofline (see the overview).
double candidate_intensity(const tune::TuneSession& s, const tune::CandidateRecord& c);
/// "memory" or "compute": which roof is lower at the candidate's intensity.
std::string candidate_bound(const tune::TuneSession& s, const tune::CandidateRecord& c);

/// The roofline of the session in a `width` x `height` scene.
Roofline roofline(const tune::TuneSession& s, double width = 720, double height = 440);

Document session_document(const tune::TuneSession& s);
Table session_csv(const tune::TuneSession& s);
nlohmann::json session_report_json(const tune::TuneSession& s);

} // namespace gsr::report
