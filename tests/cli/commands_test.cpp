// The command line beyond `info`, run as a user would: labels, memory, train, communities, layout.
#include "run_gsr.hpp"
#include "community/community_detection.hpp"
#include "community/weighted_graph.hpp"
#include "graph/circuit_graph.hpp"
#include "test_files.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <sstream>
#include <cctype>
#include <cstdlib>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>

namespace fs = std::filesystem;
using gsr::test::run_gsr;
using gsr::test::data_arg;
using gsr::test::shell_quote;

namespace {

using gsr::test::scratch_file;

/// net -> column value of a labels CSV.
std::map<std::string, std::string> column(const fs::path& csv, const std::string& name)
{
    std::ifstream in(csv);
    std::string line;
    std::getline(in, line);
    if (!line.empty() && line.back() == '\r') line.pop_back();
    std::vector<std::string> header = gsr::test::split_csv(line, 64);
    std::size_t col = 0;
    while (col < header.size() && header[col] != name) ++col;
    std::map<std::string, std::string> out;
    while (std::getline(in, line)) {
        if (!line.empty() && line.back() == '\r') line.pop_back();
        const auto cells = gsr::test::split_csv(line, 64);
        if (col < cells.size()) out[cells[0]] = cells[col];
    }
    return out;
}

std::int64_t peak_of(const std::string& model, int layers)
{
    // --groups and --topk only where the model has them (gsr memory refuses them elsewhere).
    const std::string grouping = model == "gsr"   ? " --groups 2 --topk 16"
                                 : model == "rev" ? " --groups 2"
                                                  : "";
    const auto r = run_gsr("memory --model " + model + " --layers " + std::to_string(layers) +
                           " --hidden 128" + grouping + " --nodes 214591 --edges 857340 --json");
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return nlohmann::json::parse(r.out).at("analytic_peak_bytes").get<std::int64_t>();
}

} // namespace

TEST(ProjectCommands, NewMakesAnEmptyProjectAndNeverTakesOverAFile)
{
    const fs::path project = scratch_file("new project.gsr");
    fs::remove(project);
    const std::string db = " --db " + shell_quote(project.string());
    auto r = run_gsr("new" + db);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(r.out, "created the project " + project.string() + "\n");
    r = run_gsr("netlists" + db);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(r.out, "");
    r = run_gsr("import " + data_arg("netlists/iscas85/bench/c17.bench") + db);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    const auto size = fs::file_size(project);
    r = run_gsr("new" + db); // the window's File > New Project refuses it too
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_EQ(r.err.rfind(project.string() + ": error: a file of this name exists already", 0),
              0u)
        << r.err;
    EXPECT_EQ(fs::file_size(project), size);
    r = run_gsr("netlists" + db);
    const fs::path c17 =
        fs::weakly_canonical(fs::path(GSR_DATA_DIR) / "netlists/iscas85/bench/c17.bench");
    EXPECT_EQ(r.out, "1\tbench\t6 cells\t" + c17.string() + "\n"); // 6 gates (COUNTS.csv)
    r = run_gsr("new extra.v" + db);
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_NE(r.err.find("new takes no FILE"), std::string::npos) << r.err;
    // "P/" once opened the file P (taking over an existing one) or created a file named P.
    r = run_gsr("new --db " + shell_quote(project.string() + "/"));
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_NE(r.err.find("ends in '/': a project is a file, not a folder"), std::string::npos)
        << r.err;
    EXPECT_EQ(fs::file_size(project), size);
    const fs::path folder = scratch_file("new_project_folder");
    fs::create_directories(folder);
    for (const std::string& name : {folder.string(), folder.string() + "/x/"}) {
        r = run_gsr("new --db " + shell_quote(name));
        EXPECT_EQ(r.exit_code, 2) << name;
        EXPECT_EQ(r.out, "") << name;
    }
    EXPECT_NE(r.err.find("ends in '/'"), std::string::npos) << r.err;
    EXPECT_TRUE(fs::is_empty(folder));
    fs::remove(project);
    // A blank file (what a creation killed before its first commit leaves) holds nothing to
    // lose: `new` makes it the project, where it said "exists already; list it with gsr
    // netlists", which then failed on it. A file of one byte is no blank database.
    const fs::path blank = scratch_file("blank.gsr");
    std::ofstream(blank, std::ios::binary).close();
    r = run_gsr("new --db " + shell_quote(blank.string()));
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(run_gsr("netlists --db " + shell_quote(blank.string())).exit_code, 0);
    const fs::path one = scratch_file("one.gsr");
    std::ofstream(one, std::ios::binary) << '\n';
    r = run_gsr("new --db " + shell_quote(one.string()));
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_EQ(r.err, one.string() + ": error: a file of this name exists already; it cannot be "
                                    "listed (not a GSR Studio project (not a SQLite database)): "
                                    "choose another name\n");
    r = run_gsr("import " + data_arg("netlists/iscas85/bench/c17.bench") + " --db " +
                shell_quote(one.string()));
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_EQ(r.err, one.string() + ": error: not a GSR Studio project (not a SQLite database)\n");
    EXPECT_EQ(fs::file_size(one), 1u);
}

TEST(InfoCommand, FoldersAndEmptyFilesAreBadInputNamedAsSuch)
{
    // A folder once ran out of memory (exit 3): its ftell size was taken for a byte count.
    const fs::path folder = scratch_file("a_folder");
    fs::create_directories(folder);
    const auto r = run_gsr("info " + shell_quote(folder.string()));
    EXPECT_EQ(r.exit_code, 2) << r.err;
    EXPECT_NE(r.err.find(folder.string() + ": error: is a folder, not a file"),
              std::string::npos)
        << r.err;
    const fs::path empty = scratch_file("empty"); // no extension to go by
    std::ofstream(empty).put('\n');
    const auto e = run_gsr("info " + shell_quote(empty.string()));
    EXPECT_EQ(e.exit_code, 2) << e.err;
    EXPECT_NE(e.err.find(":1:1: error: expected a netlist"), std::string::npos) << e.err;
    EXPECT_NE(e.err.find("found an empty file"), std::string::npos) << e.err;
}

TEST(LabelsCommand, ReproducesTheReferenceCsvOfC17)
{
    const fs::path out = scratch_file("c17.csv");
    const auto r = run_gsr("labels " + data_arg("netlists/iscas85/bench/c17.bench") +
                           " --mode exhaustive --out " + shell_quote(out.string()));
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const auto ours = column(out, "sim_ones");
    const auto ref = column(std::string(GSR_DATA_DIR) + "/labels/iscas85_c17.csv", "sim_ones");
    ASSERT_FALSE(ref.empty());
    EXPECT_EQ(ours, ref);
}

TEST(LabelsCommand, ItsOwnWarningsNameTheCircuitAndQuietSilencesThem)
{
    const fs::path bench = scratch_file("undriven.bench");
    std::ofstream(bench) << "INPUT(a)\nOUTPUT(y)\ny = AND(a, floating)\n";
    const fs::path csv = scratch_file("undriven.csv");
    auto r = run_gsr("labels " + shell_quote(bench.string()) + " --out " +
                     shell_quote(csv.string()));
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(r.err.find(bench.string() + ": warning: 1 nets are read but never driven"),
              std::string::npos)
        << r.err;
    r = run_gsr("labels " + shell_quote(bench.string()) + " --quiet --out " +
                shell_quote(csv.string()));
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(r.err, "");
}

TEST(LabelsCommand, ExhaustiveVectorsRefuseANamedToggleTarget)
{
    // Exhaustive vectors have no order to toggle in: "sp,toggle" was written without the
    // toggle columns, and without a word; "all" leaves them out, as the structural targets do.
    const fs::path out = scratch_file("c17_toggle.csv");
    const auto r = run_gsr("labels " + data_arg("netlists/iscas85/bench/c17.bench") +
                           " --mode exhaustive --target sp,toggle --out " +
                           shell_quote(out.string()));
    EXPECT_EQ(r.exit_code, 1) << r.err;
    EXPECT_NE(r.err.find("--target toggle needs --mode random or seq"), std::string::npos)
        << r.err;
    EXPECT_FALSE(fs::exists(out));
}

