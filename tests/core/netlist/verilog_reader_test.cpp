#include "netlist/readers.hpp"
#include "damaged_input.hpp"
#include "malformed_corpus.hpp"

#include <gtest/gtest.h>

#include <cctype>
#include <filesystem>
#include <fstream>
#include <optional>

using gsr::SourceText;
using namespace gsr::netlist;

namespace {

Circuit verilog(const std::string& text)
{
    Circuit c = read_verilog(SourceText::from_string("t.v", text));
    c.finalize_counts();
    return c;
}

/// The error a text raises; fails the test when it reads without one.
gsr::Error verilog_error(const std::string& text)
{
    try {
        read_verilog(SourceText::from_string("t.v", text));
    } catch (const gsr::Error& e) {
        return e;
    }
    ADD_FAILURE() << "no error for:\n" << text;
    return gsr::Error("none");
}

const Cell* cell_named(const Circuit& c, std::string_view name)
{
    for (const Cell& cell : c.cells)
        if (c.cell_name(cell) == name) return &cell;
    return nullptr;
}

/// Net names of a cell's pins, "" for an unconnected (or X or Z) pin.
std::vector<std::string> pin_nets(const Circuit& c, const Cell& cell)
{
    std::vector<std::string> out;
    for (std::uint32_t i = 0; i < cell.pin_count; ++i) {
        const Pin& p = c.pins_of(cell)[i];
        out.emplace_back(p.net == kNoNet ? "" : std::string(c.net_name(p.net)));
    }
    return out;
}

std::vector<std::string> pin_names(const Circuit& c, const Cell& cell)
{
    std::vector<std::string> out;
    for (std::uint32_t i = 0; i < cell.pin_count; ++i)
        out.emplace_back(c.pin_name(c.pins_of(cell)[i]));
    return out;
}

std::vector<std::string> port_names(const Circuit& c)
{
    std::vector<std::string> out;
    for (const Port& p : c.ports) out.emplace_back(c.names.view(p.name));
    return out;
}

bool has_warning(const Circuit& c, std::string_view piece)
{
    for (const gsr::Warning& w : c.diagnostics.warnings())
        if (w.message.find(piece) != std::string::npos) return true;
    return false;
}

const ModuleInfo* module_info(const Circuit& c, std::string_view name)
{
    for (const ModuleInfo& m : c.modules)
        if (m.name == name) return &m;
    return nullptr;
}

using Names = std::vector<std::string>;

} // namespace

// --- gate primitives --------------------------------------------------------------------------

TEST(VerilogReader, GatePrimitiveOutputComesFirst)
{
    const Circuit c =
        verilog("module m(a, b, y); input a, b; output y; nand g1(y, a, b); endmodule");
    ASSERT_EQ(c.cells.size(), 1u);
    EXPECT_EQ(c.cell_type(c.cells[0]), "NAND");
    EXPECT_EQ(c.cells[0].kind, CellKind::Logic);
    EXPECT_EQ(pin_nets(c, c.cells[0]), (Names{"y", "a", "b"}));
    EXPECT_EQ(c.pins_of(c.cells[0])[0].dir, Direction::Output);
    EXPECT_EQ(c.pins_of(c.cells[0])[1].dir, Direction::Input);
}

TEST(VerilogReader, GateInstanceNameIsOptional)
{
    const Circuit c = verilog("module m(a, y); input a; output y; not (y, a); endmodule");
    ASSERT_EQ(c.cells.size(), 1u);
    EXPECT_EQ(c.cells[0].name, gsr::kNoName);
    EXPECT_EQ(c.cell_type(c.cells[0]), "NOT");
}

TEST(VerilogReader, BufDrivesAllButItsLastTerminal)
{
    const Circuit c =
        verilog("module m(a, x, y); input a; output x, y; buf b1(x, y, a); endmodule");
    const Pin* p = c.pins_of(c.cells[0]);
    EXPECT_EQ(p[0].dir, Direction::Output);
    EXPECT_EQ(p[1].dir, Direction::Output);
    EXPECT_EQ(p[2].dir, Direction::Input);
}

TEST(VerilogReader, SeveralGatesInOneStatementWithDelay)
{
    const Circuit c = verilog("module m(a, b, x, y); input a, b; output x, y;\n"
                              "  and #(1, 2) g1(x, a, b), g2(y, b, a);\nendmodule");
    ASSERT_EQ(c.cells.size(), 2u);
    EXPECT_EQ(c.cell_name(c.cells[1]), "g2");
}

TEST(VerilogReader, TristateBuffersAreLogicCells)
{
    const Circuit c =
        verilog("module m(a, e, y); input a, e; output y; bufif1 t(y, a, e); endmodule");
    EXPECT_EQ(c.cell_type(c.cells[0]), "BUFIF1");
    EXPECT_EQ(c.cells[0].kind, CellKind::Logic);
}

TEST(VerilogReader, SwitchPrimitiveOutsideADffIsALogicCellWithAWarning)
{
    const Circuit c =
        verilog("module m(a, g, y); input a, g; output y; nmos n1(y, a, g); endmodule");
    EXPECT_EQ(c.cell_type(c.cells[0]), "NMOS");
    EXPECT_TRUE(has_warning(c, "switch-level"));
}

// --- ports, declarations, names ---------------------------------------------------------------

TEST(VerilogReader, NonAnsiPortsGetOnePortPerBit)
{
    const Circuit c = verilog("module m(a, y);\n input [3:0] a;\n output y;\nendmodule");
    EXPECT_EQ(port_names(c), (Names{"a[3]", "a[2]", "a[1]", "a[0]", "y"}));
    EXPECT_EQ(*c.counts.inputs, 4);
    EXPECT_EQ(*c.counts.outputs, 1);
}

TEST(VerilogReader, AnsiPortRangeCarriesToTheNextName)
{
    const Circuit c = verilog("module m(input wire [1:0] a, b, output y); endmodule");
    EXPECT_EQ(port_names(c), (Names{"a[1]", "a[0]", "b[1]", "b[0]", "y"}));
}

TEST(VerilogReader, AscendingRangeListsBitsFromTheLeft)
{
    const Circuit c = verilog("module m(a); input [0:2] a; endmodule");
    EXPECT_EQ(port_names(c), (Names{"a[0]", "a[1]", "a[2]"}));
}

TEST(VerilogReader, PortRangeMayComeFromTheWireDeclaration)
{
    const Circuit c = verilog("module m(a); input a; wire [1:0] a; endmodule");
    EXPECT_EQ(port_names(c), (Names{"a[1]", "a[0]"}));
}

TEST(VerilogReader, InoutCountsAsInputAndOutput)
{
    const Circuit c = verilog("module m(p); inout p; endmodule");
    EXPECT_EQ(c.ports[0].dir, Direction::InOut);
    EXPECT_EQ(*c.counts.inputs, 1);
    EXPECT_EQ(*c.counts.outputs, 1);
}

