#include "cli_commands.hpp"

#include "report/netlist_summary.hpp"
#include "util/atomic_file.hpp"
#include "util/diagnostics.hpp"
#include "util/json_text.hpp"
#include "util/resources.hpp"

#include <algorithm>
#include <charconv>
#include <csignal>
#include <cmath>
#include <filesystem>
#include <iostream>
#include <sstream>
#include <thread>

namespace gsr::cli {

Args::Args(const std::vector<std::string>& args, std::vector<std::string> value_flags,
           std::vector<std::string> bool_flags)
{
    auto known = [](const std::vector<std::string>& v, const std::string& s) {
        return std::find(v.begin(), v.end(), s) != v.end();
    };
    // The project file is --db for most commands and --project for the kernel lab's: a command
    // that takes one takes the other spelling as the same flag.
    const auto canonical = [&](const std::string& name) -> std::string {
        if (name == "--project" && known(value_flags, "--db") && !known(value_flags, name))
            return "--db";
        if (name == "--db" && known(value_flags, "--project") && !known(value_flags, name))
            return "--project";
        return name;
    };
    for (std::size_t i = 0; i < args.size(); ++i) {
        const std::string& a = args[i];
        if (a.size() > 2 && a.rfind("--", 0) == 0) {
            std::string name = a, val;
            if (auto eq = a.find('='); eq != std::string::npos) {
                name = a.substr(0, eq);
                val = a.substr(eq + 1);
                if (known(bool_flags, name))
                    throw UsageError(name + " takes no value (got " + a + ")");
                if (!known(value_flags, canonical(name)))
                    throw UsageError("unknown option " + name);
            } else if (known(value_flags, canonical(name))) {
                if (i + 1 >= args.size()) throw UsageError(name + " needs a value");
                // `--db --epochs 5` would take "--epochs" as the project file, and `--db
                // --json` made a project named "--json": no value is taken that looks like a
                // flag, this command's or not (`--db=--json` says it is meant).
                const std::string& next = args[i + 1];
                const std::string next_name = next.substr(0, next.find('='));
                if (next.rfind("--", 0) == 0)
                    throw UsageError(name + " needs a value before " + next_name +
                                     (known(value_flags, next_name) ||
                                              known(bool_flags, next_name)
                                          ? std::string()
                                          : " (for a value that starts with --, write " + name +
                                                "=" + next + ")"));
                val = args[++i];
            } else if (!known(bool_flags, name)) {
                throw UsageError("unknown option " + name);
            }
            // An empty value is never meant: `--db=` reached SQLite, `--liberty=` the reader,
            // each with its own words.
            if (known(value_flags, canonical(name)) && val.empty())
                throw UsageError(name + " needs a value: it is empty");
            const std::string flag = canonical(name);
            if ((flag == "--db" || flag == "--project") && has(flag))
                throw UsageError("the project is given twice (" + name + " " + val + ")");
            // `--shape 1,2,3 --shape 4,5,6` took the last without a word; only the list flags
            // (read with values()) are meant to repeat.
            if (known(value_flags, flag) && has(flag) && flag != "--liberty" && flag != "--test" &&
                flag != "--val")
                throw UsageError(flag + " is given twice ('" + value(flag) + "' and '" + val +
                                 "'): give it once");
            flags_.emplace_back(flag, val);
        } else {
            positionals_.push_back(a);
        }
    }
}

void Args::refuse_flags_except(const std::vector<std::string>& allowed,
                              const std::string& command) const
{
    for (const auto& f : flags_)
        if (std::find(allowed.begin(), allowed.end(), f.first) == allowed.end())
            throw UsageError(f.first + " does not apply to " + command);
}

bool Args::has(const std::string& flag) const
{
    return std::any_of(flags_.begin(), flags_.end(), [&](const auto& f) { return f.first == flag; });
}

std::string Args::value(const std::string& flag, const std::string& fallback) const
{
    for (auto it = flags_.rbegin(); it != flags_.rend(); ++it)
        if (it->first == flag) return it->second;
    return fallback;
}

std::vector<std::string> Args::values(const std::string& flag) const
{
    std::vector<std::string> v;
    for (const auto& f : flags_)
        if (f.first == flag) v.push_back(f.second);
    return v;
}

std::uint64_t Args::integer(const std::string& flag, std::uint64_t fallback, std::uint64_t lowest,
                           std::uint64_t highest) const
{
    if (!has(flag)) return fallback;
    const std::string v = value(flag);
    std::uint64_t n = 0;
    const auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), n);
    if (ec != std::errc{} || end != v.data() + v.size() || n < lowest || n > highest)
        throw UsageError(flag + " expects an integer from " + std::to_string(lowest) + " to " +
                         std::to_string(highest) + ", got '" + v + "'");
    return n;
}