TEST(LabelsCommand, AnXTieIsRefusedAtTheGateThatReadsItNotDropped)
{
    // `nand(n, a, 1'bx)` was labelled as NOT a: fan-in 1, probability 0.5, exit 0.
    const fs::path v = scratch_file("x_tie.v");
    std::ofstream(v) << "module m(a, n);\ninput a; output n;\nnand g1(n, a, 1'bx);\nendmodule\n";
    const fs::path out = scratch_file("x_tie.csv");
    fs::remove(out);
    auto r = run_gsr("labels " + shell_quote(v.string()) + " --mode exhaustive --target sp --out " +
                     shell_quote(out.string()));
    EXPECT_EQ(r.exit_code, 2) << r.err;
    EXPECT_EQ(r.err.rfind(v.string() + ":3: error: ", 0), 0u) << r.err;
    EXPECT_NE(r.err.find("CONSTX"), std::string::npos) << r.err;
    EXPECT_FALSE(fs::exists(out));
    // The structure has both inputs.
    r = run_gsr("labels " + shell_quote(v.string()) + " --target level --out " +
                shell_quote(out.string()));
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(gsr::test::read_text(out).find("\nn,NAND,0,1,0,2,0,1,0\n"), std::string::npos)
        << gsr::test::read_text(out);
}

TEST(LabelsCommand, StimulusFlagsWithoutASimulatedTargetAreRefused)
{
    // `--target level --vectors 10 --seed 5` wrote the levels and ignored both without a word.
    for (const char* flags : {" --target level --vectors 10", " --target arrival --mode seq",
                              " --target level,arrival --seed 5 --threads 2"}) {
        const auto r = run_gsr("labels " + data_arg("netlists/iscas85/bench/c17.bench") + flags +
                               " --out " + shell_quote(scratch_file("stimulus.csv").string()));
        EXPECT_EQ(r.exit_code, 1) << flags << ": " << r.err;
        EXPECT_NE(r.err.find(" applies to the simulated targets (sp, toggle, all)"),
                  std::string::npos)
            << r.err;
    }
}

TEST(LabelsCommand, ANetWithTwoDriversIsRefusedForEveryTarget)
{
    // Simulation refused it; level and arrival kept the first driver without a word.
    const fs::path v = scratch_file("two_drivers.v");
    std::ofstream(v) << "module m(a, b, y);\ninput a, b; output y;\nand g1(y, a, b);\n"
                        "or g2(y, a, b);\nendmodule\n";
    const fs::path out = scratch_file("two_drivers.csv");
    fs::remove(out);
    const auto r = run_gsr("labels " + shell_quote(v.string()) + " --target level,arrival --out " +
                           shell_quote(out.string()));
    EXPECT_EQ(r.exit_code, 2) << r.err;
    EXPECT_NE(r.err.find(v.string() + ":4: error: net 'y' has more than one driver: cell 'g2' of "
                                      "type 'OR' and cell 'g1' of type 'AND' on line 3 (1 such "
                                      "net); the labels need one driver per net"),
              std::string::npos)
        << r.err;
    EXPECT_FALSE(fs::exists(out));
}

TEST(LabelsCommand, ATransistorDeckIsRefusedForEveryTarget)
{
    // Simulation refused it by its first element; level and arrival wrote a CSV of a header
    // alone and exited 0 ("0 nets"), while `info` gives the deck 82 nets.
    const fs::path out = scratch_file("transistors.csv");
    fs::remove(out);
    const std::string deck = std::string(GSR_DATA_DIR) + "/netlists/spice/adder_mos.cir";
    for (const char* target : {"level", "arrival"}) {
        const auto r = run_gsr("labels " + shell_quote(deck) + " --target " + target +
                               " --out " + shell_quote(out.string()));
        EXPECT_EQ(r.exit_code, 2) << target << ": " << r.err;
        EXPECT_NE(r.err.find(deck + ": error: no net has a driver"), std::string::npos) << r.err;
        EXPECT_FALSE(fs::exists(out));
    }
}

TEST(LabelsCommand, AStandardCellNetlistSimulatesWithItsLiberty)
{
    // Library cells had no logic: sp and toggle were refused for every synthesized netlist.
    // With its Liberty they run by the cells' functions and flip-flop groups.
    const fs::path out = scratch_file("s1196_cells.csv");
    fs::remove(out);
    const std::string dir = std::string(GSR_DATA_DIR) + "/netlists/iwls05_gsclib180/";
    const auto r = run_gsr("labels " + shell_quote(dir + "netlist/s1196.v") + " --liberty " +
                           shell_quote(dir + "lib/GSCLib_3.0.lib") +
                           " --target sp,toggle --mode seq --runs 256 --quiet --out " +
                           shell_quote(out.string()));
    ASSERT_EQ(r.exit_code, 0) << r.err;
    std::istringstream csv(gsr::test::read_text(out));
    std::string line;
    std::getline(csv, line);
    const auto header = gsr::test::split_csv(line, 1000);
    const auto column = [&](const std::string& name) {
        return static_cast<std::size_t>(std::find(header.begin(), header.end(), name) -
                                        header.begin());
    };
    const std::size_t prob = column("sim_prob"), state = column("is_state");
    ASSERT_LT(prob, header.size());
    ASSERT_LT(state, header.size());
    std::size_t rows = 0, flops = 0, varying = 0;
    while (std::getline(csv, line)) {
        const auto cells = gsr::test::split_csv(line, header.size());
        const double p = std::stod(cells[prob]);
        EXPECT_GE(p, 0.0);
        EXPECT_LE(p, 1.0);
        varying += p > 0 && p < 1;
        flops += cells[state] == "1";
        ++rows;
    }
    EXPECT_EQ(flops, 18u); // COUNTS.csv: s1196's flip-flops
    EXPECT_GT(varying, rows * 9 / 10);
}

TEST(LabelsCommand, ANamedToggleTargetNeedsTwoSamplesInARow)
{
    // One vector (or one cycle past the warm-up) wrote a toggle rate of 0 for every net; "all"
    // leaves the columns out instead, as it does for exhaustive vectors.
    const fs::path out = scratch_file("c17_one_vector.csv");
    auto r = run_gsr("labels " + data_arg("netlists/iscas85/bench/c17.bench") +
                     " --vectors 1 --target toggle --out " + shell_quote(out.string()));
    EXPECT_EQ(r.exit_code, 1) << r.err;
    EXPECT_NE(r.err.find("--target toggle needs two vectors in a row: --vectors must be 2 or more"),
              std::string::npos)
        << r.err;
    EXPECT_FALSE(fs::exists(out));
    r = run_gsr("labels " + data_arg("netlists/iscas89/bench/s27.bench") +
                " --cycles 5 --warmup 4 --target toggle --out " + shell_quote(out.string()));
    EXPECT_EQ(r.exit_code, 1) << r.err;
    EXPECT_NE(r.err.find("--cycles must exceed --warmup by 2 or more"), std::string::npos)
        << r.err;
    r = run_gsr("labels " + data_arg("netlists/iscas85/bench/c17.bench") +
                " --vectors 1 --out " + shell_quote(out.string()));
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const std::string csv = gsr::test::read_text(out);
    EXPECT_NE(csv.find("sim_prob"), std::string::npos);
    EXPECT_EQ(csv.find("toggle"), std::string::npos);
}

