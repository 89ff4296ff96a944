// Arrival times from Liberty NLDM tables: a hand-computed chain of cells, and the IWLS 2005
// netlists on GSCLib checked for sign, monotonicity and against a recursive evaluation written
// here independently of compute_arrival_times.
#include "label_test_support.hpp"
#include "labels/arrival_time.hpp"
#include "labels/net_structure.hpp"
#include "netlist/readers.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

using gsr::SourceText;
using gsr::netlist::Circuit;
using gsr::netlist::Library;
using namespace gsr::labels;

namespace {

// Every table is linear over its grid (t and l in {0, 1}), so interpolation gives the
// formula exactly: rise/fall delays and transitions in ns, t in ns, l in pF.
//   INV   A cap 0.01   rise 0.1 + t + 2l       fall 0.05 + 0.5t + l
//                      rise_tr 0.02 + 0.5t + 4l   fall_tr 0.01 + l
//   NAND2 A cap 0.02   A->Y rise 0.2 + t + 3l   B->Y rise 0.3 + 0.5t + 3l   fall 0.1
//         B cap 0.03   rise_tr 0.05 + 0.2t + 5l   fall_tr 0.01
//   BUF   A cap 0.005  rise 0.15 + 0.5t + l    fall 0.2 + 0.5t + l (the larger)
//                      rise_tr 0.03 + 0.1t + 2l   fall_tr 0.01
//   REG1  D cap 0.004, CK cap 0.006; CK->Q rising_edge: 0.3 + t + 10l, tr 0.05;
//         a setup arc on D (a constraint: not a delay)
const char* kLib = R"LIB(
library (chain) {
  time_unit : "1ns" ;
  capacitive_load_unit (1, pf) ;
  lu_table_template (tl) {
    variable_1 : input_net_transition ;
    variable_2 : total_output_net_capacitance ;
    index_1 ("0, 1") ;
    index_2 ("0, 1") ;
  }
  cell (INV) {
    pin (A) { direction : input ; capacitance : 0.01 ; }
    pin (Y) { direction : output ; function : "!A" ;
      timing () { related_pin : "A" ; timing_sense : negative_unate ;
        cell_rise (tl) { values ("0.1, 2.1", "1.1, 3.1") ; }
        cell_fall (tl) { values ("0.05, 1.05", "0.55, 1.55") ; }
        rise_transition (tl) { values ("0.02, 4.02", "0.52, 4.52") ; }
        fall_transition (tl) { values ("0.01, 1.01", "0.01, 1.01") ; } } }
  }
  cell (NAND2) {
    pin (A) { direction : input ; capacitance : 0.02 ; }
    pin (B) { direction : input ; capacitance : 0.03 ; }
    pin (Y) { direction : output ; function : "!(A B)" ;
      timing () { related_pin : "A" ;
        cell_rise (tl) { values ("0.2, 3.2", "1.2, 4.2") ; }
        cell_fall (tl) { values ("0.1, 0.1", "0.1, 0.1") ; }
        rise_transition (tl) { values ("0.05, 5.05", "0.25, 5.25") ; }
        fall_transition (tl) { values ("0.01, 0.01", "0.01, 0.01") ; } }
      timing () { related_pin : "B" ;
        cell_rise (tl) { values ("0.3, 3.3", "0.8, 3.8") ; }
        cell_fall (tl) { values ("0.1, 0.1", "0.1, 0.1") ; }
        rise_transition (tl) { values ("0.05, 5.05", "0.25, 5.25") ; }
        fall_transition (tl) { values ("0.01, 0.01", "0.01, 0.01") ; } } }
  }
  cell (BUF) {
    pin (A) { direction : input ; capacitance : 0.005 ; }
    pin (Y) { direction : output ; function : "A" ;
      timing () { related_pin : "A" ;
        cell_rise (tl) { values ("0.15, 1.15", "0.65, 1.65") ; }
        cell_fall (tl) { values ("0.2, 1.2", "0.7, 1.7") ; }
        rise_transition (tl) { values ("0.03, 2.03", "0.13, 2.13") ; }
        fall_transition (tl) { values ("0.01, 0.01", "0.01, 0.01") ; } } }
  }
  cell (REG1) {
    ff (IQ, IQN) { next_state : "D" ; clocked_on : "CK" ; }
    pin (D) { direction : input ; capacitance : 0.004 ;
      timing () { related_pin : "CK" ; timing_type : setup_rising ;
        rise_constraint (tl) { values ("9, 9", "9, 9") ; } } }
    pin (CK) { direction : input ; clock : true ; capacitance : 0.006 ; }
    pin (Q) { direction : output ; function : "IQ" ;
      timing () { related_pin : "CK" ; timing_type : rising_edge ;
        cell_rise (tl) { values ("0.3, 10.3", "1.3, 11.3") ; }
        rise_transition (tl) { values ("0.05, 0.05", "0.05, 0.05") ; } } }
  }
}
)LIB";