TEST(VerilogReader, EscapedIdentifierWithBracketsIsAScalar)
{
    const Circuit c =
        verilog("module m(\\a[0] , y); input \\a[0] ; output y; not (y, \\a[0] ); endmodule");
    EXPECT_EQ(port_names(c), (Names{"a[0]", "y"}));
    EXPECT_EQ(pin_nets(c, c.cells[0]), (Names{"y", "a[0]"}));
}

TEST(VerilogReader, EscapedIdentifierEndsAtWhiteSpaceOnly)
{
    const Circuit c =
        verilog("module m(y); output y; wire \\x+y,z ; not (y, \\x+y,z );\nendmodule");
    EXPECT_EQ(pin_nets(c, c.cells[0])[1], "x+y,z");
}

TEST(VerilogReader, EscapedKeywordIsAName)
{
    const Circuit c = verilog("module m(y); output y; not (y, \\wire ); endmodule");
    EXPECT_EQ(pin_nets(c, c.cells[0])[1], "wire");
}

TEST(VerilogReader, DeclaredButUnusedWiresAreNotNets)
{
    const Circuit c = verilog("module m(a, y); input a; output y; wire w1, w2; wire [7:0] bus;\n"
                              "not (y, a); endmodule");
    EXPECT_EQ(*c.counts.nets, 2);
}

TEST(VerilogReader, SeveralModulesAndTheTopIsTheOneNobodyInstantiates)
{
    const Circuit c =
        verilog("module top(a, y); input a; output y; inv u1(.A(a), .Y(y)); endmodule\n"
                "module inv(A, Y); input A; output Y; not (Y, A); endmodule\n");
    EXPECT_EQ(c.top, "top");
    EXPECT_EQ(c.cells.size(), 1u);
}

TEST(VerilogReader, AmbiguousTopTakesTheLastAndWarns)
{
    const Circuit c = verilog("module a(x); input x; endmodule\nmodule b(y); input y; endmodule\n");
    EXPECT_EQ(c.top, "b");
    EXPECT_TRUE(has_warning(c, "several modules"));
}

// --- connections and expressions --------------------------------------------------------------

TEST(VerilogReader, NamedConnectionsKeepPinNames)
{
    const Circuit c =
        verilog("module m(a, b, y); input a, b; output y; NAND2_X1 u1(.A1(a), .A2(b), .ZN(y));\n"
                "endmodule");
    const Cell& u1 = c.cells[0];
    EXPECT_EQ(c.cell_type(u1), "NAND2_X1");
    EXPECT_EQ(u1.kind, CellKind::Instance);
    EXPECT_TRUE(u1.flags & kCellBlackBox);
    EXPECT_EQ(pin_names(c, u1), (Names{"A1", "A2", "ZN"}));
    EXPECT_EQ(c.pins_of(u1)[2].dir, Direction::Unknown);
}

TEST(VerilogReader, PositionalPinsOfABlackBoxAreNumbered)
{
    const Circuit c = verilog("module m(a, y); input a; output y; CELL u1(y, a); endmodule");
    EXPECT_EQ(pin_names(c, c.cells[0]), (Names{"1", "2"}));
}

TEST(VerilogReader, UnconnectedPinIsKeptWithoutANet)
{
    const Circuit c =
        verilog("module m(d, q); input d; output q; DFF_X1 r(.D(d), .Q(q), .QN()); endmodule");
    const Cell& r = c.cells[0];
    ASSERT_EQ(r.pin_count, 3u);
    EXPECT_EQ(c.pin_name(c.pins_of(r)[2]), "QN");
    EXPECT_EQ(c.pins_of(r)[2].net, kNoNet);
}

TEST(VerilogReader, EmptyPositionalConnectionIsUnconnected)
{
    const Circuit c = verilog("module m(a, y); input a; output y; CELL u1(y, , a); endmodule");
    EXPECT_EQ(pin_nets(c, c.cells[0]), (Names{"y", "", "a"}));
}

TEST(VerilogReader, BitAndPartSelects)
{
    const Circuit c =
        verilog("module m(b, y); input [3:0] b; output y; CELL u(.A(b[3]), .B(b[1:0]), .Z(y));\n"
                "endmodule");
    EXPECT_EQ(pin_nets(c, c.cells[0]), (Names{"b[3]", "b[1]", "b[0]", "y"}));
    EXPECT_EQ(pin_names(c, c.cells[0]), (Names{"A", "B[1]", "B[0]", "Z"}));
}

TEST(VerilogReader, IndexedPartSelect)
{
    const Circuit c =
        verilog("module m(b); input [7:0] b; CELL u(.A(b[2 +: 2]), .B(b[7 -: 2])); endmodule");
    EXPECT_EQ(pin_nets(c, c.cells[0]), (Names{"b[3]", "b[2]", "b[7]", "b[6]"}));
}

TEST(VerilogReader, ConcatenationAndReplication)
{
    const Circuit c =
        verilog("module m(a, b); input a; input [1:0] b; CELL u(.A({a, {2{b[0]}}, b}));\n"
                "endmodule");
    EXPECT_EQ(pin_nets(c, c.cells[0]), (Names{"a", "b[0]", "b[0]", "b[1]", "b[0]"}));
}

TEST(VerilogReader, ConstantsAreTheirOwnNetsButNotCounted)
{
    // A pin tied to a constant sees it: one net a value, driven by a CONST0/CONST1 cell the
    // reader makes (they were unconnected, `xor(y, a, 1'b1)` a buffer of a). Counted neither
    // as nets nor as cells, as yosys counts them.
    const Circuit c =
        verilog("module m(a, y); input a; output y;\n"
                "CELL u(.A(a), .B(1'b1), .C(4'hA), .D('b0), .E(0), .Z(y)); endmodule");
    const Cell& u = c.cells[0];
    EXPECT_EQ(pin_names(c, u), (Names{"A", "B", "C[3]", "C[2]", "C[1]", "C[0]", "D", "E", "Z"}));
    EXPECT_EQ(pin_nets(c, u),
              (Names{"a", "1'b1", "1'b1", "1'b0", "1'b1", "1'b0", "1'b0", "1'b0", "y"}));
    ASSERT_EQ(c.cells.size(), 3u);
    EXPECT_EQ(c.cell_type(c.cells[1]), "CONST0");
    EXPECT_EQ(c.cells[1].kind, CellKind::Constant);
    EXPECT_EQ(pin_nets(c, c.cells[1]), (Names{"1'b0"}));
    EXPECT_EQ(c.cell_type(c.cells[2]), "CONST1");
    EXPECT_EQ(pin_nets(c, c.cells[2]), (Names{"1'b1"}));
    EXPECT_EQ(*c.counts.nets, 2);
    EXPECT_EQ(*c.counts.cells, 1);
}

