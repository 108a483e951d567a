# The background half of bin/compact-guardian-provision: download + verify + install, else build
# with cargo, else record the failure for the startup hook to report. Run detached with its output
# in provision.log; inputs come in CG_* variables. Holds $CG_DATA/provision.lock until it ends.
# With CG_NOW=1 (the launcher, at a compaction that found no binary): download + verify + install
# only, within a few seconds; a failure is recorded only when no build can follow (no cargo).
[ -r "$CG_ROOT/lib/provision.sh" ] || exit 0
eval "$(tr -d '\r' <"$CG_ROOT/lib/provision.sh")" # CR-proof, like the launchers
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
    if ! why=$(cg_download "$base/$asset" "$work/$asset" ${CG_NOW:+4}); then
        kind=download detail="$why for $asset"
        return 1
    fi
    if ! why=$(cg_download "$base/$asset.sha256" "$work/$asset.sha256" ${CG_NOW:+2}); then
        kind=download detail="$why for $asset.sha256"
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
    mkdir "$work/unpacked" && tar -xzf "$work/$asset" -C "$work/unpacked" || {
        kind=download detail="could not unpack $asset"
        return 1
    }
    cg_find "$work/unpacked/compact-guardian" || { kind=download detail="$asset holds no binary"; return 1; }
    got=$("$cg_found" --version 2>/dev/null)
    [ "$got" = "compact-guardian $version" ] || { kind=download detail="$asset is not version $version"; return 1; }
    install_binary "$cg_found" || { kind=download detail="could not install into $dest_dir"; return 1; }
}

build() {
    [ -n "$CG_CARGO" ] || return 1
    : >"$lock/building" # a compaction does not wait for a build
    say "building compact-guardian $version from $CG_ROOT with $CG_CARGO"
    CARGO_TARGET_DIR="$cg_data/target" "$CG_CARGO" build --release --locked --manifest-path "$CG_ROOT/Cargo.toml" || {
        kind=build detail="cargo build failed"
        return 1
    }
    cg_find "$cg_data/target/release/compact-guardian" && install_binary "$cg_found" || {
        kind=build detail="could not install into $dest_dir"
        return 1
    }
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
    printf '%s\t%s\n' "$kind" "$detail" >"$failed"
    say "not protected: $kind: $detail"
    exit 0
fi
if build; then
    # A tampered download stays on record (reported once) even though the build protects the user.
    if [ "$fetch_kind" = checksum ]; then printf '%s\t%s\n' "$fetch_kind" "$fetch_detail" >"$failed"; else rm -f "$failed"; fi
    say "installed $dest_dir (built)"
    exit 0
fi
[ -z "$CG_CARGO" ] && say "cargo not found"
# The download's reason matters more unless a build was attempted and failed.
[ -n "$CG_CARGO" ] || { kind=$fetch_kind detail=$fetch_detail; }
[ "$fetch_kind" = checksum ] && { kind=$fetch_kind detail=$fetch_detail; }
printf '%s\t%s\n' "$kind" "$detail" >"$failed"
say "not protected: $kind: $detail"
