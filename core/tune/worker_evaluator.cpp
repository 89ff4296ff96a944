#include "tune/worker_evaluator.hpp"

#include "tune/agent_process.hpp"
#include "util/diagnostics.hpp"
#include "util/json_text.hpp"
#include "util/utf8_text.hpp"

#include <cctype>
#include <charconv>
#include <cmath>
#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <random>
#include <unistd.h>

namespace gsr::tune {

namespace {

using Clock = std::chrono::steady_clock;
namespace fs = std::filesystem;

std::vector<std::uint64_t> draw_seeds(std::size_t count, std::uint64_t seed)
{
    std::vector<std::uint64_t> seeds;
    std::mt19937_64 rng(seed);
    std::random_device device;
    while (seeds.size() < count) {
        const std::uint64_t s =
            seed ? rng() : (std::uint64_t(device()) << 32 | std::uint64_t(device()));
        // Never the test seed, never twice.
        if (s > 1 && std::find(seeds.begin(), seeds.end(), s) == seeds.end()) seeds.push_back(s);
    }
    return seeds;
}

std::string tail(const std::string& text, std::size_t n)
{
    if (text.size() <= n) return text;
    return "..." + text.substr(utf8_cut(text, text.size() - n)); // from a character's start
}

/// A recursive-descent evaluator of launch expressions (see launch_from_expression).
class Expression {
public:
    Expression(const Problem& p, std::string_view text) : p_(p), text_(text) {}

    double parse()
    {
        const double v = sum();
        skip();
        if (at_ < text_.size()) fail("an operator or the end");
        return v;
    }

private:
    [[noreturn]] void fail(const std::string& expected) const
    {
        throw Error("launch expression '" + std::string(text_) + "': at column " +
                    std::to_string(at_ + 1) + ", expected " + expected);
    }
    void skip()
    {
        while (at_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[at_]))) ++at_;
    }
    /// One more level of '(' or 'ceil(': nesting past a sensible depth is refused, where the
    /// recursion ran out of stack.
    void enter()
    {
        if (++depth_ > kMaxDepth)
            fail("at most " + std::to_string(kMaxDepth) + " nested '(' or 'ceil('");
    }
    bool take(char c)
    {
        skip();
        if (at_ < text_.size() && text_[at_] == c) return ++at_, true;
        return false;
    }
    double sum()
    {
        double v = product();
        while (true) {
            if (take('+')) v += product();
            else if (take('-')) v -= product();
            else return v;
        }
    }
    double product()
    {
        double v = atom();
        while (true) {
            if (take('*')) v *= atom();
            else if (take('/')) {
                const double d = atom();
                if (d == 0) fail("a divisor other than 0");
                v /= d;
            } else return v;
        }
    }
    double atom()
    {
        skip();
        if (take('(')) {
            enter();
            const double v = sum();
            if (!take(')')) fail("')'");
            --depth_;
            return v;
        }
        std::size_t end = at_;
        while (end < text_.size() && (std::isalnum(static_cast<unsigned char>(text_[end])) ||
                                      text_[end] == '_'))
            ++end;
        const std::string word(text_.substr(at_, end - at_));
        if (word.empty()) fail("a number, a name or '('");
        if (std::isdigit(static_cast<unsigned char>(word[0]))) {
            for (char c : word)
                if (!std::isdigit(static_cast<unsigned char>(c))) fail("a number");
            double v = 0;
            const auto [stop, ec] = std::from_chars(word.data(), word.data() + word.size(), v);
            if (ec != std::errc() || stop != word.data() + word.size() || !std::isfinite(v))
                fail("a number of at most 308 digits"); // stod threw out_of_range (exit 3)
            at_ = end;
            return v;
        }
        at_ = end;
        if (word == "ceil") {
            if (!take('(')) fail("'(' after ceil");
            enter();
            const double v = sum();
            if (!take(')')) fail("')'");
            --depth_;
            return std::ceil(v);
        }
        if (word == "rows") return double(p_.rows);
        if (word == "cols") return double(p_.cols);
        if (word == "n") return double(p_.output_size());
        if (word == "inner") return double(p_.inner);
        if (word == "nnz") return double(p_.nnz);
        at_ -= word.size();
        fail("rows, cols, n, inner, nnz or ceil");
    }

    static constexpr int kMaxDepth = 256;
    const Problem& p_;
    std::string_view text_;
    std::size_t at_ = 0;
    int depth_ = 0;
};

