# shellcheck shell=bash disable=SC2034
# The quality benchmark's split (sourced by quality_bench.sh, gsr_topk_sweep.sh and
# quality_seeds.sh): training circuits, validation circuits and test circuits never seen, from
# ../shared/data (or GSR_DATA_DIR). GSR_QUALITY_MORE=1 adds four larger training circuits.
# GSR_QUALITY_SPLIT=wide sets TRAIN and VAL to WIDE_TRAIN and WIDE_VAL (below); TEST is the
# same in every split, so the test circuits stay never seen and the figures comparable.
D=${GSR_DATA_DIR:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)/shared/data}/netlists
TRAIN="$D/iscas85/bench/c432.bench $D/iscas85/bench/c880.bench $D/iscas85/bench/c1355.bench
       $D/iscas85/bench/c1908.bench $D/epfl/random_control/cavlc.blif $D/epfl/random_control/int2float.blif
       $D/epfl/random_control/priority.blif $D/epfl/random_control/router.blif"
VAL="$D/epfl/random_control/ctrl.blif $D/epfl/random_control/dec.blif"
TEST="$D/iscas85/bench/c6288.bench $D/epfl/random_control/i2c.blif $D/epfl/arithmetic/max.blif"
# The lower-variance split (BENCHMARKS.md, "gsr against rev, lower-variance protocol"): the
# 494 validation nodes of ctrl and dec (dec's signal probabilities are nearly all 1/256) make
# early stopping pick a noisy epoch, so the validation set adds 3,167 nodes: EPFL adder
# (arithmetic, like c6288 and max) and two OpenABC-D designs; training adds 6,748 nodes: EPFL
# bar and two more OpenABC-D designs. All combinational, none a test circuit.
WIDE_TRAIN="$TRAIN $D/epfl/arithmetic/bar.blif $D/openabcd/simple_spi_orig.bench
            $D/openabcd/sasc_orig.bench"
WIDE_VAL="$VAL $D/epfl/arithmetic/adder.blif $D/openabcd/usb_phy_orig.bench
          $D/openabcd/ss_pcm_orig.bench"
if [ "${GSR_QUALITY_SPLIT:-}" = wide ]; then
  TRAIN=$WIDE_TRAIN
  VAL=$WIDE_VAL
fi
if [ "${GSR_QUALITY_MORE:-0}" = 1 ]; then
  if [ "${GSR_QUALITY_SPLIT:-}" = wide ]; then # adder and bar have their roles there already
    TRAIN="$TRAIN $D/epfl/arithmetic/sin.blif $D/itc99/b14.bench"
  else
    TRAIN="$TRAIN $D/epfl/arithmetic/adder.blif $D/epfl/arithmetic/bar.blif
           $D/epfl/arithmetic/sin.blif $D/itc99/b14.bench"
  fi
fi
