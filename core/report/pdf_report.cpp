#include "report/pdf_report.hpp"

#include "util/diagnostics.hpp"
#include "util/utf8_text.hpp"

#ifdef GSR_HAVE_CAIRO
#include <cairo-pdf.h>
#include <cairo.h>
#endif

#include <algorithm>
#include <cmath>
#include <string_view>

namespace gsr::report {

#ifndef GSR_HAVE_CAIRO

bool pdf_available()
{
    return false;
}

namespace {

[[noreturn]] void no_cairo()
{
    throw Error("PDF export is not available: this build of GSR Studio lacks cairo (install "
                "libcairo2-dev and rebuild); HTML, CSV and JSON exports work without it");
}

} // namespace

std::string to_pdf(const Document&)
{
    no_cairo();
}

double pdf_text_width(const std::string&, double)
{
    no_cairo();
}

std::vector<std::string> pdf_wrap(const std::string&, double, double)
{
    no_cairo();
}

std::string pdf_fit(const std::string&, double, double)
{
    no_cairo();
}

#else

bool pdf_available()
{
    return true;
}

namespace {

// A4 in points; text width 511 pt.
constexpr double kPageW = 595.276, kPageH = 841.890, kMargin = 42;
constexpr double kTextW = kPageW - 2 * kMargin;
constexpr const char* kFont = "DejaVu Sans";

void set_rgb(cairo_t* cr, Rgb c)
{
    cairo_set_source_rgb(cr, c.r / 255.0, c.g / 255.0, c.b / 255.0);
}

void set_font(cairo_t* cr, double size, bool bold)
{
    cairo_select_font_face(cr, kFont, CAIRO_FONT_SLANT_NORMAL,
                           bold ? CAIRO_FONT_WEIGHT_BOLD : CAIRO_FONT_WEIGHT_NORMAL);
    cairo_set_font_size(cr, size);
}

double text_width(cairo_t* cr, std::string_view raw)
{
    const std::string text = printable_utf8(raw); // as show_text draws it
    cairo_text_extents_t e;
    cairo_text_extents(cr, text.c_str(), &e);
    return e.x_advance;
}

/// cairo refuses invalid UTF-8 for the whole document and stops a string at a NUL.
void show_text(cairo_t* cr, const std::string& text)
{
    cairo_show_text(cr, printable_utf8(text).c_str());
}

void stroke_path(cairo_t* cr, const Stroke& s)
{
    set_rgb(cr, s.color);
    cairo_set_line_width(cr, s.width);
    if (s.dashed) {
        const double dash[] = {6, 4};
        cairo_set_dash(cr, dash, 2, 0);
    } else {
        cairo_set_dash(cr, nullptr, 0, 0);
    }
    cairo_stroke(cr);
}

void draw_scene(cairo_t* cr, const Scene& scene)
{
    cairo_set_line_join(cr, CAIRO_LINE_JOIN_ROUND);
    for (const Shape& shape : scene.shapes) {
        if (const auto* l = std::get_if<Line>(&shape)) {
            cairo_move_to(cr, l->a.x, l->a.y);
            cairo_line_to(cr, l->b.x, l->b.y);
            stroke_path(cr, l->stroke);
        } else if (const auto* p = std::get_if<Polyline>(&shape)) {
            if (p->points.size() < 2) continue;
            cairo_move_to(cr, p->points[0].x, p->points[0].y);
            for (std::size_t i = 1; i < p->points.size(); ++i)
                cairo_line_to(cr, p->points[i].x, p->points[i].y);
            stroke_path(cr, p->stroke);
        } else if (const auto* m = std::get_if<Marker>(&shape)) {
            const double h = m->size / 2;
            if (m->kind == MarkerKind::Cross) {
                cairo_move_to(cr, m->at.x - h, m->at.y - h);
                cairo_line_to(cr, m->at.x + h, m->at.y + h);
                cairo_move_to(cr, m->at.x - h, m->at.y + h);
                cairo_line_to(cr, m->at.x + h, m->at.y - h);
                stroke_path(cr, {m->fill, std::max(2.0, m->outline_width), false});
                continue;
            }
            if (m->kind == MarkerKind::Circle) {
                cairo_new_sub_path(cr);
                cairo_arc(cr, m->at.x, m->at.y, h, 0, 2 * M_PI);
            } else {
                const std::vector<Point> poly = marker_polygon(*m);
                cairo_move_to(cr, poly[0].x, poly[0].y);
                for (std::size_t i = 1; i < poly.size(); ++i)
                    cairo_line_to(cr, poly[i].x, poly[i].y);
                cairo_close_path(cr);
            }
            set_rgb(cr, m->fill);
            cairo_fill_preserve(cr);
            stroke_path(cr, {m->outline, m->outline_width, false});
        } else if (const auto* r = std::get_if<Rect>(&shape)) {
            cairo_rectangle(cr, r->origin.x, r->origin.y, r->width, r->height);
            if (r->fill) {
                set_rgb(cr, *r->fill);
                if (r->stroke) cairo_fill_preserve(cr);
                else cairo_fill(cr);
            }
            if (r->stroke) stroke_path(cr, *r->stroke);
        } else if (const auto* t = std::get_if<Text>(&shape)) {
            set_font(cr, t->size, t->bold);
            const double w = text_width(cr, t->text);
            const double dx = t->anchor == Anchor::Start ? 0 : t->anchor == Anchor::Middle
                                                                   ? -w / 2
                                                                   : -w;
            cairo_save(cr);
            cairo_translate(cr, t->at.x, t->at.y);
            cairo_rotate(cr, t->rotate * M_PI / 180);
            cairo_move_to(cr, dx, 0);
            set_rgb(cr, t->color);
            show_text(cr, t->text);
            cairo_restore(cr);
        }
    }
}

/// The start of the character after the one at byte `i` of `s` (a cut point of utf8_cut).
std::size_t next_cut(std::string_view s, std::size_t i)
{
    ++i;
    while (i < s.size() && (static_cast<unsigned char>(s[i]) & 0xC0) == 0x80) ++i;
    return std::min(i, s.size());
}

/// The longest start of `s`, cut between characters, that is no wider than `width` with
/// `suffix` after it (0 when none is). A start only widens as it grows, so the cut is found by
/// doubling and then halving: a few measurements, none much longer than the answer. Stepping
/// back one character at a time from the end took minutes on a 16,000-character word.
std::size_t fitting_start(cairo_t* cr, std::string_view s, double width,
                          std::string_view suffix = {})
{
    if (s.empty()) return 0;
    const auto fits = [&](std::size_t n) {
        return text_width(cr, std::string(s.substr(0, n)) + std::string(suffix)) <= width;
    };
    std::size_t lo = 0, hi = 0; // `lo` fits (or is 0); `hi`, once found, does not
    for (std::size_t probe = 16;; probe *= 2) {
        const std::size_t n = utf8_cut(s, probe);
        if (n <= lo) continue; // inside a long run of continuation bytes
        if (!fits(n)) {
            hi = n;
            break;
        }
        lo = n;
        if (n == s.size()) return n;
    }
    for (;;) {
        std::size_t mid = utf8_cut(s, lo + (hi - lo) / 2);
        if (mid <= lo) mid = next_cut(s, lo);
        if (mid >= hi) return lo;
        (fits(mid) ? lo : hi) = mid;
    }
}

/// Splits `text` into lines no wider than `width` at the current font (long words are cut,
/// between characters).
std::vector<std::string> wrap(cairo_t* cr, const std::string& text, double width)
{
    std::vector<std::string> lines;
    std::string line, word;
    auto push_word = [&] {
        if (word.empty()) return;
        const std::string candidate = line.empty() ? word : line + " " + word;
        if (text_width(cr, candidate) <= width) {
            line = candidate;
            word.clear();
            return;
        }
        if (!line.empty()) lines.push_back(line);
        line = word;
        // A word wider than the line (a path, a config string) is cut where it must be: at
        // least one character a line, and a single character wider than the line stays whole.
        for (;;) {
            const std::size_t n = std::max(fitting_start(cr, line, width), next_cut(line, 0));
            if (n >= line.size()) break;
            lines.push_back(line.substr(0, n));
            line.erase(0, n);
        }
        word.clear();
    };
    for (char c : text) {
        if (c == ' ' || c == '\n') {
            push_word();
            if (c == '\n') {
                lines.push_back(line);
                line.clear();
            }
        } else {
            word += c;
        }
    }
    push_word();
    if (!line.empty() || lines.empty()) lines.push_back(line);
    return lines;
}

/// `text` whole when it fits `width`, else its longest start that fits with "..." after it.
std::string fit(cairo_t* cr, const std::string& text, double width)
{
    if (text_width(cr, text) <= width) return text;
    return text.substr(0, fitting_start(cr, text, width, "...")) + "...";
}

class PdfLayout {
public:
    PdfLayout(cairo_t* cr, std::string footer) : cr_(cr), footer_(std::move(footer)) {}

