// Structural Verilog netlist reader: the IEEE 1364-2005 subset that gate-level netlists use.
//
// Two phases. Parsing turns each module into a compact body (cells and pins in the very layout of
// Circuit, nets interned per module), skipping behavioural code. Elaboration then picks the top
// module, flattens instances of defined modules with an explicit work stack, turns the ISCAS
// `dff` idiom into flip-flops, leaves undefined modules as black boxes, merges `assign` aliases
// with a union-find and gives the surviving nets dense ids. A flat top module (the usual case
// for big netlists) is moved into the Circuit without copying its cells and pins.
#include "netlist/hierarchy_budget.hpp"
#include "netlist/readers.hpp"
#include "netlist/verilog_lexer.hpp"
#include "util/huge_page_allocator.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <cstring>
#include <memory>
#include <numeric>
#include <unordered_map>

namespace gsr::netlist {

namespace {

using verilog::DeferredWarnings;
using verilog::Lexer;
using verilog::sym;
using verilog::Token;
using verilog::TokenKind;

// Inside the reader a net reference is a net id, one of four constants, or kNoNet.
constexpr NetId kConst0 = 0xfffffff0u;
constexpr NetId kConst1 = 0xfffffff1u;
constexpr NetId kConstX = 0xfffffff2u;
constexpr NetId kConstZ = 0xfffffff3u;
/// The cell type driving each constant, by value - kConst0.
constexpr std::string_view kConstTypes[] = {"CONST0", "CONST1", "CONSTX", "CONSTZ"};
constexpr NetId kUnmapped = 0xfffffffeu;
constexpr NetId kMaxNets = 0xffffff00u;
constexpr std::uint32_t kNone = 0xffffffffu;
constexpr std::size_t kNoOffset = DeferredWarnings::kNoOffset;

constexpr std::size_t kMaxNesting = 4096;      // concatenations inside concatenations
constexpr std::size_t kMaxBits = 1u << 24;     // bits of one expression
constexpr std::int64_t kMaxRangeWidth = 1 << 24;

inline bool is_net(NetId n) { return n < kConst0; }
inline bool is_const(NetId n) { return n >= kConst0 && n <= kConstZ; }

// ---------------------------------------------------------------------------------------------
// Keywords that start a module item

enum class Kw : std::uint8_t {
    None, Module, Endmodule, Primitive, Config, Input, Output, Inout, Net, Supply0, Supply1,
    Variable, Param, Assign, Behaviour, Block, Statement, Gate
};

enum class Gate : std::uint8_t {
    And, Nand, Or, Nor, Xor, Xnor, Buf, Not, Bufif0, Bufif1, Notif0, Notif1, Nmos, Pmos, Rnmos,
    Rpmos, Cmos, Rcmos, Tran, Rtran, Tranif0, Tranif1, Rtranif0, Rtranif1, Pullup, Pulldown,
    Count
};

struct KeywordInfo {
    std::string_view word;
    Kw kind;
    Gate gate;
    std::string_view end; // closing keyword of a skipped block
};

constexpr KeywordInfo kKeywords[] = {
    // sorted by word, for binary search
    {"always", Kw::Behaviour, Gate::Count, {}},
    {"always_comb", Kw::Behaviour, Gate::Count, {}},
    {"always_ff", Kw::Behaviour, Gate::Count, {}},
    {"always_latch", Kw::Behaviour, Gate::Count, {}},
    {"and", Kw::Gate, Gate::And, {}},
    {"assign", Kw::Assign, Gate::Count, {}},
    {"begin", Kw::Statement, Gate::Count, {}},
    {"buf", Kw::Gate, Gate::Buf, {}},
    {"bufif0", Kw::Gate, Gate::Bufif0, {}},
    {"bufif1", Kw::Gate, Gate::Bufif1, {}},
    {"case", Kw::Statement, Gate::Count, {}},
    {"casex", Kw::Statement, Gate::Count, {}},
    {"casez", Kw::Statement, Gate::Count, {}},
    {"cmos", Kw::Gate, Gate::Cmos, {}},
    {"config", Kw::Config, Gate::Count, "endconfig"},
    {"defparam", Kw::Param, Gate::Count, {}},
    {"endmodule", Kw::Endmodule, Gate::Count, {}},
    {"event", Kw::Variable, Gate::Count, {}},
    {"final", Kw::Behaviour, Gate::Count, {}},
    {"for", Kw::Statement, Gate::Count, {}},
    {"forever", Kw::Statement, Gate::Count, {}},
    {"function", Kw::Block, Gate::Count, "endfunction"},
    {"generate", Kw::Block, Gate::Count, "endgenerate"},
    {"genvar", Kw::Variable, Gate::Count, {}},
    {"if", Kw::Statement, Gate::Count, {}},
    {"initial", Kw::Behaviour, Gate::Count, {}},
    {"inout", Kw::Inout, Gate::Count, {}},
    {"input", Kw::Input, Gate::Count, {}},
    {"integer", Kw::Variable, Gate::Count, {}},
    {"localparam", Kw::Param, Gate::Count, {}},
    {"logic", Kw::Net, Gate::Count, {}},
    {"macromodule", Kw::Module, Gate::Count, {}},
    {"module", Kw::Module, Gate::Count, {}},
    {"nand", Kw::Gate, Gate::Nand, {}},
    {"nmos", Kw::Gate, Gate::Nmos, {}},
    {"nor", Kw::Gate, Gate::Nor, {}},
    {"not", Kw::Gate, Gate::Not, {}},
    {"notif0", Kw::Gate, Gate::Notif0, {}},
    {"notif1", Kw::Gate, Gate::Notif1, {}},
    {"or", Kw::Gate, Gate::Or, {}},
    {"output", Kw::Output, Gate::Count, {}},
    {"parameter", Kw::Param, Gate::Count, {}},
    {"pmos", Kw::Gate, Gate::Pmos, {}},
    {"primitive", Kw::Primitive, Gate::Count, "endprimitive"},
    {"pulldown", Kw::Gate, Gate::Pulldown, {}},
    {"pullup", Kw::Gate, Gate::Pullup, {}},
    {"rcmos", Kw::Gate, Gate::Rcmos, {}},
    {"real", Kw::Variable, Gate::Count, {}},
    {"realtime", Kw::Variable, Gate::Count, {}},
    {"reg", Kw::Net, Gate::Count, {}},
    {"repeat", Kw::Statement, Gate::Count, {}},
    {"rnmos", Kw::Gate, Gate::Rnmos, {}},
    {"rpmos", Kw::Gate, Gate::Rpmos, {}},
    {"rtran", Kw::Gate, Gate::Rtran, {}},
    {"rtranif0", Kw::Gate, Gate::Rtranif0, {}},
    {"rtranif1", Kw::Gate, Gate::Rtranif1, {}},
    {"specify", Kw::Block, Gate::Count, "endspecify"},
    {"specparam", Kw::Param, Gate::Count, {}},
    {"supply0", Kw::Supply0, Gate::Count, {}},
    {"supply1", Kw::Supply1, Gate::Count, {}},
    {"task", Kw::Block, Gate::Count, "endtask"},
    {"time", Kw::Variable, Gate::Count, {}},
    {"tran", Kw::Gate, Gate::Tran, {}},
    {"tranif0", Kw::Gate, Gate::Tranif0, {}},
    {"tranif1", Kw::Gate, Gate::Tranif1, {}},
    {"tri", Kw::Net, Gate::Count, {}},
    {"tri0", Kw::Net, Gate::Count, {}},
    {"tri1", Kw::Net, Gate::Count, {}},
    {"triand", Kw::Net, Gate::Count, {}},
    {"trior", Kw::Net, Gate::Count, {}},
    {"trireg", Kw::Net, Gate::Count, {}},
    {"uwire", Kw::Net, Gate::Count, {}},
    {"wand", Kw::Net, Gate::Count, {}},
    {"while", Kw::Statement, Gate::Count, {}},
    {"wire", Kw::Net, Gate::Count, {}},
    {"wor", Kw::Net, Gate::Count, {}},
    {"xnor", Kw::Gate, Gate::Xnor, {}},
    {"xor", Kw::Gate, Gate::Xor, {}},
};

bool same_text(std::string_view a, std::string_view b)
{
    // Short names: an inline loop beats a call to memcmp.
    if (a.size() != b.size()) return false;
    for (std::size_t i = 0; i < a.size(); ++i)
        if (a[i] != b[i]) return false;
    return true;
}

const KeywordInfo* keyword(const Token& t)
{
    // Keywords are lower case: cell names like NAND2_X1 are rejected by their first byte. The
    // table is sorted, so the keywords of one initial letter are contiguous.
    static const std::array<std::uint8_t, 27> kFirst = [] {
        std::array<std::uint8_t, 27> first{};
        std::size_t k = 0;
        for (int c = 0; c <= 26; ++c) {
            while (k < std::size(kKeywords) && kKeywords[k].word[0] - 'a' < c) ++k;
            first[static_cast<std::size_t>(c)] = static_cast<std::uint8_t>(k);
        }
        return first;
    }();
    if (t.kind != TokenKind::Identifier) return nullptr;
    const std::string_view w = t.text();
    if (w.size() < 2 || w.size() > 12 || w[0] < 'a' || w[0] > 'z') return nullptr;
    const int c = w[0] - 'a';
    for (std::size_t k = kFirst[static_cast<std::size_t>(c)];
         k < kFirst[static_cast<std::size_t>(c) + 1]; ++k)
        if (same_text(kKeywords[k].word, w)) return &kKeywords[k];
    return nullptr;
}

constexpr std::string_view kGateTypes[] = {
    "AND", "NAND", "OR", "NOR", "XOR", "XNOR", "BUF", "NOT", "BUFIF0", "BUFIF1", "NOTIF0",
    "NOTIF1", "NMOS", "PMOS", "RNMOS", "RPMOS", "CMOS", "RCMOS", "TRAN", "RTRAN", "TRANIF0",
    "TRANIF1", "RTRANIF0", "RTRANIF1", "PULLUP", "PULLDOWN"};

bool is_switch(Gate g) { return g >= Gate::Nmos && g <= Gate::Rtranif1; }

bool is_strength(const Token& t)
{
    if (t.kind != TokenKind::Identifier) return false;
    static constexpr std::string_view kWords[] = {
        "supply0", "strong0", "pull0", "weak0", "highz0", "supply1", "strong1", "pull1", "weak1",
        "highz1", "small", "medium", "large"};
    return std::find(std::begin(kWords), std::end(kWords), t.text()) != std::end(kWords);
}

bool iequals(std::string_view a, std::string_view b)
{
    if (a.size() != b.size()) return false;
    for (std::size_t i = 0; i < a.size(); ++i) {
        char x = a[i], y = b[i];
        if (x >= 'A' && x <= 'Z') x = static_cast<char>(x - 'A' + 'a');
        if (y >= 'A' && y <= 'Z') y = static_cast<char>(y - 'A' + 'a');
        if (x != y) return false;
    }
    return true;
}

void append_int(std::string& s, std::int64_t v)
{
    char buf[24];
    char* e = buf + sizeof buf;
    char* p = e;
    const bool neg = v < 0;
    std::uint64_t u = neg ? 0 - static_cast<std::uint64_t>(v) : static_cast<std::uint64_t>(v);
    do {
        *--p = static_cast<char>('0' + u % 10);
        u /= 10;
    } while (u);
    if (neg) *--p = '-';
    s.append(p, e);
}

// ---------------------------------------------------------------------------------------------
// Net names while reading

/// Shrinks a vector whose reservation (made from the size of the rest of the file) turned out
/// far too big, when its content is small enough to copy at no real cost.
template <class T>
void give_back_unused(std::vector<T>& v)
{
    if (v.size() * sizeof(T) < (std::size_t{1} << 20) && v.capacity() > 2 * v.size() + 1024)
        v.shrink_to_fit();
}

/// Names of one module (its nets, ports or vectors): stored in id order, found through an
/// open-addressing index whose slots keep the full 32-bit hash, so a probe rarely touches the
/// characters and growing never re-reads a name. Light on purpose: a file can hold thousands of
/// small modules. Big tables add a direct-mapped cache of recent names, because netlists mostly
/// read a net soon after its driver wrote it. The Circuit's NamePool is filled once, at the end,
/// with the nets that survive.
class NameTable {
public:
    NameTable() : slots_(kInitialSlots, 0) {}

    /// Room for up to `names` names of `chars` characters: storage pages nobody writes cost
    /// nothing, so this may be generous. The index, zero-filled and so paid in full, jumps to
    /// `likely_names` once the table proves big; many small modules never fill large tables.
    void reserve(std::size_t names, std::size_t chars, std::size_t likely_names)
    {
        spans_.reserve(names);
        chars_.reserve(chars);
        expected_ = likely_names;
    }
    /// Gives back reserved storage that was not used.
    void shrink()
    {
        give_back_unused(spans_);
        give_back_unused(chars_);
    }
    std::size_t size() const { return spans_.size(); }
    std::string_view view(std::uint32_t id) const
    {
        const std::uint64_t span = spans_[id];
        return {chars_.data() + (span >> 24), static_cast<std::size_t>(span & 0xffffffu)};
    }

    /// The id of `s`, or kNone.
    std::uint32_t find(std::string_view s) const
    {
        const std::uint32_t h = hash(s);
        if (!recent_.empty()) {
            const std::uint64_t v = recent_[(h >> 7) & (kRecent - 1)];
            if (v != 0 && static_cast<std::uint32_t>(v >> 32) == h &&
                same(view(static_cast<std::uint32_t>(v) - 1), s))
                return static_cast<std::uint32_t>(v) - 1;
        }
        const std::size_t mask = slots_.size() - 1;
        for (std::size_t i = h & mask;; i = (i + 1) & mask) {
            const std::uint64_t v = slots_[i];
            if (v == 0) return kNone;
            if (static_cast<std::uint32_t>(v >> 32) == h &&
                same(view(static_cast<std::uint32_t>(v) - 1), s))
                return static_cast<std::uint32_t>(v) - 1;
        }
    }

