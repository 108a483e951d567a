# Shared by bin/compact-guardian (the launcher), bin/compact-guardian-provision (the startup hook)
# and scripts/dist (the release packager): the one definition of the release layout, the platform
# names, where a provisioned binary lives, and how the user is told when the plugin cannot protect
# them. POSIX sh; sourced, never run. Every function fails quietly: callers fail open.
#
# Release layout, relative to the release base URL (and to dist/ when built by scripts/dist):
#   v<version>/compact-guardian-<target>.tar.gz          the binary alone, at the archive's root
#   v<version>/compact-guardian-<target>.tar.gz.sha256   "<hex>  <asset name>"
# Installed binary: $CLAUDE_PLUGIN_DATA/bin/<version>/compact-guardian[.exe]

CG_DEFAULT_RELEASE_URL=https://github.com/compact-guardian/compact-guardian/releases/download
CG_ISSUES_URL=https://github.com/compact-guardian/compact-guardian/issues
CG_REPO_URL=https://github.com/compact-guardian/compact-guardian

# Sets cg_v to the version in the line `"version": "<v>"` of file $1, or in the line
# `version = "<v>"` of a Cargo.toml, with shell built-ins only (no process start: the launcher
# runs this on every hook); the first such line wins.
cg_version_in() {
    cg_v=
    [ -f "$1" ] || return 1
    while IFS= read -r cg_line; do
        cg_line=${cg_line#"${cg_line%%[![:space:]]*}"}
        case $cg_line in
        'version = "'*)
            cg_v=${cg_line#version = \"}
            cg_v=${cg_v%%\"*} # also drops a CR (a CRLF file)
            break
            ;;
        '"version": "'*)
            cg_v=${cg_line#\"version\": \"}
            cg_v=${cg_v%%\"*}
            break
            ;;
        esac
    done <"$1"
    [ -n "$cg_v" ]
}

# Sets cg_v to the version of the plugin whose root is $1, from its manifest: the plugin folder
# holds only what runs (D076), the crate's Cargo.toml is not in it.
cg_version() {
    cg_version_in "$1/.claude-plugin/plugin.json"
}

# Sets cg_crate to a folder holding the crate that builds version $2 of the plugin whose root is
# $1, or empty: the repository around the plugin folder (a checkout: <repo>/plugin), else the
# client's own clone of the marketplace the plugin came from (the plugin is installed as a copy
# of the plugin folder alone, D076): Claude Code's <plugins>/marketplaces/<marketplace> beside
# <plugins>/cache/<marketplace>/<plugin>/<version>, Codex's <home>/.tmp/marketplaces/<marketplace>
# beside <home>/plugins/cache/<marketplace>/<plugin>/<version>. Only one whose Cargo.toml says
# this version counts (a marketplace clone may have moved on).
cg_crate() {
    cg_crate=
    cg_p=${1%/}
    cg_m=${cg_p%/*/*}
    cg_m=${cg_m##*/}
    cg_c=${cg_p%/cache/*}
    for cg_dir in "${cg_p%/*}" "$cg_c/marketplaces/$cg_m" "${cg_c%/plugins}/.tmp/marketplaces/$cg_m"; do
        if cg_version_in "$cg_dir/Cargo.toml" && [ "$cg_v" = "$2" ]; then
            cg_crate=$cg_dir
            break
        fi
    done
    cg_v=$2
    [ -n "$cg_crate" ]
}

# Sets cg_data to this plugin's data folder when Claude Code did not say (CLAUDE_PLUGIN_DATA is
# unset when the launcher is run by hand, as the README's debug commands do, and before Claude
# Code 2.1.78). An installed plugin lives in <plugins>/cache/<marketplace>/<plugin>/<version>
# ($1); Claude Code keeps its data in <plugins>/data/<plugin>@<marketplace>, every character
# other than a letter, digit, '-' or '_' written '-'. Fails for any other layout (a checkout).
cg_plugin_data() {
    cg_data=
    cg_p=${1%/}
    cg_p=${cg_p%/*}
    cg_m=${cg_p%/*}
    cg_c=${cg_m%/*}
    [ "${cg_c##*/}" = cache ] && [ -n "${cg_p##*/}" ] && [ -n "${cg_m##*/}" ] || return 1
    cg_data="${cg_c%/cache}/data/$(printf '%s' "${cg_p##*/}@${cg_m##*/}" | tr -c 'A-Za-z0-9_-' '-')"
}

# The release target for this machine; fails where no binary is published.
cg_target() {
    cg_os=$(uname -s 2>/dev/null)
    cg_arch=$(uname -m 2>/dev/null)
    case $cg_arch in
    x86_64 | amd64) cg_arch=x86_64 ;;
    aarch64 | arm64) cg_arch=aarch64 ;;
    *) return 1 ;;
    esac
    case $cg_os in
    Linux) echo "$cg_arch-unknown-linux-musl" ;;
    Darwin) echo "$cg_arch-apple-darwin" ;;
    MINGW* | MSYS* | CYGWIN* | Windows_NT) echo "x86_64-pc-windows-msvc" ;;
    *) return 1 ;;
    esac
}

