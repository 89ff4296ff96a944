#pragma once
// The window's central panel until the graph canvas takes its place: the loaded netlist's name,
// its key figures as tiles and its level histogram; a hint on how to open a file when empty.
#include "report/netlist_summary.hpp"

#include <QWidget>

class QGridLayout;
class QLabel;
class QStackedWidget;

namespace gsr::views {

class LevelHistogram;

class SummaryOverview : public QWidget {
    Q_OBJECT

public:
    explicit SummaryOverview(QWidget* parent = nullptr);

    void setSummary(const report::NetlistSummary& summary);
    void clear();

private:
    QLabel* addTile(int row, int column, const QString& caption, QGridLayout* grid);

    QStackedWidget* pages_ = nullptr;
    QLabel* title_ = nullptr;
    QLabel* subtitle_ = nullptr;
    QLabel* inputs_ = nullptr;
    QLabel* outputs_ = nullptr;
    QLabel* flip_flops_ = nullptr;
    QLabel* cells_ = nullptr;
    QLabel* nets_ = nullptr;
    QLabel* graph_nodes_ = nullptr;
    QLabel* graph_edges_ = nullptr;
    QLabel* max_level_ = nullptr;
    LevelHistogram* histogram_ = nullptr;
};

} // namespace gsr::views
