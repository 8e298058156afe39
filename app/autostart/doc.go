// Package autostart installs and removes the tray's start at login: an
// XDG autostart .desktop file on Linux, a LaunchAgent on macOS, a value
// under the Run key on Windows. The files' contents are pure functions,
// tested on every OS; Install and Remove put them where the OS looks.
package autostart
