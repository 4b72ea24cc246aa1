// This file is the node simulator: it plays the kubelets of a few Nodes so
// that pods go through a real lifecycle without containers.
//
// It registers the Nodes (Ready, with capacity) and renews their Leases in
// kube-node-lease, so the node lifecycle controller never taints them. For
// every pod bound to one of its nodes it writes the status a kubelet would:
//
//   - restartPolicy Always: Running, containers running; Ready once
//     kubepkg.dev/sim-ready-after has passed (default at once).
//   - restartPolicy Never or OnFailure (Jobs, Helm hooks and tests): Running,
//     then after kubepkg.dev/sim-exit-after (default 1s) every container
//     exits 0 and the pod Succeeds.
//   - kubepkg.dev/sim: fail — the containers exit with
//     kubepkg.dev/sim-exit-code (default 1) after sim-exit-after: the pod
//     Fails under restartPolicy Never; under OnFailure and Always the kubelet
//     restarts them, so the pod stays Running, never Ready, in
//     CrashLoopBackOff with a growing restartCount.
//   - kubepkg.dev/sim: unready — Running, containers running, never Ready.
//
// These are pod annotations, so put them on a pod template. A pod being
// deleted is removed at once, as a kubelet does once its containers stopped.
// Each node also serves the kubelet API's /containerLogs on a loopback port
// (log text from kubepkg.dev/sim-log, or one line saying the container
// started), so `kubectl logs` and log-reading clients work.
package main

import (
	"context"
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"encoding/hex"
	"flag"
	"fmt"
	"net/http"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/client-go/util/retry"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/component-base/version"
	"k8s.io/utils/ptr"
)

// Pod annotations that choose what the simulated containers do.
const (
	annSim        = "kubepkg.dev/sim"             // "" or "ok" | "fail" | "unready"
	annReadyAfter = "kubepkg.dev/sim-ready-after" // Go duration, long-running pods
	annExitAfter  = "kubepkg.dev/sim-exit-after"  // Go duration, run-to-completion and failing pods
	annExitCode   = "kubepkg.dev/sim-exit-code"   // integer, with sim: fail
	annLog        = "kubepkg.dev/sim-log"         // text served as every container's log
)

const defaultExitAfter = time.Second

type nodeSim struct {
	cs    kubernetes.Interface
	nodes map[string]int // node name -> kubelet port
	pods  cache.Indexer
	queue workqueue.TypedRateLimitingInterface[types.NamespacedName]

	mu      sync.Mutex
	podIPs  map[types.UID]string
	nextIP  int
	nodeSeq []string
}

