package resource

// VMSSH is how to reach a running VM's machine over ssh, as the daemon
// hands it out: `ssh -i IdentityFile -o OPTION... -p Port User@Host`.
type VMSSH struct {
	Host string `json:"host" example:"127.0.0.1" doc:"Where the machine's ssh port is forwarded to, on the daemon's host."`
	Port int    `json:"port" example:"60022"`
	User string `json:"user" example:"paddock" doc:"The user in the guest."`
	// IdentityFile is readable by the daemon's user; a client running as
	// another user needs read access to it (or a copy).
	IdentityFile string   `json:"identityFile" doc:"Path of the private key, on the daemon's host."`
	Options      []string `json:"options" doc:"ssh -o options, each KEY=VALUE."`
}

// VMLogStream names one of a VM machine's logs.
type VMLogStream string

// The logs of a VM's machine.
const (
	// VMLogHostAgent is the host agent's log: what it did and why it failed.
	VMLogHostAgent VMLogStream = "stderr"
	// VMLogEvents is the host agent's events, one JSON object a line.
	VMLogEvents VMLogStream = "stdout"
	// VMLogSerial is the guest's serial console.
	VMLogSerial VMLogStream = "serial"
)

// VMLogStreams lists every VMLogStream.
func VMLogStreams() []VMLogStream { return []VMLogStream{VMLogHostAgent, VMLogEvents, VMLogSerial} }
