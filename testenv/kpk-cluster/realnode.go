// This file runs the real node (`up --real-node`): beside the simulated nodes, one node whose
// pods really run — the real kubelet (this binary's `kubelet`), containerd and runc from the
// machine, CNI's bridge and host-local plugins — pulling its images from a registry of its own on
// loopback (kpk-registry, with images assembled from this machine's files: kpk-registry image).
//
// Its kube-proxy (iptables mode) makes Services of its pods answer from the machine.
//
// Everything it makes is named after the state directory and removed by `down`: the bridge
// (kpkbr-HASH, the node's address is its gateway), the cgroup root (/kpk-node-HASH in every
// cgroup v1 hierarchy), containerd's and the kubelet's directories and every mount under them
// (network namespaces included: containerd keeps them under its state directory). `down` first
// stops and removes every pod sandbox through containerd's CRI (as `crictl rmp -fa` does), so the
// CNI plugins release addresses and links, then kills what is left in the cgroups, unmounts,
// removes the cgroups and the bridge, and checks that none of it remains.
package main

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"
	runtimeapi "k8s.io/cri-api/pkg/apis/runtime/v1"
)

// Names the tests use (kubepkg_testkit::real_node has the same).
const (
	realNodeName = "kpk-real-node"
	// realNodeLabel labels the node and taints it NoSchedule: only pods that select and
	// tolerate it run there; every other pod stays on the simulated nodes.
	realNodeLabel = "kubepkg.dev/real-node"
	// realNodeRegistry is the name images are pulled by; containerd's hosts.toml maps it to the
	// node's registry on loopback.
	realNodeRegistry = "registry.kpk.test"
)

// realNodeState is what `up --real-node` records in state.json.
type realNodeState struct {
	Name         string `json:"name"`
	IP           string `json:"ip"`
	Subnet       string `json:"subnet"`
	Bridge       string `json:"bridge"`
	CgroupRoot   string `json:"cgroupRoot"`
	Registry     string `json:"registry"`
	RegistryName string `json:"registryName"`
	Containerd   string `json:"containerdSocket"`
	// Images: the images pushed at start, by their reference under RegistryName.
	Images []string `json:"images"`
}

// realNodeComponents are started in this order after the plane (componentOrder ends with them).
var realNodeComponents = []string{"node-registry", "containerd", "kubelet", "kube-proxy"}

// realNodePlan derives every name of the real node of the plane in dir.
func realNodePlan(dir string) *realNodeState {
	sum := sha256.Sum256([]byte(dir))
	h := hex.EncodeToString(sum[:])
	third := int(sum[4])%250 + 1
	nodeDir := filepath.Join(dir, "node")
	return &realNodeState{
		Name:         realNodeName,
		IP:           fmt.Sprintf("10.77.%d.1", third),
		Subnet:       fmt.Sprintf("10.77.%d.0/24", third),
		Bridge:       "kpkbr-" + h[:8],
		CgroupRoot:   "/kpk-node-" + h[:8],
		RegistryName: realNodeRegistry,
		Containerd:   filepath.Join(nodeDir, "containerd", "containerd.sock"),
	}
}

// realNodeNeeds: the machine's programs the real node runs, and their Debian packages.
var realNodeNeeds = [][2]string{
	{"iptables", "iptables"},
	{"containerd", "containerd"},
	{"containerd-shim-runc-v2", "containerd"},
	{"runc", "runc"},
	{"busybox", "busybox-static"},
	{"ip", "iproute2"},
}

