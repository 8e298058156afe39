// Package archives holds the tests of Paddock's Windows zip and macOS
// archive, as far as Linux can take them: packaging/windows/zip.sh builds
// the zip for real (cross-compiled) and the test lists and inspects its
// contents; packaging/macos/archive.sh packs stand-ins of the darwin
// binaries (which need cgo and a Mac) and the test runs the archive's
// install.sh and uninstall.sh against a fake codesign on PATH; the
// PowerShell scripts, which nothing here can run, are checked for what
// Windows PowerShell would trip on, and every paddock command line of the
// scripts is parsed by the CLI itself. The package has no code of its own.
package archives
