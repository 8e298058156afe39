package cli

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"paddock.dev/paddock/app/autostart"
	"paddock.dev/paddock/core/buildinfo"
	"paddock.dev/paddock/core/instance"
	"paddock.dev/paddock/core/logging"
	"paddock.dev/paddock/platform/dockercontext"
	"paddock.dev/paddock/platform/host"
	"paddock.dev/paddock/platform/image"
	"paddock.dev/paddock/platform/lima"
	"paddock.dev/paddock/platform/service"
)

// resetStopGrace is how long a VM that outlived its daemon has to shut
// down before factory-reset kills it.
const resetStopGrace = 30 * time.Second

// lostByFactoryReset is what factory-reset loses, for the question asked
// first.
const lostByFactoryReset = "every VM and the App with their disks (every image, container and volume in them), " +
	"the database, the logs, the docker context Paddock made and the tray's start at login, " +
	"the user service, and the downloaded and built guest images unless another instance uses them"

func newFactoryResetCmd(c *cli) *cobra.Command {
	var force bool
	cmd := &cobra.Command{
		Use:   "factory-reset",
		Short: "Remove everything of this instance: its VMs and the App, database, logs, images, docker context, autostart and service",
		Long: `Remove everything of the instance from this machine, as if Paddock had never
run it: the user service if one is installed (stopped and uninstalled as
'paddock service uninstall' does), the daemon (stopped as 'paddock shutdown'
does: its VMs stop first), every VM and the App's with their disks and Lima
instances, the docker context Paddock made (one of that name that Paddock
did not make stays), the tray's start at login, the database, the logs and
the instance's socket directory. The downloaded and built guest images go
too, unless another instance on this machine goes on using them. Other
instances' files are not touched.

It prints a line for each thing it removed. A failure part-way says what
is left and exits 1; running the command again finishes the job, and with
nothing left it says so and succeeds.

On a terminal the command asks first; --force (-f) does not ask, and
without a terminal --force is required.`,
		Example: `  paddock factory-reset
  paddock --instance dev factory-reset --force`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			p, err := c.Paths()
			if err != nil {
				return err
			}
			roots, err := host.Current().Roots()
			if err != nil {
				return err
			}
			if err := c.confirm(force, "factory-reset of instance "+p.Instance, lostByFactoryReset); err != nil {
				return err
			}
			r := &resetter{c: c, cmd: cmd, t: &serviceTarget{c: c}, p: p, roots: roots}
			return r.run(cmd.Context())
		},
	}
	cmd.Flags().BoolVarP(&force, "force", "f", false, "do not ask before removing everything of the instance")
	return cmd
}

// resetter removes one instance's things, one step after another, saying
// what it removed and keeping what it could not.
type resetter struct {
	c     *cli
	cmd   *cobra.Command
	t     *serviceTarget
	p     instance.Paths
	roots instance.Roots

	removed int
	left    []string
}

func (r *resetter) say(format string, args ...any) {
	r.removed++
	fmt.Fprintf(r.c.stdout, format+"\n", args...)
}

// fail records what a step left behind, and why.
func (r *resetter) fail(what string, err error) {
	r.left = append(r.left, fmt.Sprintf("%s (%v)", what, err))
}

func (r *resetter) run(ctx context.Context) error {
	// The service first, so that its manager does not start the daemon
	// again; uninstalling stops it, and its daemon stops the VMs.
	r.uninstallService()
	stopped, err := r.c.stopDaemon(r.cmd, r.t)
	if err != nil {
		return fmt.Errorf("the daemon of instance %s still runs, so nothing more was removed: %w", r.p.Instance, err)
	}
	if stopped != "" {
		r.say("%s", stopped)
	}
	limaGone := r.removeVMs(ctx)
	r.removeDockerContext(ctx)
	r.removeAutostart()
	r.removeDir("the database and the API's token", r.p.Dir, r.roots.Data)
	r.removeDir("the logs", r.p.LogDir, r.roots.Log)
	if limaGone {
		r.removeDir("the sockets and the VMs' Lima home", r.p.ShortDir, r.roots.Short)
	} else {
		r.left = append(r.left, "the sockets and the VMs' Lima home "+r.p.ShortDir)
	}
	if err := instance.Forget(r.roots, r.p.Instance); err != nil {
		r.fail("the instance's entry in the registry "+filepath.Join(r.roots.Data, "instances.json"), err)
	}
	r.removeImages()
	// The base directories go when no instance is left in them.
	for _, d := range []string{r.roots.Data, r.roots.Log} {
		_ = os.Remove(d)
	}

	if len(r.left) > 0 {
		return fmt.Errorf("factory-reset of instance %s is not finished; left: %s. Run it again once that is fixed",
			r.p.Instance, strings.Join(r.left, "; "))
	}
	if r.removed == 0 {
		fmt.Fprintf(r.c.stdout, "nothing to remove: instance %s has nothing on this machine\n", r.p.Instance)
	}
	return nil
}

// uninstallService uninstalls the instance's service, as 'paddock service
// uninstall' does, when one is installed. A host without a service manager
// Paddock drives has none.
func (r *resetter) uninstallService() {
	if _, err := service.New(service.Spec{Instance: r.p.Instance, Scope: service.User}); err != nil {
		return
	}
	svc, err := r.t.open(r.cmd)
	if err != nil {
		r.fail("the instance's service, if one is installed", err)
		return
	}
	if !installed(svc) {
		return
	}
	done, err := uninstallService(svc)
	if err != nil {
		r.fail(fmt.Sprintf("the %s service %s", svc.Scope(), svc.Name()), err)
		return
	}
	if done != "" {
		r.say("%s", done)
	}
}

