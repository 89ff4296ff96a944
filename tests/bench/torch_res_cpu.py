#!/usr/bin/python3
"""The `res` model of core/nn in plain PyTorch on the CPU: the baseline of gsr_bench_train.

Reads the directory written by `gsr_bench_train --export DIR` (graph, features, targets and our
initial parameters) and runs the same training step: forward + backward + Adam on the full graph.

Model (core/nn/model.cpp, blocks.cpp; undirected, one aggregation term):
    h_0     = X W_enc + b_enc                                   encoder F -> D
    z_l     = ReLU(LayerNorm(h_l))                              eps 1e-5, affine
    h_{l+1} = h_l + (S z_l) W_nb + z_l W_root + b               S: mean over fan-in U fan-out
    pred    = ReLU(LayerNorm_final(h_L)) W_head + b_head        head D -> 1
    loss    = mean((pred - y)^2) over every node; Adam(lr 1e-3, betas .9/.999, eps 1e-8)
S is the row-normalised adjacency whose row v lists the fan-in of v then its fan-out (with
multiplicity), 1/deg on every entry, empty rows for isolated nodes: what
core/nn/graph_operators.cpp builds. It is a torch sparse matrix used through torch.sparse.mm.

Prints `loss0 ours X torch Y` (the same parameters must give the same loss) and
`ms/step median M`.
"""
import argparse
import json
import os
import statistics
import sys
import time

import numpy as np
import torch


def load(d):
    meta = json.load(open(os.path.join(d, "meta.json")))
    n, f = meta["nodes"], meta["features"]
    off = np.fromfile(os.path.join(d, "offsets.u64"), dtype="<u8").astype(np.int64)
    tgt = np.fromfile(os.path.join(d, "targets.u32"), dtype="<u4").astype(np.int64)
    x = np.fromfile(os.path.join(d, "features.f32"), dtype="<f4").reshape(n, f)
    y = np.fromfile(os.path.join(d, "labels.f32"), dtype="<f4")
    p = np.fromfile(os.path.join(d, "params.f64"), dtype="<f8")
    assert off.shape[0] == n + 1 and tgt.shape[0] == meta["edges"] and y.shape[0] == n
    assert p.shape[0] == meta["parameters"], (p.shape, meta["parameters"])
    return meta, off, tgt, x, y, p


def mean_operator(n, off, tgt, layout):
    # Fan-in edge (v <- u): entry (v, u) of the fan-in part and (u, v) of the fan-out part.
    sinks = np.repeat(np.arange(n, dtype=np.int64), np.diff(off))
    rows = np.concatenate([sinks, tgt])
    cols = np.concatenate([tgt, sinks])
    deg = np.bincount(rows, minlength=n).astype(np.float64)
    inv = np.where(deg > 0, 1.0 / np.maximum(deg, 1.0), 0.0)
    vals = inv[rows].astype(np.float32)
    s = torch.sparse_coo_tensor(torch.from_numpy(np.stack([rows, cols])),
                                torch.from_numpy(vals), (n, n)).coalesce()
    if layout == "csr":
        s = s.to_sparse_csr()
    return s


class Res(torch.nn.Module):
    def __init__(self, f, d, layers, flat):
        super().__init__()
        pos = [0]

        def take(*shape):
            k = int(np.prod(shape))
            t = torch.tensor(flat[pos[0]:pos[0] + k], dtype=torch.float32).reshape(shape)
            pos[0] += k
            return torch.nn.Parameter(t)

        self.d = d
        self.enc_w, self.enc_b = take(f, d), take(d)
        self.gamma, self.beta, self.w_nb, self.w_root, self.bias = (
            torch.nn.ParameterList() for _ in range(5))
        for _ in range(layers):
            self.gamma.append(take(d))
            self.beta.append(take(d))
            self.w_nb.append(take(d, d))
            self.w_root.append(take(d, d))
            self.bias.append(take(d))
        self.fin_gamma, self.fin_beta = take(d), take(d)
        self.head_w, self.head_b = take(d, 1), take(1)
        assert pos[0] == len(flat), (pos[0], len(flat))

    def forward(self, x, s):
        ln = torch.nn.functional.layer_norm
        h = torch.addmm(self.enc_b, x, self.enc_w)
        for l in range(len(self.w_nb)):
            z = torch.relu(ln(h, (self.d,), self.gamma[l], self.beta[l], 1e-5))
            agg = torch.sparse.mm(s, z)
            h = h + torch.addmm(torch.addmm(self.bias[l], z, self.w_root[l]), agg, self.w_nb[l])
        z = torch.relu(ln(h, (self.d,), self.fin_gamma, self.fin_beta, 1e-5))
        return torch.addmm(self.head_b, z, self.head_w).squeeze(1)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("dir", help="directory written by gsr_bench_train --export")
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--steps", type=int, default=7)
    ap.add_argument("--warmup", type=int, default=2)
    ap.add_argument("--layout", choices=["coo", "csr"], default="coo",
                    help="torch sparse layout of the aggregation matrix")
    a = ap.parse_args()

    torch.set_num_threads(a.threads)
    try:
        torch.set_num_interop_threads(1)
    except RuntimeError:
        pass
    meta, off, tgt, x, y, flat = load(a.dir)
    n, d, layers = meta["nodes"], meta["hidden"], meta["layers"]
    s = mean_operator(n, off, tgt, a.layout)
    x = torch.from_numpy(x)
    y = torch.from_numpy(y)
    model = Res(meta["features"], d, layers, flat)
    opt = torch.optim.Adam(model.parameters(), lr=1e-3, betas=(0.9, 0.999), eps=1e-8)

    with torch.no_grad():
        loss0 = torch.mean((model(x, s) - y) ** 2).item()
    print(f"torch {torch.__version__} threads {torch.get_num_threads()} layout {a.layout}: "
          f"res L={layers} D={d} N={n} nnz(S)={s._nnz()}")
    print(f"loss0 ours {meta['loss0']:.7g} torch {loss0:.7g} "
          f"rel.diff {abs(loss0 - meta['loss0']) / max(abs(meta['loss0']), 1e-30):.2e}")

    times = []
    first = last = None
    for step in range(a.warmup + a.steps):
        t0 = time.perf_counter()
        opt.zero_grad(set_to_none=True)
        loss = torch.mean((model(x, s) - y) ** 2)
        loss.backward()
        opt.step()
        t = (time.perf_counter() - t0) * 1e3
        last = loss.item()
        if first is None:
            first = last
        if step >= a.warmup:
            times.append(t)
    print(f"loss {first:.6g} -> {last:.6g} over {a.warmup + a.steps} steps")
    print(f"ms/step median {statistics.median(times):.3f} (min {min(times):.3f}, "
          f"max {max(times):.3f}, {a.steps} steps after {a.warmup} warm-up)")


if __name__ == "__main__":
    sys.exit(main())
