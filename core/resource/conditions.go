package resource

import (
	"encoding/json"
	"fmt"
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

// ValidateStatus checks the conditions of a status as a status write
// carries it (the JSON of the object's status field): every condition has
// a type, unique among them, and a status of True, False or Unknown.
func ValidateStatus(key Key, status json.RawMessage) error {
	var st struct {
		Conditions []metav1.Condition `json:"conditions"`
	}
	if len(status) == 0 || json.Unmarshal(status, &st) != nil {
		return nil // the object's own decoding reports a malformed status
	}
	var errs []FieldError
	seen := map[string]bool{}
	for i, c := range st.Conditions {
		field := fmt.Sprintf("status.conditions[%d]", i)
		switch {
		case c.Type == "":
			errs = append(errs, FieldError{field + ".type", "is required"})
		case seen[c.Type]:
			errs = append(errs, FieldError{field + ".type", fmt.Sprintf("%q appears twice: a condition type appears once", c.Type)})
		}
		seen[c.Type] = true
		switch c.Status {
		case metav1.ConditionTrue, metav1.ConditionFalse, metav1.ConditionUnknown:
		default:
			errs = append(errs, FieldError{field + ".status", fmt.Sprintf("is %q: must be True, False or Unknown", c.Status)})
		}
	}
	if len(errs) > 0 {
		return Invalid(key, errs)
	}
	return nil
}
