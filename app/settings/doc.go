// Package settings is the tray's settings window (Fyne): the App's CPUs,
// memory, disk and container engine. It runs in a process of its own,
// `paddock tray --settings`, which the tray starts when Settings… is
// clicked and which ends when the window closes, so that the tray's
// process never runs a GUI toolkit's frame loop. Only run_gui.go, which
// starts Fyne's GLFW driver, needs cgo; the window builds and tests
// without it.
package settings
