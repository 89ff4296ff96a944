#pragma once
// The graph canvas: an OpenGL 3.3 core-profile view of a circuit graph.
//
//   drawing      nodes are instanced quads (a disc of fixed pixel radius, drawn in id order),
//                edges are GL_LINES indexed into the same position buffer; positions, colours
//                and flags live in VBOs, rewritten when they change (layout snapshots, colour
//                mode, selection)
//   detail       a large graph is drawn as communities while more of its nodes are in view
//                than the node budget (counted on the picking grid, detail_levels.hpp): zoomed
//                out the final partition's super-graph, one disc per community at its centroid,
//                sized by its node count, edges shaded by weight; zoomed in the finest level of
//                the community hierarchy that fits the disc budget, culled to the view; nodes
//                once few enough are in view
//   culling      a large graph zoomed in draws only the nodes in view and the edges that touch
//                them, long ones as fading stubs (view_cull.hpp), recomputed when the view
//                leaves the rectangle last culled or the zoom changes
//   navigation   drag to pan, wheel or +/- to zoom, arrows to pan, 0 or Home to fit;
//                Shift+drag selects a box; a click selects the node under the mouse
//   picking      exact for what is drawn: NodeGrid finds the topmost disc under a point
//   overlay      Dear ImGui (legend, layout controls, hover card, frame rate) through
//                ImGuiQtBridge and the stock OpenGL3 renderer backend
//   layout       snapshots from a LayoutRunner move the nodes while it runs
#include "canvas/canvas_geometry.hpp"
#include "canvas/canvas_scene.hpp"
#include "canvas/colour_map.hpp"
#include "canvas/detail_levels.hpp"
#include "canvas/layout_runner.hpp"
#include "canvas/view_cull.hpp"

#include <QElapsedTimer>
#include <QOpenGLExtraFunctions>
#include <QOpenGLWidget>
#include <QPointer>

#include <memory>
#include <optional>
#include <vector>

class QOpenGLShaderProgram;
struct ImGuiContext;

namespace gsr::views::canvas {

class ImGuiQtBridge;

class GraphCanvas : public QOpenGLWidget, protected QOpenGLExtraFunctions {
    Q_OBJECT

public:
    enum class View { Layout, Placement };
    enum class Detail { Auto, Full, Communities };
    /// Full detail of a graph above the budget: View draws what is in view (cull_to_view),
    /// Box the earlier rule (cull_to_box), Off everything. GSR_CANVAS_CULLING=off|box|view
    /// sets the start value (for comparisons); the default is View.
    enum class Culling { Off, Box, View };
    /// Which rule Auto detail follows: Counted (the nodes actually in view, the default) or
    /// Uniform (the earlier rule, kept for comparisons: nodes / (zoom / fit zoom)^2, as if
    /// spread evenly, against the node budget; communities always the final partition).
    /// GSR_CANVAS_DETAIL=uniform|counted sets the start value.
    enum class DetailRule { Counted, Uniform };
    /// What lies under a point: a node (full detail) or a community of the level drawn
    /// (`level` indexes scene()->communities.levels; its last is the final partition).
    struct Pick {
        enum class Kind { None, Node, Community } kind = Kind::None;
        std::int64_t id = -1;
        int level = -1;
    };

    explicit GraphCanvas(QWidget* parent = nullptr);
    ~GraphCanvas() override;

    /// OpenGL 3.3 core, 4x no multisampling (exact, reproducible pixels), no vsync wait.
    static QSurfaceFormat surfaceFormat();
    /// Whether this platform can make a 3.3 core context; `why` says why not. Cached.
    static bool openGlAvailable(QString* why = nullptr);

    // ---- content --------------------------------------------------------------------------
    /// Shows `scene`: positions start at its DEF placement, else all at the origin.
    void setScene(std::shared_ptr<const CanvasScene> scene);
    const CanvasScene* scene() const { return scene_.get(); }
    std::shared_ptr<const CanvasScene> sharedScene() const { return scene_; }
    /// Shows `scene`, the current scene with other communities (with_communities): nodes,
    /// positions, view and selection stay; the colours and the community levels follow the
    /// new partition. A scene of another node count is shown as setScene does.
    void setCommunities(std::shared_ptr<const CanvasScene> scene);
    /// Layout positions (one per node; ignored while the placement view is shown).
    void setPositions(const std::vector<layout::Point2>& positions);
    /// The positions drawn now (layout or placement).
    const std::vector<Vec2>& positions() const { return positions_; }

    void setView(View view);
    View view() const { return view_; }
    bool hasPlacement() const { return scene_ && !scene_->placement.empty(); }

    void setColourMode(ColourMode mode);
    ColourMode colourMode() const { return colour_.mode; }
    void setCommunityLevel(int level);
    int communityLevel() const { return colour_.community_level; }
    /// Predicted signal probability per node (enables the prediction-error colours).
    void setPredictions(std::vector<float> predictions);
    /// The colour of each node as drawn.
    const std::vector<Rgba>& nodeColours() const { return node_colours_; }

