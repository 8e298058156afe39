package resource

import (
	"unicode/utf8"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// MaxConditionMessage is the most characters (Unicode code points, not
// bytes) a condition message keeps.
const MaxConditionMessage = 2048

// SetCondition sets c in conds with apimachinery's semantics (the transition
// time moves only when the status changes), stamping generation, the
// generation of the object that carries conds, as its observedGeneration and
// bounding its message. It reports whether conds changed.
func SetCondition(conds *[]metav1.Condition, generation int64, c metav1.Condition) bool {
	c.ObservedGeneration = generation
	c.Message = TruncateMessage(c.Message)
	return meta.SetStatusCondition(conds, c)
}

// MirrorConditions copies the condition types from a child's conditions
// into a parent's, stamped with the parent's generation (the child's means
// nothing on the parent) and keeping the child's transition time. A type the
// child lacks is removed from the parent. It reports whether conds changed.
func MirrorConditions(conds *[]metav1.Condition, generation int64, child []metav1.Condition, types ...string) bool {
	changed := false
	for _, t := range types {
		c := meta.FindStatusCondition(child, t)
		if c == nil {
			changed = meta.RemoveStatusCondition(conds, t) || changed
			continue
		}
		mirrored := *c
		mirrored.ObservedGeneration = generation
		mirrored.Message = TruncateMessage(mirrored.Message)
		if existing := meta.FindStatusCondition(*conds, t); existing == nil || *existing != mirrored {
			meta.RemoveStatusCondition(conds, t)
			*conds = append(*conds, mirrored)
			changed = true
		}
	}
	return changed
}

// TruncateMessage bounds a message to MaxConditionMessage characters,
// cutting between characters and ending a cut message with "…", which
// counts towards the bound.
func TruncateMessage(s string) string {
	if utf8.RuneCountInString(s) <= MaxConditionMessage {
		return s
	}
	n := 0
	for i := range s {
		if n == MaxConditionMessage-1 {
			return s[:i] + "…"
		}
		n++
	}
	return s
}