TEST(VerilogReader, ConstantWithXAndZBits)
{
    // X and Z ties are constants too, with CONSTX and CONSTZ cells: left unconnected, a gate
    // lost the input (`nand(n, a, 1'bx)` was simulated as NOT a). Still no counted nets.
    const Circuit c = verilog("module m(); CELL u(.A(2'bxz), .B(8'hz)); endmodule");
    EXPECT_EQ(c.cells[0].pin_count, 10u);
    EXPECT_EQ(pin_nets(c, c.cells[0]), (Names{"1'bx", "1'bz", "1'bz", "1'bz", "1'bz", "1'bz",
                                              "1'bz", "1'bz", "1'bz", "1'bz"}));
    EXPECT_EQ(c.net_count(), 2u);
    EXPECT_EQ(*c.counts.nets, 0);
    ASSERT_EQ(c.cells.size(), 3u);
    EXPECT_EQ(c.cell_type(c.cells[1]), "CONSTX");
    EXPECT_EQ(c.cell_type(c.cells[2]), "CONSTZ");

    const Circuit gates = verilog("module m(a, b, n, x);\ninput a, b; output n, x;\n"
                                  "xor g2(x, 1'bz, b);\nnand g1(n, a, 1'bx);\nendmodule");
    ASSERT_EQ(gates.cells.size(), 4u);
    EXPECT_EQ(pin_nets(gates, gates.cells[1]), (Names{"n", "a", "1'bx"}));
    EXPECT_EQ(gates.cell_type(gates.cells[2]), "CONSTX");
    EXPECT_EQ(gates.cells[2].line, 4u); // the line of its first reader, g1
    EXPECT_EQ(gates.cells[3].line, 3u);
}

TEST(VerilogReader, WholeBusConnectsEveryBit)
{
    const Circuit c = verilog("module m(d); input [2:0] d; REG u(.D(d)); endmodule");
    EXPECT_EQ(pin_names(c, c.cells[0]), (Names{"D[2]", "D[1]", "D[0]"}));
}

// --- assign -----------------------------------------------------------------------------------

TEST(VerilogReader, AssignStyleModuleMakesOneGatePerAssign)
{
    const Circuit c = verilog("module top(a, b, y); input a, b; output y; wire n1;\n"
                              "assign n1 = a & ~b;\nassign y = ~n1;\nendmodule");
    ASSERT_EQ(c.cells.size(), 2u);
    EXPECT_EQ(c.cell_type(c.cells[0]), "AND");
    EXPECT_EQ(pin_nets(c, c.cells[0]), (Names{"n1", "a", "b"}));
    EXPECT_FALSE(c.pins_of(c.cells[0])[1].inverted);
    EXPECT_TRUE(c.pins_of(c.cells[0])[2].inverted);
    EXPECT_EQ(c.cell_type(c.cells[1]), "NOT");
    EXPECT_EQ(*c.counts.nets, 4);
}

TEST(VerilogReader, AssignTypesFollowTheOperator)
{
    const Circuit c = verilog("module m(a, b, c, p, q, r, s, t, u, v);\n"
                              "input a, b, c; output p, q, r, s, t, u, v;\n"
                              "assign p = a | b | c;\nassign q = a ^ b;\nassign r = a;\n"
                              "assign s = a & b | c;\nassign t = ~(a & b);\nassign u = a ~^ b;\n"
                              "assign v = a + b;\nendmodule");
    Names types;
    for (const Cell& cell : c.cells) types.emplace_back(c.cell_type(cell));
    EXPECT_EQ(types, (Names{"OR", "XOR", "EXPR", "NAND", "XNOR", "EXPR", "BUF"}));
    EXPECT_EQ(c.cells[0].pin_count, 4u);
}

TEST(VerilogReader, LogicalNotOfAVectorIsOneExpressionNotANotPerBit)
{
    // `!d` is 1 when every bit of d is 0: one gate reading all four bits, never four NOTs.
    const Circuit c = verilog("module m(d, a, y, z, w); input [3:0] d; input a; output [3:0] y;\n"
                              "output z, w;\nassign y = !d;\nassign z = !a;\nassign w = !d & a;\n"
                              "endmodule");
    ASSERT_EQ(c.cells.size(), 3u);
    EXPECT_EQ(c.cell_type(c.cells[0]), "EXPR");
    EXPECT_EQ(c.cells[0].pin_count, 8u); // y[3:0] out, d[3:0] in
    EXPECT_EQ(c.cell_type(c.cells[1]), "NOT"); // on one bit `!` is `~`
    EXPECT_EQ(c.cell_type(c.cells[2]), "EXPR");
    EXPECT_EQ(c.cells[2].pin_count, 6u);

    // `~d` on the same vector stays a NOT per bit.
    const Circuit bitwise = verilog("module m(d, y); input [3:0] d; output [3:0] y;\n"
                                    "assign y = ~d;\nendmodule");
    ASSERT_EQ(bitwise.cells.size(), 4u);
    EXPECT_EQ(bitwise.cell_type(bitwise.cells[0]), "NOT");
}

TEST(VerilogReader, ConstantAssignIsAConstantCell)
{
    const Circuit c =
        verilog("module m(y, z); output y, z; assign y = 1'b1; assign z = 1'b0; endmodule");
    ASSERT_EQ(c.cells.size(), 2u);
    EXPECT_EQ(c.cells[0].kind, CellKind::Constant);
    EXPECT_EQ(c.cell_type(c.cells[0]), "CONST1");
    EXPECT_EQ(c.cell_type(c.cells[1]), "CONST0");
    EXPECT_EQ(*c.counts.nets, 2);
}

TEST(VerilogReader, WideBitwiseAssignMakesAGatePerBit)
{
    const Circuit c =
        verilog("module m(a, b, y); input [1:0] a, b; output [1:0] y; assign y = a & b;\n"
                "endmodule");
    ASSERT_EQ(c.cells.size(), 2u);
    EXPECT_EQ(pin_nets(c, c.cells[1]), (Names{"y[0]", "a[0]", "b[0]"}));
}

TEST(VerilogReader, AssignInAModuleWithInstancesIsAnAlias)
{
    const Circuit c = verilog("module m(a, y); input a; output y; wire n1;\n"
                              "INV_X1 u(.A(a), .ZN(n1));\nassign y = n1;\nendmodule");
    ASSERT_EQ(c.cells.size(), 1u);
    EXPECT_EQ(*c.counts.nets, 2);
    EXPECT_EQ(c.ports[1].net, c.pins_of(c.cells[0])[1].net);
    EXPECT_EQ(c.net_name(c.ports[1].net), "y"); // a port names the merged net
}

