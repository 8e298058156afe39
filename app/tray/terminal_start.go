package tray

// startArgs are cmd.exe's arguments that open a console window running
// argv: `start` takes its first quoted argument as the window's title, so
// an empty title comes first, or a quoted program path (C:\Program Files\
// ...) would become the title and the window would run nothing. (Go's
// exec writes an empty argument as "".)
func startArgs(argv []string) []string {
	return append([]string{"/c", "start", ""}, argv...)
}
