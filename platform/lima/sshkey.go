package lima

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/lima-vm/lima/pkg/lockutil"
	"github.com/lima-vm/lima/pkg/store/filenames"
)

// keygenPrefix starts the names of the temporary directories in which a key
// pair is generated.
const keygenPrefix = ".paddock-keygen-"

// EnsureUserKey makes sure Lima's user key pair (LIMA_HOME/_config/user and
// user.pub) exists whole. Lima v1.2.2 generates it in place with ssh-keygen
// when the private key is missing, so a crash half way leaves a private key
// without its public half (or an empty one), which Lima never repairs.
// EnsureUserKey holds the same directory lock as Lima, removes temporaries
// of an earlier crash, regenerates a pair that is not whole in a temporary
// directory and renames the public key, then the private key, into place:
// at every instant the pair is whole, or the private key is missing and
// Lima itself would generate a new pair.
func EnsureUserKey(limaHome string) error {
	dir := filepath.Join(limaHome, filenames.ConfigDir)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	return lockutil.WithDirLock(dir, func() error {
		if err := removeKeygenTemps(dir); err != nil {
			return err
		}
		priv := filepath.Join(dir, filenames.UserPrivateKey)
		pub := filepath.Join(dir, filenames.UserPublicKey)
		if keyPairWhole(priv, pub) {
			return nil
		}
		tmp, err := os.MkdirTemp(dir, keygenPrefix)
		if err != nil {
			return err
		}
		defer os.RemoveAll(tmp)
		tmpPriv := filepath.Join(tmp, filenames.UserPrivateKey)
		// no passphrase; the comment is Lima's
		cmd := exec.Command("ssh-keygen", "-t", "ed25519", "-q", "-N", "", "-C", "lima", "-f", tmpPriv)
		if out, err := cmd.CombinedOutput(); err != nil {
			if errors.Is(err, exec.ErrNotFound) {
				return fmt.Errorf("ssh-keygen is needed to create the VM user's SSH key: install OpenSSH (Debian package openssh-client): %w", err)
			}
			return fmt.Errorf("ssh-keygen: %w: %s", err, bytes.TrimSpace(out))
		}
		for _, f := range []string{tmpPriv + ".pub", tmpPriv} {
			if err := syncFile(f); err != nil {
				return err
			}
		}
		if err := os.Rename(tmpPriv+".pub", pub); err != nil {
			return err
		}
		return os.Rename(tmpPriv, priv)
	})
}

// keyPairWhole reports whether priv is a non-empty file and pub holds a
// public key.
func keyPairWhole(priv, pub string) bool {
	st, err := os.Stat(priv)
	if err != nil || st.Size() == 0 {
		return false
	}
	b, err := os.ReadFile(pub)
	return err == nil && strings.HasPrefix(string(b), "ssh-")
}

func removeKeygenTemps(dir string) error {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), keygenPrefix) {
			if err := os.RemoveAll(filepath.Join(dir, e.Name())); err != nil && !errors.Is(err, fs.ErrNotExist) {
				return err
			}
		}
	}
	return nil
}

func syncFile(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	return f.Sync()
}
