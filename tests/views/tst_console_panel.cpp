// The Console dock and the command lines it logs: quoting a shell reads back, and each GUI
// action's line with the flags `gsr` takes.
#include "panels/cli_equivalent.hpp"
#include "panels/console_panel.hpp"
#include "panels/panel_screenshot.hpp"
#include "panels/training_settings.hpp"
#include "view_test_support.hpp"

#include <QImage>
#include <QTemporaryDir>
#include <QTest>

using namespace gsr::views;

class TestConsolePanel : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() { test::init_test_application(); }

    void quotesForTheShell()
    {
        QCOMPARE(shell_quote(QStringLiteral("/a/b-c_d.v")), QStringLiteral("/a/b-c_d.v"));
        QCOMPARE(shell_quote(QStringLiteral("/my dir/x.v")), QStringLiteral("'/my dir/x.v'"));
        QCOMPARE(shell_quote(QStringLiteral("it's")), QStringLiteral("'it'\\''s'"));
        QCOMPARE(shell_quote(QString()), QStringLiteral("''"));
        QCOMPARE(shortest_number(0.001), QStringLiteral("0.001"));
        QCOMPARE(shortest_number(1.0), QStringLiteral("1"));
    }

    void communitiesAndTrainLines()
    {
        gsr::community::CommunityOptions o;
        o.resolution = 1.25;
        o.seed = 3;
        QCOMPARE(communities_command(QStringLiteral("c.v"), o),
                 QStringLiteral("gsr communities c.v --method leiden --resolution 1.25 --seed 3"));

        TrainingSettings s;
        s.train = {QStringLiteral("/t/a.v")};
        s.test = {QStringLiteral("/t/b.bench"), QStringLiteral("/t/c.bench")};
        s.config.model.kind = gsr::nn::ModelKind::Res; // no --groups/--topk: gsr train refuses them
        s.config.model.layers = 8;
        s.config.model.hidden = 32;
        s.config.epochs = 7;
        s.config.batch_size = 256;
        s.config.seed = 9;
        s.target = gsr::train::Target::Toggle;
        QCOMPARE(train_command(s, QStringLiteral("/p.gsr")),
                 QStringLiteral("gsr train /t/a.v --test /t/b.bench /t/c.bench --db /p.gsr "
                                "--target toggle --model res --layers 8 --hidden 32 --epochs 7 "
                                "--lr 0.001 --batch 256 --seed 9 --patience 10 --device auto"));
        s.config.model.kind = gsr::nn::ModelKind::Gsr;
        s.config.model.groups = 2;
        s.config.model.topk = 4;
        s.config.warmup_steps = 20;
        s.config.model.offload_optimizer = true;
        QCOMPARE(train_command(s, QStringLiteral("/p.gsr")),
                 QStringLiteral("gsr train /t/a.v --test /t/b.bench /t/c.bench --db /p.gsr "
                                "--target toggle --model gsr --layers 8 --hidden 32 --groups 2 "
                                "--topk 4 --epochs 7 --lr 0.001 --batch 256 --seed 9 "
                                "--patience 10 --warmup 20 --offload-optimizer --device auto"));
        QCOMPARE(resume_command(QStringLiteral("/p.gsr"), 4, 20),
                 QStringLiteral("gsr train --db /p.gsr --resume 4 --epochs 20 --device auto"));
        // Offload is the session's choice, not the run's: a resume that offloads says so.
        QCOMPARE(resume_command(QStringLiteral("/p.gsr"), 4, 0, true),
                 QStringLiteral("gsr train --db /p.gsr --resume 4 --offload-optimizer "
                                "--device auto"));
    }

    void settingsRoundTripThroughTheRunsJson()
    {
        TrainingSettings s;
        s.train = {QStringLiteral("/t/a.v")};
        s.test = {QStringLiteral("/t/b.bench")};
        s.config.model.kind = gsr::nn::ModelKind::Rev;
        s.config.model.groups = 8;
        s.config.seed = 5;
        s.normalize();
        s.liberty = {QStringLiteral("/t/cells.lib")}; // a CLI run's: resumed alike
        const TrainingSettings back = settings_from_json(settings_json(s));
        QCOMPARE(back.train, s.train);
        QCOMPARE(back.test, s.test);
        QCOMPARE(back.liberty, s.liberty);
        QVERIFY(train_command(s, QStringLiteral("/p.gsr"))
                    .contains(QStringLiteral("--test /t/b.bench --liberty /t/cells.lib --db")));
        QCOMPARE(back.config.model.kind, gsr::nn::ModelKind::Rev);
        QCOMPARE(back.config.model.groups, 8u);
        QCOMPARE(back.config.model.seed, 5u);
        QCOMPARE(back.holdout_validation, 0.1); // no validation circuits: as gsr train
        QVERIFY_THROWS_EXCEPTION(gsr::Error, settings_from_json(nlohmann::json::object()));
        // The panel's batch size is random batching, as --batch is.
        s.config.batch_size = 64;
        QVERIFY(settings_json(s).at("batching") == "random");
    }

    void aCliRunKeepsItsMiniBatchingThroughTheGui()
    {
        // The GUI dropped commrand, alpha/beta, fan-outs and the node order of a `gsr train`
        // run, so its Resume could not continue it (or continued it in another order).
        TrainingSettings s;
        s.train = {QStringLiteral("/t/a.v")};
        s.test = {QStringLiteral("/t/b.bench")};
        s.config.batch_size = 128;
        s.normalize();
        nlohmann::json cli = settings_json(s);
        cli["batching"] = "commrand";
        cli["alpha"] = 0.25;
        cli["beta"] = 4.0;
        cli["fanout"] = "5,3";
        cli["order"] = "community";
        const TrainingSettings back = settings_from_json(cli);
        QVERIFY(back.batching == "commrand");
        QCOMPARE(back.alpha, 0.25);
        QCOMPARE(back.beta, 4.0);
        QVERIFY((back.fanouts == std::vector<std::uint32_t>{5, 3}));
        QVERIFY(back.order == gsr::train::NodeOrderKind::Community);
        const nlohmann::json again = settings_json(back);
        for (const char* key : {"batching", "alpha", "beta", "fanout", "order", "batch"})
            QCOMPARE(QString::fromStdString(again.at(key).dump()),
                     QString::fromStdString(cli.at(key).dump()));
    }

    void logsCommandsInOrder()
    {
        ConsolePanel console;
        console.appendCommand(info_command(QStringLiteral("/x y/a.v")));
        console.appendNote(QStringLiteral("run 1"));
        console.appendCommand(runs_list_command(QStringLiteral("/p.gsr")));
        QCOMPARE(console.commands(),
                 (QStringList{QStringLiteral("gsr info '/x y/a.v'"),
                              QStringLiteral("gsr runs list --db /p.gsr")}));
        QVERIFY(console.text().contains(QStringLiteral("# run 1")));
        QCOMPARE(new_project_command(QStringLiteral("/my dir/p.gsr")),
                 QStringLiteral("gsr new --db '/my dir/p.gsr'"));
        console.clear();
        QVERIFY(console.commands().isEmpty());
    }

    void theConsoleScreenshotTrainsIntoAProjectItMakes()
    {
        // docs/screenshots.sh: the console after a real training run; a failed run is no
        // screenshot (the README's image once showed "no such project file").
        qputenv("GSR_SCREENSHOT_TEST",
                test::data_file("netlists/iscas85/bench/c432.bench").toUtf8());
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const QString png = dir.filePath(QStringLiteral("console.png"));
        QVERIFY(render_panel_screenshot(QStringLiteral("console"), png, test::c17_path()));
        QCOMPARE(QImage(png).size(), QSize(1100, 300));
        qunsetenv("GSR_SCREENSHOT_TEST");
    }
};

QTEST_MAIN(TestConsolePanel)
#include "tst_console_panel.moc"