# ".exe" for a Windows target, else nothing.
cg_exe_suffix() {
    case $1 in *windows*) echo .exe ;; *) echo ;; esac
}

# The archive name for a target.
cg_asset() {
    echo "compact-guardian-$1.tar.gz"
}

# Sets cg_found to the first executable among "$1" and "$1.exe" (Windows, through Git Bash).
# A variable, not output: the launcher's hot path starts no subshell.
cg_find() {
    for cg_found in "$1" "$1.exe"; do
        [ -f "$cg_found" ] && [ -x "$cg_found" ] && return 0
    done
    cg_found=
    return 1
}

# Sets cg_found to the first native compact-guardian on PATH (cargo install, binstall, a
# package), skipping launcher scripts and the folder $1 (the launcher's own). The launcher runs
# it when the plugin has no binary of its own; the startup hook then has nothing to provision.
cg_find_on_path() {
    cg_old_ifs=$IFS
    IFS=:
    for cg_dir in $PATH; do
        IFS=$cg_old_ifs
        [ -n "$cg_dir" ] || continue
        cg_find "$cg_dir/compact-guardian" || continue
        cg_real=$(CDPATH= cd -- "$cg_dir" 2>/dev/null && pwd -P)
        [ "$cg_real" = "$1" ] && continue
        case $(head -c 2 "$cg_found" 2>/dev/null) in "#!") continue ;; esac
        IFS=$cg_old_ifs
        return 0
    done
    IFS=$cg_old_ifs
    cg_found=
    return 1
}

# SHA-256 of a file, lowercase hex, with whatever this machine has.
cg_sha256() {
    if command -v sha256sum >/dev/null 2>&1; then
        cg_h=$(sha256sum "$1" 2>/dev/null) || return 1
    elif command -v shasum >/dev/null 2>&1; then
        cg_h=$(shasum -a 256 "$1" 2>/dev/null) || return 1
    elif command -v openssl >/dev/null 2>&1; then
        cg_h=$(openssl dgst -sha256 -r "$1" 2>/dev/null) || return 1
    elif command -v powershell >/dev/null 2>&1; then
        cg_h=$(CG_FILE=$1 powershell -NoProfile -NonInteractive -Command \
            "(Get-FileHash -Algorithm SHA256 -LiteralPath \$env:CG_FILE).Hash.ToLower()" 2>/dev/null) || return 1
    else
        return 1
    fi
    cg_h=${cg_h%% *}
    cg_h=$(printf '%s' "$cg_h" | tr -d '\r*' | tr 'A-F' 'a-f')
    [ ${#cg_h} -eq 64 ] && printf '%s\n' "$cg_h"
}

# Downloads URL $1 to file $2 with curl, wget or PowerShell, within $3 seconds when given (a
# compaction waiting on it; no retries then), else within 5 minutes with retries, and at most $4
# bytes (default 64 MiB: a release archive is about 2 MB). The cap is kept on the stream itself
# (curl's --max-filesize does not stop a body of unannounced length). On failure prints a short
# reason ("HTTP 404", "timed out", "larger than 64 MB", "network error (curl exit 7)", "no
# downloader") and returns non-zero; a partial file is removed.
cg_download() {
    cg_max=${3:-300}
    cg_limit=${4:-67108864}
    cg_retry=2
    [ -n "${3:-}" ] && cg_retry=0
    cg_connect=15
    [ "$cg_max" -lt 15 ] && cg_connect=$cg_max
    rm -f "$2" "$2.rc" "$2.headers"
    if command -v curl >/dev/null 2>&1; then
        # In the background and waited for: a job told to stop (TERM) stops at once, not after
        # the download's own time limit.
        { curl --location --silent --show-error --fail --proto '=https,http' --connect-timeout "$cg_connect" \
            --max-time "$cg_max" --retry "$cg_retry" --dump-header "$2.headers" "$1" 2>/dev/null
          echo $? >"$2.rc"; } | head -c $((cg_limit + 1)) >"$2" &
        wait $!
        cg_rc=$(cat "$2.rc" 2>/dev/null)
        cg_code=$(sed -n 's/^HTTP\/[0-9.]* \([0-9][0-9]*\).*/\1/p' "$2.headers" 2>/dev/null | tail -n 1)
    elif command -v wget >/dev/null 2>&1; then
        { wget -q -T "$cg_max" -t $((cg_retry + 1)) -O - "$1" 2>/dev/null; echo $? >"$2.rc"; } |
            head -c $((cg_limit + 1)) >"$2" &
        wait $!
        cg_rc=$(cat "$2.rc" 2>/dev/null) cg_code=
    elif command -v powershell >/dev/null 2>&1; then
        if CG_URL=$1 CG_OUT=$2 CG_MAX=$cg_max powershell -NoProfile -NonInteractive -Command \
            "\$ProgressPreference='SilentlyContinue'; Invoke-WebRequest -UseBasicParsing -TimeoutSec \$env:CG_MAX -Uri \$env:CG_URL -OutFile \$env:CG_OUT" \
            >/dev/null 2>&1; then
            cg_rc=0
        else
            cg_rc=ps
        fi
        cg_code=
    else
        echo "no downloader (curl, wget or PowerShell)"
        return 1
    fi
    rm -f "$2.rc" "$2.headers"
    if [ "$(wc -c <"$2" 2>/dev/null || echo 0)" -gt "$cg_limit" ]; then
        rm -f "$2"
        echo "larger than $((cg_limit / 1048576)) MB (stopped there)"
        return 1
    fi
    [ "$cg_rc" = 0 ] && return 0
    rm -f "$2"
    case $cg_rc:$cg_code in
    22:?* | 8:?*) echo "HTTP $cg_code" ;;
    28:*) echo "timed out after $cg_max s (the server is slow or never ends)" ;;
    ps:*) echo "download failed (PowerShell)" ;;
    *) echo "network error (exit $cg_rc)" ;;
    esac
    return 1
}

