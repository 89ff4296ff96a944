#pragma once
// The `gsr` command line that does what a GUI action did, for the Console dock: a user can
// repeat or script any step they took in the window. One place writes every line, with the
// flag names of app/cli, so the two stay in step.
#include "community/community_detection.hpp"
#include "nn/graph_input.hpp"
#include "nn/model_config.hpp"

#include "tune/engine_problems.hpp"

#include <QString>
#include <QStringList>

#include <cstdint>

namespace gsr::views {

struct TrainingSettings;

/// A word as a POSIX shell reads it back: unchanged when it is plain, else in single quotes.
QString shell_quote(const QString& word);
/// "gsr" followed by the quoted words.
QString gsr_command(const QStringList& words);

/// A number in its shortest form that reads back to the same double ("0.001", "1e-05").
QString shortest_number(double value);

/// "--liberty LIB" for each of the cell libraries a netlist was read with.
QStringList liberty_flags(const QStringList& libraries);

/// `libraries`: the cell libraries the window reads netlists with (--liberty).
QString info_command(const QString& file, const QStringList& libraries = {});
QString import_command(const QString& file, const QString& project,
                       const QStringList& libraries = {});
QString new_project_command(const QString& project);
QString netlists_command(const QString& project);
/// `csv`: the file the Runs table was exported to (`--csv --out CSV`).
QString runs_list_command(const QString& project, const QString& csv = {});
QString communities_command(const QString& file, const community::CommunityOptions& options,
                            const QStringList& libraries = {});
/// Every flag of the run, so the line trains the same run. Without a project the line names
/// PROJECT.gsr, which `gsr train` needs and the GUI did without.
QString train_command(const TrainingSettings& settings, const QString& project);
/// `epochs` 0: as the run was started.
QString resume_command(const QString& project, std::int64_t run, std::uint32_t epochs = 0,
                       bool offload_optimizer = false);
QString memory_command(const nn::ModelConfig& config, const nn::GraphShape& shape);
/// `gsr kernels tune PROBLEM --strategy S --budget N [--device D]` (the Profiling panel's
/// Tune, on the device its bounds are for); an engine problem also names the model and graph
/// it was built for (`engine`).
/// `project`: the project whose calibration the bounds used (`--project`, which also keeps
/// the session there).
QString tune_command(const QString& problem, const QString& strategy, std::size_t budget,
                     const tune::EngineShape* engine = nullptr, const QString& device = {},
                     const QString& project = {});

} // namespace gsr::views
