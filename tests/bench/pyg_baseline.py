#!/usr/bin/python3
"""The PyTorch Geometric baseline of gsr_bench_gpu, on the same graph and the same GPU.

Reads the directory written by `gsr_bench_gpu --export DIR` (fan-in CSR, features, labels)
and times one training step (forward + backward + Adam on the full graph, MSE over every node)
of the issue's models, D=128, C=2:
    block   = LayerNorm -> ReLU -> SAGEConv (mean aggregation + root weight)
    res     : h = h + block(h)                       (every activation kept by autograd)
    rev     : GroupAddRev(block on D/C, num_groups=C) (activations recomputed by inversion)
    model   = Linear(F, D) -> L blocks -> LayerNorm -> ReLU -> Linear(D, 1)
Edges: the driver-to-sink edges made undirected (both directions in edge_index).
Prints one line per configuration:
    RESULT pyg model=M L=L ms_per_step=X min=Y peak_bytes=P loss_first=A loss_last=B
"""
import argparse
import json
import os
import statistics
import time

import numpy as np
import torch
from torch_geometric.nn import GroupAddRev, SAGEConv


def load(d):
    meta = json.load(open(os.path.join(d, "meta.json")))
    n, f = meta["nodes"], meta["features"]
    off = np.fromfile(os.path.join(d, "offsets.u64"), dtype="<u8").astype(np.int64)
    tgt = np.fromfile(os.path.join(d, "targets.u32"), dtype="<u4").astype(np.int64)
    x = np.fromfile(os.path.join(d, "features.f32"), dtype="<f4").reshape(n, f)
    y = np.fromfile(os.path.join(d, "labels.f32"), dtype="<f4")
    sinks = np.repeat(np.arange(n, dtype=np.int64), np.diff(off))
    # message flows source -> target: each sink hears its drivers and each driver its sinks.
    src = np.concatenate([tgt, sinks])
    dst = np.concatenate([sinks, tgt])
    edge_index = torch.from_numpy(np.stack([src, dst]))
    return n, f, torch.from_numpy(x), torch.from_numpy(y), edge_index


class Block(torch.nn.Module):
    def __init__(self, d):
        super().__init__()
        self.norm = torch.nn.LayerNorm(d)
        self.conv = SAGEConv(d, d, aggr="mean", root_weight=True)

    def reset_parameters(self):
        self.norm.reset_parameters()
        self.conv.reset_parameters()

    def forward(self, x, edge_index):
        return self.conv(self.norm(x).relu(), edge_index)


class Net(torch.nn.Module):
    def __init__(self, kind, f, d, layers, groups):
        super().__init__()
        self.kind = kind
        self.encoder = torch.nn.Linear(f, d)
        if kind == "res":
            self.blocks = torch.nn.ModuleList(Block(d) for _ in range(layers))
        else:
            self.blocks = torch.nn.ModuleList(
                GroupAddRev(Block(d // groups), num_groups=groups) for _ in range(layers))
        self.norm = torch.nn.LayerNorm(d)
        self.head = torch.nn.Linear(d, 1)

    def forward(self, x, edge_index):
        h = self.encoder(x)
        for b in self.blocks:
            h = h + b(h, edge_index) if self.kind == "res" else b(h, edge_index)
        return self.head(self.norm(h).relu()).squeeze(-1)


def run(kind, layers, data, d, groups, steps, dev):
    n, f, x, y, edge_index = data
    torch.manual_seed(1)
    x, y, edge_index = x.to(dev), y.to(dev), edge_index.to(dev)
    model = Net(kind, f, d, layers, groups).to(dev)
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    torch.cuda.synchronize()
    torch.cuda.reset_peak_memory_stats()
    times, losses = [], []
    for s in range(steps + 2):
        torch.cuda.synchronize()
        t0 = time.perf_counter()
        opt.zero_grad(set_to_none=True)
        loss = torch.nn.functional.mse_loss(model(x, edge_index), y)
        loss.backward()
        opt.step()
        losses.append(loss.item())  # the same host sync our step has (its loss)
        torch.cuda.synchronize()
        t = (time.perf_counter() - t0) * 1e3
        if s >= 2:
            times.append(t)
    peak = torch.cuda.max_memory_allocated()
    print(f"RESULT pyg model={kind} L={layers} D={d} C={groups} "
          f"ms_per_step={statistics.median(times):.3f} min={min(times):.3f} peak_bytes={peak} "
          f"loss_first={losses[0]:.6g} loss_last={losses[-1]:.6g}", flush=True)
    del model, opt
    torch.cuda.empty_cache()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("graph_dir")
    ap.add_argument("--models", default="res,rev")
    ap.add_argument("--layers", default="8,32,112,448")
    ap.add_argument("--hidden", type=int, default=128)
    ap.add_argument("--groups", type=int, default=2)
    ap.add_argument("--steps", type=int, default=5)
    a = ap.parse_args()
    dev = torch.device("cuda")
    print(f"torch {torch.__version__} on {torch.cuda.get_device_name(0)}; "
          f"tf32 matmul {torch.backends.cuda.matmul.allow_tf32}", flush=True)
    data = load(a.graph_dir)
    print(f"graph: N={data[0]} F={data[1]} directed edges={data[4].shape[1]}", flush=True)
    for kind in a.models.split(","):
        for layers in (int(v) for v in a.layers.split(",")):
            if kind == "res" and layers > 112:
                continue
            try:
                run(kind, layers, data, a.hidden, a.groups, a.steps, dev)
            except torch.cuda.OutOfMemoryError as e:
                print(f"RESULT pyg model={kind} L={layers} error=out-of-memory", flush=True)
                torch.cuda.empty_cache()


if __name__ == "__main__":
    main()
