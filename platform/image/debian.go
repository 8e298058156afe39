package image

import "github.com/opencontainers/go-digest"

// published are Debian 12 (bookworm) genericcloud images of the dated
// release 20251006-2257, by Go architecture, with the SHA-512 sums Debian
// publishes beside them (SHA512SUMS in the release's directory; Lima
// v1.2.2's templates/_images/debian-12.yaml pins the same files). Dated
// releases are removed from cloud.debian.org after some months: moving to a
// newer one means copying its URL and sum from there. The project's own
// build machines cannot reach that host, so these values are taken from
// Debian's published sums, not from a download made here.
var published = map[string]Source{
	"amd64": {
		Disk:   "https://cloud.debian.org/images/cloud/bookworm/20251006-2257/debian-12-genericcloud-amd64-20251006-2257.qcow2",
		Digest: digest.Digest("sha512:97000cb3d98ec7c5d40ba8764271cc903a1697f821ea7c7c52b6474151da425d31052fa7026396de84b6ef2671b1a6a8f2c12960c70c9afe34adf642d259b683"),
		Arch:   "x86_64",
	},
	"arm64": {
		Disk:   "https://cloud.debian.org/images/cloud/bookworm/20251006-2257/debian-12-genericcloud-arm64-20251006-2257.qcow2",
		Digest: digest.Digest("sha512:1a64d8f2f1489560a38224c441b73ac29d159c29481eb54dd41c35f07e7a74758281e91e77329642443ef7b8361fd2ba2d7412a201374e26bd5b619a8735cc63"),
		Arch:   "aarch64",
	},
}
