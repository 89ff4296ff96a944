#include "canvas/graph_canvas.hpp"

#include "canvas/imgui_qt_bridge.hpp"
#include "canvas/layout_runner.hpp"

#include <backends/imgui_impl_opengl3.h>
#include <imgui.h>

#include <QKeyEvent>
#include <QMouseEvent>
#include <QOffscreenSurface>
#include <QOpenGLContext>
#include <QOpenGLShaderProgram>
#include <QWheelEvent>

#include <algorithm>
#include <cmath>

namespace gsr::views::canvas {

namespace {

// Attribute slots shared by the programs.
constexpr GLuint kCorner = 0, kPosition = 1, kColour = 2, kRadius = 3, kFlags = 4;
constexpr GLuint kEdgePosition = 0, kEdgeAlpha = 1;
constexpr float kBackground[3] = {0.105f, 0.115f, 0.135f};
constexpr float kEdgeColour[4] = {0.60f, 0.65f, 0.75f, 0.30f};
constexpr float kSuperEdgeColour[4] = {0.70f, 0.74f, 0.82f, 0.75f};
constexpr double kFitMargin = 24;   ///< pixels free around the graph when fitted
constexpr double kKeyPanPixels = 48;

const char* const kNodeVertexShader = R"(#version 330 core
layout(location = 0) in vec2 a_corner;
layout(location = 1) in vec2 a_position;
layout(location = 2) in vec4 a_colour;
layout(location = 3) in float a_radius;
layout(location = 4) in float a_flags;
uniform vec2 u_center;
uniform float u_zoom;
uniform vec2 u_viewport;
out vec2 v_offset;
out vec4 v_colour;
out float v_radius;
out float v_flags;
void main()
{
    // Pixels from the viewport's centre, y up; the quad reaches one pixel past the disc so
    // that its anti-aliased rim is not cut.
    vec2 centre = (a_position - u_center) * u_zoom;
    float r = a_radius + (a_flags > 0.5 ? 2.0 : 0.0);
    v_offset = a_corner * (r + 1.0);
    v_colour = a_colour;
    v_radius = r;
    v_flags = a_flags;
    gl_Position = vec4((centre + v_offset) * 2.0 / u_viewport, 0.0, 1.0);
}
)";

const char* const kNodeFragmentShader = R"(#version 330 core
in vec2 v_offset;
in vec4 v_colour;
in float v_radius;
in float v_flags;
out vec4 frag_colour;
void main()
{
    float d = length(v_offset);
    float coverage = clamp(v_radius + 0.5 - d, 0.0, 1.0);
    if (coverage <= 0.0) discard;
    vec3 c = v_colour.rgb;
    if (v_flags > 1.5 && d > v_radius - 2.0) c = vec3(1.0, 0.83, 0.0);      // hovered
    else if (v_flags > 0.5 && d > v_radius - 2.0) c = vec3(1.0);            // selected
    else if (d > v_radius - 1.0) c *= 0.55;                                 // outline
    frag_colour = vec4(c, v_colour.a * coverage);
}
)";

const char* const kEdgeVertexShader = R"(#version 330 core
layout(location = 0) in vec2 a_position;
layout(location = 1) in float a_alpha;
uniform vec2 u_center;
uniform float u_zoom;
uniform vec2 u_viewport;
out float v_alpha;
void main()
{
    v_alpha = a_alpha;
    gl_Position = vec4((a_position - u_center) * u_zoom * 2.0 / u_viewport, 0.0, 1.0);
}
)";

const char* const kEdgeFragmentShader = R"(#version 330 core
in float v_alpha;
uniform vec4 u_colour;
out vec4 frag_colour;
void main() { frag_colour = vec4(u_colour.rgb, u_colour.a * v_alpha); }
)";

std::vector<Vec2> to_vec2(const std::vector<layout::Point2>& points)
{
    std::vector<Vec2> out(points.size());
    for (std::size_t i = 0; i < points.size(); ++i)
        out[i] = {float(points[i].x), float(points[i].y)};
    return out;
}

} // namespace

struct GraphCanvas::GlState {
    QOpenGLShaderProgram nodes, edges;
    GLuint vao_nodes = 0, vao_edges = 0, vao_super_nodes = 0, vao_super_edges = 0;
    GLuint quad = 0, positions = 0, colours = 0, flags = 0, edge_index = 0;
    GLuint super_positions = 0, super_colours = 0, super_radius = 0, super_edges = 0;
    // Zoomed into a large graph: only what is in view, compacted (culled) each time it changes.
    GLuint vao_cull_nodes = 0, vao_cull_edges = 0;
    GLuint cull_positions = 0, cull_colours = 0, cull_flags = 0, cull_edges = 0;
    GLsizei node_count = 0, edge_index_count = 0, super_count = 0, super_edge_vertices = 0;
    GLsizei cull_count = 0, cull_edge_vertices = 0;
    bool imgui_renderer = false;
};

GraphCanvas::GraphCanvas(QWidget* parent) : QOpenGLWidget(parent)
{
    setObjectName(QStringLiteral("graphCanvas"));
    setFormat(surfaceFormat());
    setMouseTracking(true);
    setFocusPolicy(Qt::StrongFocus);
    setMinimumSize(200, 150);
    const QByteArray culling = qgetenv("GSR_CANVAS_CULLING").toLower();
    if (culling == "off") culling_ = Culling::Off;
    else if (culling == "box") culling_ = Culling::Box;
    if (qgetenv("GSR_CANVAS_DETAIL").toLower() == "uniform") detail_rule_ = DetailRule::Uniform;
    // The ImGui context needs no GL: events can reach it before the first frame.
    ImGuiContext* previous = ImGui::GetCurrentContext();
    imgui_ = ImGui::CreateContext();
    ImGui::SetCurrentContext(imgui_);
    ImGui::StyleColorsDark();
    ImGui::GetStyle().WindowRounding = 4.0f;
    ImGui::GetStyle().Alpha = 0.94f;
    bridge_ = std::make_unique<ImGuiQtBridge>(imgui_);
    ImGui::SetCurrentContext(previous);
    clock_.start();
}