func runNodeSim(args []string) int {
	fs := flag.NewFlagSet("nodesim", flag.ContinueOnError)
	kubeconfig := fs.String("kubeconfig", "", "kubeconfig of the simulator's identity")
	nodeList := fs.String("nodes", "kpk-node-1", "comma-separated node names")
	portList := fs.String("kubelet-ports", "", "comma-separated loopback ports for each node's kubelet API")
	certFile := fs.String("tls-cert-file", "", "kubelet serving certificate")
	keyFile := fs.String("tls-private-key-file", "", "kubelet serving key")
	clientCA := fs.String("client-ca-file", "", "CA that signs the API server's kubelet client certificate")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	names := strings.Split(*nodeList, ",")
	ports := strings.Split(*portList, ",")
	if len(ports) != len(names) {
		fmt.Fprintf(os.Stderr, "nodesim: %d nodes but %d kubelet ports\n", len(names), len(ports))
		return 2
	}
	cfg, err := clientcmd.BuildConfigFromFlags("", *kubeconfig)
	if err != nil {
		fmt.Fprintf(os.Stderr, "nodesim: %v\n", err)
		return 1
	}
	cfg.QPS, cfg.Burst = 200, 400
	cfg.UserAgent = "kubepkg-nodesim"
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		fmt.Fprintf(os.Stderr, "nodesim: %v\n", err)
		return 1
	}
	sim := &nodeSim{
		cs:     cs,
		nodes:  map[string]int{},
		podIPs: map[types.UID]string{},
		queue:  workqueue.NewTypedRateLimitingQueue(workqueue.DefaultTypedControllerRateLimiter[types.NamespacedName]()),
	}
	for i, n := range names {
		port, err := strconv.Atoi(ports[i])
		if err != nil {
			fmt.Fprintf(os.Stderr, "nodesim: bad kubelet port %q\n", ports[i])
			return 2
		}
		sim.nodes[n] = port
		sim.nodeSeq = append(sim.nodeSeq, n)
	}
	ctx, cancel := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer cancel()

	factory := informers.NewSharedInformerFactoryWithOptions(cs, 0,
		informers.WithTweakListOptions(func(o *metav1.ListOptions) { o.FieldSelector = "spec.nodeName!=" }))
	podInformer := factory.Core().V1().Pods().Informer()
	sim.pods = podInformer.GetIndexer()
	enqueue := func(obj any) {
		if d, ok := obj.(cache.DeletedFinalStateUnknown); ok {
			obj = d.Obj
		}
		if pod, ok := obj.(*corev1.Pod); ok && sim.owns(pod) {
			sim.queue.Add(types.NamespacedName{Namespace: pod.Namespace, Name: pod.Name})
		}
	}
	if _, err := podInformer.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    enqueue,
		UpdateFunc: func(_, obj any) { enqueue(obj) },
		DeleteFunc: enqueue,
	}); err != nil {
		fmt.Fprintf(os.Stderr, "nodesim: %v\n", err)
		return 1
	}
	factory.Start(ctx.Done())
	factory.WaitForCacheSync(ctx.Done())
	for _, n := range sim.nodeSeq {
		if err := sim.registerNode(ctx, n); err != nil {
			fmt.Fprintf(os.Stderr, "nodesim: registering node %s: %v\n", n, err)
			return 1
		}
		if err := sim.serveKubeletAPI(n, *certFile, *keyFile, *clientCA); err != nil {
			fmt.Fprintf(os.Stderr, "nodesim: kubelet API of %s: %v\n", n, err)
			return 1
		}
		go sim.heartbeat(ctx, n)
	}

	fmt.Fprintf(os.Stderr, "nodesim: simulating nodes %s\n", strings.Join(sim.nodeSeq, ", "))
	for range 4 {
		go wait.UntilWithContext(ctx, sim.work, time.Second)
	}
	<-ctx.Done()
	sim.queue.ShutDown()
	return 0
}

func (s *nodeSim) owns(pod *corev1.Pod) bool {
	_, ok := s.nodes[pod.Spec.NodeName]
	return ok
}

