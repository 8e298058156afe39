package cli

import (
	"io"

	"github.com/spf13/cobra"
	"github.com/spf13/cobra/doc"
)

// WriteManPages writes a manual page (section 1) for paddock and each of
// its commands into dir, generated from the commands themselves, for the
// packages to ship. The date in the pages comes from SOURCE_DATE_EPOCH
// when set, so that a package build is reproducible.
func WriteManPages(dir, version string) error {
	root := newRootCmd(&cli{stdout: io.Discard, stderr: io.Discard})
	root.DisableAutoGenTag = true
	hideCompletionHelp(root)
	return doc.GenManTree(root, &doc.GenManHeader{
		Title:   "PADDOCK",
		Section: "1",
		Source:  "paddock " + version,
		Manual:  "Paddock manual",
	}, dir)
}

// hideCompletionHelp leaves cobra's "completion" commands out of the
// manual, as their help is about loading scripts the package installs.
func hideCompletionHelp(root *cobra.Command) {
	root.InitDefaultCompletionCmd()
	for _, c := range root.Commands() {
		if c.Name() == "completion" {
			c.Hidden = true
		}
	}
}
