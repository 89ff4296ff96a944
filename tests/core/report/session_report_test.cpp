// Charts and tuning-session reports: axis mapping and roofline pixels against hand-computed
// positions, the CSV through an independent RFC 4180 parser, the JSON round trip, the HTML
// page without external references, and the PDF rendered by poppler.
#include "report/chart.hpp"
#include "report/document.hpp"
#include "report/pdf_report.hpp"
#include "report/report_export.hpp"
#include "report/session_report.hpp"
#include "util/diagnostics.hpp"

#include "core/report/report_support.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>

#include <unistd.h>

using namespace gsr::report;
using gsr::write_file_atomically;
namespace tune = gsr::tune;
using gsr::test::parse_csv;

namespace {

/// The document's lineage tree, or null.
const Tree* lineage_of(const Document& doc)
{
    const Tree* tree = nullptr;
    for (const Block& b : doc.blocks)
        if (const auto* t = std::get_if<Tree>(&b)) tree = t;
    return tree;
}

/// Peaks 1e12 FLOP/s and 1e11 B/s (ridge at 10 FLOP/byte); the problem does 1e9 FLOP over
/// 1e9 bytes (intensity 1, memory bound, T_SOL = 1e9 / 1e11 = 10 ms).
tune::TuneSession known_session()
{
    tune::TuneSession s;
    s.problem = "spmm_demo";
    s.family = "spmm";
    s.device = "Test GPU";
    s.strategy = "sol";
    s.created = "2026-11-22T10:00:00Z";
    s.flops = 1e9;
    s.bytes = 1e9;
    s.peak_rate = 1e12;
    s.bandwidth = 1e11;
    s.t_sol = 1e-2;
    s.bound = "memory";
    s.baseline = "cusparse";
    s.baseline_seconds = 0.02;
    auto add = [&](std::size_t id, const char* label, tune::Verdict v, double seconds) {
        tune::CandidateRecord c;
        c.id = id;
        c.label = label;
        c.origin = "predicted";
        c.verdict = v;
        c.seconds = seconds;
        s.candidates.push_back(c);
        return &s.candidates.back();
    };
    add(0, "tile=32 vec=1", tune::Verdict::Ok, 0.02);         // 5e10 FLOP/s
    add(1, "tile=64 vec=4", tune::Verdict::Ok, 0.0125);       // 8e10 FLOP/s, the best
    add(2, "tile=64 \"cheat\", x", tune::Verdict::Gaming, 0.005); // 2e11: above the roof
    add(3, "tile=128 vec=8", tune::Verdict::CompileError, 0);
    tune::CandidateRecord* e = add(4, "tile=16 vec=1", tune::Verdict::Ok, 0.04); // 2.5e10
    e->profile = tune::ProfileSignals{40, 70, 64, 50, 2e9}; // twice the minimal bytes: x = 0.5
    s.candidates[1].best = true;
    return s;
}

bool near(Point a, Point b, double tol = 1e-6)
{
    return std::abs(a.x - b.x) < tol && std::abs(a.y - b.y) < tol;
}

template <typename T>
std::vector<const T*> shapes_of(const Scene& s)
{
    std::vector<const T*> out;
    for (const Shape& shape : s.shapes)
        if (const T* t = std::get_if<T>(&shape)) out.push_back(t);
    return out;
}

} // namespace

TEST(Chart, LinearAndLogAxesMapToThePlotBox)
{
    const PlotFrame f(100, 50, 400, 300, Axis{Scale::Log10, 1, 1000, "x"},
                      Axis{Scale::Linear, 0, 10, "y"});
    // x = 10 is one decade of three: 100 + 400 / 3; y = 5 is half way up from 350.
    EXPECT_TRUE(near(f.to_pixel(10, 5), {100 + 400.0 / 3, 200}));
    EXPECT_TRUE(near(f.to_pixel(1, 0), {100, 350}));
    EXPECT_TRUE(near(f.to_pixel(1000, 10), {500, 50}));
    EXPECT_TRUE(f.contains(999, 9.99));
    EXPECT_FALSE(f.contains(2000, 5));
}

