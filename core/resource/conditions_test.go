package resource

import (
	"strings"
	"testing"
	"unicode/utf8"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func TestTruncateMessageCountsCharactersNotBytes(t *testing.T) {
	short := strings.Repeat("é", MaxConditionMessage) // 2 bytes each
	if got := TruncateMessage(short); got != short {
		t.Fatal("a message at the bound must be kept whole")
	}
	long := strings.Repeat("日", MaxConditionMessage+10)
	got := TruncateMessage(long)
	if n := utf8.RuneCountInString(got); n != MaxConditionMessage {
		t.Fatalf("truncated to %d characters, want %d", n, MaxConditionMessage)
	}
	if !utf8.ValidString(got) || !strings.HasSuffix(got, "…") {
		t.Fatal("truncation must cut between characters and mark the cut")
	}
}

func TestSetConditionStampsGenerationAndKeepsTransitionTime(t *testing.T) {
	var conds []metav1.Condition
	SetCondition(&conds, 3, metav1.Condition{Type: VMRunning, Status: metav1.ConditionFalse, Reason: ReasonStarting})
	first := conds[0].LastTransitionTime
	if conds[0].ObservedGeneration != 3 {
		t.Fatalf("observedGeneration %d, want 3", conds[0].ObservedGeneration)
	}
	if changed := SetCondition(&conds, 4, metav1.Condition{Type: VMRunning, Status: metav1.ConditionFalse, Reason: ReasonStarting, Message: "still"}); !changed {
		t.Fatal("a new message and generation are a change")
	}
	if conds[0].LastTransitionTime != first {
		t.Fatal("transition time moved without a status change")
	}
}

func TestMirrorConditionsIsSymmetric(t *testing.T) {
	child := []metav1.Condition{{Type: "Running", Status: metav1.ConditionTrue, Reason: "Started", ObservedGeneration: 9, LastTransitionTime: metav1.Now()}}
	var parent []metav1.Condition
	if !MirrorConditions(&parent, 2, child, "Running", "Created") {
		t.Fatal("mirroring a new condition is a change")
	}
	got := meta.FindStatusCondition(parent, "Running")
	if got == nil || got.ObservedGeneration != 2 || got.LastTransitionTime != child[0].LastTransitionTime {
		t.Fatalf("mirrored condition %+v: want the parent's generation and the child's transition time", got)
	}
	if meta.FindStatusCondition(parent, "Created") != nil {
		t.Fatal("a type the child lacks must not appear on the parent")
	}
	if MirrorConditions(&parent, 2, child, "Running") {
		t.Fatal("mirroring the same state again is no change")
	}
	if !MirrorConditions(&parent, 2, nil, "Running") || len(parent) != 0 {
		t.Fatalf("a condition gone from the child must go from the parent: %+v", parent)
	}
}
