#include "panels/tune_runner.hpp"

#include "panels/candidates_table_model.hpp"
#include "panels/circuit_graph_source.hpp"
#include "panels/tune_includes.hpp"
#include "util/diagnostics.hpp"

#include <QDeadlineTimer>
#include <QThread>

#include <algorithm>
#include <exception>

namespace gsr::views {

namespace {

/// The evaluator search() is given: runs the real one until cancelled, then answers at once.
/// Each real trial is handed to `on_trial` as the candidate the session will hold.
class CancellableEvaluator : public tune::Evaluator {
public:
    using OnTrial = std::function<void(const tune::CandidateRecord&)>;

    CancellableEvaluator(tune::Evaluator& inner, const std::atomic<bool>& cancel,
                         const tune::SearchOptions& options, double gaming_bound, OnTrial on_trial)
        : inner_(inner), cancel_(cancel), options_(options), gaming_bound_(gaming_bound),
          on_trial_(std::move(on_trial))
    {
    }

    tune::Evaluation evaluate(const tune::KernelConfig& config) override
    {
        if (cancel_) return {tune::Verdict::Unsupported, 0, "cancelled before it ran", {}};
        tune::Evaluation e;
        try {
            e = inner_.evaluate(config);
        } catch (...) {
            e = {tune::Verdict::Crash, 0,
                 "the evaluator failed: " +
                     describe_failure(std::current_exception()).toStdString(),
                 {}};
        }
        report(config, e);
        return e;
    }

    std::size_t ran() const { return ran_; }

private:
    /// The candidate as the final session will have it: search()'s gaming rule, and for a
    /// SOL search its origin (odd trials take an unvisited neighbour of the best when there
    /// is one; no such neighbour means the pick cannot be one).
    void report(const tune::KernelConfig& config, const tune::Evaluation& e)
    {
        tune::CandidateRecord c;
        c.id = ran_;
        c.label = tune::to_text(config);
        c.verdict = e.verdict;
        c.seconds = e.seconds;
        c.detail = e.detail;
        copy_profile_signals(e, c);
        if (e.ok() && gaming_bound_ > 0 && sol::is_gaming(e.seconds, gaming_bound_)) {
            c.verdict = tune::Verdict::Gaming;
            c.detail = "faster than T_SOL by more than 5%: it cannot have done the work";
        }
        switch (options_.strategy) {
        case tune::Strategy::Grid: c.origin = "grid"; break;
        case tune::Strategy::Random: c.origin = "random"; break;
        case tune::Strategy::Sol:
            if (best_ && ran_ % 2 == 1 && tune::are_neighbours(config, best_config_)) {
                c.origin = "neighbour";
                c.parent = best_id_;
            } else {
                c.origin = "predicted";
            }
            break;
        }
        if (c.verdict == tune::Verdict::Ok && c.seconds > 0 && (!best_ || c.seconds < best_s_)) {
            best_ = true;
            best_s_ = c.seconds;
            best_id_ = c.id;
            best_config_ = config;
        }
        ++ran_;
        on_trial_(c);
    }

    tune::Evaluator& inner_;
    const std::atomic<bool>& cancel_;
    tune::SearchOptions options_;
    double gaming_bound_ = 0;
    OnTrial on_trial_;
    std::size_t ran_ = 0;
    bool best_ = false;
    double best_s_ = 0;
    std::size_t best_id_ = 0;
    tune::KernelConfig best_config_;
};

} // namespace

TuneRunner::TuneRunner(QObject* parent) : QObject(parent)
{
    qRegisterMetaType<tune::TuneSession>();
    qRegisterMetaType<tune::CandidateRecord>();
}

TuneRunner::~TuneRunner()
{
    if (thread_) {
        if (cancel_) *cancel_ = true;
        thread_->wait();
        delete thread_;
    }
}

bool TuneRunner::start(const tune::Problem& problem, const sol::DeviceSpec& device,
                       const sol::SolAnalysis& bounds, const tune::SearchOptions& options,
                       std::unique_ptr<tune::Evaluator> evaluator)
{
    if (running_ || !evaluator) return false;
    if (thread_) {
        thread_->wait();
        delete thread_;
        thread_ = nullptr;
    }
    running_ = true;
    problem_ = problem.name;
    cancel_ = std::make_shared<std::atomic<bool>>(false);
    Job job{problem, device, bounds, options};
    thread_ = QThread::create(&TuneRunner::work, this, std::move(job),
                              std::shared_ptr<tune::Evaluator>(std::move(evaluator)), cancel_);
    thread_->setObjectName(QStringLiteral("gsr-tune"));
    thread_->start();
    Q_EMIT launched();
    return true;
}

void TuneRunner::cancel()
{
    if (running_ && cancel_) *cancel_ = true;
}

void TuneRunner::work(TuneRunner* self, Job job, std::shared_ptr<tune::Evaluator> evaluator,
                      std::shared_ptr<std::atomic<bool>> cancel)
{
    auto post = [self](auto&& body) {
        QMetaObject::invokeMethod(self, std::forward<decltype(body)>(body), Qt::QueuedConnection);
    };
    const std::string strategy(tune::strategy_name(job.options.strategy));
    tune::TuneSession session;
    QString error;
    bool cancelled = false;
    try {
        const sol::SolAnalysis& a = job.bounds;
        // As `gsr kernels tune`: the calibrated T_SOL steers the search, and gaming is judged
        // by the more permissive of the calibrated and datasheet bounds.
        const double gaming = sol::gaming_bound(a);
        session = tune::make_session(job.problem, a, strategy);
        // First what the search is compared with, as `gsr kernels tune` does.
        if (!cancel->load()) tune::set_baseline(session, evaluator->baseline());
        const std::vector<tune::KernelConfig> space = tune::config_space(job.problem, job.device);
        const std::size_t planned = std::min(job.options.budget, space.size());
        post([self, session, planned] { Q_EMIT self->started(session, planned); });
        std::size_t done = 0;
        CancellableEvaluator wrapper(*evaluator, *cancel, job.options, gaming,
                                     [&](const tune::CandidateRecord& c) {
                                         ++done;
                                         post([self, c, done, planned] {
                                             Q_EMIT self->candidateFinished(c, done, planned);
                                         });
                                     });
        tune::SearchResult r =
            tune::search(job.problem, job.device, space, wrapper, job.options, a.t_sol, gaming);
        cancelled = cancel->load();
        // Only the trials that ran: the unrun ones after a cancel are a suffix.
        if (r.trials.size() > wrapper.ran()) r.trials.resize(wrapper.ran());
        if (r.best && *r.best >= r.trials.size()) r.best.reset();
        tune::add_search(session, r);
        link_search_lineage(session);
        session.stop_reason = cancelled ? "cancelled" : r.stop_reason;
        if (space.empty())
            error = QStringLiteral("no valid config of %1 on %2")
                        .arg(QString::fromStdString(job.problem.name),
                             QString::fromStdString(job.device.name));
    } catch (...) {
        error = describe_failure(std::current_exception());
    }
    post([self, session, cancelled, error] {
        self->running_ = false;
        Q_EMIT self->finished(session, cancelled, error);
    });
}

} // namespace gsr::views
