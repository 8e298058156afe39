package lima

import (
	"context"
	"errors"
	"fmt"

	"golang.org/x/sys/unix"
)

// waitExit returns once one of pids has exited, or ctx ends (with ctx's
// error). A pidfd becomes readable when its process exits, zombie or not,
// so the wait is one poll(2), woken by ctx's end through an eventfd. Once
// the pidfds are open, same reports whether the processes are still the
// ones the caller meant; if not, waitExit returns at once. Without pidfds
// (Linux before 5.3, or a seccomp filter that refuses them) it returns
// errNoExitNotice.
func waitExit(ctx context.Context, pids []int, same func() bool) error {
	fds := make([]unix.PollFd, 0, len(pids)+1)
	defer func() {
		for _, f := range fds {
			unix.Close(int(f.Fd))
		}
	}()
	for _, pid := range pids {
		fd, err := unix.PidfdOpen(pid, 0)
		switch {
		case errors.Is(err, unix.ESRCH):
			return nil // gone already
		case errors.Is(err, unix.ENOSYS), errors.Is(err, unix.EPERM):
			return errNoExitNotice // an old kernel, or a seccomp filter
		case err != nil:
			return fmt.Errorf("watch process %d: %w", pid, err)
		}
		fds = append(fds, unix.PollFd{Fd: int32(fd), Events: unix.POLLIN})
	}
	if !same() {
		return nil
	}
	wake, err := unix.Eventfd(0, unix.EFD_CLOEXEC)
	if err != nil {
		return fmt.Errorf("watch processes: %w", err)
	}
	fds = append(fds, unix.PollFd{Fd: int32(wake), Events: unix.POLLIN})
	woken := make(chan struct{})
	stop := context.AfterFunc(ctx, func() {
		defer close(woken)
		unix.Write(wake, []byte{1, 0, 0, 0, 0, 0, 0, 0})
	})
	// Registered after the deferred close: runs before it, so that the
	// eventfd is not written once closed (its number may be reused).
	defer func() {
		if !stop() && ctx.Err() != nil {
			<-woken
		}
	}()
	for {
		_, err := unix.Poll(fds, -1)
		if errors.Is(err, unix.EINTR) {
			continue
		}
		if err != nil {
			return fmt.Errorf("watch processes: %w", err)
		}
		if fds[len(fds)-1].Revents != 0 {
			return ctx.Err()
		}
		return nil
	}
}
