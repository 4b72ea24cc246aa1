package main

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"flag"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/distribution/distribution/v3/configuration"
	"github.com/distribution/distribution/v3/registry/handlers"
	"github.com/sirupsen/logrus"

	_ "github.com/distribution/distribution/v3/registry/auth/htpasswd"
	_ "github.com/distribution/distribution/v3/registry/auth/token"
	_ "github.com/distribution/distribution/v3/registry/storage/driver/filesystem"
)

// The service name and issuer of the token flow; the registry checks both in each token.
const (
	tokenService = "kpk-registry"
	tokenIssuer  = "kpk-registry-token"
)

func serve(args []string) error {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	root := fs.String("root", "", "storage directory (required)")
	portFile := fs.String("port-file", "", "file to write the chosen port to")
	tlsCert := fs.String("tls-cert", "", "PEM serving certificate")
	tlsKey := fs.String("tls-key", "", "PEM key of --tls-cert")
	clientCA := fs.String("client-ca", "", "with --tls-cert: require client certificates signed by this PEM CA (http.tls.clientcas)")
	addr := fs.String("addr", "127.0.0.1", "the IP address to listen on")
	htpasswd := fs.String("htpasswd", "", "bcrypt htpasswd file: require these users")
	token := fs.Bool("token", false, "with --htpasswd: bearer tokens from our own /token endpoint instead of basic auth")
	listenPort := fs.Int("port", 0, "the port to listen on (0: a free one)")
	detached := fs.Bool("detached", false, "keep serving when the parent process exits (a component of the local plane, stopped by its down)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *root == "" {
		return fmt.Errorf("--root is required")
	}
	if (*tlsCert == "") != (*tlsKey == "") {
		return fmt.Errorf("--tls-cert and --tls-key go together")
	}
	if *clientCA != "" && *tlsCert == "" {
		return fmt.Errorf("--client-ca needs --tls-cert")
	}
	ip := net.ParseIP(*addr)
	if ip == nil {
		return fmt.Errorf("--addr %q is not an IP address", *addr)
	}
	if *token && *htpasswd == "" {
		return fmt.Errorf("--token needs --htpasswd")
	}
	if err := os.MkdirAll(*root, 0o755); err != nil {
		return err
	}

	ln, err := net.Listen("tcp", net.JoinHostPort(ip.String(), strconv.Itoa(*listenPort)))
	if err != nil {
		return err
	}
	hostPort := ln.Addr().String()
	port := ln.Addr().(*net.TCPAddr).Port
	scheme := "http"
	tlsConfig := ""
	if *tlsCert != "" {
		scheme = "https"
		tlsConfig = fmt.Sprintf("  tls:\n    certificate: %q\n    key: %q\n", *tlsCert, *tlsKey)
		if *clientCA != "" {
			tlsConfig += fmt.Sprintf("    clientcas: [%q]\n", *clientCA)
		}
	}
	base := fmt.Sprintf("%s://%s", scheme, hostPort)

	var auth string
	var issuer *tokenIssuerKey
	switch {
	case *token:
		issuer, err = newTokenIssuer(filepath.Join(*root, "jwks.json"))
		if err != nil {
			return err
		}
		auth = fmt.Sprintf(`auth:
  token:
    realm: %q
    service: %q
    issuer: %q
    jwks: %q
    signingalgorithms: [ES256]
`, base+"/token", tokenService, tokenIssuer, filepath.Join(*root, "jwks.json"))
	case *htpasswd != "":
		auth = fmt.Sprintf("auth:\n  htpasswd:\n    realm: kpk-registry\n    path: %q\n", *htpasswd)
	}
	yaml := fmt.Sprintf(`version: 0.1
log:
  level: info
  accesslog:
    disabled: false
storage:
  filesystem:
    rootdirectory: %q
  delete:
    enabled: true
  maintenance:
    uploadpurging:
      enabled: false
http:
  addr: %s
  secret: kpk-registry-test-secret
%s%s`, filepath.Join(*root, "data"), hostPort, tlsConfig, auth)
	config, err := configuration.Parse(strings.NewReader(yaml))
	if err != nil {
		return fmt.Errorf("registry configuration: %w", err)
	}

	logFile, err := os.OpenFile(filepath.Join(*root, "registry.log"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	logrus.SetOutput(logFile)
	logrus.SetFormatter(&logrus.TextFormatter{DisableColors: true})

	app := handlers.NewApp(context.Background(), config)
	mux := http.NewServeMux()
	if issuer != nil {
		users, err := readHtpasswd(*htpasswd)
		if err != nil {
			return err
		}
		mux.Handle("/token", issuer.handler(users))
	}
	mux.Handle("/", app)
	server := &http.Server{
		Handler:           logRequests(logFile, mux),
		ReadHeaderTimeout: 30 * time.Second,
		ErrorLog:          log.New(logFile, "kpk-registry http: ", log.LstdFlags),
	}

	if config.HTTP.TLS.Certificate != "" {
		tlsConf, err := serverTLS(config)
		if err != nil {
			return err
		}
		ln = tls.NewListener(ln, tlsConf)
	}

	if *portFile != "" {
		tmp := *portFile + ".tmp"
		if err := os.WriteFile(tmp, []byte(fmt.Sprintf("%d\n", port)), 0o644); err != nil {
			return err
		}
		if err := os.Rename(tmp, *portFile); err != nil {
			return err
		}
	}
	fmt.Printf("listening on %s\n", hostPort)
	if !*detached {
		go exitWithParent()
	}
	return server.Serve(ln)
}

// serverTLS is the listener's TLS configuration from the registry configuration's http.tls, as
// the distribution registry's ListenAndServe builds it (registry/registry.go): the serving
// certificate, and with clientcas a pool of those CAs and, clientauth unset, Go's
// RequireAndVerifyClientCert.
func serverTLS(config *configuration.Configuration) (*tls.Config, error) {
	t := config.HTTP.TLS
	cert, err := tls.LoadX509KeyPair(t.Certificate, t.Key)
	if err != nil {
		return nil, err
	}
	conf := &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12, ClientAuth: tls.NoClientCert}
	if len(t.ClientCAs) != 0 {
		pool := x509.NewCertPool()
		for _, ca := range t.ClientCAs {
			pemBytes, err := os.ReadFile(ca)
			if err != nil {
				return nil, err
			}
			if !pool.AppendCertsFromPEM(pemBytes) {
				return nil, fmt.Errorf("http.tls.clientcas: no certificate in %s", ca)
			}
		}
		conf.ClientCAs = pool
		conf.ClientAuth = tls.RequireAndVerifyClientCert
	}
	return conf, nil
}

// exitWithParent ends the process once its parent is gone (it is re-parented), so a test
// binary that dies without stopping its registry leaves none running.
func exitWithParent() {
	parent := os.Getppid()
	for {
		time.Sleep(300 * time.Millisecond)
		if os.Getppid() != parent {
			os.Exit(0)
		}
	}
}

func logRequests(w io.Writer, next http.Handler) http.Handler {
	return http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, "kpk-registry: %s %s auth=%t\n", r.Method, r.URL.RequestURI(), r.Header.Get("Authorization") != "")
		next.ServeHTTP(rw, r)
	})
}
