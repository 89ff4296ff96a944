// NetlistSummaryModel: a well-behaved item model that shows exactly what core computed.
#include "models/netlist_summary_model.hpp"
#include "view_test_support.hpp"

#include "report/netlist_summary.hpp"

#include <QAbstractItemModelTester>
#include <QFile>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

using gsr::views::NetlistSummaryModel;
using Field = NetlistSummaryModel::Field;

namespace {

QVariant raw(const NetlistSummaryModel& m, Field f)
{
    return m.data(m.index(NetlistSummaryModel::rowOf(f), NetlistSummaryModel::ValueColumn),
                  NetlistSummaryModel::RawValueRole);
}

QString shown(const NetlistSummaryModel& m, Field f)
{
    return m.data(m.index(NetlistSummaryModel::rowOf(f), NetlistSummaryModel::ValueColumn))
        .toString();
}

/// The digits of a locale-formatted number ("12,345" -> "12345").
QString digits(const QString& text)
{
    QString out;
    for (const QChar c : text)
        if (c.isDigit()) out += c;
    return out;
}

} // namespace

class TestNetlistSummaryModel : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() { gsr::views::test::init_test_application(); }

    void passesModelTesterWhileFilledAndReset()
    {
        NetlistSummaryModel model;
        QAbstractItemModelTester tester(&model,
                                        QAbstractItemModelTester::FailureReportingMode::Fatal);
        QCOMPARE(model.rowCount(), 0);
        const auto c17 = gsr::report::summarize_file(
            gsr::views::test::c17_path().toStdString());
        QSignalSpy resets(&model, &QAbstractItemModel::modelReset);
        model.setSummary(c17);
        QCOMPARE(model.rowCount(), NetlistSummaryModel::kFieldCount);
        QCOMPARE(model.columnCount(), 2);
        model.setSummary(c17); // replacing a summary by another is a reset too
        model.clear();
        QCOMPARE(model.rowCount(), 0);
        model.clear(); // clearing an empty model changes nothing and signals nothing
        QCOMPARE(resets.count(), 3);

        gsr::report::NetlistSummary unknown; // every figure unknown
        unknown.format = "lef";
        model.setSummary(unknown);
        QCOMPARE(model.rowCount(), NetlistSummaryModel::kFieldCount);
        // Walk every cell and role so the tester sees all data() paths.
        for (int r = 0; r < model.rowCount(); ++r)
            for (int c = 0; c < model.columnCount(); ++c)
                for (int role : {int(Qt::DisplayRole), int(Qt::ToolTipRole),
                                 int(Qt::TextAlignmentRole), NetlistSummaryModel::RawValueRole})
                    model.data(model.index(r, c), role);
    }

    void showsTheNumbersCoreComputes()
    {
        const auto s = gsr::report::summarize_file(gsr::views::test::c17_path().toStdString());
        NetlistSummaryModel model;
        model.setSummary(s);

        const std::pair<Field, std::optional<std::int64_t>> counts[] = {
            {Field::Inputs, s.counts.inputs},         {Field::Outputs, s.counts.outputs},
            {Field::FlipFlops, s.counts.flip_flops},  {Field::Cells, s.counts.cells},
            {Field::Nets, s.counts.nets},             {Field::GraphNodes, s.graph_nodes},
            {Field::GraphEdges, s.graph_edges},       {Field::MaxLevel, s.max_level},
        };
        for (const auto& [field, value] : counts) {
            QVERIFY2(value.has_value(), qPrintable(NetlistSummaryModel::label(field)));
            QCOMPARE(raw(model, field).toLongLong(), *value);
            QCOMPARE(digits(shown(model, field)), QString::number(*value));
        }
        // And core's numbers are c17's: COUNTS.csv (5 PI, 2 PO, 6 gates, 11 nets, 12 fan-in
        // edges) and its depth of 3 gates.
        const std::pair<Field, std::int64_t> c17[] = {
            {Field::Inputs, 5}, {Field::Outputs, 2},     {Field::FlipFlops, 0},
            {Field::Cells, 6},  {Field::Nets, 11},       {Field::GraphNodes, 11},
            {Field::GraphEdges, 12}, {Field::MaxLevel, 3},
        };
        for (const auto& [field, value] : c17) QCOMPARE(raw(model, field).toLongLong(), value);
        QCOMPARE(shown(model, Field::Format), QString::fromStdString(s.format));
        QCOMPARE(shown(model, Field::Top), QString::fromStdString(s.top));
        QCOMPARE(raw(model, Field::Warnings).toLongLong(),
                 qint64(s.warnings.size() + s.warnings_suppressed));
        QCOMPARE(raw(model, Field::LoadTime).toDouble(), s.seconds);
        QCOMPARE(model.data(model.index(NetlistSummaryModel::rowOf(Field::Cells),
                                        NetlistSummaryModel::KeyColumn))
                     .toString(),
                 QStringLiteral("cells"));
    }

    void unknownFiguresShowAsNotAvailable()
    {
        gsr::report::NetlistSummary s;
        s.format = "liberty";
        s.counts.cells = 42;
        NetlistSummaryModel model;
        model.setSummary(s);
        QVERIFY(!raw(model, Field::Inputs).isValid());
        QCOMPARE(shown(model, Field::Inputs), QStringLiteral("n/a"));
        QCOMPARE(raw(model, Field::Cells).toLongLong(), 42);
        QCOMPARE(shown(model, Field::Top), QStringLiteral("(none)"));
    }

    void warningsRowTooltipQuotesTheWarnings()
    {
        gsr::report::NetlistSummary s;
        s.warnings = {"a.bench:3:1: warning: net x is never used"};
        s.warnings_suppressed = 4;
        NetlistSummaryModel model;
        model.setSummary(s);
        QCOMPARE(raw(model, Field::Warnings).toLongLong(), 5);
        const QString tip = model.data(model.index(NetlistSummaryModel::rowOf(Field::Warnings),
                                                   NetlistSummaryModel::ValueColumn),
                                       Qt::ToolTipRole)
                                .toString();
        QVERIFY(tip.contains(QStringLiteral("net x is never used")));
    }

    void summaryLineNamesFileAndCounts()
    {
        const auto s = gsr::report::summarize_file(gsr::views::test::c17_path().toStdString());
        const QString line = gsr::views::summary_line(s);
        QVERIFY2(line.startsWith(QStringLiteral("c17.bench: bench")), qPrintable(line));
        QVERIFY2(line.contains(QStringLiteral("%1 cells").arg(*s.counts.cells)), qPrintable(line));
        // One of a kind reads in the singular ("1 inputs" before).
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const QString wire = dir.filePath(QStringLiteral("wire.bench"));
        QFile f(wire);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write("INPUT(a)\nOUTPUT(a)\n");
        f.close();
        const QString one = gsr::views::summary_line(gsr::report::summarize_file(wire.toStdString()));
        QVERIFY2(one.contains(QStringLiteral("1 input, 1 output, 0 flip-flops, 0 cells, 1 net, "
                                             "1 graph node, 0 graph edges")),
                 qPrintable(one));
    }

    void durationsReadNaturally()
    {
        QCOMPARE(gsr::views::format_duration(0.000250), QStringLiteral("250 µs"));
        QCOMPARE(gsr::views::format_duration(0.0125), QStringLiteral("12.5 ms"));
        QCOMPARE(gsr::views::format_duration(3.2), QStringLiteral("3.20 s"));
    }
};

QTEST_MAIN(TestNetlistSummaryModel)
#include "tst_netlist_summary_model.moc"