double Args::number(const std::string& flag, double fallback, double lowest, bool exclusive) const
{
    if (!has(flag)) return fallback;
    const std::string v = value(flag);
    double d = 0.0;
    const auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), d);
    const bool in_range = exclusive ? d > lowest : d >= lowest;
    if (ec != std::errc{} || end != v.data() + v.size() || !std::isfinite(d) || !in_range) {
        std::string what = "a number";
        if (std::isfinite(lowest)) {
            char bound[32]; // the shortest text that reads back as `lowest`: 0, not 0.000000
            const auto written = std::to_chars(bound, bound + sizeof bound, lowest).ptr;
            what += (exclusive ? " above " : " of at least ") + std::string(bound, written);
        }
        throw UsageError(flag + " expects " + what + ", got '" + v + "'");
    }
    return d;
}

namespace {

constexpr const char* kHelp =
        "usage: gsr <command> [options]\n"
        "\n"
        "commands:\n"
        "  info [FILE] [--liberty LIB]... [--json] [--quiet]\n"
        "                                            counts, graph size and depth of a netlist\n"
        "                                            or cell library (default: the bundled sample)\n"
        "  new --db PROJECT                          create an empty project file (never over\n"
        "                                            a file that holds anything)\n"
        "  import FILE... --db PROJECT [--liberty LIB]... [--quiet]\n"
        "                                            record netlists in a project file\n"
        "  netlists --db PROJECT [--json]            list the netlists of a project\n"
        "  labels FILE --out CSV [--target sp|toggle|level|arrival|all] [--mode random|exhaustive|seq]\n"
        "         [--vectors N] [--seed S] [--runs R --cycles C --warmup W] [--threads T]\n"
        "         [--liberty LIB]... [--load-factor K]      per-net learning targets as CSV\n"
        "         [--input-transition NS] [--quiet]  (arrival is NLDM, in ns, with a Liberty delay\n"
        "                                            table; sp and toggle simulate library cells\n"
        "                                            by its Liberty functions)\n"
        "  train FILE... --test FILE... [--val FILE...] --db PROJECT [--target sp|toggle|level|arrival]\n"
        "        [--model gcn|sage|res|rev|gsr] [--layers L] [--hidden D] [--groups C] [--topk K]\n"
        "        [--epochs E] [--lr X] [--warmup N] [--seed S] [--patience P]\n"
        "        [--device auto|cpu|gpu]\n"
        "        [--batching full|random|commrand|cluster] [--batch-size N] [--alpha A] [--beta B]\n"
        "        [--fanout F1,F2,...] [--order community|rcm|original]\n"
        "        [--resume RUN] [--tuned-kernels on|off] [--offload-optimizer] [--batch B]\n"
        "        [--predictions CSV] [--liberty LIB]... [--json] [--quiet]\n"
        "                                           train a GNN; test it on other circuits\n"
        "                                           (--predictions: every node's, by the\n"
        "                                           best epoch's model)\n"
        "  runs list --db PROJECT [--json | --csv] [--out FILE (- : standard output)]\n"
        "                                           the training runs of a project (--csv:\n"
        "                                           the window's Runs table)\n"
        "  memory --model M [--layers L (16)] [--hidden D (64)] [--groups C] [--topk K]\n"
        "         --nodes N --edges E [--features F] [--directed] [--dropout P]\n"
        "         [--precision f32|f64] [--offload-optimizer] [--measure] [--json]\n"
        "                                           per-layer memory of a training step\n"
        "  communities FILE [--method leiden|louvain] [--resolution R] [--seed S] [--threads T]\n"
        "              [--iterations K] [--liberty LIB]... [--json] [--quiet]\n"
        "                                           community detection\n"
        "  layout FILE --out CSV [--iterations N] [--seed S] [--threads T] [--liberty LIB]...\n"
        "         [--quiet]\n"
        "                                            ForceAtlas2 positions (node,name,x,y)\n"
        "  train FILE... [--test FILE...] [--val FILE...] [--liberty LIB]... --db PROJECT\n"
        "        --model symgraph\n"
        "        [--target sp|toggle|level|arrival] [--task value|bins] [--bins N]\n"
        "        [--hops auto|1|2] [--max-rules R] [--max-conditions N] [--min-support N]\n"
        "        [--penalty X] [--seed S] [--json] [--quiet]   rules instead of a GNN\n"
        "  rules RUN --db PROJECT [--format text|json] [--out F]   the rules of a symgraph run\n"
        "  sol OP --shape ... [--dtype fp32|fp16|bf16] [--device NAME] [--json]\n"
        "                                            speed-of-light bound of one operation\n"
        "                                            (gsr sol --help: every flag)\n"
        "  kernels suite [--device NAME] [--json]    the built-in kernel problems and their SOL\n"
        "  kernels emit PROBLEM --config JSON|TEXT   CUDA source of a kernel configuration\n"
        "  kernels verify FILE.cu --problem P [--grid EXPR [--block N]]   GPU: check and time\n"
        "  kernels tune PROBLEM [--strategy grid|random|sol] [--budget N] [--out F]\n"
        "                      [--project P] [--profile]   GPU: baseline, search, session\n"
        "                                            (gsr kernels --help: every flag)\n"
        "  kernels calibrate [--project P] [--json]  GPU: copy, SGEMM and FMA peaks\n"
        "  kernels apply --project P [--session ID] [--list] [--clear]\n"
        "                                            the best tuned engine kernels, for training\n"
        "  report run:ID|session:ID|FILE.json [--project PROJECT (or --db)]\n"
        "         [--format html|pdf|csv|json (from --out's name)]\n"
        "         [--out F (- : standard output)]    a run or tuning-session report (--out: atomic)\n"
        "  report --list --project PROJECT [--json]  the runs and tuning sessions of a project\n"
        "  help                                      this text\n"
        "  --version                                 the version\n"
        "\n"
        "A project file is given as --db or --project: each command takes either spelling.\n"
        "An --out of - is standard output (not for train --predictions or kernels tune).\n"
        "Formats (detected from the content): ISCAS bench, BLIF, AIGER (aag/aig), structural\n"
        "Verilog, DEF, SPICE netlists; Liberty (.lib, .lib.gz) and LEF libraries.\n"
        "Exit codes: 0 ok; 1 bad command line (`train --device gpu` without a usable GPU too);\n"
        "2 bad input file (and the kernel lab without a usable GPU); 3 internal failure, or\n"
        "no kernel passed (`kernels verify` a verdict other than ok, `kernels tune` none\n"
        "verified);\n"
        "130 interrupted (Ctrl-C: the work stopped, a training run stays resumable).\n";

void print_help() { std::cout << kHelp; }

/// `gsr COMMAND --help`: the entries of the help text for that command (an entry is a line
/// "  COMMAND ..." and the more deeply indented lines under it). False when there is none.
bool print_command_help(const std::string& command)
{
    std::istringstream in(kHelp);
    std::string line, out;
    bool inside = false;
    while (std::getline(in, line)) {
        const bool entry = line.size() > 2 && line.compare(0, 2, "  ") == 0 && line[2] != ' ';
        if (entry)
            inside = line.compare(2, command.size() + 1, command + " ") == 0;
        else if (line.rfind("   ", 0) != 0)
            inside = false; // a heading or a blank line
        if (inside) out += line + '\n';
    }
    if (out.empty()) return false;
    std::cout << "usage:\n" << out;
    return true;
}

void print_warnings(const report::NetlistSummary& s)
{
    for (const std::string& w : s.warnings) std::cerr << w << '\n';
    if (s.warnings_suppressed) std::cerr << "(" << s.warnings_suppressed << " more warnings not shown)\n";
}

} // namespace

