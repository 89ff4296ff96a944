#include "train/report_json.hpp"

#include "util/diagnostics.hpp"
#include "util/json_text.hpp"

#include <cmath>

namespace gsr::train {

nlohmann::json json_number(double value)
{
    return std::isfinite(value) ? nlohmann::json(value) : nlohmann::json(nullptr);
}

double number_at(const nlohmann::json& object, const char* key, double fallback)
{
    const auto it = object.find(key);
    return it != object.end() && it->is_number() ? it->get<double>() : fallback;
}

namespace {

nlohmann::json split_json(const SplitResult& s)
{
    nlohmann::json j;
    j["loss"] = json_number(s.loss);
    j["count"] = s.metrics.count;
    j["mae"] = json_number(s.metrics.mae);
    j["rmse"] = json_number(s.metrics.rmse);
    j["pearson"] = json_number(s.metrics.pearson.value);
    j["spearman"] = json_number(s.metrics.spearman.value);
    j["kendall"] = json_number(s.metrics.kendall.value);
    // The three correlations are undefined together (both sides need variance).
    if (!s.metrics.kendall.defined()) j["undefined"] = s.metrics.kendall.undefined;
    return j;
}

SplitResult split_from_json(const nlohmann::json& j)
{
    SplitResult s;
    s.loss = number_at(j, "loss", kUndefined);
    s.metrics.count = j.value("count", std::size_t{0});
    s.metrics.mae = number_at(j, "mae", kUndefined);
    s.metrics.rmse = number_at(j, "rmse", kUndefined);
    const std::string why = j.value("undefined", std::string("not recorded"));
    auto correlation = [&](const char* key) {
        Correlation c;
        c.value = number_at(j, key, kUndefined);
        c.undefined = std::isnan(c.value) ? why : std::string();
        return c;
    };
    s.metrics.pearson = correlation("pearson");
    s.metrics.spearman = correlation("spearman");
    s.metrics.kendall = correlation("kendall");
    return s;
}

} // namespace

std::string_view status_name(TrainResult::Status status)
{
    switch (status) {
    case TrainResult::Status::Finished: return "finished";
    case TrainResult::Status::StoppedEarly: return "stopped early";
    case TrainResult::Status::Cancelled: return "cancelled";
    }
    return "?";
}

nlohmann::json epoch_report_json(const EpochReport& r)
{
    return {{"epoch", r.epoch},
            {"train_loss", json_number(r.train_loss)},
            {"seconds", r.seconds},
            {"improved", r.improved},
            {"train", split_json(r.train)},
            {"val", split_json(r.validation)},
            {"test", split_json(r.test)}};
}

EpochReport epoch_report_from_json(const nlohmann::json& j)
{
    EpochReport r;
    try {
        if (j.contains("epoch")) { // -1 was read as 4294967295
            const std::optional<std::uint32_t> epoch = json_exact<std::uint32_t>(j.at("epoch"));
            if (!epoch) throw Error("an epoch's figures cannot be read: 'epoch' is not a whole "
                                    "number from 0 to 4294967295");
            r.epoch = *epoch;
        }
        r.train_loss = number_at(j, "train_loss", kUndefined);
        r.seconds = number_at(j, "seconds", 0.0);
        r.improved = j.value("improved", false);
        r.train = split_from_json(j.at("train"));
        r.validation = split_from_json(j.at("val"));
        r.test = split_from_json(j.at("test"));
    } catch (const nlohmann::json::exception& e) { // a damaged project or report file
        throw Error("an epoch's figures cannot be read: " + json_error_text(e));
    }
    return r;
}

nlohmann::json train_result_json(const TrainResult& r)
{
    nlohmann::json j;
    j["status"] = std::string(status_name(r.status));
    j["first_epoch"] = r.first_epoch;
    j["epochs_done"] = r.epochs_done;
    j["best"] = r.best ? epoch_report_json(*r.best) : nlohmann::json(nullptr);
    j["last"] = r.last ? epoch_report_json(*r.last) : nlohmann::json(nullptr);
    j["model_epoch"] = r.model_epoch;
    j["parameters"] = r.parameter_count;
    j["memory"] = {{"analytic_peak_bytes", r.memory.analytic_peak_bytes},
                   {"measured_peak_bytes", r.memory.measured_peak_bytes},
                   {"persistent_bytes", r.memory.persistent_bytes},
                   {"activation_bytes", r.memory.activation_bytes},
                   {"graph_bytes", r.memory.graph_bytes}};
    // Measured per-layer rows, when the run measured them (older records read the same).
    if (!r.memory.measured_layers.empty())
        j["memory"]["measured_rows"] = nn::measured_rows_json(r.memory.measured_layers);
    // Only runs handed tuned kernels record them (older records read the same).
    if (!r.kernel_notes.empty())
        j["tuned_kernels"] = {{"notes", r.kernel_notes}, {"launches", r.tuned_launches}};
    return j;
}

} // namespace gsr::train