# Whether file $1 is a native executable for target $2 by its first bytes (ELF, Mach-O, or a
# Windows PE): never a script, whatever it is named.
cg_native() {
    cg_magic=$(od -An -tx1 -N4 "$1" 2>/dev/null | tr -d ' \n')
    case $2:$cg_magic in
    *linux*:7f454c46) return 0 ;;
    *apple*:cffaedfe | *apple*:feedfacf | *apple*:cafebabe) return 0 ;;
    *windows*:4d5a*) return 0 ;;
    esac
    return 1
}

# Runs "$@" with its output in file $2, ending it after $1 seconds; its exit status, or non-zero
# when it had to be ended.
cg_bounded() {
    cg_secs=$1 cg_out=$2
    shift 2
    "$@" >"$cg_out" 2>/dev/null </dev/null &
    cg_pid=$!
    (sleep "$cg_secs"; kill -9 "$cg_pid") >/dev/null 2>&1 &
    cg_watch=$!
    wait "$cg_pid"
    cg_rc=$?
    kill "$cg_watch" 2>/dev/null
    return $cg_rc
}

# The release base URL: $COMPACT_GUARDIAN_RELEASE_URL or the project's GitHub releases. Plain
# http is accepted only for this machine (tests, a local mirror).
cg_release_url() {
    cg_u=${COMPACT_GUARDIAN_RELEASE_URL:-$CG_DEFAULT_RELEASE_URL}
    cg_u=${cg_u%/}
    case $cg_u in
    https://*) ;;
    http://127.* | http://localhost[:/]* | http://localhost | http://\[::1\]*) ;;
    *) return 1 ;;
    esac
    printf '%s\n' "$cg_u"
}

# Whether the plugin root $1 is Codex's copy of the plugin: it lies under Codex's home
# ($CODEX_HOME, else ~/.codex), as src/input/config.rs decides it. Sets cg_codex to that home.
cg_codex_copy() {
    cg_codex=${CODEX_HOME:-}
    [ -n "$cg_codex" ] || { [ -n "${HOME:-}" ] && cg_codex=$HOME/.codex; } || return 1
    case $1 in "$cg_codex"/?*) return 0 ;; esac
    return 1
}

# Whether Codex runs this plugin (the hook's CLAUDE_PLUGIN_ROOT is Codex's copy).
cg_run_by_codex() {
    cg_codex_copy "${CLAUDE_PLUGIN_ROOT:-}"
}

