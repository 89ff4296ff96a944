#include "panels/profiling_panel.hpp"

#include "nn/gpu_runtime.hpp"
#include "panels/candidates_table_model.hpp"
#include "panels/circuit_graph_source.hpp"
#include "panels/cli_equivalent.hpp"
#include "panels/lineage_model.hpp"
#include "panels/roofline_chart.hpp"
#include "panels/tune_includes.hpp"
#include "util/atomic_file.hpp"
#include "util/diagnostics.hpp"
#include "util/json_text.hpp"
#include "util/source_text.hpp"

#include <QChartView>
#include <QComboBox>
#include <QDir>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QProgressBar>
#include <QPushButton>
#include <QSet>
#include <QSortFilterProxyModel>
#include <QSpinBox>
#include <QSplitter>
#include <QStandardItemModel>
#include <QTabWidget>
#include <QTableView>
#include <QTreeView>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>

namespace gsr::views {

namespace {

QString micro(double seconds)
{
    if (!(seconds > 0)) return QString();
    const double us = seconds * 1e6;
    return us < 10 ? QString::number(us, 'g', 3) : QString::number(us, 'f', 1);
}

QString default_device()
{
    const nn::GpuStatus gpu = nn::gpu_status();
    if (gpu.available)
        if (const sol::DeviceSpec* d = sol::find_device(gpu.name))
            return QString::fromStdString(d->name);
    return QStringLiteral("H100 SXM");
}

QString shape_text(const tune::Problem& p)
{
    switch (p.family) {
    case tune::OpFamily::Gemm:
        return QStringLiteral("%1×%2×%3").arg(p.rows).arg(p.cols).arg(p.inner);
    case tune::OpFamily::Spmm:
        return QStringLiteral("%1×%1, nnz %2, F %3").arg(p.rows).arg(p.nnz).arg(p.cols);
    default: return QStringLiteral("%1×%2").arg(p.rows).arg(p.cols);
    }
}

QString best_percent(const tune::TuneSession& s)
{
    const tune::CandidateRecord* best = s.best_candidate();
    return best ? QString::number(tune::percent_of_sol(s, *best), 'f', 1) : QString();
}

} // namespace

ProfilingPanel::ProfilingPanel(QWidget* parent) : QWidget(parent)
{
    setObjectName(QStringLiteral("profilingPanel"));
    runner_ = new TuneRunner(this);
    connect(runner_, &TuneRunner::started, this, &ProfilingPanel::onStarted);
    connect(runner_, &TuneRunner::candidateFinished, this, &ProfilingPanel::onCandidate);
    connect(runner_, &TuneRunner::finished, this, &ProfilingPanel::onFinished);
    suite_ = tune::builtin_suite();
    buildUi();
    rebuildEngineProblems();
    if (!suite_.empty()) selectProblem(QString::fromStdString(suite_.front().name));
    updateState();
}

ProfilingPanel::~ProfilingPanel()
{
    // Stop the worker before the widgets its signals update go away.
    runner_->disconnect(this);
    delete runner_;
}

void ProfilingPanel::buildUi()
{
    banner_ = new QLabel(this);
    banner_->setObjectName(QStringLiteral("profilingBanner"));
    banner_->setStyleSheet(QStringLiteral(
        "QLabel { background: #fff4cc; color: #5a4500; padding: 4px; font-weight: bold; }"));
    banner_->hide();

    device_ = new QComboBox(this);
    device_->setObjectName(QStringLiteral("profilingDevice"));
    for (const sol::DeviceSpec& d : sol::device_table())
        device_->addItem(QString::fromStdString(d.name));
    device_->setCurrentText(default_device());
    device_->setToolTip(tr("The GPU whose datasheet peaks give T_SOL"));
    strategy_ = new QComboBox(this);
    strategy_->setObjectName(QStringLiteral("profilingStrategy"));
    strategy_->addItems({QStringLiteral("sol"), QStringLiteral("grid"), QStringLiteral("random")});
    strategy_->setToolTip(tr("sol: predicted order and the best's neighbours, stopping near "
                             "SOL; grid: the space in order; random: a seeded sample"));
    budget_ = new QSpinBox(this);
    budget_->setObjectName(QStringLiteral("profilingBudget"));
    budget_->setRange(1, 100000);
    budget_->setValue(64);
    budget_->setToolTip(tr("The most trials the search may run"));
    tune_ = new QPushButton(tr("Tune"), this);
    tune_->setObjectName(QStringLiteral("profilingTune"));
    cancel_ = new QPushButton(tr("Cancel"), this);
    cancel_->setObjectName(QStringLiteral("profilingCancel"));
    progress_ = new QProgressBar(this);
    progress_->setRange(0, 1);
    progress_->setValue(0);
    progress_->setFormat(QStringLiteral("%v / %m trials"));
    connect(tune_, &QPushButton::clicked, this, &ProfilingPanel::tune);
    connect(cancel_, &QPushButton::clicked, this, &ProfilingPanel::cancel);
    connect(device_, &QComboBox::currentTextChanged, this, [this] {
        refreshProblemList();
        showProblem(current_);
    });

    auto* controls = new QHBoxLayout;
    controls->addWidget(new QLabel(tr("Device"), this));
    controls->addWidget(device_);
    controls->addSpacing(8);
    controls->addWidget(new QLabel(tr("Strategy"), this));
    controls->addWidget(strategy_);
    controls->addWidget(new QLabel(tr("Budget"), this));
    controls->addWidget(budget_);
    controls->addWidget(tune_);
    controls->addWidget(cancel_);
    controls->addWidget(progress_, 1);

    problems_ = new QStandardItemModel(this);
    problems_->setHorizontalHeaderLabels(
        {tr("Problem"), tr("T_SOL (µs)"), tr("Best %SOL"), tr("Bound"), tr("Family")});
    problem_view_ = new QTreeView(this);
    problem_view_->setObjectName(QStringLiteral("profilingProblems"));
    problem_view_->setModel(problems_);
    problem_view_->setEditTriggers(QAbstractItemView::NoEditTriggers);
    problem_view_->setSelectionBehavior(QAbstractItemView::SelectRows);
    problem_view_->setUniformRowHeights(true);
    connect(problem_view_->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
            [this](const QModelIndex& index) {
                const QString name = index.siblingAtColumn(0).data(ProblemNameRole).toString();
                if (!name.isEmpty() && name != current_) showProblem(name);
            });

    sol_ = new QLabel(this);
    sol_->setObjectName(QStringLiteral("profilingSol"));
    sol_->setWordWrap(true);
    sol_->setTextInteractionFlags(Qt::TextSelectableByMouse);

    candidates_ = new CandidatesTableModel(this);
    candidates_proxy_ = new QSortFilterProxyModel(this);
    candidates_proxy_->setSourceModel(candidates_);
    candidates_proxy_->setSortRole(CandidatesTableModel::SortRole);
    table_ = new QTableView(this);
    table_->setObjectName(QStringLiteral("profilingCandidates"));
    table_->setModel(candidates_proxy_);
    table_->setSortingEnabled(true);
    table_->sortByColumn(CandidatesTableModel::IdColumn, Qt::AscendingOrder);
    table_->setSelectionBehavior(QAbstractItemView::SelectRows);
    table_->verticalHeader()->hide();
    table_->setWordWrap(false);
    table_->setTextElideMode(Qt::ElideMiddle);
    table_->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    table_->horizontalHeader()->setSectionResizeMode(CandidatesTableModel::ConfigColumn,
                                                     QHeaderView::Stretch);

    lineage_ = new LineageModel(this);
    lineage_view_ = new QTreeView(this);
    lineage_view_->setObjectName(QStringLiteral("profilingLineage"));
    lineage_view_->setModel(lineage_);
    lineage_view_->setUniformRowHeights(true);

    auto* tabs = new QTabWidget(this);
    tabs->addTab(table_, tr("Candidates"));
    tabs->addTab(lineage_view_, tr("Lineage"));

    roofline_ = std::make_unique<RooflineChart>(this);
    auto* right = new QSplitter(Qt::Horizontal, this);
    right->addWidget(tabs);
    right->addWidget(roofline_->view());
    right->setStretchFactor(0, 1);
    right->setStretchFactor(1, 1);

    auto* right_box = new QWidget(this);
    auto* right_layout = new QVBoxLayout(right_box);
    right_layout->setContentsMargins(0, 0, 0, 0);
    right_layout->addWidget(sol_);
    right_layout->addWidget(right, 1);

    auto* split = new QSplitter(Qt::Horizontal, this);
    split->addWidget(problem_view_);
    split->addWidget(right_box);
    split->setStretchFactor(0, 1);
    split->setStretchFactor(1, 2);

    open_ = new QPushButton(tr("Open Session…"), this);
    save_ = new QPushButton(tr("Save Session…"), this);
    export_ = new QPushButton(tr("Export Report…"), this);
    apply_ = new QPushButton(tr("Apply to Training"), this);
    connect(apply_, &QPushButton::clicked, this, [this] {
        QString error;
        if (!applyKernel(&error)) setStatus(error);
    });
    connect(open_, &QPushButton::clicked, this, &ProfilingPanel::openWithDialog);
    connect(save_, &QPushButton::clicked, this, &ProfilingPanel::saveWithDialog);
    connect(export_, &QPushButton::clicked, this, &ProfilingPanel::exportWithDialog);
    status_label_ = new QLabel(this);
    status_label_->setObjectName(QStringLiteral("profilingStatus"));
    status_label_->setWordWrap(true);
    why_off_ = new QLabel(this);
    why_off_->setObjectName(QStringLiteral("profilingWhyOff"));
    why_off_->setStyleSheet(QStringLiteral("QLabel { color: #8a5a00; }"));
    why_off_->setWordWrap(true);
    auto* bottom = new QHBoxLayout;
    bottom->addWidget(status_label_, 1);
    bottom->addWidget(open_);
    bottom->addWidget(save_);
    bottom->addWidget(export_);
    bottom->addWidget(apply_);

    auto* layout = new QVBoxLayout(this);
    layout->addWidget(banner_);
    layout->addLayout(controls);
    layout->addWidget(why_off_);
    layout->addWidget(split, 1);
    layout->addLayout(bottom);
}

void ProfilingPanel::setEvaluatorFactory(EvaluatorFactory factory, bool needs_gpu)
{
    factory_ = std::move(factory);
    factory_needs_gpu_ = needs_gpu;
    updateState();
}

void ProfilingPanel::setReportExporter(ReportExporter exporter)
{
    exporter_ = std::move(exporter);
    updateState();
}

void ProfilingPanel::setBanner(const QString& text)
{
    banner_->setText(text);
    banner_->setVisible(!text.isEmpty());
}

void ProfilingPanel::setModelConfig(const nn::ModelConfig& config)
{
    model_ = config;
    rebuildEngineProblems();
}

void ProfilingPanel::setGraphShape(const nn::GraphShape& shape, const QString& name)
{
    shape_ = shape;
    graph_name_ = name;
    rebuildEngineProblems();
}

void ProfilingPanel::rebuildEngineProblems()
{
    engine_.clear();
    engine_error_.clear();
    engine_shape_.reset();
    if (shape_) {
        tune::EngineShape s;
        s.model = model_.kind;
        s.layers = model_.layers;
        s.hidden = model_.hidden;
        s.groups = model_.groups;
        s.topk = model_.topk;
        s.nodes = shape_->nodes;
        s.edges = shape_->edges;
        engine_shape_ = s;
        try {
            engine_ = tune::engine_problems(s);
        } catch (const Error& e) {
            engine_error_ = QString::fromStdString(e.message());
        }
    }
    refreshProblemList();
    if (!current_.isEmpty() && !findProblem(current_) && !sessions_.count(current_) &&
        !suite_.empty())
        selectProblem(QString::fromStdString(suite_.front().name));
}

std::string ProfilingPanel::gpuName() const
{
    if (gpu_name_) return *gpu_name_;
    if (!gpu_) gpu_ = nn::gpu_status();
    return gpu_->available ? gpu_->name : std::string();
}

bool ProfilingPanel::isCalibrated(const sol::DeviceSpec& device, QString* why_not) const
{
    if (!calibration_) return false;
    // Its own row's peaks were checked when it was set (and the GPU need not be probed).
    if (sol::calibration_is_of(*calibration_, device)) return true;
    // Measured on the GPU in hand, which may have no row: `device` stands in for it, as
    // `gsr kernels tune --project --device` takes it.
    const std::string gpu = gpuName();
    QString why;
    if (sol::calibration_is_of(*calibration_, device, gpu)) {
        try {
            (void)sol::calibrated_peaks(device, *calibration_);
            return true;
        } catch (const Error& e) { // peaks past what `device`'s row allows
            why = QString::fromStdString(e.message());
        }
    } else {
        const QString measured = QString::fromStdString(calibration_->device_name);
        const QString row = QString::fromStdString(device.name);
        why = gpu.empty() ? tr("it was measured on %1, not on a GPU of the %2 row")
                                .arg(measured, row)
                          : tr("it was measured on %1, not on this GPU (%2) or a GPU of the %3 "
                               "row")
                                .arg(measured, QString::fromStdString(gpu), row);
    }
    if (why_not) *why_not = why;
    return false;
}

sol::SolAnalysis ProfilingPanel::analysisOf(const tune::Problem& p,
                                            const sol::DeviceSpec& device) const
{
    return isCalibrated(device) ? sol::analyze(p.op_spec(), device, &*calibration_)
                                : sol::analyze(p.op_spec(), device);
}

void ProfilingPanel::setCalibration(std::optional<sol::Calibration> calibration)
{
    // Peaks past what the GPU's row allows would fail every bound: refused here, once.
    if (const sol::DeviceSpec* row = calibration ? sol::find_device(calibration->device_name)
                                                 : nullptr) {
        try {
            (void)sol::calibrated_peaks(*row, *calibration);
        } catch (const Error& e) {
            Q_EMIT noteIssued(tr("%1 (the device table's peaks are used)")
                                  .arg(QString::fromStdString(e.what())));
            calibration.reset();
        }
    }
    calibration_ = std::move(calibration);
    calibration_noted_ = false;
    refreshProblemList();
    showProblem(current_);
}

void ProfilingPanel::setCalibrationSource(CalibrationSource source)
{
    calibration_source_ = std::move(source);
    calibration_read_.reset();
    if (calibration_source_) refreshCalibration();
    else setCalibration(std::nullopt);
}

void ProfilingPanel::refreshCalibration()
{
    if (!calibration_source_) return;
    QString error;
    std::optional<sol::Calibration> read = calibration_source_(&error);
    std::string what = read ? sol::calibration_json(*read).dump() + '\n' + read->source
                            : "error: " + error.toStdString();
    if (calibration_read_ == what) return;
    calibration_read_ = std::move(what);
    if (!error.isEmpty()) Q_EMIT noteIssued(error);
    setCalibration(std::move(read));
}

void ProfilingPanel::showEvent(QShowEvent* event)
{
    QWidget::showEvent(event);
    refreshCalibration();
}

std::optional<tune::TuneSession> ProfilingPanel::boundsOf(const tune::Problem& p) const
{
    const sol::DeviceSpec* d = sol::find_device(deviceName().toStdString());
    if (!d) return std::nullopt;
    try {
        return tune::make_session(p, analysisOf(p, *d), "");
    } catch (const Error&) {
        return std::nullopt;
    }
}

void ProfilingPanel::refreshProblemList()
{
    const QString keep = current_;
    problems_->removeRows(0, problems_->rowCount());
    auto group = [this](const QString& title) {
        QList<QStandardItem*> row;
        row << new QStandardItem(title);
        for (int c = 1; c < ProblemColumnCount; ++c) row << new QStandardItem;
        problems_->appendRow(row);
        return row.front();
    };
    auto add = [this](QStandardItem* parent, const QString& name, const QString& family,
                      const QString& tooltip, const std::optional<tune::TuneSession>& bounds) {
        QList<QStandardItem*> row;
        auto* n = new QStandardItem(name);
        n->setData(name, ProblemNameRole);
        n->setToolTip(tooltip);
        const auto it = sessions_.find(name);
        row << n << new QStandardItem(bounds ? micro(bounds->t_sol) : QString())
            << new QStandardItem(it != sessions_.end() ? best_percent(it->second) : QString())
            << new QStandardItem(bounds ? QString::fromStdString(bounds->bound) : QString())
            << new QStandardItem(family);
        for (int c = TsolColumn; c <= BestColumn; ++c)
            row[c]->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
        parent->appendRow(row);
    };

    QString engine_title;
    if (!shape_) {
        engine_title = tr("Engine (open a circuit)");
    } else {
        engine_title = tr("Engine: %1 %2 × %3 on %4 (%5 nodes, %6 edges)")
                           .arg(QString::fromLatin1(nn::model_kind_name(model_.kind).data()))
                           .arg(model_.layers)
                           .arg(model_.hidden)
                           .arg(graph_name_.isEmpty() ? tr("the circuit") : graph_name_)
                           .arg(shape_->nodes)
                           .arg(shape_->edges);
    }
    QStandardItem* engine = group(engine_title);
    if (!engine_error_.isEmpty()) engine->setToolTip(engine_error_);
    for (const tune::Problem& p : engine_)
        add(engine, QString::fromStdString(p.name),
            QString::fromLatin1(tune::family_name(p.family).data()),
            QString::fromStdString(p.description) + QLatin1Char('\n') + shape_text(p),
            boundsOf(p));
    QStandardItem* suite = group(tr("Standard operations"));
    for (const tune::Problem& p : suite_)
        add(suite, QString::fromStdString(p.name),
            QString::fromLatin1(tune::family_name(p.family).data()),
            QString::fromStdString(p.description) + QLatin1Char('\n') + shape_text(p),
            boundsOf(p));
    QStandardItem* opened = nullptr;
    for (const auto& [name, s] : sessions_) {
        if (findProblem(name)) continue;
        if (!opened) opened = group(tr("Opened sessions"));
        std::optional<tune::TuneSession> bounds = s;
        add(opened, name, QString::fromStdString(s.family),
            tr("from a saved session (%1)").arg(QString::fromStdString(s.device)), bounds);
    }
    problem_view_->expandAll();
    for (int c = 0; c < ProblemColumnCount; ++c) problem_view_->resizeColumnToContents(c);
    // Keep the selection where it was.
    if (!keep.isEmpty()) {
        for (int g = 0; g < problems_->rowCount(); ++g) {
            QStandardItem* parent = problems_->item(g);
            for (int r = 0; r < parent->rowCount(); ++r)
                if (parent->child(r)->data(ProblemNameRole).toString() == keep) {
                    const QSignalBlocker block(problem_view_->selectionModel());
                    problem_view_->setCurrentIndex(parent->child(r)->index());
                }
        }
    }
}

QStringList ProfilingPanel::problemNames() const
{
    QStringList out;
    for (int g = 0; g < problems_->rowCount(); ++g) {
        const QStandardItem* parent = problems_->item(g);
        for (int r = 0; r < parent->rowCount(); ++r)
            out << parent->child(r)->data(ProblemNameRole).toString();
    }
    return out;
}

const tune::Problem* ProfilingPanel::findProblem(const QString& name) const
{
    const std::string n = name.toStdString();
    for (const tune::Problem& p : engine_)
        if (p.name == n) return &p;
    for (const tune::Problem& p : suite_)
        if (p.name == n) return &p;
    return nullptr;
}

const tune::Problem* ProfilingPanel::currentProblem() const { return findProblem(current_); }

bool ProfilingPanel::selectProblem(const QString& name)
{
    if (!problemNames().contains(name)) return false;
    showProblem(name);
    refreshProblemList(); // moves the selection
    return true;
}

QString ProfilingPanel::deviceName() const { return device_->currentText(); }

bool ProfilingPanel::setDevice(const QString& name)
{
    const sol::DeviceSpec* d = sol::find_device(name.toStdString());
    if (!d) return false;
    device_->setCurrentText(QString::fromStdString(d->name));
    return true;
}

void ProfilingPanel::setStrategy(const QString& name) { strategy_->setCurrentText(name); }

void ProfilingPanel::setBudget(int trials) { budget_->setValue(trials); }

const tune::TuneSession* ProfilingPanel::session(const QString& problem) const
{
    const auto it = sessions_.find(problem);
    return it == sessions_.end() ? nullptr : &it->second;
}

QString ProfilingPanel::solText() const { return sol_->text(); }

QString ProfilingPanel::statusText() const { return status_; }

void ProfilingPanel::setStatus(const QString& text)
{
    status_ = text;
    status_label_->setText(text);
}

void ProfilingPanel::showProblem(const QString& name)
{
    current_ = name;
    const tune::Problem* p = findProblem(name);
    const tune::TuneSession* s = session(name);
    QString text;
    const sol::DeviceSpec* d = sol::find_device(deviceName().toStdString());
    QString unused;
    if (calibration_ && d && !calibration_noted_ && !isCalibrated(*d, &unused)) {
        calibration_noted_ = true; // once: the device table's peaks are what it shows
        const QString source = QString::fromStdString(calibration_->source);
        Q_EMIT noteIssued(tr("%1 is not used (%2): T_SOL uses the device table's peaks")
                              .arg(source.isEmpty()
                                       ? tr("The project's calibration")
                                       : tr("The calibration kept in %1").arg(source),
                                   unused));
    }
    std::optional<sol::SolAnalysis> analysis;
    if (p && d) {
        try {
            analysis = analysisOf(*p, *d);
        } catch (const Error& e) {
            text = QString::fromStdString(e.what()).toHtmlEscaped();
        }
    }
    if (analysis) {
        const sol::SolAnalysis& a = *analysis;
        text = tr("<b>%1</b> — %2<br>T_SOL %3 µs on %4, %5-bound; %6 GFLOP%7, %8 MB, "
                  "intensity %9 FLOP/B (ridge %10); baseline %11")
                   .arg(name.toHtmlEscaped(),
                        QString::fromStdString(p->description).toHtmlEscaped(),
                        micro(a.t_sol), QString::fromStdString(a.device),
                        QString::fromLatin1(sol::bound_name(a.bound).data()))
                   .arg(a.cost.flops / 1e9, 0, 'f', 3)
                   .arg(a.cost.flops_counted ? QString() : tr(" (not counted: memory-bound)"))
                   .arg(a.cost.bytes / 1e6, 0, 'f', 2)
                   .arg(a.intensity, 0, 'g', 3)
                   .arg(a.ridge, 0, 'g', 3)
                   .arg(QString::fromLatin1(tune::baseline_name(p->baseline).data()));
        if (a.calibrated)
            text += tr("<br>Calibrated: the peaks measured on %1 (%2), kept in %3.")
                        .arg(QString::fromStdString(calibration_->device_name).toHtmlEscaped(),
                             QString::fromStdString(calibration_->date).toHtmlEscaped(),
                             QFileInfo(QString::fromStdString(calibration_->source))
                                 .fileName()
                                 .toHtmlEscaped());
    } else if (s) {
        text = tr("<b>%1</b> — a saved session: T_SOL %2 µs on %3, %4-bound")
                   .arg(name.toHtmlEscaped(), micro(s->t_sol), QString::fromStdString(s->device),
                        QString::fromStdString(s->bound));
    }
    if (s && p && QString::fromStdString(s->device) != deviceName())
        text += tr("<br><i>The session below was tuned against %1.</i>")
                    .arg(QString::fromStdString(s->device));
    sol_->setText(text);
    if (s) {
        showSession(*s);
    } else if (p) {
        const std::optional<tune::TuneSession> bounds = boundsOf(*p);
        if (bounds) showSession(*bounds);
        else showSession({});
    } else {
        showSession({});
    }
    updateState();
}

void ProfilingPanel::showSession(const tune::TuneSession& s)
{
    candidates_->setSession(s);
    lineage_->setSession(s);
    lineage_view_->expandAll();
    roofline_->setSession(s);
    if (s.flops <= 0) roofline_->clear();
}

QString ProfilingPanel::whyTuneIsOff() const
{
    if (isTuning()) return tr("A search is running");
    if (factory_needs_gpu_) {
        // Probed once: this runs on the UI thread after every trial.
        if (!gpu_) gpu_ = nn::gpu_status();
        if (!gpu_->available)
            return tr("Tuning needs a CUDA GPU: %1").arg(QString::fromStdString(gpu_->reason));
    }
    if (!factory_) return tr("Tuning needs the GPU evaluator, which this window was not given");
    if (!currentProblem()) return tr("Select a problem of the engine or of the suite");
    return {};
}

void ProfilingPanel::updateState()
{
    const QString why = whyTuneIsOff();
    const bool running = isTuning();
    tune_->setEnabled(why.isEmpty());
    tune_->setToolTip(why.isEmpty() ? tr("Search for faster kernels of the selected problem")
                                    : why);
    why_off_->setText(running ? QString() : why);
    why_off_->setVisible(!running && !why.isEmpty());
    cancel_->setEnabled(running);
    strategy_->setEnabled(!running);
    budget_->setEnabled(!running);
    device_->setEnabled(!running);
    open_->setEnabled(!running);
    save_->setEnabled(!running && session(current_));
    export_->setEnabled(!running && exporter_ && !sessions_.empty());
    export_->setToolTip(exporter_ ? tr("A report of every session of this window")
                                  : tr("The report module is not connected in this build"));
    const QString apply_off = whyApplyIsOff();
    apply_->setEnabled(!running && apply_off.isEmpty());
    apply_->setToolTip(apply_off.isEmpty()
                           ? tr("Keep the best verified kernel in the project: the next GPU "
                                "training run uses it")
                           : apply_off);
}

void ProfilingPanel::setKernelApplier(KernelApplier applier)
{
    applier_ = std::move(applier);
    updateState();
}

QString ProfilingPanel::whyApplyIsOff() const
{
    if (!applier_) return tr("Open a project to keep applied kernels in");
    const tune::TuneSession* s = session(current_);
    if (!s) return tr("Tune the problem first");
    if (tune::engine_operation(s->problem).empty())
        return tr("Only the engine's own operations (engine_*) run in training");
    if (!s->best_candidate()) return tr("The session has no verified kernel");
    return {};
}

bool ProfilingPanel::applyKernel(QString* error)
{
    const QString why = whyApplyIsOff();
    if (!why.isEmpty() || isTuning()) {
        if (error) *error = why.isEmpty() ? tr("Wait for the search to finish") : why;
        return false;
    }
    try {
        const ApplyOutcome out = applier_(*session(current_));
        if (!out.command.isEmpty()) Q_EMIT commandIssued(out.command);
        for (const QString& note : out.notes) Q_EMIT noteIssued(note);
        setStatus(out.notes.isEmpty() ? tr("applied") : out.notes.join(QStringLiteral("; ")));
        unsaved_.erase(current_); // the project keeps it
    } catch (...) { // an Error's what() names the project ("database is locked", ...)
        if (error) *error = describe_failure(std::current_exception());
        return false;
    }
    return true;
}

void ProfilingPanel::tune()
{
    refreshCalibration(); // a calibration run since the panel was shown counts
    const QString why = whyTuneIsOff();
    if (!why.isEmpty()) {
        setStatus(why);
        return;
    }
    const tune::Problem* p = currentProblem();
    const sol::DeviceSpec* d = sol::find_device(deviceName().toStdString());
    if (!p || !d) return;
    if (!mayReplace(current_)) return;
    std::string why_not;
    std::unique_ptr<tune::Evaluator> evaluator;
    std::optional<sol::SolAnalysis> bounds;
    try {
        bounds = analysisOf(*p, *d);
        evaluator = factory_(*p, *d, *bounds, &why_not);
    } catch (const Error& e) {
        why_not = e.what();
    }
    if (!evaluator) {
        setStatus(tr("Cannot tune %1: %2")
                      .arg(current_, QString::fromStdString(why_not.empty() ? "no evaluator"
                                                                              : why_not)));
        return;
    }
    tune::SearchOptions o;
    o.strategy = tune::parse_strategy(strategy_->currentText().toStdString());
    o.budget = std::size_t(budget_->value());
    o.stop_headroom = tune::kInteractiveStopHeadroom; // as gsr kernels tune stops
    const bool engine = current_.startsWith(QStringLiteral("engine_")) && engine_shape_;
    Q_EMIT commandIssued(tune_command(
        current_, strategy_->currentText(), o.budget, engine ? &*engine_shape_ : nullptr,
        QString::fromStdString(d->name),
        bounds->calibrated ? QString::fromStdString(calibration_->source) : QString()));
    if (!runner_->start(*p, *d, *bounds, o, std::move(evaluator))) return;
    tuning_problem_ = current_;
    progress_->setRange(0, int(o.budget));
    progress_->setValue(0);
    setStatus(tr("Tuning %1 (%2, at most %3 trials)…")
                  .arg(current_, strategy_->currentText())
                  .arg(o.budget));
    updateState();
}

void ProfilingPanel::cancel()
{
    if (!isTuning()) return;
    runner_->cancel();
    setStatus(tr("Cancelling after the trial in flight…"));
}

void ProfilingPanel::onStarted(const tune::TuneSession& session, qulonglong planned)
{
    sessions_[tuning_problem_] = session;
    progress_->setRange(0, int(std::max<qulonglong>(planned, 1)));
    progress_->setValue(0);
    if (current_ == tuning_problem_) showSession(session);
}

void ProfilingPanel::onCandidate(const tune::CandidateRecord& c, qulonglong done,
                                 qulonglong planned)
{
    progress_->setMaximum(int(std::max<qulonglong>(planned, 1)));
    progress_->setValue(int(std::min(done, planned)));
    tune::TuneSession& s = sessions_[tuning_problem_];
    s.candidates.push_back(c);
    if (current_ != tuning_problem_) return;
    candidates_->appendCandidate(c);
    lineage_->appendCandidate(c);
    if (c.parent) lineage_view_->expand(lineage_->indexOfCandidate(*c.parent));
    roofline_->addCandidate(c);
    const int best = candidates_->bestRow();
    roofline_->setBest(best >= 0 ? &candidates_->candidate(best) : nullptr);
}

void ProfilingPanel::onFinished(const tune::TuneSession& session, bool cancelled,
                                const QString& error)
{
    const QString name = tuning_problem_;
    if (!session.problem.empty()) sessions_[name] = session;
    if (!session.candidates.empty()) unsaved_.insert(name);
    progress_->setValue(progress_->maximum() > 0 && !cancelled ? progress_->maximum()
                                                               : progress_->value());
    const tune::CandidateRecord* best = session.best_candidate();
    QString text = tr("%1: %2 after %3 trials")
                       .arg(name, cancelled ? tr("cancelled")
                                            : tr("stopped (%1)").arg(QString::fromStdString(
                                                  session.stop_reason)))
                       .arg(session.candidates.size());
    if (best)
        text += tr("; best %1 µs = %2 % of SOL").arg(micro(best->seconds))
                    .arg(tune::percent_of_sol(session, *best), 0, 'f', 1);
    else
        text += tr("; nothing verified");
    const auto gaming = std::count_if(session.candidates.begin(), session.candidates.end(),
                                      [](const tune::CandidateRecord& c) {
                                          return c.verdict == tune::Verdict::Gaming;
                                      });
    if (gaming > 0) text += tr("; %1 gaming (never ranked)").arg(gaming);
    if (!error.isEmpty()) text = tr("%1: %2").arg(name, error);
    setStatus(text);
    Q_EMIT noteIssued(text);
    refreshProblemList();
    if (current_ == name) showProblem(name);
    updateState();
    Q_EMIT tuningFinished(session, cancelled);
}

bool ProfilingPanel::saveSession(const QString& path, QString* error)
{
    const tune::TuneSession* s = session(current_);
    if (!s) {
        if (error) *error = tr("%1 has no session to save").arg(current_);
        return false;
    }
    try {
        write_file_atomically(QFile::encodeName(path).toStdString(),
                              json_text(tune::to_json(*s), 2) + "\n");
    } catch (const Error& e) {
        if (error) *error = QString::fromStdString(e.what());
        return false;
    }
    unsaved_.erase(current_);
    Q_EMIT noteIssued(tr("session of %1 saved to %2").arg(current_, path));
    return true;
}

QStringList ProfilingPanel::unsavedSessions() const
{
    return QStringList(unsaved_.begin(), unsaved_.end());
}

bool ProfilingPanel::mayReplace(const QString& problem)
{
    if (!unsaved_.count(problem) || !replace_question_) return true;
    const tune::TuneSession* s = session(problem);
    return replace_question_(
        tr("The search of %1 (%2 trials) is not saved: Save Session\u2026 or Apply keeps it. "
           "Replace it?")
            .arg(problem)
            .arg(s ? s->candidates.size() : 0));
}

bool ProfilingPanel::openSession(const QString& path, QString* error)
{
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly)) {
        if (error) *error = tr("%1: cannot open: %2").arg(path, f.errorString());
        return false;
    }
    const std::string text = f.readAll().toStdString();
    nlohmann::json j;
    try {
        j = nlohmann::json::parse(text);
    } catch (const nlohmann::json::exception& e) {
        // Where it broke, as the CLI's readers say it: FILE:LINE:COL.
        const auto* parse = dynamic_cast<const nlohmann::json::parse_error*>(&e);
        const SourceText source = SourceText::from_string(path.toStdString(), text);
        const SourceLocation at = parse && parse->byte > 0 ? source.location(parse->byte - 1)
                                                           : SourceLocation{path.toStdString()};
        if (error)
            *error = QString::fromStdString(
                Error(at, "expected a JSON tuning session (" + json_error_text(e) + ")").what());
        return false;
    }
    try {
        tune::TuneSession s = tune::tune_session_from_json(j);
        const QString name = QString::fromStdString(s.problem);
        if (!mayReplace(name)) {
            if (error) *error = tr("%1: not opened: the unsaved search of %2 is kept").arg(path, name);
            return false;
        }
        sessions_[name] = std::move(s);
        unsaved_.erase(name); // what is shown now is in that file
        refreshProblemList();
        selectProblem(name);
    } catch (const Error& e) {
        if (error) *error = tr("%1: %2").arg(path, QString::fromStdString(e.message()));
        return false;
    }
    Q_EMIT noteIssued(tr("session opened from %1").arg(path));
    return true;
}