TEST(Chart, TicksAreNiceNumbersAndDecades)
{
    const std::vector<Tick> lin = ticks(Axis{Scale::Linear, 0, 1, ""}, 5);
    ASSERT_EQ(lin.size(), 6u); // step 0.2
    EXPECT_DOUBLE_EQ(lin[1].value, 0.2);
    EXPECT_EQ(lin[1].text, "0.2");
    EXPECT_EQ(lin[5].text, "1");
    const std::vector<Tick> log = ticks(Axis{Scale::Log10, 1e9, 1e13, ""});
    ASSERT_EQ(log.size(), 5u);
    EXPECT_EQ(log[0].text, "1e9");
    EXPECT_EQ(log[4].text, "1e13");
    EXPECT_EQ(ticks(Axis{Scale::Log10, 0.01, 100, ""})[0].text, "0.01");

    const Axis a = fit_log({3, 450, -1, 0}, "");
    EXPECT_DOUBLE_EQ(a.lo, 1);
    EXPECT_DOUBLE_EQ(a.hi, 1000);
    const Axis b = fit_linear({0.13, 0.87}, "");
    EXPECT_NEAR(b.lo, 0.0, 1e-12); // step 0.2 (range 0.74 / 5 rounds up to 0.2)
    EXPECT_NEAR(b.hi, 1.0, 1e-12);
}

TEST(Chart, ValuesNearTheLargestDoubleGetDistinctTicks)
{
    // Losses of +-1e308 (an edited report) made the range infinite: 101 ticks "-1e+308", all
    // at one pixel.
    for (const std::vector<double>& values :
         {std::vector<double>{-1e308, 1e308}, std::vector<double>{1.7e308, 1.7e308},
          std::vector<double>{-1.7e308, 2.0}}) {
        const Axis a = fit_linear(values, "loss");
        ASSERT_TRUE(std::isfinite(a.hi - a.lo)) << a.lo << " " << a.hi;
        ASSERT_LT(a.lo, a.hi);
        const std::vector<Tick> t = ticks(a);
        ASSERT_GE(t.size(), 2u);
        EXPECT_LE(t.size(), 12u);
        for (std::size_t i = 1; i < t.size(); ++i) {
            EXPECT_LT(t[i - 1].value, t[i].value);
            EXPECT_NE(t[i - 1].text, t[i].text);
        }
    }
}

TEST(Chart, ClippedLinesStayInsideTheBox)
{
    const PlotFrame f(0, 0, 100, 100, Axis{Scale::Linear, 0, 10, ""},
                      Axis{Scale::Linear, 0, 10, ""});
    Scene s;
    f.add_clipped(s, {{-10, 5}, {5, 5}, {20, 20}}, Stroke{});
    const auto lines = shapes_of<Polyline>(s);
    ASSERT_EQ(lines.size(), 1u);
    // Enters at x = 0 (pixel 0, y 50), turns at (50, 50), leaves through the top at x = 10.
    ASSERT_EQ(lines[0]->points.size(), 3u);
    EXPECT_TRUE(near(lines[0]->points[0], {0, 50}));
    EXPECT_TRUE(near(lines[0]->points[1], {50, 50}));
    EXPECT_TRUE(near(lines[0]->points[2], {100, 0}));
}

