#pragma once
// Application-wide set-up shared by gsr-studio and the widget tests: the names QSettings files
// are kept under, the look (Fusion, coloured by the system palette: light or dark), and C's
// numeric locale ("C", whatever the user's, for the numbers core writes to files).

namespace gsr::views {

/// @brief Sets organisation "gsr-studio", application "GSR Studio", the version, the
/// style and LC_NUMERIC "C". Call it once the QApplication exists.
void configure_application();

} // namespace gsr::views
