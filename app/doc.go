// Package app is the Fyne system tray application (`paddock tray`). It is a
// client of the REST API through api/client and has no private path into the
// service core.
package app
