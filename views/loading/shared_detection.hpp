#pragma once
// One community detection for every part of the window that asks the same of the same loaded
// circuit: the graph canvas colours its scene by Leiden (resolution 1, seed 1), and the
// Communities panel lists the communities of its own settings, the same ones until the user
// changes them. The first to ask detects; whoever asks meanwhile waits for that result, and
// whoever asks later, while the circuit is still loaded, gets it at once (the last few
// results are kept). No Qt here.
#include "community/community_detection.hpp"
#include "community/weighted_graph.hpp"
#include "graph/circuit_graph.hpp"

#include <memory>
#include <optional>

namespace gsr::views {

/// The detection of `options` on the undirected projection of `circuit`'s graph: `projection`
/// where the caller has it (community::project_undirected of that graph), else made here, and
/// only when this call detects rather than shares a result. Results are shared between calls
/// with the same
/// circuit object and the same method, resolution, seed, iterations and randomness (the thread
/// count cannot change a partition), for as long as someone holds the circuit: the newest
/// four finished results, and every detection in flight. Empty when
/// `options.cancel` is set before a result is there; a detection that another caller cancelled
/// is run again here. Throws what detect_communities throws (to every caller that waited).
/// `seconds`, where given, is set to the time the detection took (with the projection when
/// it was made here), whoever ran it.
/// With no circuit there is nothing to share: `projection` is detected on, and must be given.
std::optional<community::CommunityResult> detect_shared(
    const std::shared_ptr<const graph::LoadedCircuit>& circuit,
    const community::WeightedGraph* projection, const community::CommunityOptions& options,
    double* seconds = nullptr);

/// How many detections detect_shared() has run itself (not shared), since the program started.
std::size_t shared_detection_runs();

} // namespace gsr::views
