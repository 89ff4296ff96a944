#include "nn/graph_operators.hpp"

#include <cmath>
#include <vector>

namespace gsr::nn {

namespace {

struct HostCsr {
    std::vector<std::uint64_t> offsets;
    std::vector<std::uint32_t> targets;

    std::size_t degree(std::size_t v) const { return offsets[v + 1] - offsets[v]; }
};

/// The reversed edges; each row lists its sources in ascending order.
HostCsr transpose(std::size_t n, const HostCsr& a)
{
    HostCsr t;
    t.offsets.assign(n + 1, 0);
    for (std::uint32_t j : a.targets) ++t.offsets[j + 1];
    for (std::size_t v = 0; v < n; ++v) t.offsets[v + 1] += t.offsets[v];
    t.targets.resize(a.targets.size());
    std::vector<std::uint64_t> next(t.offsets.begin(), t.offsets.end() - 1);
    for (std::size_t i = 0; i < n; ++i)
        for (std::uint64_t e = a.offsets[i]; e < a.offsets[i + 1]; ++e)
            t.targets[next[a.targets[e]]++] = std::uint32_t(i);
    return t;
}

/// Row v = row v of a, then row v of b.
HostCsr concatenate(std::size_t n, const HostCsr& a, const HostCsr& b)
{
    HostCsr u;
    u.offsets.assign(n + 1, 0);
    u.targets.reserve(a.targets.size() + b.targets.size());
    for (std::size_t v = 0; v < n; ++v) {
        u.targets.insert(u.targets.end(), a.targets.begin() + a.offsets[v],
                         a.targets.begin() + a.offsets[v + 1]);
        u.targets.insert(u.targets.end(), b.targets.begin() + b.offsets[v],
                         b.targets.begin() + b.offsets[v + 1]);
        u.offsets[v + 1] = u.targets.size();
    }
    return u;
}

DeviceCsr upload_csr(Backend& be, const HostCsr& csr, std::uint32_t rows)
{
    DeviceCsr d;
    d.rows = rows;
    d.nnz = csr.targets.size();
    d.offsets = be.alloc_bytes(csr.offsets.size() * sizeof(std::uint64_t));
    d.targets = be.alloc_bytes(csr.targets.size() * sizeof(std::uint32_t));
    be.upload_bytes(d.offsets, csr.offsets.data(), d.offsets.bytes);
    be.upload_bytes(d.targets, csr.targets.data(), d.targets.bytes);
    return d;
}

std::vector<double> scales(const HostCsr& c, std::size_t n, Normalisation norm)
{
    std::vector<double> s(n);
    for (std::size_t v = 0; v < n; ++v) {
        const double deg = double(c.degree(v));
        s[v] = norm == Normalisation::Symmetric ? 1.0 / std::sqrt(deg + 1.0)
                                                : (deg > 0 ? 1.0 / deg : 0.0);
    }
    return s;
}

/// S over `rows_of` with scales from `rows_of` and, for GCN, columns from `columns_of`.
DeviceGraph make_operator(Backend& be, DeviceCsr pattern, DeviceCsr transposed,
                          const HostCsr& rows_of, const HostCsr& columns_of, std::size_t n,
                          Normalisation norm)
{
    DeviceGraph g;
    g.pattern = pattern;
    g.transposed = transposed;
    g.self_loop = norm == Normalisation::Symmetric;
    g.row_scale = be.alloc_matrix(std::uint32_t(n), 1);
    g.col_scale = be.alloc_matrix(std::uint32_t(n), 1);
    be.upload(g.row_scale, std::span<const double>(scales(rows_of, n, norm)));
    const std::vector<double> col = norm == Normalisation::Symmetric
                                        ? scales(columns_of, n, norm)
                                        : std::vector<double>(n, 1.0);
    be.upload(g.col_scale, std::span<const double>(col));
    return g;
}

} // namespace

AggregationOperators upload_aggregation(Backend& be, const GraphInput& graph,
                                        Normalisation norm, bool directed)
{
    const std::size_t n = graph.node_count;
    const std::uint32_t rows = std::uint32_t(n);
    const HostCsr fanin{graph.fanin_offsets, graph.fanin_targets};
    const HostCsr fanout = transpose(n, fanin);
    AggregationOperators ops;
    if (directed) {
        const DeviceCsr in = upload_csr(be, fanin, rows);
        const DeviceCsr out = upload_csr(be, fanout, rows);
        // Fan-in: a sink's in-degree on the rows, its drivers' out-degree on the columns.
        ops.op[0] = make_operator(be, in, out, fanin, fanout, n, norm);
        ops.op[1] = make_operator(be, out, in, fanout, fanin, n, norm);
        ops.terms = 2;
    } else {
        // Row v lists fan-in then fan-out: symmetric, so the pattern is its own transpose.
        const HostCsr both = concatenate(n, fanin, fanout);
        const DeviceCsr u = upload_csr(be, both, rows);
        ops.op[0] = make_operator(be, u, u, both, both, n, norm);
        ops.terms = 1;
    }
    return ops;
}

} // namespace gsr::nn
