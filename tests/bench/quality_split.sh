# The quality benchmark's split (sourced by quality_bench.sh and gsr_topk_sweep.sh): training
# circuits, validation circuits and test circuits never seen, from ../shared/data (or
# GSR_DATA_DIR). GSR_QUALITY_MORE=1 adds four larger training circuits.
D=${GSR_DATA_DIR:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)/shared/data}/netlists
TRAIN="$D/iscas85/bench/c432.bench $D/iscas85/bench/c880.bench $D/iscas85/bench/c1355.bench
       $D/iscas85/bench/c1908.bench $D/epfl/random_control/cavlc.blif $D/epfl/random_control/int2float.blif
       $D/epfl/random_control/priority.blif $D/epfl/random_control/router.blif"
if [ "${GSR_QUALITY_MORE:-0}" = 1 ]; then
  TRAIN="$TRAIN $D/epfl/arithmetic/adder.blif $D/epfl/arithmetic/bar.blif
         $D/epfl/arithmetic/sin.blif $D/itc99/b14.bench"
fi
VAL="$D/epfl/random_control/ctrl.blif $D/epfl/random_control/dec.blif"
TEST="$D/iscas85/bench/c6288.bench $D/epfl/random_control/i2c.blif $D/epfl/arithmetic/max.blif"