// startRealNode starts the node's registry, pushes its images, starts containerd and the
// kubelet, and waits until the node is Ready. pids are recorded through record.
func startRealNode(self string, pf planeFlags, st *planeState, record func(*started) error) error {
	if os.Geteuid() != 0 {
		return errors.New("--real-node runs containers: it needs root")
	}
	var missing []string
	for _, need := range realNodeNeeds {
		if _, err := exec.LookPath(need[0]); err != nil {
			missing = append(missing, need[1])
		}
	}
	if len(missing) > 0 {
		return fmt.Errorf("--real-node needs %s: apt-get install -y %s", strings.Join(missing, ", "), strings.Join(uniq(missing), " "))
	}
	if pf.registryBinary == "" {
		return errors.New("--real-node needs --registry-binary (testenv/registry/build.sh prints it)")
	}
	pauseBinary := filepath.Join(filepath.Dir(pf.registryBinary), "kpk-pause")
	if _, err := os.Stat(pauseBinary); err != nil {
		return fmt.Errorf("the pause binary beside %s: %w", pf.registryBinary, err)
	}
	dir := pf.dir
	rn := realNodePlan(dir)
	// A node a killed `up` or an unclean stop left behind goes first.
	if err := cleanupRealNode(dir, rn); err != nil {
		return fmt.Errorf("removing the previous real node's leftovers: %w", err)
	}
	nodeDir := filepath.Join(dir, "node")
	for _, sub := range []string{"registry", "containerd/certs.d/" + realNodeRegistry, "cni/net.d", "kubelet", "pod-logs"} {
		if err := os.MkdirAll(filepath.Join(nodeDir, sub), 0o755); err != nil {
			return err
		}
	}
	if err := setupBridge(rn); err != nil {
		return err
	}
	if err := createCgroupRoot(rn.CgroupRoot); err != nil {
		return err
	}
	ports, err := freePorts(2)
	if err != nil {
		return err
	}
	registryPort, kubeletPort := ports[0], ports[1]
	rn.Registry = fmt.Sprintf("127.0.0.1:%d", registryPort)

	registry, err := startProgram(pf.registryBinary, dir, "node-registry",
		"serve", "--root", filepath.Join(nodeDir, "registry"), "--port", strconv.Itoa(registryPort), "--detached")
	if err != nil {
		return err
	}
	if err := record(registry); err != nil {
		return err
	}
	if err := waitFor(registry, 30*time.Second, func() error {
		c, err := net.DialTimeout("tcp", rn.Registry, time.Second)
		if err == nil {
			c.Close()
		}
		return err
	}); err != nil {
		return err
	}
	busybox, _ := exec.LookPath("busybox")
	images := []struct {
		name string
		args []string
	}{
		{"kpk/pause:1", []string{"--file", pauseBinary + "=/pause", "--entrypoint", "/pause"}},
		{"kpk/busybox:1", []string{"--file", busybox + "=/bin/busybox", "--applets", "/bin/busybox", "--dir", "/www/cgi-bin", "--cmd", "sh"}},
	}
	for _, img := range images {
		out, err := exec.Command(pf.registryBinary, append([]string{"image", "--registry", rn.Registry, "--name", img.name}, img.args...)...).CombinedOutput()
		if err != nil {
			return fmt.Errorf("building the image %s: %v: %s", img.name, err, out)
		}
		rn.Images = append(rn.Images, realNodeRegistry+"/"+img.name)
	}

	configPath := filepath.Join(nodeDir, "containerd.toml")
	if err := os.WriteFile(configPath, []byte(containerdConfig(nodeDir, rn)), 0o644); err != nil {
		return err
	}
	hosts := fmt.Sprintf("server = \"http://%s\"\n\n[host.\"http://%s\"]\n  capabilities = [\"pull\", \"resolve\"]\n", rn.Registry, rn.Registry)
	if err := os.WriteFile(filepath.Join(nodeDir, "containerd/certs.d", realNodeRegistry, "hosts.toml"), []byte(hosts), 0o644); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(nodeDir, "cni/net.d/10-kpk-node.conflist"), []byte(cniConfig(nodeDir, rn)), 0o644); err != nil {
		return err
	}
	containerdBin, _ := exec.LookPath("containerd")
	containerd, err := startProgram(containerdBin, dir, "containerd", "--config", configPath)
	if err != nil {
		return err
	}
	if err := record(containerd); err != nil {
		return err
	}
	if err := waitFor(containerd, 30*time.Second, func() error {
		if _, err := os.Stat(rn.Containerd); err != nil {
			return err
		}
		return withCRI(rn.Containerd, func(ctx context.Context, rt runtimeapi.RuntimeServiceClient) error {
			_, err := rt.Version(ctx, &runtimeapi.VersionRequest{})
			return err
		})
	}); err != nil {
		return err
	}

	pki := filepath.Join(dir, "pki")
	kubeconfig := filepath.Join(dir, "real-node.kubeconfig")
	if err := writeKubeconfig(kubeconfig, st.APIServerURL, pki, "real-node"); err != nil {
		return err
	}
	serving := certSpec{name: "real-node-serving", cn: rn.Name, server: true, ips: []net.IP{net.ParseIP(rn.IP)}, dns: []string{rn.Name}}
	if err := issueFromCA(pki, serving); err != nil {
		return fmt.Errorf("issuing the kubelet's serving certificate: %w", err)
	}
	kubeletConfig := filepath.Join(nodeDir, "kubelet.yaml")
	if err := os.WriteFile(kubeletConfig, []byte(kubeletConfiguration(nodeDir, pki, rn, kubeletPort)), 0o644); err != nil {
		return err
	}
	kubelet, err := startComponent(self, dir, "kubelet",
		"--config="+kubeletConfig,
		"--kubeconfig="+kubeconfig,
		"--root-dir="+filepath.Join(nodeDir, "kubelet"),
		"--cert-dir="+filepath.Join(nodeDir, "kubelet", "pki"),
		"--hostname-override="+rn.Name,
		"--node-ip="+rn.IP,
		"--node-labels="+realNodeLabel+"=true",
		"--v=1",
	)
	if err != nil {
		return err
	}
	if err := record(kubelet); err != nil {
		return err
	}
	cfg, err := clientcmd.BuildConfigFromFlags("", st.Kubeconfig)
	if err != nil {
		return err
	}
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return err
	}
	if err := waitFor(kubelet, 120*time.Second, func() error {
		node, err := cs.CoreV1().Nodes().Get(context.Background(), rn.Name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		if !nodeReady(node) {
			return fmt.Errorf("node %s not Ready yet", rn.Name)
		}
		return nil
	}); err != nil {
		return err
	}
	// kube-proxy (iptables mode): Services of pods on this node answer from the machine.
	proxyKubeconfig := filepath.Join(dir, "kube-proxy.kubeconfig")
	if err := writeKubeconfig(proxyKubeconfig, st.APIServerURL, pki, "kube-proxy"); err != nil {
		return err
	}
	proxyPorts, err := freePorts(2)
	if err != nil {
		return err
	}
	kubeProxy, err := startComponent(self, dir, "kube-proxy",
		"--kubeconfig="+proxyKubeconfig,
		"--hostname-override="+rn.Name,
		"--proxy-mode=iptables",
		"--cluster-cidr="+rn.Subnet,
		"--nodeport-addresses="+rn.Subnet,
		fmt.Sprintf("--healthz-bind-address=127.0.0.1:%d", proxyPorts[0]),
		fmt.Sprintf("--metrics-bind-address=127.0.0.1:%d", proxyPorts[1]),
		// Leave the machine's conntrack settings as they are.
		"--conntrack-max-per-core=0",
		"--conntrack-tcp-timeout-established=0",
		"--conntrack-tcp-timeout-close-wait=0",
		"--v=1",
	)
	if err != nil {
		return err
	}
	if err := record(kubeProxy); err != nil {
		return err
	}
	if err := waitFor(kubeProxy, 60*time.Second, func() error {
		return probe(http.DefaultClient, fmt.Sprintf("http://127.0.0.1:%d/healthz", proxyPorts[0]))
	}); err != nil {
		return err
	}
	st.RealNode = rn
	st.Nodes = append(st.Nodes, rn.Name)
	return nil
}

