package api

import (
	"context"
	"fmt"
	"mime"
	"net/http"
	"reflect"
	"strings"

	"github.com/danielgtaylor/huma/v2"

	"paddock.dev/paddock/api/wire"
	"paddock.dev/paddock/core/resource"
	"paddock.dev/paddock/core/store"
)

// Inputs. Namespaced kinds take the namespace and name from the path; the
// App, a singleton, has neither.

type ListQuery struct {
	LabelSelector   string `query:"labelSelector" doc:"Only objects whose labels match, e.g. team=web,tier!=db."`
	FieldSelector   string `query:"fieldSelector" doc:"Only objects whose metadata.name or metadata.namespace match, e.g. metadata.name=dev."`
	Watch           bool   `query:"watch" doc:"Stream changes as server-sent events instead of answering once."`
	ResourceVersion string `query:"resourceVersion" doc:"With watch: replay every change after this revision, then stream. Without it, the stream starts with an ADDED event per current object."`
	LastEventID     string `header:"Last-Event-ID" doc:"With watch: the same as resourceVersion, as EventSource clients send it."`
}

type nsListInput struct {
	Namespace string `path:"namespace"`
	ListQuery
}

type allListInput struct {
	ListQuery
}

type objectInput struct {
	Namespace string `path:"namespace"`
	Name      string `path:"name"`
}

// DryRun is the dryRun query parameter of every write: with All, the
// write is checked as it would be (validation, admission, preconditions)
// and answered with the object as it would be stored, and nothing is
// stored, as Kubernetes' dryRun=All.
type DryRun struct {
	DryRun string `query:"dryRun" enum:"All" doc:"All: check the write (validation, admission, preconditions) and answer the object as it would be, storing nothing."`
}

// context returns ctx, marked for a dry run when one is asked.
func (d DryRun) context(ctx context.Context) context.Context {
	if d.DryRun == "All" {
		return store.WithDryRun(ctx)
	}
	return ctx
}

type createInput[T any] struct {
	Namespace string `path:"namespace"`
	DryRun
	Body T `required:"true"`
}

type replaceInput[T any] struct {
	Namespace string `path:"namespace"`
	Name      string `path:"name"`
	DryRun
	Body T `required:"true"`
}

type patchInput struct {
	Namespace   string `path:"namespace"`
	Name        string `path:"name"`
	ContentType string `header:"Content-Type"`
	DryRun
	RawBody []byte `contentType:"application/merge-patch+json"`
}

type deleteInput struct {
	Namespace       string `path:"namespace"`
	Name            string `path:"name"`
	ResourceVersion string `query:"resourceVersion" doc:"Delete only if the object is still at this revision."`
	DryRun
}

type singletonBodyInput[T any] struct {
	DryRun
	Body T `required:"true"`
}

type singletonPatchInput struct {
	ContentType string `header:"Content-Type"`
	DryRun
	RawBody []byte `contentType:"application/merge-patch+json"`
}

type singletonDeleteInput struct {
	ResourceVersion string `query:"resourceVersion" doc:"Delete only if the object is still at this revision."`
	DryRun
}

type objectOutput[T any] struct {
	Body T
}

// registerObject registers every operation on kind k, whose Go type is T.
func registerObject[T resource.Object](s *Server, k *resource.Kind) {
	if k.Namespaced {
		registerNamespaced[T](s, k)
	} else {
		registerSingleton[T](s, k)
	}
}

