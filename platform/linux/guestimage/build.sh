#!/bin/bash
# Build Paddock's guest image: a small Debian bookworm root file system that
# Lima v1.2.2 boots through QEMU's direct kernel boot, with Lima's cloud-init
# data read by a shell script instead of cloud-init.
#
# With --wsl, the same Debian packages less the kernel make a root file
# system tarball for WSL2 instead (Windows' App), in a directory named
# wsl-HASH: WSL2 boots its own kernel and systemd (/etc/wsl.conf), Lima
# runs its boot scripts through wsl.exe, and the container engines start
# with systemd.
#
# The image is cached by content: the hash of this script, the files under
# rootfs/ and initramfs/ and the apt source names a directory under
# ${XDG_CACHE_HOME:-$HOME/.cache}/paddock/images/, built once per machine.
# The directory is built under a temporary name and renamed into place, so it
# appears whole or not at all. Prints the image directory on stdout; progress
# and timings go to stderr.
#
# Needs root (debootstrap, chroot); re-runs itself through sudo otherwise.
# Installs its host packages with apt-get when they are missing. Needs Go,
# which builds the image's one program of Paddock's (stalebridge/).
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
suite=bookworm
variant=qemu
case "${1:-}" in
--wsl) variant=wsl ;;
"") ;;
*) echo "usage: $0 [--wsl]" >&2; exit 2 ;;
esac
packages="systemd-sysv udev dbus libpam-systemd kmod openssh-server sudo
iproute2 iptables netbase procps e2fsprogs ca-certificates docker.io sshfs"
host_packages="debootstrap e2fsprogs"
if [ "$variant" = qemu ]; then
	packages="$packages linux-image-amd64 initramfs-tools busybox-static"
	host_packages="$host_packages qemu-utils qemu-system-x86 cpio"
fi

log() { echo "guestimage: $*" >&2; }

if [ "$(id -u)" != 0 ]; then
	command -v sudo >/dev/null || { log "must run as root (debootstrap needs it) and sudo is missing"; exit 1; }
	# Keep the invoking user's cache; the result is handed back to that user.
	export PADDOCK_IMAGE_CACHE="${PADDOCK_IMAGE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/paddock/images}"
	# sudo's own PATH may not reach the user's Go.
	PADDOCK_GO=$(command -v go || true)
	export PADDOCK_GO
	exec sudo --preserve-env=PADDOCK_IMAGE_CACHE,PADDOCK_GO "$0" "$@"
fi
cache="${PADDOCK_IMAGE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/paddock/images}"

# The Debian mirror comes from the host's apt configuration.
mirror=$(awk '/^URIs:/{print $2; exit}' /etc/apt/sources.list.d/debian.sources 2>/dev/null || true)
[ -n "$mirror" ] || mirror=$(awk '/^deb /{print $2; exit}' /etc/apt/sources.list 2>/dev/null || true)
[ -n "$mirror" ] || { log "no Debian mirror found in the host's apt sources"; exit 1; }

hash=$( (
	cat "$0"
	cd "$here" && { find rootfs initramfs -type f; find stalebridge -maxdepth 1 -name '*.go' ! -name '*_test.go'; } |
		LC_ALL=C sort | while read -r f; do
			echo "$f"; stat -c %a "$f"; cat "$f"
		done
	grep 'go.etcd.io/bbolt ' "$here/../../../go.mod"
	echo "$suite $mirror $variant"
) | sha256sum | cut -c1-16)
out="$cache/$hash"
[ "$variant" = qemu ] || out="$cache/wsl-$hash"
# Each use marks the image as used: images unused for a week are removed
# when another one is built.
if [ -f "$out/template.yaml" ]; then
	touch "$out/.used"
	echo "$out"
	exit 0
fi

missing=""
for p in $host_packages; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing="$missing $p"
done
if [ -n "$missing" ]; then
	log "installing host packages:$missing"
	apt-get update -qq >&2
	# shellcheck disable=SC2086
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $missing >&2
fi

mkdir -p "$cache"
# Temporaries of builds that died are removed; a live build holds the lock.
exec 9>"$cache/.lock"
flock 9
if [ -f "$out/template.yaml" ]; then
	echo "$out"
	exit 0
fi
for stale in "$cache"/.build-*; do
	[ -e "$stale" ] || continue
	for m in proc sys dev; do umount "$stale/rootfs/$m" 2>/dev/null || true; done
	rm -rf "$stale"
