// Package vm is the VM controller: it makes each VM object a real virtual
// machine through a Driver (Lima, in platform/lima) and reports what
// happens through the VM's conditions.
//
// A VM's template is copied, merged with the VM's params and validated,
// into a ConfigMap the VM owns (resource.TemplateName); the copy is what the
// VM is created and restarted from. Created and Running carry the reasons
// of resource.Reason*; status.restartCount rises each time Running becomes
// True; status.observedTemplateResourceVersion names the copy the machine
// is configured with (running, the one it started from), and
// status.restartNeeded is true while a running machine has an older one.
// A start that fails is a terminal error: recorded in the Running
// condition (StartFailed) for the VM's generation, and tried again only
// when the VM or its template copy changes, or on a restart request.
//
// A VM is reconciled when it changes, when its template copy does, and
// when the template it names does (so a VM whose template was missing goes
// on once it is there).
//
// Boots and running machines are followed beside the reconciles: a boot
// until it ends (boots.go), a running machine until its processes exit
// (exits.go), which is how a machine that died is noticed at once, with no
// periodic check. Either enqueues the VM; only the reconcile writes its
// status.
//
// Admit is the store's admission check for VMs and their template copies:
// a template Lima rejects never reaches the store.
package vm
