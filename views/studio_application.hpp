#pragma once
// Application-wide set-up shared by gsr-studio and the widget tests: the names QSettings files
// are kept under, and the look (Fusion, coloured by the system palette: light or dark).

namespace gsr::views {

/// @brief Sets organisation "gsr-studio", application "GSR Studio", the version and the
/// style. Call it once the QApplication exists.
void configure_application();

} // namespace gsr::views