constexpr const char* kNcuMetrics =
    "sm__throughput.avg.pct_of_peak_sustained_elapsed,"
    "gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed,"
    "dram__bytes.sum,launch__registers_per_thread,"
    "sm__warps_active.avg.pct_of_peak_sustained_active";

/// One CSV line's fields (RFC 4180 quoting).
std::vector<std::string> csv_fields(const std::string& line)
{
    std::vector<std::string> out(1);
    bool quoted = false;
    for (std::size_t i = 0; i < line.size(); ++i) {
        const char c = line[i];
        if (quoted && c == '"' && i + 1 < line.size() && line[i + 1] == '"') {
            out.back() += '"';
            ++i;
        } else if (c == '"') {
            quoted = !quoted;
        } else if (c == ',' && !quoted) {
            out.emplace_back();
        } else if (c != '\r') {
            out.back() += c;
        }
    }
    return out;
}

bool executable(const fs::path& p) { return ::access(p.c_str(), X_OK) == 0; }

} // namespace

std::optional<ProfileSignals> parse_ncu_csv(const std::string& text)
{
    std::vector<std::vector<std::string>> rows;
    std::size_t start = 0;
    while (start < text.size()) {
        std::size_t end = text.find('\n', start);
        if (end == std::string::npos) end = text.size();
        const std::string line = text.substr(start, end - start);
        start = end + 1;
        if (line.rfind("\"ID\"", 0) == 0 || !rows.empty()) rows.push_back(csv_fields(line));
    }
    // The header, the units row, then one row per profiled kernel.
    if (rows.size() < 3) return std::nullopt;
    const auto& header = rows[0];
    const auto& values = rows[2];
    auto metric = [&](const char* name) -> double {
        for (std::size_t i = 0; i < header.size() && i < values.size(); ++i) {
            if (header[i] != name) continue;
            std::string v;
            for (char c : values[i])
                if (c != ',') v += c; // thousands separators
            try {
                return std::stod(v);
            } catch (const std::exception&) {
                return 0.0;
            }
        }
        return 0.0;
    };
    ProfileSignals s;
    s.sm_percent = metric("sm__throughput.avg.pct_of_peak_sustained_elapsed");
    s.memory_percent = metric("gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed");
    s.dram_bytes = metric("dram__bytes.sum");
    s.registers = int(metric("launch__registers_per_thread"));
    s.occupancy_percent = metric("sm__warps_active.avg.pct_of_peak_sustained_active");
    return s;
}

std::string find_ncu()
{
    if (const char* path = std::getenv("PATH"))
        for (std::string_view rest = path; !rest.empty();) {
            const std::size_t colon = rest.find(':');
            const fs::path dir(std::string(rest.substr(0, colon)));
            if (!dir.empty() && executable(dir / "ncu")) return (dir / "ncu").string();
            if (colon == std::string_view::npos) break;
            rest.remove_prefix(colon + 1);
        }
    return executable("/usr/local/cuda/bin/ncu") ? "/usr/local/cuda/bin/ncu" : "";
}

Evaluation evaluation_from_reply(const nlohmann::json& reply)
{
    Evaluation e;
    e.verdict = parse_verdict(reply.value("verdict", std::string("crash")));
    e.seconds = reply.value("seconds", 0.0);
    e.detail = reply.value("detail", std::string());
    if (reply.contains("signals")) {
        const auto& s = reply.at("signals");
        ProfileSignals p;
        p.sm_percent = s.value("sm_percent", 0.0);
        p.memory_percent = s.value("memory_percent", 0.0);
        p.registers = s.value("registers", 0);
        p.occupancy_percent = s.value("occupancy_percent", 0.0);
        p.dram_bytes = s.value("dram_bytes", 0.0);
        e.profile = p;
    }
    return e;
}

std::string find_worker()
{
    if (const char* env = std::getenv("GSR_KERNEL_WORKER"); env && *env) return env;
    std::error_code ec;
    const fs::path self = fs::read_symlink("/proc/self/exe", ec);
    if (ec) return {};
    for (const fs::path& candidate :
         {self.parent_path() / "gsr-kernel-worker",
          self.parent_path() / ".." / "libexec" / "gsr-studio" / "gsr-kernel-worker"})
        if (::access(candidate.c_str(), X_OK) == 0) return candidate.lexically_normal();
    return {};
}

