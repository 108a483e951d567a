#!/usr/bin/env bash
# The instruction-count guard (#40, D039): how many instructions one hook run takes on each
# shape of session, counted by valgrind's callgrind (the same count on every run of the same
# build on the same machine, whatever else the machine is doing), against the counts committed in
# benches/instructions.tsv. A count more than 10% above its baseline fails; one more than 10%
# below is reported, so the baseline can be lowered.
#
#   benches/instructions.sh                 # this build against benches/instructions.tsv
#   benches/instructions.sh --bless         # write this build's counts into it
#   benches/instructions.sh --bless save-soup restore   # only these cases' counts
#   BIN=/path/to/compact-guardian BUILD=dc6bfc4 benches/instructions.sh --bless
#                                           # another build's counts (the last release's, D039)
#   CASES="save-common restore" benches/instructions.sh   # only these cases
#
# The inputs are small (a few MB, generated deterministically by examples/synth_transcript into
# target/instr-data), the hooks run without a deadline (COMPACT_GUARDIAN_TEST_UNBOUNDED; an older
# build without it gets an hour's budget), each in a fresh snapshot folder. Counts depend on the
# compiler, the C library and the processor's features (memchr picks its searcher at run time):
# the baselines say where they were taken, and a change of any of those is a reason to bless.
# Updating a count goes with a line in CHANGELOG.md saying why, in the same commit (.ci/run checks).
set -euo pipefail
cd "$(dirname "$0")/.."
command -v valgrind > /dev/null || {
    echo "needs valgrind (Debian: apt-get install valgrind)" >&2
    exit 2
}
bless=false
if [ "${1:-}" = --bless ]; then
    bless=true
    shift
fi
only=" $* " # with --bless: the cases to write (none named: all)
baseline=benches/instructions.tsv
cargo build --release --quiet --bin compact-guardian --example synth_transcript
bin=${BIN:-$PWD/target/release/compact-guardian}
synth=$PWD/target/release/examples/synth_transcript
data=$PWD/target/instr-data
mkdir -p "$data"
gen() { # name bytes [flags...]
    [ -s "$data/$1.jsonl" ] || "$synth" "$2" "$data/$1.jsonl" "${@:3}" 2> /dev/null
}
gen common 4194304 --no-tasks
gen tasks 1048576
gen autonomous 4000000 --autonomous 640
gen deep 0 --gap 1048576
gen codex 4000000 --codex 640
gen soup 0 --soup
for shape in progress linked untyped assistant; do gen "tiny30$shape" 2000000 --tiny "$shape"; done

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fresh() { # a new snapshot folder and home for the next run
    rm -rf "${work:?}/store" "${work:?}/home"
    mkdir -p "$work/home"
}
# Each run gets only these variables: the C library's start reads every variable of the
# environment (about a thousand instructions each), so a machine with more of them would count
# more for the same build (D088).
hook_env=(env -i "PATH=$PATH" "COMPACT_GUARDIAN_DIR=$work/store" "HOME=$work/home"
    COMPACT_GUARDIAN_TEST_UNBOUNDED=1 COMPACT_GUARDIAN_BUDGET_MS=3600000)
run() { # stdin-file command...: one run, as a hook, in the current folder and home
    "${hook_env[@]}" "${@:2}" < "$1" > /dev/null 2>&1
}
count() { # stdin-file command...: the instructions of one run under callgrind
    "${hook_env[@]}" valgrind --tool=callgrind \
        --callgrind-out-file=/dev/null "${@:2}" < "$1" > /dev/null 2> "$work/valgrind.log"
    sed -n 's/^==[0-9]*== Collected : \([0-9]*\)$/\1/p' "$work/valgrind.log"
}
hook() { # name event transcript [extra JSON members]: a hook input file
    printf '{"session_id":"guard-%s","transcript_path":"%s","cwd":"/home/dev/project","hook_event_name":"%s"%s}\n' \
        "$1" "$3" "$2" "${4:-}" > "$work/$1.json"
    echo "$work/$1.json"
}

results=$work/results.tsv
cases="save-common save-autonomous save-deep save-codex save-soup save-tiny30progress save-tiny30linked save-tiny30untyped save-tiny30assistant restore correct-idle correct-handover"
wanted() { [ -z "${CASES:-}" ] || [[ " $CASES " == *" $1 "* ]]; }
measure() { # case count
    [ -n "$2" ] || {
        echo "no count for $1 (see $work/valgrind.log)" >&2
        cat "$work/valgrind.log" >&2
        exit 2
    }
    printf '%s\t%s\n' "$1" "$2" >> "$results"
    printf '%-24s %12s\n' "$1" "$2"
}

echo "instructions per hook run ($bin):"
for shape in common autonomous deep codex soup tiny30progress tiny30linked tiny30untyped tiny30assistant; do
    wanted "save-$shape" || continue
    fresh
    in=$(hook "$shape" PreCompact "$data/$shape.jsonl" ',"trigger":"auto"')
    measure "save-$shape" "$(count "$in" "$bin" save)"