TEST(SessionReport, RooflinePlacesKnownPointsAtHandComputedPixels)
{
    const tune::TuneSession s = known_session();
    const Roofline r = roofline(s, 720, 440);
    EXPECT_DOUBLE_EQ(r.ridge, 10);
    ASSERT_EQ(r.points.size(), 4u); // the compile error has no time
    // x: intensities 0.5 and 1, the ridge 10 -> decades 0.1 .. 100 (strictly around them).
    EXPECT_DOUBLE_EQ(r.frame.x_axis().lo, 0.1);
    EXPECT_DOUBLE_EQ(r.frame.x_axis().hi, 100);
    // y: 2.5e10 .. 1e12 (the compute peak) -> 1e10 .. 1e13.
    EXPECT_DOUBLE_EQ(r.frame.y_axis().lo, 1e10);
    EXPECT_DOUBLE_EQ(r.frame.y_axis().hi, 1e13);
    // The box is x 84..700 (616 px), y 36..364 (328 px), three decades each way.
    EXPECT_DOUBLE_EQ(r.frame.left(), 84);
    EXPECT_DOUBLE_EQ(r.frame.width(), 616);
    EXPECT_DOUBLE_EQ(r.frame.height(), 328);
    // The best (x 1, y 8e10): 84 + 616 / 3; 364 - 328 * log10(8) / 3.
    const Point best{84 + 616.0 / 3, 364 - 328 * std::log10(8.0) / 3};
    EXPECT_TRUE(near(r.frame.to_pixel(1, 8e10), best));
    // The ridge (10, 1e12): two thirds across, two thirds up.
    const Point ridge{84 + 616 * 2.0 / 3, 364 - 328 * 2.0 / 3};
    // The gaming one (1, 2e11); the one with measured DRAM bytes (0.5, 2.5e10).
    const Point gaming{84 + 616.0 / 3, 364 - 328 * (1 + std::log10(2.0)) / 3};
    const Point measured{84 + 616 * (1 - std::log10(2.0)) / 3, 364 - 328 * std::log10(2.5) / 3};

    const auto markers = shapes_of<Marker>(r.scene);
    auto marker_at = [&](Point p, MarkerKind kind) {
        for (const Marker* m : markers)
            if (m->kind == kind && near(m->at, p, 1e-9)) return true;
        return false;
    };
    EXPECT_TRUE(marker_at(best, MarkerKind::Diamond));
    EXPECT_TRUE(marker_at(gaming, MarkerKind::Cross));
    EXPECT_TRUE(marker_at(measured, MarkerKind::Circle));
    EXPECT_TRUE(marker_at({84 + 616.0 / 3, 364 - 328 * std::log10(5.0) / 3}, MarkerKind::Circle));
    // The baseline (cusparse, 20 ms: 5e10 FLOP/s) is a square at the problem's intensity.
    EXPECT_TRUE(marker_at({84 + 616.0 / 3, 364 - 328 * std::log10(5.0) / 3}, MarkerKind::Square));

    // The roofs: the bandwidth roof starts at the box's lower left corner (0.1 FLOP/byte at
    // 1e11 B/s is 1e10 FLOP/s) and meets the compute roof at the ridge.
    bool slope = false, flat = false;
    for (const Polyline* p : shapes_of<Polyline>(r.scene)) {
        if (p->points.size() != 2) continue;
        slope |= near(p->points[0], {84, 364}, 1e-6) && near(p->points[1], ridge, 1e-6);
        flat |= near(p->points[0], ridge, 1e-6) && near(p->points[1], {700, ridge.y}, 1e-6);
    }
    EXPECT_TRUE(slope);
    EXPECT_TRUE(flat);
}

TEST(SessionReport, AbsurdPeaksAndTimesLeaveTheChartFinite)
{
    // An edited session: a ridge of 1e616 and a baseline at 1e-320 s made the axes end at
    // inf, the SVG's coordinates "-nan" and the PDF fail ("cairo says invalid matrix").
    for (int edit = 0; edit < 2; ++edit) {
        tune::TuneSession s = known_session();
        if (edit == 0) {
            s.peak_rate = 1e308;
            s.bandwidth = 1e-308;
        } else {
            s.baseline_seconds = 1e-320;
        }
        const Roofline r = roofline(s, 720, 440);
        EXPECT_TRUE(std::isfinite(r.frame.x_axis().hi) && std::isfinite(r.frame.y_axis().hi))
            << edit;
        EXPECT_EQ(r.points.size(), 4u) << edit; // the candidates are still drawn
        const std::string html = export_session(s, ReportFormat::Html);
        EXPECT_EQ(html.find("nan"), std::string::npos) << edit;
        EXPECT_EQ(html.find("inf\""), std::string::npos) << edit;
    }
}