// nodeObject is the Node as its kubelet registers and reports it.
func (s *nodeSim) nodeObject(name string) *corev1.Node {
	capacity := corev1.ResourceList{
		corev1.ResourceCPU:              resource.MustParse("16"),
		corev1.ResourceMemory:           resource.MustParse("64Gi"),
		corev1.ResourceEphemeralStorage: resource.MustParse("200Gi"),
		corev1.ResourcePods:             resource.MustParse("110"),
	}
	now := metav1.Now()
	cond := func(t corev1.NodeConditionType, st corev1.ConditionStatus, reason, msg string) corev1.NodeCondition {
		return corev1.NodeCondition{Type: t, Status: st, Reason: reason, Message: msg, LastHeartbeatTime: now, LastTransitionTime: now}
	}
	return &corev1.Node{
		ObjectMeta: metav1.ObjectMeta{
			Name: name,
			Labels: map[string]string{
				"kubernetes.io/hostname": name,
				"kubernetes.io/os":       "linux",
				"kubernetes.io/arch":     "amd64",
				"kubepkg.dev/simulated":  "true",
			},
		},
		Status: corev1.NodeStatus{
			Capacity:    capacity,
			Allocatable: capacity,
			Phase:       corev1.NodeRunning,
			Conditions: []corev1.NodeCondition{
				cond(corev1.NodeMemoryPressure, corev1.ConditionFalse, "KubeletHasSufficientMemory", "kubelet has sufficient memory available"),
				cond(corev1.NodeDiskPressure, corev1.ConditionFalse, "KubeletHasNoDiskPressure", "kubelet has no disk pressure"),
				cond(corev1.NodePIDPressure, corev1.ConditionFalse, "KubeletHasSufficientPID", "kubelet has sufficient PID available"),
				cond(corev1.NodeReady, corev1.ConditionTrue, "KubeletReady", "kubelet is posting ready status (simulated by kubepkg nodesim)"),
			},
			Addresses: []corev1.NodeAddress{
				{Type: corev1.NodeInternalIP, Address: "127.0.0.1"},
				{Type: corev1.NodeHostName, Address: name},
			},
			DaemonEndpoints: corev1.NodeDaemonEndpoints{KubeletEndpoint: corev1.DaemonEndpoint{Port: int32(s.nodes[name])}},
			NodeInfo: corev1.NodeSystemInfo{
				MachineID:               name,
				SystemUUID:              name,
				BootID:                  name,
				KernelVersion:           "simulated",
				OSImage:                 "kubepkg nodesim",
				ContainerRuntimeVersion: "sim://1.0.0",
				KubeletVersion:          version.Get().GitVersion,
				OperatingSystem:         "linux",
				Architecture:            "amd64",
			},
		},
	}
}

func (s *nodeSim) registerNode(ctx context.Context, name string) error {
	want := s.nodeObject(name)
	return wait.PollUntilContextTimeout(ctx, 200*time.Millisecond, 30*time.Second, true, func(ctx context.Context) (bool, error) {
		existing, err := s.cs.CoreV1().Nodes().Get(ctx, name, metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			_, err = s.cs.CoreV1().Nodes().Create(ctx, want, metav1.CreateOptions{})
			if err != nil {
				fmt.Fprintf(os.Stderr, "nodesim: creating node %s: %v\n", name, err)
			}
			return err == nil, nil
		}
		if err != nil {
			return false, nil
		}
		existing.Status = want.Status
		_, err = s.cs.CoreV1().Nodes().UpdateStatus(ctx, existing, metav1.UpdateOptions{})
		return err == nil, nil
	})
}

// heartbeat renews the node's Lease every 10 s and reports its status every
// minute, as a kubelet does.
func (s *nodeSim) heartbeat(ctx context.Context, name string) {
	leases := s.cs.CoordinationV1().Leases(corev1.NamespaceNodeLease)
	lastStatus := time.Now()
	wait.UntilWithContext(ctx, func(ctx context.Context) {
		now := metav1.NewMicroTime(time.Now())
		lease, err := leases.Get(ctx, name, metav1.GetOptions{})
		switch {
		case apierrors.IsNotFound(err):
			node, nerr := s.cs.CoreV1().Nodes().Get(ctx, name, metav1.GetOptions{})
			if nerr != nil {
				fmt.Fprintf(os.Stderr, "nodesim: node %s: %v\n", name, nerr)
				return
			}
			_, err = leases.Create(ctx, &coordinationv1.Lease{
				ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: corev1.NamespaceNodeLease,
					OwnerReferences: []metav1.OwnerReference{{APIVersion: "v1", Kind: "Node", Name: name, UID: node.UID}}},
				Spec: coordinationv1.LeaseSpec{HolderIdentity: ptr.To(name), LeaseDurationSeconds: ptr.To[int32](40), RenewTime: &now},
			}, metav1.CreateOptions{})
		case err == nil:
			lease.Spec.RenewTime = &now
			_, err = leases.Update(ctx, lease, metav1.UpdateOptions{})
		}
		if err != nil {
			fmt.Fprintf(os.Stderr, "nodesim: lease of %s: %v\n", name, err)
		}
		if time.Since(lastStatus) >= time.Minute {
			if err := s.registerNode(ctx, name); err != nil {
				fmt.Fprintf(os.Stderr, "nodesim: status of %s: %v\n", name, err)
			} else {
				lastStatus = time.Now()
			}
		}
	}, 10*time.Second)
}

