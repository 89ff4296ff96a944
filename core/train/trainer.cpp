#include "train/trainer.hpp"

#include "nn/gpu_runtime.hpp"

#include "nn/backend.hpp" // Model's default backend argument needs the complete type
#include "nn/model.hpp"
#include "train/report_json.hpp"
#include "util/diagnostics.hpp"
#include "util/json_text.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>

namespace gsr::train {

namespace {

constexpr double kInfinity = std::numeric_limits<double>::infinity();
constexpr char kRngMagic[8] = {'G', 'S', 'R', 'R', 'N', 'G', '1', '\0'};
constexpr const char* kStateFormat = "gsr.trainer-state";
constexpr int kStateVersion = 1;

std::vector<std::uint8_t> encode_stream(const SeededStream& s)
{
    std::vector<std::uint8_t> out(kRngMagic, kRngMagic + 8);
    const std::uint64_t state = s.state();
    for (int b = 0; b < 8; ++b) out.push_back(static_cast<std::uint8_t>(state >> (8 * b)));
    return out;
}

std::uint64_t decode_stream(const std::vector<std::uint8_t>& bytes)
{
    if (bytes.size() != 16 || std::memcmp(bytes.data(), kRngMagic, 8) != 0)
        throw Error("its random state is damaged or of another version");
    std::uint64_t state = 0;
    for (int b = 0; b < 8; ++b) state |= std::uint64_t{bytes[8 + b]} << (8 * b);
    return state;
}

double sigmoid(double x) { return 1.0 / (1.0 + std::exp(-x)); }

/// The loss of one prediction in learning units, as the engine defines its losses.
double loss_of(nn::LossKind kind, double p, double t)
{
    if (kind == nn::LossKind::MeanSquaredError) return (p - t) * (p - t);
    // Binary cross-entropy on a logit, in the overflow-free form.
    return std::max(p, 0.0) - p * t + std::log1p(std::exp(-std::abs(p)));
}

/// The configuration a checkpoint must match to be resumed: everything that changes what the
/// next epoch computes.
nlohmann::json fingerprint(const TrainConfig& c, const Dataset& d, const Batcher& b)
{
    nlohmann::json print = {{"target", std::string(target_name(d.target))},
            {"batcher", b.name()},
            {"loss", std::string(nn::loss_kind_name(c.loss))},
            {"model", std::string(nn::model_kind_name(c.model.kind))},
            {"layers", c.model.layers},
            {"hidden", c.model.hidden},
            {"groups", c.model.groups},
            {"topk", c.model.topk},
            {"features", d.feature_count},
            {"batch", c.batch_size},
            {"seed", c.seed},
            {"model_seed", c.model.seed},
            {"lr", c.adam.learning_rate},
            {"target_mean", d.target_mean},
            {"target_scale", d.target_scale}};
    if (c.warmup_steps > 0) print["warmup"] = c.warmup_steps; // older runs have none
    // Only batchers with knobs add the key, so runs recorded before they existed resume.
    if (nlohmann::json knobs = b.settings(); !knobs.is_null()) print["batching"] = knobs;
    return print;
}

/// Why a checkpoint's fingerprint is not this run's: the first key that differs.
std::string describe_difference(const nlohmann::json& saved, const nlohmann::json& now)
{
    for (auto it = now.begin(); it != now.end(); ++it) {
        const auto s = saved.find(it.key());
        if (s != saved.end() && *s == it.value()) continue;
        const std::string change = it.key() + " was " +
                                   (s == saved.end() ? "not recorded" : json_text(*s)) + ", is " +
                                   json_text(it.value());
        // These come from the circuits, not from a setting.
        if (it.key() == "features" || it.key() == "target_mean" || it.key() == "target_scale")
            return "the run's circuits changed since it began (" + change + ")";
        return "the run was started with other settings (" + change + ")";
    }
    return "the run was started with other settings";
}

} // namespace

void validate(const TrainConfig& config, Target target)
{
    if (config.epochs < 1) throw Error("--epochs must be at least 1");
    if (!(config.adam.learning_rate > 0) || !std::isfinite(config.adam.learning_rate))
        throw Error("--lr must be a positive number");
    if (config.loss == nn::LossKind::BinaryCrossEntropyWithLogits &&
        target != Target::SignalProbability && target != Target::Toggle)
        throw Error("--loss bce needs a target in [0, 1] (sp or toggle), not " +
                    std::string(target_name(target)));
    if (!(config.min_delta >= 0)) throw Error("--min-delta must be >= 0");
    nn::validate(config.model);
    nn::validate(config.adam);
}

// ---------------------------------------------------------------------------------------------

struct Trainer::State {
    explicit State(const TrainConfig& c, std::size_t features)
        : model(c.model, features, c.adam, backend_for(c, kernel_notes)), stream(c.seed)
    {
    }

