package gormstore_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"paddock.dev/paddock/core/resource"
	"paddock.dev/paddock/core/store"
	"paddock.dev/paddock/core/store/gormstore"
	"paddock.dev/paddock/core/store/gormstore/storetest"
)

// openStore opens the store at a database address from storetest.Database.
func openStore(t testing.TB, address string) *gormstore.DB {
	t.Helper()
	s, err := gormstore.Open(context.Background(), config(t, address))
	if err != nil {
		t.Fatalf("open store: %v", err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func config(t testing.TB, address string) gormstore.Config {
	t.Helper()
	d, err := gormstore.Dialector(address)
	if err != nil {
		t.Fatal(err)
	}
	return gormstore.Config{Dialector: d}
}

func newStore(t testing.TB) *gormstore.DB {
	return openStore(t, storetest.Database(t))
}

func configMap(ns, name string, data map[string]string) *resource.ConfigMap {
	return &resource.ConfigMap{
		TypeMeta: resource.TypeMeta{APIVersion: resource.APIVersion, Kind: "ConfigMap"},
		Metadata: resource.ObjectMeta{Name: name, Namespace: ns},
		Data:     data,
	}
}

func vm(ns, name string) *resource.VM {
	return &resource.VM{
		TypeMeta: resource.TypeMeta{APIVersion: resource.APIVersion, Kind: "VM"},
		Metadata: resource.ObjectMeta{Name: name, Namespace: ns},
		Spec:     resource.VMSpec{TemplateRef: "debian"},
	}
}

func mustCreate[T resource.Object](t testing.TB, s store.Store, obj T) T {
	t.Helper()
	out, err := s.Create(context.Background(), obj)
	if err != nil {
		t.Fatalf("create %s: %v", resource.KeyOf(obj), err)
	}
	return out.(T)
}

func wantReason(t *testing.T, err error, reason resource.Reason) {
	t.Helper()
	if got := resource.ReasonOf(err); got != reason {
		t.Fatalf("got error %v (reason %q), want reason %q", err, got, reason)
	}
}

func TestCreateSetsMetadataAndDefaults(t *testing.T) {
	s := newStore(t)
	cm := mustCreate(t, s, configMap("", "demo", map[string]string{"k": "v"}))
	m := cm.Metadata
	if m.Namespace != "default" || m.UID == "" || m.Generation != 1 || m.CreationTimestamp == nil || m.ResourceVersion != "1" {
		t.Fatalf("metadata not set as documented: %+v", m)
	}
	got, err := s.Get(context.Background(), resource.KeyOf(cm))
	if err != nil {
		t.Fatal(err)
	}
	if got.(*resource.ConfigMap).Data["k"] != "v" {
		t.Fatalf("data lost: %+v", got)
	}
}

func TestCreateRejectsDuplicatesAndInvalid(t *testing.T) {
	s := newStore(t)
	mustCreate(t, s, configMap("default", "demo", nil))
	_, err := s.Create(context.Background(), configMap("default", "demo", nil))
	wantReason(t, err, resource.ReasonAlreadyExists)

	mustCreate(t, s, vm("a", "dev"))
	_, err = s.Create(context.Background(), vm("b", "dev"))
	wantReason(t, err, resource.ReasonAlreadyExists)
	if !strings.Contains(err.Error(), `namespace "a"`) {
		t.Fatalf("message should name the namespace holding the VM: %v", err)
	}

	_, err = s.Create(context.Background(), configMap("default", "Bad_Name", nil))
	wantReason(t, err, resource.ReasonInvalid)
	var e *resource.Error
	errors.As(err, &e)
	if len(e.Fields) == 0 || e.Fields[0].Field != "metadata.name" {
		t.Fatalf("invalid error should name metadata.name: %+v", e)
	}
}

func TestCreateDropsStatus(t *testing.T) {
	s := newStore(t)
	v := vm("default", "dev")
	v.Status.RestartCount = 7
	got := mustCreate(t, s, v)
	if got.Status.RestartCount != 0 {
		t.Fatalf("create kept status: %+v", got.Status)
	}
}

func TestUpdateConflictOnStaleResourceVersion(t *testing.T) {
	s := newStore(t)
	cm := mustCreate(t, s, configMap("default", "demo", map[string]string{"k": "1"}))
	stale := *cm
	cm.Data = map[string]string{"k": "2"}
	if _, err := s.Update(context.Background(), cm); err != nil {
		t.Fatal(err)
	}
	stale.Data = map[string]string{"k": "3"}
	_, err := s.Update(context.Background(), &stale)
	wantReason(t, err, resource.ReasonConflict)
}

func TestGenerationMovesOnlyWithSpec(t *testing.T) {
	s := newStore(t)
	ctx := context.Background()
	v := mustCreate(t, s, vm("default", "dev"))

	v.Metadata.Labels = map[string]string{"team": "a"}
	v.Metadata.ResourceVersion = ""
	out, err := s.Update(ctx, v)
	if err != nil {
		t.Fatal(err)
	}
	if g := out.GetMeta().Generation; g != 1 {
		t.Fatalf("label change moved generation to %d", g)
	}

	v = out.(*resource.VM)
	v.Status.RestartCount = 3
	out, err = s.UpdateStatus(ctx, v)
	if err != nil {
		t.Fatal(err)
	}
	if g := out.GetMeta().Generation; g != 1 {
		t.Fatalf("status change moved generation to %d", g)
	}

	v = out.(*resource.VM)
	v.Spec.Running = true
	out, err = s.Update(ctx, v)
	if err != nil {
		t.Fatal(err)
	}
	if g := out.GetMeta().Generation; g != 2 {
		t.Fatalf("spec change left generation at %d, want 2", g)
	}
	if out.(*resource.VM).Status.RestartCount != 3 {
		t.Fatal("spec write changed status")
	}
}

func TestSpecAndStatusAreWrittenApart(t *testing.T) {
	s := newStore(t)
	ctx := context.Background()
	v := mustCreate(t, s, vm("default", "dev"))

	v.Spec.Running = true
	v.Status.RestartCount = 5
	out, err := s.Update(ctx, v)
	if err != nil {
		t.Fatal(err)
	}
	if got := out.(*resource.VM); !got.Spec.Running || got.Status.RestartCount != 0 {
		t.Fatalf("spec write: got spec %+v status %+v", got.Spec, got.Status)
	}

	v = out.(*resource.VM)
	v.Spec.Running = false
	v.Status.RestartCount = 5
	out, err = s.UpdateStatus(ctx, v)
	if err != nil {
		t.Fatal(err)
	}
	if got := out.(*resource.VM); !got.Spec.Running || got.Status.RestartCount != 5 {
		t.Fatalf("status write: got spec %+v status %+v", got.Spec, got.Status)
	}
}

func TestNoOpUpdateDoesNotWrite(t *testing.T) {
	s := newStore(t)
	cm := mustCreate(t, s, configMap("default", "demo", map[string]string{"k": "v"}))
	before := s.Revision()
	if _, err := s.Update(context.Background(), cm); err != nil {
		t.Fatal(err)
	}
	if s.Revision() != before {
		t.Fatalf("an update that changed nothing advanced the revision from %d to %d", before, s.Revision())
	}
}

func TestRevisionIsGlobalAndIncreasing(t *testing.T) {
	s := newStore(t)
	last := int64(0)
	for i, obj := range []resource.Object{configMap("a", "x", nil), configMap("b", "x", nil), vm("a", "v")} {
		out := mustCreate(t, s, obj)
		rv := out.GetMeta().ResourceVersion
		if rv != jsonInt(int64(i+1)) || s.Revision() <= last {
			t.Fatalf("write %d got resourceVersion %s, revision %d", i, rv, s.Revision())
		}
		last = s.Revision()
	}
}

func jsonInt(n int64) string { b, _ := json.Marshal(n); return string(b) }

func TestFinalizerHoldsDeletionAndFreezesSpec(t *testing.T) {
	s := newStore(t)
	ctx := context.Background()
	v := vm("default", "dev")
	v.Metadata.Finalizers = []string{resource.FinalizerCleanup}
	v = mustCreate(t, s, v)

	out, err := s.Delete(ctx, resource.KeyOf(v), store.DeleteOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if out.GetMeta().DeletionTimestamp == nil {
		t.Fatal("delete with a finalizer did not set deletionTimestamp")
	}
	v = out.(*resource.VM)
	if _, err := s.Get(ctx, resource.KeyOf(v)); err != nil {
		t.Fatalf("object gone while a finalizer remains: %v", err)
	}

	v.Spec.Running = true
	_, err = s.Update(ctx, v)
	wantReason(t, err, resource.ReasonForbidden)

	v.Spec.Running = false
	v.Metadata.Finalizers = append(v.Metadata.Finalizers, "example.com/more")
	_, err = s.Update(ctx, v)
	wantReason(t, err, resource.ReasonForbidden)

	v.Metadata.Finalizers = nil
	if _, err := s.Update(ctx, v); err != nil {
		t.Fatal(err)
	}
	_, err = s.Get(ctx, resource.KeyOf(v))
	wantReason(t, err, resource.ReasonNotFound)
}

func TestOwnedByGuard(t *testing.T) {
	s := newStore(t)
	ctx := context.Background()
	owner := mustCreate(t, s, vm("default", "rd"))
	tmpl := configMap("default", resource.TemplateName("rd"), map[string]string{"template": "x"})
	tmpl.Metadata.OwnerReferences = []resource.OwnerReference{resource.ControllerReference(owner)}
	tmpl.Metadata.Finalizers = []string{resource.OwnedByFinalizer("VM")}
	tmpl = mustCreate(t, s, tmpl)

	_, err := s.Delete(ctx, resource.KeyOf(tmpl), store.DeleteOptions{})
	wantReason(t, err, resource.ReasonForbidden)
	want := "cannot delete configmap rd-template: owned by VM rd; delete the VM instead"
	if err.Error() != want {
		t.Fatalf("got %q, want %q", err, want)
	}

	ref := resource.ControllerReference(owner)
	out, err := s.Delete(ctx, resource.KeyOf(tmpl), store.DeleteOptions{Owner: &ref})
	if err != nil {
		t.Fatalf("the owner's delete was refused: %v", err)
	}
	if out.GetMeta().DeletionTimestamp == nil {
		t.Fatal("owner's delete should leave the child Terminating until it releases its finalizer")
	}
}

func TestOwnedByGuardReleasesOrphans(t *testing.T) {
	s := newStore(t)
	ctx := context.Background()
	tmpl := configMap("default", "orphan-template", nil)
	tmpl.Metadata.OwnerReferences = []resource.OwnerReference{{Kind: "VM", Name: "gone", UID: "no-such-uid", Controller: true}}
	tmpl.Metadata.Finalizers = []string{resource.OwnedByFinalizer("VM")}
	tmpl = mustCreate(t, s, tmpl)
	if _, err := s.Delete(ctx, resource.KeyOf(tmpl), store.DeleteOptions{}); err != nil {
		t.Fatalf("deleting an object whose owner is gone: %v", err)
	}
	_, err := s.Get(ctx, resource.KeyOf(tmpl))
	wantReason(t, err, resource.ReasonNotFound)
}

func TestDeletePreconditionAndNotFound(t *testing.T) {
	s := newStore(t)
	ctx := context.Background()
	cm := mustCreate(t, s, configMap("default", "demo", nil))
	_, err := s.Delete(ctx, resource.KeyOf(cm), store.DeleteOptions{ResourceVersion: "999"})
	wantReason(t, err, resource.ReasonConflict)
	if _, err := s.Delete(ctx, resource.KeyOf(cm), store.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	_, err = s.Delete(ctx, resource.KeyOf(cm), store.DeleteOptions{})
	wantReason(t, err, resource.ReasonNotFound)
}

func TestPatch(t *testing.T) {
	s := newStore(t)
	ctx := context.Background()
	v := mustCreate(t, s, vm("default", "dev"))
	key := resource.KeyOf(v)

	out, err := s.Patch(ctx, key, []byte(`{"spec":{"running":true,"params":{"cpus":2}}}`))
	if err != nil {
		t.Fatal(err)
	}
	got := out.(*resource.VM)
	if !got.Spec.Running || got.Spec.Params["cpus"] != float64(2) || got.Spec.TemplateRef != "debian" || got.Metadata.Generation != 2 {
		t.Fatalf("merge patch result: %+v", got)
	}

	_, err = s.Patch(ctx, key, []byte(`{"metadata":{"resourceVersion":"1"},"spec":{"running":false}}`))
	wantReason(t, err, resource.ReasonConflict)

	_, err = s.Patch(ctx, key, []byte(`{"spec":{"runing":false}}`))
	wantReason(t, err, resource.ReasonInvalid)
	if !strings.Contains(err.Error(), "runing") {
		t.Fatalf("unknown-field error should name the field: %v", err)
	}

	_, err = s.Patch(ctx, key, []byte(`{"metadata":{"name":"other"}}`))
	wantReason(t, err, resource.ReasonInvalid)

	_, err = s.Patch(ctx, key, []byte(`not json`))
	wantReason(t, err, resource.ReasonBadRequest)

	out, err = s.PatchStatus(ctx, key, []byte(`{"status":{"restartCount":2},"spec":{"running":false}}`))
	if err != nil {
		t.Fatal(err)
	}
	if got := out.(*resource.VM); got.Status.RestartCount != 2 || !got.Spec.Running {
		t.Fatalf("status patch changed spec or lost status: %+v", got)
	}
}

func TestLabelAndFieldSelectors(t *testing.T) {
	s := newStore(t)
	ctx := context.Background()
	for _, c := range []struct{ ns, name, team string }{{"a", "one", "x"}, {"a", "two", "y"}, {"b", "three", "x"}} {
		cm := configMap(c.ns, c.name, nil)
		cm.Metadata.Labels = map[string]string{"team": c.team}
		mustCreate(t, s, cm)
	}
	sel, err := store.ParseLabelSelector("team=x")
	if err != nil {
		t.Fatal(err)
	}
	objs, _, err := s.List(ctx, store.ListOptions{Kind: resource.KindConfigMap, Labels: sel})
	if err != nil {
		t.Fatal(err)
	}
	if names := namesOf(objs); names != "a/one b/three" {
		t.Fatalf("team=x selected %q", names)
	}
	objs, _, _ = s.List(ctx, store.ListOptions{Kind: resource.KindConfigMap, Namespace: "a", Labels: sel})
	if names := namesOf(objs); names != "a/one" {
		t.Fatalf("team=x in a selected %q", names)
	}
	fsel, err := store.ParseFieldSelector("metadata.name=two")
	if err != nil {
		t.Fatal(err)
	}
	objs, _, _ = s.List(ctx, store.ListOptions{Kind: resource.KindConfigMap, Fields: fsel})
	if names := namesOf(objs); names != "a/two" {
		t.Fatalf("metadata.name=two selected %q", names)
	}
	_, err = store.ParseFieldSelector("spec.running=true")
	wantReason(t, err, resource.ReasonBadRequest)
	_, err = store.ParseLabelSelector("a in (")
	wantReason(t, err, resource.ReasonBadRequest)
}

func namesOf(objs []resource.Object) string {
	var out []string
	for _, o := range objs {
		out = append(out, o.GetMeta().Namespace+"/"+o.GetMeta().Name)
	}
	return strings.Join(out, " ")
}

func TestDataSurvivesReopen(t *testing.T) {
	address := storetest.Database(t)
	s, err := gormstore.Open(context.Background(), config(t, address))
	if err != nil {
		t.Fatal(err)
	}
	mustCreate(t, s, configMap("default", "keep", map[string]string{"k": "v"}))
	rev := s.Revision()
	s.Close()

	s = openStore(t, address)
	if s.Revision() != rev {
		t.Fatalf("revision after reopen %d, want %d", s.Revision(), rev)
	}
	got, err := s.Get(context.Background(), resource.Key{Kind: "ConfigMap", Namespace: "default", Name: "keep"})
	if err != nil {
		t.Fatal(err)
	}
	if got.(*resource.ConfigMap).Data["k"] != "v" {
		t.Fatalf("data lost across reopen: %+v", got)
	}
	next := mustCreate(t, s, configMap("default", "after", nil))
	if next.Metadata.ResourceVersion != jsonInt(rev+1) {
		t.Fatalf("revision did not continue after reopen: %s", next.Metadata.ResourceVersion)
	}
}

func nextEvent(t *testing.T, w *store.Watcher) store.Event {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	ev, err := w.Next(ctx)
	if err != nil {
		t.Fatalf("waiting for an event: %v", err)
	}
	return ev
}

func TestWatchInitialThenLive(t *testing.T) {
	s := newStore(t)
	ctx := context.Background()
	mustCreate(t, s, configMap("default", "one", nil))
	w, err := s.Watch(ctx, store.WatchOptions{ListOptions: store.ListOptions{Kind: resource.KindConfigMap}})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	if ev := nextEvent(t, w); ev.Type != store.Added || ev.Key.Name != "one" {
		t.Fatalf("first event %+v", ev)
	}
	if ev := nextEvent(t, w); ev.Type != store.Bookmark || ev.Revision != s.Revision() {
		t.Fatalf("want a bookmark at %d, got %+v", s.Revision(), ev)
	}
	mustCreate(t, s, vm("default", "ignored"))
	two := mustCreate(t, s, configMap("default", "two", nil))
	if ev := nextEvent(t, w); ev.Type != store.Added || ev.Key.Name != "two" || ev.Revision != s.Revision() {
		t.Fatalf("live event %+v", ev)
	}
	if _, err := s.Delete(ctx, resource.KeyOf(two), store.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	if ev := nextEvent(t, w); ev.Type != store.Deleted || ev.Key.Name != "two" {
		t.Fatalf("delete event %+v", ev)
	}
}

func TestWatchReplaysFromRevision(t *testing.T) {
	s := newStore(t)
	ctx := context.Background()
	first := mustCreate(t, s, configMap("default", "one", nil))
	mustCreate(t, s, configMap("default", "two", nil))
	first.Data = map[string]string{"k": "v"}
	if _, err := s.Update(ctx, first); err != nil {
		t.Fatal(err)
	}
	w, err := s.Watch(ctx, store.WatchOptions{ListOptions: store.ListOptions{Kind: resource.KindConfigMap}, ResourceVersion: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	for _, want := range []struct {
		typ  store.EventType
		name string
		rev  int64
	}{{store.Added, "two", 2}, {store.Modified, "one", 3}, {store.Bookmark, "", 3}} {
		ev := nextEvent(t, w)
		if ev.Type != want.typ || ev.Key.Name != want.name || ev.Revision != want.rev {
			t.Fatalf("got %s %s@%d, want %s %s@%d", ev.Type, ev.Key.Name, ev.Revision, want.typ, want.name, want.rev)
		}
	}
}

func TestWatchTooOldIsGone(t *testing.T) {
	cfg := config(t, storetest.Database(t))
	cfg.EventRetention = 10
	s, err := gormstore.Open(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	cm := mustCreate(t, s, configMap("default", "busy", nil))
	for i := 0; i < 300; i++ {
		cm.Data = map[string]string{"i": jsonInt(int64(i))}
		out, err := s.Update(context.Background(), cm)
		if err != nil {
			t.Fatal(err)
		}
		cm = out.(*resource.ConfigMap)
	}
	_, err = s.Watch(context.Background(), store.WatchOptions{ListOptions: store.ListOptions{Kind: resource.KindConfigMap}, ResourceVersion: 1})
	wantReason(t, err, resource.ReasonGone)
	_, err = s.Watch(context.Background(), store.WatchOptions{ListOptions: store.ListOptions{Kind: resource.KindConfigMap}, ResourceVersion: s.Revision() + 5})
	wantReason(t, err, resource.ReasonGone)
	w, err := s.Watch(context.Background(), store.WatchOptions{ListOptions: store.ListOptions{Kind: resource.KindConfigMap}, ResourceVersion: s.Revision() - 1})
	if err != nil {
		t.Fatalf("a recent revision must resume: %v", err)
	}
	w.Stop()
}

func TestWatchEndsWhenStoreCloses(t *testing.T) {
	s, err := gormstore.Open(context.Background(), config(t, storetest.Database(t)))
	if err != nil {
		t.Fatal(err)
	}
	w, err := s.Watch(context.Background(), store.WatchOptions{ListOptions: store.ListOptions{Kind: resource.KindVM}})
	if err != nil {
		t.Fatal(err)
	}
	nextEvent(t, w) // bookmark
	s.Close()
	if _, err := w.Next(context.Background()); !errors.Is(err, store.ErrWatchClosed) {
		t.Fatalf("got %v, want ErrWatchClosed", err)
	}
}

func TestAdmissionSeesOtherObjects(t *testing.T) {
	ctx := context.Background()
	admit := func(ctx context.Context, r store.Reader, obj, old resource.Object) error {
		v, ok := obj.(*resource.VM)
		if !ok {
			return nil
		}
		_, err := r.Get(ctx, resource.Key{Kind: "ConfigMap", Namespace: v.Metadata.Namespace, Name: v.Spec.TemplateRef})
		if resource.IsNotFound(err) {
			return resource.Invalid(resource.KeyOf(v), []resource.FieldError{{Field: "spec.templateRef", Message: "no such ConfigMap"}})
		}
		return err
	}
	cfg := config(t, storetest.Database(t))
	cfg.Admit = admit
	s, err := gormstore.Open(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	_, err = s.Create(ctx, vm("default", "dev"))
	wantReason(t, err, resource.ReasonInvalid)
	if _, err := s.Get(ctx, resource.Key{Kind: "VM", Namespace: "default", Name: "dev"}); !resource.IsNotFound(err) {
		t.Fatal("a rejected create was stored")
	}
	mustCreate(t, s, configMap("default", "debian", nil))
	v := mustCreate(t, s, vm("default", "dev"))
	v.Spec.TemplateRef = "missing"
	_, err = s.Update(ctx, v)
	wantReason(t, err, resource.ReasonInvalid)
}

// A database is one store's at a time, and free again once that store is
// closed: a daemon restarted at once opens it. On PostgreSQL a closed
// store's lock lasted until the server saw its session go, and in a CI
// run on a busy host a store opened right after was refused, by a holder
// it could not name. An idle host does not open that window; the unlock
// in Close shuts it whatever the load.
func TestAClosedStoreFreesItsDatabaseAtOnce(t *testing.T) {
	address := storetest.Database(t)
	for i := range 20 {
		s, err := gormstore.Open(context.Background(), config(t, address))
		if err != nil {
			t.Fatalf("open %d, right after the last was closed: %v", i+1, err)
		}
		if i == 0 {
			if _, err := gormstore.Open(context.Background(), config(t, address)); err == nil || !strings.Contains(err.Error(), "in use by another paddock daemon") {
				s.Close()
				t.Fatalf("a second store on a database in use: %v; want it refused as in use", err)
			}
		}
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
	}
}