GraphCanvas::~GraphCanvas()
{
    releaseGL();
    // ~QOpenGLWidget destroys the context after this object's members are gone: its
    // aboutToBeDestroyed must not call releaseGL on what is left of the canvas.
    if (QOpenGLContext* c = context()) disconnect(c, nullptr, this, nullptr);
    if (ImGui::GetCurrentContext() == imgui_) ImGui::SetCurrentContext(nullptr);
    ImGui::DestroyContext(imgui_);
}

void GraphCanvas::releaseGL()
{
    if (!gl_) return;
    makeCurrent();
    if (gl_->imgui_renderer) {
        ImGui::SetCurrentContext(imgui_);
        ImGui_ImplOpenGL3_Shutdown();
    }
    const GLuint vaos[] = {gl_->vao_nodes,       gl_->vao_edges,      gl_->vao_super_nodes,
                           gl_->vao_super_edges, gl_->vao_cull_nodes, gl_->vao_cull_edges};
    glDeleteVertexArrays(6, vaos);
    const GLuint buffers[] = {gl_->quad,           gl_->positions,      gl_->colours,
                              gl_->flags,          gl_->edge_index,     gl_->super_positions,
                              gl_->super_colours,  gl_->super_radius,   gl_->super_edges,
                              gl_->cull_positions, gl_->cull_colours,   gl_->cull_flags,
                              gl_->cull_edges};
    glDeleteBuffers(13, buffers);
    gl_.reset();
    ++gl_released_;
    doneCurrent();
}

QSurfaceFormat GraphCanvas::surfaceFormat()
{
    QSurfaceFormat f;
    f.setRenderableType(QSurfaceFormat::OpenGL);
    f.setVersion(3, 3);
    f.setProfile(QSurfaceFormat::CoreProfile);
    f.setSamples(0);
    f.setSwapInterval(0);
    return f;
}

bool GraphCanvas::openGlAvailable(QString* why)
{
    static const QString reason = [] {
        QOpenGLContext context;
        context.setFormat(surfaceFormat());
        if (!context.create()) return tr("this display offers no OpenGL context");
        QOffscreenSurface surface;
        surface.setFormat(context.format());
        surface.create();
        if (!surface.isValid() || !context.makeCurrent(&surface))
            return tr("an OpenGL context could not be made current");
        const QSurfaceFormat f = context.format();
        context.doneCurrent();
        if (f.version() < qMakePair(3, 3))
            return tr("OpenGL 3.3 is needed, the display offers %1.%2")
                .arg(f.majorVersion())
                .arg(f.minorVersion());
        return QString();
    }();
    if (why) *why = reason;
    return reason.isEmpty();
}

// ---- content -------------------------------------------------------------------------------

void GraphCanvas::setScene(std::shared_ptr<const CanvasScene> scene)
{
    scene_ = std::move(scene);
    const std::size_t n = scene_ ? scene_->node_count() : 0;
    placement_positions_ = scene_ ? to_vec2(scene_->placement) : std::vector<Vec2>{};
    layout_positions_ = placement_positions_.empty() ? std::vector<Vec2>(n) : placement_positions_;
    if (view_ == View::Placement && placement_positions_.empty()) view_ = View::Layout;
    positions_ = view_ == View::Placement ? placement_positions_ : layout_positions_;
    node_flags_.assign(n, 0.0f);
    selection_.clear();
    hovered_ = {};
    predictions_.clear();
    colour_.predictions = {};
    edges_dirty_ = flags_dirty_ = true;
    incidence_dirty_ = true;
    auto_fit_ = true;
    resetCommunities();
    Q_EMIT selectionChanged();
}

void GraphCanvas::resetCommunities()
{
    colour_.community_level = -1;
    if (scene_) levels_.reset(scene_->communities, scene_->super_graph, scene_->level_graphs);
    else levels_ = {};
    agg_key_ = {};
    detail_key_ = {};
    level_colours_level_ = -2;
    recolour();
    markPositionsChanged(); // also the levels' centroids, which follow the communities
}

void GraphCanvas::setCommunities(std::shared_ptr<const CanvasScene> scene)
{
    if (!scene_ || !scene || scene->node_count() != scene_->node_count()) {
        setScene(std::move(scene));
        return;
    }
    scene_ = std::move(scene);
    if (hovered_.kind == Pick::Kind::Community) setHovered({}); // a node stays hovered
    resetCommunities();
    update();
}

void GraphCanvas::setPositions(const std::vector<layout::Point2>& positions)
{
    if (!scene_ || positions.size() != scene_->node_count()) return;
    layout_positions_ = to_vec2(positions);
    if (view_ != View::Layout) return;
    positions_ = layout_positions_;
    markPositionsChanged();
}

void GraphCanvas::markPositionsChanged()
{
    positions_dirty_ = true;
    grid_dirty_ = true;
    ++position_changes_;
    if (auto_fit_) fitToView();
    update();
}

void GraphCanvas::setView(View view)
{
    if (view == View::Placement && placement_positions_.empty()) return;
    if (view == view_) return;
    view_ = view;
    positions_ = view_ == View::Placement ? placement_positions_ : layout_positions_;
    auto_fit_ = true;
    markPositionsChanged();
    Q_EMIT viewChanged();
}

void GraphCanvas::setColourMode(ColourMode mode)
{
    colour_.mode = mode;
    recolour();
    update();
}

void GraphCanvas::setCommunityLevel(int level)
{
    colour_.community_level = level;
    recolour();
    update();
}

void GraphCanvas::setPredictions(std::vector<float> predictions)
{
    predictions_ = std::move(predictions);
    colour_.predictions = predictions_;
    recolour();
    update();
}

void GraphCanvas::recolour()
{
    node_colours_ = scene_ ? node_colours(*scene_, colour_) : std::vector<Rgba>{};
    legend_ = scene_ ? legend(*scene_, colour_) : Legend{};
    colours_dirty_ = true;
}

