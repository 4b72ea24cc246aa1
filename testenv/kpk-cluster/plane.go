// This file runs the whole control plane: `up` starts etcd, kube-apiserver,
// kube-controller-manager, kube-scheduler and the node simulator as
// background processes of this same binary, each logging to
// <dir>/logs/<component>.log, and returns once the cluster is usable
// (/readyz, the default ServiceAccount, every node Ready). It attaches to a
// healthy running plane instead of starting a second one, and a file lock
// makes concurrent callers wait for each other. `down` stops it; `status`
// reports whether it is healthy.
package main

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
	"k8s.io/component-base/version"
)

// planeState is what `up` records in <dir>/state.json for `status`, `down`
// and for callers that want the ports.
type planeState struct {
	Binary        string         `json:"binary"`
	APIServerURL  string         `json:"apiServerURL"`
	EtcdURL       string         `json:"etcdURL"`
	Kubeconfig    string         `json:"kubeconfig"`
	Nodes         []string       `json:"nodes"`
	Pids          map[string]int `json:"pids"`
	StartSeconds  float64        `json:"startSeconds"`
	KubeVersion   string         `json:"kubeVersion"`
	StartedAtUnix int64          `json:"startedAtUnix"`
	// EtcdOf: the plane whose etcd this one shares (empty: its own), under EtcdPrefix.
	EtcdOf     string `json:"etcdOf,omitempty"`
	EtcdPrefix string `json:"etcdPrefix,omitempty"`
	// RealNode: the node whose pods really run (--real-node), see realnode.go.
	RealNode *realNodeState `json:"realNode,omitempty"`
}

// componentOrder is the start order; `down` stops in reverse.
var componentOrder = append([]string{"etcd", "kube-apiserver", "kube-controller-manager", "kube-scheduler", "nodesim"}, realNodeComponents...)

type planeFlags struct {
	dir   string
	nodes int
	// qps: --kube-api-qps of kube-controller-manager and kube-scheduler (burst twice that);
	// 0 keeps Kubernetes' defaults (20 and 50), which throttle a benchmark creating 1000
	// Deployments at once long before the controller under test does.
	qps int
	// etcdOf: the state directory of a running plane whose etcd this plane's API server
	// stores into (under etcdPrefix) instead of starting an etcd of its own: several
	// clusters over one etcd, as the fleet tests need them cheaply.
	etcdOf     string
	etcdPrefix string
	// apiServerOnly: only the API server (no controller-manager, scheduler or nodes): a
	// cluster that stores objects and answers requests, enough for packages of plain objects.
	apiServerOnly bool
	// realNode: also a real node (realnode.go), whose images come from registryBinary's registry.
	realNode       bool
	registryBinary string
}

func parsePlaneFlags(name string, args []string) (planeFlags, bool) {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	var pf planeFlags
	fs.StringVar(&pf.dir, "dir", os.Getenv("KUBEPKG_TESTENV_DIR"), "state directory (default $KUBEPKG_TESTENV_DIR)")
	fs.IntVar(&pf.nodes, "nodes", 2, "number of simulated nodes")
	fs.IntVar(&pf.qps, "controller-qps", 0, "API QPS of kube-controller-manager and kube-scheduler (0: their defaults)")
	fs.StringVar(&pf.etcdOf, "etcd-of", "", "state directory of a running plane whose etcd to share (default: an etcd of its own)")
	fs.StringVar(&pf.etcdPrefix, "etcd-prefix", "", "with --etcd-of: the key prefix of this cluster in that etcd (required)")
	fs.BoolVar(&pf.apiServerOnly, "apiserver-only", false, "start only the API server (no controllers, scheduler or nodes)")
	fs.BoolVar(&pf.realNode, "real-node", false, "also a real node: kubelet, containerd, runc and CNI running real containers (needs root)")
	fs.StringVar(&pf.registryBinary, "registry-binary", "", "with --real-node: the kpk-registry binary (testenv/registry/build.sh)")
	if err := fs.Parse(args); err != nil {
		return pf, false
	}
	if pf.dir == "" {
		fmt.Fprintf(os.Stderr, "kpk-cluster %s: --dir or KUBEPKG_TESTENV_DIR is required\n", name)
		return pf, false
	}
	if (pf.etcdOf == "") != (pf.etcdPrefix == "") {
		fmt.Fprintf(os.Stderr, "kpk-cluster %s: --etcd-of and --etcd-prefix go together\n", name)
		return pf, false
	}
	if pf.apiServerOnly {
		pf.nodes = 0
		if pf.realNode {
			fmt.Fprintf(os.Stderr, "kpk-cluster %s: --real-node needs the whole plane, not --apiserver-only\n", name)
			return pf, false
		}
	}
	abs, err := filepath.Abs(pf.dir)
	if err != nil {
		fmt.Fprintf(os.Stderr, "kpk-cluster %s: %v\n", name, err)
		return pf, false
	}
	pf.dir = abs
	return pf, true
}

