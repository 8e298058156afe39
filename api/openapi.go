package api

import (
	"net/http"
	"strconv"

	"github.com/danielgtaylor/huma/v2"
)

// bearerScheme names the security scheme of the API's TCP door.
const bearerScheme = "bearerToken"

// describeDoors tells the OpenAPI document how a client reaches the API
// and what it must show: the Unix socket, which takes no token (its file
// mode lets only its owner connect), and TCP on loopback, which takes the
// instance's bearer token. A request may satisfy either requirement: the
// empty one is the socket's.
func describeDoors(doc *huma.OpenAPI) {
	doc.Info.License = &huma.License{Name: "Apache-2.0", Identifier: "Apache-2.0"}
	doc.Servers = []*huma.Server{
		{
			URL: "http://paddock",
			Description: "The instance's Unix socket ('paddock service paths socket', mode 0600): " +
				"no token; any host name, e.g. curl --unix-socket SOCKET http://paddock/readyz.",
		},
		{
			URL: "http://127.0.0.1:{port}",
			Description: "TCP on loopback, only when the daemon serves it ('paddock serve --listen tcp://127.0.0.1:0'): " +
				"every request needs the bearer token.",
			Variables: map[string]*huma.ServerVariable{
				"port": {Default: "47600", Description: "The instance's own port: 'paddock service paths api_port'."},
			},
		},
	}
	if doc.Components.SecuritySchemes == nil {
		doc.Components.SecuritySchemes = map[string]*huma.SecurityScheme{}
	}
	doc.Components.SecuritySchemes[bearerScheme] = &huma.SecurityScheme{
		Type:   "http",
		Scheme: "bearer",
		Description: "Required on TCP: 'Authorization: Bearer TOKEN' with the token in the file that " +
			"'paddock service paths token' names. The Unix socket takes no token.",
	}
	doc.Security = []map[string][]string{{bearerScheme: {}}, {}}
}

// declareTCPRefusals adds to every operation the answers of the TCP door's
// guard (TCPGuard), which refuses a request before any operation sees it.
func declareTCPRefusals(doc *huma.OpenAPI) {
	refusals := map[int]string{
		http.StatusUnauthorized: "the request carries no valid bearer token",
		http.StatusForbidden:    "the Host header is not 127.0.0.1, [::1] or localhost",
	}
	for _, item := range doc.Paths {
		for _, op := range []*huma.Operation{item.Get, item.Put, item.Post, item.Delete, item.Patch} {
			if op == nil {
				continue
			}
			for status, why := range refusals {
				code := strconv.Itoa(status)
				if r, ok := op.Responses[code]; ok {
					r.Description += "; over TCP also when " + why
					continue
				}
				op.Responses[code] = &huma.Response{
					Description: "Over TCP: " + why,
					Content: map[string]*huma.MediaType{
						"application/problem+json": {Schema: &huma.Schema{Ref: "#/components/schemas/Problem"}},
					},
				}
			}
		}
	}
}
