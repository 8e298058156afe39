package service

import (
	"fmt"
	"strconv"
	"strings"
)

// launchdLabelPrefix begins the label of every Paddock launchd job (the
// service Name on macOS).
const launchdLabelPrefix = "dev.paddock.paddock"

// launchdJob reports whether a process runs as one of Paddock's launchd
// jobs, from XPC_SERVICE_NAME, which launchd sets to the job's label.
func launchdJob(xpcServiceName string) bool {
	return xpcServiceName == launchdLabelPrefix || strings.HasPrefix(xpcServiceName, launchdLabelPrefix+"-")
}

// launchctlArgs returns the launchctl arguments that start or stop the job
// label defined by plist, at scope, for the user uid: bootstrap and
// bootout on the job's domain (system, or the user's gui/UID), or, on
// macOS before 10.10 (legacy), the deprecated load and unload. A job that
// is loaded already (a stopped one that launchd keeps, after a clean exit)
// is started with kickstart (legacy: start): bootstrap fails for it.
func launchctlArgs(action string, scope Scope, uid int, label, plist string, legacy, loaded bool) ([]string, error) {
	domain := "system"
	if scope == User {
		domain = "gui/" + strconv.Itoa(uid)
	}
	switch {
	case action == "start" && loaded && legacy:
		return []string{"start", label}, nil
	case action == "start" && loaded:
		return []string{"kickstart", domain + "/" + label}, nil
	case action == "start" && legacy:
		return []string{"load", "-w", plist}, nil
	case action == "stop" && legacy:
		return []string{"unload", plist}, nil
	case action == "start":
		return []string{"bootstrap", domain, plist}, nil
	case action == "stop":
		return []string{"bootout", domain + "/" + label}, nil
	}
	return nil, fmt.Errorf("no launchctl command to %s a job", action)
}

// legacyLaunchctl reports whether macOS version (sw_vers -productVersion)
// predates launchctl's bootstrap and bootout (10.10).
func legacyLaunchctl(version string) bool {
	parts := strings.SplitN(strings.TrimSpace(version), ".", 3)
	major, err := strconv.Atoi(parts[0])
	if err != nil {
		return false // unknown: assume a current macOS
	}
	if major != 10 || len(parts) < 2 {
		return false
	}
	minor, err := strconv.Atoi(parts[1])
	return err == nil && minor < 10
}
