#!/usr/bin/env bash
# Whole-process benchmark: the release binary run as Claude Code runs it (a fresh process, hook JSON
# on stdin), on generated 2.1.3xx-layout transcripts of 1 MB, 100 MB, 1 GB, a "gap" file whose
# last five prompts are 10 MB apart, a "far" file whose prompts are 20 MiB apart, and long
# autonomous runs (issue #12): three prompts at the very start, then 80 MB or 400 MB of ~640-byte
# tool records, or 64 MiB of ~200-byte ones. Prints the median wall time of RUNS spawns
# (examples/spawn_bench: no shell in between, which would cost more than the binary) and the
# median peak RSS of 9 runs (GNU time), each beside a baseline run the same way on the same file:
#   - the autonomous runs beside `grep -c '"type":"user"' FILE` (one pass over the same bytes),
#   - the recent-prompt files beside `tail -c 2097152 FILE` (a process start plus reading the
#     2 MiB the original plugin read: the floor for the common case).
#
#   benches/whole-process.sh                      # ours only
#   ORIGINAL=/path/to/original/compact-guardian benches/whole-process.sh   # side by side
#   BEFORE=/path/to/an/older/compact-guardian benches/whole-process.sh    # another build too
#
# BEFORE is the last release's build (D037: dc6bfc4 until a release is tagged), built apart:
#   git worktree add /tmp/base-dc6bfc4 dc6bfc4 && (cd /tmp/base-dc6bfc4 && cargo build --release)
#   BEFORE=/tmp/base-dc6bfc4/target/release/compact-guardian benches/whole-process.sh
# Its saves run interleaved with this build's (examples/spawn_bench --vs: A B B A), so drift on
# a shared machine falls on both alike; the table shows each median and the ratio.
#
# ORIGINAL is a checkout of the original Python plugin (its scripts/compact_save.py and
# scripts/compact-restore.sh); it is run on the same files, in a throwaway HOME. Needs GNU time
# (/usr/bin/time, Debian package `time`) and python3. Data is cached in target/bench-data.
set -euo pipefail
cd "$(dirname "$0")/.."
[ -x /usr/bin/time ] || { echo "needs GNU time: apt-get install time" >&2; exit 1; }

cargo build --release --quiet --bin compact-guardian --example synth_transcript --example spawn_bench
spawn=$PWD/target/release/examples/spawn_bench
bin=$PWD/target/release/compact-guardian
data=$PWD/target/bench-data
mkdir -p "$data"
gen() { # name bytes [--gap bytes]
    [ -s "$data/$1.jsonl" ] || ./target/release/examples/synth_transcript "$2" "$data/$1.jsonl" "${@:3}"
}
gen 1mb 1048576
gen 100mb 104857600
gen 1gb 1073741824
gen gap 0 --gap 10485760
gen far 0 --gap 20971520   # prompts 20 MiB apart: save reads back about 100 MiB
gen auto80 80000000 --autonomous 640
gen auto400 400000000 --autonomous 640
gen tiny64 67108864 --autonomous 200
# Issue #16: the common case (recent prompts, no task tool; the 2.1.3xx layout with its running
# `tools-used` record), the same without `tools-used` (older CLIs: the task list must be searched
# for, 64 MiB back), and 64 MB of ~30-byte records of four shapes behind three prompts.
gen common200 209715200 --no-tasks
gen old200 209715200 --old-cli
[ -s "$data/old200.horizon" ] || tail -c 67108864 "$data/old200.jsonl" > "$data/old200.horizon"
tiny() { # name shape: 64 MB of 30-byte records after three prompts
    gen "$1" 64000000 --tiny "$2"
}
# Issue #17: Codex CLI rollouts whose prompts sit 8 MB and 80 MB back behind tool calls.
gen codex8 8000000 --codex 640
gen codex80 80000000 --codex 640
# Issue #26: adversarial prompts. `soup`: 2 MB of user records that are runs of wrapper tags side
# by side (quadratic before), behind the prompt. `shots`: 100 MB of ordinary session, then a
# prompt with four pasted screenshots (4.8 MB, over the line limit: read shrunk) as the newest.
gen soup 0 --soup
[ -s "$data/shots.jsonl" ] || { cat "$data/100mb.jsonl"; python3 -c '
import json
img = {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "iVBORw0KGgo" * 110000}}
rec = {"type": "user", "promptSource": "typed", "message": {"role": "user", "content": [img, img, img, img, {"type": "text", "text": "make the header match these screenshots"}]}, "uuid": "shots"}
print(json.dumps(rec, separators=(",", ":")))'; } > "$data/shots.jsonl"
tiny tiny30progress progress
tiny tiny30linked linked
tiny tiny30untyped untyped
tiny tiny30assistant assistant

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export COMPACT_GUARDIAN_DIR="$work/store" HOME="$work/home"
mkdir -p "$HOME/.claude"
runs=${RUNS:-50}
results="$work/results.tsv"

