package framework

import (
	"strings"
	"testing"
)

func TestFeatureSetHasRejectsATypo(t *testing.T) {
	s := FeatureSet{"yield": true}
	if !s.Has("core") || !s.Has("yield") || s.Has("typescript") {
		t.Errorf("Has: core always in, yield declared, typescript not: got %v %v %v", s.Has("core"), s.Has("yield"), s.Has("typescript"))
	}
	defer func() {
		if r := recover(); r == nil || !strings.Contains(r.(string), "unknown feature") {
			t.Errorf("Has(\"yeild\") recovered %v, want a panic naming an unknown feature", r)
		}
	}()
	s.Has("yeild")
}

func TestCheckProfile(t *testing.T) {
	saved := current
	defer func() { current = saved }()
	for _, c := range []struct {
		requested, declared string
		features            []string
		wantProfile, want   string
	}{
		{"", "", []string{"core", "typescript"}, "v1", ""},
		{"", "v2", []string{"core", "javascript-only"}, "v2", ""},
		{"v2", "", []string{"core"}, "v2", ""},
		{"v2", "v1", []string{"core"}, "v2", `the target implements profile "v1", the run judges profile "v2"`},
		{"", "v1", []string{"core", "typescript", "javascript-only"}, "v1", "mutually exclusive features: typescript and javascript-only"},
		{"", "v1", []string{"core", "bridge-queue"}, "v1", "feature not in profile v1: bridge-queue"},
		{"", "", []string{"core", "bogus"}, "v1", "unknown feature: bogus"},
	} {
		current = Config{Profile: c.requested}
		p, why := checkProfile(c.declared, c.features, "declared")
		if p != c.wantProfile || (c.want == "") != (why == "") || !strings.Contains(why, c.want) {
			t.Errorf("checkProfile(requested %q, declared %q, %v) = %q, %q; want %q and an error containing %q", c.requested, c.declared, c.features, p, why, c.wantProfile, c.want)
		}
	}
}
