#pragma once
// The GSR Studio main window: menus, the central panel, the Summary and Messages docks and the
// status bar. Loading runs in the background (NetlistLoader); the window only shows outcomes.
#include "graph/circuit_graph.hpp"
#include "report/netlist_summary.hpp"

#include <QMainWindow>
#include <QStringList>

#include <memory>
#include <optional>

class QAction;
class QDockWidget;
class QLabel;
class QListWidget;
class QMenu;
class QProgressBar;
class QTableView;
class QToolButton;

namespace gsr::views {

class NetlistLoader;
class NetlistSummaryModel;
class ProjectSession;
class RecentFiles;
class StudioPanels;
class SummaryOverview;
namespace canvas {
class CanvasPanel;
}

class MainWindow : public QMainWindow {
    Q_OBJECT
    /// Off: errors go to the Messages dock and stderr only, never a modal box (tests, scripts).
    /// Defaults to on unless the environment sets GSR_NO_MESSAGE_BOXES=1.
    Q_PROPERTY(bool showsMessageBoxes READ showsMessageBoxes WRITE setShowsMessageBoxes)

public:
    enum class Severity { Info, Warning, Error };

    explicit MainWindow(QWidget* parent = nullptr);
    ~MainWindow() override;

    /// @brief Restores the saved geometry and dock layout; from then on the window keeps its
    /// settings (the layout on close, opened files in Open Recent). The application calls it;
    /// screenshots and --smoke do not, so they look the same each run and leave no trace.
    void restoreSettings();

    /// @brief Loads `path` on the calling thread and shows it (screenshots, --smoke).
    /// @return false when the file could not be loaded; the error is shown as for openFile().
    bool loadFileNow(const QString& path);

    /// @brief Replaces the central panel (the window takes ownership; the old one is deleted).
    void setCentralPanel(QWidget* panel);
    QWidget* centralPanel() const { return centralWidget(); }
    /// The Graph tab once a netlist was loaded on a display with OpenGL 3.3; else null.
    canvas::CanvasPanel* canvasPanel() const { return canvas_; }

    bool isLoading() const;
    /// The summary shown, if any.
    const std::optional<report::NetlistSummary>& summary() const { return summary_; }
    /// The circuit and graph of the loaded netlist (summary()'s), read once for the summary,
    /// the canvas and the panels; null with no netlist loaded, or a library.
    const std::shared_ptr<const graph::LoadedCircuit>& loadedCircuit() const { return circuit_; }
    const NetlistSummaryModel* summaryModel() const { return summary_model_; }
    /// @brief The lines of the Messages dock, oldest first.
    QStringList messages() const;
    NetlistLoader* loader() const { return loader_; }
    const ProjectSession& project() const { return *project_; }
    /// The analysis docks (Communities, Training, Memory, Runs, Console). The canvas connects
    /// to panels()->communitySelected to highlight a community's nodes.
    StudioPanels* panels() const { return panels_; }

    /// The cell libraries (Liberty or LEF, absolute paths) netlists are read with, as `gsr
    /// --liberty` names them: pin directions, and library cells simulated by their functions
    /// when the panels train or learn rules. Empty by default.
    const QStringList& cellLibraries() const { return cell_libraries_; }

