// gsr-studio: the desktop application. A thin main: arguments in, MainWindow out; the work
// lives in views/ and core/.
//
//   gsr-studio [FILE]                          open FILE (the bundled sample when none)
//   gsr-studio --screenshot PANEL OUT.png [FILE]   save PANEL ("main") as a PNG and exit
//   gsr-studio --smoke [FILE]                  load, print the one-line summary and exit
#include "mainwindow/main_window.hpp"
#include "models/netlist_summary_model.hpp"
#include "studio_application.hpp"
#include "util/diagnostics.hpp"
#include "util/resources.hpp"

#include <QApplication>
#include <QDeadlineTimer>
#include <QFileInfo>
#include <QPixmap>
#include <QStringList>
#include <QWindow>

#include <iostream>
#include <optional>

namespace {

constexpr int kUsageError = 2;

struct Options {
    enum class Mode { Interactive, Screenshot, Smoke, Help, Version } mode = Mode::Interactive;
    QString file;            ///< empty: the bundled sample
    QString panel, out_png;  ///< --screenshot
};

const char* const kUsage =
    "usage: gsr-studio [FILE]\n"
    "       gsr-studio --screenshot PANEL OUT.png [FILE]   PANEL: main\n"
    "       gsr-studio --smoke [FILE]\n"
    "Without FILE the bundled sample circuit is used.\n";

/// Parses the arguments Qt left; nullopt (after saying why on stderr) when they make no sense.
std::optional<Options> parse(const QStringList& args)
{
    Options o;
    for (int i = 1; i < args.size(); ++i) {
        const QString& a = args[i];
        if (a == QLatin1String("--help") || a == QLatin1String("-h")) {
            o.mode = Options::Mode::Help;
        } else if (a == QLatin1String("--version")) {
            o.mode = Options::Mode::Version;
        } else if (a == QLatin1String("--smoke")) {
            o.mode = Options::Mode::Smoke;
        } else if (a == QLatin1String("--screenshot")) {
            if (i + 2 >= args.size()) {
                std::cerr << "gsr-studio: --screenshot needs PANEL and OUT.png\n" << kUsage;
                return std::nullopt;
            }
            o.mode = Options::Mode::Screenshot;
            o.panel = args[++i];
            o.out_png = args[++i];
        } else if (a.startsWith(QLatin1Char('-')) && a.size() > 1) {
            std::cerr << "gsr-studio: unknown option " << a.toStdString() << '\n' << kUsage;
            return std::nullopt;
        } else if (o.file.isEmpty()) {
            o.file = a;
        } else {
            std::cerr << "gsr-studio: one FILE at most\n" << kUsage;
            return std::nullopt;
        }
    }
    if (o.mode == Options::Mode::Screenshot && o.panel != QLatin1String("main")) {
        std::cerr << "gsr-studio: unknown panel '" << o.panel.toStdString()
                  << "' (known: main)\n";
        return std::nullopt;
    }
    return o;
}

/// FILE, or the bundled sample; empty (after saying why) when there is none.
QString file_or_sample(const QString& file)
{
    if (!file.isEmpty()) return file;
    try {
        return QString::fromStdString(gsr::bundled_sample_path());
    } catch (const gsr::Error& e) {
        std::cerr << "gsr-studio: " << e.what() << '\n';
        return {};
    }
}

/// Shows `window`, lets it lay out and paint, and saves it as a PNG.
bool save_screenshot(gsr::views::MainWindow& window, const QString& out_png)
{
    window.show();
    // A real display (xvfb, X11) exposes the window a few event-loop turns after show();
    // offscreen does at once. Either way the layout must settle before grab().
    const QDeadlineTimer deadline(3000);
    while (!deadline.hasExpired() &&
           !(window.windowHandle() && window.windowHandle()->isExposed()))
        QCoreApplication::processEvents(QEventLoop::AllEvents, 50);
    for (int i = 0; i < 5; ++i) QCoreApplication::processEvents();
    const QPixmap shot = window.grab();
    if (shot.isNull() || !shot.save(out_png, "PNG")) {
        std::cerr << "gsr-studio: could not write " << out_png.toStdString() << '\n';
        return false;
    }
    std::cout << "wrote " << out_png.toStdString() << " (" << shot.width() << "x"
              << shot.height() << ")\n";
    return true;
}

} // namespace

int main(int argc, char** argv)
{
    QApplication app(argc, argv);
    gsr::views::configure_application();

    const std::optional<Options> options = parse(QApplication::arguments());
    if (!options) return kUsageError;
    switch (options->mode) {
    case Options::Mode::Help: std::cout << kUsage; return 0;
    case Options::Mode::Version: std::cout << "gsr-studio " << GSR_VERSION << '\n'; return 0;
    default: break;
    }

    const QString file = file_or_sample(options->file);
    gsr::views::MainWindow window;

    if (options->mode == Options::Mode::Smoke) {
        if (file.isEmpty()) return 1;
        window.setShowsMessageBoxes(false);
        if (!window.loadFileNow(file)) return 1; // the error went to stderr
        std::cout << gsr::views::summary_line(*window.summary()).toStdString() << '\n';
        return 0;
    }
    if (options->mode == Options::Mode::Screenshot) {
        if (file.isEmpty()) return 1;
        window.setShowsMessageBoxes(false);
        window.resize(1280, 800);
        const bool loaded = window.loadFileNow(file);
        return save_screenshot(window, options->out_png) && loaded ? 0 : 1;
    }

    window.restoreSettings();
    window.show();
    if (!file.isEmpty()) window.openFile(file);
    return QApplication::exec();
}
