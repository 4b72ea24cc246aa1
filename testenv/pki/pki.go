// Package pki makes the throw-away certificates of kubepkg's test tooling (the local control
// plane's PKI, the test registry's TLS): P-256 keys, certificates valid from an hour ago, signed
// by a CA made on this machine, and PEM files that Go, rustls and OpenSSL all read.
package pki

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"math/big"
	"os"
	"time"
)

// Pair is a certificate and its private key.
type Pair struct {
	DER  []byte
	Cert *x509.Certificate
	Key  crypto.Signer
}

// Template is a certificate for cn, valid from an hour ago for lifetime, with a random serial
// and the digital signature key usage; the caller adds the rest (extended key usages, names).
func Template(cn string, lifetime time.Duration) *x509.Certificate {
	now := time.Now().Add(-time.Hour)
	return &x509.Certificate{
		SerialNumber: serial(),
		Subject:      pkix.Name{CommonName: cn},
		NotBefore:    now,
		NotAfter:     now.Add(lifetime),
		KeyUsage:     x509.KeyUsageDigitalSignature,
	}
}

// NewCA makes a self-signed CA named cn, valid for lifetime.
func NewCA(cn string, lifetime time.Duration) (*Pair, error) {
	tmpl := Template(cn, lifetime)
	tmpl.IsCA = true
	tmpl.BasicConstraintsValid = true
	tmpl.KeyUsage |= x509.KeyUsageCertSign
	return Issue(tmpl, nil)
}

// Issue makes a new P-256 key and its certificate as tmpl says, signed by ca (by the new key
// itself when ca is nil).
func Issue(tmpl *x509.Certificate, ca *Pair) (*Pair, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, err
	}
	parent, signer := tmpl, crypto.Signer(key)
	if ca != nil {
		parent, signer = ca.Cert, ca.Key
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, parent, key.Public(), signer)
	if err != nil {
		return nil, err
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		return nil, err
	}
	return &Pair{DER: der, Cert: cert, Key: key}, nil
}

// Write writes the certificate to certPath and its key to keyPath (WriteKey).
func (p *Pair) Write(certPath, keyPath string) error {
	if err := WritePEM(certPath, "CERTIFICATE", p.DER); err != nil {
		return err
	}
	return WriteKey(keyPath, p.Key)
}

// WriteKey stores a private key as PKCS#8.
func WriteKey(path string, key crypto.Signer) error {
	der, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		return err
	}
	return WritePEM(path, "PRIVATE KEY", der)
}

// WritePEM writes der as one PEM block of type typ, readable by its owner only.
func WritePEM(path, typ string, der []byte) error {
	data := pem.EncodeToMemory(&pem.Block{Type: typ, Bytes: der})
	if data == nil {
		return errors.New("cannot encode " + path)
	}
	return os.WriteFile(path, data, 0o600)
}

func serial() *big.Int {
	n, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 120))
	if err != nil {
		panic(err) // crypto/rand never fails on Linux
	}
	return n
}
