#pragma once
// The subcommands of `gsr`. Each parses its own flags and calls into core.
#include <atomic>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

namespace gsr {
class Diagnostics;
}

namespace gsr::cli {

/// A mistake in the command line itself (exit code 1). Bad input files raise gsr::Error (2).
struct UsageError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

/// Flags of one subcommand: --name value, --name (boolean), positionals. Of the value flags
/// only the lists (--liberty, --test, --val: values()) may repeat; another given twice is refused.
class Args {
public:
    Args(const std::vector<std::string>& args, std::vector<std::string> value_flags,
         std::vector<std::string> bool_flags);
    bool has(const std::string& flag) const;
    std::string value(const std::string& flag, const std::string& fallback = {}) const;
    std::vector<std::string> values(const std::string& flag) const;
    /// An integer flag within [lowest, highest]; `fallback` when absent. UsageError otherwise.
    std::uint64_t integer(const std::string& flag, std::uint64_t fallback, std::uint64_t lowest,
                          std::uint64_t highest) const;
    /// A finite number flag at least `lowest` (above it when `exclusive`); `fallback` when absent.
    double number(const std::string& flag, double fallback,
                  double lowest = -std::numeric_limits<double>::infinity(), bool exclusive = false) const;
    const std::vector<std::string>& positionals() const { return positionals_; }
    /// Refuses (UsageError) a flag given that is not in `allowed`, naming `command`: for
    /// subcommands that share one flag list but read only part of it.
    void refuse_flags_except(const std::vector<std::string>& allowed,
                             const std::string& command) const;

private:
    std::vector<std::pair<std::string, std::string>> flags_;
    std::vector<std::string> positionals_;
};

int run(const std::vector<std::string>& args);

/// Rewrites the list flags `--test a b` and `--val a b` as `--test=a --test=b`, which Args reads
/// as a repeated flag (gsr train, GNN and symgraph alike).
std::vector<std::string> expand_list_flags(const std::vector<std::string>& argv);
/// The files as absolute, cleaned paths (runs keep them so --resume works from any directory).
std::vector<std::string> absolute(const std::vector<std::string>& files);
/// --threads (0: all hardware threads), at most the hardware's with a note: more only wait
/// on each other (every command's result is the same at any count).
unsigned thread_flag(const Args& a);
/// An error's words for the project's record of a failed run: without "error:", and without
/// the project's name where the error is the project's (the message names it once).
std::string error_words(const std::exception& e, const std::string& project);
/// Refuses (UsageError) an --out that is one of the command's `inputs` (its netlist, a
/// library, the project), however it is spelt: writing there would replace what was saved.
/// One that cannot be written (a folder, a missing or write-protected folder: gsr::Error) is
/// refused before the command works for minutes. `flag`: the
/// output's flag (train's --predictions).
void refuse_out_over_inputs(const Args& a, const std::vector<std::string>& inputs,
                            const std::string& flag = "--out");
/// "-" names standard output for every --out, as `report` and `runs list` always read it.
inline bool is_standard_output(const std::string& path) { return path == "-"; }
/// Writes an --out: to standard output for "-", else atomically to the file (a failed write
/// keeps the old one). A command that prints a summary besides sends it to stderr for "-".
void write_output(const std::string& path, const std::string& bytes);

/// Ctrl-C sets the flag instead of killing the process while a guard lives, so the work stops
/// at its next check and leaves its run in the project as it should (a GNN run resumable, a
/// symgraph run cancelled), not "running" for ever. The constructor clears the flag.
class InterruptGuard {
public:
    InterruptGuard();
    ~InterruptGuard();
    InterruptGuard(const InterruptGuard&) = delete;
    InterruptGuard& operator=(const InterruptGuard&) = delete;
    /// The flag a cancel callback watches.
    static const std::atomic<bool>* flag();

private:
    void (*previous_)(int) = nullptr;
};

/// Refuses --groups for a model without groups and --topk for one without a top-k (`grouped`,
/// `has_topk`), naming the model: they would be ignored without a word.
void refuse_model_flags(const Args& a, bool grouped, bool has_topk, const std::string& model);
/// rev and gsr split --hidden into groups: a --hidden that the default group count does not
/// split (6 in 4) is named with the default, where nn::validate's words read as if --groups
/// had been given. `groups`: the count in use.
void refuse_hidden_for_default_groups(const Args& a, std::uint32_t hidden, std::uint32_t groups,
                                      bool grouped);

/// Each warning of a file that was read ("FILE:LINE:COL: warning: ...") on stderr.
void print_warnings(const Diagnostics& diagnostics);

int cmd_info(const std::vector<std::string>& args);
int cmd_import(const std::vector<std::string>& args);
int cmd_netlists(const std::vector<std::string>& args);
int cmd_new(const std::vector<std::string>& args);
int cmd_labels(const std::vector<std::string>& args);
int cmd_train(const std::vector<std::string>& args);
int cmd_runs(const std::vector<std::string>& args);
int cmd_memory(const std::vector<std::string>& args);
int cmd_communities(const std::vector<std::string>& args);
int cmd_layout(const std::vector<std::string>& args);
/// `gsr train --model symgraph ...` (symgraph_command.cpp), called by cmd_train.
int cmd_train_symgraph(const std::vector<std::string>& args);
int cmd_rules(const std::vector<std::string>& args);
int cmd_sol(const std::vector<std::string>& args);
int cmd_kernels(const std::vector<std::string>& args);
/// `gsr report` (report_command.cpp): run and tune-session reports as HTML, PDF, CSV, JSON.
int cmd_report(const std::vector<std::string>& args);

} // namespace gsr::cli
