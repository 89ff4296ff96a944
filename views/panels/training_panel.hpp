#pragma once
// The Training panel: a model preset and its settings, one Train button, a progress bar with
// the time left, live charts of the loss and of the validation correlations (Pearson,
// Spearman, Kendall), Stop and Resume, and at the end a scatter of predicted against true
// values on the test nodes. Runs go into the open project's store (TrainingRunner).
#include "nn/graph_input.hpp"
#include "panels/training_runner.hpp"

#include <QElapsedTimer>
#include <QVector>
#include <QWidget>

#include <memory>

class QChart;
class QChartView;
class QCheckBox;
class QComboBox;
class QDoubleSpinBox;
class QLabel;
class QListWidget;
class QProgressBar;
class QPushButton;
class QScatterSeries;
class QLineSeries;
class QSpinBox;
class QValueAxis;

namespace gsr::views {

class LineChart;

class TrainingPanel : public QWidget {
    Q_OBJECT

public:
    explicit TrainingPanel(QWidget* parent = nullptr);
    ~TrainingPanel() override;

    /// The circuit trained on (the window's netlist) and the cell libraries it is read with
    /// (the window's, `gsr train --liberty`); empty: none.
    void setNetlist(const QString& path, const QStringList& libraries = {});
    /// The project runs are saved to; empty: runs are kept in memory only.
    void setProject(const QString& path);
    /// The training circuit's graph shape, for the memory check before a run.
    void setGraphShape(const nn::GraphShape& shape);

    /// The settings the form shows (the run Train would start).
    TrainingSettings settings() const;
    /// Fills the form (model, epochs, ..., test circuits) from `settings`.
    void setSettings(const TrainingSettings& settings);
    void setTestCircuits(const QStringList& paths);
    void applyPreset(int index);

    bool isTraining() const { return runner_->isRunning(); }
    /// Why Train is off, in words; empty when it is on.
    QString whyTrainIsOff() const;
    TrainingRunner* runner() const { return runner_; }
    /// The run of this session that Resume continues (0: none or in memory).
    std::int64_t currentRunId() const { return run_id_; }
    const QVector<EpochPoint>& epochs() const { return epochs_; }
    const std::optional<TrainingOutcome>& lastOutcome() const { return outcome_; }
    QString statusText() const;

    QChart* lossChart() const;
    QChart* correlationChart() const;
    QScatterSeries* scatterSeries() const { return scatter_; }

public slots:
    void train();
    void stop();
    /// Continues the current run from its last checkpoint.
    void resume();
    /// Continues `run_id` of the project (from the Runs browser).
    void resumeRun(qint64 run_id);

signals:
    void commandIssued(const QString& line);
    void noteIssued(const QString& note);
    /// The form changed: the Memory panel redraws its estimate.
    void settingsChanged(const gsr::views::TrainingSettings& settings);
    void trainingStarted();
    void runCreated(qint64 run_id);
    void trainingFinished(const gsr::views::TrainingOutcome& outcome);

private:
    void buildForm();
    void buildCharts();
    void onModelChanged();
    void onProgress(const TrainingProgress& progress);
    void onEpochs(const QVector<EpochPoint>& points);
    void onFinished(const TrainingOutcome& outcome);
    void startSession(const QString& status);
    void showError(const QString& message);
    void updateState();
    bool runOfThisProject() const; ///< run_id_ is a run of the open project
    void addTestCircuits();
    void removeTestCircuits();

    TrainingRunner* runner_ = nullptr;
    QString netlist_, project_;
    QStringList libraries_; ///< the netlist's cell libraries
    std::optional<nn::GraphShape> shape_;
    std::int64_t run_id_ = 0;
    QString run_project_; ///< the project run_id_ belongs to (empty: kept in memory)
    QVector<EpochPoint> epochs_;
    std::optional<TrainingOutcome> outcome_;
    QElapsedTimer session_clock_;
    bool applying_preset_ = false;

    QComboBox* preset_ = nullptr;
    QComboBox* model_ = nullptr;
    QSpinBox* layers_ = nullptr;
    QSpinBox* hidden_ = nullptr;
    QSpinBox* groups_ = nullptr;
    QSpinBox* topk_ = nullptr;
    QComboBox* target_ = nullptr;
    QComboBox* batching_ = nullptr;
    QSpinBox* batch_size_ = nullptr;
    QSpinBox* epochs_box_ = nullptr;
    QDoubleSpinBox* learning_rate_ = nullptr;
    QSpinBox* seed_ = nullptr;
    QSpinBox* patience_ = nullptr;
    QSpinBox* warmup_ = nullptr;
    QCheckBox* offload_ = nullptr;
    QListWidget* test_list_ = nullptr;
    QPushButton* add_test_ = nullptr;
    QPushButton* remove_test_ = nullptr;
    QPushButton* train_button_ = nullptr;
    QPushButton* stop_button_ = nullptr;
    QPushButton* resume_button_ = nullptr;
    QProgressBar* progress_ = nullptr;
    QLabel* eta_ = nullptr;
    QLabel* status_ = nullptr;
    QLabel* memory_note_ = nullptr;

    std::unique_ptr<LineChart> loss_chart_;
    std::unique_ptr<LineChart> correlation_chart_;
    QChartView* scatter_view_ = nullptr;
    QScatterSeries* scatter_ = nullptr;
    QLineSeries* diagonal_ = nullptr;
    QValueAxis* scatter_x_ = nullptr;
    QValueAxis* scatter_y_ = nullptr;
};

} // namespace gsr::views
