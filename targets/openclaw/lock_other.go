//go:build !unix

package openclaw

import (
	"context"
	"errors"
)

func lockFile(context.Context, string) (func(), error) {
	return nil, errors.New("file locking needs a unix system")
}
