package gormstore_test

import (
	"context"
	"testing"

	"paddock.dev/paddock/core/resource"
	"paddock.dev/paddock/core/store"
	"paddock.dev/paddock/core/store/gormstore"
	"paddock.dev/paddock/core/store/gormstore/storetest"
)

// A dry run checks a write as the real one would — admission included —
// and answers the object it would store, but stores nothing.
func TestADryRunIsCheckedAndNotStored(t *testing.T) {
	ctx := context.Background()
	dry := store.WithDryRun(ctx)
	cfg := config(t, storetest.Database(t))
	cfg.Admit = func(ctx context.Context, r store.Reader, obj, old resource.Object) error {
		if v, ok := obj.(*resource.VM); ok && v.Spec.TemplateRef == "refused" {
			return resource.Invalid(resource.KeyOf(v), []resource.FieldError{{Field: "spec.templateRef", Message: "refused by admission"}})
		}
		return nil
	}
	s, err := gormstore.Open(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	key := resource.Key{Kind: "VM", Namespace: "default", Name: "dev"}

	refused := vm("default", "dev")
	refused.Spec.TemplateRef = "refused"
	_, err = s.Create(dry, refused)
	wantReason(t, err, resource.ReasonInvalid)
	out, err := s.Create(dry, vm("default", "dev"))
	if err != nil || out.GetMeta().Name != "dev" {
		t.Fatalf("dry create: %v %+v", err, out)
	}
	if _, err := s.Get(ctx, key); !resource.IsNotFound(err) || s.Revision() != 0 {
		t.Fatalf("a dry create was stored: %v, revision %d", err, s.Revision())
	}

	mustCreate(t, s, vm("default", "dev"))
	rev := s.Revision()
	_, err = s.Patch(dry, key, []byte(`{"spec":{"templateRef":"refused"}}`))
	wantReason(t, err, resource.ReasonInvalid)
	_, err = s.Patch(dry, key, []byte(`{"metadata":{"resourceVersion":"99"},"spec":{"templateRef":"other"}}`))
	wantReason(t, err, resource.ReasonConflict)
	out, err = s.Patch(dry, key, []byte(`{"spec":{"templateRef":"other"}}`))
	if err != nil || out.(*resource.VM).Spec.TemplateRef != "other" || out.GetMeta().Generation != 2 {
		t.Fatalf("dry patch: %v %+v", err, out)
	}
	if _, err := s.PatchStatus(dry, key, []byte(`{"status":{"restartCount":3}}`)); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Delete(dry, key, store.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	got, err := s.Get(ctx, key)
	if err != nil || got.(*resource.VM).Spec.TemplateRef != "debian" || got.(*resource.VM).Status.RestartCount != 0 || s.Revision() != rev {
		t.Fatalf("dry writes changed the VM: %v %+v, revision %d, want %d", err, got, s.Revision(), rev)
	}
}
