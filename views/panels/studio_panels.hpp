#pragma once
// The analysis panels of GSR Studio and their wiring: Communities, Rules, Training, Memory, Runs,
// Profiling and Console, each a dock of the main window. StudioPanels owns them, keeps the
// circuit graph they share (read off the UI thread when a netlist loads), passes the project
// along, writes each action's `gsr` command line to the Console, and asks before the window
// closes on a run in progress. It also works without a window (screenshots).
#include "panels/circuit_graph_source.hpp"

#include <QList>
#include <QObject>
#include <QString>
#include <QVector>

#include <functional>
#include <memory>

class QDockWidget;
class QWidget;

namespace gsr::views {

class CommunitiesPanel;
class ConsolePanel;
class MainWindow;
class MemoryPanel;
class ProfilingPanel;
class RulesPanel;
class RunsPanel;
class TrainingPanel;

class StudioPanels : public QObject {
    Q_OBJECT

public:
    explicit StudioPanels(QObject* parent = nullptr);
    /// Deletes the panels no dock took.
    ~StudioPanels() override;

    /// @brief Puts the panels into docks of `window` and follows its netlist and project.
    void install(MainWindow& window);

    CommunitiesPanel* communities() const { return communities_; }
    RulesPanel* rules() const { return rules_; }
    TrainingPanel* training() const { return training_; }
    MemoryPanel* memory() const { return memory_; }
    RunsPanel* runs() const { return runs_; }
    ConsolePanel* console() const { return console_; }
    ProfilingPanel* profiling() const { return profiling_; }
    QList<QDockWidget*> docks() const { return docks_; }

    /// The shared graph (null until one is read).
    const LoadedGraph* graph() const { return graph_.get(); }
    bool isLoadingGraph() const { return graph_job_ != 0; }

    /// @brief A netlist was opened: logs `gsr info`, takes its graph from `circuit` (the
    /// window's load) or reads it in the background, and makes it the training circuit.
    void setNetlist(const QString& path,
                    std::shared_ptr<const graph::LoadedCircuit> circuit = {});
    /// @brief As setNetlist(), reading the graph on the calling thread. False on failure.
    bool setNetlistNow(const QString& path,
                       std::shared_ptr<const graph::LoadedCircuit> circuit = {});
    void setProject(const QString& path);

    /// What confirmClose() decided.
    enum class CloseAnswer {
        Stay,        ///< the question was answered "Cancel": the window stays, the work goes on
        Close,       ///< nothing runs (and the user agreed to lose what is unsaved): close now
        WhenStopped, ///< the work was asked to stop; workStopped() follows once it has
    };
    /// @brief Whether the window may close. With work in progress or unsaved, one question;
    /// agreed, the work is asked to stop (a run keeps its last checkpoint), and while a thread
    /// still finishes its step or trial the answer is WhenStopped: the window waits for
    /// workStopped() with its event loop running, not blocked on the thread.
    CloseAnswer confirmClose();
    /// Training or a kernel search runs (rule learning stops at once: its result is dropped).
    bool isBusy() const;
    /// What confirmClose() asks; returns true to stop and close. The default asks in a
    /// message box when `window` shows them, and says yes otherwise (scripts, tests).
    using CloseQuestion = std::function<bool(const QString& question)>;
    void setCloseQuestion(CloseQuestion question) { close_question_ = std::move(question); }

signals:
    /// The graph of `path` is ready (the panels have it).
    void graphReady(const QString& path);
    void graphFailed(const QString& path, const QString& message);
    /// Forwarded from the Communities panel, for the canvas.
    void communitySelected(int community, const QVector<quint32>& nodes);
    void communitiesDetected(const QString& path, const QVector<quint32>& membership);
    /// Forwarded from the Rules panel, for the canvas: a rule and the nodes it covers.
    void ruleSelected(int rule, const QVector<quint32>& nodes);
    /// A finished training run's signal probability of each node of `path`, for the canvas.
    void predictionsReady(const QString& path, const QVector<float>& predictions);
    /// After confirmClose() answered WhenStopped: the last of the work has stopped.
    void workStopped();
    /// After confirmClose() answered WhenStopped: new work started before the old stopped (a
    /// shortcut still reaches the Analysis menu), so the close is given up.
    void closeAbandoned();

private:
    void useGraph(std::shared_ptr<const LoadedGraph> graph);
    void wirePanels();
    /// Emits workStopped() once nothing runs, when confirmClose() is waiting for it.
    void noteWorkEnded();
    /// Emits closeAbandoned() when work starts while confirmClose() is waiting.
    void noteWorkStarted();

    CommunitiesPanel* communities_ = nullptr;
    RulesPanel* rules_ = nullptr;
    TrainingPanel* training_ = nullptr;
    MemoryPanel* memory_ = nullptr;
    RunsPanel* runs_ = nullptr;
    ConsolePanel* console_ = nullptr;
    ProfilingPanel* profiling_ = nullptr;
    QList<QDockWidget*> docks_;
    std::shared_ptr<const LoadedGraph> graph_;
    std::uint64_t next_graph_job_ = 1, graph_job_ = 0;
    CloseQuestion close_question_;
    bool waiting_to_close_ = false; ///< confirmClose() answered WhenStopped
    QWidget* window_ = nullptr;
};

} // namespace gsr::views
