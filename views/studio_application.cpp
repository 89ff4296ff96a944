#include "studio_application.hpp"

#include <QApplication>
#include <QStyleFactory>

#include <clocale>

namespace gsr::views {

void configure_application()
{
    // QApplication took the user's locale for all of C (setlocale(LC_ALL, "")): core's
    // printf-formatted numbers (CSV, SVG, JSON, the runs table) would then read "0,750" under
    // a German locale. Numbers the user reads go through QLocale, which this does not change.
    std::setlocale(LC_NUMERIC, "C");
    QApplication::setOrganizationName(QStringLiteral("gsr-studio"));
    QApplication::setApplicationName(QStringLiteral("GSR Studio"));
    QApplication::setApplicationVersion(QStringLiteral(GSR_VERSION));
    // Fusion draws every widget from the palette and the platform theme supplies the palette,
    // so the window is light or dark as the desktop is; no colour is set here on purpose.
    if (QStyle* fusion = QStyleFactory::create(QStringLiteral("Fusion")))
        QApplication::setStyle(fusion);
}

} // namespace gsr::views
