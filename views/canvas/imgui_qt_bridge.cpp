#include "canvas/imgui_qt_bridge.hpp"

#include <imgui.h>

#include <QKeyEvent>
#include <QMouseEvent>
#include <QSize>
#include <QWheelEvent>

#include <algorithm>
#include <cfloat>
#include <iterator>

namespace gsr::views::canvas {

namespace {
constexpr int kQtSpecialKeyBase = 0x01000000; ///< Qt::Key_Escape: the first non-character key
constexpr int kSpecialSlot = 256;             ///< KeysDown[256 + k] for special key k
} // namespace

int ImGuiQtBridge::keyIndex(int qt_key)
{
    // Printable keys keep their code (Qt::Key_A == 'A'); special keys are packed above 255.
    if (qt_key >= 0 && qt_key < 256) return qt_key;
    const int k = qt_key - kQtSpecialKeyBase;
    if (k >= 0 && k < 256) return kSpecialSlot + k;
    return -1;
}

ImGuiQtBridge::ImGuiQtBridge(ImGuiContext* context) : context_(context)
{
    makeCurrent();
    ImGuiIO& io = ImGui::GetIO();
    io.BackendPlatformName = "gsr_imgui_qt_bridge";
    io.IniFilename = nullptr; // the canvas lays out its windows itself; nothing on disk
    const std::pair<ImGuiKey, int> keys[] = {
        {ImGuiKey_Tab, Qt::Key_Tab},
        {ImGuiKey_LeftArrow, Qt::Key_Left},
        {ImGuiKey_RightArrow, Qt::Key_Right},
        {ImGuiKey_UpArrow, Qt::Key_Up},
        {ImGuiKey_DownArrow, Qt::Key_Down},
        {ImGuiKey_PageUp, Qt::Key_PageUp},
        {ImGuiKey_PageDown, Qt::Key_PageDown},
        {ImGuiKey_Home, Qt::Key_Home},
        {ImGuiKey_End, Qt::Key_End},
        {ImGuiKey_Insert, Qt::Key_Insert},
        {ImGuiKey_Delete, Qt::Key_Delete},
        {ImGuiKey_Backspace, Qt::Key_Backspace},
        {ImGuiKey_Space, Qt::Key_Space},
        {ImGuiKey_Enter, Qt::Key_Return},
        {ImGuiKey_Escape, Qt::Key_Escape},
        {ImGuiKey_KeyPadEnter, Qt::Key_Enter},
        {ImGuiKey_A, Qt::Key_A},
        {ImGuiKey_C, Qt::Key_C},
        {ImGuiKey_V, Qt::Key_V},
        {ImGuiKey_X, Qt::Key_X},
        {ImGuiKey_Y, Qt::Key_Y},
        {ImGuiKey_Z, Qt::Key_Z},
    };
    for (const auto& [imgui_key, qt_key] : keys) io.KeyMap[imgui_key] = keyIndex(qt_key);
    io.MousePos = ImVec2(-FLT_MAX, -FLT_MAX);
}

void ImGuiQtBridge::makeCurrent() const { ImGui::SetCurrentContext(context_); }

void ImGuiQtBridge::newFrame(const QSize& logical_size, qreal device_pixel_ratio,
                             double delta_seconds)
{
    makeCurrent();
    ImGuiIO& io = ImGui::GetIO();
    io.DisplaySize = ImVec2(float(logical_size.width()), float(logical_size.height()));
    io.DisplayFramebufferScale = ImVec2(float(device_pixel_ratio), float(device_pixel_ratio));
    io.DeltaTime = float(delta_seconds > 0 ? delta_seconds : 1.0 / 60.0);
    for (int b = 0; b < 5; ++b) {
        io.MouseDown[b] = held_[b] || pressed_[b];
        pressed_[b] = false;
    }
    for (int k = 0; k < kKeySlots; ++k) {
        io.KeysDown[k] = key_held_[k] || key_pressed_[k];
        key_pressed_[k] = false;
    }
}

int ImGuiQtBridge::buttonIndex(Qt::MouseButton button)
{
    switch (button) {
    case Qt::LeftButton: return 0;
    case Qt::RightButton: return 1;
    case Qt::MiddleButton: return 2;
    case Qt::BackButton: return 3;
    case Qt::ForwardButton: return 4;
    default: return -1;
    }
}

void ImGuiQtBridge::setModifiers(Qt::KeyboardModifiers m)
{
    ImGuiIO& io = ImGui::GetIO();
    io.KeyCtrl = m.testFlag(Qt::ControlModifier);
    io.KeyShift = m.testFlag(Qt::ShiftModifier);
    io.KeyAlt = m.testFlag(Qt::AltModifier);
    io.KeySuper = m.testFlag(Qt::MetaModifier);
}

void ImGuiQtBridge::setModifierKey(int qt_key, bool down)
{
    // The event of a modifier key itself carries the state from before it (X11), so the key
    // decides: Shift pressed means Shift is down whatever modifiers() says.
    ImGuiIO& io = ImGui::GetIO();
    switch (qt_key) {
    case Qt::Key_Shift: io.KeyShift = down; break;
    case Qt::Key_Control: io.KeyCtrl = down; break;
    case Qt::Key_Alt: io.KeyAlt = down; break;
    case Qt::Key_Meta: io.KeySuper = down; break;
    default: break;
    }
}

bool ImGuiQtBridge::mouseMove(const QPointF& position)
{
    makeCurrent();
    ImGui::GetIO().MousePos = ImVec2(float(position.x()), float(position.y()));
    return wantsMouse();
}

bool ImGuiQtBridge::mousePress(const QMouseEvent& event)
{
    makeCurrent();
    ImGui::GetIO().MousePos = ImVec2(float(event.position().x()), float(event.position().y()));
    setModifiers(event.modifiers());
    const int b = buttonIndex(event.button());
    if (b >= 0) held_[b] = pressed_[b] = true;
    return wantsMouse();
}

bool ImGuiQtBridge::mouseRelease(const QMouseEvent& event)
{
    makeCurrent();
    ImGui::GetIO().MousePos = ImVec2(float(event.position().x()), float(event.position().y()));
    setModifiers(event.modifiers());
    const int b = buttonIndex(event.button());
    if (b >= 0) held_[b] = false;
    return wantsMouse();
}

bool ImGuiQtBridge::wheel(const QWheelEvent& event)
{
    makeCurrent();
    ImGuiIO& io = ImGui::GetIO();
    // One notch is 120 eighths of a degree; ImGui counts notches.
    io.MouseWheel += float(event.angleDelta().y()) / 120.0f;
    io.MouseWheelH += float(event.angleDelta().x()) / 120.0f;
    return wantsMouse();
}

bool ImGuiQtBridge::keyPress(const QKeyEvent& event)
{
    makeCurrent();
    ImGuiIO& io = ImGui::GetIO();
    setModifiers(event.modifiers());
    setModifierKey(event.key(), true);
    if (const int k = keyIndex(event.key()); k >= 0)
        io.KeysDown[k] = key_held_[k] = key_pressed_[k] = true;
    const QString text = event.text();
    // Control characters (Backspace, Return, Ctrl+letter) are keys, not text.
    bool printable = !text.isEmpty();
    for (const QChar c : text) printable = printable && c.unicode() >= 0x20 && c.unicode() != 0x7f;
    if (printable) io.AddInputCharactersUTF8(text.toUtf8().constData());
    return wantsKeyboard();
}

bool ImGuiQtBridge::keyRelease(const QKeyEvent& event)
{
    makeCurrent();
    ImGuiIO& io = ImGui::GetIO();
    setModifiers(event.modifiers());
    setModifierKey(event.key(), false);
    if (const int k = keyIndex(event.key()); k >= 0) {
        key_held_[k] = false;
        io.KeysDown[k] = key_pressed_[k]; // a tap stays down until a frame has seen it
    }
    return wantsKeyboard();
}

void ImGuiQtBridge::mouseLeave()
{
    makeCurrent();
    ImGui::GetIO().MousePos = ImVec2(-FLT_MAX, -FLT_MAX);
}

void ImGuiQtBridge::focusChanged(bool focused)
{
    makeCurrent();
    ImGuiIO& io = ImGui::GetIO();
    io.AddFocusEvent(focused);
    if (!focused) {
        for (bool& k : io.KeysDown) k = false;
        std::fill(std::begin(key_held_), std::end(key_held_), false);
        std::fill(std::begin(key_pressed_), std::end(key_pressed_), false);
        io.KeyCtrl = io.KeyShift = io.KeyAlt = io.KeySuper = false;
    }
}

bool ImGuiQtBridge::wantsMouse() const
{
    makeCurrent();
    return ImGui::GetIO().WantCaptureMouse;
}

bool ImGuiQtBridge::wantsKeyboard() const
{
    makeCurrent();
    return ImGui::GetIO().WantCaptureKeyboard;
}

} // namespace gsr::views::canvas
