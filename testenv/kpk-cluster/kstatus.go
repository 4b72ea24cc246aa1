package main

// kpk-cluster kstatus: the real kstatus library
// (sigs.k8s.io/cli-utils/pkg/kstatus/status) as a test oracle for kubepkg's
// own port of it (crates/kubepkg-kube/src/readiness.rs) and for the
// conditions kubepkg writes on Package objects.
//
// Input on stdin: one JSON array of Kubernetes objects (full objects,
// status included). Output on stdout: one JSON array, in the same order,
// of what status.Compute says about each:
//
//	{"status": "Current|InProgress|Failed|Terminating|NotFound|Unknown",
//	 "message": "...", "reason": "..."}
//
// reason is that of the condition Compute reports with its result (the
// Reconciling or Stalled condition it read or made up), "" when none. No
// cluster is contacted. An object Compute cannot judge (a malformed field)
// fails the whole run: exit 1 with the object's index on stderr.

import (
	"encoding/json"
	"fmt"
	"io"
	"os"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	utiljson "k8s.io/apimachinery/pkg/util/json"
	"sigs.k8s.io/cli-utils/pkg/kstatus/status"
)

type kstatusResult struct {
	Status  string `json:"status"`
	Message string `json:"message"`
	Reason  string `json:"reason"`
}

func runKstatus(args []string) int {
	if len(args) != 0 {
		fmt.Fprintln(os.Stderr, "usage: kpk-cluster kstatus < objects.json  (a JSON array of objects)")
		return 2
	}
	in, err := io.ReadAll(os.Stdin)
	if err != nil {
		fmt.Fprintf(os.Stderr, "kstatus: reading stdin: %v\n", err)
		return 1
	}
	// apimachinery's decoder keeps integers as int64, as unstructured
	// objects read from the API server have them (encoding/json would make
	// float64, which unstructured.NestedInt64 refuses).
	var objects []map[string]interface{}
	if err := utiljson.Unmarshal(in, &objects); err != nil {
		fmt.Fprintf(os.Stderr, "kstatus: stdin is not a JSON array of objects: %v\n", err)
		return 1
	}
	out := make([]kstatusResult, 0, len(objects))
	for i, obj := range objects {
		res, err := status.Compute(&unstructured.Unstructured{Object: obj})
		if err != nil {
			fmt.Fprintf(os.Stderr, "kstatus: object %d: %v\n", i, err)
			return 1
		}
		r := kstatusResult{Status: res.Status.String(), Message: res.Message}
		if len(res.Conditions) > 0 {
			r.Reason = res.Conditions[0].Reason
		}
		out = append(out, r)
	}
	if err := json.NewEncoder(os.Stdout).Encode(out); err != nil {
		fmt.Fprintf(os.Stderr, "kstatus: writing stdout: %v\n", err)
		return 1
	}
	return 0
}
