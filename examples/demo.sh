#!/bin/sh
# Builds compact-guardian and runs it on the bundled example session exactly as Claude Code would:
# the PreCompact hook input goes to `save`, then the SessionStart(compact) input goes to `restore`,
# which prints the snapshot the model would read after compaction.
set -e
cd "$(dirname "$0")/.."
if [ ! -x target/release/compact-guardian ]; then
    echo "### building compact-guardian (release; the first build compiles its dependencies too)" >&2
fi
cargo build --release
store=$(mktemp -d)
trap 'rm -rf "$store"' EXIT
export COMPACT_GUARDIAN_DIR="$store"
echo
echo "### save (PreCompact hook); its stdout goes to the summarizer:"
./target/release/compact-guardian save < examples/precompact.json
echo
echo "### restore (SessionStart hook, matcher compact); its stdout goes to the model:"
# --text: the snapshot as the model reads it (Claude Code itself gets it wrapped in JSON, with a
# line for the user beside it).
./target/release/compact-guardian restore --text < examples/sessionstart.json
