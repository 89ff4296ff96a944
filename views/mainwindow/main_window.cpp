#include "mainwindow/main_window.hpp"

#include "canvas/canvas_panel.hpp"
#include "canvas/graph_canvas.hpp"
#include "device/compute_device.hpp"
#include "loading/netlist_loader.hpp"
#include "mainwindow/recent_files.hpp"
#include "models/netlist_summary_model.hpp"
#include "panels/circuit_graph_source.hpp"
#include "panels/communities_panel.hpp"
#include "panels/studio_panels.hpp"
#include "project/project_session.hpp"
#include "summary/summary_overview.hpp"
#include "util/diagnostics.hpp"

#include <QAction>
#include <QApplication>
#include <QClipboard>
#include <QCloseEvent>
#include <QDockWidget>
#include <QDragEnterEvent>
#include <QDropEvent>
#include <QFileDialog>
#include <QFileInfo>
#include <QHeaderView>
#include <QKeySequence>
#include <QLabel>
#include <QListWidget>
#include <QMenuBar>
#include <QMessageBox>
#include <QMimeData>
#include <QProgressBar>
#include <QSettings>
#include <QStatusBar>
#include <QStyle>
#include <QTabWidget>
#include <QTableView>
#include <QTextDocument>
#include <QToolBar>
#include <QToolButton>

#include <utility>