TEST(VerilogReader, AliasToAConstantIsTheConstantsNet)
{
    // An output assigned a constant is driven by it (it was "not driven").
    const Circuit c =
        verilog("module m(a, y, z); input a; output y, z; wire t;\n"
                "assign y = 1'b1; assign t = 1'b0; AND2 u(.A(a), .B(t), .Z(z)); endmodule");
    ASSERT_NE(c.ports[1].net, kNoNet);
    EXPECT_EQ(c.net_name(c.ports[1].net), "1'b1");
    EXPECT_EQ(pin_nets(c, c.cells[0]), (Names{"a", "1'b0", "z"}));
    EXPECT_EQ(*c.counts.nets, 2);
    EXPECT_EQ(*c.counts.outputs, 2);
}

TEST(VerilogReader, ExpressionAssignInAModuleWithInstancesIsAGate)
{
    const Circuit c = verilog("module m(a, b, y); input a, b; output y; wire n;\n"
                              "assign y = n | b; INV_X1 u(.A(a), .ZN(n)); endmodule");
    ASSERT_EQ(c.cells.size(), 2u);
    EXPECT_EQ(c.cell_type(c.cells[0]), "OR");
}

TEST(VerilogReader, NetDeclarationAssignment)
{
    const Circuit c =
        verilog("module m(a, y); input a; output y; wire w = ~a; buf (y, w); endmodule");
    EXPECT_EQ(c.cells.size(), 2u);
}

TEST(VerilogReader, SupplyNetsAreConstants)
{
    const Circuit c = verilog("module m(a, y); input a; output y; supply0 gnd;\n"
                              "nand (y, a, gnd); endmodule");
    EXPECT_EQ(pin_nets(c, c.cells[0]), (Names{"y", "a", "1'b0"}));
    EXPECT_EQ(*c.counts.nets, 2);
}

TEST(VerilogReader, DeepParenthesesDoNotRecurse)
{
    const std::string expr = std::string(100000, '(') + "a" + std::string(100000, ')');
    const Circuit c =
        verilog("module m(a, y); input a; output y; assign y = " + expr + " & a; endmodule");
    EXPECT_EQ(c.cell_type(c.cells[0]), "AND");
}

// --- hierarchy --------------------------------------------------------------------------------

TEST(VerilogReader, DefinedModulesAreFlattenedWithHierarchicalNames)
{
    const Circuit c =
        verilog("module half(x, y, s); input x, y; output s; wire t; xor g(t, x, y);\n"
                "buf b(s, t); endmodule\n"
                "module top(a, b, c, s1, s2); input a, b, c; output s1, s2;\n"
                "half h1(.x(a), .y(b), .s(s1)); half h2(c, a, s2); endmodule\n");
    EXPECT_EQ(c.top, "top");
    ASSERT_EQ(c.cells.size(), 4u);
    EXPECT_NE(cell_named(c, "h1/g"), nullptr);
    EXPECT_EQ(pin_nets(c, *cell_named(c, "h2/g")), (Names{"h2/t", "c", "a"}));
    EXPECT_EQ(pin_nets(c, *cell_named(c, "h1/b")), (Names{"s1", "h1/t"}));
    EXPECT_EQ(*c.counts.nets, 7);
    ASSERT_NE(module_info(c, "half"), nullptr);
    EXPECT_TRUE(module_info(c, "half")->defined);
    EXPECT_EQ(module_info(c, "half")->instances, 2u);
}

TEST(VerilogReader, AliasBetweenPortsMergesTheOuterNets)
{
    const Circuit c =
        verilog("module through(i, o, k); input i; output o, k; not (k, i); assign o = i;\n"
                "endmodule\n"
                "module top(a, y, z); input a; output y, z; wire m; through w(a, m, z);\n"
                "not (y, m); endmodule\n");
    ASSERT_EQ(c.cells.size(), 2u);
    EXPECT_EQ(pin_nets(c, c.cells[1]), (Names{"y", "a"}));
}

TEST(VerilogReader, PassThroughModuleWithoutInstancesIsABuffer)
{
    const Circuit c = verilog("module through(i, o); input i; output o; assign o = i; endmodule\n"
                              "module top(a, y); input a; output y; through w(a, y); endmodule\n");
    ASSERT_EQ(c.cells.size(), 1u);
    EXPECT_EQ(c.cell_type(c.cells[0]), "BUF");
    EXPECT_EQ(pin_nets(c, c.cells[0]), (Names{"y", "a"}));
}

TEST(VerilogReader, NestedHierarchyPrefixesEveryLevel)
{
    const Circuit c = verilog("module leaf(a, y); input a; output y; not n(y, a); endmodule\n"
                              "module mid(a, y); input a; output y; leaf l(a, y); endmodule\n"
                              "module top(a, y); input a; output y; mid m(a, y); endmodule\n");
    EXPECT_NE(cell_named(c, "m/l/n"), nullptr);
}

TEST(VerilogReader, DeepHierarchyUsesNoRecursion)
{
    std::string text = "module m0(a, y); input a; output y; not n(y, a); endmodule\n";
    const int depth = 3000;
    for (int i = 1; i <= depth; ++i)
        text += "module m" + std::to_string(i) + "(a, y); input a; output y; m" +
                std::to_string(i - 1) + " u(a, y); endmodule\n";
    const Circuit c = verilog(text);
    EXPECT_EQ(c.top, "m" + std::to_string(depth));
    ASSERT_EQ(c.cells.size(), 1u);
    EXPECT_EQ(c.cell_name(c.cells[0]).size(), 2u * depth + 1);
}

TEST(VerilogReader, RecursiveInstantiationIsAnError)
{
    const gsr::Error e = verilog_error("module a(x); input x; b u(x); endmodule\n"
                                       "module b(x); input x; a v(x); endmodule\n"
                                       "module top(x); input x; a w(x); endmodule\n");
    EXPECT_NE(e.message().find("recursive instantiation"), std::string::npos) << e.what();
}

TEST(VerilogReader, SelfInstantiationIsAnError)
{
    const gsr::Error e = verilog_error("module a(x); input x;\n a u(x); endmodule\n");
    EXPECT_NE(e.message().find("instantiates itself"), std::string::npos);
    EXPECT_EQ(e.where().line, 2);
}

TEST(VerilogReader, UnknownPortOfADefinedModuleIsAnError)
{
    const gsr::Error e = verilog_error("module s(a); input a; endmodule\nmodule t(x); input x;\n"
                                       "s u(\n .b(x)); endmodule\n");
    EXPECT_NE(e.message().find("no port named 'b'"), std::string::npos) << e.what();
    EXPECT_EQ(e.where().line, 4);
}

TEST(VerilogReader, TooManyPositionalConnectionsIsAnError)
{
    const gsr::Error e =
        verilog_error("module s(a); input a; endmodule\nmodule t(x, y); input x, y;\n"
                      "s u(x,\n y); endmodule\n");
    EXPECT_NE(e.message().find("too many connections"), std::string::npos) << e.what();
    EXPECT_EQ(e.where().line, 4);
}

