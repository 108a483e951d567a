#!/bin/sh
# probe.sh EVENT: logs the hook's stdin, its start time and a copy of the transcript to $PROBE_DIR,
# then prints what the run asks for: PROBE_PRECOMPACT_OUT = plain (default) | json | jsonsys |
# jsonsuppress | stderr | none; PROBE_SS_OUT = json (default) | plain | big (PROBE_SS_SIZE chars of
# additionalContext) | none; PROBE_POSTCOMPACT_OUT = plain (default) | json | none;
# PROBE_SLEEP_<EVENT> = seconds to wait first. bin/early has already copied the transcript.
T0=$(date +%s.%N)
EV=$1
D=${PROBE_DIR:-/tmp/probe}
IN=$(cat)
TP=$(printf '%s' "$IN" | sed -n 's/.*"transcript_path": *"\([^"]*\)".*/\1/p' | head -n1)
K="$T0-$$-$EV"
mkdir -p "$D/tx" "$D/in"
if [ -n "$TP" ] && [ -f "$TP" ]; then cp "$TP" "$D/tx/$K.jsonl"; fi
T1=$(date +%s.%N)
printf '%s' "$IN" > "$D/in/$K.json"
SZ=$( [ -f "$D/tx/$K.jsonl" ] && wc -c < "$D/tx/$K.jsonl" || echo -1)
LN=$( [ -f "$D/tx/$K.jsonl" ] && wc -l < "$D/tx/$K.jsonl" || echo -1)
printf '{"event":"%s","t":%s,"t_copied":%s,"key":"%s","size":%s,"lines":%s}\n' "$EV" "$T0" "$T1" "$K" $SZ $LN >> "$D/hooks.jsonl"
eval "SL=\${PROBE_SLEEP_$EV:-0}"
[ "$SL" != 0 ] && sleep "$SL"
case "$EV" in
PreCompact)
  case "${PROBE_PRECOMPACT_OUT:-plain}" in
  plain) printf 'PROBE-STEER-PLAIN: keep the failing test run in the summary.\n' ;;
  json) printf '{"systemMessage":"PROBE-SYSMSG-PRECOMPACT","hookSpecificOutput":{"hookEventName":"PreCompact","additionalContext":"PROBE-ADDCTX-PRECOMPACT"}}\n' ;;
  jsonsys) printf '{"systemMessage":"PROBE-SYSMSG-PRECOMPACT"}\n' ;;
  jsonsuppress) printf '{"suppressOutput":true,"systemMessage":"PROBE-SYSMSG-PRECOMPACT"}\n' ;;
  stderr) printf 'PROBE-STDERR-PRECOMPACT\n' >&2 ;;
  none) ;;
  esac ;;
SessionStart)
  case "${PROBE_SS_OUT:-json}" in
  json) printf '{"hookSpecificOutput":{"hookEventName":"SessionStart","additionalContext":"PROBE-SESSIONSTART-CONTEXT"}}\n' ;;
  plain) printf 'PROBE-SESSIONSTART-PLAIN\n' ;;
  big) python3 -c 'import json,os;n=int(os.environ["PROBE_SS_SIZE"]);print(json.dumps({"hookSpecificOutput":{"hookEventName":"SessionStart","additionalContext":("BIGCTX-START "+"a"*n)[:n-11]+" BIGCTX-END"}}))' ;;
  none) ;;
  esac ;;
PostCompact)
  case "${PROBE_POSTCOMPACT_OUT:-plain}" in
  plain) printf 'PROBE-POSTCOMPACT-PLAIN\n' ;;
  json) printf '{"systemMessage":"PROBE-POSTCOMPACT-SYSMSG","hookSpecificOutput":{"hookEventName":"PostCompact","additionalContext":"PROBE-POSTCOMPACT-ADDCTX"}}\n' ;;
  none) ;;
  esac ;;
esac
exit 0