void GraphCanvas::setLayoutRunner(LayoutRunner* runner)
{
    if (runner_) disconnect(runner_, nullptr, this, nullptr);
    runner_ = runner;
    if (runner_) {
        connect(runner_, &LayoutRunner::snapshotReady, this, &GraphCanvas::onSnapshot);
        connect(runner_, &LayoutRunner::runningChanged, this, [this] { update(); });
    }
    update();
}

void GraphCanvas::onSnapshot()
{
    if (!runner_) return;
    const layout::LayoutSnapshot s = runner_->latest();
    setPositions(s.positions);
    update(); // the convergence figures change even in the placement view
}

// ---- view ----------------------------------------------------------------------------------

void GraphCanvas::setCamera(const Camera& camera)
{
    camera_ = camera;
    camera_.width = std::max(1, width());
    camera_.height = std::max(1, height());
    auto_fit_ = false;
    update();
}

void GraphCanvas::fitToView()
{
    camera_.width = std::max(1, width());
    camera_.height = std::max(1, height());
    camera_.fit(bounds_of(positions_), kFitMargin);
    fit_zoom_ = camera_.zoom;
    fitted_ = true;
    auto_fit_ = true;
    update();
}

void GraphCanvas::setDetail(Detail detail)
{
    detail_ = detail;
    update();
}

void GraphCanvas::setFullDetailBudget(std::size_t nodes)
{
    budget_.nodes = nodes;
    update();
}

void GraphCanvas::setCommunityDiscBudget(std::size_t discs)
{
    budget_.communities = discs;
    update();
}

void GraphCanvas::setDetailRule(DetailRule rule)
{
    detail_rule_ = rule;
    update();
}

const DetailChoice& GraphCanvas::detailChoice() const
{
    // Asked by every frame, pick and box: recomputed only when something it reads changed.
    const DetailKey key{camera_.cx,    camera_.cy,     camera_.zoom,      fit_zoom_,
                        camera_.width, camera_.height, position_changes_, detail_,
                        detail_rule_,  budget_.nodes,  budget_.communities};
    if (key == detail_key_) return detail_choice_;
    detail_key_ = key;
    DetailChoice& c = detail_choice_;
    c = {};
    if (!scene_ || scene_->super_graph.community_count() < 2 || levels_.size() == 0) return c;
    const int final_level = levels_.final_level();
    if (detail_ == Detail::Full) return c;
    if (detail_ == Detail::Communities) {
        c.level = final_level;
        return c;
    }
    const double magnification = std::max(1.0, camera_.zoom / std::max(fit_zoom_, 1e-12));
    const double n = double(scene_->node_count());
    if (detail_rule_ == DetailRule::Uniform) {
        // Nodes on screen as if spread evenly: the inverse square of the magnification.
        c.nodes_in_view = std::size_t(n / (magnification * magnification));
        if (n / (magnification * magnification) > double(budget_.nodes)) c.level = final_level;
        return c;
    }
    // Counted: the nodes in the cells the screen meets; all of them when it holds their box
    // (zoomed out, or while the layout moves with the view fitted: no grid to rebuild).
    const WorldRect view{camera_.world_x(0), camera_.world_y(camera_.height),
                         camera_.world_x(camera_.width), camera_.world_y(0)};
    if (bounds_version_ != position_changes_) {
        bounds_ = bounds_of(positions_);
        bounds_version_ = position_changes_;
    }
    std::size_t in_view = scene_->node_count();
    const WorldRect box{bounds_.x0, bounds_.y0, bounds_.x1, bounds_.y1};
    if (!bounds_.empty && !view.contains(box)) {
        ensureGrid();
        in_view = grid_.count_in_cells(view.x0, view.y0, view.x1, view.y1);
    }
    levels_.set_positions(positions_, position_changes_);
    c = choose_detail(in_view, levels_, view, magnification, budget_);
    return c;
}

void GraphCanvas::setOverlayVisible(bool on)
{
    overlay_visible_ = on;
    update();
}

// ---- picking -------------------------------------------------------------------------------

void GraphCanvas::ensureGrid() const
{
    if (!grid_dirty_) return;
    grid_.build(positions_);
    grid_dirty_ = false;
}

GraphCanvas::Pick GraphCanvas::pickAt(const QPointF& position) const
{
    Pick pick;
    if (!scene_) return pick;
    const double wx = camera_.world_x(position.x()), wy = camera_.world_y(position.y());
    if (const int level = drawnLevel(); level >= 0) {
        // The discs drawn: the whole level, or those near the view (which every disc
        // reaching the screen is); the highest id on top.
        levels_.set_positions(positions_, position_changes_);
        const std::int64_t c = levels_.pick(level, wx, wy, camera_.zoom);
        if (c >= 0) {
            pick.kind = Pick::Kind::Community;
            pick.id = c;
            pick.level = level;
        }
        return pick;
    }
    ensureGrid();
    const std::int64_t v = grid_.topmost_within(wx, wy, kNodeRadius / camera_.zoom);
    if (v >= 0) {
        pick.kind = Pick::Kind::Node;
        pick.id = v;
    }
    return pick;
}

std::int64_t GraphCanvas::nodeAt(const QPointF& position) const
{
    const Pick p = pickAt(position);
    return p.kind == Pick::Kind::Node ? p.id : -1;
}

QPointF GraphCanvas::screenPosition(std::uint32_t node) const
{
    if (node >= positions_.size()) return {};
    return {camera_.screen_x(positions_[node].x), camera_.screen_y(positions_[node].y)};
}

