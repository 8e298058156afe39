package api_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"paddock.dev/paddock/api"
	"paddock.dev/paddock/core/resource"
)

func post(t *testing.T, h http.Handler, path string) (int, *resource.App, string) {
	t.Helper()
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodPost, path, nil))
	a := &resource.App{}
	if rec.Code == http.StatusOK {
		if err := json.Unmarshal(rec.Body.Bytes(), a); err != nil {
			t.Fatal(err)
		}
	}
	return rec.Code, a, rec.Body.String()
}

// TestAppStartAndStop runs the App's actions without its controller: the
// writes and the waits' ends (a Settled written by hand, a timeout).
func TestAppStartAndStop(t *testing.T) {
	st := openStore(t)
	h := api.New(api.Config{Store: st}).Handler()

	if code, _, body := post(t, h, "/api/v1alpha1/app/stop"); code != http.StatusNotFound || !strings.Contains(body, "NotFound") {
		t.Fatalf("stop with no App: %d %s", code, body)
	}
	if _, err := st.Get(context.Background(), resource.Key{Kind: "App", Name: "app"}); !resource.IsNotFound(err) {
		t.Fatalf("stop made an App: %v", err)
	}
	code, a, body := post(t, h, "/api/v1alpha1/app/start")
	if code != http.StatusOK || !a.Spec.Running || a.Spec.ContainerEngine.Name != resource.EngineMoby || a.Spec.Namespace != "paddock" {
		t.Fatalf("start: %d %s", code, body)
	}
	if code, _, body := post(t, h, "/api/v1alpha1/app/start?wait=true&timeout=soon"); code != http.StatusBadRequest || !strings.Contains(body, "90s") {
		t.Fatalf("a bad timeout: %d %s", code, body)
	}
	if code, _, body := post(t, h, "/api/v1alpha1/app/start?wait=true&timeout=100ms"); code != http.StatusGatewayTimeout || !strings.Contains(body, "no Settled condition yet") {
		t.Fatalf("a wait that runs out: %d %s", code, body)
	}
	code, a, body = post(t, h, "/api/v1alpha1/app/stop")
	if code != http.StatusOK || a.Spec.Running {
		t.Fatalf("stop: %d %s", code, body)
	}
	// Settled for the current generation ends a wait at once, True or failed.
	for _, settled := range []metav1.Condition{
		{Type: resource.AppSettled, Status: "True", Reason: "Stopped", ObservedGeneration: a.Metadata.Generation},
		{Type: resource.AppSettled, Status: "False", Reason: resource.ReasonStopFailed, ObservedGeneration: a.Metadata.Generation},
	} {
		a.Status.Conditions = []metav1.Condition{settled}
		a.Metadata.ResourceVersion = ""
		if _, err := st.UpdateStatus(context.Background(), a); err != nil {
			t.Fatal(err)
		}
		if code, got, body := post(t, h, "/api/v1alpha1/app/stop?wait=true&timeout=5s"); code != http.StatusOK || got.Status.Conditions[0].Reason != settled.Reason {
			t.Fatalf("stop with Settled %s: %d %s", settled.Reason, code, body)
		}
	}
}