// removeVMs stops whatever VM of the instance still runs (one whose host
// agent outlived a daemon) and deletes every Lima instance under the
// instance's Lima home, so that nothing runs from the files removed next
// and, on Windows, the WSL distributions go too. It reports whether the
// Lima home may go.
func (r *resetter) removeVMs(ctx context.Context) bool {
	if _, err := os.Stat(r.p.LimaHome); errors.Is(err, os.ErrNotExist) {
		return true
	}
	level, err := logging.ParseLevel(r.c.logLevel)
	if err != nil {
		r.fail("the VMs", err)
		return false
	}
	if level == slog.LevelInfo {
		// Lima says what it removes file by file: noise beside this
		// command's own lines, shown from --log-level debug.
		level = slog.LevelWarn
	}
	log := logging.New(r.c.stderr, level)
	exe, err := buildinfo.Executable()
	if err != nil {
		r.fail("the VMs", err)
		return false
	}
	d := &lima.Driver{LimaHome: r.p.LimaHome, Executable: exe, Logger: log}
	names, err := d.List()
	if err != nil {
		r.fail("the VMs in "+r.p.LimaHome, err)
		return false
	}
	if err := d.StopAll(ctx, names, resetStopGrace); err != nil {
		r.fail("the VMs "+strings.Join(names, ", ")+", running", err)
		return false
	}
	ok := true
	for _, n := range names {
		if err := d.Delete(ctx, n); err != nil {
			r.fail("the VM "+n, err)
			ok = false
			continue
		}
		r.say("removed the VM %s and its disk", n)
	}
	return ok
}

// removeDockerContext removes the docker context the daemon made for the
// instance, giving back the context it replaced as current.
func (r *resetter) removeDockerContext(ctx context.Context) {
	dc := dockercontext.ForInstance(r.p, host.Current().DockerEndpoint(r.p))
	found, err := dc.RemoveOwn(ctx)
	switch {
	case err != nil:
		r.fail("the docker context "+dc.Name, err)
	case found == dockercontext.Removed:
		r.say("removed the docker context %s", dc.Name)
	case found == dockercontext.Foreign:
		fmt.Fprintf(r.c.stdout, "kept the docker context %s: Paddock did not make it\n", dc.Name)
	}
}

func (r *resetter) removeAutostart() {
	exe, err := buildinfo.Executable()
	if err != nil {
		r.fail("the tray's start at login", err)
		return
	}
	where, removed, err := autostart.Remove(autostart.Entry{Executable: exe, Instance: r.p.Instance})
	switch {
	case err != nil:
		r.fail("the tray's start at login "+where, err)
	case removed:
		r.say("removed the tray's start at login %s", where)
	}
}

// removeImages removes the guest image caches, which every instance
// shares, when no other instance is left on this machine. A cache
// $PADDOCK_IMAGE_CACHE names is the user's own directory, and stays.
func (r *resetter) removeImages() {
	downloads, err := image.DownloadCache()
	if err != nil {
		r.fail("the guest images", err)
		return
	}
	cacheRoot := filepath.Dir(downloads)
	caches := []struct{ what, dir string }{{"the downloaded guest images", downloads}}
	if own := os.Getenv(image.EnvImageCache); own != "" {
		if _, err := os.Stat(own); err == nil {
			fmt.Fprintf(r.c.stdout, "kept the built guest images %s: PADDOCK_IMAGE_CACHE names it, a directory of your own\n", own)
		}
	} else {
		built, err := image.BuiltCache()
		if err != nil {
			r.fail("the guest images", err)
			return
		}
		caches = append(caches, struct{ what, dir string }{"the built guest images", built})
	}
	others, err := instance.List(r.roots)
	if err != nil {
		r.fail("the guest images in "+cacheRoot, err)
		return
	}
	others = slices.DeleteFunc(others, func(n string) bool { return n == r.p.Instance })
	for _, cache := range caches {
		if len(others) > 0 {
			if _, err := os.Stat(cache.dir); err == nil {
				fmt.Fprintf(r.c.stdout, "kept %s %s: instance %s uses them too\n", cache.what, cache.dir, strings.Join(others, ", "))
			}
			continue
		}
		r.removeDir(cache.what, cache.dir, cacheRoot)
	}
	_ = os.Remove(cacheRoot) // when nothing else is in it
}

// removeDir removes dir, which must be a directory directly in parent:
// never a base directory itself, nor anything outside one.
func (r *resetter) removeDir(what, dir, parent string) {
	if err := ownDir(dir, parent); err != nil {
		r.fail(what+" "+dir, err)
		return
	}
	if _, err := os.Lstat(dir); errors.Is(err, os.ErrNotExist) {
		return
	}
	if err := os.RemoveAll(dir); err != nil {
		r.fail(what+" "+dir, err)
		return
	}
	r.say("removed %s %s", what, dir)
}

// ownDir checks that dir is an absolute path directly inside parent, an
// absolute path too.
func ownDir(dir, parent string) error {
	if dir == "" || parent == "" || !filepath.IsAbs(dir) || !filepath.IsAbs(parent) {
		return fmt.Errorf("refusing to remove %q: it is not an absolute path inside %q", dir, parent)
	}
	clean, base := filepath.Clean(dir), filepath.Clean(parent)
	if filepath.Dir(clean) != base || clean == base {
		return fmt.Errorf("refusing to remove %s: it is not a directory of its own in %s", dir, parent)
	}
	return nil
}