done
for old in "$cache"/*/; do
	old=${old%/}
	[ -d "$old" ] || continue
	used="$old/.used"
	[ -e "$used" ] || used=$old # built before images were marked
	if [ -n "$(find "$used" -maxdepth 0 -mtime +7)" ]; then
		log "removing $old, unused for a week"
		rm -rf "$old"
	fi
done
tmp=$(mktemp -d "$cache/.build-XXXXXX")
root="$tmp/rootfs"
cleanup() {
	for m in proc sys dev; do umount "$root/$m" 2>/dev/null || true; done
	rm -rf "$tmp"
}
trap cleanup EXIT

go=${PADDOCK_GO:-$(command -v go || true)}
[ -n "$go" ] || { log "Go is missing: it builds stalebridge/, a program of the image"; exit 1; }

t0=$(date +%s)
# debootstrap's own resolver cannot handle virtual packages, so it lays down
# a minimal base and apt inside the chroot installs the rest.
debootstrap --variant=minbase "$suite" "$root" "$mirror" >&2
t1=$(date +%s); log "TIMING debootstrap $((t1 - t0))s"

# Paddock's files: the cidata reader and its units, network, ssh and module
# settings.
cp -R --preserve=mode "$here/rootfs/." "$root/"
# The image's program of Paddock's: dockerd's unit runs it first, to take
# the stored default bridge out of dockerd's network store at boot
# (stalebridge/doc.go).
(cd "$here/../../.." && CGO_ENABLED=0 GOOS=linux GOARCH=amd64 "$go" build -trimpath -ldflags=-s \
	-o "$root/usr/local/sbin/paddock-stale-bridge" ./platform/linux/guestimage/stalebridge) >&2
mount -t proc proc "$root/proc"
mount -t sysfs sys "$root/sys"
mount --bind /dev "$root/dev"
printf '#!/bin/sh\nexit 101\n' >"$root/usr/sbin/policy-rc.d"
chmod +x "$root/usr/sbin/policy-rc.d"
# The kernel package brings initramfs-tools, whose initrd the image does not
# use (see initramfs/): keep it small, to build quickly.
if [ "$variant" = qemu ]; then
	mkdir -p "$root/etc/initramfs-tools/conf.d"
	echo MODULES=list >"$root/etc/initramfs-tools/conf.d/paddock.conf"
fi
chroot "$root" apt-get update -qq >&2
# shellcheck disable=SC2086
DEBIAN_FRONTEND=noninteractive chroot "$root" apt-get install -y -qq --no-install-recommends $packages >&2
rm -f "$root/usr/sbin/policy-rc.d"
t2=$(date +%s); log "TIMING apt-install $((t2 - t1))s"
# sshd's PAM session runs Debian's update-motd.d scripts (uname) at every
# login, a command's too: 0.3 s of a 1.5-s login under emulation, and
# Lima's first login is on the way of every start and resume. The static
# /etc/motd stays.
sed -i 's|^session\s\+optional\s\+pam_motd\.so\s\+motd=/run/motd\.dynamic|# &|' "$root/etc/pam.d/sshd"
grep -q '^# session.*motd=/run/motd.dynamic' "$root/etc/pam.d/sshd"

# unmount_root ends the chroot's work: apt's caches and lists, the logs and
# the machine id (systemd makes one at the first boot) go.
unmount_root() {
	chroot "$root" apt-get clean
	for m in proc sys dev; do umount "$root/$m"; done
	rm -rf "$root"/var/lib/apt/lists/* "$root"/var/cache/apt/*.bin "$root"/var/log/*.log
	: >"$root/etc/machine-id"
}

# publish hands the built directory to the invoking user and renames it
# into place, whole, then prints it.
publish() {
	if [ -n "${SUDO_UID:-}" ]; then
		chown -R "$SUDO_UID:${SUDO_GID:-$SUDO_UID}" "$tmp"
	fi
	chmod 755 "$tmp"
	touch "$tmp/.used"
	mv -T "$tmp" "$out"
	trap - EXIT
	log "TIMING total $(($(date +%s) - t0))s"
	echo "$out"
}

# The WSL2 variant: Debian's engines stay enabled (there is no kernel
# command line to name one), the units that read the cidata disk are not
# (Lima's boot scripts run through wsl.exe there), sshd makes its host keys
# at its first start, and WSL2 starts systemd.
if [ "$variant" = wsl ]; then
	echo lima >"$root/etc/hostname"
	: >"$root/etc/fstab"
	rm -f "$root"/etc/ssh/ssh_host_*
	mkdir -p "$root/etc/systemd/system/ssh.service.d"
	printf '%s\n' '# WSL2 runs no lima-init: the host keys are made at the first start.' \
		'[Service]' 'ExecStartPre=/usr/bin/ssh-keygen -A' >"$root/etc/systemd/system/ssh.service.d/wsl-host-keys.conf"
	printf '%s\n' '[boot]' 'systemd=true' '[user]' 'default=root' '[network]' 'hostname=lima' >"$root/etc/wsl.conf"
	chroot "$root" update-alternatives --set iptables /usr/sbin/iptables-legacy >&2
	chroot "$root" update-alternatives --set ip6tables /usr/sbin/ip6tables-legacy >&2
	chroot "$root" systemctl mask systemd-networkd-wait-online.service apt-daily.timer apt-daily-upgrade.timer \
		e2scrub_all.timer e2scrub_reap.service fstrim.timer dpkg-db-backup.timer >&2
	unmount_root
	t3=$(date +%s); log "TIMING configure $((t3 - t2))s"
	tar --numeric-owner --xattrs -C "$root" -czf "$tmp/rootfs.tar.gz" . >&2
	rm -rf "$root"
	t4=$(date +%s); log "TIMING tarball $((t4 - t3))s"
	cat >"$tmp/template.yaml" <<YAML
vmType: wsl2
arch: x86_64
images:
- location: $out/rootfs.tar.gz
  arch: x86_64
containerd: {system: false, user: false}
YAML
	publish
	exit 0
fi

echo lima >"$root/etc/hostname"
echo 'LABEL=lima-root / ext4 defaults,discard 0 1' >"$root/etc/fstab"
rm -f "$root"/etc/ssh/ssh_host_*
# Lima v1.2.2's unit for its guest agent as `lima-guestagent install-systemd`
# writes it for a QEMU guest, so that the first boot starts the agent
# without reloading systemd, and the boot script's reinstallation finds it
# in place (rootfs/usr/local/lib/paddock/fastpath/sudo).
cp "$root/usr/local/lib/paddock/lima-guestagent.service" "$root/etc/systemd/system/"
chroot "$root" systemctl enable lima-init.service lima-guestagent-early.service \
	lima-guestagent.service lima-boot.service lima-growfs.service >&2
# docker.io (which brings containerd, runc and ctr) enables its engines;
# they would cost every boot 3.5-4.5 s under emulation. A VM that wants one
# starts it from the kernel command line, in the boot's first transaction:
# systemd.wants=docker.service (moby; it pulls in docker.socket and
# containerd) or systemd.wants=containerd.service.
chroot "$root" systemctl disable docker.service docker.socket containerd.service >&2
# dockerd sets up its firewall with about a hundred iptables runs as it
# starts (and Lima's guest agent reads it with more). Under emulation the
# nf_tables flavour, Debian's default, takes about 104 ms a run where the
# legacy one takes 72 ms (a dynamic program's start alone takes 48 ms):
# a restart of dockerd took 10.9-12.6 s with it against 14.5-14.7 s.
chroot "$root" update-alternatives --set iptables /usr/sbin/iptables-legacy >&2
chroot "$root" update-alternatives --set ip6tables /usr/sbin/ip6tables-legacy >&2
# Kernel modules for hardware that a QEMU guest driven over SSH never has
# (displays, cameras and TV cards, sound, wireless, InfiniBand, industrial
# sensors, Bluetooth, staging drivers): a fifth of the image.
for d in drivers/gpu drivers/media sound drivers/net/wireless drivers/infiniband \
	drivers/iio drivers/bluetooth net/bluetooth drivers/staging; do
	rm -rf "$root/lib/modules/"*/kernel/$d