    /// The id of `s`, adding it when new.
    std::uint32_t intern(std::string_view s) { return intern(s, hash(s)); }
    /// The same, with `h == hash(s)` computed earlier (see prefetch).
    std::uint32_t intern(std::string_view s, std::uint32_t h)
    {
        std::uint64_t* recent = nullptr;
        if (!recent_.empty()) {
            recent = &recent_[(h >> 7) & (kRecent - 1)];
            const std::uint64_t v = *recent;
            if (v != 0 && static_cast<std::uint32_t>(v >> 32) == h &&
                same(view(static_cast<std::uint32_t>(v) - 1), s))
                return static_cast<std::uint32_t>(v) - 1;
        }
        const std::size_t mask = slots_.size() - 1;
        std::size_t i = h & mask;
        for (;; i = (i + 1) & mask) {
            const std::uint64_t v = slots_[i];
            if (v == 0) break;
            if (static_cast<std::uint32_t>(v >> 32) == h &&
                same(view(static_cast<std::uint32_t>(v) - 1), s)) {
                if (recent) *recent = v;
                return static_cast<std::uint32_t>(v) - 1;
            }
        }
        if (s.size() >= (1u << 24)) throw Error("name longer than 16 MiB");
        if (spans_.size() >= kMaxNets) throw Error("more than 4 billion nets in one module");
        const auto id = static_cast<std::uint32_t>(spans_.size());
        spans_.push_back((static_cast<std::uint64_t>(chars_.size()) << 24) | s.size());
        chars_.insert(chars_.end(), s.begin(), s.end());
        const std::uint64_t v =
            (static_cast<std::uint64_t>(h) << 32) | (static_cast<std::uint64_t>(id) + 1);
        slots_[i] = v;
        if (recent) *recent = v;
        if (2 * spans_.size() > slots_.size()) {
            std::size_t want = 2 * slots_.size();
            if (spans_.size() >= kBigTable)
                while (want < 2 * expected_) want *= 2;
            rehash(want);
        }
        return id;
    }

    static std::uint32_t hash(std::string_view s)
    {
        std::uint64_t h = 0x9e3779b97f4a7c15ull ^ s.size();
        std::size_t i = 0;
        for (; i + 8 <= s.size(); i += 8) {
            std::uint64_t w;
            std::memcpy(&w, s.data() + i, 8);
            h = (h ^ w) * 0xbf58476d1ce4e5b9ull;
            h ^= h >> 31;
        }
        std::uint64_t tail = 0;
        for (std::size_t k = 0; i + k < s.size(); ++k)
            tail |= static_cast<std::uint64_t>(static_cast<unsigned char>(s[i + k])) << (8 * k);
        h = (h ^ tail) * 0x94d049bb133111ebull;
        h ^= h >> 32;
        return static_cast<std::uint32_t>(h);
    }
    /// Starts loading the slot of a name with hash `h`: callers prefetch all names of a
    /// statement, then intern them, so that the cache misses overlap.
    void prefetch(std::uint32_t h) const { __builtin_prefetch(&slots_[h & (slots_.size() - 1)]); }

    /// Stores `s` under a new id without indexing it: for names found another way (bits of a
    /// vector through the vector, flattened nets through their frame). Should the same text be
    /// interned as well, the two stay different nets: the later gets primes in the Circuit.
    std::uint32_t append(std::string_view s)
    {
        if (s.size() >= (1u << 24)) throw Error("name longer than 16 MiB");
        if (spans_.size() >= kMaxNets) throw Error("more than 4 billion nets in one module");
        const auto id = static_cast<std::uint32_t>(spans_.size());
        spans_.push_back((static_cast<std::uint64_t>(chars_.size()) << 24) | s.size());
        chars_.insert(chars_.end(), s.begin(), s.end());
        return id;
    }

    /// The index is not needed once the names are final.
    void drop_index()
    {
        slots_ = {};
        recent_ = {};
    }

private:
    static constexpr std::size_t kInitialSlots = 16;
    static constexpr std::size_t kRecent = 1u << 14;
    static constexpr std::size_t kRecentFrom = 1u << 15; ///< table size that gets the cache
    static constexpr std::size_t kBigTable = 1u << 15;   ///< from here on, trust `expected_`

    static bool same(std::string_view a, std::string_view b)
    {
        if (a.size() != b.size()) return false;
        for (std::size_t i = 0; i < a.size(); ++i)
            if (a[i] != b[i]) return false;
        return true;
    }
    void rehash(std::size_t size)
    {
        std::vector<std::uint64_t, HugePageAllocator<std::uint64_t>> old = std::move(slots_);
        slots_.assign(size, 0);
        const std::size_t mask = size - 1;
        for (std::uint64_t v : old) {
            if (v == 0) continue;
            std::size_t i = static_cast<std::uint32_t>(v >> 32) & mask;
            while (slots_[i] != 0) i = (i + 1) & mask;
            slots_[i] = v;
        }
        if (size >= kRecentFrom && recent_.empty()) recent_.assign(kRecent, 0);
    }

    std::vector<char> chars_;
    std::vector<std::uint64_t> spans_; ///< offset << 24 | length
    std::vector<std::uint64_t, HugePageAllocator<std::uint64_t>> slots_; ///< hash << 32 | id + 1
    std::vector<std::uint64_t> recent_; ///< same encoding; empty while the table is small
    std::size_t expected_ = 0;
};

// ---------------------------------------------------------------------------------------------
// Module bodies

/// A declared range [left:right]; bits are listed from `left` to `right`.
struct Range {
    std::int32_t left = 0;
    std::int32_t right = 0;

    std::uint32_t width() const
    {
        return static_cast<std::uint32_t>(left > right ? left - right : right - left) + 1;
    }
    std::int32_t lo() const { return std::min(left, right); }
    std::int32_t hi() const { return std::max(left, right); }
    bool contains(std::int64_t i) const { return i >= lo() && i <= hi(); }
    /// Index of the k-th bit in listing order.
    std::int32_t at(std::uint32_t k) const
    {
        return left >= right ? left - static_cast<std::int32_t>(k)
                             : left + static_cast<std::int32_t>(k);
    }
};

struct VectorDecl {
    Range range;
    std::uint32_t first_bit = kNone; ///< in ModuleDef::vector_bits (kUnmapped: bit not used yet)
};

struct PortDecl {
    std::string_view name;
    std::size_t offset = 0;
    Direction dir = Direction::Unknown;
    bool has_dir = false;
    std::uint32_t vector = kNone; ///< id in ModuleDef::vectors; kNone for a scalar port
};

/// A connection wider than one bit: `width` consecutive pins with the same pin name.
struct WideConnection {
    std::uint32_t first_pin;
    std::uint32_t width;
};

/// `assign lhs = rhs` where rhs is a plain net or constant bit: an alias or a buffer.
struct SimpleAssign {
    NetId lhs;
    NetId rhs;
    int line = 0; ///< of the assignment
};

struct ModuleDef {
    std::string_view name;
    std::uint32_t type = 0; ///< id in the reader's type pool
    std::size_t offset = 0; ///< of the name
    bool ansi = false;

    std::vector<PortDecl> ports;
    NameTable port_names; ///< id == index in `ports`
    /// Local ids of the port bits, port by port, in listing order (set by finish_module).
    std::vector<NetId> port_bits;
    std::vector<std::uint32_t> port_bit_start;

    NameTable nets; ///< local net (bit) names; id == local net id
    NameTable vectors;
    std::vector<VectorDecl> vector_decls;
    std::vector<NetId> vector_bits;
    std::array<std::uint64_t, 64> vector_filter{}; ///< cheap "might be a vector" test
    std::vector<NetId> parent;                      ///< union-find over nets; empty: no aliases

    std::vector<Cell> cells; ///< type: id in the type pool; pins: local nets or constants
    std::vector<Pin> pins;
    std::vector<WideConnection> wide;
    /// Where each Instance cell's name is, relative to `offset`: for messages of elaboration.
    std::vector<std::uint32_t> instance_offsets;
    std::size_t instance_offset(std::size_t k) const { return offset + instance_offsets[k]; }
    /// The low half of NamePool::hash of each Instance cell's name, in the same order: hashed
    /// while the name is in the cache, for the check that no two share one.
    std::vector<std::uint32_t> instance_hashes;
    std::vector<SimpleAssign> simple_assigns;
    std::vector<SimpleAssign> constant_ties; ///< supply0/supply1 nets: constants in every style

    bool has_instances = false;
    bool has_posedge = false;
    std::size_t behaviour_offset = kNoOffset;
    std::size_t switch_offset = kNoOffset;
    bool warned_bit_select = false;
    /// Nets named "b[i]" by a select of b before b was declared a vector: its bits, once
    /// declared, are these nets (as yosys reads it). An escaped identifier `\b[i] ` is not.
    std::vector<NetId> undeclared_bits;

    /// Pin name (Circuit::names id) -> port index, built when the module is first instantiated.
    std::unordered_map<NameId, std::uint32_t> port_by_pin;
    std::vector<NameId> port_bit_pin_names; ///< pin names of the port bits (flip-flop idiom)
};

std::size_t filter_hash(std::string_view s)
{
    return (s.size() * 0x9e37u + static_cast<unsigned char>(s.front()) * 0x3bu +
            static_cast<unsigned char>(s.back()) * 0x61u +
            static_cast<unsigned char>(s[s.size() / 2])) &
           4095u;
}

NetId find_root(std::vector<NetId>& parent, NetId x)
{
    if (!is_net(x) || x >= parent.size()) return x;
    NetId r = x;
    while (is_net(r) && r < parent.size() && parent[r] != r) r = parent[r];
    while (x != r && is_net(x) && x < parent.size()) {
        const NetId next = parent[x];
        parent[x] = r;
        x = next;
    }
    return r;
}

/// Merges two nets (or a net and a constant). `keep` is the preferred root when both are nets.
/// Returns false when the two are different constants.
bool unite(std::vector<NetId>& parent, NetId keep, NetId other)
{
    NetId a = find_root(parent, keep), b = find_root(parent, other);
    if (a == b) return true;
    if (!is_net(a) && !is_net(b)) return false;
    const NetId need = std::max(is_net(a) ? a + 1 : 0u, is_net(b) ? b + 1 : 0u);
    if (parent.size() < need) {
        const std::size_t old = parent.size();
        parent.resize(need);
        std::iota(parent.begin() + static_cast<std::ptrdiff_t>(old), parent.end(),
                  static_cast<NetId>(old));
    }
    if (!is_net(a)) std::swap(a, b); // a: the net that joins b
    else if (is_net(b)) std::swap(a, b);
    parent[a] = b;
    return true;
}

// ---------------------------------------------------------------------------------------------
// The reader

struct BraceFrame {
    std::uint32_t bits_start;
    std::uint32_t operands_start;
    std::uint32_t repeat;
    bool replication;
    bool fresh; ///< no element parsed yet
};

/// A connection of the instance being read. Plain net names are interned only once the whole
/// instance is read, after their slots were prefetched.
struct PendingConnection {
    NameId pin;
    std::uint32_t hash;    ///< plain name: its hash
    std::string_view name; ///< plain name; empty: `first`/`count` bits in Reader::conn_bits_
    std::uint32_t first;
    std::uint32_t count;
};

struct Operand {
    std::uint32_t first;
    std::uint32_t count;
    bool inverted;
    bool constant;
};

class Reader {
public:
    Reader(const SourceText& src, Circuit& c)
        : src_(src), c_(c), lex_(src, warnings_), cell_lines_(src)
    {
        type_cache_.fill(kNoName);
        pin_cache_.fill(kNoName);
        position_names_.fill(kNoName);
    }

    void run()
    {
        bits_left_ = flattening_budget(src_.size());
        flat_limit_ = bits_left_;
        // Instance names of a big netlist go to this pool: reserve by the file size (pages that
        // stay unused are never touched).
        if (src_.size() > (1u << 20)) c_.names.reserve(src_.size() / 40, src_.size() / 5);
        parse_file();
        elaborate();
        warnings_.flush(src_, c_.diagnostics);
    }

private:
    // --- tokens and errors ---
    void advance() { lex_.next(tok_); }
    const Token& peek() { return lex_.peek(); }
    std::size_t offset(const Token& t) const { return lex_.offset(t); }
    [[noreturn]] void fail_at(const Token& t, const std::string& message) const
    {
        src_.fail(offset(t), message);
    }
    [[noreturn]] void expected(const std::string& what) const
    {
        fail_at(tok_, "expected " + what + ", found " + verilog::describe(tok_));
    }
    void expect(char c, const std::string& what)
    {
        if (!tok_.is(c)) expected(what);
        advance();
    }
    int line_of(std::size_t offset) const { return src_.location(offset).line; }
    void warn(std::size_t offset, std::string message)
    {
        warnings_.add(offset, std::move(message));
    }

    // --- file and module structure ---
    void parse_file();
    void parse_module();
    void parse_ansi_ports(ModuleDef& m);
    void parse_port_names(ModuleDef& m);
    void parse_direction(ModuleDef& m, Direction dir);
    void parse_net_declaration(ModuleDef& m, Kw kind);
    void parse_assign(ModuleDef& m);
    void parse_gate(ModuleDef& m, Gate gate);
    void parse_instances(ModuleDef& m);
    void parse_named_connections(ModuleDef& m);
    void parse_positional_connections(ModuleDef& m);
    void read_connection(ModuleDef& m, NameId pin);
    void add_connection(ModuleDef& m, NameId pin, const NetId* bits, std::size_t count);
    void emit_connections(ModuleDef& m);
    void finish_module(ModuleDef& m);
    /// Pushes a cell made by the statement at cell_offset_.
    void add_cell(ModuleDef& m, Cell cell);
    /// The line of cell_offset_ (statements are read in file order, so the locator counts
    /// each newline once).
    int cell_line() { return cell_lines_.line(cell_offset_); }

    // --- skipping what a netlist does not need ---
    void skip_balanced();
    void skip_delay();
    void skip_to_semicolon(const Token& start);
    void skip_block(const Token& start, std::string_view end_word);
    void skip_behaviour(ModuleDef& m, const Token& start);

    // --- expressions ---
    Range parse_range();
    std::int64_t parse_const_int(const char* what);
    void parse_net_expr(ModuleDef& m, std::vector<NetId>& out);
    void parse_primary(ModuleDef& m, std::vector<NetId>& out);
    void append_constant(const Token& t, std::vector<NetId>& out);
    void replicate(std::vector<NetId>& out, std::size_t start, std::uint32_t times,
                   const Token& at);
    void spend_bits(std::size_t bits, const Token& at) { spend_bits_at(bits, offset(at)); }
    void spend_bits_at(std::size_t bits, std::size_t at);
    /// Reads the right side of an assignment to `lhs_` and records its gate or aliases.
    void parse_rhs(ModuleDef& m);
    bool defer_plain_name(ModuleDef& m, std::vector<NetId>& bits, bool on_lhs);
    void resolve_deferred(ModuleDef& m);
    void emit_assign_gate(ModuleDef& m, std::string_view type, const std::vector<NetId>& outputs,
                          std::uint32_t bit, bool per_bit, bool invert_pins);

    // --- names ---
    NetId scalar_net(ModuleDef& m, std::string_view name);
    NetId vector_bit(ModuleDef& m, std::uint32_t vid, std::int64_t index);
    /// Gives vector `vid` its bit slots, once, charged to the bits budget at byte `at`.
    void materialise_vector(ModuleDef& m, std::uint32_t vid, std::size_t at);
    std::uint32_t declare_vector(ModuleDef& m, std::string_view name, Range r, const Token& at);
    std::uint32_t find_vector(const ModuleDef& m, std::string_view name) const;
    std::uint32_t type_id(std::string_view name);
    NameId pin_id(std::string_view name);