func uniq(in []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, s := range in {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
}

func containerdConfig(nodeDir string, rn *realNodeState) string {
	c := filepath.Join(nodeDir, "containerd")
	return fmt.Sprintf(`# The real node's containerd (kpk-cluster up --real-node): everything under the state directory.
version = 2
root = %[1]q
state = %[2]q
disabled_plugins = ["io.containerd.snapshotter.v1.btrfs", "io.containerd.snapshotter.v1.zfs", "io.containerd.snapshotter.v1.aufs", "io.containerd.snapshotter.v1.devmapper"]

[grpc]
  address = %[3]q

[ttrpc]
  address = %[4]q

[plugins."io.containerd.grpc.v1.cri"]
  sandbox_image = %[5]q
  netns_mounts_under_state_dir = true
  # Root here may lack CAP_SYS_RESOURCE (a sandboxed machine), so no process may lower its OOM
  # score below containerd's own: the kubelet's -998 for sandboxes would fail every pod.
  restrict_oom_score_adj = true
  [plugins."io.containerd.grpc.v1.cri".containerd]
    snapshotter = "overlayfs"
    default_runtime_name = "runc"
    [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc]
      runtime_type = "io.containerd.runc.v2"
      [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc.options]
        SystemdCgroup = false
        Root = %[6]q
  [plugins."io.containerd.grpc.v1.cri".cni]
    bin_dir = "/usr/lib/cni"
    conf_dir = %[7]q
  [plugins."io.containerd.grpc.v1.cri".registry]
    config_path = %[8]q

[plugins."io.containerd.internal.v1.opt"]
  path = %[9]q
`, filepath.Join(c, "root"), filepath.Join(c, "state"), rn.Containerd, rn.Containerd+".ttrpc",
		realNodeRegistry+"/kpk/pause:1", filepath.Join(c, "runc"), filepath.Join(nodeDir, "cni/net.d"),
		filepath.Join(c, "certs.d"), filepath.Join(c, "opt"))
}

func cniConfig(nodeDir string, rn *realNodeState) string {
	_, subnet, _ := net.ParseCIDR(rn.Subnet)
	start := subnet.IP.To4()
	return fmt.Sprintf(`{
  "cniVersion": "0.4.0",
  "name": "kpk-node",
  "plugins": [
    {
      "type": "bridge",
      "bridge": %q,
      "isGateway": true,
      "ipMasq": false,
      "hairpinMode": true,
      "ipam": {
        "type": "host-local",
        "ranges": [[{"subnet": %q, "rangeStart": "%d.%d.%d.10", "gateway": %q}]],
        "dataDir": %q
      }
    }
  ]
}
`, rn.Bridge, rn.Subnet, start[0], start[1], start[2], rn.IP, filepath.Join(nodeDir, "cni/ipam"))
}

func kubeletConfiguration(nodeDir, pki string, rn *realNodeState, port int) string {
	return fmt.Sprintf(`apiVersion: kubelet.config.k8s.io/v1beta1
kind: KubeletConfiguration
address: %[1]s
port: %[2]d
readOnlyPort: 0
healthzPort: 0
tlsCertFile: %[3]s
tlsPrivateKeyFile: %[4]s
authentication:
  anonymous: {enabled: false}
  webhook: {enabled: false}
  x509: {clientCAFile: %[5]s}
authorization:
  mode: AlwaysAllow
# This machine has cgroup v1 only: Kubernetes 1.37's kubelet still runs there when told to.
failCgroupV1: false
cgroupDriver: cgroupfs
cgroupRoot: %[6]s
cgroupsPerQOS: true
failSwapOn: false
# Lowering its own OOM score needs CAP_SYS_RESOURCE, which a sandboxed machine's root may lack.
oomScoreAdj: 0
containerRuntimeEndpoint: unix://%[7]s
imageServiceEndpoint: unix://%[7]s
podLogsDir: %[8]s
registerWithTaints:
- {key: %[9]s, value: "true", effect: NoSchedule}
maxPods: 30
serializeImagePulls: false
resolvConf: /etc/resolv.conf
clusterDomain: cluster.local
# No DNS server runs (pods are reached by address); naming one keeps every pod from a
# MissingClusterDNS warning that would crowd the events kubepkg's diagnosis shows.
clusterDNS: [10.0.0.10]
# A test machine's disk is often fuller than a node's default thresholds allow (and its size
# may be a thin volume's, far above its quota): only a nearly full disk is pressure, and it
# lifts as soon as space is back.
evictionHard: {memory.available: "50Mi", nodefs.available: "200Mi", imagefs.available: "200Mi", nodefs.inodesFree: "1%%"}
evictionPressureTransitionPeriod: 10s
imageGCHighThresholdPercent: 99
imageGCLowThresholdPercent: 98
`, rn.IP, port, filepath.Join(pki, "real-node-serving.crt"), filepath.Join(pki, "real-node-serving.key"),
		filepath.Join(pki, "ca.crt"), rn.CgroupRoot, rn.Containerd, filepath.Join(nodeDir, "pod-logs"), realNodeLabel)
}

// cgroupHierarchies: the mounted cgroup v1 hierarchies (and the unified one, if mounted).
func cgroupHierarchies() ([]string, error) {
	f, err := os.Open("/proc/self/mountinfo")
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		for i, field := range fields {
			if field == "-" && i+1 < len(fields) && (fields[i+1] == "cgroup" || fields[i+1] == "cgroup2") {
				out = append(out, fields[4])
			}
		}
	}
	return out, sc.Err()
}

