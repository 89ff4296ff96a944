#include "report/run_report.hpp"

#include "symgraph/vocabulary.hpp"
#include "train/report_json.hpp"
#include "util/diagnostics.hpp"
#include "util/json_text.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace gsr::report {
namespace {

const Rgb kInk{40, 40, 40};

std::string setting_text(const nlohmann::json& v)
{
    if (v.is_string()) return v.get<std::string>();
    if (v.is_array()) {
        std::string s;
        for (const nlohmann::json& e : v) s += (s.empty() ? "" : ", ") + setting_text(e);
        return s.empty() ? "(none)" : s;
    }
    if (v.is_number_float()) return format_number(v.get<double>(), 6);
    if (v.is_null()) return "";
    return json_text(v);
}

const train::SplitResult& split(const train::EpochReport& e, int which)
{
    return which == 0 ? e.train : which == 1 ? e.validation : e.test;
}

std::vector<std::string> metric_cells(const train::SplitResult& s)
{
    return {format_number(s.loss),          format_number(s.metrics.mae),
            format_number(s.metrics.rmse),  format_number(s.metrics.pearson.value),
            format_number(s.metrics.spearman.value), format_number(s.metrics.kendall.value)};
}

/// The final figures: from the stored result, else the last recorded epoch. Throws naming the
/// result's key when its figures cannot be read.
std::optional<train::EpochReport> final_epoch(const RunReport& r, const char* key)
{
    if (r.result.is_object() && r.result.contains(key) && r.result.at(key).is_object()) {
        try {
            return train::epoch_report_from_json(r.result.at(key));
        } catch (const Error& e) {
            throw Error(e.where(), std::string("result \"") + key + "\": " + e.message());
        }
    }
    if (r.epochs.empty()) return std::nullopt;
    if (std::string(key) == "best") {
        // Only an epoch the run called its best: a failed run's last is not.
        for (const train::EpochReport& e : r.epochs)
            if (r.best_epoch > 0 && e.epoch == static_cast<std::uint32_t>(r.best_epoch)) return e;
        return std::nullopt;
    }
    return r.epochs.back();
}

double number_at(const nlohmann::json& j, const char* key)
{
    return j.is_object() && j.contains(key) && j.at(key).is_number()
               ? j.at(key).get<double>()
               : std::numeric_limits<double>::quiet_NaN();
}

struct ResultSplit {
    const char* key;  ///< "train", "val", "test"
    const char* name; ///< "train", "validation", "test"
    const nlohmann::json* metrics;
};

/// The splits whose metrics a run's result holds (a symgraph run's: it has no epochs).
std::vector<ResultSplit> result_splits(const RunReport& r)
{
    std::vector<ResultSplit> out;
    if (!r.result.is_object()) return out;
    for (const auto& [key, name] : {std::pair{"train", "train"}, std::pair{"val", "validation"},
                                    std::pair{"test", "test"}})
        if (r.result.contains(key) && r.result.at(key).is_object())
            out.push_back({key, name, &r.result.at(key)});
    return out;
}

/// A run without epochs whose result holds the splits' metrics (symgraph): one row a split.
void add_result_splits(const RunReport& r, Table& t)
{
    for (const ResultSplit& s : result_splits(r)) {
        const nlohmann::json& m = *s.metrics;
        t.rows.push_back({"final", s.name, "", format_number(number_at(m, "mae")),
                          format_number(number_at(m, "rmse")),
                          format_number(number_at(m, "pearson")),
                          format_number(number_at(m, "spearman")),
                          format_number(number_at(m, "kendall")),
                          format_number(number_at(m, "count"), 12)});
    }
}

/// The CSV of a run without epochs (symgraph): one row a split of the result.
Table result_splits_csv(const RunReport& r)
{
    Table t;
    t.columns = {"split", "count", "mae", "rmse", "pearson", "spearman", "kendall",
                 "bin_accuracy"};
    for (const ResultSplit& s : result_splits(r)) {
        const nlohmann::json& m = *s.metrics;
        std::vector<std::string> row = {s.key, format_number(number_at(m, "count"), 12)};
        for (const char* metric : {"mae", "rmse", "pearson", "spearman", "kendall", "bin_accuracy"})
            row.push_back(format_number(number_at(m, metric), 9));
        t.rows.push_back(std::move(row));
    }
    return t;
}

Table final_metrics_table(const RunReport& r)
{
    Table t;
    t.columns = {"epoch", "split", "loss", "MAE", "RMSE", "Pearson", "Spearman", "Kendall",
                 "nodes"};
    t.numeric = {true, false, true, true, true, true, true, true, true};
    static const char* names[] = {"train", "validation", "test"};
    for (const char* which : {"last", "best"}) {
        const std::optional<train::EpochReport> e = final_epoch(r, which);
        if (!e) continue;
        for (int s = 0; s < 3; ++s) {
            const train::SplitResult& sr = split(*e, s);
            if (sr.metrics.count == 0 && !std::isfinite(sr.loss)) continue;
            std::vector<std::string> row = {std::to_string(e->epoch) + " (" + which + ")",
                                            names[s]};
            for (std::string& c : metric_cells(sr)) row.push_back(std::move(c));
            row.push_back(std::to_string(sr.metrics.count));
            t.rows.push_back(std::move(row));
        }
    }
    if (t.rows.empty()) add_result_splits(r, t);
    return t;
}

/// The classes and roles the rules name (W3, R3), explained as `gsr rules` does, from the
/// stored predicates.
void add_rules_legend(const nlohmann::json& rules, Document& doc)
{
    if (!rules.contains("predicates")) return;
    KeyValues legend;
    try {
        legend.rows = symgraph::Vocabulary::from_json(rules.at("predicates")).legend();
    } catch (const Error& e) {
        doc.add(Paragraph{"The classes and roles the rules name cannot be explained: " +
                          e.message()});
        return;
    }
    if (legend.rows.empty()) return;
    doc.add(Paragraph{"where"});
    doc.add(std::move(legend));
}

Scene memory_chart(const std::vector<LayerMemory>& layers)
{
    const double width = 720, height = 360;
    Scene sc;
    sc.width = width;
    sc.height = height;
    sc.add(Rect{{0, 0}, width, height, Rgb{255, 255, 255}, std::nullopt});
    sc.add(Text{{width / 2, 20}, "Memory per layer (MiB)", 13, Anchor::Middle, true, 0, kInk});
    std::vector<double> xs, totals{0};
    for (const LayerMemory& l : layers) {
        xs.push_back(static_cast<double>(l.layer));
        totals.push_back(static_cast<double>(l.total()) / (1024.0 * 1024.0));
    }
    Axis x = fit_linear(xs, "layer");
    x.integer = true;
    // Bars are one unit wide, centred on their layer.
    x.lo = *std::min_element(xs.begin(), xs.end()) - 0.5;
    x.hi = *std::max_element(xs.begin(), xs.end()) + 0.5;
    const Axis y = fit_linear(totals, "MiB", true);
    const PlotFrame frame(70, 34, width - 88, height - 34 - 78, x, y);
    frame.draw_axes(sc);
    static const char* parts[] = {"parameters", "gradients", "optimizer", "activations",
                                  "workspace"};
    const double bar = std::max(0.5, frame.width() / (x.hi - x.lo) * 0.7);
    for (const LayerMemory& l : layers) {
        const double values[] = {double(l.params), double(l.grads), double(l.optimizer),
                                 double(l.activations), double(l.workspace)};
        double base = 0;
        for (int p = 0; p < 5; ++p) {
            const double v = values[p] / (1024.0 * 1024.0);
            if (v <= 0) continue;
            const Point lo = frame.to_pixel(double(l.layer), base);
            const Point hi = frame.to_pixel(double(l.layer), base + v);
            sc.add(Rect{{lo.x - bar / 2, hi.y}, bar, lo.y - hi.y, palette(std::size_t(p)),
                        std::nullopt});
            base += v;
        }
    }
    double lx = 70;
    for (int p = 0; p < 5; ++p) {
        sc.add(Rect{{lx, height - 22}, 12, 10, palette(std::size_t(p)), std::nullopt});
        sc.add(Text{{lx + 16, height - 13}, parts[p], 10, Anchor::Start, false, 0, kInk});
        lx += 26 + 5.6 * static_cast<double>(std::string(parts[p]).size()) + 10;
    }
    return sc;
}

/// "run report: " and, for an element of a list, which one ("layer_memory row 2 of 5: ").
std::string context(const std::string& where)
{
    return "run report: " + (where.empty() ? std::string() : where + ": ");
}

/// "epoch 3 of 3": element i (from 0) of a list of n, counted from 1 as a reader counts.
std::string element(const char* what, std::size_t i, std::size_t n)
{
    return std::string(what) + " " + std::to_string(i + 1) + " of " + std::to_string(n);
}

template <typename T>
T field(const nlohmann::json& j, const char* key, const std::string& where = {})
{
    if (!j.is_object() || !j.contains(key))
        throw Error(context(where) + "no key '" + key + "'");
    // Exactly a T: 1.5 is no run id, -1 no epoch, 1e300 no byte count.
    if (std::optional<T> v = json_exact<T>(j.at(key))) return *v;
    throw Error(context(where) + "key '" + key + "' has the wrong type or is out of range");
}

/// A byte count: whole, not negative, and at most 2^50 (a PiB), so that sums of them stay exact.
std::int64_t bytes_field(const nlohmann::json& j, const char* key, const std::string& where = {})
{
    const std::int64_t v = field<std::int64_t>(j, key, where);
    if (v < 0 || v > (std::int64_t{1} << 50))
        throw Error(context(where) + "key '" + key + "' is " + std::to_string(v) +
                    ", not a byte count from 0 to 2^50");
    return v;
}

} // namespace


