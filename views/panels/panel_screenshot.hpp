#pragma once
// `gsr-studio --screenshot PANEL OUT.png [FILE]` for the analysis panels: the panel is driven
// as a user would drive it (open FILE, detect communities, train a small model into a
// temporary project) and saved as a PNG. Training needs circuits to test on: they are taken
// from GSR_SCREENSHOT_TEST (paths separated by ':'); without them the training-based panels
// show the panel as it waits for one.
#include <QString>
#include <QStringList>

namespace gsr::views {

/// "communities", "training", "memory", "runs", "console".
QStringList screenshot_panels();

/// @brief Renders `panel` for `file` (the bundled sample when empty) into `out_png`.
/// @return false, after saying why on stderr, when the panel is unknown or a step failed.
bool render_panel_screenshot(const QString& panel, const QString& out_png, const QString& file);

} // namespace gsr::views