    // --- elaboration ---
    struct Frame {
        ModuleDef* m = nullptr;
        std::uint32_t cell = 0;
        std::uint32_t instance = 0; ///< index in m->instance_offsets
        std::uint32_t wide = 0;     ///< cursor in m->wide
        /// The frame's prefix ("" for the top, else "inst/sub/") is the first prefix_length
        /// bytes of path_, shared by the frames: a copy each cost memory quadratic in depth.
        std::size_t prefix_length = 0;
        std::vector<NetId> map;     ///< local root -> global net; empty: identity (the top)
    };
    void elaborate();
    std::uint32_t choose_top();
    void check_recursion(std::uint32_t top);
    /// Refuses a second instance of one name among a module's instances of defined modules.
    void refuse_duplicate_instances() const;
    void collect_groups(const ModuleDef& m, const Cell& cell, std::uint32_t& wide_cursor);
    std::size_t connection_offset(std::size_t instance_offset, std::size_t k);
    void connect_ports(Frame& f, ModuleDef& d, std::size_t inst_offset);
    NetId map_net(Frame& f, NetId local);
    void flatten_into_circuit(std::uint32_t top);
    void fix_instance(Cell& cell, Pin* pins, std::size_t inst_offset);
    NameId dff_type();
    void emit_flip_flop(Frame& f, const Cell& cell, ModuleDef& d);
    void add_top_ports(ModuleDef& top);
    void compact_nets();
    void warn_undriven();
    void fill_modules();
    NameId final_type(std::uint32_t type);
    NameId prefixed_name(const Frame& f, NameId name);
    void note_module_use(ModuleDef& m);

    const SourceText& src_;
    Circuit& c_;
    DeferredWarnings warnings_;
    Lexer lex_;
    Token tok_;
    std::size_t cell_offset_ = 0; ///< where the statement making the next cells starts
    OffsetLocator cell_lines_;    ///< lines of cell_offset_, asked in file order

    std::vector<std::unique_ptr<ModuleDef>> modules_;
    NamePool types_;
    std::vector<std::int32_t> module_of_type_; ///< type id -> index in modules_, or -1
    std::vector<std::uint8_t> type_is_module_;  ///< instantiated or defined as a module
    std::vector<std::uint64_t> instances_of_type_;
    std::vector<NameId> final_type_;
    std::array<std::uint32_t, 256> type_cache_{};
    std::array<NameId, 256> pin_cache_{};
    std::array<std::uint32_t, static_cast<std::size_t>(Gate::Count)> gate_type_{};
    bool gate_types_ready_ = false;
    bool warned_parameters_ = false;
    /// Bits that connections and expressions may expand to, and pins flattening may create: a
    /// few bytes of `{16777216{a}}`, of a huge bus or of a deep hierarchy must end in an error,
    /// not in exhausted memory. Generous: real netlists need about one bit per 5 bytes of text.
    std::size_t bits_left_ = 0;
    std::size_t flat_limit_ = 0;

    // scratch, reused to avoid allocations per statement
    std::vector<NetId> bits_, lhs_, rhs_bits_, conn_bits_;
    std::vector<PendingConnection> pending_;
    /// Plain names of the assignment being read, interned once the statement is read (after a
    /// prefetch of their slots): `index` in `lhs_` (on_lhs) or in `rhs_bits_`.
    struct DeferredName {
        std::string_view name;
        std::uint32_t hash;
        std::uint32_t index;
        bool on_lhs;
    };
    std::vector<DeferredName> deferred_;
    std::vector<BraceFrame> braces_;
    std::vector<Operand> operands_;
    std::vector<std::uint8_t> const_bits_;
    std::vector<WideConnection> groups_;
    std::vector<NetId> port_conn_;
    std::vector<std::uint8_t> port_done_;
    std::string scratch_;
    std::string path_; ///< the prefix of the innermost frame being flattened

