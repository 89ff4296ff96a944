#include "panels/rules_panel.hpp"

#include "models/netlist_summary_model.hpp"
#include "panels/cli_equivalent.hpp"
#include "train/dataset.hpp"
#include "util/diagnostics.hpp"

#include <QFile>
#include <QFileInfo>
#include <QFutureWatcher>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLabel>
#include <QProgressBar>
#include <QPushButton>
#include <QTableView>
#include <QVBoxLayout>
#include <QtConcurrent/QtConcurrentRun>

#include <chrono>
#include <cmath>

namespace gsr::views {

namespace {

/// As `gsr train --model symgraph` without --val: 10 % of the training nodes, seed 1.
constexpr double kHoldOutValidation = 0.1;
constexpr std::uint64_t kSeed = 1;

QString interval_text(double low, double high, bool closed, int digits)
{
    return QStringLiteral("[%1, %2%3")
        .arg(low, 0, 'f', digits)
        .arg(high, 0, 'f', digits)
        .arg(closed ? QLatin1Char(']') : QLatin1Char(')'));
}

} // namespace

// ---- RuleTableModel ------------------------------------------------------------------------

RuleTableModel::RuleTableModel(QObject* parent) : QAbstractTableModel(parent) {}

void RuleTableModel::setRules(std::shared_ptr<const symgraph::SymGraphModel> model,
                              const std::vector<std::uint32_t>& assignment)
{
    beginResetModel();
    model_ = std::move(model);
    nodes_.clear();
    if (model_) {
        nodes_.resize(model_->rules().rules.size() + 1);
        for (std::size_t v = 0; v < assignment.size(); ++v)
            if (assignment[v] < nodes_.size())
                nodes_[assignment[v]].push_back(static_cast<quint32>(v));
    }
    endResetModel();
}

void RuleTableModel::clear() { setRules(nullptr, {}); }

QVector<quint32> RuleTableModel::nodesOf(int row) const
{
    if (row < 0 || static_cast<std::size_t>(row) >= nodes_.size()) return {};
    return nodes_[static_cast<std::size_t>(row)];
}

int RuleTableModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : static_cast<int>(nodes_.size());
}

int RuleTableModel::columnCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant RuleTableModel::data(const QModelIndex& index, int role) const
{
    if (!model_ || !index.isValid() || index.row() >= rowCount() || index.column() >= ColumnCount)
        return {};
    const std::size_t i = static_cast<std::size_t>(index.row());
    const symgraph::RuleList& list = model_->rules();
    const bool fallback = i >= list.rules.size();
    const symgraph::Rule& r = fallback ? list.fallback : list.rules[i];
    const symgraph::Binning& b = model_->binning();
    const bool classes = list.task == symgraph::Task::Classification;
    const double value = classes ? b.centre(r.label) : r.value;
    const int digits = b.hi - b.lo <= 2 ? 2 : 1; // as rule_text writes them

    if (role == Qt::ToolTipRole) return QString::fromStdString(model_->rule_text(i));
    if (role == Qt::TextAlignmentRole && index.column() != RuleColumn)
        return QVariant::fromValue(Qt::AlignRight | Qt::AlignVCenter);
    if (role != Qt::DisplayRole) return {};
    switch (index.column()) {
    case IndexColumn:
        return fallback ? QVariant() : QVariant(static_cast<int>(i + 1));
    case RuleColumn:
        return fallback ? tr("otherwise")
                        : QString::fromStdString(model_->vocabulary().describe(r.conditions));
    case NodesColumn:
        return static_cast<int>(nodes_[i].size());
    case SupportColumn:
        return static_cast<qulonglong>(r.support);
    case PredictionColumn:
        return QString::number(value, 'f', digits + 1);
    case IntervalColumn:
        return classes ? interval_text(b.low(r.label), b.high(r.label),
                                       r.label + 1 == b.bins, digits)
                       : interval_text(r.low, r.high, true, digits);
    default:
        return {};
    }
}

QVariant RuleTableModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal) return {};
    if (role == Qt::ToolTipRole) {
        switch (section) {
        case IndexColumn: return tr("Rules are tried in this order; the first that matches wins");
        case NodesColumn: return tr("Nodes of this circuit the rule covers (shown on the canvas)");
        case SupportColumn: return tr("Training nodes the rule covers, none an earlier rule took");
        case IntervalColumn:
            return tr("Where 80 % of its training nodes' values lie (bins: its bin)");
        default: return {};
        }
    }
    if (role != Qt::DisplayRole) return {};
    switch (section) {
    case IndexColumn: return tr("#");
    case RuleColumn: return tr("Rule");
    case NodesColumn: return tr("Nodes");
    case SupportColumn: return tr("Training nodes");
    case PredictionColumn: return tr("Predicts");
    case IntervalColumn: return tr("Interval");
    default: return {};
    }
}