TEST(VerilogReader, UndefinedModulesAreBlackBoxesInTheModuleList)
{
    const Circuit c = verilog("module m(a); input a; FOO u1(.A(a)); FOO u2(.A(a)); endmodule");
    ASSERT_NE(module_info(c, "FOO"), nullptr);
    EXPECT_FALSE(module_info(c, "FOO")->defined);
    EXPECT_EQ(module_info(c, "FOO")->instances, 2u);
    EXPECT_TRUE(module_info(c, "m")->defined);
}

// --- the ISCAS dff idiom ----------------------------------------------------------------------

TEST(VerilogReader, BehaviouralDffModuleBecomesFlipFlops)
{
    const Circuit c = verilog("module dff (CK,Q,D); input CK,D; output Q; reg Q;\n"
                              "always @ (posedge CK) Q <= D; endmodule\n"
                              "module s(CK, a, y); input CK, a; output y; wire q;\n"
                              "dff D0(CK, q, a); not (y, q); endmodule\n");
    ASSERT_EQ(c.cells.size(), 2u);
    const Cell& ff = c.cells[0];
    EXPECT_EQ(ff.kind, CellKind::FlipFlop);
    EXPECT_EQ(c.cell_type(ff), "DFF");
    EXPECT_EQ(pin_names(c, ff), (Names{"CK", "Q", "D"}));
    EXPECT_EQ(pin_nets(c, ff), (Names{"CK", "q", "a"}));
    EXPECT_EQ(c.pins_of(ff)[1].dir, Direction::Output);
    EXPECT_EQ(c.pins_of(ff)[2].dir, Direction::Input);
    EXPECT_EQ(*c.counts.flip_flops, 1);
    EXPECT_EQ(*c.counts.cells, 1);
}

TEST(VerilogReader, SwitchLevelDffBodyIsNotFlattened)
{
    const Circuit c =
        verilog("module dff (CK,Q,D); input CK,D; output Q; wire NM; trireg M;\n"
                "nmos N7 (M,D,CK); not P3 (NM,M); not P5 (Q,NM); endmodule\n"
                "module s(CK, a, q); input CK, a; output q; dff D0(CK, q, a); endmodule\n");
    ASSERT_EQ(c.cells.size(), 1u);
    EXPECT_EQ(c.cells[0].kind, CellKind::FlipFlop);
    EXPECT_FALSE(has_warning(c, "switch-level"));
}

TEST(VerilogReader, UndefinedDffWithTwoPinsIsQAndD)
{
    const Circuit c = verilog("module s(a, q); input a; output q; dff D0(q, a); endmodule");
    EXPECT_EQ(c.cells[0].kind, CellKind::FlipFlop);
    EXPECT_EQ(pin_names(c, c.cells[0]), (Names{"Q", "D"}));
    EXPECT_EQ(c.pins_of(c.cells[0])[0].dir, Direction::Output);
}

TEST(VerilogReader, UndefinedDffWithThreePinsIsClockQAndD)
{
    const Circuit c =
        verilog("module s(c, a, q); input c, a; output q; DFF D0(c, q, a); endmodule");
    EXPECT_EQ(pin_names(c, c.cells[0]), (Names{"CK", "Q", "D"}));
}

TEST(VerilogReader, AnyBehaviouralPosedgeModuleIsAFlipFlop)
{
    const Circuit c = verilog(
        "module myreg(c, d, q); input c, d; output q; reg q;\n"
        "always @(posedge c) begin if (d) q <= 1'b1; else q <= 1'b0; end\nendmodule\n"
        "module s(c, a, y); input c, a; output y; myreg r(.c(c), .d(a), .q(y)); endmodule\n");
    ASSERT_EQ(c.cells.size(), 1u);
    EXPECT_EQ(c.cells[0].kind, CellKind::FlipFlop);
}

TEST(VerilogReader, AnEscapedNameLikeABusBitIsAnotherNet)
{
    // yosys reads `\b[0] ` as its own wire beside bit 0 of b: 5 public wire bits here.
    const Circuit c = verilog("module top(input [1:0] b, input \\b[0] , output y, output z);\n"
                              "and g1(y, b[0], b[1]);\nnot g2(z, \\b[0] );\nendmodule\n");
    EXPECT_EQ(*c.counts.nets, 5);
    EXPECT_EQ(c.net_count(), 5u);
    const Cell* g1 = cell_named(c, "g1");
    const Cell* g2 = cell_named(c, "g2");
    ASSERT_TRUE(g1 && g2);
    EXPECT_NE(c.pins_of(*g1)[1].net, c.pins_of(*g2)[1].net);
    EXPECT_EQ(pin_nets(c, *g1), (Names{"y", "b[0]", "b[1]"})); // the port's bits come first
    EXPECT_EQ(pin_nets(c, *g2), (Names{"z", "b[0]'"}));
    EXPECT_TRUE(has_warning(c, "'b[0]' (the later one is named 'b[0]'')"));
}

TEST(VerilogReader, ASelectBeforeTheBusIsDeclaredIsTheBusBit)
{
    // yosys: `not g1(b[0], a); wire [1:0] b;` drives bit 0 of the bus declared after.
    const Circuit c = verilog("module top(a, y); input a; output y;\nnot g1(b[0], a);\n"
                              "wire [1:0] b;\nbuf g2(y, b[0]);\nendmodule\n");
    const Cell* g1 = cell_named(c, "g1");
    const Cell* g2 = cell_named(c, "g2");
    ASSERT_TRUE(g1 && g2);
    EXPECT_EQ(c.pins_of(*g1)[0].net, c.pins_of(*g2)[1].net);
    EXPECT_EQ(c.net_count(), 3u);
    EXPECT_TRUE(has_warning(c, "not declared as a vector"));
    EXPECT_FALSE(has_warning(c, "primes"));
}

TEST(VerilogReader, AnEscapedNameLikeAFlattenedPathIsAnotherNet)
{
    const Circuit c = verilog(
        "module sub(input a, output o); wire n; not g(n, a); buf h(o, n); endmodule\n"
        "module top(input a, output y, output z); wire \\u1/n ;\n"
        "sub u1(.a(a), .o(y)); not k(\\u1/n , a); and k2(z, \\u1/n , a); endmodule\n");
    const Cell* g = cell_named(c, "u1/g");
    const Cell* k = cell_named(c, "k");
    ASSERT_TRUE(g && k);
    EXPECT_NE(c.pins_of(*g)[0].net, c.pins_of(*k)[0].net); // one driver each
    EXPECT_EQ(pin_nets(c, *k)[0], "u1/n");
    EXPECT_EQ(pin_nets(c, *g)[0], "u1/n'");
    EXPECT_TRUE(has_warning(c, "primes"));
}