func runUp(args []string) int {
	pf, ok := parsePlaneFlags("up", args)
	if !ok {
		return 2
	}
	if err := os.MkdirAll(pf.dir, 0o755); err != nil {
		fmt.Fprintf(os.Stderr, "kpk-cluster up: %v\n", err)
		return 1
	}
	unlock, err := lockDir(pf.dir)
	if err != nil {
		fmt.Fprintf(os.Stderr, "kpk-cluster up: %v\n", err)
		return 1
	}
	defer unlock()

	if st, err := checkHealthy(pf.dir); err == nil {
		if pf.realNode && st.RealNode == nil {
			// The running plane gains the real node it lacks.
			if err := addRealNode(pf, st); err != nil {
				reportStartError("up", err)
				return 1
			}
		}
		fmt.Fprintf(os.Stderr, "kpk-cluster up: attached to the running control plane at %s\n", st.APIServerURL)
		fmt.Println(st.Kubeconfig)
		return 0
	} else if _, statErr := os.Stat(statePath(pf.dir)); statErr == nil {
		fmt.Fprintf(os.Stderr, "kpk-cluster up: the recorded control plane is not healthy (%v); restarting it\n", err)
		stopPlane(pf.dir)
	}

	st, err := startPlane(pf)
	if err != nil {
		reportStartError("up", err)
		stopPlane(pf.dir)
		return 1
	}
	fmt.Fprintf(os.Stderr, "kpk-cluster up: Kubernetes %s ready at %s with %d node(s) in %.1f s; kubeconfig %s\n",
		st.KubeVersion, st.APIServerURL, len(st.Nodes), st.StartSeconds, st.Kubeconfig)
	fmt.Println(st.Kubeconfig)
	return 0
}

// reportStartError prints err, with the log tail of the component that failed.
func reportStartError(verb string, err error) {
	var ce *componentError
	if errors.As(err, &ce) {
		fmt.Fprintf(os.Stderr, "kpk-cluster %s: %v\n--- last lines of %s ---\n%s--- end of %s ---\n",
			verb, err, ce.log, tailFile(ce.log, 60), ce.log)
	} else {
		fmt.Fprintf(os.Stderr, "kpk-cluster %s: %v\n", verb, err)
	}
}

// addRealNode starts the real node beside a running plane and records it.
func addRealNode(pf planeFlags, st *planeState) error {
	self, err := os.Executable()
	if err != nil {
		return err
	}
	var procs []*started
	record := func(p *started) error {
		procs = append(procs, p)
		st.Pids[p.name] = p.cmd.Process.Pid
		return writeState(pf.dir, st)
	}
	if err := startRealNode(self, pf, st, record); err != nil {
		stopComponents(pf.dir, st, realNodeComponents)
		if st.RealNode == nil {
			st.RealNode = realNodePlan(pf.dir)
		}
		_ = cleanupRealNode(pf.dir, st.RealNode)
		st.RealNode = nil
		for _, c := range realNodeComponents {
			delete(st.Pids, c)
		}
		_ = writeState(pf.dir, st)
		return err
	}
	for _, p := range procs {
		if err := p.cmd.Process.Release(); err != nil {
			return err
		}
	}
	return writeState(pf.dir, st)
}

func runDown(args []string) int {
	pf, ok := parsePlaneFlags("down", args)
	if !ok {
		return 2
	}
	if _, err := os.Stat(pf.dir); err != nil {
		return 0
	}
	unlock, err := lockDir(pf.dir)
	if err != nil {
		fmt.Fprintf(os.Stderr, "kpk-cluster down: %v\n", err)
		return 1
	}
	defer unlock()
	if err := stopPlane(pf.dir); err != nil {
		fmt.Fprintf(os.Stderr, "kpk-cluster down: %v\n", err)
		return 1
	}
	return 0
}