LaunchShape default_launch(const Problem& p)
{
    const std::uint64_t work = p.family == OpFamily::Reduction ? p.rows : p.output_size();
    LaunchShape l;
    l.block = {256, 1, 1};
    l.grid = {unsigned(std::max<std::uint64_t>(1, (work + 255) / 256)), 1, 1};
    return l;
}

LaunchShape launch_from_expression(const Problem& p, std::string_view grid, unsigned block)
{
    const double v = Expression(p, grid).parse();
    if (!(v >= 1) || v != std::floor(v) || v > 2147483647.0)
        throw Error("launch expression '" + std::string(grid) + "' gives " + std::to_string(v) +
                    ": expected a whole number of blocks from 1 to 2^31 - 1");
    if (block == 0 || block > 1024)
        throw Error("launch block " + std::to_string(block) + ": expected 1 to 1024 threads");
    LaunchShape l;
    l.grid = {unsigned(v), 1, 1};
    l.block = {block, 1, 1};
    return l;
}

WorkerEvaluator::WorkerEvaluator(Problem problem, sol::DeviceSpec device, double t_sol,
                                 WorkerOptions options)
    : problem_(std::move(problem)), device_(std::move(device)), t_sol_(t_sol),
      options_(std::move(options))
{
    if (options_.seeds < 3) options_.seeds = 3;
    if (options_.runs < 10) options_.runs = 10;
    seeds_ = draw_seeds(options_.seeds, options_.seed);
    if (options_.worker.empty()) options_.worker = find_worker();
    if (options_.worker.empty())
        throw Error("the kernel lab's worker program gsr-kernel-worker was not found beside "
                    "this program (it is built with the CUDA backend); set GSR_KERNEL_WORKER "
                    "to its path");
}

WorkerEvaluator::~WorkerEvaluator() = default;

void WorkerEvaluator::retarget(sol::DeviceSpec device, double t_sol)
{
    device_ = std::move(device);
    t_sol_ = t_sol;
}

nlohmann::json WorkerEvaluator::job(const char* type) const
{
    return {{"type", type},
            {"problem", problem_json(problem_)},
            {"seeds", seeds_},
            {"runs", options_.runs},
            {"warmup", options_.warmup},
            {"check_rows", options_.check_rows},
            {"t_sol", t_sol_}};
}

Evaluation WorkerEvaluator::run(const nlohmann::json& job_without_id)
{
    last_reply_ = nullptr;
    if (!process_) {
        process_ = std::make_unique<AgentProcess>(std::vector<std::string>{options_.worker});
        ++started_;
    }
    nlohmann::json request = job_without_id;
    const std::uint64_t id = ++jobs_sent_;
    request["id"] = id;
    const auto start = Clock::now();
    std::string line;
    try {
        process_->send_line(json_text(request), options_.timeout);
        line = process_->receive_line(options_.timeout);
    } catch (const Error&) {
        const bool hung = Clock::now() - start >= options_.timeout;
        process_->kill();
        const int status = process_->finish(std::chrono::milliseconds(2000));
        const std::string err = tail(process_->stderr_text(), 600);
        process_.reset();
        Evaluation e;
        if (hung) {
            e.verdict = Verdict::Timeout;
            e.detail = "no answer within " + std::to_string(options_.timeout.count()) +
                       " ms: the worker was killed";
        } else {
            e.verdict = Verdict::Crash;
            e.detail = "the worker died (" +
                       (status > 128 ? "signal " + std::to_string(status - 128)
                                     : "exit status " + std::to_string(status)) +
                       ")" + (err.empty() ? "" : ": " + err);
        }
        return e;
    }
    try {
        last_reply_ = nlohmann::json::parse(line);
    } catch (const nlohmann::json::exception&) {
        process_.reset();
        return {Verdict::Crash, 0,
                "the worker answered something that is not JSON: " + tail(line, 200),
                std::nullopt};
    }
    // The reply must be this job's: a line from anything else (a worker that lets a candidate
    // write to its replies) would give this candidate another's verdict, and every later one
    // the one before it.
    const auto id_field = last_reply_.is_object() ? last_reply_.find("id") : last_reply_.end();
    if (!last_reply_.is_object() || id_field == last_reply_.end() ||
        !id_field->is_number_unsigned() || id_field->get<std::uint64_t>() != id) {
        process_.reset();
        last_reply_ = nullptr;
        return {Verdict::Crash, 0,
                "the worker's answer is not the reply to job " + std::to_string(id) + ": " +
                    tail(line, 200),
                std::nullopt};
    }
    try {
        if (last_reply_.value("fatal", false)) {
            process_->finish(std::chrono::milliseconds(5000));
            process_.reset();
        }
        return evaluation_from_reply(last_reply_);
    } catch (const nlohmann::json::exception& e) {
        process_.reset();
        return {Verdict::Crash, 0,
                std::string("the worker's answer has a field of the wrong type (") + e.what() +
                    "): " + tail(line, 200),
                std::nullopt};
    }
}

