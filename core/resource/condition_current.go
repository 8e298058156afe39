package resource

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

// ConditionCurrent reports whether condition c speaks of the object's spec
// at generation gen. This is the one rule for waiting on a condition: the
// server's ?wait= and the client's waits follow it (through
// wire.ConditionWant), and so should any reader of conditions:
//
//   - observedGeneration equal to or above gen: current.
//   - observedGeneration below gen, but not 0: set for an older spec, so it
//     says nothing about the spec as it is now; not current.
//   - observedGeneration 0: the writer stamped no generation at all
//     (Paddock's controllers always stamp one; a status written by hand may
//     not). Like kubectl wait, such a condition counts as current: there is
//     nothing better to wait for, and waiting on it would never end.
func ConditionCurrent(c *metav1.Condition, gen int64) bool {
	return c.ObservedGeneration == 0 || c.ObservedGeneration >= gen
}
