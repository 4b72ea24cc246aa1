package main

import (
	"crypto/x509"
	"net"
	"os"
	"path/filepath"
	"time"

	"kubepkg.dev/testenv/pki"
)

// writeCerts makes a throw-away CA (ca.pem), a serving certificate for
// 127.0.0.1, localhost and the extra addresses ips signed by it (server.pem,
// server-key.pem), and a client certificate signed by it for registries that
// require one (client.pem, client-key.pem) in dir.
func writeCerts(dir string, ips []string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	const lifetime = 7 * 24 * time.Hour
	ca, err := pki.NewCA("kpk-registry test CA", lifetime)
	if err != nil {
		return err
	}
	serverTmpl := pki.Template("127.0.0.1", lifetime)
	serverTmpl.ExtKeyUsage = []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}
	serverTmpl.IPAddresses = []net.IP{net.ParseIP("127.0.0.1")}
	serverTmpl.DNSNames = []string{"localhost"}
	for _, s := range ips {
		ip := net.ParseIP(s)
		if ip == nil {
			return &net.ParseError{Type: "IP address", Text: s}
		}
		serverTmpl.IPAddresses = append(serverTmpl.IPAddresses, ip)
	}
	server, err := pki.Issue(serverTmpl, ca)
	if err != nil {
		return err
	}
	clientTmpl := pki.Template("kpk-registry test client", lifetime)
	clientTmpl.ExtKeyUsage = []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}
	client, err := pki.Issue(clientTmpl, ca)
	if err != nil {
		return err
	}
	if err := pki.WritePEM(filepath.Join(dir, "ca.pem"), "CERTIFICATE", ca.DER); err != nil {
		return err
	}
	if err := server.Write(filepath.Join(dir, "server.pem"), filepath.Join(dir, "server-key.pem")); err != nil {
		return err
	}
	return client.Write(filepath.Join(dir, "client.pem"), filepath.Join(dir, "client-key.pem"))
}
