#!/usr/bin/env bash
# Paired-seed comparison on the quality benchmark (signal probability, test circuits never
# seen): every model is trained once per seed with the same settings; a seed gives rev and gsr
# the same initial weights (the same parameter shapes from one stream) and, with full-graph
# batching, the same data, so the per-seed difference against the first model removes the
# part of the seed noise the models share. Prints markdown: per model, per seed, and the
# differences (mean, standard deviation, standard error, 95 % t interval).
#   tests/bench/quality_seeds.sh BIN_DIR [SEEDS] [MODELS] [EPOCHS] [PATIENCE] [LR] [LAYERS]
# MODELS: words "rev", "res", "gsr:K" (group top-k K), each with an optional "@LR" that
# overrides LR for that model ("rev@0.0030003": the noise floor, a model against itself with a
# learning rate changed in the fifth digit); the first word is the baseline.
# Environment: GSR_QUALITY_SPLIT (default wide, see quality_split.sh; "base" for the older
# split), GSR_JOBS runs at once (default 1), GSR_PIN=1 pins run lane i to CPU i, GSR_TRAIN_FLAGS
# extra flags for every run (e.g. "--device gpu"), GSR_QUALITY_OUT keeps the run stores there
# (a run whose store there already holds a finished run of the same settings is not repeated).
# The figures are read back from each run's store (`gsr runs list --json`): the test metrics
# at the epoch of best validation loss, as quality_bench.sh reports them.
set -euo pipefail
BIN=$1
SEEDS=${2:-"7 8 9 10 11"}
MODELS=${3:-"rev gsr:8 gsr:16"}
EPOCHS=${4:-200}
PATIENCE=${5:-40}
LR=${6:-0.003}
DEPTH=${7:-32}
JOBS=${GSR_JOBS:-1}
GSR_QUALITY_SPLIT=${GSR_QUALITY_SPLIT:-wide}
# shellcheck source=quality_split.sh
source "$(dirname "$0")/quality_split.sh"
OUT=${GSR_QUALITY_OUT:-$(mktemp -d)}
mkdir -p "$OUT"

label_of() { # model word -> file label
  local m=${1%@*} lr=
  [ "$1" != "$m" ] && lr="@${1#*@}"
  case $m in gsr:*) echo "gsr-k${m#gsr:}$lr" ;; *) echo "$m$lr" ;; esac
}

run() { # lane seed model
  local lane=$1 seed=$2 model=${3%@*} lr=$LR label flags db
  [ "$3" != "$model" ] && lr=${3#*@}
  label=$(label_of "$3")
  case $model in
    gsr:*) flags="--model gsr --groups 2 --topk ${model#gsr:}" ;;
    rev) flags="--model rev --groups 2" ;;
    *) flags="--model $model" ;;
  esac
  db="$OUT/$label-s$seed.gsr"
  if [ -f "$OUT/$label-s$seed.json" ] && python3 - "$OUT/$label-s$seed.json" "$EPOCHS" \
      "$PATIENCE" "$lr" "$DEPTH" "$seed" <<'PY'
import json, sys
runs = json.load(open(sys.argv[1]))
c = runs[0]["config"] if len(runs) == 1 and runs[0]["status"] in ("finished", "stopped early") \
    else {}
want = [int(sys.argv[2]), int(sys.argv[3]), float(sys.argv[4]), int(sys.argv[5]), int(sys.argv[6])]
have = [c.get(k) for k in ("epochs", "patience", "lr", "layers", "seed")]
sys.exit(0 if have == want else 1)
PY
  then
    return 0
  fi
  rm -f "$db" "$db-wal" "$db-shm"
  local pin=()
  [ "${GSR_PIN:-0}" = 1 ] && pin=(taskset -c "$lane")
  # The store records the run; a failure after it is finished is reported, not fatal.
  # shellcheck disable=SC2086
  "${pin[@]}" "$BIN/gsr" train $TRAIN --val $VAL --test $TEST --db "$db" --target sp \
      --layers "$DEPTH" --hidden 64 --epochs "$EPOCHS" --patience "$PATIENCE" --lr "$lr" \
      --seed "$seed" --quiet $flags ${GSR_TRAIN_FLAGS:-} ||
    echo "note: gsr train ($label, seed $seed) exited with status $?" >&2
  "$BIN/gsr" runs list --db "$db" --json > "$OUT/$label-s$seed.json"
}

