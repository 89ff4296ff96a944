#pragma once
// The Summary table: one row per figure of a loaded netlist ("cells" -> 1,234). Empty (no rows)
// until a summary is set, so views can tell "nothing loaded" from "loaded, figure unknown".
#include "report/netlist_summary.hpp"

#include <QAbstractTableModel>
#include <QString>

#include <optional>

namespace gsr::views {

class NetlistSummaryModel : public QAbstractTableModel {
    Q_OBJECT

public:
    /// The rows, in display order.
    enum class Field {
        Format,
        Top,
        Inputs,
        Outputs,
        FlipFlops,
        Cells,
        Nets,
        GraphNodes,
        GraphEdges,
        MaxLevel,
        Warnings,
        LoadTime,
    };
    static constexpr int kFieldCount = static_cast<int>(Field::LoadTime) + 1;

    enum Column { KeyColumn = 0, ValueColumn = 1, ColumnCount = 2 };

    /// The value column's figure itself (qint64 for counts, double seconds for the load time,
    /// QString for text, invalid when the format does not define it), for code and tests that
    /// must not parse the locale-formatted display text.
    static constexpr int RawValueRole = Qt::UserRole + 1;

    explicit NetlistSummaryModel(QObject* parent = nullptr);

    /// @brief Shows `summary`, replacing what was shown.
    void setSummary(const report::NetlistSummary& summary);
    /// @brief Shows nothing (no rows).
    void clear();
    bool hasSummary() const { return summary_.has_value(); }

    /// @brief The row of `field`.
    static int rowOf(Field field) { return static_cast<int>(field); }
    /// @brief The label shown in the key column, e.g. "flip-flops".
    static QString label(Field field);

    int rowCount(const QModelIndex& parent = QModelIndex()) const override;
    int columnCount(const QModelIndex& parent = QModelIndex()) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation,
                        int role = Qt::DisplayRole) const override;

private:
    QVariant rawValue(Field field) const;
    QString displayValue(Field field) const;

    std::optional<report::NetlistSummary> summary_;
};

/// @brief One line for logs and `gsr-studio --smoke`: "c17.bench: bench, top c17, 5 inputs, ...".
QString summary_line(const report::NetlistSummary& summary);

/// @brief A load time for people: "850 µs", "12.4 ms", "3.21 s".
QString format_duration(double seconds);

/// @brief "1 warning", "1,204 warnings": English plurals (no translations are shipped yet).
QString count_phrase(qint64 n, const QString& one, const QString& many);

} // namespace gsr::views
