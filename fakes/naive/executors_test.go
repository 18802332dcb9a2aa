package naive_test

import (
	"path/filepath"

	"github.com/codemode-conformance/codemode/fakes/naive"
	"github.com/codemode-conformance/codemode/tools/report"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// executorFeatures are the features the executor specs are judged with: a
// target with two executors (executor-choice) whose cells run on Node
// (node-executor), as OpenClaw 2026.9.6. The reference declares neither (it
// has one executor, QuickJS-WASI), so no broken variant of it can show these
// specs failing; the naive target, a node:vm target, declared with them,
// does instead (issue 24).
const executorFeatures = "core,yield,shell-exec,telemetry,tools-api,executor-choice,node-executor"

var _ = Describe("the executor specs against a Node target declaring executor-choice and node-executor", func() {
	It("fail CM-CFG-09 and CM-RUN-07 on the naive target: one engine whatever the executor, and maxSnapshotBytes checked on a live continuation", func() {
		o := conformanceOf(nil, "--profile", "v2", "--features", executorFeatures, "--req", "CM-CFG-09", "--req", "CM-RUN-07", "--label-filter", noCases)
		// target.mjs ignores tools.codeMode.executor (every cell runs in
		// node:vm) and refuses a suspension over its made-up snapshot size.
		for id, msg := range map[string]string{"CM-CFG-09": `executor "quickjs" chosen by configuration must run the cell on QuickJS`, "CM-RUN-07": "maxSnapshotBytes 1024 must not refuse the suspension"} {
			r := o.requirement(id)
			Expect(r.Verdict).To(Equal(report.Fail), "%s must fail on the naive target\n%s", id, o.Stdout)
			Expect(r.Specs).To(ContainElement(HaveField("Message", ContainSubstring(msg))), "%s must fail for its own fault\n%s", id, o.Stdout)
		}
	})

	It("fail CM-CFG-08 on a target that resumes a waiting cell on another engine", func() {
		o := conformanceAt(filepath.Join(filepath.Dir(naive.Script()), "testdata", "engine-switch.mjs"), nil, "--profile", "v2", "--features", executorFeatures, "--req", "CM-CFG-08", "--label-filter", noCases)
		r := o.requirement("CM-CFG-08")
		Expect(r.Verdict).To(Equal(report.Fail), "CM-CFG-08 must fail when wait resumes the cell on another engine\n%s", o.Stdout)
		Expect(r.Specs).To(ContainElement(HaveField("Message", ContainSubstring("must be resumed by wait on the same one"))), "CM-CFG-08 must fail for its own fault\n%s", o.Stdout)
	})
})
