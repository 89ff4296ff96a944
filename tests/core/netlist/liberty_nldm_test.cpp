// The NLDM side of the Liberty reader: templates, table orientation, units, pin capacitance,
// wire loads, and TimingTable::lookup against hand-computed values.
#include "netlist/readers.hpp"

#include <gtest/gtest.h>

#include <string>

namespace gsr::netlist {
namespace {

Library nldm_of(const std::string& text)
{
    return read_liberty(SourceText::from_string("t.lib", text));
}

// Both tables hold f(t, l) = 1 + 10 t + 25 l + 125 (t - 0.1)(l - 0.01) over t in {0.1, 0.3}
// and l in {0.01, 0.05}: f(0.1, 0.01) = 1, f(0.1, 0.05) = 2, f(0.3, 0.01) = 3,
// f(0.3, 0.05) = 5. cell_rise lists them transition-major (tl), cell_fall load-major (lt).
const char* kTwoOrders = R"LIB(
library (t) {
  time_unit : "1ns" ;
  capacitive_load_unit (1, pf) ;
  lu_table_template (tl) {
    variable_1 : input_net_transition ;
    variable_2 : total_output_net_capacitance ;
    index_1 ("0.1, 0.3") ;
    index_2 ("0.01, 0.05") ;
  }
  lu_table_template (lt) {
    variable_1 : total_output_net_capacitance ;
    variable_2 : input_net_transition ;
    index_1 ("1000, 1001") ;
    index_2 ("1000, 1001") ;
  }
  lu_table_template (t1) {
    variable_1 : input_net_transition ;
    index_1 ("0.1, 0.5") ;
  }
  cell (C) {
    pin (a) { direction : input ; capacitance : 0.002 ; }
    pin (b) { direction : input ; rise_capacitance : 0.003 ; fall_capacitance : 0.004 ; }
    pin (y) {
      direction : output ;
      timing () {
        related_pin : "a b" ;
        cell_rise (tl) { values ("1.0, 2.0", "3.0, 5.0") ; }
        cell_fall (lt) {
          index_1 ("0.01, 0.05") ;
          index_2 ("0.1, 0.3") ;
          values ("1.0, 3.0", \
                  "2.0, 5.0") ;
        }
        rise_transition (t1) { values ("0.2, 0.6") ; }
        fall_transition (scalar) { values ("0.25") ; }
      }
      timing () {
        related_pin : "a" ;
        timing_type : setup_rising ;
        rise_constraint (tl) { values ("1, 1", "1, 1") ; }
      }
    }
  }
}
)LIB";

TEST(LibertyNldm, ReadsBothTemplateOrdersIntoTransitionByLoad)
{
    const Library lib = nldm_of(kTwoOrders);
    const LibraryPin* y = lib.find_pin("C", "y");
    ASSERT_NE(y, nullptr);
    ASSERT_EQ(y->timing.size(), 1u); // the setup arc is a constraint, not a delay
    EXPECT_EQ(lib.timing_arcs, 1u);
    EXPECT_TRUE(lib.has_timing());
    const TimingArc& arc = y->timing[0];
    EXPECT_EQ(arc.related_pins, (std::vector<std::string>{"a", "b"}));
    EXPECT_EQ(arc.type, TimingArc::Type::Combinational);
    for (const TimingTable* t : {&arc.cell_rise, &arc.cell_fall}) {
        EXPECT_EQ(t->transition, (std::vector<double>{0.1, 0.3}));
        EXPECT_EQ(t->load, (std::vector<double>{0.01, 0.05}));
        EXPECT_EQ(t->values, (std::vector<double>{1.0, 2.0, 3.0, 5.0}));
    }
    EXPECT_DOUBLE_EQ(lib.find_pin("C", "a")->capacitance, 0.002);
    EXPECT_DOUBLE_EQ(lib.find_pin("C", "b")->capacitance, 0.004); // max of rise and fall
}

TEST(LibertyNldm, BilinearInsideAndLinearOutside)
{
    const Library lib = nldm_of(kTwoOrders);
    const TimingArc& arc = lib.find_pin("C", "y")->timing[0];
    for (const TimingTable* t : {&arc.cell_rise, &arc.cell_fall}) {
        // Corners, the centre, a quarter of the way, then outside on each side.
        EXPECT_NEAR(t->lookup(0.1, 0.01), 1.0, 1e-12);
        EXPECT_NEAR(t->lookup(0.3, 0.05), 5.0, 1e-12);
        EXPECT_NEAR(t->lookup(0.2, 0.03), 2.75, 1e-12);
        EXPECT_NEAR(t->lookup(0.15, 0.02), 1.8125, 1e-12);
        EXPECT_NEAR(t->lookup(0.5, 0.01), 5.0, 1e-12);  // u = 2: -1 * 1 + 2 * 3
        EXPECT_NEAR(t->lookup(0.0, 0.09), 1.0, 1e-12);  // u = -0.5, v = 2
        EXPECT_NEAR(t->lookup(0.2, 0.0), 1.625, 1e-12); // v = -0.25: 1 + 1 - 0.25 - 0.125
    }
    // One axis: the load does not matter. Scalar: a constant.
    EXPECT_NEAR(arc.rise_transition.lookup(0.3, 7.0), 0.4, 1e-12);
    EXPECT_NEAR(arc.rise_transition.lookup(0.7, 0.0), 0.8, 1e-12); // extrapolated
    EXPECT_NEAR(arc.fall_transition.lookup(5.0, 5.0), 0.25, 1e-12);
}

TEST(LibertyNldm, ConvertsUnitsToNanosecondsAndPicofarads)
{
    // 100 ps and fF units: a value of 2 is 0.2 ns, an index of 10 is 0.01 pF.
    const Library lib = nldm_of(R"LIB(
library (u) {
  time_unit : "100ps" ;
  capacitive_load_unit (1, ff) ;
  lu_table_template (tl) {
    variable_1 : input_net_transition ;
    variable_2 : total_output_net_capacitance ;
    index_1 ("1, 3") ;
    index_2 ("10, 50") ;
  }
  cell (C) {
    pin (a) { direction : input ; capacitance : 2 ; }
    pin (y) { direction : output ;
      timing () { related_pin : "a" ; cell_rise (tl) { values ("2, 4", "6, 10") ; } } }
  }
}
)LIB");
    EXPECT_DOUBLE_EQ(lib.time_unit_ns, 0.1);
    EXPECT_DOUBLE_EQ(lib.cap_unit_pf, 0.001);
    EXPECT_DOUBLE_EQ(lib.find_pin("C", "a")->capacitance, 0.002);
    const TimingTable& t = lib.find_pin("C", "y")->timing[0].cell_rise;
    EXPECT_NEAR(t.lookup(0.1, 0.01), 0.2, 1e-12);
    EXPECT_NEAR(t.lookup(0.2, 0.03), 0.55, 1e-12); // centre: (2 + 4 + 6 + 10) / 4 * 0.1
}

TEST(LibertyNldm, WireLoadByFanout)
{
    const Library lib = nldm_of(R"LIB(
library (w) {
  capacitive_load_unit (1, pf) ;
  default_wire_load : "small" ;
  wire_load ("small") {
    capacitance : 0.5 ;
    slope : 2 ;
    fanout_length (3, 0.5) ;
    fanout_length (1, 0.1) ;
  }
  cell (C) { pin (a) { direction : input ; } }
}
)LIB");
    const WireLoad* w = lib.default_wire();
    ASSERT_NE(w, nullptr);
    EXPECT_EQ(w->name, "small");
    EXPECT_DOUBLE_EQ(w->wire_capacitance(0), 0.0);
    EXPECT_DOUBLE_EQ(w->wire_capacitance(1), 0.05);
    EXPECT_DOUBLE_EQ(w->wire_capacitance(2), 0.5 * 0.3);       // between the listed points
    EXPECT_DOUBLE_EQ(w->wire_capacitance(5), 0.5 * (0.5 + 4)); // past them: slope 2 per fan-out
    EXPECT_FALSE(lib.has_timing());
}

TEST(LibertyNldm, MalformedTablesNameTheLine)
{
    // A table of the wrong size is left out with a warning on its line; the library stays.
    const Library lib = nldm_of("library (x) {\n"
                              "  lu_table_template (tl) { variable_1 : input_net_transition ;\n"
                              "    variable_2 : total_output_net_capacitance ;\n"
                              "    index_1 (\"1, 2\") ; index_2 (\"1, 2\") ; }\n"
                              "  cell (C) { pin (y) { direction : output ;\n"
                              "    timing () { related_pin : \"a\" ;\n"
                              "      cell_rise (tl) { values (\"1, 2\", \"3\") ; } } } }\n"
                              "}\n");
    EXPECT_FALSE(lib.has_timing());
    ASSERT_EQ(lib.diagnostics.warnings().size(), 1u);
    const auto& w = lib.diagnostics.warnings()[0];
    EXPECT_EQ(w.where.line, 7);
    EXPECT_NE(w.message.find("expected 2 x 2 values in cell_rise, found 3"), std::string::npos)
        << w.message;
    // A number that is not one is a syntax error, with its place.
    try {
        nldm_of("library (x) {\n  lu_table_template (tl) { variable_1 : input_net_transition ;\n"
              "    index_1 (\"1, x2\") ; }\n}\n");
        FAIL() << "a non-number index parsed";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("t.lib:3:"), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find("expected a number"), std::string::npos)
            << e.what();
    }
}

