// Package menu holds the tray menu as data: from what the tray knows of the
// daemon, the App and the VMs it computes the status line, the icon, and
// every item's label and whether it is enabled. It has no GUI, so its rules
// are tested without a display; package tray draws what it returns.
package menu