    void title(const std::string& text, const std::string& subtitle)
    {
        set_font(cr_, 17, true);
        for (const std::string& l : wrap(cr_, text, kTextW)) line_at(l, 21, {20, 20, 20});
        if (!subtitle.empty()) {
            set_font(cr_, 9.5, false);
            for (const std::string& l : wrap(cr_, subtitle, kTextW))
                line_at(l, 13, {100, 100, 100});
        }
        y_ += 6;
    }

    /// `following`: the height of what comes next, kept on the heading's page when it fits.
    void heading(const Heading& h, double following)
    {
        const double size = h.level >= 3 ? 11 : 13;
        ensure(size * 1.6 + 14 + std::min(following, kPageH / 2));
        y_ += 10;
        set_font(cr_, size, true);
        line_at(h.text, size * 1.45, {30, 30, 30});
        if (h.level < 3) {
            cairo_move_to(cr_, kMargin, y_ - size * 0.2);
            cairo_line_to(cr_, kMargin + kTextW, y_ - size * 0.2);
            stroke_path(cr_, {{200, 200, 200}, 0.7, false});
        }
        y_ += 4;
    }

    void paragraph(const std::string& text, double size = 9.5, Rgb colour = {40, 40, 40})
    {
        set_font(cr_, size, false);
        for (const std::string& l : wrap(cr_, text, kTextW)) {
            ensure(size * 1.4);
            line_at(l, size * 1.4, colour);
        }
        y_ += 4;
    }

