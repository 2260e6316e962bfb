#!/usr/bin/env bash
# Release artifacts for Linux, for each architecture asked for (x86_64, aarch64; both by default):
#
#   iolens-VERSION-ARCH-linux.tar.gz         a static (musl) iolens, its man pages, shell
#                                            completions, README and licences, in one folder
#   iolens-VERSION-ARCH-linux.tar.gz.sha256  its checksum, as `sha256sum -c` reads it
#   iolens_VERSION-1_DEBARCH.deb             the same files where Debian keeps them
#   image/DEBARCH/iolens                     the Containerfile's build context (see README)
#
# Usage: dist/build.sh [--profile NAME] [--out DIR] [ARCH...]
#   --profile  cargo profile (release by default; dist-smoke builds faster, for checks)
#   --out      where the artifacts go (target/dist by default)
#
# Needs the rustup targets ARCH-unknown-linux-musl. For an architecture other than this
# machine's: Debian's cross compiler (gcc-aarch64-linux-gnu, gcc-x86-64-linux-gnu: its linker and
# strip) and qemu-user, which runs the new binary to write its man pages and completions.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD

profile=release
out=target/dist
archs=()
while [ $# -gt 0 ]; do
    case "$1" in
        --profile) profile=$2; shift 2 ;;
        --profile=*) profile=${1#*=}; shift ;;
        --out) out=$2; shift 2 ;;
        --out=*) out=${1#*=}; shift ;;
        x86_64 | aarch64) archs+=("$1"); shift ;;
        -h | --help) sed -n '2,18p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) echo "dist/build.sh: unknown argument '$1' (architectures: x86_64, aarch64; options: --profile NAME, --out DIR)" >&2; exit 2 ;;
    esac
done
[ ${#archs[@]} -gt 0 ] || archs=(x86_64 aarch64)
mkdir -p "$out"
out=$(cd "$out" && pwd)

version=$(sed -n 's/^version = "\(.*\)"$/\1/p' Cargo.toml | head -n1)
[ -n "$version" ] || { echo "dist/build.sh: no version in Cargo.toml's [workspace.package]" >&2; exit 1; }
# Archives and packages carry the last commit's time, so that the same tree makes the same bytes.
export SOURCE_DATE_EPOCH=${SOURCE_DATE_EPOCH:-$(git log -1 --format=%ct 2>/dev/null || echo 0)}
umask 022
host=$(uname -m)

# Cargo's profile "dev" builds into target/debug; every other profile into a folder of its name.
profile_dir() { if [ "$1" = dev ]; then echo debug; else echo "$1"; fi; }
deb_arch() { case "$1" in x86_64) echo amd64 ;; aarch64) echo arm64 ;; esac; }

# Runs a binary built for $1 on this machine (qemu-user where the architecture differs).
run_for() {
    local arch=$1
    shift
    if [ "$arch" = "$host" ]; then "$@"; else "qemu-$arch" "$@"; fi
}

# One cargo run for every architecture: the build-time crates (proc macros, build scripts) are
# built once, and both CPUs stay busy to the end.
build() {
    local args=() arch triple linker
    for arch in "$@"; do
        triple=$arch-unknown-linux-musl
        args+=(--target "$triple")
        linker=CARGO_TARGET_$(echo "$triple" | tr 'a-z-' 'A-Z_')_LINKER
        if [ "$arch" != "$host" ]; then
            # Rust's musl targets bring their own C library and start files; any linker for the
            # architecture links them (one set in the environment is kept).
            export "$linker=${!linker:-$arch-linux-gnu-gcc}"
        fi
    done
    cargo build --locked --profile "$profile" "${args[@]}" --bin iolens >&2
}

# The folder that goes into the tarball: binary, man pages, completions, README, licences.
stage() {
    local arch=$1 bin=$2 dir=$3
    rm -rf "$dir"
    mkdir -p "$dir/man/man1" "$dir/completions"
    install -m 0755 "$bin" "$dir/iolens"
    # Debug information off, symbols kept (a panic's backtrace names its functions).
    if [ "$arch" = "$host" ]; then strip --strip-debug "$dir/iolens"; else "$arch-linux-gnu-strip" --strip-debug "$dir/iolens"; fi
    run_for "$arch" "$dir/iolens" man --dir "$dir/man/man1" >/dev/null
    run_for "$arch" "$dir/iolens" completions bash > "$dir/completions/iolens.bash"
    run_for "$arch" "$dir/iolens" completions zsh > "$dir/completions/_iolens"
    run_for "$arch" "$dir/iolens" completions fish > "$dir/completions/iolens.fish"
    install -m 0644 README.md LICENSE-MIT LICENSE-APACHE "$dir/"
}