namespace gsr::views {

namespace {

const QString kGeometryKey = QStringLiteral("mainWindow/geometry");
const QString kStateKey = QStringLiteral("mainWindow/state");
const QString kLastDirKey = QStringLiteral("mainWindow/lastDirectory");
constexpr int kStatusTimeoutMs = 10000;

QString file_name(const QString& path) { return QFileInfo(path).fileName(); }

/// A netlist's path as every panel names it: the Training panel keeps it absolute, so the
/// canvas must too, or the predictions for "./alu8.v" are not taken as its own.
QString absolute_path(const QString& path)
{
    return path.isEmpty() ? path : QFileInfo(path).absoluteFilePath();
}

QString netlist_filter()
{
    return netlist_files_filter() +
           QObject::tr(";;Cell libraries (*.lib *.lef *.gz);;All files (*)");
}

QString library_filter()
{
    return QObject::tr("Cell libraries (*.lib *.lef *.gz);;All files (*)");
}

QString project_filter() { return QObject::tr("GSR Studio projects (*.gsr);;All files (*)"); }

/// Restores the cursor however the scope is left (the store throws gsr::Error).
struct WaitCursor {
    WaitCursor() { QApplication::setOverrideCursor(Qt::WaitCursor); }
    ~WaitCursor() { QApplication::restoreOverrideCursor(); }
    WaitCursor(const WaitCursor&) = delete;
    WaitCursor& operator=(const WaitCursor&) = delete;
};

} // namespace

MainWindow::MainWindow(QWidget* parent)
    : QMainWindow(parent),
      project_(std::make_unique<ProjectSession>()),
      recent_(std::make_unique<RecentFiles>())
{
    setObjectName(QStringLiteral("mainWindow"));
    setAcceptDrops(true);
    shows_message_boxes_ = qEnvironmentVariableIntValue("GSR_NO_MESSAGE_BOXES") == 0;

    summary_model_ = new NetlistSummaryModel(this);
    loader_ = new NetlistLoader(this);
    connect(loader_, &NetlistLoader::started, this, &MainWindow::onLoadStarted);
    connect(loader_, &NetlistLoader::loaded, this, &MainWindow::onLoaded);
    connect(loader_, &NetlistLoader::failed, this, &MainWindow::onLoadFailed);
    connect(loader_, &NetlistLoader::cancelled, this, &MainWindow::onLoadCancelled);

    overview_ = new SummaryOverview(this);
    setCentralWidget(overview_);

    createActions();
    createDocks();
    createMenus();
    createStatusBar();
    panels_ = new StudioPanels(this);
    panels_->install(*this);
    // A selected community or rule: its nodes become the canvas selection.
    auto highlight = [this](int, const QVector<quint32>& nodes) {
        if (canvas_ && canvas_->canvas())
            canvas_->canvas()->setSelection({nodes.begin(), nodes.end()});
    };
    connect(panels_, &StudioPanels::communitySelected, this, highlight);
    connect(panels_, &StudioPanels::ruleSelected, this, highlight);
    // A trained model's predictions for the circuit shown: the "prediction error" colours.
    connect(panels_, &StudioPanels::predictionsReady, this,
            [this](const QString& path, const QVector<float>& predictions) {
                if (canvas_) canvas_->applyPredictions(path, predictions);
            });
    // A close waiting for the work in progress to stop: it closes now; or, when new work
    // started meanwhile (Ctrl+T), the close is given up and the window works again.
    connect(panels_, &StudioPanels::workStopped, this, [this] { close(); });
    connect(panels_, &StudioPanels::closeAbandoned, this, [this] {
        setClosing(false);
        statusBar()->showMessage(tr("Closing given up: new work started"), kStatusTimeoutMs);
    });
    // Communities found in the Communities panel colour the canvas too.
    connect(panels_, &StudioPanels::communitiesDetected, this, [this](const QString& path) {
        const CommunitiesPanel* panel = panels_->communities();
        if (!canvas_ || !panel->result()) return;
        canvas_->applyCommunities(
            path, std::make_shared<const community::CommunityResult>(*panel->result()),
            panel->options().method);
    });
    resize(1180, 760);
    updateActions();
    updateTitle();
}

MainWindow::~MainWindow() = default;

// ---- construction --------------------------------------------------------------------------

void MainWindow::createActions()
{
    open_action_ = new QAction(style()->standardIcon(QStyle::SP_DialogOpenButton),
                               tr("&Open Netlist\u2026"), this);
    open_action_->setObjectName(QStringLiteral("openAction"));
    open_action_->setShortcut(QKeySequence::Open);
    open_action_->setStatusTip(tr("Read a netlist or cell library and show its summary"));
    connect(open_action_, &QAction::triggered, this, &MainWindow::chooseNetlist);

    open_project_action_ = new QAction(tr("Open &Project\u2026"), this);
    open_project_action_->setObjectName(QStringLiteral("openProjectAction"));
    connect(open_project_action_, &QAction::triggered, this, &MainWindow::chooseProjectToOpen);
    new_project_action_ = new QAction(tr("&New Project\u2026"), this);
    new_project_action_->setObjectName(QStringLiteral("newProjectAction"));
    connect(new_project_action_, &QAction::triggered, this, &MainWindow::chooseProjectToCreate);
    import_action_ = new QAction(tr("&Import into Project"), this);
    import_action_->setObjectName(QStringLiteral("importAction"));
    connect(import_action_, &QAction::triggered, this, &MainWindow::importIntoProject);

    libraries_action_ = new QAction(tr("Cell &Libraries\u2026"), this);
    libraries_action_->setObjectName(QStringLiteral("cellLibrariesAction"));
    libraries_action_->setStatusTip(
        tr("Choose the Liberty or LEF libraries that standard-cell netlists are read with"));
    connect(libraries_action_, &QAction::triggered, this, &MainWindow::chooseCellLibraries);
    forget_libraries_action_ = new QAction(tr("&Forget Cell Libraries"), this);
    forget_libraries_action_->setObjectName(QStringLiteral("forgetCellLibrariesAction"));
    forget_libraries_action_->setStatusTip(tr("Read netlists without cell libraries again"));
    connect(forget_libraries_action_, &QAction::triggered, this,
            [this] { setCellLibraries({}); });

    cancel_action_ = new QAction(style()->standardIcon(QStyle::SP_BrowserStop),
                                 tr("&Cancel Loading"), this);
    cancel_action_->setObjectName(QStringLiteral("cancelLoadAction"));
    cancel_action_->setShortcut(Qt::Key_Escape);
    cancel_action_->setStatusTip(tr("Stop waiting for the file being loaded"));
    connect(cancel_action_, &QAction::triggered, this, &MainWindow::cancelLoading);

    quit_action_ = new QAction(tr("&Quit"), this);
    quit_action_->setObjectName(QStringLiteral("quitAction"));
    quit_action_->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_Q));
    quit_action_->setMenuRole(QAction::QuitRole);
    connect(quit_action_, &QAction::triggered, this, &QWidget::close);
}

