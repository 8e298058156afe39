package lima

import (
	"context"
	"errors"
	"os/exec"
	"testing"
	"time"
)

func sleeper(t *testing.T) *exec.Cmd {
	t.Helper()
	cmd := exec.Command("sleep", "60")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	return cmd
}

func TestWaitExitReturnsWhenOneExits(t *testing.T) {
	a, b := sleeper(t), sleeper(t)
	done := make(chan error, 1)
	go func() {
		done <- waitExit(context.Background(), []int{a.Process.Pid, b.Process.Pid}, func() bool { return true })
	}()
	select {
	case err := <-done:
		t.Fatalf("returned while both run: %v", err)
	case <-time.After(200 * time.Millisecond):
	}
	// Killed and not reaped yet: a zombie counts as exited.
	if err := b.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("no return within 5 s of the exit")
	}
}

func TestWaitExitEndsWithTheContext(t *testing.T) {
	a := sleeper(t)
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	if err := waitExit(ctx, []int{a.Process.Pid}, func() bool { return true }); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("waitExit = %v, want the context's deadline", err)
	}
}

func TestWaitExitReturnsAtOnceForWhatIsGone(t *testing.T) {
	a := sleeper(t)
	if err := waitExit(context.Background(), []int{a.Process.Pid}, func() bool { return false }); err != nil {
		t.Fatalf("a process that is no longer the one meant: %v", err)
	}
	a.Process.Kill()
	a.Wait()
	if err := waitExit(context.Background(), []int{a.Process.Pid}, func() bool { return true }); err != nil {
		t.Fatalf("a process that is gone: %v", err)
	}
}
