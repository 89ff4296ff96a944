#include "studio_application.hpp"

#include <QApplication>
#include <QStyleFactory>

namespace gsr::views {

void configure_application()
{
    QApplication::setOrganizationName(QStringLiteral("gsr-studio"));
    QApplication::setApplicationName(QStringLiteral("GSR Studio"));
    QApplication::setApplicationVersion(QStringLiteral(GSR_VERSION));
    // Fusion draws every widget from the palette and the platform theme supplies the palette,
    // so the window is light or dark as the desktop is; no colour is set here on purpose.
    if (QStyle* fusion = QStyleFactory::create(QStringLiteral("Fusion")))
        QApplication::setStyle(fusion);
}

} // namespace gsr::views
