#pragma once
// The project the window has open: one SQLite file of the core store. The store exists only in
// builds that found SQLite (GSR_HAVE_STORE); this header is the same either way, so the window
// compiles once and asks available() whether to offer the project actions.
#include "report/netlist_summary.hpp"

#include <QString>

#include <cstdint>
#include <memory>

namespace gsr::views {

class ProjectSession {
public:
    ProjectSession();
    ~ProjectSession();
    ProjectSession(const ProjectSession&) = delete;
    ProjectSession& operator=(const ProjectSession&) = delete;

    /// @brief Whether this build has the project store.
    static bool available();
    /// @brief Why the project actions are off, for a tooltip; empty when available().
    static QString unavailableReason();

    /// @brief Creates `path` (it must not exist yet) and makes it the open project.
    /// @throws gsr::Error naming the file.
    void create(const QString& path);
    /// @brief Opens an existing project and makes it the open project.
    /// @throws gsr::Error naming the file, when it cannot be opened or its netlists read; the
    /// project open before stays open then.
    void open(const QString& path);
    void close();

    bool isOpen() const;
    /// The open project's file, empty when none is open.
    QString path() const;
    /// @brief Netlists recorded in the open project (0 when none is open).
    int netlistCount() const;

    /// @brief Records a loaded netlist's summary in the open project.
    /// @return The netlist's row id. @throws gsr::Error (no project open, unreadable file, ...).
    std::int64_t importSummary(const report::NetlistSummary& summary);

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

} // namespace gsr::views
