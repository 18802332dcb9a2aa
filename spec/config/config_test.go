package config_test

import (
	"encoding/json"
	"testing"

	"github.com/codemode-conformance/codemode/spec/config"
	"github.com/google/go-cmp/cmp"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

func TestConfig(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "spec/config")
}

func resolve(raw string) (config.Config, error) { return config.Resolve(json.RawMessage(raw)) }

var _ = Describe("Resolve", func() {
	DescribeTable("activation (CM-CFG-01..03)", func(raw string, enabled bool) {
		c, err := resolve(raw)
		Expect(err).NotTo(HaveOccurred())
		Expect(c.Enabled).To(Equal(enabled))
	},
		Entry("omitted", "", false),
		Entry("null", "null", false),
		Entry("true", "true", true),
		Entry("false", "false", false),
		Entry("object without enabled", `{"timeoutMs": 5000}`, false),
		Entry("enabled false", `{"enabled": false}`, false),
		Entry("enabled as string", `{"enabled": "true"}`, false),
		Entry("enabled true", `{"enabled": true}`, true),
		Entry("a number", `1`, false),
	)

	It("uses the documented defaults (CM-CFG-04)", func() {
		c, err := resolve("true")
		Expect(err).NotTo(HaveOccurred())
		want := config.Config{Enabled: true, Runtime: "quickjs-wasi", Mode: "only", Languages: []string{"javascript", "typescript"},
			TimeoutMs: 10000, MemoryLimitBytes: 67108864, MaxOutputBytes: 65536, MaxSnapshotBytes: 10485760,
			MaxPendingToolCalls: 16, SnapshotTTLSeconds: 900, SearchDefaultLimit: 8, MaxSearchLimit: 50}
		Expect(cmp.Diff(want, c)).To(BeEmpty())
	})

	DescribeTable("clamps and fallbacks (CM-CFG-05)", func(field string, value any, want int64) {
		raw, _ := json.Marshal(map[string]any{"enabled": true, field: value})
		c, err := config.Resolve(raw)
		Expect(err).NotTo(HaveOccurred())
		got := map[string]int64{"timeoutMs": c.TimeoutMs, "memoryLimitBytes": c.MemoryLimitBytes, "maxOutputBytes": c.MaxOutputBytes,
			"maxSnapshotBytes": c.MaxSnapshotBytes, "maxPendingToolCalls": c.MaxPendingToolCalls, "snapshotTtlSeconds": c.SnapshotTTLSeconds,
			"searchDefaultLimit": c.SearchDefaultLimit, "maxSearchLimit": c.MaxSearchLimit}[field]
		Expect(got).To(Equal(want))
	},
		Entry(nil, "timeoutMs", 50, int64(100)),
		Entry(nil, "timeoutMs", 1e9, int64(60000)),
		Entry(nil, "timeoutMs", 2500, int64(2500)),
		Entry(nil, "timeoutMs", 0, int64(10000)),
		Entry(nil, "timeoutMs", -5, int64(10000)),
		Entry(nil, "timeoutMs", 1.5, int64(10000)),
		Entry(nil, "timeoutMs", "500", int64(10000)),
		Entry(nil, "memoryLimitBytes", 10, int64(1048576)),
		Entry(nil, "memoryLimitBytes", 1e12, int64(1073741824)),
		Entry(nil, "maxOutputBytes", 1, int64(1024)),
		Entry(nil, "maxOutputBytes", 1e10, int64(10485760)),
		Entry(nil, "maxSnapshotBytes", 1, int64(1024)),
		Entry(nil, "maxSnapshotBytes", 1e12, int64(268435456)),
		Entry(nil, "maxPendingToolCalls", 500, int64(128)),
		Entry(nil, "maxPendingToolCalls", nil, int64(16)),
		Entry(nil, "snapshotTtlSeconds", 1e7, int64(86400)),
		Entry(nil, "maxSearchLimit", 100, int64(50)),
		Entry(nil, "searchDefaultLimit", 40, int64(40)),
		Entry(nil, "searchDefaultLimit", 1e30, int64(50)),
	)

	It("caps searchDefaultLimit at maxSearchLimit", func() {
		c, err := resolve(`{"enabled": true, "searchDefaultLimit": 30, "maxSearchLimit": 5}`)
		Expect(err).NotTo(HaveOccurred())
		Expect(c.SearchDefaultLimit).To(BeEquivalentTo(5))
	})

	DescribeTable("rejects unsupported enumerated values (CM-CFG-06)", func(raw string) {
		_, err := resolve(raw)
		Expect(err).To(BeAssignableToTypeOf(&config.Error{}))
	},
		Entry("runtime", `{"enabled": true, "runtime": "node"}`),
		Entry("mode", `{"enabled": true, "mode": "hybrid"}`),
		Entry("languages value", `{"enabled": true, "languages": ["python"]}`),
		Entry("languages type", `{"enabled": true, "languages": "javascript"}`),
		Entry("languages empty", `{"enabled": true, "languages": []}`),
		Entry("not JSON", `{enabled`),
	)

	It("ignores enumerated fields while disabled", func() {
		c, err := resolve(`{"runtime": "node"}`)
		Expect(err).NotTo(HaveOccurred())
		Expect(c.Enabled).To(BeFalse())
	})
})

var _ = Describe("Resolve error texts (issue 28 nits)", func() {
	DescribeTable("name a present null as null, never Go's <nil>", func(raw, want string) {
		_, err := resolve(raw)
		Expect(err).To(HaveOccurred())
		Expect(err.Error()).NotTo(ContainSubstring("<nil>"))
		Expect(err.Error()).To(ContainSubstring(want))
	},
		Entry("runtime", `{"enabled": true, "runtime": null}`, "null is not supported"),
		Entry("mode", `{"enabled": true, "mode": null}`, "null is not supported"),
		Entry("a language", `{"enabled": true, "languages": [null]}`, "null is not a supported language"),
	)
})