func registerNamespaced[T resource.Object](s *Server, k *resource.Kind) {
	coll := wire.Base + "/namespaces/{namespace}/" + k.Plural
	obj := coll + "/{name}"
	one, tag := k.Singular(), k.Plural
	key := func(ns, name string) resource.Key { return resource.Key{Kind: k.Name, Namespace: ns, Name: name} }

	huma.Register(s.api, s.listOperation(k, "list-"+k.Plural, coll, "List or watch "+k.Plural+" in a namespace", reflect.TypeFor[T]()),
		func(ctx context.Context, in *nsListInput) (*huma.StreamResponse, error) {
			if err := resource.ValidateNamespace(in.Namespace); err != nil {
				return nil, toProblem(err)
			}
			return s.listOrWatch(ctx, k, in.Namespace, in.ListQuery)
		})
	huma.Register(s.api, s.listOperation(k, "list-"+k.Plural+"-all-namespaces", wire.Base+"/"+k.Plural, "List or watch "+k.Plural+" in all namespaces", reflect.TypeFor[T]()),
		func(ctx context.Context, in *allListInput) (*huma.StreamResponse, error) {
			return s.listOrWatch(ctx, k, "", in.ListQuery)
		})
	huma.Register(s.api, s.operation(k, http.MethodPost, "create-"+one, coll, "Create a "+one, http.StatusCreated, tag),
		func(ctx context.Context, in *createInput[T]) (*objectOutput[T], error) {
			return respond[T](s.create(in.context(ctx), k, in.Namespace, in.Body))
		})
	huma.Register(s.api, s.operation(k, http.MethodGet, "get-"+one, obj, "Read a "+one, 0, tag),
		func(ctx context.Context, in *objectInput) (*objectOutput[T], error) {
			return respond[T](s.store.Get(ctx, key(in.Namespace, in.Name)))
		})
	huma.Register(s.api, s.operation(k, http.MethodPut, "replace-"+one, obj, "Replace a "+one+"'s metadata and "+k.SpecField, 0, tag),
		func(ctx context.Context, in *replaceInput[T]) (*objectOutput[T], error) {
			return respond[T](s.replace(in.context(ctx), key(in.Namespace, in.Name), in.Body, s.store.Update))
		})
	huma.Register(s.api, s.operation(k, http.MethodPatch, "patch-"+one, obj, "Merge-patch a "+one+"'s metadata and "+k.SpecField, 0, tag),
		func(ctx context.Context, in *patchInput) (*objectOutput[T], error) {
			return respond[T](s.patch(in.context(ctx), key(in.Namespace, in.Name), in.ContentType, in.RawBody, s.store.Patch))
		})
	huma.Register(s.api, s.operation(k, http.MethodDelete, "delete-"+one, obj, "Delete a "+one+" (it stays, Terminating, while finalizers remain)", 0, tag),
		func(ctx context.Context, in *deleteInput) (*objectOutput[T], error) {
			return respond[T](s.store.Delete(in.context(ctx), key(in.Namespace, in.Name), store.DeleteOptions{ResourceVersion: in.ResourceVersion}))
		})
	if !k.HasStatus {
		return
	}
	status := obj + "/status"
	huma.Register(s.api, s.operation(k, http.MethodGet, "get-"+one+"-status", status, "Read a "+one+" with its status", 0, tag),
		func(ctx context.Context, in *objectInput) (*objectOutput[T], error) {
			return respond[T](s.store.Get(ctx, key(in.Namespace, in.Name)))
		})
	huma.Register(s.api, s.operation(k, http.MethodPut, "replace-"+one+"-status", status, "Replace a "+one+"'s status", 0, tag),
		func(ctx context.Context, in *replaceInput[T]) (*objectOutput[T], error) {
			return respond[T](s.replace(in.context(ctx), key(in.Namespace, in.Name), in.Body, s.store.UpdateStatus))
		})
	huma.Register(s.api, s.operation(k, http.MethodPatch, "patch-"+one+"-status", status, "Merge-patch a "+one+"'s status", 0, tag),
		func(ctx context.Context, in *patchInput) (*objectOutput[T], error) {
			return respond[T](s.patch(in.context(ctx), key(in.Namespace, in.Name), in.ContentType, in.RawBody, s.store.PatchStatus))
		})
}

func registerSingleton[T resource.Object](s *Server, k *resource.Kind) {
	path := wire.CollectionPath(k, "")
	one, tag := k.Singular(), k.Singular()
	key := resource.Key{Kind: k.Name, Name: resource.AppName}

	huma.Register(s.api, s.listOperation(k, "get-"+one, path, "Read or watch the "+one, reflect.TypeFor[T]()),
		func(ctx context.Context, in *allListInput) (*huma.StreamResponse, error) {
			if in.Watch {
				return s.listOrWatch(ctx, k, "", in.ListQuery)
			}
			obj, err := s.store.Get(ctx, key)
			if err != nil {
				return nil, toProblem(err)
			}
			return streamJSON(obj), nil
		})
	huma.Register(s.api, s.operation(k, http.MethodPost, "create-"+one, path, "Create the "+one, http.StatusCreated, tag),
		func(ctx context.Context, in *singletonBodyInput[T]) (*objectOutput[T], error) {
			return respond[T](s.create(in.context(ctx), k, "", in.Body))
		})
	huma.Register(s.api, s.operation(k, http.MethodPut, "replace-"+one, path, "Replace the "+one+"'s metadata and spec", 0, tag),
		func(ctx context.Context, in *singletonBodyInput[T]) (*objectOutput[T], error) {
			return respond[T](s.replace(in.context(ctx), key, in.Body, s.store.Update))
		})
	huma.Register(s.api, s.operation(k, http.MethodPatch, "patch-"+one, path, "Merge-patch the "+one+"'s metadata and spec", 0, tag),
		func(ctx context.Context, in *singletonPatchInput) (*objectOutput[T], error) {
			return respond[T](s.patch(in.context(ctx), key, in.ContentType, in.RawBody, s.store.Patch))
		})
	huma.Register(s.api, s.operation(k, http.MethodDelete, "delete-"+one, path, "Delete the "+one, 0, tag),
		func(ctx context.Context, in *singletonDeleteInput) (*objectOutput[T], error) {
			return respond[T](s.store.Delete(in.context(ctx), key, store.DeleteOptions{ResourceVersion: in.ResourceVersion}))
		})
	status := path + "/status"
	huma.Register(s.api, s.operation(k, http.MethodGet, "get-"+one+"-status", status, "Read the "+one+" with its status", 0, tag),
		func(ctx context.Context, _ *struct{}) (*objectOutput[T], error) {
			return respond[T](s.store.Get(ctx, key))
		})
	huma.Register(s.api, s.operation(k, http.MethodPut, "replace-"+one+"-status", status, "Replace the "+one+"'s status", 0, tag),
		func(ctx context.Context, in *singletonBodyInput[T]) (*objectOutput[T], error) {
			return respond[T](s.replace(in.context(ctx), key, in.Body, s.store.UpdateStatus))
		})
	huma.Register(s.api, s.operation(k, http.MethodPatch, "patch-"+one+"-status", status, "Merge-patch the "+one+"'s status", 0, tag),
		func(ctx context.Context, in *singletonPatchInput) (*objectOutput[T], error) {
			return respond[T](s.patch(in.context(ctx), key, in.ContentType, in.RawBody, s.store.PatchStatus))
		})
}

