#pragma once
// The Profiling panel: the kernels behind training and how far each is from its speed-of-light
// bound, and the search for faster ones.
//
//   problems   the engine's hot operations at the current model and circuit
//              (tune/engine_problems.hpp) and the built-in suite, with T_SOL, bound and the
//              best %SOL found so far on the selected device (the device table's rows; the
//              probed GPU's by default, else H100 SXM)
//   SOL        of the selected problem: T_SOL, bound, intensity, ridge, baseline
//   Tune       strategy (grid, random, sol) and budget; the search runs on a worker thread
//              (TuneRunner) through an Evaluator from an injectable factory, each finished
//              trial streams into the table, the roofline and the lineage; Cancel stops it
//              between trials. Without a factory (or a GPU it needs) Tune is off and says why.
//   views      candidates table (time, T_SOL, %SOL, bound, verdict; gaming flagged, never
//              best), log-log roofline, lineage tree (parent -> child with each change)
//   files      open/save a session as JSON (tune_session_from_json / to_json); Export report
//              calls a hook the app connects to the report module
//   Apply      hands the shown session of an engine problem to a hook the app connects to
//              the open project (TuneStore::apply): its best verified config then runs in
//              the next GPU training run (tune/applied_kernels.hpp)
// Tune logs `gsr kernels tune PROBLEM --strategy S --budget N` to the console.
#include "nn/gpu_runtime.hpp"
#include "nn/graph_input.hpp"
#include "nn/model_config.hpp"
#include "panels/tune_runner.hpp"
#include "panels/tune_includes.hpp"

#include <QString>
#include <QStringList>
#include <QWidget>

#include <functional>
#include <map>
#include <set>
#include <optional>
#include <vector>

class QComboBox;
class QLabel;
class QProgressBar;
class QPushButton;
class QSortFilterProxyModel;
class QSpinBox;
class QStandardItemModel;
class QTableView;
class QTreeView;

namespace gsr::views {

class CandidatesTableModel;
class LineageModel;
class RooflineChart;

class ProfilingPanel : public QWidget {
    Q_OBJECT

public:
    /// Writes the report of each of `sessions` to the file of the same place in `files` (the
    /// format follows its extension); throws gsr::Error naming the file when it cannot (an
    /// extension it does not know: before writing any).
    using ReportExporter = std::function<void(const std::vector<tune::TuneSession>& sessions,
                                              const QStringList& files)>;
    /// What Apply did: the equivalent command line and one note per kernel.
    struct ApplyOutcome {
        QString command;
        QStringList notes;
    };
    /// Keeps the best config of an engine problem's session for training; throws gsr::Error.
    using KernelApplier = std::function<ApplyOutcome(const tune::TuneSession& session)>;
    /// Reads the calibration a project keeps; none when it keeps none. An unreadable one:
    /// none, and `error` says why (naming the project).
    using CalibrationSource = std::function<std::optional<sol::Calibration>(QString* error)>;
    /// Asked before a search that is neither saved nor applied is replaced (Tune again, Open
    /// Session of its problem), and before Export Report of several sessions replaces files
    /// beside the chosen one; true to replace. None: replace without asking.
    using ReplaceQuestion = std::function<bool(const QString& question)>;
    /// Columns of the problem list.
    enum ProblemColumn { NameColumn, TsolColumn, BestColumn, BoundColumn, FamilyColumn,
                         ProblemColumnCount };
    static constexpr int ProblemNameRole = Qt::UserRole + 1;

    explicit ProfilingPanel(QWidget* parent = nullptr);
    ~ProfilingPanel() override;

