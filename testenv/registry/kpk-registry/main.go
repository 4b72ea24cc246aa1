// Command kpk-registry is kubepkg's test OCI registry: the CNCF distribution
// registry (github.com/distribution/distribution/v3) run in-process on a
// loopback port, plus the helpers its tests need. Test tooling only, never
// part of the product.
//
//	kpk-registry serve --root DIR [--addr IP] [--port-file F]
//	                   [--tls-cert C --tls-key K [--client-ca CA]]
//	                   [--htpasswd FILE [--token]]
//	kpk-registry htpasswd USER PASSWORD      one bcrypt line on stdout
//	kpk-registry certs DIR [IP...]           ca.pem, server.pem, server-key.pem,
//	                                         client.pem, client-key.pem
//	kpk-registry image --registry HOST:PORT --name REPO:TAG [--file SRC=DST]...
//	                                         an image from this machine's files, pushed (image.go)
//
// serve listens on --addr (default 127.0.0.1) port 0 and prints "listening on
// IP:PORT" (and writes PORT to --port-file) once it accepts connections. The
// TLS settings are the registry configuration's http.tls (certificate, key,
// clientcas), applied as the distribution registry applies them: with
// --client-ca, every connection must present a client certificate that CA
// signed (http.tls.clientcas, whose default clientauth is
// require-and-verify-client-cert). With
// --htpasswd it asks for basic auth; with --token as well, it asks for a
// bearer token instead (401 + WWW-Authenticate: Bearer realm=".../token"),
// which its own token endpoint issues to the users of the htpasswd file.
// It exits when its parent process goes away, so a killed test leaves no
// registry behind.
package main

import (
	"fmt"
	"os"
)

func main() {
	if len(os.Args) < 2 {
		usage()
	}
	var err error
	switch os.Args[1] {
	case "serve":
		err = serve(os.Args[2:])
	case "htpasswd":
		if len(os.Args) != 4 {
			usage()
		}
		err = htpasswdLine(os.Args[2], os.Args[3])
	case "image":
		err = image(os.Args[2:])
	case "certs":
		if len(os.Args) < 3 {
			usage()
		}
		err = writeCerts(os.Args[2], os.Args[3:])
	default:
		usage()
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "kpk-registry %s: %v\n", os.Args[1], err)
		os.Exit(1)
	}
}

func usage() {
	fmt.Fprintln(os.Stderr, "usage: kpk-registry serve --root DIR [--addr IP] [--port-file F] [--tls-cert C --tls-key K [--client-ca CA]] [--htpasswd FILE [--token]]")
	fmt.Fprintln(os.Stderr, "       kpk-registry htpasswd USER PASSWORD")
	fmt.Fprintln(os.Stderr, "       kpk-registry certs DIR [IP...]")
	fmt.Fprintln(os.Stderr, "       kpk-registry image --registry HOST:PORT --name REPO:TAG [--file SRC=DST]... [--applets DST] [--dir DST]... [--entrypoint ARG]... [--cmd ARG]... [--env K=V]...")
	os.Exit(2)
}