# Appends "<epoch> <why>" to compact-guardian-unprotected.log in the snapshot folder (resolved as
# the binary resolves it, src/input/config.rs), keeping the last 20 lines: a compaction no binary
# protected, for `status`. Best effort, never fails.
cg_record_unprotected() {
    cg_dir=${COMPACT_GUARDIAN_DIR:-}
    case $cg_dir in *[![:space:]]*) ;; *) cg_dir= ;; esac
    if [ -z "$cg_dir" ] && cg_run_by_codex; then cg_dir=$cg_codex/compact-guardian; fi
    if [ -z "$cg_dir" ]; then
        cg_conf=${CLAUDE_CONFIG_DIR:-}
        case $cg_conf in *[![:space:]]*) ;; *) cg_conf= ;; esac
        [ -n "$cg_conf" ] || { [ -n "${HOME:-}" ] && cg_conf=$HOME/.claude; } || return 0
        cg_dir=$cg_conf/compact-guardian
    fi
    mkdir -p "$cg_dir" 2>/dev/null && [ -d "$cg_dir" ] && [ ! -L "$cg_dir/compact-guardian-unprotected.log" ] || return 0
    cg_log=$cg_dir/compact-guardian-unprotected.log
    printf '%s %s\n' "$(date +%s)" "$(printf '%s' "$1" | tr -d '\000-\037')" >>"$cg_log" 2>/dev/null || return 0
    if [ "$(wc -l <"$cg_log" 2>/dev/null)" -gt 20 ] 2>/dev/null; then
        tail -n 20 "$cg_log" >"$cg_log.tmp" 2>/dev/null && mv -f "$cg_log.tmp" "$cg_log" 2>/dev/null
    fi
    return 0
}

# A JSON string body: backslashes, quotes and control characters escaped.
cg_json_escape() {
    printf '%s' "$1" | tr '\n\r\t' '   ' | sed -e 's/\\/\\\\/g' -e 's/"/\\"/g'
}

# Prints the SessionStart JSON that shows $3 to the user, once per version ($1) and failure kind
# ($2): later calls for the same pair print nothing. Needs $cg_data.
cg_notify_once() {
    cg_mark="$cg_data/notified-$1-$2"
    [ -e "$cg_mark" ] && return 0
    : >"$cg_mark" 2>/dev/null || return 0
    printf '{"systemMessage":"%s"}\n' "$(cg_json_escape "$3")"
}

# Reads the failure recorded for version $1 ($cg_data/failed-<version>: "kind<TAB>detail<TAB>
# conditions", the last as cg_conditions described them) into cg_kind, cg_detail and cg_tool; fails
# when there is none.
cg_read_failure() {
    cg_tool=
    [ -f "$cg_data/failed-$1" ] || return 1
    # shellcheck disable=SC2034 # cg_tool is read by bin/compact-guardian-provision
    IFS='	' read -r cg_kind cg_detail cg_tool <"$cg_data/failed-$1"
}

# Tells the user, once, about the failure recorded for version $1 (see cg_notify_once).
cg_notify_failure() {
    cg_read_failure "$1" || return 0
    cg_notify_once "$1" "$cg_kind" "$(cg_failure_message "$cg_kind" "$cg_detail" "$1")"
}