    /// @brief The evaluator Tune uses. `needs_gpu`: Tune stays off while nn::gpu_status()
    /// has no usable GPU (the GPU worker); false for evaluators that run anywhere (tests,
    /// the demo).
    void setEvaluatorFactory(EvaluatorFactory factory, bool needs_gpu = true);
    void setReportExporter(ReportExporter exporter);
    /// Apply is on only with an applier (the app sets one while a project is open).
    void setKernelApplier(KernelApplier applier);
    /// The calibration the open project keeps (`gsr kernels calibrate --project`, its `source`
    /// the project's path): the bounds on the device it was measured on (its row of the table,
    /// or any row when it was measured on the GPU in hand) divide by its peaks, and Tune's
    /// command line names the project, as `gsr kernels tune --project` reads it. None: the
    /// device table's peaks. Where it is not used, a note says why, once.
    void setCalibration(std::optional<sol::Calibration> calibration);
    /// The CUDA name of the GPU Tune runs on, as the worker reports it (nn::gpu_status()'s
    /// unless set): a calibration measured on it applies whichever row is selected.
    void setGpuName(const QString& cuda_name) { gpu_name_ = cuda_name.toStdString(); }
    /// Where the calibration comes from while a project is open: read now, and again when the
    /// panel is shown and when Tune starts, so that `gsr kernels calibrate --project` run
    /// while the window is open counts (a note says when it was unreadable, once per reason).
    /// None: the calibration stays as setCalibration left it.
    void setCalibrationSource(CalibrationSource source);
    const std::optional<sol::Calibration>& calibration() const { return calibration_; }
    /// A line over the views (the screenshot's "demo session" label); empty hides it.
    void setBanner(const QString& text);
    void setReplaceQuestion(ReplaceQuestion question) { replace_question_ = std::move(question); }
    /// Problems whose finished search is neither saved (Save Session) nor applied.
    QStringList unsavedSessions() const;

    /// The Training panel's model: the engine problems follow its depth, width, groups and k.
    void setModelConfig(const nn::ModelConfig& config);
    /// The circuit the engine problems are sized for; `name` labels them.
    void setGraphShape(const nn::GraphShape& shape, const QString& name);

    /// Engine problems first, then the suite's, then problems only an opened session names.
    QStringList problemNames() const;
    /// The problem shown; null when none (or only an opened session names it).
    const tune::Problem* currentProblem() const;
    QString currentProblemName() const { return current_; }
    bool selectProblem(const QString& name);
    QString deviceName() const;
    bool setDevice(const QString& name);
    void setStrategy(const QString& name);
    void setBudget(int trials);

    bool isTuning() const { return runner_->isRunning(); }
    /// Why Tune is off, in words; empty when it is on.
    QString whyTuneIsOff() const;
    QString statusText() const;
    /// The SOL analysis line of the selected problem.
    QString solText() const;
    /// The session of `problem` (tuned or opened in this window); null when none.
    const tune::TuneSession* session(const QString& problem) const;

    /// @brief Writes the shown session as JSON. False (with the reason) when it cannot.
    bool saveSession(const QString& path, QString* error = nullptr);
    /// @brief Reads a session, shows it and selects its problem.
    bool openSession(const QString& path, QString* error = nullptr);
    /// @brief Hands every session of this window to the report hook, to the files
    /// reportFiles() names; any of them that exist (beyond `path` itself, which the save
    /// dialog asked about) are replaced only when the replace question says so.
    bool exportReport(const QString& path, QString* error = nullptr);
    /// The files Export Report writes for sessions of `problems` (in that order) when `path`
    /// is chosen: `path` for one; for several, STEM-PROBLEM.EXT beside it each (any character
    /// of the problem but a letter, digit, '.', '-' or '_' as '_'), with -2, -3, ... after
    /// PROBLEM where two names would be one file (letter case aside).
    static QStringList reportFiles(const QStringList& problems, const QString& path);
    /// @brief Hands the shown session to the applier. False (with the reason) when Apply is
    /// off or the applier fails.
    bool applyKernel(QString* error = nullptr);
    /// Why Apply is off, in words; empty when it is on.
    QString whyApplyIsOff() const;

