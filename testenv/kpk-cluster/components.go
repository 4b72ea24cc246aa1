// This file wires the real upstream components into the multi-call binary:
// each runner is what that component's own main package does.
package main

import (
	"context"
	"os"
	_ "time/tzdata" // CronJob time zones, as kube-controller-manager's main does

	"go.etcd.io/etcd/server/v3/etcdmain"
	_ "k8s.io/client-go/plugin/pkg/client/auth"
	"k8s.io/component-base/cli"
	"k8s.io/component-base/logs"
	_ "k8s.io/component-base/logs/json/register"
	_ "k8s.io/component-base/metrics/prometheus/clientgo"
	_ "k8s.io/component-base/metrics/prometheus/version"
	kubectlcmd "k8s.io/kubectl/pkg/cmd"
	kubectlutil "k8s.io/kubectl/pkg/cmd/util"
	apiserver "k8s.io/kubernetes/cmd/kube-apiserver/app"
	controllermanager "k8s.io/kubernetes/cmd/kube-controller-manager/app"
	proxy "k8s.io/kubernetes/cmd/kube-proxy/app"
	scheduler "k8s.io/kubernetes/cmd/kube-scheduler/app"
	kubelet "k8s.io/kubernetes/cmd/kubelet/app"
)

func runEtcd(args []string) int {
	etcdmain.Main(append([]string{"etcd"}, args...))
	return 0
}

func runAPIServer(_ []string) int {
	return cli.Run(apiserver.NewAPIServerCommand())
}

func runControllerManager(_ []string) int {
	return cli.Run(controllermanager.NewControllerManagerCommand())
}

func runScheduler(_ []string) int {
	return cli.Run(scheduler.NewSchedulerCommand())
}

func runKubectl(_ []string) int {
	logs.GlogSetter(kubectlcmd.GetLogVerbosity(os.Args)) //nolint:errcheck
	command := kubectlcmd.NewDefaultKubectlCommand()
	if err := cli.RunNoErrOutput(command); err != nil {
		kubectlutil.CheckErr(err)
	}
	return 0
}

// runKubelet is the real kubelet of the real node (see realnode.go).
func runKubelet(_ []string) int {
	return cli.Run(kubelet.NewKubeletCommand(context.Background()))
}

// runKubeProxy is the real kube-proxy of the real node (see realnode.go).
func runKubeProxy(_ []string) int {
	return cli.Run(proxy.NewProxyCommand())
}