# The user-facing message for a recorded failure of version $3 (kind $1, detail $2): what
# happened, in the user's words, and the one thing to do. Every fix ends in "start a new session"
# only where that session does try again by itself (bin/compact-guardian-provision): a download at
# every start, a build once the toolchain it failed with has changed.
cg_failure_message() {
    cg_kind=$1
    cg_detail=$2
    cg_log="$cg_data/provision.log"
    cg_np="so compactions are NOT protected"
    case $cg_kind in
    checksum-built)
        echo "compact-guardian: the binary downloaded for v$3 failed its SHA-256 check and was deleted without being run ($cg_detail); the plugin built itself from source instead, so compactions are protected. Please report the mismatch at $CG_ISSUES_URL."
        ;;
    checksum)
        echo "compact-guardian: the binary downloaded for v$3 failed its SHA-256 check and was deleted without being run ($cg_detail), and Rust (cargo) is not installed to build it instead, $cg_np. Fix: install Rust from https://rustup.rs, then start a new session (the plugin builds itself). Please also report the mismatch at $CG_ISSUES_URL."
        ;;
    no-toolchain)
        echo "compact-guardian: cannot build v$3: rustup is installed but has no Rust toolchain ($cg_detail), $cg_np. Fix: run 'rustup default stable', then start a new session."
        ;;
    old-toolchain)
        if command -v rustup >/dev/null 2>&1; then
            cg_fix="run 'rustup update'"
        else
            cg_fix="install a current Rust from https://rustup.rs (the one installed is too old)"
        fi
        echo "compact-guardian: cannot build v$3: $cg_detail, $cg_np. Fix: $cg_fix, then start a new session."
        ;;
    cargo-broken)
        echo "compact-guardian: cannot build v$3: $cg_detail, $cg_np. Fix: install Rust from https://rustup.rs, then start a new session."
        ;;
    build-network)
        echo "compact-guardian: building v$3 needs its dependencies from crates.io, which could not be reached ($cg_detail), $cg_np. Fix: start a new session once the network is back (it builds again then)."
        ;;
    no-source)
        echo "compact-guardian: its binary for v$3 could not be downloaded ($cg_detail) and no source of v$3 is here to build it from, $cg_np. Fix: run 'cargo install --locked --git $CG_REPO_URL --tag v$3 compact-guardian' (the plugin finds it on PATH), then start a new session."
        ;;
    build)
        echo "compact-guardian: building v$3 with cargo failed ($cg_detail), $cg_np. Fix: please report it at $CG_ISSUES_URL with $cg_log (a new session builds again after a Rust update, or with the next version)."
        ;;
    *)
        # A download that failed with no cargo to build instead: the reason in the user's words,
        # and the one fix that applies.
        case $cg_detail in
        "timed out"* | "network error"* | "download failed"*)
            cg_why="could not reach the download server ($(cg_release_url 2>/dev/null || echo 'the release URL'))"
            cg_fix="check this machine's network connection, then start a new session (it downloads again then)"
            ;;
        "larger than"*)
            cg_why="the download was not a release archive ($cg_detail)"
            cg_fix="correct or unset COMPACT_GUARDIAN_RELEASE_URL, then start a new session"
            ;;
        *"release URL refused"*)
            cg_why="the configured release URL is refused (https only)"
            cg_fix="correct or unset COMPACT_GUARDIAN_RELEASE_URL, then start a new session"
            ;;
        "HTTP 404"*)
            cg_why="no prebuilt binary has been published for v$3 yet"
            cg_fix="install Rust from https://rustup.rs, then start a new session (the plugin builds itself)"
            ;;
        *)
            cg_why="its binary could not be downloaded ($cg_detail)"
            cg_fix="install Rust from https://rustup.rs, then start a new session (the plugin builds itself)"
            ;;
        esac
        echo "compact-guardian: $cg_why and Rust (cargo) is not installed, $cg_np. Fix: $cg_fix."
        ;;
    esac
}

# Sets cg_cargo to cargo's path (PATH, then ~/.cargo/bin, where rustup puts it), or empty.
cg_find_cargo() {
    cg_cargo=$(command -v cargo 2>/dev/null)
    [ -z "$cg_cargo" ] && [ -x "${CARGO_HOME:-$HOME/.cargo}/bin/cargo" ] && cg_cargo="${CARGO_HOME:-$HOME/.cargo}/bin/cargo"
    [ -n "$cg_cargo" ]
}