void MainWindow::createDocks()
{
    summary_table_ = new QTableView(this);
    summary_table_->setObjectName(QStringLiteral("summaryTable"));
    summary_table_->setModel(summary_model_);
    summary_table_->verticalHeader()->hide();
    summary_table_->verticalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    summary_table_->horizontalHeader()->setStretchLastSection(true);
    summary_table_->setSelectionBehavior(QAbstractItemView::SelectRows);
    summary_table_->setAlternatingRowColors(true);
    summary_table_->setWordWrap(false);
    connect(summary_model_, &QAbstractItemModel::modelReset, summary_table_,
            [this] { summary_table_->resizeColumnToContents(NetlistSummaryModel::KeyColumn); });

    summary_dock_ = new QDockWidget(tr("Summary"), this);
    summary_dock_->setObjectName(QStringLiteral("summaryDock"));
    summary_dock_->setWidget(summary_table_);
    addDockWidget(Qt::RightDockWidgetArea, summary_dock_);

    messages_ = new QListWidget(this);
    messages_->setObjectName(QStringLiteral("messages"));
    messages_->setSelectionMode(QAbstractItemView::ExtendedSelection);
    messages_->setUniformItemSizes(true);
    messages_->setContextMenuPolicy(Qt::ActionsContextMenu);
    auto* copy = new QAction(tr("&Copy"), messages_);
    copy->setShortcut(QKeySequence::Copy);
    copy->setShortcutContext(Qt::WidgetShortcut);
    connect(copy, &QAction::triggered, this, [this] {
        QStringList lines;
        for (const QListWidgetItem* item : messages_->selectedItems()) lines << item->text();
        QGuiApplication::clipboard()->setText(lines.join(QLatin1Char('\n')));
    });
    auto* clear = new QAction(tr("C&lear Messages"), messages_);
    connect(clear, &QAction::triggered, messages_, &QListWidget::clear);
    messages_->addActions({copy, clear});

    messages_dock_ = new QDockWidget(tr("Messages"), this);
    messages_dock_->setObjectName(QStringLiteral("messagesDock"));
    messages_dock_->setWidget(messages_);
    addDockWidget(Qt::BottomDockWidgetArea, messages_dock_);
    resizeDocks({summary_dock_}, {320}, Qt::Horizontal);
    resizeDocks({messages_dock_}, {150}, Qt::Vertical);
}

void MainWindow::createMenus()
{
    QMenu* file = menuBar()->addMenu(tr("&File"));
    // Disabled project actions carry a tooltip that says why; menus hide tooltips by default.
    file->setToolTipsVisible(true);
    file->addAction(open_action_);
    recent_menu_ = file->addMenu(tr("Open &Recent"));
    connect(recent_menu_, &QMenu::aboutToShow, this, &MainWindow::rebuildRecentMenu);
    file->addAction(cancel_action_);
    file->addSeparator();
    file->addAction(libraries_action_);
    file->addAction(forget_libraries_action_);
    file->addSeparator();
    file->addAction(open_project_action_);
    file->addAction(new_project_action_);
    file->addAction(import_action_);
    file->addSeparator();
    file->addAction(quit_action_);
    rebuildRecentMenu();

    auto* toolbar = addToolBar(tr("Main"));
    toolbar->setObjectName(QStringLiteral("mainToolBar"));
    toolbar->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
    toolbar->addAction(open_action_);

    view_menu_ = menuBar()->addMenu(tr("&View"));
    view_menu_->addAction(summary_dock_->toggleViewAction());
    view_menu_->addAction(messages_dock_->toggleViewAction());
    view_menu_->addAction(toolbar->toggleViewAction());

    QMenu* help = menuBar()->addMenu(tr("&Help"));
    QAction* about = help->addAction(tr("&About GSR Studio"), this, &MainWindow::showAbout);
    about->setMenuRole(QAction::AboutRole);
    QAction* about_qt = help->addAction(tr("About &Qt"), qApp, &QApplication::aboutQt);
    about_qt->setMenuRole(QAction::AboutQtRole);
}