// a -> INV u1 -> w1 -> NAND2 u2 (with b) -> w2 -> BUF u3 -> y -> REG1 r -> q -> INV u5 -> o;
// w1 also drives BUF u4 -> z.
const char* kChain = R"LIB(
module chain (a, b, clk, y, z, o);
  input a, b, clk;
  output y, z, o;
  wire w1, w2, q;
  INV u1 (.A(a), .Y(w1));
  NAND2 u2 (.A(w1), .B(b), .Y(w2));
  BUF u3 (.A(w2), .Y(y));
  BUF u4 (.A(w1), .Y(z));
  REG1 r (.D(y), .CK(clk), .Q(q));
  INV u5 (.A(q), .Y(o));
endmodule
)LIB";

} // namespace

TEST(ArrivalNldm, ChainOfCellsByHand)
{
    const Library lib = gsr::netlist::read_liberty(SourceText::from_string("chain.lib", kLib));
    gsr::netlist::LoadOptions load;
    load.library = &lib;
    const Circuit c = gsr::netlist::load_netlist(SourceText::from_string("chain.v", kChain), load);
    const NetStructure s = build_net_structure(c);
    DelayModel model;
    model.library = &lib;
    model.input_transition = 0.1;
    const ArrivalTimes t = compute_arrival_times(c, s, model);
    ASSERT_TRUE(t.nldm);
    EXPECT_EQ(t.cells_without_timing, 0u);
    auto net = [&](const char* n) { return c.net_names.find(n); };
    auto at = [&](const char* n) { return t.arrival[net(n)]; };
    auto tr = [&](const char* n) { return t.transition[net(n)]; };
    constexpr double eps = 1e-12;

    // Loads: w1 = NAND2.A + BUF.A; y = REG1.D; clk = REG1.CK; q = INV.A; ports add nothing.
    EXPECT_NEAR(t.load[net("w1")], 0.025, eps);
    EXPECT_NEAR(t.load[net("w2")], 0.005, eps);
    EXPECT_NEAR(t.load[net("y")], 0.004, eps);
    EXPECT_NEAR(t.load[net("clk")], 0.006, eps);
    EXPECT_NEAR(t.load[net("z")], 0.0, eps);

    EXPECT_DOUBLE_EQ(at("a"), 0.0);
    EXPECT_DOUBLE_EQ(tr("a"), 0.1);
    // w1: INV rise 0.1 + 0.1 + 2 * 0.025 = 0.25; transition 0.02 + 0.05 + 0.1 = 0.17.
    EXPECT_NEAR(at("w1"), 0.25, eps);
    EXPECT_NEAR(tr("w1"), 0.17, eps);
    // w2: via A 0.25 + (0.2 + 0.17 + 0.015) = 0.635; via B 0 + (0.3 + 0.05 + 0.015) = 0.365.
    // Transition: A 0.05 + 0.034 + 0.025 = 0.109; B 0.05 + 0.02 + 0.025 = 0.095.
    EXPECT_NEAR(at("w2"), 0.635, eps);
    EXPECT_NEAR(tr("w2"), 0.109, eps);
    // y: BUF fall (larger than rise) 0.2 + 0.5 * 0.109 + 0.004 = 0.2585.
    EXPECT_NEAR(at("y"), 0.635 + 0.2585, eps);
    EXPECT_NEAR(tr("y"), 0.03 + 0.0109 + 0.008, eps);
    // z: 0.25 + 0.2 + 0.5 * 0.17 + 0 = 0.535.
    EXPECT_NEAR(at("z"), 0.535, eps);
    // q: clock-to-Q from an ideal clock: 0.3 + 0.1 (input transition) + 10 * 0.01 = 0.5.
    EXPECT_NEAR(at("q"), 0.5, eps);
    EXPECT_NEAR(tr("q"), 0.05, eps);
    // o: INV rise 0.1 + 0.05 + 0 = 0.15 after q.
    EXPECT_NEAR(at("o"), 0.65, eps);
    EXPECT_NEAR(t.max_arrival, 0.8935, eps);
}