func (s *nodeSim) work(ctx context.Context) {
	for {
		key, quit := s.queue.Get()
		if quit {
			return
		}
		requeue, err := s.syncPod(ctx, key)
		switch {
		case err != nil:
			fmt.Fprintf(os.Stderr, "nodesim: pod %s: %v\n", key, err)
			s.queue.AddRateLimited(key)
		default:
			s.queue.Forget(key)
			if requeue > 0 {
				s.queue.AddAfter(key, requeue)
			}
		}
		s.queue.Done(key)
	}
}

// podIP hands out a stable, unique pod address per pod.
func (s *nodeSim) podIP(pod *corev1.Pod) string {
	if pod.Status.PodIP != "" {
		return pod.Status.PodIP
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if ip, ok := s.podIPs[pod.UID]; ok {
		return ip
	}
	s.nextIP++
	n := s.nextIP
	// 10.128.0.0/9, one address per pod in the order they start (any number of nodes: a
	// per-node block would run past an octet's 255 beyond 16 nodes).
	ip := fmt.Sprintf("10.%d.%d.%d", 128+(n/(256*254))%128, (n/254)%256, n%254+1)
	s.podIPs[pod.UID] = ip
	return ip
}

func durationAnnotation(pod *corev1.Pod, key string, def time.Duration) time.Duration {
	if v, ok := pod.Annotations[key]; ok {
		if d, err := time.ParseDuration(v); err == nil && d >= 0 {
			return d
		}
		fmt.Fprintf(os.Stderr, "nodesim: pod %s/%s: annotation %s=%q is not a Go duration; using %s\n", pod.Namespace, pod.Name, key, v, def)
	}
	return def
}

// syncPod writes the kubelet's view of one pod; it returns when to look again.
func (s *nodeSim) syncPod(ctx context.Context, key types.NamespacedName) (time.Duration, error) {
	obj, exists, err := s.pods.GetByKey(key.String())
	if err != nil || !exists {
		return 0, err
	}
	pod := obj.(*corev1.Pod)
	if pod.DeletionTimestamp != nil {
		err := s.cs.CoreV1().Pods(pod.Namespace).Delete(ctx, pod.Name, metav1.DeleteOptions{
			GracePeriodSeconds: ptr.To[int64](0),
			Preconditions:      &metav1.Preconditions{UID: &pod.UID},
		})
		if apierrors.IsNotFound(err) || apierrors.IsConflict(err) {
			return 0, nil
		}
		return 0, err
	}
	if pod.Status.Phase == corev1.PodSucceeded || pod.Status.Phase == corev1.PodFailed {
		return 0, nil
	}
	now := time.Now()
	start := now
	if pod.Status.StartTime != nil {
		start = pod.Status.StartTime.Time
	}
	status, requeue := s.desiredStatus(pod, start, now)
	if statusEqual(&pod.Status, status) {
		return requeue, nil
	}
	updated := pod.DeepCopy()
	updated.Status = *status
	err = retry.RetryOnConflict(retry.DefaultRetry, func() error {
		_, err := s.cs.CoreV1().Pods(pod.Namespace).UpdateStatus(ctx, updated, metav1.UpdateOptions{})
		if apierrors.IsConflict(err) {
			fresh, gerr := s.cs.CoreV1().Pods(pod.Namespace).Get(ctx, pod.Name, metav1.GetOptions{})
			if gerr != nil {
				return gerr
			}
			fresh.Status = *status
			updated = fresh
		}
		return err
	})
	if apierrors.IsNotFound(err) {
		return 0, nil
	}
	return requeue, err
}

// statusEqual compares the parts of a status this simulator decides, so an
// unchanged pod is not rewritten (timestamps aside).
func statusEqual(a, b *corev1.PodStatus) bool {
	if a.Phase != b.Phase || a.PodIP != b.PodIP || len(a.ContainerStatuses) != len(b.ContainerStatuses) {
		return false
	}
	for i := range a.ContainerStatuses {
		x, y := a.ContainerStatuses[i], b.ContainerStatuses[i]
		if x.Ready != y.Ready || x.RestartCount != y.RestartCount ||
			(x.State.Running == nil) != (y.State.Running == nil) ||
			(x.State.Terminated == nil) != (y.State.Terminated == nil) ||
			(x.State.Waiting == nil) != (y.State.Waiting == nil) {
			return false
		}
	}
	ready := func(st *corev1.PodStatus) corev1.ConditionStatus {
		for _, c := range st.Conditions {
			if c.Type == corev1.PodReady {
				return c.Status
			}
		}
		return ""
	}
	return ready(a) == ready(b)
}

func containerID(pod *corev1.Pod, name string, restart int32) string {
	sum := sha256.Sum256([]byte(fmt.Sprintf("%s/%s/%d", pod.UID, name, restart)))
	return "sim://" + hex.EncodeToString(sum[:])
}

func imageID(image string) string {
	sum := sha256.Sum256([]byte(image))
	return image + "@sha256:" + hex.EncodeToString(sum[:])
}

// desiredStatus computes the pod's status at now for containers started at
// start, and how long until it changes by itself (0: never).
func (s *nodeSim) desiredStatus(pod *corev1.Pod, start, now time.Time) (*corev1.PodStatus, time.Duration) {
	mode := pod.Annotations[annSim]
	exitAfter := durationAnnotation(pod, annExitAfter, defaultExitAfter)
	readyAfter := durationAnnotation(pod, annReadyAfter, 0)
	exitCode := int32(1)
	if v, ok := pod.Annotations[annExitCode]; ok {
		if n, err := strconv.Atoi(v); err == nil && n != 0 {
			exitCode = int32(n)
		}
	}
	runToCompletion := pod.Spec.RestartPolicy == corev1.RestartPolicyNever || pod.Spec.RestartPolicy == corev1.RestartPolicyOnFailure
	elapsed := now.Sub(start)
	startTime := metav1.NewTime(start)
	exitTime := metav1.NewTime(start.Add(exitAfter))

	st := &corev1.PodStatus{
		HostIP:    "127.0.0.1",
		HostIPs:   []corev1.HostIP{{IP: "127.0.0.1"}},
		StartTime: &startTime,
		QOSClass:  pod.Status.QOSClass,
	}
	ip := s.podIP(pod)
	if pod.Spec.HostNetwork {
		ip = "127.0.0.1"
	}
	st.PodIP = ip
	st.PodIPs = []corev1.PodIP{{IP: ip}}

	for _, c := range pod.Spec.InitContainers {
		st.InitContainerStatuses = append(st.InitContainerStatuses, corev1.ContainerStatus{
			Name: c.Name, Image: c.Image, ImageID: imageID(c.Image), ContainerID: containerID(pod, c.Name, 0),
			State: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{
				ExitCode: 0, Reason: "Completed", StartedAt: startTime, FinishedAt: startTime, ContainerID: containerID(pod, c.Name, 0)}},
		})
	}

	var requeue time.Duration
	phase := corev1.PodRunning
	containersReady := false
	running := func(c corev1.Container, restarts int32, ready bool) corev1.ContainerStatus {
		return corev1.ContainerStatus{
			Name: c.Name, Image: c.Image, ImageID: imageID(c.Image), ContainerID: containerID(pod, c.Name, restarts),
			Ready: ready, Started: ptr.To(true), RestartCount: restarts,
			State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{StartedAt: startTime}},
		}
	}
	terminated := func(c corev1.Container, code int32, reason string) corev1.ContainerStatus {
		return corev1.ContainerStatus{
			Name: c.Name, Image: c.Image, ImageID: imageID(c.Image), ContainerID: containerID(pod, c.Name, 0),
			Started: ptr.To(false),
			State: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{
				ExitCode: code, Reason: reason, StartedAt: startTime, FinishedAt: exitTime, ContainerID: containerID(pod, c.Name, 0)}},
		}
	}

	switch {
	case mode == "fail" && pod.Spec.RestartPolicy == corev1.RestartPolicyNever:
		if elapsed >= exitAfter {
			phase = corev1.PodFailed
			for _, c := range pod.Spec.Containers {
				st.ContainerStatuses = append(st.ContainerStatuses, terminated(c, exitCode, "Error"))
			}
		} else {
			requeue = exitAfter - elapsed
			for _, c := range pod.Spec.Containers {
				st.ContainerStatuses = append(st.ContainerStatuses, running(c, 0, false))
			}
		}
	case mode == "fail":
		// Restarted in place by the kubelet: crash, back off, crash again.
		period := max(exitAfter, 100*time.Millisecond)
		restarts := int32(elapsed / period)
		requeue = period - elapsed%period
		for _, c := range pod.Spec.Containers {
			cs := corev1.ContainerStatus{
				Name: c.Name, Image: c.Image, ImageID: imageID(c.Image), ContainerID: containerID(pod, c.Name, restarts),
				RestartCount: restarts, Started: ptr.To(restarts == 0),
			}
			if restarts == 0 {
				cs.State = corev1.ContainerState{Running: &corev1.ContainerStateRunning{StartedAt: startTime}}
			} else {
				cs.State = corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: "CrashLoopBackOff",
					Message: fmt.Sprintf("back-off restarting failed container %s in pod %s (simulated)", c.Name, pod.Name)}}
				cs.LastTerminationState = corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{
					ExitCode: exitCode, Reason: "Error", StartedAt: startTime, FinishedAt: metav1.NewTime(now), ContainerID: containerID(pod, c.Name, restarts-1)}}
			}
			st.ContainerStatuses = append(st.ContainerStatuses, cs)
		}
	case mode == "unready":
		for _, c := range pod.Spec.Containers {
			st.ContainerStatuses = append(st.ContainerStatuses, running(c, 0, false))
		}
	case runToCompletion:
		if elapsed >= exitAfter {
			phase = corev1.PodSucceeded
			for _, c := range pod.Spec.Containers {
				st.ContainerStatuses = append(st.ContainerStatuses, terminated(c, 0, "Completed"))
			}
		} else {
			requeue = exitAfter - elapsed
			containersReady = elapsed >= readyAfter
			for _, c := range pod.Spec.Containers {
				st.ContainerStatuses = append(st.ContainerStatuses, running(c, 0, containersReady))
			}
		}
	default:
		containersReady = elapsed >= readyAfter
		if !containersReady {
			requeue = readyAfter - elapsed
		}
		for _, c := range pod.Spec.Containers {
			st.ContainerStatuses = append(st.ContainerStatuses, running(c, 0, containersReady))
		}
	}
	st.Phase = phase

	// Conditions, keeping the transition times of unchanged ones.
	old := map[corev1.PodConditionType]corev1.PodCondition{}
	for _, c := range pod.Status.Conditions {
		old[c.Type] = c
	}
	setCond := func(t corev1.PodConditionType, ok bool, reason string) {
		c := corev1.PodCondition{Type: t, Status: corev1.ConditionFalse, Reason: reason}
		if ok {
			c.Status, c.Reason = corev1.ConditionTrue, ""
		}
		if prev, found := old[t]; found && prev.Status == c.Status {
			c.LastTransitionTime = prev.LastTransitionTime
		} else {
			c.LastTransitionTime = metav1.NewTime(now)
		}
		st.Conditions = append(st.Conditions, c)
	}
	terminal := phase == corev1.PodSucceeded || phase == corev1.PodFailed
	readyReason := "ContainersNotReady"
	if terminal {
		readyReason = "PodCompleted"
	}
	podReady := containersReady && !terminal
	for _, g := range pod.Spec.ReadinessGates {
		gateOK := false
		if c, ok := old[g.ConditionType]; ok && c.Status == corev1.ConditionTrue {
			gateOK = true
		}
		podReady = podReady && gateOK
	}
	setCond(corev1.PodReadyToStartContainers, !terminal, "")
	setCond(corev1.PodInitialized, true, "")
	setCond(corev1.PodReady, podReady, readyReason)
	setCond(corev1.ContainersReady, containersReady && !terminal, readyReason)
	// Conditions written by others (PodScheduled, readiness gates, disruption) stay.
	for _, c := range pod.Status.Conditions {
		switch c.Type {
		case corev1.PodReadyToStartContainers, corev1.PodInitialized, corev1.PodReady, corev1.ContainersReady:
		default:
			st.Conditions = append(st.Conditions, c)
		}
	}
	return st, requeue
}

