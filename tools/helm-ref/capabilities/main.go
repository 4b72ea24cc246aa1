// Command capabilities prints Helm's default Capabilities (what `helm template` uses without a
// cluster) as JSON: the Kubernetes version, the API version set and Helm's build info. Its
// output is committed as crates/kubepkg-chart/src/default_api_versions.txt.
package main

import (
	"encoding/json"
	"os"

	"helm.sh/helm/v4/pkg/chart/common"
)

func main() {
	c := common.DefaultCapabilities
	out := map[string]any{
		"KubeVersion": map[string]string{"Version": c.KubeVersion.Version, "Major": c.KubeVersion.Major, "Minor": c.KubeVersion.Minor},
		"APIVersions": c.APIVersions,
		"HelmVersion": c.HelmVersion,
	}
	enc := json.NewEncoder(os.Stdout)
	enc.SetIndent("", "  ")
	_ = enc.Encode(out)
}