done
# Restore: the common case's snapshot printed (its save not counted).
if wanted restore; then
    fresh
    run "$(hook restore PreCompact "$data/common.jsonl" ',"trigger":"auto"')" "$bin" save
    measure restore "$(count "$(hook restore SessionStart "$data/common.jsonl" ',"source":"compact"')" "$bin" restore)"
fi
# Correct (not in builds before #27): after every tool call with nothing waiting, and handing
# the corrections over at the next prompt after an audit of a summary that calls all work done.
has_correct=false
"$bin" --help 2> /dev/null | grep -q '^  correct' && has_correct=true
if $has_correct && wanted correct-idle; then
    fresh
    # A command as Claude Code reports it: its outcome goes to the session's ledger (D083).
    in=$(hook idle PostToolUse "$data/tasks.jsonl" ',"tool_name":"Bash","tool_input":{"command":"cargo test --workspace","description":"Run the tests"},"tool_response":{"stdout":"test result: ok. 42 passed; 0 failed","stderr":"","interrupted":false,"isImage":false},"tool_use_id":"toolu_01AbCdEfGhIjKlMnOpQrStUv","duration_ms":1234}')
    measure correct-idle "$(count "$in" "$bin" correct)"
fi
if $has_correct && wanted correct-handover; then
    fresh
    run "$(hook handover PreCompact "$data/tasks.jsonl" ',"trigger":"manual"')" "$bin" save
    run "$(hook handover SessionStart "$data/tasks.jsonl" ',"source":"compact"')" "$bin" restore
    run "$(hook handover PostCompact "$data/tasks.jsonl" ',"trigger":"manual","compact_summary":"All tasks are complete."')" "$bin" audit
    [ -n "$(find "$work/store" -name '*correction*' 2> /dev/null)" ] || {
        echo "the audit kept no corrections to hand over" >&2
        exit 2
    }
    measure correct-handover "$(count "$(hook handover UserPromptSubmit "$data/tasks.jsonl" ',"prompt":"go on"')" "$bin" correct)"
fi

if $bless; then
    build=${BUILD:-$(git rev-parse --short HEAD)$(git diff --quiet HEAD -- src Cargo.lock || echo +changes)}
    where="$(uname -m) $(grep -q avx2 /proc/cpuinfo 2> /dev/null && echo AVX2), $(rustc --version | cut -d' ' -f1-2), $(ldd --version 2> /dev/null | head -n 1 | sed 's/.* //' | sed 's/^/glibc /')"
    tmp=$work/baseline.tsv
    # The header kept; each chosen case's line replaced, the others kept; in the cases' order.
    declare -A line
    while IFS=$'\t' read -r name rest; do
        line[$name]="$name	$rest"
    done < <(grep -v '^#' "$baseline" 2> /dev/null || true)
    chosen() { [ "$only" = "  " ] || [[ $only == *" $1 "* ]]; }
    while IFS=$'\t' read -r name n; do
        if chosen "$name"; then line[$name]="$name	$n	$build	$where"; fi
    done < "$results"
    { grep '^#' "$baseline" 2> /dev/null || true; } > "$tmp"
    for name in $cases; do
        if [ -n "${line[$name]:-}" ]; then echo "${line[$name]}" >> "$tmp"; fi
    done
    mv "$tmp" "$baseline"
    echo "wrote $baseline (build $build): say why in CHANGELOG.md, in the same commit"
    exit 0
fi

[ -f "$baseline" ] || {
    echo "no $baseline: run benches/instructions.sh --bless" >&2
    exit 2
}
failed=0
echo
printf '%-24s %12s %12s %7s  %s\n' case baseline now ratio "baseline from"
while IFS=$'\t' read -r name n; do
    line=$(grep "^$name	" "$baseline" || true)
    if [ -z "$line" ]; then
        echo "$name: no baseline in $baseline (run --bless and say why in CHANGELOG.md)"
        failed=1
        continue
    fi
    base=$(cut -f2 <<< "$line")
    from=$(cut -f3 <<< "$line")
    ratio=$(awk -v a="$n" -v b="$base" 'BEGIN { printf "%.3f", a / b }')
    verdict=""
    if awk -v r="$ratio" 'BEGIN { exit !(r > 1.10) }'; then
        verdict="  MORE THAN 10% OVER"
        failed=1
    elif awk -v r="$ratio" 'BEGIN { exit !(r < 0.90) }'; then
        verdict="  (more than 10% under: the baseline can be lowered)"
    fi
    printf '%-24s %12s %12s %6sx  %s%s\n' "$name" "$base" "$n" "$ratio" "$from" "$verdict"
done < "$results"
if [ "$failed" != 0 ]; then
    echo >&2
    echo "instruction counts over their baselines: find the cause, or if the cost is meant, run" >&2
    echo "benches/instructions.sh --bless and say why in CHANGELOG.md in the same commit." >&2
    exit 1
fi
echo "every count within 10% of its baseline"
