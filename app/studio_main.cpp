// gsr-studio: the desktop application. A thin main: arguments in, MainWindow out; the work
// lives in views/ and core/.
//
//   gsr-studio [--liberty LIB]... [FILE]       open FILE (the bundled sample when none), its
//                                              cells read with the libraries LIB
//   gsr-studio --screenshot PANEL OUT.png [FILE]   save PANEL (main, canvas) as a PNG and exit
//   gsr-studio --smoke [--liberty LIB]... [FILE]   load, print the one-line summary and exit
#ifdef GSR_HAVE_CUDA
#include "cuda_backend.hpp"
#endif
#include "canvas/canvas_panel.hpp"
#include "canvas/graph_canvas.hpp"
#include "mainwindow/main_window.hpp"
#include "panels/communities_panel.hpp"
#include "panels/panel_screenshot.hpp"
#include "panels/studio_panels.hpp"
#include "models/netlist_summary_model.hpp"
#include "studio_application.hpp"
#include "util/diagnostics.hpp"
#include "util/resources.hpp"

#include <QApplication>
#include <QDeadlineTimer>
#include <QFileInfo>
#include <QPixmap>
#include <QStringList>
#include <QThreadPool>
#include <QWindow>

#include <iostream>
#include <optional>

namespace {

constexpr int kUsageError = 2;
/// Screenshots show the layout settled (or after this many iterations), the same every run.
constexpr int kScreenshotIterations = 1000;

struct Options {
    enum class Mode { Interactive, Screenshot, Smoke, Help, Version } mode = Mode::Interactive;
    QString file;            ///< empty: the bundled sample
    QString panel, out_png;  ///< --screenshot
    QStringList liberty;     ///< --liberty: the window's cell libraries
};

const char* const kUsage =
    "usage: gsr-studio [--liberty LIB]... [FILE]\n"
    "       gsr-studio --screenshot PANEL OUT.png [FILE]   PANEL: main, canvas,\n"
    "                  communities, training, memory, runs, console, profiling\n"
    "       gsr-studio --smoke [--liberty LIB]... [FILE]\n"
    "Without FILE the bundled sample circuit is used. --liberty reads the netlist's cells\n"
    "with the Liberty or LEF library LIB (File > Cell Libraries in the window).\n";

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
        } else if (a == QLatin1String("--liberty")) {
            if (i + 1 >= args.size() || args[i + 1].isEmpty()) {
                std::cerr << "gsr-studio: --liberty needs a library file\n" << kUsage;
                return std::nullopt;
            }
            o.liberty << args[++i];
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
    if (o.mode == Options::Mode::Screenshot && o.panel != QLatin1String("main") &&
        o.panel != QLatin1String("canvas") &&
        !gsr::views::screenshot_panels().contains(o.panel)) {
        const QStringList known = QStringList{QStringLiteral("main"), QStringLiteral("canvas")} +
                                  gsr::views::screenshot_panels();
        std::cerr << "gsr-studio: unknown panel '" << o.panel.toStdString() << "' (known: "
                  << known.join(QStringLiteral(", ")).toStdString() << ")\n";
        return std::nullopt;
    }
    if (!o.liberty.isEmpty() && o.mode == Options::Mode::Screenshot &&
        o.panel != QLatin1String("main")) {
        std::cerr << "gsr-studio: --liberty applies to the window, --smoke and --screenshot "
                     "main, not to --screenshot "
                  << o.panel.toStdString() << '\n';
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

/// Shows `window` and lets it lay out and paint.
void show_and_settle(QWidget& window)
{
    window.show();
    // A real display (xvfb, X11) exposes the window a few event-loop turns after show();
    // offscreen does at once. Either way the layout must settle before grab().
    const QDeadlineTimer deadline(3000);
    while (!deadline.hasExpired() &&
           !(window.windowHandle() && window.windowHandle()->isExposed()))
        QCoreApplication::processEvents(QEventLoop::AllEvents, 50);
    for (int i = 0; i < 5; ++i) QCoreApplication::processEvents();
}

bool save_image(const QImage& shot, const QString& out_png)
{
    if (shot.isNull() || !shot.save(out_png, "PNG")) {
        std::cerr << "gsr-studio: could not write " << out_png.toStdString() << '\n';
        return false;
    }
    std::cout << "wrote " << out_png.toStdString() << " (" << shot.width() << "x"
              << shot.height() << ")\n";
    return true;
}

/// The graph canvas alone, its layout settled, coloured by community.
int canvas_screenshot(const QString& file, const QString& out_png)
{
    QString why;
    if (!gsr::views::canvas::GraphCanvas::openGlAvailable(&why)) {
        std::cerr << "gsr-studio: the canvas needs OpenGL 3.3: " << why.toStdString()
                  << " (run under a display, e.g. xvfb-run -a)\n";
        return 1;
    }
    gsr::views::canvas::CanvasPanel panel;
    panel.resize(1280, 800);
    QObject::connect(&panel, &gsr::views::canvas::CanvasPanel::failed, &panel,
                     [](const QString&, const QString& message) {
                         std::cerr << message.toStdString() << '\n';
                     });
    if (!panel.openNow(file, kScreenshotIterations)) return 1;
    show_and_settle(panel);
    panel.canvas()->fitToView();
    panel.canvas()->grabFramebuffer(); // the first frame compiles shaders: not the one shown
    panel.canvas()->update();          // a second frame, whose overlay shows the first's time
    return save_image(panel.canvas()->grabFramebuffer(), out_png) ? 0 : 1;
}

} // namespace

int main(int argc, char** argv)
{
    // The canvas's GL widget may move between windows (docks, tabs): share its contexts.
    QCoreApplication::setAttribute(Qt::AA_ShareOpenGLContexts);
    QApplication app(argc, argv);
    gsr::views::configure_application();
#ifdef GSR_HAVE_CUDA
    gsr::gpu::install_runtime(); // the status bar and Train then see the GPU
#endif

    const std::optional<Options> options = parse(QApplication::arguments());
    if (!options) return kUsageError;
    switch (options->mode) {
    case Options::Mode::Help: std::cout << kUsage; return 0;
    case Options::Mode::Version: std::cout << "gsr-studio " << GSR_VERSION << '\n'; return 0;
    default: break;
    }

    const QString file = file_or_sample(options->file);
    gsr::views::MainWindow window;
    window.setCellLibraries(options->liberty);

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
        if (gsr::views::screenshot_panels().contains(options->panel)) // views/panels draws them
            return gsr::views::render_panel_screenshot(options->panel, options->out_png, file)
                       ? 0 : 1;
        if (options->panel == QLatin1String("canvas"))
            return canvas_screenshot(file, options->out_png);
        window.resize(1280, 800);
        bool loaded = window.loadFileNow(file);
        // Where OpenGL is there, the Graph tab shows the layout settled rather than starting.
        if (loaded && window.canvasPanel())
            loaded = window.canvasPanel()->openNow(file, kScreenshotIterations,
                                                   window.loadedCircuit());
        // The docks read the graph and list its communities off the UI thread: wait for them.
        const QDeadlineTimer detected(30000);
        while (loaded && !detected.hasExpired() && !window.panels()->communities()->result())
            QCoreApplication::processEvents(QEventLoop::AllEvents, 50);
        show_and_settle(window);
        return save_image(window.grab().toImage(), options->out_png) && loaded ? 0 : 1;
    }

    window.restoreSettings();
    window.show();
    if (!file.isEmpty()) window.openPath(file); // a project double-clicked in the file manager

    const int status = QApplication::exec();
    // The application's destructor waits for every task of the global pool, queued ones too:
    // the panels' graph reads and detections not begun by now are of no use to anyone.
    QThreadPool::globalInstance()->clear();
    return status;
}
