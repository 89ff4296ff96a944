#pragma once
// What the GL tests and the canvas benchmark share: the sample's scene with a layout that is
// the same on every run (seed 1, a fixed iteration count), and image comparison for goldens.
#include "canvas/canvas_panel.hpp"
#include "canvas/canvas_scene.hpp"
#include "layout/force_atlas2.hpp"

#include <QImage>
#include <QString>

#include <cstdlib>
#include <memory>

namespace gsr::views::test {

/// ForceAtlas2 on the scene from its start (placement or seeded random), `iterations` long.
inline std::vector<layout::Point2> fixed_layout(const canvas::CanvasScene& scene, int iterations)
{
    layout::ForceAtlas2Options o = canvas::CanvasPanel::layoutOptions();
    o.max_iterations = iterations;
    o.tolerance = 0; // never converged early: the count alone decides
    layout::ForceAtlas2Layout fa2(scene.undirected, o, scene.placement);
    return fa2.run()->positions;
}

struct ImageDifference {
    double differing_fraction = 1; ///< pixels whose largest channel difference exceeds the tolerance
    int largest = 255;             ///< the largest channel difference seen
    bool same_size = false;
    std::size_t differing_pixels = 0; ///< beyond the tolerance
    std::size_t ink_pixels = 0;       ///< b's pixels unlike b's corner (the background)
};

inline ImageDifference compare_images(const QImage& a, const QImage& b, int tolerance)
{
    ImageDifference d;
    if (a.size() != b.size()) return d;
    d.same_size = true;
    const QImage x = a.convertToFormat(QImage::Format_RGB32);
    const QImage y = b.convertToFormat(QImage::Format_RGB32);
    std::size_t differing = 0, ink = 0;
    const QRgb background = y.pixel(0, 0); // b's corner: the canvas's clear colour
    d.largest = 0;
    for (int j = 0; j < x.height(); ++j) {
        const auto* p = reinterpret_cast<const QRgb*>(x.constScanLine(j));
        const auto* q = reinterpret_cast<const QRgb*>(y.constScanLine(j));
        for (int i = 0; i < x.width(); ++i) {
            const int diff = std::max({std::abs(qRed(p[i]) - qRed(q[i])),
                                       std::abs(qGreen(p[i]) - qGreen(q[i])),
                                       std::abs(qBlue(p[i]) - qBlue(q[i]))});
            d.largest = std::max(d.largest, diff);
            if (diff > tolerance) ++differing;
            const int drawn = std::max({std::abs(qRed(q[i]) - qRed(background)),
                                        std::abs(qGreen(q[i]) - qGreen(background)),
                                        std::abs(qBlue(q[i]) - qBlue(background))});
            if (drawn > tolerance) ++ink;
        }
    }
    d.differing_fraction = double(differing) / double(std::max(1, x.width() * x.height()));
    d.differing_pixels = differing;
    d.ink_pixels = ink;
    return d;
}

} // namespace gsr::views::test
