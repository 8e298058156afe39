package client_test

import (
	"slices"
	"testing"

	"paddock.dev/paddock/api/client"
	"paddock.dev/paddock/core/resource"
)

// ssh reads no configuration of the user's, takes everything from the
// daemon's parameters, asks for a terminal only for a login shell, and
// hands the guest's shell the arguments as given.
func TestSSHArgs(t *testing.T) {
	p := resource.VMSSH{Host: "127.0.0.1", Port: 60022, User: "paddock", IdentityFile: "/k/user", Options: []string{"BatchMode=yes"}}
	base := []string{"-F", "/dev/null", "-o", "BatchMode=yes", "-i", "/k/user", "-p", "60022", "-l", "paddock"}
	if got, want := client.SSHArgs(p, ""), append(slices.Clone(base), "-t", "127.0.0.1"); !slices.Equal(got, want) {
		t.Errorf("login shell: %q, want %q", got, want)
	}
	got := client.SSHArgs(p, client.ShellJoin([]string{"printf", "%s|", "a b", "it's", "--"}))
	want := append(slices.Clone(base), "127.0.0.1", "--", `'printf' '%s|' 'a b' 'it'\''s' '--'`)
	if !slices.Equal(got, want) {
		t.Errorf("command: %q, want %q", got, want)
	}
}