void GraphCanvas::setSelection(std::vector<std::uint32_t> nodes)
{
    std::sort(nodes.begin(), nodes.end());
    nodes.erase(std::unique(nodes.begin(), nodes.end()), nodes.end());
    const std::size_t n = scene_ ? scene_->node_count() : 0;
    nodes.erase(std::remove_if(nodes.begin(), nodes.end(), [n](std::uint32_t v) { return v >= n; }),
                nodes.end());
    for (std::uint32_t v : selection_) node_flags_[v] = 0.0f;
    selection_ = std::move(nodes);
    for (std::uint32_t v : selection_) node_flags_[v] = 1.0f;
    if (hoveredNode() >= 0) node_flags_[std::size_t(hoveredNode())] = 2.0f;
    flags_dirty_ = true;
    update();
    Q_EMIT selectionChanged();
}

void GraphCanvas::selectBox(const QRectF& rect)
{
    const QRectF r = rect.normalized();
    ensureGrid();
    const double x0 = camera_.world_x(r.left()), x1 = camera_.world_x(r.right());
    const double y0 = camera_.world_y(r.bottom()), y1 = camera_.world_y(r.top());
    if (const int level = drawnLevel(); level >= 0) {
        // Boxing communities selects all their nodes.
        levels_.set_positions(positions_, position_changes_);
        const auto centroids = levels_.centroids(level);
        std::vector<std::uint8_t> boxed(centroids.size(), 0);
        for (std::size_t c = 0; c < centroids.size(); ++c) {
            const Vec2 p = centroids[c];
            boxed[c] = p.x >= x0 && p.x <= x1 && p.y >= y0 && p.y <= y1;
        }
        std::vector<std::uint32_t> nodes;
        const auto m = levels_.membership(level);
        for (std::size_t v = 0; v < m.size(); ++v)
            if (m[v] < boxed.size() && boxed[m[v]]) nodes.push_back(std::uint32_t(v));
        setSelection(std::move(nodes));
        return;
    }
    setSelection(grid_.inside(x0, y0, x1, y1));
}

void GraphCanvas::setHovered(const Pick& pick)
{
    if (pick.kind == hovered_.kind && pick.id == hovered_.id && pick.level == hovered_.level)
        return;
    if (hovered_.kind == Pick::Kind::Node && std::size_t(hovered_.id) < node_flags_.size()) {
        const auto v = std::uint32_t(hovered_.id);
        node_flags_[v] = std::binary_search(selection_.begin(), selection_.end(), v) ? 1.0f : 0.0f;
        flags_dirty_ = true;
    }
    hovered_ = pick;
    if (hovered_.kind == Pick::Kind::Node) {
        node_flags_[std::size_t(hovered_.id)] = 2.0f;
        flags_dirty_ = true;
    }
    Q_EMIT hoveredChanged(hoveredNode());
    update();
}

// ---- GL ------------------------------------------------------------------------------------

void GraphCanvas::initializeGL()
{
    // Called again with a new context when the canvas moves to another window: the old
    // context's objects and the ImGui renderer go with it (aboutToBeDestroyed), and are
    // built afresh here.
    connect(context(), &QOpenGLContext::aboutToBeDestroyed, this, &GraphCanvas::releaseGL,
            Qt::UniqueConnection);
    if (gl_) { // the old context went without a word: start the renderer over
        if (gl_->imgui_renderer) {
            ImGui::SetCurrentContext(imgui_);
            ImGui_ImplOpenGL3_Shutdown();
        }
        gl_.reset();
    }
    initializeOpenGLFunctions();
    gl_ = std::make_unique<GlState>();
    ++gl_built_;
    auto build = [this](QOpenGLShaderProgram& p, const char* vs, const char* fs) {
        if (!p.addShaderFromSourceCode(QOpenGLShader::Vertex, vs) ||
            !p.addShaderFromSourceCode(QOpenGLShader::Fragment, fs) || !p.link())
            qWarning("graph canvas: shader: %s", qPrintable(p.log()));
    };
    build(gl_->nodes, kNodeVertexShader, kNodeFragmentShader);
    build(gl_->edges, kEdgeVertexShader, kEdgeFragmentShader);

    GLuint vaos[6], buffers[13];
    glGenVertexArrays(6, vaos);
    glGenBuffers(13, buffers);
    gl_->vao_nodes = vaos[0], gl_->vao_edges = vaos[1];
    gl_->vao_super_nodes = vaos[2], gl_->vao_super_edges = vaos[3];
    gl_->quad = buffers[0], gl_->positions = buffers[1], gl_->colours = buffers[2];
    gl_->flags = buffers[3], gl_->edge_index = buffers[4], gl_->super_positions = buffers[5];
    gl_->super_colours = buffers[6], gl_->super_radius = buffers[7], gl_->super_edges = buffers[8];
    gl_->vao_cull_nodes = vaos[4], gl_->vao_cull_edges = vaos[5];
    gl_->cull_positions = buffers[9], gl_->cull_colours = buffers[10];
    gl_->cull_flags = buffers[11], gl_->cull_edges = buffers[12];

    const float corners[] = {-1, -1, 1, -1, -1, 1, 1, 1};
    glBindBuffer(GL_ARRAY_BUFFER, gl_->quad);
    glBufferData(GL_ARRAY_BUFFER, sizeof corners, corners, GL_STATIC_DRAW);

    auto instanced = [this](GLuint slot, GLuint buffer, GLint size, GLenum type, bool normalise) {
        glBindBuffer(GL_ARRAY_BUFFER, buffer);
        glEnableVertexAttribArray(slot);
        glVertexAttribPointer(slot, size, type, normalise ? GL_TRUE : GL_FALSE, 0, nullptr);
        glVertexAttribDivisor(slot, 1);
    };
    auto corner = [this] {
        glBindBuffer(GL_ARRAY_BUFFER, gl_->quad);
        glEnableVertexAttribArray(kCorner);
        glVertexAttribPointer(kCorner, 2, GL_FLOAT, GL_FALSE, 0, nullptr);
        glVertexAttribDivisor(kCorner, 0);
    };
    // Full detail: radius is a constant attribute (set per draw), flags per node.
    glBindVertexArray(gl_->vao_nodes);
    corner();
    instanced(kPosition, gl_->positions, 2, GL_FLOAT, false);
    instanced(kColour, gl_->colours, 4, GL_UNSIGNED_BYTE, true);
    instanced(kFlags, gl_->flags, 1, GL_FLOAT, false);
    // Super-graph: radius per community, no flags.
    glBindVertexArray(gl_->vao_super_nodes);
    corner();
    instanced(kPosition, gl_->super_positions, 2, GL_FLOAT, false);
    instanced(kColour, gl_->super_colours, 4, GL_UNSIGNED_BYTE, true);
    instanced(kRadius, gl_->super_radius, 1, GL_FLOAT, false);
    glBindVertexArray(gl_->vao_cull_nodes);
    corner();
    instanced(kPosition, gl_->cull_positions, 2, GL_FLOAT, false);
    instanced(kColour, gl_->cull_colours, 4, GL_UNSIGNED_BYTE, true);
    instanced(kFlags, gl_->cull_flags, 1, GL_FLOAT, false);
    // Edges share the node position buffer through an index buffer.
    glBindVertexArray(gl_->vao_edges);
    glBindBuffer(GL_ARRAY_BUFFER, gl_->positions);
    glEnableVertexAttribArray(kEdgePosition);
    glVertexAttribPointer(kEdgePosition, 2, GL_FLOAT, GL_FALSE, 0, nullptr);
    glBindBuffer(GL_ELEMENT_ARRAY_BUFFER, gl_->edge_index);
    glBindVertexArray(gl_->vao_super_edges);
    glBindBuffer(GL_ARRAY_BUFFER, gl_->super_edges);
    glEnableVertexAttribArray(kEdgePosition);
    glVertexAttribPointer(kEdgePosition, 2, GL_FLOAT, GL_FALSE, 3 * sizeof(float), nullptr);
    glEnableVertexAttribArray(kEdgeAlpha);
    glVertexAttribPointer(kEdgeAlpha, 1, GL_FLOAT, GL_FALSE, 3 * sizeof(float),
                          reinterpret_cast<const void*>(2 * sizeof(float)));
    glBindVertexArray(gl_->vao_cull_edges); // x, y, alpha per endpoint (stubs fade out)
    glBindBuffer(GL_ARRAY_BUFFER, gl_->cull_edges);
    glEnableVertexAttribArray(kEdgePosition);
    glVertexAttribPointer(kEdgePosition, 2, GL_FLOAT, GL_FALSE, 3 * sizeof(float), nullptr);
    glEnableVertexAttribArray(kEdgeAlpha);
    glVertexAttribPointer(kEdgeAlpha, 1, GL_FLOAT, GL_FALSE, 3 * sizeof(float),
                          reinterpret_cast<const void*>(2 * sizeof(float)));
    glBindVertexArray(0);
    glBindBuffer(GL_ARRAY_BUFFER, 0);

    ImGui::SetCurrentContext(imgui_);
    gl_->imgui_renderer = ImGui_ImplOpenGL3_Init("#version 330 core");
    if (!gl_->imgui_renderer) qWarning("graph canvas: the ImGui OpenGL3 renderer did not start");
    positions_dirty_ = colours_dirty_ = flags_dirty_ = edges_dirty_ = true;
    agg_key_ = {};
}

