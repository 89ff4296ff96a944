#pragma once
// What every widget test needs: the shared data files and settings that never touch the
// developer's own (QStandardPaths test mode puts QSettings under ~/.qttest).
#include "studio_application.hpp"

#include <QSettings>
#include <QStandardPaths>
#include <QString>

namespace gsr::views::test {

inline QString data_file(const char* relative)
{
    return QStringLiteral(GSR_DATA_DIR "/") + QString::fromUtf8(relative);
}

inline QString c17_path() { return data_file("netlists/iscas85/bench/c17.bench"); }

/// ~10 MB; loads in a fraction of a second, long enough to cancel before it ends.
inline QString big_blif_path() { return data_file("netlists/epfl/arithmetic/hyp_from_aig.blif"); }

/// Call from initTestCase(): application names, style, and empty isolated settings.
inline void init_test_application()
{
    QStandardPaths::setTestModeEnabled(true);
    configure_application();
    QSettings().clear();
}

} // namespace gsr::views::test
