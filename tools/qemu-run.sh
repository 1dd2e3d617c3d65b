#!/usr/bin/env bash
# qemu-run.sh ARCH KERNEL.elf [CMDLINE] — boot baretrace under QEMU's TCG.
#
# Environment: SMP (4), MEM (512M), ACCEL (tcg; kvm only on request),
# TCG_THREAD (multi: vCPUs in parallel; single: one host thread for all),
# ICOUNT=1 (single-threaded TCG with -icount shift=0), TIMEOUT (seconds, none
# when interactive), INITRD (file for -initrd), GDB=1 (halt on the gdbstub at
# GDB_PORT (1234) and attach gdb-multiarch; serial goes to SERIAL_LOG;
# GDB_BATCH=FILE runs those gdb commands and ends), SERIAL_LOG.
#
# Exit status: the guest's own (0 = success), 124 on timeout, 99 if the guest
# ended without saying (reset, triple fault); non-zero if QEMU itself failed
# (x86-64: 98, arm64: QEMU's own 1); 2 if the command line (with the
# bt.script / bt.interactive this adds) is longer than the guest takes
# (CMDLINE_MAX - 1 bytes, boot/boot_info.h): QEMU is not started.
# CMDLINE_CHECK=0 (tests) leaves that check to the guest.
set -u
arch=$1; elf=$2; cmdline=${3:-}
here=$(cd "$(dirname "$0")/.." && pwd)
. "$here/arch/$arch/qemu.conf"

smp=${SMP:-4}; mem=${MEM:-512M}; accel=${ACCEL:-tcg}
image=$elf
[ "${KERNEL_FORMAT:-elf}" = bin ] && image=${elf%.elf}.bin
args=($QEMU_MACHINE -smp "$smp" -m "$mem" -kernel "$image" -display none)
if [ "${ICOUNT:-0}" = 1 ]; then
	args+=(-accel tcg,thread=single -icount shift=0)
elif [ "$accel" = kvm ]; then
	args+=(-accel kvm)
else
	args+=(-accel tcg,thread=${TCG_THREAD:-multi})
fi
[ -n "${INITRD:-}" ] && args+=(-initrd "$INITRD")

interactive=0 script=0
[ -t 0 ] && [ "${GDB:-0}" != 1 ] && interactive=1
# A pipe or a file on stdin is a script of shell commands (run after the
# workload); /dev/null and other devices are not.
[ $interactive = 0 ] && { [ -p /dev/stdin ] || [ -f /dev/stdin ]; } && script=1
[ $interactive = 1 ] && cmdline="bt.interactive $cmdline"
[ $script = 1 ] && cmdline="bt.script $cmdline"
# Refused here, not only by the guest: QEMU's x86-64 PVH option ROM copies
# -append into a 4 KiB buffer of its own without a bound, so a longer line
# overruns it before the guest can say anything.
max=$(sed -n 's/^#define CMDLINE_MAX \([0-9][0-9]*\).*/\1/p' "$here/boot/boot_info.h")
len=$(printf %s "$cmdline" | LC_ALL=C wc -c)
if [ "${CMDLINE_CHECK:-1}" != 0 ] && [ "$len" -ge "${max:?CMDLINE_MAX not found}" ]; then
	echo "qemu-run: the command line has $len bytes, more than the $((max - 1)) the guest takes: not run" >&2
	exit 2
fi
args+=(-append "$cmdline")

if [ "${GDB:-0}" = 1 ]; then
	log=${SERIAL_LOG:-$(dirname "$elf")/serial.log}
	port=${GDB_PORT:-1234}
	echo "qemu-run: serial output goes to $log; gdb attaches to :$port" >&2
	"$QEMU_BIN" "${args[@]}" -serial "file:$log" -monitor none -S -gdb tcp::$port &
	qpid=$!
	gargs=(-q -nx -ex "set pagination off" -ex "file $elf" -ex "target remote :$port")
	[ -f "$here/tools/gdb/baretrace.py" ] && gargs+=(-ex "source $here/tools/gdb/baretrace.py")
	# GDB_BATCH=FILE: run those gdb commands without a terminal, then stop QEMU.
	[ -n "${GDB_BATCH:-}" ] && gargs+=(-batch -x "$GDB_BATCH")
	gdb-multiarch "${gargs[@]}"
	rc=$?
	kill $qpid 2>/dev/null
	wait $qpid 2>/dev/null
	exit $rc
fi

if [ $interactive = 1 ]; then
	"$QEMU_BIN" "${args[@]}" -serial mon:stdio -monitor none
	rc=$?
else
	to=${TIMEOUT:-$TIMEOUT_DEFAULT}
	if [ $script = 1 ]; then
		# Typed one line per prompt, then Ctrl-D (tools/serial-feed.py).
		tmp=$(mktemp)
		cat > "$tmp"
		timeout -k 5 "$to" "$here/tools/serial-feed.py" "$tmp" -- \
			"$QEMU_BIN" "${args[@]}" -serial stdio -monitor none
		rc=$?
		rm -f "$tmp"
	else
		timeout -k 5 "$to" "$QEMU_BIN" "${args[@]}" -serial stdio -monitor none
		rc=$?
	fi
	if [ $rc = 124 ] || [ $rc = 137 ]; then
		echo "qemu-run: timeout after ${to}s" >&2
		exit 124
	fi
fi

case $EXIT_MAP in
debugexit)
	# The guest writes its status + 1 (arch/x86_64/power.c), so QEMU exits
	# with ((status + 1) << 1) | 1, at least 3; 1 is QEMU's own failure
	# (no kernel, a bad option), which must not read as the guest's 0.
	if [ $rc -ge 3 ] && [ $((rc & 1)) = 1 ]; then exit $(((rc - 3) / 2)); fi
	if [ $rc = 1 ]; then
		echo "qemu-run: QEMU failed (exit status 1) before the guest ran to an end" >&2
		exit 98
	fi
	echo "qemu-run: guest ended without an exit status (reset or triple fault)" >&2
	exit 99 ;;
*)	exit $rc ;;
esac
