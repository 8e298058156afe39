package api_test

import (
	"bytes"
	"encoding/json"
	"flag"
	"net/http"
	"net/http/httptest"
	"os"
	"testing"
)

var updateOpenAPI = flag.Bool("update", false, "write the served OpenAPI document to openapi.json")

// openAPIFile is the API's OpenAPI document as the repository carries it,
// for readers and linters without a daemon (.ci/redocly lints it).
const openAPIFile = "openapi.json"

// The committed document is the one the daemon serves at /openapi.json
// (indented for readers), so what a linter checks in the repository is what
// clients read from the daemon.
func TestOpenAPIDocumentIsCommitted(t *testing.T) {
	rec := httptest.NewRecorder()
	newServer(t).ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/openapi.json", nil))
	if rec.Code != http.StatusOK {
		t.Fatalf("GET /openapi.json = %d %s", rec.Code, rec.Body)
	}
	var indented bytes.Buffer
	if err := json.Indent(&indented, rec.Body.Bytes(), "", "  "); err != nil {
		t.Fatalf("GET /openapi.json is no JSON: %v", err)
	}
	served := append(bytes.TrimSpace(indented.Bytes()), '\n')
	if *updateOpenAPI {
		if err := os.WriteFile(openAPIFile, served, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	committed, err := os.ReadFile(openAPIFile)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(committed, served) {
		t.Errorf("api/%s differs from the document the daemon serves; after changing the API, write it again with\n\tgo test ./api -run TestOpenAPIDocumentIsCommitted -update", openAPIFile)
	}
}

// The document says how to reach the API through either door and what
// each takes: no token on the Unix socket, the bearer token over TCP,
// whose refusal every operation declares.
func TestOpenAPIDocumentDescribesTheDoors(t *testing.T) {
	rec := httptest.NewRecorder()
	newServer(t).ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/openapi.json", nil))
	var doc struct {
		Info struct {
			License struct{ Name string }
		}
		Servers    []struct{ URL string }
		Security   []map[string][]string
		Components struct {
			SecuritySchemes map[string]struct{ Type, Scheme string }
		}
		Paths map[string]map[string]struct {
			Responses map[string]any
		}
	}
	if err := json.Unmarshal(rec.Body.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	if doc.Info.License.Name == "" {
		t.Error("the document names no license")
	}
	var urls []string
	for _, s := range doc.Servers {
		urls = append(urls, s.URL)
	}
	if len(urls) != 2 || urls[0] != "http://paddock" || urls[1] != "http://127.0.0.1:{port}" {
		t.Errorf("servers = %v, want the Unix socket's http://paddock and TCP's http://127.0.0.1:{port}", urls)
	}
	if s := doc.Components.SecuritySchemes["bearerToken"]; s.Type != "http" || s.Scheme != "bearer" {
		t.Errorf("the bearerToken scheme is %+v, want http bearer", s)
	}
	if len(doc.Security) != 2 || len(doc.Security[0]) != 1 || doc.Security[0]["bearerToken"] == nil || len(doc.Security[1]) != 0 {
		t.Errorf("security = %v, want the bearer token or nothing (the socket)", doc.Security)
	}
	for path, ops := range doc.Paths {
		for method, op := range ops {
			if _, ok := op.Responses["401"]; !ok {
				t.Errorf("%s %s does not declare TCP's 401", method, path)
			}
		}
	}
}
