package qemu

import (
	"fmt"
	"os"
	"syscall"
)

// ExecWrapper replaces this process with the real QEMU ($PADDOCK_QEMU_REAL)
// running WrapperArgs for the accelerator in $PADDOCK_QEMU_WRAPPER_ACCEL
// and, under TCG, a translation cache of $PADDOCK_QEMU_TB_SIZE MiB; with
// $PADDOCK_QEMU_INCOMING set, QEMU resumes the state saved in that file
// rather than booting (IncomingArgs). The
// process keeps its pid, so the pid file Lima's driver reads stays right.
// A question to QEMU (isQuestion) is answered from the cache in
// $PADDOCK_QEMU_ANSWERS when it is set, and the process exits as QEMU
// did. It returns only on failure.
func ExecWrapper(args []string) error {
	real := os.Getenv(EnvReal)
	if real == "" {
		return fmt.Errorf("%s is not set: the QEMU wrapper does not know which QEMU to run", EnvReal)
	}
	// Lima's own question, not rewritten: it runs no guest, and a
	// resume's -incoming would make it another question.
	if dir := os.Getenv(EnvAnswers); dir != "" && isQuestion(args) {
		code, err := ask(real, args, dir, os.Stdout, os.Stderr)
		if err != nil {
			return err
		}
		os.Exit(code)
	}
	accel, err := ParseWrapperAccel(os.Getenv(EnvWrapperAccel))
	if err != nil {
		return err
	}
	tbSize := 0
	if accel == AccelTCG {
		if tbSize, err = ParseTBSize(os.Getenv(EnvTBSize)); err != nil {
			return err
		}
	}
	args = WrapperArgs(accel, args, tbSize)
	if state := os.Getenv(EnvIncoming); state != "" {
		args = IncomingArgs(args, state)
	}
	argv := append([]string{real}, args...)
	if err := syscall.Exec(real, argv, os.Environ()); err != nil {
		return fmt.Errorf("exec %s: %w", real, err)
	}
	return nil
}