void refuse_model_flags(const Args& a, bool grouped, bool has_topk, const std::string& model)
{
    if (a.has("--groups") && !grouped)
        throw UsageError("--groups applies to --model rev or gsr only (the model is " + model +
                         ")");
    if (a.has("--topk") && !has_topk)
        throw UsageError("--topk applies to --model gsr only (the model is " + model + ")");
}

void refuse_hidden_for_default_groups(const Args& a, std::uint32_t hidden, std::uint32_t groups,
                                      bool grouped)
{
    if (!grouped || a.has("--groups") || groups == 0) return;
    if (hidden % groups == 0 && hidden / groups >= 2) return;
    throw UsageError("--hidden " + std::to_string(hidden) + " does not split into the default " +
                     std::to_string(groups) + " groups (--groups: each group is hidden/groups "
                     "wide, at least 2 values): give --groups, or a --hidden that " +
                     std::to_string(groups) + " divides");
}

void print_warnings(const Diagnostics& d)
{
    for (const Warning& w : d.warnings()) std::cerr << w.str() << '\n';
    if (d.suppressed()) std::cerr << "(" << d.suppressed() << " more warnings not shown)\n";
}

int cmd_info(const std::vector<std::string>& argv)
{
    Args a(argv, {"--liberty"}, {"--json", "--quiet"});
    if (a.positionals().size() > 1) throw UsageError("info takes one FILE");
    const std::string file = a.positionals().empty() ? bundled_sample_path() : a.positionals()[0];
    const report::NetlistSummary s = report::summarize_file(file, a.values("--liberty"));
    if (!a.has("--quiet")) print_warnings(s);
    if (a.has("--json")) std::cout << json_text(report::to_json(s), 2) << '\n';
    else std::cout << report::to_text(s);
    return 0;
}

