package main

import (
	"context"
	"crypto/tls"
	"flag"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"os"
	"path/filepath"
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
	htpasswd := fs.String("htpasswd", "", "bcrypt htpasswd file: require these users")
	token := fs.Bool("token", false, "with --htpasswd: bearer tokens from our own /token endpoint instead of basic auth")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *root == "" {
		return fmt.Errorf("--root is required")
	}
	if (*tlsCert == "") != (*tlsKey == "") {
		return fmt.Errorf("--tls-cert and --tls-key go together")
	}
	if *token && *htpasswd == "" {
		return fmt.Errorf("--token needs --htpasswd")
	}
	if err := os.MkdirAll(*root, 0o755); err != nil {
		return err
	}

	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	port := ln.Addr().(*net.TCPAddr).Port
	scheme := "http"
	if *tlsCert != "" {
		scheme = "https"
	}
	base := fmt.Sprintf("%s://127.0.0.1:%d", scheme, port)

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
  addr: 127.0.0.1:%d
  secret: kpk-registry-test-secret
%s`, filepath.Join(*root, "data"), port, auth)
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

	if *tlsCert != "" {
		cert, err := tls.LoadX509KeyPair(*tlsCert, *tlsKey)
		if err != nil {
			return err
		}
		ln = tls.NewListener(ln, &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12})
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
	fmt.Printf("listening on 127.0.0.1:%d\n", port)
	go exitWithParent()
	return server.Serve(ln)
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
