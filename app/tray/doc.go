// Package tray puts Paddock in the desktop's system tray with Fyne. Only
// run_gui.go, which starts Fyne's GLFW driver, needs cgo; everything else
// here builds and tests without it. The paddock command links this
// package only into a cgo build with the tray tag.
package tray