TEST(VerilogReader, ManyNetsOfOneFlattenedNameGetNumberedPrimesInLinearTime)
{
    // Escaped instance names with '/' spell one path many ways: module L<k> holds L<k-1> as
    // x and L<k-2> as \x/x , so the 10,946 copies of L0's net n in L20 are all named
    // x/x/.../x/n. The k-th took k primes, each tried in turn: quadratic, minutes here.
    std::string text = "module L0(a); input a; wire n; not g(n, a); endmodule\n"
                       "module L1(a); input a; L0 x(a); endmodule\n";
    for (int k = 2; k <= 20; ++k)
        text += "module L" + std::to_string(k) + "(a); input a; L" + std::to_string(k - 1) +
                " x(a); L" + std::to_string(k - 2) + " \\x/x (a); endmodule\n";
    const Circuit c = verilog(text);
    std::string path;
    for (int k = 0; k < 20; ++k) path += "x/";
    const std::string n = path + "n";
    EXPECT_EQ(c.cells.size(), 10946u);
    EXPECT_NE(c.net_names.find(n), gsr::kNoName);
    EXPECT_NE(c.net_names.find(n + "'"), gsr::kNoName);
    EXPECT_NE(c.net_names.find(n + "'2"), gsr::kNoName);
    EXPECT_NE(c.net_names.find(n + "'10945"), gsr::kNoName);
    EXPECT_EQ(c.net_names.find(n + "''"), gsr::kNoName);
    EXPECT_TRUE(has_warning(c, "10945 net names are shared by different nets"));
}

TEST(VerilogReader, ASecondInstanceOfOneNameIsRefusedNamingTheFirst)
{
    // Accepted, the two instances' nets shared names (u/n), renamed apart with primes (20,000
    // copies in 0.5 MB took over a minute). yosys refuses them too.
    const std::string sub = "module s(a, y); input a; output y; not g(y, a); endmodule\n";
    gsr::Error e = verilog_error(sub + "module m(a, y); input a; output y;\ns u(.a(a), .y(t));\n"
                                       "s u(.a(t), .y(y));\nendmodule\n");
    EXPECT_EQ(e.where().line, 4);
    EXPECT_EQ(e.where().column, 3);
    EXPECT_NE(e.message().find("'u' already names the instance on line 3"), std::string::npos)
        << e.what();
    // An escaped name is the same name.
    e = verilog_error(sub + "module m(a, y); input a; output y;\ns u(.a(a), .y(t));\n"
                            "s \\u (.a(t), .y(y));\nendmodule\n");
    EXPECT_EQ(e.where().line, 4);
    // Leaf cells of one name are refused as well (yosys: "a cell with the same name was already
    // created"); primitive gates may share a name, as yosys lets them, and so may cells of two
    // modules.
    e = verilog_error("module m(a, y); input a; output y;\nBUF u(.A(a), .Y(t));\n"
                      "BUF u(.A(t), .Y(y));\nendmodule\n");
    EXPECT_EQ(e.where().line, 3);
    EXPECT_NE(e.message().find("in module 'm': 'u' already names the instance on line 2"),
              std::string::npos)
        << e.what();
    const Circuit leaves = verilog("module n(a, y); input a; output y; BUF u(.A(a), .Y(y));\n"
                                   "endmodule\nmodule m(a, y); input a; output y;\n"
                                   "BUF u(.A(a), .Y(t));\nBUF v(.A(t), .Y(y));\n"
                                   "not g(y2, a); not g(y3, a);\nn i(.a(a), .y(y4));\n"
                                   "endmodule\n");
    EXPECT_EQ(leaves.cells.size(), 5u);
    std::string text = sub + "module m(a, y); input a; output y;\n";
    for (int i = 0; i < 3000; ++i)
        text += "s u" + std::to_string(i) + "(.a(a), .y(y" + std::to_string(i) + "));\n";
    const Circuit c = verilog(text + "s u(.a(a), .y(y));\nendmodule\n");
    EXPECT_EQ(c.cells.size(), 3001u);
}

TEST(VerilogReader, DeclaredWidthsAreChargedToTheBitsBudget)
{
    // `input [16777215:0] a;` (60 bytes) made 16 million ports: 37 s and 2.4 GB; four of them
    // on a line ran out of memory with no file or line. Refused where they are declared now.
    gsr::Error e = verilog_error("module m(a);\ninput [16777215:0] a;\nendmodule\n");
    EXPECT_EQ(e.where().line, 2);
    EXPECT_NE(e.message().find("expands to far more bits"), std::string::npos) << e.what();
    e = verilog_error("module m(\n  input [16777215:0] a, b);\nendmodule\n");
    EXPECT_EQ(e.where().line, 2);
    e = verilog_error("module m(y); output y;\nsupply0 [16777215:0] s;\nendmodule\n");
    EXPECT_EQ(e.where().line, 2);
    e = verilog_error("module m(y); output y;\nwire [16777215:0] w = 1'b0;\nendmodule\n");
    EXPECT_EQ(e.where().line, 2);
    // Narrower ports, as real netlists have, are read.
    const Circuit c = verilog("module m(a, y); input [1023:0] a; output y;\n"
                              "and g(y, a[0], a[1023]); endmodule\n");
    EXPECT_EQ(*c.counts.inputs, 1024);
}

// --- what is skipped --------------------------------------------------------------------------

TEST(VerilogReader, CommentsAttributesAndDirectivesAreSkipped)
{
    const Circuit c = verilog("`timescale 1ns / 1ps\n`define WIDTH 4\n/* block\n comment */\n"
                              "(* top *) module m(a, y); // line comment\n"
                              "(* keep = \"yes *) \" *) input a; output y;\n"
                              "not (* dont_touch *) g(y, a); endmodule\n");
    EXPECT_EQ(c.cells.size(), 1u);
    EXPECT_TRUE(c.diagnostics.warnings().empty());
}

TEST(VerilogReader, AlwaysStarIsNotAnAttribute)
{
    const Circuit c =
        verilog("module m(a, y); input a; output reg y; always @(*) y = a; endmodule");
    EXPECT_EQ(c.cells.size(), 0u);
    EXPECT_TRUE(has_warning(c, "behavioural"));
}

TEST(VerilogReader, UnknownDirectiveSkipsItsLineWithAWarning)
{
    const Circuit c = verilog("`frobnicate all the things\nmodule m(a); input a; endmodule\n");
    EXPECT_TRUE(has_warning(c, "`frobnicate"));
    EXPECT_EQ(c.diagnostics.warnings()[0].where.line, 1);
}

