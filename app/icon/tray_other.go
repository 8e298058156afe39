//go:build !windows

package icon

// trayICO: trays other than Windows's draw PNG.
const trayICO = false
