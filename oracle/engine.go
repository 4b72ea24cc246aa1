// Rendering through Helm's real engine (pkg/engine) over an in-memory chart named "corpus".
//
// Two paths are used for every case:
//   - helmRender: engine.Engine{}.Render, exactly as `helm template` renders a chart; its error
//     text is Helm's (reformatted) error.
//   - goRender: the same templates, function map and render values executed through
//     text/template directly (Helm's own unexported helpers reached with go:linkname), giving the
//     raw text/template error that kubepkg's engine must reproduce.
//
// Both paths must agree on successful output; the oracle refuses to write a case where they don't.
package main

import (
	"context"
	"fmt"
	"path"
	"sort"
	"strings"
	"text/template"
	_ "unsafe" // go:linkname

	chart "helm.sh/helm/v4/pkg/chart"
	"helm.sh/helm/v4/pkg/chart/common"
	"helm.sh/helm/v4/pkg/chart/common/util"
	chartv2 "helm.sh/helm/v4/pkg/chart/v2"
	"helm.sh/helm/v4/pkg/engine"
)

const (
	chartName    = "corpus"
	releaseName  = "corpus-release"
	releaseNS    = "default"
	mainTemplate = "main.tpl"
)

// mainKey is the name Helm gives the main template: <chart>/templates/<file>.
var mainKey = path.Join(chartName, "templates", mainTemplate)

//go:linkname helmFuncMap helm.sh/helm/v4/pkg/engine.funcMap
func helmFuncMap() template.FuncMap

//go:linkname helmInitFunMap helm.sh/helm/v4/pkg/engine.Engine.initFunMap
func helmInitFunMap(e engine.Engine, ctx context.Context, t *template.Template)

// renderable mirrors pkg/engine.renderable field for field (layout must match).
type renderable struct {
	tpl      string
	vals     common.Values
	basePath string
}

//go:linkname helmAllTemplates helm.sh/helm/v4/pkg/engine.allTemplates
func helmAllTemplates(c chart.Charter, vals common.Values) map[string]renderable

// FunctionNames returns the names of every function Helm's engine exposes to templates, sorted.
func FunctionNames() []string {
	fm := helmFuncMap()
	names := make([]string, 0, len(fm))
	for k := range fm {
		names = append(names, k)
	}
	sort.Strings(names)
	return names
}

// buildChart makes the in-memory chart for a case.
func buildChart(templates map[string]string) *chartv2.Chart {
	c := &chartv2.Chart{
		Metadata: &chartv2.Metadata{Name: chartName, Version: "0.1.0", APIVersion: "v2"},
	}
	names := make([]string, 0, len(templates))
	for n := range templates {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		c.Templates = append(c.Templates, &common.File{Name: path.Join("templates", n), Data: []byte(templates[n])})
	}
	return c
}

// renderValues reads the values YAML as Helm reads a values file and builds the top-level data.
func renderValues(c *chartv2.Chart, valuesYAML string) (common.Values, error) {
	vals, err := common.ReadValues([]byte(valuesYAML))
	if err != nil {
		return nil, fmt.Errorf("values: %w", err)
	}
	opts := common.ReleaseOptions{Name: releaseName, Namespace: releaseNS, Revision: 1, IsInstall: true}
	return util.ToRenderValues(c, vals, opts, nil)
}

// Result is what one engine path produced.
type Result struct {
	Output string
	Err    error
}

func helmRender(c *chartv2.Chart, top common.Values) Result {
	out, err := engine.Engine{}.Render(c, top)
	if err != nil {
		return Result{Err: err}
	}
	return Result{Output: out[mainKey]}
}

// goRender repeats pkg/engine's render loop without its error reformatting.
func goRender(c *chartv2.Chart, top common.Values) (res Result) {
	defer func() {
		if r := recover(); r != nil {
			res = Result{Err: fmt.Errorf("rendering template failed: %v", r)}
		}
	}()
	tpls := helmAllTemplates(c, top)
	t := template.New("gotpl")
	t.Option("missingkey=zero")
	helmInitFunMap(engine.Engine{}, context.Background(), t)
	keys := make([]string, 0, len(tpls))
	for k := range tpls {
		keys = append(keys, k)
	}
	sort.Sort(sort.Reverse(byPathLen(keys)))
	for _, k := range keys {
		if _, err := t.New(k).Parse(tpls[k].tpl); err != nil {
			return Result{Err: err}
		}
	}
	var mainOut string
	for _, k := range keys {
		if strings.HasPrefix(path.Base(k), "_") {
			continue
		}
		vals := tpls[k].vals
		vals["Template"] = common.Values{"Name": k, "BasePath": tpls[k].basePath}
		var buf strings.Builder
		if err := t.ExecuteTemplate(&buf, k, vals); err != nil {
			return Result{Err: err}
		}
		if k == mainKey {
			mainOut = strings.ReplaceAll(buf.String(), "<no value>", "")
		}
	}
	return Result{Output: mainOut}
}

type byPathLen []string

func (p byPathLen) Len() int      { return len(p) }
func (p byPathLen) Swap(i, j int) { p[j], p[i] = p[i], p[j] }
func (p byPathLen) Less(i, j int) bool {
	a, b := p[i], p[j]
	ca, cb := strings.Count(a, "/"), strings.Count(b, "/")
	if ca == cb {
		return a < b
	}
	return ca < cb
}