namespace {

// kLib with HA: its sum S has arcs from A and B (`s_rise`, whatever the transition and
// load), its carry CO none.
std::string half_adder_library(const std::string& s_rise)
{
    std::string lib = kLib;
    lib.insert(lib.rfind('}'), R"LIB(  cell (HA) {
    pin (A) { direction : input ; capacitance : 0.01 ; }
    pin (B) { direction : input ; capacitance : 0.01 ; }
    pin (S) { direction : output ; function : "A ^ B" ;
      timing () { related_pin : "A B" ;
        cell_rise (tl) { values ()LIB" + s_rise + R"LIB() ; } } }
    pin (CO) { direction : output ; function : "A B" ; }
  }
)LIB");
    return lib;
}

// a -> INV u1 -> w -> HA u2 (with b) -> s, co; co -> INV u3 -> y.
const char* kHalfAdder = R"V(
module ha_chain (a, b, s, y);
  input a, b;
  output s, y;
  wire w, co;
  INV u1 (.A(a), .Y(w));
  HA u2 (.A(w), .B(b), .S(s), .CO(co));
  INV u3 (.A(co), .Y(y));
endmodule
)V";

} // namespace

TEST(ArrivalNldm, AnOutputWithoutAnArcPassesItsInputsOn)
{
    const Library lib = gsr::netlist::read_liberty(
        SourceText::from_string("ha.lib", half_adder_library("\"0.3, 0.3\", \"0.3, 0.3\"")));
    gsr::netlist::LoadOptions load;
    load.library = &lib;
    const Circuit c =
        gsr::netlist::load_netlist(SourceText::from_string("ha.v", kHalfAdder), load);
    DelayModel model;
    model.library = &lib;
    model.input_transition = 0.1;
    const ArrivalTimes t = compute_arrival_times(c, build_net_structure(c), model);
    auto at = [&](const char* n) { return t.arrival[c.net_names.find(n)]; };
    constexpr double eps = 1e-12;
    // w: INV rise 0.1 + 0.1 + 2 * 0.01 (HA.A) = 0.22; transition 0.02 + 0.05 + 0.04 = 0.11.
    EXPECT_NEAR(at("w"), 0.22, eps);
    // s: the later of A (0.22 + 0.3) and B (0 + 0.3).
    EXPECT_NEAR(at("s"), 0.52, eps);
    // co has no arc: it passes its latest input on (it arrived at 0 before, under w).
    EXPECT_NEAR(at("co"), 0.22, eps);
    EXPECT_NEAR(t.transition[c.net_names.find("co")], 0.11, eps);
    // y: INV rise 0.1 + 0.11 + 0 after co.
    EXPECT_NEAR(at("y"), 0.43, eps);
    EXPECT_EQ(t.cells_without_timing, 1u); // HA, counted once
}

