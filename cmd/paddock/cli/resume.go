package cli

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"paddock.dev/paddock/core/resource"
)

// Help shared by the start and stop commands of the App and of VMs.
const (
	coldStopHelp = `By default a stop saves the state of a running QEMU VM and ends QEMU, so
that the next start resumes it in seconds, with its containers still
running; a state that no longer fits the VM (another template, QEMU or
accelerator) is dropped and that start boots, saying why. --cold shuts
the VM down fully instead, and the next start boots it.`
	coldStartHelp = `By default a start resumes the state the last stop saved, with the
containers that ran then still running; --cold boots the VM fully
instead, whether or not a state is saved. 'paddock status' and 'paddock
vm get' say how the VM last started.`
	coldFlagStop  = "shut the VM down fully rather than saving its state for the next start to resume"
	coldFlagStart = "boot the VM fully rather than resuming the state the last stop saved"
)

// howStarted says how a machine whose Running condition is c started:
// "resumed", "cold boot: WHY", or "" for a machine that does not run or
// said nothing of how (the Started of earlier versions).
func howStarted(c *metav1.Condition) string {
	if c == nil || c.Status != metav1.ConditionTrue {
		return ""
	}
	switch c.Reason {
	case resource.ReasonResumed:
		return "resumed"
	case resource.ReasonColdBoot:
		if c.Message == "" {
			return "cold boot"
		}
		return "cold boot: " + c.Message
	}
	return ""
}

// runningLine says what a machine's Running condition c says, for a
// person: "Running (resumed)", "Running (cold boot: WHY)", "Stopped:
// MESSAGE" (which says whether its state is saved); any other state as
// "STATUS (REASON): MESSAGE".
func runningLine(c *metav1.Condition) string {
	if c == nil {
		return "unknown yet"
	}
	var out string
	switch how := howStarted(c); {
	case how == "" && c.Status == metav1.ConditionTrue:
		out = "Running"
		if c.Message != "" {
			out += ": " + c.Message
		}
	case c.Status == metav1.ConditionTrue && c.Reason == resource.ReasonResumed && c.Message != "":
		out = "Running (" + how + "): " + c.Message
	case c.Status == metav1.ConditionTrue:
		out = "Running (" + how + ")"
	case c.Reason == resource.ReasonSuspended:
		out = "Suspended"
		if c.Message != "" {
			out += ": " + c.Message
		}
	case c.Reason == resource.ReasonStopped:
		out = "Stopped"
		if c.Message != "" {
			out += ": " + c.Message
		}
	default:
		out = string(c.Status) + " (" + c.Reason + ")"
		if c.Message != "" {
			out += ": " + c.Message
		}
	}
	return out
}