    void key_values(const KeyValues& kv)
    {
        const double size = 9, key_w = 150, gap = 8;
        for (const auto& [k, v] : kv.rows) {
            set_font(cr_, size, false);
            const std::vector<std::string> lines = wrap(cr_, v, kTextW - key_w - gap);
            // The value's lines with the key while they fit a page; a value longer than a
            // page goes on over the next (it ran off the sheet before).
            ensure(size * 1.4 * double(std::min<std::size_t>(lines.size(), 3)));
            set_rgb(cr_, {90, 90, 90});
            cairo_move_to(cr_, kMargin, y_ + size);
            show_text(cr_, fit(cr_, k, key_w));
            for (const std::string& l : lines) {
                ensure(size * 1.4);
                set_rgb(cr_, {30, 30, 30});
                cairo_move_to(cr_, kMargin + key_w + gap, y_ + size);
                show_text(cr_, l);
                y_ += size * 1.4;
            }
        }
        y_ += 6;
    }

    void table(const Table& t)
    {
        // The font shrinks until the natural widths fit; past 6 pt the widest text columns
        // are cut with an ellipsis instead.
        const double pad = 3;
        double size = 8.5;
        std::vector<double> widths;
        for (;; size -= 0.5) {
            widths = natural_widths(t, size, pad);
            double total = 0;
            for (double w : widths) total += w;
            if (total <= kTextW || size <= 6) break;
        }
        shrink_to_fit(t, widths);
        const double row_h = size * 1.5;
        auto header = [&] {
            cairo_rectangle(cr_, kMargin, y_, sum(widths), row_h);
            set_rgb(cr_, {235, 235, 235});
            cairo_fill(cr_);
            row(t.columns, t, widths, size, true);
        };
        ensure(row_h * 2);
        header();
        for (std::size_t r = 0; r < t.rows.size(); ++r) {
            if (y_ + row_h > kPageH - kMargin - 14) {
                new_page();
                header();
            }
            const bool best = r < t.highlight.size() && t.highlight[r];
            if (best) {
                cairo_rectangle(cr_, kMargin, y_, sum(widths), row_h);
                set_rgb(cr_, {222, 243, 229});
                cairo_fill(cr_);
            }
            row(t.rows[r], t, widths, size, best);
        }
        y_ += 8;
    }

    void figure(const Figure& f)
    {
        const double scale = std::min(1.0, kTextW / f.scene.width);
        const double h = f.scene.height * scale;
        ensure(h + 24);
        cairo_save(cr_);
        cairo_translate(cr_, kMargin, y_);
        cairo_scale(cr_, scale, scale);
        cairo_rectangle(cr_, 0, 0, f.scene.width, f.scene.height);
        cairo_clip(cr_);
        draw_scene(cr_, f.scene);
        cairo_restore(cr_);
        y_ += h + 4;
        if (!f.caption.empty()) paragraph(f.caption, 8, {90, 90, 90});
        y_ += 4;
    }

