module paddock.dev/paddock

go 1.26.0

require (
	github.com/gofrs/flock v0.13.2
	github.com/kardianos/service v1.3.0
	github.com/spf13/cobra v1.10.2
	golang.org/x/sys v0.49.0
)

require (
	github.com/inconshreveable/mousetrap v1.1.0 // indirect
	github.com/spf13/pflag v1.0.10 // indirect
)
