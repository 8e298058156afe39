package api

import (
	"crypto/rand"
	"crypto/subtle"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"strings"

	"paddock.dev/paddock/api/wire"
	"paddock.dev/paddock/core/atomicfile"
	"paddock.dev/paddock/core/resource"
)

// ParseListen parses a --listen value. Only tcp://HOST:PORT on a loopback
// address is accepted: the API is for this machine's user alone. A port of
// 0 or none takes defaultPort, the instance's own.
func ParseListen(value string, defaultPort int) (string, error) {
	u, err := url.Parse(value)
	if err != nil || u.Scheme != "tcp" || u.Host == "" || u.Path != "" {
		return "", fmt.Errorf("invalid --listen %q: write it as tcp://127.0.0.1:PORT", value)
	}
	host, port := u.Hostname(), u.Port()
	if port == "" || port == "0" {
		port = fmt.Sprint(defaultPort)
	}
	ip := net.ParseIP(host)
	if host == "localhost" {
		ip = net.IPv4(127, 0, 0, 1)
	}
	if ip == nil || !ip.IsLoopback() {
		return "", fmt.Errorf("invalid --listen %q: the API listens on loopback addresses only (127.0.0.1 or [::1])", value)
	}
	return net.JoinHostPort(ip.String(), port), nil
}

// EnsureToken returns the bearer token stored at path, creating a random one
// readable only by the user when there is none.
func EnsureToken(path string) (string, error) {
	data, err := os.ReadFile(path)
	if err == nil {
		if tok := strings.TrimSpace(string(data)); tok != "" {
			return tok, nil
		}
	} else if !errors.Is(err, os.ErrNotExist) {
		return "", err
	}
	raw := make([]byte, 32)
	if _, err := rand.Read(raw); err != nil {
		return "", err
	}
	tok := hex.EncodeToString(raw)
	if err := atomicfile.WriteFile(path, []byte(tok+"\n"), 0o600); err != nil {
		return "", fmt.Errorf("write API token: %w", err)
	}
	return tok, nil
}

// TCPGuard protects the API on a TCP listener: a Host header that is not a
// loopback name is refused (DNS rebinding), and every request needs the
// bearer token (the scheme's name in any case, as RFC 9110 has it). A
// refused request's connection is closed, so a client without the token
// cannot hold connections open.
func TCPGuard(token string, next http.Handler) http.Handler {
	want := []byte(token)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !loopbackHost(r.Host) {
			w.Header().Set("Connection", "close")
			writeProblem(w, newProblem(resource.ReasonForbidden,
				fmt.Sprintf("host %q is refused: address the API as 127.0.0.1, [::1] or localhost", r.Host)))
			return
		}
		scheme, got, _ := strings.Cut(r.Header.Get("Authorization"), " ")
		if !strings.EqualFold(scheme, "Bearer") || subtle.ConstantTimeCompare([]byte(strings.TrimSpace(got)), want) != 1 {
			w.Header().Set("Connection", "close")
			w.Header().Set("WWW-Authenticate", `Bearer realm="paddock"`)
			writeProblem(w, newProblem(resource.ReasonUnauthorized,
				"a valid bearer token is required: send 'Authorization: Bearer TOKEN' with the token in the file that 'paddock service paths token' names"))
			return
		}
		next.ServeHTTP(w, r)
	})
}

func loopbackHost(hostport string) bool {
	host := hostport
	if h, _, err := net.SplitHostPort(hostport); err == nil {
		host = h
	}
	host = strings.Trim(host, "[]")
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

func writeProblem(w http.ResponseWriter, p *problem) {
	data, _ := json.Marshal(p.Problem)
	w.Header().Set("Content-Type", wire.ProblemType)
	w.WriteHeader(p.Status)
	w.Write(append(data, '\n'))
}
