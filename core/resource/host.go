package resource

// HostCheckStatus is how one host check came out.
type HostCheckStatus string

const (
	// HostCheckOK: the host has what the check looks for.
	HostCheckOK HostCheckStatus = "ok"
	// HostCheckWarning: the App runs, but worse than it could (such as
	// guests emulated without KVM).
	HostCheckWarning HostCheckStatus = "warning"
	// HostCheckFailed: the App cannot run until this is fixed.
	HostCheckFailed HostCheckStatus = "failed"
)

// HostCheck is one thing the daemon's host has or lacks to run the App.
type HostCheck struct {
	Name    string          `json:"name" example:"qemu" doc:"What is checked."`
	Status  HostCheckStatus `json:"status" enum:"ok,warning,failed"`
	Message string          `json:"message" doc:"What the host has, or what it lacks and why that matters."`
	Fix     string          `json:"fix,omitempty" doc:"The command (or step) that fixes it."`
}

// HostReport is every check of the daemon's host, as paddock doctor prints
// it.
type HostReport struct {
	OS     string      `json:"os" example:"linux"`
	Arch   string      `json:"arch" example:"amd64"`
	OK     bool        `json:"ok" doc:"No check failed; warnings leave it true."`
	Checks []HostCheck `json:"checks"`
}