TEST(LibertyNldm, UnknownTemplateIsAWarningAndTheTableIsLeftOut)
{
    const Library lib = nldm_of(
        "library (x) {\n  cell (C) { pin (y) { direction : output ;\n"
        "    timing () { related_pin : \"a\" ; cell_rise (nope) { values (\"1\") ; } } } }\n}\n");
    EXPECT_FALSE(lib.has_timing());
    ASSERT_FALSE(lib.diagnostics.warnings().empty());
}

TEST(LibertyNldm, GscLibHasTablesForEveryCombinationalCell)
{
    const std::string path =
        std::string(GSR_DATA_DIR) + "/netlists/iwls05_gsclib180/lib/GSCLib_3.0.lib";
    const Library lib = read_liberty(SourceText::read_file(path));
    EXPECT_DOUBLE_EQ(lib.time_unit_ns, 1.0);
    EXPECT_DOUBLE_EQ(lib.cap_unit_pf, 1.0);
    // ADDHX1 A -> CO, read from the file's 7x7 table (load-major): index_1 is the load.
    const LibraryPin* co = lib.find_pin("ADDHX1", "CO");
    ASSERT_NE(co, nullptr);
    ASSERT_GE(co->timing.size(), 2u);
    const TimingTable& rise = co->timing[0].cell_rise;
    ASSERT_EQ(rise.transition.size(), 7u);
    EXPECT_DOUBLE_EQ(rise.transition[0], 0.024);
    EXPECT_DOUBLE_EQ(rise.load[6], 0.1);
    EXPECT_DOUBLE_EQ(rise.values[0 * 7 + 6], 0.249975); // load 0.1, transition 0.024
    EXPECT_DOUBLE_EQ(rise.values[6 * 7 + 0], -0.255159); // load 0.005, transition 2.16
    EXPECT_DOUBLE_EQ(lib.find_pin("ADDHX1", "A")->capacitance, 0.014946);
    for (const LibraryCell& c : lib.cells) {
        if (c.is_ff || c.is_latch) continue;
        std::size_t arcs = 0;
        for (const LibraryPin& p : c.pins) arcs += p.timing.size();
        EXPECT_GT(arcs, 0u) << c.name;
    }
}

} // namespace
} // namespace gsr::netlist
