// Canvas frame time at hyp size (EPFL hyp: 214,591 nodes), for docs/BENCHMARKS.md "Canvas
// frame time". Run it under a display; in CI and on the dev machine that is Xvfb with Mesa's
// llvmpipe:
//   xvfb-run -a -s "-screen 0 1600x1200x24" build/release/bin/gsr_bench_canvas
//   ... --file F --iterations N --frames N --quick (the bundled sample, a few frames)
// Each case draws `frames` frames of a 1280x800 canvas with the overlay on and reports the
// median and 95th percentile of
//   frame    update() to frameSwapped(): paintGL, the GL work, composition and the swap
//   paint    paintGL + glFinish alone (renderFrameBlocking)
// for the automatic level of detail under both rules, side by side, fitted and at 4x, 8x, 16x
// and 64x: counted (the nodes actually in view against the node budget, else the finest
// community level that fits; the default) and uniform (the earlier rule: nodes / zoom^2
// against 20,000, as if spread evenly); full detail (forced) at 1x, 4x, 8x and 64x under each
// culling rule (off: everything; box: the nodes in view and every edge whose box meets it;
// view: the nodes in view and the edges touching them, long ones as stubs; --slow-frames N
// frames for off and box, which take seconds; 0 leaves them out), the super-graph while layout
// snapshots arrive (positions uploaded every frame), and panning zoomed in under both rules.
#include "canvas/canvas_panel.hpp"
#include "canvas/graph_canvas.hpp"
#include "bench/bench_support.hpp"
#include "canvas_gl_support.hpp"

#include "util/resources.hpp"

#include <QApplication>
#include <QElapsedTimer>
#include <QEventLoop>
#include <QOpenGLContext>
#include <QOpenGLFunctions>
#include <QTimer>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <iostream>
#include <string>
#include <vector>

using namespace gsr::views::canvas;

namespace {

struct Stats {
    double median = 0, p95 = 0;
};

Stats stats(std::vector<double> ms)
{
    std::sort(ms.begin(), ms.end());
    if (ms.empty()) return {};
    return {ms[ms.size() / 2], ms[std::min(ms.size() - 1, std::size_t(ms.size() * 0.95))]};
}

/// One frame through the widget's own path: update(), then wait for the swap.
double swapped_frame(GraphCanvas& canvas)
{
    QElapsedTimer t;
    t.start();
    QEventLoop loop;
    const auto c = QObject::connect(&canvas, &QOpenGLWidget::frameSwapped, &loop, &QEventLoop::quit);
    QTimer::singleShot(10000, &loop, &QEventLoop::quit);
    canvas.update();
    loop.exec();
    QObject::disconnect(c);
    return t.nsecsElapsed() * 1e-6;
}

const char* culling_name(GraphCanvas::Culling c)
{
    switch (c) {
    case GraphCanvas::Culling::Off: return "off";
    case GraphCanvas::Culling::Box: return "box";
    case GraphCanvas::Culling::View: return "view";
    }
    return "?";
}

void measure(const std::string& name, GraphCanvas& canvas, int frames,
             const std::vector<gsr::layout::Point2>* moving = nullptr, int warm_up = 2)
{
    std::vector<double> frame, paint;
    std::vector<gsr::layout::Point2> p;
    if (moving) p = *moving;
    for (int i = 0; i < frames + warm_up; ++i) {
        if (moving) {
            // A new snapshot each frame: every position moves a little.
            for (auto& q : p) q.x += 1e-3;
            canvas.setPositions(p);
        }
        const double f = swapped_frame(canvas);
        const double g = canvas.renderFrameBlocking();
        if (i >= warm_up) { // the first frames upload buffers and compile shaders
            frame.push_back(f);
            paint.push_back(g);
        }
    }
    const Stats fs = stats(frame), ps = stats(paint);
    const int level = canvas.drawnLevel();
    const int levels = canvas.scene() ? int(canvas.scene()->communities.levels.size()) : 0;
    const std::string drawn =
        level >= 0
            ? (level + 1 == levels ? std::string("super-graph")
                                   : "level " + std::to_string(level + 1) + "/" +
                                         std::to_string(levels)) +
                  " " + std::to_string(canvas.drawnCommunities()) + " d"
            : canvas.culledLines() || canvas.culledNodes()
                  ? std::to_string(canvas.culledNodes()) + " n " +
                        std::to_string(canvas.culledLines()) + " l"
                  : std::string("all");
    const std::string in_view = canvas.detail() == GraphCanvas::Detail::Auto
                                    ? "  in view " +
                                          std::to_string(canvas.detailChoice().nodes_in_view)
                                    : std::string();
    std::printf("%-40s %-22s frame %8.2f ms (p95 %8.2f)  paint %8.2f ms (p95 %8.2f)  n=%d%s\n",
                name.c_str(), drawn.c_str(), fs.median, fs.p95, ps.median, ps.p95, frames,
                in_view.c_str());
    std::fflush(stdout);
}

} // namespace