done
chroot "$root" depmod -a "$(basename "$(echo "$root"/lib/modules/*)")"
# Lima's boot/20-rootless-base.sh appends this block to the user's shell
# start-up files where it is missing, which takes seconds under emulation
# on the first boot: the skeleton that lima-init's useradd copies has it.
for f in .profile .bashrc .zshrc; do
	# shellcheck disable=SC2016 # $PATH is for the guest's shell
	printf '%s\n' '# Lima BEGIN' '# Make sure iptables and mount.fuse3 are available' \
		'PATH="$PATH:/usr/sbin:/sbin"' 'export PATH' '# Lima END' >>"$root/etc/skel/$f"
done
# Generators run at boot and at every reload of systemd (Lima's boot scripts
# reload it three times), each a program start under emulation. Only those
# for /etc/fstab and /etc/rc.local stay, and the debug generator, which
# reads systemd.wants= from the kernel command line (how a VM starts a
# container engine, see below): nothing here uses encrypted or verity
# disks, hibernation, offline updates, SysV init scripts (every package in
# the image has a systemd unit) or gettys.
mkdir -p "$root/etc/systemd/system-generators"
for g in cryptsetup getty gpt-auto hibernate-resume integritysetup run \
	system-update sysv veritysetup; do
	ln -s /dev/null "$root/etc/systemd/system-generators/systemd-$g-generator"
done
# Units that only cost boot time in a VM that Lima drives over SSH: timers
# for long-lived machines, consoles, kernel debug file systems, and checks
# of a root file system that the image and lima-init already took care of.
chroot "$root" systemctl mask systemd-networkd-wait-online.service \
	systemd-network-generator.service systemd-fsck-root.service \
	apt-daily.timer apt-daily-upgrade.timer e2scrub_all.timer e2scrub_reap.service \
	fstrim.timer dpkg-db-backup.timer systemd-tmpfiles-clean.timer \
	systemd-pstore.service getty@tty1.service serial-getty@ttyS0.service \
	sys-kernel-debug.mount sys-kernel-tracing.mount dev-hugepages.mount \
	modprobe@drm.service modprobe@efi_pstore.service >&2
# The kernel's audit stays on: Lima's guest agent listens for its firewall
# records and reads the NAT table (an iptables run, a tenth of a second
# under emulation) only in the minute after one, where without audit it
# reads it on every 3-s tick, a VM's life long (an idle VM of the App:
# about 3% of a host core against 10%). journald does not collect the
# records (a container engine's start writes one per firewall change,
# every SSH login and sudo a few); it keeps only the kernel's own copies,
# which the kernel rate-limits to 10 in 5 s.
chroot "$root" systemctl mask systemd-journald-audit.socket >&2
# The initramfs (initramfs/init): busybox, and the modules of the root disk,
# of the cidata CD-ROM and of the network card in dependency order. With the
# card's driver bound before systemd starts, lima-init finds eth0 at once
# instead of waiting for udev's coldplug, which a container engine starting
# beside it slows down by seconds under emulation.
kver=$(basename "$(echo "$root"/lib/modules/*)")
initfs="$tmp/initramfs"
mkdir -p "$initfs/bin" "$initfs/dev" "$initfs/proc" "$initfs/root" "$initfs/lib/modules"
cp "$root/bin/busybox" "$initfs/bin/busybox"
cp "$here/initramfs/init" "$initfs/init"
chroot "$root" modprobe --show-depends --set-version "$kver" -a virtio_pci virtio_blk ext4 virtio_scsi sr_mod isofs virtio_net |
	awk '$1 == "insmod" && !seen[$2]++ { print $2 }' | while read -r ko; do
	cp "$root$ko" "$initfs/lib/modules/"
	basename "$ko" >>"$initfs/lib/modules/order"
done
(cd "$initfs" && find . | LC_ALL=C sort | cpio --quiet -o -H newc) >"$tmp/initrd.img"
rm -rf "$initfs"
unmount_root
cp -L "$root/vmlinuz" "$tmp/vmlinuz"
t3=$(date +%s); log "TIMING configure $((t3 - t2))s"

# No partition table and no boot loader: the file system is the whole disk.
mkfs.ext4 -q -L lima-root -d "$root" "$tmp/disk.raw" 3G >&2
qemu-img convert -f raw -O qcow2 "$tmp/disk.raw" "$tmp/debian.qcow2" >&2
rm -rf "$tmp/disk.raw" "$root"
t4=$(date +%s); log "TIMING disk $((t4 - t3))s"

# A Lima template fragment naming the files; the caller adds the rest.
# no_timer_check: under TCG on a loaded host the kernel's check of the IO-APIC
# timer can miss its ticks and panic ("IO-APIC + timer doesn't work"); the
# check proves nothing in a VM.
# apparmor=0: the image has no apparmor_parser, so with AppArmor on dockerd
# cannot load its docker-default profile and every `docker run` fails.
cat >"$tmp/template.yaml" <<YAML
vmType: qemu
arch: x86_64
images:
- location: $out/debian.qcow2
  arch: x86_64
  kernel:
    location: $out/vmlinuz
    cmdline: "root=LABEL=lima-root rw console=ttyS0 net.ifnames=0 quiet apparmor=0 mitigations=off cryptomgr.notests no_timer_check"
  initrd:
    location: $out/initrd.img
cpuType:
  x86_64: max
firmware:
  legacyBIOS: true
containerd: {system: false, user: false}
YAML
publish
