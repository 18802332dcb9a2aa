package site_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/codemode-conformance/codemode/spec"
	"github.com/codemode-conformance/codemode/tools/report"
	"github.com/codemode-conformance/codemode/tools/site"
)

// chromium finds a Chromium or Chrome binary: $CHROMIUM, else the Debian
// package's /usr/bin/chromium (.ci/run installs it) or one on PATH. Without
// one the test skips, loudly, outside CI; under CI=true it fails.
func chromium(t *testing.T) string {
	t.Helper()
	if p := os.Getenv("CHROMIUM"); p != "" {
		return p
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	const why = "no Chromium found (set CHROMIUM, or `apt-get install -y chromium` as .ci/run does): the site's browser test did NOT run"
	if os.Getenv("CI") == "true" {
		t.Fatal(why)
	}
	t.Skip("SKIPPED: " + why)
	return ""
}

// resultsDir is where the screenshots go: $SITE_TEST_RESULTS, else
// results/site-test at the top of the checkout (gitignored).
func resultsDir(t *testing.T) string {
	dir := os.Getenv("SITE_TEST_RESULTS")
	if dir == "" {
		dir = filepath.Join("..", "..", "results", "site-test")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	abs, _ := filepath.Abs(dir)
	return abs
}

// failingCase finds a failing (fail or xfail) cell whose failing spec ran a
// corpus case, so its evidence has guest code.
func failingCase(s *site.Site) (col *site.Column, id string, code string) {
	for _, c := range s.Columns {
		for _, g := range s.Areas {
			for _, l := range g.Levels {
				for _, r := range l.Requirements {
					cell := c.Cell(r.ID)
					if cell == nil || (cell.Verdict != report.Fail && cell.Verdict != report.XFail) {
						continue
					}
					for _, e := range cell.Specs {
						if e.Case != nil && (e.Verdict == report.Fail || e.Verdict == report.XFail) {
							return c, r.ID, e.Case.Code
						}
					}
				}
			}
		}
	}
	return nil, "", ""
}

var (
	hrefRE = regexp.MustCompile(`href="([^"]+)"`)
	spaces = regexp.MustCompile(`\s+`)
)

// TestSiteInBrowser builds the site from the committed reports, serves it on
// loopback and checks it in a real headless Chromium: the index renders its
// table (a row per requirement, a cell per column), every link of every page
// resolves (HTTP 200, and its #anchor exists), a failing cell's link leads to
// evidence that shows the case's guest code, and no page is wider than a
// 390 px phone. Screenshots of the index and an implementation page at 390
// and 1366 px go to resultsDir.
func TestSiteInBrowser(t *testing.T) {
	bin := chromium(t)
	start := time.Now()
	s, err := site.Load(site.Options{Root: "../.."})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := site.Write(s, dir); err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(http.FileServer(http.Dir(dir)))
	defer srv.Close()

	opts := append(chromedp.DefaultExecAllocatorOptions[:0:0],
		chromedp.ExecPath(bin), chromedp.Headless, chromedp.NoSandbox, chromedp.DisableGPU, chromedp.NoFirstRun,
		chromedp.Flag("disable-quic", true), chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true), chromedp.Flag("disable-sync", true),
		chromedp.Flag("no-default-browser-check", true), chromedp.UserDataDir(t.TempDir()))
	actx, cancelA := chromedp.NewExecAllocator(context.Background(), opts...)
	defer cancelA()
	ctx, cancel := chromedp.NewContext(actx)
	defer cancel()
	ctx, cancelT := context.WithTimeout(ctx, 5*time.Minute)
	defer cancelT()

	// The index renders its table: one row per requirement, a cell per column.
	if err := chromedp.Do(ctx,
		chromedp.EmulateViewport(1366, 900),
		chromedp.Navigate(srv.URL+"/index.html"),
		chromedp.WaitVisible(chromedp.CSS("#matrix")),
	); err != nil {
		t.Fatalf("index: %v", err)
	}
	title := run(t, ctx, chromedp.Title())
	rows := run(t, ctx, chromedp.Evaluate[int](`document.querySelectorAll("#matrix tbody tr:not(.area):not(.level)").length`))
	cells := run(t, ctx, chromedp.Evaluate[int](`document.querySelectorAll("#matrix td.cell").length`))
	linked := run(t, ctx, chromedp.Evaluate[int](`document.querySelectorAll("#matrix td.cell a[href]").length`))
	t.Logf("%v: index rendered: %d rows, %d cells, %d of them linked", time.Since(start), rows, cells, linked)
	if want := len(spec.Requirements()); rows != want {
		t.Errorf("index table has %d requirement rows, want %d (spec/requirements.yaml)", rows, want)
	}
	if want := rows * len(s.Columns); cells != want {
		t.Errorf("index table has %d cells, want %d (%d rows × %d columns)", cells, want, rows, len(s.Columns))
	}
	if !strings.Contains(title, "Requirements") {
		t.Errorf("index title %q", title)
	}

	// Every link of the rendered index, then of every page it leads to, resolves.
	links := run(t, ctx, chromedp.Evaluate[[]string](`Array.from(document.querySelectorAll("a[href]"), a => a.href)`))
	if linked == 0 || len(links) < linked {
		t.Errorf("index has %d links for its %d linked cells", len(links), linked)
	}
	checkLinks(t, srv.URL, links)
	t.Logf("%v: links checked", time.Since(start))

	// A failing cell's link leads to evidence showing its guest code.
	col, id, code := failingCase(s)
	if col == nil {
		t.Fatal("no failing cell with a corpus case in the committed reports: nothing to check the evidence page with")
	}
	href := col.EvidenceHref(id)
	if err := chromedp.Do(ctx,
		chromedp.Click(chromedp.CSS(fmt.Sprintf(`#matrix a[href=%q]`, href))),
		chromedp.WaitVisible(chromedp.CSS(fmt.Sprintf(`section[id=%q] pre.guest`, id))),
	); err != nil {
		t.Fatalf("evidence of %s in %s (%s): %v", id, col.Title, href, err)
	}
	t.Logf("%v: evidence of %s in %s shown", time.Since(start), id, col.Title)
	location := run(t, ctx, chromedp.Location())
	guest := run(t, ctx, chromedp.Text(chromedp.CSS(fmt.Sprintf(`section[id=%q] pre.guest`, id))))
	if !strings.HasSuffix(location, "/"+href) {
		t.Errorf("clicking %s's cell in %s led to %s", id, col.Title, location)
	}
	if norm(guest) == "" || !strings.Contains(norm(guest), norm(code)) {
		t.Errorf("evidence of failing %s in %s shows guest code %q, want the case's %q", id, col.Title, guest, code)
	}

	// Phone and desktop: screenshots, and no page wider than the viewport.
	out := resultsDir(t)
	for _, w := range []struct {
		name          string
		width, height int64
	}{{"phone", 390, 844}, {"desktop", 1366, 900}} {
		for _, p := range []struct{ name, path string }{{"index", "/index.html"}, {col.Slug, "/" + col.Slug + "/index.html"}} {
			vp := chromedp.EmulateViewport(w.width, w.height)
			if w.name == "phone" {
				vp = chromedp.EmulateViewport(w.width, w.height, chromedp.EmulateMobile)
			}
			// A tab per screenshot: a full-page capture leaves its tab's
			// metrics changed.
			tab, closeTab := chromedp.NewContext(ctx)
			if err := chromedp.Do(tab, vp, chromedp.Navigate(srv.URL+p.path), chromedp.WaitVisible(chromedp.CSS("main"))); err != nil {
				t.Fatalf("%s at %d px: %v", p.name, w.width, err)
			}
			scrollW := run(t, tab, chromedp.Evaluate[int64](`document.documentElement.scrollWidth`))
			png := run(t, tab, chromedp.FullScreenshot(100))
			closeTab()
			if scrollW > w.width+1 {
				t.Errorf("%s at %d px is %d px wide: the page scrolls sideways (only its tables may)", p.name, w.width, scrollW)
			}
			file := filepath.Join(out, fmt.Sprintf("%s-%s-%d.png", p.name, w.name, w.width))
			if err := os.WriteFile(file, png, 0o644); err != nil {
				t.Fatal(err)
			}
			t.Logf("%v: screenshot %s", time.Since(start), file)
		}
	}
}

// run runs one browser action and returns its value, failing the test on an error.
func run[T any](t *testing.T, ctx context.Context, a chromedp.Action[T]) T {
	t.Helper()
	v, err := chromedp.Run(ctx, a)
	if err != nil {
		t.Fatalf("browser: %v", err)
	}
	return v
}

func norm(s string) string { return strings.TrimSpace(spaces.ReplaceAllString(s, " ")) }

// checkLinks fetches every same-origin link, and recursively the links of
// each HTML page fetched, checking HTTP 200 and that a #fragment names an
// id of its page.
func checkLinks(t *testing.T, origin string, start []string) {
	t.Helper()
	bodies := map[string]string{}
	get := func(u string) (string, bool) {
		if b, ok := bodies[u]; ok {
			return b, true
		}
		res, err := http.Get(u)
		if err != nil {
			t.Errorf("GET %s: %v", u, err)
			return "", false
		}
		b, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if res.StatusCode != http.StatusOK {
			t.Errorf("GET %s: %s", u, res.Status)
			return "", false
		}
		bodies[u] = string(b)
		return string(b), true
	}
	seen := map[string]bool{}
	queue := append([]string(nil), start...)
	for len(queue) > 0 {
		link := queue[0]
		queue = queue[1:]
		if seen[link] {
			continue
		}
		seen[link] = true
		u, err := url.Parse(link)
		if err != nil {
			t.Errorf("link %q: %v", link, err)
			continue
		}
		if !strings.HasPrefix(link, origin) {
			t.Errorf("link %s leaves the site: no external link or asset is allowed", link)
			continue
		}
		frag := u.Fragment
		u.Fragment = ""
		page := u.String()
		body, ok := get(page)
		if !ok {
			continue
		}
		if frag != "" && !strings.Contains(body, fmt.Sprintf(`id="%s"`, frag)) {
			t.Errorf("link %s: no id %q in %s", link, frag, page)
		}
		if !strings.HasSuffix(u.Path, ".html") || seen[page+"#crawled"] {
			continue
		}
		seen[page+"#crawled"] = true
		for _, m := range hrefRE.FindAllStringSubmatch(body, -1) {
			ref, err := u.Parse(htmlUnescape(m[1]))
			if err != nil {
				t.Errorf("%s: link %q: %v", page, m[1], err)
				continue
			}
			queue = append(queue, ref.String())
		}
	}
	if len(bodies) < 5 {
		t.Errorf("only %d pages reached from the index", len(bodies))
	}
}

func htmlUnescape(s string) string {
	return strings.NewReplacer("&amp;", "&", "&#34;", `"`, "&#39;", "'", "&lt;", "<", "&gt;", ">").Replace(s)
}
