package hostcheck

// Part is one of Paddock's own programs that runs VMs beside the paddock
// binary, such as paddock-lima and Lima's guest agent. The caller knows
// where each belongs and looks for it; hostcheck only reports it.
type Part struct {
	Name    string // the check's name
	Path    string // where it was found; "" when it was not
	Missing string // when it was not: why, with every place looked in
	Fix     string // when it was not: how to put it in place
}

func partChecks(parts []Part) []Check {
	var out []Check
	for _, p := range parts {
		c := Check{Name: p.Name, Status: OK, Message: p.Path}
		if p.Path == "" {
			c.Status, c.Message, c.Fix = Failed, p.Missing, p.Fix
		}
		out = append(out, c)
	}
	return out
}