func createCgroupRoot(root string) error {
	hierarchies, err := cgroupHierarchies()
	if err != nil {
		return err
	}
	for _, h := range hierarchies {
		if err := os.MkdirAll(filepath.Join(h, root), 0o755); err != nil {
			return fmt.Errorf("creating the cgroup root: %w", err)
		}
		// A cpuset cgroup needs CPUs and memory nodes before it can hold anything.
		for _, file := range []string{"cpuset.cpus", "cpuset.mems"} {
			if data, err := os.ReadFile(filepath.Join(h, file)); err == nil {
				if err := os.WriteFile(filepath.Join(h, root, file), data, 0o644); err != nil {
					return fmt.Errorf("%s: %w", filepath.Join(h, root, file), err)
				}
			}
		}
	}
	return nil
}

func setupBridge(rn *realNodeState) error {
	ones := strings.Split(rn.Subnet, "/")[1]
	for _, args := range [][]string{
		{"link", "add", rn.Bridge, "type", "bridge"},
		{"addr", "add", rn.IP + "/" + ones, "dev", rn.Bridge},
		{"link", "set", rn.Bridge, "up"},
	} {
		if out, err := exec.Command("ip", args...).CombinedOutput(); err != nil {
			return fmt.Errorf("ip %s: %v: %s", strings.Join(args, " "), err, strings.TrimSpace(string(out)))
		}
	}
	return nil
}

