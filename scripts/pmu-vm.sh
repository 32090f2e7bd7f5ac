#!/usr/bin/env bash
# pmcfuse on an emulated aarch64 machine with a real PMU (docs/hardware.md).
#
# QEMU's TCG with -icount shift=0 counts every guest instruction exactly, and
# Debian's arm64 kernel drives the emulated PMUv3 with its armv8_pmuv3
# driver (6 general counters + the cycle counter). This script assembles
# that machine from Debian's packages and runs commands in it:
#
#   scripts/pmu-vm.sh deps             host packages (qemu-system-arm, the cross compiler), arm64 lists
#   scripts/pmu-vm.sh sysroot          arm64 libraries and the kernel, downloaded once under build/pmu/
#   scripts/pmu-vm.sh build            pmcfuse cross-built for aarch64 into build/pmu/arm64
#   scripts/pmu-vm.sh run DIR -- CMD   runs CMD in the guest: DIR mounted at the same path, the
#                                      arm64 pmcfuse and its collector on PATH, CMD's exit status back
#   scripts/pmu-vm.sh check            all of the above, then the hardware suite tests/hw/ (make pmu-check)
#
# Environment: PMU_CPU (QEMU -cpu, default max,pauth-impdef=on), PMU_MEM (MiB,
# default 1024), PMU_TIMEOUT (s per guest, default 600), PMU_DIR (default
# build/pmu). Everything is idempotent: a second run downloads and builds
# nothing that is there.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
PMU_DIR=${PMU_DIR:-$ROOT/build/pmu}
PMU_CPU=${PMU_CPU:-max,pauth-impdef=on}
PMU_MEM=${PMU_MEM:-1024}
PMU_TIMEOUT=${PMU_TIMEOUT:-600}
DEBS=$PMU_DIR/debs
SYSROOT=$PMU_DIR/sysroot
ARMBUILD=$PMU_DIR/arm64
GUEST=$PMU_DIR/guest

die() {
	echo "pmcfuse: pmu-vm: $*" >&2
	exit 2
}
say() { echo "pmu-vm: $*" >&2; }

# arm64 packages: build-time (-dev, into the sysroot) and the guest's
# run-time libraries. Dependencies are listed by hand: the resolver would
# pull perl, python and LLVM, which nothing here loads.
ARM64_PACKAGES=(
	libc6 libc6-dev linux-libc-dev libcrypt1 libcrypt-dev libgcc-s1 libgcc-12-dev libstdc++6 gcc-12-base
	libsqlite3-0 libsqlite3-dev libjansson4 libjansson-dev libcmocka0 libcmocka-dev
	libpfm4 libpfm4-dev libpapi7.0 libpapi-dev libsde1
	libelf1 libelf-dev libdw1 libdw-dev zlib1g zlib1g-dev liblzma5 liblzma-dev libbz2-1.0 libzstd1
	libzydis4.0 libzydis-dev libzycore1.4 libzycore-dev
	libomp5-16 libomp-16-dev
	libnettle8 libhogweed6 libgmp10 nettle-dev   # SHA-256 (CMakeLists: nettle REQUIRED)
	busybox-static
)
# the kernel modules the guest loads (virtio-mmio transport, 9p shared folders), in order
GUEST_MODULES="virtio_mmio netfs fscache 9pnet 9pnet_virtio 9p"
HOST_PACKAGES=(qemu-system-arm gcc-aarch64-linux-gnu clang-16 cmake pkg-config cpio)

have_pkg() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q "install ok installed"; }

as_root() {
	if [ "$(id -u)" -eq 0 ]; then
		"$@"
	elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
		sudo "$@"
	else
		die "needs root for: $* (run as root once)"
	fi
}