nlohmann::json to_json(const RunReport& r)
{
    nlohmann::json epochs = nlohmann::json::array();
    for (const train::EpochReport& e : r.epochs) epochs.push_back(train::epoch_report_json(e));
    nlohmann::json layers = nlohmann::json::array();
    for (const LayerMemory& l : r.layers)
        layers.push_back({{"layer", l.layer},
                          {"name", l.name},
                          {"params", l.params},
                          {"grads", l.grads},
                          {"optimizer", l.optimizer},
                          {"activations", l.activations},
                          {"workspace", l.workspace},
                          {"measured", l.measured}});
    nlohmann::json run = {{"id", r.id},
                          {"created_at", r.created_at},
                          {"updated_at", r.updated_at},
                          {"status", r.status},
                          {"device", r.device},
                          {"target", r.target},
                          {"model", r.model},
                          {"epochs_done", r.epochs_done},
                          {"best_epoch", r.best_epoch},
                          {"best_val_loss", r.best_val_loss ? train::json_number(*r.best_val_loss)
                                                            : nlohmann::json()},
                          {"peak_bytes_analytic", r.peak_bytes_analytic},
                          {"peak_bytes_measured", r.peak_bytes_measured},
                          {"settings", r.settings},
                          {"result", r.result},
                          {"epochs", epochs},
                          {"layer_memory", layers}};
    return {{"kind", "run"},
            {"title", "Training run " + std::to_string(r.id)},
            {"run", std::move(run)}};
}