    /// The GPU backend with the applied kernels handed over (null: the model's CPU backend).
    static std::unique_ptr<nn::Backend> backend_for(const TrainConfig& c,
                                                    std::vector<std::string>& notes)
    {
        if (c.device != "gpu") return nullptr;
        std::unique_ptr<nn::Backend> be = nn::make_gpu_backend(c.model.precision);
        if (!c.tuned_kernels.empty()) notes = be->use_tuned_kernels(c.tuned_kernels);
        return be;
    }

    static constexpr std::ptrdiff_t kNothing = -1, kSubgraph = -2;

    std::vector<std::string> kernel_notes; // before model: backend_for fills it
    nn::Model model;
    SeededStream stream;
    std::ptrdiff_t bound = kNothing; ///< circuit bound to the model, or kSubgraph
    Subgraph step_graph;             ///< the latest mini-batch subgraph
    std::vector<float> step_targets; ///< its targets, in learning units
    std::size_t peak = 0;
    std::vector<nn::LayerMemory> measured_layers; ///< row-wise high-water over every binding
    double best_loss = kInfinity;
    std::uint32_t bad_epochs = 0;
    std::optional<EpochReport> best;
    /// The finished epoch whose weights the model holds; 0 once a step changed them.
    std::uint32_t weights_epoch = 0;
    std::vector<std::vector<float>> targets; ///< per circuit, in learning units

    /// The arena's high-water mark over every binding so far (binding resets the engine's).
    std::size_t peak_bytes()
    {
        if (bound != kNothing) {
            peak = std::max(peak, model.measured_peak_bytes());
            nn::merge_measured_layers(measured_layers, model.measured_layers());
        }
        return peak;
    }

    void bind(const Dataset& d, std::size_t c)
    {
        if (bound == static_cast<std::ptrdiff_t>(c)) return;
        peak_bytes();
        model.bind_graph(d.circuits[c].input);
        bound = static_cast<std::ptrdiff_t>(c);
    }