    /// The runner whose snapshots move the nodes and whom the overlay's buttons drive.
    void setLayoutRunner(LayoutRunner* runner);
    LayoutRunner* layoutRunner() const { return runner_; }

    // ---- view -----------------------------------------------------------------------------
    const Camera& camera() const { return camera_; }
    void setCamera(const Camera& camera);
    void fitToView();
    void setDetail(Detail detail);
    Detail detail() const { return detail_; }
    /// Auto detail draws the nodes while at most this many are in view (Counted), or while
    /// nodes / (zoom / fit zoom)^2 stays at most this (Uniform). Also the size from which a
    /// graph is large: its full detail is then culled to the view.
    void setFullDetailBudget(std::size_t nodes);
    std::size_t fullDetailBudget() const { return budget_.nodes; }
    /// Community discs in view at most when zoomed in (Counted).
    void setCommunityDiscBudget(std::size_t discs);
    void setDetailRule(DetailRule rule);
    DetailRule detailRule() const { return detail_rule_; }
    /// Whether the next frame draws communities rather than nodes.
    bool drawsSuperGraph() const { return drawnLevel() >= 0; }
    /// The community level the next frame draws (an index of scene()->communities.levels,
    /// the last being the final partition), or -1 for the nodes.
    int drawnLevel() const { return detailChoice().level; }
    /// The choice behind it, with the counts it was made from.
    const DetailChoice& detailChoice() const;
    /// Community discs of the last aggregated upload (0 when the last frame drew nodes).
    std::size_t drawnCommunities() const { return agg_count_; }
    void setCulling(Culling culling);
    Culling culling() const { return culling_; }
    /// Lines and nodes of the last culled upload (0 when the last frame did not cull).
    std::size_t culledLines() const { return culled_lines_; }
    std::size_t culledNodes() const { return cull_nodes_.size(); }
    static constexpr double kStubPixels = 40; ///< length of the stub of a long edge
    static constexpr double kLinePixelsPerViewPixel = 1; ///< budget of culled line pixels
    /// The same for a finer community level (the frames of llvmpipe at hyp size, 4x-16x).
    static constexpr double kAggregateLinePixelsPerViewPixel = 0.2;
    void setOverlayVisible(bool on);
    bool overlayVisible() const { return overlay_visible_; }
    static constexpr float kNodeRadius = 4.5f; ///< logical pixels, full detail

    // ---- picking and selection ----------------------------------------------------------
    Pick pickAt(const QPointF& position) const;
    /// Node under `position` at full detail, else -1.
    std::int64_t nodeAt(const QPointF& position) const;
    QPointF screenPosition(std::uint32_t node) const;
    const std::vector<std::uint32_t>& selection() const { return selection_; }
    void setSelection(std::vector<std::uint32_t> nodes);
    /// Selects the nodes whose centres lie in the rectangle (logical pixels).
    void selectBox(const QRectF& rect);
    std::int64_t hoveredNode() const { return hovered_.kind == Pick::Kind::Node ? hovered_.id : -1; }

    // ---- overlay and timing -------------------------------------------------------------
    ImGuiContext* imguiContext() const { return imgui_; }
    /// GL states built (initializeGL) and released (releaseGL) so far: a new window's new
    /// context builds one more, after the old one's is released.
    int glStatesBuilt() const { return gl_built_; }
    int glStatesReleased() const { return gl_released_; }
    /// CPU time of the last paintGL, milliseconds.
    double lastPaintMs() const { return last_paint_ms_; }
    /// Frames per second over the last second of painting.
    double framesPerSecond() const { return fps_; }
    /// Renders one frame now and waits for the GL to finish; returns its wall time in ms.
    double renderFrameBlocking();
    /// The overlay's find field: its text and where it was drawn (empty before a frame).
    QString findText() const { return QString::fromUtf8(find_buffer_); }
    QRectF findFieldRect() const { return find_field_; }

signals:
    void hoveredChanged(qint64 node);
    void selectionChanged();
    void viewChanged();

protected:
    void initializeGL() override;
    void resizeGL(int w, int h) override;
    void paintGL() override;
    void mouseMoveEvent(QMouseEvent* event) override;
    void mousePressEvent(QMouseEvent* event) override;
    void mouseReleaseEvent(QMouseEvent* event) override;
    void wheelEvent(QWheelEvent* event) override;
    void keyPressEvent(QKeyEvent* event) override;
    void keyReleaseEvent(QKeyEvent* event) override;
    void leaveEvent(QEvent* event) override;
    void focusInEvent(QFocusEvent* event) override;
    void focusOutEvent(QFocusEvent* event) override;

private:
    struct GlState;