void MainWindow::createStatusBar()
{
    busy_label_ = new QLabel(this);
    busy_bar_ = new QProgressBar(this);
    busy_bar_->setRange(0, 0); // the reader reports no progress: an indeterminate bar
    busy_bar_->setMaximumWidth(160);
    busy_bar_->setTextVisible(false);
    cancel_button_ = new QToolButton(this);
    cancel_button_->setObjectName(QStringLiteral("cancelLoadButton"));
    cancel_button_->setDefaultAction(cancel_action_);
    cancel_button_->setToolButtonStyle(Qt::ToolButtonTextOnly);
    cancel_button_->setText(tr("Cancel"));
    file_label_ = new QLabel(tr("No file"), this);
    file_label_->setObjectName(QStringLiteral("fileLabel"));
    device_label_ = new QLabel(tr("Device: %1").arg(compute_device_name()), this);
    device_label_->setObjectName(QStringLiteral("deviceLabel"));
    device_label_->setToolTip(tr("Where GSR Studio computes"));

    statusBar()->addPermanentWidget(busy_label_);
    statusBar()->addPermanentWidget(busy_bar_);
    statusBar()->addPermanentWidget(cancel_button_);
    statusBar()->addPermanentWidget(file_label_);
    statusBar()->addPermanentWidget(device_label_);
    setBusy(false);
}

void MainWindow::restoreSettings()
{
    QSettings settings;
    restoreGeometry(settings.value(kGeometryKey).toByteArray());
    restoreState(settings.value(kStateKey).toByteArray());
    persists_settings_ = true;
}

void MainWindow::setCentralPanel(QWidget* panel)
{
    QWidget* old = centralWidget();
    if (old && (old == overview_ || old->isAncestorOf(overview_))) overview_ = nullptr;
    if (old && old->isAncestorOf(canvas_)) canvas_ = nullptr;
    setCentralWidget(panel); // deletes the previous panel
}

// ---- loading -------------------------------------------------------------------------------

bool MainWindow::isLoading() const { return loader_->isLoading(); }

void MainWindow::openFile(const QString& given)
{
    if (given.isEmpty()) return;
    const QString path = absolute_path(given);
    if (loader_->isLoading() && loader_->currentPath() != path)
        log(Severity::Info, tr("Stopped waiting for %1: %2 was opened instead")
                                .arg(file_name(loader_->currentPath()), file_name(path)));
    loader_->start(path, cell_libraries_);
}

bool MainWindow::loadFileNow(const QString& given)
{
    const QString path = absolute_path(given);
    if (loader_->isLoading()) loader_->cancel();
    onLoadStarted(path);
    const LoadOutcome outcome = load_netlist(path, cell_libraries_);
    if (outcome.summary) onLoaded(*outcome.summary, outcome.circuit);
    else onLoadFailed(path, outcome.error);
    return outcome.summary.has_value();
}

void MainWindow::cancelLoading() { loader_->cancel(); }

void MainWindow::onLoadStarted(const QString& path)
{
    busy_label_->setText(tr("Loading %1\u2026").arg(file_name(path)));
    busy_label_->setToolTip(path);
    setBusy(true);
    statusBar()->clearMessage();
}

void MainWindow::onLoaded(const report::NetlistSummary& summary,
                          std::shared_ptr<const graph::LoadedCircuit> circuit)
{
    setBusy(false);
    summary_ = summary;
    circuit_ = std::move(circuit);
    summary_model_->setSummary(summary);
    if (overview_) overview_->setSummary(summary);
    // A cell library has no graph: the canvas keeps what it shows (it logged an error).
    if (summary.graph_nodes) {
        netlist_path_ = QString::fromStdString(summary.path);
        netlist_libraries_ = circuit_libraries(circuit_.get());
        showGraph(netlist_path_);
    } else {
        log(Severity::Info, tr("%1 is a cell library: no graph to show (File > Cell Libraries "
                               "reads netlists with it)")
                                .arg(file_name(QString::fromStdString(summary.path))));
    }

    const QString path = QString::fromStdString(summary.path);
    if (persists_settings_) recent_->add(path);
    file_label_->setText(file_name(path));
    QString tip = QFileInfo(path).absoluteFilePath();
    if (summary.graph_nodes && !netlist_libraries_.isEmpty())
        tip += QLatin1Char('\n') +
               tr("Read with %1").arg(netlist_libraries_.join(QStringLiteral(", ")));
    file_label_->setToolTip(tip);
    log(Severity::Info, tr("Loaded %1").arg(summary_line(summary)));
    for (const std::string& w : summary.warnings)
        log(Severity::Warning, QString::fromStdString(w));
    if (summary.warnings_suppressed)
        log(Severity::Warning,
            tr("%1: %2 like the ones above not shown")
                .arg(path, count_phrase(qint64(summary.warnings_suppressed),
                                        tr("more warning"), tr("more warnings"))));
    statusBar()->showMessage(
        tr("Loaded %1 in %2").arg(file_name(path), format_duration(summary.seconds)),
        kStatusTimeoutMs);
    updateActions();
    updateTitle();
    Q_EMIT loadFinished(path);
    if (std::exchange(reread_netlist_after_load_, false) && !netlist_path_.isEmpty() &&
        netlist_libraries_ != cell_libraries_)
        openFile(netlist_path_);
}

