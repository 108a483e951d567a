# The background half of bin/compact-guardian-provision: download + verify + install, else build
# with cargo, else record the failure for the startup hook to report. Run detached with its output
# in provision.log; inputs come in CG_* variables. Holds $CG_DATA/provision.lock until it ends.
# With CG_NOW=1 (the launcher, at a compaction that found no binary): download + verify + install
# only, within a few seconds; a failure is recorded only when no build can follow (no cargo).
# With CG_DOWNLOAD_ONLY=1 (the startup hook, when a build already failed with this toolchain): the
# download alone, the build's failure left on record.
[ -r "$CG_ROOT/lib/provision.sh" ] || exit 0
eval "$(tr -d '\r' <"$CG_ROOT/lib/provision.sh")" # CR-proof, like the launchers
umask 077 # the folders the installed binary lives in are no one else's to write, whatever the umask
cg_data=$CG_DATA
version=$CG_VERSION
lock="$cg_data/provision.lock"
dest_dir="$cg_data/bin/$version"
failed="$cg_data/failed-$version"
work=$(mktemp -d "$cg_data/provision.XXXXXX") || { rmdir "$lock"; exit 0; }
trap 'rm -rf "$work"; rm -f "$lock/building"; rmdir "$lock" 2>/dev/null' EXIT
# Stopped (a hook's time limit ends the compaction's wait): still let go of the lock, or every
# compaction of the next hour would wait on a download nobody runs.
trap 'exit 1' INT TERM HUP
say() { echo "== $(date -u '+%Y-%m-%d %H:%M:%S UTC') $*"; }

# Moves the file $1 into place as the installed binary, atomically (rename in the same folder).
install_binary() {
    ext=$(cg_exe_suffix "$CG_TARGET")
    mkdir -p "$dest_dir" || return 1
    # Folders an older version or another umask made open to others are closed again.
    chmod 700 "$cg_data" "$cg_data/bin" "$dest_dir" 2>/dev/null
    cp "$1" "$dest_dir/.compact-guardian$ext.new" &&
        chmod 755 "$dest_dir/.compact-guardian$ext.new" &&
        mv -f "$dest_dir/.compact-guardian$ext.new" "$dest_dir/compact-guardian$ext"
}