TEST(VerilogReader, IfdefKeepsTheActiveBranch)
{
    const Circuit c = verilog("`define GATES\nmodule m(a, y); input a; output y;\n"
                              "`ifdef GATES\n not (y, a);\n`else\n buf (y, a);\n`endif\n"
                              "`ifndef GATES\n and (y, a, a);\n`endif\nendmodule\n");
    ASSERT_EQ(c.cells.size(), 1u);
    EXPECT_EQ(c.cell_type(c.cells[0]), "NOT");
}

TEST(VerilogReader, BehaviouralBlocksAreSkippedWithTheirNesting)
{
    const Circuit c =
        verilog("module m(c, a, y); input c, a; output y; reg r; integer i;\n"
                "parameter W = 4; localparam [3:0] K = 4'h3; defparam u.P = 1;\n"
                "initial begin r = 0; for (i = 0; i < 4; i = i + 1) begin r = ~r; end end\n"
                "always @(posedge c) if (a) r <= 1; else if (r) r <= 0; else begin case (r) 1: r "
                "<= 0; endcase end\n"
                "function f; input x; begin f = x; end endfunction\n"
                "task t; begin end endtask\n"
                "specify (a => y) = 1; endspecify\n"
                "generate if (W > 2) begin : g not (y, a); end endgenerate\n"
                "not (y, a);\nendmodule\n");
    ASSERT_EQ(c.cells.size(), 1u);
    EXPECT_TRUE(has_warning(c, "generate"));
}

TEST(VerilogReader, UserDefinedPrimitiveIsSkippedAndItsInstancesAreBlackBoxes)
{
    const Circuit c = verilog("primitive latch (q, d, en);\n output q; reg q; input d, en;\n"
                              " table\n  ? 0 : ? : - ;\n  0 (01) : ? : 0 ;\n  1 1 : ? : 1 ;\n"
                              " endtable\nendprimitive\n"
                              "module m(d, e, q); input d, e; output q; latch l1(q, d, e); endmodule\n");
    ASSERT_EQ(c.cells.size(), 1u);
    EXPECT_TRUE(c.cells[0].flags & kCellBlackBox);
    EXPECT_TRUE(has_warning(c, "user-defined primitive 'latch'"));
}

// --- warnings ---------------------------------------------------------------------------------

TEST(VerilogReader, UndrivenNetReadByAGateWarns)
{
    const Circuit c = verilog("module m(y); output y; wire ghost; not (y, ghost); endmodule");
    EXPECT_TRUE(has_warning(c, "'ghost'"));
    EXPECT_EQ(*c.counts.nets, 2);
}

TEST(VerilogReader, NetReadByAnInstanceIsNotCalledUndriven)
{
    const Circuit c = verilog("module m(y); output y; CELL u(.A(n), .Z(y)); not (k, n); endmodule");
    EXPECT_FALSE(has_warning(c, "driven by nothing"));
}

// --- errors -----------------------------------------------------------------------------------

TEST(VerilogReader, MissingSemicolonNamesWhatWasExpected)
{
    const gsr::Error e = verilog_error("module m(a, y)\n  input a;\nendmodule\n");
    EXPECT_EQ(e.where().line, 2);
    EXPECT_EQ(e.where().column, 3);
    EXPECT_NE(e.message().find("expected ';' after the port list"), std::string::npos) << e.what();
}

TEST(VerilogReader, EndOfFileInsideAModule)
{
    const gsr::Error e = verilog_error("module m(a);\n  input a;\n\n");
    EXPECT_EQ(e.where().line, 2); // reported after the last token, not on an empty line
    EXPECT_NE(e.message().find("expected 'endmodule'"), std::string::npos) << e.what();
}

TEST(VerilogReader, EndOfFileInsideAComment)
{
    const gsr::Error e = verilog_error("module m(a);\n input a; /* unfinished\n endmodule\n");
    EXPECT_EQ(e.where().line, 2);
    EXPECT_NE(e.message().find("'*/'"), std::string::npos);
}

TEST(VerilogReader, UnterminatedEscapedIdentifierAtEndOfFile)
{
    const gsr::Error e = verilog_error("module m(a); input \\abc");
    EXPECT_NE(e.message().find("escaped identifier"), std::string::npos);
}

TEST(VerilogReader, UnterminatedAttribute)
{
    const gsr::Error e = verilog_error("module m(a); (* keep input a; endmodule");
    EXPECT_NE(e.message().find("'*)'"), std::string::npos);
}

TEST(VerilogReader, BadRangeIsAnError)
{
    const gsr::Error e = verilog_error("module m(a); input [3:W] a; endmodule");
    EXPECT_NE(e.message().find("right bound of the range"), std::string::npos) << e.what();
    EXPECT_EQ(e.where().column, 23);
}

TEST(VerilogReader, SelectOutsideTheRangeIsAnError)
{
    const gsr::Error e = verilog_error("module m(a); input [3:0] a; CELL u(.A(a[4])); endmodule");
    EXPECT_NE(e.message().find("outside the declared range"), std::string::npos);
}

TEST(VerilogReader, UnbalancedParenthesesInAnInstance)
{
    const gsr::Error e =
        verilog_error("module m(a, y); input a; output y;\nnand g(y, a, a;\nendmodule");
    EXPECT_EQ(e.where().line, 2);
    EXPECT_NE(e.message().find("expected ',' or ')'"), std::string::npos) << e.what();
}

TEST(VerilogReader, DeeplyNestedConcatenationIsAnErrorNotACrash)
{
    const std::string open(200000, '{');
    const gsr::Error e = verilog_error("module m(a); input a; CELL u(.A(" + open + "a");
    EXPECT_NE(e.message().find("nested too deeply"), std::string::npos);
}

TEST(VerilogReader, HugeReplicationsEndInAnErrorNotInExhaustedMemory)
{
    std::string text = "module m(a); input a;\n";
    for (int i = 0; i < 100; ++i) text += "CELL u" + std::to_string(i) + "(.A({16000000{a}}));\n";
    const gsr::Error e = verilog_error(text + "endmodule\n");
    EXPECT_NE(e.message().find("expands to far more bits"), std::string::npos) << e.what();
}

TEST(VerilogReader, ExponentialHierarchyEndsInAnError)
{
    std::string text = "module m0(a); input a; not (b, a); endmodule\n";
    for (int i = 1; i <= 12; ++i) {
        text += "module m" + std::to_string(i) + "(a); input a;";
        for (int k = 0; k < 10; ++k)
            text += " m" + std::to_string(i - 1) + " u" + std::to_string(k) + "(a);";
        text += " endmodule\n";
    }
    const gsr::Error e = verilog_error(text);
    EXPECT_NE(e.message().find("flattening module 'm12'"), std::string::npos) << e.what();
}

TEST(VerilogReader, ByteOrderMarkIsSkipped)
{
    const Circuit c = verilog("\xEF\xBB\xBFmodule m(a); input a; endmodule\n");
    EXPECT_EQ(c.top, "m");
}