    /// Binds step_graph and gathers its targets from circuit c's.
    void bind_step_graph(std::size_t c)
    {
        peak_bytes();
        model.bind_graph(step_graph.input);
        bound = kSubgraph;
        step_targets.resize(step_graph.nodes.size());
        for (std::size_t i = 0; i < step_graph.nodes.size(); ++i)
            step_targets[i] = targets[c][step_graph.nodes[i]];
    }
};

Trainer::Trainer(const Dataset& data, const TrainConfig& config) : data_(data), config_(config)
{
    validate(config_, data_.target);
    if (data_.circuits.empty()) throw Error("the data set has no circuits");
    batcher_ = make_batcher(config_.batch_size);
}

void Trainer::set_batcher(std::unique_ptr<Batcher> batcher)
{
    if (!batcher) throw std::invalid_argument("Trainer::set_batcher: no batcher");
    batcher->check(config_.model);
    batcher_ = std::move(batcher);
}

Trainer::~Trainer() = default;

TrainResult Trainer::run(RunLog& log, const TrainCallbacks& callbacks, bool resume)
{
    using Clock = std::chrono::steady_clock;
    state_ = std::make_unique<State>(config_, data_.feature_count);
    State& s = *state_;
    const bool bce = config_.loss == nn::LossKind::BinaryCrossEntropyWithLogits;
    const double mean = bce ? 0.0 : data_.target_mean;
    const double scale = bce ? 1.0 : data_.target_scale;
    for (const CircuitData& c : data_.circuits) {
        std::vector<float> t(c.target.size());
        for (std::size_t v = 0; v < t.size(); ++v)
            t[v] = static_cast<float>((c.target[v] - mean) / scale);
        s.targets.push_back(std::move(t));
    }

    TrainResult result;
    const nlohmann::json print = fingerprint(config_, data_, *batcher_);
    if (resume) {
        if (std::optional<Checkpoint> ck = log.last_checkpoint()) {
            const std::string which = "the checkpoint of epoch " + std::to_string(ck->epoch);
            nlohmann::json saved = nlohmann::json::parse(
                std::string(ck->optimizer.begin(), ck->optimizer.end()), nullptr, false);
            // Comparisons, not value(): a field of another type must not throw here.
            if (!saved.is_object() || !saved.contains("fingerprint") ||
                saved["format"] != kStateFormat || saved["version"] != kStateVersion)
                throw Error(which + " has no trainer state this build can read");
            if (saved.at("fingerprint") != print)
                throw Error(describe_difference(saved.at("fingerprint"), print));
            try {
                s.model.load_state(ck->model);
                s.stream.set_state(decode_stream(ck->rng));
                s.best_loss = number_at(saved, "best_loss", kInfinity);
                s.bad_epochs = saved.value("bad_epochs", 0u);
                if (saved.contains("best") && saved["best"].is_object())
                    s.best = epoch_report_from_json(saved["best"]);
                if (saved.contains("last") && saved["last"].is_object())
                    result.last = epoch_report_from_json(saved["last"]);
            } catch (const nlohmann::json::exception& e) {
                throw Error(which + " cannot be read: " + json_error_text(e));
            } catch (const Error& e) {
                throw Error(which + " cannot be read: " + e.message());
            }
            result.first_epoch = ck->epoch + 1;
            result.epochs_done = ck->epoch;
            s.weights_epoch = ck->epoch;
        }
    }

    // Memory: every circuit is bound in the run (to train on or to evaluate) and the arena's
    // high-water mark covers them all, so the analytic figures are the largest over the
    // circuits, the peak's and each row's (from their shapes; nothing is bound for it); one
    // circuit's (the most nodes and edges) fell short of the measured peak when another
    // circuit had more nodes. The largest is bound first.
    std::size_t largest = 0;
    nn::MemoryReport memory;
    std::vector<nn::LayerMemory> rows;
    for (std::size_t c = 0; c < data_.circuits.size(); ++c) {
        const nn::GraphInput& in = data_.circuits[c].input;
        nn::MemoryReport m = nn::estimate_memory(
            s.model.config(), nn::GraphShape{in.node_count, in.edge_count(), data_.feature_count});
        nn::merge_measured_layers(rows, m.layers);
        if (c == 0 || m.analytic_peak_bytes > memory.analytic_peak_bytes) {
            memory = std::move(m);
            largest = c;
        }
    }
    memory.layers = std::move(rows);
    s.bind(data_, largest);
    result.memory = std::move(memory);
    result.parameter_count = s.model.parameter_count();
    log.begin(result.memory);

    batcher_->prepare(data_);
    const bool have_validation = data_.node_count(Split::Validation) > 0;
    const auto cancelled = [&] { return callbacks.cancel && callbacks.cancel->load(); };
    auto finish = [&](TrainResult::Status status) {
        restore_best(log);
        result.model_epoch = s.weights_epoch;
        result.status = status;
        result.best = s.best;
        result.memory.measured_peak_bytes = s.peak_bytes();
        result.memory.measured_layers = s.measured_layers;
        result.kernel_notes = s.kernel_notes;
        result.tuned_launches = s.model.backend().tuned_launches();
        log.end(std::string(status_name(status)), train_result_json(result));
        return result;
    };
    if (config_.patience > 0 && s.bad_epochs >= config_.patience)
        return finish(TrainResult::Status::StoppedEarly);

    for (std::uint32_t epoch = result.first_epoch; epoch <= config_.epochs; ++epoch) {
        const auto start = Clock::now();
        const std::vector<Batch> batches = batcher_->epoch_batches(data_, s.stream);
        std::size_t step_nodes = 0;
        Progress progress;
        progress.epoch = epoch;
        progress.epochs = config_.epochs;
        progress.steps = batches.size();
        double loss_sum = 0.0;
        std::size_t loss_nodes = 0;
        for (const Batch& batch : batches) {
            const std::size_t total = batch.node_count();
            if (total == 0) continue;
            s.model.zero_gradients();
            double batch_loss = 0.0;
            for (const BatchPart& part : batch.parts) {
                if (cancelled()) return finish(TrainResult::Status::Cancelled);
                const double share = static_cast<double>(part.nodes.size()) / total;
                if (batcher_->step_graph(data_, part, s.stream, s.step_graph)) {
                    s.bind_step_graph(part.circuit);
                    step_nodes += s.step_graph.nodes.size();
                    batch_loss += share * s.model.accumulate_gradients(
                                              s.step_graph.loss_nodes, s.step_targets,
                                              config_.loss, share);
                } else {
                    s.bind(data_, part.circuit);
                    step_nodes += data_.circuits[part.circuit].input.node_count;
                    batch_loss += share * s.model.accumulate_gradients(
                                              part.nodes, s.targets[part.circuit],
                                              config_.loss, share);
                }
            }
            if (config_.warmup_steps > 0) {
                // Step count of the model: a resumed run continues the ramp where it was.
                const double ramp = std::min(1.0, double(s.model.step_count() + 1) /
                                                      double(config_.warmup_steps));
                s.model.set_learning_rate(config_.adam.learning_rate * ramp);
            }
            s.model.adam_step();
            s.weights_epoch = 0;
            loss_sum += batch_loss * static_cast<double>(total);
            loss_nodes += total;
            ++progress.step;
            progress.loss = batch_loss;
            if (callbacks.progress) callbacks.progress(progress);
        }

        // Evaluation: one forward pass per circuit gives every split's predictions.
        EpochReport report;
        report.epoch = epoch;
        report.train_seconds = std::chrono::duration<double>(Clock::now() - start).count();
        report.step_nodes = step_nodes;
        report.train_loss = loss_nodes ? loss_sum / static_cast<double>(loss_nodes) : kUndefined;
        struct Pool {
            std::vector<double> prediction, target;
            double loss = 0.0;
        };
        Pool pools[4];
        progress.phase = Progress::Phase::Evaluating;
        progress.step = 0;
        progress.steps = data_.circuits.size();
        for (std::size_t c = 0; c < data_.circuits.size(); ++c) {
            if (cancelled()) return finish(TrainResult::Status::Cancelled);
            const CircuitData& circuit = data_.circuits[c];
            s.bind(data_, c);
            const std::vector<float> out = s.model.predict();
            for (std::size_t v = 0; v < circuit.split.size(); ++v) {
                if (circuit.split[v] == Split::None) continue;
                Pool& p = pools[static_cast<int>(circuit.split[v])];
                p.loss += loss_of(config_.loss, out[v], s.targets[c][v]);
                p.prediction.push_back(bce ? sigmoid(out[v]) : out[v] * scale + mean);
                p.target.push_back(circuit.target[v]);
            }
            ++progress.step;
            if (callbacks.progress) callbacks.progress(progress);
        }
        // A learning rate too high for the model sends its outputs to inf or NaN: say so,
        // where the metrics would refuse them with "NaN at position 0".
        const bool diverged = std::any_of(std::begin(pools), std::end(pools), [](const Pool& p) {
            return std::any_of(p.prediction.begin(), p.prediction.end(),
                               [](double v) { return !std::isfinite(v); });
        });
        if (diverged || (loss_nodes > 0 && !std::isfinite(report.train_loss)))
            throw Error("epoch " + std::to_string(epoch) + ": training diverged (the model's " +
                        (diverged ? "predictions are" : "training loss is") + " not finite): " +
                        "lower the learning rate (--lr), or raise it slowly (--warmup N)");
        auto split_result = [&](Split which) {
            Pool& p = pools[static_cast<int>(which)];
            SplitResult r;
            r.metrics = evaluate(p.prediction, p.target);
            if (!p.target.empty()) r.loss = p.loss / static_cast<double>(p.target.size());
            return r;
        };
        report.train = split_result(Split::Train);
        report.validation = split_result(Split::Validation);
        report.test = split_result(Split::Test);

        const double watched = have_validation ? report.validation.loss : report.train.loss;
        report.improved = watched < s.best_loss - config_.min_delta;
        if (report.improved) {
            s.best_loss = watched;
            s.bad_epochs = 0;
        } else {
            ++s.bad_epochs;
        }
        report.seconds = std::chrono::duration<double>(Clock::now() - start).count();
        if (report.improved) s.best = report;
        result.last = report;
        result.epochs_done = epoch;

        nlohmann::json state = {{"format", kStateFormat},
                                {"version", kStateVersion},
                                {"fingerprint", print},
                                {"best_loss", json_number(s.best_loss)},
                                {"bad_epochs", s.bad_epochs}};
        if (s.best) state["best"] = epoch_report_json(*s.best);
        state["last"] = epoch_report_json(report);
        const std::string text = json_text(state);
        Checkpoint ck;
        ck.epoch = epoch;
        ck.model = s.model.save_state();
        ck.optimizer.assign(text.begin(), text.end());
        ck.rng = encode_stream(s.stream);
        s.weights_epoch = epoch;
        log.epoch_done(report, ck);
        if (callbacks.epoch) callbacks.epoch(report);

        if (config_.patience > 0 && s.bad_epochs >= config_.patience)
            return finish(TrainResult::Status::StoppedEarly);
    }
    return finish(TrainResult::Status::Finished);
}

void Trainer::restore_best(RunLog& log)
{
    State& s = *state_;
    if (!s.best || s.weights_epoch == s.best->epoch) return;
    // Reading the weights back is an extra of a run whose epochs are all recorded: no failure
    // here may fail the run. A log that lost the checkpoint (a project of an older build kept
    // only the newest two) or holds a damaged one leaves the weights the run has, which
    // model_epoch names; a load that failed part-way through (the device, memory) leaves
    // weights of no epoch, replaced by the last checkpoint's where that can be read.
    const auto load = [&](std::optional<Checkpoint> ck, std::uint32_t epoch) {
        if (!ck || ck->epoch != epoch) return false;
        try {
            s.model.load_state(ck->model); // checks the whole state before it loads any of it
        } catch (const Error&) {
            return false; // refused before anything was loaded
        }
        s.weights_epoch = epoch;
        return true;
    };
    try {
        if (load(log.checkpoint_of(s.best->epoch), s.best->epoch)) return;
    } catch (const std::exception&) {
        s.weights_epoch = 0;
    }
    if (s.weights_epoch != 0) return; // the last epoch's, as the run ended
    // Cancelled within an epoch, or a load that failed part-way: the last finished epoch's.
    try {
        if (std::optional<Checkpoint> last = log.last_checkpoint()) load(last, last->epoch);
    } catch (const std::exception&) {
        s.weights_epoch = 0;
    }
}

std::vector<double> Trainer::predict(std::size_t circuit)
{
    if (!state_) throw std::logic_error("Trainer::predict before run");
    state_->bind(data_, circuit);
    const std::vector<float> out = state_->model.predict();
    const bool bce = config_.loss == nn::LossKind::BinaryCrossEntropyWithLogits;
    std::vector<double> p(out.size());
    for (std::size_t v = 0; v < out.size(); ++v)
        p[v] = bce ? sigmoid(out[v]) : out[v] * data_.target_scale + data_.target_mean;
    return p;
}

DeviceChoice choose_device(std::string_view asked, std::uint32_t hidden)
{
    if (asked == "cpu") return {"cpu", "CPU", {}};
    if (asked != "auto" && asked != "gpu")
        throw Error("--device: unknown device '" + std::string(asked) +
                    "' (allowed: auto, cpu, gpu)");
    const nn::GpuStatus gpu = nn::gpu_status();
    if (gpu.available && !gpu.takes(hidden)) {
        const std::string why = "the GPU backend takes --hidden up to " +
                                std::to_string(gpu.max_hidden) + ", this model has " +
                                std::to_string(hidden);
        if (asked == "gpu") throw Error("--device gpu: " + why + "; use --device cpu or auto");
        return {"cpu", "CPU", "no GPU used: " + why + "; training on the CPU"};
    }
    if (gpu.available) return {"gpu", gpu.name, {}};
    if (asked == "gpu")
        throw Error("--device gpu: " + gpu.reason + "; use --device cpu or auto");
    return {"cpu", "CPU", "no GPU used: " + gpu.reason + "; training on the CPU"};
}

} // namespace gsr::train
