#!/usr/bin/env bash
# Learning-rate warm-up at depth: the quality split (quality_split.sh; GSR_QUALITY_MORE and
# GSR_QUALITY_SPLIT apply), each model trained with each warm-up, test metrics at the epoch of
# best validation loss. The runs of one warm-up go in parallel (GSR_TRAIN_FLAGS, e.g.
# "--device gpu", is added to each).
#   tests/bench/quality_warmup.sh BIN EPOCHS LAYERS PATIENCE "WARMUPS" "MODELS" [SEED]
set -euo pipefail
BIN=$1 EPOCHS=$2 DEPTH=$3 PATIENCE=$4 WARMUPS=$5 MODELS=$6 SEED=${7:-7}
# shellcheck source=quality_split.sh
source "$(dirname "$0")/quality_split.sh"
dir=$(mktemp -d)
printf '| model | layers | warm-up steps | test Pearson | Spearman | Kendall | MAE | best epoch | epochs | val loss |\n'
printf '|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n'
for w in $WARMUPS; do
  for m in $MODELS; do
    extra=(--groups 2)
    [ "$m" = gsr ] && extra+=(--topk 8)
    # shellcheck disable=SC2086
    "$BIN/gsr" train $TRAIN --val $VAL --test $TEST --db "$dir/$m-$w.gsr" --target sp \
      --model "$m" --layers "$DEPTH" --hidden 64 "${extra[@]}" --epochs "$EPOCHS" \
      --patience "$PATIENCE" --lr 0.003 --warmup "$w" --seed "$SEED" --quiet --json \
      ${GSR_TRAIN_FLAGS:-} > "$dir/$m-$w.json" &
  done
  wait
  for m in $MODELS; do
    python3 - "$dir/$m-$w.json" "$m" "$DEPTH" "$w" <<'PY'
import json, sys
j = json.load(open(sys.argv[1])); t = j['test']
print('| %s | %s | %s | %.3f | %.3f | %.3f | %.3f | %d | %d | %.4f |' % (sys.argv[2], sys.argv[3],
      sys.argv[4], t['pearson'], t['spearman'], t['kendall'], t['mae'], j['best_epoch'],
      j['epochs_done'], j['val']['loss']))
PY
  done
done
