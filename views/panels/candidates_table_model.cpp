#include "panels/candidates_table_model.hpp"

#include <QBrush>
#include <QColor>
#include <QFont>
#include <QStringList>

#include <limits>
#include <map>

namespace gsr::views {

namespace {

std::map<std::string, std::string> config_words(const std::string& label, bool* is_config)
{
    std::map<std::string, std::string> words;
    *is_config = true;
    std::size_t i = 0;
    while (i < label.size()) {
        while (i < label.size() && label[i] == ' ') ++i;
        std::size_t end = label.find(' ', i);
        if (end == std::string::npos) end = label.size();
        if (end > i) {
            const std::string word = label.substr(i, end - i);
            const std::size_t eq = word.find('=');
            if (eq == std::string::npos || eq == 0) *is_config = false;
            else words[word.substr(0, eq)] = word.substr(eq + 1);
        }
        i = end;
    }
    if (words.empty()) *is_config = false;
    return words;
}

QString micro(double seconds)
{
    if (!(seconds > 0)) return QString();
    const double us = seconds * 1e6;
    return us < 10 ? QString::number(us, 'g', 3) : QString::number(us, 'f', 1);
}

/// A config's text without its "family=..." word: every row of a session has the same one.
QString config_text(const std::string& label)
{
    const QString text = QString::fromStdString(label);
    if (!text.startsWith(QLatin1String("family="))) return text;
    const qsizetype space = text.indexOf(QLatin1Char(' '));
    return space < 0 ? text : text.mid(space + 1);
}

} // namespace

QString config_change(const std::string& parent_label, const std::string& child_label)
{
    bool parent_config = false, child_config = false;
    const auto a = config_words(parent_label, &parent_config);
    const auto b = config_words(child_label, &child_config);
    if (!parent_config || !child_config)
        return QString::fromStdString(parent_label + " -> " + child_label);
    QStringList changes;
    for (const auto& [key, value] : b) {
        const auto it = a.find(key);
        const std::string before = it == a.end() ? "(default)" : it->second;
        if (before != value)
            changes << QString::fromStdString(key + " " + before + " -> " + value);
    }
    for (const auto& [key, value] : a)
        if (!b.count(key)) changes << QString::fromStdString(key + " " + value + " -> (default)");
    return changes.isEmpty() ? QStringLiteral("no change") : changes.join(QStringLiteral(", "));
}

void link_search_lineage(tune::TuneSession& session, std::size_t first)
{
    const tune::CandidateRecord* best = nullptr;
    for (std::size_t i = first; i < session.candidates.size(); ++i) {
        tune::CandidateRecord& c = session.candidates[i];
        if (c.origin == "neighbour" && best && !c.parent) c.parent = best->id;
        const bool faster = !best || c.seconds < best->seconds;
        if (c.verdict == tune::Verdict::Ok && c.seconds > 0 && faster) best = &c;
    }
}

CandidatesTableModel::CandidatesTableModel(QObject* parent) : QAbstractTableModel(parent) {}

void CandidatesTableModel::setSession(tune::TuneSession session)
{
    beginResetModel();
    session_ = std::move(session);
    for (tune::CandidateRecord& c : session_.candidates) c.best = false;
    const int best = tune::fastest_ok_index(session_);
    if (best >= 0) session_.candidates[std::size_t(best)].best = true;
    endResetModel();
}

void CandidatesTableModel::appendCandidate(tune::CandidateRecord candidate)
{
    const int row = rowCount();
    candidate.best = false;
    beginInsertRows({}, row, row);
    session_.candidates.push_back(std::move(candidate));
    endInsertRows();
    remarkBest();
}

void CandidatesTableModel::clear() { setSession({}); }

const tune::CandidateRecord& CandidatesTableModel::candidate(int row) const
{
    return session_.candidates[std::size_t(row)];
}

int CandidatesTableModel::bestRow() const
{
    for (std::size_t i = 0; i < session_.candidates.size(); ++i)
        if (session_.candidates[i].best) return int(i);
    return -1;
}

void CandidatesTableModel::remarkBest()
{
    const int before = bestRow();
    const int after = tune::fastest_ok_index(session_);
    if (before == after) return;
    if (before >= 0) {
        session_.candidates[std::size_t(before)].best = false;
        Q_EMIT dataChanged(index(before, 0), index(before, ColumnCount - 1));
    }
    if (after >= 0) {
        session_.candidates[std::size_t(after)].best = true;
        Q_EMIT dataChanged(index(after, 0), index(after, ColumnCount - 1));
    }
}

QString CandidatesTableModel::columnTitle(int column)
{
    switch (column) {
    case IdColumn: return tr("#");
    case ConfigColumn: return tr("Candidate");
    case OriginColumn: return tr("Origin");
    case VerdictColumn: return tr("Verdict");
    case TimeColumn: return tr("Time (µs)");
    case TsolColumn: return tr("T_SOL (µs)");
    case PercentSolColumn: return tr("%SOL");
    case BoundColumn: return tr("Bound");
    default: return {};
    }
}

QString CandidatesTableModel::verdictText(const tune::CandidateRecord& c)
{
    const QString v = QString::fromLatin1(tune::verdict_name(c.verdict).data());
    return c.best ? v + tr(" (best)") : v;
}

int CandidatesTableModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : int(session_.candidates.size());
}

