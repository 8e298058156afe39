// Package instance names a Paddock instance and derives everything host-wide
// from it: its directories, its socket, its database, its pid and lock files
// and the index from which its TCP ports come. Two instances never share any
// of these, so they run side by side.
package instance
