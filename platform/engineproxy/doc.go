// Package engineproxy serves the App's engine sockets on the host, in
// front of the sockets that Lima forwards from the guest: the daemon owns
// the endpoints the docker CLI, ctr and every other client connect to.
// Proxy serves Docker's, reading its requests; Stream serves containerd's
// as a byte stream, since nothing in its gRPC needs reading.
//
// Every Docker request passes through net/http/httputil.ReverseProxy
// unchanged: responses are flushed as they come (logs -f, events, a
// build's progress), and an HTTP upgrade (101: attach, exec, BuildKit's
// /session and /grpc) becomes a two-way byte stream that keeps half
// closes, so that the end of a client's input does not cut its output.
// Connections to the engine are kept alive and reused, as a client's own
// would be.
//
// A socket is the proxy's while it serves: removed or replaced by
// something else (the host agent of a VM that an older Paddock made, whose
// forward ended on the same path), it is made again within seconds.
//
// Being in the middle of Docker's lets the daemon do three things Lima's
// forward cannot:
//
//   - refuse a container create whose bind mount names a folder of this
//     host that the App's VM does not share (the container would get an
//     empty folder of the VM instead), with a Docker error (400,
//     {"message": ...}) that names the path and the setting that shares it
//     (BindRefusal);
//   - wake the App: when the engine does not answer, an optional Wake
//     function is called before the engine is dialed again; without one,
//     or when waking fails, the client gets a Docker error (503) that says
//     the App is not running and how to start it;
//   - count the clients: Activity says how many connections are open and
//     when the last one opened, closed or sent a request, for an idle
//     detector.
//
// Stream wakes the App and counts the clients the same way; a client whose
// engine cannot be reached or woken is disconnected (gRPC's Unavailable).
// A client that waits for a wake can be greeted first (Preface), for
// clients that give up on a server that says nothing.
//
// The engine's own paths stay the engine's: a bind of the VM's system
// paths (/var/run/docker.sock, /proc, /sys, /dev, /run, /etc,
// /var/lib/docker, /lib/modules, ...) is the VM's, as on any Docker host,
// and a source that does not exist on this host is left for the engine
// to judge.
package engineproxy