void MainWindow::onLoadFailed(const QString& path, const QString& message)
{
    setBusy(false);
    reread_netlist_after_load_ = false;
    if (persists_settings_ && !QFileInfo::exists(path)) recent_->remove(path);
    statusBar()->showMessage(tr("Could not load %1").arg(file_name(path)), kStatusTimeoutMs);
    // Core's message starts with the file at fault: a cell library's is named as such.
    QString at_fault;
    for (const QString& lib : cell_libraries_)
        if (message.startsWith(lib + QLatin1Char(':'))) at_fault = lib;
    reportError(at_fault.isEmpty()
                    ? tr("GSR Studio could not load \u201c%1\u201d.").arg(file_name(path))
                    : tr("GSR Studio could not load \u201c%1\u201d: its cell library "
                         "\u201c%2\u201d (File > Cell Libraries) cannot be read.")
                          .arg(file_name(path), file_name(at_fault)),
                message);
    updateActions();
    Q_EMIT loadFailed(path, message);
}

void MainWindow::onLoadCancelled(const QString& path)
{
    setBusy(false);
    reread_netlist_after_load_ = false;
    log(Severity::Info, tr("Cancelled loading %1").arg(path));
    statusBar()->showMessage(tr("Loading of %1 cancelled").arg(file_name(path)),
                             kStatusTimeoutMs);
    updateActions();
    Q_EMIT loadCancelled(path);
}

void MainWindow::showGraph(const QString& path)
{
    if (!canvas_) {
        // The Graph tab goes beside the overview; a panel set by setCentralPanel stays put.
        if (!overview_ || centralWidget() != overview_) return;
        QString why;
        if (!canvas::GraphCanvas::openGlAvailable(&why)) {
            log(Severity::Info, tr("The graph view is off: %1").arg(why));
            return;
        }
        canvas_ = new canvas::CanvasPanel(this);
        connect(canvas_, &canvas::CanvasPanel::message, this,
                [this](const QString& text) { log(Severity::Info, text); });
        connect(canvas_, &canvas::CanvasPanel::failed, this,
                [this](const QString&, const QString& message) { log(Severity::Error, message); });
        auto* tabs = new QTabWidget(this);
        tabs->setObjectName(QStringLiteral("centralTabs"));
        tabs->setDocumentMode(true);
        takeCentralWidget(); // the overview moves into the tabs rather than being deleted
        tabs->addTab(canvas_, tr("Graph"));
        tabs->addTab(overview_, tr("Overview"));
        setCentralWidget(tabs);
    }
    canvas_->open(path, circuit_);
}

void MainWindow::setBusy(bool busy)
{
    busy_label_->setVisible(busy);
    busy_bar_->setVisible(busy);
    cancel_button_->setVisible(busy);
    cancel_action_->setEnabled(busy);
    updateActions();
}

// ---- dialogs -------------------------------------------------------------------------------

void MainWindow::chooseNetlist()
{
    QSettings settings;
    const QString path = QFileDialog::getOpenFileName(
        this, tr("Open Netlist"), settings.value(kLastDirKey).toString(), netlist_filter());
    if (path.isEmpty()) return;
    settings.setValue(kLastDirKey, QFileInfo(path).absolutePath());
    openFile(path);
}