    bool showsMessageBoxes() const { return shows_message_boxes_; }
    void setShowsMessageBoxes(bool on) { shows_message_boxes_ = on; }

public slots:
    /// @brief Starts loading `path` in the background; a load in flight is abandoned.
    void openFile(const QString& path);
    /// @brief Abandons the load in flight; the window keeps what it showed before.
    void cancelLoading();
    void openProject(const QString& path);
    /// A project (a .gsr name, or a project's header under any name) or a netlist: a file
    /// dropped or given on the command line.
    void openPath(const QString& path);
    void newProject(const QString& path);
    /// @brief Records the shown netlist's summary in the open project.
    void importIntoProject();
    /// @brief Reads netlists with `paths` from now on (none: without libraries) and opens the
    /// netlist shown (on the canvas and in the panels, even after a library was opened), or
    /// the one loading, again where it was read with other libraries.
    void setCellLibraries(const QStringList& paths);

signals:
    void loadFinished(const QString& path);
    void loadFailed(const QString& path, const QString& message);
    void loadCancelled(const QString& path);
    void projectChanged(const QString& path);
    /// File > New Project made `path` (projectChanged follows).
    void projectCreated(const QString& path);
    /// The cell libraries changed (before the netlist is opened again with them).
    void cellLibrariesChanged(const QStringList& paths);

protected:
    void closeEvent(QCloseEvent* event) override;
    void dragEnterEvent(QDragEnterEvent* event) override;
    void dropEvent(QDropEvent* event) override;

private:
    /// A close agreed, waiting for the work to stop: the panels and canvas off, the status bar
    /// saying so; false gives the window back.
    void setClosing(bool closing);
    void createActions();
    void createMenus();
    void createDocks();
    void createStatusBar();

    void onLoadStarted(const QString& path);
    void onLoaded(const report::NetlistSummary& summary,
                  std::shared_ptr<const graph::LoadedCircuit> circuit);
    void onLoadFailed(const QString& path, const QString& message);
    void onLoadCancelled(const QString& path);
    void setBusy(bool busy);
    /// Shows `path` in the Graph tab (made on first use, when OpenGL 3.3 is there).
    void showGraph(const QString& path);

    void chooseNetlist();
    void chooseProjectToOpen();
    void chooseProjectToCreate();
    void chooseCellLibraries();
    /// setCellLibraries; `reread`: the netlist shown is read again even with the same ones
    /// (a library changed on disk and chosen again).
    void applyCellLibraries(const QStringList& paths, bool reread);
    void rebuildRecentMenu();
    void showAbout();

    void log(Severity severity, const QString& text);
    void reportError(const QString& title, const QString& message);
    void updateActions();
    void updateTitle();

    NetlistLoader* loader_ = nullptr;
    NetlistSummaryModel* summary_model_ = nullptr;
    std::unique_ptr<ProjectSession> project_;
    std::unique_ptr<RecentFiles> recent_;
    std::optional<report::NetlistSummary> summary_;
    std::shared_ptr<const graph::LoadedCircuit> circuit_;
    QStringList cell_libraries_;
    /// The netlist the canvas and panels show (the last load with a graph), and the cell
    /// libraries it was read with.
    QString netlist_path_;
    QStringList netlist_libraries_;
    /// The libraries changed while another file (a library) loaded: the netlist shown is read
    /// again once that load ends.
    bool reread_netlist_after_load_ = false;
    bool shows_message_boxes_ = true;
    bool persists_settings_ = false;
    bool closing_ = false; ///< the close was agreed: it waits for the work to stop
    StudioPanels* panels_ = nullptr;

    SummaryOverview* overview_ = nullptr; ///< the default central panel; null once replaced
    canvas::CanvasPanel* canvas_ = nullptr; ///< the Graph tab beside the overview, if any
    QDockWidget* summary_dock_ = nullptr;
    QDockWidget* messages_dock_ = nullptr;
    QTableView* summary_table_ = nullptr;
    QListWidget* messages_ = nullptr;

    QLabel* device_label_ = nullptr;
    QLabel* file_label_ = nullptr;
    QLabel* busy_label_ = nullptr;
    QProgressBar* busy_bar_ = nullptr;
    QToolButton* cancel_button_ = nullptr;

    QAction* open_action_ = nullptr;
    QAction* open_project_action_ = nullptr;
    QAction* new_project_action_ = nullptr;
    QAction* import_action_ = nullptr;
    QAction* libraries_action_ = nullptr;
    QAction* forget_libraries_action_ = nullptr;
    QAction* cancel_action_ = nullptr;
    QAction* quit_action_ = nullptr;
    QMenu* recent_menu_ = nullptr;
    QMenu* view_menu_ = nullptr;
};

} // namespace gsr::views