# Issue #31: the hook as the client runs it. The plugin is laid out as a marketplace install: its
# files in one folder, this build as its version's binary in the data folder. Exported as the
# client sets them (only the launcher reads them).
plugin="$work/plugin"
mkdir -p "$plugin" "$work/data"
cp -r plugin/bin plugin/lib plugin/.claude-plugin "$plugin/"
version=$(sed -n 's/^version = "\(.*\)"$/\1/p' Cargo.toml | head -n 1)
mkdir -p "$work/data/bin/$version"
cp "$bin" "$work/data/bin/$version/compact-guardian"
hook_cmd='"${CLAUDE_PLUGIN_ROOT}/bin/compact-guardian" save' # as plugin/hooks/hooks.json has it
export CLAUDE_PLUGIN_ROOT=$plugin CLAUDE_PLUGIN_DATA=$work/data

input() { # name -> hook input path
    printf '{"session_id":"bench-%s","transcript_path":"%s","cwd":"/home/dev/project","hook_event_name":"PreCompact","trigger":"auto","source":"compact"}\n' "$1" "$data/$1.jsonl" > "$work/$1.json"
    echo "$work/$1.json"
}

peak_kb() { # stdin-file command... -> median peak RSS (KB) of 9 runs
    local in=$1; shift
    for run in 1 2 3 4 5 6 7 8 9; do : "$run"; /usr/bin/time -f %M "$@" < "$in" 2>&1 >/dev/null | tail -n 1; done | sort -n | sed -n 5p
}

bench() { # label stdin-file prepare(or "") command...
    local label=$1 in=$2 prep=$3; shift 3
    local median
    if [ -n "$prep" ]; then
        median=$("$spawn" "$runs" "$in" --prepare "$prep" -- "$@" | cut -f1)
        sh -c "$prep"
    else
        median=$("$spawn" "$runs" "$in" -- "$@" | cut -f1)
    fi
    printf '%s\t%s\t%s\n' "$label" "$median" "$(peak_kb "$in" "$@")" >> "$results"
}

bench_vs_before() { # label stdin-file subcommand: this build and BEFORE, runs interleaved
    local label=$1 in=$2 sub=$3 both
    both=$("$spawn" "$runs" "$in" -- "$bin" "$sub" --vs "$BEFORE" "$sub")
    printf '%s\t%s\t%s\t%s\n' "$label" "$(cut -f1 <<< "$both")" "$(peak_kb "$in" "$bin" "$sub")" "$(cut -f3 <<< "$both")" >> "$results"
    printf 'before %s\t%s\t%s\t%s\n' "$label" "$(cut -f4 <<< "$both")" "$(peak_kb "$in" "$BEFORE" "$sub")" "$(cut -f6 <<< "$both")" >> "$results"
}

evict() { # drops a file from the page cache (a cold read)
    printf "python3 -c 'import os; fd = os.open(\"%s\", os.O_RDONLY); os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)'" "$1"
}



for name in ${CASES:-1mb 100mb 1gb gap far auto80 auto400 tiny64 common200 old200 tiny30progress tiny30linked tiny30untyped tiny30assistant codex8 codex80 soup shots}; do
    in=$(input "$name")
    if [ -n "${BEFORE:-}" ]; then
        bench_vs_before "save $name" "$in" save
    else
        bench "save $name" "$in" "" "$bin" save
    fi
    case $name in
    auto* | tiny* | codex* | soup) bench "grep $name" /dev/null "" grep -c '"type":"user"' "$data/$name.jsonl" ;;
    1mb | 100mb | 1gb | common200) bench "tail2m $name" /dev/null "" tail -c 2097152 "$data/$name.jsonl" ;;
    shots) bench "tail6m $name" /dev/null "" tail -c 6291456 "$data/$name.jsonl" ;;
    old200) bench "grep4 $name" /dev/null "" grep -c -F -e TodoWrite -e TaskCreate -e TaskUpdate -e ExitPlanMode "$data/old200.horizon" ;;
    esac
    case $name in
    common200 | codex8)
        # The hook as run: sh -c and the launcher (fast path: the data folder's launcher-found,
        # written by the first run), the launcher's first run (none: the full search), and sh -c running the
        # binary directly (the client's shell alone).
        sh -c "$hook_cmd" < "$in" > /dev/null
        bench "hook save $name" "$in" "" sh -c "$hook_cmd"
        bench "hook-first save $name" "$in" "rm -f $CLAUDE_PLUGIN_DATA/launcher-found" sh -c "$hook_cmd"
        bench "sh-binary save $name" "$in" "" sh -c "\"$bin\" save"
        ;;
    esac
    case $name in
    common200)
        bench "cold save $name" "$in" "$(evict "$data/$name.jsonl")" "$bin" save
        bench "cold tail2m $name" /dev/null "$(evict "$data/$name.jsonl")" tail -c 2097152 "$data/$name.jsonl"
        ;;
    old200)
        bench "cold save $name" "$in" "$(evict "$data/$name.jsonl")" "$bin" save
        bench "cold grep4 $name" /dev/null "$(evict "$data/old200.horizon")" grep -c -F -e TodoWrite -e TaskCreate -e TaskUpdate -e ExitPlanMode "$data/old200.horizon"
        ;;
    esac
    bench "restore $name" "$in" "$bin save < $in > /dev/null" "$bin" restore
    bench "preview $name" /dev/null "" "$bin" preview "$data/$name.jsonl"
    if [ -n "${ORIGINAL:-}" ]; then
        bench "original save $name" "$in" "" python3 "$ORIGINAL/scripts/compact_save.py"
        bench "original restore $name" "$in" "python3 $ORIGINAL/scripts/compact_save.py < $in" bash "$ORIGINAL/scripts/compact-restore.sh"
    fi