TEST(TrainCommand, AMistakeLeavesNoNewProjectBehind)
{
    // The project was created before the command line and the inputs were checked.
    const fs::path db = scratch_file("never.gsr");
    fs::remove(db);
    const std::string c17 = data_arg("netlists/iscas85/bench/c17.bench");
    auto r = run_gsr("train " + shell_quote(scratch_file("missing.bench").string()) +
                     " --test " + c17 + " --db " + shell_quote(db.string()));
    EXPECT_EQ(r.exit_code, 2) << r.err;
    EXPECT_NE(r.err.find("missing.bench: error: no such file"), std::string::npos) << r.err;
    EXPECT_FALSE(fs::exists(db));
    r = run_gsr("train " + c17 + " --test " + c17 + " --model bogus --db " +
                shell_quote(db.string()));
    EXPECT_EQ(r.exit_code, 1) << r.err;
    EXPECT_FALSE(fs::exists(db));
    r = run_gsr("train " + c17 + " --test " + c17 + " --device tpu --db " +
                shell_quote(db.string()));
    EXPECT_EQ(r.exit_code, 1) << r.err;
    EXPECT_NE(r.err.find("unknown device 'tpu' (allowed: auto, cpu, gpu)"), std::string::npos)
        << r.err;
    EXPECT_FALSE(fs::exists(db));
    // Where no GPU can be used, the GPU is probed before the project is made (where one can,
    // this trains: a circuit of its own to test on, or the run is refused as c17 twice).
    r = run_gsr("train " + c17 + " --test " + data_arg("netlists/iscas85/bench/c432.bench") +
                " --device gpu --layers 2 --hidden 8 --epochs 1 --quiet --db " +
                shell_quote(db.string()));
    if (r.exit_code != 0) {
        EXPECT_EQ(r.exit_code, 1) << r.err;
        EXPECT_NE(r.err.find("gsr: --device gpu: "), std::string::npos) << r.err;
        EXPECT_FALSE(fs::exists(db));
    }
    fs::remove(db);
    r = run_gsr("train --resume 1 --db " + shell_quote(db.string()));
    EXPECT_EQ(r.exit_code, 2) << r.err;
    EXPECT_NE(r.err.find("no such project file"), std::string::npos) << r.err;
    EXPECT_FALSE(fs::exists(db));
    // --model=symgraph as the last argument was "unknown model".
    r = run_gsr("train " + shell_quote(scratch_file("missing.bench").string()) + " --test " +
                c17 + " --db " + shell_quote(db.string()) + " --model=symgraph");
    EXPECT_EQ(r.exit_code, 2) << r.err;
    EXPECT_EQ(r.err.find("unknown model"), std::string::npos) << r.err;
    // A flag without its value took the next flag as the value: --db "--epochs" was created.
    r = run_gsr("train " + c17 + " --test " + c17 + " --db --epochs 2");
    EXPECT_EQ(r.exit_code, 1) << r.err;
    EXPECT_NE(r.err.find("--db needs a value before --epochs"), std::string::npos) << r.err;
    EXPECT_FALSE(fs::exists("--epochs"));
    r = run_gsr("layout " + c17 + " --out --seed=3");
    EXPECT_EQ(r.exit_code, 1) << r.err;
    EXPECT_NE(r.err.find("--out needs a value before --seed"), std::string::npos) << r.err;
    // Nor a flag of another command: `new --db --json` made a project named "--json".
    r = run_gsr("new --db --json");
    EXPECT_EQ(r.exit_code, 1) << r.err;
    EXPECT_NE(r.err.find("--db needs a value before --json (for a value that starts with --, "
                         "write --db=--json)"),
              std::string::npos)
        << r.err;
    EXPECT_FALSE(fs::exists("--json"));
    r = run_gsr("new --db --");
    EXPECT_EQ(r.exit_code, 1) << r.err;
    EXPECT_FALSE(fs::exists("--"));
    // Mistakes found only once the circuits are read, or after them, made the project first.
    const fs::path bad = scratch_file("bad_line3.bench");
    std::ofstream(bad) << "INPUT(a)\nOUTPUT(y)\ny = AND(a,\n";
    r = run_gsr("train " + shell_quote(bad.string()) + " --test " + c17 + " --db " +
                shell_quote(db.string()));
    EXPECT_EQ(r.exit_code, 2) << r.err;
    EXPECT_NE(r.err.find("bad_line3.bench:3:"), std::string::npos) << r.err;
    EXPECT_FALSE(fs::exists(db));
    r = run_gsr("train " + c17 + " --test " + c17 + " --db " + shell_quote(db.string()));
    EXPECT_EQ(r.exit_code, 2) << r.err;
    EXPECT_NE(r.err.find("is given twice"), std::string::npos) << r.err;
    EXPECT_FALSE(fs::exists(db));
    const std::string c432 = data_arg("netlists/iscas85/bench/c432.bench");
    r = run_gsr("train " + c17 + " --test " + c432 + " --tuned-kernels maybe --db " +
                shell_quote(db.string()));
    EXPECT_EQ(r.exit_code, 1) << r.err;
    EXPECT_NE(r.err.find("--tuned-kernels takes on or off, not 'maybe'"), std::string::npos)
        << r.err;
    EXPECT_FALSE(fs::exists(db));
}

TEST(ProjectFlag, EitherSpellingNamesTheProject)
{
    // --db in most commands, --project in the kernel lab's: each refused the other as unknown.
    const fs::path db = scratch_file("either_spelling.gsr");
    fs::remove(db);
    auto r = run_gsr("new --project " + shell_quote(db.string()));
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_TRUE(fs::exists(db));
    r = run_gsr("runs list --project=" + shell_quote(db.string()));
    EXPECT_EQ(r.exit_code, 0) << r.err;
    r = run_gsr("kernels apply --list --db " + shell_quote(db.string()));
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(r.out.find("no applied kernels"), std::string::npos) << r.out;
    // Errors name the spelling typed; two projects are refused, not the last one taken.
    r = run_gsr("runs list --project");
    EXPECT_EQ(r.exit_code, 1) << r.err;
    EXPECT_NE(r.err.find("--project needs a value"), std::string::npos) << r.err;
    r = run_gsr("runs list --db " + shell_quote(db.string()) + " --project=other.gsr");
    EXPECT_EQ(r.exit_code, 1) << r.err;
    EXPECT_NE(r.err.find("the project is given twice (--project other.gsr)"), std::string::npos)
        << r.err;
    // A command without a project still has no such flag.
    r = run_gsr("info --project " + shell_quote(db.string()));
    EXPECT_EQ(r.exit_code, 1) << r.err;
    EXPECT_NE(r.err.find("unknown option --project"), std::string::npos) << r.err;
}

TEST(RunsCommand, OutNeverReplacesTheProject)
{
    const fs::path db = scratch_file("runs_out.gsr");
    fs::remove(db);
    ASSERT_EQ(run_gsr("new --db " + shell_quote(db.string())).exit_code, 0);
    const auto before = fs::file_size(db);
    const auto r = run_gsr("runs list --csv --db " + shell_quote(db.string()) + " --out " +
                           shell_quote(db.string()));
    EXPECT_EQ(r.exit_code, 1) << r.err;
    EXPECT_NE(r.err.find("writing there would replace it"), std::string::npos) << r.err;
    EXPECT_EQ(fs::file_size(db), before);
    EXPECT_EQ(run_gsr("runs list --db " + shell_quote(db.string())).exit_code, 0);
}

TEST(CommunitiesCommand, BadFlagsAreRefusedWithTheirRealLimits)
{
    const std::string c17 = data_arg("netlists/iscas85/bench/c17.bench");
    auto r = run_gsr("communities " + c17 + " --iterations 99999999");
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_NE(r.err.find("from -1000000 to 1000000, not 0"), std::string::npos) << r.err;
    r = run_gsr("communities " + c17 + " --threads 5000");
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_NE(r.err.find("1024"), std::string::npos) << r.err;
    // labels took 4096 and ran them all (c17 in 0.56 s, against 0.004 s on two).
    const fs::path csv = scratch_file("threads.csv");
    r = run_gsr("labels " + c17 + " --threads 5000 --out " + shell_quote(csv.string()));
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_NE(r.err.find("1024"), std::string::npos) << r.err;
    r = run_gsr("labels " + c17 + " --threads 1024 --out " + shell_quote(csv.string()));
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(r.err.find("note: --threads 1024 is more than the"), std::string::npos) << r.err;
    r = run_gsr("labels " + c17 + " --threads 1024 --quiet --out " + shell_quote(csv.string()));
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(r.err, "") << "--quiet keeps the note too";
    // One limit for --hidden, the engine's.
    r = run_gsr("train " + c17 + " --test " + c17 + " --db " +
                shell_quote(scratch_file("hidden.gsr").string()) + " --hidden 5000");
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_NE(r.err.find("from 1 to 4096"), std::string::npos) << r.err;
    r = run_gsr("layout " + c17 + " --iterations 20000000 --out " +
                shell_quote(scratch_file("never.csv").string()));
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_NE(r.err.find("10000000"), std::string::npos) << r.err;
    // Louvain makes one pass: its --iterations was ignored without a word.
    r = run_gsr("communities " + c17 + " --method louvain --iterations 5");
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_NE(r.err.find("--iterations applies to --method leiden only"), std::string::npos)
        << r.err;
}