TEST(ArrivalNldm, ArrivalsThatOverflowAreRefusedNamingTheNet)
{
    // Two sums of 1e308 ns in a row: s1 is 1e308, s2 after it infinite.
    const Library lib = gsr::netlist::read_liberty(SourceText::from_string(
        "huge.lib", half_adder_library("\"1e308, 1e308\", \"1e308, 1e308\"")));
    gsr::netlist::LoadOptions load;
    load.library = &lib;
    const Circuit c = gsr::netlist::load_netlist(
        SourceText::from_string("two.v", "module two (a, b, s2);\n  input a, b;\n  output s2;\n"
                                          "  wire s1;\n  HA u1 (.A(a), .B(b), .S(s1));\n"
                                          "  HA u2 (.A(s1), .B(b), .S(s2));\nendmodule\n"),
        load);
    DelayModel model;
    model.library = &lib;
    try {
        compute_arrival_times(c, build_net_structure(c), model);
        ADD_FAILURE() << "an infinite arrival was accepted";
    } catch (const gsr::Error& e) {
        EXPECT_NE(e.message().find("the arrival time of net 's2' is not a finite number"),
                  std::string::npos)
            << e.message();
        // At the cell driving it, in the netlist (it named no file at all).
        EXPECT_EQ(e.where().file, "two.v");
        EXPECT_EQ(e.where().line, 6);
    }
    // The unit-delay model with a load factor past any sense: w drives two pins, 2e308.
    DelayModel unit;
    unit.load_factor = 1e308;
    const Circuit plain = gsr::labels::testing::circuit_of(
        "t.v", "module t(a, y, z);\ninput a;\noutput y, z;\nwire w;\nINV u1 (.A(a), .Y(w));\n"
               "INV u2 (.A(w), .Y(y));\nINV u3 (.A(w), .Y(z));\nendmodule\n");
    EXPECT_THROW(compute_arrival_times(plain, build_net_structure(plain), unit), gsr::Error);
}

TEST(ArrivalNldm, LibraryWithoutTablesKeepsTheUnitDelayModel)
{
    // The same netlist with a library that has no delay tables: the area-proxy model.
    const Library lib = gsr::netlist::read_liberty(SourceText::from_string(
        "n.lib", "library (n) { cell (INV) { area : 1 ; pin (A) { direction : input ; }\n"
                 "pin (Y) { direction : output ; } } }\n"));
    const Circuit c = gsr::labels::testing::circuit_of(
        "t.v", "module t(a, y);\ninput a;\noutput y;\nINV u1 (.A(a), .Y(y));\nendmodule\n");
    const NetStructure s = build_net_structure(c);
    DelayModel model;
    model.library = &lib;
    const ArrivalTimes t = compute_arrival_times(c, s, model);
    EXPECT_FALSE(t.nldm);
    EXPECT_TRUE(t.transition.empty());
    EXPECT_DOUBLE_EQ(t.arrival[c.net_names.find("y")], 1.0); // INV 1.0, no load
}