void GraphCanvas::resizeGL(int, int)
{
    camera_.width = std::max(1, width());
    camera_.height = std::max(1, height());
    if (auto_fit_) fitToView();
}

void GraphCanvas::uploadIfNeeded()
{
    const auto n = GLsizei(positions_.size());
    if (positions_dirty_) {
        ++positions_version_;
        glBindBuffer(GL_ARRAY_BUFFER, gl_->positions);
        if (gl_->node_count != n)
            glBufferData(GL_ARRAY_BUFFER, n * sizeof(Vec2), positions_.data(), GL_DYNAMIC_DRAW);
        else
            glBufferSubData(GL_ARRAY_BUFFER, 0, n * sizeof(Vec2), positions_.data());
        gl_->node_count = n;
        positions_dirty_ = false;
    }
    if (colours_dirty_) {
        ++colours_version_;
        glBindBuffer(GL_ARRAY_BUFFER, gl_->colours);
        glBufferData(GL_ARRAY_BUFFER, node_colours_.size() * sizeof(Rgba), node_colours_.data(),
                     GL_STATIC_DRAW);
        colours_dirty_ = false;
    }
    if (flags_dirty_) {
        ++flags_version_;
        glBindBuffer(GL_ARRAY_BUFFER, gl_->flags);
        glBufferData(GL_ARRAY_BUFFER, node_flags_.size() * sizeof(float), node_flags_.data(),
                     GL_DYNAMIC_DRAW);
        flags_dirty_ = false;
    }
    if (edges_dirty_) {
        const std::vector<std::uint32_t> none;
        const auto& e = scene_ ? scene_->edge_nodes : none;
        glBindVertexArray(gl_->vao_edges);
        glBufferData(GL_ELEMENT_ARRAY_BUFFER, e.size() * sizeof(std::uint32_t), e.data(),
                     GL_STATIC_DRAW);
        glBindVertexArray(0);
        gl_->edge_index_count = GLsizei(e.size());
        edges_dirty_ = false;
    }
    glBindBuffer(GL_ARRAY_BUFFER, 0);
}