TEST(SessionReport, CsvParsesWithOneRowPerCandidate)
{
    const tune::TuneSession s = known_session();
    const std::string csv = export_session(s, ReportFormat::Csv);
    const auto rows = parse_csv(csv);
    ASSERT_EQ(rows.size(), 1 + s.candidates.size());
    const auto& header = rows[0];
    auto col = [&](const std::string& name) {
        const auto it = std::find(header.begin(), header.end(), name);
        EXPECT_NE(it, header.end()) << name;
        return static_cast<std::size_t>(it - header.begin());
    };
    for (std::size_t r = 1; r < rows.size(); ++r) {
        ASSERT_EQ(rows[r].size(), header.size()) << "row " << r;
        EXPECT_TRUE(gsr::test::parses_as_number(rows[r][col("id")]));
        EXPECT_TRUE(gsr::test::parses_as_number(rows[r][col("t_sol_seconds")]));
        EXPECT_TRUE(gsr::test::parses_as_number(rows[r][col("intensity")]));
    }
    // The label with a quote and a comma comes back whole.
    EXPECT_EQ(rows[3][col("label")], "tile=64 \"cheat\", x");
    EXPECT_EQ(rows[3][col("verdict")], "gaming");
    // %SOL of the best: 100 * 10 ms / 12.5 ms.
    EXPECT_DOUBLE_EQ(std::stod(rows[2][col("percent_of_sol")]), 80.0);
    EXPECT_EQ(rows[2][col("best")], "1");
    EXPECT_EQ(rows[4][col("seconds")], ""); // the compile error has no time
    EXPECT_DOUBLE_EQ(std::stod(rows[5][col("intensity")]), 0.5);
}

TEST(SessionReport, CsvQuotingFollowsRfc4180)
{
    Table t;
    t.columns = {"a", "b"};
    t.rows = {{"plain", "with,comma"}, {"with \"quote\"", "two\r\nlines"}};
    const std::string csv = to_csv(t);
    EXPECT_EQ(csv, "a,b\r\nplain,\"with,comma\"\r\n\"with \"\"quote\"\"\",\"two\r\nlines\"\r\n");
    const auto rows = parse_csv(csv);
    ASSERT_EQ(rows.size(), 3u);
    EXPECT_EQ(rows[2][0], "with \"quote\"");
    EXPECT_EQ(rows[2][1], "two\r\nlines");
}

TEST(SessionReport, JsonRoundTripsTheSession)
{
    const tune::TuneSession s = known_session();
    const nlohmann::json j = nlohmann::json::parse(export_session(s, ReportFormat::Json));
    EXPECT_EQ(j["kind"], "tune_session");
    const tune::TuneSession back = tune::tune_session_from_json(j["session"]);
    EXPECT_EQ(tune::to_json(back), j["session"]);
    EXPECT_EQ(tune::to_json(back), tune::to_json(s));
    EXPECT_DOUBLE_EQ(j["roofline"]["ridge_intensity"].get<double>(), 10);
    EXPECT_EQ(j["roofline"]["points"].size(), 4u);

    // "best" edited onto the gaming candidate and the compile error: the report showed the
    // cheat as the best, "4x the baseline". Read back, the best is the fastest ok one again.
    nlohmann::json edited = j["session"];
    for (auto& c : edited["candidates"]) c["best"] = c["verdict"] != "ok";
    const tune::TuneSession forged = tune::tune_session_from_json(edited);
    ASSERT_NE(forged.best_candidate(), nullptr);
    EXPECT_EQ(forged.best_candidate()->id, 1u);
    std::size_t marked = 0;
    for (const tune::CandidateRecord& c : forged.candidates) marked += c.best;
    EXPECT_EQ(marked, 1u);

    // A damaged field names its candidate ("a candidate key 'id'..." named none of them).
    nlohmann::json damaged = j["session"];
    damaged["candidates"][2]["id"] = -1;
    try {
        (void)tune::tune_session_from_json(damaged);
        FAIL() << "an id of -1 was read";
    } catch (const gsr::Error& e) {
        EXPECT_NE(std::string(e.what()).find("candidate 3 of 5 key 'id'"), std::string::npos)
            << e.what();
    }

    // Impossible times and rates: a T_SOL of -1e-5 was reported as "-20 % of SOL".
    const std::vector<std::pair<std::function<void(nlohmann::json&)>, std::string>> bad = {
        {[](nlohmann::json& x) { x["t_sol"] = -1e-5; }, "'t_sol' must be a positive number"},
        {[](nlohmann::json& x) { x["t_sol"] = 0; }, "'t_sol' must be a positive number"},
        {[](nlohmann::json& x) { x["bandwidth"] = -1; }, "'bandwidth' must be a non-negative"},
        {[](nlohmann::json& x) { x["candidates"][1]["seconds"] = -5e-5; },
         "candidate 2 of 5's 'seconds' must be a non-negative number"},
        {[](nlohmann::json& x) { x["candidates"][0]["signals"] = 5; },
         "candidate 1 of 5's 'signals' must be an object"}};
    for (const auto& [edit, expected] : bad) {
        nlohmann::json wrong = j["session"];
        edit(wrong);
        try {
            (void)tune::tune_session_from_json(wrong);
            ADD_FAILURE() << "read: " << expected;
        } catch (const gsr::Error& e) {
            EXPECT_NE(e.message().find(expected), std::string::npos) << e.what();
        }
    }
}