    CandidatesTableModel* candidatesModel() const { return candidates_; }
    LineageModel* lineageModel() const { return lineage_; }
    RooflineChart* roofline() const { return roofline_.get(); }
    QStandardItemModel* problemModel() const { return problems_; }
    QTableView* candidatesView() const { return table_; }
    QTreeView* lineageView() const { return lineage_view_; }
    QPushButton* tuneButton() const { return tune_; }
    QPushButton* cancelButton() const { return cancel_; }
    QPushButton* applyButton() const { return apply_; }
    QProgressBar* progressBar() const { return progress_; }
    TuneRunner* runner() const { return runner_; }

public slots:
    void tune();
    void cancel();

signals:
    void commandIssued(const QString& line);
    void noteIssued(const QString& note);
    void tuningFinished(const gsr::tune::TuneSession& session, bool cancelled);

protected:
    void showEvent(QShowEvent* event) override;

private:
    void buildUi();
    /// Reads the source again; the bounds change only when what it reads does.
    void refreshCalibration();
    void rebuildEngineProblems();
    void refreshProblemList();
    void showProblem(const QString& name);
    void showSession(const tune::TuneSession& session);
    void onStarted(const tune::TuneSession& session, qulonglong planned);
    void onCandidate(const tune::CandidateRecord& c, qulonglong done, qulonglong planned);
    void onFinished(const tune::TuneSession& session, bool cancelled, const QString& error);
    void updateState();
    void setStatus(const QString& text);
    const tune::Problem* findProblem(const QString& name) const;
    /// The session skeleton (bounds, no candidates) of a problem on the selected device.
    std::optional<tune::TuneSession> boundsOf(const tune::Problem& p) const;
    /// Whether the calibration applies to `device`: measured on its row of the table, or on
    /// the GPU in hand (whose row `device` stands in for). False with the reason in `why_not`.
    bool isCalibrated(const sol::DeviceSpec& device, QString* why_not = nullptr) const;
    /// The GPU in hand's CUDA name; empty without one.
    std::string gpuName() const;
    /// The problem's analysis on `device`, with the calibration's peaks where it is of it.
    sol::SolAnalysis analysisOf(const tune::Problem& p, const sol::DeviceSpec& device) const;
    /// False when `problem`'s unsaved search is to be kept (the question said so).
    bool mayReplace(const QString& problem);
    void saveWithDialog();
    void openWithDialog();
    void exportWithDialog();

    EvaluatorFactory factory_;
    bool factory_needs_gpu_ = true;
    mutable std::optional<nn::GpuStatus> gpu_; ///< nn::gpu_status(), probed once
    ReportExporter exporter_;
    KernelApplier applier_;
    std::optional<sol::Calibration> calibration_;
    bool calibration_noted_ = false; ///< the note that it is not used was given
    std::optional<std::string> gpu_name_; ///< setGpuName's
    CalibrationSource calibration_source_;
    /// What the source gave last (its JSON and source, or why it gave none); none before it
    /// was read.
    std::optional<std::string> calibration_read_;
    nn::ModelConfig model_;
    std::optional<nn::GraphShape> shape_;
    QString graph_name_;
    QString engine_error_;
    std::vector<tune::Problem> engine_, suite_;
    std::optional<tune::EngineShape> engine_shape_; ///< the model and graph engine_ is for
    std::map<QString, tune::TuneSession> sessions_;
    std::set<QString> unsaved_; ///< problems whose finished search is not saved or applied
    ReplaceQuestion replace_question_;
    QString current_;
    QString tuning_problem_;
    QString status_;

    TuneRunner* runner_ = nullptr;
    QStandardItemModel* problems_ = nullptr;
    QTreeView* problem_view_ = nullptr;
    CandidatesTableModel* candidates_ = nullptr;
    QSortFilterProxyModel* candidates_proxy_ = nullptr;
    QTableView* table_ = nullptr;
    LineageModel* lineage_ = nullptr;
    QTreeView* lineage_view_ = nullptr;
    std::unique_ptr<RooflineChart> roofline_;
    QComboBox* device_ = nullptr;
    QComboBox* strategy_ = nullptr;
    QSpinBox* budget_ = nullptr;
    QPushButton* tune_ = nullptr;
    QPushButton* cancel_ = nullptr;
    QPushButton* open_ = nullptr;
    QPushButton* save_ = nullptr;
    QPushButton* export_ = nullptr;
    QPushButton* apply_ = nullptr;
    QProgressBar* progress_ = nullptr;
    QLabel* banner_ = nullptr;
    QLabel* sol_ = nullptr;
    QLabel* status_label_ = nullptr;
    QLabel* why_off_ = nullptr;
};

} // namespace gsr::views