cmd_deps() {
	local missing=() p
	for p in "${HOST_PACKAGES[@]}"; do
		have_pkg "$p" || missing+=("$p")
	done
	local update=0
	if ! dpkg --print-foreign-architectures | grep -qx arm64; then
		say "adding the arm64 architecture (dpkg --add-architecture arm64)"
		as_root dpkg --add-architecture arm64
		update=1
	fi
	# the arm64 package lists: apt-get download needs them
	if [ $update = 1 ] || ! apt-cache show libc6:arm64 >/dev/null 2>&1; then
		update=1
	fi
	if [ $update = 1 ] || [ ${#missing[@]} -gt 0 ]; then
		export DEBIAN_FRONTEND=noninteractive
		as_root apt-get update -qq
	fi
	if [ ${#missing[@]} -gt 0 ]; then
		say "installing ${missing[*]}"
		as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
			"${missing[@]}" >/dev/null
	fi
}

# The kernel package linux-image-arm64 points at now (linux-image-6.1.0-N-arm64).
kernel_package() {
	apt-cache depends linux-image-arm64:arm64 2>/dev/null |
		sed -n 's/^ *Depends: \(linux-image-[0-9][^:]*\).*/\1/p' | head -1
}

# Downloads the arm64 packages (once: build/pmu/debs keeps them) and unpacks
# them into build/pmu/sysroot; the kernel Image and its 9p modules into build/pmu/kernel.
cmd_sysroot() {
	cmd_deps
	mkdir -p "$DEBS"
	local want=() p kpkg
	kpkg=$(kernel_package)
	[ -n "$kpkg" ] || die "cannot find the arm64 kernel package (apt-cache depends linux-image-arm64:arm64)"
	# an older kernel package, once the archive has moved on, is dropped
	for p in "$DEBS"/linux-image-*.deb; do
		case "$(basename "$p")" in "${kpkg}_"* | "linux-image-*.deb") ;; *) rm -f "$p" ;; esac
	done
	for p in "${ARM64_PACKAGES[@]}" "$kpkg"; do
		compgen -G "$DEBS/${p}_*_arm64.deb" >/dev/null || want+=("$p:arm64")
	done
	if [ ${#want[@]} -gt 0 ]; then
		say "downloading ${#want[@]} arm64 packages into $DEBS"
		(cd "$DEBS" && apt-get download -qq -o APT::Sandbox::User=root "${want[@]}" >/dev/null) ||
			die "apt-get download failed (is the arm64 architecture in apt's sources?)"
	fi
	local stamp="$SYSROOT/.pmcf-stamp" sum
	sum=$( (ls "$DEBS"; echo "layout 2: kernel/Image kernel/modules") | sha256sum | cut -c1-16)
	if [ "$(cat "$stamp" 2>/dev/null)" != "$sum" ]; then
		say "unpacking the sysroot into $SYSROOT"
		rm -rf "$SYSROOT" "$PMU_DIR/kernel"
		mkdir -p "$SYSROOT" "$PMU_DIR/kernel"
		for d in "$DEBS"/*.deb; do
			case "$(basename "$d")" in
			linux-image-*)
				# the Image and the guest's modules only (the package is 350 MB unpacked)
				local kx="$PMU_DIR/kernel.x" m f
				rm -rf "$kx"
				dpkg-deb -x "$d" "$kx"
				mkdir -p "$PMU_DIR/kernel/modules"
				cp "$kx"/boot/vmlinuz-* "$PMU_DIR/kernel/Image"
				for m in $GUEST_MODULES; do
					f=$(find "$kx/lib/modules" -name "$m.ko" | head -1)
					[ -n "$f" ] || die "kernel module $m.ko not found in $(basename "$d")"
					cp "$f" "$PMU_DIR/kernel/modules/"
				done
				rm -rf "$kx"
				;;
			*) dpkg-deb -x "$d" "$SYSROOT" ;;
			esac
		done
		# absolute symlinks of -dev packages (libfoo.so -> /lib/...) made relative
		find "$SYSROOT" -type l | while read -r l; do
			t=$(readlink "$l")
			case "$t" in /*) ln -sfn "$SYSROOT$t" "$l" ;; esac
		done
		echo "$sum" >"$stamp"
	fi
}

# pmcfuse for aarch64 into build/pmu/arm64: the command, the library, the
# collector, the examples and the hardware suite's programs.
cmd_build() {
	cmd_sysroot
	command -v ccache >/dev/null 2>&1 && launcher=(-DCMAKE_C_COMPILER_LAUNCHER=ccache) || launcher=()
	if [ ! -f "$ARMBUILD/CMakeCache.txt" ]; then
		cmake -S "$ROOT" -B "$ARMBUILD" -DCMAKE_TOOLCHAIN_FILE="$ROOT/cmake/aarch64-linux-gnu.cmake" \
			-DPMCF_SYSROOT="$SYSROOT" -DCMAKE_BUILD_TYPE=RelWithDebInfo "${launcher[@]}" >/dev/null
	fi
	cmake --build "$ARMBUILD" -j"${JOBS:-$(nproc)}" --target pmcfuse_cli pmcfuse_ompt \
		pmcfuse_categorize_kernels examples_openmp example_taskapi example_plain hw_programs >/dev/null ||
		die "the aarch64 build failed (cmake --build $ARMBUILD)"
}

# The guest's initramfs: busybox, the arm64 run-time libraries, the 9p
# modules and /init. Rebuilt when the sysroot or this script changes.
cmd_image() {
	cmd_sysroot
	local img stamp sum
	img=$PMU_DIR/initramfs.cpio
	stamp=$PMU_DIR/initramfs.stamp
	sum=$( (cat "$SYSROOT/.pmcf-stamp"; sed -n '/^GUEST_INIT/,/^GUEST_INIT_END/p' "$0") | sha256sum | cut -c1-16)
	[ -f "$img" ] && [ "$(cat "$stamp" 2>/dev/null)" = "$sum" ] && return 0
	say "assembling the guest's initramfs"
	rm -rf "$GUEST"
	mkdir -p "$GUEST"/{bin,sbin,proc,sys,dev,tmp,etc,root,lib/modules,usr/lib,run}
	cp "$SYSROOT/bin/busybox" "$GUEST/bin/busybox"
	# run-time libraries only (no .a, no linker scripts)
	(cd "$SYSROOT" && find lib usr/lib/aarch64-linux-gnu usr/lib/llvm-16/lib -maxdepth 2 \
		\( -name '*.so.*' -o -name 'ld-linux-aarch64.so.1' -o -name 'libomp.so' \) \
		\( -type f -o -type l \) ! -path '*/gcc/*' -print0 |
		while IFS= read -r -d '' f; do
			mkdir -p "$GUEST/$(dirname "$f")"
			cp -L "$f" "$GUEST/$f"
		done)
	[ -d "$SYSROOT/usr/share/papi" ] && mkdir -p "$GUEST/usr/share" && cp -r "$SYSROOT/usr/share/papi" "$GUEST/usr/share/"
	cp "$PMU_DIR"/kernel/modules/*.ko "$GUEST/lib/modules/"
	sed -n '/^GUEST_INIT$/,/^GUEST_INIT_END$/p' "$0" | sed '1d;$d' >"$GUEST/init"
	chmod +x "$GUEST/init"
	echo "root:x:0:0:root:/root:/bin/sh" >"$GUEST/etc/passwd"
	echo "root:x:0:" >"$GUEST/etc/group"
	(cd "$GUEST" && find . | cpio -o -H newc --quiet) >"$img.tmp"
	mv "$img.tmp" "$img"
	rm -rf "$GUEST"
	echo "$sum" >"$stamp"
}

# Boots the guest once: CTL (a folder: cmd.sh to run, rc written back) and
# the folders to mount at the same paths. Prints CMD's output; returns its
# exit status (2 when the guest said nothing).
boot() {
	local ctl=$1
	shift
	local kimg args=() i=0 d
	kimg=$PMU_DIR/kernel/Image
	args+=(-fsdev "local,id=c,path=$ctl,security_model=none"
		-device "virtio-9p-device,fsdev=c,mount_tag=pmcfctl")
	: >"$ctl/mounts"
	for d in "$@"; do
		args+=(-fsdev "local,id=m$i,path=$d,security_model=none"
			-device "virtio-9p-device,fsdev=m$i,mount_tag=pmcf$i")
		echo "pmcf$i $d" >>"$ctl/mounts"
		i=$((i + 1))
	done
	local status=0
	timeout "$PMU_TIMEOUT" qemu-system-aarch64 -machine virt -cpu "$PMU_CPU" -smp 1 -m "$PMU_MEM" \
		-icount shift=0 -display none -monitor none -serial stdio -no-reboot -nic none \
		-kernel "$kimg" -initrd "$PMU_DIR/initramfs.cpio" \
		-append "console=ttyAMA0 quiet loglevel=1 panic=-1 rdinit=/init" \
		"${args[@]}" </dev/null |
		tr -d '\r' | awk '/^PMCF-GUEST-START$/ {on = 1; next} /^PMCF-GUEST-EXIT / {on = 0; next} on' ||
		status=$?
	if [ -f "$ctl/rc" ]; then
		return "$(cat "$ctl/rc")"
	fi
	[ $status -eq 124 ] && die "the guest ran past PMU_TIMEOUT=${PMU_TIMEOUT}s"
	die "the guest ended without an exit status (qemu status $status)"
}

# run DIR -- CMD...: CMD in the guest, in DIR, with the arm64 pmcfuse on PATH.
cmd_run() {
	local dir=${1:-}
	[ -n "$dir" ] && [ "${2:-}" = "--" ] && [ $# -ge 3 ] ||
		{ echo "pmcfuse: pmu-vm: usage: scripts/pmu-vm.sh run DIR -- CMD [ARGS...]" >&2; exit 1; }
	[ -d "$dir" ] || { echo "pmcfuse: pmu-vm: run: no folder '$dir'" >&2; exit 1; }
	dir=$(cd "$dir" && pwd)
	shift 2
	[ -x "$ARMBUILD/pmcfuse" ] || cmd_build
	cmd_image
	local ctl
	ctl=$(mktemp -d "${TMPDIR:-/tmp}/pmcf-vm.XXXXXX")
	{
		echo "export PATH=$ARMBUILD:\$PATH"
		echo "export PMCF_ARM64_BUILD=$ARMBUILD"
		printf 'cd %q || exit 2\n' "$dir"
		printf '%q ' "$@"
		echo
	} >"$ctl/cmd.sh"
	[ -t 2 ] || : >"$ctl/notty"
	local rc=0
	boot "$ctl" "$dir" "$ARMBUILD" || rc=$?
	rm -rf "$ctl"
	return $rc
}

# The hardware suite (tests/hw/run.sh) in the guest; its CSVs land in
# build/pmu/hwout. Exit status 0 when every check passed.
cmd_check() {
	local t0=$SECONDS
	cmd_build
	cmd_image
	mkdir -p "$PMU_DIR/hwout"
	say "ready in $((SECONDS - t0)) s; booting the guest for the hardware suite"
	local rc=0
	cmd_run "$ROOT" -- sh "$ROOT/tests/hw/run.sh" "$ARMBUILD" "$PMU_DIR/hwout" || rc=$?
	# libpfm4 natives and PAPI presets need a CPU model libpfm4 knows
	say "booting again with -cpu cortex-a57 (libpfm4 natives, PAPI presets)"
	PMU_CPU=cortex-a57 cmd_run "$ROOT" -- sh "$ROOT/tests/hw/run.sh" "$ARMBUILD" "$PMU_DIR/hwout" || rc=$?
	say "pmu-check: $([ $rc = 0 ] && echo passed || echo "FAILED (status $rc)") in $((SECONDS - t0)) s"
	return $rc
}

case "${1:-}" in
deps) cmd_deps ;;
sysroot) cmd_sysroot ;;
build) cmd_build ;;
check) cmd_check ;;
image) cmd_image ;;
run)
	shift
	cmd_run "$@"
	;;
*)
	sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//' >&2
	exit 1
	;;
esac

exit 0

# The guest's /init (busybox sh), copied into the initramfs by cmd_image.
GUEST_INIT
#!/bin/busybox sh
/bin/busybox --install -s /bin
export PATH=/bin:/sbin
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev
mount -t tmpfs tmp /tmp
# TMPDIR on a tmpfs of its own: the collector's record files are mmapped,
# which a shared folder mounted over /tmp (run /tmp -- ...) does not take
mount -t tmpfs run /run
mkdir -p /run/tmp
for m in virtio_mmio netfs fscache 9pnet 9pnet_virtio 9p; do
	insmod /lib/modules/$m.ko 2>/dev/null
done
opts=trans=virtio,version=9p2000.L,msize=262144,cache=mmap
mkdir -p /ctl
mount -t 9p -o $opts pmcfctl /ctl || { echo "PMCF-GUEST-EXIT 2"; poweroff -f; }
while read -r tag path; do
	mkdir -p "$path" && mount -t 9p -o $opts "$tag" "$path" || echo "pmu-vm guest: cannot mount $path"
done </ctl/mounts
export HOME=/root TMPDIR=/run/tmp
export LD_LIBRARY_PATH=/lib/aarch64-linux-gnu:/usr/lib/aarch64-linux-gnu:/usr/lib/llvm-16/lib
echo PMCF-GUEST-START
# the console is a terminal; when the host's stderr is not (a log, a pipe),
# CMD's output goes through a pipe, so that pmcfuse writes a line per
# execution instead of redrawing a progress line with escape codes
if [ -f /ctl/notty ]; then
	set -o pipefail
	sh /ctl/cmd.sh 2>&1 | cat
	rc=$?
else
	sh /ctl/cmd.sh
	rc=$?
fi
echo $rc >/ctl/rc
sync
echo "PMCF-GUEST-EXIT $rc"
poweroff -f
GUEST_INIT_END