int main(int argc, char** argv)
{
    QApplication app(argc, argv);
    bool quick = false;
    int frames = 30, iterations = 100, slow_frames = 3;
    std::string file = GSR_DATA_DIR "/netlists/epfl/arithmetic/hyp_from_aig.blif";
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        if (a == "--quick") quick = true;
        else if (a == "--frames" && i + 1 < argc) frames = std::atoi(argv[++i]);
        else if (a == "--iterations" && i + 1 < argc) iterations = std::atoi(argv[++i]);
        else if (a == "--slow-frames" && i + 1 < argc) slow_frames = std::atoi(argv[++i]);
        else if (a == "--file" && i + 1 < argc) file = argv[++i];
        else {
            std::cerr << "usage: gsr_bench_canvas [--quick] [--file F] [--frames N] "
                         "[--iterations N] [--slow-frames N]\n";
            return 2;
        }
    }
    if (quick) {
        file = gsr::bundled_sample_path();
        frames = 5;
        iterations = 50;
    }
    QString why;
    if (!GraphCanvas::openGlAvailable(&why)) {
        std::cerr << "gsr_bench_canvas: no OpenGL 3.3: " << why.toStdString()
                  << " (run it under xvfb-run -a)\n";
        return 1;
    }

    const auto t0 = std::chrono::steady_clock::now();
    const auto scene = build_canvas_scene(file);
    const double prepare_s = gsr::bench::seconds_since(t0);
    const auto t1 = std::chrono::steady_clock::now();
    const auto positions = gsr::views::test::fixed_layout(*scene, iterations);
    const double layout_s = gsr::bench::seconds_since(t1);

    GraphCanvas canvas;
    canvas.resize(1280, 800);
    canvas.setScene(scene);
    canvas.setPositions(positions);
    canvas.show();
    for (int i = 0; i < 20; ++i) QApplication::processEvents(QEventLoop::AllEvents, 20);
    canvas.fitToView();

    QString renderer = QStringLiteral("unknown");
    canvas.makeCurrent();
    if (auto* ctx = QOpenGLContext::currentContext())
        renderer = QString::fromLatin1(
            reinterpret_cast<const char*>(ctx->functions()->glGetString(GL_RENDERER)));
    canvas.doneCurrent();

    std::printf("file        %s\n", file.c_str());
    std::printf("graph       %zu nodes, %zu edges, %u communities, %zu super-graph edges\n",
                scene->node_count(), scene->edge_count(), scene->communities.community_count,
                scene->super_graph.edges.size());
    std::printf("prepare     %.2f s (read, graph, Leiden, signal probability); layout %d "
                "iterations %.2f s\n", prepare_s, iterations, layout_s);
    std::printf("renderer    %s, canvas 1280x800, %d frames per case, load %s\n",
                qPrintable(renderer), frames, gsr::bench::load_average().c_str());

    using Rule = GraphCanvas::DetailRule;
    const std::size_t budget = canvas.fullDetailBudget();
    auto set_rule = [&](Rule r) {
        canvas.setDetailRule(r);
        canvas.setFullDetailBudget(r == Rule::Uniform ? 20000 : budget);
    };
    // Both rules of automatic detail at each zoom, culling to the view, one after the other.
    for (const double magnification : {1.0, 4.0, 8.0, 16.0, 64.0}) {
        canvas.fitToView();
        Camera zoomed = canvas.camera();
        zoomed.zoom *= magnification;
        if (magnification > 1) canvas.setCamera(zoomed);
        canvas.setDetail(GraphCanvas::Detail::Auto);
        canvas.setCulling(GraphCanvas::Culling::View);
        for (const Rule r : {Rule::Counted, Rule::Uniform}) {
            set_rule(r);
            // The uniform rule's 4x-8x frames take a fifth of a second: fewer of them.
            const bool slow = r == Rule::Uniform && magnification > 1 && magnification < 16;
            measure((magnification == 1 ? std::string("fitted") :
                     "zoom " + std::to_string(int(magnification)) + "x") +
                        ", auto " + (r == Rule::Counted ? "counted" : "uniform (old)"),
                    canvas, slow ? std::min(frames, 10) : frames);
        }
        set_rule(Rule::Counted);
    }
    canvas.fitToView();
    measure("fitted, auto detail (LOD)", canvas, frames);
    // Full detail at 1x (forced) and zoomed in (auto picks full detail from 4x on), with each
    // culling rule in turn. Drawing everything and the box rule take seconds a frame at hyp
    // size in software: a few frames say enough.
    using Culling = GraphCanvas::Culling;
    for (const double magnification : {1.0, 4.0, 8.0, 64.0}) {
        if (slow_frames <= 0) break;
        canvas.fitToView();
        Camera zoomed = canvas.camera();
        zoomed.zoom *= magnification;
        canvas.setCamera(zoomed);
        // Full detail throughout: the baseline of drawing nodes (auto would aggregate).
        canvas.setDetail(GraphCanvas::Detail::Full);
        for (const Culling c : {Culling::Off, Culling::Box, Culling::View}) {
            if (magnification == 1 && c == Culling::Box) continue; // all in view: as Off
            canvas.setCulling(c);
            // At 1x everything is in view, culled or not.
            const bool slow = (c != Culling::View && magnification < 64) || magnification == 1;
            const std::string name = "zoom " + std::to_string(int(magnification)) +
                                     "x, culling " + culling_name(c);
            measure(name, canvas, slow ? std::min(frames, slow_frames) : frames, nullptr,
                    slow ? 1 : 2);
        }
    }
    canvas.setDetail(GraphCanvas::Detail::Auto);
    canvas.setCulling(Culling::View);
    canvas.fitToView();
    measure("fitted, auto, layout moving", canvas, frames, &positions);
    for (const Rule r : {Rule::Counted, Rule::Uniform}) {
        set_rule(r);
        // Panning zoomed in 8x: a new view every frame, culled again when it leaves the
        // rectangle last culled (an eighth of the view around it).
        canvas.setPositions(positions);
        canvas.fitToView();
        Camera zoomed = canvas.camera();
        zoomed.zoom *= 8;
        canvas.setCamera(zoomed);
        std::vector<double> frame, paint;
        std::size_t levels_seen = 0;
        int last_level = -2;
        for (int i = 0; i < frames + 2; ++i) {
            Camera c = canvas.camera();
            c.pan_pixels(24, 0);
            canvas.setCamera(c);
            const double f = swapped_frame(canvas);
            const double g = canvas.renderFrameBlocking(); // the same view again: GL alone
            if (i >= 2) frame.push_back(f), paint.push_back(g);
            if (canvas.drawnLevel() != last_level) ++levels_seen, last_level = canvas.drawnLevel();
        }
        const Stats fs = stats(frame), ps = stats(paint);
        const std::string name = std::string("zoom 8x, panning 24 px, auto ") +
                                 (r == Rule::Counted ? "counted" : "uniform (old)");
        std::printf("%-40s %-22s frame %8.2f ms (p95 %8.2f)  paint %8.2f ms (p95 %8.2f)  "
                    "n=%d\n",
                    name.c_str(), (std::to_string(levels_seen) + " detail changes").c_str(),
                    fs.median, fs.p95, ps.median, ps.p95, frames);
        std::fflush(stdout);
    }
    return 0;
}
