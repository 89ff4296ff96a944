#!/usr/bin/env bash
# Our GPU training against PyTorch Geometric on the same graph and GPU, in one call (run by
# .ci/device.sh). Usage: gpu_vs_pyg.sh BIN_DIR OUT_DIR [LAYERS] [STEPS]
set -euo pipefail
bin=$1 out=$2 layers=${3:-8,32,112,448} steps=${4:-5}
mkdir -p "$out/hyp"
"$bin/gsr_bench_gpu" --export "$out/hyp" --models res,rev,gsr --layers "$layers" \
  --steps "$steps" --offload --topk-baseline ${GSR_BENCH_EXTRA:-} | tee "$out/ours.log"
python3 "$(dirname "$0")/pyg_baseline.py" "$out/hyp" --models res,rev --layers "$layers" \
  --steps "$steps" | tee "$out/pyg.log"
# Ratios: PyG rev time / ours, per depth.
python3 - "$out/ours.log" "$out/pyg.log" <<'PY'
import re, sys
def rows(p):
    r = {}
    for line in open(p):
        if line.startswith("RESULT") and "ms_per_step" in line:
            tag = line.split()[1]
            kv = dict(t.split("=", 1) for t in line.split()[2:])
            r[(tag, kv["model"], int(kv["L"]))] = kv
    return r
ours, pyg = rows(sys.argv[1]), rows(sys.argv[2])
print("variant              model L   ours ms  peak GB | PyG-rev ms  peak GB | vs PyG rev: "
      "speed-up, peak ratio; vs PyG same")
for (tag, m, l), o in sorted(ours.items()):
    p = pyg.get(("pyg", "rev", l)); same = pyg.get(("pyg", m, l))
    po = int(o["peak_with_workspace_bytes"]) / 1e9
    if p:
        pp = int(p["peak_bytes"]) / 1e9
        print(f"{tag:20} {m:4} {l:3} {float(o['ms_per_step']):9.2f} {po:8.3f} | "
              f"{float(p['ms_per_step']):10.2f} {pp:8.3f} | "
              f"{float(p['ms_per_step'])/float(o['ms_per_step']):6.2f}x, {po/pp:5.3f}x"
              + (f"; {float(same['ms_per_step'])/float(o['ms_per_step']):6.2f}x" if same else ""))
PY