TEST(SessionReport, HtmlIsSelfContainedWithAnInlineRoofline)
{
    const std::string html = export_session(known_session(), ReportFormat::Html);
    EXPECT_EQ(html.rfind("<!DOCTYPE html>", 0), 0u);
    EXPECT_NE(html.find("<svg"), std::string::npos);
    EXPECT_NE(html.find("</svg>"), std::string::npos);
    EXPECT_EQ(gsr::test::external_references(html), std::vector<std::string>{});
    // The label is escaped, not markup.
    EXPECT_NE(html.find("tile=64 &quot;cheat&quot;, x"), std::string::npos);
    // The candidates table has every candidate and marks the best row.
    EXPECT_NE(html.find("<tr class=\"best\"><td class=\"num\">1</td><td>tile=64 vec=4"),
              std::string::npos);
    // The checker itself finds what it must.
    EXPECT_EQ(gsr::test::external_references("<img src=\"a.png\">").size(), 1u);
    EXPECT_EQ(gsr::test::external_references("a { background: url(x.png) }").size(), 1u);
    EXPECT_EQ(gsr::test::external_references("<svg xmlns=\"http://www.w3.org/2000/svg\">").size(),
              1u);
}

TEST(SessionReport, LineageIsATreeOfRefineSteps)
{
    tune::TuneSession s = known_session();
    s.candidates.clear();
    for (std::size_t i = 0; i < 4; ++i) {
        tune::CandidateRecord c;
        c.id = 10 + i;
        c.label = "cfg" + std::to_string(i);
        c.origin = i == 0 ? "start" : "refine";
        c.seconds = 0.02 - 0.001 * double(i);
        s.candidates.push_back(c);
    }
    s.candidates[1].parent = 10; // 10 -> 11 -> 12, and 10 -> 13
    s.candidates[2].parent = 11;
    s.candidates[3].parent = 10;
    const Document doc = session_document(s);
    const Tree* tree = lineage_of(doc);
    ASSERT_NE(tree, nullptr);
    ASSERT_EQ(tree->roots.size(), 1u);
    const TreeNode& root = tree->roots[0];
    EXPECT_EQ(root.text.rfind("#10 start: cfg0", 0), 0u) << root.text;
    ASSERT_EQ(root.children.size(), 2u);
    EXPECT_EQ(root.children[0].text.rfind("#11 refine: cfg1", 0), 0u);
    ASSERT_EQ(root.children[0].children.size(), 1u);
    EXPECT_EQ(root.children[0].children[0].text.rfind("#12 refine: cfg2", 0), 0u);
    EXPECT_EQ(root.children[1].text.rfind("#13 refine: cfg3", 0), 0u);

    // Without parents there is no lineage section.
    for (const Block& b : session_document(known_session()).blocks)
        EXPECT_FALSE(std::holds_alternative<Tree>(b));
}

