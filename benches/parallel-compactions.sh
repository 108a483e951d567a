#!/usr/bin/env bash
# Parallel compactions against one history file (issue #29): N sessions at once, each running
# save, restore and audit in turn as separate processes of the release binary, as the client
# runs them. Prints how many of the N compactions the history holds with all three steps (it
# keeps the last 50, finished ones first out), and the median and slowest hook wall times.
#
#   benches/parallel-compactions.sh            # N=200
#   N=50 benches/parallel-compactions.sh
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release --quiet --bin compact-guardian
bin=$PWD/target/release/compact-guardian
n=${N:-200}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export COMPACT_GUARDIAN_DIR="$work/store"
t="$work/t.jsonl"
printf '%s\n' \
  '{"type":"user","uuid":"u1","message":{"role":"user","content":"add a parser for the config file"}}' \
  '{"type":"assistant","uuid":"a1","parentUuid":"u1","message":{"content":[{"type":"tool_use","id":"t1","name":"TodoWrite","input":{"todos":[{"content":"parser","status":"in_progress"}]}}]}}' > "$t"
one() { # session: save, restore, audit; appends each hook's wall time (ms)
    local s=$1 h start
    for h in save restore audit; do  # restore refuses a stdout of /dev/null (D012): files
        start=$(date +%s%N)
        printf '{"session_id":"%s","transcript_path":"%s","hook_event_name":"x","source":"compact","compact_summary":"The parser is done."}' "$s" "$t" \
            | "$bin" "$h" > "$work/out.$s.$h" 2>&1
        echo $(( ($(date +%s%N) - start) / 1000000 )) >> "$work/times.$s"
    done
}
for i in $(seq 1 "$n"); do one "par-$i" & done
wait
cat "$work"/times.* | sort -n > "$work/all"
python3 - "$COMPACT_GUARDIAN_DIR/compact-guardian-history.json" "$work/all" "$n" <<'PY'
import json, sys
entries = json.load(open(sys.argv[1]))
times = [int(x) for x in open(sys.argv[2])]
n = int(sys.argv[3])
whole = sum(1 for e in entries if e.get("save_ran") and e.get("restored") == "snapshot" and e.get("audited"))
sessions = len({e["session"] for e in entries})
print(f"{n} parallel compactions: history holds {len(entries)} entries, {whole} with save, restore and audit, {sessions} distinct sessions")
print(f"hook wall time over {len(times)} hooks: median {times[len(times)//2]} ms, slowest {times[-1]} ms")
PY
