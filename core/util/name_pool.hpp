#pragma once
// Interned names: each distinct string is stored once and named by a dense 32-bit id.
// Open addressing keeps lookups fast enough for parsers that read 100 MB/s.
#include "util/huge_page_allocator.hpp"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace gsr {

using NameId = std::uint32_t;
inline constexpr NameId kNoName = 0xffffffffu;

class NamePool {
public:
    NamePool();

    /// The id of `s`, adding it when new.
    NameId intern(std::string_view s);
    /// The id of `s`, or kNoName when it was never interned.
    NameId find(std::string_view s) const;
    /// Starts loading the index slot of `s` into the cache. Parsers call it for every name of a
    /// statement before interning them, so that the cache misses overlap.
    void prefetch(std::string_view s) const
    {
        __builtin_prefetch(&slots_[static_cast<std::uint32_t>(hash(s)) & (slots_.size() - 1)]);
    }
    /// Stores `s` without making it findable (instance names that are never looked up).
    NameId add_unindexed(std::string_view s);

    std::string_view view(NameId id) const
    {
        const Entry& e = entries_[id];
        return {chars_.data() + e.offset, e.length};
    }
    std::size_t size() const { return entries_.size(); }
    /// The 64-bit hash the index uses; callers with a table of their own use it too.
    static std::uint64_t hash(std::string_view s);
    /// Bytes held, for memory accounting.
    std::size_t bytes() const;
    /// Room for `names` names of `chars` characters in all.
    void reserve(std::size_t names, std::size_t chars);
    /// Room in the index for `names` findable names without growing.
    void reserve_index(std::size_t names);

private:
    struct Entry {
        std::uint64_t offset : 40;
        std::uint64_t length : 24;
    };
    void grow(std::size_t min_slots);
    NameId append(std::string_view s);

    std::vector<char> chars_;
    std::vector<Entry> entries_;
    /// Open addressing with linear probing. Each slot keeps the low 32 bits of the name's hash
    /// (which also pick its position), so a probe rarely touches the characters and growing
    /// never rehashes a string. Tables stay far below 2^32 slots (ids are 32-bit).
    struct Slot {
        NameId id = kNoName; ///< kNoName: empty
        std::uint32_t tag = 0;
    };
    std::vector<Slot, HugePageAllocator<Slot>> slots_; // size is a power of two
    /// A small direct-mapped cache of recently interned names, in front of `slots_`. Netlists
    /// mostly read signals written shortly before, so most lookups end here, in cache, instead
    /// of in a random slot of a table far larger than the CPU caches. It grows with the table
    /// up to kRecent slots: a pool starts small, since a reader keeps several and a small
    /// file's parse would otherwise spend most of its time clearing their caches.
    static constexpr std::size_t kRecent = 1u << 14;
    static constexpr std::size_t kFirstSlots = 1024;
    std::vector<Slot> recent_;
    std::size_t indexed_ = 0;
};

} // namespace gsr