func runStatus(args []string) int {
	pf, ok := parsePlaneFlags("status", args)
	if !ok {
		return 2
	}
	st, err := checkHealthy(pf.dir)
	if err != nil {
		fmt.Fprintf(os.Stderr, "kpk-cluster status: not running: %v\n", err)
		return 1
	}
	out, _ := json.MarshalIndent(st, "", "  ")
	fmt.Println(string(out))
	return 0
}

func statePath(dir string) string { return filepath.Join(dir, "state.json") }

// lockDir takes an exclusive lock on <dir>/up.lock, waiting for other holders.
func lockDir(dir string) (func(), error) {
	f, err := os.OpenFile(filepath.Join(dir, "up.lock"), os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		f.Close()
		return nil, fmt.Errorf("locking %s: %w", f.Name(), err)
	}
	return func() {
		_ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
		f.Close()
	}, nil
}

func readState(dir string) (*planeState, error) {
	data, err := os.ReadFile(statePath(dir))
	if err != nil {
		return nil, err
	}
	var st planeState
	if err := json.Unmarshal(data, &st); err != nil {
		return nil, fmt.Errorf("%s: %w", statePath(dir), err)
	}
	return &st, nil
}

// checkHealthy says whether the plane recorded in dir runs: every process
// alive and the API server answering /readyz.
func checkHealthy(dir string) (*planeState, error) {
	st, err := readState(dir)
	if err != nil {
		return nil, err
	}
	for _, c := range componentOrder {
		pid, started := st.Pids[c]
		if !started {
			// Not part of this plane (--etcd-of, --apiserver-only).
			continue
		}
		if !ownProcessAlive(pid, dir) {
			return nil, fmt.Errorf("%s (pid %d) is not running", c, pid)
		}
	}
	if st.EtcdOf != "" {
		if _, err := checkHealthy(st.EtcdOf); err != nil {
			return nil, fmt.Errorf("the plane whose etcd it shares (%s): %w", st.EtcdOf, err)
		}
	}
	client, err := adminHTTPClient(filepath.Join(dir, "pki"))
	if err != nil {
		return nil, err
	}
	if err := probe(client, st.APIServerURL+"/readyz"); err != nil {
		return nil, err
	}
	return st, nil
}

// ownProcessAlive says whether pid is alive and is one of ours for dir
// (its command line names files in the state directory), so a recycled pid is never
// mistaken for, or killed as, a component.
func ownProcessAlive(pid int, dir string) bool {
	if pid <= 0 {
		return false
	}
	cmdline, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
	if err != nil {
		return false
	}
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err == nil {
		// A zombie is not alive.
		if i := strings.LastIndexByte(string(stat), ')'); i > 0 && len(stat) > i+2 && stat[i+2] == 'Z' {
			return false
		}
	}
	// Every component's arguments name files inside dir.
	return strings.Contains(string(cmdline), dir+string(filepath.Separator))
}

// stopPlane stops every recorded component, newest first: SIGTERM, then
// SIGKILL after a grace period. A real node's pods are removed through
// containerd before it stops, and what the node made on the machine after;
// the error names what could not be removed.
func stopPlane(dir string) error {
	st, err := readState(dir)
	if err != nil {
		return nil
	}
	stopComponents(dir, st, componentOrder)
	var cleanup error
	if st.RealNode != nil {
		cleanup = cleanupRealNode(dir, st.RealNode)
	}
	_ = os.Remove(statePath(dir))
	return cleanup
}

