// Package systemdtest boots a real, throw-away systemd for tests: systemd
// runs as PID 1 of its own namespaces on a private overlay of the host's
// root (sysd-ns.sh), so units, users and files that a test creates inside
// never reach the host, and a test can run commands in it as root or as a
// user with a lingering systemd user manager. It needs root, util-linux
// (unshare, nsenter, setpriv), systemd and a cgroup2 hierarchy; see
// packaging/ci-deps.sh. Tests that use it run only with PADDOCK_E2E=1.
package systemdtest