TEST(VerilogReader, BinaryGarbageIsRejected)
{
    const gsr::Error e = verilog_error(std::string("module \0\x01\x02\xff", 11));
    EXPECT_NE(e.message().find("binary data"), std::string::npos);
}

TEST(VerilogReader, AStrayByteIsNamedAtItsColumn)
{
    const gsr::Error e = verilog_error("module m(a);\n  input \xff a;\nendmodule\n");
    EXPECT_EQ(e.where().line, 2);
    EXPECT_EQ(e.where().column, 9);
    EXPECT_NE(e.message().find("unexpected byte 0xff; expected Verilog text"),
              std::string::npos);
}

TEST(VerilogReader, HtmlPageIsRejected)
{
    const gsr::Error e =
        verilog_error("<!DOCTYPE html>\n<html><body>404 Not Found</body></html>\n");
    EXPECT_NE(e.message().find("HTML"), std::string::npos);
    EXPECT_EQ(e.where().line, 1);
}

TEST(VerilogReader, EmptyFileHasNoModule)
{
    const gsr::Error e = verilog_error("// nothing here\n");
    EXPECT_NE(e.message().find("expected a module"), std::string::npos);
}

TEST(VerilogReader, PortWithoutDirectionIsAnError)
{
    const gsr::Error e = verilog_error("module m(a, b);\n input a;\nendmodule\n");
    EXPECT_NE(e.message().find("port 'b'"), std::string::npos);
    EXPECT_EQ(e.where().line, 1);
}

// --- robustness: truncation and corruption ----------------------------------------------------

namespace {

const char* kFeatureRich = R"(`timescale 1ns/1ps
// every construct the reader knows, in one small file
(* top *)
module sub(input [1:0] a, output y);
  wire t;
  and g1(t, a[1], a[0]);
  assign y = ~t;
endmodule
module dff(CK, Q, D); input CK, D; output Q; reg Q; always @(posedge CK) Q <= D; endmodule
module top(clk, \in[0] , bus, y, z);
  input clk, \in[0] ;
  input [3:0] bus;
  output y, z;
  wire n1, n2; /* block */
  supply1 vdd;
  sub s1(.a(bus[3:2]), .y(n1));
  dff r(clk, n2, n1);
  NAND2_X1 u1(.A1(n2), .A2(\in[0] ), .ZN(y), .QN());
  CELL u2({bus[1:0], 2'b0}, {2{vdd}}, z);
  assign n3 = 1'b1;
  function f; input x; f = x; endfunction
endmodule
)";

} // namespace

TEST(VerilogReaderRobustness, FeatureRichFileReads)
{
    const Circuit c = verilog(kFeatureRich);
    EXPECT_EQ(c.top, "top");
    EXPECT_EQ(*c.counts.flip_flops, 1);
    EXPECT_EQ(*c.counts.cells, 4); // s1/g1, the NOT of s1's assign, u1, u2
}

TEST(VerilogReaderRobustness, EveryTruncationAndCorruptedByteReadsOrNamesItsLine)
{
    gsr::netlist::testdata::expect_damage_reads_or_names_its_line("bad.v", kFeatureRich,
                                                                  read_verilog);
}

TEST(VerilogReaderRobustness, EveryTruncationAndCorruptedByteOfARealFileReadsOrNamesItsLine)
{
    const std::string path = std::string(GSR_DATA_DIR) + "/netlists/iscas89/verilog/s27.v";
    ASSERT_TRUE(std::filesystem::exists(path)) << path << ": the test data is missing";
    gsr::netlist::testdata::expect_damage_reads_or_names_its_line(
        "s27.v", std::string(SourceText::read_file(path).text()), read_verilog);
}

TEST(VerilogReaderRobustness, MalformedCorpusFailsWhereExpected)
{
    gsr::netlist::testdata::expect_malformed_corpus_fails_where_expected("verilog", read_verilog);
}

// --- COUNTS.csv -------------------------------------------------------------------------------

namespace {

struct CountsRow {
    std::string file;
    std::string pi, po, ff, cells, nets;
};

void PrintTo(const CountsRow& r, std::ostream* os) { *os << r.file; }

std::vector<CountsRow> verilog_rows()
{
    std::vector<CountsRow> rows;
    std::ifstream in(std::string(GSR_DATA_DIR) + "/netlists/COUNTS.csv");
    std::string line;
    std::getline(in, line); // header: file,format,bytes,PI,PO,FF_or_latch,cells_or_gates,nets,extra
    while (std::getline(in, line)) {
        std::vector<std::string> f;
        std::size_t start = 0;
        while (f.size() < 8) {
            const std::size_t comma = line.find(',', start);
            if (comma == std::string::npos) break;
            f.push_back(line.substr(start, comma - start));
            start = comma + 1;
        }
        if (f.size() == 8 && f[1] == "verilog")
            rows.push_back({f[0], f[3], f[4], f[5], f[6], f[7]});
    }
    return rows;
}

class VerilogCounts : public ::testing::TestWithParam<CountsRow> {};

void expect_count(const std::optional<std::int64_t>& got, const std::string& want, const char* what)
{
    if (want.empty()) return;
    ASSERT_TRUE(got.has_value()) << what;
    EXPECT_EQ(*got, std::stoll(want)) << what;
}

std::string row_name(const ::testing::TestParamInfo<CountsRow>& info)
{
    std::string n = info.param.file;
    for (char& ch : n)
        if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
    return n;
}

} // namespace

TEST_P(VerilogCounts, MatchManifest)
{
    const CountsRow& row = GetParam();
    const SourceText src =
        SourceText::read_file(std::string(GSR_DATA_DIR) + "/netlists/" + row.file);
    Circuit c = read_verilog(src);
    c.finalize_counts();
    expect_count(c.counts.inputs, row.pi, "PI");
    expect_count(c.counts.outputs, row.po, "PO");
    expect_count(c.counts.cells, row.cells, "cells");
    expect_count(c.counts.nets, row.nets, "nets");
    // Standard-cell flip-flops are recognised by load_netlist (library or cell name), after the
    // reader: the FF column is checked through it.
    const Circuit loaded = load_netlist(src);
    expect_count(loaded.counts.flip_flops, row.ff, "FF");
    EXPECT_EQ(loaded.format, "verilog");
}

INSTANTIATE_TEST_SUITE_P(VerilogData, VerilogCounts, ::testing::ValuesIn(verilog_rows()), row_name);

TEST(VerilogCountsData, HasVerilogRows)
{
    // Missing data must fail, not shrink the suite above to nothing: COUNTS.csv has 25 rows of
    // structural Verilog.
    ASSERT_TRUE(std::filesystem::exists(std::string(GSR_DATA_DIR) + "/netlists/COUNTS.csv"));
    EXPECT_EQ(verilog_rows().size(), 25u);
}