    // elaboration state
    NameTable gnets_;
    std::vector<NetId> gparent_;
    std::vector<std::uint8_t> is_flip_flop_module_;
    std::vector<std::uint8_t> module_noted_;
    std::array<NameId, 64> position_names_{};
    NameId dff_type_ = kNoName;
};

// ---------------------------------------------------------------------------------------------
// Names

std::uint32_t Reader::type_id(std::string_view name)
{
    const std::size_t h = filter_hash(name) & 255u;
    std::uint32_t id = type_cache_[h];
    if (id != kNoName && same_text(types_.view(id), name)) return id;
    id = types_.intern(name);
    type_cache_[h] = id;
    if (id >= module_of_type_.size()) {
        module_of_type_.resize(id + 1, -1);
        type_is_module_.resize(id + 1, 0);
        instances_of_type_.resize(id + 1, 0);
    }
    return id;
}

NameId Reader::pin_id(std::string_view name)
{
    const std::size_t h = filter_hash(name) & 255u;
    NameId id = pin_cache_[h];
    if (id != kNoName && same_text(c_.names.view(id), name)) return id;
    id = c_.names.intern(name);
    pin_cache_[h] = id;
    return id;
}

NetId Reader::scalar_net(ModuleDef& m, std::string_view name)
{
    const NetId id = m.nets.intern(name);
    if (id >= kMaxNets) src_.fail(offset(tok_), "too many nets in one module");
    return id;
}

std::uint32_t Reader::find_vector(const ModuleDef& m, std::string_view name) const
{
    if (m.vector_decls.empty()) return kNone;
    const std::size_t h = filter_hash(name);
    if (!(m.vector_filter[h >> 6] & (1ull << (h & 63)))) return kNone;
    const NameId id = m.vectors.find(name);
    return id == kNoName ? kNone : id;
}

std::uint32_t Reader::declare_vector(ModuleDef& m, std::string_view name, Range r, const Token& at)
{
    const NameId id = m.vectors.intern(name);
    if (id == m.vector_decls.size()) {
        m.vector_decls.push_back({r, kNone});
        const std::size_t h = filter_hash(name);
        m.vector_filter[h >> 6] |= 1ull << (h & 63);
    } else {
        const Range old = m.vector_decls[id].range;
        if (old.left != r.left || old.right != r.right)
            warn(offset(at), "'" + std::string(name) + "' is declared again with another range; " +
                                 "the first range is kept");
    }
    return id;
}

void Reader::materialise_vector(ModuleDef& m, std::uint32_t vid, std::size_t at)
{
    // Bits get slots on first use only: a declared bus may be mostly unconnected. Used, its
    // slots (and, for a port, its nets) cost memory: `input [16777215:0] a;` is 21 bytes of
    // text and 16 million nets, so the width is charged, and refused where it is declared.
    VectorDecl& v = m.vector_decls[vid];
    if (v.first_bit != kNone) return;
    spend_bits_at(v.range.width(), at);
    v.first_bit = static_cast<std::uint32_t>(m.vector_bits.size());
    m.vector_bits.resize(m.vector_bits.size() + v.range.width(), kUnmapped);
}

NetId Reader::vector_bit(ModuleDef& m, std::uint32_t vid, std::int64_t index)
{
    VectorDecl& v = m.vector_decls[vid];
    if (v.first_bit == kNone) materialise_vector(m, vid, offset(tok_));
    NetId& bit = m.vector_bits[v.first_bit + static_cast<std::uint32_t>(index - v.range.lo())];
    if (bit == kUnmapped) {
        scratch_.assign(m.vectors.view(vid));
        scratch_ += '[';
        append_int(scratch_, index);
        scratch_ += ']';
        const NetId early = m.undeclared_bits.empty() ? kNone : m.nets.find(scratch_);
        bit = early != kNone && std::binary_search(m.undeclared_bits.begin(),
                                                   m.undeclared_bits.end(), early)
                  ? early
                  : m.nets.append(scratch_);
    }
    return bit;
}

// ---------------------------------------------------------------------------------------------
// File and module structure

void Reader::parse_file()
{
    const std::string_view text = src_.text();
    const std::size_t first = text.find_first_not_of(" \t\r\n\f\v");
    if (first != std::string_view::npos && text[first] == '<')
        src_.fail(first, "expected a Verilog module, found an HTML or XML page");
    advance();
    for (;;) {
        if (tok_.kind == TokenKind::End) return;
        const KeywordInfo* kw = keyword(tok_);
        if (kw && kw->kind == Kw::Module) {
            parse_module();
        } else if (kw && (kw->kind == Kw::Primitive || kw->kind == Kw::Config)) {
            const Token start = tok_;
            advance();
            if (kw->kind == Kw::Primitive)
                warn(offset(start), "user-defined primitive '" + std::string(tok_.text()) +
                                        "' skipped: its instances become black boxes");
            else
                warn(offset(start), "'config' block skipped");
            skip_block(start, kw->end);
        } else if (tok_.is(';')) {
            advance();
        } else {
            expected("'module'");
        }
    }
}

void Reader::parse_module()
{
    advance(); // 'module'
    if (!tok_.is_name()) expected("a module name after 'module'");
    auto owned = std::make_unique<ModuleDef>();
    ModuleDef& m = *owned;
    m.name = tok_.text();
    m.offset = offset(tok_);
    m.type = type_id(m.name);
    if (module_of_type_[m.type] >= 0) {
        const ModuleDef& first = *modules_[static_cast<std::size_t>(module_of_type_[m.type])];
        fail_at(tok_, "module '" + std::string(m.name) + "' is defined twice (first on line " +
                          std::to_string(line_of(first.offset)) + ")");
    }
    module_of_type_[m.type] = static_cast<std::int32_t>(modules_.size());
    type_is_module_[m.type] = 1;
    modules_.push_back(std::move(owned));
    const std::string mname(m.name);

    // Reserve by what is left of the file: the big flat module of a netlist then never regrows.
    // Pages that stay unused are never touched, and small modules shrink back when finished.
    const std::size_t rest = src_.size() - offset(tok_);
    if (rest > (1u << 20)) {
        m.cells.reserve(rest / 48);
        m.pins.reserve(rest / 14);
        m.nets.reserve(rest / 40, rest / 6, rest / 100);
        m.instance_offsets.reserve(rest / 48);
        m.instance_hashes.reserve(rest / 48);
    }

    advance();
    if (tok_.is('#')) { // parameter port list: parameters are not evaluated
        advance();
        if (!tok_.is('(')) expected("'(' after '#' in the header of module '" + mname + "'");
        skip_balanced();
    }
    if (tok_.is('(')) {
        advance();
        if (tok_.is(')')) {
            advance();
        } else {
            const KeywordInfo* kw = keyword(tok_);
            if (kw && (kw->kind == Kw::Input || kw->kind == Kw::Output || kw->kind == Kw::Inout))
                parse_ansi_ports(m);
            else
                parse_port_names(m);
        }
        if (!tok_.is(';')) expected("';' after the port list of module '" + mname + "'");
    } else if (!tok_.is(';')) {
        expected("'(' or ';' after the module name '" + mname + "'");
    }
    advance();

    for (;;) {
        if (tok_.kind == TokenKind::End)
            expected("'endmodule' to close module '" + mname + "' (line " +
                     std::to_string(line_of(m.offset)) + ")");
        if (tok_.kind == TokenKind::Escaped) {
            parse_instances(m);
            continue;
        }
        if (tok_.kind != TokenKind::Identifier) {
            if (tok_.is(';')) {
                advance();
                continue;
            }
            expected("a declaration, an instance or 'endmodule' in module '" + mname + "'");
        }
        const KeywordInfo* kw = keyword(tok_);
        if (!kw) {
            parse_instances(m);
            continue;
        }
        const Token start = tok_;
        switch (kw->kind) {
        case Kw::Endmodule:
            advance();
            if (tok_.is(':')) { // SystemVerilog end label
                advance();
                if (tok_.is_name()) advance();
            }
            finish_module(m);
            return;
        case Kw::Module:
        case Kw::Primitive:
        case Kw::Config:
            expected("'endmodule' to close module '" + mname + "' (line " +
                     std::to_string(line_of(m.offset)) + ")");
        case Kw::Input: parse_direction(m, Direction::Input); break;
        case Kw::Output: parse_direction(m, Direction::Output); break;
        case Kw::Inout: parse_direction(m, Direction::InOut); break;
        case Kw::Net:
        case Kw::Supply0:
        case Kw::Supply1: parse_net_declaration(m, kw->kind); break;
        case Kw::Variable:
        case Kw::Param:
            advance();
            skip_to_semicolon(start);
            break;
        case Kw::Assign: parse_assign(m); break;
        case Kw::Behaviour:
            if (m.behaviour_offset == kNoOffset) m.behaviour_offset = offset(start);
            skip_behaviour(m, start);
            break;
        case Kw::Block:
            if (kw->word == "generate")
                warn(offset(start), "generate block skipped: its contents are not elaborated");
            advance();
            skip_block(start, kw->end);
            break;
        case Kw::Statement:
            warn(offset(start), "'" + std::string(kw->word) + "' construct at module level " +
                                    "skipped: generate constructs are not elaborated");
            skip_behaviour(m, start);
            break;
        case Kw::Gate: parse_gate(m, kw->gate); break;
        case Kw::None: parse_instances(m); break;
        }
    }
}

void Reader::parse_ansi_ports(ModuleDef& m)
{
    m.ansi = true;
    Direction dir = Direction::Input;
    Range range;
    bool is_vector = false;
    for (;;) {
        const KeywordInfo* kw = keyword(tok_);
        if (kw && (kw->kind == Kw::Input || kw->kind == Kw::Output || kw->kind == Kw::Inout)) {
            dir = kw->kind == Kw::Input ? Direction::Input
                  : kw->kind == Kw::Output ? Direction::Output : Direction::InOut;
            advance();
            const KeywordInfo* type = keyword(tok_);
            if (type &&
                (type->kind == Kw::Net || type->kind == Kw::Supply0 || type->kind == Kw::Supply1))
                advance();
            if (tok_.is_word("signed") || tok_.is_word("unsigned")) advance();
            is_vector = tok_.is('[');
            if (is_vector) range = parse_range();
        }
        if (!tok_.is_name()) expected("a port name in the port list");
        const NameId id = m.port_names.intern(tok_.text());
        if (id != m.ports.size())
            fail_at(tok_, "port '" + std::string(tok_.text()) + "' is declared twice");
        PortDecl p;
        p.name = tok_.text();
        p.offset = offset(tok_);
        p.dir = dir;
        p.has_dir = true;
        if (is_vector) p.vector = declare_vector(m, p.name, range, tok_);
        m.ports.push_back(p);
        advance();
        if (tok_.is(',')) {
            advance();
            continue;
        }
        if (!tok_.is(')')) expected("',' or ')' in the port list");
        advance();
        return;
    }
}

void Reader::parse_port_names(ModuleDef& m)
{
    for (;;) {
        if (tok_.is('.'))
            fail_at(tok_,
                    "explicit port expressions (.name(...)) in a module header are not supported");
        if (!tok_.is_name()) expected("a port name in the port list");
        const NameId id = m.port_names.intern(tok_.text());
        if (id != m.ports.size())
            fail_at(tok_, "port '" + std::string(tok_.text()) + "' is listed twice");
        PortDecl p;
        p.name = tok_.text();
        p.offset = offset(tok_);
        m.ports.push_back(p);
        advance();
        if (tok_.is(',')) {
            advance();
            continue;
        }
        if (!tok_.is(')')) expected("',' or ')' in the port list");
        advance();
        return;
    }
}

void Reader::parse_direction(ModuleDef& m, Direction dir)
{
    const std::string kw(tok_.text());
    advance();
    const KeywordInfo* type = keyword(tok_);
    if (type && (type->kind == Kw::Net || type->kind == Kw::Supply0 || type->kind == Kw::Supply1))
        advance();
    if (tok_.is_word("signed") || tok_.is_word("unsigned")) advance();
    Range range;
    const bool is_vector = tok_.is('[');
    if (is_vector) range = parse_range();
    for (;;) {
        if (!tok_.is_name()) expected("a port name in the '" + kw + "' declaration");
        const std::string_view name = tok_.text();
        if (m.ansi)
            fail_at(tok_, "'" + std::string(name) +
                              "' is declared in the ANSI port list of module '" +
                              std::string(m.name) + "'; it cannot be declared again");
        const NameId pid = m.port_names.find(name);
        if (pid == kNoName)
            fail_at(tok_, "'" + std::string(name) + "' is not in the port list of module '" +
                              std::string(m.name) + "'");
        PortDecl& p = m.ports[pid];
        if (p.has_dir) fail_at(tok_, "port '" + std::string(name) + "' is declared twice");
        p.dir = dir;
        p.has_dir = true;
        p.offset = offset(tok_);
        if (is_vector) p.vector = declare_vector(m, name, range, tok_);
        advance();
        if (tok_.is(',')) {
            advance();
            continue;
        }
        if (!tok_.is(';')) expected("',' or ';' in the '" + kw + "' declaration");
        advance();
        return;
    }
}

void Reader::parse_net_declaration(ModuleDef& m, Kw kind)
{
    const std::string kw(tok_.text());
    advance();
    if (tok_.is('(')) skip_balanced(); // drive or charge strength
    if (tok_.is_word("vectored") || tok_.is_word("scalared")) advance();
    if (tok_.is_word("signed") || tok_.is_word("unsigned")) advance();
    Range range;
    const bool is_vector = tok_.is('[');
    if (is_vector) range = parse_range();
    if (tok_.is('#')) skip_delay();
    for (;;) {
        if (!tok_.is_name()) expected("a net name in the '" + kw + "' declaration");
        const Token name_tok = tok_;
        const std::string_view name = tok_.text();
        advance();
        if (tok_.is('[')) { // a memory: nothing a netlist connects
            while (tok_.is('[')) parse_range();
            warn(offset(name_tok), "memory '" + std::string(name) + "' ignored");
        } else {
            if (is_vector) declare_vector(m, name, range, name_tok);
            if (kind == Kw::Supply0 || kind == Kw::Supply1 || tok_.is('=')) {
                lhs_.clear();
                const std::uint32_t vid = find_vector(m, name);
                if (vid == kNone) {
                    lhs_.push_back(scalar_net(m, name));
                } else {
                    const Range r = m.vector_decls[vid].range;
                    materialise_vector(m, vid, offset(name_tok));
                    for (std::uint32_t k = 0; k < r.width(); ++k)
                        lhs_.push_back(vector_bit(m, vid, r.at(k)));
                }
                if (kind != Kw::Net) {
                    const NetId value = kind == Kw::Supply0 ? kConst0 : kConst1;
                    for (NetId b : lhs_) m.constant_ties.push_back({b, value});
                }
                if (tok_.is('=')) { // net declaration assignment: a continuous assign
                    cell_offset_ = offset(name_tok);
                    advance();
                    deferred_.clear();
                    parse_rhs(m);
                }
            }
        }
        if (tok_.is(',')) {
            advance();
            continue;
        }
        if (!tok_.is(';')) expected("',' or ';' in the '" + kw + "' declaration");
        advance();
        return;
    }
}

void Reader::parse_assign(ModuleDef& m)
{
    advance(); // 'assign'
    if (tok_.is('(')) skip_balanced(); // drive strength
    if (tok_.is('#')) skip_delay();
    for (;;) {
        const Token start = tok_;
        cell_offset_ = offset(start);
        lhs_.clear();
        deferred_.clear();
        if (!(tok_.is_name() && peek().is('=') && defer_plain_name(m, lhs_, true)))
            parse_net_expr(m, lhs_);
        for (NetId b : lhs_)
            if (!is_net(b) && b != kUnmapped)
                fail_at(start, "expected a net on the left side of '='");
        if (!tok_.is('=')) expected("'=' in the assignment");
        advance();
        parse_rhs(m);
        if (tok_.is(',')) {
            advance();
            continue;
        }
        if (!tok_.is(';')) expected("';' after the assignment");
        advance();
        return;
    }
}

void Reader::parse_gate(ModuleDef& m, Gate gate)
{
    const Token kw = tok_;
    if (!gate_types_ready_) {
        for (std::size_t i = 0; i < gate_type_.size(); ++i) gate_type_[i] = type_id(kGateTypes[i]);
        gate_types_ready_ = true;
    }
    const std::uint32_t type = gate_type_[static_cast<std::size_t>(gate)];
    advance();
    if (tok_.is('(') && is_strength(peek())) skip_balanced();
    if (tok_.is('#')) skip_delay();
    if (is_switch(gate) && m.switch_offset == kNoOffset) m.switch_offset = offset(kw);
    for (;;) {
        cell_offset_ = offset(tok_);
        NameId name = kNoName;
        if (tok_.is_name()) {
            name = c_.names.add_unindexed(tok_.text());
            advance();
            if (tok_.is('[')) fail_at(tok_, "arrays of instances are not supported");
        }
        if (!tok_.is('('))
            expected("'(' with the terminals of the '" + std::string(kw.text()) + "' gate");
        advance();
        const std::uint32_t first = static_cast<std::uint32_t>(m.pins.size());
        for (;;) {
            if (tok_.is(',') || tok_.is(')'))
                expected("a terminal of the '" + std::string(kw.text()) + "' gate");
            const Token at = tok_;
            bits_.clear();
            parse_net_expr(m, bits_);
            if (bits_.size() != 1) {
                const bool constant = std::all_of(bits_.begin(), bits_.end(), is_const);
                if (!constant || bits_.empty())
                    fail_at(at, "expected a 1-bit terminal for the '" + std::string(kw.text()) +
                                    "' gate, found " + std::to_string(bits_.size()) + " bits");
            }
            m.pins.push_back(Pin{bits_.back(), kNoName, Direction::Input, false});
            if (tok_.is(',')) {
                advance();
                continue;
            }
            if (!tok_.is(')'))
                expected("',' or ')' after a terminal of the '" + std::string(kw.text()) +
                         "' gate");
            advance();
            break;
        }
        const std::uint32_t n = static_cast<std::uint32_t>(m.pins.size()) - first;
        Pin* pins = m.pins.data() + first;
        auto arity = [&](std::uint32_t lo, std::uint32_t hi) {
            if (n < lo || n > hi) {
                std::string want = lo == hi ? std::to_string(lo) : "at least " + std::to_string(lo);
                fail_at(kw, "expected " + want + " terminals for the '" + std::string(kw.text()) +
                                "' gate, found " + std::to_string(n));
            }
        };
        switch (gate) {
        case Gate::And: case Gate::Nand: case Gate::Or: case Gate::Nor: case Gate::Xor:
        case Gate::Xnor:
            arity(2, kNone);
            pins[0].dir = Direction::Output;
            break;
        case Gate::Buf:
        case Gate::Not:
            arity(2, kNone);
            for (std::uint32_t i = 0; i + 1 < n; ++i) pins[i].dir = Direction::Output;
            break;
        case Gate::Bufif0: case Gate::Bufif1: case Gate::Notif0: case Gate::Notif1:
        case Gate::Nmos: case Gate::Pmos: case Gate::Rnmos: case Gate::Rpmos:
            arity(3, 3);
            pins[0].dir = Direction::Output;
            break;
        case Gate::Cmos:
        case Gate::Rcmos:
            arity(4, 4);
            pins[0].dir = Direction::Output;
            break;
        case Gate::Tran:
        case Gate::Rtran:
            arity(2, 2);
            pins[0].dir = pins[1].dir = Direction::InOut;
            break;
        case Gate::Tranif0: case Gate::Tranif1: case Gate::Rtranif0: case Gate::Rtranif1:
            arity(3, 3);
            pins[0].dir = pins[1].dir = Direction::InOut;
            break;
        case Gate::Pullup:
        case Gate::Pulldown:
            arity(1, kNone);
            for (std::uint32_t i = 0; i < n; ++i) pins[i].dir = Direction::Output;
            break;
        case Gate::Count: break;
        }
        add_cell(m, Cell{name, type, first, n, CellKind::Logic, 0});
        m.has_instances = true;
        if (tok_.is(',')) {
            advance();
            continue;
        }
        if (!tok_.is(';')) expected("',' or ';' after the '" + std::string(kw.text()) + "' gate");
        advance();
        return;
    }
}

void Reader::parse_instances(ModuleDef& m)
{
    const std::string_view type_name = tok_.text();
    const std::uint32_t type = type_id(type_name);
    type_is_module_[type] = 1;
    advance();
    if (tok_.is('#')) { // parameter values: not evaluated, the instance keeps its type name
        if (!warned_parameters_)
            warn(offset(tok_), "instance parameters are ignored (first seen on '" +
                                   std::string(type_name) + "')");
        warned_parameters_ = true;
        skip_delay();
    }
    for (;;) {
        if (!tok_.is_name()) {
            if (tok_.is('=') || tok_.is_op(sym("<=")) || tok_.is('['))
                expected("an instance name after '" + std::string(type_name) +
                         "' (procedural code must be inside an always block)");
            expected("an instance name after the module name '" + std::string(type_name) + "'");
        }
        const Token inst = tok_;
        advance();
        if (tok_.is('[')) fail_at(tok_, "arrays of instances are not supported");
        if (!tok_.is('('))
            expected("'(' with the connections of instance '" + std::string(inst.text()) + "'");
        advance();
        const std::uint32_t first = static_cast<std::uint32_t>(m.pins.size());
        pending_.clear();
        conn_bits_.clear();
        if (tok_.is('.')) parse_named_connections(m);
        else if (!tok_.is(')')) parse_positional_connections(m);
        if (!tok_.is(')'))
            expected("')' to close the connections of instance '" + std::string(inst.text()) + "'");
        advance();
        emit_connections(m);
        cell_offset_ = offset(inst);
        add_cell(m, Cell{c_.names.add_unindexed(inst.text()), type, first,
                         static_cast<std::uint32_t>(m.pins.size()) - first, CellKind::Instance,
                         0});
        // 32 bits from the module's start: a module of 4 GiB would not fit in memory anyway
        m.instance_offsets.push_back(static_cast<std::uint32_t>(offset(inst) - m.offset));
        m.instance_hashes.push_back(static_cast<std::uint32_t>(NamePool::hash(inst.text())));
        m.has_instances = true;
        if (tok_.is(',')) {
            advance();
            continue;
        }
        if (!tok_.is(';')) expected("';' after instance '" + std::string(inst.text()) + "'");
        advance();
        return;
    }
}

void Reader::read_connection(ModuleDef& m, NameId pin)
{
    if (tok_.is_name() && peek().is(')') && find_vector(m, tok_.text()) == kNone) {
        const std::string_view name = tok_.text();
        const std::uint32_t h = NameTable::hash(name);
        m.nets.prefetch(h);
        pending_.push_back({pin, h, name, 0, 0});
        advance();
        return;
    }
    const auto first = static_cast<std::uint32_t>(conn_bits_.size());
    parse_net_expr(m, conn_bits_);
    pending_.push_back({pin, 0, {}, first, static_cast<std::uint32_t>(conn_bits_.size()) - first});
}

void Reader::parse_named_connections(ModuleDef& m)
{
    for (;;) {
        if (!tok_.is('.'))
            expected("'.' to start a named connection (named and positional connections cannot "
                     "be mixed)");
        advance();
        if (!tok_.is_name()) expected("a pin name after '.'");
        const NameId pin = pin_id(tok_.text());
        advance();
        if (!tok_.is('(')) expected("'(' after the pin name");
        advance();
        if (tok_.is(')')) pending_.push_back({pin, 0, {}, 0, 0});
        else read_connection(m, pin);
        if (!tok_.is(')'))
            expected("')' to close the connection of pin '" + std::string(c_.names.view(pin)) +
                     "'");
        advance();
        if (!tok_.is(',')) return;
        advance();
    }
}

void Reader::parse_positional_connections(ModuleDef& m)
{
    for (;;) {
        if (tok_.is(',') || tok_.is(')')) {
            pending_.push_back({kNoName, 0, {}, 0, 0});
        } else {
            if (tok_.is('.')) fail_at(tok_, "named and positional connections cannot be mixed");
            read_connection(m, kNoName);
        }
        if (!tok_.is(',')) return;
        advance();
    }
}

void Reader::emit_connections(ModuleDef& m)
{
    for (const PendingConnection& c : pending_) {
        if (!c.name.empty()) {
            const NetId net = m.nets.intern(c.name, c.hash);
            m.pins.push_back(Pin{net, c.pin, Direction::Unknown, false});
        } else {
            add_connection(m, c.pin, conn_bits_.data() + c.first, c.count);
        }
    }
    pending_.clear();
    conn_bits_.clear();
}

void Reader::add_connection(ModuleDef& m, NameId pin, const NetId* bits, std::size_t count)
{
    if (count == 1) {
        m.pins.push_back(Pin{bits[0], pin, Direction::Unknown, false});
        return;
    }
    if (count == 0) { // `.A()` or an empty positional connection
        m.pins.push_back(Pin{kNoNet, pin, Direction::Unknown, false});
        return;
    }
    m.wide.push_back(
        {static_cast<std::uint32_t>(m.pins.size()), static_cast<std::uint32_t>(count)});
    for (std::size_t i = 0; i < count; ++i)
        m.pins.push_back(Pin{bits[i], pin, Direction::Unknown, false});
}

void Reader::finish_module(ModuleDef& m)
{
    m.port_bit_start.reserve(m.ports.size() + 1);
    for (PortDecl& p : m.ports) {
        if (!p.has_dir)
            src_.fail(p.offset, "port '" + std::string(p.name) + "' of module '" +
                                    std::string(m.name) +
                                    "' has no input, output or inout declaration");
        if (p.vector == kNone) p.vector = find_vector(m, p.name);
        m.port_bit_start.push_back(static_cast<std::uint32_t>(m.port_bits.size()));
        if (p.vector == kNone) {
            m.port_bits.push_back(scalar_net(m, p.name));
        } else {
            const Range r = m.vector_decls[p.vector].range;
            materialise_vector(m, p.vector, p.offset); // refused at the port's declaration
            for (std::uint32_t k = 0; k < r.width(); ++k)
                m.port_bits.push_back(vector_bit(m, p.vector, r.at(k)));
        }
    }
    m.port_bit_start.push_back(static_cast<std::uint32_t>(m.port_bits.size()));

    if (m.has_instances) {
        // Aliases: a port bit, then the right side, names the merged net.
        std::vector<std::uint8_t> is_port(m.nets.size(), 0);
        for (NetId b : m.port_bits) is_port[b] = 1;
        for (const SimpleAssign& a : m.simple_assigns) {
            NetId keep = a.rhs, other = a.lhs;
            if (is_net(a.rhs) && is_port[a.lhs] && !is_port[a.rhs]) std::swap(keep, other);
            if (!unite(m.parent, keep, other))
                warn(m.offset, "net '" + std::string(m.nets.view(a.lhs)) + "' of module '" +
                                   std::string(m.name) + "' is tied to two different constants");
        }
    } else {
        // An assign-style module: every assign is a gate, plain ones are buffers and constants.
        const std::uint32_t buf = type_id("BUF");
        for (const SimpleAssign& a : m.simple_assigns) {
            const std::uint32_t first = static_cast<std::uint32_t>(m.pins.size());
            m.pins.push_back(Pin{a.lhs, kNoName, Direction::Output, false});
            if (is_net(a.rhs)) {
                m.pins.push_back(Pin{a.rhs, kNoName, Direction::Input, false});
                m.cells.push_back(Cell{kNoName, buf, first, 2, CellKind::Logic, 0});
            } else {
                m.cells.push_back(Cell{kNoName, type_id(kConstTypes[a.rhs - kConst0]), first, 1,
                                       CellKind::Constant, 0});
            }
            m.cells.back().set_line(a.line);
        }
    }
    for (const SimpleAssign& a : m.constant_ties)
        if (!unite(m.parent, a.rhs, a.lhs))
            warn(m.offset, "net '" + std::string(m.nets.view(a.lhs)) + "' of module '" +
                               std::string(m.name) + "' is tied to two different constants");
    m.simple_assigns = {};
    m.constant_ties = {};
    // Small modules give back what was reserved for the rest of the file. A big one keeps it:
    // reserved pages it never wrote cost nothing, while shrinking would copy it.
    give_back_unused(m.cells);
    give_back_unused(m.pins);
    give_back_unused(m.instance_offsets);
    give_back_unused(m.instance_hashes);
    m.nets.shrink();
}

void Reader::add_cell(ModuleDef& m, Cell cell)
{
    cell.set_line(cell_line());
    m.cells.push_back(cell);
}

// ---------------------------------------------------------------------------------------------
// Skipping

void Reader::skip_balanced()
{
    // At '(' (or '[' / '{'): skips to the matching close, by counting, never by recursion.
    const Token open = tok_;
    std::size_t depth = 0;
    for (;;) {
        if (tok_.kind == TokenKind::End)
            fail_at(tok_, "expected a closing bracket for the '" + std::string(open.text()) +
                              "' on line " + std::to_string(line_of(offset(open))) +
                              ", found the end of the file");
        if (tok_.kind == TokenKind::Symbol) {
            if (tok_.is('(') || tok_.is('[') || tok_.is('{')) {
                ++depth;
            } else if (tok_.is(')') || tok_.is(']') || tok_.is('}')) {
                if (--depth == 0) {
                    advance();
                    return;
                }
            }
        } else if (tok_.is_word("endmodule")) {
            fail_at(tok_, "expected a closing bracket for the '" + std::string(open.text()) +
                              "' on line " + std::to_string(line_of(offset(open))) +
                              " before 'endmodule'");
        }
        advance();
    }
}

void Reader::skip_delay()
{
    advance(); // '#'
    if (tok_.is('(')) {
        skip_balanced();
    } else if (tok_.kind == TokenKind::Number || tok_.is_name()) {
        advance();
    } else {
        expected("a delay or parameter value after '#'");
    }
}

void Reader::skip_to_semicolon(const Token& start)
{
    std::size_t depth = 0;
    for (;;) {
        if (tok_.kind == TokenKind::End || (depth == 0 && tok_.is_word("endmodule")))
            expected("';' to end the '" + std::string(start.text()) + "' statement of line " +
                     std::to_string(line_of(offset(start))));
        if (tok_.is('(') || tok_.is('[') || tok_.is('{')) {
            ++depth;
        } else if (tok_.is(')') || tok_.is(']') || tok_.is('}')) {
            if (depth == 0)
                expected("';' to end the '" + std::string(start.text()) + "' statement");
            --depth;
        } else if (depth == 0 && tok_.is(';')) {
            advance();
            return;
        }
        advance();
    }
}

void Reader::skip_block(const Token& start, std::string_view end_word)
{
    for (;;) {
        if (tok_.kind == TokenKind::End)
            expected("'" + std::string(end_word) + "' to close the '" + std::string(start.text()) +
                     "' of line " + std::to_string(line_of(offset(start))));
        if (tok_.kind == TokenKind::Identifier) {
            if (tok_.text() == end_word) {
                advance();
                return;
            }
            if (tok_.text() == "endmodule" || tok_.text() == "module")
                expected("'" + std::string(end_word) + "' to close the '" +
                         std::string(start.text()) + "' of line " +
                         std::to_string(line_of(offset(start))));
        }
        advance();
    }
}

void Reader::skip_behaviour(ModuleDef& m, const Token& start)
{
    // A procedural statement: `always @(...) begin ... end`, `initial x = 0;`, `if (c) a; else
    // b;`. Counts begin/end-like keywords and brackets; the statement ends at a ';' or a block end
    // at depth 0 that is not followed by `else`.
    const bool is_keyword_start = start.is_word("always") || start.is_word("initial") ||
                                  start.is_word("final") || start.text().substr(0, 7) == "always_";
    if (is_keyword_start) advance();
    std::size_t blocks = 0, brackets = 0;
    for (;;) {
        bool statement_end = false;
        if (tok_.kind == TokenKind::End)
            expected("the end of the '" + std::string(start.text()) + "' statement of line " +
                     std::to_string(line_of(offset(start))) + " ('end' or ';')");
        if (tok_.kind == TokenKind::Identifier) {
            const std::string_view w = tok_.text();
            if (w == "endmodule" || w == "module")
                expected("the end of the '" + std::string(start.text()) + "' statement of line " +
                         std::to_string(line_of(offset(start))) + " ('end' or ';')");
            if (w == "posedge") m.has_posedge = true;
            if (w == "begin" || w == "fork" || w == "case" || w == "casex" || w == "casez" ||
                w == "randcase") {
                ++blocks;
            } else if (w == "end" || w == "join" || w == "join_any" || w == "join_none" ||
                       w == "endcase") {
                if (blocks == 0)
                    fail_at(tok_, "unexpected '" + std::string(w) + "' without a matching 'begin'");
                --blocks;
                statement_end = blocks == 0 && brackets == 0;
            }
        } else if (tok_.kind == TokenKind::Symbol) {
            if (tok_.is('(') || tok_.is('[') || tok_.is('{')) {
                ++brackets;
            } else if (tok_.is(')') || tok_.is(']') || tok_.is('}')) {
                if (brackets == 0) fail_at(tok_, "unbalanced '" + std::string(tok_.text()) + "'");
                --brackets;
            } else if (tok_.is(';')) {
                statement_end = blocks == 0 && brackets == 0;
            }
        }
        advance();
        if (statement_end) {
            if (!tok_.is_word("else")) return;
            advance();
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Expressions

Range Reader::parse_range()
{
    const Token open = tok_;
    advance(); // '['
    const std::int64_t left = parse_const_int("the left bound of the range");
    if (!tok_.is(':')) expected("':' in the range");
    advance();
    const std::int64_t right = parse_const_int("the right bound of the range");
    if (!tok_.is(']')) expected("']' to close the range");
    advance();
    const std::int64_t width = (left > right ? left - right : right - left) + 1;
    if (width > kMaxRangeWidth)
        fail_at(open,
                "range [" + std::to_string(left) + ":" + std::to_string(right) + "] is too wide");
    return Range{static_cast<std::int32_t>(left), static_cast<std::int32_t>(right)};
}

/// Value of a number token without x/z digits; false when it has none or is too big.
bool integer_value(std::string_view text, std::int64_t& value)
{
    std::size_t q = text.find('\'');
    int base = 10;
    std::string_view digits = text;
    if (q != std::string_view::npos) {
        std::size_t b = q + 1;
        if (b < text.size() && (text[b] == 's' || text[b] == 'S')) ++b;
        if (b >= text.size()) return false;
        switch (text[b]) {
        case 'b': case 'B': base = 2; break;
        case 'o': case 'O': base = 8; break;
        case 'd': case 'D': base = 10; break;
        case 'h': case 'H': base = 16; break;
        default: return false;
        }
        digits = text.substr(b + 1);
    }
    std::uint64_t v = 0;
    bool any = false;
    for (char ch : digits) {
        int d;
        if (ch >= '0' && ch <= '9') d = ch - '0';
        else if (ch >= 'a' && ch <= 'f') d = ch - 'a' + 10;
        else if (ch >= 'A' && ch <= 'F') d = ch - 'A' + 10;
        else if (ch == '_' || ch == ' ' || ch == '\t') continue;
        else return false;
        if (d >= base) return false;
        if (v > (std::uint64_t(1) << 56)) return false;
        v = v * static_cast<std::uint64_t>(base) + static_cast<std::uint64_t>(d);
        any = true;
    }
    if (!any || v > (std::uint64_t(1) << 40)) return false;
    value = static_cast<std::int64_t>(v);
    return true;
}

std::int64_t Reader::parse_const_int(const char* what)
{
    std::int64_t total = 0;
    int sign = 1;
    for (;;) {
        if (tok_.is('-') || tok_.is('+')) {
            if (tok_.is('-')) sign = -sign;
            advance();
        }
        std::int64_t v = 0;
        if (tok_.kind != TokenKind::Number)
            expected(std::string(what) + " (a number; parameters are not evaluated)");
        if (!integer_value(tok_.text(), v)) expected(std::string(what) + " (a plain integer)");
        advance();
        total += sign * v;
        if (total > (std::int64_t(1) << 31) - 1 || total < -(std::int64_t(1) << 31))
            expected(std::string(what) + " within 32 bits");
        if (!(tok_.is('+') || tok_.is('-'))) return total;
        sign = tok_.is('-') ? -1 : 1;
        advance();
    }
}

void Reader::append_constant(const Token& t, std::vector<NetId>& out)
{
    // Bits go out most significant first. An unsized literal is given the bits its value needs:
    // it is zero-extended where it meets a wider net, the way Verilog extends it.
    const std::string_view text = t.text();
    const std::size_t q = text.find('\'');
    if (q == std::string_view::npos) {
        if (text.find_first_of(".eE") != std::string_view::npos)
            fail_at(t, "expected an integer constant, found a real number");
        std::int64_t v = 0;
        if (!integer_value(text, v)) fail_at(t, "constant " + std::string(text) + " is too large");
        std::uint32_t width = 1;
        while (width < 63 && (v >> width) != 0) ++width;
        for (std::uint32_t i = width; i-- > 0;) out.push_back((v >> i) & 1 ? kConst1 : kConst0);
        return;
    }
    std::size_t width = 0;
    bool sized = false;
    for (std::size_t i = 0; i < q; ++i) {
        const char ch = text[i];
        if (ch >= '0' && ch <= '9') {
            width = width * 10 + static_cast<std::size_t>(ch - '0');
            sized = true;
            if (width > kMaxBits) fail_at(t, "constant '" + std::string(text) + "' is too wide");
        }
    }
    if (sized && width == 0) fail_at(t, "expected a constant width of at least 1");
    std::size_t b = q + 1;
    if (b < text.size() && (text[b] == 's' || text[b] == 'S')) ++b;
    const char base = b < text.size() ? static_cast<char>(text[b] | 0x20) : '0';
    auto code = [](char ch) -> std::uint8_t {
        switch (ch) {
        case '0': return 0;
        case '1': return 1;
        case 'x': case 'X': return 2;
        default: return 3; // z Z ?
        }
    };
    const_bits_.clear(); // least significant first
    if (base != 'b' && base != 'o' && base != 'h' && base != 'd') {
        // a fill literal '0 '1 'x 'z: one bit, extended like an unsized constant
        const_bits_.push_back(code(text[b]));
    } else {
        const std::string_view digits = text.substr(b + 1);
        if (base == 'd') {
            std::int64_t v = 0;
            char xz = 0;
            for (char ch : digits)
                if (ch == 'x' || ch == 'X' || ch == 'z' || ch == 'Z' || ch == '?') xz = ch;
            if (xz) {
                const_bits_.push_back(code(xz));
            } else {
                if (!integer_value(text.substr(b + 1), v))
                    fail_at(t, "decimal constant '" + std::string(text) + "' is too large");
                do {
                    const_bits_.push_back(static_cast<std::uint8_t>(v & 1));
                    v >>= 1;
                } while (v);
            }
        } else {
            const int per_digit = base == 'b' ? 1 : base == 'o' ? 3 : 4;
            for (std::size_t i = digits.size(); i-- > 0;) {
                const char ch = digits[i];
                if (ch == '_' || ch == ' ' || ch == '\t') continue;
                int v;
                if (ch >= '0' && ch <= '9') v = ch - '0';
                else if (ch >= 'a' && ch <= 'f') v = ch - 'a' + 10;
                else if (ch >= 'A' && ch <= 'F') v = ch - 'A' + 10;
                else {
                    for (int k = 0; k < per_digit; ++k) const_bits_.push_back(code(ch));
                    continue;
                }
                if (v >= (1 << per_digit))
                    fail_at(t, "digit '" + std::string(1, ch) + "' is not valid in this base");
                for (int k = 0; k < per_digit; ++k)
                    const_bits_.push_back(static_cast<std::uint8_t>((v >> k) & 1));
                if (const_bits_.size() > kMaxBits)
                    fail_at(t, "constant '" + std::string(text) + "' is too wide");
            }
        }
    }
    if (sized) {
        const std::uint8_t fill = const_bits_.back() >= 2 ? const_bits_.back() : 0;
        const_bits_.resize(width, fill);
    }
    static constexpr NetId kCodes[] = {kConst0, kConst1, kConstX, kConstZ};
    for (std::size_t i = const_bits_.size(); i-- > 0;) out.push_back(kCodes[const_bits_[i]]);
}

void Reader::replicate(std::vector<NetId>& out, std::size_t start, std::uint32_t times,
                       const Token& at)
{
    const std::size_t n = out.size() - start;
    if (times == 0) {
        out.resize(start);
        return;
    }
    if (n * times > kMaxBits) fail_at(at, "replication is too large");
    spend_bits(n * (times - 1), at);
    out.reserve(start + n * times);
    for (std::uint32_t r = 1; r < times; ++r)
        for (std::size_t i = 0; i < n; ++i) out.push_back(out[start + i]);
}

void Reader::spend_bits_at(std::size_t bits, std::size_t at)
{
    if (bits > bits_left_)
        src_.fail(at, "the netlist expands to far more bits than its size suggests (a huge "
                      "replication or bus?)");
    bits_left_ -= bits;
}

void Reader::parse_primary(ModuleDef& m, std::vector<NetId>& out)
{
    if (tok_.kind == TokenKind::Number) {
        append_constant(tok_, out);
        advance();
        return;
    }
    if (!tok_.is_name()) expected("a net name, a constant or '{'");
    const Token name_tok = tok_;
    const std::string_view name = tok_.text();
    advance();
    if (!tok_.is('[')) {
        const std::uint32_t vid = find_vector(m, name);
        if (vid == kNone) {
            out.push_back(scalar_net(m, name));
        } else {
            const Range r = m.vector_decls[vid].range;
            spend_bits(r.width(), name_tok);
            for (std::uint32_t k = 0; k < r.width(); ++k)
                out.push_back(vector_bit(m, vid, r.at(k)));
        }
        return;
    }
    // bit-select, part-select or indexed part-select
    advance();
    std::int64_t from = parse_const_int("a bit index");
    std::int64_t to = from;
    if (tok_.is(':')) {
        advance();
        to = parse_const_int("the right bound of the part-select");
    } else if (tok_.is_op(sym("+:")) || tok_.is_op(sym("-:"))) {
        const bool up = tok_.is_op(sym("+:"));
        advance();
        const std::int64_t width = parse_const_int("the width of the part-select");
        if (width < 1 || width > kMaxRangeWidth) fail_at(name_tok, "invalid part-select width");
        const std::uint32_t vid = find_vector(m, name);
        const bool descending =
            vid == kNone || m.vector_decls[vid].range.left >= m.vector_decls[vid].range.right;
        const std::int64_t base = from;
        const std::int64_t lo = up ? base : base - width + 1, hi = up ? base + width - 1 : base;
        from = descending ? hi : lo;
        to = descending ? lo : hi;
    }
    if (!tok_.is(']')) expected("']' to close the select of '" + std::string(name) + "'");
    advance();
    if (tok_.is('[')) fail_at(tok_, "selects of more than one dimension are not supported");
    if ((from > to ? from - to : to - from) >= kMaxRangeWidth)
        fail_at(name_tok, "part-select is too wide");
    const std::uint32_t vid = find_vector(m, name);
    const std::int64_t step = from <= to ? 1 : -1;
    spend_bits(static_cast<std::size_t>(step > 0 ? to - from : from - to) + 1, name_tok);
    if (vid == kNone) {
        // Not declared as a vector (an implicit net): the bits are the names "name[i]".
        if (!m.warned_bit_select)
            warn(offset(name_tok), "select of '" + std::string(name) +
                                       "', which is not declared as a vector in module '" +
                                       std::string(m.name) + "'");
        m.warned_bit_select = true;
        for (std::int64_t i = from;; i += step) {
            scratch_.assign(name);
            scratch_ += '[';
            append_int(scratch_, i);
            scratch_ += ']';
            const std::size_t known = m.nets.size();
            out.push_back(scalar_net(m, scratch_));
            if (m.nets.size() != known) m.undeclared_bits.push_back(out.back()); // ascending
            if (i == to) break;
        }
        return;
    }
    const Range r = m.vector_decls[vid].range;
    if (!r.contains(from) || !r.contains(to)) {
        std::string sel =
            "[" + std::to_string(from) + (from == to ? "" : ":" + std::to_string(to)) + "]";
        fail_at(name_tok, "select " + std::string(name) + sel + " is outside the declared range [" +
                              std::to_string(r.left) + ":" + std::to_string(r.right) + "]");
    }
    for (std::int64_t i = from;; i += step) {
        out.push_back(vector_bit(m, vid, i));
        if (i == to) break;
    }
}

void Reader::parse_net_expr(ModuleDef& m, std::vector<NetId>& out)
{
    // Nets, constants, concatenations and replications; nesting is kept on an explicit stack.
    braces_.clear();
    for (;;) {
        if (tok_.is('{')) {
            const Token open = tok_;
            advance();
            if (braces_.size() >= kMaxNesting)
                fail_at(open, "concatenations are nested too deeply");
            if (tok_.kind == TokenKind::Number && peek().is('{')) {
                std::int64_t times = 0;
                if (!integer_value(tok_.text(), times) ||
                    times > static_cast<std::int64_t>(kMaxBits))
                    fail_at(tok_, "expected a replication count (a plain integer)");
                advance();
                advance();
                braces_.push_back({static_cast<std::uint32_t>(out.size()), 0,
                                   static_cast<std::uint32_t>(times), true, true});
            } else {
                braces_.push_back({static_cast<std::uint32_t>(out.size()), 0, 1, false, true});
            }
            continue;
        }
        parse_primary(m, out);
        if (out.size() > kMaxBits) fail_at(tok_, "expression is too wide");
        for (;;) {
            if (braces_.empty()) return;
            if (tok_.is(',')) {
                advance();
                break;
            }
            if (!tok_.is('}')) expected("',' or '}' in the concatenation");
            const Token close = tok_;
            advance();
            const BraceFrame f = braces_.back();
            braces_.pop_back();
            if (f.replication) {
                if (!tok_.is('}')) expected("'}' to close the replication");
                advance();
                replicate(out, f.bits_start, f.repeat, close);
            }
        }
    }
}

void Reader::parse_rhs(ModuleDef& m)
{
    const std::vector<NetId>& lhs = lhs_; // complete once resolve_deferred ran
    // A flat scan of the right side: the operands in order (a pin each), which binary operators
    // occur, and whether an operand is directly under '~'. Enough to type a gate without a tree.
    enum : std::uint8_t { kAnd = 1, kOr = 2, kXor = 4, kXnor = 8 };
    rhs_bits_.clear();
    operands_.clear();
    braces_.clear();
    std::uint8_t ops = 0;
    bool other = false, any_invert = false, outer_not = false, outer_pending = false;
    // `!` is a logical NOT: on one bit it is `~`, on a vector it reduces the vector to one bit.
    bool prev_operand = false, invert_next = false, logical_next = false;
    std::size_t parens = 0;
    if (tok_.is(';') || tok_.is(',')) expected("an expression after '='");
    if (tok_.is('~') && peek().is('(')) {
        advance();
        outer_pending = true;
        any_invert = true;
    }
    auto operand_start = [&]() {
        if (prev_operand) expected("an operator or ';' after the operand");
        if (!braces_.empty()) braces_.back().fresh = false;
    };
    for (;;) {
        if (parens == 0 && braces_.empty() && (tok_.is(';') || tok_.is(','))) break;
        switch (tok_.kind) {
        case TokenKind::End: expected("';' to end the assignment");
        case TokenKind::Identifier:
        case TokenKind::Escaped: {
            operand_start();
            if (peek().is('(')) { // a function call: the name is no net
                other = true;
                invert_next = logical_next = false;
                advance();
                continue;
            }
            const std::uint32_t first = static_cast<std::uint32_t>(rhs_bits_.size());
            // Inside braces a replication may copy bits: those are resolved on the spot.
            if (!(braces_.empty() && !peek().is('[') && defer_plain_name(m, rhs_bits_, false)))
                parse_primary(m, rhs_bits_);
            operands_.push_back(
                {first, static_cast<std::uint32_t>(rhs_bits_.size()) - first, invert_next, false});
            if (logical_next && operands_.back().count != 1) other = true;
            invert_next = logical_next = false;
            prev_operand = true;
            continue;
        }
        case TokenKind::Number: {
            if (!braces_.empty() && braces_.back().fresh && peek().is('{')) {
                std::int64_t times = 0;
                if (!integer_value(tok_.text(), times) ||
                    times > static_cast<std::int64_t>(kMaxBits))
                    fail_at(tok_, "expected a replication count (a plain integer)");
                braces_.back().replication = true;
                braces_.back().repeat = static_cast<std::uint32_t>(times);
                braces_.back().fresh = false;
                advance(); // count; the inner '{' is consumed next
                advance();
                continue;
            }
            operand_start();
            if (invert_next) other = true;
            invert_next = logical_next = false;
            const std::uint32_t first = static_cast<std::uint32_t>(rhs_bits_.size());
            append_constant(tok_, rhs_bits_);
            operands_.push_back(
                {first, static_cast<std::uint32_t>(rhs_bits_.size()) - first, false, true});
            prev_operand = true;
            break;
        }
        case TokenKind::System:
            operand_start();
            other = true;
            prev_operand = !peek().is('('); // `$time` is an operand, `$signed(` a call
            break;
        case TokenKind::String:
            operand_start();
            other = true;
            prev_operand = true;
            break;
        case TokenKind::Symbol:
            switch (tok_.op) {
            case '(':
                operand_start();
                ++parens;
                break;
            case ')':
                if (parens == 0) fail_at(tok_, "unbalanced ')' in the expression");
                if (!prev_operand) expected("an operand before ')'");
                --parens;
                if (outer_pending && parens == 0) {
                    outer_pending = false;
                    const Token& next = peek();
                    if (braces_.empty() && (next.is(';') || next.is(','))) outer_not = true;
                    else other = true;
                }
                prev_operand = true;
                break;
            case '{':
                operand_start();
                if (braces_.size() >= kMaxNesting)
                    fail_at(tok_, "concatenations are nested too deeply");
                braces_.push_back({static_cast<std::uint32_t>(rhs_bits_.size()),
                                   static_cast<std::uint32_t>(operands_.size()), 1, false, true});
                break;
            case '}': {
                if (braces_.empty()) fail_at(tok_, "unbalanced '}' in the expression");
                if (!prev_operand) expected("an operand before '}'");
                const Token close = tok_;
                const BraceFrame f = braces_.back();
                braces_.pop_back();
                if (f.replication) {
                    advance();
                    if (!tok_.is('}')) expected("'}' to close the replication");
                    // Operands are not duplicated: pins stand for occurrences in the text.
                    replicate(rhs_bits_, f.bits_start, f.repeat, close);
                    other = other || f.repeat != 1;
                }
                prev_operand = true;
                break;
            }
            case ',':
                if (!prev_operand) expected("an operand before ','");
                prev_operand = false;
                break;
            case '~':
            case '!':
                operand_start();
                any_invert = true;
                if (peek().is_name()) {
                    invert_next = true;
                    logical_next = tok_.is('!');
                } else {
                    other = true;
                }
                break;
            case '&':
            case '|':
            case '^':
                if (prev_operand) ops |= tok_.is('&') ? kAnd : tok_.is('|') ? kOr : kXor;
                else other = true; // a reduction
                prev_operand = false;
                break;
            case sym("~^"):
            case sym("^~"):
                if (prev_operand) ops |= kXnor;
                else other = true;
                prev_operand = false;
                break;
            case '[':
            case ']':
            case ';':
            case '=':
            case '.':
            case '#':
            case '@':
                expected("an expression");
            default: // arithmetic, shifts, comparisons, ?:, reductions ~& ~|
                if (prev_operand || tok_.is('-') || tok_.is('+') || tok_.is_op(sym("~&")) ||
                    tok_.is_op(sym("~|"))) {
                    other = true;
                    prev_operand = false;
                    break;
                }
                expected("an operand");
            }
            break;
        }
        advance();
    }
    if (!prev_operand) expected("an operand before " + verilog::describe(tok_));
    resolve_deferred(m);

    const bool has_const = std::any_of(operands_.begin(), operands_.end(),
                                       [](const Operand& o) { return o.constant; });
    if (!other && ops == 0 && !any_invert) {
        // A plain right side: aliases (or buffers and constants), bit by bit, aligned at the LSB.
        const std::size_t w = lhs.size(), r = rhs_bits_.size();
        const int line = cell_line();
        for (std::size_t k = 0; k < w; ++k) {
            const NetId rhs = k < r ? rhs_bits_[r - 1 - k] : kConst0;
            m.simple_assigns.push_back({lhs[w - 1 - k], rhs, line});
        }
        return;
    }

    std::string_view type = "EXPR";
    if (!other && !has_const) {
        const int kinds = std::popcount(static_cast<unsigned>(ops));
        if (kinds == 0 && operands_.size() == 1 && (operands_[0].inverted != outer_not)) {
            type = "NOT";
        } else if (kinds == 1 && operands_.size() >= 2) {
            static constexpr std::string_view kPlain[] = {"AND", "OR", "XOR", "XNOR"};
            static constexpr std::string_view kInverted[] = {"NAND", "NOR", "XNOR", "XOR"};
            const int k = std::countr_zero(static_cast<unsigned>(ops));
            type = outer_not ? kInverted[k] : kPlain[k];
        }
    }
    // A typed gate per bit when every operand is as wide as the target; otherwise one EXPR gate
    // that reads every operand bit and drives every target bit.
    bool per_bit = type != "EXPR";
    for (const Operand& o : operands_)
        if (o.count != lhs.size()) per_bit = false;
    if (!per_bit) type = "EXPR";
    if (per_bit) {
        for (std::uint32_t bit = 0; bit < lhs.size(); ++bit)
            emit_assign_gate(m, type, lhs, bit, true, type != "NOT");
    } else {
        emit_assign_gate(m, type, lhs, 0, false, true);
    }
}

bool Reader::defer_plain_name(ModuleDef& m, std::vector<NetId>& bits, bool on_lhs)
{
    // At a name that is neither a vector nor followed by a select: keep a placeholder.
    const std::string_view name = tok_.text();
    if (find_vector(m, name) != kNone) return false;
    const std::uint32_t h = NameTable::hash(name);
    m.nets.prefetch(h);
    deferred_.push_back({name, h, static_cast<std::uint32_t>(bits.size()), on_lhs});
    bits.push_back(kUnmapped);
    advance();
    return true;
}

void Reader::resolve_deferred(ModuleDef& m)
{
    for (const DeferredName& d : deferred_)
        (d.on_lhs ? lhs_ : rhs_bits_)[d.index] = m.nets.intern(d.name, d.hash);
    deferred_.clear();
}

void Reader::emit_assign_gate(ModuleDef& m, std::string_view type,
                              const std::vector<NetId>& outputs, std::uint32_t bit, bool per_bit,
                              bool invert_pins)
{
    // A NOT gate already says "complement": its pin is not marked inverted as well.
    const std::uint32_t first = static_cast<std::uint32_t>(m.pins.size());
    if (per_bit) {
        m.pins.push_back(Pin{outputs[bit], kNoName, Direction::Output, false});
        for (const Operand& o : operands_)
            m.pins.push_back(Pin{rhs_bits_[o.first + bit], kNoName, Direction::Input,
                                 invert_pins && o.inverted});
    } else {
        for (NetId out : outputs) m.pins.push_back(Pin{out, kNoName, Direction::Output, false});
        for (const Operand& o : operands_) {
            if (o.constant) continue;
            for (std::uint32_t i = 0; i < o.count; ++i)
                m.pins.push_back(Pin{rhs_bits_[o.first + i], kNoName, Direction::Input,
                                     invert_pins && o.inverted});
        }
        // bits added by replication belong to no operand: they repeat operands already listed
    }
    add_cell(m, Cell{kNoName, type_id(type), first,
                     static_cast<std::uint32_t>(m.pins.size()) - first, CellKind::Logic, 0});
}

// ---------------------------------------------------------------------------------------------
// Elaboration

std::uint32_t Reader::choose_top()
{
    const std::size_t n = modules_.size();
    std::vector<std::uint8_t> instantiated(n, 0);
    for (std::size_t i = 0; i < n; ++i) {
        const ModuleDef& m = *modules_[i];
        std::size_t k = 0;
        for (const Cell& cell : m.cells) {
            if (cell.kind != CellKind::Instance) continue;
            const std::int32_t d = module_of_type_[cell.type];
            if (d == static_cast<std::int32_t>(i))
                src_.fail(m.instance_offset(k), "recursive instantiation: module '" +
                                                     std::string(m.name) + "' instantiates itself");
            if (d >= 0) instantiated[static_cast<std::size_t>(d)] = 1;
            ++k;
        }
    }
    std::vector<std::uint32_t> candidates;
    for (std::uint32_t i = 0; i < n; ++i)
        if (!instantiated[i]) candidates.push_back(i);
    if (candidates.empty())
        src_.fail(modules_.front()->offset,
                  "recursive instantiation: every module is instantiated by "
                  "another, so none can be the top");
    const std::uint32_t top = candidates.back();
    if (candidates.size() > 1) {
        std::string names;
        for (std::uint32_t i : candidates)
            names += (names.empty() ? "'" : ", '") + std::string(modules_[i]->name) + "'";
        warn(kNoOffset, "several modules are instantiated by no other (" + names +
                            "); the last one, '" + std::string(modules_[top]->name) +
                            "', is the top");
    }
    return top;
}

void Reader::refuse_duplicate_instances() const
{
    // Two instances of one name would flatten to nets of one name (u/n), and two leaf cells of
    // one name are two cells a user cannot tell apart; yosys refuses both ("a cell with the same
    // name was already created"). Primitive gates may share names, as yosys lets them.
    // Instance names are not interned (a big flat netlist would pay the index for names never
    // looked up): one open-addressing table of instance + 1 per module, placed by the hashes
    // taken while parsing; names are compared only when hashes agree. Its 4-byte slots keep
    // the pages it touches few.
    static constexpr std::size_t kAhead = 16; // slots prefetched ahead of their insertion
    std::vector<std::uint32_t> table;
    std::vector<std::uint32_t> cell_of; // instance -> its cell, made at the first hash match
    for (const auto& owned : modules_) {
        const ModuleDef& m = *owned;
        const std::vector<std::uint32_t>& hashes = m.instance_hashes;
        if (hashes.size() < 2) continue;
        std::size_t slots = 16;
        while (slots < 2 * hashes.size()) slots *= 2;
        table.assign(slots, 0);
        cell_of.clear();
        const std::size_t mask = slots - 1;
        auto name = [&](std::uint32_t instance) {
            if (cell_of.empty())
                for (std::uint32_t i = 0; i < m.cells.size(); ++i)
                    if (m.cells[i].kind == CellKind::Instance) cell_of.push_back(i);
            return c_.names.view(m.cells[cell_of[instance]].name);
        };
        for (std::uint32_t k = 0; k < hashes.size(); ++k) {
            if (k + kAhead < hashes.size()) __builtin_prefetch(&table[hashes[k + kAhead] & mask]);
            for (std::size_t slot = hashes[k] & mask;; slot = (slot + 1) & mask) {
                if (table[slot] == 0) {
                    table[slot] = k + 1;
                    break;
                }
                const std::uint32_t first = table[slot] - 1;
                if (hashes[first] != hashes[k] || name(first) != name(k)) continue;
                const int first_line = line_of(m.instance_offset(first)); // an error: once
                src_.fail(m.instance_offset(k),
                          "expected a new instance name in module '" + std::string(m.name) +
                              "': '" + std::string(name(k)) +
                              "' already names the instance on line " +
                              std::to_string(first_line));
            }
        }
    }
}

void Reader::check_recursion(std::uint32_t top)
{
    // Depth-first over the module graph with an explicit stack: a module met again while it is
    // still open is a cycle. Netlists can be deep; the C++ stack is never used for it. On the
    // way back, each module learns the pins and instances it flattens to (saturating sums), so
    // that a hierarchy that multiplies without bound is refused before anything is built.
    const std::size_t n = modules_.size();
    const auto add = saturating_add;
    std::vector<std::uint8_t> state(n, 0); // 0 new, 1 open, 2 done
    std::vector<std::uint64_t> pins(n, 0), instances(n, 0);
    struct Visit {
        std::uint32_t module;
        std::uint32_t cell;
        std::uint32_t instance;
        std::uint64_t pins;
        std::uint64_t instances;
    };
    std::vector<Visit> stack{{top, 0, 0, 0, 0}};
    state[top] = 1;
    while (!stack.empty()) {
        Visit& v = stack.back();
        const ModuleDef& m = *modules_[v.module];
        if (v.cell == m.cells.size()) {
            state[v.module] = 2;
            pins[v.module] = v.pins;
            instances[v.module] = v.instances;
            const std::uint32_t done = v.module;
            stack.pop_back();
            if (!stack.empty()) {
                stack.back().pins = add(stack.back().pins, pins[done]);
                stack.back().instances = add(stack.back().instances, add(instances[done], 1));
            }
            continue;
        }
        const Cell& cell = m.cells[v.cell++];
        if (cell.kind != CellKind::Instance) {
            v.pins = add(v.pins, cell.pin_count);
            continue;
        }
        const std::size_t inst_offset = m.instance_offset(v.instance++);
        const std::int32_t d = module_of_type_[cell.type];
        if (d < 0 || is_flip_flop_module_[static_cast<std::size_t>(d)]) {
            v.pins = add(v.pins, d < 0 ? cell.pin_count : modules_[d]->port_bits.size());
            continue;
        }
        const auto child = static_cast<std::uint32_t>(d);
        if (state[child] == 1) {
            std::string path;
            bool on = false;
            for (const Visit& s : stack) {
                if (s.module == child) on = true;
                if (!on) continue;
                path += '\'';
                path += modules_[s.module]->name;
                path += "' -> ";
            }
            src_.fail(inst_offset, "recursive instantiation: " + path + "'" +
                                       std::string(modules_[child]->name) + "'");
        }
        if (state[child] == 2) {
            v.pins = add(v.pins, pins[child]);
            v.instances = add(v.instances, add(instances[child], 1));
        } else {
            state[child] = 1;
            stack.push_back({child, 0, 0, 0, 0}); // invalidates v
        }
    }
    if (pins[top] > flat_limit_ || instances[top] > flat_limit_)
        src_.fail(modules_[top]->offset,
                  "flattening module '" + std::string(modules_[top]->name) +
                      "' gives far more pins or instances than the file's size suggests (a "
                      "hierarchy that multiplies without bound?)");
}

void Reader::collect_groups(const ModuleDef& m, const Cell& cell, std::uint32_t& wide_cursor)
{
    // The connections of a cell: runs of pins, one pin each unless listed as wide.
    groups_.clear();
    const std::uint32_t end = cell.first_pin + cell.pin_count;
    while (wide_cursor < m.wide.size() && m.wide[wide_cursor].first_pin < cell.first_pin)
        ++wide_cursor;
    for (std::uint32_t p = cell.first_pin; p < end;) {
        if (wide_cursor < m.wide.size() && m.wide[wide_cursor].first_pin == p) {
            groups_.push_back(m.wide[wide_cursor]);
            p += m.wide[wide_cursor].width;
            ++wide_cursor;
        } else {
            groups_.push_back({p, 1});
            ++p;
        }
    }
}

std::size_t Reader::connection_offset(std::size_t instance_offset, std::size_t k)
{
    // Re-reads an instance's text to point an error at its k-th connection; errors only.
    DeferredWarnings ignored;
    Lexer lex(src_, ignored, instance_offset);
    Token t;
    lex.next(t); // instance name
    lex.next(t); // '('
    std::size_t depth = 0, index = 0;
    for (;;) {
        lex.next(t);
        if (t.kind == TokenKind::End) return instance_offset;
        if (depth == 0 && index == k && !t.is(',')) return lex.offset(t);
        if (t.is('(') || t.is('{') || t.is('[')) {
            ++depth;
        } else if (t.is(')') || t.is('}') || t.is(']')) {
            if (depth == 0) return lex.offset(t);
            --depth;
        } else if (t.is(',') && depth == 0) {
            ++index;
        }
    }
}

NetId Reader::map_net(Frame& f, NetId local)
{
    if (!is_net(local) || f.map.empty()) return local;
    const NetId r = find_root(f.m->parent, local);
    if (!is_net(r)) return r;
    NetId& slot = f.map[r];
    if (slot == kUnmapped) {
        scratch_.assign(path_, 0, f.prefix_length);
        scratch_ += f.m->nets.view(r);
        slot = gnets_.append(scratch_); // a top-level `\\u1/n ` stays apart from u1's n
        if (slot >= kMaxNets) src_.fail(f.m->offset, "too many nets after flattening");
    }
    return slot;
}

void Reader::connect_ports(Frame& f, ModuleDef& d, std::size_t inst_offset)
{
    // Fills port_conn_ (one entry per port bit of `d`) with the outer nets of the connections
    // listed in groups_ (pins of the current frame's module).
    if (d.port_by_pin.empty() && !d.ports.empty())
        for (std::uint32_t i = 0; i < d.ports.size(); ++i)
            d.port_by_pin.emplace(c_.names.intern(d.ports[i].name), i);
    port_conn_.assign(d.port_bits.size(), kNoNet);
    port_done_.assign(d.ports.size(), 0);
    const Pin* pins = f.m->pins.data();
    for (std::size_t k = 0; k < groups_.size(); ++k) {
        const WideConnection g = groups_[k];
        const NameId pin_name = pins[g.first_pin].name;
        std::uint32_t port;
        if (pin_name != kNoName) {
            auto it = d.port_by_pin.find(pin_name);
            if (it == d.port_by_pin.end())
                src_.fail(connection_offset(inst_offset, k),
                          "module '" + std::string(d.name) + "' has no port named '" +
                              std::string(c_.names.view(pin_name)) + "'");
            port = it->second;
        } else {
            if (k >= d.ports.size())
                src_.fail(connection_offset(inst_offset, k),
                          "too many connections: module '" + std::string(d.name) + "' has " +
                              std::to_string(d.ports.size()) + " port" +
                              (d.ports.size() == 1 ? "" : "s"));
            port = static_cast<std::uint32_t>(k);
            if (g.width == 1 && pins[g.first_pin].net == kNoNet) continue; // left empty: `(a, , b)`
        }
        if (port_done_[port])
            src_.fail(connection_offset(inst_offset, k),
                      "port '" + std::string(d.ports[port].name) + "' of module '" +
                          std::string(d.name) + "' is connected twice");
        port_done_[port] = 1;
        const std::uint32_t pb = d.port_bit_start[port], width = d.port_bit_start[port + 1] - pb;
        const bool unconnected = g.width == 1 && pins[g.first_pin].net == kNoNet;
        if (g.width != width && !unconnected)
            warn(inst_offset, "connection of " + std::to_string(g.width) + " bits to port '" +
                                  std::string(d.ports[port].name) + "' of module '" +
                                  std::string(d.name) + "', which has " + std::to_string(width) +
                                  "; aligned at the least significant bit");
        for (std::uint32_t i = 0; i < std::min(width, g.width); ++i)
            port_conn_[pb + width - 1 - i] = map_net(f, pins[g.first_pin + g.width - 1 - i].net);
    }
}

void Reader::note_module_use(ModuleDef& m)
{
    const std::size_t i = static_cast<std::size_t>(module_of_type_[m.type]);
    if (module_noted_[i]) return;
    module_noted_[i] = 1;
    if (m.behaviour_offset != kNoOffset)
        warn(m.behaviour_offset, "behavioural code of module '" + std::string(m.name) +
                                     "' skipped; nets it assigns have no driver in the netlist");
    if (m.switch_offset != kNoOffset)
        warn(m.switch_offset, "switch-level primitives of module '" + std::string(m.name) +
                                  "' kept as Logic cells; their function is not modelled");
}

NameId Reader::final_type(std::uint32_t type)
{
    if (final_type_.size() <= type) final_type_.resize(types_.size(), kNoName);
    NameId& id = final_type_[type];
    if (id == kNoName) id = c_.names.intern(types_.view(type));
    return id;
}

NameId Reader::prefixed_name(const Frame& f, NameId name)
{
    if (name == kNoName || f.prefix_length == 0) return name;
    scratch_.assign(path_, 0, f.prefix_length);
    scratch_ += c_.names.view(name);
    return c_.names.add_unindexed(scratch_);
}

NameId Reader::dff_type()
{
    if (dff_type_ == kNoName) dff_type_ = c_.names.intern("DFF");
    return dff_type_;
}

void Reader::fix_instance(Cell& cell, Pin* pins, std::size_t inst_offset)
{
    // An instance of an undefined module: the ISCAS `dff` idiom, or a black box. `groups_` holds
    // its connections; pins are numbered relative to `pins`.
    const std::uint32_t base = cell.first_pin;
    ++instances_of_type_[cell.type];
    const std::string_view type = types_.view(cell.type);
    const bool positional = cell.pin_count > 0 && pins[0].name == kNoName;
    bool single_bits = true;
    for (const WideConnection& g : groups_) single_bits = single_bits && g.width == 1;
    if (iequals(type, "dff") &&
        (!positional || ((groups_.size() == 2 || groups_.size() == 3) && single_bits))) {
        cell.kind = CellKind::FlipFlop;
        cell.type = dff_type();
        if (positional) {
            static constexpr std::string_view kTwo[] = {"Q", "D"}, kThree[] = {"CK", "Q", "D"};
            const std::string_view* names = groups_.size() == 2 ? kTwo : kThree;
            for (std::uint32_t i = 0; i < cell.pin_count; ++i) {
                pins[i].name = pin_id(names[i]);
                pins[i].dir = names[i] == "Q" ? Direction::Output : Direction::Input;
            }
        } else {
            for (std::uint32_t i = 0; i < cell.pin_count; ++i) {
                const std::string_view n = c_.names.view(pins[i].name);
                pins[i].dir = !n.empty() && (n[0] == 'Q' || n[0] == 'q') ? Direction::Output
                                                                         : Direction::Input;
            }
        }
        return;
    }
    if (iequals(type, "dff"))
        warn(inst_offset,
             "instance of undefined 'dff' with " + std::to_string(groups_.size()) +
                 " positional connections (expected 2: Q, D or 3: CK, Q, D) kept as a black box");
    cell.kind = CellKind::Instance;
    cell.flags |= kCellBlackBox;
    cell.type = final_type(cell.type);
    for (std::size_t k = 0; k < groups_.size(); ++k) {
        const WideConnection g = groups_[k];
        Pin* p = pins + (g.first_pin - base);
        if (positional) {
            if (k < position_names_.size()) {
                if (position_names_[k] == kNoName)
                    position_names_[k] = c_.names.intern(std::to_string(k + 1));
                p->name = position_names_[k];
            } else {
                p->name = c_.names.intern(std::to_string(k + 1));
            }
        }
        if (g.width > 1) {
            const std::string stem(c_.names.view(p->name));
            for (std::uint32_t i = 0; i < g.width; ++i) {
                scratch_ = stem;
                scratch_ += '[';
                append_int(scratch_, g.width - 1 - i);
                scratch_ += ']';
                p[i].name = c_.names.intern(scratch_);
            }
        }
        for (std::uint32_t i = 0; i < g.width; ++i) p[i].dir = Direction::Unknown;
    }
}

void Reader::emit_flip_flop(Frame& f, const Cell& cell, ModuleDef& d)
{
    // A defined module of the flip-flop idiom: one FlipFlop cell whose pins are its port bits.
    if (d.port_bit_pin_names.empty()) {
        for (NetId b : d.port_bits) d.port_bit_pin_names.push_back(c_.names.intern(d.nets.view(b)));
    }
    ++instances_of_type_[d.type];
    Cell ff{prefixed_name(f, cell.name),
            dff_type(),
            static_cast<std::uint32_t>(c_.pins.size()),
            0,
            CellKind::FlipFlop,
            0};
    ff.line = cell.line;
    for (std::uint32_t p = 0; p < d.ports.size(); ++p) {
        for (std::uint32_t b = d.port_bit_start[p]; b < d.port_bit_start[p + 1]; ++b) {
            c_.pins.push_back(Pin{port_conn_[b], d.port_bit_pin_names[b], d.ports[p].dir, false});
            ++ff.pin_count;
        }
    }
    c_.cells.push_back(ff);
}

void Reader::add_top_ports(ModuleDef& top)
{
    c_.ports.reserve(top.port_bits.size());
    for (std::uint32_t p = 0; p < top.ports.size(); ++p)
        for (std::uint32_t b = top.port_bit_start[p]; b < top.port_bit_start[p + 1]; ++b)
            c_.add_port(gnets_.view(top.port_bits[b]), top.port_bits[b], top.ports[p].dir);
}

void Reader::flatten_into_circuit(std::uint32_t top_index)
{
    ModuleDef& top = *modules_[top_index];
    bool flat = true;
    for (const Cell& cell : top.cells)
        if (cell.kind == CellKind::Instance && module_of_type_[cell.type] >= 0) flat = false;

    // The top's local nets are the first global nets; its aliases start the global union-find.
    gnets_ = std::move(top.nets);
    gparent_ = std::move(top.parent);
    add_top_ports(top);
    note_module_use(top);

    if (flat) {
        // The usual big netlist: its cells and pins become the circuit's without a copy.
        c_.cells = std::move(top.cells);
        c_.pins = std::move(top.pins);
        std::uint32_t wide = 0, instance = 0;
        for (Cell& cell : c_.cells) {
            if (cell.kind == CellKind::Instance) {
                collect_groups(top, cell, wide);
                fix_instance(cell, c_.pins.data() + cell.first_pin,
                             top.instance_offset(instance++));
            } else {
                cell.type = final_type(cell.type);
            }
        }
        return;
    }

    std::size_t total_cells = 0, total_pins = 0;
    for (const auto& m : modules_) {
        total_cells += m->cells.size();
        total_pins += m->pins.size();
    }
    c_.cells.reserve(total_cells);
    c_.pins.reserve(total_pins);
    std::vector<Frame> frames(1);
    frames[0].m = &top;
    path_.clear();
    while (!frames.empty()) {
        Frame& f = frames.back();
        ModuleDef& m = *f.m;
        if (f.cell == m.cells.size()) {
            frames.pop_back();
            if (!frames.empty()) path_.resize(frames.back().prefix_length);
            continue;
        }
        const Cell& cell = m.cells[f.cell++];
        std::size_t inst_offset = kNoOffset;
        if (cell.kind == CellKind::Instance) {
            inst_offset = m.instance_offset(f.instance++);
            collect_groups(m, cell, f.wide);
            const std::int32_t d = module_of_type_[cell.type];
            if (d >= 0) {
                ModuleDef& dm = *modules_[static_cast<std::size_t>(d)];
                connect_ports(f, dm, inst_offset);
                if (is_flip_flop_module_[static_cast<std::size_t>(d)]) {
                    emit_flip_flop(f, cell, dm);
                    continue;
                }
                ++instances_of_type_[dm.type];
                note_module_use(dm);
                Frame child;
                child.m = &dm;
                path_.resize(f.prefix_length);
                path_ += c_.names.view(cell.name);
                path_ += '/';
                child.prefix_length = path_.size();
                child.map.assign(dm.nets.size(), kUnmapped);
                for (std::uint32_t b = 0; b < dm.port_bits.size(); ++b) {
                    const NetId outer = port_conn_[b];
                    const NetId r = find_root(dm.parent, dm.port_bits[b]);
                    if (!is_net(r)) { // tied to a constant inside the module
                        if (is_net(outer)) unite(gparent_, r, outer);
                        continue;
                    }
                    if (outer == kNoNet) continue; // unconnected: stays an internal net
                    NetId& slot = child.map[r];
                    if (slot == kUnmapped) slot = outer;
                    else if (!unite(gparent_, slot, outer))
                        warn(inst_offset, "two different constants meet on a port of instance '" +
                                              std::string(c_.names.view(cell.name)) + "'");
                }
                frames.push_back(std::move(child)); // invalidates f
                continue;
            }
        }
        Cell copy = cell;
        copy.name = prefixed_name(f, cell.name);
        copy.first_pin = static_cast<std::uint32_t>(c_.pins.size());
        for (std::uint32_t i = 0; i < cell.pin_count; ++i) {
            Pin p = m.pins[cell.first_pin + i];
            p.net = map_net(f, p.net);
            c_.pins.push_back(p);
        }
        if (copy.kind == CellKind::Instance) {
            // groups_ refer to the module's pin numbers; shift them to the copy's
            for (WideConnection& g : groups_)
                g.first_pin = g.first_pin - cell.first_pin + copy.first_pin;
            fix_instance(copy, c_.pins.data() + copy.first_pin, inst_offset);
        } else {
            copy.type = final_type(cell.type);
        }
        c_.cells.push_back(copy);
    }
}

void Reader::compact_nets()
{
    // Nets that survive: roots of the union-find that a pin or a port touches; the survivors
    // get dense ids, in order, and are interned into the Circuit's pool: the only NamePool
    // insertions of net names. A pin or port tied to a constant (1'b0, 1'b1, 1'bx, 1'bz)
    // keeps it: each value used gets one net, driven by a CONST0/CONST1/CONSTX/CONSTZ cell made
    // here (left as unconnected, `xor(y, a, 1'b1)` was read as a buffer of a, and
    // `nand(n, a, 1'bx)` as NOT a; the simulator refuses CONSTX and CONSTZ by name). None is
    // counted: as yosys counts them, constants are no nets and no cells.
    const std::size_t n = gnets_.size();
    std::vector<NetId> remap(n, kUnmapped);
    std::size_t used = 0;
    bool tied[4] = {false, false, false, false};
    auto visit = [&](NetId& net) {
        const NetId r = is_net(net) ? find_root(gparent_, net) : net;
        if (is_const(r)) {
            tied[r - kConst0] = true;
            net = r; // given the constant's net below
            return;
        }
        if (!is_net(r)) {
            net = kNoNet;
            return;
        }
        net = r;
        if (remap[r] == kUnmapped) {
            remap[r] = 0;
            ++used;
        }
    };
    for (Pin& p : c_.pins) visit(p.net);
    for (Port& p : c_.ports) visit(p.net);
    gnets_.drop_index();
    gparent_ = {};
    std::size_t chars = 0;
    for (std::size_t i = 0; i < n; ++i)
        if (remap[i] != kUnmapped) chars += gnets_.view(static_cast<NetId>(i)).size();
    NamePool out;
    out.reserve(used, chars);
    out.reserve_index(used);
    // Every insertion lands in a random slot: prefetching a few names ahead overlaps the misses.
    // `ring` holds the next used ids, in order; `scan` only reads entries not interned yet, which
    // still hold the "used" mark.
    constexpr std::size_t kAhead = 16;
    std::array<NetId, kAhead> ring{};
    std::size_t head = 0, queued = 0, scan = 0;
    auto refill = [&]() {
        for (; queued < kAhead && scan < n; ++scan) {
            if (remap[scan] == kUnmapped) continue;
            out.prefetch(gnets_.view(static_cast<NetId>(scan)));
            ring[(head + queued++) % kAhead] = static_cast<NetId>(scan);
        }
    };
    // Two nets the union-find keeps apart can still share a name: the escaped identifier
    // `\b[0] ` and bit 0 of a bus b, or `\u1/n ` and the net n inside instance u1. Interned
    // as they are they would become one net; the later one gets a prime (n'), and later ones
    // a prime and a number (n'2, n'3) until the name is free. Escaped names with '/' can spell
    // one path many ways: a count per name keeps K clashes linear, where adding primes until
    // a name was free tried 1, 2 ... K names of K bytes each.
    std::size_t clashes = 0;
    std::string first_clash;
    std::unordered_map<std::string, std::uint32_t> suffix_of; // clashed name -> last suffix
    for (refill(); queued > 0; refill()) {
        const NetId i = ring[head];
        head = (head + 1) % kAhead;
        --queued;
        const std::string_view name = gnets_.view(i);
        const std::size_t before = out.size();
        remap[i] = out.intern(name);
        if (out.size() != before) continue;
        std::uint32_t& suffix = suffix_of[std::string(name)];
        std::string renamed;
        do {
            renamed.assign(name);
            renamed += '\'';
            if (++suffix > 1) renamed += std::to_string(suffix);
        } while (out.find(renamed) != kNoName);
        remap[i] = out.intern(renamed);
        if (clashes++ == 0)
            first_clash = "'" + std::string(name) + "' (the later one is named '" + renamed + "')";
    }
    if (clashes)
        warn(kNoOffset, std::to_string(clashes) + " net name" + (clashes == 1 ? " is" : "s are") +
                            " shared by different nets, such as an escaped identifier like "
                            "'\\b[0] ' and bit 0 of a bus 'b'; each is kept apart with primes "
                            "added (n', then n'2, n'3 ...): " + first_clash);
    c_.counts.cells = c_.counted_cells(); // before the constants' cells join
    c_.counts.nets = static_cast<std::int64_t>(used);
    static constexpr std::string_view kValueNames[] = {"1'b0", "1'b1", "1'bx", "1'bz"};
    NetId constant[4] = {kNoNet, kNoNet, kNoNet, kNoNet};
    for (int v = 0; v < 4; ++v) {
        if (!tied[v]) continue;
        std::string name(kValueNames[v]);
        while (out.find(name) != kNoName) name += '\''; // an escaped identifier took it
        constant[v] = out.intern(name);
    }
    auto final_net = [&](NetId net) {
        if (is_const(net)) return constant[net - kConst0];
        return net == kNoNet ? kNoNet : remap[net];
    };
    for (Pin& p : c_.pins) p.net = final_net(p.net);
    for (Port& p : c_.ports) p.net = final_net(p.net);
    // A constant's cell takes the line of its first reader: a message about an X tie (the
    // simulator refuses it) then points at a gate that reads one.
    std::uint32_t first_line[4] = {0, 0, 0, 0};
    for (const Cell& cell : c_.cells)
        for (std::uint32_t k = 0; k < cell.pin_count; ++k)
            for (int v = 0; v < 4; ++v)
                if (constant[v] != kNoNet && c_.pins[cell.first_pin + k].net == constant[v] &&
                    first_line[v] == 0)
                    first_line[v] = cell.line;
    for (int v = 0; v < 4; ++v) {
        if (constant[v] == kNoNet) continue;
        const std::uint32_t first = static_cast<std::uint32_t>(c_.pins.size());
        c_.pins.push_back(Pin{constant[v], kNoName, Direction::Output, false});
        c_.cells.push_back(Cell{kNoName, c_.names.intern(kConstTypes[v]), first, 1,
                                CellKind::Constant, 0});
        c_.cells.back().set_line(first_line[v]);
    }
    gnets_ = NameTable();
    c_.net_names = std::move(out);
}

void Reader::warn_undriven()
{
    // Only pins whose direction is known can tell: an instance pin (direction resolved later
    // from a library) might drive, so it counts as a driver here.
    std::vector<std::uint8_t> state(c_.net_count(), 0); // 1 driven, 2 read
    for (const Pin& p : c_.pins) {
        if (p.net == kNoNet) continue;
        state[p.net] |= p.dir == Direction::Input ? 2 : 1;
    }
    for (const Port& p : c_.ports)
        if (p.net != kNoNet && p.dir != Direction::Output) state[p.net] |= 1;
    std::size_t count = 0;
    std::string first;
    for (std::size_t i = 0; i < state.size(); ++i) {
        if (state[i] != 2) continue;
        if (count < 5)
            first += (count ? ", '" : "'") + std::string(c_.net_name(static_cast<NetId>(i))) + "'";
        ++count;
    }
    if (count)
        warn(kNoOffset, std::to_string(count) + " net" + (count == 1 ? " is" : "s are") +
                            " read by a gate but driven by nothing: " + first +
                            (count > 5 ? ", ..." : ""));
}

void Reader::fill_modules()
{
    for (const auto& m : modules_)
        c_.modules.push_back({std::string(m->name), true, instances_of_type_[m->type]});
    for (std::uint32_t t = 0; t < types_.size(); ++t)
        if (type_is_module_[t] && module_of_type_[t] < 0)
            c_.modules.push_back({std::string(types_.view(t)), false, instances_of_type_[t]});
}

void Reader::elaborate()
{
    if (modules_.empty()) expected("a module ('module ... endmodule')");
    const std::size_t n = modules_.size();
    is_flip_flop_module_.assign(n, 0);
    module_noted_.assign(n, 0);
    for (std::size_t i = 0; i < n; ++i) {
        const ModuleDef& m = *modules_[i];
        const bool behavioural_ff = m.cells.empty() && m.has_posedge;
        is_flip_flop_module_[i] = iequals(m.name, "dff") || behavioural_ff;
    }
    const std::uint32_t top = choose_top();
    refuse_duplicate_instances();
    check_recursion(top);
    ModuleDef& t = *modules_[top];
    c_.top = std::string(t.name);
    flatten_into_circuit(top);
    fill_modules();
    modules_.clear(); // before the net pool is built: the peak of memory is there
    compact_nets();
    warn_undriven();
}

} // namespace

Circuit read_verilog(const SourceText& src)
{
    Circuit c;
    c.source = src.name();
    c.format = "verilog";
    if (!looks_like_text(src.text())) src.fail(0, "expected Verilog text, found binary data");
    Reader reader(src, c);
    reader.run();
    return c;
}

} // namespace gsr::netlist
