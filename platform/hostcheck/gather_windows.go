package hostcheck

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"runtime"

	"golang.org/x/sys/windows"
)

// virtualizationQuery prints whether a hypervisor runs and whether the
// firmware enables virtualization, one boolean a line.
const virtualizationQuery = "(Get-CimInstance Win32_ComputerSystem).HypervisorPresent; " +
	"(Get-CimInstance Win32_Processor | Select-Object -First 1).VirtualizationFirmwareEnabled"

// Gather checks this Windows host.
func Gather(ctx context.Context, opts Options) Report {
	f := WindowsFacts{Parts: opts.Parts, Disks: disks(opts.Dirs)}
	v := windows.RtlGetVersion()
	f.Build = fmt.Sprintf("%d.%d.%d", v.MajorVersion, v.MinorVersion, v.BuildNumber)
	f.WSL = wslVersion(ctx)
	if out, err := runOutput(ctx, "powershell.exe", "-NoProfile", "-NonInteractive", "-Command", virtualizationQuery); err == nil {
		f.HypervisorPresent, f.VirtualizationFirmware = parseVirtualization(out)
	}
	return Windows(runtime.GOARCH, f)
}

// wslVersion runs `wsl --version`, asking for UTF-8 output.
func wslVersion(ctx context.Context) Program {
	path, err := exec.LookPath("wsl.exe")
	if err != nil {
		return Program{}
	}
	ctx, cancel := context.WithTimeout(ctx, commandTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, path, "--version")
	cmd.Env = append(os.Environ(), "WSL_UTF8=1")
	out, err := cmd.CombinedOutput()
	p := Program{Path: path, Output: decodeWSLOutput(out)}
	if err != nil {
		p.Err = err.Error()
	}
	return p
}