QStringList ProfilingPanel::reportFiles(const QStringList& problems, const QString& path)
{
    if (problems.size() == 1) return {path};
    const QFileInfo info(path);
    const QString ext = info.suffix().isEmpty() ? QString() : u'.' + info.suffix();
    QStringList files;
    QSet<QString> taken; // case-folded: one file on macOS and Windows
    for (QString problem : problems) {
        for (QChar& c : problem)
            if (!c.isLetterOrNumber() && c != u'.' && c != u'-' && c != u'_') c = u'_';
        const QString stem = info.completeBaseName() + u'-' + problem;
        QString name = stem + ext;
        for (int n = 2; taken.contains(name.toCaseFolded()); ++n)
            name = stem + u'-' + QString::number(n) + ext;
        taken.insert(name.toCaseFolded());
        files << info.dir().filePath(name);
    }
    return files;
}

bool ProfilingPanel::exportReport(const QString& path, QString* error)
{
    if (!exporter_) {
        if (error) *error = tr("the report module is not connected in this build");
        return false;
    }
    if (sessions_.empty()) {
        if (error) *error = tr("no session to report: Tune or Open Session first");
        return false;
    }
    std::vector<tune::TuneSession> all;
    QStringList problems;
    for (const auto& [name, s] : sessions_) {
        all.push_back(s);
        problems << QString::fromStdString(s.problem);
    }
    const QStringList written = reportFiles(problems, path);
    // One file each beside `path`: the save dialog asked about `path` only.
    QStringList existing;
    if (written.size() > 1)
        for (const QString& f : written)
            if (QFileInfo::exists(f)) existing << QFileInfo(f).fileName();
    if (!existing.isEmpty() && replace_question_ &&
        !replace_question_(tr("Export Report writes one file per session beside %1, and %2 "
                              "already exist%3. Replace %4?")
                               .arg(QFileInfo(path).fileName(), existing.join(QStringLiteral(", ")),
                                    existing.size() == 1 ? QStringLiteral("s") : QString(),
                                    existing.size() == 1 ? tr("it") : tr("them")))) {
        if (error)
            *error = tr("report not exported: %1 kept").arg(existing.join(QStringLiteral(", ")));
        return false;
    }
    try {
        exporter_(all, written);
    } catch (...) { // an Error's what() names the file ("is write-protected", ...)
        if (error) *error = describe_failure(std::current_exception());
        return false;
    }
    // Several sessions go to one file each beside `path`, none to `path` itself.
    Q_EMIT noteIssued(written.size() == 1
                          ? tr("report written to %1").arg(written.front())
                          : tr("reports of %1 sessions written to %2")
                                .arg(written.size())
                                .arg(written.join(QStringLiteral(", "))));
    return true;
}

void ProfilingPanel::saveWithDialog()
{
    const QString path = QFileDialog::getSaveFileName(
        this, tr("Save Tuning Session"), current_ + QStringLiteral(".json"),
        tr("Tuning sessions (*.json)"));
    if (path.isEmpty()) return;
    QString error;
    if (!saveSession(path, &error)) setStatus(error);
}

void ProfilingPanel::openWithDialog()
{
    const QString path = QFileDialog::getOpenFileName(this, tr("Open Tuning Session"), {},
                                                      tr("Tuning sessions (*.json)"));
    if (path.isEmpty()) return;
    QString error;
    if (!openSession(path, &error)) setStatus(error);
}

void ProfilingPanel::exportWithDialog()
{
    const QString path =
        QFileDialog::getSaveFileName(this, tr("Export Tuning Report"), {}, tr("Reports (*)"));
    if (path.isEmpty()) return;
    QString error;
    if (!exportReport(path, &error)) setStatus(error);
}

} // namespace gsr::views