// stopComponents stops those of names that st records, in reverse order.
func stopComponents(dir string, st *planeState, names []string) {
	for i := len(names) - 1; i >= 0; i-- {
		c := names[i]
		if c == "containerd" {
			stopRealNodeSandboxes(st, dir)
		}
		pid := st.Pids[c]
		if !ownProcessAlive(pid, dir) {
			continue
		}
		_ = syscall.Kill(pid, syscall.SIGTERM)
		deadline := time.Now().Add(10 * time.Second)
		for ownProcessAlive(pid, dir) && time.Now().Before(deadline) {
			time.Sleep(50 * time.Millisecond)
		}
		if ownProcessAlive(pid, dir) {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
	}
}

// componentError is a failure of one component, with its log.
type componentError struct {
	component string
	log       string
	err       error
}

func (e *componentError) Error() string { return fmt.Sprintf("%s: %v", e.component, e.err) }

type started struct {
	name string
	cmd  *exec.Cmd
	log  string
	done chan struct{}
	err  error
}

func freePorts(n int) ([]int, error) {
	var ls []net.Listener
	defer func() {
		for _, l := range ls {
			l.Close()
		}
	}()
	ports := make([]int, 0, n)
	for range n {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, fmt.Errorf("choosing a free loopback port: %w", err)
		}
		ls = append(ls, l)
		ports = append(ports, l.Addr().(*net.TCPAddr).Port)
	}
	return ports, nil
}

