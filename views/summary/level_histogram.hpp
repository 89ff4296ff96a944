#pragma once
// Bar chart of nodes per logic level. Drawn with the widget's palette only, so it follows the
// light or dark system theme. Deep circuits are binned to what fits on screen (a bar is its
// busiest level), and a skewed histogram switches to a log scale so the tail stays visible.
#include <QWidget>

#include <cstddef>
#include <vector>

namespace gsr::views {

class LevelHistogram : public QWidget {
    Q_OBJECT

public:
    explicit LevelHistogram(QWidget* parent = nullptr);

    /// @brief counts[i] = nodes at level i; empty shows nothing.
    void setCounts(std::vector<std::size_t> counts);
    const std::vector<std::size_t>& counts() const { return counts_; }
    /// Whether bars are drawn on a log scale (set by setCounts() from the data's skew).
    bool logScale() const { return log_scale_; }

    QSize sizeHint() const override;
    QSize minimumSizeHint() const override;

protected:
    void paintEvent(QPaintEvent* event) override;
    bool event(QEvent* event) override;

private:
    struct Bin {
        std::size_t first_level = 0, last_level = 0;
        std::size_t nodes = 0; ///< all levels of the bin together
        std::size_t peak = 0;  ///< the busiest level: the bar's height
    };
    QRect plotArea() const;
    std::vector<Bin> bins(int width) const;

    double barFraction(std::size_t nodes) const;

    std::vector<std::size_t> counts_;
    std::size_t peak_ = 0;
    bool log_scale_ = false;
};

} // namespace gsr::views
