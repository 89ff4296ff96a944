#!/usr/bin/env bash
# Quality benchmark: train on some public circuits, test on circuits never seen, for the
# signal-probability target; gcn (3 layers) against res, rev and gsr at depth 32.
#   tests/bench/quality_bench.sh [BIN_DIR] [EPOCHS] [LAYERS] [PATIENCE]
# GSR_TRAIN_FLAGS adds flags to every run (e.g. "--device gpu"); GSR_QUALITY_MORE=1 trains on
# four more circuits (the larger-scale table of the GPU machine).
set -euo pipefail
BIN=${1:-build/release/bin}
EPOCHS=${2:-60}
DEPTH=${3:-32}
PATIENCE=${4:-20}
# shellcheck source=quality_split.sh
source "$(dirname "$0")/quality_split.sh"
DB=$(mktemp -d)/quality.gsr
printf '| model | layers | hidden | test Pearson | Spearman | Kendall | MAE | epochs | seconds |\n'
printf '|---|---:|---:|---:|---:|---:|---:|---:|---:|\n'
run() { # model layers extra...
  local model=$1 layers=$2; shift 2
  local t0=$SECONDS json
  # shellcheck disable=SC2086
  json=$("$BIN/gsr" train $TRAIN --val $VAL --test $TEST --db "$DB" --target sp --model "$model" \
      --layers "$layers" --hidden 64 --epochs "$EPOCHS" --patience "$PATIENCE" --lr 0.003 --seed 7 \
      --quiet --json ${GSR_TRAIN_FLAGS:-} "$@")
  local took=$((SECONDS - t0))
  echo "$json" | python3 -c "
import json, sys
j = json.load(sys.stdin)
t = j['test']  # the metrics at the epoch of best validation loss
print('| $model | $layers | 64 | %.3f | %.3f | %.3f | %.3f | %d | %d |' % (t['pearson'], t['spearman'], t['kendall'], t['mae'], j['epochs_done'], $took))
"
}
run gcn 3
run res "$DEPTH"
run rev "$DEPTH" --groups 2
run gsr "$DEPTH" --groups 2 --topk 8
