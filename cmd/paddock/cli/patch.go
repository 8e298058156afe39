package cli

import (
	"encoding/json"

	"github.com/spf13/cobra"
)

func newPatchCmd(c *cli) *cobra.Command {
	var sc scope
	var patchType, patch, subresource, output string
	cmd := &cobra.Command{
		Use:   "patch KIND NAME --type merge -p PATCH",
		Short: "Change fields of an object with a JSON merge patch",
		Long: `Change fields of an object with a JSON merge patch (RFC 7386): the fields
the patch names are set, null removes one, the rest stay. Put
metadata.resourceVersion in the patch to apply it only to that revision.
--subresource status patches the status instead of the spec.`,
		Example: `  paddock patch vm dev --type merge -p '{"spec":{"running":true}}'
  paddock patch configmap/demo -p '{"data":{"old":null}}'`,
		Args:              rangeArgs(1, 2),
		ValidArgsFunction: completeKinds,
		RunE: func(cmd *cobra.Command, args []string) error {
			if patch == "" {
				return usageError("give the patch with -p, e.g. -p '{\"spec\":{\"running\":true}}'")
			}
			if patchType != "merge" {
				return usageError("unsupported patch type %q: only merge (RFC 7386) is supported", patchType)
			}
			if subresource != "" && subresource != "status" {
				return usageError("unknown subresource %q: only status is supported", subresource)
			}
			if err := checkOutput(output); err != nil {
				return err
			}
			if !json.Valid([]byte(patch)) {
				return usageError("the patch is not valid JSON: %s", patch)
			}
			k, name, err := kindNameArg(args)
			if err != nil {
				return err
			}
			cl, err := c.Client(cmd.Context())
			if err != nil {
				return err
			}
			write := cl.Patch
			if subresource == "status" {
				write = cl.PatchStatus
			}
			obj, err := write(cmd.Context(), k, sc.ns(k), name, []byte(patch))
			if err != nil {
				return err
			}
			if output == "table" {
				output = "name"
			}
			return newPrinter(c.stdout, output, k, false).one(obj)
		},
	}
	sc.addFlags(cmd, false)
	cmd.Flags().StringVar(&patchType, "type", "merge", "patch type: merge")
	cmd.Flags().StringVarP(&patch, "patch", "p", "", "the patch, as JSON")
	cmd.Flags().StringVar(&subresource, "subresource", "", "patch the status subresource")
	cmd.Flags().StringVarP(&output, "output", "o", "name", "output format: "+outputFormats)
	return cmd
}