QString symgraph_train_command(const QString& file, const QString& project,
                               const QStringList& libraries)
{
    // The panel learns the rules of the open circuit and scores them on the 10 % of its nodes
    // held out, as the command line does without --test or --val (which also records the run
    // in the project; the panel keeps the rules until another circuit is opened).
    return gsr_command(QStringList{QStringLiteral("train"), file, QStringLiteral("--db"),
                        project.isEmpty() ? QStringLiteral("PROJECT.gsr") : project,
                        QStringLiteral("--model"), QStringLiteral("symgraph"),
                        QStringLiteral("--target"), QStringLiteral("sp"), QStringLiteral("--seed"),
                        QString::number(kSeed)}
                       << liberty_flags(libraries));
}

// ---- RulesPanel ----------------------------------------------------------------------------

RulesPanel::RulesPanel(QWidget* parent) : QWidget(parent)
{
    setObjectName(QStringLiteral("rulesPanel"));
    learn_button_ = new QPushButton(tr("&Learn rules"), this);
    learn_button_->setObjectName(QStringLiteral("learnRulesButton"));
    connect(learn_button_, &QPushButton::clicked, this, &RulesPanel::learn);
    cancel_button_ = new QPushButton(tr("Cancel"), this);
    cancel_button_->setObjectName(QStringLiteral("cancelRulesButton"));
    connect(cancel_button_, &QPushButton::clicked, this, &RulesPanel::cancel);
    busy_ = new QProgressBar(this);
    busy_->setRange(0, 0); // the search reports no progress
    busy_->setTextVisible(false);
    busy_->setMaximumWidth(120);

    status_ = new QLabel(this);
    status_->setObjectName(QStringLiteral("rulesStatus"));
    status_->setWordWrap(true);

    model_ = new RuleTableModel(this);
    table_ = new QTableView(this);
    table_->setObjectName(QStringLiteral("rulesTable"));
    table_->setModel(model_); // unsorted: the order of the rules is their meaning
    table_->setSelectionBehavior(QAbstractItemView::SelectRows);
    table_->setSelectionMode(QAbstractItemView::SingleSelection);
    table_->setWordWrap(true);
    table_->verticalHeader()->hide();
    table_->horizontalHeader()->setSectionResizeMode(RuleTableModel::RuleColumn,
                                                     QHeaderView::Stretch);
    table_->setAlternatingRowColors(true);
    connect(table_->selectionModel(), &QItemSelectionModel::selectionChanged, this,
            &RulesPanel::onSelectionChanged);

    auto* buttons = new QHBoxLayout;
    buttons->addWidget(learn_button_);
    buttons->addWidget(cancel_button_);
    buttons->addWidget(busy_);
    buttons->addStretch();
    auto* layout = new QVBoxLayout(this);
    layout->addLayout(buttons);
    layout->addWidget(status_);
    layout->addWidget(table_, 1);
    updateState();
}

RulesPanel::~RulesPanel()
{
    // The search runs in the global pool, which the application waits for on exit: stop it.
    if (stop_) *stop_ = true;
}

void RulesPanel::setGraph(std::shared_ptr<const LoadedGraph> graph)
{
    cancel();
    graph_ = std::move(graph);
    symgraph_.reset();
    assignment_.clear();
    model_->clear();
    status_->clear();
    updateState();
}

RulesPanel::Outcome RulesPanel::run_learning(const LoadedGraph& graph,
                                              const std::atomic<bool>* stop)
{
    Outcome out;
    const auto t0 = std::chrono::steady_clock::now();
    try {
        train::HoldOut hold_out;
        hold_out.validation = kHoldOutValidation;
        hold_out.seed = kSeed;
        // Read with the libraries the canvas's circuit was read with: the same nodes.
        const train::RunLibraries libraries(graph.circuit->libraries);
        const train::Dataset data =
            train::load_dataset(train::Target::SignalProbability,
                                {QFile::encodeName(graph.path).toStdString()}, {}, {}, hold_out,
                                libraries.label_options());
        if (stop && *stop) throw symgraph::FitCancelled(); // Cancel during the labelling
        symgraph::SymGraphOptions options;
        options.cancel = stop;
        auto model = std::make_shared<symgraph::SymGraphModel>(
            symgraph::SymGraphModel::fit(data, options));
        const graph::CircuitGraph& g = data.circuits.front().graph;
        // Both come from build_graph on the same file; a changed file would break the ids.
        if (g.node_count() != graph.graph().node_count())
            throw Error(SourceLocation{graph.path.toStdString()},
                        "changed since it was opened (" + std::to_string(g.node_count()) +
                            " nodes now, " + std::to_string(graph.graph().node_count()) +
                            " on the canvas): open it again");
        out.assignment = model->assign(g);
        const std::vector<std::vector<double>> predictions{model->predict(g)};
        out.validation_r = symgraph::evaluate_split(data, predictions, train::Split::Validation,
                                                    model->binning())
                               .metrics.pearson.value;
        out.notes = data.notes;
        out.model = std::move(model);
    } catch (...) {
        out.error = describe_failure(std::current_exception());
    }
    out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    return out;
}

