#pragma once
// Qt input -> Dear ImGui 1.86, the version Debian ships. 1.86 predates ImGui's event queue
// (io.AddKeyEvent and friends arrived in 1.87): input is state that the backend writes before
// each frame. So this bridge sets io.MousePos, io.MouseDown[], io.MouseWheel(H), io.KeysDown[]
// (through io.KeyMap), io.KeyCtrl/Shift/Alt/Super and queues characters with
// io.AddInputCharactersUTF8, from the Qt events the canvas receives.
//
// A click or key tap shorter than a frame would be lost by plain state (press and release
// both before the next NewFrame), so a press stays down until a frame has seen it, as the
// stock GLFW backend of that era does for mouse buttons.
//
// The bridge knows no GL and draws nothing; the canvas pairs it with the stock OpenGL3
// renderer backend.
#include <Qt>

struct ImGuiContext;
class QFocusEvent;
class QKeyEvent;
class QMouseEvent;
class QPointF;
class QSize;
class QWheelEvent;

namespace gsr::views::canvas {

class ImGuiQtBridge {
public:
    /// Binds to `context` (not owned) and sets its key map, backend name and flags.
    explicit ImGuiQtBridge(ImGuiContext* context);

    /// Before ImGui::NewFrame: display size (logical pixels), device pixel ratio, seconds
    /// since the previous frame, and the mouse buttons pressed since the last frame.
    void newFrame(const QSize& logical_size, qreal device_pixel_ratio, double delta_seconds);

    // Each returns true when ImGui wants that input (the canvas then leaves it alone).
    bool mouseMove(const QPointF& position);
    bool mousePress(const QMouseEvent& event);
    bool mouseRelease(const QMouseEvent& event);
    bool wheel(const QWheelEvent& event);
    bool keyPress(const QKeyEvent& event);
    bool keyRelease(const QKeyEvent& event);
    /// The mouse left the widget: no hover.
    void mouseLeave();
    void focusChanged(bool focused);

    bool wantsMouse() const;
    bool wantsKeyboard() const;

    /// Index into io.KeysDown for a Qt::Key, or -1 for keys ImGui has no use for.
    static int keyIndex(int qt_key);

private:
    void makeCurrent() const;
    void setModifiers(Qt::KeyboardModifiers modifiers);
    void setModifierKey(int qt_key, bool down);
    static int buttonIndex(Qt::MouseButton button);

    ImGuiContext* context_;
    bool held_[5] = {};    ///< buttons down now
    bool pressed_[5] = {}; ///< pressed since the last newFrame
    static constexpr int kKeySlots = 512; ///< io.KeysDown's size in 1.86
    bool key_held_[kKeySlots] = {};
    bool key_pressed_[kKeySlots] = {};
};

} // namespace gsr::views::canvas
