#!/usr/bin/env bash
# The kernel lab on the GPU (issue 7): calibration, the planted corpus through `gsr kernels
# verify`, SOL-guided tuning of the suite against its baselines, and SOL-guided search against
# the exhaustive grid of the same space. Writes sessions and a summary under OUTDIR.
# Usage: tests/bench/kernel_lab.sh BIN_DIR OUTDIR [BUDGET] [EXHAUSTIVE_PROBLEMS]
set -uo pipefail
bin=$1 out=$2 budget=${3:-40}
exhaustive=${4-"ew_bias_gelu_residual softmax_1k spmm_w64"}
here=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$out"
status=0 # every step runs; the script fails if any did (it used to exit 0 whatever happened)
if ! "$bin/gsr" kernels calibrate --json > "$out/calibrate.json"; then
  echo "FAILED: gsr kernels calibrate"
  exit 1 # T_SOL below needs the measured peaks
fi
cat "$out/calibrate.json"
cal=(--calibration "$out/calibrate.json")  # T_SOL from the measured peaks

echo "== planted corpus (gsr kernels verify; exit 3 = not ok, anything else = the CLI died)"
python3 - "$bin/gsr" "$here/kernels/planted" "$out" <<'PY' || status=1
import json, subprocess, sys
gsr, planted, out = sys.argv[1:4]
m = json.load(open(f"{planted}/manifest.json"))
right = 0
for k in m["kernels"]:
    r = subprocess.run([gsr, "kernels", "verify", f"{planted}/{k['file']}", "--problem",
                        k["problem"], "--entry", k["entry"], "--grid", k["launch"]["grid"],
                        "--block", str(k["launch"]["block"]), "--timeout", "8", "--json"],
                       capture_output=True, text=True)
    survived = r.returncode in (0, 3)
    try:
        verdict = json.loads(r.stdout)["candidates"][0]["verdict"]
    except Exception:
        verdict = f"(no JSON, exit {r.returncode}) {r.stderr[-200:]}"
    ok = survived and verdict in [k["expected"]] + k["also_acceptable"]
    right += ok
    print(f"{k['file']:26s} expected {k['expected']:17s} got {verdict:17s} exit {r.returncode}"
          f" {'OK' if ok else 'WRONG'}")
print(f"planted: {right}/{len(m['kernels'])} right verdicts, CLI survived every worker crash")
sys.exit(0 if right == len(m["kernels"]) else 1)
PY

"$bin/gsr" kernels suite --json > "$out/suite.json" ||
  { echo "FAILED: gsr kernels suite"; exit 1; } # every step below needs the suite
problems=$(python3 -c 'import json,sys; print(" ".join(p["name"] for p in json.load(open(sys.argv[1]))["problems"] if p["name"] != "gemm_bias_relu"))' "$out/suite.json")
space() { python3 -c 'import json,sys; print([p["config_space"] for p in json.load(open(sys.argv[1]))["problems"] if p["name"] == sys.argv[2]][0])' "$out/suite.json" "$1"; }
for p in $problems; do
  "$bin/gsr" kernels tune "$p" --strategy sol --budget "$budget" --seed 1 "${cal[@]}" \
    --out "$out/sol-$p.json" > "$out/sol-$p.log" 2>&1 || { echo "FAILED: tune $p"; status=1; }
  tail -2 "$out/sol-$p.log"
done
# SOL-guided search capped only by the space (it stops by itself) against the exhaustive grid.
for p in $exhaustive; do
  n=$(space "$p")
  "$bin/gsr" kernels tune "$p" --strategy sol --budget "$n" --seed 1 "${cal[@]}" \
    --out "$out/solfree-$p.json" > "$out/solfree-$p.log" 2>&1 ||
    { echo "FAILED: tune $p (sol)"; status=1; }
  tail -1 "$out/solfree-$p.log"
  "$bin/gsr" kernels tune "$p" --strategy grid --budget "$n" --seed 1 "${cal[@]}" \
    --out "$out/grid-$p.json" > "$out/grid-$p.log" 2>&1 ||
    { echo "FAILED: tune $p (grid)"; status=1; }
  tail -2 "$out/grid-$p.log"
done

python3 - "$out" $problems -- $exhaustive <<'PY'
import json, sys
out = sys.argv[1]
args = sys.argv[2:]
cut = args.index("--")
problems, exhaustive = args[:cut], args[cut + 1:]
def best(s):
    ok = [c for c in s["candidates"] if c["verdict"] == "ok" and c["seconds"] > 0]
    return min(ok, key=lambda c: c["seconds"]) if ok else None
print("\n| problem | T_SOL us | baseline us | best us | % of SOL | vs baseline | trials | stop |")
print("|---|---|---|---|---|---|---|---|")
for p in problems:
    try:
        s = json.load(open(f"{out}/sol-{p}.json"))
    except Exception as e:
        print(f"| {p} | (no session: {e}) |"); continue
    b = best(s)
    base = s.get("baseline_seconds", 0)
    if b:
        print(f"| {p} | {s['t_sol']*1e6:.2f} | {base*1e6:.2f} | {b['seconds']*1e6:.2f} | "
              f"{100*s['t_sol']/b['seconds']:.1f} | {base/b['seconds'] if base else float('nan'):.2f}x | "
              f"{len(s['candidates'])} | {s['stop_reason']} |")
    else:
        print(f"| {p} | {s['t_sol']*1e6:.2f} | {base*1e6:.2f} | none verified | | | {len(s['candidates'])} | {s['stop_reason']} |")
print("\n| problem | exhaustive best us (trials) | SOL-guided best us (trials) | quality | trial share |")
print("|---|---|---|---|---|")
for p in exhaustive:
    try:
        g = json.load(open(f"{out}/grid-{p}.json")); s = json.load(open(f"{out}/solfree-{p}.json"))
    except Exception as e:
        print(f"| {p} | (missing: {e}) |"); continue
    bg, bs = best(g), best(s)
    if bg and bs:
        print(f"| {p} | {bg['seconds']*1e6:.2f} ({len(g['candidates'])}) | {bs['seconds']*1e6:.2f} "
              f"({len(s['candidates'])}) | {100*bg['seconds']/bs['seconds']:.1f}% | "
              f"{100*len(s['candidates'])/len(g['candidates']):.0f}% |")
PY
# One archive, so every session comes back from the device.
tar -C "$out" -czf "$out/../lab-sessions.tar.gz" .
exit "$status"