func startPlane(pf planeFlags) (*planeState, error) {
	begin := time.Now()
	self, err := os.Executable()
	if err != nil {
		return nil, err
	}
	dir := pf.dir
	pki := filepath.Join(dir, "pki")
	if err := ensurePKI(pki); err != nil {
		return nil, fmt.Errorf("writing certificates: %w", err)
	}
	for _, sub := range []string{"logs", "run"} {
		if err := os.MkdirAll(filepath.Join(dir, sub), 0o755); err != nil {
			return nil, err
		}
	}
	// Every start is a fresh cluster: tests never see a previous run's objects.
	if err := os.RemoveAll(filepath.Join(dir, "etcd")); err != nil {
		return nil, err
	}
	ports, err := freePorts(5 + pf.nodes)
	if err != nil {
		return nil, err
	}
	etcdClient, etcdPeer, apiPort, kcmPort, schedPort := ports[0], ports[1], ports[2], ports[3], ports[4]
	kubeletPorts := ports[5:]
	apiURL := fmt.Sprintf("https://127.0.0.1:%d", apiPort)
	etcdURL := fmt.Sprintf("http://127.0.0.1:%d", etcdClient)

	kubeconfigs := map[string]string{}
	for _, who := range []string{"admin", "controller-manager", "scheduler", "nodesim"} {
		path := filepath.Join(dir, who+".kubeconfig")
		if who == "admin" {
			path = filepath.Join(dir, "kubeconfig")
		}
		if err := writeKubeconfig(path, apiURL, pki, who); err != nil {
			return nil, err
		}
		kubeconfigs[who] = path
	}

	st := &planeState{
		Binary:        self,
		APIServerURL:  apiURL,
		EtcdURL:       etcdURL,
		Kubeconfig:    kubeconfigs["admin"],
		Pids:          map[string]int{},
		KubeVersion:   kubeVersion(),
		StartedAtUnix: begin.Unix(),
	}
	for i := range pf.nodes {
		st.Nodes = append(st.Nodes, fmt.Sprintf("kpk-node-%d", i+1))
	}
	var procs []*started
	record := func(p *started) error {
		procs = append(procs, p)
		st.Pids[p.name] = p.cmd.Process.Pid
		return writeState(dir, st)
	}
	p := func(name string) string { return filepath.Join(pki, name) }

	var etcdFlags []string
	if pf.etcdOf != "" {
		shared, err := checkHealthy(pf.etcdOf)
		if err != nil {
			return nil, fmt.Errorf("the plane whose etcd to share (%s) does not run: %w", pf.etcdOf, err)
		}
		st.EtcdURL, st.EtcdOf = shared.EtcdURL, pf.etcdOf
		// A fresh cluster at every start: a prefix of its own each time (the shared etcd
		// keeps what an earlier start stored, out of this one's sight).
		st.EtcdPrefix = fmt.Sprintf("%s-%d", strings.TrimSuffix(pf.etcdPrefix, "/"), begin.UnixNano())
		etcdFlags = []string{"--etcd-servers=" + st.EtcdURL, "--etcd-prefix=" + st.EtcdPrefix}
	} else {
		etcd, err := startComponent(self, dir, "etcd",
			"--name=kpk-etcd",
			"--data-dir="+filepath.Join(dir, "etcd"),
			"--listen-client-urls="+etcdURL,
			"--advertise-client-urls="+etcdURL,
			fmt.Sprintf("--listen-peer-urls=http://127.0.0.1:%d", etcdPeer),
			fmt.Sprintf("--initial-advertise-peer-urls=http://127.0.0.1:%d", etcdPeer),
			fmt.Sprintf("--initial-cluster=kpk-etcd=http://127.0.0.1:%d", etcdPeer),
			// A throwaway test cluster: durability is not worth the fsyncs.
			"--unsafe-no-fsync=true",
			"--quota-backend-bytes=4294967296",
			"--log-level=warn",
		)
		if err != nil {
			return nil, err
		}
		if err := record(etcd); err != nil {
			return nil, err
		}
		if err := waitFor(etcd, 60*time.Second, func() error { return probe(http.DefaultClient, etcdURL+"/health") }); err != nil {
			return nil, err
		}
		etcdFlags = []string{"--etcd-servers=" + etcdURL}
	}

	apiserver, err := startComponent(self, dir, "kube-apiserver", append(etcdFlags,
		"--bind-address=127.0.0.1",
		"--advertise-address=127.0.0.1",
		// Loopback cannot be an endpoint of the kubernetes Service, and nothing
		// here reaches the API server through that Service.
		"--endpoint-reconciler-type=none",
		fmt.Sprintf("--secure-port=%d", apiPort),
		"--cert-dir="+filepath.Join(dir, "run", "kube-apiserver"),
		"--tls-cert-file="+p("apiserver.crt"),
		"--tls-private-key-file="+p("apiserver.key"),
		"--client-ca-file="+p("ca.crt"),
		"--kubelet-client-certificate="+p("apiserver-kubelet-client.crt"),
		"--kubelet-client-key="+p("apiserver-kubelet-client.key"),
		"--kubelet-certificate-authority="+p("ca.crt"),
		"--kubelet-preferred-address-types=InternalIP",
		"--requestheader-client-ca-file="+p("ca.crt"),
		"--requestheader-allowed-names=front-proxy-client",
		"--requestheader-username-headers=X-Remote-User",
		"--requestheader-group-headers=X-Remote-Group",
		"--requestheader-extra-headers-prefix=X-Remote-Extra-",
		"--proxy-client-cert-file="+p("front-proxy-client.crt"),
		"--proxy-client-key-file="+p("front-proxy-client.key"),
		"--service-account-issuer=https://kubernetes.default.svc.cluster.local",
		"--service-account-key-file="+p("sa.pub"),
		"--service-account-signing-key-file="+p("sa.key"),
		"--service-cluster-ip-range=10.0.0.0/24",
		"--authorization-mode=Node,RBAC",
		"--allow-privileged=true",
		"--profiling=false",
		"--v=1",
	)...)
	if err != nil {
		return nil, err
	}
	if err := record(apiserver); err != nil {
		return nil, err
	}
	admin, err := adminHTTPClient(pki)
	if err != nil {
		return nil, err
	}
	if err := waitFor(apiserver, 120*time.Second, func() error { return probe(admin, apiURL+"/readyz") }); err != nil {
		return nil, err
	}
	if pf.apiServerOnly {
		for _, p := range procs {
			if err := p.cmd.Process.Release(); err != nil {
				return nil, err
			}
		}
		st.StartSeconds = time.Since(begin).Seconds()
		return st, writeState(dir, st)
	}

	var rate []string
	if pf.qps > 0 {
		rate = []string{fmt.Sprintf("--kube-api-qps=%d", pf.qps), fmt.Sprintf("--kube-api-burst=%d", 2*pf.qps)}
	}
	kcm, err := startComponent(self, dir, "kube-controller-manager", append([]string{
		"--kubeconfig=" + kubeconfigs["controller-manager"],
		"--authentication-kubeconfig=" + kubeconfigs["controller-manager"],
		"--authorization-kubeconfig=" + kubeconfigs["controller-manager"],
		"--bind-address=127.0.0.1",
		fmt.Sprintf("--secure-port=%d", kcmPort),
		"--cert-dir=" + filepath.Join(dir, "run", "kube-controller-manager"),
		"--leader-elect=false",
		"--use-service-account-credentials=true",
		"--service-account-private-key-file=" + p("sa.key"),
		"--root-ca-file=" + p("ca.crt"),
		"--cluster-signing-cert-file=" + p("ca.crt"),
		"--cluster-signing-key-file=" + p("ca.key"),
		"--profiling=false",
		"--v=1",
	}, rate...)...)
	if err != nil {
		return nil, err
	}
	if err := record(kcm); err != nil {
		return nil, err
	}
	sched, err := startComponent(self, dir, "kube-scheduler", append([]string{
		"--kubeconfig=" + kubeconfigs["scheduler"],
		"--authentication-kubeconfig=" + kubeconfigs["scheduler"],
		"--authorization-kubeconfig=" + kubeconfigs["scheduler"],
		"--bind-address=127.0.0.1",
		fmt.Sprintf("--secure-port=%d", schedPort),
		"--cert-dir=" + filepath.Join(dir, "run", "kube-scheduler"),
		"--leader-elect=false",
		"--profiling=false",
		"--v=1",
	}, rate...)...)
	if err != nil {
		return nil, err
	}
	if err := record(sched); err != nil {
		return nil, err
	}
	portList := make([]string, len(kubeletPorts))
	for i, port := range kubeletPorts {
		portList[i] = strconv.Itoa(port)
	}
	nodesim, err := startComponent(self, dir, "nodesim",
		"--kubeconfig="+kubeconfigs["nodesim"],
		"--nodes="+strings.Join(st.Nodes, ","),
		"--kubelet-ports="+strings.Join(portList, ","),
		"--tls-cert-file="+p("kubelet.crt"),
		"--tls-private-key-file="+p("kubelet.key"),
		"--client-ca-file="+p("ca.crt"),
	)
	if err != nil {
		return nil, err
	}
	if err := record(nodesim); err != nil {
		return nil, err
	}

	cfg, err := clientcmd.BuildConfigFromFlags("", kubeconfigs["admin"])
	if err != nil {
		return nil, err
	}
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return nil, err
	}
	insecure := &http.Client{Timeout: 2 * time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}}
	if err := waitFor(kcm, 60*time.Second, func() error {
		return probe(insecure, fmt.Sprintf("https://127.0.0.1:%d/healthz", kcmPort))
	}); err != nil {
		return nil, err
	}
	if err := waitFor(sched, 60*time.Second, func() error {
		return probe(insecure, fmt.Sprintf("https://127.0.0.1:%d/healthz", schedPort))
	}); err != nil {
		return nil, err
	}
	// Pods can only be admitted once their namespace has its ServiceAccount.
	if err := waitFor(kcm, 60*time.Second, func() error {
		_, err := cs.CoreV1().ServiceAccounts("default").Get(context.Background(), "default", metav1.GetOptions{})
		return err
	}); err != nil {
		return nil, err
	}
	if err := waitFor(nodesim, 60*time.Second, func() error {
		for _, n := range st.Nodes {
			node, err := cs.CoreV1().Nodes().Get(context.Background(), n, metav1.GetOptions{})
			if apierrors.IsNotFound(err) {
				return fmt.Errorf("node %s not registered yet", n)
			} else if err != nil {
				return err
			}
			if !nodeReady(node) {
				return fmt.Errorf("node %s not Ready yet", n)
			}
			for _, t := range node.Spec.Taints {
				if t.Key == corev1.TaintNodeNotReady || t.Key == corev1.TaintNodeUnreachable {
					return fmt.Errorf("node %s still has taint %s", n, t.Key)
				}
			}
		}
		return nil
	}); err != nil {
		return nil, err
	}
	if pf.realNode {
		if err := startRealNode(self, pf, st, record); err != nil {
			return nil, err
		}
	}
	for _, p := range procs {
		if err := p.cmd.Process.Release(); err != nil {
			return nil, err
		}
	}
	st.StartSeconds = time.Since(begin).Seconds()
	return st, writeState(dir, st)
}