// withCRI calls f with a CRI runtime client of the containerd listening on socket.
func withCRI(socket string, f func(context.Context, runtimeapi.RuntimeServiceClient) error) error {
	conn, err := grpc.NewClient("unix://"+socket, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		return err
	}
	defer conn.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	return f(ctx, runtimeapi.NewRuntimeServiceClient(conn))
}

// removeSandboxes stops and removes every pod sandbox (and so its containers, network and
// mounts) through containerd's CRI, as `crictl rmp -fa` does.
func removeSandboxes(socket string) error {
	return withCRI(socket, func(ctx context.Context, rt runtimeapi.RuntimeServiceClient) error {
		list, err := rt.ListPodSandbox(ctx, &runtimeapi.ListPodSandboxRequest{})
		if err != nil {
			return err
		}
		var errs []error
		for _, sb := range list.Items {
			if _, err := rt.StopPodSandbox(ctx, &runtimeapi.StopPodSandboxRequest{PodSandboxId: sb.Id}); err != nil {
				errs = append(errs, fmt.Errorf("stopping pod sandbox %s (%s/%s): %w", sb.Id, sb.Metadata.GetNamespace(), sb.Metadata.GetName(), err))
				continue
			}
			if _, err := rt.RemovePodSandbox(ctx, &runtimeapi.RemovePodSandboxRequest{PodSandboxId: sb.Id}); err != nil {
				errs = append(errs, fmt.Errorf("removing pod sandbox %s: %w", sb.Id, err))
			}
		}
		return errors.Join(errs...)
	})
}