int CandidatesTableModel::columnCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant CandidatesTableModel::data(const QModelIndex& index, int role) const
{
    if (!index.isValid() || index.row() >= rowCount() || index.column() >= ColumnCount)
        return {};
    const tune::CandidateRecord& c = candidate(index.row());
    const bool timed = tune::is_timed(c);
    const double pct = tune::percent_of_sol(session_, c);
    if (role == SortRole) {
        switch (index.column()) {
        case IdColumn: return qulonglong(c.id);
        case TimeColumn: return timed ? c.seconds : std::numeric_limits<double>::infinity();
        case TsolColumn: return session_.t_sol;
        case PercentSolColumn: return pct;
        default: return data(index, Qt::DisplayRole);
        }
    }
    if (role == Qt::DisplayRole) {
        switch (index.column()) {
        case IdColumn: return QString::number(c.id);
        case ConfigColumn: return config_text(c.label);
        case OriginColumn: return QString::fromStdString(c.origin);
        case VerdictColumn: return verdictText(c);
        case TimeColumn: return timed ? micro(c.seconds) : QString();
        case TsolColumn: return micro(session_.t_sol);
        case PercentSolColumn: return timed ? QString::number(pct, 'f', 1) : QString();
        case BoundColumn: return QString::fromStdString(session_.bound);
        default: return {};
        }
    }
    if (role == Qt::ToolTipRole) {
        QString tip = QString::fromStdString(c.label);
        if (!c.detail.empty()) tip += QLatin1Char('\n') + QString::fromStdString(c.detail);
        return tip;
    }
    if (role == Qt::TextAlignmentRole) {
        const int col = index.column();
        if (col == IdColumn || col == TimeColumn || col == TsolColumn || col == PercentSolColumn)
            return int(Qt::AlignRight | Qt::AlignVCenter);
        return {};
    }
    if (role == Qt::ForegroundRole) {
        if (c.verdict == tune::Verdict::Gaming) return QBrush(QColor(200, 30, 30));
        if (c.verdict != tune::Verdict::Ok) return QBrush(QColor(130, 130, 130));
        return {};
    }
    if (role == Qt::FontRole && c.best) {
        QFont f;
        f.setBold(true);
        return f;
    }
    return {};
}

QVariant CandidatesTableModel::headerData(int section, Qt::Orientation orientation,
                                          int role) const
{
    if (orientation != Qt::Horizontal || section < 0 || section >= ColumnCount) return {};
    if (role == Qt::DisplayRole) return columnTitle(section);
    if (role == Qt::ToolTipRole && section == PercentSolColumn)
        return tr("100 × T_SOL / time: 100 is at the speed of light; above 105 is gaming");
    return {};
}

} // namespace gsr::views
