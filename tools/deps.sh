#!/usr/bin/env bash
# deps.sh — install what baretrace needs, once.
#
#   tools/deps.sh packages      install missing Debian packages (apt-get, sudo if not root)
#   tools/deps.sh newlib ARCH   build newlib for ARCH (arm64|x86_64) into the cache
#                               and print nothing; the cache key includes the flags
#
# Idempotent: a second run checks and returns at once.  The newlib cache lives
# outside the work tree (BT_CACHE, default ~/.cache/baretrace) so clean clones
# and CI reuse it.
set -euo pipefail

PKGS="make gcc gcc-aarch64-linux-gnu binutils-aarch64-linux-gnu qemu-system-x86
qemu-system-arm gdb-multiarch newlib-source dwarves trace-cmd libcmocka-dev
libbpf-dev clang libclang-rt-14-dev python3 python3-pyelftools perl xz-utils uftrace valgrind"

CACHE=${BT_CACHE:-$HOME/.cache/baretrace}

packages() {
	local missing=()
	for p in $PKGS; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" ||
			missing+=("$p")
	done
	[ ${#missing[@]} -eq 0 ] && return 0
	echo "deps: installing ${missing[*]}"
	local sudo=""
	[ "$(id -u)" -ne 0 ] && sudo=sudo
	$sudo apt-get update -qq
	DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}" >/dev/null
}

newlib() {
	local arch=$1 target cc prefix
	case "$arch" in
	arm64) target=aarch64-none-elf; prefix=aarch64-linux-gnu- ;;
	x86_64) target=x86_64-elf; prefix= ;;
	*) echo "deps: unknown arch $arch" >&2; exit 2 ;;
	esac
	local cflags="-O2 -g -ffreestanding -fno-pic -fno-pie -ffunction-sections -fdata-sections"
	[ "$arch" = x86_64 ] && cflags="$cflags -mno-red-zone"
	# Full C99 formatted I/O (float, long long, %zu %jd %hhd %a, long double):
	# nano I/O printed %g as "g" and %lld as "ld" (README, "Writing an APP").
	local opts="--disable-newlib-supplied-syscalls --enable-newlib-io-long-long
		--enable-newlib-io-c99-formats --enable-newlib-io-long-double
		--enable-newlib-reent-small --disable-multilib --enable-lite-exit
		--enable-newlib-nano-malloc --enable-newlib-retargetable-locking --disable-nls"
	local key
	key=$(echo "3.3.0 $target $cflags" $opts | md5sum | cut -c1-10)
	local out=$CACHE/newlib-$arch-$key
	if [ -f "$out/.done" ]; then
		echo "$out"
		return 0
	fi
	local src=/usr/src/newlib/newlib-3.3.0.tar.xz
	[ -f "$src" ] || { echo "deps: $src missing (newlib-source)" >&2; exit 1; }
	local work
	work=$(mktemp -d "${TMPDIR:-/tmp}/bt-newlib-$arch.XXXXXX")
	echo "deps: building newlib for $arch (a minute or two, once)" >&2
	tar -C "$work" -xf "$src"
	mkdir -p "$work/build"
	(
		cd "$work/build"
		# shellcheck disable=SC2086
		../newlib-salsa/configure --target=$target --prefix="$work/install" $opts \
			CC_FOR_TARGET=${prefix}gcc AR_FOR_TARGET=${prefix}ar AS_FOR_TARGET=${prefix}as \
			LD_FOR_TARGET=${prefix}ld RANLIB_FOR_TARGET=${prefix}ranlib \
			CFLAGS_FOR_TARGET="$cflags"
		make -j"$(nproc)" all-target-newlib
		make install-target-newlib
	) >"$work/build.log" 2>&1 || { tail -30 "$work/build.log" >&2; exit 1; }
	mkdir -p "$out.tmp"
	cp -r "$work/install/$target/include" "$work/install/$target/lib" "$out.tmp/"
	touch "$out.tmp/.done"
	rm -rf "$out"
	mv "$out.tmp" "$out"
	rm -rf "$work"
	echo "$out"
}

case "${1:-}" in
packages) packages ;;
newlib) newlib "$2" ;;
*) echo "usage: $0 packages | newlib arm64|x86_64" >&2; exit 2 ;;
esac