Evaluation WorkerEvaluator::evaluate(const KernelConfig& config)
{
    const Validation v = validate(problem_, config, device_);
    if (!v.ok()) return {Verdict::InvalidConfig, 0, v.text(), std::nullopt};
    const GeneratedKernel k = generate_kernel(problem_, config, device_);
    return evaluate_launch(k.source, k.entry, k.launch);
}

Evaluation WorkerEvaluator::evaluate_source(const std::string& cuda, const std::string& entry)
{
    return evaluate_launch(cuda, entry, default_launch(problem_));
}

Evaluation WorkerEvaluator::evaluate_launch(const std::string& cuda, const std::string& entry,
                                            const LaunchShape& launch)
{
    nlohmann::json j = job("evaluate");
    j["source"] = cuda;
    j["entry"] = entry;
    j["launch"] = {{"grid", launch.grid},
                   {"block", launch.block},
                   {"shared", launch.dynamic_shared_bytes}};
    Evaluation e = run(j);
    if (e.ok() && options_.profile) e.profile = profile_with_ncu(j);
    return e;
}

std::optional<ProfileSignals> WorkerEvaluator::profile_with_ncu(const nlohmann::json& evaluate)
{
    if (options_.ncu.empty()) options_.ncu = find_ncu();
    if (options_.ncu.empty()) return std::nullopt; // timing alone
    nlohmann::json j = evaluate;
    j["type"] = "profile";
    // A name of its own (mkstemps: created new, mode 0600): two lab sessions in one process
    // profile at once, and a planted link must not be written through.
    std::string name = (fs::temp_directory_path() / "gsr-profile-XXXXXX.json").string();
    const int fd = ::mkstemps(name.data(), 5);
    if (fd < 0) return std::nullopt; // timing alone
    const fs::path file = name;
    {
        const std::string text = json_text(j);
        const bool written = ::write(fd, text.data(), text.size()) == ssize_t(text.size());
        ::close(fd);
        if (!written) {
            std::error_code ignored;
            fs::remove(file, ignored);
            return std::nullopt;
        }
    }
    std::string csv;
    try {
        AgentProcess ncu({options_.ncu, "--csv", "--page", "raw", "--print-units", "base",
                          "--metrics", kNcuMetrics, "--kernel-name",
                          j.at("entry").get<std::string>(), "--launch-count", "1",
                          "--target-processes", "all", options_.worker, "--job", file.string()});
        ncu.close_input();
        const auto deadline = Clock::now() + 4 * options_.timeout;
        while (true) {
            const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
                deadline - Clock::now());
            csv += ncu.receive_line(std::max(left, std::chrono::milliseconds(1))) + "\n";
        }
    } catch (const Error&) {
        // The end of ncu's output (or its timeout): parse what came.
    }
    std::error_code ignored;
    fs::remove(file, ignored);
    return parse_ncu_csv(csv);
}

Evaluation WorkerEvaluator::baseline()
{
    if (problem_.baseline == BaselineKind::Straightforward)
        return evaluate(default_config(problem_));
    Evaluation e = run(job("baseline"));
    if (last_reply_.contains("algorithm") && last_reply_.at("algorithm").is_string())
        e.detail = std::string(baseline_name(problem_.baseline)) + " " +
                   last_reply_.at("algorithm").get<std::string>() +
                   (e.detail.empty() ? "" : "; " + e.detail);
    return e;
}

nlohmann::json WorkerEvaluator::device_info()
{
    const Evaluation e = run({{"type", "device"}});
    if (!last_reply_.contains("name"))
        throw Error("the kernel worker could not describe the GPU: " + e.detail);
    return last_reply_;
}

nlohmann::json WorkerEvaluator::calibrate()
{
    const Evaluation e = run({{"type", "calibrate"}});
    if (!last_reply_.contains("copy_bandwidth"))
        throw Error("the kernel worker could not calibrate the GPU: " + e.detail);
    return last_reply_;
}

} // namespace gsr::tune