void GraphCanvas::uploadAggregate(int level)
{
    // The final partition (the overview) is drawn whole, as few discs and edges as it has;
    // a finer level only near the view, its long edges as stubs (as the nodes' are).
    const bool whole = level == levels_.final_level();
    const double r = (levels_.largest_radius(level) + 3) / camera_.zoom;
    const WorldRect view{camera_.world_x(0) - r, camera_.world_y(camera_.height) - r,
                         camera_.world_x(camera_.width) + r, camera_.world_y(0) + r};
    const AggregateKey& k = agg_key_;
    if (k.level == level && k.positions == position_changes_ && k.colours == colours_version_ &&
        (whole || (k.zoom == camera_.zoom && k.width == camera_.width &&
                   k.height == camera_.height && k.rect.contains(view))))
        return;
    levels_.set_positions(positions_, position_changes_);
    AggregateKey key{level,         view,           camera_.zoom,      camera_.width,
                     camera_.height, position_changes_, colours_version_};
    const auto centroids = levels_.centroids(level);
    std::vector<std::uint32_t> ids;
    std::vector<float> edge_vertices;
    if (whole) {
        ids.resize(centroids.size());
        for (std::size_t c = 0; c < ids.size(); ++c) ids[c] = std::uint32_t(c);
        const SuperGraph& g = levels_.graph(level);
        const auto alpha = levels_.edge_alpha(level);
        edge_vertices.reserve(g.edges.size() * 6);
        for (std::size_t e = 0; e < g.edges.size() && e < alpha.size(); ++e)
            for (const std::uint32_t c : {g.edges[e].a, g.edges[e].b}) {
                edge_vertices.push_back(centroids[c].x);
                edge_vertices.push_back(centroids[c].y);
                edge_vertices.push_back(alpha[e]);
            }
    } else {
        // A sixteenth of the view more on every side, so that a small pan reuses it.
        const double sx = (view.x1 - view.x0) / 16, sy = (view.y1 - view.y0) / 16;
        key.rect = {view.x0 - sx, view.y0 - sy, view.x1 + sx, view.y1 + sy};
        CullOptions o;
        o.zoom = camera_.zoom;
        o.long_edge_px = std::max(camera_.width, camera_.height);
        o.stub_px = kStubPixels;
        // Less than the nodes' screen of lines: the discs say which communities are there.
        o.line_pixel_budget = kAggregateLinePixelsPerViewPixel * camera_.width * camera_.height;
        CulledView culled = levels_.cull(level, key.rect, o);
        ids = std::move(culled.nodes);
        edge_vertices = std::move(culled.edge_vertices);
    }
    agg_key_ = key;
    // Community mode: the final community's colour (zooming in keeps the overview's colours);
    // other modes, and a hierarchy level chosen in the legend: the mean of the members'
    // colours (community_colours).
    if (level_colours_level_ != level || level_colours_version_ != colours_version_) {
        level_colours_ = community_colours(levels_.membership(level),
                                           levels_.community_count(level), levels_.top(level),
                                           node_colours_, colour_);
        level_colours_level_ = level;
        level_colours_version_ = colours_version_;
    }
    const auto radius = levels_.radius(level);
    std::vector<Vec2> pos(ids.size());
    std::vector<Rgba> col(ids.size());
    std::vector<float> rad(ids.size());
    for (std::size_t i = 0; i < ids.size(); ++i) {
        pos[i] = centroids[ids[i]];
        col[i] = level_colours_[ids[i]];
        rad[i] = radius[ids[i]];
    }
    auto upload = [this](GLuint buffer, const void* data, std::size_t bytes) {
        glBindBuffer(GL_ARRAY_BUFFER, buffer);
        glBufferData(GL_ARRAY_BUFFER, GLsizeiptr(bytes), data, GL_DYNAMIC_DRAW);
    };
    upload(gl_->super_positions, pos.data(), pos.size() * sizeof(Vec2));
    upload(gl_->super_colours, col.data(), col.size() * sizeof(Rgba));
    upload(gl_->super_radius, rad.data(), rad.size() * sizeof(float));
    upload(gl_->super_edges, edge_vertices.data(), edge_vertices.size() * sizeof(float));
    glBindBuffer(GL_ARRAY_BUFFER, 0);
    gl_->super_count = GLsizei(ids.size());
    gl_->super_edge_vertices = GLsizei(edge_vertices.size() / 3);
    agg_count_ = ids.size();
}

bool GraphCanvas::cullsToView() const
{
    return culling_ != Culling::Off && scene_ && scene_->node_count() > budget_.nodes &&
           !drawsSuperGraph();
}

void GraphCanvas::setCulling(Culling culling)
{
    culling_ = culling;
    cull_key_ = {};
    update();
}

void GraphCanvas::uploadCulled()
{
    // The world rectangle in view, widened by a disc so that rims at the border are drawn.
    const double r = (kNodeRadius + 3) / camera_.zoom;
    const WorldRect view{camera_.world_x(0) - r, camera_.world_y(camera_.height) - r,
                         camera_.world_x(camera_.width) + r, camera_.world_y(0) + r};
    const CullKey& k = cull_key_;
    const bool same = k.culling == culling_ && k.positions == positions_version_ &&
                      k.width == camera_.width && k.height == camera_.height;
    const bool reuse =
        same && (culling_ == Culling::View
                     ? k.zoom == camera_.zoom && k.rect.contains(view)
                     : k.rect.x0 == view.x0 && k.rect.y0 == view.y0 && k.rect.x1 == view.x1 &&
                           k.rect.y1 == view.y1);
    auto upload = [this](GLuint buffer, const void* data, std::size_t bytes) {
        glBindBuffer(GL_ARRAY_BUFFER, buffer);
        glBufferData(GL_ARRAY_BUFFER, GLsizeiptr(bytes), data, GL_STREAM_DRAW);
    };
    if (!reuse) {
        CullKey key{view, camera_.zoom, camera_.width, camera_.height, positions_version_,
                    culling_};
        CulledView culled;
        if (culling_ == Culling::View) {
            // Cull a sixteenth of the view more on every side, so that a small pan reuses it.
            const double sx = (view.x1 - view.x0) / 16, sy = (view.y1 - view.y0) / 16;
            key.rect = {view.x0 - sx, view.y0 - sy, view.x1 + sx, view.y1 + sy};
            ensureGrid();
            if (incidence_dirty_) {
                incidence_.build(positions_.size(), scene_->edge_nodes);
                incidence_dirty_ = false;
            }
            CullOptions o;
            o.zoom = camera_.zoom;
            o.long_edge_px = std::max(camera_.width, camera_.height);
            o.stub_px = kStubPixels;
            // About one screen of line pixels: llvmpipe's cost of a frame is its pixels.
            o.line_pixel_budget = kLinePixelsPerViewPixel * camera_.width * camera_.height;
            culled = cull_to_view(grid_, positions_, scene_->edge_nodes, incidence_, key.rect, o);
        } else {
            culled = cull_to_box(positions_, scene_->edge_nodes, view);
        }
        cull_key_ = key;
        cull_nodes_ = std::move(culled.nodes);
        std::vector<Vec2> pos(cull_nodes_.size());
        for (std::size_t i = 0; i < cull_nodes_.size(); ++i) pos[i] = positions_[cull_nodes_[i]];
        upload(gl_->cull_positions, pos.data(), pos.size() * sizeof(Vec2));
        upload(gl_->cull_edges, culled.edge_vertices.data(),
               culled.edge_vertices.size() * sizeof(float));
        gl_->cull_count = GLsizei(cull_nodes_.size());
        gl_->cull_edge_vertices = GLsizei(culled.edge_vertices.size() / 3);
        culled_lines_ = culled.line_count();
        culled_colours_ = culled_flags_ = 0; // recompact both for the new node list
    }
    // Colours and flags (hover, selection) change alone: recompact only the nodes in view.
    if (culled_colours_ != colours_version_) {
        std::vector<Rgba> col(cull_nodes_.size());
        for (std::size_t i = 0; i < cull_nodes_.size(); ++i)
            col[i] = node_colours_[cull_nodes_[i]];
        upload(gl_->cull_colours, col.data(), col.size() * sizeof(Rgba));
        culled_colours_ = colours_version_;
    }
    if (culled_flags_ != flags_version_) {
        std::vector<float> flags(cull_nodes_.size());
        for (std::size_t i = 0; i < cull_nodes_.size(); ++i)
            flags[i] = node_flags_[cull_nodes_[i]];
        upload(gl_->cull_flags, flags.data(), flags.size() * sizeof(float));
        culled_flags_ = flags_version_;
    }
    glBindBuffer(GL_ARRAY_BUFFER, 0);
}

