# Uninstall what install.ps1 installed: the tray's start at login, the
# service (stopped first; its VMs stop gracefully), the install directory
# and its bin\ on your PATH. Your VMs, images and settings stay, in
# %LOCALAPPDATA%\Paddock; "paddock factory-reset" before this script
# removes them too.
#
#   powershell -ExecutionPolicy Bypass -File uninstall.ps1 [-Dir DIR]
#
# Run it from an elevated PowerShell as the user who installed Paddock:
# removing a service needs an administrator.
[CmdletBinding()]
param(
    [string]$Dir = (Join-Path $env:LOCALAPPDATA 'Programs\Paddock')
)
$ErrorActionPreference = 'Stop'

$bin = Join-Path $Dir 'bin'
$paddock = Join-Path $bin 'paddock.exe'

# Runs paddock.exe with the given arguments; a failure is only reported
# ("service uninstall" fails where no service is installed).
function Invoke-PaddockMayFail {
    $ErrorActionPreference = 'Continue'
    & $paddock @args
}

if (Test-Path $paddock) {
    Invoke-PaddockMayFail tray '--autostart' off
    Invoke-PaddockMayFail shutdown
    Invoke-PaddockMayFail service uninstall
    Get-Process -Name paddock -ErrorAction SilentlyContinue |
        Where-Object { $_.Path -eq $paddock } |
        Stop-Process -Force
}
# Only what install.ps1 put there, then the directory if that left it empty.
foreach ($part in 'bin', 'share', 'image') {
    $path = Join-Path $Dir $part
    if (Test-Path $path) {
        Remove-Item -Path $path -Recurse -Force
    }
}
if ((Test-Path $Dir) -and -not (Get-ChildItem -Path $Dir -Force)) {
    Remove-Item -Path $Dir -Force
}
Write-Output "Paddock removed from $Dir"

$envKey = 'HKCU:\Environment'
$userPath = (Get-Item $envKey).GetValue('Path', '', 'DoNotExpandEnvironmentNames')
$entries = @($userPath -split ';' | Where-Object { $_ -ne '' })
if ($entries -contains $bin) {
    $newPath = @($entries | Where-Object { $_ -ne $bin }) -join ';'
    New-ItemProperty -Path $envKey -Name Path -Value $newPath -PropertyType ExpandString -Force | Out-Null
    Write-Output "$bin removed from your PATH"
}
