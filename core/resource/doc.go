// Package resource defines Paddock's kinds (App, VM, ConfigMap), the metadata
// every object carries, their defaulting and validation, the condition
// helpers, and the one error type that every layer (store, API, client, CLI)
// speaks. It knows nothing of storage or transport.
package resource
