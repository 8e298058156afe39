package hostcheck

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"runtime"

	"golang.org/x/sys/windows"
	"golang.org/x/sys/windows/registry"
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
	out, err := runOutput(ctx, "powershell.exe", "-NoProfile", "-NonInteractive", "-Command", virtualizationQuery)
	f.HypervisorPresent, f.VirtualizationFirmware, f.VirtualizationErr = readVirtualization(out, err)
	f.WSLDefaultVersion = wslDefaultVersion()
	f.Cygpath = lookProgram(ctx, "cygpath", "--version")
	f.SSH = lookProgram(ctx, "ssh", "-V")
	return Windows(runtime.GOARCH, f)
}

// wslDefaultVersion reads WSL's DefaultVersion from the user's registry;
// 0 when it is unset.
func wslDefaultVersion() int {
	k, err := registry.OpenKey(registry.CURRENT_USER, `Software\Microsoft\Windows\CurrentVersion\Lxss`, registry.QUERY_VALUE)
	if err != nil {
		return 0
	}
	defer k.Close()
	v, _, err := k.GetIntegerValue("DefaultVersion")
	if err != nil {
		return 0
	}
	return int(v)
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
	cmd.SysProcAttr = noWindow()
	cmd.Env = append(os.Environ(), "WSL_UTF8=1")
	out, err := cmd.CombinedOutput()
	p := Program{Path: path, Output: decodeWSLOutput(out)}
	if err != nil {
		p.Err = err.Error()
	}
	return p
}
