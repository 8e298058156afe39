package api

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"reflect"
	"sync/atomic"
	"time"

	"github.com/danielgtaylor/huma/v2"
	"github.com/danielgtaylor/huma/v2/adapters/humachi"
	"github.com/go-chi/chi/v5"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"paddock.dev/paddock/core/buildinfo"
	"paddock.dev/paddock/core/metrics"
	"paddock.dev/paddock/core/resource"
	"paddock.dev/paddock/core/store"
)

// maxBodyBytes bounds a request body: a ConfigMap's 1 MiB of data and its
// envelope.
const maxBodyBytes = 2 << 20

// Config configures a Server.
type Config struct {
	Store  store.Store
	Logger *slog.Logger
	// Ready reports why the daemon cannot serve yet, or nil once it can.
	Ready func() error
	// VMAccess hands out VM machines' ssh parameters and logs; without it
	// those endpoints answer that the daemon runs no VM driver.
	VMAccess VMAccess
	// VMSnapshots takes, applies, deletes and lists VM machines'
	// snapshots; without it those endpoints answer that the daemon runs
	// no VM driver.
	VMSnapshots VMSnapshots
	// Host answers GET /host.
	Host HostCheck
	// Metrics, when set, records every request and is served at GET
	// /metrics.
	Metrics *metrics.Metrics
}

// Server serves the REST API.
type Server struct {
	store  store.Store
	log    *slog.Logger
	ready  func() error
	access VMAccess
	// snapshots works on VM machines' snapshots.
	snapshots VMSnapshots
	router    chi.Router
	api       huma.API
	// handler is the router behind the request id, panic and query
	// guards.
	handler http.Handler
	// inflight counts the requests being served and streaming those of
	// them that stream until the client or the daemon ends them: a
	// shutdown waits for the others only.
	inflight, streaming atomic.Int64
	// draining is set once a shutdown begins; lastRequest is when the
	// last request came, in Unix nanoseconds.
	draining    atomic.Bool
	lastRequest atomic.Int64
	// watchesEnded is done once EndWatches ends the watch streams.
	watchesEnded context.Context
	endWatches   context.CancelFunc
}

// New returns a server over cfg.Store.
func New(cfg Config) *Server {
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	if cfg.Ready == nil {
		cfg.Ready = func() error { return nil }
	}
	router := chi.NewMux()
	router.NotFound(notFound)
	router.MethodNotAllowed(methodNotAllowed)

	hc := huma.DefaultConfig("Paddock API", resource.APIVersion)
	hc.Info.Description = "Desired state for Paddock's App, VMs and ConfigMaps. " +
		"Errors are application/problem+json with a machine-readable reason."
	hc.OpenAPIPath = "/openapi"
	describeDoors(hc.OpenAPI)
	hc.DocsPath = ""
	hc.SchemasPath = ""
	hc.CreateHooks = nil // no $schema links in bodies: objects are what they say
	if r, ok := hc.Components.Schemas.(interface {
		RegisterTypeAlias(t, alias reflect.Type)
	}); ok {
		r.RegisterTypeAlias(reflect.TypeFor[metav1.Time](), reflect.TypeFor[time.Time]())
	}
	s := &Server{store: cfg.Store, log: cfg.Logger, ready: cfg.Ready, access: cfg.VMAccess, snapshots: cfg.VMSnapshots, router: router}
	s.watchesEnded, s.endWatches = context.WithCancel(context.Background())
	s.api = humachi.New(router, hc)
	s.handler = withRequestID(newRequestIDs(), recoverPanics(cfg.Logger, strictQuery(observeRequests(cfg.Metrics, router))))

	s.registerHealth()
	s.registerMetrics(cfg.Metrics)
	s.registerHost(cfg.Host)
	for _, k := range resource.Kinds() {
		switch k {
		case resource.KindApp:
			registerObject[*resource.App](s, k)
			s.registerAppActions()
		case resource.KindVM:
			registerObject[*resource.VM](s, k)
			s.registerVMActions()
			s.registerVMAccess()
			s.registerVMSnapshots()
		case resource.KindConfigMap:
			registerObject[*resource.ConfigMap](s, k)
		}
	}
	declareTCPRefusals(s.api.OpenAPI())
	return s
}

// Handler returns the HTTP handler of the API.
func (s *Server) Handler() http.Handler { return s.handler }

// EndWatches ends every watch stream, and any started later, with an ERROR
// event that says to resume. A daemon that stops calls it once the other
// requests have finished: a stream never finishes by itself.
func (s *Server) EndWatches() { s.endWatches() }

// OpenAPI returns the API's OpenAPI document.
func (s *Server) OpenAPI() *huma.OpenAPI { return s.api.OpenAPI() }

type healthOutput struct {
	Body struct {
		Status string `json:"status" example:"ok"`
	}
}

type versionOutput struct {
	Body buildinfo.Info
}

func (s *Server) registerHealth() {
	huma.Register(s.api, huma.Operation{
		OperationID: "healthz", Method: http.MethodGet, Path: "/healthz", Tags: []string{"health"},
		Summary: "Liveness: the daemon answers",
	}, func(ctx context.Context, _ *struct{}) (*healthOutput, error) {
		out := &healthOutput{}
		out.Body.Status = "ok"
		return out, nil
	})
	huma.Register(s.api, huma.Operation{
		OperationID: "readyz", Method: http.MethodGet, Path: "/readyz", Tags: []string{"health"},
		Summary: "Readiness: the store is open, its writes succeed, and the controllers run", Errors: []int{http.StatusServiceUnavailable},
	}, func(ctx context.Context, _ *struct{}) (*healthOutput, error) {
		if err := errors.Join(s.ready(), s.store.Healthy()); err != nil {
			p := newProblem(resource.ReasonInternal, "not ready: "+err.Error())
			p.Status, p.Title = http.StatusServiceUnavailable, http.StatusText(http.StatusServiceUnavailable)
			return nil, p
		}
		out := &healthOutput{}
		out.Body.Status = "ok"
		return out, nil
	})
	huma.Register(s.api, huma.Operation{
		OperationID: "version", Method: http.MethodGet, Path: "/version", Tags: []string{"health"},
		Summary: "Version of the daemon",
	}, func(ctx context.Context, _ *struct{}) (*versionOutput, error) {
		return &versionOutput{Body: buildinfo.Get()}, nil
	})
}
