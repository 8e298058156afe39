package limaexec

import (
	"testing"

	"github.com/lima-vm/lima/pkg/limayaml"
	limastore "github.com/lima-vm/lima/pkg/store"
)

func TestWithoutGuestAgentLeavesTheInstance(t *testing.T) {
	osName, arch, plain := limayaml.LINUX, limayaml.X8664, false
	inst := &limastore.Instance{Config: &limayaml.LimaYAML{OS: &osName, Arch: &arch, Plain: &plain}}
	if cp := withoutGuestAgent(inst); !*cp.Config.Plain || *inst.Config.Plain {
		t.Errorf("copy plain %v, original plain %v; want true and false", *cp.Config.Plain, *inst.Config.Plain)
	}
}
