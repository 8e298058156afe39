#!/bin/bash
# Check the .rpm that build.sh made without installing it (Debian has no
# dnf): rpm -qpl lists what the .deb installs, the package requires QEMU,
# qemu-img and ssh by Fedora's names, its scripts are the same as the
# .deb's, and rpmlint, with packaging/rpmlint.toml, finds nothing.
#
#   packaging/check-rpm.sh [dist/paddock-VERSION-RELEASE.ARCH.rpm]
set -euo pipefail
cd "$(dirname "$0")/.."
rpm=${1:-$(ls -t dist/paddock-*.rpm | head -1)}
[ -f "$rpm" ] || { echo "check-rpm: no .rpm (run packaging/build.sh)" >&2; exit 1; }

fail=0
ok() { echo "ok: $*"; }
bad() { echo "FAIL: $*"; fail=1; }

files=$(rpm -qpl "$rpm")
for f in /usr/bin/paddock /usr/lib/systemd/user/paddock.service /usr/lib/systemd/system/paddock@.service \
	/usr/share/bash-completion/completions/paddock /usr/share/zsh/vendor-completions/_paddock \
	/usr/share/fish/vendor_completions.d/paddock.fish /usr/share/doc/paddock/README.md \
	/usr/share/man/man1/paddock.1.gz /usr/share/man/man1/paddock-service-install.1.gz \
	/usr/lib/paddock/paddock-lima /usr/lib/paddock/paddock-shim /usr/lib/paddock/paddock-settings \
	"/usr/lib/paddock/lima-guestagent.Linux-$(rpm -qp --qf '%{ARCH}' "$rpm")"; do
	grep -qxF "$f" <<<"$files" && ok "rpm -qpl lists $f" || bad "rpm -qpl does not list $f"
done
requires=$(rpm -qpR "$rpm")
for r in qemu-img openssh-clients openssh-server 'qemu-system-.*-core'; do
	grep -qx "$r" <<<"$requires" && ok "requires $r" || bad "does not require $r: $requires"
done
scripts=$(rpm -qp --scripts "$rpm")
for s in postinstall preremove postremove; do
	grep -qF "$(sed -n 2p "packaging/scripts/$s.sh")" <<<"$scripts" && ok "carries $s.sh" || bad "does not carry $s.sh"
done
# nfpm's .rpm names its files with absolute paths in its cpio archive, and
# GNU cpio, which rpmlint unpacks it with, would write them to this
# machine's root rather than rpmlint's directory: rpmlint runs with a cpio
# that keeps them relative.
wrap=$(mktemp -d)
trap 'rm -rf "$wrap"' EXIT
printf '#!/bin/sh\nexec %s --no-absolute-filenames "$@"\n' "$(command -v cpio)" >"$wrap/cpio"
chmod +x "$wrap/cpio"
if out=$(PATH=$wrap:$PATH rpmlint -c packaging/rpmlint.toml "$rpm" 2>&1) && grep -q ' 0 errors, 0 warnings' <<<"$out"; then
	ok "rpmlint: $(tail -1 <<<"$out")"
else
	bad "rpmlint:"; echo "$out"
fi
exit $fail
