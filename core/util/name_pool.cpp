#include "util/name_pool.hpp"

#include "util/diagnostics.hpp"

#include <algorithm>
#include <cstring>

namespace gsr {

NamePool::NamePool() : slots_(kFirstSlots), recent_(kFirstSlots) {}

std::uint64_t NamePool::hash(std::string_view s)
{
    // FNV-1a over 8-byte words, then a final avalanche (splitmix64 finaliser).
    std::uint64_t h = 0xcbf29ce484222325ull ^ s.size();
    std::size_t i = 0;
    for (; i + 8 <= s.size(); i += 8) {
        std::uint64_t w;
        std::memcpy(&w, s.data() + i, 8);
        h = (h ^ w) * 0x100000001b3ull;
        h ^= h >> 29;
    }
    for (; i < s.size(); ++i) h = (h ^ static_cast<unsigned char>(s[i])) * 0x100000001b3ull;
    h ^= h >> 30;
    h *= 0xbf58476d1ce4e5b9ull;
    h ^= h >> 27;
    h *= 0x94d049bb133111ebull;
    h ^= h >> 31;
    return h;
}

NameId NamePool::append(std::string_view s)
{
    if (s.size() >= (1u << 24)) throw Error("name longer than 16 MiB");
    if (entries_.size() >= kNoName - 1) throw Error("more than 4 billion names");
    Entry e;
    e.offset = chars_.size();
    e.length = s.size();
    chars_.insert(chars_.end(), s.begin(), s.end());
    entries_.push_back(e);
    return static_cast<NameId>(entries_.size() - 1);
}

NameId NamePool::find(std::string_view s) const
{
    const auto tag = static_cast<std::uint32_t>(hash(s));
    const std::size_t mask = slots_.size() - 1;
    for (std::size_t i = tag & mask;; i = (i + 1) & mask) {
        const Slot& slot = slots_[i];
        if (slot.id == kNoName) return kNoName;
        if (slot.tag == tag && view(slot.id) == s) return slot.id;
    }
}

NameId NamePool::intern(std::string_view s)
{
    const auto tag = static_cast<std::uint32_t>(hash(s));
    Slot& recent = recent_[(tag >> 7) & (recent_.size() - 1)];
    if (recent.id != kNoName && recent.tag == tag && view(recent.id) == s) return recent.id;
    const std::size_t mask = slots_.size() - 1;
    std::size_t i = tag & mask;
    for (;; i = (i + 1) & mask) {
        const Slot& slot = slots_[i];
        if (slot.id == kNoName) break;
        if (slot.tag == tag && view(slot.id) == s) {
            recent = slot;
            return slot.id;
        }
    }
    const NameId id = append(s);
    recent = {id, tag};
    slots_[i] = {id, tag};
    // Keep the load factor under 0.7.
    if (++indexed_ * 10 > slots_.size() * 7) grow(slots_.size() * 2);
    return id;
}

NameId NamePool::add_unindexed(std::string_view s) { return append(s); }

void NamePool::grow(std::size_t min_slots)
{
    std::size_t size = slots_.size();
    while (size < min_slots) size *= 2;
    if (size == slots_.size()) return;
    // The cache grows with the table up to its full size; it starts empty again (a copy of
    // the slots it held would be placed by other bits of their tags).
    if (recent_.size() < std::min(size, kRecent)) recent_.assign(std::min(size, kRecent), Slot{});
    std::vector<Slot, HugePageAllocator<Slot>> old = std::move(slots_);
    slots_.assign(size, Slot{});
    const std::size_t mask = size - 1;
    for (const Slot& slot : old) {
        if (slot.id == kNoName) continue;
        std::size_t i = slot.tag & mask; // the tag is the hash's low half: no string is touched
        while (slots_[i].id != kNoName) i = (i + 1) & mask;
        slots_[i] = slot;
    }
}

void NamePool::reserve(std::size_t names, std::size_t chars)
{
    entries_.reserve(names);
    chars_.reserve(chars);
}

void NamePool::reserve_index(std::size_t names)
{
    grow(names + names / 2);
}

std::size_t NamePool::bytes() const
{
    return chars_.capacity() + entries_.capacity() * sizeof(Entry) +
           (slots_.capacity() + recent_.capacity()) * sizeof(Slot);
}

} // namespace gsr