void RulesPanel::start()
{
    Q_EMIT commandIssued(symgraph_train_command(graph_->path, project_, graph_->libraries()));
}

void RulesPanel::learn()
{
    if (!graph_) return;
    cancel();
    start();
    const std::uint64_t job = next_job_++;
    running_job_ = job;
    auto* watcher = new QFutureWatcher<Outcome>(this);
    connect(watcher, &QFutureWatcher<Outcome>::finished, this, [this, watcher, job] {
        const Outcome outcome = watcher->result();
        watcher->deleteLater();
        finish(job, outcome);
    });
    // The worker holds the graph and its stop flag itself: it may outlive a dropped job.
    stop_ = std::make_shared<std::atomic<bool>>(false);
    watcher->setFuture(QtConcurrent::run(
        [graph = graph_, stop = stop_] { return run_learning(*graph, stop.get()); }));
    status_->setText(
        tr("Learning rules for %1\u2026").arg(QFileInfo(graph_->path).fileName()));
    updateState();
    Q_EMIT learningStarted();
}

bool RulesPanel::learnNow()
{
    if (!graph_) return false;
    cancel();
    start();
    const std::uint64_t job = next_job_++;
    running_job_ = job;
    finish(job, run_learning(*graph_));
    return symgraph_ != nullptr;
}

void RulesPanel::cancel()
{
    if (!isLearning()) return;
    running_job_ = 0; // its result, when it comes, is dropped
    if (stop_) *stop_ = true;
    status_->setText(tr("Learning cancelled."));
    updateState();
    Q_EMIT learningCancelled();
}

void RulesPanel::finish(std::uint64_t job, const Outcome& outcome)
{
    if (job != running_job_) return; // cancelled or superseded
    running_job_ = 0;
    if (!outcome.model) {
        status_->setText(tr("Could not learn rules: %1").arg(outcome.error));
        updateState();
        Q_EMIT learningFailed(outcome.error);
        return;
    }
    for (const std::string& n : outcome.notes) Q_EMIT noteIssued(QString::fromStdString(n));
    symgraph_ = outcome.model;
    assignment_ = outcome.assignment;
    model_->setRules(symgraph_, assignment_);
    table_->resizeColumnsToContents();
    table_->horizontalHeader()->setSectionResizeMode(RuleTableModel::RuleColumn,
                                                     QHeaderView::Stretch);
    const int rules = static_cast<int>(symgraph_->rules().rules.size());
    const double r = outcome.validation_r;
    status_->setText(tr("%1 and a fallback (%2; %3), validation r %4 on 10 % of the nodes "
                        "held out. Select a rule to see its nodes.")
                         .arg(count_phrase(rules, tr("rule"), tr("rules")))
                         .arg(QString::fromStdString(symgraph_->granularity().str()))
                         .arg(format_duration(outcome.seconds))
                         .arg(std::isfinite(r) ? QString::number(r, 'f', 3) : tr("undefined")));
    updateState();
    Q_EMIT learningFinished(rules, r);
}

void RulesPanel::onSelectionChanged()
{
    const QModelIndexList rows = table_->selectionModel()->selectedRows();
    if (rows.isEmpty()) return;
    const int row = rows.first().row();
    Q_EMIT ruleSelected(row, model_->nodesOf(row));
}

void RulesPanel::updateState()
{
    const bool busy = isLearning();
    learn_button_->setEnabled(graph_ && !busy);
    learn_button_->setToolTip(
        graph_ ? tr("Learn SymGraph rules for the signal probability of %1")
                     .arg(QFileInfo(graph_->path).fileName())
               : tr("Open a netlist first."));
    cancel_button_->setVisible(busy);
    busy_->setVisible(busy);
    if (!graph_ && !busy) status_->setText(tr("Open a netlist to learn rules about it."));
}

} // namespace gsr::views
