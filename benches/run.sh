#!/bin/sh
# One run of every benchmark of benches/README.md, then its tables.
#
#   benches/run.sh [MEASUREMENT_SECONDS]     # default 2
#
# 1. criterion: `cargo bench -p tfvalue --bench msgpack`, `--bench json` and `--bench convert`,
#    warm-up 1 s and MEASUREMENT_SECONDS per benchmark (the large workloads take 10
#    samples of one iteration each, see benches/common/mod.rs);
# 2. callgrind: each bench binary under `valgrind --tool=callgrind
#    --toggle-collect='<bench>::op_*'`, once per workload in $CALLGRIND_WORKLOADS (default
#    `small deep_tags`; `wide` works too but takes long), with `--profile-time 1`;
# 3. benches/table.py on both, printing the tables; with README=1 it writes them into
#    benches/README.md (between the bench-tables markers) instead.
#
# Everything goes to $CARGO_TARGET_DIR (default ./target): criterion/ and
# bench-run/ (callgrind outputs, logs, tables.md).
# Environment: WARM_UP (seconds, default 1), CALLGRIND_WORKLOADS, SKIP_CRITERION=1,
# SKIP_CALLGRIND=1, README=1.
set -eu

cd "$(dirname "$0")/.."
MEASUREMENT=${1:-2}
WARM_UP=${WARM_UP:-1}
CALLGRIND_WORKLOADS=${CALLGRIND_WORKLOADS:-small deep_tags}
CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-$PWD/target}
export CARGO_TARGET_DIR
OUT=$CARGO_TARGET_DIR/bench-run
mkdir -p "$OUT"
START=$(date +%s)
LOAD_START=$(cut -d' ' -f1-3 /proc/loadavg)

log() { echo "run.sh: $* ($(($(date +%s) - START)) s)" >&2; }

# The bench binaries, built once (release profile with debug info, see Cargo.toml).
cargo bench -p tfvalue --bench msgpack --bench json --bench convert --no-run --message-format=json \
    >"$OUT/build.json"
binary() {
    python3 -c '
import json, sys
for line in open(sys.argv[1]):
    m = json.loads(line)
    if m.get("reason") == "compiler-artifact" and m["target"]["name"] == sys.argv[2] \
            and "bench" in m["target"]["kind"] and m.get("executable"):
        print(m["executable"])
' "$OUT/build.json" "$1" | tail -n 1
}
MSGPACK=$(binary msgpack)
JSON=$(binary json)
CONVERT=$(binary convert)
log "built $MSGPACK, $JSON and $CONVERT"

if [ "${SKIP_CRITERION:-0}" != 1 ]; then
    for bench in msgpack json convert; do
        log "criterion: $bench, measurement ${MEASUREMENT} s"
        cargo bench -p tfvalue --bench "$bench" -- \
            --warm-up-time "$WARM_UP" --measurement-time "$MEASUREMENT" \
            >"$OUT/criterion.$bench.log" 2>&1 ||
            { tail -n 30 "$OUT/criterion.$bench.log" >&2; exit 1; }
    done
fi

if [ "${SKIP_CALLGRIND:-0}" != 1 ]; then
    rm -f "$OUT"/callgrind.*.out
    for workload in $CALLGRIND_WORKLOADS; do
        for bench in msgpack json convert; do
            case $bench in
                msgpack) bin=$MSGPACK ;;
                json) bin=$JSON ;;
                *) bin=$CONVERT ;;
            esac
            log "callgrind: $bench on $workload"
            # Only this workload is built (TFVALUE_BENCH_WORKLOADS) and measured (the
            # filter); instructions are counted inside the op_* functions only.
            TFVALUE_BENCH_WORKLOADS=$workload valgrind --tool=callgrind \
                --callgrind-out-file="$OUT/callgrind.$bench.$workload.out" \
                --toggle-collect="$bench::op_*" \
                "$bin" --bench --profile-time 1 "^$workload/" \
                >"$OUT/callgrind.$bench.$workload.log" 2>&1 ||
                { tail -n 30 "$OUT/callgrind.$bench.$workload.log" >&2; exit 1; }
        done
    done
fi

ELAPSED=$(($(date +%s) - START))
NOTE="One run of \`benches/run.sh $MEASUREMENT\` ($(date -u +%Y-%m-%d), commit \
$(git rev-parse --short HEAD 2>/dev/null || echo '?'), $(rustc -V | cut -d' ' -f1-2), \
$(nproc) cores, load average $LOAD_START at the start and \
$(cut -d' ' -f1-3 /proc/loadavg) at the end, $ELAPSED s in all; criterion 0.5 with \
warm-up $WARM_UP s and measurement $MEASUREMENT s; callgrind on $CALLGRIND_WORKLOADS)."

set -- --criterion "$CARGO_TARGET_DIR/criterion" --callgrind "$OUT" --note "$NOTE"
python3 benches/table.py "$@" >"$OUT/tables.md"
if [ "${README:-0}" = 1 ]; then
    python3 benches/table.py "$@" --readme benches/README.md
fi
cat "$OUT/tables.md"
log "done; tables in $OUT/tables.md"