    void tree(const Tree& t)
    {
        std::vector<std::pair<const TreeNode*, int>> stack;
        for (auto it = t.roots.rbegin(); it != t.roots.rend(); ++it) stack.push_back({&*it, 0});
        const double size = 8.5;
        while (!stack.empty()) {
            auto [node, depth] = stack.back();
            stack.pop_back();
            const double indent = 12.0 * std::min(depth, 20);
            set_font(cr_, size, false);
            const std::vector<std::string> lines =
                wrap(cr_, (depth ? "- " : "") + node->text, kTextW - indent);
            for (const std::string& l : lines) {
                ensure(size * 1.4);
                set_rgb(cr_, {40, 40, 40});
                cairo_move_to(cr_, kMargin + indent, y_ + size);
                show_text(cr_, l);
                y_ += size * 1.4;
            }
            for (auto it = node->children.rbegin(); it != node->children.rend(); ++it)
                stack.push_back({&*it, depth + 1});
        }
        y_ += 6;
    }

    void finish() { footer(); }

private:
    static double sum(const std::vector<double>& v)
    {
        double s = 0;
        for (double x : v) s += x;
        return s;
    }

    std::vector<double> natural_widths(const Table& t, double size, double pad)
    {
        std::vector<double> w(t.columns.size(), 0);
        set_font(cr_, size, true);
        for (std::size_t c = 0; c < t.columns.size(); ++c)
            w[c] = text_width(cr_, t.columns[c]) + 2 * pad;
        for (std::size_t r = 0; r < t.rows.size(); ++r) {
            // Highlighted rows are bold, and wider.
            set_font(cr_, size, r < t.highlight.size() && t.highlight[r]);
            for (std::size_t c = 0; c < t.rows[r].size() && c < w.size(); ++c)
                w[c] = std::max(w[c], text_width(cr_, t.rows[r][c]) + 2 * pad);
        }
        return w;
    }

    static void shrink_to_fit(const Table& t, std::vector<double>& w)
    {
        // Take width from the widest text (non-numeric) column until the table fits.
        for (int guard = 0; sum(w) > kTextW && guard < 1000; ++guard) {
            std::size_t widest = w.size();
            for (std::size_t c = 0; c < w.size(); ++c) {
                const bool numeric = c < t.numeric.size() && t.numeric[c];
                if (!numeric && (widest == w.size() || w[c] > w[widest])) widest = c;
            }
            if (widest == w.size() || w[widest] <= 40) {
                // Only numbers left, or text already narrow: scale everything.
                const double k = kTextW / sum(w);
                for (double& x : w) x *= k;
                break;
            }
            w[widest] = std::max(40.0, w[widest] - (sum(w) - kTextW));
        }
    }

    void row(const std::vector<std::string>& cells, const Table& t,
             const std::vector<double>& widths, double size, bool bold)
    {
        set_font(cr_, size, bold);
        double x = kMargin;
        for (std::size_t c = 0; c < widths.size(); ++c) {
            const std::string text = c < cells.size() ? fit(cr_, cells[c], widths[c] - 6) : "";
            const bool numeric = c < t.numeric.size() && t.numeric[c];
            const double tx = numeric ? x + widths[c] - 3 - text_width(cr_, text) : x + 3;
            set_rgb(cr_, {30, 30, 30});
            cairo_move_to(cr_, tx, y_ + size * 1.12);
            show_text(cr_, text);
            x += widths[c];
        }
        y_ += size * 1.5;
        cairo_move_to(cr_, kMargin, y_);
        cairo_line_to(cr_, kMargin + sum(widths), y_);
        stroke_path(cr_, {{215, 215, 215}, 0.5, false});
    }

    void line_at(const std::string& text, double advance, Rgb colour)
    {
        set_rgb(cr_, colour);
        cairo_move_to(cr_, kMargin, y_ + advance * 0.78);
        show_text(cr_, text);
        y_ += advance;
    }

    void ensure(double height)
    {
        if (y_ + height > kPageH - kMargin - 14 && y_ > kMargin + 1) new_page();
    }

    void footer()
    {
        set_font(cr_, 7.5, false);
        set_rgb(cr_, {130, 130, 130});
        const std::string text = footer_ + "  -  page " + std::to_string(page_);
        cairo_move_to(cr_, kMargin + kTextW - text_width(cr_, text), kPageH - kMargin / 2);
        show_text(cr_, text);
    }