TEST(SessionReport, ALongRefineChainNestsSixteenDeepAndRendersWithoutRecursion)
{
    // 100,000 refine steps in one chain: nested one level a step, the HTML writer's and the
    // tree's destructor's recursion overflowed the stack. Past 16 levels the chain goes on as
    // siblings, each naming its parent.
    tune::TuneSession s = known_session();
    s.candidates.clear();
    constexpr std::size_t kSteps = 100000;
    for (std::size_t i = 0; i < kSteps; ++i) {
        tune::CandidateRecord c;
        c.id = i + 1;
        c.label = "cfg" + std::to_string(i);
        c.origin = i == 0 ? "start" : "refine";
        if (i > 0) c.parent = i;
        s.candidates.push_back(c);
    }
    {
        const Document doc = session_document(s);
        const Tree* tree = lineage_of(doc);
        ASSERT_NE(tree, nullptr);
        ASSERT_EQ(tree->roots.size(), 1u);
        std::size_t depth = 0, nodes = 0;
        std::vector<std::pair<const TreeNode*, std::size_t>> stack{{&tree->roots[0], 0}};
        while (!stack.empty()) {
            auto [node, d] = stack.back();
            stack.pop_back();
            ++nodes;
            depth = std::max(depth, d);
            for (const TreeNode& c : node->children) stack.push_back({&c, d + 1});
        }
        EXPECT_EQ(nodes, kSteps);
        EXPECT_EQ(depth, 16u);
        const TreeNode* deepest = &tree->roots[0];
        for (int d = 0; d < 15; ++d) deepest = &deepest->children.at(0);
        // #16 at depth 15 holds #17 (its child) and then #18 ... #100000 as flattened siblings.
        ASSERT_EQ(deepest->children.size(), kSteps - 16);
        EXPECT_EQ(deepest->children[0].text.rfind("#17 refine: cfg16", 0), 0u);
        EXPECT_EQ(deepest->children[0].text.find("refined from"), std::string::npos);
        EXPECT_EQ(deepest->children[1].text.rfind("#18 refine: cfg17", 0), 0u);
        EXPECT_NE(deepest->children[1].text.find("(refined from #17)"), std::string::npos)
            << deepest->children[1].text;
        EXPECT_NE(deepest->children.back().text.find("(refined from #99999)"), std::string::npos);
    }
    const std::string html = export_session(s, ReportFormat::Html);
    EXPECT_NE(html.find("#100000 refine: cfg99999"), std::string::npos);
}

TEST(SessionReport, TextCutInsideACharacterOrHoldingControlsStillExports)
{
    // A compiler's message in a UTF-8 locale: the lineage line cuts the detail at 97 bytes,
    // where the two bytes of 'é' begin at byte 96; a NUL and a bell come from an edited file.
    tune::TuneSession s = known_session();
    s.candidates[1].detail = std::string(92, 'a') + "\xE2\x80\x98x\xE2\x80\x99 \xC3\xA9t\xC3\xA9 " +
                             std::string(40, 'b');
    s.candidates[2].detail = std::string("x") + '\0' + "y\a z \xFF end";
    s.candidates[2].parent = s.candidates[1].id; // the lineage tree shows the details
    s.candidates[2].origin = "refine";
    const std::string html = export_session(s, ReportFormat::Html);
    EXPECT_TRUE(gsr::test::valid_utf8(html));
    EXPECT_EQ(html.find('\0'), std::string::npos);
    EXPECT_NE(html.find("x\xEF\xBF\xBDy\xEF\xBF\xBD z \xEF\xBF\xBD end"), std::string::npos);
    EXPECT_NE(html.find("a\xE2\x80\x98x...<ul>"), std::string::npos); // cut before the '’'

    if (!pdf_available()) GTEST_SKIP() << "this build has no cairo";
    const std::string pdf = export_session(s, ReportFormat::Pdf);
    EXPECT_EQ(pdf.rfind("%PDF-", 0), 0u);
    gsr::test::ScratchDir dir("gsr_session_pdf_utf8");
    const auto file = dir.path / "session.pdf";
    write_file_atomically(file.string(), pdf);
    if (!gsr::test::on_path("pdftotext")) GTEST_SKIP() << "pdftotext (poppler-utils) not on PATH";
    const std::string text = gsr::test::pdf_text(file);
    const std::string shown = "x\xEF\xBF\xBDy\xEF\xBF\xBD z \xEF\xBF\xBD end"; // U+FFFD each
    EXPECT_NE(text.find(shown), std::string::npos) << text;
    EXPECT_NE(text.find("\xE2\x80\x98x..."), std::string::npos) << text;
}