RunReport run_report_from_json(const nlohmann::json& top)
{
    const nlohmann::json& j = top.is_object() && top.contains("run") ? top.at("run") : top;
    RunReport r;
    r.id = field<std::int64_t>(j, "id");
    r.created_at = field<std::string>(j, "created_at");
    r.updated_at = field<std::string>(j, "updated_at");
    r.status = field<std::string>(j, "status");
    r.device = field<std::string>(j, "device");
    r.target = field<std::string>(j, "target");
    r.model = field<std::string>(j, "model");
    r.epochs_done = field<std::int64_t>(j, "epochs_done");
    r.best_epoch = field<std::int64_t>(j, "best_epoch");
    if (j.contains("best_val_loss") && !j.at("best_val_loss").is_null())
        r.best_val_loss = field<double>(j, "best_val_loss");
    r.peak_bytes_analytic = bytes_field(j, "peak_bytes_analytic");
    r.peak_bytes_measured = bytes_field(j, "peak_bytes_measured");
    r.settings = j.value("settings", nlohmann::json());
    r.result = j.value("result", nlohmann::json());
    // nlohmann keeps no line numbers: an error names the element by its place in the list.
    const nlohmann::json epochs = field<nlohmann::json>(j, "epochs");
    for (const nlohmann::json& e : epochs) {
        const std::string where = element("epoch", r.epochs.size(), epochs.size());
        try {
            r.epochs.push_back(train::epoch_report_from_json(e));
        } catch (const Error& ex) {
            throw Error(context(where) + ex.message());
        }
    }
    const nlohmann::json layers = field<nlohmann::json>(j, "layer_memory");
    for (const nlohmann::json& l : layers) {
        const std::string where = element("layer_memory row", r.layers.size(), layers.size());
        LayerMemory m;
        m.layer = field<std::int64_t>(l, "layer", where);
        m.name = field<std::string>(l, "name", where);
        m.params = bytes_field(l, "params", where);
        m.grads = bytes_field(l, "grads", where);
        m.optimizer = bytes_field(l, "optimizer", where);
        m.activations = bytes_field(l, "activations", where);
        m.workspace = bytes_field(l, "workspace", where);
        m.measured = field<bool>(l, "measured", where);
        r.layers.push_back(std::move(m));
    }
    return r;
}