// serveKubeletAPI serves the parts of a node's kubelet API that the API
// server proxies for clients: container logs.
func (s *nodeSim) serveKubeletAPI(node, certFile, keyFile, clientCA string) error {
	cert, err := tls.LoadX509KeyPair(certFile, keyFile)
	if err != nil {
		return err
	}
	caPEM, err := os.ReadFile(clientCA)
	if err != nil {
		return err
	}
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(caPEM)
	mux := http.NewServeMux()
	mux.HandleFunc("/healthz", func(w http.ResponseWriter, _ *http.Request) { fmt.Fprint(w, "ok") })
	mux.HandleFunc("/containerLogs/{namespace}/{pod}/{container}", func(w http.ResponseWriter, r *http.Request) {
		s.serveLogs(w, r, node)
	})
	srv := &http.Server{
		Addr:              fmt.Sprintf("127.0.0.1:%d", s.nodes[node]),
		Handler:           mux,
		ReadHeaderTimeout: 10 * time.Second,
		TLSConfig: &tls.Config{Certificates: []tls.Certificate{cert}, ClientCAs: pool,
			ClientAuth: tls.RequireAndVerifyClientCert, MinVersion: tls.VersionTLS12},
	}
	ln, err := tls.Listen("tcp", srv.Addr, srv.TLSConfig)
	if err != nil {
		return err
	}
	go func() {
		if err := srv.Serve(ln); err != nil && err != http.ErrServerClosed {
			fmt.Fprintf(os.Stderr, "nodesim: kubelet API of %s: %v\n", node, err)
		}
	}()
	return nil
}

