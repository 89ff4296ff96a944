#!/usr/bin/env bash
# gsr against rev on the quality benchmark's split (quality_bench.sh: train on 8 public
# circuits, validate on 2, test on 3 never seen; target sp), over several seeds and several k:
# how much Pearson the group top-k costs. Each (model, k, seed) is one `gsr train` run; the
# table gives the mean and the spread over the seeds.
#   tests/bench/gsr_topk_sweep.sh BIN_DIR [LAYERS] [K_LIST] [SEEDS] [EPOCHS] [PATIENCE]
# GSR_TRAIN_FLAGS adds flags to every run (e.g. "--device gpu").
set -euo pipefail
BIN=$1
DEPTH=${2:-32}
KS=${3:-"8 16 24"}
SEEDS=${4:-"7 8 9"}
EPOCHS=${5:-150}
PATIENCE=${6:-30}
# shellcheck source=quality_split.sh
source "$(dirname "$0")/quality_split.sh"
OUT=$(mktemp -d)
run() { # label seed model-flags...
  local label=$1 seed=$2; shift 2
  # shellcheck disable=SC2086
  "$BIN/gsr" train $TRAIN --val $VAL --test $TEST --db "$OUT/q.gsr" --target sp \
    --layers "$DEPTH" --hidden 64 --groups 2 --epochs "$EPOCHS" --patience "$PATIENCE" \
    --lr 0.003 --seed "$seed" --quiet --json ${GSR_TRAIN_FLAGS:-} "$@" |
    python3 -c "import json,sys; j=json.load(sys.stdin); t=j['test']
print('$label', $seed, t['pearson'], t['spearman'], t['kendall'], t['mae'], j['epochs_done'])" \
    >> "$OUT/rows.txt"
}
for s in $SEEDS; do
  run rev "$s" --model rev
  for k in $KS; do run "gsr-k$k" "$s" --model gsr --topk "$k"; done
done
python3 - "$OUT/rows.txt" "$DEPTH" <<'PY'
import statistics as st, sys
rows = [l.split() for l in open(sys.argv[1])]
labels = []
for r in rows:
    if r[0] not in labels: labels.append(r[0])
print(f"\n| model (L={sys.argv[2]}, D=64, C=2) | seeds | test Pearson mean | min..max | Spearman | Kendall | MAE | epochs |")
print("|---|---:|---:|---|---:|---:|---:|---:|")
rev = [float(r[2]) for r in rows if r[0] == "rev"]
for lab in labels:
    rs = [r for r in rows if r[0] == lab]
    p = [float(r[2]) for r in rs]
    m = lambda i: st.mean(float(r[i]) for r in rs)
    print(f"| {lab} | {len(rs)} | {st.mean(p):.3f} | {min(p):.3f}..{max(p):.3f} | {m(3):.3f} | "
          f"{m(4):.3f} | {m(5):.3f} | {st.mean(int(r[6]) for r in rs):.0f} |")
print("\nper seed:", " ".join(f"{r[0]}/{r[1]}={float(r[2]):.3f}" for r in rows))
PY
