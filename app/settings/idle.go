package settings

import (
	"slices"

	"paddock.dev/paddock/core/resource"
)

// idleOff is the choice that never suspends the App.
const idleOff = "Off"

// idleChoices are the idle times the window offers for spec.suspendWhenIdle.
var idleChoices = []string{idleOff, "5m", "15m", "30m", "1h"}

// idleChoice is the choice that shows the spec's suspendWhenIdle: Off when
// it is off, the choice of the same duration when there is one, else the
// spec's own words (set elsewhere, such as 10s with 'paddock set').
func idleChoice(spec resource.AppSpec) string {
	d := spec.IdleTimeout()
	if d == 0 {
		return idleOff
	}
	for _, c := range idleChoices[1:] {
		if cd, _ := resource.ParseSuspendWhenIdle(c); cd == d {
			return c
		}
	}
	return spec.SuspendWhenIdle
}

// idleOptions are the choices, with the spec's own value when no choice
// says it.
func idleOptions(spec resource.AppSpec) []string {
	if c := idleChoice(spec); !slices.Contains(idleChoices, c) {
		return append(slices.Clone(idleChoices), c)
	}
	return idleChoices
}

// idleValue is spec.suspendWhenIdle for choice c: "0" for Off.
func idleValue(c string) string {
	if c == idleOff {
		return "0"
	}
	return c
}