func (s *nodeSim) serveLogs(w http.ResponseWriter, r *http.Request, node string) {
	ns, name, container := r.PathValue("namespace"), r.PathValue("pod"), r.PathValue("container")
	obj, exists, err := s.pods.GetByKey(ns + "/" + name)
	if err != nil || !exists {
		http.Error(w, fmt.Sprintf("pod %s/%s not found on node %s", ns, name, node), http.StatusNotFound)
		return
	}
	pod := obj.(*corev1.Pod)
	found := false
	for _, c := range append(append([]corev1.Container{}, pod.Spec.InitContainers...), pod.Spec.Containers...) {
		found = found || c.Name == container
	}
	if !found || pod.Spec.NodeName != node {
		http.Error(w, fmt.Sprintf("container %s not found in pod %s/%s on node %s", container, ns, name, node), http.StatusNotFound)
		return
	}
	text, ok := pod.Annotations[annLog]
	if !ok {
		text = fmt.Sprintf("kubepkg nodesim: container %s of pod %s/%s started\n", container, ns, name)
	}
	if text != "" && !strings.HasSuffix(text, "\n") {
		text += "\n"
	}
	lines := strings.SplitAfter(text, "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	if tail := r.URL.Query().Get("tailLines"); tail != "" {
		if n, err := strconv.Atoi(tail); err == nil && n >= 0 && n < len(lines) {
			lines = lines[len(lines)-n:]
		}
	}
	w.Header().Set("Content-Type", "text/plain")
	for _, l := range lines {
		fmt.Fprint(w, l)
	}
}