TEST(LayoutCommand, CtrlCStopsItAndWritesNothing)
{
    // The CLI passed no cancel flag: Ctrl-C killed the process outright. Now the layout stops
    // between iterations, says so, and exits 130 without writing --out. hyp's layout runs for
    // minutes and says every second how far it is (it used to say nothing until the end); its
    // first such line comes after the guard that catches SIGINT is in place (a fixed two
    // seconds in once came before the guard on a busy machine, and the layout ran on).
    const fs::path out = scratch_file("hyp_interrupted.csv");
    const fs::path err = scratch_file("hyp_interrupted.err");
    fs::remove(out);
    const std::string script =
        shell_quote(std::string(GSR_BIN_DIR) + "/gsr") + " layout " +
        data_arg("netlists/epfl/arithmetic/hyp_from_aig.blif") + " --out " +
        shell_quote(out.string()) + " 2>" + shell_quote(err.string()) +
        " & pid=$!\nfor i in $(seq 2400); do grep -q '^layout: iteration [0-9]* of at most 2000' " +
        shell_quote(err.string()) + " && break; sleep 0.05; done\n"
        "kill -INT $pid; wait $pid; echo rc=$?\n";
    FILE* p = ::popen(script.c_str(), "r");
    ASSERT_NE(p, nullptr);
    std::string rc;
    char buf[256];
    while (std::fgets(buf, sizeof buf, p)) rc += buf;
    ::pclose(p);
    EXPECT_EQ(rc, "rc=130\n");
    const std::string said = gsr::test::read_text(err);
    EXPECT_NE(said.find("layout: iteration "), std::string::npos) << said;
    EXPECT_NE(said.find("interrupted: the layout stopped after iteration "), std::string::npos)
        << said;
    EXPECT_FALSE(fs::exists(out));
}