func nodeReady(node *corev1.Node) bool {
	for _, c := range node.Status.Conditions {
		if c.Type == corev1.NodeReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

func writeState(dir string, st *planeState) error {
	data, err := json.MarshalIndent(st, "", "  ")
	if err != nil {
		return err
	}
	tmp := statePath(dir) + ".tmp"
	if err := os.WriteFile(tmp, data, 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, statePath(dir))
}

// startComponent runs `self name args...` in its own session, detached from
// the caller's terminal and pipes, logging to <dir>/logs/<name>.log (the
// previous run's log is kept as <name>.log.1).
func startComponent(self, dir, name string, args ...string) (*started, error) {
	return startProgram(self, dir, name, append([]string{name}, args...)...)
}

// startProgram runs `program args...` as the component name (see startComponent).
func startProgram(program, dir, name string, args ...string) (*started, error) {
	logPath := filepath.Join(dir, "logs", name+".log")
	if _, err := os.Stat(logPath); err == nil {
		_ = os.Rename(logPath, logPath+".1")
	}
	logf, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o644)
	if err != nil {
		return nil, err
	}
	defer logf.Close()
	fmt.Fprintf(logf, "# %s %s %s\n", time.Now().UTC().Format(time.RFC3339), name, strings.Join(args, " "))
	devnull, err := os.Open(os.DevNull)
	if err != nil {
		return nil, err
	}
	defer devnull.Close()
	cmd := exec.Command(program, args...)
	cmd.Dir = dir
	cmd.Stdin = devnull
	cmd.Stdout = logf
	cmd.Stderr = logf
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		return nil, &componentError{component: name, log: logPath, err: err}
	}
	s := &started{name: name, cmd: cmd, log: logPath, done: make(chan struct{})}
	go func() {
		s.err = cmd.Wait()
		close(s.done)
	}()
	return s, nil
}