void MainWindow::chooseCellLibraries()
{
    QSettings settings;
    const QStringList paths = QFileDialog::getOpenFileNames(
        this, tr("Cell Libraries"), settings.value(kLastDirKey).toString(), library_filter());
    if (paths.isEmpty()) return; // cancelled: the libraries stay as they were
    settings.setValue(kLastDirKey, QFileInfo(paths.first()).absolutePath());
    applyCellLibraries(paths, true);
}

void MainWindow::setCellLibraries(const QStringList& paths) { applyCellLibraries(paths, false); }

void MainWindow::applyCellLibraries(const QStringList& given, bool reread)
{
    QStringList paths;
    for (const QString& p : given)
        if (!p.isEmpty() && !paths.contains(absolute_path(p))) paths << absolute_path(p);
    const bool changed = paths != cell_libraries_;
    cell_libraries_ = paths;
    // What is shown was read with other libraries (or they changed on disk): read it again,
    // or the load in flight, which started with the old ones.
    const auto read_again = [&] {
        if (loader_->isLoading()) {
            if (!changed && !reread) return;
            reread_netlist_after_load_ = loader_->currentPath() != netlist_path_;
            openFile(loader_->currentPath());
        } else if (!netlist_path_.isEmpty() && (reread || netlist_libraries_ != paths)) {
            openFile(netlist_path_);
        }
    };
    if (!changed) {
        read_again();
        return;
    }
    if (paths.isEmpty()) {
        log(Severity::Info, tr("Netlists are read without cell libraries"));
    } else {
        QStringList names;
        for (const QString& p : paths) names << file_name(p);
        log(Severity::Info, tr("Netlists are read with the cell %1 %2")
                                .arg(paths.size() == 1 ? tr("library") : tr("libraries"),
                                     names.join(QStringLiteral(", "))));
    }
    updateActions();
    Q_EMIT cellLibrariesChanged(paths);
    read_again();
}

void MainWindow::chooseProjectToOpen()
{
    const QString path = QFileDialog::getOpenFileName(this, tr("Open Project"), QString(),
                                                      project_filter());
    if (!path.isEmpty()) openProject(path);
}

void MainWindow::chooseProjectToCreate()
{
    // No overwrite question: newProject() refuses existing files rather than replace them.
    QString path = QFileDialog::getSaveFileName(this, tr("New Project"), QString(),
                                                project_filter(), nullptr,
                                                QFileDialog::DontConfirmOverwrite);
    if (path.isEmpty()) return;
    if (QFileInfo(path).suffix().isEmpty()) path += QStringLiteral(".gsr");
    newProject(path);
}

void MainWindow::rebuildRecentMenu()
{
    recent_menu_->clear();
    const QStringList files = recent_->files();
    for (int i = 0; i < files.size(); ++i) {
        const QString& path = files[i];
        // "&1 c17.bench": a mnemonic per entry, the full path where the user hovers.
        QAction* a = recent_menu_->addAction(QStringLiteral("&%1 %2").arg(i + 1).arg(
            file_name(path).replace(QLatin1Char('&'), QStringLiteral("&&"))));
        a->setStatusTip(path);
        a->setToolTip(path);
        connect(a, &QAction::triggered, this, [this, path] { openFile(path); });
    }
    recent_menu_->addSeparator();
    QAction* clear = recent_menu_->addAction(tr("&Clear Menu"));
    connect(clear, &QAction::triggered, this, [this] { recent_->clear(); });
    clear->setEnabled(!files.isEmpty());
    recent_menu_->setToolTipsVisible(true);
}

void MainWindow::showAbout()
{
    QMessageBox::about(
        this, tr("About GSR Studio"),
        tr("<h3>GSR Studio %1</h3>"
           "<p>Circuit graphs and deep grouped-sparse-reversible GNNs for hardware engineers.</p>"
           "<p>Built with Qt %2, running on Qt %3. Compute device: %4.</p>")
            .arg(QStringLiteral(GSR_VERSION), QStringLiteral(QT_VERSION_STR),
                 QString::fromLatin1(qVersion()), compute_device_name()));
}