TEST(Help, ACommandsHelpIsItsUsage)
{
    // `gsr train --help` was "unknown option --help".
    auto r = run_gsr("train --help");
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(r.out.find("[--batching full|random|commrand|cluster]"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("--model symgraph"), std::string::npos) << r.out; // both train entries
    for (const char* flag : {"--tuned-kernels on|off", "--batch B", "--quiet", "--penalty X",
                             "--max-conditions N", "--min-support N"})
        EXPECT_NE(r.out.find(flag), std::string::npos) << flag << " is accepted but not shown";
    EXPECT_EQ(r.out.find("labels FILE"), std::string::npos) << r.out;
    r = run_gsr("kernels tune -h");
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(r.out.find("kernels tune PROBLEM"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("kernels calibrate"), std::string::npos) << r.out;
    EXPECT_EQ(r.out.find("report --list"), std::string::npos) << r.out;
    // memory, sol and kernels print their own longer usage, which the help entry hid.
    EXPECT_NE(r.out.find("verify: compile, check (3 fresh input sets"), std::string::npos) << r.out;
    r = run_gsr("memory --layers 4 -h");
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(r.out.find("--measure also runs one CPU training step"), std::string::npos) << r.out;
    r = run_gsr("sol gemm --help");
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(r.out.find("OP and DIMS: gemm M,N,K"), std::string::npos) << r.out;
    // Options the help left out, or showed as required when they are not.
    r = run_gsr("help");
    for (const char* shown : {"--measure", "--dropout P", "--layers L (16)", "[--profile]",
                              "[--format html|pdf|csv|json (from --out's name)]",
                              "no kernel passed"})
        EXPECT_NE(r.out.find(shown), std::string::npos) << shown;
    // report --list printed the listing and ignored --out.
    r = run_gsr("report --list --project x.gsr --out listing.txt");
    EXPECT_EQ(r.exit_code, 1) << r.err;
    EXPECT_NE(r.err.find("--out does not apply to report --list"), std::string::npos) << r.err;
    // `gsr help COMMAND` printed the whole help for any COMMAND, an unknown one too.
    const auto train = run_gsr("train --help");
    r = run_gsr("help train");
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(r.out, train.out);
    r = run_gsr("help bogus");
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_NE(r.err.find("unknown command 'bogus'"), std::string::npos) << r.err;
    // A switch given a value was "unknown option --quiet".
    r = run_gsr("info --quiet=1 " + data_arg("netlists/iscas85/bench/c17.bench"));
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_NE(r.err.find("--quiet takes no value (got --quiet=1)"), std::string::npos) << r.err;
}

TEST(KernelsCommand, ContradictoryApplyFlagsAndBadValuesAreRefusedBeforeAnyWork)
{
    // --list --clear cleared: the destructive one of two contradictory flags won.
    const fs::path project = scratch_file("apply.gsr");
    auto r = run_gsr("kernels apply --project " + shell_quote(project.string()) +
                     " --list --clear");
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_NE(r.err.find("--clear removes every applied kernel: it takes no --list"),
              std::string::npos)
        << r.err;
    r = run_gsr("kernels apply --project " + shell_quote(project.string()) +
                " --clear --session 3");
    EXPECT_NE(r.err.find("it takes no --session"), std::string::npos) << r.err;
    // 1e300 s became a 0 ms timeout (a double past 2^64 cast to an integer).
    r = run_gsr("kernels verify k.cu --problem softmax_1k --timeout 1e300");
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_NE(r.err.find("--timeout: at most 86400 seconds, got 1e300"), std::string::npos)
        << r.err;
    // A folder read as an empty kernel.
    const fs::path folder = scratch_file("kernel_folder");
    fs::create_directories(folder);
    r = run_gsr("kernels verify " + shell_quote(folder.string()) + " --problem softmax_1k");
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_NE(r.err.find(folder.string() + ": error: is a folder, not a CUDA source file"),
              std::string::npos)
        << r.err;
}

TEST(MemoryCommand, GroupsAndTopkOfAModelWithoutThemAreRefused)
{
    // As gsr train refuses them: they were ignored without a word.
    auto r = run_gsr("memory --model gcn --layers 2 --hidden 16 --groups 4 --nodes 100 "
                     "--edges 200");
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_NE(r.err.find("--groups applies to --model rev or gsr only (the model is gcn)"),
              std::string::npos)
        << r.err;
    r = run_gsr("memory --model rev --layers 2 --hidden 16 --topk 2 --nodes 100 --edges 200");
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_NE(r.err.find("--topk applies to --model gsr only"), std::string::npos) << r.err;
}

TEST(MemoryCommand, ReversibleModelsStayFlatAndResidualGrowsLinearly)
{
    EXPECT_LE(static_cast<double>(peak_of("rev", 256)), 1.2 * static_cast<double>(peak_of("rev", 16)));
    EXPECT_LE(static_cast<double>(peak_of("gsr", 256)), 1.2 * static_cast<double>(peak_of("gsr", 16)));
    const double r16 = static_cast<double>(peak_of("res", 16)), r32 = static_cast<double>(peak_of("res", 32)),
                 r64 = static_cast<double>(peak_of("res", 64));
    EXPECT_NEAR((r64 - r32) / (r32 - r16), 2.0, 1e-6); // equal growth per layer
}

TEST(MemoryCommand, TopkDefaultsToHalfAGroupNarrowerThanSixteen)
{
    // --hidden 16 with the default 4 groups leaves groups of 4: k 2, not ModelConfig's 8 (which
    // `gsr memory` and `gsr train` used to refuse as a --topk the user never gave).
    const auto topk_of = [](const std::string& hidden) {
        const auto r = run_gsr("memory --model gsr --layers 4 --hidden " + hidden +
                               " --nodes 1000 --edges 4000 --json");
        EXPECT_EQ(r.exit_code, 0) << r.err;
        return r.exit_code == 0 ? nlohmann::json::parse(r.out)["topk"].get<int>() : -1;
    };
    EXPECT_EQ(topk_of("16"), 2);
    EXPECT_EQ(topk_of("64"), 8);
}

TEST(TrainCommand, TrainsAndReportsMetricsOnAnUnseenCircuit)
{
    const fs::path db = scratch_file("train.gsr");
    const auto r = run_gsr("train " + data_arg("netlists/iscas85/bench/c880.bench") + " --test " +
                           data_arg("netlists/iscas85/bench/c432.bench") + " --db " + shell_quote(db.string()) +
                           " --model gsr --layers 4 --hidden 16 --groups 2 --topk 4 --epochs 3 --json --quiet"
                           " --device cpu"); // the CPU arena: the analytic peak to the byte
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const auto j = nlohmann::json::parse(r.out);
    // One row per net: the test circuit's every net, the training circuit's split in two.
    EXPECT_EQ(j["test"]["count"].get<long long>(),
              gsr::test::counted_nets("iscas85/bench/c432.bench"));
    EXPECT_EQ(j["train"]["count"].get<long long>() + j["val"]["count"].get<long long>(),
              gsr::test::counted_nets("iscas85/bench/c880.bench"));
    for (const char* split : {"train", "val", "test"}) {
        const auto& m = j[split];
        for (const char* k : {"pearson", "spearman", "kendall"}) {
            ASSERT_TRUE(m[k].is_number()) << split << " " << k;
            EXPECT_GE(m[k].get<double>(), -1.0) << split << " " << k;
            EXPECT_LE(m[k].get<double>(), 1.0) << split << " " << k;
        }
        ASSERT_TRUE(m["mae"].is_number() && m["rmse"].is_number()) << split;
        EXPECT_GT(m["mae"].get<double>(), 0.0) << split;
        EXPECT_LE(m["mae"].get<double>(), m["rmse"].get<double>()) << split;
    }
    EXPECT_EQ(j["epochs_done"], 3);
    // The arena is the memory the model predicts, to the byte (as the core Trainer's test).
    EXPECT_GT(j["peak_memory"]["measured_bytes"].get<std::int64_t>(), 0);
    EXPECT_EQ(j["peak_memory"]["measured_bytes"], j["peak_memory"]["analytic_bytes"]);
    const auto runs = run_gsr("runs list --json --db " + shell_quote(db.string()));
    ASSERT_EQ(runs.exit_code, 0) << runs.err;
    EXPECT_EQ(nlohmann::json::parse(runs.out).size(), 1u);
    // The window's Runs table as CSV: a header and the run, with its best epoch's test r.
    const fs::path csv = scratch_file("runs.csv");
    fs::remove(csv);
    auto table = run_gsr("runs list --csv --out " + shell_quote(csv.string()) + " --db " +
                         shell_quote(db.string()));
    ASSERT_EQ(table.exit_code, 0) << table.err;
    EXPECT_EQ(table.out, "");
    const std::string text = gsr::test::read_text(csv);
    EXPECT_EQ(text.rfind("Run,Created (UTC),Status,Model,", 0), 0u) << text;
    char pearson[32];
    std::snprintf(pearson, sizeof pearson, ",%.3f,", j["test"]["pearson"].get<double>());
    EXPECT_NE(text.find(",3/3,"), std::string::npos) << text;
    EXPECT_NE(text.find(pearson), std::string::npos) << text << " has no " << pearson;
    EXPECT_EQ(std::count(text.begin(), text.end(), '\n'), 2) << text;
    table = run_gsr("runs list --csv --json --db " + shell_quote(db.string()));
    EXPECT_EQ(table.exit_code, 1) << table.err;
    EXPECT_NE(table.err.find("--json and --csv: choose one"), std::string::npos) << table.err;
}

TEST(TrainCommand, PredictionsAreTheBestEpochsForEveryNodeInFileOrder)
{
    const fs::path db = scratch_file("predictions.gsr");
    const fs::path csv = scratch_file("predictions.csv");
    fs::remove(db);
    fs::remove(csv);
    const std::string train = "train " + data_arg("netlists/iscas85/bench/c880.bench") +
                              " --test " + data_arg("netlists/iscas85/bench/c432.bench") +
                              " --db " + shell_quote(db.string());
    // Onto the project (not made yet) or an input: refused before any work.
    auto r = run_gsr(train + " --epochs 2 --predictions " + shell_quote(db.string()));
    EXPECT_EQ(r.exit_code, 1) << r.err;
    EXPECT_NE(r.err.find("--predictions " + db.string() + " is the input"), std::string::npos)
        << r.err;
    EXPECT_FALSE(fs::exists(db));
    r = run_gsr(train + " --model sage --layers 2 --hidden 16 --epochs 6 --lr 0.05 --json "
                "--quiet --predictions " + shell_quote(csv.string()));
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const auto j = nlohmann::json::parse(r.out);
    ASSERT_TRUE(j["best_epoch"].is_number());
    EXPECT_EQ(j["predictions"]["epoch"], j["best_epoch"]);

    // A row per graph node of both circuits, c880's first, each in its file's order.
    std::ifstream in(csv);
    std::string line;
    std::getline(in, line);
    EXPECT_EQ(line, "circuit,node,net,split,target,predicted\r");
    std::map<std::string, long long> rows;
    std::map<std::string, long long> next_node;
    double abs_error = 0.0;
    std::size_t test_rows = 0;
    std::set<std::string> c432_nets;
    while (std::getline(in, line)) {
        if (!line.empty() && line.back() == '\r') line.pop_back();
        const auto cells = gsr::test::split_csv(line, 8);
        ASSERT_EQ(cells.size(), 6u) << line;
        const std::string circuit = fs::path(cells[0]).filename().string();
        ++rows[circuit];
        EXPECT_EQ(std::stoll(cells[1]), next_node[circuit]++) << line;
        if (cells[3] == "test") {
            abs_error += std::abs(std::stod(cells[5]) - std::stod(cells[4]));
            ++test_rows;
        }
        if (circuit == "c432.bench") c432_nets.insert(cells[2]);
    }
    // A bench file's graph has a node per net (COUNTS.csv): its inputs and gates.
    EXPECT_EQ(rows["c880.bench"], gsr::test::counted_nets("iscas85/bench/c880.bench"));
    EXPECT_EQ(rows["c432.bench"], gsr::test::counted_nets("iscas85/bench/c432.bench"));
    EXPECT_EQ(rows.size(), 2u);
    EXPECT_TRUE(c432_nets.count("1") && c432_nets.count("223")) << "c432's input 1, gate 223";
    // The test rows are the best epoch's test figures.
    ASSERT_EQ(test_rows, std::size_t(j["test"]["count"].get<long long>()));
    const double mae = j["test"]["mae"].get<double>();
    EXPECT_NEAR(abs_error / double(test_rows), mae, 1e-6 * (1 + mae));

    // --resume of the finished run trains nothing and writes the same predictions again.
    const std::string before = gsr::test::read_text(csv);
    fs::remove(csv);
    r = run_gsr("train --db " + shell_quote(db.string()) + " --resume 1 --predictions " +
                shell_quote(csv.string()));
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(gsr::test::read_text(csv), before);
}

TEST(TrainCommand, ResumeRefusesFewerEpochsThanTheRunHasDone)
{
    const fs::path db = scratch_file("fewer_epochs.gsr");
    fs::remove(db);
    auto r = run_gsr("train " + data_arg("netlists/iscas85/bench/c17.bench") + " --test " +
                     data_arg("netlists/iscas85/bench/c432.bench") + " --db " +
                     shell_quote(db.string()) + " --model gcn --layers 2 --hidden 8 --epochs 3 "
                     "--quiet");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    r = run_gsr("train --db " + shell_quote(db.string()) + " --resume 1 --epochs 2");
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_NE(r.err.find("--epochs 2: run 1 has done 3 epochs already"), std::string::npos)
        << r.err;
    r = run_gsr("runs list --csv --db " + shell_quote(db.string()));
    EXPECT_NE(r.out.find(",3/3,"), std::string::npos) << r.out; // not "3/2"
    // A run the project does not hold is the project's matter: exit 2, as report run:9.
    r = run_gsr("train --db " + shell_quote(db.string()) + " --resume 9");
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_NE(r.err.find(db.string() + ": error: --resume: no run 9 in the project"),
              std::string::npos)
        << r.err;
}

TEST(TrainCommand, StandardCellCircuitsTrainWithTheirLibraryAndResumeWithIt)
{
    // Signal probability of synthesized netlists: their cells run by the Liberty's functions.
    // The run keeps its libraries, so --resume labels the circuits as the run began.
    const fs::path db = scratch_file("cells_train.gsr");
    fs::remove(db);
    const std::string dir = std::string(GSR_DATA_DIR) + "/netlists/iwls05_gsclib180/";
    const std::string circuits = shell_quote(dir + "netlist/s344.v") + " --test " +
                                 shell_quote(dir + "netlist/s27.v");
    // A path with ".." in it (GSR_DATA_DIR has one too) is kept cleaned, as the window
    // names the file (its predictions are matched to the canvas's file by that name).
    const std::string lib = shell_quote(dir + "netlist/../lib/GSCLib_3.0.lib");
    auto r = run_gsr("train " + circuits + " --db " + shell_quote(db.string()) +
                     " --model gcn --layers 2 --hidden 8 --epochs 2 --quiet");
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_NE(r.err.find("simulating it needs its Liberty library"), std::string::npos) << r.err;
    r = run_gsr("train " + circuits + " --liberty " + lib + " --db " + shell_quote(db.string()) +
                " --model gcn --layers 2 --hidden 8 --epochs 2 --json --quiet");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const auto j = nlohmann::json::parse(r.out);
    // s27.v (COUNTS.csv): 6 inputs and 19 cells, and the constant its resets are tied to
    EXPECT_EQ(j["last_epoch"]["test"]["count"].get<std::size_t>(), 6u + 19u + 1u);
    EXPECT_TRUE(j["last_epoch"]["test"]["pearson"].is_number()) << j.dump();
    r = run_gsr("runs list --json --db " + shell_quote(db.string()));
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const std::string cleaned_lib = fs::absolute(dir + "lib/GSCLib_3.0.lib").lexically_normal();
    EXPECT_EQ(cleaned_lib.find(".."), std::string::npos) << cleaned_lib;
    EXPECT_EQ(nlohmann::json::parse(r.out)[0]["config"]["liberty"][0], cleaned_lib);
    r = run_gsr("train --db " + shell_quote(db.string()) + " --resume 1 --epochs 3 --quiet");
    EXPECT_EQ(r.exit_code, 0) << r.err;
    r = run_gsr("train --db " + shell_quote(db.string()) + " --resume 1 --epochs 4 --liberty " + lib);
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_NE(r.err.find("leave out --liberty"), std::string::npos) << r.err;
}

TEST(TrainCommand, NamesThatAreNotUtf8TrainAndReportWithReplacementCharacters)
{
    // A Latin-1 file name (0xE9, "é") and a BLIF model named in Latin-1: the JSON of `gsr info`,
    // the run's settings in the project and its report carry U+FFFD for the byte, where they
    // used to stop at nlohmann's "invalid UTF-8" exception.
    const fs::path latin1 = scratch_file("caf\xe9.bench");
    fs::copy_file(fs::path(GSR_DATA_DIR) / "netlists/iscas85/bench/c17.bench", latin1,
                  fs::copy_options::overwrite_existing);
    const fs::path blif = scratch_file("latin1_model.blif");
    std::ofstream(blif) << ".model caf\xe9\n.inputs a b\n.outputs y\n.names a b y\n11 1\n.end\n";
    const auto info = run_gsr("info --json " + shell_quote(blif.string()));
    ASSERT_EQ(info.exit_code, 0) << info.err;
    EXPECT_EQ(nlohmann::json::parse(info.out)["top"], "caf\xef\xbf\xbd");

    const fs::path db = scratch_file("latin1.gsr");
    const auto r = run_gsr("train " + shell_quote(latin1.string()) + " --test " +
                           data_arg("netlists/iscas85/bench/c432.bench") + " --db " +
                           shell_quote(db.string()) + " --model sage --epochs 1");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    // It trains, and says up front that it cannot be resumed (its path comes back altered).
    EXPECT_NE(r.err.find("the path is not UTF-8; the project keeps it with U+FFFD for the bad "
                         "bytes, so this run cannot be resumed"),
              std::string::npos)
        << r.err;
    const fs::path report = scratch_file("latin1_report.json");
    const auto rep = run_gsr("report run:1 --project " + shell_quote(db.string()) +
                             " --format json --out " + shell_quote(report.string()));
    ASSERT_EQ(rep.exit_code, 0) << rep.err;
    const std::string text = gsr::test::read_text(report);
    EXPECT_NE(text.find("caf\xef\xbf\xbd.bench"), std::string::npos);
    EXPECT_TRUE(nlohmann::json::accept(text));
}

namespace {

/// `gsr train` on c17, tested on c432, into the scratch project `db`, with `flags`.
gsr::test::RunResult train_c17(const std::string& db, const std::string& flags)
{
    return run_gsr("train " + data_arg("netlists/iscas85/bench/c17.bench") + " --test " +
                   data_arg("netlists/iscas85/bench/c432.bench") + " --db " +
                   shell_quote(scratch_file(db).string()) + " " + flags);
}

} // namespace

TEST(TrainCommand, ImpossibleConfigurationNamesTheFlag)
{
    const auto r = train_c17("bad.gsr", "--model rev --hidden 32 --groups 3");
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_NE(r.err.find("--groups"), std::string::npos) << r.err;
}

TEST(TrainCommand, NumberBoundsReadAsWritten)
{
    // The bound in the message is the shortest text of the number ("above 0", "0.001"), not
    // std::to_string's six decimals.
    const auto r = train_c17("bounds.gsr", "--lr -1");
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_NE(r.err.find("--lr expects a number above 0, got '-1'"), std::string::npos) << r.err;
}

TEST(TrainCommand, TunedKernelsTakeOnOrOffAndTheCpuRunsWithout)
{
    const std::string circuits = data_arg("netlists/iscas85/bench/c17.bench") + " --test " +
                                 data_arg("netlists/iscas85/bench/c432.bench");
    const auto bad = run_gsr("train " + circuits + " --db " +
                             shell_quote(scratch_file("tk.gsr").string()) +
                             " --tuned-kernels maybe");
    EXPECT_EQ(bad.exit_code, 1);
    EXPECT_NE(bad.err.find("--tuned-kernels takes on or off"), std::string::npos) << bad.err;
    // On the CPU the project's applied kernels are not read: no tuned_kernels in the result.
    const auto cpu = run_gsr("train " + circuits + " --db " +
                             shell_quote(scratch_file("tk2.gsr").string()) +
                             " --model rev --layers 2 --hidden 8 --groups 2 --epochs 1 --device cpu"
                             " --tuned-kernels on --json --quiet");
    ASSERT_EQ(cpu.exit_code, 0) << cpu.err;
    EXPECT_FALSE(nlohmann::json::parse(cpu.out).contains("tuned_kernels"));
}

TEST(CommunitiesCommand, JsonHasTheDocumentedKeys)
{
    const auto r = run_gsr("communities " + data_arg("netlists/itc99/b14.bench") + " --json");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const auto j = nlohmann::json::parse(r.out);
    for (const char* k : {"communities", "modularity", "seconds", "largest", "smallest"}) EXPECT_TRUE(j.contains(k)) << k;
    // The command's figures are core's detection with the defaults (Leiden, seed 1), on the
    // circuit's undirected projection: the wiring from flags to core, not a second algorithm.
    const auto loaded = gsr::graph::load_circuit(std::string(GSR_DATA_DIR) +
                                                 "/netlists/itc99/b14.bench");
    const auto want = gsr::community::detect_communities(
        gsr::community::project_undirected(loaded->graph), gsr::community::CommunityOptions{});
    ASSERT_TRUE(want);
    EXPECT_EQ(j["communities"].get<std::uint32_t>(), want->community_count);
    EXPECT_EQ(j["largest"].get<std::uint32_t>(), want->largest());
    EXPECT_EQ(j["smallest"].get<std::uint32_t>(), want->smallest());
    EXPECT_NEAR(j["modularity"].get<double>(), want->modularity, 1e-12);
    EXPECT_GT(want->modularity, 0.5);
    EXPECT_EQ(j["objective"].get<double>(), j["modularity"].get<double>()); // resolution 1
    // At another resolution "modularity" stays Newman-Girvan's (it printed the objective:
    // c17's eleven singletons at 20 gave -2.29); the objective is named apart.
    const auto singletons = run_gsr("communities " + data_arg("netlists/iscas85/bench/c17.bench") +
                                    " --resolution 20 --json");
    ASSERT_EQ(singletons.exit_code, 0) << singletons.err;
    const auto s = nlohmann::json::parse(singletons.out);
    EXPECT_EQ(s["communities"], 11);
    EXPECT_NEAR(s["modularity"].get<double>(), -66.0 / 576.0, 1e-12); // -sum k^2 / (2m)^2
    EXPECT_NEAR(s["objective"].get<double>(), -20 * 66.0 / 576.0, 1e-12);
}

TEST(CommunitiesCommand, NonPositiveResolutionIsRefused)
{
    const auto r = run_gsr("communities " + data_arg("netlists/itc99/b14.bench") + " --resolution 0");
    EXPECT_NE(r.exit_code, 0);
    EXPECT_NE(r.err.find("resolution"), std::string::npos) << r.err;
}

TEST(CommunitiesCommand, ACircuitWithoutEdgesIsNamedWithTheReason)
{
    const fs::path wires = scratch_file("wires.bench");
    std::ofstream(wires) << "INPUT(a)\nINPUT(b)\nOUTPUT(a)\nOUTPUT(b)\n";
    const auto r = run_gsr("communities " + shell_quote(wires.string()));
    EXPECT_EQ(r.exit_code, 2) << r.err;
    EXPECT_NE(r.err.find(wires.string() + ": error: community detection needs edges: the "
                                          "graph's 2 nodes have none between them"),
              std::string::npos)
        << r.err;
    const fs::path wire = scratch_file("wire.bench");
    std::ofstream(wire) << "INPUT(a)\nOUTPUT(a)\n";
    const auto one = run_gsr("communities " + shell_quote(wire.string()));
    EXPECT_EQ(one.exit_code, 2) << one.err;
    EXPECT_NE(one.err.find("the graph's one node has none"), std::string::npos) << one.err;
    // The layout of one node is settled at once (it once ran to the iteration limit).
    const auto layout = run_gsr("layout " + shell_quote(wire.string()) + " --out " +
                                shell_quote(scratch_file("wire.csv").string()));
    EXPECT_EQ(layout.exit_code, 0) << layout.err;
    EXPECT_NE(layout.out.find("iterations   0 (converged)"), std::string::npos) << layout.out;
}

TEST(LayoutCommand, AnEmptyCircuitIsNamedAndNothingIsWritten)
{
    const fs::path empty = scratch_file("empty_module.v");
    std::ofstream(empty) << "module m();\nendmodule\n";
    const fs::path out = scratch_file("empty_module.csv");
    const auto r = run_gsr("layout " + shell_quote(empty.string()) + " --out " +
                           shell_quote(out.string()));
    EXPECT_EQ(r.exit_code, 2) << r.err;
    EXPECT_NE(r.err.find(empty.string() + ": error: the circuit has no nodes to lay out"),
              std::string::npos)
        << r.err;
    EXPECT_FALSE(fs::exists(out));
}

TEST(LayoutCommand, SaysTheReadersWarningsUnlessQuiet)
{
    // A component off the die is moved to its edge for its start position: the warning that
    // says so was dropped by layout and communities (info and labels said it).
    const fs::path def = scratch_file("offdie.def");
    std::ofstream(def) << "VERSION 5.8 ;\nDESIGN t ;\nUNITS DISTANCE MICRONS 1000 ;\n"
                          "DIEAREA ( 0 0 ) ( 1000 1000 ) ;\nCOMPONENTS 2 ;\n"
                          "- c0 INV + PLACED ( 10 10 ) N ;\n"
                          "- c1 INV + PLACED ( 50000 50000 ) N ;\nEND COMPONENTS\n"
                          "NETS 1 ;\n- n1 ( c0 Y ) ( c1 A ) ;\nEND NETS\nEND DESIGN\n";
    const std::string warning =
        "offdie.def:7:1: warning: component c1 is placed at ( 50000 50000 ), outside the DIEAREA";
    const std::string out = shell_quote(scratch_file("offdie.csv").string());
    auto r = run_gsr("layout " + shell_quote(def.string()) + " --iterations 3 --out " + out);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(r.err.find(warning), std::string::npos) << r.err;
    r = run_gsr("communities " + shell_quote(def.string()));
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(r.err.find(warning), std::string::npos) << r.err;
    r = run_gsr("layout " + shell_quote(def.string()) + " --iterations 3 --quiet --out " + out);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(r.err, "");
}

TEST(LayoutCommand, WritesOnePositionPerNode)
{
    const fs::path out = scratch_file("pos.csv");
    const auto r = run_gsr("layout " + data_arg("netlists/iscas85/bench/c432.bench") + " --iterations 50 --out " +
                           shell_quote(out.string()));
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const auto info = nlohmann::json::parse(run_gsr("info --json --quiet " + data_arg("netlists/iscas85/bench/c432.bench")).out);
    std::ifstream in(out);
    std::size_t lines = 0;
    std::string line;
    while (std::getline(in, line)) ++lines;
    EXPECT_EQ(lines, info["graph_nodes"].get<std::size_t>() + 1); // a header line
}

TEST(OutFlag, StandardOutputRedirectedToAFileKeepsWhatCameBefore)
{
    // --out /dev/stdout with stdout sent to a file renamed a new file over it: the shell's
    // "BEFORE", gsr's own summary and "AFTER" went to the unlinked old one.
    const fs::path log = scratch_file("stdout_log.txt");
    fs::remove(log);
    const std::string gsr = shell_quote(std::string(GSR_BIN_DIR) + "/gsr");
    const std::string script =
        "{ echo BEFORE; " + gsr + " layout " + data_arg("netlists/iscas85/bench/c17.bench") +
        " --iterations 5 --out /dev/stdout; echo AFTER; } > " + shell_quote(log.string());
    ASSERT_EQ(std::system(("/bin/sh -c " + shell_quote(script)).c_str()), 0);
    const std::string text = gsr::test::read_text(log);
    EXPECT_EQ(text.rfind("BEFORE\nnode,name,x,y\n", 0), 0u) << text;
    EXPECT_NE(text.find("wrote        /dev/stdout\n"), std::string::npos) << text;
    EXPECT_EQ(text.substr(text.size() - 6), "AFTER\n") << text;
    // One position per node of c17 (5 inputs and 6 NANDs).
    std::istringstream lines(text);
    std::size_t positions = 0;
    for (std::string line; std::getline(lines, line);)
        positions += !line.empty() && std::isdigit(static_cast<unsigned char>(line[0]));
    EXPECT_EQ(positions, 11u) << text;
}

TEST(OutFlag, NeverReplacesAnInputHoweverItIsSpelt)
{
    // A user's own netlist and library; --out names each, directly, through "..", and
    // through a link.
    const fs::path dir = scratch_file("out_over_input");
    fs::remove_all(dir);
    fs::create_directories(dir / "sub");
    const fs::path netlist = dir / "c17.bench";
    fs::copy_file(std::string(GSR_DATA_DIR) + "/netlists/iscas85/bench/c17.bench", netlist);
    const std::string saved = gsr::test::read_text(netlist);
    fs::create_symlink(netlist, dir / "link.bench");
    const fs::path report = dir / "r.json";
    std::ofstream(report) << "{}\n";

    const std::vector<std::pair<std::string, fs::path>> cases = {
        {"labels " + shell_quote(netlist.string()) + " --out ", netlist},
        {"labels " + shell_quote(netlist.string()) + " --out ", dir / "sub" / ".." / "c17.bench"},
        {"layout " + shell_quote(netlist.string()) + " --out ", dir / "link.bench"},
        {"report " + shell_quote(report.string()) + " --format json --out ", report}};
    for (const auto& [command, out] : cases) {
        const auto r = run_gsr(command + shell_quote(out.string()));
        EXPECT_EQ(r.exit_code, 1) << command << out;
        const fs::path input = command.rfind("report", 0) == 0 ? report : netlist;
        EXPECT_NE(r.err.find("gsr: --out " + out.string() + " is the input " + input.string() +
                             ": writing there would replace it; choose another file"),
                  std::string::npos)
            << r.err;
    }
    EXPECT_EQ(gsr::test::read_text(netlist), saved);
    EXPECT_EQ(gsr::test::read_text(report), "{}\n");
    // Another file is written as before.
    EXPECT_EQ(run_gsr("labels " + shell_quote(netlist.string()) + " --quiet --out " +
                      shell_quote((dir / "labels.csv").string()))
                  .exit_code,
              0);
}

TEST(OutFlag, AnOutThatCannotBeWrittenIsRefusedBeforeTheWork)
{
    // The folder was found missing when the file was written, after the simulation or the
    // layout: hours at --vectors 2^40. Now it is refused first, before even the netlist is read
    // (the netlist here does not exist, and the --out error is the one said).
    const fs::path absent = scratch_file("no_such_netlist.bench");
    fs::remove(absent);
    const fs::path folder = scratch_file("no_such_folder");
    fs::remove_all(folder);
    for (const std::string command : {"labels", "layout"}) {
        auto r = run_gsr(command + " " + shell_quote(absent.string()) + " --out " +
                         shell_quote((folder / "x.csv").string()));
        EXPECT_EQ(r.exit_code, 2) << command << ": " << r.err;
        EXPECT_NE(r.err.find("cannot write the file: the folder " + folder.string() +
                             " does not exist"),
                  std::string::npos)
            << command << ": " << r.err;
        r = run_gsr(command + " " + shell_quote(absent.string()) + " --out " +
                    shell_quote(scratch_file("").string()));
        EXPECT_EQ(r.exit_code, 2) << command << ": " << r.err;
        EXPECT_NE(r.err.find("is a folder, not a file"), std::string::npos) << r.err;
    }
}

TEST(CommandLine, AFailedWriteToStandardOutputIsAnError)
{
    // A full disk or a closed descriptor behind stdout: exit 0, the output lost, not a word.
    const std::string c17 = data_arg("netlists/iscas85/bench/c17.bench");
    auto r = run_gsr("info " + c17 + " --json > /dev/full");
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_EQ(r.err, "error: cannot write standard output: No space left on device\n");
    r = run_gsr("info " + c17 + " >&-");
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_EQ(r.err.rfind("error: cannot write standard output", 0), 0u) << r.err;
    r = run_gsr("info " + c17 + " > /dev/null");
    EXPECT_EQ(r.exit_code, 0) << r.err;
}

TEST(CommandLine, ADashOutIsStandardOutputForEveryCommand)
{
    // `report` and `runs list` read "-" as stdout; labels, layout and rules made a file "-".
    const fs::path dir = scratch_file("dash_out");
    fs::create_directories(dir);
    const std::string in_dir = "cd " + shell_quote(dir.string()) + " && ";
    const std::string c17 = data_arg("netlists/iscas85/bench/c17.bench");
    const std::string gsr = shell_quote(std::string(GSR_BIN_DIR) + "/gsr");
    FILE* p = ::popen((in_dir + gsr + " labels " + c17 + " --out - 2>/dev/null").c_str(), "r");
    ASSERT_NE(p, nullptr);
    std::string csv;
    char buf[4096];
    for (std::size_t n; (n = std::fread(buf, 1, sizeof buf, p)) > 0;) csv.append(buf, n);
    EXPECT_EQ(::pclose(p), 0);
    const fs::path file = scratch_file("dash_out_c17.csv");
    ASSERT_EQ(run_gsr("labels " + c17 + " --out " + shell_quote(file.string())).exit_code, 0);
    EXPECT_EQ(csv, gsr::test::read_text(file)); // the CSV alone: its summary went to stderr
    auto r = run_gsr("layout " + c17 + " --out - --iterations 5");
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(r.out.rfind("node,name,x,y\n", 0), 0u) << r.out;
    EXPECT_NE(r.err.find("wrote        -"), std::string::npos) << r.err;
    EXPECT_FALSE(fs::exists(dir / "-"));
    // Where stdout already holds the command's report, "-" is refused.
    r = run_gsr("kernels tune softmax_1k --out -");
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_NE(r.err.find("--out -: the search's report is on standard output"), std::string::npos)
        << r.err;
}

TEST(CommandLine, UsageMistakesAreNamedAsSuch)
{
    // Usage on stderr when it answers a mistake (exit 1), on stdout when asked for.
    auto r = run_gsr("");
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_EQ(r.out, "");
    EXPECT_NE(r.err.find("  labels FILE --out CSV"), std::string::npos) << r.err;
    r = run_gsr("kernels");
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_EQ(r.out, "");
    EXPECT_NE(r.err.find("usage: gsr kernels suite"), std::string::npos) << r.err;
    EXPECT_NE(run_gsr("kernels --help").out.find("usage: gsr kernels suite"), std::string::npos);
    // Extra arguments were ignored.
    r = run_gsr("netlists --db x.gsr extra");
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_NE(r.err.find("netlists takes no FILE"), std::string::npos) << r.err;
    r = run_gsr("kernels calibrate extra");
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_NE(r.err.find("kernels calibrate takes no argument"), std::string::npos) << r.err;
    // A run number is digits, as every integer flag reads them.
    for (const std::string run : {"+1", "' 1'", "1x"}) {
        r = run_gsr("rules " + run + " --db x.gsr");
        EXPECT_EQ(r.exit_code, 1) << run;
        EXPECT_NE(r.err.find("RUN must be a run number"), std::string::npos) << r.err;
    }
    // The default group count is named as the default, not as if it were given.
    r = run_gsr("memory --model gsr --hidden 6 --nodes 10 --edges 10");
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_NE(r.err.find("--hidden 6 does not split into the default 4 groups (--groups: each "
                         "group is hidden/groups wide, at least 2 values): give --groups, or a "
                         "--hidden that 4 divides"),
              std::string::npos)
        << r.err;
    r = run_gsr("memory --model gsr --hidden 6 --groups 4 --nodes 10 --edges 10"); // given
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_NE(r.err.find("--hidden 6 is not divisible by --groups 4 (each group is hidden/groups "
                         "wide)"),
              std::string::npos)
        << r.err;
    // One range for one flag, in train and memory alike.
    r = run_gsr("memory --model gcn --hidden 5000 --nodes 10 --edges 10");
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_NE(r.err.find("--hidden expects an integer from 1 to 4096, got '5000'"),
              std::string::npos)
        << r.err;
    r = run_gsr("memory --model gsr --hidden 8 --groups 1 --nodes 10 --edges 10");
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_NE(r.err.find("--groups expects an integer from 2 to 65536, got '1'"),
              std::string::npos)
        << r.err;
}

TEST(CommandLine, AWriteProtectedProjectIsListedAndNotChanged)
{
    // `kernels apply --list` only reads, yet refused a write-protected project; and root, who
    // passes SQLite's access checks, imported into one.
    const fs::path project = scratch_file("protected.gsr");
    fs::remove(project);
    const std::string db = " --db " + shell_quote(project.string());
    ASSERT_EQ(run_gsr("import " + data_arg("netlists/iscas85/bench/c17.bench") + db).exit_code, 0);
    fs::permissions(project, fs::perms::owner_read | fs::perms::group_read | fs::perms::others_read);
    const std::string before = gsr::test::read_text(project);
    auto r = run_gsr("kernels apply --list --project " + shell_quote(project.string()));
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(r.out.find("no applied kernels"), std::string::npos) << r.out;
    r = run_gsr("import " + data_arg("netlists/iscas85/bench/c432.bench") + db);
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_EQ(r.err, project.string() + ": error: the project file is read-only: open it "
                                        "read-only, or make it writable\n");
    EXPECT_EQ(gsr::test::read_text(project), before);
    fs::permissions(project, fs::perms::owner_write, fs::perm_options::add);
    fs::remove(project);
}
