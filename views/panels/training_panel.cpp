#include "panels/training_panel.hpp"

#include "loading/netlist_loader.hpp"
#include "models/netlist_summary_model.hpp"
#include "panels/cli_equivalent.hpp"
#include "panels/line_chart.hpp"
#include "panels/memory_estimates.hpp"
#include "util/diagnostics.hpp"

#include <QChart>
#include <QChartView>
#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QGridLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineSeries>
#include <QListWidget>
#include <QPainter>
#include <QProgressBar>
#include <QPushButton>
#include <QScatterSeries>
#include <QSpinBox>
#include <QSplitter>
#include <QValueAxis>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>

namespace gsr::views {

namespace {

const char* const kModels[] = {"gcn", "sage", "res", "rev", "gsr"};
const char* const kTargets[] = {"sp", "toggle", "level", "arrival"};

QString target_label(const char* t)
{
    const QString name = QString::fromLatin1(t);
    if (name == QLatin1String("sp")) return QObject::tr("Signal probability (sp)");
    if (name == QLatin1String("toggle")) return QObject::tr("Toggle rate (toggle)");
    if (name == QLatin1String("level")) return QObject::tr("Logic level (level)");
    return QObject::tr("Arrival time (arrival)");
}

QString fixed(double v, int digits)
{
    return std::isfinite(v) ? QString::number(v, 'f', digits) : QStringLiteral("\u2013");
}

} // namespace

TrainingPanel::TrainingPanel(QWidget* parent) : QWidget(parent)
{
    setObjectName(QStringLiteral("trainingPanel"));
    runner_ = new TrainingRunner(this);
    connect(runner_, &TrainingRunner::progressed, this, &TrainingPanel::onProgress);
    connect(runner_, &TrainingRunner::epochsFinished, this, &TrainingPanel::onEpochs);
    connect(runner_, &TrainingRunner::finished, this, &TrainingPanel::onFinished);
    connect(runner_, &TrainingRunner::runCreated, this, [this](qint64 id) {
        run_id_ = id;
        Q_EMIT noteIssued(tr("run %1 in %2").arg(id).arg(run_project_));
        Q_EMIT runCreated(id);
    });
    applying_preset_ = true; // the form's signals wait until every widget exists
    buildForm();
    buildCharts();
    applying_preset_ = false;
    applyPreset(0);
    updateState();
}

TrainingPanel::~TrainingPanel()
{
    // Stop the worker before the widgets its signals update go away.
    runner_->disconnect(this);
    delete runner_;
}

void TrainingPanel::buildForm()
{
    auto spin = [this](const char* name, int lo, int hi, const QString& tip) {
        auto* s = new QSpinBox(this);
        s->setObjectName(QString::fromLatin1(name));
        s->setRange(lo, hi);
        s->setToolTip(tip);
        connect(s, &QSpinBox::valueChanged, this, [this] {
            if (applying_preset_) return; // one update after the whole form is set
            Q_EMIT settingsChanged(settings());
            updateState();
        });
        return s;
    };
    preset_ = new QComboBox(this);
    preset_->setObjectName(QStringLiteral("presetBox"));
    for (const ModelPreset& p : model_presets()) {
        preset_->addItem(p.name);
        preset_->setItemData(preset_->count() - 1, p.description, Qt::ToolTipRole);
    }
    connect(preset_, &QComboBox::activated, this, &TrainingPanel::applyPreset);
    model_ = new QComboBox(this);
    model_->setObjectName(QStringLiteral("modelBox"));
    for (const char* m : kModels) model_->addItem(QString::fromLatin1(m), QString::fromLatin1(m));
    connect(model_, &QComboBox::currentIndexChanged, this, &TrainingPanel::onModelChanged);
    layers_ = spin("layersBox", 1, 1024, tr("Message-passing layers (blocks for res, rev, gsr)"));
    hidden_ = spin("hiddenBox", 1, 4096, tr("Hidden width D"));
    groups_ = spin("groupsBox", 2, 256, tr("Groups C of width D / C (rev, gsr)"));
    topk_ = spin("topkBox", 1, 4096, tr("Entries kept per node and group (gsr)"));
    target_ = new QComboBox(this);
    target_->setObjectName(QStringLiteral("targetBox"));
    for (const char* t : kTargets) target_->addItem(target_label(t), QString::fromLatin1(t));
    connect(target_, &QComboBox::currentIndexChanged, this, [this] {
        if (!applying_preset_) Q_EMIT settingsChanged(settings());
    });
    batching_ = new QComboBox(this);
    batching_->setObjectName(QStringLiteral("batchingBox"));
    batching_->addItem(tr("Full graph"));
    batching_->addItem(tr("Random nodes"));
    batch_size_ = spin("batchSizeBox", 1, 1 << 30, tr("Training nodes per step"));
    batch_size_->setValue(1024);
    connect(batching_, &QComboBox::currentIndexChanged, this, [this] {
        if (applying_preset_) return;
        Q_EMIT settingsChanged(settings());
        updateState();
    });
    constexpr int kMaxEpochs = static_cast<int>(train::kMaxEpochs);
    epochs_box_ = spin("epochsBox", 1, kMaxEpochs,
                       tr("Epochs at most (early stopping may end sooner)"));
    epochs_box_->setValue(50);
    learning_rate_ = new QDoubleSpinBox(this);
    learning_rate_->setObjectName(QStringLiteral("learningRateBox"));
    learning_rate_->setDecimals(5);
    learning_rate_->setRange(0.00001, 1.0);
    learning_rate_->setSingleStep(0.0005);
    learning_rate_->setValue(0.001);
    seed_ = spin("seedBox", 0, 1 << 30, tr("Initial weights, batches and the validation split"));
    seed_->setValue(1);
    patience_ = spin("patienceBox", 0, kMaxEpochs,
                     tr("Stop after this many epochs without a better validation loss (0: never)"));
    patience_->setValue(10);
    warmup_ = spin("warmupBox", 0, 1 << 24,
                   tr("Optimiser steps over which the learning rate rises linearly to its value "
                      "(0: the full rate from the first step; helps deep gsr models start)"));
    offload_ = new QCheckBox(tr("offload optimizer"), this);
    offload_->setObjectName(QStringLiteral("offloadBox"));
    offload_->setToolTip(tr("Keep gradients and Adam moments in pinned host memory: the GPU "
                            "holds 4 instead of 16 bytes per parameter, so memory stays flat "
                            "with depth; steps are a little slower"));
    connect(offload_, &QCheckBox::toggled, this, [this] {
        if (applying_preset_) return;
        Q_EMIT settingsChanged(settings());
        updateState();
    });

    test_list_ = new QListWidget(this);
    test_list_->setObjectName(QStringLiteral("testCircuitList"));
    test_list_->setSelectionMode(QAbstractItemView::ExtendedSelection);
    test_list_->setMaximumHeight(70);
    test_list_->setToolTip(tr("Circuits the model is tested on, never trained on"));
    add_test_ = new QPushButton(tr("Add\u2026"), this);
    connect(add_test_, &QPushButton::clicked, this, &TrainingPanel::addTestCircuits);
    remove_test_ = new QPushButton(tr("Remove"), this);
    connect(remove_test_, &QPushButton::clicked, this, &TrainingPanel::removeTestCircuits);

    train_button_ = new QPushButton(tr("&Train"), this);
    train_button_->setObjectName(QStringLiteral("trainButton"));
    train_button_->setDefault(true);
    connect(train_button_, &QPushButton::clicked, this, &TrainingPanel::train);
    stop_button_ = new QPushButton(tr("&Stop"), this);
    stop_button_->setObjectName(QStringLiteral("stopButton"));
    connect(stop_button_, &QPushButton::clicked, this, &TrainingPanel::stop);
    resume_button_ = new QPushButton(tr("&Resume"), this);
    resume_button_->setObjectName(QStringLiteral("resumeButton"));
    connect(resume_button_, &QPushButton::clicked, this, &TrainingPanel::resume);
    progress_ = new QProgressBar(this);
    progress_->setObjectName(QStringLiteral("trainingProgress"));
    progress_->setRange(0, 1000);
    progress_->setValue(0);
    progress_->setFormat(QStringLiteral("%p%"));
    eta_ = new QLabel(this);
    eta_->setObjectName(QStringLiteral("etaLabel"));
    status_ = new QLabel(this);
    status_->setObjectName(QStringLiteral("trainingStatus"));
    status_->setWordWrap(true);
    status_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    memory_note_ = new QLabel(this);
    memory_note_->setObjectName(QStringLiteral("trainingMemoryNote"));
    memory_note_->setWordWrap(true);
    memory_note_->setStyleSheet(QStringLiteral("color: #c0392b"));
}

void TrainingPanel::buildCharts()
{
    loss_chart_ = std::make_unique<LineChart>(tr("Loss"), tr("epoch"), tr("loss"), this);
    loss_chart_->addSeries(tr("train"));
    loss_chart_->addSeries(tr("validation"));
    correlation_chart_ = std::make_unique<LineChart>(tr("Validation correlations"), tr("epoch"),
                                                     tr("coefficient"), this);
    correlation_chart_->addSeries(tr("Pearson r"));
    correlation_chart_->addSeries(tr("Spearman \u03c1"));
    correlation_chart_->addSeries(tr("Kendall \u03c4"));
    correlation_chart_->setFixedYRange(-1.0, 1.0);
    loss_chart_->view()->setObjectName(QStringLiteral("lossChart"));
    correlation_chart_->view()->setObjectName(QStringLiteral("correlationChart"));

    auto* chart = new QChart;
    chart->setTitle(tr("Test nodes: predicted against true"));
    chart->legend()->hide();
    chart->setMargins(QMargins(4, 4, 4, 4));
    scatter_ = new QScatterSeries;
    scatter_->setName(tr("test nodes"));
    scatter_->setMarkerSize(5.0);
    scatter_->setPen(Qt::NoPen);
    diagonal_ = new QLineSeries;
    diagonal_->setName(tr("predicted = true"));
    chart->addSeries(scatter_);
    chart->addSeries(diagonal_);
    scatter_x_ = new QValueAxis;
    scatter_x_->setTitleText(tr("true"));
    // Short labels, and three on x: the chart shares the dock with two others.
    scatter_x_->setLabelFormat(QStringLiteral("%.3g"));
    scatter_x_->setTickCount(3);
    scatter_y_ = new QValueAxis;
    scatter_y_->setTitleText(tr("predicted"));
    scatter_y_->setLabelFormat(QStringLiteral("%.3g"));
    chart->addAxis(scatter_x_, Qt::AlignBottom);
    chart->addAxis(scatter_y_, Qt::AlignLeft);
    for (QAbstractSeries* s : {static_cast<QAbstractSeries*>(scatter_),
                               static_cast<QAbstractSeries*>(diagonal_)}) {
        s->attachAxis(scatter_x_);
        s->attachAxis(scatter_y_);
    }
    scatter_view_ = new QChartView(chart, this);
    scatter_view_->setObjectName(QStringLiteral("scatterChart"));
    scatter_view_->setRenderHint(QPainter::Antialiasing);
    scatter_view_->setMinimumHeight(160);

    // Layout: the form on the left, the three charts on the right.
    auto* form = new QFormLayout;
    form->addRow(tr("Preset"), preset_);
    form->addRow(tr("Model"), model_);
    auto* shape = new QHBoxLayout;
    shape->addWidget(layers_);
    shape->addWidget(new QLabel(QStringLiteral("\u00d7"), this));
    shape->addWidget(hidden_);
    form->addRow(tr("Layers \u00d7 width"), shape);
    auto* grouping = new QHBoxLayout;
    grouping->addWidget(groups_);
    grouping->addWidget(new QLabel(tr("top-k"), this));
    grouping->addWidget(topk_);
    form->addRow(tr("Groups"), grouping);
    form->addRow(tr("Target"), target_);
    auto* batching = new QHBoxLayout;
    batching->addWidget(batching_);
    batching->addWidget(batch_size_);
    form->addRow(tr("Batching"), batching);
    auto* schedule = new QHBoxLayout;
    schedule->addWidget(epochs_box_);
    schedule->addWidget(new QLabel(tr("lr"), this));
    schedule->addWidget(learning_rate_);
    form->addRow(tr("Epochs"), schedule);
    auto* seeds = new QHBoxLayout;
    seeds->addWidget(seed_);
    seeds->addWidget(new QLabel(tr("patience"), this));
    seeds->addWidget(patience_);
    form->addRow(tr("Seed"), seeds);
    auto* optimiser = new QHBoxLayout;
    optimiser->addWidget(new QLabel(tr("warm-up steps"), this));
    optimiser->addWidget(warmup_);
    optimiser->addWidget(offload_);
    form->addRow(tr("Optimizer"), optimiser);
    auto* tests = new QVBoxLayout;
    tests->addWidget(test_list_);
    auto* test_buttons = new QHBoxLayout;
    test_buttons->addWidget(add_test_);
    test_buttons->addWidget(remove_test_);
    test_buttons->addStretch();
    tests->addLayout(test_buttons);
    form->addRow(tr("Test on"), tests);

    auto* buttons = new QHBoxLayout;
    buttons->addWidget(train_button_);
    buttons->addWidget(stop_button_);
    buttons->addWidget(resume_button_);
    auto* left = new QVBoxLayout;
    left->addLayout(form);
    left->addLayout(buttons);
    left->addWidget(progress_);
    left->addWidget(eta_);
    left->addWidget(memory_note_);
    left->addWidget(status_);
    left->addStretch();
    auto* left_widget = new QWidget(this);
    left_widget->setLayout(left);

    auto* charts = new QSplitter(Qt::Horizontal, this);
    charts->addWidget(loss_chart_->view());
    charts->addWidget(correlation_chart_->view());
    charts->addWidget(scatter_view_);
    auto* layout = new QHBoxLayout(this);
    layout->addWidget(left_widget, 0);
    layout->addWidget(charts, 1);
}

QChart* TrainingPanel::lossChart() const { return loss_chart_->chart(); }
QChart* TrainingPanel::correlationChart() const { return correlation_chart_->chart(); }
QString TrainingPanel::statusText() const { return status_->text(); }

void TrainingPanel::applyPreset(int index)
{
    const auto& presets = model_presets();
    if (index < 0 || index >= static_cast<int>(presets.size())) return;
    const ModelPreset& p = presets[static_cast<std::size_t>(index)];
    applying_preset_ = true;
    preset_->setCurrentIndex(index);
    model_->setCurrentIndex(static_cast<int>(p.kind));
    layers_->setValue(static_cast<int>(p.layers));
    hidden_->setValue(static_cast<int>(p.hidden));
    groups_->setValue(static_cast<int>(p.groups));
    topk_->setValue(static_cast<int>(p.topk));
    applying_preset_ = false;
    onModelChanged();
}

void TrainingPanel::onModelChanged()
{
    if (applying_preset_) return;
    Q_EMIT settingsChanged(settings());
    updateState();
}

TrainingSettings TrainingPanel::settings() const
{
    TrainingSettings s;
    if (!netlist_.isEmpty()) s.train << QFileInfo(netlist_).absoluteFilePath();
    s.liberty = libraries_;
    for (int i = 0; i < test_list_->count(); ++i)
        s.test << test_list_->item(i)->data(Qt::UserRole).toString();
    s.target = train::parse_target(target_->currentData().toString().toStdString());
    nn::ModelConfig& m = s.config.model;
    m.kind = nn::parse_model_kind(model_->currentData().toString().toStdString());
    m.layers = static_cast<std::uint32_t>(layers_->value());
    m.hidden = static_cast<std::uint32_t>(hidden_->value());
    m.groups = static_cast<std::uint32_t>(groups_->value());
    m.topk = static_cast<std::uint32_t>(topk_->value());
    s.config.epochs = static_cast<std::uint32_t>(epochs_box_->value());
    s.config.adam.learning_rate = learning_rate_->value();
    s.config.batch_size =
        batching_->currentIndex() == 0 ? 0 : static_cast<std::size_t>(batch_size_->value());
    s.config.seed = static_cast<std::uint64_t>(seed_->value());
    s.config.patience = static_cast<std::uint32_t>(patience_->value());
    s.config.warmup_steps = static_cast<std::uint32_t>(warmup_->value());
    m.offload_optimizer = offload_->isChecked();
    s.normalize();
    return s;
}

void TrainingPanel::setSettings(const TrainingSettings& s)
{
    applying_preset_ = true;
    const nn::ModelConfig& m = s.config.model;
    model_->setCurrentIndex(static_cast<int>(m.kind));
    layers_->setValue(static_cast<int>(m.layers));
    hidden_->setValue(static_cast<int>(m.hidden));
    groups_->setValue(static_cast<int>(m.groups));
    topk_->setValue(static_cast<int>(m.topk));
    target_->setCurrentIndex(static_cast<int>(s.target));
    batching_->setCurrentIndex(s.config.batch_size == 0 ? 0 : 1);
    if (s.config.batch_size > 0) batch_size_->setValue(static_cast<int>(s.config.batch_size));
    epochs_box_->setValue(static_cast<int>(s.config.epochs));
    learning_rate_->setValue(s.config.adam.learning_rate);
    seed_->setValue(static_cast<int>(s.config.seed));
    patience_->setValue(static_cast<int>(s.config.patience));
    warmup_->setValue(static_cast<int>(s.config.warmup_steps));
    offload_->setChecked(m.offload_optimizer);
    applying_preset_ = false;
    setTestCircuits(s.test);
    onModelChanged();
}

void TrainingPanel::setTestCircuits(const QStringList& paths)
{
    test_list_->clear();
    for (const QString& p : paths) {
        auto* item = new QListWidgetItem(QFileInfo(p).fileName(), test_list_);
        item->setData(Qt::UserRole, QFileInfo(p).absoluteFilePath());
        item->setToolTip(QFileInfo(p).absoluteFilePath());
    }
    Q_EMIT settingsChanged(settings());
    updateState();
}

void TrainingPanel::addTestCircuits()
{
    const QStringList files = QFileDialog::getOpenFileNames(
        this, tr("Circuits to Test On"), QFileInfo(netlist_).absolutePath(),
        netlist_files_filter() + tr(";;All files (*)"));
    if (files.isEmpty()) return;
    QStringList all = settings().test;
    for (const QString& f : files)
        if (!all.contains(QFileInfo(f).absoluteFilePath())) all << f;
    setTestCircuits(all);
}

void TrainingPanel::removeTestCircuits()
{
    qDeleteAll(test_list_->selectedItems());
    Q_EMIT settingsChanged(settings());
    updateState();
}

void TrainingPanel::setNetlist(const QString& path, const QStringList& libraries)
{
    netlist_ = path;
    libraries_ = libraries;
    shape_.reset();
    Q_EMIT settingsChanged(settings());
    updateState();
}

void TrainingPanel::setProject(const QString& path)
{
    project_ = path;
    if (!isTraining()) run_id_ = 0;
    updateState();
}

bool TrainingPanel::runOfThisProject() const
{
    // A run started before another project was opened belongs to its own project: Resume
    // must not continue the run of that id in this one.
    return !project_.isEmpty() && run_id_ > 0 && run_project_ == project_;
}

void TrainingPanel::setGraphShape(const nn::GraphShape& shape)
{
    shape_ = shape;
    updateState();
}

QString TrainingPanel::whyTrainIsOff() const
{
    if (isTraining()) return tr("A run is in progress.");
    if (netlist_.isEmpty()) return tr("Open a netlist to train on first.");
    if (test_list_->count() == 0)
        return tr("Add at least one circuit to test on (Test on \u2192 Add\u2026): a model is "
                  "judged on circuits it never saw.");
    const QString train_path = QFileInfo(netlist_).absoluteFilePath();
    for (int i = 0; i < test_list_->count(); ++i)
        if (test_list_->item(i)->data(Qt::UserRole).toString() == train_path)
            return tr("%1 is trained on: it cannot be a test circuit as well.")
                .arg(QFileInfo(netlist_).fileName());
    const TrainingSettings s = settings();
    try {
        train::validate(s.config, s.target);
    } catch (const Error& e) {
        return QString::fromStdString(e.message());
    }
    if (shape_) {
        try {
            const nn::MemoryReport r = nn::estimate_memory(s.config.model, *shape_);
            const std::size_t device = device_memory_bytes(s.config.model.hidden);
            if (memory_verdict(r.analytic_peak_bytes, device) == MemoryVerdict::TooLarge)
                return memory_warning(r.analytic_peak_bytes, device);
        } catch (const Error& e) {
            return QString::fromStdString(e.message());
        }
    }
    return {};
}

void TrainingPanel::train()
{
    const QString why = whyTrainIsOff();
    if (!why.isEmpty()) {
        showError(why);
        return;
    }
    const TrainingSettings s = settings();
    Q_EMIT commandIssued(train_command(s, project_));
    run_id_ = 0;
    run_project_ = project_;
    if (!runner_->start(s, project_)) return;
    startSession(tr("Loading and labelling the circuits\u2026"));
}

void TrainingPanel::stop()
{
    if (!isTraining()) return;
    runner_->cancel();
    status_->setText(tr("Stopping after the step in progress\u2026"));
}

void TrainingPanel::resume()
{
    if (isTraining()) return;
    if (runOfThisProject()) {
        resumeRun(run_id_);
        return;
    }
    if (project_.isEmpty() && runner_->canResumeInMemory()) {
        Q_EMIT noteIssued(tr("resuming the run kept in memory (open a project to keep runs)"));
        run_project_.clear();
        if (runner_->resume({}, 0, 0, offload_->isChecked())) startSession(tr("Resuming\u2026"));
        return;
    }
    showError(tr("There is no stopped run to resume."));
}

void TrainingPanel::resumeRun(qint64 run_id)
{
    if (isTraining() || project_.isEmpty()) return;
    Q_EMIT commandIssued(resume_command(project_, run_id, 0, offload_->isChecked()));
    run_id_ = run_id;
    run_project_ = project_;
    if (runner_->resume(project_, run_id, 0, offload_->isChecked())) startSession(tr("Resuming run %1\u2026").arg(run_id));
}

void TrainingPanel::startSession(const QString& status)
{
    epochs_.clear();
    outcome_.reset();
    loss_chart_->clearPoints();
    correlation_chart_->clearPoints();
    scatter_->clear();
    diagonal_->clear();
    progress_->setValue(0);
    eta_->setText(tr("Estimating the time left\u2026"));
    status_->setText(status);
    status_->setStyleSheet(QString());
    session_clock_.start();
    updateState();
    Q_EMIT trainingStarted();
}

void TrainingPanel::onProgress(const TrainingProgress& p)
{
    const double f = p.fraction();
    progress_->setValue(static_cast<int>(std::lround(f * 1000.0)));
    progress_->setFormat(tr("epoch %1 of %2 \u2014 %p%").arg(p.epoch).arg(p.epochs));
    const double elapsed = session_clock_.elapsed() / 1000.0;
    if (f > 0.0 && elapsed > 0.0)
        eta_->setText(tr("%1 left (%2 so far)")
                          .arg(format_duration(elapsed * (1.0 - f) / f), format_duration(elapsed)));
    if (p.evaluating) status_->setText(tr("Evaluating epoch %1\u2026").arg(p.epoch));
    else status_->setText(tr("Training epoch %1, step %2 of %3").arg(p.epoch).arg(p.step).arg(p.steps));
}

void TrainingPanel::onEpochs(const QVector<EpochPoint>& points)
{
    epochs_.append(points);
    QList<QPointF> train, val, r, rho, tau;
    for (const EpochPoint& e : points) {
        train.append({double(e.epoch), e.train_loss});
        val.append({double(e.epoch), e.val_loss});
        r.append({double(e.epoch), e.val_pearson});
        rho.append({double(e.epoch), e.val_spearman});
        tau.append({double(e.epoch), e.val_kendall});
    }
    loss_chart_->append(0, train);
    loss_chart_->append(1, val);
    correlation_chart_->append(0, r);
    correlation_chart_->append(1, rho);
    correlation_chart_->append(2, tau);
}

void TrainingPanel::onFinished(const TrainingOutcome& o)
{
    outcome_ = o;
    if (o.run_id > 0) run_id_ = o.run_id;
    for (const QString& n : o.notes) Q_EMIT noteIssued(n);
    const QString where = o.run_id > 0 ? tr("Run %1").arg(o.run_id) : tr("The run");
    if (o.status == QLatin1String("failed")) {
        progress_->setValue(0);
        eta_->clear();
        showError(tr("Training failed: %1").arg(o.error));
    } else {
        const bool before = o.status == QLatin1String("cancelled") && o.epochs_done == 0;
        QString text = before ? tr("%1 stopped before training began.").arg(where)
                              : tr("%1 %2 after epoch %3.").arg(where, o.status).arg(o.epochs_done);
        if (o.best) {
            const train::Metrics& t = o.best->test.metrics;
            text += tr(" Best epoch %1: test MAE %2, r %3, \u03c1 %4, \u03c4 %5.")
                        .arg(o.best->epoch)
                        .arg(fixed(t.mae, 4), fixed(t.pearson.value, 3),
                             fixed(t.spearman.value, 3), fixed(t.kendall.value, 3));
        }
        if (o.resumable) text += tr(" Its last checkpoint is kept: Resume continues it.");
        if (run_project_.isEmpty()) text += tr(" Not saved: no project is open.");
        status_->setText(text);
        status_->setStyleSheet(QString());
        eta_->setText(tr("Took %1").arg(format_duration(session_clock_.elapsed() / 1000.0)));
        if (o.status != QLatin1String("cancelled")) progress_->setValue(progress_->maximum());
    }

    // The scatter: true on x, predicted on y, with the diagonal of a perfect model.
    if (!o.test_scatter.isEmpty()) {
        double lo = o.test_scatter.front().x(), hi = lo;
        for (const QPointF& p : o.test_scatter) {
            lo = std::min({lo, p.x(), p.y()});
            hi = std::max({hi, p.x(), p.y()});
        }
        if (hi <= lo) hi = lo + 1.0;
        const double pad = 0.03 * (hi - lo);
        scatter_->replace(QList<QPointF>(o.test_scatter.begin(), o.test_scatter.end()));
        diagonal_->replace(QList<QPointF>{{lo, lo}, {hi, hi}});
        scatter_x_->setRange(lo - pad, hi + pad);
        scatter_y_->setRange(lo - pad, hi + pad);
        // The run ends with the best epoch's model, whose figures the status line gives;
        // with the last epoch's only where the best one's checkpoint was lost.
        QString title = tr("Test nodes: predicted (epoch %1's model) against true")
                            .arg(o.model_epoch);
        if (o.best && o.best->epoch != o.model_epoch)
            title += tr("; the best epoch was %1").arg(o.best->epoch);
        scatter_->chart()->setTitle(title);
    }
    updateState();
    Q_EMIT trainingFinished(o);
}

void TrainingPanel::showError(const QString& message)
{
    status_->setText(message);
    status_->setStyleSheet(QStringLiteral("color: #c0392b"));
    Q_EMIT noteIssued(message);
}

void TrainingPanel::updateState()
{
    const bool busy = isTraining();
    const QString why = whyTrainIsOff();
    train_button_->setEnabled(why.isEmpty());
    train_button_->setToolTip(why.isEmpty() ? tr("Train on %1 and test on the listed circuits")
                                                  .arg(QFileInfo(netlist_).fileName())
                                            : why);
    stop_button_->setEnabled(busy);
    // Resume continues a stopped run of this session; the Runs panel resumes older ones.
    const bool stopped = outcome_ && outcome_->resumable;
    const bool can_resume = !busy && ((runOfThisProject() && stopped) ||
                                      (project_.isEmpty() && runner_->canResumeInMemory()));
    resume_button_->setEnabled(can_resume);
    batch_size_->setEnabled(batching_->currentIndex() == 1);
    for (QWidget* w : std::initializer_list<QWidget*>{preset_, model_, layers_, hidden_, target_,
                                                      batching_, epochs_box_, learning_rate_,
                                                      seed_, patience_, warmup_, offload_,
                                                      test_list_, add_test_, remove_test_})
        w->setEnabled(!busy);
    const auto kind = nn::parse_model_kind(model_->currentData().toString().toStdString());
    groups_->setEnabled(!busy && (kind == nn::ModelKind::Rev || kind == nn::ModelKind::Gsr));
    topk_->setEnabled(!busy && kind == nn::ModelKind::Gsr);
    memory_note_->clear();
    if (shape_ && !busy) {
        try {
            const nn::ModelConfig model = settings().config.model;
            const nn::MemoryReport r = nn::estimate_memory(model, *shape_);
            memory_note_->setText(
                memory_warning(r.analytic_peak_bytes, device_memory_bytes(model.hidden)));
        } catch (const Error&) {
            // An impossible configuration: whyTrainIsOff() says so on the button.
        }
    }
}

} // namespace gsr::views
