// Package dockercontext keeps a Docker CLI context named after the
// instance that points at the App's forwarded Docker socket, in the Docker
// CLI's own context store ($DOCKER_CONFIG, or ~/.docker). It makes the
// context current only when the current one is missing or does not answer,
// remembers what it replaced, and on Remove restores that, only if the
// current context is still its own: it takes back what it did and nothing
// else.
package dockercontext
