// Package app is the system tray application (`paddock tray`): the menu
// (app/tray), its model (app/menu), the state it follows (app/live) and
// the settings window (app/settings). It is a client of the REST API
// through api/client and has no private path into the service core.
package app
