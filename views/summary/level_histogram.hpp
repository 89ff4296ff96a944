#pragma once
// Bar chart of nodes per logic level. Drawn with the widget's palette only, so it follows the
// light or dark system theme; wide circuits are binned to what fits on screen.
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

    QSize sizeHint() const override;
    QSize minimumSizeHint() const override;

protected:
    void paintEvent(QPaintEvent* event) override;
    bool event(QEvent* event) override;

private:
    struct Bin {
        std::size_t first_level = 0, last_level = 0, nodes = 0;
    };
    QRect plotArea() const;
    std::vector<Bin> bins(int width) const;

    std::vector<std::size_t> counts_;
};

} // namespace gsr::views