// ---- projects ------------------------------------------------------------------------------

void MainWindow::openProject(const QString& given)
{
    // Absolute, as File > Open Project names it: the Training panel tells a run of this
    // project by that name.
    const QString path = absolute_path(given);
    int netlists = 0;
    try {
        // A file that fails here leaves the window's project, if any, open.
        WaitCursor wait;
        project_->open(path);
        netlists = project_->netlistCount();
    } catch (const Error& e) {
        reportError(tr("GSR Studio could not open the project \u201c%1\u201d.")
                        .arg(file_name(path)), QString::fromStdString(e.what()));
        return;
    }
    log(Severity::Info, tr("Opened project %1 (%2)")
                            .arg(path, count_phrase(netlists, tr("netlist"), tr("netlists"))));
    updateActions();
    updateTitle();
    Q_EMIT projectChanged(path);
}

void MainWindow::newProject(const QString& given)
{
    const QString path = absolute_path(given);
    try {
        WaitCursor wait;
        project_->create(path);
    } catch (const Error& e) {
        reportError(tr("GSR Studio could not create the project \u201c%1\u201d.")
                        .arg(file_name(path)), QString::fromStdString(e.what()));
        return;
    }
    log(Severity::Info, tr("Created project %1").arg(path));
    updateActions();
    updateTitle();
    Q_EMIT projectCreated(path);
    Q_EMIT projectChanged(path);
}

void MainWindow::importIntoProject()
{
    if (!summary_) return;
    std::int64_t id = 0;
    int total = 0;
    try {
        // Hashing the file reads it once more; the wait cursor says why the window pauses.
        WaitCursor wait;
        id = project_->importSummary(*summary_);
        total = project_->netlistCount();
    } catch (const Error& e) {
        reportError(tr("GSR Studio could not import \u201c%1\u201d into the project.")
                        .arg(file_name(QString::fromStdString(summary_->path))),
                    QString::fromStdString(e.what()));
        return;
    }
    log(Severity::Info,
        tr("Imported %1 into %2 as netlist %3 (%4 in the project)")
            .arg(QString::fromStdString(summary_->path), file_name(project_->path()),
                 QString::number(id), count_phrase(total, tr("netlist"), tr("netlists"))));
    statusBar()->showMessage(tr("Imported into %1").arg(file_name(project_->path())),
                             kStatusTimeoutMs);
}

// ---- messages and state --------------------------------------------------------------------

QStringList MainWindow::messages() const
{
    QStringList lines;
    for (int i = 0; i < messages_->count(); ++i) lines << messages_->item(i)->text();
    return lines;
}

void MainWindow::log(Severity severity, const QString& text)
{
    QStyle::StandardPixmap icon = QStyle::SP_MessageBoxInformation;
    if (severity == Severity::Warning) icon = QStyle::SP_MessageBoxWarning;
    if (severity == Severity::Error) icon = QStyle::SP_MessageBoxCritical;
    auto* item = new QListWidgetItem(style()->standardIcon(icon), text);
    // As rich text made from the plain one: a tooltip left to guess took "a<i>.v" for markup.
    item->setToolTip(Qt::convertFromPlainText(text));
    messages_->addItem(item);
    messages_->scrollToItem(item);
}

void MainWindow::reportError(const QString& title, const QString& message)
{
    log(Severity::Error, message);
    if (!shows_message_boxes_) {
        qWarning("%s %s", qPrintable(title), qPrintable(message));
        return;
    }
    // Window-modal and non-blocking: the event loop (and a load in flight) carry on.
    auto* box = new QMessageBox(QMessageBox::Warning, tr("GSR Studio"), title, QMessageBox::Ok,
                                this);
    box->setInformativeText(message);
    box->setAttribute(Qt::WA_DeleteOnClose);
    box->open();
}