done

echo "machine: $(nproc) cores, $(awk '/MemTotal/ {printf "%.0f GiB", $2/1048576}' /proc/meminfo), $(sed -n 's/^model name\s*: //p' /proc/cpuinfo | head -n 1); warm page cache; $runs runs each"
python3 - "$results" <<'PY'
import sys
rows = [l.rstrip("\n").split("\t") for l in open(sys.argv[1])]
def base_kind(label):
    words = label.split(" ")
    return words[1] if words[0] == "cold" else words[0]
floors = {r[0]: r for r in rows if base_kind(r[0]) in ("grep", "tail2m", "tail6m", "grep4")}
print("| case | compact-guardian median | peak RSS | baseline | baseline median | ratio |")
print("|---|---:|---:|---|---:|---:|")
for r in rows:
    cold = r[0].startswith("cold save ")
    if not (r[0].startswith("save ") or cold):
        continue
    name = r[0].split("save ", 1)[1]
    prefix = "cold " if cold else ""
    for kind, what in (("grep", "grep -c '\"type\":\"user\"'"), ("tail2m", "tail -c 2097152"),
                       ("tail6m", "tail -c 6291456 (the shrunk record and the window)"),
                       ("grep4", "grep -c -F (4 task/plan names), last 64 MiB")):
        f = floors.get(f"{prefix}{kind} {name}")
        if f:
            print(f"| {prefix}save {name} | {float(r[1]):.2f} ms | {int(r[2])/1024:.1f} MiB | {prefix}{what} | {float(f[1]):.2f} ms | {float(r[1])/float(f[1]):.2f}x |")
print()
hooks = [r for r in rows if r[0].split(" ")[0] in ("hook", "hook-first", "sh-binary")]
if hooks:
    alone = {r[0]: r for r in rows if r[0].startswith("save ")}
    print("| the hook as the client runs it | median | peak RSS | binary alone | added |")
    print("|---|---:|---:|---:|---:|")
    what = {"hook": "sh -c + launcher (fast path)", "hook-first": "sh -c + launcher (first run: full search)",
            "sh-binary": "sh -c + binary (no launcher)"}
    for r in hooks:
        kind, _, name = r[0].split(" ", 2)
        a = alone.get(f"save {name}")
        if a:
            print(f"| {name}: {what[kind]} | {float(r[1]):.2f} ms | {int(r[2])/1024:.1f} MiB | {float(a[1]):.2f} ms | {float(r[1]) - float(a[1]):+.2f} ms |")
    print()
rows = [r for r in rows if r not in hooks]
before = {r[0][len("before "):]: r for r in rows if r[0].startswith("before ")}
if before:
    print("| case | this build median | peak RSS | before median | before peak RSS | ratio | CPU time: this build, before | CPU ratio |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    for r in rows:
        b = before.get(r[0])
        if b:
            cpu = len(r) > 3 and len(b) > 3 and "-" not in (r[3], b[3])
            cpus = f"{float(r[3]):.2f} ms, {float(b[3]):.2f} ms | {float(r[3])/float(b[3]):.2f}x" if cpu else " | "
            print(f"| {r[0]} | {float(r[1]):.2f} ms | {int(r[2])/1024:.1f} MiB | {float(b[1]):.2f} ms | {int(b[2])/1024:.1f} MiB | {float(r[1])/float(b[1]):.2f}x | {cpus} |")
    print()
rows = [r for r in rows if r[0] not in floors and not r[0].startswith("before ")]
ours = {r[0]: r for r in rows if not r[0].startswith(("original ", "cold "))}
base = {r[0][len("original "):]: r for r in rows if r[0].startswith("original ")}
print("| case | compact-guardian median | peak RSS | original median | original peak RSS | speed-up |")
print("|---|---:|---:|---:|---:|---:|")
for key, row in ours.items():
    ms, kb = row[1], row[2]
    o = base.get(key)
    if o:
        print(f"| {key} | {float(ms):.2f} ms | {int(kb)/1024:.1f} MiB | {float(o[1]):.1f} ms | {int(o[2])/1024:.1f} MiB | {float(o[1])/float(ms):.0f}x |")
    else:
        print(f"| {key} | {float(ms):.2f} ms | {int(kb)/1024:.1f} MiB | | | |")
PY