namespace {

/// Bilinear interpolation with linear extrapolation, written apart from TimingTable::lookup.
double interpolate(const gsr::netlist::TimingTable& tt, double t, double l)
{
    if (tt.values.empty()) return 0.0;
    auto weights = [](const std::vector<double>& axis, double x, std::size_t& lo) {
        if (axis.size() == 1) {
            lo = 0;
            return 0.0;
        }
        lo = 0;
        while (lo + 2 < axis.size() && x > axis[lo + 1]) ++lo;
        return (x - axis[lo]) / (axis[lo + 1] - axis[lo]);
    };
    std::size_t i = 0, j = 0;
    const double u = weights(tt.transition, t, i), v = weights(tt.load, l, j);
    const std::size_t n = tt.load.size();
    auto at = [&](std::size_t a, std::size_t b) {
        return tt.values[std::min(a, tt.transition.size() - 1) * n + std::min(b, n - 1)];
    };
    const double low = at(i, j) + v * (at(i, j + 1) - at(i, j));
    const double high = at(i + 1, j) + v * (at(i + 1, j + 1) - at(i + 1, j));
    return low + u * (high - low);
}

struct Iwls {
    Circuit circuit;
    NetStructure structure;
    ArrivalTimes times;
    double seconds = 0.0;      ///< NLDM, best of 5
    double unit_seconds = 0.0; ///< the unit-delay model on the same circuit, best of 5
};

template <class Fn>
double best_of_5(Fn&& fn)
{
    double best = 1e30;
    for (int i = 0; i < 5; ++i) {
        const auto start = std::chrono::steady_clock::now();
        fn();
        best = std::min(
            best, std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    }
    return best;
}

const Library& gsclib()
{
    static const Library lib = gsr::netlist::load_libraries(
        {gsr::labels::testing::netlists_dir() + "/iwls05_gsclib180/lib/GSCLib_3.0.lib"});
    return lib;
}

Iwls run_iwls(const std::string& name)
{
    Iwls r;
    gsr::netlist::LoadOptions load;
    load.library = &gsclib();
    r.circuit = gsr::netlist::load_netlist(
        gsr::labels::testing::netlists_dir() + "/iwls05_gsclib180/netlist/" + name, load);
    r.structure = build_net_structure(r.circuit);
    DelayModel model;
    model.library = &gsclib();
    r.seconds = best_of_5([&] { r.times = compute_arrival_times(r.circuit, r.structure, model); });
    r.unit_seconds =
        best_of_5([&] { (void)compute_arrival_times(r.circuit, r.structure, DelayModel{}); });
    return r;
}

/// The latest arrival of every net by recursion from the net back to the primary inputs and
/// flip-flops, memoized, with loads summed here from the circuit's pins.
std::vector<double> recursive_arrival(const Circuit& c, const NetStructure& s,
                                      const Library& lib, double input_transition)
{
    using gsr::netlist::Direction;
    const std::size_t nets = c.net_count();
    std::vector<double> load(nets, 0.0);
    for (const auto& cell : c.cells) {
        const auto* lc = lib.find(c.cell_type(cell));
        for (std::uint32_t k = 0; k < cell.pin_count; ++k) {
            const auto& p = c.pins_of(cell)[k];
            if (p.dir != Direction::Input || p.net == gsr::netlist::kNoNet || !lc) continue;
            if (const auto* lp = lib.find_pin(lc->name, c.pin_name(p)))
                load[p.net] += lp->capacitance;
        }
    }
    std::vector<double> arrival(nets, -1.0), slew(nets, input_transition);
    std::function<void(gsr::netlist::NetId)> visit = [&](gsr::netlist::NetId n) {
        if (arrival[n] >= 0.0) return;
        arrival[n] = 0.0;
        const CellId d = s.driver[n];
        if (d == kNoCell) return;
        const auto& cell = c.cells[d];
        const auto* lc = lib.find(c.cell_type(cell));
        if (!lc) return;
        const bool seq = !s.combinational[d];
        double best = 0.0, best_slew = 0.0;
        for (std::uint32_t k = 0; k < cell.pin_count; ++k) {
            const auto& out = c.pins_of(cell)[k];
            if (out.net != n || out.dir != Direction::Output) continue;
            for (const auto& arc : lib.find_pin(lc->name, c.pin_name(out))->timing) {
                if (arc.type != (seq ? gsr::netlist::TimingArc::Type::ClockEdge
                                     : gsr::netlist::TimingArc::Type::Combinational))
                    continue;
                for (const std::string& rel : arc.related_pins) {
                    double in_at = 0.0, in_slew = input_transition;
                    if (!seq) {
                        bool found = false;
                        for (std::uint32_t q = 0; q < cell.pin_count; ++q) {
                            const auto& in = c.pins_of(cell)[q];
                            if (in.dir != Direction::Input || c.pin_name(in) != rel) continue;
                            visit(in.net);
                            in_at = arrival[in.net];
                            in_slew = slew[in.net];
                            found = true;
                        }
                        if (!found) continue;
                    }
                    const double d_arc =
                        std::max({0.0, interpolate(arc.cell_rise, in_slew, load[n]),
                                  interpolate(arc.cell_fall, in_slew, load[n])});
                    const double s_arc =
                        std::max({0.0, interpolate(arc.rise_transition, in_slew, load[n]),
                                  interpolate(arc.fall_transition, in_slew, load[n])});
                    best = std::max(best, in_at + d_arc);
                    best_slew = std::max(best_slew, s_arc);
                }
            }
        }
        arrival[n] = best;
        slew[n] = best_slew;
    };
    for (gsr::netlist::NetId n = 0; n < nets; ++n) visit(n);
    return arrival;
}

} // namespace

TEST(ArrivalNldm, IwlsNetlistsOnGscLib)
{
    for (const char* name : {"s27.v", "s344.v", "s1196.v", "s5378.v", "s38417.v"}) {
        SCOPED_TRACE(name);
        const Iwls r = run_iwls(name);
        const Circuit& c = r.circuit;
        const NetStructure& s = r.structure;
        const ArrivalTimes& t = r.times;
        ASSERT_TRUE(t.nldm);
        EXPECT_EQ(t.cells_without_timing, 0u);
        double latest = 0.0;
        std::size_t driven = 0;
        for (NetId n = 0; n < c.net_count(); ++n) {
            ASSERT_TRUE(std::isfinite(t.arrival[n]) && std::isfinite(t.transition[n]));
            ASSERT_GE(t.arrival[n], 0.0);
            latest = std::max(latest, t.arrival[n]);
            // Every net a library cell drives (logic or flip-flop) arrives after 0.
            if (s.driver[n] != kNoCell && c.cells[s.driver[n]].kind ==
                                              gsr::netlist::CellKind::Instance) {
                EXPECT_GT(t.arrival[n], 0.0) << c.net_name(n);
                EXPECT_GT(t.transition[n], 0.0) << c.net_name(n);
                ++driven;
            }
        }
        EXPECT_GT(driven, 0u);
        EXPECT_DOUBLE_EQ(t.max_arrival, latest);
        // Monotone along every combinational edge: a cell's output after each of its inputs.
        std::size_t edges = 0;
        for (CellId cell : s.order)
            for (std::uint32_t pin : s.inputs(cell))
                for (NetId out : s.outputs(cell)) {
                    EXPECT_GE(t.arrival[out], t.arrival[c.pins[pin].net])
                        << c.net_name(c.pins[pin].net) << " -> " << c.net_name(out);
                    ++edges;
                }
        EXPECT_GT(edges, 0u);
        // The whole picture again, by recursion, with its own loads and interpolation.
        const std::vector<double> ref = recursive_arrival(c, s, gsclib(), 0.1);
        double ref_max = 0.0;
        for (NetId n = 0; n < c.net_count(); ++n) {
            EXPECT_NEAR(t.arrival[n], ref[n], 1e-9) << c.net_name(n);
            ref_max = std::max(ref_max, ref[n]);
        }
        EXPECT_NEAR(t.max_arrival, ref_max, 1e-9);
        std::printf("[ NLDM     ] %s: %zu nets, max arrival %.4f ns, NLDM %.6f s, "
                    "unit-delay %.6f s\n",
                    name, c.net_count(), t.max_arrival, r.seconds, r.unit_seconds);
    }
}

TEST(ArrivalNldm, FillerAndTapCellsAreNotCellsWithoutTiming)
{
    // gcd's DEF has 308 FILLCELL/TAPCELL components, which drive nothing: the warning said
    // "308 combinational cells have no timing arc".
    const std::string dir = std::string(GSR_DATA_DIR) + "/netlists/openroad_nangate45/";
    const Library lib =
        gsr::netlist::load_libraries({dir + "Nangate45.lef", dir + "nangate45_typ.lib.gz"});
    gsr::netlist::LoadOptions load;
    load.library = &lib;
    const Circuit c = gsr::netlist::load_netlist(dir + "gcd_nangate45.def", load);
    std::size_t drive_nothing = 0;
    const NetStructure s = build_net_structure(c);
    for (gsr::netlist::CellId cell = 0; cell < c.cells.size(); ++cell)
        drive_nothing += s.outputs(cell).empty();
    EXPECT_EQ(drive_nothing, 308u);
    DelayModel model;
    model.library = &lib;
    const ArrivalTimes t = compute_arrival_times(c, s, model);
    ASSERT_TRUE(t.nldm);
    EXPECT_EQ(t.cells_without_timing, 0u);
}