tarball() {
    local dir=$1 name
    name=$(basename "$dir")
    tar -C "$(dirname "$dir")" --sort=name --owner=0 --group=0 --numeric-owner \
        --mtime="@$SOURCE_DATE_EPOCH" -cf - "$name" | gzip -9n > "$out/$name.tar.gz"
    (cd "$out" && sha256sum "$name.tar.gz" > "$name.tar.gz.sha256")
}

# A Debian package of the staged files, by dpkg-deb (no packaging tool to install). The
# binary is static, so it depends on nothing and installs on any Debian or Ubuntu release.
deb() {
    local arch=$1 dir=$2 debarch pkg
    debarch=$(deb_arch "$arch")
    pkg=$(mktemp -d)
    mkdir -p "$pkg/DEBIAN" "$pkg/usr/bin" "$pkg/usr/share/man/man1" \
        "$pkg/usr/share/bash-completion/completions" "$pkg/usr/share/zsh/vendor-completions" \
        "$pkg/usr/share/fish/vendor_completions.d" "$pkg/usr/share/doc/iolens"
    install -m 0755 "$dir/iolens" "$pkg/usr/bin/iolens"
    for m in "$dir"/man/man1/*.1; do
        gzip -9n < "$m" > "$pkg/usr/share/man/man1/$(basename "$m").gz"
    done
    install -m 0644 "$dir/completions/iolens.bash" "$pkg/usr/share/bash-completion/completions/iolens"
    install -m 0644 "$dir/completions/_iolens" "$pkg/usr/share/zsh/vendor-completions/_iolens"
    install -m 0644 "$dir/completions/iolens.fish" "$pkg/usr/share/fish/vendor_completions.d/iolens.fish"
    gzip -9n < README.md > "$pkg/usr/share/doc/iolens/README.md.gz"
    {
        echo "Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/"
        echo "Upstream-Name: iolens"
        echo
        echo "Files: *"
        echo "Copyright: The iolens authors"
        echo "License: MIT or Apache-2.0"
        echo " On Debian systems the Apache License 2.0 is in /usr/share/common-licenses/Apache-2.0."
        echo " The MIT licence:"
        echo " ."
        sed -e 's/^$/./' -e 's/^/ /' LICENSE-MIT
    } > "$pkg/usr/share/doc/iolens/copyright"
    find "$pkg" -type d -exec chmod 0755 {} +
    local size
    size=$(du -sk --exclude=DEBIAN "$pkg" | cut -f1)
    cat > "$pkg/DEBIAN/control" <<EOF
Package: iolens
Version: $version-1
Architecture: $debarch
Maintainer: The iolens authors <iolens@example.invalid>
Installed-Size: $size
Section: admin
Priority: optional
Homepage: $(sed -n 's/^repository = "\(.*\)"$/\1/p' Cargo.toml | head -n1)
Description: storage I/O benchmark that runs fio workloads and explains them
 iolens reads fio job files and fio command lines, runs them with the psync,
 libaio and io_uring engines, prints fio's output formats (normal, json, json+,
 terse) and explains why the numbers are what they are and what to change.
 This package is one static binary with its man pages and shell completions.
EOF
    (cd "$pkg" && find usr -type f -exec md5sum {} + | sort -k2) > "$pkg/DEBIAN/md5sums"
    dpkg-deb --root-owner-group -Zxz --build "$pkg" "$out/iolens_${version}-1_${debarch}.deb" >/dev/null
    rm -rf "$pkg"
}

echo "dist: ${archs[*]} ($profile)" >&2
build "${archs[@]}"
for arch in "${archs[@]}"; do
    bin=target/$arch-unknown-linux-musl/$(profile_dir "$profile")/iolens
    dir=$out/stage/iolens-$version-$arch-linux
    stage "$arch" "$root/$bin" "$dir"
    tarball "$dir"
    deb "$arch" "$dir"
    mkdir -p "$out/image/$(deb_arch "$arch")"
    install -m 0755 "$dir/iolens" "$out/image/$(deb_arch "$arch")/iolens"
    echo "$out/iolens-$version-$arch-linux.tar.gz"
    echo "$out/iolens_${version}-1_$(deb_arch "$arch").deb"
done