Table run_csv(const RunReport& r)
{
    if (r.epochs.empty() && !result_splits(r).empty()) return result_splits_csv(r);
    Table t;
    t.columns = {"epoch", "train_loss"};
    for (const char* s : {"val", "test"})
        for (const char* m : {"loss", "mae", "rmse", "pearson", "spearman", "kendall"})
            t.columns.push_back(std::string(s) + "_" + m);
    t.columns.push_back("seconds");
    t.columns.push_back("improved");
    for (const train::EpochReport& e : r.epochs) {
        std::vector<std::string> row = {std::to_string(e.epoch), format_number(e.train_loss, 9)};
        for (const train::SplitResult* s : {&e.validation, &e.test}) {
            row.push_back(format_number(s->loss, 9));
            row.push_back(format_number(s->metrics.mae, 9));
            row.push_back(format_number(s->metrics.rmse, 9));
            row.push_back(format_number(s->metrics.pearson.value, 9));
            row.push_back(format_number(s->metrics.spearman.value, 9));
            row.push_back(format_number(s->metrics.kendall.value, 9));
        }
        row.push_back(format_number(e.seconds, 6));
        row.push_back(e.improved ? "1" : "0");
        t.rows.push_back(std::move(row));
    }
    return t;
}

Document run_document(const RunReport& r)
{
    Document doc;
    doc.title = "Training run " + std::to_string(r.id) + ": " + r.model + " on " + r.target;
    doc.subtitle = r.status + ", " + std::to_string(r.epochs_done) + " epochs on " + r.device +
                   ", created " + r.created_at;

    doc.add(Heading{"Run"});
    KeyValues run;
    run.rows = {{"status", r.status},
                {"model", r.model},
                {"target", r.target},
                {"device", r.device},
                {"epochs done", std::to_string(r.epochs_done)},
                {"best epoch", r.best_epoch > 0 ? std::to_string(r.best_epoch) : "none"},
                {"best validation loss",
                 r.best_val_loss ? format_number(*r.best_val_loss) : std::string()},
                {"peak memory (analytic)", format_bytes(double(r.peak_bytes_analytic))},
                {"peak memory (measured)", r.peak_bytes_measured > 0
                                               ? format_bytes(double(r.peak_bytes_measured))
                                               : "not measured"},
                {"created", r.created_at},
                {"updated", r.updated_at}};
    if (r.result.is_object() && r.result.contains("parameters"))
        run.rows.push_back({"parameters", setting_text(r.result.at("parameters"))});
    if (r.result.is_object() && r.result.contains("error") && r.result.at("error").is_string())
        run.rows.push_back({"error", r.result.at("error").get<std::string>()});
    doc.add(std::move(run));

    if (r.settings.is_object() && !r.settings.empty()) {
        doc.add(Heading{"Settings"});
        KeyValues kv;
        for (const auto& [k, v] : r.settings.items()) kv.rows.push_back({k, setting_text(v)});
        doc.add(std::move(kv));
    }

    doc.add(Heading{"Final metrics"});
    Table final = final_metrics_table(r);
    if (final.rows.empty()) doc.add(Paragraph{"No epoch has finished yet."});
    else doc.add(std::move(final));

    // A symgraph run's rules, as `gsr rules` prints them.
    const nlohmann::json* rules =
        r.result.is_object() && r.result.contains("rules") ? &r.result.at("rules") : nullptr;
    if (rules && rules->is_object() && rules->contains("rules") && rules->at("rules").is_array()) {
        doc.add(Heading{"Rules"});
        std::size_t i = 0;
        for (const nlohmann::json& rule : rules->at("rules"))
            if (rule.is_object() && rule.contains("text") && rule.at("text").is_string())
                doc.add(Paragraph{std::to_string(++i) + ". " + rule.at("text").get<std::string>()});
        if (rules->contains("fallback") && rules->at("fallback").is_object() &&
            rules->at("fallback").contains("text") && rules->at("fallback").at("text").is_string())
            doc.add(Paragraph{rules->at("fallback").at("text").get<std::string>()});
        add_rules_legend(*rules, doc);
    }

    if (!r.epochs.empty()) {
        doc.add(Heading{"Charts"});
        std::vector<LineSeries> loss = {{"train (steps)", {}, palette(0), false},
                                        {"validation", {}, palette(1), false},
                                        {"test", {}, palette(2), false}};
        static const char* corr[] = {"Pearson", "Spearman", "Kendall"};
        std::vector<LineSeries> metrics;
        for (int which = 2; which >= 1; --which)
            for (int m = 0; m < 3; ++m)
                metrics.push_back({std::string(corr[m]) + (which == 2 ? " (test)" : " (val)"),
                                   {},
                                   palette(std::size_t(m)),
                                   which == 1});
        for (const train::EpochReport& e : r.epochs) {
            const double x = e.epoch;
            loss[0].points.push_back({x, e.train_loss});
            loss[1].points.push_back({x, e.validation.loss});
            loss[2].points.push_back({x, e.test.loss});
            for (int which = 2, k = 0; which >= 1; --which)
                for (const train::Correlation* c :
                     {&split(e, which).metrics.pearson, &split(e, which).metrics.spearman,
                      &split(e, which).metrics.kendall})
                    metrics[std::size_t(k++)].points.push_back({x, c->value});
        }
        // A series with no defined value would only add a legend entry.
        auto drop_empty = [](std::vector<LineSeries>& v) {
            std::erase_if(v, [](const LineSeries& s) {
                return std::none_of(s.points.begin(), s.points.end(),
                                    [](const Point& p) { return std::isfinite(p.y); });
            });
        };
        drop_empty(loss);
        drop_empty(metrics);
        doc.add(Figure{line_chart("Loss per epoch", "epoch", "loss", loss, 720, 360),
                       "Training loss is the mean of the epoch's step losses; validation and "
                       "test losses are evaluated after its last step."});
        if (!metrics.empty())
            doc.add(Figure{line_chart("Rank and linear correlation per epoch", "epoch",
                                      "correlation", metrics, 720, 380),
                           "Solid: the test circuits (never trained on); dashed: validation."});
        else
            doc.add(Paragraph{"The correlations are undefined on every epoch (a split without "
                              "variance)."});
    }

    if (!r.layers.empty()) {
        doc.add(Heading{"Memory per layer"});
        doc.add(Figure{memory_chart(r.layers),
                       r.layers.front().measured
                           ? "Measured per layer."
                           : "The analytic per-layer model; the measured peak of the whole "
                             "step is in the Run table."});
        Table t;
        t.columns = {"layer", "name", "parameters", "gradients", "optimizer", "activations",
                     "workspace", "total"};
        t.numeric = {true, false, true, true, true, true, true, true};
        for (const LayerMemory& l : r.layers)
            t.rows.push_back({std::to_string(l.layer), l.name, format_bytes(double(l.params)),
                              format_bytes(double(l.grads)), format_bytes(double(l.optimizer)),
                              format_bytes(double(l.activations)),
                              format_bytes(double(l.workspace)), format_bytes(double(l.total()))});
        doc.add(std::move(t));
    }

    doc.add(Heading{"Epochs"});
    Table epochs;
    epochs.columns = {"epoch", "train loss", "val loss", "test loss", "test MAE",
                      "test Pearson", "test Spearman", "test Kendall", "seconds"};
    epochs.numeric = std::vector<bool>(epochs.columns.size(), true);
    for (const train::EpochReport& e : r.epochs) {
        epochs.rows.push_back({std::to_string(e.epoch), format_number(e.train_loss),
                               format_number(e.validation.loss), format_number(e.test.loss),
                               format_number(e.test.metrics.mae),
                               format_number(e.test.metrics.pearson.value),
                               format_number(e.test.metrics.spearman.value),
                               format_number(e.test.metrics.kendall.value),
                               format_number(e.seconds, 3)});
        epochs.highlight.push_back(static_cast<std::int64_t>(e.epoch) == r.best_epoch);
    }
    if (epochs.rows.empty()) doc.add(Paragraph{"No epoch recorded."});
    else doc.add(std::move(epochs));
    return doc;
}

} // namespace gsr::report
