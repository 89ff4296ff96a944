#pragma once
// The Rules panel: SymGraph (core/symgraph) learns readable rules for the signal probability of
// the loaded circuit, off the UI thread, and lists them in a table. Selecting a row emits the
// ids of the nodes whose first matching rule it is (SymGraphModel::assign), which the canvas
// highlights as it does a community.
//
// What it learns on is what `gsr train FILE --model symgraph` does without --val: the loaded
// circuit is the only training circuit, 10 % of its nodes (seed 1) are held out for the
// penalised search, and every option keeps its default.
//
// Contents: RuleTableModel, RulesPanel, symgraph_train_command.
#include "panels/circuit_graph_source.hpp"
#include "symgraph/symgraph_model.hpp"

#include <QAbstractTableModel>
#include <QVector>
#include <QWidget>

#include <atomic>
#include <memory>
#include <vector>

class QLabel;
class QProgressBar;
class QPushButton;
class QTableView;

namespace gsr::views {

/// One row per rule, in the order the rules are tried, then the fallback ("otherwise"): row i
/// is the rule index assign() gives.
class RuleTableModel : public QAbstractTableModel {
    Q_OBJECT

public:
    enum Column {
        IndexColumn,      ///< 1-based, as `gsr rules` numbers them; empty for the fallback
        RuleColumn,       ///< the conditions in words
        NodesColumn,      ///< nodes of the loaded circuit it covers
        SupportColumn,    ///< training nodes it covers
        PredictionColumn, ///< the value (a bin's centre for classification)
        IntervalColumn,   ///< 80 % of its training targets (regression), or its bin
        ColumnCount
    };

    explicit RuleTableModel(QObject* parent = nullptr);

    /// `assignment`: per node of the circuit, its rule (SymGraphModel::assign).
    void setRules(std::shared_ptr<const symgraph::SymGraphModel> model,
                  const std::vector<std::uint32_t>& assignment);
    void clear();

    const symgraph::SymGraphModel* symGraph() const { return model_.get(); }
    /// The ids of the nodes row `row` covers, ascending (empty when out of range).
    QVector<quint32> nodesOf(int row) const;

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation,
                        int role = Qt::DisplayRole) const override;

private:
    std::shared_ptr<const symgraph::SymGraphModel> model_;
    std::vector<QVector<quint32>> nodes_; ///< per row
};

/// The `gsr train` line that learns the panel's rules on `file` (PROJECT.gsr stands for the
/// project when there is none).
QString symgraph_train_command(const QString& file, const QString& project = {},
                               const QStringList& libraries = {});

class RulesPanel : public QWidget {
    Q_OBJECT

public:
    explicit RulesPanel(QWidget* parent = nullptr);
    /// Drops a learning in flight; its worker finishes on its own and is discarded.
    ~RulesPanel() override;

    /// The circuit to learn on (null: none; Learn is then off and says why).
    void setGraph(std::shared_ptr<const LoadedGraph> graph);
    const LoadedGraph* graph() const { return graph_.get(); }
    void setProject(const QString& path) { project_ = path; }

    bool isLearning() const { return running_job_ != 0; }
    /// The last rules learned (null before any).
    std::shared_ptr<const symgraph::SymGraphModel> symGraph() const { return symgraph_; }
    /// Per node of the circuit: its rule (rules().rules.size(): the fallback).
    const std::vector<std::uint32_t>& assignment() const { return assignment_; }
    RuleTableModel* model() const { return model_; }
    QTableView* table() const { return table_; }
    QPushButton* learnButton() const { return learn_button_; }

    /// @brief Learns on the calling thread (screenshots, scripts). False when it failed.
    bool learnNow();

public slots:
    /// Starts learning in the background; one in flight is dropped first.
    void learn();
    /// Stops the search between its candidates (the labelling before it runs to its end) and
    /// drops its result.
    void cancel();

signals:
    /// The `gsr` command line of the action (for the Console dock).
    void commandIssued(const QString& line);
    /// A remark for the Console dock (what the line cannot say, the data set's notes).
    void noteIssued(const QString& text);
    void learningStarted();
    /// `validation_r`: Pearson r on the held-out nodes (NaN when undefined).
    void learningFinished(int rules, double validation_r);
    void learningFailed(const QString& message);
    void learningCancelled();
    /// A row was selected: its rule index (the fallback: the rule count) and the ids of the
    /// nodes it covers, ascending.
    void ruleSelected(int rule, const QVector<quint32>& nodes);

private:
    struct Outcome {
        std::shared_ptr<const symgraph::SymGraphModel> model; ///< null: failed
        std::vector<std::uint32_t> assignment;
        std::vector<std::string> notes;
        double validation_r = 0;
        QString error;
        double seconds = 0;
    };
    /// `stop`, when set, ends the search between its candidates (the outcome's error says so).
    static Outcome run_learning(const LoadedGraph& graph, const std::atomic<bool>* stop = nullptr);
    void start();
    void finish(std::uint64_t job, const Outcome& outcome);
    void updateState();
    void onSelectionChanged();

    std::shared_ptr<const LoadedGraph> graph_;
    QString project_;
    std::shared_ptr<const symgraph::SymGraphModel> symgraph_;
    std::vector<std::uint32_t> assignment_;
    std::uint64_t next_job_ = 1, running_job_ = 0;
    /// The running job's stop flag: cancel() sets it, so the worker stops instead of finishing
    /// a search whose result would be dropped.
    std::shared_ptr<std::atomic<bool>> stop_;

    QPushButton* learn_button_ = nullptr;
    QPushButton* cancel_button_ = nullptr;
    QProgressBar* busy_ = nullptr;
    QLabel* status_ = nullptr;
    RuleTableModel* model_ = nullptr;
    QTableView* table_ = nullptr;
};

} // namespace gsr::views
