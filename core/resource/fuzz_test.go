package resource

import (
	"strings"
	"testing"
)

func FuzzValidateName(f *testing.F) {
	for _, s := range []string{"dev", "a.b-c", "", "-x", "UPPER", strings.Repeat("a", 254), "日本", "a..b", "x/y", "a\x00b"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, name string) {
		for _, k := range Kinds() {
			if err := ValidateName(k, name); err != nil {
				if ReasonOf(err) != ReasonInvalid {
					t.Fatalf("rejection of %q is not Invalid: %v", name, err)
				}
				continue
			}
			if name == "" || len(name) > 253 || strings.ToLower(name) != name || strings.ContainsAny(name, "/ \x00") {
				t.Fatalf("%s accepted the name %q", k.Name, name)
			}
		}
	})
}
