#include "store/run_report_source.hpp"

#include "store/run_claim.hpp"

#include "train/report_json.hpp"
#include "util/diagnostics.hpp"

namespace gsr::store {
namespace {

nlohmann::json parsed(const RunStore& runs, std::int64_t id, const std::string& text,
                      const std::string& column)
{
    if (text.empty()) return nullptr;
    nlohmann::json j = nlohmann::json::parse(text, nullptr, false);
    if (j.is_discarded())
        throw Error(SourceLocation{runs.path()}, "run " + std::to_string(id) + ": its " +
                                                     column + " is not valid JSON");
    return j;
}

} // namespace

report::RunReport load_run_report(const RunStore& runs, std::int64_t id)
{
    const std::optional<RunRecord> run = runs.find_run(id);
    if (!run)
        throw Error(SourceLocation{runs.path()}, "no run " + std::to_string(id) +
                                                     " in the project (gsr report --list shows "
                                                     "what there is)");
    report::RunReport r;
    r.id = run->id;
    r.created_at = run->created_at;
    r.updated_at = run->updated_at;
    // A killed training's "running" is "interrupted", as the runs table says.
    r.status = report::run_status(*run, RunClaim::held(runs.path(), id));
    r.device = run->device;
    r.target = run->target;
    r.model = run->model;
    r.epochs_done = run->epochs_done;
    r.best_epoch = run->best_epoch;
    r.best_val_loss = run->best_val_loss;
    r.peak_bytes_analytic = run->peak_bytes_analytic;
    r.peak_bytes_measured = run->peak_bytes_measured;
    r.settings = parsed(runs, id, run->config_json, "config_json");
    r.result = parsed(runs, id, run->result_json, "result_json");
    // The report reads the final figures as it is made: damaged ones are named here, with the
    // project and the run.
    for (const char* key : {"best", "last"}) {
        if (!r.result.is_object() || !r.result.contains(key) || !r.result.at(key).is_object())
            continue;
        try {
            train::epoch_report_from_json(r.result.at(key));
        } catch (const Error& ex) {
            throw Error(SourceLocation{runs.path()}, "run " + std::to_string(id) +
                                                         ", result_json \"" + key +
                                                         "\": " + ex.message());
        }
    }
    for (const RunEpochRecord& e : runs.epochs(id)) {
        const nlohmann::json j = parsed(runs, id, e.metrics_json,
                                        "epoch " + std::to_string(e.epoch) + "'s metrics_json");
        train::EpochReport report;
        if (j.is_object()) {
            try {
                report = train::epoch_report_from_json(j);
            } catch (const Error& ex) {
                throw Error(SourceLocation{runs.path()}, "run " + std::to_string(id) +
                                                             ", epoch " + std::to_string(e.epoch) +
                                                             ": " + ex.message());
            }
        }
        report.epoch = static_cast<std::uint32_t>(e.epoch);
        if (!j.is_object()) {
            // A row without its JSON still has the losses and the time in its columns.
            report.train_loss = e.train_loss;
            report.validation.loss = e.val_loss;
            report.seconds = e.seconds;
        }
        r.epochs.push_back(std::move(report));
    }
    for (const LayerMemoryRecord& l : runs.layer_memory(id))
        r.layers.push_back({l.layer, l.name, l.params, l.grads, l.optimizer, l.activations,
                            l.workspace, l.measured});
    return r;
}

std::vector<report::RunTableRow> load_run_table(const RunStore& runs)
{
    std::vector<report::RunTableRow> rows;
    for (const RunRecord& r : runs.runs())
        rows.push_back(report::run_table_row(r, !runs.checkpoint_epochs(r.id).empty(),
                                             RunClaim::held(runs.path(), r.id)));
    return rows;
}

} // namespace gsr::store