void GraphCanvas::paintGL()
{
    QElapsedTimer paint_timer;
    paint_timer.start();
    const double now = clock_.nsecsElapsed() * 1e-9;
    const double dt = last_frame_time_ < 0 ? 1.0 / 60.0 : now - last_frame_time_;
    last_frame_time_ = now;
    frame_times_.push_back(now);
    while (!frame_times_.empty() && frame_times_.front() < now - 1.0)
        frame_times_.erase(frame_times_.begin());
    fps_ = frame_times_.size() > 1
               ? (frame_times_.size() - 1) / std::max(1e-6, frame_times_.back() - frame_times_.front())
               : 0.0;

    camera_.width = std::max(1, width());
    camera_.height = std::max(1, height());
    const qreal dpr = devicePixelRatioF();
    glViewport(0, 0, GLsizei(width() * dpr), GLsizei(height() * dpr));
    glClearColor(kBackground[0], kBackground[1], kBackground[2], 1.0f);
    glClear(GL_COLOR_BUFFER_BIT);
    if (!gl_) return;
    glDisable(GL_DEPTH_TEST);
    glDisable(GL_CULL_FACE);
    glDisable(GL_SCISSOR_TEST);
    glEnable(GL_BLEND);
    glBlendFuncSeparate(GL_SRC_ALPHA, GL_ONE_MINUS_SRC_ALPHA, GL_ONE, GL_ONE_MINUS_SRC_ALPHA);

    if (scene_) {
        uploadIfNeeded();
        const int level = drawnLevel();
        const bool super = level >= 0;
        const bool culled = cullsToView();
        if (super) uploadAggregate(level);
        else agg_count_ = 0;
        if (culled) {
            uploadCulled();
        } else {
            culled_lines_ = 0;
            cull_nodes_.clear();
            cull_key_ = {};
        }
        // Uniforms in float: positions are relative to the centre before the zoom.
        auto set_view = [this](QOpenGLShaderProgram& p) {
            p.setUniformValue("u_center", QVector2D(float(camera_.cx), float(camera_.cy)));
            p.setUniformValue("u_zoom", float(camera_.zoom));
            p.setUniformValue("u_viewport", QVector2D(float(camera_.width), float(camera_.height)));
        };
        gl_->edges.bind();
        set_view(gl_->edges);
        if (super) {
            gl_->edges.setUniformValue("u_colour", QVector4D(kSuperEdgeColour[0], kSuperEdgeColour[1],
                                                             kSuperEdgeColour[2], kSuperEdgeColour[3]));
            glBindVertexArray(gl_->vao_super_edges);
            glDrawArrays(GL_LINES, 0, gl_->super_edge_vertices);
        } else {
            gl_->edges.setUniformValue("u_colour", QVector4D(kEdgeColour[0], kEdgeColour[1],
                                                             kEdgeColour[2], kEdgeColour[3]));
            glVertexAttrib1f(kEdgeAlpha, 1.0f); // no array: every edge fully opaque
            if (culled) {
                glBindVertexArray(gl_->vao_cull_edges);
                glDrawArrays(GL_LINES, 0, gl_->cull_edge_vertices);
            } else {
                glBindVertexArray(gl_->vao_edges);
                glDrawElements(GL_LINES, gl_->edge_index_count, GL_UNSIGNED_INT, nullptr);
            }
        }
        gl_->nodes.bind();
        set_view(gl_->nodes);
        if (super) {
            glBindVertexArray(gl_->vao_super_nodes);
            glVertexAttrib1f(kFlags, 0.0f);
            glDrawArraysInstanced(GL_TRIANGLE_STRIP, 0, 4, gl_->super_count);
        } else {
            glBindVertexArray(culled ? gl_->vao_cull_nodes : gl_->vao_nodes);
            glVertexAttrib1f(kRadius, kNodeRadius);
            glDrawArraysInstanced(GL_TRIANGLE_STRIP, 0, 4,
                                  culled ? gl_->cull_count : gl_->node_count);
        }
        glBindVertexArray(0);
        gl_->nodes.release();
    }

    if (gl_->imgui_renderer) {
        ImGui::SetCurrentContext(imgui_);
        bridge_->newFrame(size(), dpr, dt);
        ImGui_ImplOpenGL3_NewFrame();
        ImGui::NewFrame();
        drawOverlay();
        ImGui::Render();
        ImGui_ImplOpenGL3_RenderDrawData(ImGui::GetDrawData());
        overlay_ready_ = true;
    }
    last_paint_ms_ = paint_timer.nsecsElapsed() * 1e-6;
}