TEST(SessionReport, PdfRendersAndLongTablesSpanPages)
{
    tune::TuneSession s = known_session();
    // 150 candidates: the table cannot fit on the first page.
    for (std::size_t i = 5; i < 150; ++i) {
        tune::CandidateRecord c = s.candidates[0];
        c.id = i;
        c.label = "tile=" + std::to_string(i) + " vec=2 stages=3 a-rather-long-config-name";
        c.seconds = 0.011 + 1e-4 * double(i);
        s.candidates.push_back(c);
    }
    if (!pdf_available()) {
        try {
            export_session(s, ReportFormat::Pdf);
            FAIL() << "a build without cairo must refuse PDF";
        } catch (const gsr::Error& e) {
            EXPECT_NE(e.message().find("lacks cairo"), std::string::npos) << e.message();
        }
        GTEST_SKIP() << "this build has no cairo";
    }
    const std::string pdf = export_session(s, ReportFormat::Pdf);
    ASSERT_GT(pdf.size(), 1000u);
    EXPECT_EQ(pdf.rfind("%PDF-", 0), 0u);
    EXPECT_NE(pdf.find("%%EOF", pdf.size() - 16), std::string::npos);

    gsr::test::ScratchDir dir("gsr_session_pdf");
    const auto file = dir.path / "session.pdf";
    write_file_atomically(file.string(), pdf);
    EXPECT_EQ(gsr::test::read_text(file), pdf);
    if (!gsr::test::on_path("pdftoppm")) GTEST_SKIP() << "pdftoppm (poppler-utils) not on PATH";
    EXPECT_GE(gsr::test::pdf_pages(file), 3); // bounds, roofline, then the table's pages
#ifdef GSR_HAVE_CAIRO
    const double ink1 = gsr::test::rendered_ink(file, 1, dir.path);
    const double ink3 = gsr::test::rendered_ink(file, 3, dir.path);
    EXPECT_GT(ink1, 0.01) << "page 1 renders (almost) blank";
    EXPECT_LT(ink1, 0.9);
    EXPECT_GT(ink3, 0.005) << "page 3 renders blank";
#endif
}

TEST(ReportExport, FormatsFromNamesAndExtensions)
{
    EXPECT_EQ(parse_report_format("pdf"), ReportFormat::Pdf);
    EXPECT_FALSE(parse_report_format("docx"));
    EXPECT_EQ(report_format_of_path("out/Report.HTM"), ReportFormat::Html);
    EXPECT_EQ(report_format_of_path("a.csv"), ReportFormat::Csv);
    EXPECT_FALSE(report_format_of_path("a"));
}

TEST(ReportExport, AtomicWriteReplacesAndReportsFailures)
{
    gsr::test::ScratchDir dir("gsr_atomic_write");
    const auto file = dir.path / "r.json";
    write_file_atomically(file.string(), "first");
    write_file_atomically(file.string(), "second");
    EXPECT_EQ(gsr::test::read_text(file), "second");
    std::size_t entries = 0;
    for (const auto& e : std::filesystem::directory_iterator(dir.path)) entries += e.exists();
    EXPECT_EQ(entries, 1u); // no temporary file left behind
    try {
        write_file_atomically((dir.path / "missing" / "r.json").string(), "x");
        FAIL() << "writing into a missing folder must fail";
    } catch (const gsr::Error& e) {
        // The target and its missing folder, not the temporary file written beside it.
        const std::string what = e.what();
        EXPECT_EQ(what.rfind((dir.path / "missing" / "r.json").string() + ": error: ", 0), 0u)
            << what;
        EXPECT_NE(what.find("the folder " + (dir.path / "missing").string() + " does not exist"),
                  std::string::npos)
            << what;
        EXPECT_EQ(what.find(".tmp."), std::string::npos) << what;
    }
    // A folder that cannot be written: the message names it and the system's reason.
    if (::geteuid() != 0) { // root writes anywhere
        const auto locked = dir.path / "locked";
        std::filesystem::create_directory(locked);
        std::filesystem::permissions(locked, std::filesystem::perms::owner_read |
                                                 std::filesystem::perms::owner_exec);
        try {
            write_file_atomically((locked / "r.json").string(), "x");
            ADD_FAILURE() << "writing into a read-only folder must fail";
        } catch (const gsr::Error& e) {
            EXPECT_NE(std::string(e.what()).find("cannot create a file in the folder " +
                                                 locked.string() + ": Permission denied"),
                      std::string::npos)
                << e.what();
        }
        std::filesystem::permissions(locked, std::filesystem::perms::owner_all);
    }
}
