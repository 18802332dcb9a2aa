// Package containertest builds local images of the reference for tests of
// container: targets: the image of targets/container/image/Dockerfile and
// two broken variants (testdata/), all from one static codemode-reference
// binary. Building needs the go command and a Docker daemon, nothing pulled.
package containertest

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"

	"github.com/codemode-conformance/codemode/targets/container"
	"github.com/testcontainers/testcontainers-go"
)

// Images names the built images.
type Images struct {
	Serve  string // the reference serving the driver protocol on its EXPOSEd port 7070
	NoPort string // the same without EXPOSE
	Dies   string // exits with status 2 and a usage message before listening
}

var (
	once   sync.Once
	images Images
	err    error
)

// Build builds the images once per process (later calls return the first
// result): the static binary with CGO_ENABLED=0, then each image through
// testcontainers-go. They are tagged codemode-reference:test-<variant> and
// kept for the next run.
func Build(ctx context.Context) (Images, error) {
	once.Do(func() { images, err = build(ctx) })
	return images, err
}

func build(ctx context.Context) (Images, error) {
	if err := container.Available(ctx); err != nil { // also sets testcontainers up as Start does
		return Images{}, err
	}
	out, err := exec.CommandContext(ctx, "go", "env", "GOMOD").Output()
	if err != nil {
		return Images{}, fmt.Errorf("go env GOMOD: %w", err)
	}
	root := filepath.Dir(strings.TrimSpace(string(out)))
	dir, err := os.MkdirTemp("", "codemode-container-image-")
	if err != nil {
		return Images{}, err
	}
	defer os.RemoveAll(dir)
	gobuild := exec.CommandContext(ctx, "go", "build", "-trimpath", "-o", filepath.Join(dir, "codemode-reference"), "./reference/cmd/codemode-reference")
	gobuild.Dir = root
	gobuild.Env = append(os.Environ(), "CGO_ENABLED=0")
	if b, err := gobuild.CombinedOutput(); err != nil {
		return Images{}, fmt.Errorf("static build of codemode-reference: %w\n%s", err, b)
	}
	dockerfiles := map[string]string{
		"serve":  filepath.Join(root, "targets/container/image/Dockerfile"),
		"noport": filepath.Join(root, "targets/container/containertest/testdata/Dockerfile.noport"),
		"dies":   filepath.Join(root, "targets/container/containertest/testdata/Dockerfile.dies"),
	}
	p, err := testcontainers.NewDockerProvider()
	if err != nil {
		return Images{}, err
	}
	defer p.Close()
	names := map[string]string{}
	for variant, df := range dockerfiles {
		b, err := os.ReadFile(df)
		if err != nil {
			return Images{}, err
		}
		// The Dockerfile goes into the context beside the binary.
		if err := os.WriteFile(filepath.Join(dir, "Dockerfile"), b, 0o644); err != nil {
			return Images{}, err
		}
		name, err := p.BuildImage(ctx, &testcontainers.ContainerRequest{FromDockerfile: testcontainers.FromDockerfile{
			Context: dir, Repo: "codemode-reference", Tag: "test-" + variant, KeepImage: true,
		}})
		if err != nil {
			return Images{}, fmt.Errorf("image %s from %s: %w", variant, df, err)
		}
		names[variant] = name
	}
	return Images{Serve: names["serve"], NoPort: names["noport"], Dies: names["dies"]}, nil
}