func (s *Server) operation(k *resource.Kind, method, id, path, summary string, status int, tag string) huma.Operation {
	return huma.Operation{
		OperationID:   id,
		Method:        method,
		Path:          path,
		Summary:       summary,
		Tags:          []string{tag},
		DefaultStatus: status,
		MaxBodyBytes:  maxBodyBytes,
		// huma bounds only typed bodies by itself; merge patches too.
		BodyReadTimeout: bodyReadTimeout,
		Errors:          []int{http.StatusBadRequest, http.StatusNotFound, http.StatusConflict, http.StatusForbidden, http.StatusUnprocessableEntity},
	}
}

// respond turns a store result into a huma output or a problem.
func respond[T resource.Object](obj resource.Object, err error) (*objectOutput[T], error) {
	if err != nil {
		return nil, toProblem(err)
	}
	return &objectOutput[T]{Body: obj.(T)}, nil
}

func (s *Server) create(ctx context.Context, k *resource.Kind, ns string, obj resource.Object) (resource.Object, error) {
	if err := kindMatches(k, obj); err != nil {
		return nil, err
	}
	m := obj.GetMeta()
	if k.Namespaced {
		if err := resource.ValidateNamespace(ns); err != nil {
			return nil, err
		}
		switch m.Namespace {
		case "":
			m.Namespace = ns
		case ns:
		default:
			return nil, pathMismatch(k, "metadata.namespace", m.Namespace, ns)
		}
	}
	return s.store.Create(ctx, obj)
}

func (s *Server) replace(ctx context.Context, key resource.Key, obj resource.Object, write objectWrite) (resource.Object, error) {
	k, _ := resource.KindOf(key.Kind)
	if err := kindMatches(k, obj); err != nil {
		return nil, err
	}
	m := obj.GetMeta()
	if m.Name == "" {
		m.Name = key.Name
	}
	if m.Namespace == "" {
		m.Namespace = key.Namespace
	}
	if m.Name != key.Name {
		return nil, pathMismatch(k, "metadata.name", m.Name, key.Name)
	}
	if m.Namespace != key.Namespace {
		return nil, pathMismatch(k, "metadata.namespace", m.Namespace, key.Namespace)
	}
	return write(ctx, obj)
}

// objectWrite is the store's write of one part of an object: Update or
// UpdateStatus.
type objectWrite func(context.Context, resource.Object) (resource.Object, error)

// patchWrite is the store's merge patch of one part of an object: Patch or
// PatchStatus.
type patchWrite func(context.Context, resource.Key, []byte) (resource.Object, error)

func (s *Server) patch(ctx context.Context, key resource.Key, contentType string, body []byte, write patchWrite) (resource.Object, error) {
	mt, _, _ := mime.ParseMediaType(contentType)
	if mt != wire.MergePatchType {
		return nil, resource.Errorf(resource.ReasonUnsupported,
			"a patch must be sent as Content-Type: %s (RFC 7386), not %q", wire.MergePatchType, contentType)
	}
	return write(ctx, key, body)
}

// kindMatches refuses a body whose kind is not the kind of its path.
func kindMatches(k *resource.Kind, obj resource.Object) error {
	got := obj.GetTypeMeta().Kind
	if got == k.Name {
		return nil
	}
	msg := fmt.Sprintf("the body's kind is %q but this path takes %s objects: send kind %q, or send the body to the %s path", got, k.Name, k.Name, got)
	if _, known := resource.KindOf(got); !known {
		var names []string
		for _, k := range resource.Kinds() {
			names = append(names, k.Name)
		}
		msg = fmt.Sprintf("the body's kind %q is not a kind: this path takes %s objects (the kinds are %s)", got, k.Name, strings.Join(names, ", "))
	}
	if got == "" {
		msg = fmt.Sprintf("the body has no kind: this path takes %s objects, so send \"kind\": %q", k.Name, k.Name)
	}
	return &resource.Error{
		Reason:  resource.ReasonInvalid,
		Message: msg,
		Fields:  []resource.FieldError{{Field: "kind", Message: fmt.Sprintf("must be %q", k.Name)}},
	}
}

func pathMismatch(k *resource.Kind, field, body, path string) error {
	return &resource.Error{
		Reason:  resource.ReasonInvalid,
		Message: fmt.Sprintf("the %s's %s is %q but the path says %q", k.Singular(), field, body, path),
		Fields:  []resource.FieldError{{Field: field, Message: fmt.Sprintf("must match the path: %q", path)}},
	}
}