// waitFor polls check until it succeeds, the component exits, or the time is up.
func waitFor(s *started, timeout time.Duration, check func() error) error {
	deadline := time.Now().Add(timeout)
	var last error
	for {
		select {
		case <-s.done:
			return &componentError{component: s.name, log: s.log, err: fmt.Errorf("exited during start-up (%v)", s.err)}
		default:
		}
		if last = check(); last == nil {
			return nil
		}
		if time.Now().After(deadline) {
			return &componentError{component: s.name, log: s.log, err: fmt.Errorf("not ready after %s: %v", timeout, last)}
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func probe(client *http.Client, url string) error {
	resp, err := client.Get(url)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("GET %s: %s: %s", url, resp.Status, strings.TrimSpace(string(body)))
	}
	return nil
}

func adminHTTPClient(pki string) (*http.Client, error) {
	cert, err := tls.LoadX509KeyPair(filepath.Join(pki, "admin.crt"), filepath.Join(pki, "admin.key"))
	if err != nil {
		return nil, err
	}
	caPEM, err := os.ReadFile(filepath.Join(pki, "ca.crt"))
	if err != nil {
		return nil, err
	}
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(caPEM)
	return &http.Client{
		Timeout:   2 * time.Second,
		Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool, Certificates: []tls.Certificate{cert}}},
	}, nil
}

// writeKubeconfig writes a self-contained kubeconfig (certificates inline)
// for the identity whose key pair is <pki>/<who>.{crt,key}.
func writeKubeconfig(path, server, pki, who string) error {
	ca, err := os.ReadFile(filepath.Join(pki, "ca.crt"))
	if err != nil {
		return err
	}
	crt, err := os.ReadFile(filepath.Join(pki, who+".crt"))
	if err != nil {
		return err
	}
	key, err := os.ReadFile(filepath.Join(pki, who+".key"))
	if err != nil {
		return err
	}
	cfg := clientcmdapi.NewConfig()
	cfg.Clusters["kubepkg-testenv"] = &clientcmdapi.Cluster{Server: server, CertificateAuthorityData: ca}
	cfg.AuthInfos[who] = &clientcmdapi.AuthInfo{ClientCertificateData: crt, ClientKeyData: key}
	cfg.Contexts["kubepkg-testenv"] = &clientcmdapi.Context{Cluster: "kubepkg-testenv", AuthInfo: who, Namespace: "default"}
	cfg.CurrentContext = "kubepkg-testenv"
	return clientcmd.WriteToFile(*cfg, path)
}

func tailFile(path string, lines int) string {
	data, err := os.ReadFile(path)
	if err != nil {
		return fmt.Sprintf("(cannot read %s: %v)\n", path, err)
	}
	all := strings.SplitAfter(string(data), "\n")
	if len(all) > lines {
		all = all[len(all)-lines:]
	}
	out := strings.Join(all, "")
	if !strings.HasSuffix(out, "\n") {
		out += "\n"
	}
	return out
}

func kubeVersion() string { return version.Get().GitVersion }
