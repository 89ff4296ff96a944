#include "panels/cli_equivalent.hpp"

#include "panels/training_settings.hpp"
#include "train/dataset.hpp"

#include <array>
#include <charconv>

namespace gsr::views {

namespace {

bool plain_character(QChar c)
{
    if (c.unicode() >= 128) return false;
    return c.isLetterOrNumber() || QStringLiteral("_-./:=+,@%").contains(c);
}

QString number(std::uint64_t v) { return QString::number(v); }

bool grouped(nn::ModelKind kind)
{
    return kind == nn::ModelKind::Rev || kind == nn::ModelKind::Gsr;
}

} // namespace

QString shell_quote(const QString& word)
{
    if (word.isEmpty()) return QStringLiteral("''");
    bool plain = true;
    for (const QChar c : word) plain = plain && plain_character(c);
    if (plain) return word;
    QString quoted = word;
    quoted.replace(QLatin1Char('\''), QStringLiteral("'\\''"));
    return QLatin1Char('\'') + quoted + QLatin1Char('\'');
}

QString gsr_command(const QStringList& words)
{
    QStringList out{QStringLiteral("gsr")};
    for (const QString& w : words) out << shell_quote(w);
    return out.join(QLatin1Char(' '));
}

QString shortest_number(double value)
{
    std::array<char, 64> buf{};
    const auto [end, ec] = std::to_chars(buf.data(), buf.data() + buf.size(), value);
    if (ec != std::errc{}) return QString::number(value, 'g', 17);
    return QString::fromLatin1(buf.data(), static_cast<int>(end - buf.data()));
}

QStringList liberty_flags(const QStringList& libraries)
{
    QStringList w;
    for (const QString& lib : libraries) w << QStringLiteral("--liberty") << lib;
    return w;
}

QString info_command(const QString& file, const QStringList& libraries)
{
    return gsr_command(QStringList{QStringLiteral("info"), file} << liberty_flags(libraries));
}

QString import_command(const QString& file, const QString& project, const QStringList& libraries)
{
    return gsr_command(QStringList{QStringLiteral("import"), file, QStringLiteral("--db"), project}
                       << liberty_flags(libraries));
}

QString new_project_command(const QString& project)
{
    return gsr_command({QStringLiteral("new"), QStringLiteral("--db"), project});
}

QString netlists_command(const QString& project)
{
    return gsr_command({QStringLiteral("netlists"), QStringLiteral("--db"), project});
}

QString runs_list_command(const QString& project, const QString& csv)
{
    QStringList w{QStringLiteral("runs"), QStringLiteral("list"), QStringLiteral("--db"), project};
    if (!csv.isEmpty()) w << QStringLiteral("--csv") << QStringLiteral("--out") << csv;
    return gsr_command(w);
}

QString communities_command(const QString& file, const community::CommunityOptions& o,
                            const QStringList& libraries)
{
    QStringList w{QStringLiteral("communities"), file, QStringLiteral("--method"),
                  o.method == community::Method::Leiden ? QStringLiteral("leiden")
                                                        : QStringLiteral("louvain"),
                  QStringLiteral("--resolution"), shortest_number(o.resolution),
                  QStringLiteral("--seed"), number(o.seed)};
    if (o.iterations != 2) w << QStringLiteral("--iterations") << QString::number(o.iterations);
    if (o.threads != 0) w << QStringLiteral("--threads") << QString::number(o.threads);
    w << liberty_flags(libraries);
    return gsr_command(w);
}

QString train_command(const TrainingSettings& s, const QString& project)
{
    const nn::ModelConfig& m = s.config.model;
    QStringList w{QStringLiteral("train")};
    w << s.train << QStringLiteral("--test") << s.test;
    if (!s.validation.isEmpty()) w << QStringLiteral("--val") << s.validation;
    w << liberty_flags(s.liberty);
    w << QStringLiteral("--db") << (project.isEmpty() ? QStringLiteral("PROJECT.gsr") : project)
      << QStringLiteral("--target") << QString::fromLatin1(train::target_name(s.target).data())
      << QStringLiteral("--model") << QString::fromLatin1(nn::model_kind_name(m.kind).data())
      << QStringLiteral("--layers") << number(m.layers) << QStringLiteral("--hidden")
      << number(m.hidden);
    // `gsr train` refuses --groups and --topk where the model has no groups or no top-k.
    if (grouped(m.kind)) w << QStringLiteral("--groups") << number(m.groups);
    if (m.kind == nn::ModelKind::Gsr) w << QStringLiteral("--topk") << number(m.topk);
    w << QStringLiteral("--epochs") << number(s.config.epochs) << QStringLiteral("--lr")
      << shortest_number(s.config.adam.learning_rate) << QStringLiteral("--batch")
      << number(s.config.batch_size) << QStringLiteral("--seed") << number(s.config.seed)
      << QStringLiteral("--patience") << number(s.config.patience);
    if (s.config.warmup_steps > 0) w << QStringLiteral("--warmup") << number(s.config.warmup_steps);
    if (m.offload_optimizer) w << QStringLiteral("--offload-optimizer");
    w << QStringLiteral("--device") << QStringLiteral("auto");
    return gsr_command(w);
}

QString resume_command(const QString& project, std::int64_t run, std::uint32_t epochs,
                       bool offload_optimizer)
{
    QStringList w{QStringLiteral("train"), QStringLiteral("--db"),
                  project.isEmpty() ? QStringLiteral("PROJECT.gsr") : project,
                  QStringLiteral("--resume"), QString::number(run)};
    if (epochs > 0) w << QStringLiteral("--epochs") << number(epochs);
    if (offload_optimizer) w << QStringLiteral("--offload-optimizer");
    w << QStringLiteral("--device") << QStringLiteral("auto");
    return gsr_command(w);
}

QString memory_command(const nn::ModelConfig& m, const nn::GraphShape& shape)
{
    QStringList w{QStringLiteral("memory"), QStringLiteral("--model"),
                  QString::fromLatin1(nn::model_kind_name(m.kind).data()),
                  QStringLiteral("--layers"), number(m.layers), QStringLiteral("--hidden"),
                  number(m.hidden)};
    if (grouped(m.kind)) w << QStringLiteral("--groups") << number(m.groups);
    if (m.kind == nn::ModelKind::Gsr) w << QStringLiteral("--topk") << number(m.topk);
    w << QStringLiteral("--nodes") << number(shape.nodes) << QStringLiteral("--edges")
      << number(shape.edges) << QStringLiteral("--features") << number(shape.features);
    if (m.offload_optimizer) w << QStringLiteral("--offload-optimizer");
    return gsr_command(w);
}

QString tune_command(const QString& problem, const QString& strategy, std::size_t budget,
                     const tune::EngineShape* engine, const QString& device,
                     const QString& project)
{
    QStringList args = {QStringLiteral("kernels"), QStringLiteral("tune"), problem,
                        QStringLiteral("--strategy"), strategy, QStringLiteral("--budget"),
                        number(budget)};
    if (!device.isEmpty()) args << QStringLiteral("--device") << device;
    if (engine)
        args << QStringLiteral("--model")
             << QString::fromUtf8(nn::model_kind_name(engine->model).data(),
                                  qsizetype(nn::model_kind_name(engine->model).size()))
             << QStringLiteral("--hidden") << number(engine->hidden) << QStringLiteral("--groups")
             << number(engine->groups) << QStringLiteral("--topk") << number(engine->topk)
             << QStringLiteral("--nodes") << number(engine->nodes) << QStringLiteral("--edges")
             << number(engine->edges);
    if (!project.isEmpty()) args << QStringLiteral("--project") << project;
    return gsr_command(args);
}

} // namespace gsr::views