    /// Frees the GL objects and the ImGui renderer of the current context (the destructor,
    /// and the context's aboutToBeDestroyed when the canvas moves to another window).
    void releaseGL();
    void onSnapshot();
    void recolour();
    /// The levels, colours and aggregate caches of scene_'s communities, the final partition
    /// coloured.
    void resetCommunities();
    void uploadAggregate(int level);
    void markPositionsChanged();
    void uploadIfNeeded();
    void drawOverlay(); ///< canvas_overlay.cpp
    void drawHoverCard();
    void drawLegendWindow();
    void drawLayoutWindow();
    void findNode(const QString& text);
    void setHovered(const Pick& pick);
    void ensureGrid() const;
    /// Full detail of a graph above the budget: draw only what is in view.
    bool cullsToView() const;
    void uploadCulled();

    std::shared_ptr<const CanvasScene> scene_;
    std::vector<Vec2> layout_positions_; ///< the layout's, kept while the placement is shown
    std::vector<Vec2> placement_positions_;
    std::vector<Vec2> positions_; ///< drawn
    std::vector<Rgba> node_colours_;
    /// The overlay's legend, made with the colours (it counts every node: not once a frame).
    Legend legend_;
    std::vector<float> node_flags_; ///< 1 selected, 2 hovered
    std::vector<float> predictions_;
    ColourInputs colour_;
    View view_ = View::Layout;
    Detail detail_ = Detail::Auto;
    DetailRule detail_rule_ = DetailRule::Counted;
    DetailBudget budget_;
    /// The community hierarchy as drawable levels, and the choice of the last view asked.
    mutable AggregateLevels levels_;
    struct DetailKey {
        double cx = 0, cy = 0, zoom = 0, fit_zoom = 0;
        int width = 0, height = 0;
        std::uint64_t positions = ~0ull;
        Detail detail = Detail::Auto;
        DetailRule rule = DetailRule::Counted;
        std::size_t nodes = 0, discs = 0;
        bool operator==(const DetailKey&) const = default;
    };
    mutable DetailKey detail_key_;
    mutable DetailChoice detail_choice_;
    mutable Bounds bounds_; ///< of positions_, at bounds_version_
    mutable std::uint64_t bounds_version_ = ~0ull;
    std::uint64_t position_changes_ = 0; ///< counts markPositionsChanged
    /// What the aggregated buffers hold: a level, for these positions, within `rect`.
    struct AggregateKey {
        int level = -2;
        WorldRect rect{0, 0, -1, -1};
        double zoom = 0;
        int width = 0, height = 0;
        std::uint64_t positions = ~0ull;
        std::uint64_t colours = ~0ull; ///< colours_version_
    };
    AggregateKey agg_key_;
    /// community_colours of the level drawn, for colours_version_.
    std::vector<Rgba> level_colours_;
    int level_colours_level_ = -2;
    std::uint64_t level_colours_version_ = ~0ull;
    std::size_t agg_count_ = 0;

    Camera camera_;
    double fit_zoom_ = 1; ///< zoom at which the whole graph fits
    bool fitted_ = false;
    mutable NodeGrid grid_;
    mutable bool grid_dirty_ = true;

    std::vector<std::uint32_t> selection_;
    Pick hovered_;
    QPointF mouse_;
    bool mouse_inside_ = false;
    std::optional<QPointF> drag_from_; ///< pan or box select in progress
    bool box_selecting_ = false;
    bool dragged_ = false;
    char find_buffer_[128] = {};
    QRectF find_field_; ///< where the overlay drew the find field (logical pixels)
    bool auto_fit_ = true; ///< follow the layout until the user moves the view

    QPointer<LayoutRunner> runner_;

    /// What the culled geometry was made for: reused while the view stays inside `rect` at
    /// the same zoom (View), or is the same rectangle (Box).
    struct CullKey {
        WorldRect rect{0, 0, -1, -1};
        double zoom = 0;
        int width = 0, height = 0;
        std::uint64_t positions = 0;
        Culling culling = Culling::Off;
    };
    CullKey cull_key_;
    Culling culling_ = Culling::View;
    EdgeIncidence incidence_;
    bool incidence_dirty_ = true;
    std::vector<std::uint32_t> cull_nodes_; ///< the nodes of the culled buffers, ascending
    std::size_t culled_lines_ = 0;
    std::uint64_t culled_colours_ = 0, culled_flags_ = 0; ///< versions compacted
    std::uint64_t positions_version_ = 0, colours_version_ = 0, flags_version_ = 0;
    bool positions_dirty_ = true, colours_dirty_ = true, flags_dirty_ = true,
         edges_dirty_ = true;
    std::unique_ptr<GlState> gl_;
    int gl_built_ = 0, gl_released_ = 0;
    ImGuiContext* imgui_ = nullptr;
    std::unique_ptr<ImGuiQtBridge> bridge_;
    bool overlay_visible_ = true;
    bool overlay_ready_ = false;

    QElapsedTimer clock_;
    double last_frame_time_ = -1;
    double last_paint_ms_ = 0;
    double fps_ = 0;
    std::vector<double> frame_times_; ///< seconds of the recent frames
};

} // namespace gsr::views::canvas
