package diff

import (
	"bytes"
	"encoding/json"
	"html/template"
)

// indented is v as indented JSON, with <, > and & as they are: the template
// escapes them for HTML, so a person reads the target's text.
func indented(v any) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	_ = enc.Encode(v)
	return b.String()
}

// page is diff.html. html/template escapes every string: cell names,
// values, output and errors come from hostile targets.
var page = template.Must(template.New("diff").Funcs(template.FuncMap{
	"json": indented,
	"obs": func(c CellResult, i int) Observation {
		if i < len(c.Observations) {
			return c.Observations[i]
		}
		return Observation{}
	},
}).Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>codemode-conformance diff</title>
<style>
body{font-family:system-ui,sans-serif;margin:1rem;max-width:80rem}
table{border-collapse:collapse;width:100%}td,th{border:1px solid #ccc;padding:.3rem;vertical-align:top;text-align:left}
pre{white-space:pre-wrap;word-break:break-all;margin:0;font-size:.8rem;max-height:20rem;overflow:auto}
.same{color:#555}.shape{background:#eef6ff}.behavioural{background:#fff0f0}.new,.changed{font-weight:bold;color:#a00}
</style></head><body>
<h1>codemode-conformance diff</h1>
<p>Harness {{.Harness}}. Base target: <code>{{(index .Targets 0).Spec}}</code>; every other target is compared with it.</p>
<ul>{{range .Targets}}<li><code>{{.Spec}}</code>: {{.Implementation}}, profile {{.Profile}}{{if .Error}} <strong>not connected: {{.Error}}</strong>{{end}}</li>{{end}}</ul>
<p>{{len .Cells}} cells; comparisons with the base: {{.Totals.Same}} same, {{.Totals.Shape}} shape only, {{.Totals.Behavioural}} behavioural
({{.Totals.Triaged}} triaged, {{.Totals.New}} new, {{.Totals.Changed}} changed); {{.Totals.Gone}} triage rows gone.</p>
{{if .Gone}}<h2>Triage rows gone</h2><ul>{{range .Gone}}<li><code>{{.Cell}}</code> (owner <code>{{.Owner}}</code>, {{.Class}}): {{.Note}}</li>{{end}}</ul>{{end}}
<h2>Differences</h2>
<table><tr><th>cell</th><th>target</th><th>class</th><th>fields</th><th>state</th><th>triage</th></tr>
{{range $c := .Cells}}{{range $c.Comparisons}}{{if ne .Class "same"}}<tr class="{{.Class}}"><td><a href="#{{$c.Cell}}">{{$c.Cell}}</a></td><td><code>{{.Target}}</code></td><td>{{.Class}}</td>
<td>{{range .Fields}}{{.}} {{end}}{{if .Rules}}<br>rules: {{range .Rules}}{{.}} {{end}}{{end}}</td><td class="{{.State}}">{{.State}}</td>
<td>{{with .Triage}}{{.Class}} (owner <code>{{.Owner}}</code>{{if .Requirement}}, {{.Requirement}}{{end}}): {{.Note}}{{end}}</td></tr>
{{end}}{{end}}{{end}}</table>
<h2>Cells</h2>
{{range $c := .Cells}}<h3 id="{{$c.Cell}}">{{$c.Cell}}</h3>{{if $c.Description}}<p>{{$c.Description}} {{range $c.Requirements}}<code>{{.}}</code> {{end}}</p>{{end}}
<table><tr>{{range $.Targets}}<th><code>{{.Spec}}</code></th>{{end}}</tr><tr>{{range $i, $t := $.Targets}}<td><pre>{{json (obs $c $i)}}</pre></td>{{end}}</tr></table>
{{end}}</body></html>
`))
