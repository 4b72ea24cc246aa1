// This file writes the local PKI of the control plane: one CA, the API
// server's serving certificate, client certificates for every component and
// for the test user (system:masters), a serving certificate for the
// simulated kubelets, and the service-account signing key. Everything is
// generated on this machine; nothing is fetched.
package main

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"flag"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"time"

	"kubepkg.dev/testenv/pki"
)

// certSpec describes one certificate signed by the local CA.
type certSpec struct {
	name   string // file stem: <name>.crt, <name>.key
	cn     string
	orgs   []string
	server bool
	client bool
	dns    []string
	ips    []net.IP
}

// pkiSpecs lists every certificate the control plane uses.
func pkiSpecs() []certSpec {
	loopback := []net.IP{net.ParseIP("127.0.0.1"), net.ParseIP("::1")}
	return []certSpec{
		{name: "apiserver", cn: "kube-apiserver", server: true, ips: append([]net.IP{net.ParseIP(serviceIP)}, loopback...),
			dns: []string{"localhost", "kubernetes", "kubernetes.default", "kubernetes.default.svc", "kubernetes.default.svc.cluster.local"}},
		{name: "admin", cn: "kubepkg-admin", orgs: []string{"system:masters"}, client: true},
		{name: "controller-manager", cn: "system:kube-controller-manager", client: true},
		{name: "scheduler", cn: "system:kube-scheduler", client: true},
		// The simulator plays every kubelet at once, so it cannot use the
		// per-node identity the Node authorizer expects; it acts as an admin.
		{name: "nodesim", cn: "kubepkg-nodesim", orgs: []string{"system:masters"}, client: true},
		{name: "apiserver-kubelet-client", cn: "kube-apiserver-kubelet-client", orgs: []string{"kubeadm:cluster-admins"}, client: true},
		{name: "kubelet", cn: "kubepkg-nodesim-kubelet", server: true, ips: loopback, dns: []string{"localhost"}},
		// The real node's kubelet, as the Node authorizer expects it (its serving certificate
		// is issued at its start: issueFromCA).
		{name: "real-node", cn: "system:node:" + realNodeName, orgs: []string{"system:nodes"}, client: true},
		// Its kube-proxy: the user Kubernetes' default RBAC binds to system:node-proxier.
		{name: "kube-proxy", cn: "system:kube-proxy", client: true},
		// The aggregator's identity towards extension API servers.
		{name: "front-proxy-client", cn: "front-proxy-client", client: true},
	}
}

// serviceIP is the first address of the service range: the kubernetes Service.
const serviceIP = "10.0.0.1"

func runCerts(args []string) int {
	fs := flag.NewFlagSet("certs", flag.ContinueOnError)
	dir := fs.String("dir", "", "directory to write the PKI into (created); existing files are kept")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if *dir == "" {
		fmt.Fprintln(os.Stderr, "kpk-cluster certs: --dir is required")
		return 2
	}
	if err := ensurePKI(*dir); err != nil {
		fmt.Fprintf(os.Stderr, "kpk-cluster certs: %v\n", err)
		return 1
	}
	return 0
}

// ensurePKI writes the PKI into dir unless a complete one is already there.
func ensurePKI(dir string) error {
	if pkiComplete(dir) {
		return nil
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	ca, err := pki.NewCA("kubepkg-testenv-ca", 10*365*24*time.Hour)
	if err != nil {
		return err
	}
	if err := writePair(dir, "ca", ca); err != nil {
		return err
	}
	for _, s := range pkiSpecs() {
		if err := issue(dir, ca, s); err != nil {
			return err
		}
	}
	saKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return err
	}
	if err := pki.WriteKey(filepath.Join(dir, "sa.key"), saKey); err != nil {
		return err
	}
	pub, err := x509.MarshalPKIXPublicKey(&saKey.PublicKey)
	if err != nil {
		return err
	}
	if err := pki.WritePEM(filepath.Join(dir, "sa.pub"), "PUBLIC KEY", pub); err != nil {
		return err
	}
	// Written last: its presence marks a complete PKI.
	return os.WriteFile(filepath.Join(dir, "complete"), []byte("ok\n"), 0o600)
}

// issue writes <dir>/<s.name>.{crt,key}, a new key pair the CA signed as s says.
func issue(dir string, ca *pki.Pair, s certSpec) error {
	tmpl := pki.Template(s.cn, 5*365*24*time.Hour)
	tmpl.Subject.Organization = s.orgs
	tmpl.KeyUsage |= x509.KeyUsageKeyEncipherment
	tmpl.DNSNames = s.dns
	tmpl.IPAddresses = s.ips
	if s.server {
		tmpl.ExtKeyUsage = append(tmpl.ExtKeyUsage, x509.ExtKeyUsageServerAuth)
	}
	if s.client {
		tmpl.ExtKeyUsage = append(tmpl.ExtKeyUsage, x509.ExtKeyUsageClientAuth)
	}
	pair, err := pki.Issue(tmpl, ca)
	if err != nil {
		return fmt.Errorf("signing %s: %w", s.name, err)
	}
	return writePair(dir, s.name, pair)
}

// issueFromCA issues s with the CA already in dir (a certificate whose addresses are known only
// at start: the real node's serving certificate).
func issueFromCA(dir string, s certSpec) error {
	pair, err := tls.LoadX509KeyPair(filepath.Join(dir, "ca.crt"), filepath.Join(dir, "ca.key"))
	if err != nil {
		return err
	}
	caCert, err := x509.ParseCertificate(pair.Certificate[0])
	if err != nil {
		return err
	}
	signer, ok := pair.PrivateKey.(crypto.Signer)
	if !ok {
		return fmt.Errorf("%s: not a signing key", filepath.Join(dir, "ca.key"))
	}
	return issue(dir, &pki.Pair{DER: pair.Certificate[0], Cert: caCert, Key: signer}, s)
}

// pkiComplete says whether dir holds every file of the current PKI layout
// (a state directory from an older layout is regenerated).
func pkiComplete(dir string) bool {
	files := []string{"complete", "ca.crt", "ca.key", "sa.key", "sa.pub"}
	for _, s := range pkiSpecs() {
		files = append(files, s.name+".crt", s.name+".key")
	}
	for _, f := range files {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			return false
		}
	}
	return true
}

// writePair writes <dir>/<name>.crt and <dir>/<name>.key.
func writePair(dir, name string, p *pki.Pair) error {
	return p.Write(filepath.Join(dir, name+".crt"), filepath.Join(dir, name+".key"))
}