# One lane per job, each running its share of the (seed, model) list in order.
tasks=()
for s in $SEEDS; do for m in $MODELS; do tasks+=("$s $m"); done; done
for ((lane = 0; lane < JOBS; lane++)); do
  (
    for ((i = lane; i < ${#tasks[@]}; i += JOBS)); do
      # shellcheck disable=SC2086
      run "$lane" ${tasks[$i]}
    done
  ) &
done
wait

python3 - "$OUT" "$DEPTH" "$SEEDS" "$MODELS" <<'PY'
import json, math, statistics as st, sys
out, depth, seeds, models = sys.argv[1], sys.argv[2], sys.argv[3].split(), sys.argv[4].split()
labels = [("gsr-k" + m[4:] if m.startswith("gsr:") else m) for m in models]
T95 = [12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179,
       2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064,
       2.060, 2.056, 2.052, 2.048, 2.045, 2.042, 2.040, 2.037, 2.035, 2.032, 2.030, 2.028,
       2.026, 2.024, 2.023, 2.021]  # t(0.975) for 1..40 degrees of freedom
res = {}
for lab in labels:
    for s in seeds:
        runs = json.load(open(f"{out}/{lab}-s{s}.json"))
        if len(runs) != 1 or runs[0]["status"] not in ("finished", "stopped early"):
            sys.exit(f"{lab} seed {s}: no finished run in {out}")
        r = runs[0]
        b = r["result"]["best"]  # the epoch of best validation loss
        res[lab, s] = dict(p=b["test"]["pearson"], sp=b["test"]["spearman"],
                           kt=b["test"]["kendall"], mae=b["test"]["mae"],
                           vp=b["val"]["pearson"], best=r["best_epoch"], done=r["epochs_done"])
m = lambda xs: st.mean(xs)
sd = lambda xs: st.stdev(xs) if len(xs) > 1 else float("nan")
print(f"| model (L={depth}, D=64, C=2) | seeds | test Pearson mean | sd | min..max | Spearman |"
      " Kendall | MAE | val Pearson | best epoch |")
print("|---|---:|---:|---:|---|---:|---:|---:|---:|---:|")
for lab in labels:
    rs = [res[lab, s] for s in seeds]
    p = [r["p"] for r in rs]
    print(f"| {lab} | {len(rs)} | {m(p):.3f} | {sd(p):.3f} | {min(p):.3f}..{max(p):.3f} | "
          f"{m([r['sp'] for r in rs]):.3f} | {m([r['kt'] for r in rs]):.3f} | "
          f"{m([r['mae'] for r in rs]):.3f} | {m([r['vp'] for r in rs]):.3f} | "
          f"{m([r['best'] for r in rs]):.0f} |")
base = labels[0]
print("\n| seed | " + " | ".join(labels) + " | " +
      " | ".join(f"{lab} - {base}" for lab in labels[1:]) + " |")
print("|---:|" + "---:|" * (2 * len(labels) - 1))
for s in seeds:
    cells = [f"{res[lab, s]['p']:.3f} ({res[lab, s]['best']})" for lab in labels]
    diffs = [f"{res[lab, s]['p'] - res[base, s]['p']:+.3f}" for lab in labels[1:]]
    print(f"| {s} | " + " | ".join(cells + diffs) + " |")
print(f"\n| test Pearson difference | mean | sd | standard error | 95 % t interval |"
      f" seeds {base} ahead |")
print("|---|---:|---:|---:|---|---:|")
for lab in labels[1:]:
    d = [res[lab, s]["p"] - res[base, s]["p"] for s in seeds]
    n = len(d)
    se = sd(d) / math.sqrt(n) if n > 1 else float("nan")
    t = T95[n - 2] if 2 <= n <= len(T95) + 1 else 1.96
    print(f"| {lab} - {base} | {m(d):+.3f} | {sd(d):.3f} | {se:.3f} | "
          f"{m(d) - t * se:+.3f}..{m(d) + t * se:+.3f} | {sum(x < 0 for x in d)} of {n} |")
print(f"\n(per seed: test Pearson at the epoch of best validation loss, that epoch in brackets;"
      f" stores in {out})")
PY
