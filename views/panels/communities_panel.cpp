#include "panels/communities_panel.hpp"

#include "loading/shared_detection.hpp"
#include "models/netlist_summary_model.hpp"
#include "panels/cli_equivalent.hpp"
#include "panels/community_table_model.hpp"

#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFileInfo>
#include <QFormLayout>
#include <QFutureWatcher>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLabel>
#include <QProgressBar>
#include <QPushButton>
#include <QSortFilterProxyModel>
#include <QSpinBox>
#include <QTableView>
#include <QVBoxLayout>
#include <QtConcurrent/QtConcurrentRun>

#include <chrono>

namespace gsr::views {

CommunitiesPanel::CommunitiesPanel(QWidget* parent) : QWidget(parent)
{
    setObjectName(QStringLiteral("communitiesPanel"));
    method_ = new QComboBox(this);
    method_->setObjectName(QStringLiteral("communityMethod"));
    method_->addItem(tr("Leiden"), QStringLiteral("leiden"));
    method_->addItem(tr("Louvain"), QStringLiteral("louvain"));
    method_->setToolTip(tr("Leiden keeps every community connected; Louvain is the classic"));
    resolution_ = new QDoubleSpinBox(this);
    resolution_->setObjectName(QStringLiteral("communityResolution"));
    resolution_->setRange(0.001, 1000.0);
    resolution_->setDecimals(3);
    resolution_->setSingleStep(0.1);
    resolution_->setValue(1.0);
    resolution_->setToolTip(tr("Larger: more and smaller communities"));
    seed_ = new QSpinBox(this);
    seed_->setObjectName(QStringLiteral("communitySeed"));
    seed_->setRange(0, 1 << 30);
    seed_->setValue(1);
    seed_->setToolTip(tr("The same seed gives the same communities, whatever the thread count"));

    detect_button_ = new QPushButton(tr("&Detect"), this);
    detect_button_->setObjectName(QStringLiteral("detectButton"));
    connect(detect_button_, &QPushButton::clicked, this, &CommunitiesPanel::detect);
    cancel_button_ = new QPushButton(tr("Cancel"), this);
    cancel_button_->setObjectName(QStringLiteral("cancelDetectButton"));
    connect(cancel_button_, &QPushButton::clicked, this, &CommunitiesPanel::cancel);
    busy_ = new QProgressBar(this);
    busy_->setRange(0, 0); // detection reports no progress
    busy_->setTextVisible(false);
    busy_->setMaximumWidth(120);

    status_ = new QLabel(this);
    status_->setObjectName(QStringLiteral("communityStatus"));
    status_->setWordWrap(true);

    model_ = new CommunityTableModel(this);
    sorted_ = new QSortFilterProxyModel(this);
    sorted_->setSourceModel(model_);
    sorted_->setSortRole(CommunityTableModel::SortRole);
    table_ = new QTableView(this);
    table_->setObjectName(QStringLiteral("communityTable"));
    table_->setModel(sorted_);
    table_->setSortingEnabled(true);
    table_->sortByColumn(CommunityTableModel::SizeColumn, Qt::DescendingOrder);
    table_->setSelectionBehavior(QAbstractItemView::SelectRows);
    table_->setSelectionMode(QAbstractItemView::SingleSelection);
    table_->verticalHeader()->hide();
    table_->horizontalHeader()->setStretchLastSection(true);
    table_->setAlternatingRowColors(true);
    connect(table_->selectionModel(), &QItemSelectionModel::selectionChanged, this,
            &CommunitiesPanel::onSelectionChanged);

    auto* form = new QFormLayout;
    form->addRow(tr("Method"), method_);
    form->addRow(tr("Resolution"), resolution_);
    form->addRow(tr("Seed"), seed_);
    auto* buttons = new QHBoxLayout;
    buttons->addWidget(detect_button_);
    buttons->addWidget(cancel_button_);
    buttons->addWidget(busy_);
    buttons->addStretch();
    auto* layout = new QVBoxLayout(this);
    layout->addLayout(form);
    layout->addLayout(buttons);
    layout->addWidget(status_);
    layout->addWidget(table_, 1);
    updateState();
}

CommunitiesPanel::~CommunitiesPanel()
{
    if (cancel_flag_) *cancel_flag_ = true;
}

void CommunitiesPanel::setGraph(std::shared_ptr<const LoadedGraph> graph)
{
    cancel();
    graph_ = std::move(graph);
    result_.reset();
    model_->clear();
    status_->clear();
    updateState();
}

community::CommunityOptions CommunitiesPanel::options() const
{
    community::CommunityOptions o;
    o.method = method_->currentData().toString() == QLatin1String("louvain")
                   ? community::Method::Louvain
                   : community::Method::Leiden;
    o.resolution = resolution_->value();
    o.seed = static_cast<std::uint64_t>(seed_->value());
    return o;
}

void CommunitiesPanel::setOptions(community::Method method, double resolution,
                                  std::uint64_t seed)
{
    method_->setCurrentIndex(method == community::Method::Louvain ? 1 : 0);
    resolution_->setValue(resolution);
    seed_->setValue(static_cast<int>(seed));
}

CommunitiesPanel::Outcome CommunitiesPanel::run_detection(const LoadedGraph& graph,
                                                          community::CommunityOptions options)
{
    Outcome out;
    const auto t0 = std::chrono::steady_clock::now();
    try {
        // Shared with the canvas, which colours the same circuit at the default settings: the
        // graph is projected only where this call detects, and the time shown is the
        // detection's, whoever ran it.
        out.result = detect_shared(graph.circuit, nullptr, options, &out.seconds);
        // Detections are rare here: the worker thread need not keep their memory.
        community::release_detection_memory();
    } catch (...) {
        out.error = describe_failure(std::current_exception());
        out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    }
    return out;
}

void CommunitiesPanel::detect()
{
    if (!graph_) return;
    cancel();
    const community::CommunityOptions o = options();
    Q_EMIT commandIssued(communities_command(graph_->path, o, graph_->libraries()));
    const std::uint64_t job = next_job_++;
    running_job_ = job;
    cancel_flag_ = std::make_shared<std::atomic<bool>>(false);

    auto* watcher = new QFutureWatcher<Outcome>(this);
    connect(watcher, &QFutureWatcher<Outcome>::finished, this, [this, watcher, job] {
        const Outcome outcome = watcher->result();
        watcher->deleteLater();
        finish(job, outcome);
    });
    // The worker holds the graph and the flag itself: it may outlive a superseded job.
    watcher->setFuture(QtConcurrent::run(
        [graph = graph_, flag = cancel_flag_, o] {
            community::CommunityOptions with_flag = o;
            with_flag.cancel = flag.get();
            return run_detection(*graph, with_flag);
        }));
    status_->setText(tr("Detecting communities in %1\u2026").arg(QFileInfo(graph_->path).fileName()));
    updateState();
    Q_EMIT detectionStarted();
}

bool CommunitiesPanel::detectNow()
{
    if (!graph_) return false;
    cancel();
    const community::CommunityOptions o = options();
    Q_EMIT commandIssued(communities_command(graph_->path, o, graph_->libraries()));
    const std::uint64_t job = next_job_++;
    running_job_ = job;
    finish(job, run_detection(*graph_, o));
    return result_.has_value();
}

void CommunitiesPanel::cancel()
{
    if (!isDetecting()) return;
    if (cancel_flag_) *cancel_flag_ = true;
    running_job_ = 0; // its result, when it comes, is dropped
    status_->setText(tr("Detection cancelled."));
    updateState();
    Q_EMIT detectionCancelled();
}

void CommunitiesPanel::finish(std::uint64_t job, const Outcome& outcome)
{
    if (job != running_job_) return; // cancelled or superseded
    running_job_ = 0;
    if (outcome.result) {
        show(*outcome.result, outcome.seconds);
    } else if (!outcome.error.isEmpty()) {
        status_->setText(tr("Could not detect communities: %1").arg(outcome.error));
        Q_EMIT detectionFailed(outcome.error);
    } else {
        status_->setText(tr("Detection cancelled."));
        Q_EMIT detectionCancelled();
    }
    updateState();
}

void CommunitiesPanel::show(const community::CommunityResult& r, double seconds)
{
    result_ = r;
    model_->setCommunities(graph_->graph(), r.membership);
    table_->resizeColumnsToContents();
    status_->setText(tr("%1, modularity %2 (%3, largest %4 nodes)")
                         .arg(count_phrase(r.community_count, tr("community"), tr("communities")))
                         .arg(r.modularity, 0, 'f', 4)
                         .arg(format_duration(seconds))
                         .arg(r.largest()));
    Q_EMIT communitiesDetected(graph_->path,
                               QVector<quint32>(r.membership.begin(), r.membership.end()));
    Q_EMIT detectionFinished(static_cast<int>(r.community_count), r.modularity);
}

void CommunitiesPanel::onSelectionChanged()
{
    const QModelIndexList rows = table_->selectionModel()->selectedRows();
    if (rows.isEmpty()) return;
    const int row = sorted_->mapToSource(rows.first()).row();
    Q_EMIT communitySelected(static_cast<int>(model_->statsOf(row).id), model_->nodesOf(row));
}

void CommunitiesPanel::updateState()
{
    const bool busy = isDetecting();
    detect_button_->setEnabled(graph_ && !busy);
    detect_button_->setToolTip(graph_ ? tr("Find the communities of %1")
                                            .arg(QFileInfo(graph_->path).fileName())
                                      : tr("Open a netlist first."));
    cancel_button_->setVisible(busy);
    busy_->setVisible(busy);
    if (!graph_ && !busy) status_->setText(tr("Open a netlist to find its communities."));
}

} // namespace gsr::views