std::vector<std::string> expand_list_flags(const std::vector<std::string>& argv)
{
    std::vector<std::string> out;
    for (std::size_t i = 0; i < argv.size(); ++i) {
        const std::string& a = argv[i];
        if (a != "--test" && a != "--val") {
            out.push_back(a);
            continue;
        }
        std::size_t j = i + 1;
        for (; j < argv.size() && argv[j].rfind("--", 0) != 0; ++j)
            out.push_back(a + "=" + argv[j]);
        if (j == i + 1) throw UsageError(a + " needs at least one FILE");
        i = j - 1;
    }
    return out;
}

std::vector<std::string> absolute(const std::vector<std::string>& files)
{
    std::vector<std::string> out;
    // Cleaned of "." and "..", as the window names a file it opens (QFileInfo): a run's
    // predictions find the canvas's file by that name.
    for (const std::string& f : files)
        out.push_back(std::filesystem::absolute(f).lexically_normal().string());
    return out;
}

unsigned thread_flag(const Args& a)
{
    const auto asked = static_cast<unsigned>(a.integer("--threads", 0, 0, 1024));
    // More threads than the machine has only wait on each other (the result is the same at
    // any count): s38417 took 8 s at 1024 threads on two cores, 0.09 s at two.
    const unsigned cores = std::thread::hardware_concurrency();
    if (cores == 0 || asked <= cores) return asked;
    if (!a.has("--quiet"))
        std::cerr << "note: --threads " << asked << " is more than the " << cores
                  << " hardware threads; using " << cores << '\n';
    return cores;
}

