package resource

import (
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func TestConditionCurrent(t *testing.T) {
	cases := []struct {
		observed, gen int64
		want          bool
	}{
		{3, 3, true},
		{4, 3, true},  // a status read newer than the object read
		{2, 3, false}, // set for an older spec
		{0, 3, true},  // unstamped: counts, as in kubectl wait
		{0, 1, true},
	}
	for _, c := range cases {
		if got := ConditionCurrent(&metav1.Condition{ObservedGeneration: c.observed}, c.gen); got != c.want {
			t.Errorf("observedGeneration %d at generation %d: current = %v, want %v", c.observed, c.gen, got, c.want)
		}
	}
}
