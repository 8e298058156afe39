// Package unixsock listens on the Unix sockets of an instance (the API's,
// the Docker socket the daemon serves) so that only their user can use
// them: mode 0600, in the instance's private directory.
package unixsock
