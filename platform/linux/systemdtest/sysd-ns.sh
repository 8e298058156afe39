#!/bin/bash
# Boot a throw-away systemd as PID 1 of its own pid, mount, uts, ipc, net and
# cgroup namespaces, on a private overlay of the host's root (or of the root
# file system SYSD_NS_LOWER names), so that nothing
# it does (tmpfiles' "D /tmp", units written under /etc, timers) reaches the
# host. Never boot systemd on the host's root: it would wipe the host's /tmp.
#
#   sysd-ns.sh up   ID SHARE    boot; SHARE (a host directory) appears at /share;
#                               returns once `systemctl is-system-running` settles
#   sysd-ns.sh exec ID CMD...   run CMD inside, as root, in all its namespaces
#   sysd-ns.sh down ID          power off, SIGKILL as a fallback, remove the cgroup
#
# SYSD_NS_BASE (default /tmp/sysd-ns) holds the run directory of each ID.
set -euo pipefail
BASE=${SYSD_NS_BASE:-/tmp/sysd-ns}
cmd=${1:?up|exec|down}; ID=${2:?id}; R=$BASE/$ID

# The host's cgroup2 hierarchy: /sys/fs/cgroup on a unified host, its
# "unified" subdirectory on a hybrid one.
if [ -e /sys/fs/cgroup/cgroup.controllers ]; then CGV2=/sys/fs/cgroup
elif [ -e /sys/fs/cgroup/unified/cgroup.controllers ]; then CGV2=/sys/fs/cgroup/unified
else echo "sysd-ns: no cgroup2 hierarchy under /sys/fs/cgroup" >&2; exit 1; fi
CG=$CGV2/sysd-ns-$ID

inner() {   # PID 1 of the new pid namespace, in a private mount namespace
  set -eu
  M=$R/root
  read -r hostpid _ < /proc/self/stat; echo "$hostpid" > "$R/init.pid"   # the host's /proc is still mounted: a host pid
  mount -t tmpfs -o mode=755 tmpfs "$R/ovl"
  mkdir -p "$R/ovl/upper" "$R/ovl/work"
  mount -t overlay overlay -o "lowerdir=$LOWER,upperdir=$R/ovl/upper,workdir=$R/ovl/work" "$M"
  mount -t proc proc "$M/proc"
  mount -t sysfs -o ro,nosuid,nodev,noexec sysfs "$M/sys"
  mount -t cgroup2 -o nosuid,nodev,noexec cgroup2 "$M/sys/fs/cgroup"   # its root is our cgroup namespace's
  mount -t tmpfs -o mode=755,nosuid tmpfs "$M/dev"
  for d in null:1:3 zero:1:5 full:1:7 random:1:8 urandom:1:9 tty:5:0; do
    IFS=: read -r n ma mi <<<"$d"; mknod -m 666 "$M/dev/$n" c "$ma" "$mi"; done
  mkdir -p "$M/dev/pts" "$M/dev/shm"; mount -t devpts -o newinstance,ptmxmode=0666,mode=620 devpts "$M/dev/pts"
  ln -s pts/ptmx "$M/dev/ptmx"; mount -t tmpfs -o mode=1777 tmpfs "$M/dev/shm"
  ln -s /proc/self/fd "$M/dev/fd"; ln -s /proc/self/fd/0 "$M/dev/stdin"; ln -s /proc/self/fd/1 "$M/dev/stdout"; ln -s /proc/self/fd/2 "$M/dev/stderr"
  mkdir -p "$M/share"; mount --bind "$SHARE" "$M/share"
  cd "$M"; mkdir -p .oldroot; pivot_root . .oldroot; umount -l /.oldroot; rmdir /.oldroot
  touch /.sysd-ns-pivoted   # `up` must not enter before this: it would land in the host's root
  export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
  exec env -i container=sysd-ns TERM=dumb PATH=$PATH /lib/systemd/systemd --unit=multi-user.target --show-status=yes
}

case $cmd in
up)
  SHARE=${3:?host directory to bind at /share}; mkdir -p "$SHARE" "$R/ovl" "$R/root"
  mkdir "$CG"
  LOWER=${SYSD_NS_LOWER:-/}
  export R SHARE LOWER
  ( echo $BASHPID > "$CG/cgroup.procs"
    exec setsid unshare --pid --fork --mount --uts --ipc --net --cgroup --propagation private \
         bash -c "$(declare -f inner); inner" ) >"$R/console.log" 2>&1 </dev/null &
  echo $! > "$R/unshare.pid"
  for _ in $(seq 300); do [ -s "$R/init.pid" ] && break; sleep 0.1; done
  p=$(cat "$R/init.pid" 2>/dev/null || true)
  [ -n "$p" ] || { echo "sysd-ns $ID: no init pid"; cat "$R/console.log"; exit 1; }
  st=none
  for _ in $(seq 600); do   # up to 60 s
    nsenter -t "$p" -a test -e /.sysd-ns-pivoted 2>/dev/null || { st=setup; sleep 0.05; continue; }
    st=$(nsenter -t "$p" -a systemctl is-system-running 2>/dev/null || true)
    case $st in running|degraded) break;; esac
    sleep 0.1
  done
  echo "sysd-ns $ID: init pid $p, state $st"
  case $st in running|degraded) ;; *) echo "sysd-ns $ID: not ready"; tail -20 "$R/console.log"; exit 1;; esac
  ;;
exec)
  shift 2; exec nsenter -t "$(cat "$R/init.pid")" -a "$@" ;;
down)
  p=$(cat "$R/init.pid" 2>/dev/null || true); u=$(cat "$R/unshare.pid" 2>/dev/null || true)
  if [ -n "$p" ] && [ -d "/proc/$p" ]; then
    kill -s SIGRTMIN+4 "$p" || true     # systemd: power off
    for _ in $(seq 150); do [ -d "/proc/$p" ] || break; sleep 0.1; done
    [ -d "/proc/$p" ] && { echo "sysd-ns $ID: power off timed out; SIGKILL $p"; kill -9 "$p" || true; }
  fi
  # Kill whatever is left in the container's cgroup (cgroup.kill: kernel >= 5.14).
  if [ -d "$CG" ] && [ -n "$(find "$CG" -name cgroup.procs -exec cat {} + 2>/dev/null)" ]; then
    echo "sysd-ns $ID: killing leftover processes"; echo 1 > "$CG/cgroup.kill"; sleep 0.5
  fi
  if [ -n "$u" ]; then for _ in $(seq 50); do [ -d "/proc/$u" ] || break; sleep 0.1; done; fi
  [ -d "$CG" ] && find "$CG" -depth -type d -exec rmdir {} \; 2>/dev/null || true
  [ -d "$CG" ] && { echo "sysd-ns $ID: cgroup $CG is still there" >&2; exit 1; }
  rm -rf "$R"; echo "sysd-ns $ID: down"
  ;;
esac