double GraphCanvas::renderFrameBlocking()
{
    QElapsedTimer t;
    t.start();
    makeCurrent();
    paintGL();
    glFinish();
    doneCurrent();
    return t.nsecsElapsed() * 1e-6;
}

// ---- input ---------------------------------------------------------------------------------

void GraphCanvas::mouseMoveEvent(QMouseEvent* event)
{
    const QPointF pos = event->position();
    const bool imgui = bridge_->mouseMove(pos);
    const QPointF delta = pos - mouse_;
    mouse_ = pos;
    mouse_inside_ = true;
    if (drag_from_) {
        if ((pos - *drag_from_).manhattanLength() > 3) dragged_ = true;
        if (!box_selecting_ && dragged_) {
            camera_.pan_pixels(delta.x(), delta.y());
            auto_fit_ = false;
        }
        update();
        return;
    }
    setHovered(imgui ? Pick{} : pickAt(pos));
    update(); // the overlay's hover card and ImGui's own hover follow the mouse
}

void GraphCanvas::mousePressEvent(QMouseEvent* event)
{
    mouse_ = event->position();
    if (bridge_->mousePress(*event)) {
        update();
        return;
    }
    if (event->button() == Qt::LeftButton || event->button() == Qt::MiddleButton) {
        drag_from_ = event->position();
        box_selecting_ = event->button() == Qt::LeftButton &&
                         event->modifiers().testFlag(Qt::ShiftModifier);
        dragged_ = false;
    }
    update();
}

void GraphCanvas::mouseReleaseEvent(QMouseEvent* event)
{
    bridge_->mouseRelease(*event);
    if (drag_from_ && event->button() != Qt::RightButton) {
        if (box_selecting_ && dragged_) {
            selectBox(QRectF(*drag_from_, event->position()));
        } else if (!dragged_ && event->button() == Qt::LeftButton) {
            const Pick p = pickAt(event->position());
            if (p.kind == Pick::Kind::Node) setSelection({std::uint32_t(p.id)});
            else if (p.kind == Pick::Kind::Community) {
                std::vector<std::uint32_t> nodes;
                const auto m = levels_.membership(p.level);
                for (std::size_t v = 0; v < m.size(); ++v)
                    if (m[v] == std::uint32_t(p.id)) nodes.push_back(std::uint32_t(v));
                setSelection(std::move(nodes));
            } else setSelection({});
        }
        drag_from_.reset();
        box_selecting_ = dragged_ = false;
    }
    update();
}

void GraphCanvas::wheelEvent(QWheelEvent* event)
{
    if (bridge_->wheel(*event)) {
        update();
        return;
    }
    const double notches = event->angleDelta().y() / 120.0;
    camera_.zoom_at(event->position().x(), event->position().y(), std::pow(1.25, notches));
    auto_fit_ = false;
    update();
    event->accept();
}

void GraphCanvas::keyPressEvent(QKeyEvent* event)
{
    if (bridge_->keyPress(*event)) {
        update();
        return;
    }
    const double cx = width() / 2.0, cy = height() / 2.0;
    switch (event->key()) {
    case Qt::Key_Plus:
    case Qt::Key_Equal: camera_.zoom_at(cx, cy, 1.25); break;
    case Qt::Key_Minus: camera_.zoom_at(cx, cy, 0.8); break;
    case Qt::Key_Left: camera_.pan_pixels(kKeyPanPixels, 0); break;
    case Qt::Key_Right: camera_.pan_pixels(-kKeyPanPixels, 0); break;
    case Qt::Key_Up: camera_.pan_pixels(0, kKeyPanPixels); break;
    case Qt::Key_Down: camera_.pan_pixels(0, -kKeyPanPixels); break;
    case Qt::Key_0:
    case Qt::Key_Home: fitToView(); update(); return;
    case Qt::Key_Escape: setSelection({}); return;
    default: QOpenGLWidget::keyPressEvent(event); update(); return;
    }
    auto_fit_ = false;
    update();
}

void GraphCanvas::keyReleaseEvent(QKeyEvent* event)
{
    bridge_->keyRelease(*event);
    update();
    QOpenGLWidget::keyReleaseEvent(event);
}

void GraphCanvas::leaveEvent(QEvent* event)
{
    bridge_->mouseLeave();
    mouse_inside_ = false;
    setHovered({});
    QOpenGLWidget::leaveEvent(event);
}

void GraphCanvas::focusInEvent(QFocusEvent* event)
{
    bridge_->focusChanged(true);
    QOpenGLWidget::focusInEvent(event);
}

void GraphCanvas::focusOutEvent(QFocusEvent* event)
{
    bridge_->focusChanged(false);
    QOpenGLWidget::focusOutEvent(event);
}

void GraphCanvas::findNode(const QString& text)
{
    if (!scene_ || text.isEmpty()) return;
    const std::string needle = text.toStdString();
    std::int64_t found = -1;
    for (std::size_t v = 0; v < scene_->node_count() && found < 0; ++v)
        if (scene_->node_name(v) == needle) found = std::int64_t(v);
    for (std::size_t v = 0; v < scene_->node_count() && found < 0; ++v)
        if (scene_->node_name(v).find(needle) != std::string::npos) found = std::int64_t(v);
    if (found < 0) return;
    setSelection({std::uint32_t(found)});
    camera_.cx = positions_[std::size_t(found)].x;
    camera_.cy = positions_[std::size_t(found)].y;
    auto_fit_ = false;
    update();
}

} // namespace gsr::views::canvas