# Download, verify, unpack, install. Sets kind/detail on failure.
fetch() {
    [ -n "$CG_TARGET" ] || { kind=download detail="no prebuilt binary for $(uname -sm)"; return 1; }
    [ -n "$CG_URL" ] || { kind=download detail="release URL refused (https only, or http on this machine)"; return 1; }
    asset=$(cg_asset "$CG_TARGET")
    base="$CG_URL/v$version"
    say "downloading $base/$asset"
    # Called directly, not in $(...): a stop (TERM) then interrupts the download's wait at once.
    if ! cg_download "$base/$asset" "$work/$asset" "${CG_NOW:+4}" >"$work/why"; then
        kind=download detail="$(cat "$work/why") for $asset"
        return 1
    fi
    if ! cg_download "$base/$asset.sha256" "$work/$asset.sha256" "${CG_NOW:+2}" 4096 >"$work/why"; then
        kind=download detail="$(cat "$work/why") for $asset.sha256"
        return 1
    fi
    IFS=' ' read -r want _ <"$work/$asset.sha256"
    want=$(printf '%s' "$want" | tr 'A-F' 'a-f' | tr -d '\r')
    have=$(cg_sha256 "$work/$asset") || { kind=download detail="no SHA-256 tool"; return 1; }
    if [ ${#want} -ne 64 ] || [ "$have" != "$want" ]; then
        rm -f "$work/$asset"
        kind=checksum detail="expected ${want:-nothing}, got $have"
        say "SHA-256 mismatch: $detail; deleted"
        return 1
    fi
    say "SHA-256 verified: $have"
    # Only the binary is unpacked, from at most 64 MiB of archive stream: a decompression bomb
    # stops there (a truncated stream fails), in well under a second.
    name="compact-guardian$(cg_exe_suffix "$CG_TARGET")"
    mkdir "$work/unpacked" &&
        gzip -dc "$work/$asset" 2>/dev/null | head -c 67108864 | tar -xf - -C "$work/unpacked" "$name" 2>/dev/null || {
        kind=download detail="could not unpack $asset (damaged, or over 64 MiB)"
        return 1
    }
    bin="$work/unpacked/$name"
    # A regular file, not a link to one elsewhere (the checksum covers the archive, not a link's
    # target), and a native executable for this platform, never a script: the hook runs it.
    if [ -L "$bin" ] || [ ! -f "$bin" ]; then
        kind=download detail="$asset holds no binary as a regular file"
        return 1
    fi
    cg_native "$bin" "$CG_TARGET" || { kind=download detail="$asset holds no $CG_TARGET executable"; return 1; }
    chmod 700 "$bin"
    cg_bounded 2 "$work/version" "$bin" --version
    got=$(cat "$work/version" 2>/dev/null)
    [ "$got" = "compact-guardian $version" ] || { kind=download detail="$asset is not version $version (or did not answer within 2 s)"; return 1; }
    install_binary "$bin" || { kind=download detail="could not install into $dest_dir"; return 1; }
}

# Whether $CG_CARGO can build this version: it runs, and its compiler is at least the
# rust-version Cargo.toml asks for. Sets kind/detail when not, in words the user can act on
# (lib/provision.sh, cg_failure_message): a rustup with no toolchain is told to set one, an old
# toolchain to update, and nobody without rustup is told to run rustup.
toolchain_ok() {
    cg_bounded 60 "$work/cargo-version" sh -c 'exec "$0" --version 2>&1' "$CG_CARGO"
    rc=$?
    first=$(grep -v '^[[:space:]]*$' "$work/cargo-version" 2>/dev/null | head -n 1 | tr -d '\r' | cut -c1-200)
    say "$CG_CARGO --version: ${first:-no answer} (exit $rc)"
    if [ $rc -ne 0 ]; then
        if grep -q 'rustup' "$work/cargo-version" && grep -q -i 'no default' "$work/cargo-version"; then
            kind=no-toolchain detail="$CG_CARGO is rustup's"
        else
            kind=cargo-broken detail="$CG_CARGO does not run (${first:-exit $rc})"
        fi
        return 1
    fi
    need=$(sed -n 's/^rust-version = "\([0-9][0-9.]*\)".*/\1/p' "$CG_CRATE/Cargo.toml" | head -n 1)
    rustc=${CG_CARGO%/*}/rustc
    [ -x "$rustc" ] || rustc=rustc
    cg_bounded 60 "$work/rustc-version" "$rustc" --version
    have=$(sed -n 's/^rustc \([0-9][0-9]*\.[0-9][0-9]*\).*/\1/p' "$work/rustc-version" | head -n 1)
    [ -n "$need" ] && [ -n "$have" ] || return 0 # cargo itself says what is wrong, if anything
    if [ "${have%%.*}" -lt "${need%%.*}" ] || { [ "${have%%.*}" -eq "${need%%.*}" ] &&
        [ "$(echo "$have" | cut -d. -f2)" -lt "$(echo "$need" | cut -d. -f2)" ]; }; then
        kind=old-toolchain detail="its Rust is $have, older than the $need this version needs"
        return 1
    fi
}

build() {
    [ -n "$CG_CARGO" ] || return 1
    if [ -z "${CG_CRATE:-}" ]; then
        # The plugin folder holds no source (D076): the repository around it or the client's
        # clone of the marketplace, at this version, is what builds (cg_crate).
        kind=no-source detail="the download failed: ${fetch_detail:-unknown}"
        return 1
    fi
    : >"$lock/building" # a compaction does not wait for a build
    toolchain_ok || return 1
    say "building compact-guardian $version from $CG_CRATE with $CG_CARGO"
    # A user with no cargo home of their own gets none from this build: its registry and git
    # caches go into the data folder, which uninstalling the plugin removes.
    if [ -z "${CARGO_HOME:-}" ] && [ ! -e "${HOME:-/nonexistent}/.cargo" ]; then
        CARGO_HOME="$cg_data/cargo-home"
        export CARGO_HOME
    fi
    # Kept for the log, and read for what stopped it: a dependency that could not be fetched is
    # the network's fault (retried at every start), anything else a build failure.
    CARGO_TARGET_DIR="$cg_data/target" "$CG_CARGO" build --release --locked --manifest-path "$CG_CRATE/Cargo.toml" \
        >"$work/build.out" 2>&1
    rc=$?
    cat "$work/build.out"
    if [ $rc -ne 0 ]; then
        if grep -q -i -E 'failed to download|unable to update registry|could(n.t| not) resolve host|failed to (get|query|fetch)|spurious network error|network failure|failed to connect|SSL connect error|Connection (refused|timed out)' "$work/build.out"; then
            kind=build-network detail=$(grep -m 1 '^error' "$work/build.out" | tr -d '\r\t' | cut -c1-160)
            detail=${detail:-cargo could not fetch}
        else
            kind=build detail=$(grep -m 1 '^error' "$work/build.out" | tr -d '\r\t' | cut -c1-160)
            detail=${detail:-cargo build exited $rc}
        fi
        return 1
    fi
    cg_find "$cg_data/target/release/compact-guardian" && install_binary "$cg_found" || {
        kind=build detail="could not install into $dest_dir"
        return 1
    }
}

# Records the failure for the startup hook and the launcher to report (kind, detail, and the
# toolchain it happened with: a build is tried again once that changes).
record() {
    # shellcheck disable=SC2034 # read by cg_conditions (lib/provision.sh)
    cg_cargo=$CG_CARGO
    cg_conditions
    printf '%s\t%s\t%s\n' "$1" "$(printf '%s' "$2" | tr -d '\t\n\r')" "$cg_print" >"$failed"
}

say "provisioning compact-guardian $version for ${CG_TARGET:-an unknown platform}"
if fetch; then
    rm -f "$failed"
    say "installed $dest_dir"
    exit 0
fi
say "no prebuilt binary installed ($kind failed: $detail)"
fetch_kind=$kind fetch_detail=$detail
if [ -n "${CG_NOW:-}" ]; then
    # The launcher starts the build in the background when cargo exists; a tampered download is
    # recorded either way (reported once).
    [ -n "$CG_CARGO" ] && [ "$kind" != checksum ] && exit 0
    record "$kind" "$detail"
    say "not protected: $kind: $detail"
    exit 0
fi
if [ -n "${CG_DOWNLOAD_ONLY:-}" ]; then
    # The startup hook asked for the download alone: a build failed with this same toolchain,
    # and that failure, still the one that matters, stays on record.
    say "not protected: the build that failed is not tried again with the same toolchain"
    exit 0
fi
if build; then
    # A tampered download stays on record (reported once) even though the build protects the user.
    if [ "$fetch_kind" = checksum ]; then record checksum-built "$fetch_detail"; else rm -f "$failed"; fi
    say "installed $dest_dir (built)"
    exit 0
fi
[ -z "$CG_CARGO" ] && say "cargo not found"
# The download's reason matters more unless a build was attempted and failed.
[ -n "$CG_CARGO" ] || { kind=$fetch_kind detail=$fetch_detail; }
[ "$fetch_kind" = checksum ] && { kind=$fetch_kind detail=$fetch_detail; }
record "$kind" "$detail"
say "not protected: $kind: $detail"