// stopRealNode runs after the kubelet has stopped and before containerd does.
func stopRealNodeSandboxes(st *planeState, dir string) {
	if st.RealNode == nil || !ownProcessAlive(st.Pids["containerd"], dir) {
		return
	}
	if err := removeSandboxes(st.RealNode.Containerd); err != nil {
		fmt.Fprintf(os.Stderr, "kpk-cluster down: removing the real node's pods: %v\n", err)
	}
}

// cleanupRealNode removes whatever the real node of dir left once its processes are stopped:
// processes still in its cgroups, mounts under its directory, its cgroups, its bridge. It
// returns an error naming what could not be removed.
func cleanupRealNode(dir string, rn *realNodeState) error {
	hierarchies, err := cgroupHierarchies()
	if err != nil {
		return err
	}
	// Containers whose shim went away with containerd.
	for range 3 {
		killed := 0
		for _, h := range hierarchies {
			killed += killCgroupTree(filepath.Join(h, rn.CgroupRoot))
		}
		if killed == 0 {
			break
		}
		time.Sleep(300 * time.Millisecond)
	}
	nodeDir := filepath.Join(dir, "node")
	// containerd's shims live outside the pods' cgroups: any process still running from the
	// node's directory (its cmdline names it) goes too.
	killProcessesNaming(nodeDir + "/")
	var errs []error
	// kube-proxy's chains and rules (it leaves them when stopped, as it should on a real node).
	if self, err := os.Executable(); err == nil {
		if out, err := exec.Command(self, "kube-proxy", "--cleanup", "--proxy-mode=iptables").CombinedOutput(); err != nil {
			errs = append(errs, fmt.Errorf("kube-proxy --cleanup: %v: %s", err, strings.TrimSpace(string(out))))
		}
	}
	removeKubeletChains()
	for _, m := range mountsUnder(nodeDir) {
		if err := syscall.Unmount(m, syscall.MNT_DETACH); err != nil && !errors.Is(err, syscall.EINVAL) && !errors.Is(err, syscall.ENOENT) {
			errs = append(errs, fmt.Errorf("unmounting %s: %w", m, err))
		}
	}
	for _, h := range hierarchies {
		if err := removeCgroupTree(filepath.Join(h, rn.CgroupRoot)); err != nil {
			errs = append(errs, err)
		}
	}
	if _, err := net.InterfaceByName(rn.Bridge); err == nil {
		if out, err := exec.Command("ip", "link", "del", rn.Bridge).CombinedOutput(); err != nil {
			errs = append(errs, fmt.Errorf("ip link del %s: %v: %s", rn.Bridge, err, strings.TrimSpace(string(out))))
		}
	}
	// What is left is files only: the next start begins from nothing.
	if len(errs) == 0 {
		if err := os.RemoveAll(nodeDir); err != nil {
			errs = append(errs, err)
		}
	}
	// Directories the kubelet, libcni and the shims make at fixed places whatever they are
	// told; removed when empty, so a machine's own kubelet or containerd loses nothing.
	for _, d := range []string{"/var/lib/kubelet/device-plugins", "/var/lib/kubelet", "/var/lib/cni/results", "/var/lib/cni", "/run/containerd/s", "/run/containerd"} {
		_ = os.Remove(d)
	}
	return errors.Join(errs...)
}

// mountsUnder lists the mount points at or under dir, deepest (latest) first.
func mountsUnder(dir string) []string {
	data, err := os.ReadFile("/proc/self/mountinfo")
	if err != nil {
		return nil
	}
	var out []string
	for _, line := range strings.Split(string(data), "\n") {
		fields := strings.Fields(line)
		if len(fields) < 5 {
			continue
		}
		mp := unescapeMount(fields[4])
		if mp == dir || strings.HasPrefix(mp, dir+"/") {
			out = append(out, mp)
		}
	}
	// Later mounts may sit on earlier ones: unmount in reverse order.
	for i, j := 0, len(out)-1; i < j; i, j = i+1, j-1 {
		out[i], out[j] = out[j], out[i]
	}
	return out
}