    void new_page()
    {
        // The footer's font and colour are its own: the text that goes on keeps its style.
        cairo_save(cr_);
        footer();
        cairo_restore(cr_);
        cairo_show_page(cr_);
        ++page_;
        y_ = kMargin;
    }

    cairo_t* cr_;
    std::string footer_;
    double y_ = kMargin;
    int page_ = 1;
};

/// About how tall a block starts: a heading is kept with this much of what follows it.
double height_hint(const Block& block)
{
    if (const auto* f = std::get_if<Figure>(&block))
        return f->scene.height * std::min(1.0, kTextW / f->scene.width) + 4;
    if (const auto* t = std::get_if<Table>(&block))
        return 13.0 * double(std::min<std::size_t>(t->rows.size() + 1, 4));
    return 40;
}

cairo_status_t append(void* closure, const unsigned char* data, unsigned int length)
{
    static_cast<std::string*>(closure)->append(reinterpret_cast<const char*>(data), length);
    return CAIRO_STATUS_SUCCESS;
}

} // namespace

std::string to_pdf(const Document& doc)
{
    std::string bytes;
    cairo_surface_t* surface = cairo_pdf_surface_create_for_stream(append, &bytes, kPageW, kPageH);
    cairo_t* cr = cairo_create(surface);
    cairo_pdf_surface_set_metadata(surface, CAIRO_PDF_METADATA_TITLE,
                                   printable_utf8(doc.title).c_str());
    cairo_pdf_surface_set_metadata(surface, CAIRO_PDF_METADATA_CREATOR, "GSR Studio");
    {
        PdfLayout layout(cr, doc.title);
        layout.title(doc.title, doc.subtitle);
        for (std::size_t i = 0; i < doc.blocks.size(); ++i) {
            const Block& block = doc.blocks[i];
            if (const auto* h = std::get_if<Heading>(&block))
                layout.heading(*h, i + 1 < doc.blocks.size() ? height_hint(doc.blocks[i + 1])
                                                             : 0);
            else if (const auto* p = std::get_if<Paragraph>(&block)) layout.paragraph(p->text);
            else if (const auto* kv = std::get_if<KeyValues>(&block)) layout.key_values(*kv);
            else if (const auto* t = std::get_if<Table>(&block)) layout.table(*t);
            else if (const auto* f = std::get_if<Figure>(&block)) layout.figure(*f);
            else if (const auto* tr = std::get_if<Tree>(&block)) layout.tree(*tr);
        }
        layout.finish();
    }
    const cairo_status_t drawing = cairo_status(cr);
    cairo_destroy(cr);
    cairo_surface_finish(surface); // writes the trailer through `append`
    const cairo_status_t finishing = cairo_surface_status(surface);
    cairo_surface_destroy(surface);
    const cairo_status_t status = drawing != CAIRO_STATUS_SUCCESS ? drawing : finishing;
    if (status != CAIRO_STATUS_SUCCESS)
        throw Error(std::string("cannot write the PDF report: cairo says ") +
                    cairo_status_to_string(status));
    return bytes;
}

namespace {

/// A PDF surface that writes nowhere, with the regular font at `size` pt: text measures as
/// it does in to_pdf.
class MeasuringContext {
public:
    explicit MeasuringContext(double size)
        : surface_(cairo_pdf_surface_create_for_stream(nullptr, nullptr, kPageW, kPageH)),
          cr_(cairo_create(surface_))
    {
        set_font(cr_, size, false);
    }
    ~MeasuringContext()
    {
        cairo_destroy(cr_);
        cairo_surface_destroy(surface_);
    }
    MeasuringContext(const MeasuringContext&) = delete;
    MeasuringContext& operator=(const MeasuringContext&) = delete;
    cairo_t* get() const { return cr_; }

private:
    cairo_surface_t* surface_;
    cairo_t* cr_;
};

} // namespace

double pdf_text_width(const std::string& text, double size)
{
    return text_width(MeasuringContext(size).get(), text);
}

std::vector<std::string> pdf_wrap(const std::string& text, double size, double width)
{
    return wrap(MeasuringContext(size).get(), text, width);
}

std::string pdf_fit(const std::string& text, double size, double width)
{
    return fit(MeasuringContext(size).get(), text, width);
}

#endif

} // namespace gsr::report
