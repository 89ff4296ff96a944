#pragma once
// The Communities panel: Leiden or Louvain on the circuit's graph with a resolution and a seed,
// off the UI thread and cancellable; a sortable table of the communities. Selecting a row emits
// the community's node ids (the canvas highlights them).
#include "community/community_detection.hpp"
#include "panels/circuit_graph_source.hpp"

#include <QVector>
#include <QWidget>

#include <atomic>
#include <memory>
#include <optional>

class QComboBox;
class QDoubleSpinBox;
class QLabel;
class QProgressBar;
class QPushButton;
class QSortFilterProxyModel;
class QSpinBox;
class QTableView;

namespace gsr::views {

class CommunityTableModel;

class CommunitiesPanel : public QWidget {
    Q_OBJECT

public:
    explicit CommunitiesPanel(QWidget* parent = nullptr);
    /// Cancels a detection in flight; its worker finishes on its own and is dropped.
    ~CommunitiesPanel() override;

    /// The graph to detect on (null: none; Detect is then off and says why).
    void setGraph(std::shared_ptr<const LoadedGraph> graph);
    const LoadedGraph* graph() const { return graph_.get(); }

    community::CommunityOptions options() const;
    void setOptions(community::Method method, double resolution, std::uint64_t seed);

    bool isDetecting() const { return running_job_ != 0; }
    const std::optional<community::CommunityResult>& result() const { return result_; }
    CommunityTableModel* model() const { return model_; }
    /// The table's model: model() sorted by the clicked column.
    QSortFilterProxyModel* sortedModel() const { return sorted_; }
    QTableView* table() const { return table_; }

    /// @brief Detects on the calling thread (screenshots, scripts). False when it failed.
    bool detectNow();

public slots:
    /// Starts a detection in the background; one in flight is cancelled first.
    void detect();
    void cancel();

signals:
    /// The `gsr` command line of the action (for the Console dock).
    void commandIssued(const QString& line);
    void detectionStarted();
    void detectionFinished(int communities, double modularity);
    void detectionFailed(const QString& message);
    void detectionCancelled();
    /// Every node's community (0: the largest), for colouring.
    void communitiesDetected(const QString& path, const QVector<quint32>& membership);
    /// A row was selected: its community and the ids of its nodes, ascending.
    void communitySelected(int community, const QVector<quint32>& nodes);

private:
    struct Outcome {
        std::optional<community::CommunityResult> result; ///< empty: cancelled or failed
        QString error;
        double seconds = 0;
    };
    static Outcome run_detection(const LoadedGraph& graph, community::CommunityOptions options);
    void finish(std::uint64_t job, const Outcome& outcome);
    void show(const community::CommunityResult& result, double seconds);
    void updateState();
    void onSelectionChanged();

    std::shared_ptr<const LoadedGraph> graph_;
    std::optional<community::CommunityResult> result_;
    std::uint64_t next_job_ = 1, running_job_ = 0;
    std::shared_ptr<std::atomic<bool>> cancel_flag_;

    QComboBox* method_ = nullptr;
    QDoubleSpinBox* resolution_ = nullptr;
    QSpinBox* seed_ = nullptr;
    QPushButton* detect_button_ = nullptr;
    QPushButton* cancel_button_ = nullptr;
    QProgressBar* busy_ = nullptr;
    QLabel* status_ = nullptr;
    CommunityTableModel* model_ = nullptr;
    QSortFilterProxyModel* sorted_ = nullptr;
    QTableView* table_ = nullptr;
};

} // namespace gsr::views
