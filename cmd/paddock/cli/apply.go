package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"

	"paddock.dev/paddock/api/client"
	"paddock.dev/paddock/core/resource"
	"paddock.dev/paddock/core/store"
)

func newApplyCmd(c *cli) *cobra.Command {
	var file string
	var sc scope
	cmd := &cobra.Command{
		Use:   "apply -f FILE|-",
		Short: "Create objects from a file, or bring existing ones in line with it",
		Long: `Create each object in FILE (YAML or JSON; several YAML documents allowed;
- reads standard input), or update it when it exists: its spec (or data) is
replaced by the file's, and the file's labels and annotations are set over
the object's. Finalizers, owners and status stay as the daemon keeps them.`,
		Example: `  paddock apply -f vm.yaml
  cat configmap.json | paddock apply -f -`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if file == "" {
				return usageError("name the file to apply with -f FILE (or -f - for standard input)")
			}
			objs, err := readObjects(file)
			if err != nil {
				return err
			}
			cl, err := c.Client(cmd.Context())
			if err != nil {
				return err
			}
			for _, obj := range objs {
				m := obj.GetMeta()
				if m.Namespace == "" && kindOfObject(obj).Namespaced {
					m.Namespace = sc.namespace
				}
				result, err := apply(cmd.Context(), cl, obj)
				if err != nil {
					return err
				}
				fmt.Fprintf(c.stdout, "%s/%s %s\n", kindOfObject(obj).Singular(), m.Name, result)
			}
			return nil
		},
	}
	cmd.Flags().StringVarP(&file, "filename", "f", "", "file to apply, or - for standard input")
	sc.addFlags(cmd, false)
	return cmd
}

// readObjects decodes every document of a YAML or JSON file, refusing
// unknown kinds and fields.
func readObjects(file string) ([]resource.Object, error) {
	var r io.Reader
	if file == "-" {
		r = os.Stdin
	} else {
		f, err := os.Open(file)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		r = f
	}
	dec := utilyaml.NewYAMLOrJSONDecoder(r, 4096)
	var out []resource.Object
	for i := 1; ; i++ {
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			if errors.Is(err, io.EOF) {
				break
			}
			return nil, withCode(exitRejected, fmt.Errorf("%s: document %d is not YAML or JSON: %v", file, i, err))
		}
		if len(bytes.TrimSpace(raw)) == 0 || string(raw) == "null" {
			continue
		}
		var tm resource.TypeMeta
		if err := json.Unmarshal(raw, &tm); err != nil {
			return nil, withCode(exitRejected, fmt.Errorf("%s: document %d: %v", file, i, err))
		}
		k, ok := resource.KindOf(tm.Kind)
		if !ok {
			return nil, withCode(exitRejected, fmt.Errorf("%s: document %d: unknown kind %q: use App, VM or ConfigMap", file, i, tm.Kind))
		}
		obj, err := store.DecodeStrict(k, raw)
		if err != nil {
			return nil, fmt.Errorf("%s: document %d: %w", file, i, err)
		}
		out = append(out, obj)
	}
	if len(out) == 0 {
		return nil, withCode(exitRejected, fmt.Errorf("%s holds no objects", file))
	}
	return out, nil
}

func kindOfObject(obj resource.Object) *resource.Kind {
	k, _ := resource.KindOf(obj.GetTypeMeta().Kind)
	return k
}

// applyAttempts bounds the retries of an apply that keeps losing races
// with other writers.
const applyAttempts = 5

// apply creates obj or updates the stored object to match it, and says
// which it did.
func apply(ctx context.Context, cl *client.Client, obj resource.Object) (string, error) {
	k := kindOfObject(obj)
	m := obj.GetMeta()
	for attempt := 1; ; attempt++ {
		retry := attempt < applyAttempts
		cur, err := cl.Get(ctx, k, m.Namespace, m.Name)
		if resource.IsNotFound(err) {
			if _, err := cl.Create(ctx, obj); err != nil {
				if retry && resource.ReasonOf(err) == resource.ReasonAlreadyExists {
					continue
				}
				return "", err
			}
			return "created", nil
		}
		if err != nil {
			return "", err
		}
		desired, err := overlay(k, cur, obj)
		if err != nil {
			return "", err
		}
		out, err := cl.Update(ctx, desired)
		if retry && resource.IsConflict(err) {
			continue
		}
		if err != nil {
			return "", err
		}
		if out.GetMeta().ResourceVersion == cur.GetMeta().ResourceVersion {
			return "unchanged", nil
		}
		return "configured", nil
	}
}

// overlay returns cur with the spec (or data) of file, and file's labels
// and annotations set over cur's.
func overlay(k *resource.Kind, cur, file resource.Object) (resource.Object, error) {
	fileRaw, err := json.Marshal(file)
	if err != nil {
		return nil, err
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(fileRaw, &fields); err != nil {
		return nil, err
	}
	curRaw, err := json.Marshal(cur)
	if err != nil {
		return nil, err
	}
	var merged map[string]json.RawMessage
	if err := json.Unmarshal(curRaw, &merged); err != nil {
		return nil, err
	}
	merged[k.SpecField] = fields[k.SpecField]
	data, err := json.Marshal(merged)
	if err != nil {
		return nil, err
	}
	out := resource.NewObject(k)
	if err := json.Unmarshal(data, out); err != nil {
		return nil, err
	}
	om, fm := out.GetMeta(), file.GetMeta()
	om.Labels = mergeMaps(om.Labels, fm.Labels)
	om.Annotations = mergeMaps(om.Annotations, fm.Annotations)
	return out, nil
}

func mergeMaps(base, over map[string]string) map[string]string {
	if len(over) == 0 {
		return base
	}
	out := make(map[string]string, len(base)+len(over))
	for k, v := range base {
		out[k] = v
	}
	for k, v := range over {
		out[k] = v
	}
	return out
}
