#include "studio_application.hpp"

#include <QApplication>
#include <QIcon>
#include <QStyleFactory>

#include <clocale>

// The icons' resource lives in a static library: its registration is called, not left to a
// static initialiser the linker may drop.
static void register_icons() { Q_INIT_RESOURCE(gsr_icons); }

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
    // The desktop entry's id: Wayland's app_id, so the dock shows the entry's icon and groups
    // the window with it; and the icon itself (the theme's when installed, else our own).
    register_icons();
    const QString id = QStringLiteral("io.github.gsrstudio.GsrStudio");
    QGuiApplication::setDesktopFileName(id);
    QIcon own;
    for (const int size : {16, 24, 32, 48, 64, 128, 256})
        own.addFile(QStringLiteral(":/icons/%1x%1/apps/%2.png").arg(size).arg(id));
    QApplication::setWindowIcon(QIcon::fromTheme(id, own));
    // Fusion draws every widget from the palette and the platform theme supplies the palette,
    // so the window is light or dark as the desktop is; no colour is set here on purpose.
    if (QStyle* fusion = QStyleFactory::create(QStringLiteral("Fusion")))
        QApplication::setStyle(fusion);
}

} // namespace gsr::views
