// Package image chooses the guest image the App boots and brings it onto
// the host. Choose is the rule, free of I/O: an override (the daemon's
// --image flag, else PADDOCK_APP_IMAGE), else the newest image that
// platform/linux/guestimage/build.sh left in the image cache, else the
// published Debian cloud image pinned by digest. Fetcher downloads a
// published image in the background through Lima's downloader (digest
// check, cache, a temporary file renamed into place) and says how far it
// got, so that the App's conditions can show it. Fetcher.Boot hands the
// chosen image to the App's template (platform/apptemplate) at each
// render: a built image as its template fragment names it (LoadBuilt), a
// disk once it is on the host. VMTemplate makes a built image's template
// fragment a template for a VM of its own.
package image