// unescapeMount undoes mountinfo's octal escapes (\040 for a space).
func unescapeMount(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+3 < len(s) {
			if n, err := strconv.ParseUint(s[i+1:i+4], 8, 8); err == nil {
				b.WriteByte(byte(n))
				i += 3
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// kubeletChains are the iptables chains every kubelet makes, whatever it is told: KUBE-FIREWALL
// (filter, jumped to from INPUT and OUTPUT), KUBE-KUBELET-CANARY (mangle, nat, filter) and
// KUBE-IPTABLES-HINT (mangle). Shared by every kubelet on the machine.
var kubeletChains = [][2]string{
	{"filter", "KUBE-FIREWALL"}, {"mangle", "KUBE-KUBELET-CANARY"}, {"nat", "KUBE-KUBELET-CANARY"},
	{"filter", "KUBE-KUBELET-CANARY"}, {"mangle", "KUBE-IPTABLES-HINT"},
}

// removeKubeletChains removes kubeletChains once no real node's kubelet runs on this machine
// any more (another plane's kubelet would only make them again).
func removeKubeletChains() {
	if kubeletRunning() {
		return
	}
	for _, ipt := range []string{"iptables", "ip6tables"} {
		if _, err := exec.LookPath(ipt); err != nil {
			continue
		}
		for _, chain := range []string{"INPUT", "OUTPUT"} {
			_ = exec.Command(ipt, "-t", "filter", "-D", chain, "-j", "KUBE-FIREWALL").Run()
		}
		for _, c := range kubeletChains {
			_ = exec.Command(ipt, "-t", c[0], "-F", c[1]).Run()
			_ = exec.Command(ipt, "-t", c[0], "-X", c[1]).Run()
		}
	}
}

// kubeletRunning says whether a real node's kubelet (`kpk-cluster kubelet`) runs on this machine.
func kubeletRunning() bool {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return false
	}
	for _, e := range entries {
		if _, err := strconv.Atoi(e.Name()); err != nil {
			continue
		}
		cmdline, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err == nil && strings.Contains(string(cmdline), "kpk-cluster\x00kubelet\x00") {
			return true
		}
	}
	return false
}

// killProcessesNaming SIGKILLs every process whose command line contains text.
func killProcessesNaming(text string) {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return
	}
	self := os.Getpid()
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == self {
			continue
		}
		cmdline, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err == nil && strings.Contains(string(cmdline), text) {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
	}
}

// killCgroupTree SIGKILLs every process in the cgroup dir and below; returns how many.
func killCgroupTree(dir string) int {
	killed := 0
	_ = filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || !d.IsDir() {
			return nil
		}
		data, err := os.ReadFile(filepath.Join(p, "cgroup.procs"))
		if err != nil {
			return nil
		}
		for _, line := range strings.Fields(string(data)) {
			if pid, err := strconv.Atoi(line); err == nil && pid > 0 {
				if syscall.Kill(pid, syscall.SIGKILL) == nil {
					killed++
				}
			}
		}
		return nil
	})
	return killed
}

// removeCgroupTree removes the cgroup dir and every cgroup below it, deepest first.
func removeCgroupTree(dir string) error {
	var dirs []string
	_ = filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && d.IsDir() {
			dirs = append(dirs, p)
		}
		return nil
	})
	sort.Sort(sort.Reverse(sort.StringSlice(dirs)))
	var last error
	for _, d := range dirs {
		// A cgroup whose last process just died may be busy for a moment.
		for attempt := 0; attempt < 20; attempt++ {
			if last = syscall.Rmdir(d); last == nil || errors.Is(last, syscall.ENOENT) {
				last = nil
				break
			}
			time.Sleep(100 * time.Millisecond)
		}
		if last != nil {
			return fmt.Errorf("removing cgroup %s: %w", d, last)
		}
	}
	return nil
}
