// The Dear ImGui overlay of GraphCanvas: immediate mode, a function of the canvas state each
// frame. Legend and colour mode at the top left, layout controls at the top right, the hover
// card beside the mouse, the frame rate at the bottom left, the selection box while dragging.
#include "canvas/graph_canvas.hpp"
#include "canvas/layout_runner.hpp"

#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <string>

namespace gsr::views::canvas {

namespace {

ImU32 to_imgui(const Rgba& c) { return IM_COL32(c.r, c.g, c.b, c.a); }

constexpr ImGuiWindowFlags kPanelFlags = ImGuiWindowFlags_AlwaysAutoResize |
                                         ImGuiWindowFlags_NoSavedSettings |
                                         ImGuiWindowFlags_NoFocusOnAppearing;

} // namespace

void GraphCanvas::drawOverlay()
{
    if (drag_from_ && box_selecting_ && dragged_) {
        ImDrawList* dl = ImGui::GetForegroundDrawList();
        const ImVec2 a(float(drag_from_->x()), float(drag_from_->y()));
        const ImVec2 b(float(mouse_.x()), float(mouse_.y()));
        dl->AddRectFilled(ImVec2(std::min(a.x, b.x), std::min(a.y, b.y)),
                          ImVec2(std::max(a.x, b.x), std::max(a.y, b.y)), IM_COL32(90, 150, 255, 40));
        dl->AddRect(ImVec2(std::min(a.x, b.x), std::min(a.y, b.y)),
                    ImVec2(std::max(a.x, b.x), std::max(a.y, b.y)), IM_COL32(90, 150, 255, 200));
    }
    if (!overlay_visible_) return;
    drawLegendWindow();
    drawLayoutWindow();
    drawHoverCard();

    // Frame rate: frames painted over the last second, and the CPU time of the last one.
    ImGui::SetNextWindowPos(ImVec2(8, float(height()) - 8), ImGuiCond_Always, ImVec2(0, 1));
    ImGui::SetNextWindowBgAlpha(0.6f);
    ImGui::Begin("##frame rate", nullptr, kPanelFlags | ImGuiWindowFlags_NoDecoration |
                                              ImGuiWindowFlags_NoInputs);
    ImGui::Text("%.0f fps  %.1f ms/frame (CPU)", fps_, last_paint_ms_);
    if (scene_) {
        const int level = drawnLevel();
        std::string what;
        if (level < 0) {
            what = std::to_string(scene_->node_count()) + " nodes, " +
                   std::to_string(scene_->edge_count()) + " edges";
        } else if (level == levels_.final_level()) {
            what = "super-graph: " + std::to_string(levels_.community_count(level)) +
                   " communities, " + std::to_string(levels_.graph(level).edges.size()) + " edges";
        } else {
            // A finer level zoomed in: how many of its communities are near the view.
            what = "communities, level " + std::to_string(level + 1) + " of " +
                   std::to_string(levels_.size()) + ": " + std::to_string(agg_count_) +
                   " of " + std::to_string(levels_.community_count(level)) + " in view";
        }
        ImGui::Text("%s", what.c_str());
    }
    ImGui::End();
}

void GraphCanvas::drawLegendWindow()
{
    ImGui::SetNextWindowPos(ImVec2(8, 8), ImGuiCond_Always);
    ImGui::Begin("Colours", nullptr, kPanelFlags);
    const char* modes[kColourModeCount];
    for (int m = 0; m < kColourModeCount; ++m) modes[m] = colour_mode_name(ColourMode(m));
    int mode = int(colour_.mode);
    ImGui::SetNextItemWidth(170);
    if (ImGui::Combo("colour by", &mode, modes, kColourModeCount)) setColourMode(ColourMode(mode));
    if (scene_ && colour_.mode == ColourMode::Community && scene_->communities.levels.size() > 1) {
        const int last = int(scene_->communities.levels.size()) - 1;
        int level = colour_.community_level < 0 ? last : colour_.community_level;
        ImGui::SetNextItemWidth(170);
        if (ImGui::SliderInt("hierarchy level", &level, 0, last))
            setCommunityLevel(level == last ? -1 : level);
    }
    if (scene_) {
        const Legend& l = legend_;
        ImGui::TextUnformatted(l.title.c_str());
        ImDrawList* dl = ImGui::GetWindowDrawList();
        if (l.continuous) {
            const ImVec2 p = ImGui::GetCursorScreenPos();
            constexpr int kSteps = 32;
            constexpr float kWidth = 200, kHeight = 12;
            for (int i = 0; i < kSteps; ++i)
                dl->AddRectFilled(ImVec2(p.x + kWidth * i / kSteps, p.y),
                                  ImVec2(p.x + kWidth * (i + 1) / kSteps, p.y + kHeight),
                                  to_imgui(ramp_colour((i + 0.5) / kSteps)));
            ImGui::Dummy(ImVec2(kWidth, kHeight));
            ImGui::TextUnformatted(l.low.c_str());
            ImGui::SameLine(kWidth - ImGui::CalcTextSize(l.high.c_str()).x + 8);
            ImGui::TextUnformatted(l.high.c_str());
        } else {
            for (const Legend::Entry& e : l.entries) {
                const ImVec2 p = ImGui::GetCursorScreenPos();
                const float s = ImGui::GetTextLineHeight();
                dl->AddRectFilled(ImVec2(p.x, p.y + 2), ImVec2(p.x + s - 4, p.y + s - 2),
                                  to_imgui(e.colour));
                ImGui::Dummy(ImVec2(s, s));
                ImGui::SameLine();
                ImGui::Text("%s  (%zu)", e.label.c_str(), e.count);
            }
            if (l.hidden) ImGui::TextDisabled("and %zu more", l.hidden);
        }
    }
    ImGui::Separator();
    ImGui::SetNextItemWidth(170);
    if (ImGui::InputTextWithHint("##find", "find a node by name", find_buffer_,
                                 sizeof find_buffer_, ImGuiInputTextFlags_EnterReturnsTrue))
        findNode(QString::fromUtf8(find_buffer_));
    find_field_ = QRectF(QPointF(ImGui::GetItemRectMin().x, ImGui::GetItemRectMin().y),
                         QPointF(ImGui::GetItemRectMax().x, ImGui::GetItemRectMax().y));
    if (!selection_.empty()) ImGui::Text("%zu selected", selection_.size());
    ImGui::End();
}

void GraphCanvas::drawLayoutWindow()
{
    ImGui::SetNextWindowPos(ImVec2(float(width()) - 8, 8), ImGuiCond_Always, ImVec2(1, 0));
    ImGui::Begin("Layout", nullptr, kPanelFlags);
    if (hasPlacement()) {
        int v = int(view_);
        ImGui::RadioButton("ForceAtlas2", &v, int(View::Layout));
        ImGui::SameLine();
        ImGui::RadioButton("DEF placement", &v, int(View::Placement));
        if (v != int(view_)) setView(View(v));
    }
    if (runner_) {
        const layout::LayoutSnapshot s = runner_->latestProgress();
        const bool running = runner_->isRunning();
        if (running) {
            if (ImGui::Button("Stop")) runner_->stop();
        } else {
            ImGui::BeginDisabled(runner_->isFinished());
            if (ImGui::Button("Start")) runner_->start();
            ImGui::EndDisabled();
        }
        ImGui::SameLine();
        const char* state = s.converged ? "converged"
                            : runner_->isFinished() ? "iteration limit"
                            : running              ? "running"
                                                   : "paused";
        ImGui::Text("%s, iteration %d", state, s.iteration);
        // Convergence: the window's movement against the tolerance (1 = converged).
        const double tol = runner_->options().tolerance;
        const double progress =
            s.converged ? 1.0
                        : (s.window_movement > 0 ? std::clamp(tol / s.window_movement, 0.0, 1.0)
                                                 : 0.0);
        char text[64];
        std::snprintf(text, sizeof text, "movement %.4f (tol %.3g)", s.window_movement, tol);
        ImGui::ProgressBar(float(progress), ImVec2(240, 0), text);
    } else {
        ImGui::TextDisabled("no layout");
    }
    int detail = int(detail_);
    ImGui::TextUnformatted("detail");
    ImGui::SameLine();
    ImGui::RadioButton("auto", &detail, int(Detail::Auto));
    ImGui::SameLine();
    ImGui::RadioButton("nodes", &detail, int(Detail::Full));
    ImGui::SameLine();
    ImGui::RadioButton("communities", &detail, int(Detail::Communities));
    if (detail != int(detail_)) setDetail(Detail(detail));
    if (ImGui::Button("Fit (0)")) fitToView();
    ImGui::End();
}

void GraphCanvas::drawHoverCard()
{
    if (!scene_ || !mouse_inside_ || hovered_.kind == Pick::Kind::None) return;
    ImGui::SetNextWindowPos(ImVec2(float(mouse_.x()) + 16, float(mouse_.y()) + 16), ImGuiCond_Always);
    ImGui::SetNextWindowBgAlpha(0.85f);
    ImGui::Begin("##hover", nullptr, kPanelFlags | ImGuiWindowFlags_NoDecoration |
                                         ImGuiWindowFlags_NoInputs);
    if (hovered_.kind == Pick::Kind::Node) {
        const auto v = std::size_t(hovered_.id);
        ImGui::Text("%s", scene_->node_name(v).c_str());
        ImGui::Separator();
        ImGui::Text("node       %zu", v);
        ImGui::Text("type       %s", scene_->node_type(v).c_str());
        ImGui::Text("level      %u", scene_->graph().level[v]);
        // The legend's numbering: the chosen hierarchy level's, else the final partition's.
        const auto membership = community_membership(*scene_, colour_.community_level);
        if (v < membership.size()) {
            if (colour_.community_level >= 0)
                ImGui::Text("community  %u (level %d)", membership[v], colour_.community_level);
            else
                ImGui::Text("community  %u", membership[v]);
        }
        ImGui::Text("fan-in %zu  fan-out %zu", scene_->graph().fanin.degree(graph::NodeId(v)),
                    scene_->graph().fanout.degree(graph::NodeId(v)));
        if (!scene_->signal_probability.empty())
            ImGui::Text("P(1)       %.3f", scene_->signal_probability[v]);
        if (predictions_.size() == scene_->node_count())
            ImGui::Text("predicted  %.3f", predictions_[v]);
    } else {
        const auto c = std::size_t(hovered_.id);
        const int level = hovered_.level;
        const bool known = level >= 0 && level < levels_.size();
        const SuperGraph& g = known ? levels_.graph(level) : scene_->super_graph;
        if (!known || level == levels_.final_level()) {
            ImGui::Text("community %zu", c);
        } else {
            ImGui::Text("community %zu of level %d", c, level + 1);
            ImGui::Text("in community %u", levels_.top(level)[c]);
        }
        ImGui::Separator();
        if (c < g.sizes.size() && c < g.internal.size()) {
            ImGui::Text("nodes           %u", g.sizes[c]);
            ImGui::Text("internal edges  %.0f", g.internal[c]);
        }
    }
    ImGui::End();
}

} // namespace gsr::views::canvas
