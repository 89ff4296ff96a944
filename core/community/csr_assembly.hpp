#pragma once
// Builds a CSR whose rows are computed independently, in parallel: each chunk of rows writes
// into its own buffer, then the buffers are laid end to end in row order. The result does not
// depend on the thread count. Internal to core/community and core/layout.
#include "community/weighted_graph.hpp"
#include "community/worker_pool.hpp"

#include <algorithm>
#include <cstring>
#include <vector>

namespace gsr::community::detail {

/// Appends one row's entries; passed to the row filler.
struct RowSink {
    std::vector<NodeId>* targets;
    std::vector<double>* weights;
    void add(NodeId t, double w)
    {
        targets->push_back(t);
        weights->push_back(w);
    }
};

/// fill_row(row, sink, worker) appends the entries of `row` to `sink`.
template <class FillRow>
WeightedGraph assemble_rows(std::size_t rows, WorkerPool* pool, FillRow&& fill_row)
{
    constexpr std::size_t kRowsPerChunk = 2048;
    const std::size_t chunks = (rows + kRowsPerChunk - 1) / kRowsPerChunk;
    struct Chunk {
        std::vector<NodeId> targets;
        std::vector<double> weights;
    };
    std::vector<Chunk> parts(chunks);
    WeightedGraph out;
    out.offsets.assign(rows + 1, 0);
    auto fill_chunks = [&](std::size_t begin, std::size_t end, unsigned worker) {
        for (std::size_t c = begin; c < end; ++c) {
            Chunk& part = parts[c];
            RowSink sink{&part.targets, &part.weights};
            const std::size_t r0 = c * kRowsPerChunk, r1 = std::min(rows, r0 + kRowsPerChunk);
            for (std::size_t r = r0; r < r1; ++r) {
                const std::size_t before = part.targets.size();
                fill_row(static_cast<NodeId>(r), sink, worker);
                out.offsets[r + 1] = part.targets.size() - before;
            }
        }
    };
    if (pool)
        pool->parallel_for(chunks, 1, fill_chunks);
    else
        fill_chunks(0, chunks, 0);

    std::vector<std::uint64_t> chunk_start(chunks + 1, 0);
    for (std::size_t c = 0; c < chunks; ++c)
        chunk_start[c + 1] = chunk_start[c] + parts[c].targets.size();
    for (std::size_t r = 0; r < rows; ++r) out.offsets[r + 1] += out.offsets[r];
    out.targets.resize(chunk_start[chunks]);
    out.weights.resize(chunk_start[chunks]);
    auto copy_chunks = [&](std::size_t begin, std::size_t end, unsigned) {
        for (std::size_t c = begin; c < end; ++c) {
            std::copy(parts[c].targets.begin(), parts[c].targets.end(),
                      out.targets.begin() + chunk_start[c]);
            std::copy(parts[c].weights.begin(), parts[c].weights.end(),
                      out.weights.begin() + chunk_start[c]);
            std::vector<NodeId>().swap(parts[c].targets);
            std::vector<double>().swap(parts[c].weights);
        }
    };
    if (pool)
        pool->parallel_for(chunks, 1, copy_chunks);
    else
        copy_chunks(0, chunks, 0);
    return out;
}

} // namespace gsr::community::detail
