# Install Paddock from its unpacked zip: copy bin\ and share\ (and image\,
# the App's WSL image, when the zip holds one) into the install directory,
# put its bin\ on your PATH, install the daemon as a Windows service that
# runs as you and start it, and make the tray start at login.
#
#   powershell -ExecutionPolicy Bypass -File install.ps1 [-Dir DIR] [-NoService] [-NoTray]
#
# Run it from an elevated PowerShell as the user who will own the VMs:
# creating a service needs an administrator. The service runs as that
# user; the service manager needs the account's password, which this
# script asks for unless PADDOCK_SERVICE_PASSWORD holds it. Installing
# again upgrades: the running daemon is stopped first (its VMs stop
# gracefully) and the service is updated and started again.
[CmdletBinding()]
param(
    [string]$Dir = (Join-Path $env:LOCALAPPDATA 'Programs\Paddock'),
    [switch]$NoService,
    [switch]$NoTray
)
$ErrorActionPreference = 'Stop'

$src = $PSScriptRoot
$bin = Join-Path $Dir 'bin'
$paddock = Join-Path $bin 'paddock.exe'

# Runs paddock.exe with the given arguments and fails on a non-zero exit
# code. Its messages on stderr are no failure: only its exit code is.
# Arguments that begin with - are quoted, so that PowerShell passes them
# on as they are rather than as parameters of the function.
function Invoke-Paddock {
    $ErrorActionPreference = 'Continue'
    & $paddock @args
    if ($LASTEXITCODE -ne 0) {
        throw "paddock $($args -join ' ') failed (exit code $LASTEXITCODE)"
    }
}

# Runs paddock.exe with the given arguments; a failure is only reported.
function Invoke-PaddockMayFail {
    $ErrorActionPreference = 'Continue'
    & $paddock @args
}

if (-not (Test-Path (Join-Path $src 'bin\paddock.exe'))) {
    throw "no bin\paddock.exe beside this script: run install.ps1 from the unpacked zip"
}
if ([IO.Path]::GetFullPath($src).TrimEnd('\') -eq [IO.Path]::GetFullPath($Dir).TrimEnd('\')) {
    throw "install.ps1 runs from the unpacked zip, not from the install directory $Dir"
}
if (-not $NoService) {
    $me = New-Object Security.Principal.WindowsPrincipal([Security.Principal.WindowsIdentity]::GetCurrent())
    if (-not $me.IsInRole([Security.Principal.WindowsBuiltInRole]::Administrator)) {
        throw 'Installing the service needs an administrator: run this script from an elevated PowerShell, or pass -NoService.'
    }
}

# An upgrade: the running daemon, its host agents and the tray hold their
# .exe files open, which Windows does not let the copy replace.
if (Test-Path $paddock) {
    Invoke-PaddockMayFail shutdown
    Get-Process -Name paddock -ErrorAction SilentlyContinue |
        Where-Object { $_.Path -eq $paddock } |
        Stop-Process -Force
}

# What an earlier install put there goes first, so that no file of an
# older zip (an older WSL image) stays beside the new ones.
New-Item -ItemType Directory -Force -Path $Dir | Out-Null
foreach ($part in 'bin', 'share', 'image') {
    $to = Join-Path $Dir $part
    if (Test-Path $to) {
        Remove-Item -Path $to -Recurse -Force
    }
    $from = Join-Path $src $part
    if (Test-Path $from) {
        Copy-Item -Path $from -Destination $Dir -Recurse -Force
    }
}
Write-Output "Paddock installed in $Dir"

# bin\ on the user's PATH, kept unexpanded as Windows stores it.
$envKey = 'HKCU:\Environment'
$userPath = (Get-Item $envKey).GetValue('Path', '', 'DoNotExpandEnvironmentNames')
$entries = @($userPath -split ';' | Where-Object { $_ -ne '' })
if ($entries -notcontains $bin) {
    $newPath = (@($entries) + $bin) -join ';'
    New-ItemProperty -Path $envKey -Name Path -Value $newPath -PropertyType ExpandString -Force | Out-Null
    Write-Output "$bin added to your PATH (new terminals have it)"
}

if (-not $NoService) {
    $installArgs = @('service', 'install')
    $image = Get-ChildItem -Path (Join-Path $Dir 'image') -Filter '*.tar*' -ErrorAction SilentlyContinue |
        Select-Object -First 1
    if ($image) {
        $installArgs += @('--image', $image.FullName)
    }
    $askedPassword = $false
    if (-not $env:PADDOCK_SERVICE_PASSWORD) {
        $secure = Read-Host -AsSecureString "Password of $env:USERDOMAIN\$env:USERNAME, the account the service runs as"
        $bstr = [Runtime.InteropServices.Marshal]::SecureStringToBSTR($secure)
        try {
            $env:PADDOCK_SERVICE_PASSWORD = [Runtime.InteropServices.Marshal]::PtrToStringBSTR($bstr)
        } finally {
            [Runtime.InteropServices.Marshal]::ZeroFreeBSTR($bstr)
        }
        $askedPassword = $true
    }
    try {
        Invoke-Paddock @installArgs
    } finally {
        if ($askedPassword) {
            Remove-Item Env:\PADDOCK_SERVICE_PASSWORD
        }
    }
    Invoke-Paddock service start
}

if (-not $NoTray) {
    Invoke-Paddock tray '--autostart' on
    Write-Output "The tray starts at your next login; to start it now: paddock tray"
}