void MainWindow::updateActions()
{
    const bool store = ProjectSession::available();
    const QString no_store = ProjectSession::unavailableReason();
    open_project_action_->setEnabled(store);
    new_project_action_->setEnabled(store);
    open_project_action_->setToolTip(store ? tr("Open an existing GSR Studio project") : no_store);
    new_project_action_->setToolTip(store ? tr("Create a new GSR Studio project") : no_store);

    QString why;
    if (!store) why = no_store;
    else if (!project_->isOpen()) why = tr("Open or create a project first.");
    else if (!summary_) why = tr("Load a netlist first.");
    else if (loader_->isLoading()) why = tr("Wait for the file being loaded.");
    import_action_->setEnabled(why.isEmpty());
    forget_libraries_action_->setEnabled(!cell_libraries_.isEmpty());
    libraries_action_->setToolTip(cell_libraries_.isEmpty()
                                      ? tr("Netlists are read without cell libraries")
                                      : tr("Netlists are read with %1")
                                            .arg(cell_libraries_.join(QStringLiteral(", "))));
    import_action_->setToolTip(why.isEmpty() ? tr("Record the loaded netlist's summary in %1")
                                                   .arg(file_name(project_->path()))
                                             : why);
}

void MainWindow::updateTitle()
{
    QString title = tr("GSR Studio");
    if (summary_) title = file_name(QString::fromStdString(summary_->path)) +
                          QStringLiteral(" \u2014 ") + title;
    if (project_->isOpen())
        title += QStringLiteral(" [%1]").arg(file_name(project_->path()));
    setWindowTitle(title);
}

// ---- events --------------------------------------------------------------------------------

void MainWindow::closeEvent(QCloseEvent* event)
{
    // Work in progress: ask first. Agreed, it is asked to stop (a run keeps its checkpoint for
    // Resume) and the window closes once it has, staying responsive meanwhile; asked to close
    // again before that, it closes at once (the runners' destructors wait for their threads).
    if (!closing_) {
        switch (panels_->confirmClose()) {
        case StudioPanels::CloseAnswer::Stay:
            event->ignore();
            return;
        case StudioPanels::CloseAnswer::WhenStopped:
            setClosing(true);
            event->ignore();
            return;
        case StudioPanels::CloseAnswer::Close:
            break;
        }
    }
    if (persists_settings_) {
        QSettings settings;
        settings.setValue(kGeometryKey, saveGeometry());
        settings.setValue(kStateKey, saveState());
    }
    loader_->cancel();
    if (canvas_) canvas_->cancel();
    event->accept();
}

void MainWindow::setClosing(bool closing)
{
    closing_ = closing;
    if (centralWidget()) centralWidget()->setEnabled(!closing);
    for (QDockWidget* dock : panels_->docks()) dock->widget()->setEnabled(!closing);
    if (closing)
        statusBar()->showMessage(tr("Stopping the work in progress: GSR Studio closes when it "
                                    "has stopped (close again to close at once)"));
    else
        statusBar()->clearMessage();
}

void MainWindow::dragEnterEvent(QDragEnterEvent* event)
{
    const QMimeData* mime = event->mimeData();
    if (mime->hasUrls() && !mime->urls().isEmpty() && mime->urls().first().isLocalFile())
        event->acceptProposedAction();
}

void MainWindow::dropEvent(QDropEvent* event)
{
    QStringList paths;
    for (const QUrl& url : event->mimeData()->urls())
        if (url.isLocalFile()) paths << url.toLocalFile();
    if (paths.isEmpty()) return;
    event->acceptProposedAction();
    if (paths.size() > 1)
        log(Severity::Info, tr("%1 files were dropped; opening the first, %2")
                                .arg(paths.size())
                                .arg(file_name(paths.first())));
    openPath(paths.first());
}

namespace {

bool is_project_file(const QString& path)
{
    // A project is an SQLite database whose application_id (big-endian, at byte 68 of the
    // header) is GSR Studio's "GSRS", whatever its name: the desktop's MIME type tells a
    // renamed one by these bytes and hands it here.
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly)) return false;
    const QByteArray head = f.read(72);
    return head.size() == 72 && head.startsWith(QByteArray("SQLite format 3\0", 16)) &&
           head.mid(68, 4) == QByteArrayLiteral("GSRS");
}

} // namespace

void MainWindow::openPath(const QString& path)
{
    if (path.endsWith(QLatin1String(".gsr"), Qt::CaseInsensitive) || is_project_file(path))
        openProject(path);
    else
        openFile(path);
}

} // namespace gsr::views