# Sets cg_print to the conditions a provisioning attempt runs under: the release URL, and the
# toolchain $cg_cargo builds with (its path, the first line `cargo --version` prints or its error,
# and `rustc --version`, the rustc beside it, else on PATH). A failure is tried again at the next
# start once they change (Rust installed, rustup default stable, rustup update, another URL).
# Each probe is bounded (2 s).
cg_conditions() {
    cg_print=${COMPACT_GUARDIAN_RELEASE_URL:-}
    [ -n "${cg_cargo:-}" ] && [ -d "$cg_data" ] || return 0
    cg_probe="$cg_data/toolchain.probe.$$"
    cg_bounded 2 "$cg_probe" sh -c 'exec "$0" --version 2>&1' "$cg_cargo"
    cg_print="$cg_print|$cg_cargo|$(head -n 1 "$cg_probe" 2>/dev/null | tr -d '\r\t')"
    cg_rustc=${cg_cargo%/*}/rustc
    [ -x "$cg_rustc" ] || cg_rustc=rustc
    cg_bounded 2 "$cg_probe" "$cg_rustc" --version
    cg_print="$cg_print|$(head -n 1 "$cg_probe" 2>/dev/null | tr -d '\r\t')"
    rm -f "$cg_probe"
}

# Runs lib/provision-job.sh for plugin root $1 and version $2, holding $cg_data/provision.lock
# (which the caller has created; the job removes it). $3 = "now": download and verify only, with
# the time bounds of a compaction that waits on it, and return when done; otherwise detached in
# the background (download, else build with $cg_cargo), all three standard streams off the hook's
# pipes so Claude Code does not wait for it. Output goes to provision.log.
cg_run_job() {
    cg_job=$(tr -d '\r' <"$1/lib/provision-job.sh" 2>/dev/null) || {
        rmdir "$cg_data/provision.lock" 2>/dev/null
        return 1
    }
    cg_t=$(cg_target) || cg_t=
    cg_u=$(cg_release_url) || cg_u=
    cg_crate "$1" "$2" || cg_crate=
    if [ "${3:-}" = now ]; then
        CG_ROOT=$1 CG_CRATE=$cg_crate CG_DATA=$cg_data CG_VERSION=$2 CG_TARGET=$cg_t CG_URL=$cg_u CG_CARGO=${cg_cargo:-} CG_NOW=1 \
            sh -c "$cg_job" provision-job </dev/null >>"$cg_data/provision.log" 2>&1 &
        cg_job_pid=$!
        # Bounded whatever its steps do (6 s: with save's 2 s budget, inside the hook's 10), and
        # never outliving the hook that waits on it: when the client ends this hook, the job is
        # stopped within a second and lets go of the lock ($$ is this launcher, also here).
        (cg_i=0
         while [ $cg_i -lt 6 ] && kill -0 $$; do sleep 1; cg_i=$((cg_i + 1)); done
         kill "$cg_job_pid") </dev/null >/dev/null 2>&1 &
        cg_watch=$!
        wait "$cg_job_pid"
        kill "$cg_watch" 2>/dev/null
        return 0
    fi
    cg_detach=
    command -v setsid >/dev/null 2>&1 && cg_detach=setsid
    CG_ROOT=$1 CG_CRATE=$cg_crate CG_DATA=$cg_data CG_VERSION=$2 CG_TARGET=$cg_t CG_URL=$cg_u CG_CARGO=${cg_cargo:-} \
        $cg_detach sh -c "$cg_job" provision-job </dev/null >>"$cg_data/provision.log" 2>&1 &
}

# Removes $cg_data/provision.lock when it is older than an hour: left over from a job that died.
cg_clear_stale_lock() {
    [ -d "$cg_data/provision.lock" ] && [ -n "$(find "$cg_data/provision.lock" -maxdepth 0 -mmin +60 2>/dev/null)" ] &&
        rm -f "$cg_data/provision.lock/building" && rmdir "$cg_data/provision.lock" 2>/dev/null
    return 0
}

# At a compaction that found no binary for version $2 (plugin root $1): the first compaction
# after an in-session install, or during the first session's download or build. Waits a few
# seconds for a download another hook is running, or downloads and verifies the prebuilt binary
# now (a second or two; the user is waiting for the compaction anyway), unless an attempt failed
# within the hour (a compaction must not wait on a network that is down, every time). When that
# fails and cargo exists, starts the build in the background for the next compaction, unless $3
# is "download" (`status` run by hand: a person waits on it, never on a build). Sets cg_found on
# success. Needs $cg_data.
cg_provision_now() {
    [ -n "$cg_data" ] && [ -n "$2" ] || return 1
    cg_bin="$cg_data/bin/$2/compact-guardian"
    cg_lock="$cg_data/provision.lock"
    cg_clear_stale_lock
    if [ -d "$cg_lock" ]; then
        # A build takes a minute: not worth waiting for. A download takes a second or two.
        [ -e "$cg_lock/building" ] && return 1
        for cg_i in 1 2 3 4; do
            sleep 1
            cg_find "$cg_bin" && return 0
            [ -d "$cg_lock" ] && [ ! -e "$cg_lock/building" ] || break
        done
        cg_find "$cg_bin"
        return
    fi
    [ -n "$(find "$cg_data/failed-$2" -mmin -60 2>/dev/null)" ] && return 1
    mkdir -p "$cg_data" 2>/dev/null && mkdir "$cg_lock" 2>/dev/null || return 1
    cg_find_cargo
    cg_run_job "$1" "$2" now
    cg_find "$cg_bin" && return 0
    # The download failed; with cargo, the build protects the next compaction.
    [ -n "$cg_cargo" ] && [ "${3:-}" != download ] && mkdir "$cg_lock" 2>/dev/null && cg_run_job "$1" "$2"
    return 1
}
