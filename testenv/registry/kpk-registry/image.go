package main

// image assembles an OCI image from files of this machine and pushes it to a registry over
// plain HTTP: the images the real node's pods run (kpk/busybox, kpk/pause) are built here and
// never pulled from outside.
//
//	kpk-registry image --registry HOST:PORT --name REPO:TAG
//	                   [--file SRC=DST]... [--applets DST] [--dir DST]...
//	                   [--entrypoint ARG]... [--cmd ARG]... [--env K=V]...
//
// --file copies SRC (its mode kept) to DST; --applets DST adds a symbolic link to DST for each
// applet `DST --list` names (DST must be one of the --file targets, a busybox binary), under
// /bin; --dir adds an empty directory. The image has one gzip layer, fixed timestamps (the same
// files give the same digest) and the platform linux/amd64. Prints the pushed reference with
// its digest.

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path"
	"runtime"
	"sort"
	"strings"
	"time"
)

type multiFlag []string

func (m *multiFlag) String() string     { return strings.Join(*m, ",") }
func (m *multiFlag) Set(v string) error { *m = append(*m, v); return nil }

// imageFile is one regular file of the layer.
type imageFile struct {
	src, dst string
}

func image(args []string) error {
	fs := flag.NewFlagSet("image", flag.ContinueOnError)
	registry := fs.String("registry", "", "HOST:PORT of the registry (plain HTTP)")
	name := fs.String("name", "", "REPO:TAG to push")
	applets := fs.String("applets", "", "busybox path inside the image: link each of its applets under /bin")
	var files, dirs, entrypoint, cmd, env multiFlag
	fs.Var(&files, "file", "SRC=DST: a file of this machine at DST in the image (repeatable)")
	fs.Var(&dirs, "dir", "an empty directory in the image (repeatable)")
	fs.Var(&entrypoint, "entrypoint", "one argument of the entrypoint (repeatable)")
	fs.Var(&cmd, "cmd", "one argument of the command (repeatable)")
	fs.Var(&env, "env", "K=V in the image's environment (repeatable)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	repo, tag, ok := strings.Cut(*name, ":")
	if *registry == "" || !ok || repo == "" || tag == "" {
		return fmt.Errorf("--registry HOST:PORT and --name REPO:TAG are required")
	}
	var layerFiles []imageFile
	for _, f := range files {
		src, dst, ok := strings.Cut(f, "=")
		if !ok || !path.IsAbs(dst) {
			return fmt.Errorf("--file %q: want SRC=/ABSOLUTE/DST", f)
		}
		layerFiles = append(layerFiles, imageFile{src: src, dst: path.Clean(dst)})
	}
	links := map[string]string{}
	if *applets != "" {
		var host string
		for _, f := range layerFiles {
			if f.dst == path.Clean(*applets) {
				host = f.src
			}
		}
		if host == "" {
			return fmt.Errorf("--applets %s: no --file puts a binary there", *applets)
		}
		out, err := exec.Command(host, "--list").Output()
		if err != nil {
			return fmt.Errorf("%s --list: %w", host, err)
		}
		for _, applet := range strings.Fields(string(out)) {
			if link := path.Join("/bin", applet); link != path.Clean(*applets) && !strings.Contains(applet, "/") {
				links[link] = path.Clean(*applets)
			}
		}
	}
	layer, diffID, err := buildLayer(layerFiles, links, dirs)
	if err != nil {
		return err
	}
	if len(env) == 0 {
		env = multiFlag{"PATH=/bin:/usr/bin:/sbin:/usr/sbin"}
	}
	config, err := json.Marshal(map[string]any{
		"architecture": runtime.GOARCH,
		"os":           "linux",
		"created":      time.Unix(0, 0).UTC().Format(time.RFC3339),
		"config": map[string]any{
			"Env":        []string(env),
			"Entrypoint": nonEmpty(entrypoint),
			"Cmd":        nonEmpty(cmd),
		},
		"rootfs": map[string]any{"type": "layers", "diff_ids": []string{diffID}},
	})
	if err != nil {
		return err
	}
	base := "http://" + *registry + "/v2/" + repo
	layerDigest, err := pushBlob(base, layer)
	if err != nil {
		return fmt.Errorf("pushing the layer of %s: %w", *name, err)
	}
	configDigest, err := pushBlob(base, config)
	if err != nil {
		return fmt.Errorf("pushing the config of %s: %w", *name, err)
	}
	manifest, err := json.Marshal(map[string]any{
		"schemaVersion": 2,
		"mediaType":     "application/vnd.oci.image.manifest.v1+json",
		"config":        map[string]any{"mediaType": "application/vnd.oci.image.config.v1+json", "digest": configDigest, "size": len(config)},
		"layers":        []any{map[string]any{"mediaType": "application/vnd.oci.image.layer.v1.tar+gzip", "digest": layerDigest, "size": len(layer)}},
	})
	if err != nil {
		return err
	}
	req, err := http.NewRequest(http.MethodPut, base+"/manifests/"+tag, bytes.NewReader(manifest))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/vnd.oci.image.manifest.v1+json")
	if err := expectStatus(http.DefaultClient.Do(req)); err != nil {
		return fmt.Errorf("pushing the manifest of %s: %w", *name, err)
	}
	fmt.Printf("%s/%s@%s\n", *registry, *name, digestOf(manifest))
	return nil
}

func nonEmpty(args multiFlag) []string {
	if len(args) == 0 {
		return nil
	}
	return args
}

func digestOf(data []byte) string {
	sum := sha256.Sum256(data)
	return "sha256:" + hex.EncodeToString(sum[:])
}

// buildLayer writes the gzip tar of the files, links and directories (each parent directory
// first, every timestamp the epoch) and returns it with the digest of the uncompressed tar.
func buildLayer(files []imageFile, links map[string]string, dirs []string) ([]byte, string, error) {
	entries := map[string]func(*tar.Writer) error{}
	addDirs := func(p string) {
		for d := path.Dir(p); d != "/" && d != "."; d = path.Dir(d) {
			dir := d
			if _, ok := entries[dir]; !ok {
				entries[dir] = func(tw *tar.Writer) error {
					mode := int64(0o755)
					if dir == "/tmp" {
						mode = 0o1777
					}
					return tw.WriteHeader(&tar.Header{Typeflag: tar.TypeDir, Name: strings.TrimPrefix(dir, "/") + "/", Mode: mode, ModTime: time.Unix(0, 0)})
				}
			}
		}
	}
	for _, d := range append([]string{"/tmp", "/etc", "/proc", "/sys", "/dev", "/var/run"}, dirs...) {
		addDirs(path.Join(path.Clean(d), "x"))
	}
	for _, f := range files {
		f := f
		addDirs(f.dst)
		entries[f.dst] = func(tw *tar.Writer) error {
			data, err := os.ReadFile(f.src)
			if err != nil {
				return err
			}
			info, err := os.Stat(f.src)
			if err != nil {
				return err
			}
			hdr := &tar.Header{Typeflag: tar.TypeReg, Name: strings.TrimPrefix(f.dst, "/"), Mode: int64(info.Mode().Perm()), Size: int64(len(data)), ModTime: time.Unix(0, 0)}
			if err := tw.WriteHeader(hdr); err != nil {
				return err
			}
			_, err = tw.Write(data)
			return err
		}
	}
	for link, target := range links {
		link, target := link, target
		if _, taken := entries[link]; taken {
			continue
		}
		addDirs(link)
		entries[link] = func(tw *tar.Writer) error {
			return tw.WriteHeader(&tar.Header{Typeflag: tar.TypeSymlink, Name: strings.TrimPrefix(link, "/"), Linkname: target, Mode: 0o777, ModTime: time.Unix(0, 0)})
		}
	}
	names := make([]string, 0, len(entries))
	for n := range entries {
		names = append(names, n)
	}
	// Sorted paths put every directory before what it holds.
	sort.Strings(names)
	var raw bytes.Buffer
	tw := tar.NewWriter(&raw)
	for _, n := range names {
		if err := entries[n](tw); err != nil {
			return nil, "", err
		}
	}
	if err := tw.Close(); err != nil {
		return nil, "", err
	}
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	if _, err := zw.Write(raw.Bytes()); err != nil {
		return nil, "", err
	}
	if err := zw.Close(); err != nil {
		return nil, "", err
	}
	return gz.Bytes(), digestOf(raw.Bytes()), nil
}

// pushBlob uploads data in one request (POST for an upload session, PUT with the digest).
func pushBlob(base string, data []byte) (string, error) {
	digest := digestOf(data)
	resp, err := http.Post(base+"/blobs/uploads/", "application/octet-stream", nil)
	if err != nil {
		return "", err
	}
	io.Copy(io.Discard, resp.Body) //nolint:errcheck
	resp.Body.Close()
	if resp.StatusCode != http.StatusAccepted {
		return "", fmt.Errorf("POST %s/blobs/uploads/: %s", base, resp.Status)
	}
	loc, err := url.Parse(resp.Header.Get("Location"))
	if err != nil {
		return "", err
	}
	target := resp.Request.URL.ResolveReference(loc)
	q := target.Query()
	q.Set("digest", digest)
	target.RawQuery = q.Encode()
	req, err := http.NewRequest(http.MethodPut, target.String(), bytes.NewReader(data))
	if err != nil {
		return "", err
	}
	req.Header.Set("Content-Type", "application/octet-stream")
	if err := expectStatus(http.DefaultClient.Do(req)); err != nil {
		return "", err
	}
	return digest, nil
}

func expectStatus(resp *http.Response, err error) error {
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
	if resp.StatusCode != http.StatusCreated {
		return fmt.Errorf("%s %s: %s: %s", resp.Request.Method, resp.Request.URL, resp.Status, strings.TrimSpace(string(body)))
	}
	return nil
}
