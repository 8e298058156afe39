package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/duration"
	"sigs.k8s.io/yaml"

	"paddock.dev/paddock/core/resource"
)

// outputFormats are the values of -o.
const outputFormats = "table, wide, json, yaml or name"

func checkOutput(o string) error {
	switch o {
	case "table", "wide", "json", "yaml", "name":
		return nil
	}
	return usageError("unknown output format %q: use %s", o, outputFormats)
}

// printer writes objects in one output format.
type printer struct {
	w             io.Writer
	format        string
	kind          *resource.Kind
	allNamespaces bool
	tw            *tabwriter.Writer
	headerDone    bool
	documents     int // YAML documents written, to separate the next
}

func newPrinter(w io.Writer, format string, k *resource.Kind, allNamespaces bool) *printer {
	return &printer{w: w, format: format, kind: k, allNamespaces: allNamespaces}
}

// list prints objs as a whole: a table, or a List document.
func (p *printer) list(objs []resource.Object) error {
	switch p.format {
	case "json", "yaml":
		if len(objs) == 1 && !p.kind.Namespaced {
			return p.one(objs[0])
		}
		items := make([]json.RawMessage, len(objs))
		for i, o := range objs {
			data, err := json.Marshal(o)
			if err != nil {
				return err
			}
			items[i] = data
		}
		return p.encode(map[string]any{"apiVersion": resource.APIVersion, "kind": "List", "items": items})
	}
	for _, o := range objs {
		if err := p.row(o); err != nil {
			return err
		}
	}
	return p.flush()
}

// one prints a single object, as a watch does for each change.
func (p *printer) one(obj resource.Object) error {
	switch p.format {
	case "json", "yaml":
		return p.encode(obj)
	}
	if err := p.row(obj); err != nil {
		return err
	}
	return p.flush()
}

func (p *printer) encode(v any) error {
	if p.format == "yaml" {
		data, err := yaml.Marshal(v)
		if err != nil {
			return err
		}
		if p.documents > 0 {
			data = append([]byte("---\n"), data...)
		}
		p.documents++
		_, err = p.w.Write(data)
		return err
	}
	enc := json.NewEncoder(p.w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

func (p *printer) row(obj resource.Object) error {
	m := obj.GetMeta()
	if p.format == "name" {
		_, err := fmt.Fprintf(p.w, "%s/%s\n", p.kind.Singular(), m.Name)
		return err
	}
	if p.tw == nil {
		p.tw = tabwriter.NewWriter(p.w, 0, 4, 3, ' ', 0)
	}
	cols, values := columns(obj, p.format == "wide")
	if p.allNamespaces && p.kind.Namespaced {
		cols = append([]string{"NAMESPACE"}, cols...)
		values = append([]string{m.Namespace}, values...)
	}
	if !p.headerDone {
		fmt.Fprintln(p.tw, strings.Join(cols, "\t"))
		p.headerDone = true
	}
	_, err := fmt.Fprintln(p.tw, strings.Join(values, "\t"))
	return err
}

func (p *printer) flush() error {
	if p.tw == nil {
		return nil
	}
	return p.tw.Flush()
}

// columns returns the table columns of obj's kind and obj's values.
func columns(obj resource.Object, wide bool) ([]string, []string) {
	m := obj.GetMeta()
	age := age(m.CreationTimestamp)
	switch o := obj.(type) {
	case *resource.VM:
		phase, reason := o.PhaseAndReason()
		cols := []string{"NAME", "DESIRED", "STATUS", "RESTARTS", "AGE"}
		vals := []string{m.Name, desired(o.Spec.Running), phase, strconv.Itoa(o.Status.RestartCount), age}
		if wide {
			accel := "-" // known for a running machine only
			if phase == resource.PhaseRunning || phase == resource.PhaseStopping {
				accel = o.Status.Accelerator
			}
			cols = append(cols, "REASON", "TEMPLATE", "ACCEL", "MESSAGE")
			vals = append(vals, orDash(reason), o.Spec.TemplateRef, accel, vmMessage(o))
		}
		return cols, vals
	case *resource.App:
		phase, reason := o.PhaseAndReason()
		cols := []string{"NAME", "DESIRED", "ENGINE", "STATUS", "AGE"}
		vals := []string{m.Name, desired(o.Spec.Running), o.Spec.ContainerEngine.Name, phase, age}
		if wide {
			cols = append(cols, "REASON")
			vals = append(vals, orDash(reason))
		}
		return cols, vals
	case *resource.ConfigMap:
		return []string{"NAME", "DATA", "AGE"}, []string{m.Name, strconv.Itoa(len(o.Data)), age}
	}
	return []string{"NAME", "AGE"}, []string{m.Name, age}
}

// desired names what spec.running asks for.
func desired(running bool) string {
	if running {
		return resource.PhaseRunning
	}
	return resource.PhaseStopped
}

// vmMessage is the message of the condition that says most about a VM:
// a failed create's, else its Running condition's.
func vmMessage(v *resource.VM) string {
	if c := meta.FindStatusCondition(v.Status.Conditions, resource.VMCreated); c != nil && c.Reason == resource.ReasonCreateFailed {
		return c.Message
	}
	return message(v.Status.Conditions, resource.VMRunning)
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func message(conds []metav1.Condition, t string) string {
	if c := meta.FindStatusCondition(conds, t); c != nil {
		return c.Message
	}
	return ""
}

func age(t *time.Time) string {
	if t == nil {
		return "<unknown>"
	}
	return duration.HumanDuration(time.Since(*t))
}
