#include "loading/shared_detection.hpp"

#include <algorithm>
#include <chrono>
#include <future>
#include <mutex>
#include <stdexcept>
#include <vector>

namespace gsr::views {

namespace {

using Result = std::optional<community::CommunityResult>;

struct Detection {
    Result result;
    double seconds = 0; ///< what it took
};

struct Entry {
    std::weak_ptr<const graph::LoadedCircuit> circuit;
    community::CommunityOptions options; ///< its cancel flag and thread count are not compared
    std::shared_future<Detection> detection;
};

/// The same question: the same circuit object (by owner, so a circuit loaded later at the same
/// address is another) and options that can give another partition.
bool same_question(const Entry& e, const std::shared_ptr<const graph::LoadedCircuit>& circuit,
                   const community::CommunityOptions& o)
{
    return !e.circuit.owner_before(circuit) && !circuit.owner_before(e.circuit) &&
           e.options.method == o.method && e.options.resolution == o.resolution &&
           e.options.seed == o.seed && e.options.iterations == o.iterations &&
           e.options.randomness == o.randomness;
}

/// Finished results kept for later askers, the newest: a user trying one setting after another
/// on a large circuit must not pile up a partition (and its levels) for each.
constexpr std::size_t kKeptResults = 4;

bool finished(const Entry& e)
{
    return e.detection.wait_for(std::chrono::seconds(0)) == std::future_status::ready;
}

std::mutex entries_mutex;
std::vector<Entry> entries; ///< guarded by entries_mutex, oldest first
std::size_t runs = 0;       ///< guarded by entries_mutex

} // namespace

std::optional<community::CommunityResult> detect_shared(
    const std::shared_ptr<const graph::LoadedCircuit>& circuit,
    const community::WeightedGraph* projection, const community::CommunityOptions& options,
    double* seconds)
{
    if (!circuit && !projection)
        throw std::invalid_argument("detect_shared: neither a circuit nor its projection");
    auto cancelled = [&] { return options.cancel && options.cancel->load(); };
    auto detect = [&] {
        const auto t0 = std::chrono::steady_clock::now();
        community::WeightedGraph made;
        if (!projection) made = community::project_undirected(circuit->graph);
        Detection d{community::detect_communities(projection ? *projection : made, options)};
        d.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        if (seconds) *seconds = d.seconds;
        return d;
    };
    if (!circuit) return detect().result;
    for (;;) {
        std::promise<Detection> mine;
        std::shared_future<Detection> theirs;
        {
            const std::lock_guard lock(entries_mutex);
            // Results of circuits nobody holds any more go.
            std::erase_if(entries, [](const Entry& e) { return e.circuit.expired(); });
            const auto it = std::find_if(entries.begin(), entries.end(), [&](const Entry& e) {
                return same_question(e, circuit, options);
            });
            if (it != entries.end()) {
                theirs = it->detection;
            } else {
                entries.push_back({circuit, options, mine.get_future().share()});
                ++runs;
                auto kept = std::size_t(std::count_if(entries.begin(), entries.end(), finished));
                for (auto e = entries.begin(); kept > kKeptResults && e != entries.end();)
                    if (finished(*e)) {
                        e = entries.erase(e);
                        --kept;
                    } else {
                        ++e;
                    }
            }
        }
        if (!theirs.valid()) {
            // This call detects; whoever asks the same meanwhile waits on `mine`.
            auto forget = [&] {
                const std::lock_guard lock(entries_mutex);
                std::erase_if(entries,
                              [&](const Entry& e) { return same_question(e, circuit, options); });
            };
            try {
                Detection d = detect();
                if (!d.result) forget(); // cancelled: a later call detects afresh
                mine.set_value(d);
                return std::move(d.result);
            } catch (...) {
                forget();
                mine.set_exception(std::current_exception());
                throw;
            }
        }
        while (theirs.wait_for(std::chrono::milliseconds(20)) != std::future_status::ready)
            if (cancelled()) return std::nullopt;
        const Detection& d = theirs.get(); // rethrows the detection's error
        if (d.result) {
            if (seconds) *seconds = d.seconds;
            return d.result;
        }
        if (cancelled()) return std::nullopt;
        // The one that detected was cancelled (and forgot its entry): ask again.
    }
}

std::size_t shared_detection_runs()
{
    const std::lock_guard lock(entries_mutex);
    return runs;
}

} // namespace gsr::views
