package openclaw

// generations maps a pinned version to the OpenClaw generation of its code
// mode; absent means generation 1 (2026.5–2026.7.x, profile v1).
// Generation 2 (2026.8–2026.9.x, profile v2) has another run setup and
// .mjs chunks, driven by adapter-v2.mjs.
var generations = map[string]int{
	"2026.9.6": 2,
}

// adapterEntry is the adapter script that drives version.
func adapterEntry(version string) string {
	if generations[version] == 2 {
		return "adapter-v2.mjs"
	}
	return "adapter.mjs"
}