std::string error_words(const std::exception& e, const std::string& project)
{
    const auto* error = dynamic_cast<const Error*>(&e);
    if (!error) return e.what();
    const std::string& file = error->where().file;
    return file.empty() || file == project ? error->message() : e.what();
}

void refuse_out_over_inputs(const Args& a, const std::vector<std::string>& inputs,
                            const std::string& flag)
{
    const std::string out = a.value(flag); // never empty when given: Args refuses that
    if (is_standard_output(out)) return;
    const auto same_file = [](const std::string& x, const std::string& y) {
        std::error_code ec;
        if (std::filesystem::equivalent(x, y, ec)) return true;
        // Either not made yet (a new project): the same when their paths are.
        std::error_code ex, ey;
        const std::filesystem::path cx = std::filesystem::weakly_canonical(x, ex);
        const std::filesystem::path cy = std::filesystem::weakly_canonical(y, ey);
        return !ex && !ey && cx == cy;
    };
    for (const std::string& in : inputs) {
        if (!out.empty() && !in.empty() && same_file(out, in))
            throw UsageError(flag + " " + out + " is the input " + in +
                             ": writing there would replace it; choose another file");
    }
    if (!out.empty()) check_writable(out); // before the work, not after it
}

void write_output(const std::string& path, const std::string& bytes)
{
    if (is_standard_output(path)) std::cout << bytes; // main checks that it was written
    else write_file_atomically(path, bytes);
}

int run(const std::vector<std::string>& args)
{
    // `gsr help COMMAND` is `gsr COMMAND --help`.
    if (args.size() == 2 && args[0] == "help") return run({args[1], "--help"});
    if (args.empty() || args[0] == "help" || args[0] == "--help" || args[0] == "-h") {
        if (args.empty()) std::cerr << kHelp; // a mistake (exit 1): its text on stderr
        else print_help();
        return args.empty() ? 1 : 0;
    }
    if (args[0] == "--version" || args[0] == "version") {
        std::cout << "gsr " << GSR_VERSION << '\n';
        return 0;
    }
    const std::vector<std::string> rest(args.begin() + 1, args.end());
    for (const std::string& a : rest) {
        if (a != "--help" && a != "-h") continue;
        // These three carry a longer usage text of their own than their entry in the help.
        if (args[0] == "memory") return cmd_memory({"--help"});
        if (args[0] == "sol") return cmd_sol({"--help"});
        if (args[0] == "kernels") return cmd_kernels({"--help"});
        if (print_command_help(args[0])) return 0;
    }
    if (args[0] == "info") return cmd_info(rest);
    if (args[0] == "new") return cmd_new(rest);
    if (args[0] == "import") return cmd_import(rest);
    if (args[0] == "netlists") return cmd_netlists(rest);
    if (args[0] == "labels") return cmd_labels(rest);
    if (args[0] == "train") return cmd_train(rest);
    if (args[0] == "runs") return cmd_runs(rest);
    if (args[0] == "memory") return cmd_memory(rest);
    if (args[0] == "communities") return cmd_communities(rest);
    if (args[0] == "layout") return cmd_layout(rest);
    if (args[0] == "rules") return cmd_rules(rest);
    if (args[0] == "sol") return cmd_sol(rest);
    if (args[0] == "kernels") return cmd_kernels(rest);
    if (args[0] == "report") return cmd_report(rest);
    throw UsageError("unknown command '" + args[0] + "'");
}

namespace {

std::atomic<bool> g_interrupted{false};
extern "C" void on_interrupt(int) { g_interrupted = true; }

} // namespace

InterruptGuard::InterruptGuard()
{
    g_interrupted = false;
    previous_ = std::signal(SIGINT, on_interrupt);
}

InterruptGuard::~InterruptGuard() { std::signal(SIGINT, previous_); }

const std::atomic<bool>* InterruptGuard::flag() { return &g_interrupted; }

} // namespace gsr::cli
