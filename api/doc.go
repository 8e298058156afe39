// Package api is Paddock's REST server: chi routes with huma operations for
// every kind (CRUD, merge patch, the status subresource, watches as
// server-sent events), problem+json errors with a machine-readable reason,
// the generated OpenAPI document, health and version endpoints, and the
// listeners (a 0600 Unix socket by default; loopback TCP with a bearer token
// on request). The Go client that every other door uses is api/client; the
// wire types both share are in api/wire.
package api
