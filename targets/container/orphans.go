package container

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"

	"github.com/moby/moby/client"
	"github.com/testcontainers/testcontainers-go"
)

// LabelOwner names the harness process that started a container:
// "<hostname>/<pid>".
const LabelOwner = "org.codemode-conformance.owner"

var reapOnce sync.Once

// owner is this process's LabelOwner value.
func owner() string {
	h, _ := os.Hostname()
	return h + "/" + strconv.Itoa(os.Getpid())
}

// ReapOrphans removes the target containers whose owner ran on this host
// and no longer exists: what a harness killed with SIGKILL (no chance to
// stop them) left behind, since testcontainers' reaper is off. Containers of
// live harnesses, of other hosts, or without LabelOwner are left alone. It
// returns the short IDs it removed. The first Start of a process calls it.
func ReapOrphans(ctx context.Context) (removed []string, err error) {
	cli, err := testcontainers.NewDockerClientWithOpts(ctx)
	if err != nil {
		return nil, err
	}
	defer cli.Close()
	res, err := cli.ContainerList(ctx, client.ContainerListOptions{All: true, Filters: make(client.Filters).Add("label", LabelOwner)})
	if err != nil {
		return nil, err
	}
	host, _ := os.Hostname()
	for _, s := range res.Items {
		h, p, ok := strings.Cut(s.Labels[LabelOwner], "/")
		pid, perr := strconv.Atoi(p)
		if !ok || perr != nil || h != host || pid == os.Getpid() || !gone(pid) {
			continue
		}
		if _, err := cli.ContainerRemove(ctx, s.ID, client.ContainerRemoveOptions{Force: true, RemoveVolumes: true}); err != nil {
			return removed, fmt.Errorf("removing orphaned target container %s: %w", shortID(s.ID), err)
		}
		removed = append(removed, shortID(s.ID))
	}
	return removed, nil
}
